/* sender_state.c: reconstructing one sender's TCP state from its packets and
 * its peer's feedback.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sender_state.h"

#include <math.h>
#include <string.h>

#include "recovery.h"

void tapo_sender_init(tapo_sender *s)
{
    memset(s, 0, sizeof *s);
    tapo_sb_init(&s->sb);
    tapo_hs_init(&s->hs);
    s->ca_state = TAPO_CA_OPEN;
    s->dupthres = TAPO_DUPTHRES_DEFAULT;
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

uint32_t tapo_sender_mss(const tapo_sender *s)
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

static void note_mss_option(tapo_sender *s, uint16_t mss_option)
{
    if (mss_option >= TAPO_MSS_OPTION_MIN && (s->mss_option_min == 0 || mss_option < s->mss_option_min))
        s->mss_option_min = mss_option;
}

/* ---- congestion state -------------------------------------------------- */

/* What moves ca_state (paper Figure 4, Linux's tcp_fastretrans_alert). */
typedef enum {
    CA_LOSS_SIGNAL,               /* a duplicate ACK or a newly SACKed segment */
    CA_FAST_RETRANSMIT,
    CA_TIMEOUT,                   /* a retransmission by the RTO */
    CA_ACK_ADVANCED               /* snd_una moved */
} ca_event;

/* Every change of ca_state passes here.  Recovery and Loss end once snd_una
 * passes the recovery point (snd_nxt when they began); Disorder ends when
 * no SACKed data remains. */
