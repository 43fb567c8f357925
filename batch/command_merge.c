/* command_merge.c: tapo merge PARTIAL...: partial results merged into one
 * report (report.h: everything merges exactly), printed, or written as a
 * partial result again (commands.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "commands.h"

#include <stdio.h>

#include "results.h"

int tapo_command_merge(tapo_options *opt)
{
    GError *error = NULL;
    tapo_report total;
    tapo_report_init(&total);
    int status = 0;
    for (char **p = opt->files; *p; p++) {
        char *json = NULL;
        tapo_report part;
        if (!g_file_get_contents(*p, &json, NULL, &error) || !tapo_report_from_json(&part, json, &error)) {
            fprintf(stderr, "tapo: %s: %s\n", *p, error->message);
            g_clear_error(&error);
            status = EXIT_INPUT_PROBLEM;
            g_free(json);
            continue;
        }
        tapo_report_merge(&total, &part);
        tapo_report_free(&part);
        g_free(json);
    }
    if (opt->partial_path && !tapo_write_partial(opt->partial_path, &total, &error))
        status = tapo_fail(error);
    if (!tapo_print_report(&total, opt->report ? opt->report : "text", &error))
        status = tapo_fail(error);
    tapo_report_free(&total);
    return status;
}
