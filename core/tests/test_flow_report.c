/* test_flow_report.c: the flow report's rules (flow_report.h) on the
 * constructed connections of flow_cases.tsv, which the Lua companion's
 * report is held to as well (tests/lua/test_flow_cases.lua), and which
 * port is a server's without a handshake.
 *
 *     test_flow_report flow_cases.tsv
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/flow_report.h"
#include "roles/roles.h"

static int failures;

/* The cause of that name and category; false: none. */
static bool cause_named(const char *name, const char *category, tapo_cause *out)
{
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++) {
        const tapo_cause_info *info = tapo_cause_get((tapo_cause)c);
        if (strcmp(info->name, name) == 0 && strcmp(tapo_category_name(info->category), category) == 0) {
            *out = (tapo_cause)c;
            return true;
        }
    }
    return false;
}

/* "cause:category:duration_s:frame" added to f. */
static bool add_stall(tapo_flow_row *f, const char *text)
{
    static const tapo_stall_view view;   /* vantage and snapshot: none, zeroed */
    char **part = g_strsplit(text, ":", -1);
    tapo_cause cause;
    bool ok = g_strv_length(part) == 4 && cause_named(part[0], part[1], &cause);
    if (ok) {
        tapo_verdict v = { .cause = cause, .duration_s = g_ascii_strtod(part[2], NULL),
                           .category = tapo_cause_get(cause)->category, .confidence = TAPO_CONFIDENCE_HIGH,
                           .phase = TAPO_PHASE_DATA, .view = &view };
        tapo_flow_add_stall(f, &v, (uint32_t)strtoul(part[3], NULL, 10));
    }
    g_strfreev(part);
    return ok;
}

static void expect(const char *what, const char *got, const char *want, const char *name)
{
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "FAIL %s: %s is %s, not %s\n", name, what, got, want);
        failures++;
    }
}

static void check_case(char **col)
{
    tapo_flow_row f = { .duration_s = g_ascii_strtod(col[1], NULL) };
    char **stalls = strcmp(col[2], "-") == 0 ? g_new0(char *, 1) : g_strsplit(col[2], " ", -1);
    for (char **s = stalls; *s; s++)
        if (!add_stall(&f, *s)) {
            fprintf(stderr, "FAIL %s: no cause %s\n", col[0], *s);
            failures++;
        }
    g_strfreev(stalls);
    tapo_flow_decide(&f);
    char got[64];
    g_snprintf(got, sizeof got, "%.6f", tapo_flow_ratio(&f));
    expect("stall_ratio", got, col[3], col[0]);
    expect("dominant_cause", f.dominant ? f.dominant : "-", col[4], col[0]);
    g_snprintf(got, sizeof got, "%.6f", f.dominant_s);
    expect("dominant_cause_time_s", got, col[5], col[0]);
    g_snprintf(got, sizeof got, "%u", tapo_flow_advice_place(&f));
    expect("the advice's frame", got, col[6], col[0]);
    g_snprintf(got, sizeof got, "%.6f", tapo_flow_idle_s(&f));
    expect("idle_time_s", got, col[7], col[0]);
}

/* Which endpoint the ports say is the server, as the Lua report says it. */
static void check_ports(char **col)
{
    tapo_opt_endpoint server = tapo_server_by_ports((uint16_t)strtoul(col[1], NULL, 10),
                                                    (uint16_t)strtoul(col[2], NULL, 10));
    expect("the server", server.known ? (server.e == 0 ? "1" : "2") : "-", col[3], col[0]);
}

int main(int argc, char **argv)
{
    char *text = NULL;
    if (argc != 2 || !g_file_get_contents(argv[1], &text, NULL, NULL)) {
        fprintf(stderr, "usage: %s flow_cases.tsv\n", argv[0]);
        return 2;
    }
    char **lines = g_strsplit(text, "\n", -1);
    int cases = 0;
    for (char **line = lines; *line; line++) {
        if (!**line || **line == '#')
            continue;
        char **col = g_strsplit(*line, "\t", -1);
        if (g_strv_length(col) == 8 || g_strv_length(col) == 4) {
            if (g_strv_length(col) == 8)
                check_case(col);
            else
                check_ports(col);
            cases++;
        } else {
            fprintf(stderr, "FAIL: not 8 or 4 columns: %s\n", *line);
            failures++;
        }
        g_strfreev(col);
    }
    g_strfreev(lines);
    g_free(text);
    if (cases == 0)
        failures++;
    printf("test_flow_report: %d cases, %d failures\n", cases, failures);
    return failures ? 1 : 0;
}
