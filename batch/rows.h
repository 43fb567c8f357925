/* rows.h: one row per stall, as CSV or JSON Lines, with the plugin's field
 * names (stall_fields.h) after the columns that place the stall: the
 * capture, the frame, its time and the connection's endpoints.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_ROWS_H
#define TAPO_ROWS_H

#include <stdint.h>
#include <stdio.h>

#include <glib.h>

#include "connection/conversation.h"
#include "incidents/episodes.h"
#include "report.h"
#include "roles/roles.h"
#include "record/stall.h"

typedef enum {
    TAPO_ROWS_CSV,
    TAPO_ROWS_JSONL
} tapo_rows_format;

/* Where a stall was: the columns before the fields. */
typedef struct tapo_row_place {
    const char *file;
    uint32_t frame;
    double time_s;                    /* seconds since the epoch */
    const char *src;                  /* the packet's own source: "address", and its port */
    uint16_t sport;
    const char *dst;                  /* its destination */
    uint16_t dport;
    uint32_t conn;                    /* the connection's first frame in its capture */
    const char *sender;               /* the analysed sender, "address:port" */
    const tapo_endpoint_names *names; /* the connection's endpoints */
    const tapo_episode *episode;      /* the stall's episode; NULL: none (not known when rows stream) */
} tapo_row_place;

/* A stall of an episode: where it is. */
typedef struct tapo_row_member {
    const char *file;
    uint32_t frame;
} tapo_row_member;

/* The header line (CSV only), then one line per stall or flow, appended. */
void tapo_rows_stall_header(GString *out, tapo_rows_format format);
void tapo_rows_stall(GString *out, tapo_rows_format format, const tapo_row_place *place,
                     const tapo_verdict *v, const tapo_conv_summary *sum, const tapo_config *cfg);
void tapo_rows_flow_header(GString *out, tapo_rows_format format);
void tapo_rows_flow(GString *out, tapo_rows_format format, const tapo_flow_row *f);

/* Episodes (--episodes): one line each, with its member stalls. */
void tapo_rows_episode_header(GString *out, tapo_rows_format format);
void tapo_rows_episode(GString *out, tapo_rows_format format, const tapo_episode *e, const char *file,
                       const tapo_row_member *members, guint count);

#endif /* TAPO_ROWS_H */
