/* report.c: see report.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "report.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

/* The partial result format: 2 keys stalled time by cause by name ("1.7
 * undetermined", the rule and the cause: two causes share a name); 3 adds
 * the exact stalled times and savings; 4 has ack-delay as rule 1.0 (issue
 * 25).  A file from an older tapo merges right or is refused with a
 * reason. */
#define PARTIAL_VERSION 4
/* The Lua companion's quantiles of the stall ratio (lua/tapo_report.lua). */
static const double figure3_quantiles[] = { 0.5, 0.75, 0.9, 0.95, 0.99, 1.0 };

/* ---- flows ----------------------------------------------------------- */

double tapo_flow_ratio(const tapo_flow_row *f)
{
    if (f->duration_s <= 0.0)
        return f->stalled_s > 0.0 ? 1.0 : 0.0;
    double r = f->stalled_s / f->duration_s;
    return r > 1.0 ? 1.0 : r;
}

tapo_cause tapo_flow_dominant(const tapo_flow_row *f)
{
    tapo_cause best = TAPO_CAUSE_COUNT;
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++)
        if (c != TAPO_CAUSE_CLIENT_IDLE && f->stalled_by_cause_s[c] > 0.0 &&
            (best == TAPO_CAUSE_COUNT || f->stalled_by_cause_s[c] > f->stalled_by_cause_s[best]))
            best = (tapo_cause)c;
    if (best == TAPO_CAUSE_COUNT && f->stalled_by_cause_s[TAPO_CAUSE_CLIENT_IDLE] > 0.0)
        best = TAPO_CAUSE_CLIENT_IDLE;
    return best;
}

double tapo_flow_idle_s(const tapo_flow_row *f)
{
    return f->stalled_by_cause_s[TAPO_CAUSE_CLIENT_IDLE];
}

tapo_rank tapo_rank_of(const double stalled_by_cause_s[TAPO_CAUSE_COUNT])
{
    tapo_rank r = { 0.0, 0.0, 0.0 };
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++) {
        tapo_category category = tapo_cause_get((tapo_cause)c)->category;
        if (c == TAPO_CAUSE_CLIENT_IDLE)
            r.idle_s += stalled_by_cause_s[c];
        else if (category == TAPO_CATEGORY_NETWORK || category == TAPO_CATEGORY_SERVER)
            r.act_s += stalled_by_cause_s[c];
        else
            r.other_s += stalled_by_cause_s[c];
    }
    return r;
}

int tapo_rank_compare(const tapo_rank *a, const tapo_rank *b)
{
    if (a->act_s != b->act_s)
        return a->act_s > b->act_s ? -1 : 1;
    if (a->other_s != b->other_s)
        return a->other_s > b->other_s ? -1 : 1;
    if (a->idle_s != b->idle_s)
        return a->idle_s > b->idle_s ? -1 : 1;
    return 0;
}

void tapo_flow_row_free(tapo_flow_row *f)
{
    if (!f)
        return;
    g_free(f->file);
    g_free(f->client);
    g_free(f->server);
    g_free(f->advice);
    g_free(f);
}

static tapo_flow_row *flow_copy(const tapo_flow_row *f)
{
    tapo_flow_row *c = g_memdup2(f, sizeof *f);
    c->file = g_strdup(f->file);
    c->client = g_strdup(f->client);
    c->server = g_strdup(f->server);
    c->advice = g_strdup(f->advice);
    return c;
}

/* Most to act on first (tapo_rank); ties by file and frame, so that any
 * grouping of partial results lists the same flows. */
static int worse_first(gconstpointer a, gconstpointer b)
{
    const tapo_flow_row *x = *(tapo_flow_row *const *)a, *y = *(tapo_flow_row *const *)b;
    tapo_rank rx = tapo_rank_of(x->stalled_by_cause_s), ry = tapo_rank_of(y->stalled_by_cause_s);
    int by_rank = tapo_rank_compare(&rx, &ry);
    if (by_rank)
        return by_rank;
    int by_file = strcmp(x->file, y->file);
    if (by_file)
        return by_file;
    return x->first_frame < y->first_frame ? -1 : x->first_frame > y->first_frame;
}

