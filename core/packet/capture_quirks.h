/* capture_quirks.h: what a capture itself gets wrong about a connection:
 * frames captured more than once, and timestamps out of order or jumping.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_CAPTURE_QUIRKS_H
#define TAPO_CAPTURE_QUIRKS_H

#include <stdbool.h>
#include <stdint.h>

#include "packet/packet_input.h"
#include "base/ring.h"

/* Copies of one frame captured several times (an "any" capture, a span
 * port, a router seen twice) arrive interleaved within a few packets. */
#define TAPO_RECENT_PACKETS 4
/* Copies with the same non-zero IPv4 ID closer than this are one frame:
 * a TCP retransmission always gets a new IP ID. */
#define TAPO_DUPLICATE_WINDOW_ID_S 0.05
/* Without an IP ID, only identical copies closer than this are one frame:
 * back-to-back duplicate ACKs of a fast link can be 10 us apart... */
#define TAPO_DUPLICATE_WINDOW_S 0.000005
/* ...but a segment that occupies sequence space (data, SYN, FIN) is sent
 * again only by a timer or in answer to the peer.  With nothing from the
 * peer in between, an identical copy this close is the capture's (a router
 * seen on both its interfaces): no retransmission timer fires that soon
 * (Linux's tail-loss probe waits 10 ms at least). */
#define TAPO_DUPLICATE_WINDOW_UNANSWERED_S 0.001
/* A gap longer than this is more likely the capture's clock jumping (a
 * merged file, a clock step) than a connection idle that long; it still
 * counts, with a note. */
#define TAPO_CLOCK_JUMP_S 86400.0      /* seconds: a day */

/* A packet as the duplicate check compares it: every header field a copy
 * repeats, the SACK blocks as a 64-bit digest. */
typedef struct tapo_seen_packet {
    double time_s;                    /* capture time, seconds */
    uint32_t seq_raw, ack_raw;
    uint32_t payload_len;             /* bytes */
    uint32_t window;                  /* bytes */
    uint16_t ip_id;
    uint16_t flags;
    uint8_t from;
    uint8_t sack_count;
    uint64_t sack_digest;             /* 0 without SACK blocks */
} tapo_seen_packet;

/* What happened to a connection that the user should hear of: counts that
 * a caller compares before and after a packet. */
typedef struct tapo_conv_events {
    uint32_t restarts;            /* times a new connection started on the same ports, count */
    uint32_t strays;              /* SYN-ACKs of another connection ignored, count */
    uint32_t time_backwards;      /* packets stamped before the latest one seen, count */
    uint32_t time_jumps;          /* gaps over TAPO_CLOCK_JUMP_S, count */
} tapo_conv_events;

typedef struct tapo_capture_quirks {
    tapo_seen_packet recent[TAPO_RECENT_PACKETS]; /* the connection's latest packets (ring) */
    tapo_ring ring;
    bool started;                     /* a packet was noted */
    float tick_s;                     /* the shortest step forward between the connection's packets, seconds: at
                                       * least the capture clock's tick (0: none yet) */
    double latest_time_s;             /* the latest capture time seen, seconds */
} tapo_capture_quirks;

/* p as the duplicate check compares it. */
tapo_seen_packet tapo_seen(const tapo_packet *p);

/* p (seen as given) is a copy of a frame seen just before. */
bool tapo_quirks_is_duplicate(const tapo_capture_quirks *q, const tapo_seen_packet *p);

/* Counts a capture out of time order (a merged file, interfaces read in
 * turn) or whose clock jumped, so that the glue can say so. */
void tapo_quirks_note_time(tapo_capture_quirks *q, const tapo_packet *p, tapo_conv_events *events);

/* Remembers p for the duplicate check. */
void tapo_quirks_remember(tapo_capture_quirks *q, const tapo_seen_packet *p);

#endif /* TAPO_CAPTURE_QUIRKS_H */
