/* tapo_input.h: the TCP fields TAPO reads from Wireshark's own dissectors.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_INPUT_H
#define TAPO_INPUT_H

#include "ws_compat.h"

#include <epan/packet.h>

#include "packet_input.h"

/* Resolves the field names; returns the array to hand to
 * set_postdissector_wanted_hfids().  Warns about fields this Wireshark
 * lacks; returns NULL when a field TAPO cannot work without is missing. */
GArray *tapo_input_resolve(void);

/* Reads the innermost TCP header of the frame.  Returns false when the
 * frame carries no analysed TCP segment (no tcp.stream). */
bool tapo_input_read(proto_tree *tree, packet_info *pinfo, uint32_t *stream, tapo_packet *pkt);

#endif /* TAPO_INPUT_H */
