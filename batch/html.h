/* html.h: the incident report as one HTML file that opens offline in any
 * browser (tapo --html; docs/batch.md, "The HTML report").
 *
 * The page holds its data as JSON and draws it with Chart.js, inlined from
 * the copy installed beside tapo (Debian's libjs-chart.js at build time):
 * the breakdown by cause, phase and confidence, a timeline of the most
 * stalled connections with episodes shaded, a time-sequence graph of each
 * of the worst connections with its stalls shaded and its retransmissions
 * and evidence frames marked, the what-if savings, and the files and
 * preferences.  With --compare, two capture sets side by side.
 *
 * Its size is bounded whatever the input (docs/batch.md: about 3 MB at
 * most): TAPO_HTML_TIMELINE_CONNECTIONS connections on the timeline with
 * their TAPO_HTML_ROW_STALLS longest stalls each, TAPO_HTML_WORST graphs
 * of at most TAPO_HTML_POINTS points each (plus the frames the verdicts
 * listed name) with their TAPO_HTML_VERDICTS longest stalls, the first
 * TAPO_HTML_EPISODES episodes, the stall ratio's distribution as
 * percentiles; what is left out is counted.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_HTML_H
#define TAPO_HTML_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "wire/decode.h"
#include "report.h"

#define TAPO_HTML_TIMELINE_CONNECTIONS 100   /* connections drawn on the timeline, count */
#define TAPO_HTML_WORST 5                    /* connections drawn packet by packet, count */
#define TAPO_HTML_POINTS 4000                /* points of one time-sequence graph, at most */
#define TAPO_HTML_ROW_STALLS 100             /* stalls drawn on one connection's timeline row, at most */
#define TAPO_HTML_VERDICTS 200               /* verdicts listed under one worst connection, at most */
#define TAPO_HTML_EPISODES 200               /* episodes listed, at most */

/* A stall as the report shows it: its verdict's fields (stall_fields.h)
 * and where it happened. */
typedef struct tapo_html_stall {
    const char *file;                 /* the capture, as named on the command line */
    uint32_t conn_frame;              /* its connection's first frame there: the connection's id */
    uint32_t frame;                   /* the packet that ended it */
    const char *label;                /* "client -> server" */
    tapo_endpoints ends;              /* the connection's, as its first packet carried them */
    uint8_t sender;                   /* the data sender: 0 sent the first packet, 1 the other */
    double start_s, end_s;            /* seconds since 1970 */
    double duration_s;                /* the verdict's, seconds (end_s - start_s but for rounding) */
    tapo_cause cause;
    tapo_phase phase;
    tapo_confidence confidence;
    uint32_t episode;                 /* its episode in the run's report, from 1; 0 none */
    double saving_s;                  /* what-if, seconds; 0 none */
    uint32_t evidence[4];             /* original, earlier retransmission, loss signal, D-SACK frames; 0 none */
    bool retransmission;              /* the ending packet is a retransmission */
    const char *rule, *hint;          /* the decision line and the operator's hint */
} tapo_html_stall;

/* The stalls of a run, with the texts they point into. */
typedef struct tapo_html_stalls {
    GArray *stalls;                   /* tapo_html_stall, any order */
    GStringChunk *texts;              /* their labels, decision lines and hints */
} tapo_html_stalls;

void tapo_html_stalls_init(tapo_html_stalls *h);
void tapo_html_stalls_free(tapo_html_stalls *h);
/* Adds a copy of s, its texts copied into h's. */
void tapo_html_stalls_add(tapo_html_stalls *h, const tapo_html_stall *s);

/* The stalls of one connection (file, conn_frame): its limit longest, in
 * the order of their frames (const tapo_html_stall *). */
GPtrArray *tapo_html_connection_stalls(const tapo_html_stalls *h, const char *file, uint32_t conn_frame,
                                       guint limit);

/* One packet of a worst connection. */
typedef struct tapo_html_point {
    uint32_t frame;
    float t_s;                        /* since the connection's first packet, seconds */
    double seq;                       /* data: its first byte, ACK: the byte acknowledged; from the
                                         data sender's first sequence number, bytes */
    uint8_t kind;                     /* TAPO_HTML_DATA or TAPO_HTML_ACK */
} tapo_html_point;

enum { TAPO_HTML_DATA, TAPO_HTML_ACK };

/* One capture set: its report, stalls and the worst connections' packets. */
typedef struct tapo_html_set {
    const char *title;                /* "before", "after", or NULL */
    char **files;                     /* NULL-terminated */
    const tapo_report *report;
    const tapo_html_stalls *stalls;
    bool one_clock;                   /* its captures share one clock (--continuous, --merge-by-time):
                                         one timeline; else each capture's from its first stall */
    GPtrArray *worst_points;          /* GArray of tapo_html_point per report->worst flow, in order
                                         (at most TAPO_HTML_WORST) */
} tapo_html_set;

/* The page of the report of set (and, when after is not NULL, of after
 * beside it); prefs: the preferences used, as text.  chart_js: a Chart.js
 * 3 file to inline, or NULL for the one built into tapo.  NULL with
 * *error when chart_js cannot be read. */
GString *tapo_html_page(const char *chart_js, const tapo_html_set *set, const tapo_html_set *after,
                        const char *prefs, GError **error);

#endif /* TAPO_HTML_H */
