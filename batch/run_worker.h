/* run_worker.h: a worker of a run (run.h), shared by the files that make
 * up the run, one job each:
 *   run.c           the workers: start, run, join, merge;
 *   run_read.c      reading capture files, and feeding each frame to the table;
 *   run_live.c      reading a live interface;
 *   run_outputs.c   what a connection that ended writes: stall rows, its flow row, the report;
 *   run_stream.c    streaming: stall rows as they settle, episodes as they close;
 *   run_upkeep.c    long runs: metrics, the memory cap, output segments, SIGHUP;
 *   run_episodes.c  the episodes of a run that did not stream, at its end.
 *
 * Each worker reads every input itself and analyses the connections that
 * hash to it (their endpoints, modulo the number of workers); it sees
 * every TCP segment's time, so that all workers keep the run's one clock
 * and end connections at the same points as a single worker would.  A
 * mapped pcap file costs each extra reader a few dozen instructions a
 * packet, far less than handing packets between threads.  Inputs that can
 * be read only once (a pipe) get one worker.  Each worker keeps its own
 * connections, report and output buffer: nothing is shared but the output
 * files (one lock).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_RUN_WORKER_H
#define TAPO_RUN_WORKER_H

#include <signal.h>

#include "capture/capture.h"
#include "episode_stream.h"
#include "live.h"
#include "run.h"
#include "table/connection_table.h"
#include "table/table_feed.h"

#define OUTPUT_FLUSH_BYTES 65536      /* a worker's output is written past this, bytes */
#define SETTLE_CHECK_S 0.5            /* capture seconds between looks for settled stalls (streaming) */
#define CAP_CHECK_CONNECTIONS 256     /* new connections between looks at the memory (--memory-limit), count */

/* Set by a signal: the inputs end at the next frame; the outputs are reopened. */
extern volatile sig_atomic_t tapo_run_stop_requested;
extern volatile sig_atomic_t tapo_run_reopen_requested;
/* The live capture while one runs (its drops, and SIGINT stops it). */
extern tapo_live *volatile tapo_run_live;

typedef struct shared {
    const tapo_run_options *o;
    const char *const *names;         /* file names by index */
    GMutex output_lock;
} shared;

typedef struct worker {
    shared *sh;
    unsigned index;                   /* analyses the connections that hash to it... */
    unsigned count;                   /* ...modulo the number of workers */
    GThread *thread;
    tapo_conn_table table;
    tapo_report report;
    GString *stall_out, *flow_out, *episode_out;
    uint64_t stall_rows, flow_rows, episode_rows; /* rows in them, count */
    GArray *stall_notes;              /* tapo_metrics_stall_note: stalls of those rows, counted when written
                                         (--metrics); NULL: none */
    bool complete;                    /* every input read to its end */
    gint64 progress_start_us, progress_last_us;
    GHashTable *pending;              /* streaming: connections with stalls not yet written */
    GArray *episode_stalls;           /* tapo_episode_stall: every stall, for the episodes at the end */
    GArray *episode_places;           /* tapo_row_member: where each is */
    GStringChunk *episode_texts;      /* their scope keys */
    tapo_html_stalls html;            /* every stall for the HTML report, in the order of episode_stalls */
    double settled_check_s;           /* the clock when they were last looked at, seconds */
    uint64_t rows_streamed;           /* stall rows written before their connection ended, count */
    gint64 summary_last_us;           /* wall time of the latest summary line (live) */
    tapo_episode_stream *episodes;    /* streaming: episodes found as stalls settle; NULL: at the end */
    GStringChunk *scratch;            /* texts of the stall being added to it */
    uint64_t episodes_unlisted;       /* streaming: episodes past STREAM_REPORT_EPISODES, count */
    double latest_epoch_s;            /* streaming: the latest frame's time, or the wall's when quiet, seconds */
    uint64_t connections;             /* started, count */
    tapo_memory_cap cap;              /* --memory-limit: this worker's marks (they adapt); a zero limit: none */
    unsigned since_cap_check;         /* connections started since the heap was looked at, count */
    gint64 published_us;              /* wall time of the latest publication (--metrics) */
} worker;

/* An input being read. */
typedef struct run_input {
    tapo_capture *cap;
    uint32_t index;
    const char *name;
    unsigned messages;                /* undecodable frames reported */
    bool pending;                     /* a frame is read and waits (time-ordered merge) */
    tapo_frame frame;
} run_input;

/* run_read.c */
bool worker_speaks(const worker *w);
void worker_progress(worker *w, bool last);
void worker_handle(worker *w, run_input *in, tapo_table_clock *k);
void worker_read_in_turn(worker *w, uint32_t count);
void worker_read_merged(worker *w, uint32_t count);
/* run_live.c */
void worker_read_live(worker *w);
/* run_outputs.c */
void worker_flush(worker *w, bool force);
void worker_stall_decided(worker *w, tapo_connection *c, const tapo_conn_stall *s, const tapo_verdict *v);
void worker_connection_ended(void *ctx, tapo_connection *c, tapo_end_reason why);
/* run_stream.c */
void worker_write_all_settled(worker *w, double clock_s);
void worker_close_episodes(worker *w, bool all);
/* run_upkeep.c */
void worker_publish(worker *w, bool force);
void worker_keep_under_cap(worker *w);
void worker_upkeep(worker *w);
/* run_episodes.c */
void tapo_run_find_episodes(const tapo_run_options *o, worker *ws, unsigned jobs, tapo_report *report);

#endif /* TAPO_RUN_WORKER_H */
