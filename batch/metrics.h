/* metrics.h: what a run of tapo counts for Prometheus, and its text
 * exposition format (docs/monitoring.md lists every metric).
 *
 * A stall is counted once, with the verdict of its row: live or from a
 * pipe, when its row is written (--settle seconds after it, with that much
 * hindsight), else when its connection ends (the final verdict).  Episodes
 * are counted as they are found.  The rest (packets, connections, drops,
 * outputs, memory) are totals the run publishes as it goes: each worker's
 * are replaced, not added, so publishing more often changes nothing.
 *
 * Names follow Prometheus' conventions: the tapo_ prefix, base units
 * (seconds, bytes) as suffixes, _total on counters.  Labels have bounded
 * values: the causes, categories, phases and confidences of the
 * vocabulary, the episode scopes, the outputs, and the busiest N servers
 * (busiest_servers.h).  Every series of the vocabulary is there from the
 * start, at zero, so that the first stall of a cause is an increase.
 *
 * Thread-safe: the workers count, the HTTP thread renders.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_METRICS_H
#define TAPO_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "incidents/episodes.h"
#include "record/stall.h"

typedef struct tapo_metrics tapo_metrics;

/* servers: N, the server endpoints with a label of their own. */
tapo_metrics *tapo_metrics_new(unsigned servers);
void tapo_metrics_free(tapo_metrics *m);

/* A stall as its row gives it, to count once its row is written (a
 * worker keeps it until it flushes its rows). */
typedef struct tapo_metrics_stall_note {
    tapo_cause cause;
    tapo_phase phase;
    tapo_confidence confidence;
    double duration_s;                /* seconds */
    char *server;                     /* its connection's server endpoint, "address:port"; owned */
} tapo_metrics_stall_note;

/* The note of verdict v; takes server (g_malloc'd; NULL: unknown). */
tapo_metrics_stall_note tapo_metrics_stall_note_of(const tapo_verdict *v, char *server);

/* Counts a stall; frees its note's server. */
void tapo_metrics_stall(tapo_metrics *m, tapo_metrics_stall_note *n);

/* Updates made between hold and release reach a scrape together (a stall
 * and the row that says it); they nest, and take the metrics' own lock:
 * take any lock of the caller's first. */
void tapo_metrics_hold(tapo_metrics *m);
void tapo_metrics_release(tapo_metrics *m);

void tapo_metrics_episode(tapo_metrics *m, const tapo_episode *e);

/* What one worker counted so far (totals since the run began). */
typedef struct tapo_metrics_worker {
    uint64_t packets;                 /* frames read (counted by one worker only), count */
    uint64_t tcp_packets;             /* TCP segments analysed, count */
    uint64_t undecodable;             /* frames skipped (counted by one worker only), count */
    uint64_t connections;             /* connections started, count */
    uint64_t open;                    /* connections in its table now, count */
    uint64_t evicted;                 /* connections evicted for memory, count */
    uint64_t idle_ended;              /* connections ended by the idle timeout, count */
    uint64_t settling;                /* stalls whose row waits for its settle time now, count */
} tapo_metrics_worker;

void tapo_metrics_set_worker(tapo_metrics *m, unsigned worker, const tapo_metrics_worker *w);

/* libpcap's statistics of a live capture, since it began. */
void tapo_metrics_set_drops(tapo_metrics *m, uint64_t kernel, uint64_t interface);

/* An output's rows so far. */
typedef struct tapo_metrics_output {
    uint64_t rows;                    /* written, count */
    uint64_t rows_lost;               /* that could not be written (a full disk), count */
    uint64_t files;                   /* files completed (rotations), count */
} tapo_metrics_output;

/* name: "stalls", "flows" or "episodes". */
void tapo_metrics_set_output(tapo_metrics *m, const char *name, const tapo_metrics_output *o);

/* The heap in use and the cap (0: none), bytes. */
void tapo_metrics_set_memory(tapo_metrics *m, uint64_t heap_bytes, uint64_t limit_bytes);

/* Whether the inputs are still being read (0 once they ended). */
void tapo_metrics_set_running(tapo_metrics *m, bool running);

/* Every metric in Prometheus' text format (version 0.0.4). */
GString *tapo_metrics_render(tapo_metrics *m);

#define TAPO_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

#endif /* TAPO_METRICS_H */