static void ca_on_event(tapo_sender *s, ca_event event)
{
    tapo_ca_state next = s->ca_state;
    switch (event) {
    case CA_LOSS_SIGNAL:
        if (s->ca_state == TAPO_CA_OPEN)
            next = TAPO_CA_DISORDER;
        break;
    case CA_FAST_RETRANSMIT:
        if (s->ca_state != TAPO_CA_RECOVERY && s->ca_state != TAPO_CA_LOSS)
            next = TAPO_CA_RECOVERY;
        break;
    case CA_TIMEOUT:
        next = TAPO_CA_LOSS;
        s->recovery_point = s->snd_nxt;   /* a new timeout restarts Loss */
        break;
    case CA_ACK_ADVANCED:
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

static void ca_on_retransmission(tapo_sender *s, tapo_trigger trigger)
{
    if (trigger == TAPO_TRIGGER_TIMEOUT)
        ca_on_event(s, CA_TIMEOUT);
    else if (trigger == TAPO_TRIGGER_FAST)
        ca_on_event(s, CA_FAST_RETRANSMIT);
}

/* The scoreboard's description of [lo, hi), completed for data sent before
 * the capture began (no entry): then every duplicate ACK since snd_una last
 * moved is a loss signal for it. */
static void describe_range(const tapo_sender *s, int64_t lo, int64_t hi, tapo_sb_desc *desc)
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
    snap->window_closed_frame = s->window_closed_frame;
    /* Loss signals for the head of the window: SACKed segments, or without
     * SACK the duplicate ACKs since the head was last sent. */
    tapo_sb_desc head;
    describe_range(s, s->snd_una, s->snd_una + 1, &head);
    uint64_t head_dupacks = outstanding > 0 ? head.dupacks_since : 0;
    snap->loss_signals = counts.sacked_out;
    if (!s->sack_seen)
        snap->loss_signals = head_dupacks > UINT32_MAX ? UINT32_MAX : (uint32_t)head_dupacks;

    facts->cur_spurious = false;
    facts->dsack_frame = 0;
    facts->window_open_frame = 0;
    facts->outstanding_all_lost = counts.sacked_out == 0 && head_dupacks == 0;
    /* Provisional guess at "more data to send" (two passes know): see
     * last_new_hints_more. */
    facts->had_more_data = s->last_new_hints_more;
    facts->lost_out = counts.lost_out;
}

/* ---- the sender's own packets ----------------------------------------- */

/* Anchors the stream at this packet when the capture missed the handshake. */
static void anchor(tapo_sender *s, const tapo_packet *p)
{
    bool syn = p->flags & TAPO_TCP_SYN;
    if (syn && !s->syn_sent) {
        s->syn_sent = true;
        s->isn_raw = p->seq_raw;
        s->seq.anchored = false;     /* the ISN is offset 0 */
        s->anchored = false;
    }
    if (s->anchored)
        return;
    int64_t start = tapo_seq_offset(&s->seq, p->seq_raw);
    s->snd_una = s->snd_nxt = start;
    s->data_start = syn ? start + 1 : start;
    s->recovery_point = start;
    s->anchored = true;
}

static bool is_window_probe(const tapo_sender *s, const tapo_packet *p, int64_t start)
{
    if (p->keep_alive || p->zero_window_probe)
        return true;
    if (p->flags & (TAPO_TCP_SYN | TAPO_TCP_FIN | TAPO_TCP_RST))
        return false;
    /* Linux probes a closed window with one byte, or with an empty segment
     * at snd_una - 1 (tcp_xmit_probe_skb). */
    bool closed = s->rwnd_seen && s->rwnd == 0;
    bool below_una = s->anchored && start == s->snd_una - 1;
    return p->payload_len <= 1 && (closed || below_una);
}

/* Whether a new segment suggests more data was queued behind it: it was
 * full-sized (a stack sends a short segment only at the end of what the
 * application wrote; PSH says nothing, Linux sets it on every GSO chunk),
 * or it used up the receiver's window (then it was cut short by the window,
 * not by the data). */
static bool sends_more_soon(const tapo_sender *s, int64_t payload, int64_t end)
{
    if (payload >= (int64_t)tapo_sender_mss(s))
        return true;
    return s->rwnd_seen && s->rwnd_scale_known && end - s->snd_una >= (int64_t)s->rwnd;
}

/* When the packet was sent (sender time) and seen. */
static tapo_tx_time tx_time(const tapo_packet *p, const tapo_send_context *ctx)
{
    return (tapo_tx_time){ ctx->send_time_s, p->time_s, p->frame };
}

static void fill_clues(const tapo_sender *s, const tapo_sb_desc *desc, int64_t lo, int64_t hi,
                       const tapo_send_context *ctx, tapo_retx_clues *c)
{
    c->signals = desc->sacked_sent_after + (s->sack_seen ? 0 : desc->dupacks_since);
    c->fast_signals = s->sack_seen ? 1 : s->dupthres;
    c->silence_s = ctx->silence_s;
    c->threshold_s = ctx->threshold_s;
    c->srtt_s = ctx->srtt_s;
    c->rto_s = ctx->rto_s;
    c->open = s->ca_state == TAPO_CA_OPEN || s->ca_state == TAPO_CA_DISORDER;
    c->resends_last = hi >= s->snd_nxt && s->unseen_beyond == 0;
    c->above_una = lo > s->snd_una;
    c->since_tx_known = desc->found;
    c->since_tx_s = ctx->send_time_s - desc->last_tx_s;
}

static void record_retransmission(tapo_sender *s, const tapo_packet *p, int64_t lo, int64_t hi,
                                  const tapo_send_context *ctx, bool original_new,
                                  tapo_tx_info *tx)
{
    uint32_t mss = tapo_sender_mss(s);
    tapo_sb_desc desc;
    describe_range(s, lo, hi, &desc);
    tapo_retx_clues clues;
    fill_clues(s, &desc, lo, hi, ctx, &clues);
    tapo_trigger trigger = tapo_retx_trigger(&clues);
    tapo_trigger first = desc.first_retx != TAPO_TRIGGER_NONE ? desc.first_retx : trigger;
    uint32_t lost_before = 0;
    if (ctx->away && desc.found && desc.unseen) {
        /* Every earlier copy was lost before the capture point. */
        tapo_unseen_clues u = {
            .original_new = original_new,
            .unseen_packets = ctx->unseen_packets,
            .since_armed_s = clues.since_tx_s < ctx->silence_s ? clues.since_tx_s : ctx->silence_s,
        };
        tapo_unseen_estimate est;
        tapo_retx_unseen(&clues, &u, trigger, &est);
        lost_before = est.lost_retransmissions;
        first = est.first_trigger;
        tx->inferred |= est.inferred;
        /* Other unseen packets carried data above everything seen. */
        s->unseen_beyond += est.unseen_beyond;
        tx->unseen_segments = est.unseen_beyond;
        if (original_new) {
            tx->unseen_segments += tapo_segments(hi - lo, mss);
            /* The lost original was the highest new data: its size tells
             * whether more was queued behind it. */
            tx->original_new = true;
            tx->original_hints_more = est.unseen_beyond > 0 || sends_more_soon(s, hi - lo, hi);
            s->last_new_hints_more = tx->original_hints_more;
        }
        /* Recovery as the sender went through it. */
        if (lost_before)
            ca_on_retransmission(s, first);
    }
    tx->kind = TAPO_TX_RETRANSMISSION;
    tx->retx_start = lo;
    tx->retx_end = hi;
    tx->trigger = trigger;
    tx->lost_before = lost_before;
    tx->retrans_count = (desc.prior_tx_max ? desc.prior_tx_max : 1) + lost_before;
    tx->first_retrans = first;
    tx->already_duplicated = desc.dsacked;
    tx->orig_frame = desc.orig_frame;
    tx->first_retx_frame = desc.first_retx_frame;
    tx->signal_frame = desc.signal_frame;
    tx->segs_sent_after = tapo_segments(s->snd_nxt - hi, mss) + s->unseen_beyond;
    tapo_sb_retransmit(&s->sb, lo, hi, first, lost_before, tx_time(p, ctx), s->tx_order, s->dupacks);
    ca_on_retransmission(s, trigger);
}

/* When the capture saw the cumulative ACK that first covered offset,
 * unless that was too long ago to remember. */
static tapo_opt_s acked_seen(const tapo_sender *s, int64_t offset)
{
    tapo_opt_s when = tapo_opt_s_none();
    for (unsigned k = 0; k < s->una_ring.count; k++) {
        const tapo_una_advance *a = &s->una_advances[k];
        if (a->to > offset && (!when.known || a->seen_s < when.s))
            when = tapo_opt_s_of(a->seen_s);
    }
    return when;
}

void tapo_sender_acks_received(const tapo_sender *s, double send_time_s, double margin_s,
                               bool has_echo, uint32_t echo, tapo_acks_received *out)
{
    bool known = false, missing = false;
    int64_t una = 0;
    for (unsigned k = 0; k < s->una_ring.count; k++) {
        const tapo_una_advance *a = &s->una_advances[k];
        bool newer = has_echo && a->has_ts && (int32_t)(a->tsval - echo) > 0;
        bool arrived = a->seen_s <= send_time_s + margin_s && !newer;
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
    if (!acks->behind)
        return;
    uint32_t behind = tapo_segments(s->snd_nxt - acks->una, tapo_sender_mss(s)) + s->unseen_beyond;
    if (behind > snap->packets_out)
        snap->packets_out = behind;
    if (acks->missing)
        snap->inferred |= TAPO_INFERRED_ACKS_LATE;
}

/* The sender resent data the receiver had acknowledged.  At the sender, a
 * needless resend.  Away from it, when the ACK was seen well before the
 * sender resent the data (not merely on its way), proof that the ACK had
 * not reached the sender, which resent after its timer (an RTO resends
 * snd_una); its snd_una stays there until it sends new data again. */
static void record_acked_resend(tapo_sender *s, int64_t start, int64_t end,
                                const tapo_send_context *ctx, tapo_tx_info *tx)
{
    tx->kind = TAPO_TX_RETRANSMISSION;
    tx->retrans_count = 1;
    tx->trigger = tx->first_retrans = TAPO_TRIGGER_TIMEOUT;
    tx->already_duplicated = true;
    tapo_opt_s acked = acked_seen(s, start);
    if (!ctx->away || !acked.known || ctx->send_time_s < acked.s + ctx->margin_s)
        return;
    tx->retx_start = start;
    tx->retx_end = end < s->snd_una ? end : s->snd_una;
    tx->acks_late = true;
    tx->inferred |= TAPO_INFERRED_ACKS_LATE;
    s->una_late = true;
    s->una_at_sender = start;
    tx->segs_sent_after = tapo_segments(s->snd_nxt - tx->retx_end, tapo_sender_mss(s)) + s->unseen_beyond;
    if (ctx->silence_s >= TAPO_TIMER_SLACK * ctx->threshold_s)
        ca_on_event(s, CA_TIMEOUT);
}

/* New data [lo, end) sent at 'seen' (NULL: inferred from what followed,
 * sent after the latest transmission seen). */
static void record_new_data(tapo_sender *s, int64_t lo, int64_t end, bool fin,
                            const tapo_tx_time *seen, tapo_tx_info *tx)
{
    tapo_tx_time when = seen ? *seen : (tapo_tx_time){ s->last_tx_s, s->last_seen_s, 0 };
    tapo_sb_append(&s->sb, lo, end, when, s->tx_order, s->dupacks, seen != NULL);
    int64_t payload_end = fin ? end - 1 : end;
    if (payload_end > lo && lo >= s->data_start) {
        s->payload_bytes += (uint64_t)(payload_end - lo);
        if (seen) {
            s->una_late = false;   /* new data: the window had opened */
            /* Inferred data was sent before the packet that reveals it:
             * it answers no hindsight question about later stalls. */
            s->last_new_hints_more = sends_more_soon(s, payload_end - lo, end);
            tx->new_data = true;
            tapo_hs_new_data(&s->hs);
        }
    }
    s->snd_nxt = end;
    s->nxt_seen_s = when.seen_s;
    if (tx->kind == TAPO_TX_NONE)
        tx->kind = TAPO_TX_NEW;
}

/* Data above snd_nxt after a gap in the sequence: away from the sender the
 * gap was sent and lost before the capture point (at the sender, the
 * capture itself dropped it: nothing to infer). */
static void record_hole(tapo_sender *s, int64_t from, int64_t to)
{
    uint32_t segments = tapo_segments(to - from, tapo_sender_mss(s));
    s->unseen_beyond = s->unseen_beyond > segments ? s->unseen_beyond - segments : 0;
    tapo_tx_info ignored = { 0 };
    record_new_data(s, from, to, false, NULL, &ignored);
    s->tx_order++;   /* the packet revealing the hole was sent after it */
}

/* Whether new-looking data contiguous with snd_nxt is in fact the
 * retransmission of an original lost before the capture point: the sender
 * had sent data the capture never saw (counted by IP IDs, or earlier
 * inferred), and it comes after a silence only a timer ends.  Without IP
 * IDs, a full-sized last segment (more data was queued) outside a pending
 * request's answer stands for the count. */
static bool resends_unseen_original(const tapo_sender *s, const tapo_send_context *ctx)
{
    if (!ctx->away)
        return false;
    if (s->unseen_beyond > 0)
        return true;
    /* The timer that resends the last data outstanding waits at least the
     * minimum RTO (a probe for a single segment, likewise). */
    double timer_floor = fmax(ctx->threshold_s, ctx->rto_min_s);
    if (ctx->silence_s < TAPO_TIMER_SLACK * timer_floor)
        return false;
    if (ctx->unseen_packets.known)
        return ctx->unseen_packets.n >= 1;
    return s->last_new_hints_more && !s->request_pending && s->sent_payload;
}

static void record_data_above(tapo_sender *s, const tapo_packet *p, int64_t start, int64_t end,
                              bool fin, const tapo_send_context *ctx, tapo_tx_info *tx)
{
    int64_t from = start > s->snd_nxt ? start : s->snd_nxt;
    if (ctx->away && start > s->snd_nxt && start > s->data_start) {
        record_hole(s, s->snd_nxt, start);
    } else if (from == s->snd_nxt && from < end && resends_unseen_original(s, ctx)) {
        uint32_t segments = tapo_segments(end - from, tapo_sender_mss(s));
        bool was_beyond = s->unseen_beyond > 0;
        s->unseen_beyond = s->unseen_beyond > segments ? s->unseen_beyond - segments : 0;
        tapo_tx_info ignored = { 0 };
        record_new_data(s, from, end, fin, NULL, &ignored);
        s->tx_order++;
        record_retransmission(s, p, from, end, ctx, !was_beyond, tx);
        return;
    }
    tapo_tx_time now = tx_time(p, ctx);
    record_new_data(s, from, end, fin, &now, tx);
}

/* What a retransmission seen away from the sender revealed about the
 * sender when its stall began, counted with the state it leaves. */
static void describe_revealed(const tapo_sender *s, tapo_tx_info *tx)
{
    if (tx->kind != TAPO_TX_RETRANSMISSION)
        return;
    uint32_t mss = tapo_sender_mss(s);
    if (tx->lost_before)
        tx->lost_segments = tapo_segments(tx->retx_end - tx->retx_start, mss);
    if (tx->acks_late)   /* its snd_una was at most the range's start */
        tx->packets_out_at_sender = tapo_segments(s->snd_nxt - tx->retx_start, mss) + s->unseen_beyond;
}

void tapo_sender_on_send(tapo_sender *s, const tapo_packet *p, const tapo_send_context *ctx,
                         tapo_tx_info *tx)
{
    memset(tx, 0, sizeof *tx);
    if (!p->header_valid)
        return;
    bool syn = p->flags & TAPO_TCP_SYN, fin = p->flags & TAPO_TCP_FIN;
    note_mss_option(s, p->mss_option);
    anchor(s, p);
    int64_t start = tapo_seq_offset(&s->seq, p->seq_raw);
    int64_t end = start + p->payload_len + (syn ? 1 : 0) + (fin ? 1 : 0);
    int64_t before = start - s->data_start;
    tx->data_offset = before > 0 ? (uint64_t)before : 0;
    tx->handshake = syn;
    if (p->payload_len > s->largest_segment)
        s->largest_segment = p->payload_len;
    if (p->payload_len > 0 || syn) {
        s->sent_payload = s->sent_payload || p->payload_len > 0;
        s->request_pending = false;
    }
    if (is_window_probe(s, p, start)) {
        tx->kind = TAPO_TX_WINDOW_PROBE;
        return;
    }
    if (end == start)
        return;   /* a pure ACK carries nothing of the sender's stream */
    s->tx_order++;
    int64_t lo = start > s->snd_una ? start : s->snd_una;
    int64_t hi = end < s->snd_nxt ? end : s->snd_nxt;
    if (start < s->snd_nxt) {
        if (hi > lo)
            record_retransmission(s, p, lo, hi, ctx, false, tx);
        else
            record_acked_resend(s, start, end, ctx, tx);
    }
    if (end > s->snd_nxt)
        record_data_above(s, p, start, end, fin, ctx, tx);
    tapo_seq_advance(&s->seq, p->seq_raw + (uint32_t)(end - start));
    s->last_tx_s = ctx->send_time_s;
    s->last_seen_s = p->time_s;
    if (fin) {
        s->fin_sent = true;
        tapo_hs_response_ended(&s->hs);
    }
    describe_revealed(s, tx);
}

/* ---- the peer's packets ----------------------------------------------- */

/* The hindsight trackers, and the peer packet whose feedback reaches them. */
typedef struct feedback_ctx {
    tapo_hindsight *hs;
    uint32_t frame;
} feedback_ctx;

static void hs_delivered(void *ctx, int64_t start, int64_t end, uint64_t last_tx_order)
{
    tapo_hs_delivered(((feedback_ctx *)ctx)->hs, start, end, last_tx_order);
}

static void hs_duplicated(void *ctx, int64_t start, int64_t end, uint64_t first_retx_order,
                          uint32_t segments)
{
    const feedback_ctx *fc = ctx;
    tapo_hs_duplicated(fc->hs, start, end, first_retx_order, segments, fc->frame);
}

static void raise_dupthres(tapo_sender *s, uint32_t reordering)
{
    if (reordering > TAPO_DUPTHRES_MAX)
        reordering = TAPO_DUPTHRES_MAX;
    if (reordering > s->dupthres)
        s->dupthres = reordering;
}

/* RFC 2883 section 4: a DSACK is the first block, lying below the cumulative
 * ACK or inside the second block. */
static bool is_dsack(const tapo_packet *p, unsigned i, int64_t left, int64_t right, int64_t ack,
                     const tapo_sender *s)
{
    if (i != 0)
        return false;
    if (right <= ack)
        return true;
    if (p->sack_count < 2)
        return false;
    tapo_seqspace space = s->seq;
    int64_t left2 = tapo_seq_offset(&space, p->sack_left_raw[1]);
    int64_t right2 = tapo_seq_offset(&space, p->sack_right_raw[1]);
    return left >= left2 && right <= right2;
}

/* The data an ACK or SACK block newly delivered that gives an RTT sample:
 * when its earliest transmission among those sent once (Karn) was sent. */
typedef struct rtt_candidate {
    bool valid;
    int64_t from, to;             /* stream offsets */
    double tx_time_s;             /* sender time, seconds */
    double seen_s;                /* capture time, seconds */
} rtt_candidate;

static rtt_candidate candidate_of(const tapo_sb_feedback *fb)
{
    return (rtt_candidate){
        .valid = fb->earliest_tx.known, .tx_time_s = fb->earliest_tx.s, .seen_s = fb->earliest_seen_s,
    };
}

/* The SACK blocks' RTT candidate (the earliest over the blocks); sets
 * *newly_sacked when a block delivered new data. */
static rtt_candidate process_sack_blocks(tapo_sender *s, const tapo_packet *p, int64_t ack,
                                         const tapo_sb_listener *listener, bool *newly_sacked)
{
    uint32_t mss = tapo_sender_mss(s);
    rtt_candidate best = { 0 };
    for (unsigned i = 0; i < p->sack_count && i < TAPO_MAX_SACK_BLOCKS; i++) {
        int64_t left = tapo_seq_offset(&s->seq, p->sack_left_raw[i]);
        int64_t right = tapo_seq_offset(&s->seq, p->sack_right_raw[i]);
        if (right <= left || right - left > TAPO_ACK_AHEAD_LIMIT ||
            right - s->snd_nxt > TAPO_ACK_AHEAD_LIMIT)
            continue;
        if (is_dsack(p, i, left, right, ack, s)) {
            tapo_sb_dsack(&s->sb, left, right, mss, listener);
            continue;
        }
        if (left < ack)
            continue;   /* as Linux (tcp_is_sackblock_valid): no SACK reaches below the ACK */
        s->sack_seen = true;
        tapo_sb_feedback fb;
        tapo_sb_sack(&s->sb, left, right, mss, listener, &fb);
        if (fb.newly_delivered > 0)
            *newly_sacked = true;
        raise_dupthres(s, fb.reordering);
        rtt_candidate c = fb.retransmitted_delivered ? (rtt_candidate){ 0 } : candidate_of(&fb);
        if (c.valid && (!best.valid || c.tx_time_s < best.tx_time_s)) {
            best = c;
            best.from = left;
            best.to = right;
        }
    }
    return best;
}

/* The cumulative ACK moved snd_una; *karn_forbids is set when it
 * acknowledged retransmitted data (then no sample at all). */
static rtt_candidate advance_una(tapo_sender *s, const tapo_packet *p, int64_t ack, double rto_s,
                                 const tapo_sb_listener *listener, bool *karn_forbids)
{
    tapo_sb_feedback fb;
    tapo_sb_ack(&s->sb, ack, tapo_sender_mss(s), listener, &fb);
    s->snd_una = ack;
    s->una_advances[tapo_ring_push(&s->una_ring, TAPO_UNA_HISTORY)] =
        (tapo_una_advance){ ack, p->time_s, p->has_timestamps, p->tsval };
    s->dupacks_at_advance = s->dupacks;
    raise_dupthres(s, fb.reordering);
    ca_on_event(s, CA_ACK_ADVANCED);
    tapo_hs_acked(&s->hs, s->snd_una, p->time_s, rto_s);
    *karn_forbids = fb.retransmitted_delivered;
    return candidate_of(&fb);
}

/* RFC 5681: same ACK, no data, no window change, data outstanding. */
static bool is_duplicate_ack(const tapo_sender *s, const tapo_packet *p, int64_t ack)
{
    return ack == s->snd_una && s->snd_nxt > s->snd_una && p->payload_len == 0 &&
           !(p->flags & (TAPO_TCP_SYN | TAPO_TCP_FIN | TAPO_TCP_RST)) &&
           s->rwnd_seen && p->window == s->rwnd;
}

/* Evidence: the first packet that showed each segment missing.  A
 * duplicate ACK shows the head; SACK blocks, the holes below them. */
static void note_loss_signals(tapo_sender *s, const tapo_packet *p, bool dupack)
{
    if (dupack)
        tapo_sb_signal(&s->sb, s->snd_una + 1, p->frame);
    if (s->sb.highest_sacked > s->snd_una)
        tapo_sb_signal(&s->sb, s->sb.highest_sacked, p->frame);
}

/* The peer's window; evidence of when it closed (below one MSS; without
 * the handshake the scale is unknown and only zero is certain) and when it
 * opened again. */
static void note_window(tapo_sender *s, const tapo_packet *p, tapo_rx_info *rx)
{
    s->rwnd = p->window;
    s->rwnd_seen = true;
    s->rwnd_scale_known = p->window_scale_known;
    bool closed = tapo_window_below(p->window, p->window_scale_known, tapo_sender_mss(s));
    if (closed && s->window_closed_frame == 0) {
        s->window_closed_frame = p->frame;
    } else if (!closed && s->window_closed_frame != 0) {
        s->window_closed_frame = 0;
        tapo_hs_window_opened(&s->hs, p->frame);
        rx->window_opened = true;
    }
}

static void process_ack(tapo_sender *s, const tapo_packet *p, double rto_s, tapo_rx_info *rx)
{
    if (!s->anchored) {
        /* The capture starts with the peer: its ACK marks our snd_una. */
        s->snd_una = s->snd_nxt = s->data_start = tapo_seq_offset(&s->seq, p->ack_raw);
        s->recovery_point = s->snd_una;
        s->anchored = true;
    }
    int64_t ack = tapo_seq_offset(&s->seq, p->ack_raw);
    if (ack > s->snd_nxt) {
        if (ack - s->snd_nxt > TAPO_ACK_AHEAD_LIMIT)
            return;   /* nonsense: ignore the whole ACK */
        uint32_t missed = tapo_segments(ack - s->snd_nxt, tapo_sender_mss(s));
        s->unseen_beyond = s->unseen_beyond > missed ? s->unseen_beyond - missed : 0;
        s->snd_nxt = ack;   /* the capture missed some of our data */
    }
    feedback_ctx fc = { &s->hs, p->frame };
    tapo_sb_listener listener = { hs_delivered, hs_duplicated, &fc };
    int64_t una_before = s->snd_una;
    bool newly_sacked = false;
    rtt_candidate sack_rtt = process_sack_blocks(s, p, ack, &listener, &newly_sacked);
    bool dupack = is_duplicate_ack(s, p, ack);
    rtt_candidate ack_rtt = { 0 };
    bool karn_forbids = false;
    if (ack > s->snd_una)
        ack_rtt = advance_una(s, p, ack, rto_s, &listener, &karn_forbids);
    else if (dupack)
        s->dupacks++;
    /* Linux (tcp_ack_update_rtt): the cumulative ACK's sample first, the
     * SACK's when the ACK gave none; nothing after acking retransmitted data. */
    rtt_candidate rtt = ack_rtt.valid ? ack_rtt : (karn_forbids ? (rtt_candidate){ 0 } : sack_rtt);
    rtt.from = una_before < ack ? una_before : ack;
    rtt.to = ack > s->snd_una ? ack : s->snd_una;
    if (sack_rtt.valid && !ack_rtt.valid) {
        rtt.from = sack_rtt.from;
        rtt.to = sack_rtt.to;
    }
    rx->rtt_valid = rtt.valid;
    rx->rtt_from = rtt.from;
    rx->rtt_to = rtt.to;
    rx->rtt_tx_time_s = rtt.tx_time_s;
    rx->rtt_seen_s = rtt.seen_s;
    if (newly_sacked || dupack)
        ca_on_event(s, CA_LOSS_SIGNAL);
    note_loss_signals(s, p, dupack);
    if (ack >= s->snd_una)
        note_window(s, p, rx);
}

void tapo_sender_on_receive(tapo_sender *s, const tapo_packet *p, double rto_s, tapo_rx_info *rx)
{
    memset(rx, 0, sizeof *rx);
    if (!p->header_valid)
        return;
    note_mss_option(s, p->mss_option);
    if (p->flags & TAPO_TCP_SYN) {
        s->init_rwnd = p->window;   /* windows in SYNs are never scaled */
        s->rwnd = p->window;
        s->rwnd_seen = true;
        s->rwnd_scale_known = true;
        /* Decision: the peer's SYN is its first request, pending until we
         * answer it (a late SYN-ACK is the server's delay, not the client's). */
        if (!(p->flags & TAPO_TCP_ACK) && !s->syn_sent)
            s->request_pending = true;
    }
    if (p->payload_len > 0) {
        s->request_pending = true;
        tapo_hs_response_ended(&s->hs);
    }
    if (p->flags & TAPO_TCP_ACK)
        process_ack(s, p, rto_s, rx);
}

/* ---- what the rest of the analysis asks --------------------------------- */

bool tapo_sender_isn(const tapo_sender *s, uint32_t *isn_raw)
{
    *isn_raw = s->isn_raw;
    return s->syn_sent;
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

bool tapo_sender_resends(const tapo_sender *s, const tapo_packet *p, int64_t *from, int64_t *to)
{
    if (!p->header_valid || p->payload_len == 0 || !s->anchored)
        return false;
    tapo_seqspace space = s->seq;
    *from = tapo_seq_offset(&space, p->seq_raw);
    *to = *from + p->payload_len;
    return *from < s->snd_nxt;
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

void tapo_sender_unwatch(tapo_sender *s, const tapo_facts *facts)
{
    tapo_hs_forget(&s->hs, facts);
}

tapo_cur_reveals tapo_tx_reveals(const tapo_tx_info *tx)
{
    return (tapo_cur_reveals){
        .spurious = tx->already_duplicated,
        .acks_late = tx->acks_late,
        .lost_segments = tx->lost_before ? tx->lost_segments : 0,
    };
}

void tapo_sender_watch_cur(tapo_sender *s, const tapo_tx_info *tx)
{
    tapo_cur_reveals reveals = tapo_tx_reveals(tx);
    tapo_hs_cur(&s->hs, tx->retx_start, tx->retx_end, &reveals);
}

void tapo_sender_watch_gap(tapo_sender *s, tapo_facts *facts, double from_s, double to_s,
                           double threshold_s)
{
    tapo_hs_watch_gap(&s->hs, facts, from_s, to_s, threshold_s);
}

void tapo_sender_sent_at(tapo_sender *s, double t_s, uint32_t frame, double margin_s)
{
    tapo_hs_sent_at(&s->hs, t_s, frame, margin_s);
}
