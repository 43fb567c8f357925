/* sender_send.c: what the sender's own packets do to its state: new data,
 * retransmissions and what they reveal away from the sender, window
 * probes (spec section 2).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sender/sender_state.h"

#include <math.h>
#include <string.h>

#include "sender/recovery.h"
#include "sender/sender_internal.h"

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

/* first: the sender's first packet of a capture that began after its SYN. */
static bool is_window_probe(const tapo_sender *s, const tapo_packet *p, int64_t start, bool first)
{
    if (p->keep_alive || p->zero_window_probe)
        return true;
    if (p->flags & (TAPO_TCP_SYN | TAPO_TCP_FIN | TAPO_TCP_RST))
        return false;
    /* Decision: a capture taken in the middle of a long connection that
     * begins with one byte from a sender begins with a keep-alive (Windows
     * and BSD probe with one old byte, below what the peer acknowledged;
     * without the peer's ACK the capture cannot tell): not data. */
    if (first && p->payload_len == 1)
        return true;
    /* Linux probes a closed window with one byte, or with an empty segment
     * at snd_una - 1 (tcp_xmit_probe_skb). */
    bool closed = s->rwnd_seen && s->rwnd == 0;
    bool below_una = s->anchored && start == s->snd_una - 1;
    return p->payload_len <= 1 && (closed || below_una);
}

/* Without an MSS option the MSS is the largest segment sent so far, so
 * that segment is full-sized by construction: the longest reply of a
 * control connection (an FTP server's 94-byte "150 Opening ..." line)
 * would prove more queued behind it.  It proves that only from RFC 9293's
 * default MSS up, the least a path carries whole. */
static bool full_sized_known(const tapo_sender *s, int64_t payload)
{
    return s->mss_option_min != 0 || payload >= TAPO_MSS_CLASSIC_MIN;
}

/* Whether a new segment suggests more data was queued behind it: it was
 * full-sized (a stack sends a short segment only at the end of what the
 * application wrote; PSH says nothing, Linux sets it on every GSO chunk),
 * or it used up the receiver's window (then it was cut short by the window,
 * not by the data). */
static bool sends_more_soon(const tapo_sender *s, int64_t payload, int64_t end)
{
    if (payload >= (int64_t)tapo_sender_mss(s) && full_sized_known(s, payload))
        return true;
    return s->rwnd_seen && s->rwnd_scale_known && end - s->snd_una >= (int64_t)s->rwnd;
}

/* When the packet was sent (sender time) and seen. */
static tapo_tx_time tx_time(const tapo_packet *p, const tapo_send_context *ctx)
{
    return (tapo_tx_time){ ctx->send_time_s, p->time_s, p->frame };
}

/* Sender packets the capture never saw since the previous one that can
 * have carried data: the ACKs the sender owed its peer (the peer sent
 * payload since the sender's latest packet) are presumed among them, one
 * for each of the peer's packets that took sequence space (a receiver in
 * quick-ack mode acknowledges every segment), so that no copy is claimed
 * that an ACK explains (spec section 8: no transmission without proof). */
static tapo_opt_count unseen_data_packets(const tapo_sender *s, const tapo_send_context *ctx)
{
    tapo_opt_count n = ctx->unseen_packets;
    if (n.known && n.n > 0 && s->peer_data_unacked) {
        uint32_t owed = ctx->owed_acks > 1 ? ctx->owed_acks : 1;
        n.n = n.n > owed ? n.n - owed : 0;
    }
    return n;
}

static void fill_clues(const tapo_sender *s, const tapo_sb_desc *desc, int64_t lo, int64_t hi,
                       const tapo_send_context *ctx, tapo_retx_clues *c)
{
    c->signals = desc->sacked_sent_after + (s->sack_seen ? 0 : desc->dupacks_since);
    c->fast_signals = s->sack_seen ? 1 : s->dupthres;
    c->silence_s = ctx->silence_s;
    c->threshold_s = ctx->threshold_s;
    c->srtt = ctx->srtt;
    c->rto_s = ctx->rto_s;
    c->open = s->ca_state == TAPO_CA_OPEN || s->ca_state == TAPO_CA_DISORDER;
    c->resends_last = hi >= s->snd_nxt && s->unseen_beyond == 0;
    c->above_una = lo > s->snd_una;
    c->since_tx_known = desc->found;
    c->since_tx_s = ctx->send_time_s - desc->last_tx_s;
}