/* Where f goes in the list of the worst flows (sorted by worse_first):
 * after every flow that lists before it or ties with it, as a stable sort
 * of the list with f appended would put it. */
static guint worst_position(const tapo_report *r, const tapo_flow_row *f)
{
    guint lo = 0, hi = r->worst->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        if (worse_first(&r->worst->pdata[mid], &f) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Keeps the list sorted and at most TAPO_REPORT_WORST_FLOWS long. */
static void keep_worst(tapo_report *r, tapo_flow_row *f)
{
    guint at = worst_position(r, f);
    if (at >= TAPO_REPORT_WORST_FLOWS) {
        tapo_flow_row_free(f);
        return;
    }
    g_ptr_array_insert(r->worst, (gint)at, f);
    if (r->worst->len > TAPO_REPORT_WORST_FLOWS)
        g_ptr_array_set_size(r->worst, TAPO_REPORT_WORST_FLOWS);
}

bool tapo_report_lists(const tapo_report *r, const tapo_flow_row *f)
{
    return f->stalls && worst_position(r, f) < TAPO_REPORT_WORST_FLOWS;
}

/* ---- the breakdown tree ------------------------------------------------ */

static tapo_report_node *node_new(const char *name)
{
    tapo_report_node *n = g_new0(tapo_report_node, 1);
    n->name = g_strdup(name);
    n->children = g_ptr_array_new();
    return n;
}

static void node_free(tapo_report_node *n)
{
    for (guint i = 0; i < n->children->len; i++)
        node_free(n->children->pdata[i]);
    g_ptr_array_free(n->children, TRUE);
    g_free(n->name);
    g_free(n);
}

/* n's child of that name, made when missing.  lasting: name lives as long
 * as the program (the vocabulary's own strings, which stalls name their
 * nodes with): a later call with the same pointer finds it without
 * comparing texts. */
static tapo_report_node *child(tapo_report_node *n, const char *name, bool lasting)
{
    for (guint i = 0; lasting && i < n->children->len; i++) {
        tapo_report_node *c = n->children->pdata[i];
        if (c->named_by == name)
            return c;
    }
    for (guint i = 0; i < n->children->len; i++) {
        tapo_report_node *c = n->children->pdata[i];
        if (strcmp(c->name, name) == 0) {
            if (lasting)
                c->named_by = name;
            return c;
        }
    }
    tapo_report_node *c = node_new(name);
    c->named_by = lasting ? name : NULL;
    g_ptr_array_add(n->children, c);
    return c;
}

static void node_merge(tapo_report_node *into, const tapo_report_node *from)
{
    into->total += from->total;
    for (guint i = 0; i < from->children->len; i++) {
        const tapo_report_node *c = from->children->pdata[i];
        node_merge(child(into, c->name, false), c);
    }
}

/* ---- the report -------------------------------------------------------- */

void tapo_report_init(tapo_report *r)
{
    memset(r, 0, sizeof *r);
    r->tree = node_new("");
    tapo_sketch_init(&r->durations);
    tapo_sketch_init(&r->flow_ratios);
    r->worst = g_ptr_array_new_with_free_func((GDestroyNotify)tapo_flow_row_free);
    r->episodes = g_array_new(FALSE, FALSE, sizeof(tapo_report_episode));
}

void tapo_report_add_episode(tapo_report *r, const tapo_episode *e, const char *file)
{
    tapo_report_episode re = { *e, g_strdup(file) };
    re.e.id = r->episodes->len + 1;
    g_array_append_val(r->episodes, re);
}

void tapo_report_free(tapo_report *r)
{
    node_free(r->tree);
    tapo_sketch_free(&r->durations);
    tapo_sketch_free(&r->flow_ratios);
    g_ptr_array_free(r->worst, TRUE);
    for (guint i = 0; r->episodes && i < r->episodes->len; i++)
        g_free(g_array_index(r->episodes, tapo_report_episode, i).file);
    if (r->episodes)
        g_array_free(r->episodes, TRUE);
    memset(r, 0, sizeof *r);
}

void tapo_report_add_stall(tapo_report *r, const tapo_verdict *v)
{
    tapo_breakdown_path paths[TAPO_BREAKDOWN_PATHS];
    unsigned n = tapo_breakdown(v, paths);
    for (unsigned i = 0; i < n; i++) {
        tapo_report_node *node = r->tree;
        for (unsigned d = 0; d < paths[i].depth; d++) {
            node = child(node, paths[i].node[d], true);
            node->total += paths[i].amount;
        }
    }
    double duration = v->duration_s;
    r->duration_buckets[tapo_duration_bucket(tapo_milliseconds(duration))]++;
    tapo_sketch_add(&r->durations, duration);
    r->stalled_ns += tapo_report_ns(duration);
    r->stalled_by_cause_ns[v->cause] += tapo_report_ns(duration);
    tapo_whatif w;
    if (tapo_whatif_of(v, &w))
        r->saving_by_mitigation_ns[w.mitigation] += tapo_report_ns(w.saving_s);
}

int64_t tapo_report_ns(double seconds)
{
    return isfinite(seconds) && seconds > 0.0 ? llround(seconds * 1e9) : 0;
}

void tapo_report_add_flow(tapo_report *r, tapo_flow_row *f)
{
    r->conversations++;
    if (f->stalls)
        r->stalled_conversations++;
    tapo_sketch_add(&r->flow_ratios, tapo_flow_ratio(f));
    if (f->stalls)
        keep_worst(r, f);
    else
        tapo_flow_row_free(f);
}

void tapo_report_merge(tapo_report *into, const tapo_report *from)
{
    into->files += from->files;
    into->packets += from->packets;
    into->tcp_packets += from->tcp_packets;
    into->undecodable += from->undecodable;
    into->conversations += from->conversations;
    into->stalled_conversations += from->stalled_conversations;
    into->idle_flushed += from->idle_flushed;
    node_merge(into->tree, from->tree);
    into->stalled_ns += from->stalled_ns;
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++)
        into->stalled_by_cause_ns[c] += from->stalled_by_cause_ns[c];
    for (int m = 0; m < TAPO_MITIGATION_COUNT; m++)
        into->saving_by_mitigation_ns[m] += from->saving_by_mitigation_ns[m];
    for (int b = 0; b < TAPO_DURATION_BUCKETS; b++)
        into->duration_buckets[b] += from->duration_buckets[b];
    tapo_sketch_merge(&into->durations, &from->durations);
    tapo_sketch_merge(&into->flow_ratios, &from->flow_ratios);
    for (guint i = 0; i < from->worst->len; i++)
        keep_worst(into, flow_copy(from->worst->pdata[i]));
    for (guint i = 0; i < from->episodes->len; i++) {
        const tapo_report_episode *re = &g_array_index(from->episodes, tapo_report_episode, i);
        tapo_report_add_episode(into, &re->e, re->file);
    }
}

/* ---- JSON -------------------------------------------------------------- */

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

/* Children by total, then name: the same order whatever the merges. */
static int larger_first(gconstpointer a, gconstpointer b)
{
    const tapo_report_node *x = *(tapo_report_node *const *)a, *y = *(tapo_report_node *const *)b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return strcmp(x->name, y->name);
}

static GPtrArray *sorted_children(const tapo_report_node *n)
{
    GPtrArray *sorted = g_ptr_array_new();
    for (guint i = 0; i < n->children->len; i++)
        g_ptr_array_add(sorted, n->children->pdata[i]);
    g_ptr_array_sort(sorted, larger_first);
    return sorted;
}

static void node_to_json(tapo_json_text *w, const tapo_report_node *n)
{
    tapo_json_begin_object(w);
    add_string(w, "name", n->name);
    add_int(w, "total", n->total);
    tapo_json_member(w, "children");
    tapo_json_begin_array(w);
    GPtrArray *sorted = sorted_children(n);
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

static void flow_row_write(tapo_json_text *w, const tapo_flow_row *f)
{
    tapo_json_begin_object(w);
    add_string(w, "file", f->file);
    add_int(w, "first_frame", f->first_frame);
    add_string(w, "client", f->client);
    add_string(w, "server", f->server);
    add_double(w, "start_s", f->start_s);
    add_double(w, "duration_s", f->duration_s);
    add_int(w, "bytes_to_server", (int64_t)f->bytes_to_server);
    add_int(w, "bytes_to_client", (int64_t)f->bytes_to_client);
    add_int(w, "stalls", f->stalls);
    add_double(w, "stalled_time_s", f->stalled_s);
    add_double(w, "stall_ratio", tapo_flow_ratio(f));
    tapo_cause dominant = tapo_flow_dominant(f);
    bool any = dominant != TAPO_CAUSE_COUNT;
    add_string(w, "dominant_cause", any ? tapo_cause_get(dominant)->name : NULL);
    add_double(w, "dominant_cause_time_s", any ? f->stalled_by_cause_s[dominant] : 0.0);
    add_string(w, "advice", any && f->advice ? f->advice : "");
    add_string(w, "vantage", f->vantage);
    add_int(w, "low_confidence_stalls", f->low_confidence);
    add_int(w, "handshake_stalls", f->handshake_stalls);
    add_int(w, "teardown_stalls", f->teardown_stalls);
    add_double(w, "whatif_saving_s", f->saving_s);
    add_double(w, "idle_time_s", tapo_flow_idle_s(f));
    tapo_json_member(w, "stalled_time_by_cause_s");
    tapo_json_begin_object(w);
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++) {
        if (f->stalled_by_cause_s[c] == 0.0)
            continue;
        char *key = cause_key((tapo_cause)c);
        add_double(w, key, f->stalled_by_cause_s[c]);
        g_free(key);
    }
    tapo_json_end_object(w);
    tapo_json_end_object(w);
}

JsonNode *tapo_flow_row_to_node(const tapo_flow_row *f)
{
    GString *text = g_string_new("");
    tapo_json_text w;
    tapo_json_text_init(&w, text, false);
    flow_row_write(&w, f);
    JsonNode *node = json_from_string(text->str, NULL);
    g_string_free(text, TRUE);
    return node;
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
    const char *cause = json_object_get_string_member_with_default(o, "cause", "");
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++) {
        char *key = cause_key((tapo_cause)c);
        if (strcmp(key, cause) == 0)
            e.cause = (tapo_cause)c;
        g_free(key);
    }
    tapo_report_add_episode(r, &e, json_object_get_string_member_with_default(o, "file", ""));
}

