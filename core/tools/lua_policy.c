/* lua_policy.c: writes lua/tapo_policy.lua, the core's policies as the Lua
 * companion reads them (the preferences' names and defaults, the server's
 * ports, the flow report's idle cause, categories and quantiles), or
 * checks that the file holds exactly that:
 *     tapo_lua_policy                 print the file
 *     tapo_lua_policy --check FILE    exit 1 unless FILE is that text
 *     tapo_lua_policy --write FILE    write it there
 * Generated into the source tree and checked by ctest, so that the Lua
 * files work from the source folder (tshark -X lua_script:lua/...) and
 * install as they are.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "base/preferences.h"
#include "base/vocabulary.h"
#include "explain/flow_report.h"
#include "roles/roles.h"

static const char *const type_names[] = {
    [TAPO_PREF_BOOL] = "bool", [TAPO_PREF_UINT] = "uint", [TAPO_PREF_DECIMAL] = "decimal",
    [TAPO_PREF_ENUM] = "enum", [TAPO_PREF_RANGE] = "range",
};

/* s as a Lua string literal. */
static void quoted(GString *out, const char *s)
{
    g_string_append_c(out, '"');
    for (const char *c = s; *c; c++) {
        if (*c == '"' || *c == '\\')
            g_string_append_c(out, '\\');
        g_string_append_c(out, *c);
    }
    g_string_append_c(out, '"');
}

static void preferences(GString *out)
{
    g_string_append(out, "    -- The TAPO plugin's preferences (tapo.NAME), in its order: the type, the default as\n"
                         "    -- tshark -o and tapo -o take it, an enum's choices (core/base/preferences.c).\n"
                         "    PREFS = {\n");
    for (int i = 0; i < TAPO_PREF_COUNT; i++) {
        const tapo_pref_def *d = &tapo_pref_defs[i];
        g_string_append(out, "        { name = ");
        quoted(out, d->name);
        g_string_append_printf(out, ", type = \"%s\", default = ", type_names[d->type]);
        quoted(out, d->default_text);
        if (d->type == TAPO_PREF_ENUM) {
            g_string_append(out, ", choices = {");
            for (const tapo_pref_choice *c = d->choices; c->name; c++) {
                g_string_append(out, c == d->choices ? " " : ", ");
                quoted(out, c->name);
            }
            g_string_append(out, " }");
        }
        g_string_append(out, " },\n");
    }
    g_string_append(out, "    },\n");
}

static void flow_report(GString *out)
{
    g_string_append_printf(out,
        "    -- Without a handshake the ports tell the server: a port below SYSTEM_PORT_END against a\n"
        "    -- higher one, else one below EPHEMERAL_PORT_MIN against one inside the ephemeral range\n"
        "    -- (core/roles/roles.h).\n"
        "    SYSTEM_PORT_END = %d,\n    EPHEMERAL_PORT_MIN = %d,\n", TAPO_SYSTEM_PORT_END, TAPO_EPHEMERAL_PORT_MIN);
    g_string_append(out, "    -- The flow report (core/explain/flow_report.h): idle time, nothing to fix in TCP; the\n"
                         "    -- categories an operator acts on first; the quantiles of the stall ratio, per cent.\n"
                         "    IDLE_CAUSE = ");
    quoted(out, tapo_cause_get(TAPO_CAUSE_CLIENT_IDLE)->name);
    g_string_append(out, ",\n    ACTIONABLE = {");
    for (int c = 0; c < TAPO_CATEGORY_COUNT; c++)
        if (tapo_flow_actionable((tapo_category)c))
            g_string_append_printf(out, " [\"%s\"] = true,", tapo_category_name((tapo_category)c));
    g_string_truncate(out, out->len - 1);
    g_string_append(out, " },\n    QUANTILES = {");
    for (unsigned i = 0; i < TAPO_FLOW_QUANTILE_COUNT; i++)
        g_string_append_printf(out, "%s %u", i ? "," : "", tapo_flow_ratio_quantiles[i]);
    g_string_append(out, " },\n");
}

static GString *policy_file(void)
{
    GString *out = g_string_new(
        "-- tapo_policy.lua: the core's policies the Lua companion follows, written by\n"
        "-- core/tools/lua_policy.c from the C tables.  Do not edit: change those and run\n"
        "--   cmake --build build --target tapo_policy_lua\n"
        "-- (ctest's policy.lua fails while this file is out of date).  Wireshark loads every\n"
        "-- .lua file of its plugin folders: loading this one only returns its table.\n"
        "--\n"
        "-- SPDX-License-Identifier: GPL-2.0-or-later\n"
        "\n"
        "return {\n");
    preferences(out);
    flow_report(out);
    g_string_append(out, "}\n");
    return out;
}

int main(int argc, char **argv)
{
    GString *want = policy_file();
    int status = 0;
    if (argc == 3 && strcmp(argv[1], "--check") == 0) {
        char *have = NULL;
        if (!g_file_get_contents(argv[2], &have, NULL, NULL) || strcmp(have, want->str) != 0) {
            fprintf(stderr, "%s is not what core/tools/lua_policy.c writes: run "
                            "cmake --build build --target tapo_policy_lua\n", argv[2]);
            status = 1;
        }
        g_free(have);
    } else if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        status = g_file_set_contents(argv[2], want->str, (gssize)want->len, NULL) ? 0 : 1;
    } else if (argc == 1) {
        fputs(want->str, stdout);
        status = fflush(stdout) == 0 ? 0 : 1;
    } else {
        fprintf(stderr, "usage: %s [--check FILE | --write FILE]\n", argv[0]);
        status = 2;
    }
    g_string_free(want, TRUE);
    return status;
}
