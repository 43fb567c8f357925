/* packet-tapo.h: the TAPO post-dissector, and what it hands to its tap.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PACKET_TAPO_H
#define PACKET_TAPO_H

#include "ws_compat.h"

#include "episodes.h"
#include "stall.h"

void proto_register_tapo(void);
void proto_reg_handoff_tapo(void);
void register_tapo_stats_tree(void);

/* Name of the tap fed by the post-dissector. */
#define TAPO_TAP_NAME "tapo"

typedef enum {
    TAPO_TAP_FLOW_START,     /* the first packet of a conversation */
    TAPO_TAP_STALL           /* a stall-ending packet */
} tapo_tap_kind;

/* One tap record; valid for the current packet only. */
typedef struct tapo_tap_info {
    tapo_tap_kind kind;
    uint32_t stream;                  /* the connection's number in the file, from 0 */
    const tapo_stall_record *rec;     /* TAPO_TAP_STALL only */
    tapo_verdict verdict;             /* TAPO_TAP_STALL only: as rendered in this pass */
    const tapo_episode *episode;      /* TAPO_TAP_STALL only: its episode (two passes); NULL none */
} tapo_tap_info;

#endif /* PACKET_TAPO_H */
