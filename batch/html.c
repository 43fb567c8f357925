/* html.c: see html.h.
 *
 * The page is a template (html_page.html, built into tapo as html_page.h)
 * with two scripts inlined where it says <!--TAPO-SCRIPTS-->: Chart.js
 * (html_chart_js.h, or --chart-js) and the data, as JSON.  The template's own script lays the data out; it
 * marks the body data-ready="1" when every chart is drawn, and catches any
 * error into data-errors, so that a browser test can read both back.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "html.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "html_chart_js.h"
#include "html_page.h"
#include "base/vocabulary.h"

#define SCRIPTS_MARKER "<!--TAPO-SCRIPTS-->"

void tapo_html_stalls_init(tapo_html_stalls *h)
{
    h->stalls = g_array_new(FALSE, FALSE, sizeof(tapo_html_stall));
    h->texts = g_string_chunk_new(4096);
}

void tapo_html_stalls_free(tapo_html_stalls *h)
{
    if (h->stalls)
        g_array_free(h->stalls, TRUE);
    if (h->texts)
        g_string_chunk_free(h->texts);
    memset(h, 0, sizeof *h);
}

void tapo_html_stalls_add(tapo_html_stalls *h, const tapo_html_stall *s)
{
    tapo_html_stall copy = *s;
    /* Labels, decision lines and hints repeat: one copy of each. */
    copy.label = g_string_chunk_insert_const(h->texts, s->label ? s->label : "");
    copy.rule = g_string_chunk_insert_const(h->texts, s->rule ? s->rule : "");
    copy.hint = g_string_chunk_insert_const(h->texts, s->hint ? s->hint : "");
    g_array_append_val(h->stalls, copy);
}

static int longer_first(gconstpointer a, gconstpointer b)
{
    const tapo_html_stall *x = *(const tapo_html_stall *const *)a, *y = *(const tapo_html_stall *const *)b;
    double dx = x->end_s - x->start_s, dy = y->end_s - y->start_s;
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return (x->frame > y->frame) - (x->frame < y->frame);
}

static int by_frame(gconstpointer a, gconstpointer b)
{
    const tapo_html_stall *x = *(const tapo_html_stall *const *)a, *y = *(const tapo_html_stall *const *)b;
    return (x->frame > y->frame) - (x->frame < y->frame);
}

/* Keeps the limit longest of stalls, in frame order. */
static void keep_longest(GPtrArray *stalls, guint limit)
{
    if (stalls->len > limit) {
        g_ptr_array_sort(stalls, longer_first);
        g_ptr_array_set_size(stalls, limit);
    }
    g_ptr_array_sort(stalls, by_frame);
}

GPtrArray *tapo_html_connection_stalls(const tapo_html_stalls *h, const char *file, uint32_t conn_frame,
                                       guint limit)
{
    GPtrArray *out = g_ptr_array_new();
    for (guint i = 0; i < h->stalls->len; i++) {
        const tapo_html_stall *s = &g_array_index(h->stalls, tapo_html_stall, i);
        if (s->conn_frame == conn_frame && strcmp(s->file, file) == 0)
            g_ptr_array_add(out, (gpointer)s);
    }
    keep_longest(out, limit);
    return out;
}

static void add_string(JsonBuilder *b, const char *name, const char *v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_string_value(b, v ? v : "");
}

static void add_int(JsonBuilder *b, const char *name, int64_t v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_int_value(b, v);
}

static void add_double(JsonBuilder *b, const char *name, double v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_double_value(b, isfinite(v) ? round(v * 1e6) / 1e6 : 0.0);
}

/* The timeline's origins: the earliest stall start of each capture, or of
 * the whole set when its captures share one clock (seconds since 1970). */
typedef struct origins {
    GHashTable *by_file;              /* file name -> double * */
    double all;
    bool one_clock;
    bool several_files;
} origins;

static void origins_init(origins *o, const GArray *stalls, bool one_clock)
{
    o->by_file = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
    o->all = 0.0;
    o->one_clock = one_clock;
    o->several_files = false;
    for (guint i = 0; i < stalls->len; i++) {
        const tapo_html_stall *s = &g_array_index(stalls, tapo_html_stall, i);
        double *t0 = g_hash_table_lookup(o->by_file, s->file);
        if (!t0) {
            t0 = g_new(double, 1);
            *t0 = s->start_s;
            g_hash_table_insert(o->by_file, (gpointer)s->file, t0);
        }
        *t0 = MIN(*t0, s->start_s);
        o->all = i == 0 ? s->start_s : MIN(o->all, s->start_s);
    }
    o->several_files = g_hash_table_size(o->by_file) > 1;
}

