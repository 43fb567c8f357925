/* report.h: what a run of the batch analyser adds up, and how partial
 * results merge.
 *
 * The breakdown follows the plugin's statistics tree (breakdown.h), the
 * flow report the Lua companion's (per connection: duration, stalled time,
 * stall ratio, dominant cause); the stall ratio's distribution over flows
 * is the paper's Figure 3.  Everything here merges exactly: counts and
 * times add, quantile sketches add their buckets, and the worst flows of
 * a merge are the worst of the parts' worst flows.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_REPORT_H
#define TAPO_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "explain/breakdown.h"
#include "explain/flow_report.h"
#include "incidents/episodes.h"
#include "sketch.h"
#include "base/vocabulary.h"
#include "explain/whatif.h"

#define TAPO_REPORT_WORST_FLOWS 20    /* flows listed in the report, count */

/* The row as an object of the report's JSON, as a node. */
JsonNode *tapo_flow_row_to_node(const tapo_flow_row *f);

/* A node of the breakdown tree. */
typedef struct tapo_report_node {
    char *name;
    const char *named_by;             /* the vocabulary's string of its name (report.c); NULL none */
    int64_t total;                    /* stalls, or milliseconds */
    GPtrArray *children;              /* tapo_report_node, in order of first use */
} tapo_report_node;

typedef struct tapo_report {
    uint64_t files;                   /* captures read, count */
    uint64_t packets;                 /* frames read, count */
    uint64_t tcp_packets;             /* frames analysed, count */
    uint64_t undecodable;             /* frames skipped with a message, count */
    uint64_t conversations;           /* connections analysed, count */
    uint64_t stalled_conversations;   /* of which with stalls, count */
    uint64_t idle_flushed;            /* connections written out after the idle timeout, count */
    tapo_report_node *tree;           /* root: its children are the breakdown's roots */
    /* The breakdown's times are whole milliseconds per stall; these are the
     * sums the flow rows add up to, in whole nanoseconds, so that partial
     * results merge exactly in any grouping. */
    int64_t stalled_ns;
    int64_t stalled_by_cause_ns[TAPO_CAUSE_COUNT];
    int64_t saving_by_mitigation_ns[TAPO_MITIGATION_COUNT];
    uint64_t duration_buckets[TAPO_DURATION_BUCKETS];
    tapo_sketch durations;            /* stall durations, seconds */
    tapo_sketch flow_ratios;          /* stall ratio of every flow, stalled or not */
    GPtrArray *worst;                 /* tapo_flow_row, most to act on first (tapo_rank), at most
                                         TAPO_REPORT_WORST_FLOWS */
    GArray *episodes;                 /* tapo_report_episode, in order of start within each capture */
} tapo_report;

/* An episode (episodes.h) and the capture it happened in. */
typedef struct tapo_report_episode {
    tapo_episode e;
    char *file;
} tapo_report_episode;

/* Adds an episode of capture file (its id is renumbered in the report). */
void tapo_report_add_episode(tapo_report *r, const tapo_episode *e, const char *file);

void tapo_report_init(tapo_report *r);
void tapo_report_free(tapo_report *r);

void tapo_report_add_stall(tapo_report *r, const tapo_verdict *v);

/* Seconds as whole nanoseconds (the report's exact sums). */
int64_t tapo_report_ns(double seconds);

/* A connection that ended; the report takes the row. */
void tapo_report_add_flow(tapo_report *r, tapo_flow_row *f);
/* Whether tapo_report_add_flow would keep f among the worst flows now
 * (f's numbers, file and first frame decide). */
bool tapo_report_lists(const tapo_report *r, const tapo_flow_row *f);

void tapo_report_merge(tapo_report *into, const tapo_report *from);

/* For report_json.c and report_text.c: the child of n named name, made
 * when missing; n's children by total, then name (free the array, not
 * them); the child named name, NULL when none; f among the worst flows,
 * or freed. */
tapo_report_node *tapo_report_node_child(tapo_report_node *n, const char *name);
GPtrArray *tapo_report_node_sorted(const tapo_report_node *n);
const tapo_report_node *tapo_report_node_find(const tapo_report_node *n, const char *name);
void tapo_report_keep_worst(tapo_report *r, tapo_flow_row *f);

/* Partial results, for merging later (tapo merge): report_json.c. */
char *tapo_report_to_json(const tapo_report *r, bool pretty);
bool tapo_report_from_json(tapo_report *r, const char *json, GError **error);

/* The breakdown and the flow report, as text (report_text.c) or as JSON. */
void tapo_report_print_text(const tapo_report *r, FILE *out);
void tapo_report_print_json(const tapo_report *r, FILE *out);

#endif /* TAPO_REPORT_H */
