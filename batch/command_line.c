/* command_line.c: see command_line.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "command_line.h"

#include <stddef.h>
#include <string.h>

#include "base/config.h"
#include "config_file.h"
#include "short_options.h"

#define DEFAULT_GRACE_S TAPO_CLOSED_GRACE_S  /* a connection is written out this long after it is over */
#define DEFAULT_IDLE_S 3600.0         /* or after this long without packets */
#define DEFAULT_SETTLE_S 5.0          /* streaming: hindsight a stall's row waits for, capture seconds */
#define DEFAULT_INTERVAL_S 10.0       /* live: seconds between summary lines */
#define DEFAULT_METRICS_SERVERS 10    /* server endpoints with a label of their own in the metrics, count */

/* One option: GLib's entry, with where its value goes in tapo_options. */
typedef struct option_def {
    const char *long_name;
    char short_name;
    GOptionArg arg;
    size_t offset;                    /* of its member in tapo_options, bytes */
    const char *description;
    const char *arg_description;
} option_def;

static const option_def options[] = {
    { "read-file", 'r', G_OPTION_ARG_FILENAME, offsetof(tapo_options, read_file),
      "A capture to read, as tshark -r (also given as a plain argument; - is standard input)", "FILE" },
    { "interface", 'i', G_OPTION_ARG_STRING, offsetof(tapo_options, interface),
      "Capture live on this interface (libpcap; needs the capture privilege): rows are written as "
      "stalls settle, a summary line every --interval, the report on Ctrl-C", "IFACE" },
    { "filter", 'f', G_OPTION_ARG_STRING, offsetof(tapo_options, capture_filter),
      "The live capture's BPF filter, as tcpdump's (e.g. 'tcp port 443')", "FILTER" },
    { "settle", 0, G_OPTION_ARG_DOUBLE, offsetof(tapo_options, settle_s),
      "Live or from a pipe: write a stall's row this many capture seconds after it, with that much "
      "hindsight (default 5; 0: at once, the one-pass verdict)", "S" },
    { "interval", 0, G_OPTION_ARG_DOUBLE, offsetof(tapo_options, interval_s),
      "Live: a summary line on stderr every S seconds (default 10; 0: none)", "S" },
    { "buffer-size", 'B', G_OPTION_ARG_INT, offsetof(tapo_options, buffer_kib),
      "Live: the kernel's capture buffer, KiB, as tcpdump -B (default: libpcap's, 2 MiB)", "KIB" },
    { "metrics", 0, G_OPTION_ARG_STRING, offsetof(tapo_options, metrics_address),
      "Serve Prometheus metrics on http://ADDR:PORT/metrics (:PORT: every address; port 0: any free one)",
      "ADDR:PORT" },
    { "metrics-servers", 0, G_OPTION_ARG_INT, offsetof(tapo_options, metrics_servers),
      "The busiest N server endpoints by stalled time get a label of their own in the metrics, the rest "
      "are \"other\" (default 10)", "N" },
    { "metrics-linger", 0, G_OPTION_ARG_DOUBLE, offsetof(tapo_options, metrics_linger_s),
      "Once the inputs ended, keep answering for S seconds (a last scrape; SIGINT or SIGTERM ends it)", "S" },
    { "memory-limit", 0, G_OPTION_ARG_DOUBLE, offsetof(tapo_options, memory_limit_mib),
      "Keep tapo's memory under MIB MiB: the connections quiet for the longest are written out early "
      "(counted) when it is reached (default: no limit)", "MIB" },
    { "rotate-size", 0, G_OPTION_ARG_STRING, offsetof(tapo_options, rotate_size),
      "Split --stalls FILE into files of about SIZE bytes (k, M, G), each written whole: "
      "FILE-<UTC start>.csv (see man tapo)", "SIZE" },
    { "rotate-interval", 0, G_OPTION_ARG_DOUBLE, offsetof(tapo_options, rotate_interval_s),
      "Split --stalls FILE into a file every S seconds, each written whole", "S" },
    { "config", 0, G_OPTION_ARG_FILENAME, offsetof(tapo_options, config_path),
      "Read settings from FILE first: a key file whose group [tapo] holds long options by name "
      "(/etc/tapo/tapo.conf for the service)", "FILE" },
    { "jobs", 'j', G_OPTION_ARG_INT, offsetof(tapo_options, jobs), "Worker threads (default: every core)", "N" },
    { "merge-by-time", 0, G_OPTION_ARG_NONE, offsetof(tapo_options, merge_by_time),
      "The captures are simultaneous parts of one capture (several interfaces): interleave them "
      "by timestamp", NULL },
    { "continuous", 0, G_OPTION_ARG_NONE, offsetof(tapo_options, continuous),
      "The captures are consecutive parts of one capture (a ring buffer): connections go on from "
      "one file to the next (default: independent captures, each analysed on its own)", NULL },
    { "format", 'F', G_OPTION_ARG_STRING, offsetof(tapo_options, format), "Rows as csv (default) or jsonl", "FORMAT" },
    { "stalls", 'w', G_OPTION_ARG_FILENAME, offsetof(tapo_options, stalls_path),
      "One row per stall, with the plugin's field names (default: stdout, unless --report or --partial)",
      "FILE" },
    { "flows", 0, G_OPTION_ARG_FILENAME, offsetof(tapo_options, flows_path), "One row per connection", "FILE" },
    { "episodes", 0, G_OPTION_ARG_FILENAME, offsetof(tapo_options, episodes_path),
      "One row per episode (stalls of several connections at once: one incident), with its stalls",
      "FILE" },
    { "report", 0, G_OPTION_ARG_STRING, offsetof(tapo_options, report),
      "Print the breakdown (paper Tables 3, 5, 6, 7) and the flow report: text or json", "FORMAT" },
    { "html", 0, G_OPTION_ARG_FILENAME, offsetof(tapo_options, html_path),
      "Write the incident report as one HTML page that opens offline: charts by cause, phase and "
      "confidence, a timeline, the worst connections' time-sequence graphs, episodes, what-if savings",
      "FILE" },
    { "compare", 0, G_OPTION_ARG_NONE, offsetof(tapo_options, compare),
      "With --html: the captures before \"--\" and those after it side by side (before and after a "
      "change)", NULL },
    { "chart-js", 0, G_OPTION_ARG_FILENAME, offsetof(tapo_options, chart_js),
      "With --html: the Chart.js 3 file to inline (default: the copy built into tapo)", "FILE" },
    { "partial", 'p', G_OPTION_ARG_FILENAME, offsetof(tapo_options, partial_path),
      "Write partial results to merge later with tapo merge", "FILE" },
    { "pref", 'o', G_OPTION_ARG_STRING_ARRAY, offsetof(tapo_options, prefs),
      "A preference of the plugin, by its name (every one): tapo.tau:3, tapo.min_stall_ms:0, "
      "tapo.sender:ports, tapo.server_ports:80,8080, ...",
      "tapo.NAME:VALUE" },
    { "grace", 0, G_OPTION_ARG_DOUBLE, offsetof(tapo_options, grace_s),
      "Seconds after a connection is over before it is written out (default 240)", "S" },
    { "idle-timeout", 0, G_OPTION_ARG_DOUBLE, offsetof(tapo_options, idle_s),
      "Seconds without packets before a connection is written out (default 3600)", "S" },
    { "quiet", 'q', G_OPTION_ARG_NONE, offsetof(tapo_options, quiet), "No progress line on stderr", NULL },
    { "version", 'v', G_OPTION_ARG_NONE, offsetof(tapo_options, version), "Print the version and exit", NULL },
};

