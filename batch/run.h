/* run.h: one run of the batch analyser: the captures read in order (or
 * merged by time), every connection analysed by the worker it hashes to
 * (its endpoints), and what the workers write out.
 *
 * Captures are independent by default, as if analysed one by one (each
 * with its own clock, its connections ended at its end): then a run over
 * many files equals the merge of one run per file.  Consecutive parts of
 * one capture (a ring buffer) keep their connections from file to file
 * (continuous); simultaneous parts (several interfaces) are interleaved by
 * timestamp (merge_by_time).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_RUN_H
#define TAPO_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "base/config.h"
#include "html.h"
#include "memory_cap.h"
#include "metrics.h"
#include "output.h"
#include "report.h"
#include "rows.h"

typedef struct tapo_run_options {
    char **files;                     /* NULL-terminated; or: */
    const char *interface;            /* a live interface (libpcap); NULL: the files */
    const char *capture_filter;       /* its BPF filter; NULL: none */
    int jobs;                         /* workers; 1: the calling thread alone (also for inputs readable once) */
    bool merge_by_time;               /* simultaneous parts of one capture: interleaved by timestamp */
    bool continuous;                  /* consecutive parts of one capture: connections go on from file to file */
    tapo_config cfg;
    double grace_s;                   /* after a connection is over, seconds */
    double idle_s;                    /* without packets before a connection is written out, seconds */
    tapo_output *stalls;              /* stall rows; NULL: none */
    tapo_output *flows;               /* flow rows (CSV or JSONL); NULL: none */
    tapo_output *episodes;            /* episode rows; NULL: none */
    tapo_rows_format format;
    tapo_html_stalls *html;           /* receives every stall as the HTML report shows it; NULL: none */
    bool progress;                    /* a progress line on stderr */
    /* Streaming (a live interface, a pipe): a stall's row is written once
     * settle_s of capture time have passed since it (hindsight over that
     * long; 0: the one-pass verdict at once), not when its connection
     * ends; the outputs are flushed as rows come. */
    bool stream;
    double settle_s;                  /* seconds */
    double interval_s;                /* a summary line on stderr this often (live), seconds; 0: none */
    uint64_t buffer_bytes;            /* the live capture's kernel buffer, bytes; 0: libpcap's default */
    tapo_metrics *metrics;            /* what the run counts, for --metrics; NULL: none */
    const tapo_memory_cap *memory;    /* connections are evicted to keep under it; NULL: no cap */
} tapo_run_options;

/* Runs the analysis; fills report.  Returns false when an input could
 * not be read completely (the run goes on past it, with a message), or a
 * live capture failed. */
bool tapo_run(const tapo_run_options *o, tapo_report *report);

/* Ends the run at the next frame, as if the inputs ended there (SIGINT,
 * SIGTERM): every connection is written out.  Safe in a signal handler. */
void tapo_run_stop(void);

/* SIGHUP: the outputs are reopened (a segment completed, a single file
 * opened again at its path) at the next frame or quiet moment.  Safe in a
 * signal handler. */
void tapo_run_reopen(void);

/* The outputs' counts, for --metrics: o->metrics told what o's outputs
 * wrote and lost (the run does it as it goes; a command once more at the
 * end, the outputs closed). */
void tapo_run_publish_outputs(const tapo_run_options *o);

/* Whether an input is read once only (a pipe, standard input, a FIFO):
 * such runs stream. */
bool tapo_input_streams(const char *path);

#endif /* TAPO_RUN_H */