/* What proves the copy of a range unnecessary before it is sent (spec
 * rule 1.0): a D-SACK had reported all of it already, or, with the
 * capture at the receiver, a copy of every byte of it had been seen
 * arriving before this copy was sent (the send time is at or before the
 * true one: placed a whole round trip to the sender before it was seen)
 * and the receiver's TCP answered something since, its ACK not stopping
 * inside the range: it was alive to take it (a host that never answers
 * again may have dropped it after the capture point, and one whose ACK
 * stays in the range never got it: a capture point before a lossy last
 * hop).  Unanswered yet, hindsight confirms it when the receiver
 * answers.  A copy proven so proves every later copy too, even when the
 * receiver answered none of the copies in between. */
static void prove_unnecessary(const tapo_sender *s, const tapo_sb_desc *desc, int64_t lo, int64_t hi,
                              const tapo_send_context *ctx, tapo_tx_info *tx)
{
    if (desc->found && desc->dsacked) {
        tx->proof = TAPO_PROOF_DSACK;
        tx->proof_frame = desc->dsack_frame;
        return;
    }
    if (!(ctx->at_receiver && desc->found && desc->all_seen && desc->latest_seen_s + ctx->margin_s < ctx->send_time_s))
        return;
    uint32_t arrived = desc->orig_frame ? desc->orig_frame : desc->first_retx_frame;
    if (desc->all_arrived) {
        tx->proof = TAPO_PROOF_ARRIVED;
        tx->proof_frame = arrived;
        return;
    }
    /* A duplicate ACK at the range's start after its latest copy arrived,
     * or any packet of the receiver's since whose cumulative ACK still
     * stops there, says the receiver's TCP did not take it (a window it
     * had closed, a corrupt copy, a capture point before a lossy last
     * hop): that answer denies it, now and later. */
    bool answer_stops_at_it = s->peer_last_seen_s > desc->latest_seen_s &&
                              tapo_ack_stops_inside(s->peer_last_ack, lo, hi);
    if ((lo <= s->snd_una && desc->dupacks_since > 0) || answer_stops_at_it)
        return;
    if (s->peer_last_seen_s > desc->latest_seen_s) {
        tx->proof = TAPO_PROOF_ARRIVED;
        tx->proof_frame = arrived;
    } else {
        tx->arrival_unanswered = true;
        tx->arrived_frame = arrived;
    }
}

