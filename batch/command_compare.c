/* command_compare.c: tapo --html R.html --compare BEFORE... -- AFTER...:
 * both capture sets analysed alike, one HTML report (commands.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "commands.h"

#include <stdio.h>
#include <string.h>

#include "capture/capture.h"
#include "monitoring.h"
#include "results.h"

/* One capture set analysed for the page: 0, EXIT_INPUT_PROBLEM when a
 * capture could not be read, 1 on a usage error. */
static int analyse_set(const tapo_options *opt, char **files, const char *title, tapo_report *report,
                       tapo_html_stalls *stalls)
{
    GError *error = NULL;
    tapo_run_options o;
    if (!tapo_run_options_of(opt, files, &o, &error))
        return tapo_fail(error);
    /* A missing file is reported by the run, as any unreadable capture. */
    bool pipe = false;
    for (char **p = files; *p; p++)
        pipe = pipe || strcmp(*p, "-") == 0 ||
               (g_file_test(*p, G_FILE_TEST_EXISTS) && !g_file_test(*p, G_FILE_TEST_IS_REGULAR));
    if (pipe)
        return tapo_fail(g_error_new(G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                     "--compare reads capture files, not pipes"));
    o.stream = false;
    o.html = stalls;
    int status = tapo_run(&o, report) ? 0 : EXIT_INPUT_PROBLEM;
    if (report->files == 0) {
        fprintf(stderr, "tapo: no %s capture could be read\n", title);
        status = EXIT_INPUT_PROBLEM;
    }
    return status;
}

int tapo_command_compare(tapo_options *opt)
{
    GError *error = NULL;
    char **sets[2] = { tapo_inputs(opt), g_strdupv(opt->after) };
    static const char *const titles[2] = { "before", "after" };
    tapo_report reports[2];
    tapo_html_stalls stalls[2];
    int status = 0;
    tapo_capture_init();
    tapo_handle_signals();
    for (int k = 0; k < 2; k++) {
        tapo_report_init(&reports[k]);
        tapo_html_stalls_init(&stalls[k]);
    }
    for (int k = 0; k < 2 && (status == 0 || status == EXIT_INPUT_PROBLEM); k++) {
        int set_status = analyse_set(opt, sets[k], titles[k], &reports[k], &stalls[k]);
        status = set_status ? set_status : status;
    }
    if (status == 0 || status == EXIT_INPUT_PROBLEM) {
        tapo_html_set html[2];
        char *prefs = tapo_prefs_text(opt);
        for (int k = 0; k < 2; k++)
            tapo_html_set_of(&html[k], titles[k], sets[k], &reports[k], &stalls[k], opt, true);
        if (!tapo_write_html(opt, &html[0], &html[1], prefs, &error))
            status = tapo_fail(error);
        for (int k = 0; k < 2; k++)
            tapo_html_set_free(&html[k]);
        g_free(prefs);
    }
    for (int k = 0; k < 2; k++) {
        tapo_report_free(&reports[k]);
        tapo_html_stalls_free(&stalls[k]);
        g_strfreev(sets[k]);
    }
    return status;
}
