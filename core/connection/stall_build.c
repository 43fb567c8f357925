/* stall_build.c: see stall_build.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "connection/stall_build.h"

#include <math.h>

#include "sender/recovery.h"

/* A sender with data outstanding retransmits it when its timer expires,
 * within its RTO (no backoff is running while nothing was resent).  One
 * that stayed silent far longer, until the receiver's packet that
 * acknowledges everything, had the ACK already: the capture does not show
 * it (spec section 8, "the sender's silence").  Its state at the stall's
 * start is then nothing outstanding. */
bool tapo_silence_outlasts_timer(const tapo_snapshot *snap, double gap_s)
{
    bool no_recovery = snap->retrans_out == 0 &&
                       (snap->ca_state == TAPO_CA_OPEN || snap->ca_state == TAPO_CA_DISORDER);
    double floor_s = snap->srtt.known ? TAPO_SILENCE_FLOOR_S : TAPO_SILENCE_FLOOR_UNSAMPLED_S;
    double timer_bound_s = fmax(TAPO_SILENCE_RTOS * snap->rto_s, floor_s);
    /* A receiver that reported a hole (SACK) saw a loss: not this case. */
    return snap->packets_out != 0 && no_recovery && snap->sacked_out == 0 && snap->holes == 0 &&
           snap->window_closed_frame == 0 && gap_s >= timer_bound_s;
}

/* Whether the capture shows that the sender sent nothing in the gap (no
 * copy of its outstanding data): at the sender it sees all it sends;
 * elsewhere a copy lost before the capture point would look the same,
 * unless the receiver's packet now acknowledges everything, or the
 * sender's own next packet carries the IP ID after its previous one's
 * (spec section 8: consecutive IDs across a gap, nothing was sent). */
static bool silence_seen(const tapo_snapshot *snap, const tapo_cur_input *in)
{
    const tapo_cur *cur = &snap->cur;
    if (cur->dir == TAPO_DIR_IN)
        return snap->vantage == TAPO_VANTAGE_SENDER || cur->acks_all;
    /* The sender's own packet: one its timer sent (a copy, a probe) is
     * the timer at work, not its silence. */
    if (cur->retransmission || cur->handshake_retransmission || cur->window_probe || cur->gives_up)
        return false;
    return snap->vantage == TAPO_VANTAGE_SENDER || in->ids_prove_none_unseen;
}

static void acked_in_silence(tapo_snapshot *snap, const tapo_cur_input *in, double gap_s)
{
    if (!silence_seen(snap, in) || !tapo_silence_outlasts_timer(snap, gap_s))
        return;
    snap->packets_out = 0;
    snap->sacked_out = 0;
    snap->holes = 0;
    snap->inferred |= TAPO_INFERRED_ACK_UNSEEN;
}

