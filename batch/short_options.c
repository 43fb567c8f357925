/* short_options.c: see short_options.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "short_options.h"

#include <string.h>

/* The entry of short option c, or NULL. */
static const GOptionEntry *short_entry(const GOptionEntry *entries, char c)
{
    for (const GOptionEntry *e = entries; e->long_name; e++)
        if (e->short_name == c)
            return e;
    return NULL;
}

/* Whether every letter of the group up to its first value-taking option
 * is an option of entries (then the group can be split safely). */
static gboolean known_group(const GOptionEntry *entries, const char *group)
{
    for (const char *c = group; *c; c++) {
        const GOptionEntry *e = short_entry(entries, *c);
        if (!e)
            return FALSE;
        if (e->arg != G_OPTION_ARG_NONE)
            return TRUE;
    }
    return TRUE;
}

char **tapo_split_short_options(const GOptionEntry *entries, int argc, char **argv, int *new_argc,
                                GPtrArray *owned)
{
    GPtrArray *out = g_ptr_array_new();
    gboolean options_end = FALSE;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (i == 0 || options_end || arg[0] != '-' || arg[1] == '-' || arg[1] == '\0' || arg[2] == '\0' ||
            !known_group(entries, arg + 1)) {
            options_end = options_end || (i > 0 && strcmp(arg, "--") == 0);
            g_ptr_array_add(out, argv[i]);
            continue;
        }
        for (const char *c = arg + 1; *c; c++) {
            char *option = g_strdup_printf("-%c", *c);
            g_ptr_array_add(owned, option);
            g_ptr_array_add(out, option);
            if (short_entry(entries, *c)->arg != G_OPTION_ARG_NONE) {
                if (c[1]) {
                    char *value = g_strdup(c + 1);
                    g_ptr_array_add(owned, value);
                    g_ptr_array_add(out, value);
                }
                break;
            }
        }
    }
    *new_argc = (int)out->len;
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}
