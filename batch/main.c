/* main.c: the tapo command: the plugin's analysis over many captures, on
 * every core, for capture sets beyond what tshark can hold, or over a live
 * interface.
 *
 *   tapo [OPTION...] CAPTURE...        stall rows, reports, partial results
 *   tapo -i IFACE [-f FILTER] ...      the same, live, rows streamed as stalls settle
 *   tapo -i IFACE --metrics ADDR:PORT  ... and Prometheus metrics (docs/monitoring.md)
 *   tapo --config /etc/tapo/tapo.conf  the settings from a file (the service)
 *   tapo merge [OPTION...] PARTIAL...  partial results merged into one report
 *   tapo --html R.html CAPTURE...      the incident report as one HTML page
 *   tapo --html R.html --compare BEFORE... -- AFTER...   two capture sets side by side
 *
 * Every output is checked to its close: an error (a full disk, a closed
 * pipe) is reported with the file's name and the exit status is 1.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "capture/capture.h"
#include "config_file.h"
#include "html_points.h"
#include "live.h"
#include "memory_cap.h"
#include "metrics.h"
#include "metrics_http.h"
#include "report.h"
#include "rows.h"
#include "run.h"
#include "short_options.h"

#define DEFAULT_GRACE_S TAPO_CLOSED_GRACE_S  /* a connection is written out this long after it is over */
#define DEFAULT_IDLE_S 3600.0         /* or after this long without packets */
#define EXIT_INPUT_PROBLEM 2          /* as tshark: an input could not be read to its end */
#define DEFAULT_SETTLE_S 5.0          /* streaming: hindsight a stall's row waits for, capture seconds */
#define DEFAULT_INTERVAL_S 10.0       /* live: seconds between summary lines */
#define DEFAULT_METRICS_SERVERS 10    /* server endpoints with a label of their own in the metrics, count */
#define LINGER_POLL_US 100000         /* --metrics-linger: how often a signal is looked for, microseconds */

typedef struct options {
    int jobs;
    char *interface;
    char *capture_filter;
    char *read_file;
    double settle_s;
    double interval_s;
    gboolean version;
    gboolean merge_by_time;
    gboolean continuous;
    char *format;
    char *stalls_path;
    char *flows_path;
    char *episodes_path;
    char *report;
    char *partial_path;
    char *html_path;
    char *chart_js;
    gboolean compare;
    char **after;                     /* --compare: the files after "--" */
    char **prefs;
    double grace_s;
    double idle_s;
    gboolean quiet;
    char *config_path;
    char *metrics_address;
    int metrics_servers;
    double metrics_linger_s;
    double memory_limit_mib;
    char *rotate_size;
    double rotate_interval_s;
    int buffer_kib;
    char **files;
} options;

static void options_free(options *opt)
{
    g_free(opt->interface);
    g_free(opt->capture_filter);
    g_free(opt->read_file);
    g_free(opt->format);
    g_free(opt->stalls_path);
    g_free(opt->flows_path);
    g_free(opt->episodes_path);
    g_free(opt->report);
    g_free(opt->partial_path);
    g_free(opt->html_path);
    g_free(opt->chart_js);
    g_strfreev(opt->after);
    g_strfreev(opt->prefs);
    g_strfreev(opt->files);
    g_free(opt->config_path);
    g_free(opt->metrics_address);
    g_free(opt->rotate_size);
}

/* ---- preferences: the plugin's names (-o tapo.NAME:VALUE) -------------- */

static bool parse_enum(const char *value, const char *const *names, int count, int *out)
{
    for (int i = 0; i < count; i++)
        if (g_ascii_strcasecmp(value, names[i]) == 0) {
            *out = i;
            return true;
        }
    return false;
}

