/* episode_stream.c: see episode_stream.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "episode_stream.h"

#include <string.h>

typedef struct kept {
    tapo_episode_stall stall;         /* its keys owned here */
    tapo_row_member where;
} kept;

struct tapo_episode_stream {
    unsigned min_connections;
    double horizon_s;                 /* seconds */
    GArray *kept;                     /* kept, in order of arrival */
    uint32_t episodes;                /* given out so far, count */
};

tapo_episode_stream *tapo_episode_stream_new(unsigned min_connections, double horizon_s)
{
    tapo_episode_stream *es = g_new0(tapo_episode_stream, 1);
    es->min_connections = min_connections;
    es->horizon_s = horizon_s;
    es->kept = g_array_new(FALSE, FALSE, sizeof(kept));
    return es;
}

static void free_keys(kept *k)
{
    for (int s = 0; s < TAPO_SCOPE_CAPTURE; s++)
        g_free((char *)k->stall.keys[s]);
}

void tapo_episode_stream_free(tapo_episode_stream *es)
{
    if (!es)
        return;
    for (guint i = 0; i < es->kept->len; i++)
        free_keys(&g_array_index(es->kept, kept, i));
    g_array_free(es->kept, TRUE);
    g_free(es);
}

void tapo_episode_stream_add(tapo_episode_stream *es, const tapo_episode_stall *s, const char *file,
                             uint32_t frame)
{
    kept k = { *s, { file, frame } };
    for (int scope = 0; scope < TAPO_SCOPE_CAPTURE; scope++)
        k.stall.keys[scope] = g_strdup(s->keys[scope]);
    g_array_append_val(es->kept, k);
}

guint tapo_episode_stream_kept(const tapo_episode_stream *es)
{
    return es->kept->len;
}

static int by_place(const void *a, const void *b)
{
    const tapo_row_member *x = a, *y = b;
    int f = strcmp(x->file, y->file);
    return f ? f : (x->frame > y->frame) - (x->frame < y->frame);
}

static int by_widened_start(const void *a, const void *b)
{
    const kept *x = a, *y = b;
    return (x->stall.start_s > y->stall.start_s) - (x->stall.start_s < y->stall.start_s);
}

/* How many of the kept stalls (sorted by start) lie wholly before a point
 * that none of them spans, earlier than cut_s. */
static guint closable(const GArray *sorted, double cut_s)
{
    guint n = 0;
    double reach_s = -G_MAXDOUBLE;   /* the latest widened end among the first i */
    for (guint i = 0; i < sorted->len; i++) {
        const kept *k = &g_array_index(sorted, kept, i);
        double end_s = k->stall.end_s + TAPO_EPISODE_SLACK_S;
        if (end_s > reach_s)
            reach_s = end_s;
        if (reach_s >= cut_s)
            break;
        bool apart = i + 1 == sorted->len ||
                     g_array_index(sorted, kept, i + 1).stall.start_s - TAPO_EPISODE_SLACK_S > reach_s;
        if (apart)
            n = i + 1;
    }
    return n;
}

void tapo_episode_stream_close(tapo_episode_stream *es, double now_s, bool all, tapo_episode_found found,
                               void *ctx)
{
    if (es->kept->len == 0)
        return;
    g_array_sort(es->kept, by_widened_start);
    guint n = all ? es->kept->len : closable(es->kept, now_s - es->horizon_s);
    if (n == 0)
        return;
    tapo_episode_stall *stalls = g_new(tapo_episode_stall, n);
    for (guint i = 0; i < n; i++)
        stalls[i] = g_array_index(es->kept, kept, i).stall;
    GArray *eps = tapo_episodes_find(stalls, n, es->min_connections);
    GArray *members = g_array_new(FALSE, FALSE, sizeof(tapo_row_member));
    for (guint e = 0; e < eps->len; e++) {
        tapo_episode ep = g_array_index(eps, tapo_episode, e);
        g_array_set_size(members, 0);
        for (guint i = 0; i < n; i++)
            if (stalls[i].episode == ep.id)
                g_array_append_val(members, g_array_index(es->kept, kept, i).where);
        g_array_sort(members, by_place);
        ep.id = ++es->episodes;
        found(ctx, &ep, (const tapo_row_member *)(void *)members->data, members->len);
    }
    g_array_free(members, TRUE);
    g_array_free(eps, TRUE);
    g_free(stalls);
    for (guint i = 0; i < n; i++)
        free_keys(&g_array_index(es->kept, kept, i));
    g_array_remove_range(es->kept, 0, n);
}
