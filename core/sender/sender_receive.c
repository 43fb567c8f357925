/* sender_receive.c: what the peer's packets tell the sender: cumulative
 * ACKs, SACK and D-SACK blocks, duplicate ACKs, windows and requests
 * (spec section 2), and the RTT samples they give (Karn).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sender/sender_state.h"

#include <string.h>

#include "sender/sender_internal.h"

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
            tapo_sb_dsack(&s->sb, left, right, mss, p->frame, listener);
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
 * acknowledged retransmitted data (then no sample at all).  first_copy: p
 * first carried some of the peer's data, so the sender's own ACK of that
 * data will prove that p, and this ACK, had reached it
 * (tapo_sender_acks_received); a copy of data sent before proves less: an
 * earlier copy, with an older ACK, may be the one that arrived. */
/* Out of line: reached only by ACKs that move snd_una, and inlined it
 * costs the per-packet path 1.6 % of its instructions. */
G_GNUC_NO_INLINE static rtt_candidate advance_una(tapo_sender *s, const tapo_packet *p, int64_t ack, double rto_s,
                                                  bool first_copy, const tapo_sb_listener *listener,
                                                  bool *karn_forbids)
{
    tapo_sb_feedback fb;
    tapo_sb_ack(&s->sb, ack, tapo_sender_mss(s), listener, &fb);
    s->snd_una = ack;
    s->una_advances[tapo_ring_push(&s->una_ring, TAPO_UNA_HISTORY)] =
        (tapo_una_advance){ .to = ack, .seen_s = p->time_s, .frame = p->frame, .has_ts = p->has_timestamps,
                            .carried_data = first_copy, .tsval = p->tsval, .data_end_raw = tapo_packet_end_raw(p) };
    s->dupacks_at_advance = s->dupacks;
    s->tx_order_at_advance = s->tx_order;
    raise_dupthres(s, fb.reordering);
    tapo_ca_on_event(s, TAPO_CA_EVENT_ACK_ADVANCED);
    tapo_ack_echo echo = { p->has_timestamps, p->tsecr, p->frame };
    tapo_hs_acked(&s->hs, s->snd_una, p->time_s, rto_s, &echo);
    *karn_forbids = fb.retransmitted_delivered;
    return candidate_of(&fb);
}

/* The receiver acknowledged data the capture never saw (it missed it, or
 * sees one direction only): the sender sent it, and it arrived.  It is the
 * sender's payload (the sender answered what was pending, and had more to
 * send than the stall before it knew). */
static void reveal_unseen_data(tapo_sender *s, const tapo_packet *p, int64_t ack, tapo_rx_info *rx)
{
    int64_t from = s->snd_nxt > s->data_start ? s->snd_nxt : s->data_start;
    uint32_t missed = tapo_segments(ack - s->snd_nxt, tapo_sender_mss(s));
    s->capture_missed = true;
    s->unseen_beyond = s->unseen_beyond > missed ? s->unseen_beyond - missed : 0;
    s->snd_nxt = ack;
    if (ack <= from)
        return;
    rx->revealed_bytes = (uint64_t)(ack - from);
    /* The same ACK reports a duplicate of their start (RFC 2883): that
     * data arrived twice, so the sender sent it twice, both unseen. */
    if (p->sack_count > 0) {
        tapo_seqspace space = s->seq;   /* read only: the SACK processing reads them next */
        int64_t left = tapo_seq_offset(&space, p->sack_left_raw[0]);
        int64_t right = tapo_seq_offset(&space, p->sack_right_raw[0]);
        rx->revealed_resent = is_dsack(p, 0, left, right, ack, s) && left <= from && from < right;
    }
    /* They start a hole the peer had reported below data it had SACKed:
     * that data was sent after the hole's original (a sender sends new
     * data in order) and arrived first, so the original was lost and these
     * bytes are a copy (spec rule 1; section 8: the SACK is the proof). */
    if (s->unseen_hole_frame && !rx->revealed_resent) {
        tapo_seqspace space = s->seq;   /* read only */
        if (tapo_seq_offset(&space, s->unseen_hole_ack_raw) == from) {
            rx->refill_hole_frame = s->unseen_hole_frame;
            rx->refill_sacked = s->unseen_hole_sacked;
        }
    }
    s->unseen_hole_frame = 0;
    s->payload_bytes += rx->revealed_bytes;
    s->sent_payload = true;
    s->request_pending = false;
    tapo_hs_new_data(&s->hs, p->time_s);
}

