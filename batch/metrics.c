/* metrics.c: see metrics.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "metrics.h"

#include <string.h>
#include <unistd.h>

#include "busiest_servers.h"
#include "memory_cap.h"

/* Upper bounds of the stall duration histogram's buckets, seconds: from a
 * LAN's stalls (tens of milliseconds) to Linux's largest RTO (120 s). */
static const double duration_bounds_s[] = { 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120 };
#define DURATION_BOUNDS G_N_ELEMENTS(duration_bounds_s)

/* The outputs whose rows are counted, by name. */
static const char *const output_names[] = { "stalls", "flows", "episodes" };
#define OUTPUTS G_N_ELEMENTS(output_names)

struct tapo_metrics {
    GRecMutex lock;                   /* recursive: a worker holds it across a group of updates */
    uint64_t stalls[TAPO_CAUSE_COUNT][TAPO_PHASE_COUNT][TAPO_CONFIDENCE_COUNT];      /* count */
    double stalled_s[TAPO_CAUSE_COUNT][TAPO_PHASE_COUNT][TAPO_CONFIDENCE_COUNT];     /* seconds */
    uint64_t duration_in[TAPO_CAUSE_COUNT][DURATION_BOUNDS + 1];  /* stalls per bucket (not cumulative), count */
    double duration_sum_s[TAPO_CAUSE_COUNT];                       /* seconds */
    uint64_t episodes[TAPO_SCOPE_COUNT][TAPO_CAUSE_COUNT];         /* count */
    tapo_busiest *servers;
    GArray *workers;                  /* tapo_metrics_worker, by index */
    bool live;                        /* a live capture: its drops are known */
    uint64_t kernel_drops, interface_drops;                        /* packets, count */
    bool output_used[OUTPUTS];
    tapo_metrics_output outputs[OUTPUTS];
    uint64_t heap_bytes, limit_bytes;
    bool running;
    double start_time_s;              /* seconds since the epoch */
};

tapo_metrics *tapo_metrics_new(unsigned servers)
{
    tapo_metrics *m = g_new0(tapo_metrics, 1);
    g_rec_mutex_init(&m->lock);
    m->servers = tapo_busiest_new(servers);
    m->workers = g_array_new(FALSE, TRUE, sizeof(tapo_metrics_worker));
    m->running = true;
    m->start_time_s = g_get_real_time() / 1e6;
    return m;
}

void tapo_metrics_free(tapo_metrics *m)
{
    if (!m)
        return;
    tapo_busiest_free(m->servers);
    g_array_free(m->workers, TRUE);
    g_rec_mutex_clear(&m->lock);
    g_free(m);
}

/* ---- counting ---------------------------------------------------------- */

tapo_metrics_stall_note tapo_metrics_stall_note_of(const tapo_verdict *v, char *server)
{
    return (tapo_metrics_stall_note){ v->cause, v->phase, v->confidence, v->duration_s, server };
}

void tapo_metrics_stall(tapo_metrics *m, tapo_metrics_stall_note *n)
{
    unsigned c = (unsigned)n->cause < TAPO_CAUSE_COUNT ? (unsigned)n->cause : TAPO_CAUSE_UNDETERMINED;
    unsigned p = (unsigned)n->phase < TAPO_PHASE_COUNT ? (unsigned)n->phase : TAPO_PHASE_DATA;
    unsigned k = (unsigned)n->confidence < TAPO_CONFIDENCE_COUNT ? (unsigned)n->confidence : TAPO_CONFIDENCE_LOW;
    double d = n->duration_s > 0.0 ? n->duration_s : 0.0;
    unsigned b = 0;
    while (b < DURATION_BOUNDS && d > duration_bounds_s[b])
        b++;
    g_rec_mutex_lock(&m->lock);
    m->stalls[c][p][k]++;
    m->stalled_s[c][p][k] += d;
    m->duration_in[c][b]++;
    m->duration_sum_s[c] += d;
    tapo_busiest_add(m->servers, n->server ? n->server : "unknown", d);
    g_rec_mutex_unlock(&m->lock);
    g_free(n->server);
    n->server = NULL;
}

void tapo_metrics_hold(tapo_metrics *m)
{
    g_rec_mutex_lock(&m->lock);
}