static double origin_of(const origins *o, const char *file)
{
    const double *t0 = o->one_clock ? NULL : g_hash_table_lookup(o->by_file, file);
    return t0 ? *t0 : o->all;
}

static void stall_to_json(JsonBuilder *b, const tapo_html_stall *s, double t0, bool details)
{
    json_builder_begin_object(b);
    add_int(b, "frame", s->frame);
    add_double(b, "start", s->start_s - t0);
    add_double(b, "end", s->end_s - t0);
    add_string(b, "cause", tapo_cause_get(s->cause)->name);
    add_string(b, "category", tapo_category_name(tapo_cause_get(s->cause)->category));
    add_int(b, "episode", s->episode);
    if (details) {
        add_string(b, "phase", tapo_phase_name(s->phase));
        add_string(b, "confidence", tapo_confidence_name(s->confidence));
        add_double(b, "saving", s->saving_s);
        add_string(b, "rule", s->rule);
        add_string(b, "hint", s->hint);
        json_builder_set_member_name(b, "retransmission");
        json_builder_add_boolean_value(b, s->retransmission);
        static const char *const evidence[] = { "orig_frame", "prev_retrans_frame", "loss_signal_frame",
                                                "dsack_frame" };
        for (unsigned k = 0; k < G_N_ELEMENTS(evidence); k++)
            if (s->evidence[k])
                add_int(b, evidence[k], s->evidence[k]);
    }
    json_builder_end_object(b);
}

typedef struct conn_row {
    const char *file;
    uint32_t conn_frame;
    const char *label;
    double stalled_s;
    double stalled_by_cause_s[TAPO_CAUSE_COUNT];
    GPtrArray *stalls;                /* const tapo_html_stall * */
} conn_row;

/* The flow report's order (tapo_rank): most to act on first. */
static int more_to_act_on_first(gconstpointer a, gconstpointer b)
{
    const conn_row *x = *(conn_row *const *)a, *y = *(conn_row *const *)b;
    tapo_rank rx = tapo_rank_of(x->stalled_by_cause_s), ry = tapo_rank_of(y->stalled_by_cause_s);
    int by_rank = tapo_rank_compare(&rx, &ry);
    if (by_rank)
        return by_rank;
    int file = strcmp(x->file, y->file);
    return file ? file : (x->conn_frame > y->conn_frame) - (x->conn_frame < y->conn_frame);
}

static void conn_row_free(conn_row *r)
{
    g_ptr_array_free(r->stalls, TRUE);
    g_free(r);
}

/* The stalls by connection, keyed by the connection's first frame and
 * its capture's name. */
static GHashTable *rows_by_connection(const GArray *stalls)
{
    GHashTable *rows = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)conn_row_free);
    for (guint i = 0; i < stalls->len; i++) {
        const tapo_html_stall *s = &g_array_index(stalls, tapo_html_stall, i);
        char *key = g_strdup_printf("%u %s", s->conn_frame, s->file);
        conn_row *r = g_hash_table_lookup(rows, key);
        if (!r) {
            r = g_new0(conn_row, 1);
            r->file = s->file;
            r->conn_frame = s->conn_frame;
            r->label = s->label;
            r->stalls = g_ptr_array_new();
            g_hash_table_insert(rows, key, r);
        } else {
            g_free(key);
        }
        r->stalled_s += s->duration_s;
        r->stalled_by_cause_s[s->cause] += s->duration_s;
        g_ptr_array_add(r->stalls, (gpointer)s);
    }
    return rows;
}

