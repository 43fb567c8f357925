/* vantage.h: where the capture was taken, measured from turnarounds
 * (spec section 1).
 *
 * A turnaround of endpoint E is the time from a packet of its peer seen at
 * the capture point to the packet E sent in answer to it, seen there: the
 * round trip capture point -> E -> capture point.  It is a few microseconds
 * when the capture was taken at E (its own stack answers at once) and the
 * whole path RTT when it was taken at E's peer.  For the analysed sender S
 * and its receiver R:
 *   turnaround(S) tiny, turnaround(R) a round trip  ->  vantage "sender"
 *   turnaround(R) tiny, turnaround(S) a round trip  ->  vantage "receiver"
 *   each a share of the path                       ->  vantage "middle"
 * and the round trip the sender measures is turnaround(S) + turnaround(R).
 *
 * Samples are causal (the answer cannot come before the packet it answers),
 * so each is at least the true turnaround: the SYN-ACK after a SYN, the
 * ACK of a SYN-ACK, an ACK of new data, and the first packet echoing a
 * TCP timestamp (RFC 7323) after the packet that carried it.  An answer the
 * endpoint delayed (delayed ACK, application think time) only adds, so the
 * estimators keep minima: the smallest ever, which places the capture
 * point, and the smallest of the last few clean samples, which follows
 * queueing on the path.  A sample is not clean when the answer is the head
 * of a response, timed by its echo or by the ACK it carries: it includes
 * the application's think time; nor when it is a bare ACK that a receiver
 * may hold (RFC 1122 4.2.3.2, RFC 5681 4.2: an ACK is owed at once only
 * for a second full-sized segment or out-of-order data): its delayed-ACK
 * timer (40 ms on Linux, 200 ms on Windows) may be in it.  Such samples
 * still bound the round trip: a short one proves the endpoint near, but a
 * long one does not prove it far (a head counts among the recent ones
 * only before any clean one, or when it is the tighter bound).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_VANTAGE_H
#define TAPO_VANTAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ring.h"
#include "base/vocabulary.h"

#define TAPO_TURN_RECENT 4            /* recent clean samples kept, count: follows queueing */
#define TAPO_TS_HISTORY 16            /* TSvals remembered per endpoint, count */
/* An endpoint whose turnaround is at most this share of the path's round
 * trip is where the capture was taken (its own stack, or a tap next to it:
 * what lies between is too short to lose or delay much). */
#define TAPO_VANTAGE_NEAR_SHARE 0.1
/* Without a turnaround of the sender, a receiver that answers faster than
 * this is taken to be on the capturing host: no path is that short except
 * a LAN, where stalls are application pauses anyway. */
#define TAPO_VANTAGE_HOST_TURN_S 0.001   /* seconds */
#define TAPO_TURN_MAX_S 120.0            /* longer samples are nonsense, seconds */

/* The turnarounds of one endpoint. */
typedef struct tapo_turnaround {
    uint32_t samples;                 /* count */
    bool handshake;                   /* one sample came from the handshake */
    bool proven;                      /* one sample could not have waited (clean, handshake) */
    double min_s;                     /* smallest sample, seconds */
    double recent_s[TAPO_TURN_RECENT];/* latest clean samples, seconds (ring) */
    tapo_ring recent;
    double recent_min_s;              /* the least of them, seconds (with recent.count) */
} tapo_turnaround;

/* What a turnaround sample measured. */
typedef enum {
    TAPO_TURN_CLEAN,                  /* an answer sent as soon as possible */
    TAPO_TURN_HANDSHAKE,              /* the SYN-ACK, or the ACK of the SYN-ACK */
    TAPO_TURN_RESPONSE_HEAD,          /* the head of a response: includes think time */
    TAPO_TURN_MAY_WAIT                /* a bare ACK the receiver may have delayed */
} tapo_turn_kind;

/* Adds a sample; true when what the vantage and the distance read of the
 * turnaround changed. */
bool tapo_turn_add(tapo_turnaround *t, double sample_s, tapo_turn_kind kind);

/* The smallest recent clean sample, seconds (the smallest ever when there
 * is none; 0 without samples): the current turnaround with its queueing,
 * without one-off answering delays. */
double tapo_turn_recent(const tapo_turnaround *t);

/* How many routers an endpoint's packets crossed before the capture
 * point, from their TTL (IPv6: hop limit).  Hosts start it at 64, 128 or
 * 255; a packet captured with one of these values crossed none, so the
 * capture was on that host or its own link. */
typedef struct tapo_hops {
    uint8_t ttl;                      /* the TTL its packets had here, hops; 0 unknown */
    bool varies;                      /* they were not all the same */
    bool same_host;                   /* its packets went to its own address: no path at all */
} tapo_hops;

/* Notes a packet's TTL (0: unknown); true when what tapo_hops_home reads
 * changed. */
bool tapo_hops_note(tapo_hops *h, uint8_t ttl);

/* Notes a packet sent to its sender's own address; true the first time. */
bool tapo_hops_note_same_host(tapo_hops *h);

/* Every packet seen from the endpoint had crossed no router. */
bool tapo_hops_home(const tapo_hops *h);

/* The vantage for sender S and receiver R, and how it was decided: at the
 * sender when both have one address; else by the turnarounds, and where
 * they cannot tell (no samples, or a path below the capture's clock
 * resolution), by which endpoint's packets alone crossed no router. */
tapo_vantage tapo_vantage_infer(const tapo_turnaround *sender, const tapo_turnaround *receiver,
                                const tapo_hops *sender_hops, const tapo_hops *receiver_hops,
                                tapo_basis *basis);

/* TSvals one endpoint sent, with when each was first seen, so that the
 * peer's echo (TSecr) can be timed. */
/* A TSval an endpoint sent, and when it was first seen. */
typedef struct tapo_ts_sent_at {
    uint32_t tsval;
    double first_seen_s;              /* seconds */
} tapo_ts_sent_at;

typedef struct tapo_ts_history {
    tapo_ts_sent_at sent[TAPO_TS_HISTORY]; /* the latest (ring) */
    tapo_ring ring;
    bool echoed;                      /* the endpoint echoed a TSval already */
    uint32_t last_echo;               /* the TSecr it sent last */
} tapo_ts_history;

/* The endpoint sent tsval at time t. */
void tapo_ts_sent(tapo_ts_history *h, uint32_t tsval, double t);

/* When the endpoint's packets with this TSval were first seen, if it
 * remembers them. */
bool tapo_ts_first_seen(const tapo_ts_history *h, uint32_t tsval, double *first_seen_s);

/* A packet of the endpoint owning 'echoer' echoed tsecr at time t; when it
 * is the first to echo a TSval of 'peer', returns true and the turnaround
 * (seconds) since that TSval was first seen. */
bool tapo_ts_echo(tapo_ts_history *echoer, const tapo_ts_history *peer, uint32_t tsecr,
                  double t, double *turnaround_s);

#endif /* TAPO_VANTAGE_H */
