/* results.h: what a command writes once its runs are over, each output
 * checked to its close: the report on standard output, a partial result
 * and the HTML page, written whole and renamed into place.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_RESULTS_H
#define TAPO_RESULTS_H

#include <stdbool.h>

#include <glib.h>

#include "html.h"
#include "options.h"
#include "report.h"

/* The report as format (text or json; NULL: none) on standard output. */
bool tapo_print_report(const tapo_report *r, const char *format, GError **error);

/* A partial result file, for tapo merge. */
bool tapo_write_partial(const char *path, const tapo_report *r, GError **error);

/* The HTML report (--html) of set, and of after beside it (NULL: none). */
bool tapo_write_html(const tapo_options *opt, const tapo_html_set *set, const tapo_html_set *after,
                     const char *prefs, GError **error);

/* The preferences given, as the HTML report names them. */
char *tapo_prefs_text(const tapo_options *opt);

/* One capture set of the HTML report: its worst connections' packets read
 * again, unless its input could be read only once (rereadable false). */
void tapo_html_set_of(tapo_html_set *set, const char *title, char **files, const tapo_report *report,
                      const tapo_html_stalls *stalls, const tapo_options *opt, bool rereadable);
void tapo_html_set_free(tapo_html_set *set);

#endif /* TAPO_RESULTS_H */