static bool apply_pref(tapo_config *cfg, const char *pref, GError **error)
{
    static const char *const senders[] = { "auto", "responder", "initiator" };
    static const char *const vantages[] = { "auto", "sender", "receiver", "middle" };
    static const char *const rule_orders[] = { "evidence", "paper" };
    const char *colon = strchr(pref, ':');
    if (!g_str_has_prefix(pref, "tapo.") || !colon)
        goto bad;
    char *name = g_strndup(pref + 5, (gsize)(colon - pref - 5));
    const char *value = colon + 1;
    char *end = NULL;
    double number = g_ascii_strtod(value, &end);
    bool numeric = end && end != value && *end == '\0' && number >= 0.0;
    int choice = 0;
    bool ok = true;
    if (strcmp(name, "tau") == 0 && numeric && number > 0.0 && number <= 100.0)
        cfg->tau = number;
    else if (strcmp(name, "small_window") == 0 && numeric)
        cfg->small_window_segments = (uint32_t)number;
    else if (strcmp(name, "rto_min_ms") == 0 && numeric)
        cfg->rto_min_s = number / 1000.0;
    else if (strcmp(name, "rto_initial_ms") == 0 && numeric)
        cfg->rto_initial_s = number / 1000.0;
    else if (strcmp(name, "min_stall_ms") == 0 && numeric)
        cfg->min_stall_s = number / 1000.0;
    else if (strcmp(name, "episode_connections") == 0 && numeric && number >= 2)
        cfg->episode_min_connections = (uint32_t)number;
    else if (strcmp(name, "sender") == 0 && parse_enum(value, senders, 3, &choice))
        cfg->sender_mode = (tapo_sender_mode)choice;
    else if (strcmp(name, "vantage") == 0 && parse_enum(value, vantages, 4, &choice))
        cfg->vantage_mode = (tapo_vantage_mode)choice;
    else if (strcmp(name, "rule_order") == 0 && parse_enum(value, rule_orders, 2, &choice))
        cfg->rule_order = (tapo_rule_order)choice;
    else
        ok = false;
    g_free(name);
    if (ok)
        return true;
bad:
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "invalid preference \"%s\" (tapo.tau, small_window, rto_min_ms, rto_initial_ms, "
                "min_stall_ms, episode_connections, sender auto|responder|initiator, "
                "vantage auto|sender|receiver|middle, rule_order evidence|paper)", pref);
    return false;
}

/* ---- outputs ------------------------------------------------------------- */

/* The report, printed to standard output through a checked output. */
static bool print_report(const tapo_report *r, const char *format, GError **error)
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
static bool write_partial(const char *path, const tapo_report *r, GError **error)
{
    char *json = tapo_report_to_json(r, false);
    bool ok = write_whole(path, json, strlen(json), error);
    g_free(json);
    return ok;
}

/* The HTML report of set (and of after beside it). */
static bool write_html(const options *opt, const tapo_html_set *set, const tapo_html_set *after, const char *prefs,
                       GError **error)
{
    GString *page = tapo_html_page(opt->chart_js, set, after, prefs, error);
    if (!page)
        return false;
    bool ok = write_whole(opt->html_path, page->str, page->len, error);
    g_string_free(page, TRUE);
    return ok;
}

/* Whether the preferences given leave every setting at its default (the
 * GUI's HTML report names all of the plugin's). */
static bool prefs_are_defaults(const options *opt)
{
    tapo_config given, defaults;
    tapo_config_init_defaults(&given);
    tapo_config_init_defaults(&defaults);
    for (char **p = opt->prefs; p && *p; p++)
        if (!apply_pref(&given, *p, NULL))
            return false;
    return given.tau == defaults.tau && given.small_window_segments == defaults.small_window_segments &&
           given.rto_min_s == defaults.rto_min_s && given.rto_initial_s == defaults.rto_initial_s &&
           given.min_stall_s == defaults.min_stall_s &&
           given.episode_min_connections == defaults.episode_min_connections &&
           given.sender_mode == defaults.sender_mode && given.vantage_mode == defaults.vantage_mode;
}

/* The preferences given, as the report names them. */
static char *prefs_text(const options *opt)
{
    if (!opt->prefs || !opt->prefs[0] || prefs_are_defaults(opt))
        return g_strdup("the defaults");
    return g_strjoinv(" ", opt->prefs);
}

/* One capture set of the HTML report: its worst connections' packets read
 * again, unless its input could be read only once. */
