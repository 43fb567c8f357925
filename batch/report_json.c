/* report_json.c: the report as JSON, and partial results read back
 * (report.h): each part written and read from one table of its members.
 * The JSON is written straight as text (json_text.h), in json-glib's own
 * format, and read back with json-glib.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "report.h"

#include <stddef.h>
#include <string.h>

#include <json-glib/json-glib.h>

/* The partial result format: 2 keys stalled time by cause by name ("1.7
 * undetermined", the rule and the cause: two causes share a name); 3 adds
 * the exact stalled times and savings; 4 has ack-delay as rule 1.0 (issue
 * 25).  A file from an older tapo merges right or is refused with a
 * reason. */
#define PARTIAL_VERSION 4

/* The report's counts, by their names in the JSON. */
static const struct {
    const char *name;
    size_t offset;                    /* of its uint64_t in tapo_report, bytes */
} counts[] = {
    { "files", offsetof(tapo_report, files) },
    { "packets", offsetof(tapo_report, packets) },
    { "tcp_packets", offsetof(tapo_report, tcp_packets) },
    { "undecodable", offsetof(tapo_report, undecodable) },
    { "conversations", offsetof(tapo_report, conversations) },
    { "stalled_conversations", offsetof(tapo_report, stalled_conversations) },
    { "idle_flushed", offsetof(tapo_report, idle_flushed) },
};

static uint64_t *count_in(tapo_report *r, unsigned i)
{
    return (uint64_t *)(void *)((char *)r + counts[i].offset);
}

/* ---- writing ------------------------------------------------------------ */

static void add_int(tapo_json_text *w, const char *name, int64_t v)
{
    tapo_json_member(w, name);
    tapo_json_int(w, v);
}

static void add_double(tapo_json_text *w, const char *name, double v)
{
    tapo_json_member(w, name);
    tapo_json_double(w, v);
}

static void add_string(tapo_json_text *w, const char *name, const char *v)
{
    tapo_json_member(w, name);
    tapo_json_string(w, v);
}

static void node_to_json(tapo_json_text *w, const tapo_report_node *n)
{
    tapo_json_begin_object(w);
    add_string(w, "name", n->name);
    add_int(w, "total", n->total);
    tapo_json_member(w, "children");
    tapo_json_begin_array(w);
    GPtrArray *sorted = tapo_report_node_sorted(n);
    for (guint i = 0; i < sorted->len; i++)
        node_to_json(w, sorted->pdata[i]);
    g_ptr_array_free(sorted, TRUE);
    tapo_json_end_array(w);
    tapo_json_end_object(w);
}

/* A cause's key in partial results: its rule and name, "1.7 undetermined". */
static char *cause_key(tapo_cause c)
{
    const tapo_cause_info *info = tapo_cause_get(c);
    return g_strdup_printf("%s %s", info->rule, info->name);
}

/* The cause whose key is key; false: none. */
static bool cause_of_key(const char *key, tapo_cause *cause)
{
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++) {
        char *k = cause_key((tapo_cause)c);
        bool same = strcmp(k, key) == 0;
        g_free(k);
        if (same) {
            *cause = (tapo_cause)c;
            return true;
        }
    }
    return false;
}

/* Stalled time by cause, keyed by cause_key: seconds (a flow's), or whole
 * nanoseconds (the report's); causes without any left out. */
static void by_cause_to_json(tapo_json_text *w, const char *name, const double *seconds, const int64_t *ns)
{
    tapo_json_member(w, name);
    tapo_json_begin_object(w);
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++) {
        if (seconds ? seconds[c] == 0.0 : ns[c] == 0)
            continue;
        char *key = cause_key((tapo_cause)c);
        if (seconds)
            add_double(w, key, seconds[c]);
        else
            add_int(w, key, ns[c]);
        g_free(key);
    }
    tapo_json_end_object(w);
}