void tapo_metrics_release(tapo_metrics *m)
{
    g_rec_mutex_unlock(&m->lock);
}

void tapo_metrics_episode(tapo_metrics *m, const tapo_episode *e)
{
    g_rec_mutex_lock(&m->lock);
    if ((unsigned)e->scope < TAPO_SCOPE_COUNT && (unsigned)e->cause < TAPO_CAUSE_COUNT)
        m->episodes[e->scope][e->cause]++;
    g_rec_mutex_unlock(&m->lock);
}

void tapo_metrics_set_worker(tapo_metrics *m, unsigned worker, const tapo_metrics_worker *w)
{
    g_rec_mutex_lock(&m->lock);
    if (worker >= m->workers->len)
        g_array_set_size(m->workers, worker + 1);
    g_array_index(m->workers, tapo_metrics_worker, worker) = *w;
    g_rec_mutex_unlock(&m->lock);
}

void tapo_metrics_set_drops(tapo_metrics *m, uint64_t kernel, uint64_t interface)
{
    g_rec_mutex_lock(&m->lock);
    m->live = true;
    m->kernel_drops = kernel;
    m->interface_drops = interface;
    g_rec_mutex_unlock(&m->lock);
}

void tapo_metrics_set_output(tapo_metrics *m, const char *name, const tapo_metrics_output *o)
{
    g_rec_mutex_lock(&m->lock);
    for (unsigned i = 0; i < OUTPUTS; i++)
        if (strcmp(name, output_names[i]) == 0) {
            m->output_used[i] = true;
            m->outputs[i] = *o;
        }
    g_rec_mutex_unlock(&m->lock);
}

void tapo_metrics_set_memory(tapo_metrics *m, uint64_t heap_bytes, uint64_t limit_bytes)
{
    g_rec_mutex_lock(&m->lock);
    m->heap_bytes = heap_bytes;
    m->limit_bytes = limit_bytes;
    g_rec_mutex_unlock(&m->lock);
}

void tapo_metrics_set_running(tapo_metrics *m, bool running)
{
    g_rec_mutex_lock(&m->lock);
    m->running = running;
    g_rec_mutex_unlock(&m->lock);
}

/* ---- the text format -------------------------------------------------- */

