/* vocabulary_md.c: prints the cause table and the caveat table of
 * docs/causes.md from the one vocabulary table, or checks that the docs
 * contain them verbatim:
 *     tapo_vocabulary_md                 print the Markdown tables
 *     tapo_vocabulary_md --check FILE    exit 1 unless FILE contains them
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "base/vocabulary.h"

static GString *cause_table(void)
{
    GString *md = g_string_new("| rule | cause | category | timeout retransmission | expert severity | expert summary "
                               "| advice (`tapo.stall.hint`) | mitigation in the literature |\n"
                               "|---|---|---|---|---|---|---|---|\n");
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++) {
        const tapo_cause_info *info = tapo_cause_get(c);
        g_string_append_printf(md, "| %s | `%s` | %s | %s | %s | %s | %s | %s |\n", info->rule, info->name,
                               tapo_category_name(info->category), info->retransmission ? "yes" : "no",
                               info->severity == TAPO_SEVERITY_WARN ? "warning" : "note",
                               info->summary, info->advice, info->mitigation);
    }
    return md;
}

static GString *caveat_table(void)
{
    GString *md = g_string_new("| caveat | what it says |\n|---|---|\n");
    for (unsigned i = 0; i < TAPO_CAVEAT_COUNT_BITS; i++) {
        tapo_caveat bit = (tapo_caveat)(1u << i);
        g_string_append_printf(md, "| `%s` | %s |\n", tapo_caveat_name(bit), tapo_caveat_text(bit));
    }
    return md;
}

/* Whether doc holds table verbatim; says so on stderr when not. */
static bool holds(const char *doc, const char *path, const char *what, const GString *table)
{
    if (strstr(doc, table->str))
        return true;
    fprintf(stderr, "%s lacks the %s table below (regenerate it with tapo_vocabulary_md):\n%s", path, what,
            table->str);
    return false;
}

int main(int argc, char **argv)
{
    GString *causes = cause_table(), *caveats = caveat_table();
    int status = 0;
    if (argc == 3 && strcmp(argv[1], "--check") == 0) {
        gchar *doc = NULL;
        if (!g_file_get_contents(argv[2], &doc, NULL, NULL)) {
            fprintf(stderr, "cannot read %s\n", argv[2]);
            status = 1;
        } else {
            bool ok = holds(doc, argv[2], "cause", causes);
            ok = holds(doc, argv[2], "caveat", caveats) && ok;
            status = ok ? 0 : 1;
        }
        g_free(doc);
    } else {
        printf("%s\n%s", causes->str, caveats->str);
    }
    g_string_free(causes, TRUE);
    g_string_free(caveats, TRUE);
    return status;
}