static void flow_row_write(tapo_json_text *w, const tapo_flow_row *f)
{
    tapo_json_begin_object(w);
    for (int id = 0; id < TAPO_FLOW_COLUMNS; id++) {
        const tapo_flow_column *col = &tapo_flow_columns[id];
        tapo_flow_value v = tapo_flow_get(f, (tapo_flow_column_id)id);
        if (col->kind == TAPO_FLOW_TEXT)
            add_string(w, col->name, v.text);
        else if (col->kind == TAPO_FLOW_COUNT)
            add_int(w, col->name, (int64_t)v.count);
        else
            add_double(w, col->name, v.number);
    }
    by_cause_to_json(w, "stalled_time_by_cause_s", f->stalled_by_cause_s, NULL);
    tapo_json_end_object(w);
}

static void episode_to_json(tapo_json_text *w, const tapo_report_episode *re)
{
    const tapo_episode *e = &re->e;
    tapo_json_begin_object(w);
    add_int(w, "episode", e->id);
    add_string(w, "file", re->file);
    add_string(w, "scope", e->scope_text);
    add_string(w, "scope_kind", tapo_episode_scope_name(e->scope));
    add_int(w, "connections", e->connections);
    add_int(w, "stalls", e->stalls);
    add_double(w, "start_s", e->start_s);
    add_double(w, "duration_s", e->end_s - e->start_s);
    char *cause = cause_key(e->cause);
    add_string(w, "cause", cause);
    g_free(cause);
    tapo_json_end_object(w);
}

/* The stalled time and the savings in exact nanoseconds, the duration
 * bins. */
static void times_to_json(tapo_json_text *w, const tapo_report *r)
{
    add_int(w, "stalled_time_ns", r->stalled_ns);
    by_cause_to_json(w, "stalled_time_by_cause_ns", NULL, r->stalled_by_cause_ns);
    tapo_json_member(w, "whatif_saving_ns");
    tapo_json_begin_object(w);
    for (int m = TAPO_MITIGATION_NONE + 1; m < TAPO_MITIGATION_COUNT; m++)
        if (r->saving_by_mitigation_ns[m] > 0)
            add_int(w, tapo_mitigation_name((tapo_mitigation)m), r->saving_by_mitigation_ns[m]);
    tapo_json_end_object(w);
    tapo_json_member(w, "duration_buckets_ms");
    tapo_json_begin_object(w);
    for (int i = 0; i < TAPO_DURATION_BUCKETS; i++)
        add_int(w, tapo_duration_bucket_names[i], (int64_t)r->duration_buckets[i]);
    tapo_json_end_object(w);
}

/* The sketches, and the stall ratio's quantiles read from them. */
static void distributions_to_json(tapo_json_text *w, const tapo_report *r)
{
    tapo_json_member(w, "durations");
    tapo_sketch_write_json(&r->durations, w);
    tapo_json_member(w, "flow_ratios");
    tapo_sketch_write_json(&r->flow_ratios, w);
    tapo_json_member(w, "stall_ratio_quantiles");
    tapo_json_begin_object(w);
    for (unsigned i = 0; i < TAPO_FLOW_QUANTILE_COUNT; i++) {
        char name[16];
        g_snprintf(name, sizeof name, "p%u", tapo_flow_ratio_quantiles[i]);
        add_double(w, name, tapo_sketch_quantile(&r->flow_ratios, tapo_flow_ratio_quantiles[i] / 100.0));
    }
    tapo_json_end_object(w);
}

static void lists_to_json(tapo_json_text *w, const tapo_report *r)
{
    tapo_json_member(w, "worst_flows");
    tapo_json_begin_array(w);
    for (guint i = 0; i < r->worst->len; i++)
        flow_row_write(w, r->worst->pdata[i]);
    tapo_json_end_array(w);
    tapo_json_member(w, "episodes");
    tapo_json_begin_array(w);
    for (guint i = 0; i < r->episodes->len; i++)
        episode_to_json(w, &g_array_index(r->episodes, tapo_report_episode, i));
    tapo_json_end_array(w);
}

JsonNode *tapo_flow_row_to_node(const tapo_flow_row *f)
{
    GString *text = g_string_new("");
    tapo_json_text writer;
    tapo_json_text_init(&writer, text, false);
    flow_row_write(&writer, f);
    JsonNode *node = json_from_string(text->str, NULL);
    g_string_free(text, TRUE);
    return node;
}

