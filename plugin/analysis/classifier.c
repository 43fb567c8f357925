/* classifier.c: the ordered rules of spec section 4.
 *
 * Each rule is one small predicate, named for the cause, with the paper
 * section it comes from.  tapo_classify() shows their precedence on one
 * screen.  Choices the spec leaves open are marked "Decision" and written up
 * in docs/algorithm.md.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "classifier.h"

uint32_t tapo_in_flight(const tapo_snapshot *snap, uint32_t lost_out)
{
    int64_t v = (int64_t)snap->packets_out + snap->retrans_out -
                ((int64_t)snap->sacked_out + lost_out);
    return v > 0 ? (uint32_t)v : 0;
}

/* The receiver's window, as far as the capture lets us know it: not at all
 * before it advertised one; without the handshake the scale is unknown, so
 * only a zero window is certain. */
static bool rwnd_below(const tapo_snapshot *snap, uint64_t bytes)
{
    if (!snap->rwnd_seen)
        return false;
    return snap->rwnd_scale_known ? snap->rwnd < bytes : snap->rwnd == 0;
}

/* Rule 1: cur resends data after the gap.  Decision: a resent SYN or
 * SYN-ACK, or the receiver resending its own data, is also a
 * retransmission stall; the tree has no finer rule for it. */
static bool is_retransmission_stall(const tapo_cur *cur)
{
    return (cur->dir == TAPO_DIR_OUT && cur->retransmission) ||
           cur->handshake_retransmission || cur->receiver_retransmission;
}

/* 1.1 (paper 4.1): the segment had been retransmitted before. */
static bool is_double(const tapo_cur *cur)
{
    return cur->retrans_count >= 2;
}

/* 1.2 (paper 4.2): too few segments after it for dupacks, and nothing more
 * to send. */
static bool is_tail(const tapo_snapshot *snap, const tapo_facts *facts)
{
    return snap->cur.segs_sent_after < snap->dupthres && !facts->had_more_data;
}

/* 1.3 (paper 4.3): fewer than 4 segments in flight at the stall's start. */
static bool is_small_in_flight(const tapo_snapshot *snap, const tapo_facts *facts,
                               const tapo_config *cfg)
{
    return tapo_in_flight(snap, facts->lost_out) < cfg->small_window_segments;
}

/* 1.4 (paper 4.3): every outstanding segment, at least 4, was lost. */
static bool is_continuous_loss(const tapo_snapshot *snap, const tapo_facts *facts,
                               const tapo_config *cfg)
{
    return snap->packets_out >= cfg->small_window_segments && snap->sacked_out == 0 &&
           facts->outstanding_all_lost;
}

/* 1.5 (paper 4.3): a DSACK shows the original had arrived. */
static bool is_ack_delay(const tapo_facts *facts)
{
    return facts->cur_spurious;
}

/* 1.6: at least dupthres loss signals arrived, yet the sender waited for its
 * timer.  Decision: signals are SACKed segments, or duplicate ACKs without
 * SACK, compared with the standard threshold of 3: whatever raised the
 * sender's own threshold (reordering we saw, or a configured one), it was
 * above what arrived.  A fast retransmission is no such wait. */
static bool is_large_dupthres(const tapo_snapshot *snap)
{
    return snap->loss_signals >= TAPO_DUPTHRES_DEFAULT && snap->cur.trigger != TAPO_TRIGGER_FAST;
}

static tapo_cause classify_retransmission(const tapo_snapshot *snap, const tapo_facts *facts,
                                          const tapo_config *cfg)
{
    const tapo_cur *cur = &snap->cur;
    if (cur->handshake_retransmission || cur->receiver_retransmission)
        return TAPO_CAUSE_RETRANS_UNDETERMINED;
    if (is_double(cur))
        return cur->first_retrans == TAPO_TRIGGER_FAST ? TAPO_CAUSE_F_DOUBLE : TAPO_CAUSE_T_DOUBLE;
    if (is_tail(snap, facts))
        return TAPO_CAUSE_TAIL;
    if (is_small_in_flight(snap, facts, cfg))
        return rwnd_below(snap, (uint64_t)cfg->small_window_segments * snap->mss)
                   ? TAPO_CAUSE_SMALL_RWND : TAPO_CAUSE_SMALL_CWND;
    if (is_continuous_loss(snap, facts, cfg))
        return TAPO_CAUSE_CONTINUOUS_LOSS;
    if (is_ack_delay(facts))
        return TAPO_CAUSE_ACK_DELAY;
    if (is_large_dupthres(snap))
        return TAPO_CAUSE_LARGE_DUPTHRES;
    return TAPO_CAUSE_RETRANS_UNDETERMINED;
}