static void record_retransmission(tapo_sender *s, const tapo_packet *p, int64_t lo, int64_t hi,
                                  const tapo_send_context *ctx, bool original_new,
                                  tapo_tx_info *tx)
{
    uint32_t mss = tapo_sender_mss(s);
    tapo_sb_desc desc;
    tapo_sender_describe_range(s, lo, hi, &desc);
    tapo_retx_clues clues;
    fill_clues(s, &desc, lo, hi, ctx, &clues);
    tapo_trigger trigger = tapo_retx_trigger(&clues);
    tapo_trigger first = desc.first_retx != TAPO_TRIGGER_NONE ? desc.first_retx : trigger;
    uint32_t lost_before = 0;
    if (ctx->away && desc.found && desc.unseen) {
        /* Every earlier copy was lost before the capture point. */
        tapo_unseen_clues u = {
            .original_new = original_new,
            .queued_more = sends_more_soon(s, hi - lo, hi),
            .unseen_packets = unseen_data_packets(s, ctx),
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
            tapo_ca_on_retransmission(s, first);
    }
    tx->kind = TAPO_TX_RETRANSMISSION;
    tx->retx_start = lo;
    tx->retx_end = hi;
    tx->trigger = trigger;
    tx->lost_before = lost_before;
    tx->retrans_count = (desc.prior_tx_max ? desc.prior_tx_max : 1) + lost_before;
    tx->first_retrans = first;
    prove_unnecessary(s, &desc, lo, hi, ctx, tx);
    tx->orig_frame = desc.orig_frame;
    tx->first_retx_frame = desc.first_retx_frame;
    tx->signal_frame = desc.signal_frame;
    tx->segs_sent_after = tapo_segments(s->snd_nxt - hi, mss) + s->unseen_beyond;
    tapo_sb_retransmit(&s->sb, lo, hi, first, lost_before, tx_time(p, ctx), s->tx_order, s->dupacks);
    if (tx->proof == TAPO_PROOF_ARRIVED)
        tapo_sb_mark_arrived(&s->sb, lo, hi);
    tapo_hs_resent(&s->hs, lo, hi);
    tapo_ca_on_retransmission(s, trigger);
}

/* The sender resent data the receiver had acknowledged.  At the sender, a
 * needless resend.  Away from it, when the ACK was seen well before the
 * sender resent the data (not merely on its way), proof that the ACK had
 * not reached the sender, which resent after its timer (an RTO resends
 * snd_una); its snd_una stays there until it sends new data again. */
static void record_acked_resend(tapo_sender *s, const tapo_packet *p, int64_t start, int64_t end,
                                const tapo_send_context *ctx, tapo_tx_info *tx)
{
    /* Each copy of the same acknowledged data counts: away from the sender,
     * its timer resends it while the ACKs do not reach it. */
    tapo_resend_run *run = &s->acked_resend;
    tapo_hs_resent(&s->hs, start, end);
    if (run->copies && start < run->end && run->start < end) {
        run->copies++;
    } else {
        *run = (tapo_resend_run){ start, end, 1, p->frame };
    }
    tx->kind = TAPO_TX_RETRANSMISSION;
    /* Copies made before the ACK came count too. */
    tx->retrans_count = tapo_sb_acked_transmissions(&s->sb, start, end) - 1 + run->copies;
    tx->first_retx_frame = run->copies > 1 ? run->first_frame : 0;
    tx->trigger = tx->first_retrans = TAPO_TRIGGER_TIMEOUT;
    /* The receiver's ACK, captured before this copy, proves it had the
     * data whatever the capture point: it left the receiver before this
     * copy reached it (spec rule 1.0). */
    tx->proof = TAPO_PROOF_ACKED;
    const tapo_una_advance *acked = tapo_sender_acked_by(s, start);
    tx->proof_frame = acked ? acked->frame : 0;
    if (!ctx->away || !acked || ctx->send_time_s < acked->seen_s + ctx->margin_s)
        return;
    tx->retx_start = start;
    tx->retx_end = end < s->snd_una ? end : s->snd_una;
    tx->acks_late = true;
    tx->inferred |= TAPO_INFERRED_ACKS_LATE;
    s->una_late = true;
    s->una_at_sender = start;
    tx->segs_sent_after = tapo_segments(s->snd_nxt - tx->retx_end, tapo_sender_mss(s)) + s->unseen_beyond;
    if (ctx->silence_s >= TAPO_TIMER_SLACK * ctx->threshold_s)
        tapo_ca_on_event(s, TAPO_CA_EVENT_TIMEOUT);
}

/* A reset, or a bare FIN, after the timer's copies of the outstanding head
 * went unanswered (nothing acknowledged since its last copy) is the sender
 * giving up: the silence before it was the chain's, and it carries the
 * chain's cause (spec section 8).  The tx fields then describe the head as
 * the chain left it. */
static void record_give_up(tapo_sender *s, tapo_tx_info *tx)
{
    if (s->snd_nxt <= s->snd_una)
        return;
    tapo_sb_desc head;
    tapo_sender_describe_range(s, s->snd_una, s->snd_una + 1, &head);
    bool timer_chain = head.first_retx == TAPO_TRIGGER_TIMEOUT || head.first_retx == TAPO_TRIGGER_PROBE ||
                       s->ca_state == TAPO_CA_LOSS;
    if (!head.found || head.prior_tx_max < 2 || !timer_chain || s->tx_order_at_advance >= s->tx_order)
        return;
    tx->gives_up = true;
    tx->retx_start = s->snd_una;
    tx->retx_end = s->snd_una + 1;
    tx->retrans_count = head.prior_tx_max - 1;
    tx->first_retrans = head.first_retx;
    tx->trigger = TAPO_TRIGGER_TIMEOUT;
    tx->orig_frame = head.orig_frame;
    tx->first_retx_frame = head.first_retx_frame;
    tx->signal_frame = head.signal_frame;
    tx->segs_sent_after = tapo_segments(s->snd_nxt - s->snd_una, tapo_sender_mss(s));
    tx->segs_sent_after = tx->segs_sent_after > 0 ? tx->segs_sent_after - 1 : 0;
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
            tapo_hs_new_data(&s->hs, when.seen_s);
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

/* The longest a timer takes to send n transmissions after the sender's
 * previous feedback, seconds: an original at once, then n - 1 copies and
 * this one, each after a timeout that doubles (RFC 6298 5.5), each at most
 * the larger of the RTO and RFC 6298's 1 s floor (the estimate may be a
 * Linux sender's where a Windows one waits longer). */
static double timer_chain_s(uint32_t n, double rto_s)
{
    uint32_t doublings = n < TAPO_CHAIN_MAX_DOUBLINGS ? n : TAPO_CHAIN_MAX_DOUBLINGS;
    return (double)((1u << doublings) - 1u) * fmax(rto_s, TAPO_CHAIN_TIMEOUT_FLOOR_S);
}

/* Whether new-looking data contiguous with snd_nxt is in fact the
 * retransmission of an original lost before the capture point: the sender
 * had sent data the capture never saw (counted by IP IDs proven its own,
 * or earlier inferred from them), and it comes after a silence only a
 * timer ends.  Timing alone proves no unseen original (spec section 8):
 * without the IDs it is new data.  Nor do the IDs after a silence longer
 * than the timer's chain of those packets, from a sender with nothing
 * outstanding: the sender was idle first (its application had nothing to
 * send), and a counter that numbered packets while the connection was
 * idle may be the host's, however it stepped while the connection was
 * busy (a Windows host numbers all its traffic from one, and a capture
 * filtered to one connection cannot show the rest). */
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
    tapo_opt_count unseen = unseen_data_packets(s, ctx);
    if (!unseen.known || unseen.n < 1)
        return false;
    return s->snd_una < s->snd_nxt || ctx->silence_s <= timer_chain_s(unseen.n, ctx->rto_s);
}

static void record_data_above(tapo_sender *s, const tapo_packet *p, int64_t start, int64_t end,
                              bool fin, const tapo_send_context *ctx, tapo_tx_info *tx)
{
    int64_t from = start > s->snd_nxt ? start : s->snd_nxt;
    if (start > s->snd_nxt && s->anchored)
        tx->skipped_bytes = (uint64_t)(start - s->snd_nxt);
    if (!ctx->away && start > s->snd_nxt && s->sent_payload)
        s->capture_missed = true;   /* at the sender, a gap in its sequence is the capture's */
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

/* The peer acknowledged exactly up to this segment, more than any window
 * ahead of what the capture saw the sender send (sender_receive.c): both
 * ends agree that the capture missed the data in between (a capture
 * filtered or sliced), which the sender sent and the peer received.  The
 * segment continues the sender's data as the capture saw it, so that
 * later numbers are placed from it and not across a reference gigabytes
 * behind, where the 32-bit wrap would make new data look like copies of
 * old (spec section 8: no transmission claimed without proof).  The
 * missed bytes are not added to the stream, but they are what the sender
 * sent unseen before this segment (tx->skipped_bytes: more than a window,
 * so it was at work, stall_build.c), and before the far ACK, whose stall
 * hindsight revokes.  Out of line: reached only on such a jump. */
G_GNUC_NO_INLINE static int64_t rejoin_after_gap(tapo_sender *s, const tapo_packet *p, tapo_tx_info *tx)
{
    uint32_t seen_end_raw = s->seq.ref_raw + (uint32_t)(s->snd_nxt - s->seq.ref_offset);
    tx->skipped_bytes = (uint32_t)(p->seq_raw - seen_end_raw);
    tapo_hs_gap_busy(&s->hs);
    s->seq.ref_raw = p->seq_raw;
    s->seq.ref_offset = s->snd_nxt;
    s->far_ack_seen = false;
    s->capture_missed = true;
    return s->snd_nxt;
}

/* p's start in the stream; false when it lies outside any window (another
 * stream's packet on the same ports, or garbage) and no ACK of the peer
 * confirms it. */
static bool place_segment(tapo_sender *s, const tapo_packet *p, int64_t *start, tapo_tx_info *tx)
{
    *start = tapo_seq_offset(&s->seq, p->seq_raw);
    if (*start - s->snd_nxt <= TAPO_SEQ_AHEAD_LIMIT)
        return true;
    if (!tapo_sender_at_far_ack(s, p))
        return false;
    *start = rejoin_after_gap(s, p, tx);
    return true;
}

static void take_packet(tapo_sender *s, const tapo_packet *p, const tapo_send_context *ctx,
                        tapo_tx_info *tx)
{
    bool syn = p->flags & TAPO_TCP_SYN, fin = p->flags & TAPO_TCP_FIN;
    bool first = !s->anchored && !syn;
    tapo_sender_note_mss_option(s, p->mss_option);
    anchor(s, p);
    int64_t start;
    if (!place_segment(s, p, &start, tx))
        return;
    int64_t end = start + p->payload_len + (syn ? 1 : 0) + (fin ? 1 : 0);
    int64_t before = start - s->data_start;
    tx->data_offset = before > 0 ? (uint64_t)before : 0;
    tx->handshake = syn;
    tapo_sender_note_segment(s, p->payload_len);
    if (p->payload_len > 0 || syn) {
        s->sent_payload = s->sent_payload || p->payload_len > 0;
        /* Away from the sender, a request the capture saw first may have
         * reached the sender only after this packet left (they crossed):
         * it is still pending, as the sender saw it, unless the sender
         * closes (tapo_sender_peer_spoke). */
        s->request_pending = ctx->request_on_way && !fin && !s->fin_sent;
    } else if (fin) {
        s->request_pending = false;   /* closing, it answers nothing more */
    }
    if (is_window_probe(s, p, start, first)) {
        if (first)   /* a keep-alive's byte lies below what the peer acknowledged */
            s->snd_una = s->snd_nxt = s->data_start = s->recovery_point = start + 1;
        tx->kind = TAPO_TX_WINDOW_PROBE;
        return;
    }
    if ((p->flags & TAPO_TCP_RST) || ((p->flags & TAPO_TCP_FIN) && p->payload_len == 0))
        record_give_up(s, tx);
    if (end == start) {
        tapo_hs_bare_ack(&s->hs);
        return;   /* a pure ACK carries nothing of the sender's stream */
    }
    s->tx_order++;
    int64_t lo = start > s->snd_una ? start : s->snd_una;
    int64_t hi = end < s->snd_nxt ? end : s->snd_nxt;
    if (start < s->snd_nxt) {
        if (hi > lo)
            record_retransmission(s, p, lo, hi, ctx, false, tx);
        else
            record_acked_resend(s, p, start, end, ctx, tx);
    }
    if (end > s->snd_nxt)
        record_data_above(s, p, start, end, fin, ctx, tx);
    tapo_seq_advance(&s->seq, p->seq_raw + (uint32_t)(end - start));
    s->last_tx_s = ctx->send_time_s;
    s->last_seen_s = p->time_s;
    if (fin) {
        s->fin_sent = true;
        tapo_hs_response_ended(&s->hs);
        tapo_hs_fin(&s->hs, p->time_s, ctx->peer_closed);
    }
    describe_revealed(s, tx);
}

void tapo_sender_on_send(tapo_sender *s, const tapo_packet *p, const tapo_send_context *ctx,
                         tapo_tx_info *tx)
{
    memset(tx, 0, sizeof *tx);
    if (!p->header_valid)
        return;
    tx->unseen_counted = ctx->unseen_packets.known;
    if (ctx->unseen_packets.known && ctx->unseen_packets.n == 0)
        tx->none_unseen = true;
    tx->has_ts = p->has_timestamps;
    tx->tsval = p->tsval;
    take_packet(s, p, ctx, tx);
    s->peer_data_unacked = false;   /* the packet acknowledges what the peer sent */
}