/* The report's counts and its breakdown by cause and mitigation. */
static void totals_to_json(tapo_json_text *w, const tapo_report *r)
{
    add_int(w, "tapo_partial", PARTIAL_VERSION);
    add_int(w, "files", (int64_t)r->files);
    add_int(w, "packets", (int64_t)r->packets);
    add_int(w, "tcp_packets", (int64_t)r->tcp_packets);
    add_int(w, "undecodable", (int64_t)r->undecodable);
    add_int(w, "conversations", (int64_t)r->conversations);
    add_int(w, "stalled_conversations", (int64_t)r->stalled_conversations);
    add_int(w, "idle_flushed", (int64_t)r->idle_flushed);
    tapo_json_member(w, "breakdown");
    node_to_json(w, r->tree);
    add_int(w, "stalled_time_ns", r->stalled_ns);
    tapo_json_member(w, "stalled_time_by_cause_ns");
    tapo_json_begin_object(w);
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++) {
        if (r->stalled_by_cause_ns[c] == 0)
            continue;
        char *key = cause_key((tapo_cause)c);
        add_int(w, key, r->stalled_by_cause_ns[c]);
        g_free(key);
    }
    tapo_json_end_object(w);
    tapo_json_member(w, "whatif_saving_ns");
    tapo_json_begin_object(w);
    for (int m = TAPO_MITIGATION_NONE + 1; m < TAPO_MITIGATION_COUNT; m++)
        if (r->saving_by_mitigation_ns[m] > 0)
            add_int(w, tapo_mitigation_name((tapo_mitigation)m), r->saving_by_mitigation_ns[m]);
    tapo_json_end_object(w);
}

