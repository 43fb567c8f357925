/* command_run.c: what the analysis and the comparison share (commands.h):
 * messages, inputs, and the options of a run.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "commands.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int tapo_fail(GError *error)
{
    fprintf(stderr, "tapo: %s\n", error->message);
    g_error_free(error);
    return 1;
}

char **tapo_inputs(const tapo_options *opt)
{
    GPtrArray *all = g_ptr_array_new();
    if (opt->read_file)
        g_ptr_array_add(all, g_strdup(opt->read_file));
    for (char **p = opt->files; p && *p; p++)
        g_ptr_array_add(all, g_strdup(*p));
    g_ptr_array_add(all, NULL);
    return (char **)g_ptr_array_free(all, FALSE);
}

bool tapo_run_options_of(const tapo_options *opt, char **files, tapo_run_options *o, GError **error)
{
    *o = (tapo_run_options){ .files = files, .interface = opt->interface, .capture_filter = opt->capture_filter,
                             .jobs = opt->jobs, .merge_by_time = opt->merge_by_time,
                             .continuous = opt->continuous, .grace_s = opt->grace_s, .idle_s = opt->idle_s,
                             .settle_s = opt->settle_s, .interval_s = opt->interface ? opt->interval_s : 0.0,
                             .buffer_bytes = opt->buffer_kib > 0 ? (uint64_t)opt->buffer_kib << 10 : 0 };
    o->stream = opt->interface != NULL;
    for (char **p = files; p && *p; p++)
        o->stream = o->stream || tapo_input_streams(*p);
    o->cfg = opt->given.cfg;
    if (!opt->format || strcmp(opt->format, "csv") == 0)
        o->format = TAPO_ROWS_CSV;
    else if (strcmp(opt->format, "jsonl") == 0)
        o->format = TAPO_ROWS_JSONL;
    else {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--format is csv or jsonl");
        return false;
    }
    if (o->jobs <= 0)
        o->jobs = (int)g_get_num_processors();
    o->progress = !opt->quiet && !o->interface && isatty(STDERR_FILENO);
    return true;
}