/* GLib's entries for opt, the captures (or partial results) last. */
static GOptionEntry *entries_for(tapo_options *opt, bool merge)
{
    GOptionEntry *entries = g_new0(GOptionEntry, G_N_ELEMENTS(options) + 2);
    for (unsigned i = 0; i < G_N_ELEMENTS(options); i++)
        entries[i] = (GOptionEntry){ options[i].long_name, options[i].short_name, 0, options[i].arg,
                                     (char *)opt + options[i].offset, options[i].description,
                                     options[i].arg_description };
    entries[G_N_ELEMENTS(options)] = (GOptionEntry){ G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY,
                                                     &opt->files, NULL, merge ? "PARTIAL..." : "CAPTURE..." };
    return entries;
}

static GOptionContext *context_for(const GOptionEntry *entries, bool merge)
{
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
    return context;
}

/* The arguments to parse, in a new array (its strings borrowed, or in
 * owned): --config FILE's settings before the command line's, which win;
 * after "merge" for tapo merge, whose own name goes. */
static char **arguments(int argc, char **argv, const GOptionEntry *entries, bool merge, int *count,
                        GPtrArray *owned, GError **error)
{
    const char *config = tapo_config_file_named(argc, argv);
    char **settings = config ? tapo_config_file_args(config, entries, error) : g_new0(char *, 1);
    if (!settings)
        return NULL;
    int n = (int)g_strv_length(settings), first = merge ? 2 : 1;
    char **all = g_new0(char *, argc + n + 1);
    all[0] = argv[0];
    for (int i = 0; i < n; i++) {
        all[1 + i] = settings[i];
        g_ptr_array_add(owned, settings[i]);
    }
    for (int i = first; i < argc; i++)
        all[1 + n + i - first] = argv[i];
    g_free(settings);
    *count = 1 + n + argc - first;
    return all;
}