/* The distributions: stall durations and the flows' stall ratios. */
static void distributions_to_json(tapo_json_text *w, const tapo_report *r)
{
    tapo_json_member(w, "duration_buckets_ms");
    tapo_json_begin_object(w);
    for (int i = 0; i < TAPO_DURATION_BUCKETS; i++)
        add_int(w, tapo_duration_bucket_names[i], (int64_t)r->duration_buckets[i]);
    tapo_json_end_object(w);
    tapo_json_member(w, "durations");
    tapo_sketch_write_json(&r->durations, w);
    tapo_json_member(w, "flow_ratios");
    tapo_sketch_write_json(&r->flow_ratios, w);
    tapo_json_member(w, "stall_ratio_quantiles");
    tapo_json_begin_object(w);
    for (unsigned i = 0; i < G_N_ELEMENTS(figure3_quantiles); i++) {
        char name[16];
        g_snprintf(name, sizeof name, "p%g", figure3_quantiles[i] * 100.0);
        add_double(w, name, tapo_sketch_quantile(&r->flow_ratios, figure3_quantiles[i]));
    }
    tapo_json_end_object(w);
}

char *tapo_report_to_json(const tapo_report *r, bool pretty)
{
    GString *text = g_string_sized_new(4096);
    tapo_json_text w;
    tapo_json_text_init(&w, text, pretty);
    tapo_json_begin_object(&w);
    totals_to_json(&w, r);
    distributions_to_json(&w, r);
    tapo_json_member(&w, "worst_flows");
    tapo_json_begin_array(&w);
    for (guint i = 0; i < r->worst->len; i++)
        flow_row_write(&w, r->worst->pdata[i]);
    tapo_json_end_array(&w);
    tapo_json_member(&w, "episodes");
    tapo_json_begin_array(&w);
    for (guint i = 0; i < r->episodes->len; i++)
        episode_to_json(&w, &g_array_index(r->episodes, tapo_report_episode, i));
    tapo_json_end_array(&w);
    tapo_json_end_object(&w);
    return g_string_free(text, FALSE);
}