/* A SACK block above everything acknowledged, all of it data the capture
 * never saw: the peer reports a hole there (kept until an ACK reveals
 * data). */
static void note_unseen_hole(tapo_sender *s, const tapo_packet *p, int64_t ack)
{
    if (s->unseen_hole_frame || !s->anchored || ack < s->snd_nxt)
        return;
    tapo_seqspace space = s->seq;   /* read only */
    for (unsigned i = 0; i < p->sack_count; i++) {
        int64_t left = tapo_seq_offset(&space, p->sack_left_raw[i]);
        int64_t right = tapo_seq_offset(&space, p->sack_right_raw[i]);
        if (left > s->snd_nxt && right > left && right - s->snd_nxt <= TAPO_ACK_AHEAD_LIMIT &&
            !is_dsack(p, i, left, right, ack, s)) {
            s->unseen_hole_frame = p->frame;
            s->unseen_hole_ack_raw = p->ack_raw;   /* ack == snd_nxt here: revealed first */
            s->unseen_hole_sacked = tapo_segments(right - left, tapo_sender_mss(s));
            return;
        }
    }
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

/* Remembers the SACK state after this ACK (tapo_peer_view). */
static void remember_view(tapo_sender *s, const tapo_packet *p, bool away)
{
    tapo_peer_view v = { .seen_s = p->time_s, .has_ts = p->has_timestamps, .tsval = p->tsval, .counted = away };
    if (away) {
        tapo_sb_counts counts;
        tapo_sb_count(&s->sb, tapo_sender_mss(s), &counts);
        v.sacked_out = counts.sacked_out;
        v.holes = counts.holes;
    }
    s->peer_views[tapo_ring_push(&s->view_ring, TAPO_PEER_VIEWS)] = v;
}

/* The sender has nothing unacknowledged and p's ACK neither moves nor
 * SACKs anything (the client of a download, for every data packet):
 * nothing is delivered, duplicated or sampled, no ACK is a duplicate
 * without data outstanding, and the congestion state hears of nothing.
 * Only the ACK bookkeeping remains: the window, the SACK evidence and the
 * peer's view, as the whole path leaves them. */
static bool acks_nothing(const tapo_sender *s, const tapo_packet *p, int64_t ack)
{
    return p->sack_count == 0 && ack == s->snd_una && s->snd_nxt == s->snd_una;
}

/* What an ACK that moves or SACKs something does to the scoreboard, the
 * RTT sample (rx) and the congestion state; true for a duplicate ACK. */
static bool take_ack(tapo_sender *s, const tapo_packet *p, int64_t ack, double rto_s, bool first_copy,
                     tapo_rx_info *rx)
{
    feedback_ctx fc = { &s->hs, p->frame };
    tapo_sb_listener listener = { hs_delivered, hs_duplicated, &fc };
    int64_t una_before = s->snd_una;
    bool newly_sacked = false;
    rtt_candidate sack_rtt = process_sack_blocks(s, p, ack, &listener, &newly_sacked);
    bool dupack = is_duplicate_ack(s, p, ack);
    rtt_candidate ack_rtt = { 0 };
    bool karn_forbids = false;
    if (ack > s->snd_una)
        ack_rtt = advance_una(s, p, ack, rto_s, first_copy, &listener, &karn_forbids);
    else if (dupack)
        s->dupacks++;
    /* Linux (tcp_clean_rtx_queue, tcp_ack_update_rtt): the cumulative ACK's
     * sample first, the SACK's when the ACK gave none; and none from a
     * cumulative ACK that acknowledged retransmitted data (Karn), even when
     * it also covered data sent once: that data waited behind the lost
     * segment, and its "sample" is the whole recovery. */
    rtt_candidate rtt = ack_rtt.valid && !karn_forbids ? ack_rtt : sack_rtt;
    rtt.from = una_before < ack ? una_before : ack;
    rtt.to = ack > s->snd_una ? ack : s->snd_una;
    if (sack_rtt.valid && !(ack_rtt.valid && !karn_forbids)) {
        rtt.from = sack_rtt.from;
        rtt.to = sack_rtt.to;
    }
    rx->rtt_valid = rtt.valid;
    rx->rtt_from = rtt.from;
    rx->rtt_to = rtt.to;
    rx->rtt_tx_time_s = rtt.tx_time_s;
    rx->rtt_seen_s = rtt.seen_s;
    if (newly_sacked || dupack)
        tapo_ca_on_event(s, TAPO_CA_EVENT_LOSS_SIGNAL);
    return dupack;
}

static void process_ack(tapo_sender *s, const tapo_packet *p, double rto_s, bool away, bool first_copy,
                        tapo_rx_info *rx)
{
    if (!s->anchored) {
        /* The capture starts with the peer: its ACK marks our snd_una. */
        s->snd_una = s->snd_nxt = s->data_start = tapo_seq_offset(&s->seq, p->ack_raw);
        s->recovery_point = s->snd_una;
        s->anchored = true;
    }
    int64_t ack = tapo_seq_offset(&s->seq, p->ack_raw);
    if (ack - s->snd_nxt > TAPO_ACK_AHEAD_LIMIT) {
        /* Nonsense, or a capture that missed more than a window of the
         * sender's data: ignored, kept for the sender's own next segment
         * to confirm (sender_send.c, rejoin_after_gap). */
        s->far_ack_seen = true;
        s->far_ack_raw = p->ack_raw;
        rx->far_ack = true;
        return;
    }
    /* Only the cumulative ACK reveals unseen data: a SACK block above it
     * would leave the bytes below it untracked, and no hole to show. */
    if (ack > s->snd_nxt)
        reveal_unseen_data(s, p, ack, rx);
    note_unseen_hole(s, p, ack);
    bool dupack = false;
    if (acks_nothing(s, p, ack))
        rx->rtt_from = rx->rtt_to = ack;   /* no sample */
    else
        dupack = take_ack(s, p, ack, rto_s, first_copy, rx);
    note_loss_signals(s, p, dupack);
    if (ack >= s->snd_una)
        note_window(s, p, rx);
    remember_view(s, p, away);
}

void tapo_sender_on_receive(tapo_sender *s, const tapo_packet *p, double rto_s, bool away, bool new_payload,
                            bool first_copy, tapo_rx_info *rx)
{
    memset(rx, 0, sizeof *rx);
    if (!p->header_valid)
        return;
    tapo_sender_note_mss_option(s, p->mss_option);
    if (p->flags & TAPO_TCP_SYN) {
        s->init_rwnd = p->window;   /* windows in SYNs are never scaled */
        s->rwnd = p->window;
        s->rwnd_seen = true;
        s->rwnd_scale_known = true;
        /* Decision: the peer's SYN is its first request, pending until we
         * answer it (a late SYN-ACK is the server's delay, not the client's). */
        if (!(p->flags & TAPO_TCP_ACK) && !s->syn_sent)
            tapo_sender_request_from(s, p);
    }
    if (p->payload_len > 0)
        s->peer_data_unacked = true;
    if (new_payload)
        tapo_sender_peer_spoke(s, p);
    s->peer_last_seen_s = p->time_s;
    /* Its cumulative ACK, where it has one that the sender's numbers place. */
    s->peer_last_ack = (tapo_opt_offset){ false, 0 };
    if ((p->flags & TAPO_TCP_ACK) && s->anchored)
        s->peer_last_ack = (tapo_opt_offset){ true, tapo_seq_offset(&s->seq, p->ack_raw) };
    tapo_hs_peer_answered(&s->hs, s->peer_last_ack);
    if (p->flags & TAPO_TCP_ACK)
        process_ack(s, p, rto_s, away, first_copy, rx);
}