/* Episodes shaded behind the rows, on the same origins. */
static void timeline_episodes_to_json(JsonBuilder *b, const tapo_report *report, const origins *origin)
{
    json_builder_set_member_name(b, "episodes");
    json_builder_begin_array(b);
    for (guint i = 0; i < report->episodes->len; i++) {
        const tapo_report_episode *re = &g_array_index(report->episodes, tapo_report_episode, i);
        double t0 = origin_of(origin, re->file);
        json_builder_begin_object(b);
        add_int(b, "episode", re->e.id);
        add_string(b, "file", re->file);
        add_double(b, "start", re->e.start_s - t0);
        add_double(b, "end", re->e.end_s - t0);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

/* One connection's row: its longest stalls drawn. */
static void timeline_row_to_json(JsonBuilder *b, conn_row *r, const origins *origin)
{
    guint all = r->stalls->len;
    keep_longest(r->stalls, TAPO_HTML_ROW_STALLS);
    json_builder_begin_object(b);
    add_int(b, "stalls_left_out", all - r->stalls->len);
    if (origin->several_files) {
        char *base = g_path_get_basename(r->file);
        char *label = g_strdup_printf("%s %s", base, r->label);
        add_string(b, "label", label);
        g_free(label);
        g_free(base);
    } else {
        add_string(b, "label", r->label);
    }
    add_string(b, "file", r->file);
    add_int(b, "first_frame", r->conn_frame);
    add_double(b, "stalled_s", r->stalled_s);
    add_double(b, "idle_s", r->stalled_by_cause_s[TAPO_CAUSE_CLIENT_IDLE]);
    json_builder_set_member_name(b, "stalls");
    json_builder_begin_array(b);
    for (guint k = 0; k < r->stalls->len; k++)
        stall_to_json(b, r->stalls->pdata[k], origin_of(origin, r->file), false);
    json_builder_end_array(b);
    json_builder_end_object(b);
}

/* Every stalled connection a row, in the flow report's order; the first
 * TAPO_HTML_TIMELINE_CONNECTIONS drawn. */
static void timeline_to_json(JsonBuilder *b, const GArray *stalls, const tapo_report *report,
                             const origins *origin)
{
    GHashTable *rows = rows_by_connection(stalls);
    GPtrArray *sorted = g_ptr_array_new();
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, rows);
    while (g_hash_table_iter_next(&it, NULL, &value))
        g_ptr_array_add(sorted, value);
    g_ptr_array_sort(sorted, more_to_act_on_first);
    json_builder_set_member_name(b, "timeline");
    json_builder_begin_object(b);
    add_int(b, "connections", sorted->len);
    json_builder_set_member_name(b, "per_capture");
    json_builder_add_boolean_value(b, origin->several_files && !origin->one_clock);
    timeline_episodes_to_json(b, report, origin);
    json_builder_set_member_name(b, "rows");
    json_builder_begin_array(b);
    for (guint i = 0; i < sorted->len && i < TAPO_HTML_TIMELINE_CONNECTIONS; i++)
        timeline_row_to_json(b, sorted->pdata[i], origin);
    json_builder_end_array(b);
    json_builder_end_object(b);
    g_ptr_array_free(sorted, TRUE);
    g_hash_table_destroy(rows);
}

/* The worst connections packet by packet, with their stalls in detail. */
static void worst_to_json(JsonBuilder *b, const tapo_html_set *set)
{
    json_builder_set_member_name(b, "worst");
    json_builder_begin_array(b);
    for (guint w = 0; w < set->report->worst->len && w < TAPO_HTML_WORST; w++) {
        const tapo_flow_row *f = set->report->worst->pdata[w];
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "flow");
        json_builder_add_value(b, tapo_flow_row_to_node(f));
        GPtrArray *listed = tapo_html_connection_stalls(set->stalls, f->file, f->first_frame, TAPO_HTML_VERDICTS);
        add_int(b, "stalls_left_out", (int64_t)f->stalls - (int64_t)listed->len);
        json_builder_set_member_name(b, "stalls");
        json_builder_begin_array(b);
        for (guint i = 0; i < listed->len; i++)
            stall_to_json(b, listed->pdata[i], f->start_s, true);
        json_builder_end_array(b);
        g_ptr_array_free(listed, TRUE);
        json_builder_set_member_name(b, "points");
        json_builder_begin_array(b);
        const GArray *pts = set->worst_points && w < set->worst_points->len ? set->worst_points->pdata[w] : NULL;
        for (guint i = 0; pts && i < pts->len; i++) {
            const tapo_html_point *p = &g_array_index(pts, tapo_html_point, i);
            json_builder_begin_array(b);
            json_builder_add_double_value(b, round(p->t_s * 1e6) / 1e6);
            json_builder_add_double_value(b, p->seq);
            json_builder_add_int_value(b, p->kind);
            json_builder_add_int_value(b, p->frame);
            json_builder_end_array(b);
        }
        json_builder_end_array(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

/* The run's report as the page needs it: the partial-results JSON without
 * the sketches (up to a million exact values), the stall ratio's
 * percentiles instead, and the first TAPO_HTML_EPISODES episodes. */
static JsonNode *report_json(const tapo_report *r, GError **error)
{
    char *text = tapo_report_to_json(r, false);
    JsonNode *node = json_from_string(text, error);
    g_free(text);
    if (!node)
        return NULL;
    JsonObject *o = json_node_get_object(node);
    json_object_remove_member(o, "flow_ratios");
    json_object_remove_member(o, "durations");
    JsonArray *percentiles = json_array_new();
    for (int p = 0; p <= 100 && r->flow_ratios.count > 0; p++)
        json_array_add_double_element(percentiles, tapo_sketch_quantile(&r->flow_ratios, p / 100.0));
    json_object_set_array_member(o, "ratio_percentiles", percentiles);
    json_object_set_int_member(o, "episodes_total", r->episodes->len);
    if (json_object_has_member(o, "episodes")) {
        JsonArray *all = json_object_get_array_member(o, "episodes");
        JsonArray *listed = json_array_new();
        for (guint i = 0; i < json_array_get_length(all) && i < TAPO_HTML_EPISODES; i++)
            json_array_add_element(listed, json_node_copy(json_array_get_element(all, i)));
        json_object_set_array_member(o, "episodes", listed);
    }
    return node;
}

static bool set_to_json(JsonBuilder *b, const tapo_html_set *set, GError **error)
{
    json_builder_begin_object(b);
    add_string(b, "title", set->title);
    json_builder_set_member_name(b, "files");
    json_builder_begin_array(b);
    for (char **f = set->files; f && *f; f++)
        json_builder_add_string_value(b, *f);
    json_builder_end_array(b);
    JsonNode *report = report_json(set->report, error);
    if (!report)
        return false;
    json_builder_set_member_name(b, "report");
    json_builder_add_value(b, report);
    const GArray *stalls = set->stalls->stalls;
    origins origin;
    origins_init(&origin, stalls, set->one_clock);
    add_int(b, "stalls", stalls->len);
    add_double(b, "t0", origin.all);
    timeline_to_json(b, stalls, set->report, &origin);
    g_hash_table_destroy(origin.by_file);
    worst_to_json(b, set);
    json_builder_end_object(b);
    return true;
}

/* The page around the scripts: before and after the marker. */
static bool page_halves(GString *head, GString *tail, GError **error)
{
    const char *page = (const char *)tapo_html_template;
    const char *marker = strstr(page, SCRIPTS_MARKER);
    if (!marker) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "the report's page has no %s", SCRIPTS_MARKER);
        return false;
    }
    g_string_append_len(head, page, marker - page);
    g_string_append(tail, marker + strlen(SCRIPTS_MARKER));
    return true;
}

/* Chart.js: the file given, or the copy built into tapo. */
static char *chart_library(const char *chart_js, GError **error)
{
    char *library = NULL;
    if (chart_js) {
        if (!g_file_get_contents(chart_js, &library, NULL, error))
            return NULL;
        return library;
    }
    if (tapo_chart_js_len == 0) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                    "this tapo was built without Chart.js (libjs-chart.js): give --chart-js FILE");
        return NULL;
    }
    return g_strndup((const char *)tapo_chart_js, tapo_chart_js_len);
}

