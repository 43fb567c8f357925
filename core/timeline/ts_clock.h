/* ts_clock.h: an endpoint's TCP timestamp clock (RFC 7323 TSval) laid
 * over the capture's clock, to tell when each of its packets was sent.
 *
 * A packet's TSval is its sender's clock at sending.  The least delayed
 * packets arrive a fixed time after their TSval; any other arrives later by
 * the queueing it met on the way.  Away from the sender this places each
 * sender packet on the sender's timeline individually: a response queued
 * behind a bulk download was sent at once, not when it arrived.
 *
 * The clock's rate is learned from the packets: TSval ticks are 1 ms on
 * today's Linux, BSDs and Windows, the kernel tick (4 or 10 ms) on older
 * stacks; a measured rate near a common one is taken as exact, because an
 * error of a tenth of a percent adds up over a long connection.  A packet
 * held on the way makes the clock look slow, never fast: the rate is the
 * fastest measured, so a burst released late does not hide its own delay.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_TS_CLOCK_H
#define TAPO_TS_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "base/optional.h"

#define TAPO_TS_CLOCK_EARLY 8            /* first packets kept until the rate is known, count */
#define TAPO_TS_CLOCK_MIN_SPAN_S 0.25    /* span measured before trusting a rate, seconds */
#define TAPO_TS_CLOCK_MIN_TICKS 20       /* ticks measured before trusting a rate, count */
#define TAPO_TS_CLOCK_SNAP_SHARE 0.05    /* a measured rate this close to a common one is that one */
#define TAPO_TS_CLOCK_MAX_HZ 1024.0      /* the fastest TSval clock in use (RFC 7323: at most 1 ms a tick), ticks per second */
#define TAPO_TS_CLOCK_PLACING_MIN_HZ 99.0 /* the slowest that places packets (the 10 ms kernel tick), ticks per second */
#define TAPO_TS_CLOCK_FREE_SPAN_S 2.0    /* an uncommon rate is used once measured over this long, seconds */
/* Until the rate is measured, the most common one (1 ms ticks) stands in
 * when the first packets fit it this well: queueing early in a connection
 * (a slow link serialising the first flight) is then seen at once. */
#define TAPO_TS_CLOCK_PROVISIONAL_HZ 1000.0
#define TAPO_TS_CLOCK_PROVISIONAL_TICKS 5     /* ticks seen before, count */
#define TAPO_TS_CLOCK_PROVISIONAL_SHARE 0.25  /* measured rate within this share of it */

/* A TSval and when a packet carrying it was captured. */
typedef struct tapo_ts_tick {
    uint32_t tsval;
    double t_s;                          /* capture time, seconds */
} tapo_ts_tick;

typedef struct tapo_ts_clock {
    bool started;
    bool rate_from_latest;               /* the latest packet alone measured rate_hz: no measure of its own delay */
    uint32_t first_tsval;                /* reference tick */
    double first_s;                      /* its capture time, seconds */
    double rate_hz;                      /* ticks per second; 0 until known */
    double fastest_hz;                   /* the fastest rate measured from the reference
                                          * (queueing only slows it), ticks per second; 0: none yet */
    bool lag_known;
    double lag_min_s;                    /* smallest arrival lag behind the clock, seconds */
    uint32_t last_tsval;
    double last_s;                       /* capture time of the latest packet, seconds */
    tapo_ts_tick early[TAPO_TS_CLOCK_EARLY]; /* the first packets, until the rate is known */
    unsigned early_count;                /* entries used */
} tapo_ts_clock;

/* A packet with this TSval was captured at t (seconds). */
void tapo_ts_clock_note(tapo_ts_clock *k, uint32_t tsval, double t_s);

/* How much later than the least delayed packets a packet with this TSval
 * arrived: its queueing since it was sent, seconds, when the clock is
 * known.  Before the rate is measured, from the provisional rate and the
 * first packets.  Unknown for a clock that ticks less often than
 * TAPO_TS_CLOCK_PLACING_MIN_HZ: a TSval places its packet within a tick,
 * and a 100 ms tick could move it by enough to make a stall of the next
 * packet's gap (the path's queueing stands in, tapo_endpoint_send_time). */
tapo_opt_s tapo_ts_clock_delay(const tapo_ts_clock *k, uint32_t tsval, double t_s);

#endif /* TAPO_TS_CLOCK_H */
