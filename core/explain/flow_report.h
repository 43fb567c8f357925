/* flow_report.h: one connection's line of the flow report, its columns,
 * and the rules that name its dominant cause and rank connections.
 *
 * The batch analyser writes these lines (--flows, --report, --html); the
 * Lua companion (lua/tapo_report.lua) computes the same line from the
 * plugin's fields by the same rules, with the constants of this file
 * generated for it (lua/tapo_policy.lua), and both are held to the same
 * constructed cases (core/tests/flow_cases.tsv).  The rules, as
 * docs/lua-companion.md ("One vocabulary") states them:
 *   - the stall ratio is the stalled time over the duration, at most 1; a
 *     connection of zero duration that stalled has ratio 1 (its stalled
 *     time exceeds its duration, as when the capture's clock stood still
 *     and the stalls were timed on the sender's clock), one that did not 0;
 *   - a cause is a name, as the display filter tapo.stall.cause sees it:
 *     the two "undetermined" causes (rules 1.7 and 7) are one;
 *   - the dominant cause has the most stalled time, in whole nanoseconds,
 *     idle time aside (client-idle only when the connection has nothing
 *     else); on a tie the one with more stalls, then the name first in
 *     alphabetical order;
 *   - the advice is the hint of the latest stall of the dominant cause;
 *   - connections are listed by what an operator can act on (tapo_rank).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_FLOW_REPORT_H
#define TAPO_FLOW_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/vocabulary.h"
#include "record/stall.h"

/* The quantiles of the stall ratio over connections the reports give
 * (the paper's Figure 3), per cent. */
#define TAPO_FLOW_QUANTILE_COUNT 6
extern const unsigned tapo_flow_ratio_quantiles[TAPO_FLOW_QUANTILE_COUNT];

/* One connection's line. */
typedef struct tapo_flow_row {
    char *file;                       /* capture it started in */
    uint32_t first_frame;             /* its first frame there: the connection's id */
    char *client;                     /* "address:port" of the SYN's sender (the first packet's without one) */
    char *server;
    double start_s;                   /* first packet, seconds since the epoch */
    double duration_s;                /* first to last packet, seconds */
    uint64_t bytes_to_server;         /* TCP payload, retransmissions included, bytes */
    uint64_t bytes_to_client;
    uint32_t stalls;                  /* count */
    double stalled_s;                 /* sum of the stalls' durations, seconds */
    double stalled_by_cause_s[TAPO_CAUSE_COUNT]; /* seconds */
    uint32_t stalls_by_cause[TAPO_CAUSE_COUNT];  /* count; not kept in partial results (dominant is) */
    uint32_t latest_by_cause[TAPO_CAUSE_COUNT];  /* the place (tapo_flow_add_stall) of each cause's latest
                                                    stall; 0: none; not kept in partial results */
    const char *dominant;             /* the dominant cause's name (tapo_flow_decide); NULL without stalls */
    double dominant_s;                /* its stalled time, seconds; 0 without stalls */
    const char *vantage;              /* of its latest stall; NULL without stalls */
    uint32_t low_confidence;          /* stalls whose verdict is of low confidence, count */
    uint32_t handshake_stalls;        /* stalls in its handshake, count */
    uint32_t teardown_stalls;         /* stalls in its teardown, count */
    double saving_s;                  /* what the modelled mitigations would have saved (whatif.h), seconds */
    char *advice;                     /* the hint of the latest stall of the dominant cause; NULL without */
} tapo_flow_row;

void tapo_flow_row_free(tapo_flow_row *f);
tapo_flow_row *tapo_flow_row_copy(const tapo_flow_row *f);

/* Adds a stall's final verdict, in the connection's order; place names
 * the stall for the caller (its frame, its index + 1), above 0 and
 * growing from stall to stall. */
void tapo_flow_add_stall(tapo_flow_row *f, const tapo_verdict *v, uint32_t place);

/* Names the dominant cause, once every stall is added. */
void tapo_flow_decide(tapo_flow_row *f);

/* The place of the stall whose hint is the advice: the latest of the
 * dominant cause; 0 without stalls. */
