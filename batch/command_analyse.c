/* command_analyse.c: tapo CAPTURE... or tapo -i IFACE: the analysis, its
 * rows written as the run goes (stalls, flows, episodes), then the
 * report, the partial result and the HTML page (commands.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "commands.h"

#include <stdio.h>

#include "capture/capture.h"
#include "monitoring.h"
#include "output.h"
#include "results.h"
#include "rows.h"

/* The outputs a run writes rows to as it goes. */
typedef struct row_outputs {
    tapo_output stalls, flows, episodes;
} row_outputs;

/* "4096", "100k", "64M", "1G" (powers of 1024) as bytes. */
static bool parse_size(const char *text, uint64_t *bytes, GError **error)
{
    char *end = NULL;
    guint64 n = g_ascii_strtoull(text, &end, 10);
    unsigned shift = 0;
    if (end && (*end == 'k' || *end == 'K'))
        shift = 10;
    else if (end && (*end == 'm' || *end == 'M'))
        shift = 20;
    else if (end && (*end == 'g' || *end == 'G'))
        shift = 30;
    if (shift)
        end++;
    if (!end || end == text || *end || n == 0 || n > (G_MAXUINT64 >> shift)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--rotate-size %s: a size in bytes, or with k, M or G (e.g. 64M)", text);
        return false;
    }
    *bytes = n << shift;
    return true;
}

/* The stall rows: to --stalls FILE (in segments with --rotate-*), or to
 * standard output unless a report, partial result or page takes it. */
static bool open_stalls(const tapo_options *opt, tapo_run_options *o, tapo_output *stalls, GError **error)
{
    bool rows_to_stdout = !opt->stalls_path && !opt->report && !opt->partial_path && !opt->html_path;
    uint64_t rotate_bytes = 0;
    if (opt->rotate_size && !parse_size(opt->rotate_size, &rotate_bytes, error))
        return false;
    bool rotate = rotate_bytes || opt->rotate_interval_s > 0.0;
    if (!opt->stalls_path && !rows_to_stdout) {
        if (rotate)
            g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "--rotate-size and --rotate-interval split the stall rows: give --stalls FILE");
        return !rotate;
    }
    const char *path = rows_to_stdout ? "-" : opt->stalls_path;
    if (rotate ? !tapo_output_open_segments(stalls, path, rotate_bytes, opt->rotate_interval_s, error)
               : !tapo_output_open(stalls, path, error))
        return false;
    o->stalls = stalls;
    return true;
}

static void set_header(tapo_output *out, tapo_rows_format format, void (*header)(GString *, tapo_rows_format))
{
    if (!out)
        return;
    GString *head = g_string_new("");
    header(head, format);
    tapo_output_set_header(out, head->str);
    g_string_free(head, TRUE);
}

/* The outputs closed, their errors unsaid: the run did not start. */
static void close_quietly(row_outputs *outs)
{
    tapo_output_close(&outs->stalls, NULL);
    tapo_output_close(&outs->flows, NULL);
    tapo_output_close(&outs->episodes, NULL);
}

/* Every output the options name, opened, with its header; false (those
 * opened closed again) when one cannot be. */
static bool open_row_outputs(const tapo_options *opt, tapo_run_options *o, row_outputs *outs, GError **error)
{
    *outs = (row_outputs){ { 0 }, { 0 }, { 0 } };
    bool ok = open_stalls(opt, o, &outs->stalls, error);
    if (ok && opt->flows_path) {
        ok = tapo_output_open(&outs->flows, opt->flows_path, error);
        o->flows = ok ? &outs->flows : NULL;
    }
    if (ok && opt->episodes_path) {
        ok = tapo_output_open(&outs->episodes, opt->episodes_path, error);
        o->episodes = ok ? &outs->episodes : NULL;
    }
    if (!ok) {
        close_quietly(outs);
        return false;
    }
    set_header(o->stalls, o->format, tapo_rows_stall_header);
    set_header(o->flows, o->format, tapo_rows_flow_header);
    set_header(o->episodes, o->format, tapo_rows_episode_header);
    return true;
}

/* The last segments completed, the outputs' final counts for a last
 * scrape, then each closed: the exit status so far, or 1. */
static int close_row_outputs(const tapo_run_options *o, row_outputs *outs, int status)
{
    GError *error = NULL;
    tapo_output *all[3] = { &outs->stalls, &outs->flows, &outs->episodes };
    for (int i = 0; i < 3; i++)
        tapo_output_finish(all[i]);
    if (o->metrics)
        tapo_run_publish_outputs(o);
    for (int i = 0; i < 3; i++)
        if (!tapo_output_close(all[i], &error))
            status = tapo_fail(error);
    return status;
}

/* The partial result, the report and the HTML page of a run over files:
 * the exit status so far, or 1. */
static int write_results(const tapo_options *opt, const tapo_run_options *o, char **files, const tapo_report *report,
                         const tapo_html_stalls *html_stalls, int status)
{
    GError *error = NULL;
    if (opt->partial_path && !tapo_write_partial(opt->partial_path, report, &error))
        status = tapo_fail(error);
    if (!tapo_print_report(report, opt->report, &error))
        status = tapo_fail(error);
    if (opt->html_path) {
        tapo_html_set set;
        char *prefs = tapo_prefs_text(opt);
        tapo_html_set_of(&set, NULL, files, report, html_stalls, opt, !o->stream);
        if (!tapo_write_html(opt, &set, NULL, prefs, &error))
            status = tapo_fail(error);
        tapo_html_set_free(&set);
        g_free(prefs);
    }
    return status;
}

/* The run itself: 0, or EXIT_INPUT_PROBLEM when an input could not be
 * read to its end (or none at all). */
static int analyse(const tapo_options *opt, tapo_run_options *o, tapo_report *report)
{
    int status = tapo_run(o, report) ? 0 : EXIT_INPUT_PROBLEM;
    if (report->files == 0 && !opt->interface) {
        fprintf(stderr, "tapo: no capture could be read\n");
        status = EXIT_INPUT_PROBLEM;
    }
    return status;
}

int tapo_command_analyse(tapo_options *opt)
{
    GError *error = NULL;
    char **files = tapo_inputs(opt);
    tapo_run_options o;
    row_outputs outs;
    if (!tapo_run_options_of(opt, files, &o, &error) || !open_row_outputs(opt, &o, &outs, &error)) {
        g_strfreev(files);
        return tapo_fail(error);
    }
    tapo_capture_init();
    tapo_handle_signals();
    tapo_monitoring mon;
    if (!tapo_monitoring_start(opt, &mon, &error)) {
        tapo_monitoring_stop(opt, &mon);
        close_quietly(&outs);
        g_strfreev(files);
        return tapo_fail(error);
    }
    o.metrics = mon.metrics;
    o.memory = mon.cap.limit_bytes ? &mon.cap : NULL;
    tapo_report report;
    tapo_report_init(&report);
    tapo_html_stalls html_stalls = { 0 };
    if (opt->html_path) {
        tapo_html_stalls_init(&html_stalls);
        o.html = &html_stalls;
    }
    int status = close_row_outputs(&o, &outs, analyse(opt, &o, &report));
    status = write_results(opt, &o, files, &report, &html_stalls, status);
    if (opt->html_path)
        tapo_html_stalls_free(&html_stalls);
    tapo_report_free(&report);
    g_strfreev(files);
    tapo_monitoring_stop(opt, &mon);
    return status;
}