static bool node_from_json(tapo_report_node *n, JsonObject *o)
{
    JsonArray *children = json_object_get_array_member(o, "children");
    if (!children)
        return false;
    n->total = json_object_get_int_member(o, "total");
    for (guint i = 0; i < json_array_get_length(children); i++) {
        JsonObject *c = json_array_get_object_element(children, i);
        const char *name = c ? json_object_get_string_member(c, "name") : NULL;
        if (!name || !node_from_json(child(n, name, false), c))
            return false;
    }
    return true;
}

static tapo_flow_row *flow_from_json(JsonObject *o)
{
    tapo_flow_row *f = g_new0(tapo_flow_row, 1);
    f->file = g_strdup(json_object_get_string_member(o, "file"));
    f->first_frame = (uint32_t)json_object_get_int_member(o, "first_frame");
    f->client = g_strdup(json_object_get_string_member(o, "client"));
    f->server = g_strdup(json_object_get_string_member(o, "server"));
    f->start_s = json_object_get_double_member(o, "start_s");
    f->duration_s = json_object_get_double_member(o, "duration_s");
    f->bytes_to_server = (uint64_t)json_object_get_int_member(o, "bytes_to_server");
    f->bytes_to_client = (uint64_t)json_object_get_int_member(o, "bytes_to_client");
    f->stalls = (uint32_t)json_object_get_int_member(o, "stalls");
    f->stalled_s = json_object_get_double_member(o, "stalled_time_s");
    f->low_confidence = (uint32_t)json_object_get_int_member_with_default(o, "low_confidence_stalls", 0);
    f->advice = g_strdup(json_object_get_string_member_with_default(o, "advice", ""));
    f->handshake_stalls = (uint32_t)json_object_get_int_member_with_default(o, "handshake_stalls", 0);
    f->teardown_stalls = (uint32_t)json_object_get_int_member_with_default(o, "teardown_stalls", 0);
    f->saving_s = json_object_get_double_member_with_default(o, "whatif_saving_s", 0.0);
    const char *vantage = json_object_get_string_member(o, "vantage");
    for (int v = 0; vantage && v < TAPO_VANTAGE_COUNT; v++)
        if (strcmp(vantage, tapo_vantage_name(v)) == 0)
            f->vantage = tapo_vantage_name(v);
    JsonObject *by_cause = json_object_has_member(o, "stalled_time_by_cause_s")
                               ? json_object_get_object_member(o, "stalled_time_by_cause_s") : NULL;
    for (int c = 0; by_cause && c < TAPO_CAUSE_COUNT; c++) {
        char *key = cause_key((tapo_cause)c);
        f->stalled_by_cause_s[c] = json_object_get_double_member_with_default(by_cause, key, 0.0);
        g_free(key);
    }
    if (!f->file)
        f->file = g_strdup("");
    return f;
}