/* The sender's own packet. */
static void describe_own(const tapo_cur_input *in, tapo_snapshot *snap, tapo_facts *facts)
{
    const tapo_tx_info *tx = in->tx;
    tapo_cur *cur = &snap->cur;
    bool resent = tx->kind == TAPO_TX_RETRANSMISSION || tx->gives_up;
    cur->dir = TAPO_DIR_OUT;
    cur->new_data = tx->new_data;
    cur->gives_up = tx->gives_up;
    cur->retransmission = resent && !tx->handshake;
    cur->handshake_retransmission = resent && tx->handshake;
    cur->window_probe = tx->kind == TAPO_TX_WINDOW_PROBE;
    cur->retrans_count = resent ? tx->retrans_count : 0;
    cur->first_retrans = resent ? tx->first_retrans : TAPO_TRIGGER_NONE;
    cur->trigger = resent ? tx->trigger : TAPO_TRIGGER_NONE;
    cur->segs_sent_after = tx->segs_sent_after;
    cur->unseen_bytes = tx->skipped_bytes;
    cur->data_offset = tx->data_offset;
    cur->orig_frame = tx->orig_frame;
    cur->first_retx_frame = tx->first_retx_frame;
    cur->loss_signal_frame = tx->signal_frame;
    if (in->away && tx->new_data && snap->packets_out == 0)
        snap->inferred |= TAPO_INFERRED_DELAY_UNSEEN;
    /* Mid-response, after a full segment (more was queued) and a silence
     * as long as a retransmission timer: the sender paused, or this
     * resends an original lost before the capture point; only its IP IDs
     * could tell, and they do not (spec section 8: timing proves nothing). */
    bool timer_silence = in->since_tx_s.known && in->since_tx_s.s >= TAPO_TIMER_SLACK * in->rto_min_s;
    cur->ids_skipped_unclaimed = in->away ? in->ids_skipped : 0;
    cur->may_resend_unseen = in->away && tx->kind == TAPO_TX_NEW && snap->packets_out == 0 && !tx->unseen_counted &&
                             snap->queued_more && !snap->request_pending && timer_silence;
    cur->both_unseen = tx->skipped_bytes > 0 && in->heard_unseen_payload;
    acked_in_silence(snap, in, facts->duration_s);
    /* It acknowledges the peer's payload that the capture never saw (one
     * direction only, or a capture that drops): the peer spoke after the
     * sender's previous packet, and that reached the sender before cur: a
     * request, pending at cur (spec rule 3). */
    if (in->heard_unseen_payload && !cur->gives_up && !cur->retransmission)
        snap->request_pending = true;
    if (!resent)
        return;
    /* What the retransmission revealed about the sender at the stall's
     * start, when the capture point is away from it. */
    snap->inferred |= tx->inferred;
    if (tx->acks_late)
        snap->packets_out = tx->packets_out_at_sender;
    snap->packets_out += tx->unseen_segments;
    if (tx->unseen_segments && tx->original_new)
        facts->had_more_data = tx->original_hints_more;
    if (tx->lost_before) {
        /* The lost retransmission was outstanding when the timer fired. */
        snap->retrans_out += tx->lost_segments;
        if (tx->first_retrans == TAPO_TRIGGER_FAST)
            snap->ca_state = TAPO_CA_RECOVERY;
        else if (tx->first_retrans == TAPO_TRIGGER_TIMEOUT)
            snap->ca_state = TAPO_CA_LOSS;
    }
    tapo_cur_reveals reveals = tapo_tx_reveals(tx);
    tapo_facts_add_cur(facts, &reveals);
}

/* A packet from the sender's peer. */
static void describe_peer(const tapo_cur_input *in, tapo_snapshot *snap, tapo_facts *facts)
{
    const tapo_tx_info *peer_tx = in->tx;
    tapo_cur *cur = &snap->cur;
    bool resent = peer_tx->kind == TAPO_TX_RETRANSMISSION;
    cur->dir = TAPO_DIR_IN;
    cur->handshake_retransmission = resent && peer_tx->handshake;
    cur->receiver_retransmission = resent && !peer_tx->handshake;
    /* A SYN or SYN-ACK resent by the peer's timer ends this view's stall too. */
    cur->trigger = cur->handshake_retransmission ? peer_tx->trigger : TAPO_TRIGGER_NONE;
    cur->data_offset = in->bytes_sent;
    cur->acks_all = in->acks_all;
    cur->acked_after_s = in->acked_after_s;
    /* The sender's data that ended its silence, seen only through the
     * receiver's ACK of it: when it was sent, and how long it travelled,
     * the capture cannot tell. */
    cur->reveals_data = in->reveals_data && snap->packets_out == 0;
    cur->unseen_bytes = in->revealed_bytes;
    /* More than a FIN's one sequence number each way. */
    cur->both_unseen = in->reveals_data && in->revealed_bytes > 1 && peer_tx->skipped_bytes > 1;
    if (cur->reveals_data)
        snap->inferred |= TAPO_INFERRED_DELAY_UNSEEN;
    /* Its D-SACK of that data proves two copies arrived: the sender's
     * wait ended in a retransmission the capture never saw, and the
     * receiver had the data before it (spec rule 1.0; section 8: a D-SACK
     * is proof of a transmission, timing alone is not). */
    cur->unseen_resent = cur->reveals_data && in->reveals_resent;
    if (cur->unseen_resent) {
        tapo_cur_reveals proof = tapo_unseen_copy_proof(in->frame);
        tapo_facts_add_cur(facts, &proof);
    }
    /* That data filled a hole the receiver had reported below data it
     * SACKed before the gap: the original was lost, the sender resent it
     * in the gap (a copy the capture never saw, its loss signal that
     * report).  At the stall's start the hole and the SACKed segments
     * were outstanding. */
    cur->unseen_refill = cur->reveals_data && !cur->unseen_resent && in->refill_hole_frame != 0;
    if (cur->unseen_refill) {
        cur->retrans_count = 1;
        cur->loss_signal_frame = in->refill_hole_frame;
        cur->segs_sent_after = in->refill_sacked;
        snap->packets_out = 1 + in->refill_sacked;
        snap->sacked_out = in->refill_sacked;
        snap->holes = 1;
        snap->inferred = (snap->inferred & ~TAPO_INFERRED_DELAY_UNSEEN) | TAPO_INFERRED_ORIGINAL_LOST;
    }
    /* A window update that ends the stall is known at the packet itself. */
    if (in->window_opened && snap->window_closed_frame != 0)
        facts->window_open_frame = in->frame;
    acked_in_silence(snap, in, facts->duration_s);
}