char *tapo_report_to_json(const tapo_report *r, bool pretty)
{
    GString *text = g_string_sized_new(4096);
    tapo_json_text writer;
    tapo_json_text_init(&writer, text, pretty);
    tapo_json_text *w = &writer;
    tapo_json_begin_object(w);
    add_int(w, "tapo_partial", PARTIAL_VERSION);
    for (unsigned i = 0; i < G_N_ELEMENTS(counts); i++)
        add_int(w, counts[i].name, (int64_t)*count_in((tapo_report *)r, i));
    tapo_json_member(w, "breakdown");
    node_to_json(w, r->tree);
    times_to_json(w, r);
    distributions_to_json(w, r);
    lists_to_json(w, r);
    tapo_json_end_object(w);
    return g_string_free(text, FALSE);
}

void tapo_report_print_json(const tapo_report *r, FILE *out)
{
    char *text = tapo_report_to_json(r, true);
    fprintf(out, "%s\n", text);
    g_free(text);
}

/* ---- reading ------------------------------------------------------------ */

static bool node_from_json(tapo_report_node *n, JsonObject *o)
{
    JsonArray *children = json_object_get_array_member(o, "children");
    if (!children)
        return false;
    n->total = json_object_get_int_member(o, "total");
    for (guint i = 0; i < json_array_get_length(children); i++) {
        JsonObject *c = json_array_get_object_element(children, i);
        const char *name = c ? json_object_get_string_member(c, "name") : NULL;
        if (!name || !node_from_json(tapo_report_node_child(n, name), c))
            return false;
    }
    return true;
}

/* An object member of o; NULL when there is none. */
static JsonObject *object_member(JsonObject *o, const char *name)
{
    JsonNode *node = json_object_get_member(o, name);
    return node && JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
}

static tapo_flow_row *flow_from_json(JsonObject *o)
{
    tapo_flow_row *f = g_new0(tapo_flow_row, 1);
    for (int id = 0; id < TAPO_FLOW_COLUMNS; id++) {
        const tapo_flow_column *col = &tapo_flow_columns[id];
        tapo_flow_value v = { NULL, 0, 0.0 };
        if (col->storage == TAPO_FLOW_DERIVED)
            continue;
        if (col->kind == TAPO_FLOW_TEXT)
            v.text = json_object_get_string_member_with_default(o, col->name, NULL);
        else if (col->kind == TAPO_FLOW_COUNT)
            v.count = (uint64_t)json_object_get_int_member_with_default(o, col->name, 0);
        else
            v.number = json_object_get_double_member_with_default(o, col->name, 0.0);
        tapo_flow_set(f, (tapo_flow_column_id)id, &v);
    }
    JsonObject *by_cause = object_member(o, "stalled_time_by_cause_s");
    for (int c = 0; by_cause && c < TAPO_CAUSE_COUNT; c++) {
        char *key = cause_key((tapo_cause)c);
        f->stalled_by_cause_s[c] = json_object_get_double_member_with_default(by_cause, key, 0.0);
        g_free(key);
    }
    if (!f->file)
        f->file = g_strdup("");
    return f;
}

static void episode_from_json(tapo_report *r, JsonObject *o)
{
    tapo_episode e = { 0 };
    const char *scope = json_object_get_string_member_with_default(o, "scope", "capture");
    const char *kind = json_object_get_string_member_with_default(o, "scope_kind", "capture");
    g_strlcpy(e.scope_text, scope, sizeof e.scope_text);
    for (int k = 0; k < TAPO_SCOPE_COUNT; k++)
        if (strcmp(kind, tapo_episode_scope_name((tapo_episode_scope)k)) == 0)
            e.scope = (tapo_episode_scope)k;
    e.connections = (uint32_t)json_object_get_int_member_with_default(o, "connections", 0);
    e.stalls = (uint32_t)json_object_get_int_member_with_default(o, "stalls", 0);
    e.start_s = json_object_get_double_member_with_default(o, "start_s", 0.0);
    e.end_s = e.start_s + json_object_get_double_member_with_default(o, "duration_s", 0.0);
    cause_of_key(json_object_get_string_member_with_default(o, "cause", ""), &e.cause);
    tapo_report_add_episode(r, &e, json_object_get_string_member_with_default(o, "file", ""));
}

