/* handshake.h: a connection's SYN, SYN-ACK and the ACK of the SYN-ACK:
 * who initiated it, what a SYN with a new initial sequence number means,
 * and the turnarounds the handshake measures (vantage.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_HANDSHAKE_H
#define TAPO_HANDSHAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/optional.h"
#include "packet/packet_input.h"
#include "sender/sender_state.h"

typedef struct tapo_handshake {
    tapo_opt_endpoint initiator;  /* the endpoint that sent the SYN */
    bool syn_seen, syn_ack_seen;  /* the handshake's first two packets were seen */
    double syn_s;                 /* capture time of the latest SYN, seconds */
    double syn_ack_s;             /* capture time of the latest SYN-ACK, seconds */
    bool acked;                   /* the initiator's first ACK of the SYN-ACK was timed... */
    double ack_s;                 /* ...at this capture time, seconds */
} tapo_handshake;

/* What a SYN or SYN-ACK with another initial sequence number than its
 * sender used before means. */
typedef enum {
    TAPO_HANDSHAKE_SAME,          /* no new ISN (a resent SYN keeps its ISN) */
    TAPO_HANDSHAKE_NEW_CONNECTION,/* a new SYN, or a SYN-ACK answering another SYN */
    TAPO_HANDSHAKE_NEW_ANSWER,    /* a second SYN-ACK to the same SYN before it was acknowledged */
    TAPO_HANDSHAKE_STRAY          /* a second SYN-ACK to a SYN already acknowledged: not this connection's */
} tapo_handshake_kind;

/* p, from the endpoint whose sender state is self (peer: the other's). */
tapo_handshake_kind tapo_handshake_classify(const tapo_handshake *h, const tapo_sender *self,
                                            const tapo_sender *peer, const tapo_packet *p);

/* What p's place in the handshake measured. */
typedef struct tapo_handshake_timing {
    bool turnaround;              /* p's sender answered a packet of the handshake... */
    double turnaround_s;          /* ...this long after the capture point saw it, seconds */
    bool syn_round_trip;          /* p acknowledges the SYN-ACK: the initiator's SYN... */
    double syn_round_trip_s;      /* ...was answered this long after it was seen here (Wireshark's initial RTT), seconds */
    bool syn_ack_unseen;          /* with syn_round_trip: the capture never saw the SYN-ACK (one direction only) */
} tapo_handshake_timing;

/* Notes p (sent by endpoint 'from'). */
void tapo_handshake_note(tapo_handshake *h, const tapo_packet *p, tapo_handshake_timing *timing);

/* Whether p can tell nothing more about the handshake (tapo_handshake_note
 * would change nothing and time nothing): no SYN, and the ACK of the
 * SYN-ACK timed already, or no readable header. */
static inline bool tapo_handshake_over_for(const tapo_handshake *h, const tapo_packet *p)
{
    return !p->header_valid || (h->acked && !(p->flags & TAPO_TCP_SYN));
}

#endif /* TAPO_HANDSHAKE_H */