/* The sender sent more than a window of data inside the gap that the
 * capture never saw (cur starts that far above what was seen, or
 * acknowledges that much): it needed the receiver's ACKs to send it all,
 * so it was at work during the gap, not silent (a capture that kept only
 * some packets).  Without the window scale, 64 KB bounds any window. */
static bool busy_unseen(const tapo_snapshot *snap)
{
    uint64_t window = snap->rwnd_seen && snap->rwnd_scale_known && snap->rwnd > 0 ? snap->rwnd : 65535;
    return snap->cur.unseen_bytes > window;
}

/* Both endpoints sent payload inside the gap that the capture never saw:
 * cur's own sequence number starts past bytes of its sender's that no
 * packet showed, and cur acknowledges bytes of the other's that no packet
 * showed.  The two exchanged data in the gap (a capture that lost a
 * stretch of the connection), so the capture's consecutive packets are
 * not the connection's, and the gap measures no silence (spec section 3:
 * the gap between the conversation's consecutive packets). */
static bool hole_both_ways(const tapo_snapshot *snap)
{
    return snap->cur.both_unseen;
}

/* Whether the gap is a stall (spec section 3).  Never below the minimum
 * duration (timestamp jitter, and the reactions of a stack: a FIN re-sent
 * at once to acknowledge a simultaneous close).  Above the threshold, or
 * a retransmission a timer produced, whatever rounding of its gap: one
 * with no loss signal since the segment was last sent.  Sent at least the
 * minimum RTO after the sender's previous transmission, the sender itself
 * waited its timer, with or without an RTT sample (the 1 s initial RTO
 * must not hide the first timeout of a capture that starts mid-connection);
 * sooner, it is a timer's only at the threshold (a tail-loss probe at 2
 * SRTT), else a reaction to what just arrived.  Never ended by the peer's
 * retransmission of its own data: a stall that an endpoint's own copy ends
 * is that endpoint's (spec section 1), judged in its own view. */
static bool ends_stall(const tapo_snapshot *snap, double gap_s, tapo_opt_s since_tx_s, const tapo_config *cfg)
{
    const tapo_cur *cur = &snap->cur;
    if (gap_s < cfg->min_stall_s || busy_unseen(snap) || hole_both_ways(snap) || cur->receiver_retransmission)
        return false;
    bool resent = (cur->dir == TAPO_DIR_OUT && cur->retransmission) || cur->handshake_retransmission;
    bool timer = resent && (cur->trigger == TAPO_TRIGGER_TIMEOUT || cur->trigger == TAPO_TRIGGER_PROBE);
    bool waited_rto_min = since_tx_s.known && since_tx_s.s >= TAPO_TIMER_SLACK * cfg->rto_min_s;
    if (timer && (waited_rto_min || gap_s >= TAPO_TIMER_SLACK * snap->threshold_s))
        return true;
    return gap_s > snap->threshold_s + TAPO_CLOCK_RESOLUTION_S;
}

void tapo_stall_build(const tapo_snapshot *before, const tapo_facts *before_facts,
                      const tapo_cur_input *cur, const tapo_config *cfg, tapo_stall_view *out)
{
    out->snap = *before;
    out->facts_at_packet = *before_facts;
    if (cur->own)
        describe_own(cur, &out->snap, &out->facts_at_packet);
    else
        describe_peer(cur, &out->snap, &out->facts_at_packet);
    out->snap.cur.payload = cur->payload;
    out->snap.cur.syn = cur->syn;
    out->snap.cur.fin = cur->fin;
    out->snap.cur.rst = cur->rst;
    if (cur->own)
        out->facts_at_packet.closing = cur->fin;
    out->bytes_at_packet = cur->bytes_sent;
    out->stalled = ends_stall(&out->snap, before_facts->duration_s, cur->since_tx_s, cfg);
}
