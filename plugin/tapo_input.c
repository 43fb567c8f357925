/* tapo_input.c: see tapo_input.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "tapo_input.h"

#include <string.h>

#include <wiretap/wtap.h>

tapo_decode_result tapo_input_decode(tvbuff_t *tvb, packet_info *pinfo, tapo_segment_fields *seg)
{
    seg->ends.family = 0;   /* no IP, until decoded */
    if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET)
        return TAPO_DECODE_OTHER;
    unsigned caplen = tvb_captured_length(tvb);
    unsigned len = tvb_reported_length(tvb);
    const uint8_t *data = caplen ? tvb_get_ptr(tvb, 0, (int)caplen) : NULL;
    if (!data)
        return TAPO_DECODE_OTHER;
    return tapo_decode_frame(pinfo->rec->rec_header.packet_header.pkt_encap, data, caplen, len, seg);
}

/* tshark's short options that take a value (its getopt string, 4.0 to
 * 4.6): the value is the rest of the word, or the next word. */
static const char short_with_value[] = "aAbBcCdeEfFGHiIjJKMNoOrRsStTuUwWXyYz";

/* Long options whose value is the next word (without "="). */
static bool long_takes_value(const char *name)
{
    static const char *const names[] = {
        "read-file", "capture-comment", "export-objects", "export-tls-session-keys",
        "elastic-mapping-filter", "temp-dir", "compress", "hexdump", "log-level", "log-fatal",
        "log-domains", "log-debug", "log-noisy", "log-file", "enable-protocol", "disable-protocol",
        "enable-heuristic", "disable-heuristic", "only-protocols", "update-interval", "tstamp-type",
        "time-stamp-type", "nstat",
    };
    for (unsigned i = 0; i < G_N_ELEMENTS(names); i++)
        if (strcmp(name, names[i]) == 0)
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

/* One option and its value (NULL without). */
static void note_option(tapo_command *cmd, char option, const char *long_name, const char *value)
{
    bool read_file = option == 'r' || (long_name && strcmp(long_name, "read-file") == 0);
    if (option == '2')
        cmd->two_pass = true;
    if (option == 'R')
        cmd->read_filter = true;
    if (read_file && value) {
        g_free(cmd->read_file);
        cmd->read_file = strcmp(value, "-") == 0 ? NULL : g_strdup(value);
    }
    /* A file or an interface named tapo asks for nothing. */
    bool path = read_file || option == 'w' || option == 'i' || option == 'H' || option == 'K' || option == 'M';
    if (value && !path && names_tapo(value))
        cmd->names_tapo = true;
    if (long_name && names_tapo(long_name))
        cmd->names_tapo = true;
}

/* The words of tshark's command line, as getopt reads them. */
static void read_words(tapo_command *cmd, char **words, unsigned count)
{
    for (unsigned i = 0; i < count; i++) {
        const char *w = words[i];
        if (strcmp(w, "--") == 0)
            break;
        if (w[0] != '-' || w[1] == '\0') {
            if (names_tapo(w))
                cmd->names_tapo = true;   /* a capture filter, harmlessly */
            continue;
        }
        if (w[1] == '-') {
            const char *eq = strchr(w + 2, '=');
            char *name = eq ? g_strndup(w + 2, (gsize)(eq - w - 2)) : g_strdup(w + 2);
            const char *value = eq ? eq + 1 : long_takes_value(name) && i + 1 < count ? words[++i] : NULL;
            note_option(cmd, 0, name, value);
            g_free(name);
            continue;
        }
        for (const char *c = w + 1; *c; c++) {
            if (!strchr(short_with_value, *c)) {
                note_option(cmd, *c, NULL, NULL);
                continue;
            }
            const char *value = c[1] ? c + 1 : i + 1 < count ? words[++i] : NULL;
            note_option(cmd, *c, NULL, value);
            break;
        }
    }
}

void tapo_input_read_command(tapo_command *cmd)
{
    memset(cmd, 0, sizeof *cmd);
    const char *program = g_get_prgname();
    cmd->is_tshark = program && strstr(program, "tshark");
    if (!cmd->is_tshark)
        return;
    gchar *cmdline = NULL;
    gsize size = 0;
    if (!g_file_get_contents("/proc/self/cmdline", &cmdline, &size, NULL))
        return;
    GPtrArray *words = g_ptr_array_new();
    gsize first = strnlen(cmdline, size) + 1;   /* after the program's own path */
    for (gsize i = first; i < size; i += strnlen(cmdline + i, size - i) + 1)
        g_ptr_array_add(words, cmdline + i);
    read_words(cmd, (char **)words->pdata, words->len);
    g_ptr_array_free(words, TRUE);
    g_free(cmdline);
}
