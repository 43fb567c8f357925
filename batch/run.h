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

#include "config.h"
#include "report.h"
#include "rows.h"

typedef struct tapo_run_options {
    char **files;                     /* NULL-terminated */
    int jobs;                         /* workers; 1: the calling thread alone (also for inputs readable once) */
    bool merge_by_time;               /* simultaneous parts of one capture: interleaved by timestamp */
    bool continuous;                  /* consecutive parts of one capture: connections go on from file to file */
    tapo_config cfg;
    double grace_s;                   /* after a connection is over, seconds */
    double idle_s;                    /* without packets before a connection is written out, seconds */
    FILE *stalls;                     /* stall rows; NULL: none */
    FILE *flows;                      /* flow rows (CSV or JSONL); NULL: none */
    tapo_rows_format format;
    bool progress;                    /* a progress line on stderr */
} tapo_run_options;

/* Runs the analysis; fills report.  Returns false when an input could
 * not be read completely (the run goes on past it, with a message). */
bool tapo_run(const tapo_run_options *o, tapo_report *report);

#endif /* TAPO_RUN_H */