bool tapo_report_from_json(tapo_report *r, const char *json, GError **error)
{
    JsonParser *parser = json_parser_new();
    bool ok = json_parser_load_from_data(parser, json, -1, error);
    JsonNode *root = ok ? json_parser_get_root(parser) : NULL;
    JsonObject *o = root && JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
    gint64 version = o ? json_object_get_int_member_with_default(o, "tapo_partial", 0) : 0;
    if (ok && version != PARTIAL_VERSION) {
        if (version > 0)
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "a partial result of format %" G_GINT64_FORMAT ", this tapo reads format %d: make it "
                        "again with this tapo", version, PARTIAL_VERSION);
        ok = false;
    }
    tapo_report_init(r);
    if (ok) {
        r->files = (uint64_t)json_object_get_int_member(o, "files");
        r->packets = (uint64_t)json_object_get_int_member(o, "packets");
        r->tcp_packets = (uint64_t)json_object_get_int_member(o, "tcp_packets");
        r->undecodable = (uint64_t)json_object_get_int_member(o, "undecodable");
        r->conversations = (uint64_t)json_object_get_int_member(o, "conversations");
        r->stalled_conversations = (uint64_t)json_object_get_int_member(o, "stalled_conversations");
        r->idle_flushed = (uint64_t)json_object_get_int_member(o, "idle_flushed");
        r->stalled_ns = json_object_get_int_member_with_default(o, "stalled_time_ns", 0);
        JsonObject *by_cause = json_object_has_member(o, "stalled_time_by_cause_ns")
                                   ? json_object_get_object_member(o, "stalled_time_by_cause_ns") : NULL;
        for (int c = 0; by_cause && c < TAPO_CAUSE_COUNT; c++) {
            char *key = cause_key((tapo_cause)c);
            r->stalled_by_cause_ns[c] = json_object_get_int_member_with_default(by_cause, key, 0);
            g_free(key);
        }
        JsonObject *savings = json_object_has_member(o, "whatif_saving_ns")
                                  ? json_object_get_object_member(o, "whatif_saving_ns") : NULL;
        for (int m = TAPO_MITIGATION_NONE + 1; savings && m < TAPO_MITIGATION_COUNT; m++)
            r->saving_by_mitigation_ns[m] = json_object_get_int_member_with_default(
                savings, tapo_mitigation_name((tapo_mitigation)m), 0);
        JsonObject *tree = json_object_get_object_member(o, "breakdown");
        JsonObject *buckets = json_object_get_object_member(o, "duration_buckets_ms");
        JsonArray *worst = json_object_get_array_member(o, "worst_flows");
        ok = tree && buckets && worst && node_from_json(r->tree, tree);
        for (int i = 0; ok && i < TAPO_DURATION_BUCKETS; i++)
            r->duration_buckets[i] = (uint64_t)json_object_get_int_member(buckets, tapo_duration_bucket_names[i]);
        ok = ok && tapo_sketch_from_json(&r->durations, json_object_get_member(o, "durations")) &&
             tapo_sketch_from_json(&r->flow_ratios, json_object_get_member(o, "flow_ratios"));
        for (guint i = 0; ok && i < json_array_get_length(worst); i++) {
            JsonObject *f = json_array_get_object_element(worst, i);
            if (f)
                keep_worst(r, flow_from_json(f));
        }
        JsonArray *eps = json_object_has_member(o, "episodes") ? json_object_get_array_member(o, "episodes") : NULL;
        for (guint i = 0; ok && eps && i < json_array_get_length(eps); i++) {
            JsonObject *e = json_array_get_object_element(eps, i);
            if (e)
                episode_from_json(r, e);
        }
    }
    if (!ok && error && !*error)
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "not a TAPO partial result");
    g_object_unref(parser);
    return ok;
}

