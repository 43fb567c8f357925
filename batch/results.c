/* results.c: see results.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "results.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_points.h"
#include "output.h"

/* The report, printed to standard output through a checked output. */
bool tapo_print_report(const tapo_report *r, const char *format, GError **error)
{
    if (!format)
        return true;
    if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--report is text or json, not %s", format);
        return false;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "the report: %s", g_strerror(errno));
        return false;
    }
    if (strcmp(format, "text") == 0)
        tapo_report_print_text(r, mem);
    else
        tapo_report_print_json(r, mem);
    fclose(mem);
    tapo_output out;
    tapo_output_open(&out, "-", NULL);
    tapo_output_write(&out, text, len);
    free(text);
    return tapo_output_close(&out, error);
}

/* An output file written whole beside its place, then renamed, so that a
 * failed write never leaves a file that looks complete; a device or a
 * pipe (which a rename would replace) or "-" is written through. */
static bool write_whole(const char *path, const char *text, size_t len, GError **error)
{
    if (strcmp(path, "-") == 0 ||
        (g_file_test(path, G_FILE_TEST_EXISTS) && !g_file_test(path, G_FILE_TEST_IS_REGULAR))) {
        tapo_output out;
        if (!tapo_output_open(&out, path, error))
            return false;
        tapo_output_write(&out, text, len);
        return tapo_output_close(&out, error);
    }
    return g_file_set_contents(path, text, (gssize)len, error);
}

/* A partial result file, for tapo merge. */
bool tapo_write_partial(const char *path, const tapo_report *r, GError **error)
{
    char *json = tapo_report_to_json(r, false);
    bool ok = write_whole(path, json, strlen(json), error);
    g_free(json);
    return ok;
}

/* The HTML report of set (and of after beside it). */
bool tapo_write_html(const tapo_options *opt, const tapo_html_set *set, const tapo_html_set *after,
                     const char *prefs, GError **error)
{
    GString *page = tapo_html_page(opt->chart_js, set, after, prefs, error);
    if (!page)
        return false;
    bool ok = write_whole(opt->html_path, page->str, page->len, error);
    g_string_free(page, TRUE);
    return ok;
}

/* The preferences given, as the report names them. */
char *tapo_prefs_text(const tapo_options *opt)
{
    if (!opt->prefs || !opt->prefs[0] || opt->given.defaults)
        return g_strdup("the defaults");
    return g_strjoinv(" ", opt->prefs);
}

/* One capture set of the HTML report: its worst connections' packets read
 * again, unless its input could be read only once. */
void tapo_html_set_of(tapo_html_set *set, const char *title, char **files, const tapo_report *report,
                      const tapo_html_stalls *stalls, const tapo_options *opt, bool rereadable)
{
    *set = (tapo_html_set){ title, files, report, stalls, opt->continuous || opt->merge_by_time, NULL };
    if (!rereadable)
        return;
    GError *error = NULL;
    set->worst_points = tapo_html_points_read(report, stalls, &error);
    if (error) {
        fprintf(stderr, "tapo: the HTML report's graphs: %s\n", error->message);
        g_error_free(error);
    }
}

void tapo_html_set_free(tapo_html_set *set)
{
    if (set->worst_points)
        g_ptr_array_unref(set->worst_points);
}
