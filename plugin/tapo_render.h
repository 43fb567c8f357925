/* tapo_render.h: the tapo.stall.* fields and expert infos.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_RENDER_H
#define TAPO_RENDER_H

#include "ws_compat.h"

#include <epan/packet.h>

#include "connection/conversation.h"
#include "incidents/episodes.h"
#include "roles/roles.h"
#include "record/stall.h"

/* Registers the fields, the subtree and one expert info per cause. */
void tapo_render_register(int proto);

/* Notes about the conversation that go with some stalls. */
typedef struct tapo_render_notes {
    bool sender_reversed;        /* a forced sender looks like the wrong endpoint */
    bool vantage;                /* the conversation's note on what its vantage means */
} tapo_render_notes;

/* Adds the stall tree of one frame, its expert info and an Info column
 * note. */
void tapo_render_stall(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, int proto,
                       const tapo_verdict *verdict, const tapo_conv_summary *sum,
                       const tapo_endpoint_names *names, const tapo_episode *episode,
                       const tapo_config *cfg, const tapo_render_notes *notes);

/* What a frame that ends no stall can still tell about its connection. */
typedef enum {
    TAPO_NOTE_NONE,
    TAPO_NOTE_RESTART,           /* a new connection began on the same ports */
    TAPO_NOTE_STRAY,             /* a SYN-ACK of another connection was ignored */
    TAPO_NOTE_TIME_BACKWARDS,    /* the first packet of the connection stamped before an earlier one */
    TAPO_NOTE_TIME_JUMP          /* a gap of more than a day */
} tapo_frame_note;

void tapo_render_frame_note(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, int proto,
                            tapo_frame_note note);

/* Says that TAPO has not read the capture up to this frame yet. */
void tapo_render_not_analysed(tvbuff_t *tvb, proto_tree *tree, int proto);

#endif /* TAPO_RENDER_H */