/* --compare BEFORE... -- AFTER...: the files after "--" are the second
 * set, and leave the arguments. */
static void split_compare(tapo_options *opt, int *argc, char **argv)
{
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--compare") != 0)
            continue;
        for (int k = i + 1; k < *argc; k++)
            if (strcmp(argv[k], "--") == 0) {
                opt->after = g_new0(char *, *argc - k);
                for (int a = k + 1; a < *argc; a++)
                    opt->after[a - k - 1] = g_strdup(argv[a]);
                *argc = k;
                break;
            }
        break;
    }
}

static bool usage_error(GError **error, const char *message)
{
    g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, message);
    return false;
}

/* Options that do not go together (false, with why), or the command. */
static bool command_of(const tapo_options *opt, bool merge, tapo_command *command, GError **error)
{
    bool captures = opt->read_file || (opt->files && opt->files[0]);
    if (opt->version)
        *command = TAPO_COMMAND_VERSION;
    else if (!merge && opt->compare && (!opt->html_path || !opt->after || !opt->after[0] || opt->interface ||
                                        !captures))
        return usage_error(error, "--compare needs --html FILE and captures on both sides of \"--\": "
                                  "tapo --html R.html --compare BEFORE... -- AFTER...");
    else if (!merge && opt->compare && (opt->stalls_path || opt->flows_path || opt->episodes_path ||
                                        opt->partial_path || opt->report))
        return usage_error(error, "--compare writes the HTML report alone: run each set on its own for rows, "
                                  "reports or partial results");
    else if ((merge || opt->compare) && (opt->metrics_address || opt->memory_limit_mib > 0.0 || opt->rotate_size ||
                                         opt->rotate_interval_s > 0.0))
        return usage_error(error, merge ? "--metrics, --memory-limit and --rotate-* are for an analysis run, "
                                          "not for tapo merge"
                                        : "--metrics, --memory-limit and --rotate-* are for an analysis run, "
                                          "not for --compare");
    else if (!merge && opt->interface && captures)
        return usage_error(error, "-i reads an interface: name no capture file with it");
    else if (merge ? !(opt->files && opt->files[0]) : !opt->interface && !captures)
        *command = TAPO_COMMAND_HELP;
    else
        *command = merge ? TAPO_COMMAND_MERGE : opt->compare ? TAPO_COMMAND_COMPARE : TAPO_COMMAND_ANALYSE;
    return true;
}

bool tapo_command_line_read(int argc, char **argv, tapo_command_line *cl, GError **error)
{
    memset(cl, 0, sizeof *cl);
    tapo_options *opt = &cl->opt;
    *opt = (tapo_options){ .grace_s = DEFAULT_GRACE_S, .idle_s = DEFAULT_IDLE_S, .settle_s = DEFAULT_SETTLE_S,
                           .interval_s = DEFAULT_INTERVAL_S, .metrics_servers = DEFAULT_METRICS_SERVERS };
    bool merge = argc > 1 && strcmp(argv[1], "merge") == 0;
    GOptionEntry *entries = entries_for(opt, merge);
    GPtrArray *owned = g_ptr_array_new_with_free_func(g_free);
    int count = 0;
    char **args = arguments(argc, argv, entries, merge, &count, owned, error);
    GOptionContext *context = context_for(entries, merge);
    bool ok = args != NULL;
    if (ok) {
        split_compare(opt, &count, args);
        /* -j1, -Fjsonl, -qj1: values attached to short options, as tshark's. */
        char **split = tapo_split_short_options(entries, count, args, &count, owned);
        char **parsed = split;        /* GLib removes what it parses from the array */
        ok = g_option_context_parse(context, &count, &parsed, error) &&
             tapo_prefs_given_read(&opt->given, opt->prefs, error) && command_of(opt, merge, &cl->command, error);
        g_free(split);
    }
    if (ok && cl->command == TAPO_COMMAND_HELP)
        cl->help = g_option_context_get_help(context, TRUE, NULL);
    g_option_context_free(context);
    g_free(args);
    g_ptr_array_free(owned, TRUE);
    g_free(entries);
    return ok;
}

void tapo_options_free(tapo_options *opt)
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
    tapo_prefs_given_free(&opt->given);
    g_strfreev(opt->files);
    g_free(opt->config_path);
    g_free(opt->metrics_address);
    g_free(opt->rotate_size);
}

void tapo_command_line_free(tapo_command_line *cl)
{
    tapo_options_free(&cl->opt);
    g_free(cl->help);
}
