/* vocabulary_md.c: prints the cause table of docs/causes.md from the one
 * vocabulary table, or checks that the docs contain it verbatim:
 *     tapo_vocabulary_md                 print the Markdown table
 *     tapo_vocabulary_md --check FILE    exit 1 unless FILE contains it
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "vocabulary.h"

static GString *cause_table(void)
{
    GString *md = g_string_new("| rule | cause | category | timeout retransmission | expert severity | expert summary | hint |\n"
                               "|---|---|---|---|---|---|---|\n");
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++) {
        const tapo_cause_info *info = tapo_cause_get(c);
        g_string_append_printf(md, "| %s | `%s` | %s | %s | %s | %s | %s |\n", info->rule, info->name,
                               tapo_category_name(info->category), info->retransmission ? "yes" : "no",
                               info->severity == TAPO_SEVERITY_WARN ? "warning" : "note",
                               info->summary, info->hint);
    }
    return md;
}

int main(int argc, char **argv)
{
    GString *md = cause_table();
    if (argc == 3 && strcmp(argv[1], "--check") == 0) {
        gchar *doc = NULL;
        if (!g_file_get_contents(argv[2], &doc, NULL, NULL)) {
            fprintf(stderr, "cannot read %s\n", argv[2]);
            return 1;
        }
        bool found = strstr(doc, md->str) != NULL;
        if (!found)
            fprintf(stderr, "%s lacks the cause table below (regenerate it with tapo_vocabulary_md):\n%s",
                    argv[2], md->str);
        g_free(doc);
        g_string_free(md, TRUE);
        return found ? 0 : 1;
    }
    fputs(md->str, stdout);
    g_string_free(md, TRUE);
    return 0;
}
