/* run_upkeep.c: long runs (metrics.h, memory_cap.h; run_worker.h): the
 * run publishes its counts for --metrics as it goes, evicts the quietest
 * connections when the heap passes the memory cap, completes output
 * segments that are old enough and reopens the outputs on SIGHUP, every
 * SETTLE_CHECK_S of the clock and whenever the link is quiet.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "run_worker.h"

#include <stdio.h>

#define PUBLISH_EVERY_US 500000       /* wall microseconds between publications of the counts (--metrics) */
#define EVICT_BATCH 64                /* connections evicted at least between looks at the memory, count */
#define EVICT_SHARE 8                 /* or this share of those held (1/8), whichever is more */

/* The worker's counts, for --metrics (force: now, else at most every
 * PUBLISH_EVERY_US). */
void worker_publish(worker *w, bool force)
{
    const tapo_run_options *o = w->sh->o;
    if (!o->metrics)
        return;
    gint64 now = g_get_monotonic_time();
    if (!force && now - w->published_us < PUBLISH_EVERY_US)
        return;
    w->published_us = now;
    uint64_t settling = 0;
    if (w->pending) {
        GHashTableIter it;
        gpointer key;
        g_hash_table_iter_init(&it, w->pending);
        while (g_hash_table_iter_next(&it, &key, NULL)) {
            const tapo_connection *c = key;
            settling += c->stalls ? c->stalls->len - c->rows_written : 0;
        }
    }
    tapo_metrics_worker counts = {
        .packets = w->report.packets, .tcp_packets = w->report.tcp_packets, .undecodable = w->report.undecodable,
        .connections = w->connections, .open = w->table.by_key ? tapo_table_size(&w->table) : 0,
        .evicted = w->table.evicted, .idle_ended = w->report.idle_flushed, .settling = settling,
    };
    tapo_metrics_set_worker(o->metrics, w->index, &counts);
    tapo_live *live = tapo_run_live;
    if (live) {
        uint64_t kernel, interface;
        tapo_live_drops(live, &kernel, &interface);
        tapo_metrics_set_drops(o->metrics, kernel, interface);
    }
    if (worker_speaks(w)) {
        g_mutex_lock(&w->sh->output_lock);
        tapo_run_publish_outputs(o);
        g_mutex_unlock(&w->sh->output_lock);
        tapo_metrics_set_memory(o->metrics, tapo_memory_heap(), o->memory ? o->memory->limit_bytes : 0);
    }
}

/* --memory-limit: past the heap's high mark, the quietest connections are
 * written out and freed, down to the low mark (memory_cap.h). */
void worker_keep_under_cap(worker *w)
{
    w->since_cap_check = 0;
    uint64_t target = tapo_memory_cap_check(&w->cap);
    if (!target)
        return;
    uint64_t before = w->table.evicted;
    while (tapo_table_size(&w->table) > 0 && tapo_memory_heap() > target) {
        guint n = MAX(EVICT_BATCH, tapo_table_size(&w->table) / EVICT_SHARE);
        for (guint k = 0; k < n && tapo_table_evict_oldest(&w->table); k++)
            ;
        worker_flush(w, true);
    }
    if (before == 0 && w->table.evicted > 0 && worker_speaks(w))
        fprintf(stderr, "tapo: the memory neared --memory-limit %" G_GUINT64_FORMAT " MiB: the quietest connections "
                "are written out early (tapo_connections_evicted_total)\n", w->cap.limit_bytes >> 20);
}

/* Every SETTLE_CHECK_S of the clock and whenever the link is quiet. */
void worker_upkeep(worker *w)
{
    const tapo_run_options *o = w->sh->o;
    if (tapo_run_reopen_requested && worker_speaks(w)) {
        tapo_run_reopen_requested = 0;
        g_mutex_lock(&w->sh->output_lock);
        tapo_output *outs[3] = { o->stalls, o->flows, o->episodes };
        for (int i = 0; i < 3; i++)
            if (outs[i])
                tapo_output_reopen(outs[i]);
        g_mutex_unlock(&w->sh->output_lock);
        fprintf(stderr, "tapo: SIGHUP: outputs reopened\n");
    }
    if (o->stalls && worker_speaks(w)) {
        g_mutex_lock(&w->sh->output_lock);
        tapo_output_tick(o->stalls);
        g_mutex_unlock(&w->sh->output_lock);
    }
    worker_close_episodes(w, false);
    worker_keep_under_cap(w);
    worker_publish(w, false);
}
