/* run_stream.c: streaming (a live interface, a pipe; run_worker.h): rows
 * cannot wait for the end of the input.  A stall's row is written once its
 * record is settled, or its settle time has passed on the capture's clock
 * (with the hindsight of that much capture), the outputs flushed; the
 * report still counts final verdicts, when connections end.  Episodes are
 * found as stalls settle (episode_stream.h), so that nothing grows with the
 * length of the run.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "run_worker.h"

#include "verdict/verdict.h"

#define STREAM_REPORT_EPISODES 10000  /* episodes the report lists; the rest are in rows and metrics */

/* Writes the rows of c's stalls that are settled, or whose settle time has
 * passed at clock_s (in order: a row waits for the rows before it);
 * true when none is left to write. */
static bool write_settled(worker *w, tapo_connection *c, double clock_s)
{
    const tapo_run_options *o = w->sh->o;
    /* The sender is chosen from the connection's summary as it is now. */
    if (c->stalls && c->rows_written < c->stalls->len)
        tapo_table_summary(c);
    while (c->stalls && c->rows_written < c->stalls->len) {
        const tapo_conn_stall *s = c->stalls->pdata[c->rows_written];
        /* Written once settled (nothing later can change it), or once its
         * settle time has passed, whichever comes first. */
        if (!(o->settle_s > 0.0 && tapo_record_settled(&s->rec)) && s->place.clock_s > clock_s - o->settle_s)
            return false;
        tapo_verdict v;
        /* With a settle time, hindsight over it; without, the verdict known
         * at the packet.  Neither used the whole capture.  The connection
         * still runs: its summary is brought up to date from its state
         * (the handshake seen, the bytes each way so far), as the plugin's
         * one pass does; c->summary alone is filled in only at its end. */
        if (tapo_conv_verdict(tapo_table_summary(c), &s->rec, w->table.cfg, o->settle_s > 0.0, &v)) {
            v.final = false;
            worker_stall_decided(w, c, s, &v);
            w->rows_streamed++;
        }
        c->rows_written++;
    }
    return true;
}

void worker_write_all_settled(worker *w, double clock_s)
{
    if (!w->pending || g_hash_table_size(w->pending) == 0)
        return;
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, w->pending);
    while (g_hash_table_iter_next(&it, &key, NULL))
        if (write_settled(w, key, clock_s))
            g_hash_table_iter_remove(&it);
    worker_flush(w, true);
}

/* An episode found while streaming: into the report, --episodes and the
 * metrics. */
static void stream_episode(void *ctx, const tapo_episode *e, const tapo_row_member *members, guint count)
{
    worker *w = ctx;
    const tapo_run_options *o = w->sh->o;
    if (w->report.episodes->len < STREAM_REPORT_EPISODES)
        tapo_report_add_episode(&w->report, e, members[0].file);
    else
        w->episodes_unlisted++;
    if (o->episodes) {
        tapo_rows_episode(w->episode_out, o->format, e, members[0].file, members, count);
        w->episode_rows++;
    }
    if (o->metrics)
        tapo_metrics_episode(o->metrics, e);
}

/* Streaming: the episodes that can no longer change (all: the capture ended). */
void worker_close_episodes(worker *w, bool all)
{
    if (!w->episodes)
        return;
    tapo_episode_stream_close(w->episodes, w->latest_epoch_s, all, stream_episode, w);
    worker_flush(w, true);
}
