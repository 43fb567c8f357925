/* tapo_input.h: the TCP segment of a frame, read from the frame's bytes
 * with the same decoder as the batch analyser (core/).
 *
 * Reading the bytes instead of the fields Wireshark's TCP dissector fills
 * means TAPO asks Wireshark for no field: Wireshark builds no protocol tree
 * for TAPO's sake, so an installed TAPO that nothing asks for costs
 * nothing, and TAPO can analyse a capture in any later pass over it (a
 * display filter typed after loading), not only the first.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_INPUT_H
#define TAPO_INPUT_H

#include "ws_compat.h"

#include <epan/packet.h>

#include "wire/decode.h"

/* Decodes the frame's innermost TCP segment (TAPO_DECODE_TCP) or a TCP
 * header quoted in an ICMP error (TAPO_DECODE_QUOTED). */
tapo_decode_result tapo_input_decode(tvbuff_t *tvb, packet_info *pinfo, tapo_segment_fields *seg);

/* What this program's command line says about TAPO's work, when it is
 * tshark: the first pass of tshark -2 builds no tree, so whether TAPO is
 * needed cannot be told any other way. */
typedef struct tapo_command {
    bool is_tshark;
    bool names_tapo;                  /* a filter, a field, a statistic, a preference or the Lua companion names TAPO */
    bool two_pass;                    /* -2 */
    bool read_filter;                 /* -R: frames are dropped before dissection */
    char *read_file;                  /* -r FILE, when a file (not standard input); NULL none */
} tapo_command;

void tapo_input_read_command(tapo_command *cmd);

#endif /* TAPO_INPUT_H */
