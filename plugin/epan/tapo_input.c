/* tapo_input.c: see tapo_input.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "tapo_input.h"

#include <string.h>

#include <wiretap/wtap.h>

tapo_decode_result tapo_input_decode(tvbuff_t *tvb, packet_info *pinfo, tapo_segment_fields *seg)
{
    if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET)
        return TAPO_DECODE_OTHER;
    unsigned caplen = tvb_captured_length(tvb);
    unsigned len = tvb_reported_length(tvb);
    const uint8_t *data = caplen ? tvb_get_ptr(tvb, 0, (int)caplen) : NULL;
    if (!data)
        return TAPO_DECODE_OTHER;
    return tapo_decode_frame(pinfo->rec->rec_header.packet_header.pkt_encap, data, caplen, len, seg);
}

bool tapo_input_command_names_tapo(void)
{
    const char *program = g_get_prgname();
    if (!program || !strstr(program, "tshark"))
        return false;
    gchar *cmdline = NULL;
    gsize size = 0;
    if (!g_file_get_contents("/proc/self/cmdline", &cmdline, &size, NULL))
        return false;
    bool names = false;
    gsize first = strnlen(cmdline, size) + 1;   /* after the program's own path */
    for (gsize i = first; i < size && !names; i += strnlen(cmdline + i, size - i) + 1)
        names = strstr(cmdline + i, "tapo") != NULL;
    g_free(cmdline);
    return names;
}