static void times_from_json(tapo_report *r, JsonObject *o)
{
    r->stalled_ns = json_object_get_int_member_with_default(o, "stalled_time_ns", 0);
    JsonObject *by_cause = object_member(o, "stalled_time_by_cause_ns");
    for (int c = 0; by_cause && c < TAPO_CAUSE_COUNT; c++) {
        char *key = cause_key((tapo_cause)c);
        r->stalled_by_cause_ns[c] = json_object_get_int_member_with_default(by_cause, key, 0);
        g_free(key);
    }
    JsonObject *savings = object_member(o, "whatif_saving_ns");
    for (int m = TAPO_MITIGATION_NONE + 1; savings && m < TAPO_MITIGATION_COUNT; m++)
        r->saving_by_mitigation_ns[m] =
            json_object_get_int_member_with_default(savings, tapo_mitigation_name((tapo_mitigation)m), 0);
}

/* The breakdown, the bins, the sketches and the lists: false when one of
 * those every partial result has is missing or broken. */
static bool parts_from_json(tapo_report *r, JsonObject *o)
{
    JsonObject *tree = object_member(o, "breakdown");
    JsonObject *buckets = object_member(o, "duration_buckets_ms");
    JsonNode *worst_node = json_object_get_member(o, "worst_flows");
    JsonArray *worst = worst_node && JSON_NODE_HOLDS_ARRAY(worst_node) ? json_node_get_array(worst_node) : NULL;
    if (!tree || !buckets || !worst || !node_from_json(r->tree, tree))
        return false;
    for (int i = 0; i < TAPO_DURATION_BUCKETS; i++)
        r->duration_buckets[i] =
            (uint64_t)json_object_get_int_member_with_default(buckets, tapo_duration_bucket_names[i], 0);
    if (!tapo_sketch_from_json(&r->durations, json_object_get_member(o, "durations")) ||
        !tapo_sketch_from_json(&r->flow_ratios, json_object_get_member(o, "flow_ratios")))
        return false;
    for (guint i = 0; i < json_array_get_length(worst); i++) {
        JsonObject *f = json_array_get_object_element(worst, i);
        if (f)
            tapo_report_keep_worst(r, flow_from_json(f));
    }
    JsonNode *eps_node = json_object_get_member(o, "episodes");
    JsonArray *eps = eps_node && JSON_NODE_HOLDS_ARRAY(eps_node) ? json_node_get_array(eps_node) : NULL;
    for (guint i = 0; eps && i < json_array_get_length(eps); i++) {
        JsonObject *e = json_array_get_object_element(eps, i);
        if (e)
            episode_from_json(r, e);
    }
    return true;
}

/* The root object of a partial result of this format; NULL, with a reason
 * when it is of another format, otherwise. */
static JsonObject *partial_root(JsonParser *parser, const char *json, GError **error)
{
    if (!json_parser_load_from_data(parser, json, -1, error))
        return NULL;
    JsonNode *root = json_parser_get_root(parser);
    JsonObject *o = root && JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
    gint64 version = o ? json_object_get_int_member_with_default(o, "tapo_partial", 0) : 0;
    if (version == PARTIAL_VERSION)
        return o;
    if (version > 0)
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "a partial result of format %" G_GINT64_FORMAT ", this tapo reads format %d: make it again "
                    "with this tapo", version, PARTIAL_VERSION);
    return NULL;
}

bool tapo_report_from_json(tapo_report *r, const char *json, GError **error)
{
    JsonParser *parser = json_parser_new();
    JsonObject *o = partial_root(parser, json, error);
    tapo_report_init(r);
    bool ok = o != NULL;
    if (ok) {
        for (unsigned i = 0; i < G_N_ELEMENTS(counts); i++)
            *count_in(r, i) = (uint64_t)json_object_get_int_member_with_default(o, counts[i].name, 0);
        times_from_json(r, o);
        ok = parts_from_json(r, o);
    }
    if (!ok && error && !*error)
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "not a TAPO partial result");
    g_object_unref(parser);
    return ok;
}
