/* episodes.c: see episodes.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "incidents/episodes.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

static const char *const scope_names[TAPO_SCOPE_COUNT] = {
    "server", "client", "client prefix", "server prefix", "capture"
};

const char *tapo_episode_scope_name(tapo_episode_scope scope)
{
    return (unsigned)scope < TAPO_SCOPE_COUNT ? scope_names[scope] : "capture";
}

bool tapo_address_prefix(const char *address, char out[64])
{
    unsigned char bytes[16];
    char text[INET6_ADDRSTRLEN];
    if (inet_pton(AF_INET, address, bytes) == 1) {
        bytes[3] = 0;
        inet_ntop(AF_INET, bytes, text, sizeof text);
        snprintf(out, 64, "%s/24", text);
        return true;
    }
    if (inet_pton(AF_INET6, address, bytes) == 1) {
        memset(bytes + 8, 0, 8);
        inet_ntop(AF_INET6, bytes, text, sizeof text);
        snprintf(out, 64, "%s/64", text);
        return true;
    }
    return false;
}

static int by_start(gconstpointer a, gconstpointer b)
{
    const tapo_episode_stall *x = *(tapo_episode_stall *const *)a, *y = *(tapo_episode_stall *const *)b;
    if (x->start_s != y->start_s)
        return x->start_s < y->start_s ? -1 : 1;
    if (x->end_s != y->end_s)
        return x->end_s < y->end_s ? -1 : 1;
    return (x->connection > y->connection) - (x->connection < y->connection);
}

static guint distinct_connections(tapo_episode_stall **group, guint n)
{
    GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < n; i++)
        g_hash_table_add(seen, &group[i]->connection);
    guint count = g_hash_table_size(seen);
    g_hash_table_destroy(seen);
    return count;
}

static void make_episode(GArray *episodes, tapo_episode_stall **group, guint n, tapo_episode_scope scope,
                          const char *key)
{
    tapo_episode e = { .id = episodes->len + 1, .scope = scope, .stalls = n,
                       .connections = distinct_connections(group, n),
                       .start_s = group[0]->start_s, .end_s = group[0]->end_s };
    double by_cause[TAPO_CAUSE_COUNT] = { 0 };
    for (guint i = 0; i < n; i++) {
        group[i]->episode = e.id;
        e.start_s = group[i]->start_s < e.start_s ? group[i]->start_s : e.start_s;
        e.end_s = group[i]->end_s > e.end_s ? group[i]->end_s : e.end_s;
        by_cause[group[i]->cause] += group[i]->end_s - group[i]->start_s;
    }
    e.cause = group[0]->cause;
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++)
        if (by_cause[c] > by_cause[e.cause])
            e.cause = (tapo_cause)c;
    if (scope == TAPO_SCOPE_CAPTURE)
        snprintf(e.scope_text, sizeof e.scope_text, "capture");
    else
        snprintf(e.scope_text, sizeof e.scope_text, "%s %s", tapo_episode_scope_name(scope), key);
    g_array_append_val(episodes, e);
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The stalls of one window: scope by scope, narrowest first, each key
 * shared by enough connections an episode. */
static void explain_window(GArray *episodes, tapo_episode_stall **members, guint n, unsigned min_connections)
{
    for (int scope = TAPO_SCOPE_SERVER; scope <= TAPO_SCOPE_CAPTURE; scope++) {
        GHashTable *groups = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_ptr_array_unref);
        for (guint i = 0; i < n; i++) {
            if (members[i]->episode)
                continue;
            const char *key = scope == TAPO_SCOPE_CAPTURE ? "" : members[i]->keys[scope];
            if (!key)
                continue;
            GPtrArray *g = g_hash_table_lookup(groups, key);
            if (!g) {
                g = g_ptr_array_new();
                g_hash_table_insert(groups, (gpointer)key, g);
            }
            g_ptr_array_add(g, members[i]);
        }
        guint nkeys = 0;
        gpointer *keys = g_hash_table_get_keys_as_array(groups, &nkeys);
        qsort(keys, nkeys, sizeof *keys, by_text);
        for (guint k = 0; k < nkeys; k++) {
            GPtrArray *g = g_hash_table_lookup(groups, keys[k]);
            if (distinct_connections((tapo_episode_stall **)g->pdata, g->len) >= min_connections)
                make_episode(episodes, (tapo_episode_stall **)g->pdata, g->len, (tapo_episode_scope)scope, keys[k]);
        }
        g_free(keys);
        g_hash_table_destroy(groups);
    }
}

/* A stall's gap widened by the slack at both ends. */
static double from_s(const tapo_episode_stall *s)
{
    return s->start_s - TAPO_EPISODE_SLACK_S;
}

