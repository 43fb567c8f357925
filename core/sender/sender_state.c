/* sender_state.c: reconstructing one sender's TCP state from its packets and
 * its peer's feedback.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sender/sender_state.h"

#include <string.h>

#include "sender/sender_internal.h"

void tapo_sender_init(tapo_sender *s)
{
    memset(s, 0, sizeof *s);
    tapo_sb_init(&s->sb);
    tapo_hs_init(&s->hs);
    s->ca_state = TAPO_CA_OPEN;
    s->dupthres = TAPO_DUPTHRES_DEFAULT;
    s->mss = TAPO_MSS_FALLBACK;
}

void tapo_sender_release(tapo_sender *s)
{
    tapo_sb_destroy(&s->sb);
    tapo_hs_destroy(&s->hs);
}

void tapo_sender_destroy(tapo_sender *s)
{
    tapo_sender_release(s);
}

/* The MSS the segment counts use: the MSS options', unless the segments
 * sent show a smaller one (options such as timestamps) or the option says
 * nothing about the path (jumbo, loopback). */
static uint32_t effective_mss(const tapo_sender *s)
{
    uint32_t option = s->mss_option_min;
    if (option == 0)
        return s->largest_segment ? s->largest_segment : TAPO_MSS_FALLBACK;
    if (s->largest_segment < option &&
        (s->largest_segment >= TAPO_FULL_SEGMENT_SHARE * option ||
         (option > TAPO_MSS_JUMBO && s->largest_segment >= TAPO_MSS_CLASSIC_MIN)))
        return s->largest_segment;
    return option;
}

void tapo_sender_note_mss_option(tapo_sender *s, uint16_t mss_option)
{
    if (mss_option >= TAPO_MSS_OPTION_MIN && (s->mss_option_min == 0 || mss_option < s->mss_option_min)) {
        s->mss_option_min = mss_option;
        s->mss = effective_mss(s);
    }
}

void tapo_sender_note_segment(tapo_sender *s, uint32_t payload_len)
{
    if (payload_len > s->largest_segment) {
        s->largest_segment = payload_len;
        s->mss = effective_mss(s);
    }
}

/* ---- congestion state -------------------------------------------------- */

/* Every change of ca_state passes here.  Recovery and Loss end once snd_una
 * passes the recovery point (snd_nxt when they began); Disorder ends when
 * no SACKed data remains. */
void tapo_ca_on_event(tapo_sender *s, tapo_ca_event event)
{
    tapo_ca_state next = s->ca_state;
    switch (event) {
    case TAPO_CA_EVENT_LOSS_SIGNAL:
        if (s->ca_state == TAPO_CA_OPEN)
            next = TAPO_CA_DISORDER;
        break;
    case TAPO_CA_EVENT_FAST_RETRANSMIT:
        if (s->ca_state != TAPO_CA_RECOVERY && s->ca_state != TAPO_CA_LOSS)
            next = TAPO_CA_RECOVERY;
        break;
    case TAPO_CA_EVENT_TIMEOUT:
        next = TAPO_CA_LOSS;
        s->recovery_point = s->snd_nxt;   /* a new timeout restarts Loss */
        break;
    case TAPO_CA_EVENT_ACK_ADVANCED:
        if ((s->ca_state == TAPO_CA_RECOVERY || s->ca_state == TAPO_CA_LOSS) &&
            s->snd_una >= s->recovery_point) {
            next = TAPO_CA_OPEN;
        } else if (s->ca_state == TAPO_CA_DISORDER) {
            tapo_sb_counts counts;
            tapo_sb_count(&s->sb, tapo_sender_mss(s), &counts);
            if (counts.sacked_out == 0)
                next = TAPO_CA_OPEN;
        }
        break;
    }
    if (next == TAPO_CA_RECOVERY && s->ca_state != TAPO_CA_RECOVERY)
        s->recovery_point = s->snd_nxt;
    s->ca_state = next;
}

void tapo_ca_on_retransmission(tapo_sender *s, tapo_trigger trigger)
{
    if (trigger == TAPO_TRIGGER_TIMEOUT)
        tapo_ca_on_event(s, TAPO_CA_EVENT_TIMEOUT);
    else if (trigger == TAPO_TRIGGER_FAST)
        tapo_ca_on_event(s, TAPO_CA_EVENT_FAST_RETRANSMIT);
}

