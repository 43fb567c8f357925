/* stall_build.h: a stall's record, built once from the sender state before
 * the packet that ended it, that packet, and the gap (spec sections 2
 * and 3).
 *
 * The caller reads the sender state into a snapshot and facts before the
 * packet changes anything (tapo_sender_snapshot), lets the sender take the
 * packet, then builds the view here: what the packet was to this sender
 * ("cur"), what it revealed about the state the capture could not see,
 * and whether the gap was a stall.  Nothing else writes the snapshot or
 * the facts at the packet; the final facts are hindsight's (hindsight.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_STALL_BUILD_H
#define TAPO_STALL_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "base/config.h"
#include "sender/sender_state.h"
#include "record/stall.h"

/* A sender silent this many of its RTOs, and at least this long, with data
 * outstanding and no retransmission, had the ACK (stall_build.c): its
 * timer would have fired within one RTO; the margin covers an RTO the
 * capture underestimates.  The floors are the longest timeout of any
 * standard stack: with an RTT sample, RFC 6298's minimum RTO (1 s; Linux
 * and Windows take 200 and 300 ms); without one, its first timeout (RFC
 * 1122's initial RTO, 3 s). */
#define TAPO_SILENCE_RTOS 3.0
#define TAPO_SILENCE_FLOOR_S 1.0            /* seconds, with an RTT sample */
#define TAPO_SILENCE_FLOOR_UNSAMPLED_S 3.0  /* seconds, without one */

/* The packet that ended the gap, as the view's sender saw it. */
typedef struct tapo_cur_input {
    bool own;                     /* sent by the view's sender */
    const tapo_tx_info *tx;       /* what it was to the endpoint that sent it */
    bool payload;                 /* it carries data bytes */
    bool window_opened;           /* from the peer: it opened the sender's closed window */
    bool acks_all;                /* from the peer: after it, the sender has nothing outstanding */
    bool reveals_data;            /* from the peer: it acknowledged sender data the capture never saw */
    uint64_t revealed_bytes;      /* from the peer: that much, bytes */
    bool reveals_resent;          /* from the peer: its D-SACK shows the sender sent the start of them twice */
    uint32_t refill_hole_frame;   /* from the peer: they fill a hole it had reported in that frame (a copy); 0: no */
    uint32_t refill_sacked;       /* segments it had SACKed above that hole, count */
    bool away;                    /* the capture point is away from the sender */
    tapo_opt_s acked_after_s;     /* from the peer: how long after the capture saw the sender data it newly
                                   * acknowledges (Karn's sample) it came, seconds; unknown without one */
    uint16_t ids_skipped;         /* own: IP IDs skipped before it that no packet carried, not counted (endpoint.c), count */
    uint32_t frame;               /* its frame */
    uint64_t bytes_sent;          /* the sender's payload up to and including it, bytes */
    bool ids_prove_none_unseen;   /* own: its IP ID follows the previous one's: nothing was sent in between */
    bool heard_unseen_payload;    /* own: it acknowledges payload of the peer's that the capture never saw */
    bool syn, fin, rst;           /* it carries a SYN, a FIN, a RST */
    tapo_opt_s since_tx_s;        /* the packet's own sender: its time since its previous transmission, seconds */
    double rto_min_s;             /* the minimum RTO (preference), seconds */
} tapo_cur_input;

/* The sender of snap (its state before a packet of its peer) had data
 * outstanding, no recovery running, no hole reported and an open window,
 * and stayed silent gap_s, longer than its timer allows (TAPO_SILENCE_RTOS
 * RTOs, at least TAPO_SILENCE_FLOOR_S): when the peer's packet acknowledges
 * everything, the sender had that acknowledgement already, unseen (spec
 * section 8, "the sender's silence"). */
bool tapo_silence_outlasts_timer(const tapo_snapshot *snap, double gap_s);

/* The proof that an ACK's D-SACK of sender data the capture never saw
 * gives (cur.unseen_resent): the receiver had the data before its last
 * copy, shown by that ACK's frame. */
static inline tapo_cur_reveals tapo_unseen_copy_proof(uint32_t frame)
{
    return (tapo_cur_reveals){ .spurious = TAPO_PROOF_DSACK, .proof_frame = frame };
}

/* Builds a view's snapshot and facts at the packet from those read before
 * it (before, before_facts) and the packet; sets out->stalled.  Leaves
 * out->facts_final alone. */
void tapo_stall_build(const tapo_snapshot *before, const tapo_facts *before_facts,
                      const tapo_cur_input *cur, const tapo_config *cfg, tapo_stall_view *out);

#endif /* TAPO_STALL_BUILD_H */