static double to_s(const tapo_episode_stall *s)
{
    return s->end_s + TAPO_EPISODE_SLACK_S;
}

typedef struct edge {
    double t;
    int delta;                        /* +1 a stall starts, -1 it ends */
    uint64_t *connection;             /* the stall's: a key that lives as long as the stalls */
} edge;

static int by_time(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return y->delta - x->delta;   /* starts before ends at one instant: touching gaps overlap */
}

/* The windows of time in which at least min_connections connections were
 * stalled at once (gaps widened by the slack): pairs of [from, to]. */
static GArray *busy_windows(tapo_episode_stall **s, guint n, unsigned min_connections)
{
    edge *edges = g_new(edge, 2 * (n ? n : 1));
    for (guint i = 0; i < n; i++) {
        edges[2 * i] = (edge){ from_s(s[i]), +1, &s[i]->connection };
        edges[2 * i + 1] = (edge){ to_s(s[i]), -1, &s[i]->connection };
    }
    qsort(edges, 2 * n, sizeof *edges, by_time);
    GArray *windows = g_array_new(FALSE, FALSE, sizeof(double));
    GHashTable *active = g_hash_table_new(g_int64_hash, g_int64_equal);   /* connection -> stalls open */
    bool open = false;
    for (guint i = 0; i < 2 * n; i++) {
        intptr_t count = (intptr_t)g_hash_table_lookup(active, edges[i].connection) + edges[i].delta;
        if (count > 0)
            g_hash_table_replace(active, edges[i].connection, (gpointer)count);
        else
            g_hash_table_remove(active, edges[i].connection);
        bool busy = g_hash_table_size(active) >= min_connections;
        if (busy && !open) {
            g_array_append_val(windows, edges[i].t);
            open = true;
        } else if (!busy && open) {
            g_array_append_val(windows, edges[i].t);
            open = false;
        }
    }
    g_hash_table_destroy(active);
    g_free(edges);
    return windows;
}

static int episode_by_start(gconstpointer a, gconstpointer b)
{
    const tapo_episode *x = a, *y = b;
    if (x->start_s != y->start_s)
        return x->start_s < y->start_s ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

GArray *tapo_episodes_find(tapo_episode_stall *stalls, guint count, unsigned min_connections)
{
    GArray *episodes = g_array_new(FALSE, FALSE, sizeof(tapo_episode));
    if (min_connections < 2)
        min_connections = 2;   /* one connection's stalls are no incident across connections */
    /* A client with nothing to ask is no incident, however many are idle at once. */
    tapo_episode_stall **s = g_new(tapo_episode_stall *, count ? count : 1);
    guint n = 0;
    for (guint i = 0; i < count; i++) {
        stalls[i].episode = 0;
        if (stalls[i].cause != TAPO_CAUSE_CLIENT_IDLE)
            s[n++] = &stalls[i];
    }
    qsort(s, n, sizeof *s, (int (*)(const void *, const void *))by_start);
    GArray *windows = busy_windows(s, n, min_connections);
    /* The windows come in time order, apart; s is by start.  A window's
     * members are the stalls without an episode that meet it, in s's
     * order: those begun by its end (next, a prefix of s), less those that
     * ended before it began, which meet no later window either and leave
     * for good.  Each stall is looked at while it may still meet one,
     * not once per window. */
    tapo_episode_stall **members = g_new(tapo_episode_stall *, n ? n : 1);
    guint live = 0, next = 0;
    for (guint w = 0; w + 1 < windows->len; w += 2) {
        double from = g_array_index(windows, double, w), to = g_array_index(windows, double, w + 1);
        while (next < n && from_s(s[next]) <= to)
            members[live++] = s[next++];
        guint m = 0;
        for (guint i = 0; i < live; i++)
            if (!members[i]->episode && to_s(members[i]) >= from)
                members[m++] = members[i];
        explain_window(episodes, members, m, min_connections);
        live = m;
    }
    g_free(members);
    g_array_free(windows, TRUE);
    /* Numbered in order of start. */
    g_array_sort(episodes, episode_by_start);
    uint32_t *renumber = g_new0(uint32_t, episodes->len + 1);
    for (guint e = 0; e < episodes->len; e++) {
        tapo_episode *ep = &g_array_index(episodes, tapo_episode, e);
        renumber[ep->id] = e + 1;
        ep->id = e + 1;
    }
    for (guint i = 0; i < count; i++)
        stalls[i].episode = renumber[stalls[i].episode];
    g_free(renumber);
    g_free(s);
    return episodes;
}