/* The scoreboard's description of [lo, hi), completed for data sent before
 * the capture began (no entry): then every duplicate ACK since snd_una last
 * moved is a loss signal for it. */
void tapo_sender_describe_range(const tapo_sender *s, int64_t lo, int64_t hi, tapo_sb_desc *desc)
{
    tapo_sb_describe(&s->sb, lo, hi, tapo_sender_mss(s), s->dupacks, desc);
    if (!desc->found)
        desc->dupacks_since = s->dupacks - s->dupacks_at_advance;
}

/* ---- snapshot ---------------------------------------------------------- */

void tapo_sender_snapshot(const tapo_sender *s, tapo_snapshot *snap, tapo_facts *facts)
{
    uint32_t mss = tapo_sender_mss(s);
    int64_t outstanding = s->anchored ? s->snd_nxt - s->snd_una : 0;
    tapo_sb_counts counts;
    tapo_sb_count(&s->sb, mss, &counts);

    snap->ca_state = s->ca_state;
    snap->packets_out = tapo_segments(outstanding, mss);
    if (s->una_late) {
        /* ACKs the capture saw had not reached the sender (see record_acked_resend). */
        snap->packets_out = tapo_segments(s->snd_nxt - s->una_at_sender, mss) + s->unseen_beyond;
        snap->inferred |= TAPO_INFERRED_ACKS_LATE;
    }
    snap->sacked_out = counts.sacked_out;
    snap->holes = counts.holes;
    snap->retrans_out = counts.retrans_out;
    snap->dupthres = s->dupthres;
    snap->rwnd = s->rwnd;
    snap->init_rwnd = s->init_rwnd;
    snap->mss = mss;
    snap->rwnd_seen = s->rwnd_seen;
    snap->rwnd_scale_known = s->rwnd_scale_known;
    snap->request_pending = s->request_pending;
    snap->sent_payload = s->sent_payload;
    snap->queued_more = s->last_new_hints_more;
    snap->window_closed_frame = s->window_closed_frame;
    snap->capture_gap = s->capture_missed;
    /* Loss signals for the head of the window: SACKed segments, or without
     * SACK the duplicate ACKs since the head was last sent. */
    tapo_sb_desc head;
    tapo_sender_describe_range(s, s->snd_una, s->snd_una + 1, &head);
    uint64_t head_dupacks = outstanding > 0 ? head.dupacks_since : 0;
    snap->loss_signals = counts.sacked_out;
    if (!s->sack_seen)
        snap->loss_signals = head_dupacks > UINT32_MAX ? UINT32_MAX : (uint32_t)head_dupacks;

    facts->cur_spurious = false;
    facts->spurious_proof = TAPO_PROOF_NONE;
    facts->proof_frame = 0;
    facts->closing = false;
    facts->dsack_frame = 0;
    facts->window_open_frame = 0;
    facts->outstanding_all_lost = counts.sacked_out == 0 && head_dupacks == 0;
    /* Provisional guess at "more data to send" (two passes know): see
     * last_new_hints_more. */
    facts->had_more_data = s->last_new_hints_more;
    facts->lost_out = counts.lost_out;
}

/* Whether the sender had received the peer's ACK seen at seen_s (and its
 * TSval) when it sent a packet at send_time_s echoing echo. */
static bool ack_had_arrived(double seen_s, bool ack_has_ts, uint32_t tsval, double send_time_s, double margin_s,
                            bool has_echo, uint32_t echo)
{
    bool newer = has_echo && ack_has_ts && (int32_t)(tsval - echo) > 0;
    return seen_s <= send_time_s + margin_s && !newer;
}

/* The SACK state the sender knew: after the latest of the peer's ACKs it
 * had received, when a later one had not arrived. */
static void sacks_received(const tapo_sender *s, double send_time_s, double margin_s, bool has_echo,
                           uint32_t echo, tapo_acks_received *out)
{
    const tapo_peer_view *known = NULL;
    bool later = false;
    for (unsigned k = 0; k < s->view_ring.count; k++) {
        const tapo_peer_view *v = &s->peer_views[tapo_ring_newest(&s->view_ring, TAPO_PEER_VIEWS, k)];
        if (ack_had_arrived(v->seen_s, v->has_ts, v->tsval, send_time_s, margin_s, has_echo, echo)) {
            known = v;
            break;
        }
        later = true;
    }
    if (known && later && known->counted) {
        out->sacks_behind = true;
        out->sacked_out = known->sacked_out;
        out->holes = known->holes;
    }
}