static void family(GString *out, const char *name, const char *type, const char *help)
{
    g_string_append_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value, escaped as the format wants (backslash, quote, newline). */
static void label_value(GString *out, const char *value)
{
    for (const char *p = value; *p; p++) {
        if (*p == '\\' || *p == '"')
            g_string_append_c(out, '\\');
        if (*p == '\n')
            g_string_append(out, "\\n");
        else
            g_string_append_c(out, *p);
    }
}

/* name{labels} value: labels is NULL-terminated pairs of name and value. */
static void sample_start(GString *out, const char *name, const char *const *labels)
{
    g_string_append(out, name);
    if (labels && labels[0]) {
        g_string_append_c(out, '{');
        for (unsigned i = 0; labels[i]; i += 2) {
            g_string_append_printf(out, "%s%s=\"", i ? "," : "", labels[i]);
            label_value(out, labels[i + 1]);
            g_string_append_c(out, '"');
        }
        g_string_append_c(out, '}');
    }
    g_string_append_c(out, ' ');
}

static void sample_u(GString *out, const char *name, const char *const *labels, uint64_t value)
{
    sample_start(out, name, labels);
    g_string_append_printf(out, "%" G_GUINT64_FORMAT "\n", value);
}

static void sample_d(GString *out, const char *name, const char *const *labels, double value)
{
    char text[G_ASCII_DTOSTR_BUF_SIZE];
    sample_start(out, name, labels);
    g_string_append(out, g_ascii_formatd(text, sizeof text, "%.15g", value));
    g_string_append_c(out, '\n');
}

static const char *cause_name(unsigned c)
{
    return tapo_cause_get((tapo_cause)c)->name;
}

static const char *category_of(unsigned c)
{
    return tapo_category_name(tapo_cause_get((tapo_cause)c)->category);
}

static void render_stalls(GString *out, const tapo_metrics *m)
{
    static const struct { const char *name, *help; } fams[2] = {
        { "tapo_stalls_total", "Stalls, by the cause, category, phase and confidence of their verdict "
                               "(counted when their row is written)." },
        { "tapo_stalled_seconds_total", "The durations of those stalls, seconds." },
    };
    for (int f = 0; f < 2; f++) {
        family(out, fams[f].name, "counter", fams[f].help);
        for (unsigned c = 0; c < TAPO_CAUSE_COUNT; c++)
            for (unsigned p = 0; p < TAPO_PHASE_COUNT; p++)
                for (unsigned k = 0; k < TAPO_CONFIDENCE_COUNT; k++) {
                    const char *labels[] = { "cause", cause_name(c), "category", category_of(c),
                                             "phase", tapo_phase_name((tapo_phase)p),
                                             "confidence", tapo_confidence_name((tapo_confidence)k), NULL };
                    if (f == 0)
                        sample_u(out, fams[f].name, labels, m->stalls[c][p][k]);
                    else
                        sample_d(out, fams[f].name, labels, m->stalled_s[c][p][k]);
                }
    }
    family(out, "tapo_stall_duration_seconds", "histogram", "Stall durations by cause, seconds.");
    for (unsigned c = 0; c < TAPO_CAUSE_COUNT; c++) {
        uint64_t below = 0;
        char le[G_ASCII_DTOSTR_BUF_SIZE];
        for (unsigned b = 0; b <= DURATION_BOUNDS; b++) {
            below += m->duration_in[c][b];
            const char *bound = b < DURATION_BOUNDS ? g_ascii_dtostr(le, sizeof le, duration_bounds_s[b]) : "+Inf";
            const char *labels[] = { "cause", cause_name(c), "category", category_of(c), "le", bound, NULL };
            sample_u(out, "tapo_stall_duration_seconds_bucket", labels, below);
        }
        const char *labels[] = { "cause", cause_name(c), "category", category_of(c), NULL };
        sample_d(out, "tapo_stall_duration_seconds_sum", labels, m->duration_sum_s[c]);
        sample_u(out, "tapo_stall_duration_seconds_count", labels, below);
    }
}

static void render_servers(GString *out, const tapo_metrics *m, tapo_busiest_series *series, unsigned n)
{
    family(out, "tapo_server_stalls_total", "counter",
           "Stalls of the busiest server endpoints by stalled time (--metrics-servers), the rest as \"other\".");
    for (unsigned i = 0; i < n; i++) {
        const char *labels[] = { "server", series[i].server, NULL };
        sample_u(out, "tapo_server_stalls_total", labels, series[i].stalls);
    }
    family(out, "tapo_server_stalled_seconds_total", "counter",
           "The durations of those stalls, seconds.");
    for (unsigned i = 0; i < n; i++) {
        const char *labels[] = { "server", series[i].server, NULL };
        sample_d(out, "tapo_server_stalled_seconds_total", labels, series[i].stalled_s);
    }
    family(out, "tapo_episodes_total", "counter",
           "Episodes (stalls of several connections at once: one incident), by scope and dominant cause.");
    for (unsigned s = 0; s < TAPO_SCOPE_COUNT; s++)
        for (unsigned c = 0; c < TAPO_CAUSE_COUNT; c++) {
            const char *labels[] = { "scope", tapo_episode_scope_name((tapo_episode_scope)s),
                                     "cause", cause_name(c), "category", category_of(c), NULL };
            sample_u(out, "tapo_episodes_total", labels, m->episodes[s][c]);
        }
}

/* The workers' counts, added up. */
static void render_workers(GString *out, const tapo_metrics *m)
{
    tapo_metrics_worker sum = { 0 };
    for (guint i = 0; i < m->workers->len; i++) {
        const tapo_metrics_worker *w = &g_array_index(m->workers, tapo_metrics_worker, i);
        sum.packets += w->packets;
        sum.tcp_packets += w->tcp_packets;
        sum.undecodable += w->undecodable;
        sum.connections += w->connections;
        sum.open += w->open;
        sum.evicted += w->evicted;
        sum.idle_ended += w->idle_ended;
        sum.settling += w->settling;
    }
    static const struct { const char *name, *type, *help; } fams[] = {
        { "tapo_packets_total", "counter", "Frames read from the interface or the captures." },
        { "tapo_tcp_packets_total", "counter", "TCP segments analysed." },
        { "tapo_undecodable_packets_total", "counter",
          "Frames skipped: headers cut by the snaplen, malformed, or an unknown link type." },
        { "tapo_connections_total", "counter", "TCP connections analysed (started)." },
        { "tapo_connections_open", "gauge", "Connections held now." },
        { "tapo_connections_evicted_total", "counter",
          "Connections ended early to keep memory under --memory-limit, the quietest first." },
        { "tapo_connections_idle_total", "counter", "Open connections ended by --idle-timeout." },
        { "tapo_stalls_settling", "gauge", "Stalls found whose row waits for its --settle time." },
    };
    const uint64_t values[] = { sum.packets, sum.tcp_packets, sum.undecodable, sum.connections, sum.open,
                                sum.evicted, sum.idle_ended, sum.settling };
    for (unsigned i = 0; i < G_N_ELEMENTS(fams); i++) {
        family(out, fams[i].name, fams[i].type, fams[i].help);
        sample_u(out, fams[i].name, NULL, values[i]);
    }
}

/* Rows written, lost and files completed, by output. */
static void render_outputs(GString *out, const tapo_metrics *m)
{
    static const struct { const char *name, *help; } outs[] = {
        { "tapo_output_rows_total", "Rows written, by output." },
        { "tapo_output_rows_lost_total", "Rows that could not be written (a full disk), by output." },
        { "tapo_output_files_total", "Output files completed (rotated), by output." },
    };
    for (unsigned f = 0; f < G_N_ELEMENTS(outs); f++) {
        family(out, outs[f].name, "counter", outs[f].help);
        for (unsigned i = 0; i < OUTPUTS; i++) {
            if (!m->output_used[i])
                continue;
            const char *labels[] = { "output", output_names[i], NULL };
            const tapo_metrics_output *o = &m->outputs[i];
            sample_u(out, outs[f].name, labels, f == 0 ? o->rows : f == 1 ? o->rows_lost : o->files);
        }
    }
}

static void render_run(GString *out, const tapo_metrics *m)
{
    render_workers(out, m);
    if (m->live) {
        family(out, "tapo_kernel_dropped_packets_total", "counter",
               "Packets the kernel dropped before tapo read them (its buffer was full; libpcap ps_drop).");
        sample_u(out, "tapo_kernel_dropped_packets_total", NULL, m->kernel_drops);
        family(out, "tapo_interface_dropped_packets_total", "counter",
               "Packets the interface or its driver dropped (libpcap ps_ifdrop).");
        sample_u(out, "tapo_interface_dropped_packets_total", NULL, m->interface_drops);
    }
    render_outputs(out, m);
    family(out, "tapo_memory_heap_bytes", "gauge", "Heap memory in use, bytes.");
    sample_u(out, "tapo_memory_heap_bytes", NULL, m->heap_bytes);
    family(out, "tapo_memory_limit_bytes", "gauge", "The memory cap (--memory-limit), bytes; 0: none.");
    sample_u(out, "tapo_memory_limit_bytes", NULL, m->limit_bytes);
    family(out, "tapo_capture_running", "gauge", "1 while the inputs are read, 0 once they ended.");
    sample_u(out, "tapo_capture_running", NULL, m->running);
}

GString *tapo_metrics_render(tapo_metrics *m)
{
    GString *out = g_string_sized_new(65536);
    g_rec_mutex_lock(&m->lock);
    family(out, "tapo_build_info", "gauge", "The tapo build: its version and the Wireshark it was built against.");
    const char *build[] = { "version", TAPO_VERSION, "wireshark", TAPO_WIRESHARK_VERSION, NULL };
    sample_u(out, "tapo_build_info", build, 1);
    render_stalls(out, m);
    tapo_busiest_series *series = g_new(tapo_busiest_series, tapo_busiest_series_max(m->servers));
    unsigned n = tapo_busiest_series_now(m->servers, series);
    render_servers(out, m, series, n);
    g_free(series);
    render_run(out, m);
    g_rec_mutex_unlock(&m->lock);
    family(out, "process_resident_memory_bytes", "gauge", "Resident memory size, bytes.");
    sample_u(out, "process_resident_memory_bytes", NULL, tapo_memory_resident());
    family(out, "process_start_time_seconds", "gauge", "When tapo started, seconds since the epoch.");
    sample_d(out, "process_start_time_seconds", NULL, m->start_time_s);
    return out;
}
