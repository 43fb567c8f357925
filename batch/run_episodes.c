/* run_episodes.c: the episodes of a run that did not stream, found at its
 * end over every worker's stalls, each capture set on its own
 * (run_worker.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "run_worker.h"

#include <stdlib.h>
#include <string.h>

typedef struct located {
    tapo_episode_stall stall;
    tapo_row_member where;
    uint32_t set;                     /* the capture set it belongs to */
    unsigned worker;                  /* whose it is... */
    guint index;                      /* ...and where in its episode_stalls (and html stalls) */
} located;

static int by_set(const void *a, const void *b)
{
    const located *x = a, *y = b;
    return (x->set > y->set) - (x->set < y->set);
}

static int by_episode(const void *a, const void *b)
{
    const located *x = a, *y = b;
    if (x->stall.episode != y->stall.episode)
        return (x->stall.episode > y->stall.episode) - (x->stall.episode < y->stall.episode);
    int f = strcmp(x->where.file, y->where.file);
    return f ? f : (x->where.frame > y->where.frame) - (x->where.frame < y->where.frame);
}

/* Every worker's stalls, by capture set (each capture, unless --continuous
 * or --merge-by-time make them one). */
static GArray *every_stall(const tapo_run_options *o, const worker *ws, unsigned jobs)
{
    GArray *all = g_array_new(FALSE, FALSE, sizeof(located));
    for (unsigned i = 0; i < jobs; i++)
        for (guint k = 0; k < ws[i].episode_stalls->len; k++) {
            located l = { g_array_index(ws[i].episode_stalls, tapo_episode_stall, k),
                          g_array_index(ws[i].episode_places, tapo_row_member, k), 0, i, k };
            l.set = o->continuous || o->merge_by_time ? 0 : (uint32_t)(l.stall.connection >> 32);
            g_array_append_val(all, l);
        }
    /* g_array_sort is stable: stalls already by set (one capture, or one
     * set) stay as they are without a sort (an empty array's data is
     * NULL, which qsort may not take). */
    for (guint k = 1; k < all->len; k++)
        if (by_set(&g_array_index(all, located, k - 1), &g_array_index(all, located, k)) > 0) {
            g_array_sort(all, by_set);
            break;
        }
    return all;
}

/* Episode ep, whose stalls are run[0..n) (a set's, by episode): into the
 * report, renumbered from first_id, and its row with its members. */
static void add_episode(const tapo_run_options *o, tapo_episode *ep, const located *run, guint n, guint first_id,
                        tapo_report *report, GString *rows)
{
    GArray *members = g_array_sized_new(FALSE, FALSE, sizeof(tapo_row_member), n);
    for (guint k = 0; k < n; k++)
        g_array_append_val(members, run[k].where);
    const char *file = ((tapo_row_member *)(void *)members->data)[0].file;
    tapo_report_add_episode(report, ep, file);
    ep->id = first_id + 1;
    if (o->episodes)
        tapo_rows_episode(rows, o->format, ep, file, (const tapo_row_member *)(void *)members->data, members->len);
    g_array_free(members, TRUE);
}

/* The episodes of one capture set's n stalls. */
static void set_episodes(const tapo_run_options *o, worker *ws, located *set, guint n, tapo_report *report,
                         GString *rows)
{
    tapo_episode_stall *stalls = g_new(tapo_episode_stall, n);
    for (guint k = 0; k < n; k++)
        stalls[k] = set[k].stall;
    GArray *eps = tapo_episodes_find(stalls, n, o->cfg.episode_min_connections);
    for (guint k = 0; k < n; k++)
        set[k].stall.episode = stalls[k].episode;
    qsort(set, n, sizeof(located), by_episode);
    guint first_id = report->episodes->len;
    /* By episode, each episode's stalls are one run (those of none first). */
    guint from = 0;
    for (guint e = 0; e < eps->len; e++) {
        tapo_episode *ep = &g_array_index(eps, tapo_episode, e);
        while (from < n && set[from].stall.episode != ep->id)
            from++;
        guint to = from;
        while (to < n && set[to].stall.episode == ep->id)
            to++;
        add_episode(o, ep, set + from, to - from, first_id + e, report, rows);
        from = to;
    }
    for (guint k = 0; o->html && k < n; k++)
        if (set[k].stall.episode)
            g_array_index(ws[set[k].worker].html.stalls, tapo_html_stall, set[k].index).episode =
                first_id + set[k].stall.episode;
    g_array_free(eps, TRUE);
    g_free(stalls);
}

/* The episodes of every capture set, into the report and --episodes. */
void tapo_run_find_episodes(const tapo_run_options *o, worker *ws, unsigned jobs, tapo_report *report)
{
    GArray *all = every_stall(o, ws, jobs);
    GString *rows = g_string_new("");
    for (guint from = 0; from < all->len;) {
        guint to = from;
        while (to < all->len && g_array_index(all, located, to).set == g_array_index(all, located, from).set)
            to++;
        set_episodes(o, ws, &g_array_index(all, located, from), to - from, report, rows);
        from = to;
    }
    if (o->episodes)
        tapo_output_write(o->episodes, rows->str, rows->len);
    g_string_free(rows, TRUE);
    g_array_free(all, TRUE);
}