/* JSON text that is safe inside a script element: "</" would end it. */
static void append_script_safe(GString *page, const char *json)
{
    for (const char *c = json; *c; c++) {
        if (c[0] == '<' && c[1] == '/')
            g_string_append(page, "<\\");
        else
            g_string_append_c(page, *c);
    }
}

static char *data_json(const tapo_html_set *set, const tapo_html_set *after, const char *prefs, GError **error)
{
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    GDateTime *now = g_date_time_new_now_local();
    char *when = g_date_time_format(now, "%Y-%m-%d %H:%M:%S %Z");
    add_string(b, "generated", when);
    g_free(when);
    g_date_time_unref(now);
    add_string(b, "prefs", prefs);
    add_string(b, "version", TAPO_VERSION);
    json_builder_set_member_name(b, "sets");
    json_builder_begin_array(b);
    bool ok = set_to_json(b, set, error) && (!after || set_to_json(b, after, error));
    json_builder_end_array(b);
    json_builder_end_object(b);
    char *data = NULL;
    if (ok) {
        JsonGenerator *gen = json_generator_new();
        JsonNode *root = json_builder_get_root(b);
        json_generator_set_root(gen, root);
        data = json_generator_to_data(gen, NULL);
        json_node_unref(root);
        g_object_unref(gen);
    }
    g_object_unref(b);
    return data;
}

GString *tapo_html_page(const char *chart_js, const tapo_html_set *set, const tapo_html_set *after,
                        const char *prefs, GError **error)
{
    char *library = chart_library(chart_js, error);
    if (!library) {
        g_prefix_error(error, "Chart.js: ");
        return NULL;
    }
    GString *page = g_string_new(""), *tail = g_string_new("");
    char *data = NULL;
    bool ok = page_halves(page, tail, error) && (data = data_json(set, after, prefs, error)) != NULL;
    if (ok) {
        g_string_append(page, "<script>\n");
        g_string_append(page, library);
        g_string_append(page, "\n</script>\n<script>\nconst TAPO = ");
        append_script_safe(page, data);
        g_string_append(page, ";\n</script>");
        g_string_append_len(page, tail->str, (gssize)tail->len);
    }
    g_free(data);
    g_string_free(tail, TRUE);
    g_free(library);
    if (!ok) {
        g_string_free(page, TRUE);
        return NULL;
    }
    return page;
}
