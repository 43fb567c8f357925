/* stall_fields.h: the fields of a stall as users see them (spec section 5),
 * in one table: the plugin registers and renders its tapo.* fields from
 * it, and the batch analyser writes its columns from it, so that both show
 * the same names, units and values.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_STALL_FIELDS_H
#define TAPO_STALL_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "explain/advice.h"
#include "verdict/classifier.h"
#include "incidents/episodes.h"
#include "connection/conversation.h"
#include "record/stall.h"

typedef enum {
    TAPO_FIELD_STRING,
    TAPO_FIELD_BOOL,
    TAPO_FIELD_SECONDS,          /* a duration */
    TAPO_FIELD_UINT,
    TAPO_FIELD_FRAME,            /* a frame number: a link in the GUI */
    TAPO_FIELD_PORT,
    TAPO_FIELD_DOUBLE,
    TAPO_FIELD_TIME              /* an absolute time, seconds since 1970 */
} tapo_field_type;

/* In the order they are shown. */
typedef enum {
    TAPO_F_CAUSE, TAPO_F_CATEGORY, TAPO_F_PHASE, TAPO_F_RULE, TAPO_F_CONFIDENCE, TAPO_F_CAVEAT, TAPO_F_RETRANSMISSION,
    TAPO_F_DURATION, TAPO_F_THRESHOLD,
    TAPO_F_SRTT, TAPO_F_RTO, TAPO_F_PREV_FRAME,
    /* Evidence links. */
    TAPO_F_ORIG_FRAME, TAPO_F_PREV_RETRANS_FRAME, TAPO_F_LOSS_SIGNAL_FRAME, TAPO_F_DSACK_FRAME,
    TAPO_F_WINDOW_FRAME, TAPO_F_WINDOW_UPDATE_FRAME,
    TAPO_F_CA_STATE, TAPO_F_IN_FLIGHT,
    TAPO_F_PACKETS_OUT, TAPO_F_SACKED_OUT, TAPO_F_LOST_OUT, TAPO_F_RETRANS_OUT, TAPO_F_HOLES,
    TAPO_F_DUPTHRES, TAPO_F_RWND, TAPO_F_INIT_RWND, TAPO_F_MSS, TAPO_F_RETRANS_COUNT,
    TAPO_F_FIRST_RETRANS, TAPO_F_SPURIOUS, TAPO_F_POSITION, TAPO_F_FILE_POS, TAPO_F_PKT_DIR,
    TAPO_F_FINAL, TAPO_F_HINT, TAPO_F_WHATIF, TAPO_F_SAVING,
    /* The connection: shown beside the stall subtree. */
    TAPO_F_CLIENT, TAPO_F_SERVER,
    TAPO_F_VANTAGE, TAPO_F_VANTAGE_BASIS, TAPO_F_SENDER, TAPO_F_SENDER_BASIS, TAPO_F_SENDER_PORT,
    TAPO_F_RTT_TO_SENDER, TAPO_F_RTT_TO_RECEIVER, TAPO_F_INFERRED,
    /* The episode the stall belongs to (two passes, the batch analyser). */
    TAPO_F_EPISODE, TAPO_F_EPISODE_CONNECTIONS, TAPO_F_EPISODE_SCOPE, TAPO_F_EPISODE_START,
    TAPO_F_EPISODE_DURATION, TAPO_F_EPISODE_CAUSE,
    TAPO_F_COUNT
} tapo_field_id;

#define TAPO_F_FIRST_OUTSIDE_STALL TAPO_F_CLIENT

typedef struct tapo_field_def {
    const char *name;            /* display-filter name, e.g. "tapo.stall.cause" */
    const char *label;           /* as the packet tree shows it */
    tapo_field_type type;
    const char *blurb;           /* one line, with the unit */
} tapo_field_def;

extern const tapo_field_def tapo_field_defs[TAPO_F_COUNT];

typedef struct tapo_field_value {
    bool present;                /* absent fields are not shown */
    const char *s;               /* TAPO_FIELD_STRING */
    double d;                    /* SECONDS and DOUBLE */
    uint32_t u;                  /* UINT, FRAME, PORT */
    bool b;                      /* BOOL */
    const char *note;            /* appended to the shown value; NULL none */
} tapo_field_value;

#define TAPO_INFERRED_LINE_MAX 512   /* bytes, for the inferred field's text */

/* The texts some fields are made of: it must live as long as they are used. */
#define TAPO_CAVEAT_LINE_MAX 160     /* bytes, for the caveat field's names */

typedef struct tapo_field_text {
    char inferred[TAPO_INFERRED_LINE_MAX];
    char rule[TAPO_RULE_LINE_MAX];
    char caveat[TAPO_CAVEAT_LINE_MAX];
    char hint[TAPO_HINT_LINE_MAX];
} tapo_field_text;

/* The values of one stall's fields.  names: the endpoints' addresses
 * (roles.h), or NULL where they are not known (then no tapo.client nor
 * tapo.server, and the hint names the machines by role alone); episode:
 * the stall's episode, NULL for none (or one pass). */
void tapo_stall_fields(const tapo_verdict *v, const tapo_conv_summary *sum, const tapo_config *cfg,
                       const tapo_endpoint_names *names, const tapo_episode *episode,
                       tapo_field_value out[TAPO_F_COUNT], tapo_field_text *text);

#endif /* TAPO_STALL_FIELDS_H */
