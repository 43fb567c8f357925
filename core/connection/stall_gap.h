/* stall_gap.h: the gap a packet ends, on the timeline of one endpoint as the
 * analysed sender (spec section 3), and whether it may be a stall.
 *
 * Every packet is seen from both endpoints as the sender: each has its own
 * timeline (sender_clock.h), RTT estimator and threshold, so that the
 * sender can be chosen from the data and settled with hindsight without
 * reading the capture again (spec section 1).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_STALL_GAP_H
#define TAPO_STALL_GAP_H

#include <stdbool.h>

#include "base/config.h"
#include "connection/endpoint.h"
#include "packet/packet_input.h"
#include "timeline/sender_clock.h"

/* The gap before a packet for one endpoint as the sender. */
typedef struct tapo_view_gap {
    tapo_distance distance;       /* from the sender to the capture point, when the packet came */
    double time_s;                /* the packet on the sender's timeline, seconds */
    tapo_clock_packet on_clock;   /* the packet as the sender's clock sees it */
    tapo_clock_reading clock;     /* the gap and the silence before it */
    /* The sender's estimates at that time, read for gaps of at least the
     * minimum stall duration and the sender's own data, SYN or FIN (else
     * unknown and 0). */
    tapo_opt_s srtt;              /* seconds (unknown without a sample) */
    double rto_s;                 /* seconds */
    double threshold_s;           /* min(tau x SRTT, RTO) then, seconds */
    tapo_opt_s since_tx_s;        /* p's own sender: its time since its previous transmission, seconds */
    bool candidate;               /* the gap may be a stall: a snapshot is needed */
} tapo_view_gap;

/* Reads the gap before p (sent by 'sender' when own, else by its peer)
 * for 'sender' as the analysed sender. */
void tapo_view_gap_read(tapo_endpoint *sender, const tapo_endpoint *peer, const tapo_packet *p,
                        bool own, const tapo_config *cfg, uint32_t turn_version, tapo_view_gap *g);

/* Once both views are read (by endpoint): whether each gap may be a
 * stall.  first: p is the connection's first packet (which never ends
 * one). */
void tapo_view_gaps_settle(tapo_view_gap gaps[2], const tapo_packet *p, bool first, const tapo_config *cfg);

#endif /* TAPO_STALL_GAP_H */
