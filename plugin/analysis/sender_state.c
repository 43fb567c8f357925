/* sender_state.c: reconstructing one sender's TCP state from its packets and
 * its peer's feedback.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sender_state.h"

#include <string.h>

/* A peer ACK may acknowledge data the capture missed, but not absurdly much. */
#define ACK_AHEAD_LIMIT ((int64_t)1 << 30)   /* bytes */

void tapo_sender_init(tapo_sender *s, const tapo_config *cfg)
{
    memset(s, 0, sizeof *s);
    tapo_sb_init(&s->sb);
    tapo_rtt_init(&s->rtt, cfg->rto_initial_s);
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
    /* Options such as timestamps make full segments a little shorter than
     * the MSS option (1448 for 1460): count with the real size. */
    if (s->largest_segment < option && s->largest_segment >= option - option / 10)
        return s->largest_segment;
    return option;
}

double tapo_sender_threshold(const tapo_sender *s, const tapo_config *cfg)
{
    return tapo_rtt_stall_threshold(&s->rtt, cfg->tau);
}

static void note_mss_option(tapo_sender *s, uint16_t mss_option)
{
    if (mss_option && (s->mss_option_min == 0 || mss_option < s->mss_option_min))
        s->mss_option_min = mss_option;
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
    /* Loss signals for the head of the window: SACKed segments, or without
     * SACK the duplicate ACKs since the head was last sent. */
    tapo_sb_desc head;
    describe_range(s, s->snd_una, s->snd_una + 1, &head);
    uint64_t head_dupacks = outstanding > 0 ? head.dupacks_since : 0;
    snap->loss_signals = counts.sacked_out;
    if (!s->sack_seen)
        snap->loss_signals = head_dupacks > UINT32_MAX ? UINT32_MAX : (uint32_t)head_dupacks;

    facts->cur_spurious = false;
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

/* Share of the RTO after which a retransmission that had loss signals is
 * taken as timer-driven; our RTO estimate and the sender's differ a little
 * (Linux's mdev tracking, 4 ms timer ticks). */
#define TIMER_RTO_SHARE 0.9

/* RFC 6675 / RACK: a retransmission is fast when loss signals for it
 * (SACKed later transmissions, or duplicate ACKs without SACK) arrived since
 * it was last sent and it came before the RTO could have expired.  Without
 * such signals, a retransmission after a silence longer than the stall
 * threshold is timer-driven: a tail-loss probe when it resends the last
 * outstanding data rather than the head (an RTO always resends snd_una),
 * otherwise a timeout.  Retransmissions without signals or silence continue
 * a timeout's recovery. */
static tapo_trigger retransmission_trigger(const tapo_sender *s, const tapo_sb_desc *desc,
                                           int64_t start, int64_t end, double now_s,
                                           double gap_s, double threshold_s)
{
    uint64_t signals = desc->sacked_sent_after + (s->sack_seen ? 0 : desc->dupacks_since);
    if (signals >= 1) {
        /* Sent before the capture began: judge by the silence instead. */
        double since_tx = desc->found ? now_s - desc->last_tx_s : 2.0 * gap_s;
        if (since_tx < TIMER_RTO_SHARE * s->rtt.rto_s)
            return TAPO_TRIGGER_FAST;
    }
    if (gap_s <= threshold_s)
        return TAPO_TRIGGER_TIMEOUT;
    bool open = s->ca_state == TAPO_CA_OPEN || s->ca_state == TAPO_CA_DISORDER;
    bool resends_last = end >= s->snd_nxt;
    if (open && resends_last) {
        if (start > s->snd_una)
            return TAPO_TRIGGER_PROBE;
        /* Only one segment out: a probe fires clearly before the RTO. */
        if (desc->found && now_s - desc->last_tx_s < 0.75 * s->rtt.rto_s)
            return TAPO_TRIGGER_PROBE;
    }
    return TAPO_TRIGGER_TIMEOUT;
}

static void enter_state_for(tapo_sender *s, tapo_trigger trigger)
{
    if (trigger == TAPO_TRIGGER_TIMEOUT) {
        s->ca_state = TAPO_CA_LOSS;
        s->recovery_point = s->snd_nxt;
    } else if (trigger == TAPO_TRIGGER_FAST && s->ca_state != TAPO_CA_RECOVERY &&
               s->ca_state != TAPO_CA_LOSS) {
        s->ca_state = TAPO_CA_RECOVERY;
        s->recovery_point = s->snd_nxt;
    }
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

static void record_retransmission(tapo_sender *s, const tapo_packet *p, int64_t lo, int64_t hi,
                                  double gap_s, double threshold_s, tapo_tx_info *tx)
{
    uint32_t mss = tapo_sender_mss(s);
    tapo_sb_desc desc;
    describe_range(s, lo, hi, &desc);
    tapo_trigger trigger = retransmission_trigger(s, &desc, lo, hi, p->time_s, gap_s, threshold_s);
    tx->kind = TAPO_TX_RETRANSMISSION;
    tx->retx_start = lo;
    tx->retx_end = hi;
    tx->trigger = trigger;
    tx->retrans_count = desc.prior_tx_max ? desc.prior_tx_max : 1;
    tx->first_retrans = desc.first_retx != TAPO_TRIGGER_NONE ? desc.first_retx : trigger;
    tx->already_duplicated = desc.dsacked;
    tx->segs_sent_after = tapo_segments(s->snd_nxt - hi, mss);
    tapo_sb_retransmit(&s->sb, lo, hi, trigger, p->time_s, s->tx_order, s->dupacks);
    enter_state_for(s, trigger);
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

static void record_new_data(tapo_sender *s, const tapo_packet *p, int64_t lo, int64_t end,
                            bool fin, tapo_tx_info *tx)
{
    tapo_sb_append(&s->sb, lo, end, p->time_s, s->tx_order, s->dupacks);
    int64_t payload_end = fin ? end - 1 : end;
    if (payload_end > lo && lo >= s->data_start) {
        s->payload_bytes += (uint64_t)(payload_end - lo);
        s->last_new_hints_more = sends_more_soon(s, payload_end - lo, end);
        tx->new_data = true;
        tapo_hs_new_data(&s->hs);
    }
    s->snd_nxt = end;
    if (tx->kind == TAPO_TX_NONE)
        tx->kind = TAPO_TX_NEW;
}

void tapo_sender_on_send(tapo_sender *s, const tapo_packet *p, double gap_s,
                         double threshold_s, tapo_tx_info *tx)
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
        if (hi > lo) {
            record_retransmission(s, p, lo, hi, gap_s, threshold_s, tx);
        } else {
            /* Everything was ACKed already: resent without any need. */
            tx->kind = TAPO_TX_RETRANSMISSION;
            tx->retrans_count = 1;
            tx->trigger = tx->first_retrans = TAPO_TRIGGER_TIMEOUT;
            tx->already_duplicated = true;
        }
    }
    if (end > s->snd_nxt)
        record_new_data(s, p, start > s->snd_nxt ? start : s->snd_nxt, end, fin, tx);
    tapo_seq_advance(&s->seq, p->seq_raw + (uint32_t)(end - start));
    if (fin) {
        s->fin_sent = true;
        tapo_hs_response_ended(&s->hs);
    }
}

/* ---- the peer's packets ----------------------------------------------- */

static void hs_delivered(void *ctx, int64_t start, int64_t end, uint64_t last_tx_order)
{
    tapo_hs_delivered(ctx, start, end, last_tx_order);
}

static void hs_duplicated(void *ctx, int64_t start, int64_t end, uint64_t first_retx_order,
                          uint32_t segments)
{
    tapo_hs_duplicated(ctx, start, end, first_retx_order, segments);
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

/* Earliest transmission time among entries a SACK or ACK newly delivered,
 * sent once (Karn); < 0 when there is none. */
static double rtt_candidate(const tapo_sb_feedback *fb)
{
    return fb->retransmitted_delivered ? -1.0 : fb->earliest_tx_s;
}

/* Returns the RTT candidate of the SACK blocks (see rtt_candidate). */
static double process_sack_blocks(tapo_sender *s, const tapo_packet *p, int64_t ack,
                                  const tapo_sb_listener *listener, bool *newly_sacked)
{
    uint32_t mss = tapo_sender_mss(s);
    double candidate = -1.0;
    for (unsigned i = 0; i < p->sack_count && i < TAPO_MAX_SACK_BLOCKS; i++) {
        int64_t left = tapo_seq_offset(&s->seq, p->sack_left_raw[i]);
        int64_t right = tapo_seq_offset(&s->seq, p->sack_right_raw[i]);
        if (right <= left || right - left > ACK_AHEAD_LIMIT)
            continue;
        if (is_dsack(p, i, left, right, ack, s)) {
            tapo_sb_dsack(&s->sb, left, right, mss, listener);
            continue;
        }
        s->sack_seen = true;
        tapo_sb_feedback fb;
        tapo_sb_sack(&s->sb, left, right, mss, listener, &fb);
        if (fb.newly_delivered > 0)
            *newly_sacked = true;
        raise_dupthres(s, fb.reordering);
        double c = rtt_candidate(&fb);
        if (c >= 0 && (candidate < 0 || c < candidate))
            candidate = c;
    }
    return candidate;
}

/* Returns the RTT candidate of the cumulative ACK; -2 when Karn's rule
 * forbids any sample from this ACK. */
static double advance_una(tapo_sender *s, const tapo_packet *p, int64_t ack,
                          const tapo_sb_listener *listener)
{
    tapo_sb_feedback fb;
    tapo_sb_ack(&s->sb, ack, tapo_sender_mss(s), listener, &fb);
    s->snd_una = ack;
    s->dupacks_at_advance = s->dupacks;
    raise_dupthres(s, fb.reordering);
    if ((s->ca_state == TAPO_CA_RECOVERY || s->ca_state == TAPO_CA_LOSS) &&
        s->snd_una >= s->recovery_point)
        s->ca_state = TAPO_CA_OPEN;
    if (s->ca_state == TAPO_CA_DISORDER) {
        tapo_sb_counts counts;
        tapo_sb_count(&s->sb, tapo_sender_mss(s), &counts);
        if (counts.sacked_out == 0)
            s->ca_state = TAPO_CA_OPEN;
    }
    tapo_hs_acked(&s->hs, s->snd_una, p->time_s, s->rtt.rto_s);
    return fb.retransmitted_delivered ? -2.0 : fb.earliest_tx_s;
}

/* RFC 5681: same ACK, no data, no window change, data outstanding. */
static bool is_duplicate_ack(const tapo_sender *s, const tapo_packet *p, int64_t ack)
{
    return ack == s->snd_una && s->snd_nxt > s->snd_una && p->payload_len == 0 &&
           !(p->flags & (TAPO_TCP_SYN | TAPO_TCP_FIN | TAPO_TCP_RST)) &&
           s->rwnd_seen && p->window == s->rwnd;
}

static void process_ack(tapo_sender *s, const tapo_packet *p, const tapo_config *cfg)
{
    if (!s->anchored) {
        /* The capture starts with the peer: its ACK marks our snd_una. */
        s->snd_una = s->snd_nxt = s->data_start = tapo_seq_offset(&s->seq, p->ack_raw);
        s->recovery_point = s->snd_una;
        s->anchored = true;
    }
    int64_t ack = tapo_seq_offset(&s->seq, p->ack_raw);
    if (ack > s->snd_nxt) {
        if (ack - s->snd_nxt > ACK_AHEAD_LIMIT)
            return;   /* nonsense: ignore the whole ACK */
        s->snd_nxt = ack;   /* the capture missed some of our data */
    }
    tapo_sb_listener listener = { hs_delivered, hs_duplicated, &s->hs };
    bool newly_sacked = false;
    double sack_tx = process_sack_blocks(s, p, ack, &listener, &newly_sacked);
    bool dupack = is_duplicate_ack(s, p, ack);
    double ack_tx = -1.0;
    if (ack > s->snd_una)
        ack_tx = advance_una(s, p, ack, &listener);
    else if (dupack)
        s->dupacks++;
    /* Linux (tcp_ack_update_rtt): the cumulative ACK's sample first, the
     * SACK's when the ACK gave none; nothing after acking retransmitted data. */
    double tx_s = ack_tx >= 0 ? ack_tx : (ack_tx == -2.0 ? -1.0 : sack_tx);
    if (tx_s >= 0)
        tapo_rtt_sample(&s->rtt, p->time_s - tx_s, cfg->rto_min_s);
    if ((newly_sacked || dupack) && s->ca_state == TAPO_CA_OPEN)
        s->ca_state = TAPO_CA_DISORDER;
    if (ack >= s->snd_una) {
        s->rwnd = p->window;
        s->rwnd_seen = true;
        s->rwnd_scale_known = p->window_scale_known;
    }
}

void tapo_sender_on_receive(tapo_sender *s, const tapo_packet *p, const tapo_config *cfg)
{
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
        process_ack(s, p, cfg);
}
