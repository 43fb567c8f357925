/* report.c: see report.h: what a run adds up, and merges.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "report.h"

#include <math.h>
#include <string.h>

/* ---- flows ----------------------------------------------------------- */

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
void tapo_report_keep_worst(tapo_report *r, tapo_flow_row *f)
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

tapo_report_node *tapo_report_node_child(tapo_report_node *n, const char *name)
{
    return child(n, name, false);
}

static void node_merge(tapo_report_node *into, const tapo_report_node *from)
{
    into->total += from->total;
    for (guint i = 0; i < from->children->len; i++) {
        const tapo_report_node *c = from->children->pdata[i];
        node_merge(tapo_report_node_child(into, c->name), c);
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
        tapo_report_keep_worst(r, f);
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
        tapo_report_keep_worst(into, tapo_flow_row_copy(from->worst->pdata[i]));
    for (guint i = 0; i < from->episodes->len; i++) {
        const tapo_report_episode *re = &g_array_index(from->episodes, tapo_report_episode, i);
        tapo_report_add_episode(into, &re->e, re->file);
    }
}

/* Children by total, then name: the same order whatever the merges. */
static int larger_first(gconstpointer a, gconstpointer b)
{
    const tapo_report_node *x = *(tapo_report_node *const *)a, *y = *(tapo_report_node *const *)b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return strcmp(x->name, y->name);
}

GPtrArray *tapo_report_node_sorted(const tapo_report_node *n)
{
    GPtrArray *sorted = g_ptr_array_new();
    for (guint i = 0; i < n->children->len; i++)
        g_ptr_array_add(sorted, n->children->pdata[i]);
    g_ptr_array_sort(sorted, larger_first);
    return sorted;
}

const tapo_report_node *tapo_report_node_find(const tapo_report_node *n, const char *name)
{
    for (guint i = 0; n && i < n->children->len; i++) {
        const tapo_report_node *c = n->children->pdata[i];
        if (strcmp(c->name, name) == 0)
            return c;
    }
    return NULL;
}
