/* vocabulary.h: the names TAPO shows to users, in one place.
 *
 * Every cause, category, congestion state, retransmission trigger and file
 * position has one enum member and one row in a table.  The display-filter
 * strings, expert-info summaries, statistics nodes and the docs' cause table
 * all come from these rows, so they cannot drift apart.  The strings are the
 * contract of ../shared/docs/tapo-spec.md section 5: never rename them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_VOCABULARY_H
#define TAPO_VOCABULARY_H

#include <stdbool.h>

/* Stall causes, ordered by the precedence of the decision tree (spec section
 * 4).  The timeout-retransmission causes come first, in the paper's Table 5
 * order.  "undetermined" exists twice: once as the last retransmission
 * sub-rule (category network) and once as the tree's final fallback
 * (category unknown); both show the same filter string. */
typedef enum {
    TAPO_CAUSE_F_DOUBLE,
    TAPO_CAUSE_T_DOUBLE,
    TAPO_CAUSE_TAIL,
    TAPO_CAUSE_SMALL_RWND,
    TAPO_CAUSE_SMALL_CWND,
    TAPO_CAUSE_CONTINUOUS_LOSS,
    TAPO_CAUSE_ACK_DELAY,
    TAPO_CAUSE_LARGE_DUPTHRES,
    TAPO_CAUSE_RETRANS_UNDETERMINED,
    TAPO_CAUSE_ZERO_WINDOW,
    TAPO_CAUSE_DATA_UNAVAILABLE,
    TAPO_CAUSE_RESOURCE_CONSTRAINT,
    TAPO_CAUSE_CLIENT_IDLE,
    TAPO_CAUSE_PACKET_DELAY,
    TAPO_CAUSE_UNDETERMINED,
    TAPO_CAUSE_COUNT
} tapo_cause;

typedef enum {
    TAPO_CATEGORY_SERVER,
    TAPO_CATEGORY_CLIENT,
    TAPO_CATEGORY_NETWORK,
    TAPO_CATEGORY_UNKNOWN,
    TAPO_CATEGORY_COUNT
} tapo_category;

/* How loudly Wireshark's expert info reports a cause. */
typedef enum {
    TAPO_SEVERITY_NOTE,
    TAPO_SEVERITY_WARN
} tapo_severity;

typedef struct {
    const char *name;            /* filter string, e.g. "f-double" */
    tapo_category category;
    bool retransmission;         /* a timeout-retransmission cause (spec rule 1) */
    tapo_severity severity;
    const char *summary;         /* fixed expert-info summary */
    const char *hint;            /* the mitigation that addresses this cause */
} tapo_cause_info;

const tapo_cause_info *tapo_cause_get(tapo_cause cause);
const char *tapo_category_name(tapo_category category);

/* Linux congestion-avoidance states (paper Figure 4). */
typedef enum {
    TAPO_CA_OPEN,
    TAPO_CA_DISORDER,
    TAPO_CA_RECOVERY,
    TAPO_CA_LOSS,
    TAPO_CA_COUNT
} tapo_ca_state;

const char *tapo_ca_state_name(tapo_ca_state state);

/* What made the sender retransmit a segment (spec section 2). */
typedef enum {
    TAPO_TRIGGER_NONE,           /* never retransmitted */
    TAPO_TRIGGER_FAST,           /* loss signals (dupacks, SACKs) since it was last sent */
    TAPO_TRIGGER_TIMEOUT,        /* the retransmission timer */
    TAPO_TRIGGER_PROBE,          /* a tail-loss probe */
    TAPO_TRIGGER_COUNT
} tapo_trigger;

/* Name for the first_retrans field; NULL for TAPO_TRIGGER_NONE. */
const char *tapo_trigger_name(tapo_trigger trigger);

/* Where the sender is in the current response (paper Table 2, file_pos). */
typedef enum {
    TAPO_FILE_POS_HEAD,
    TAPO_FILE_POS_MIDDLE,
    TAPO_FILE_POS_TAIL,
    TAPO_FILE_POS_COUNT
} tapo_file_pos;

const char *tapo_file_pos_name(tapo_file_pos pos);

#endif /* TAPO_VOCABULARY_H */
