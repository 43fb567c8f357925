/* packet-tapo.h: the TAPO post-dissector, and what it hands to its tap.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef PACKET_TAPO_H
#define PACKET_TAPO_H

#include "ws_compat.h"

#include "incidents/episodes.h"
#include "record/stall.h"

void proto_register_tapo(void);
void proto_reg_handoff_tapo(void);
void register_tapo_stats_tree(void);

/* The GUI's open capture file, for the Lua companion (whose API cannot name
 * it: Tools > TAPO > HTML incident report runs tapo --html on it): the
 * plugin sets this environment variable of the Wireshark process to its
 * path when it sees a file's first frame, and removes it when the file
 * closes.  Not set by tshark. */
#define TAPO_CAPTURE_FILE_ENV "TAPO_CAPTURE_FILE"

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
