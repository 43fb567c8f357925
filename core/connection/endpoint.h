/* endpoint.h: one side of a TCP connection, as Wireshark's packet-tcp keeps
 * a tcp_flow_t per direction: what it sends (its sender state and RTT
 * estimator), how fast it answers (its turnarounds, vantage.h), its clocks
 * (its TCP timestamps, and the connection's packets on its timeline as a
 * sender) and how it numbers its IPv4 packets.
 *
 * A connection holds two.  Each packet is handled with the endpoint that
 * sent it ("self") and the other ("peer"); either may be the analysed
 * sender of a stall (spec section 1).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_ENDPOINT_H
#define TAPO_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/config.h"
#include "base/finite.h"
#include "base/optional.h"
#include "packet/packet_input.h"
#include "sender/rtt_estimator.h"
#include "timeline/sender_clock.h"
#include "sender/sender_state.h"
#include "timeline/ts_clock.h"
#include "timeline/vantage.h"

/* An endpoint numbers its packets one by one (IPv4 IDs) when at least this
 * share of its consecutive packets seen differ by one... */
#define TAPO_IP_ID_SEQUENTIAL_SHARE 0.8
/* ...over at least this many steps, count; */
#define TAPO_IP_ID_MIN_STEPS 4
/* and a larger jump says nothing about packets lost, count; before that
 * many steps, a jump larger than this says nothing either. */
#define TAPO_IP_ID_MAX_UNSEEN 64
#define TAPO_IP_ID_EARLY_MAX_UNSEEN 3
/* A tail-loss probe's timer, SRTTs (RFC 8985: PTO = 2 SRTT). */
#define TAPO_PROBE_SRTTS 2.0

/* How precisely a sender packet is placed on its sender's timeline away
 * from the sender: a TSval tick, or a share of the round trip (jitter). */
#define TAPO_PLACEMENT_MARGIN_S 0.002
#define TAPO_PLACEMENT_MARGIN_SHARE 0.1

/* How one endpoint numbers its IPv4 packets. */
typedef struct tapo_ip_ids {
    bool seen;                    /* an ID was seen */
    bool shared;                  /* a jump proved the counter shared with other connections */
    uint16_t last;                /* the latest ID */
    uint32_t last_order;          /* its packet's order in the capture's ID census; 0 unknown */
    double last_s;                /* when the latest was seen, seconds */
    uint32_t steps;               /* consecutive pairs seen, count */
    uint32_t unit_steps;          /* of which differed by one, count */
    uint32_t peer_packets;        /* the peer's packets seen since the latest, count */
    uint16_t unclaimed_skipped;   /* IDs skipped before the latest that no packet of the capture carried, before
                                   * its counter was shown to be this connection's (not counted), count; 0 none */
    uint16_t peer_data_packets;   /* of the peer's packets since the latest, those it may have acknowledged one by
                                   * one (payload, SYN or FIN), count (saturating) */
} tapo_ip_ids;

/* How far the capture point is from an endpoint as the sender
 * (sender_clock.h). */
typedef struct tapo_distance {
    bool away;                    /* the capture is not at the sender */
    bool at_receiver;             /* it is at the receiver */
    bool known;                   /* the round trip to the sender was measured */
    double round_trip_min_s;      /* capture point -> sender -> capture point, least delayed, seconds */
    double round_trip_now_s;      /* the same with the current queueing, seconds */
} tapo_distance;

typedef struct tapo_endpoint {
    tapo_sender tx;               /* what it sends (sender_state.h) */
    tapo_rtt rtt;                 /* its RTT estimator, on its own timeline */
    tapo_rtt_history rtt_history; /* the estimator's recent states */
    tapo_sender_clock clock;      /* the connection's packets on its timeline as a sender */
    tapo_turnaround turn;         /* how long it takes to answer, as the capture point sees it */
    tapo_hops hops;               /* routers its packets crossed before the capture point */
    tapo_ts_history ts;           /* TSvals it sent */
    tapo_ts_clock ts_clock;       /* its TSval clock */
    tapo_ip_ids ip_ids;           /* its IPv4 IDs */
    tapo_distance distance;       /* from it as the sender to the capture point... */
    uint32_t distance_version;    /* ...as of this version of the connection's turnarounds (0: never) */
    uint16_t port;                /* its TCP port */
    bool syn_rtt_untaken;         /* its SYN was answered before the capture point's distance to it was
                                   * known, so that round trip is not yet in its estimator */
    bool rtt_from_syn_ack;        /* its estimator's first sample was its SYN-ACK's, placed with a distance
                                   * that may include its time to answer the SYN (conversation.c) */
} tapo_endpoint;

void tapo_endpoint_init(tapo_endpoint *e, const tapo_config *cfg);
void tapo_endpoint_destroy(tapo_endpoint *e);

/* Where the capture was taken with self as the sender, and how that was
 * decided. */
tapo_vantage tapo_endpoint_vantage(const tapo_endpoint *self, const tapo_endpoint *peer,
                                   const tapo_config *cfg, tapo_basis *basis);

/* How far the capture point is from self as the sender, measured again. */
const tapo_distance *tapo_endpoint_measure_distance(tapo_endpoint *self, const tapo_endpoint *peer,
                                                    const tapo_config *cfg, uint32_t turn_version);

/* The same, kept: it changes only with the turnarounds, and turn_version
 * (the connection's) counts their changes; asked several times a packet. */
static inline const tapo_distance *tapo_endpoint_distance(tapo_endpoint *self, const tapo_endpoint *peer,
                                                          const tapo_config *cfg, uint32_t turn_version)
{
    if (self->distance_version == turn_version)
        return &self->distance;
    return tapo_endpoint_measure_distance(self, peer, cfg, turn_version);
}

/* Placing a sender packet on its timeline away from the sender is accurate
 * to a TSval tick and the path's jitter, seconds. */
static inline double tapo_placement_margin(const tapo_distance *d)
{
    return tapo_max(TAPO_PLACEMENT_MARGIN_S, TAPO_PLACEMENT_MARGIN_SHARE * d->round_trip_min_s);
}

/* When self sent p, on its own timeline: a round trip before it was seen,
 * plus whatever queueing it met on the way (from its TSval clock, else the
 * path's current queueing), and never before what p answers was seen. */
double tapo_endpoint_send_time(const tapo_endpoint *self, const tapo_endpoint *peer,
                               const tapo_packet *p, const tapo_distance *d);

/* Sender packets never captured since the previous one seen, from IPv4
 * IDs (endpoint.c says when they count); updates the endpoint's ID
 * history. */
tapo_opt_count tapo_endpoint_count_unseen(tapo_endpoint *e, const tapo_packet *p, double rto_min_s);
/* The peer sent a packet: something e may answer unseen (an ACK of its own
 * when the packet took sequence space). */
void tapo_endpoint_note_peer_packet(tapo_endpoint *e, bool takes_sequence);

#endif /* TAPO_ENDPOINT_H */