/* own acknowledges the data that came with a: a had arrived. */
static bool acked_by(const tapo_una_advance *a, const tapo_packet *own)
{
    return a->carried_data && own->header_valid && (own->flags & TAPO_TCP_ACK) &&
           tapo_ack_covers(own->ack_raw, a->data_end_raw);
}

void tapo_sender_acks_received(const tapo_sender *s, double send_time_s, double margin_s,
                               bool has_echo, uint32_t echo, const tapo_packet *own, tapo_acks_received *out)
{
    bool known = false, missing = false;
    int64_t una = 0;
    memset(out, 0, sizeof *out);
    sacks_received(s, send_time_s, margin_s, has_echo, echo, out);
    for (unsigned k = 0; k < s->una_ring.count; k++) {
        const tapo_una_advance *a = &s->una_advances[k];
        bool proven = acked_by(a, own);
        bool newer = !proven && has_echo && a->has_ts && (int32_t)(a->tsval - echo) > 0;
        bool arrived = proven ||
                       ack_had_arrived(a->seen_s, a->has_ts, a->tsval, send_time_s, margin_s, has_echo, echo);
        if (arrived && (!known || a->to > una)) {
            una = a->to;
            known = true;
        }
        missing = missing || (newer && a->seen_s < send_time_s - margin_s);
    }
    out->behind = known && una < s->snd_una;
    out->una = una;
    out->missing = out->behind && missing;
}

void tapo_sender_snapshot_behind(const tapo_sender *s, const tapo_acks_received *acks,
                                 tapo_snapshot *snap)
{
    if (acks->sacks_behind) {
        /* SACKs the capture saw had not reached the sender. */
        snap->sacked_out = acks->sacked_out;
        snap->holes = acks->holes;
        if (s->sack_seen)
            snap->loss_signals = acks->sacked_out;
    }
    if (!acks->behind)
        return;
    uint32_t behind = tapo_segments(s->snd_nxt - acks->una, tapo_sender_mss(s)) + s->unseen_beyond;
    if (behind > snap->packets_out)
        snap->packets_out = behind;
    if (acks->missing)
        snap->inferred |= TAPO_INFERRED_ACKS_LATE;
}

/* ---- what the rest of the analysis asks --------------------------------- */

bool tapo_sender_isn(const tapo_sender *s, uint32_t *isn_raw)
{
    *isn_raw = s->isn_raw;
    return s->syn_sent;
}

bool tapo_sender_fin_sent(const tapo_sender *s)
{
    return s->fin_sent;
}

bool tapo_sender_finished(const tapo_sender *s)
{
    return s->fin_sent && s->snd_una >= s->snd_nxt;
}

uint64_t tapo_sender_payload_bytes(const tapo_sender *s)
{
    return s->payload_bytes;
}

void tapo_sender_resume(tapo_sender *s, uint64_t payload_bytes)
{
    s->payload_bytes = payload_bytes;
}

bool tapo_sender_request_pending(const tapo_sender *s)
{
    return s->request_pending;
}

bool tapo_sender_unacked_payload(const tapo_sender *s, const tapo_packet *p)
{
    if (!p->header_valid || p->payload_len == 0 || !s->anchored)
        return false;
    tapo_seqspace space = s->seq;
    return tapo_seq_offset(&space, p->seq_raw) + p->payload_len > s->snd_una;
}

/* p starts below the end of what the sender had sent (*from: its stream
 * offset); the caller checks that the sequence space is anchored. */
static bool starts_below_nxt(const tapo_sender *s, const tapo_packet *p, int64_t *from)
{
    tapo_seqspace space = s->seq;
    *from = tapo_seq_offset(&space, p->seq_raw);
    return *from < s->snd_nxt;
}

bool tapo_sender_resends(const tapo_sender *s, const tapo_packet *p, int64_t *from, int64_t *to)
{
    if (!p->header_valid || p->payload_len == 0 || !s->anchored)
        return false;
    bool below = starts_below_nxt(s, p, from);
    *to = *from + p->payload_len;
    return below;
}

const tapo_una_advance *tapo_sender_acked_by(const tapo_sender *s, int64_t offset)
{
    const tapo_una_advance *first = NULL;
    for (unsigned k = 0; k < s->una_ring.count; k++) {
        const tapo_una_advance *a = &s->una_advances[k];
        if (a->to > offset && (!first || a->seen_s < first->seen_s))
            first = a;
    }
    return first;
}

