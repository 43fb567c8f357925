/* busiest_servers.c: see busiest_servers.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "busiest_servers.h"

#include <string.h>

#define CANDIDATES_PER_LABEL 4        /* candidates kept per labelled server, count */
#define CANDIDATES_MIN 16             /* and at least this many */

typedef struct server {
    char *name;
    double score_s;                   /* its stalled time in all (an overestimate for candidates), seconds */
    uint64_t stalls;                  /* labelled: its series, count */
    double stalled_s;                 /* labelled: its series, seconds */
} server;

struct tapo_busiest {
    unsigned labelled;                /* N */
    GPtrArray *labels;                /* server: those with a label, at most N */
    GHashTable *candidates;           /* name -> server: the others' stalled time, a bounded number */
    unsigned capacity;                /* of candidates */
    server other;
};

static void server_free(gpointer p)
{
    server *s = p;
    g_free(s->name);
    g_free(s);
}

tapo_busiest *tapo_busiest_new(unsigned labelled)
{
    tapo_busiest *b = g_new0(tapo_busiest, 1);
    b->labelled = labelled;
    b->labels = g_ptr_array_new_with_free_func(server_free);
    b->candidates = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, server_free);
    b->capacity = MAX(labelled * CANDIDATES_PER_LABEL, CANDIDATES_MIN);
    b->other.name = g_strdup(TAPO_BUSIEST_OTHER);
    return b;
}

void tapo_busiest_free(tapo_busiest *b)
{
    if (!b)
        return;
    g_ptr_array_unref(b->labels);
    g_hash_table_destroy(b->candidates);
    g_free(b->other.name);
    g_free(b);
}

static server *labelled_server(const tapo_busiest *b, const char *name)
{
    for (guint i = 0; i < b->labels->len; i++) {
        server *s = b->labels->pdata[i];
        if (strcmp(s->name, name) == 0)
            return s;
    }
    return NULL;
}

/* The candidate of that name, made (taking the least one's place when
 * there is no room) when it is new. */
static server *candidate(tapo_busiest *b, const char *name)
{
    server *c = g_hash_table_lookup(b->candidates, name);
    if (c)
        return c;
    double inherited_s = 0.0;
    if (g_hash_table_size(b->candidates) >= b->capacity) {
        GHashTableIter it;
        gpointer value;
        server *least = NULL;
        g_hash_table_iter_init(&it, b->candidates);
        while (g_hash_table_iter_next(&it, NULL, &value))
            if (!least || ((server *)value)->score_s < least->score_s)
                least = value;
        inherited_s = least->score_s;
        g_hash_table_remove(b->candidates, least->name);
    }
    c = g_new0(server, 1);
    c->name = g_strdup(name);
    c->score_s = inherited_s;
    g_hash_table_insert(b->candidates, c->name, c);
    return c;
}

void tapo_busiest_add(tapo_busiest *b, const char *name, double stalled_s)
{
    server *s = labelled_server(b, name);
    if (!s && b->labels->len < b->labelled) {
        /* A free label: the server gets it now, with what it had as a candidate. */
        s = g_new0(server, 1);
        s->name = g_strdup(name);
        server *c = g_hash_table_lookup(b->candidates, name);
        s->score_s = c ? c->score_s : 0.0;
        g_hash_table_remove(b->candidates, name);
        g_ptr_array_add(b->labels, s);
    }
    if (s) {
        s->stalls++;
        s->stalled_s += stalled_s;
        s->score_s += stalled_s;
        return;
    }
    b->other.stalls++;
    b->other.stalled_s += stalled_s;
    if (b->labelled == 0)
        return;
    server *c = candidate(b, name);
    c->score_s += stalled_s;
    guint least = 0;
    for (guint i = 1; i < b->labels->len; i++)
        if (((server *)b->labels->pdata[i])->score_s < ((server *)b->labels->pdata[least])->score_s)
            least = i;
    server *loser = b->labels->pdata[least];
    if (c->score_s <= loser->score_s)
        return;
    /* The candidate has stalled for longer: it takes the label, with a
     * series from zero; the loser becomes a candidate with its total. */
    server *winner = g_new0(server, 1);
    winner->name = g_strdup(c->name);
    winner->score_s = c->score_s;
    g_hash_table_remove(b->candidates, name);
    server *demoted = candidate(b, loser->name);
    demoted->score_s = MAX(demoted->score_s, loser->score_s);
    b->labels->pdata[least] = winner;
    server_free(loser);
}

unsigned tapo_busiest_series_max(const tapo_busiest *b)
{
    return b->labelled + 1;
}

unsigned tapo_busiest_series_now(const tapo_busiest *b, tapo_busiest_series *out)
{
    unsigned n = 0;
    for (guint i = 0; i < b->labels->len; i++) {
        const server *s = b->labels->pdata[i];
        out[n++] = (tapo_busiest_series){ s->name, s->stalls, s->stalled_s };
    }
    out[n++] = (tapo_busiest_series){ b->other.name, b->other.stalls, b->other.stalled_s };
    return n;
}
