/* busiest_servers.h: the server endpoints that get a label of their own in
 * tapo's metrics (metrics.h), so that the number of series stays bounded
 * however many servers stall: the busiest N by stalled time, every other
 * one counted as "other".
 *
 * A label's series only grows (Prometheus counters): a server keeps its
 * label until another one has stalled for longer in all than it has, which
 * then takes its place; the series of the server that lost its place ends
 * there and its later stalls count as "other", and the new one's series
 * starts at zero (its earlier stalls stay in "other").  So every stall is
 * counted exactly once, in one series, and "other" never goes down.  The
 * stalled time of servers without a label is kept for a bounded number of
 * candidates (the Space-Saving algorithm: a new candidate takes the place
 * of the one with the least, and inherits its count, so that it is never
 * underestimated).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_BUSIEST_SERVERS_H
#define TAPO_BUSIEST_SERVERS_H

#include <stdint.h>

#include <glib.h>

#define TAPO_BUSIEST_OTHER "other"    /* the label of every server without one of its own */

typedef struct tapo_busiest tapo_busiest;

/* labelled: N, the servers with a label of their own (0: all are "other"). */
tapo_busiest *tapo_busiest_new(unsigned labelled);
void tapo_busiest_free(tapo_busiest *b);

/* A stall of stalled_s seconds at server ("address:port"). */
void tapo_busiest_add(tapo_busiest *b, const char *server, double stalled_s);

/* One series: a server with its own label, or "other". */
typedef struct tapo_busiest_series {
    const char *server;               /* valid until the next tapo_busiest_add */
    uint64_t stalls;                  /* since the label was given, count */
    double stalled_s;                 /* the same stalls' durations, seconds */
} tapo_busiest_series;

/* The most series there can be: N + 1. */
unsigned tapo_busiest_series_max(const tapo_busiest *b);

/* The series now: the labelled servers, then "other"; returns how many
 * were written into out (room for tapo_busiest_series_max). */
unsigned tapo_busiest_series_now(const tapo_busiest *b, tapo_busiest_series *out);

#endif /* TAPO_BUSIEST_SERVERS_H */