/* p is a bare FIN that its sender had sent before (*from: its offset). */
static bool resends_fin(const tapo_sender *s, const tapo_packet *p, int64_t *from)
{
    if (!p->header_valid || p->payload_len > 0 || !(p->flags & TAPO_TCP_FIN) || !s->anchored)
        return false;
    return starts_below_nxt(s, p, from);
}

tapo_opt_s tapo_sender_acked_before_resend(const tapo_sender *s, const tapo_packet *p)
{
    int64_t from, to;
    /* A keep-alive repeats an acknowledged byte on purpose (RFC 1122
     * 4.2.3.6): no copy, it says nothing of what had arrived. */
    if (p->keep_alive || p->zero_window_probe)
        return tapo_opt_s_none();
    if (!(tapo_sender_resends(s, p, &from, &to) || resends_fin(s, p, &from)) || from >= s->snd_una)
        return tapo_opt_s_none();
    const tapo_una_advance *a = tapo_sender_acked_by(s, from);
    return a ? tapo_opt_s_of(a->seen_s) : tapo_opt_s_none();
}

bool tapo_sender_keep_alive_resends(const tapo_sender *s, const tapo_packet *p)
{
    int64_t from, to;
    return p->keep_alive && p->payload_len == 1 && tapo_sender_resends(s, p, &from, &to) && from >= s->snd_una;
}

/* The peer's packet p acknowledges up to *ack (stream offset of the
 * sender's data), read without moving the sender's sequence space. */
static bool peer_ack(const tapo_sender *s, const tapo_packet *p, int64_t *ack)
{
    if (!p->header_valid || !(p->flags & TAPO_TCP_ACK) || !s->anchored)
        return false;
    tapo_seqspace space = s->seq;
    *ack = tapo_seq_offset(&space, p->ack_raw);
    return true;
}

uint64_t tapo_sender_acked_unseen(const tapo_sender *s, const tapo_packet *p)
{
    int64_t ack;
    bool unseen = peer_ack(s, p, &ack) && ack > s->snd_nxt && ack - s->snd_nxt <= TAPO_ACK_AHEAD_LIMIT;
    return unseen ? (uint64_t)(ack - s->snd_nxt) : 0;
}

bool tapo_sender_request_unheard(const tapo_sender *s, const tapo_packet *p, double *since_s)
{
    if (!s->request_pending || !s->request_known || !p->header_valid || !(p->flags & TAPO_TCP_ACK) ||
        (int32_t)(p->ack_raw - s->request_seq_raw) > 0)
        return false;
    *since_s = p->time_s - s->request_seen_s;
    return true;
}

bool tapo_sender_acked_all(const tapo_sender *s, const tapo_packet *p)
{
    int64_t ack;
    return peer_ack(s, p, &ack) && ack >= s->snd_nxt;
}

/* A request is what the sender can still answer: new payload (a copy of an
 * answered request, a keep-alive or a window probe asks nothing), before
 * the sender's own FIN. */
void tapo_sender_request_from(tapo_sender *s, const tapo_packet *p)
{
    s->request_pending = true;
    s->request_known = p != NULL;
    s->request_seq_raw = p != NULL ? p->seq_raw : 0;
    s->request_seen_s = p != NULL ? p->time_s : 0.0;
}

void tapo_sender_peer_spoke(tapo_sender *s, const tapo_packet *p)
{
    if (s->fin_sent)
        return;
    if (!s->request_pending)   /* a request already pending keeps its start */
        tapo_sender_request_from(s, p);
    tapo_hs_request(&s->hs);
}

bool tapo_sender_outstanding(const tapo_sender *s)
{
    return s->anchored && s->snd_nxt > s->snd_una;
}

tapo_opt_s tapo_sender_last_tx(const tapo_sender *s)
{
    return s->tx_order > 0 ? tapo_opt_s_of(s->last_tx_s) : tapo_opt_s_none();
}

tapo_opt_s tapo_sender_last_seen(const tapo_sender *s)
{
    return s->tx_order > 0 ? tapo_opt_s_of(s->last_seen_s) : tapo_opt_s_none();
}

