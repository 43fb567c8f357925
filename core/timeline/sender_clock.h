/* sender_clock.h: a conversation's packets on the analysed sender's own
 * timeline (spec section 3: "SRTT and RTO are the sender's, from the path
 * round trip at any vantage").
 *
 * A capture point that is a round trip delta away from the sender (delta =
 * the sender's turnaround, vantage.h) sees the sender's packets delta/2
 * after they left and the receiver's packets delta/2 before they arrive.
 * Counting every time from the receiver's packets, the sender sent a packet
 * seen at t at t - delta, and received a packet seen at t at t.  Gaps,
 * silences and stall durations are measured on that timeline; at the
 * sender delta is 0 and it is the capture's own.
 *
 * A sender packet can precede, on the sender's timeline, receiver packets
 * the capture saw before it (they were still on their way to the sender),
 * so the clock keeps the receiver's last few packets.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_SENDER_CLOCK_H
#define TAPO_SENDER_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "base/optional.h"
#include "base/ring.h"

#define TAPO_CLOCK_PEER_RECENT 8      /* receiver packets remembered, count */

/* A receiver packet on the sender's timeline. */
typedef struct tapo_clock_peer {
    double t_s;                       /* sender time, seconds */
    uint32_t frame;
    bool has_ts;                      /* it carried a TSval */
    bool asks;                        /* it carried a request: payload the sender never had */
    bool takes_seq;                   /* it carried payload or a FIN */
    uint32_t tsval;
    uint32_t end_raw;                 /* with takes_seq: one past its sequence space, raw */
} tapo_clock_peer;

typedef struct tapo_sender_clock {
    bool started;                     /* a packet was seen */
    double first_s;                   /* sender time of the first packet, seconds */
    double latest_s;                  /* the latest sender time of any packet, seconds */
    uint32_t latest_frame;
    bool has_own;                     /* the sender sent a packet */
    double own_s;                     /* sender time of its latest packet, seconds */
    uint32_t own_frame;
    tapo_clock_peer peers[TAPO_CLOCK_PEER_RECENT]; /* the latest receiver packets (ring) */
    tapo_ring peer_ring;
    double peer_latest_s;             /* the latest of their times now, seconds (valid with peer_ring.count) */
} tapo_sender_clock;

/* The packet before a new one on the sender's timeline. */
typedef struct tapo_clock_reading {
    double gap_s;                     /* since the previous packet, seconds, never negative */
    uint32_t prev_frame;              /* that packet; 0 when none */
    double silence_s;                 /* since the latest receiver packet the sender had, seconds (since the first packet when none) */
    bool request_on_way;              /* the sender's packets: a receiver request was still on its way to it (the two crossed) */
} tapo_clock_reading;

/* A packet on the clock: its sender time, who sent it, and for the
 * sender's packets what they echo. */
typedef struct tapo_clock_packet {
    double t_s;                       /* sender time, seconds */
    bool own;                         /* sent by the sender */
    bool asks;                        /* the receiver's packets: a request (payload the sender never had) */
    uint32_t frame;
    bool has_ts;                      /* it carries TCP timestamps */
    bool acks;                        /* the sender's packets: they carry an acknowledgement number */
    bool takes_seq;                   /* the receiver's packets: payload or a FIN */
    uint32_t tsval;                   /* its TSval */
    uint32_t tsecr;                   /* its TSecr: for the sender's packets, the newest receiver TSval it had */
    uint32_t seq_mark_raw;            /* raw: with acks, its acknowledgement number (all the sender had received in
                                       * order); with takes_seq, one past its sequence space */
    double in_flight_s;               /* the sender's packets: receiver packets up to this much later were on their way */
    double margin_s;                  /* how precisely t_s places a sender packet, seconds */
    tapo_opt_s unheard_from_s;        /* the sender's packets: receiver packets seen from then on had not reached it (it resends what they acknowledge) */
} tapo_clock_packet;

/* Reads the clock for a packet.  For the sender's packets, receiver
 * packets up to in_flight_s later were still on their way to it, except
 * those within margin_s (the sender packet's placement is only that
 * precise: it may answer them), and so were any whose TSval is newer than
 * the one it echoes (lost or late on the way), any whose data or FIN its
 * acknowledgement number does not cover, and any seen from
 * unheard_from_s on.  Anything later still means
 * the file went back in time: then the gap is 0, measured from the latest
 * packet. */
void tapo_clock_read(const tapo_sender_clock *k, const tapo_clock_packet *p, tapo_clock_reading *r);

/* At most the gap tapo_clock_read gives a packet of the sender at t_s
 * (seconds; +inf before the sender's first packet): every packet the gap
 * may run from is its own latest or later on the timeline. */
double tapo_clock_own_gap_bound(const tapo_sender_clock *k, double t_s);

/* Records the packet. */
void tapo_clock_note(tapo_sender_clock *k, const tapo_clock_packet *p);

#endif /* TAPO_SENDER_CLOCK_H */