/* ---- text -------------------------------------------------------------- */

static void print_node(FILE *out, const tapo_report_node *n, int64_t parent_total, int depth)
{
    if (depth > 0) {
        fprintf(out, "%*s%-*s %12" G_GINT64_FORMAT, 2 * (depth - 1), "", 52 - 2 * (depth - 1), n->name,
                n->total);
        if (depth > 1 && parent_total > 0)
            fprintf(out, " %7.2f%%", 100.0 * (double)n->total / (double)parent_total);
        fputc('\n', out);
    }
    GPtrArray *sorted = sorted_children(n);
    for (guint i = 0; i < sorted->len; i++)
        print_node(out, sorted->pdata[i], n->total, depth + 1);
    g_ptr_array_free(sorted, TRUE);
}

static const tapo_report_node *find_child(const tapo_report_node *n, const char *name)
{
    for (guint i = 0; n && i < n->children->len; i++) {
        const tapo_report_node *c = n->children->pdata[i];
        if (strcmp(c->name, name) == 0)
            return c;
    }
    return NULL;
}

/* "tail loss probe would have cut the stalled time by 0.018 s (0.1 %)". */
static void print_savings(const tapo_report *r, FILE *out)
{
    const tapo_report_node *savings = find_child(r->tree, TAPO_NODE_SAVINGS);
    const tapo_report_node *time = find_child(r->tree, TAPO_NODE_TIME);
    if (!savings || !time || time->total <= 0)
        return;
    fprintf(out, "\nWhat-if savings (docs/causes.md, \"What-if savings\"):");
    for (guint i = 0; i < savings->children->len; i++) {
        const tapo_report_node *m = savings->children->pdata[i];
        fprintf(out, "%s %s would have cut the stalled time by %.3f s (%.1f %%)", i ? ";" : "", m->name,
                m->total / 1000.0, 100.0 * (double)m->total / (double)time->total);
    }
}

#define EPISODES_LISTED 10

static void print_episodes(const tapo_report *r, FILE *out)
{
    fprintf(out, "\nEpisodes (stalls of several connections at once): %u", r->episodes->len);
    for (guint i = 0; i < r->episodes->len && i < EPISODES_LISTED; i++) {
        const tapo_report_episode *re = &g_array_index(r->episodes, tapo_report_episode, i);
        fprintf(out, "\n  #%u %s at %.6f, %.3f s: %u connections, %u stalls, %s; mostly %s", re->e.id, re->file,
                re->e.start_s, re->e.end_s - re->e.start_s, re->e.connections, re->e.stalls, re->e.scope_text,
                tapo_cause_get(re->e.cause)->name);
    }
    if (r->episodes->len > EPISODES_LISTED)
        fprintf(out, "\n  (%u more: --report json or --episodes lists them all)", r->episodes->len - EPISODES_LISTED);
}