bool tapo_sender_continues(const tapo_sender *s, const tapo_packet *p)
{
    if (!p->header_valid || (p->flags & (TAPO_TCP_SYN | TAPO_TCP_RST)) || !s->anchored || !s->sent_payload)
        return false;
    tapo_seqspace space = s->seq;
    return tapo_seq_offset(&space, p->seq_raw) == s->snd_nxt;
}

bool tapo_sender_at_end(const tapo_sender *s, const tapo_packet *p)
{
    if (!p->header_valid || !s->anchored)
        return true;
    tapo_seqspace space = s->seq;
    return tapo_seq_offset(&space, p->seq_raw) >= s->snd_nxt;
}

tapo_opt_s tapo_sender_all_acked_seen(const tapo_sender *s, uint32_t ack_raw)
{
    if (!s->anchored || s->snd_nxt <= s->data_start)
        return tapo_opt_s_none();
    tapo_seqspace space = s->seq;
    return tapo_seq_offset(&space, ack_raw) >= s->snd_nxt ? tapo_opt_s_of(s->nxt_seen_s)
                                                          : tapo_opt_s_none();
}

/* ---- hindsight on the sender's stalls ----------------------------------- */

void tapo_sender_watch(tapo_sender *s, tapo_facts *facts, bool window_closed)
{
    tapo_hs_open(&s->hs, facts, s->snd_una, s->snd_nxt, s->tx_order, window_closed);
}

bool tapo_sender_watching(const tapo_sender *s)
{
    return tapo_hs_open_count(&s->hs) > 0;
}

void tapo_sender_unwatch(tapo_sender *s, const tapo_facts *facts)
{
    tapo_hs_forget(&s->hs, facts);
}

tapo_cur_reveals tapo_tx_reveals(const tapo_tx_info *tx)
{
    return (tapo_cur_reveals){
        .spurious = tx->proof,
        .proof_frame = tx->proof_frame,
        .arrival_unanswered = tx->arrival_unanswered,
        .arrived_frame = tx->arrived_frame,
        .has_ts = tx->has_ts,
        .tsval = tx->tsval,
        .acks_late = tx->acks_late,
        .lost_segments = tx->lost_before ? tx->lost_segments : 0,
    };
}

/* Out of line: called for every possible stall the sender's own packet
 * ends, and inlined it tips the link-time inliner of the per-packet path
 * (1.5 % more instructions, docs/benchmarks.md). */
G_GNUC_NO_INLINE void tapo_sender_watch_sent(tapo_sender *s, const tapo_tx_info *tx, bool fin, bool bare_ack,
                                             double close_by_s)
{
    tapo_hs_cur_sent(&s->hs, fin, bare_ack, close_by_s);
    /* A new bare FIN after its timer's unanswered copies of data (not a
     * copy of the FIN itself, which is the chain). */
    if (tx->gives_up && fin && tx->kind != TAPO_TX_RETRANSMISSION)
        tapo_hs_cur_gave_up(&s->hs, tx->retx_start);
}

void tapo_sender_watch_acked(tapo_sender *s, double release_by_s)
{
    tapo_hs_cur_acked(&s->hs, release_by_s);
}

void tapo_sender_note_transmitted(tapo_sender *s, double t_s, bool new_data)
{
    tapo_hs_transmitted(&s->hs, t_s, new_data);
}

void tapo_sender_watch_cur(tapo_sender *s, const tapo_tx_info *tx)
{
    tapo_cur_reveals reveals = tapo_tx_reveals(tx);
    tapo_hs_cur(&s->hs, tx->retx_start, tx->retx_end, &reveals);
}

void tapo_sender_watch_gap(tapo_sender *s, tapo_facts *facts, double from_s, double to_s,
                           double threshold_s, double end_seen_s)
{
    tapo_hs_watch_gap(&s->hs, facts, from_s, to_s, threshold_s, end_seen_s);
}

void tapo_sender_sent_at(tapo_sender *s, const tapo_packet *p, double t_s, double margin_s,
                         tapo_opt_s unheard_from_s)
{
    /* Its segment at the far ACK (rejoin_after_gap, sender_send.c): what
     * the capture missed was sent before that ACK, inside its gap. */
    if (G_UNLIKELY(tapo_sender_at_far_ack(s, p)))
        tapo_hs_gap_busy(&s->hs);
    tapo_hs_sent_at(&s->hs, t_s, p->frame, margin_s, unheard_from_s);
}