/* Rule 2 (paper 3.4): the window was closed while the sender had data; a
 * sender's window probe proves it had. */
static bool is_zero_window(const tapo_snapshot *snap, const tapo_facts *facts)
{
    bool had_data = facts->had_more_data || (snap->cur.dir == TAPO_DIR_OUT && snap->cur.window_probe);
    return rwnd_below(snap, snap->mss) && had_data;
}

/* Rule 3 (paper 3.4): nothing is outstanding and the sender speaks at the
 * head of a response: a request waits, or the sender never sent payload yet.
 * Decisions: a bare ACK or FIN from the sender on a pending request counts
 * like its first payload (the server had not produced the data either way);
 * the first payload of a server that speaks first (an SMTP banner) is the
 * head of its first response. */
static bool is_data_unavailable(const tapo_snapshot *snap)
{
    if (snap->packets_out != 0 || snap->cur.dir != TAPO_DIR_OUT)
        return false;
    return snap->request_pending || (!snap->sent_payload && snap->cur.payload);
}

/* Rule 4 (paper 3.4): new data mid-response with nothing outstanding and the
 * window open: the application did not feed TCP. */
static bool is_resource_constraint(const tapo_snapshot *snap)
{
    return snap->packets_out == 0 && snap->cur.dir == TAPO_DIR_OUT && snap->cur.new_data &&
           !snap->request_pending;
}

/* Rule 5 (paper 3.4): nothing outstanding and the receiver had nothing
 * pending, or the receiver itself is what resumes the exchange with data.
 * Decision: a sender keep-alive or bare ACK on an idle connection counts
 * too; a receiver giving up (FIN, RST) on a pending request does not. */
static bool is_client_idle(const tapo_snapshot *snap)
{
    if (snap->packets_out != 0)
        return false;
    if (!snap->request_pending)
        return true;
    return snap->cur.dir == TAPO_DIR_IN && snap->cur.payload;
}

/* Rule 6 (paper 3.4): data was outstanding and cur is no retransmission. */
static bool is_packet_delay(const tapo_snapshot *snap)
{
    return snap->packets_out > 0;
}

static tapo_cause classify_cause(const tapo_snapshot *snap, const tapo_facts *facts,
                                 const tapo_config *cfg)
{
    if (is_retransmission_stall(&snap->cur))
        return classify_retransmission(snap, facts, cfg);
    if (is_zero_window(snap, facts))
        return TAPO_CAUSE_ZERO_WINDOW;
    if (is_data_unavailable(snap))
        return TAPO_CAUSE_DATA_UNAVAILABLE;
    if (is_resource_constraint(snap))
        return TAPO_CAUSE_RESOURCE_CONSTRAINT;
    if (is_client_idle(snap))
        return TAPO_CAUSE_CLIENT_IDLE;
    if (is_packet_delay(snap))
        return TAPO_CAUSE_PACKET_DELAY;
    return TAPO_CAUSE_UNDETERMINED;
}

static tapo_file_pos file_position(const tapo_snapshot *snap, const tapo_facts *facts)
{
    if (snap->packets_out == 0)
        return snap->request_pending ? TAPO_FILE_POS_HEAD : TAPO_FILE_POS_MIDDLE;
    return facts->had_more_data ? TAPO_FILE_POS_MIDDLE : TAPO_FILE_POS_TAIL;
}

tapo_verdict tapo_classify(const tapo_snapshot *snap, const tapo_facts *facts,
                           const tapo_config *cfg)
{
    tapo_verdict v = { 0 };
    v.cause = classify_cause(snap, facts, cfg);
    const tapo_cause_info *info = tapo_cause_get(v.cause);
    v.category = info->category;
    v.retransmission = info->retransmission;
    v.spurious = facts->cur_spurious;
    v.file_pos = file_position(snap, facts);
    v.lost_out = facts->lost_out;
    v.in_flight = tapo_in_flight(snap, facts->lost_out);
    return v;
}
