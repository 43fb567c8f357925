/* breakdown.h: the statistics of a capture's stalls, as the paper's tables
 * group them: stalls and stalled time by category and cause (Table 3), the
 * timeout-retransmission causes (Table 5), f-double versus t-double (Table
 * 6), tail stalls by congestion state (Table 7), stalls by phase of the
 * connection (handshake, data, teardown; then cause), by vantage, by
 * confidence (and cause) and by caveat (a stall counts under each of its
 * caveats), the stalled time the modelled mitigations would have saved
 * (whatif.h), and the distribution of durations.  The plugin's statistics tree (-z tapo,tree)
 * and the batch analyser's report both count through here, so they cannot
 * disagree.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_BREAKDOWN_H
#define TAPO_BREAKDOWN_H

#include <stdint.h>

#include "record/stall.h"

#define TAPO_NODE_CONVERSATIONS "Conversations analysed"
#define TAPO_NODE_STALLED_CONVERSATIONS "with stalls"
#define TAPO_NODE_STALLS "Stalls"
#define TAPO_NODE_TIME "Stalled time (ms)"
#define TAPO_NODE_RETRANSMISSION "timeout retransmission"
#define TAPO_NODE_DOUBLE "Double retransmissions, stalled time (ms)"
#define TAPO_NODE_TAIL "Tail stalls by congestion state, stalled time (ms)"
#define TAPO_NODE_VANTAGE "Stalls by vantage"
#define TAPO_NODE_PHASE "Stalls by phase"
#define TAPO_NODE_CONFIDENCE "Stalls by confidence"
#define TAPO_NODE_CAVEATS "Stalls by caveat"
#define TAPO_NODE_SAVINGS "What-if savings (ms)"
#define TAPO_NODE_EPISODES "Stalls in episodes"
#define TAPO_NODE_DURATION "Stall duration (ms)"

#define TAPO_BREAKDOWN_DEPTH 4        /* nodes on a path, at most */
#define TAPO_BREAKDOWN_PATHS (8 + TAPO_CAVEAT_COUNT_BITS) /* paths one stall counts in, at most */
#define TAPO_DURATION_BUCKETS 7

/* One path from a root node down to a leaf, and what the stall adds to
 * every node on it: 1, or its duration in milliseconds. */
typedef struct tapo_breakdown_path {
    const char *node[TAPO_BREAKDOWN_DEPTH];
    unsigned depth;
    int amount;
} tapo_breakdown_path;

/* The paths a stall counts in; returns how many. */
unsigned tapo_breakdown(const tapo_verdict *v, tapo_breakdown_path out[TAPO_BREAKDOWN_PATHS]);

/* A duration in whole milliseconds, as every time node counts it (so that
 * children add up to their parent exactly). */
int tapo_milliseconds(double seconds);

/* The duration buckets' names ("0-99", ..., "5000-") and lower bounds (ms). */
extern const char *const tapo_duration_bucket_names[TAPO_DURATION_BUCKETS];
extern const int tapo_duration_bucket_floor_ms[TAPO_DURATION_BUCKETS];

/* The bucket a duration in milliseconds falls in. */
unsigned tapo_duration_bucket(int ms);

#endif /* TAPO_BREAKDOWN_H */