static void html_set(tapo_html_set *set, const char *title, char **files, const tapo_report *report,
                     const tapo_html_stalls *stalls, const options *opt, bool rereadable)
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

static void html_set_free(tapo_html_set *set)
{
    if (set->worst_points)
        g_ptr_array_unref(set->worst_points);
}

/* Signals to stop, counted: the second ends --metrics-linger. */
static volatile sig_atomic_t stops;

static void stop(int signal_number)
{
    (void)signal_number;
    stops++;
    tapo_run_stop();
}

static void reopen(int signal_number)
{
    (void)signal_number;
    tapo_run_reopen();
}

/* SIGINT and SIGTERM end the run as if the input ended (every connection
 * written out, the report printed); SIGHUP reopens the outputs (logrotate);
 * a closed pipe is an error to report, not a silent death. */
static void handle_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A reopening waits for the next frame: reading goes on. */
    sa.sa_handler = reopen;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* ---- long runs ------------------------------------------------------------ */

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

/* What a monitoring run adds: the metrics and their endpoint, the memory
 * cap. */
typedef struct monitoring {
    tapo_metrics *metrics;
    tapo_metrics_http *http;
    tapo_memory_cap cap;
} monitoring;

static bool monitoring_start(const options *opt, monitoring *mon, GError **error)
{
    memset(mon, 0, sizeof *mon);
    if (opt->metrics_servers < 0 || opt->metrics_linger_s < 0.0 || opt->memory_limit_mib < 0.0 ||
        opt->rotate_interval_s < 0.0 || opt->buffer_kib < 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--metrics-servers, --metrics-linger, --memory-limit, --rotate-interval and --buffer-size "
                    "cannot be negative");
        return false;
    }
    if (opt->metrics_address) {
        mon->metrics = tapo_metrics_new((unsigned)opt->metrics_servers);
        mon->http = tapo_metrics_http_start(opt->metrics_address, mon->metrics, error);
        if (!mon->http)
            return false;
        fprintf(stderr, "tapo: metrics at %s\n", tapo_metrics_http_url(mon->http));
    }
    uint64_t buffer = opt->buffer_kib > 0 ? (uint64_t)opt->buffer_kib << 10 : TAPO_LIVE_DEFAULT_BUFFER;
    return tapo_memory_cap_init(&mon->cap, (uint64_t)(opt->memory_limit_mib * 1048576.0),
                                opt->interface ? buffer : 0, error);
}

/* The inputs ended: the metrics say so, and stay --metrics-linger seconds
 * for a last scrape, or until SIGINT or SIGTERM. */
static void monitoring_stop(const options *opt, monitoring *mon)
{
    if (mon->metrics)
        tapo_metrics_set_running(mon->metrics, false);
    if (mon->http && opt->metrics_linger_s > 0.0) {
        sig_atomic_t seen = stops;
        gint64 until = g_get_monotonic_time() + (gint64)(opt->metrics_linger_s * 1e6);
        while (stops == seen && g_get_monotonic_time() < until)
            g_usleep(LINGER_POLL_US);
    }
    tapo_metrics_http_stop(mon->http);
    tapo_metrics_free(mon->metrics);
    memset(mon, 0, sizeof *mon);
}

/* ---- commands -------------------------------------------------------------- */

static int fail(GError *error)
{
    fprintf(stderr, "tapo: %s\n", error->message);
    g_error_free(error);
    return 1;
}

/* The inputs: -i, or -r FILE (as tshark) and the files named. */
static char **inputs(options *opt)
{
    GPtrArray *all = g_ptr_array_new();
    if (opt->read_file)
        g_ptr_array_add(all, g_strdup(opt->read_file));
    for (char **p = opt->files; p && *p; p++)
        g_ptr_array_add(all, g_strdup(*p));
    g_ptr_array_add(all, NULL);
    return (char **)g_ptr_array_free(all, FALSE);
}