void tapo_report_print_text(const tapo_report *r, FILE *out)
{
    fprintf(out, "TAPO batch report: %" G_GUINT64_FORMAT " captures, %" G_GUINT64_FORMAT " packets (%"
            G_GUINT64_FORMAT " TCP, %" G_GUINT64_FORMAT " undecodable)\n", r->files, r->packets,
            r->tcp_packets, r->undecodable);
    fprintf(out, "Connections analysed: %" G_GUINT64_FORMAT ", with stalls: %" G_GUINT64_FORMAT
            ", written out after the idle timeout: %" G_GUINT64_FORMAT "\n\n", r->conversations,
            r->stalled_conversations, r->idle_flushed);
    const tapo_report_node *stalls = find_child(r->tree, TAPO_NODE_STALLS);
    fprintf(out, "Stalls: %" G_GINT64_FORMAT ", stalled time: %.3f s, of which idle (client-idle, nothing to fix "
            "in TCP): %.3f s\n\n", stalls ? stalls->total : 0, r->stalled_ns / 1e9,
            r->stalled_by_cause_ns[TAPO_CAUSE_CLIENT_IDLE] / 1e9);
    fprintf(out, "%-52s %12s %8s\n", "Breakdown (paper Tables 3, 5, 6, 7)", "count/ms", "percent");
    print_node(out, r->tree, 0, 0);
    fprintf(out, "\n%s:", TAPO_NODE_DURATION);
    for (int i = 0; i < TAPO_DURATION_BUCKETS; i++)
        fprintf(out, " %s: %" G_GUINT64_FORMAT, tapo_duration_bucket_names[i], r->duration_buckets[i]);
    fprintf(out, "\nStall duration quantiles (s): p50 %.3f, p90 %.3f, p99 %.3f\n",
            tapo_sketch_quantile(&r->durations, 0.5), tapo_sketch_quantile(&r->durations, 0.9),
            tapo_sketch_quantile(&r->durations, 0.99));
    fprintf(out, "Stall ratio (stalled time / flow duration) over all flows (paper Figure 3):");
    for (unsigned i = 0; i < G_N_ELEMENTS(figure3_quantiles); i++)
        fprintf(out, "%s p%g %.2f", i ? "," : "", figure3_quantiles[i] * 100.0,
                tapo_sketch_quantile(&r->flow_ratios, figure3_quantiles[i]));
    print_savings(r, out);
    print_episodes(r, out);
    fprintf(out, "\n\nConnections to look at: network and server stalls first, then the rest, idle time last\n"
            "%-22s %-46s %8s %6s %5s %10s %8s %6s  %-9s %-20s %s\n", "capture:frame", "client -> server", "dur(s)",
            "stalls", "low", "stalled(s)", "idle(s)", "ratio", "vantage", "cause", "advice");
    for (guint i = 0; i < r->worst->len; i++) {
        const tapo_flow_row *f = r->worst->pdata[i];
        tapo_cause d = tapo_flow_dominant(f);
        char *where = g_strdup_printf("%s:%u", f->file, f->first_frame);
        char *ends = g_strdup_printf("%s -> %s", f->client, f->server);
        fprintf(out, "%-22s %-46s %8.3f %6u %5u %10.3f %8.3f %6.2f  %-9s %-20s %s\n", where, ends, f->duration_s,
                f->stalls, f->low_confidence, f->stalled_s, tapo_flow_idle_s(f), tapo_flow_ratio(f),
                f->vantage ? f->vantage : "-",
                d == TAPO_CAUSE_COUNT ? "-" : tapo_cause_get(d)->name,
                d == TAPO_CAUSE_COUNT || !f->advice ? "" : f->advice);
        g_free(where);
        g_free(ends);
    }
}

void tapo_report_print_json(const tapo_report *r, FILE *out)
{
    char *text = tapo_report_to_json(r, true);
    fprintf(out, "%s\n", text);
    g_free(text);
}
