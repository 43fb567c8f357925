/* tapo_render.h: the tapo.stall.* fields and expert infos.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_RENDER_H
#define TAPO_RENDER_H

#include "ws_compat.h"

#include <epan/packet.h>

#include "stall.h"

/* Registers the fields, the subtree and one expert info per cause. */
void tapo_render_register(int proto);

/* Adds the stall tree of one frame, its expert info and an Info column
 * note. */
void tapo_render_stall(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, int proto,
                       const tapo_stall_record *rec, const tapo_verdict *verdict,
                       bool sender_looks_reversed);

#endif /* TAPO_RENDER_H */