/* What every run shares: inputs, preferences, format, workers. */
static bool run_options(const options *opt, char **files, tapo_run_options *o, GError **error)
{
    *o = (tapo_run_options){ .files = files, .interface = opt->interface, .capture_filter = opt->capture_filter,
                             .jobs = opt->jobs, .merge_by_time = opt->merge_by_time,
                             .continuous = opt->continuous, .grace_s = opt->grace_s, .idle_s = opt->idle_s,
                             .settle_s = opt->settle_s, .interval_s = opt->interface ? opt->interval_s : 0.0,
                             .buffer_bytes = opt->buffer_kib > 0 ? (uint64_t)opt->buffer_kib << 10 : 0 };
    o->stream = opt->interface != NULL;
    for (char **p = files; p && *p; p++)
        o->stream = o->stream || tapo_input_streams(*p);
    tapo_config_init_defaults(&o->cfg);
    for (char **p = opt->prefs; p && *p; p++)
        if (!apply_pref(&o->cfg, *p, error))
            return false;
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

/* --compare: both capture sets analysed alike, one HTML report. */
static int run_compare(options *opt)
{
    GError *error = NULL;
    char **sets[2] = { inputs(opt), g_strdupv(opt->after) };
    static const char *const titles[2] = { "before", "after" };
    tapo_report reports[2];
    tapo_html_stalls stalls[2];
    tapo_html_set html[2];
    int status = 0;
    tapo_capture_init();
    handle_signals();
    for (int k = 0; k < 2; k++) {
        tapo_report_init(&reports[k]);
        tapo_html_stalls_init(&stalls[k]);
    }
    for (int k = 0; k < 2; k++) {
        tapo_run_options o;
        if (!run_options(opt, sets[k], &o, &error)) {
            status = fail(error);
            break;
        }
        /* A missing file is reported by the run, as any unreadable capture. */
        bool pipe = false;
        for (char **p = sets[k]; *p; p++)
            pipe = pipe || strcmp(*p, "-") == 0 ||
                   (g_file_test(*p, G_FILE_TEST_EXISTS) && !g_file_test(*p, G_FILE_TEST_IS_REGULAR));
        if (pipe) {
            status = fail(g_error_new(G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                      "--compare reads capture files, not pipes"));
            break;
        }
        o.stream = false;
        o.html = &stalls[k];
        if (!tapo_run(&o, &reports[k]))
            status = EXIT_INPUT_PROBLEM;
        if (reports[k].files == 0) {
            fprintf(stderr, "tapo: no %s capture could be read\n", titles[k]);
            status = EXIT_INPUT_PROBLEM;
        }
    }
    if (status == 0 || status == EXIT_INPUT_PROBLEM) {
        char *prefs = prefs_text(opt);
        for (int k = 0; k < 2; k++)
            html_set(&html[k], titles[k], sets[k], &reports[k], &stalls[k], opt, true);
        if (!write_html(opt, &html[0], &html[1], prefs, &error))
            status = fail(error);
        for (int k = 0; k < 2; k++)
            html_set_free(&html[k]);
        g_free(prefs);
    }
    for (int k = 0; k < 2; k++) {
        tapo_report_free(&reports[k]);
        tapo_html_stalls_free(&stalls[k]);
        g_strfreev(sets[k]);
    }
    return status;
}

static int run_analysis(options *opt)
{
    GError *error = NULL;
    char **files = inputs(opt);
    tapo_run_options o;
    int status = 0;
    if (!run_options(opt, files, &o, &error)) {
        g_strfreev(files);
        return fail(error);
    }
    /* Stall rows go to stdout unless a report, partial result or page takes it. */
    bool rows_to_stdout = !opt->stalls_path && !opt->report && !opt->partial_path && !opt->html_path;
    tapo_output stalls = { 0 }, flows = { 0 }, episodes = { 0 };
    uint64_t rotate_bytes = 0;
    if (opt->rotate_size && !parse_size(opt->rotate_size, &rotate_bytes, &error)) {
        g_strfreev(files);
        return fail(error);
    }
    bool rotate = rotate_bytes || opt->rotate_interval_s > 0.0;
    if (opt->stalls_path || rows_to_stdout) {
        const char *path = rows_to_stdout ? "-" : opt->stalls_path;
        if (rotate ? !tapo_output_open_segments(&stalls, path, rotate_bytes, opt->rotate_interval_s, &error)
                   : !tapo_output_open(&stalls, path, &error)) {
            g_strfreev(files);
            return fail(error);
        }
        o.stalls = &stalls;
    } else if (rotate) {
        g_strfreev(files);
        return fail(g_error_new(G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                "--rotate-size and --rotate-interval split the stall rows: give --stalls FILE"));
    }
    if (opt->flows_path) {
        if (!tapo_output_open(&flows, opt->flows_path, &error)) {
            tapo_output_close(&stalls, NULL);
            g_strfreev(files);
            return fail(error);
        }
        o.flows = &flows;
    }
    if (opt->episodes_path) {
        if (!tapo_output_open(&episodes, opt->episodes_path, &error)) {
            tapo_output_close(&stalls, NULL);
            tapo_output_close(&flows, NULL);
            g_strfreev(files);
            return fail(error);
        }
        o.episodes = &episodes;
    }
    GString *head = g_string_new("");
    if (o.stalls) {
        tapo_rows_stall_header(head, o.format);
        tapo_output_set_header(o.stalls, head->str);
    }
    if (o.flows) {
        g_string_truncate(head, 0);
        tapo_rows_flow_header(head, o.format);
        tapo_output_set_header(o.flows, head->str);
    }
    if (o.episodes) {
        g_string_truncate(head, 0);
        tapo_rows_episode_header(head, o.format);
        tapo_output_set_header(o.episodes, head->str);
    }
    g_string_free(head, TRUE);
    tapo_capture_init();
    handle_signals();
    monitoring mon;
    if (!monitoring_start(opt, &mon, &error)) {
        monitoring_stop(opt, &mon);
        tapo_output_close(&stalls, NULL);
        tapo_output_close(&flows, NULL);
        tapo_output_close(&episodes, NULL);
        g_strfreev(files);
        return fail(error);
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
    bool complete = tapo_run(&o, &report);
    if (!complete)
        status = EXIT_INPUT_PROBLEM;
    if (report.files == 0 && !opt->interface) {
        fprintf(stderr, "tapo: no capture could be read\n");
        status = EXIT_INPUT_PROBLEM;
    }
    /* The last segment completed, the outputs' final counts for a last scrape. */
    tapo_output *outs[3] = { &stalls, &flows, &episodes };
    static const char *const out_names[3] = { "stalls", "flows", "episodes" };
    for (int i = 0; i < 3; i++) {
        tapo_output_finish(outs[i]);
        if (mon.metrics && (outs[i]->f || outs[i]->path)) {
            tapo_metrics_output counts = { outs[i]->rows, outs[i]->rows_lost, outs[i]->files };
            tapo_metrics_set_output(mon.metrics, out_names[i], &counts);
        }
    }
    if (!tapo_output_close(&stalls, &error))
        status = fail(error);
    if (!tapo_output_close(&flows, &error))
        status = fail(error);
    if (!tapo_output_close(&episodes, &error))
        status = fail(error);
    if (opt->partial_path && !write_partial(opt->partial_path, &report, &error))
        status = fail(error);
    if (!print_report(&report, opt->report, &error))
        status = fail(error);
    if (opt->html_path) {
        tapo_html_set set;
        char *prefs = prefs_text(opt);
        html_set(&set, NULL, files, &report, &html_stalls, opt, !o.stream);
        if (!write_html(opt, &set, NULL, prefs, &error))
            status = fail(error);
        html_set_free(&set);
        g_free(prefs);
        tapo_html_stalls_free(&html_stalls);
    }
    tapo_report_free(&report);
    g_strfreev(files);
    monitoring_stop(opt, &mon);
    return status;
}

static int run_merge(options *opt)
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
    if (opt->partial_path && !write_partial(opt->partial_path, &total, &error))
        status = fail(error);
    if (!print_report(&total, opt->report ? opt->report : "text", &error))
        status = fail(error);
    tapo_report_free(&total);
    return status;
}

int main(int argc, char **argv)
{
    options opt = { .jobs = 0, .grace_s = DEFAULT_GRACE_S, .idle_s = DEFAULT_IDLE_S,
                    .settle_s = DEFAULT_SETTLE_S, .interval_s = DEFAULT_INTERVAL_S,
                    .metrics_servers = DEFAULT_METRICS_SERVERS };
    bool merge = argc > 1 && strcmp(argv[1], "merge") == 0;
    GOptionEntry entries[] = {
        { "read-file", 'r', 0, G_OPTION_ARG_FILENAME, &opt.read_file,
          "A capture to read, as tshark -r (also given as a plain argument; - is standard input)", "FILE" },
        { "interface", 'i', 0, G_OPTION_ARG_STRING, &opt.interface,
          "Capture live on this interface (libpcap; needs the capture privilege): rows are written as "
          "stalls settle, a summary line every --interval, the report on Ctrl-C", "IFACE" },
        { "filter", 'f', 0, G_OPTION_ARG_STRING, &opt.capture_filter,
          "The live capture's BPF filter, as tcpdump's (e.g. 'tcp port 443')", "FILTER" },
        { "settle", 0, 0, G_OPTION_ARG_DOUBLE, &opt.settle_s,
          "Live or from a pipe: write a stall's row this many capture seconds after it, with that much "
          "hindsight (default 5; 0: at once, the one-pass verdict)", "S" },
        { "interval", 0, 0, G_OPTION_ARG_DOUBLE, &opt.interval_s,
          "Live: a summary line on stderr every S seconds (default 10; 0: none)", "S" },
        { "buffer-size", 'B', 0, G_OPTION_ARG_INT, &opt.buffer_kib,
          "Live: the kernel's capture buffer, KiB, as tcpdump -B (default: libpcap's, 2 MiB)", "KIB" },
        { "metrics", 0, 0, G_OPTION_ARG_STRING, &opt.metrics_address,
          "Serve Prometheus metrics on http://ADDR:PORT/metrics (:PORT: every address; port 0: any free one)",
          "ADDR:PORT" },
        { "metrics-servers", 0, 0, G_OPTION_ARG_INT, &opt.metrics_servers,
          "The busiest N server endpoints by stalled time get a label of their own in the metrics, the rest "
          "are \"other\" (default 10)", "N" },
        { "metrics-linger", 0, 0, G_OPTION_ARG_DOUBLE, &opt.metrics_linger_s,
          "Once the inputs ended, keep answering for S seconds (a last scrape; SIGINT or SIGTERM ends it)", "S" },
        { "memory-limit", 0, 0, G_OPTION_ARG_DOUBLE, &opt.memory_limit_mib,
          "Keep tapo's memory under MIB MiB: the connections quiet for the longest are written out early "
          "(counted) when it is reached (default: no limit)", "MIB" },
        { "rotate-size", 0, 0, G_OPTION_ARG_STRING, &opt.rotate_size,
          "Split --stalls FILE into files of about SIZE bytes (k, M, G), each written whole: "
          "FILE-<UTC start>.csv (see man tapo)", "SIZE" },
        { "rotate-interval", 0, 0, G_OPTION_ARG_DOUBLE, &opt.rotate_interval_s,
          "Split --stalls FILE into a file every S seconds, each written whole", "S" },
        { "config", 0, 0, G_OPTION_ARG_FILENAME, &opt.config_path,
          "Read settings from FILE first: a key file whose group [tapo] holds long options by name "
          "(/etc/tapo/tapo.conf for the service)", "FILE" },
        { "jobs", 'j', 0, G_OPTION_ARG_INT, &opt.jobs, "Worker threads (default: every core)", "N" },
        { "merge-by-time", 0, 0, G_OPTION_ARG_NONE, &opt.merge_by_time,
          "The captures are simultaneous parts of one capture (several interfaces): interleave them "
          "by timestamp", NULL },
        { "continuous", 0, 0, G_OPTION_ARG_NONE, &opt.continuous,
          "The captures are consecutive parts of one capture (a ring buffer): connections go on from "
          "one file to the next (default: independent captures, each analysed on its own)", NULL },
        { "format", 'F', 0, G_OPTION_ARG_STRING, &opt.format, "Rows as csv (default) or jsonl", "FORMAT" },
        { "stalls", 'w', 0, G_OPTION_ARG_FILENAME, &opt.stalls_path,
          "One row per stall, with the plugin's field names (default: stdout, unless --report or --partial)",
          "FILE" },
        { "flows", 0, 0, G_OPTION_ARG_FILENAME, &opt.flows_path, "One row per connection", "FILE" },
        { "episodes", 0, 0, G_OPTION_ARG_FILENAME, &opt.episodes_path,
          "One row per episode (stalls of several connections at once: one incident), with its stalls",
          "FILE" },
        { "report", 0, 0, G_OPTION_ARG_STRING, &opt.report,
          "Print the breakdown (paper Tables 3, 5, 6, 7) and the flow report: text or json", "FORMAT" },
        { "html", 0, 0, G_OPTION_ARG_FILENAME, &opt.html_path,
          "Write the incident report as one HTML page that opens offline: charts by cause, phase and "
          "confidence, a timeline, the worst connections' time-sequence graphs, episodes, what-if savings",
          "FILE" },
        { "compare", 0, 0, G_OPTION_ARG_NONE, &opt.compare,
          "With --html: the captures before \"--\" and those after it side by side (before and after a "
          "change)", NULL },
        { "chart-js", 0, 0, G_OPTION_ARG_FILENAME, &opt.chart_js,
          "With --html: the Chart.js 3 file to inline (default: the copy built into tapo)", "FILE" },
        { "partial", 'p', 0, G_OPTION_ARG_FILENAME, &opt.partial_path,
          "Write partial results to merge later with tapo merge", "FILE" },
        { "pref", 'o', 0, G_OPTION_ARG_STRING_ARRAY, &opt.prefs,
          "A preference, as in the plugin: tapo.tau:3, tapo.min_stall_ms:0, tapo.episode_connections:3, "
          "tapo.sender:initiator, ...",
          "tapo.NAME:VALUE" },
        { "grace", 0, 0, G_OPTION_ARG_DOUBLE, &opt.grace_s,
          "Seconds after a connection is over before it is written out (default 240)", "S" },
        { "idle-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &opt.idle_s,
          "Seconds without packets before a connection is written out (default 3600)", "S" },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &opt.quiet, "No progress line on stderr", NULL },
        { "version", 'v', 0, G_OPTION_ARG_NONE, &opt.version, "Print the version and exit", NULL },
        { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt.files, NULL,
          merge ? "PARTIAL..." : "CAPTURE..." },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
    };
    /* --config FILE: its settings go before the command line's, which win. */
    const char *config = tapo_config_file_named(argc, argv);
    char **config_args = NULL;
    char **all_args = NULL;
    if (config) {
        GError *config_error = NULL;
        config_args = tapo_config_file_args(config, entries, &config_error);
        if (!config_args) {
            int status = fail(config_error);
            options_free(&opt);
            return status;
        }
        int n = (int)g_strv_length(config_args), first = merge ? 2 : 1;
        all_args = g_new0(char *, argc + n + 1);
        for (int i = 0; i < first; i++)
            all_args[i] = argv[i];
        for (int i = 0; i < n; i++)
            all_args[first + i] = config_args[i];
        for (int i = first; i < argc; i++)
            all_args[n + i] = argv[i];
        argc += n;
        argv = all_args;
    }
    GOptionContext *context = g_option_context_new(merge ? "- merge partial results" : "- why TCP connections stalled");
    g_option_context_add_main_entries(context, entries, NULL);
    g_option_context_set_description(context,
        "Stall rows go to stdout as CSV unless --stalls, --report, --partial or --html say otherwise.\n"
        "Exit status: 0; 1 on a usage error or when an output could not be written; 2 when an input\n"
        "could not be read to its end.  See man tapo.\n"
        "Examples:\n"
        "  tapo capture.pcap > stalls.csv\n"
        "  sudo tapo -i eth0 -f 'tcp port 443' --report text\n"
        "  sudo tapo -i eth0 --metrics 127.0.0.1:9977 --memory-limit 256 -w /var/log/tapo/stalls.csv "
        "--rotate-size 64M\n"
        "  tapo --config /etc/tapo/tapo.conf\n"
        "  tcpdump -i eth0 -w - | tapo -\n"
        "  tapo -F jsonl -j 8 --flows flows.jsonl --stalls stalls.jsonl day/*.pcap.gz\n"
        "  tapo --report text capture.pcapng\n"
        "  tapo --html report.html capture.pcapng\n"
        "  tapo --html change.html --compare before.pcap -- after.pcap\n"
        "  tapo --partial part1.json a.pcap; tapo --partial part2.json b.pcap; tapo merge part*.json\n");
    GError *error = NULL;
    if (merge) {
        argv[1] = argv[0];
        argc--;
        argv++;
    }
    /* --compare BEFORE... -- AFTER...: the files after "--" are the second set. */
    for (int i = 1; !merge && i < argc; i++) {
        if (strcmp(argv[i], "--compare") != 0)
            continue;
        for (int k = i + 1; k < argc; k++)
            if (strcmp(argv[k], "--") == 0) {
                opt.after = g_new0(char *, argc - k);
                for (int a = k + 1; a < argc; a++)
                    opt.after[a - k - 1] = g_strdup(argv[a]);
                argc = k;
                break;
            }
        break;
    }
    /* -j1, -Fjsonl, -qj1: values attached to short options, as tshark's. */
    GPtrArray *owned = g_ptr_array_new_with_free_func(g_free);
    char **split = tapo_split_short_options(entries, argc, argv, &argc, owned);
    char **parsed = split;            /* GLib removes what it parses from the array */
    int status;
    if (!g_option_context_parse(context, &argc, &parsed, &error)) {
        status = fail(error);
    } else if (opt.version) {
        printf("tapo %s (TAPO for Wireshark; the analysis of its plugin, built against Wireshark %s)\n",
               TAPO_VERSION, TAPO_WIRESHARK_VERSION);
        status = fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
    } else if (!merge && opt.compare && (!opt.html_path || !opt.after || !opt.after[0] || opt.interface ||
                                         (!opt.read_file && (!opt.files || !opt.files[0])))) {
        status = fail(g_error_new(G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                  "--compare needs --html FILE and captures on both sides of \"--\": "
                                  "tapo --html R.html --compare BEFORE... -- AFTER..."));
    } else if (!merge && opt.compare && (opt.stalls_path || opt.flows_path || opt.episodes_path ||
                                         opt.partial_path || opt.report)) {
        status = fail(g_error_new(G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                  "--compare writes the HTML report alone: run each set on its own for "
                                  "rows, reports or partial results"));
    } else if ((merge || opt.compare) && (opt.metrics_address || opt.memory_limit_mib > 0.0 || opt.rotate_size ||
                                          opt.rotate_interval_s > 0.0)) {
        status = fail(g_error_new(G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                  "--metrics, --memory-limit and --rotate-* are for an analysis run, not for %s",
                                  merge ? "tapo merge" : "--compare"));
    } else if (!merge && opt.interface && ((opt.files && opt.files[0]) || opt.read_file)) {
        status = fail(g_error_new(G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                  "-i reads an interface: name no capture file with it"));
    } else if (!merge && !opt.interface && !opt.read_file && (!opt.files || !opt.files[0])) {
        char *help = g_option_context_get_help(context, TRUE, NULL);
        fputs(help, stderr);
        g_free(help);
        status = 1;
    } else if (merge && (!opt.files || !opt.files[0])) {
        char *help = g_option_context_get_help(context, TRUE, NULL);
        fputs(help, stderr);
        g_free(help);
        status = 1;
    } else {
        status = merge ? run_merge(&opt) : opt.compare ? run_compare(&opt) : run_analysis(&opt);
    }
    g_option_context_free(context);
    options_free(&opt);
    g_free(split);
    g_ptr_array_free(owned, TRUE);
    g_free(all_args);
    g_strfreev(config_args);
    return status;
}