uint32_t tapo_flow_advice_place(const tapo_flow_row *f);

/* Whether cause counts as the cause named name (a name, not a rule). */
bool tapo_flow_cause_is(tapo_cause cause, const char *name);

double tapo_flow_ratio(const tapo_flow_row *f);
/* Its idle time: the client had nothing to ask (client-idle), seconds. */
double tapo_flow_idle_s(const tapo_flow_row *f);

/* The categories of the stalls an operator can act on first. */
bool tapo_flow_actionable(tapo_category category);

/* What an operator can act on, in the order the reports list connections
 * (docs/batch.md, "The flow report"): stalled time the network and the
 * server caused, then the rest but idle time (a closed receive window,
 * stalls no rule explains), then idle time, seconds. */
typedef struct tapo_rank {
    double act_s, other_s, idle_s;
} tapo_rank;

tapo_rank tapo_rank_of(const double stalled_by_cause_s[TAPO_CAUSE_COUNT]);
/* < 0 when a lists before b: more to act on first. */
int tapo_rank_compare(const tapo_rank *a, const tapo_rank *b);

/* ---- the columns, in the order of the CSV -------------------------------- */

typedef enum {
    TAPO_FLOW_FILE, TAPO_FLOW_FIRST_FRAME, TAPO_FLOW_CLIENT, TAPO_FLOW_SERVER, TAPO_FLOW_START,
    TAPO_FLOW_DURATION, TAPO_FLOW_BYTES_TO_SERVER, TAPO_FLOW_BYTES_TO_CLIENT, TAPO_FLOW_STALLS,
    TAPO_FLOW_STALLED, TAPO_FLOW_RATIO, TAPO_FLOW_DOMINANT, TAPO_FLOW_DOMINANT_TIME, TAPO_FLOW_ADVICE,
    TAPO_FLOW_VANTAGE, TAPO_FLOW_LOW_CONFIDENCE, TAPO_FLOW_HANDSHAKE, TAPO_FLOW_TEARDOWN, TAPO_FLOW_SAVING,
    TAPO_FLOW_IDLE,
    TAPO_FLOW_COLUMNS
} tapo_flow_column_id;

typedef enum {
    TAPO_FLOW_TEXT,                   /* text; or none */
    TAPO_FLOW_COUNT,                  /* a whole number */
    TAPO_FLOW_SECONDS                 /* a number with 6 decimals: seconds, or the ratio */
} tapo_flow_kind;

/* Where a row keeps a column. */
typedef enum {
    TAPO_FLOW_IN_TEXT,                /* a char * the row owns; NULL reads as "" */
    TAPO_FLOW_IN_CAUSE_NAME,          /* a cause's name (vocabulary.h); NULL: none */
    TAPO_FLOW_IN_VANTAGE_NAME,        /* a vantage's name (vocabulary.h); NULL: none */
    TAPO_FLOW_IN_U32,
    TAPO_FLOW_IN_U64,
    TAPO_FLOW_IN_DOUBLE,
    TAPO_FLOW_DERIVED                 /* computed from the others (ratio, idle time), never read back */
} tapo_flow_storage;

typedef struct tapo_flow_column {
    const char *name;                 /* as the CSV header and the JSON name it */
    tapo_flow_kind kind;
    tapo_flow_storage storage;
    size_t offset;                    /* of its member in tapo_flow_row, unless derived, bytes */
} tapo_flow_column;

extern const tapo_flow_column tapo_flow_columns[TAPO_FLOW_COLUMNS];

typedef struct tapo_flow_value {
    const char *text;                 /* TEXT; NULL: none (JSON null) */
    uint64_t count;                   /* COUNT */
    double number;                    /* SECONDS */
} tapo_flow_value;

tapo_flow_value tapo_flow_get(const tapo_flow_row *f, tapo_flow_column_id id);
/* Sets a column that is not derived (the row takes a copy of a text). */
void tapo_flow_set(tapo_flow_row *f, tapo_flow_column_id id, const tapo_flow_value *v);

#endif /* TAPO_FLOW_REPORT_H */
