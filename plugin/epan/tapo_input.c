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

/* Options whose value is a file or an interface: a path that happens to
 * contain "tapo" asks for nothing. */
static bool takes_a_path(const char *arg)
{
    static const char *const options[] = { "-r", "-w", "-i", "-H", "-K", "-M", "--read-file" };
    for (unsigned i = 0; i < G_N_ELEMENTS(options); i++)
        if (strcmp(arg, options[i]) == 0)
            return true;
    return false;
}

/* "tapo" as a protocol or field name: tapo.stall..., tapo,tree, expert's
 * filter "tapo", tapoflow.*, or the Lua companion's script name. */
static bool names_tapo(const char *arg)
{
    for (const char *p = strstr(arg, "tapo"); p; p = strstr(p + 1, "tapo")) {
        bool starts = p == arg || !(g_ascii_isalnum(p[-1]) || p[-1] == '_' || p[-1] == '-');
        char next = p[4];
        if (starts && (next == '\0' || next == '.' || next == ',' || next == ':' || next == '_' ||
                       next == ' ' || next == ')' || g_str_has_prefix(p + 4, "flow")))
            return true;
    }
    return false;
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
    bool names = false, skip_next = false;
    gsize first = strnlen(cmdline, size) + 1;   /* after the program's own path */
    for (gsize i = first; i < size && !names; i += strnlen(cmdline + i, size - i) + 1) {
        const char *arg = cmdline + i;
        if (skip_next) {
            skip_next = false;
            continue;
        }
        skip_next = takes_a_path(arg);
        bool path_attached = strlen(arg) > 2 && arg[0] == '-' && (arg[1] == 'r' || arg[1] == 'w') &&
                             arg[2] != '-';
        names = !skip_next && !path_attached && names_tapo(arg);
    }
    g_free(cmdline);
    return names;
}
