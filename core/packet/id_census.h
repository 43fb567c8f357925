/* id_census.h: which IPv4 IDs the capture's packets carried, whatever
 * their addresses and protocols (spec section 8).
 *
 * A gap in one sender's IDs counts the packets it sent that the capture
 * missed only where the counter is proven this connection's: hosts such as
 * Windows number all their connections from one counter, and a proxy or a
 * VPN endpoint numbers the packets of many addresses from one.  The proof
 * is that no other packet of the capture carried a missing ID between the
 * sender's two packets.  The census answers that for every packet the
 * capture holds, in capture order, at a fixed cost (one entry per ID).
 *
 * It also keeps which IPv4 host sent each ID's latest packet, so that a
 * sender's skip whose missing IDs its own packets elsewhere carried (to
 * another connection, or not TCP at all) proves its counter host-wide.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_ID_CENSUS_H
#define TAPO_ID_CENSUS_H

#include <stdbool.h>
#include <stdint.h>

#define TAPO_ID_COUNT 65536           /* IPv4 identification values */

/* The latest packet that carried one ID. */
typedef struct tapo_id_mark {
    uint32_t order;                   /* its order in the census; 0 never */
    uint32_t host;                    /* its IPv4 source address, as the header's 4 bytes; 0 unknown */
} tapo_id_mark;

typedef struct tapo_id_census {
    uint32_t order;                   /* IPv4 packets noted so far, count (wraps, skipping 0) */
    tapo_id_mark *last;               /* per ID: its latest packet; NULL until the first */
} tapo_id_census;

void tapo_id_census_init(tapo_id_census *c);
void tapo_id_census_destroy(tapo_id_census *c);

/* Notes an IPv4 packet carrying id, sent by host (its source address's 4
 * bytes, 0 unknown); returns its order (never 0). */
uint32_t tapo_id_census_note(tapo_id_census *c, uint16_t id, uint32_t host);

/* Whether some packet noted after the one of order 'from' and before the
 * one of order 'to' carried an ID strictly between from_id and to_id
 * (counting up, modulo 2^16). */
bool tapo_id_census_carried_between(const tapo_id_census *c, uint32_t from, uint16_t from_id, uint32_t to,
                                    uint16_t to_id);

/* The same, counting only packets of the host that sent the packet of
 * order 'to' (id to_id): that host numbered a packet outside this
 * connection between the two, so its counter is not the connection's own.
 * False when the host is unknown. */
bool tapo_id_census_host_carried_between(const tapo_id_census *c, uint32_t from, uint16_t from_id, uint32_t to,
                                         uint16_t to_id);

#endif /* TAPO_ID_CENSUS_H */
