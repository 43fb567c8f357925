/* connections.c: see connections.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "connections.h"

#include <string.h>

/* ---- the table ----------------------------------------------------------- */

void tapo_conns_init(tapo_conn_table *t, const tapo_config *cfg, double grace_s, double idle_s,
                     tapo_conn_sink sink, const char *const *file_names)
{
    memset(t, 0, sizeof *t);
    t->by_key = g_hash_table_new(tapo_endpoints_hash, tapo_endpoints_equal);
    g_queue_init(&t->open);
    g_queue_init(&t->over);
    t->cfg = cfg;
    t->grace_s = grace_s;
    t->idle_s = idle_s;
    t->sink = sink;
    t->file_names = file_names;
}

static GQueue *queue_of(tapo_conn_table *t, const tapo_connection *c)
{
    return c->over ? &t->over : &t->open;
}

static void drop_state(tapo_connection *c)
{
    if (!c->conv)
        return;
    tapo_conv_summarize(c->conv, &c->summary);
    tapo_conv_destroy(c->conv);
    g_free(c->conv);
    c->conv = NULL;
}

static tapo_stall_record *new_stall(void *ctx)
{
    tapo_connection *c = ((void **)ctx)[0];
    const tapo_packet_place *place = ((void **)ctx)[1];
    if (!c->stalls)
        c->stalls = g_ptr_array_new_with_free_func(g_free);
    tapo_batch_stall *s = g_new0(tapo_batch_stall, 1);
    s->place = *place;
    g_ptr_array_add(c->stalls, s);
    return &s->rec;
}

/* The flow report's line of a connection that ended. */
static tapo_flow_row *flow_row(const tapo_conn_table *t, const tapo_connection *c)
{
    tapo_flow_row *row = g_new0(tapo_flow_row, 1);
    row->file = g_strdup(t->file_names[c->start.file]);
    row->first_frame = c->start.frame;
    int client = c->summary.initiator >= 0 ? c->summary.initiator : 0;
    row->client = tapo_endpoint_text(&c->id.first, client);
    row->server = tapo_endpoint_text(&c->id.first, 1 - client);
    row->start_s = c->start.epoch_s;
    row->duration_s = c->last_rel_s - c->start.rel_s;
    row->bytes_to_server = c->bytes[client];
    row->bytes_to_client = c->bytes[1 - client];
    return row;
}

/* Final verdicts for every stall, then the connection's line; frees it. */
static void end_connection(tapo_conn_table *t, tapo_connection *c, bool idle)
{
    drop_state(c);
    tapo_flow_row *row = flow_row(t, c);
    for (guint i = 0; c->stalls && i < c->stalls->len; i++) {
        const tapo_batch_stall *s = c->stalls->pdata[i];
        tapo_verdict v;
        if (!tapo_conv_verdict(&c->summary, &s->rec, t->cfg, true, &v))
            continue;
        t->sink.stall(t->sink.ctx, c, s, &v);
        row->stalls++;
        row->stalled_s += v.view->snap.duration_s;
        row->stalled_by_cause_s[v.cause] += v.view->snap.duration_s;
        row->vantage = tapo_vantage_name(v.view->snap.vantage);
    }
    t->sink.ended(t->sink.ctx, c, row, idle);
    g_queue_unlink(queue_of(t, c), &c->lru);
    g_hash_table_remove(t->by_key, &c->key);
    if (c->stalls)
        g_ptr_array_free(c->stalls, TRUE);
    g_free(c);
}

static tapo_connection *start_connection(tapo_conn_table *t, const tapo_endpoints *key,
                                         const tapo_packet_place *place, const tapo_segment_fields *seg)
{
    tapo_connection *c = g_new0(tapo_connection, 1);
    c->key = *key;
    tapo_flow_identity_init(&c->id, seg);
    c->start = *place;
    c->conv = g_new0(tapo_conv, 1);
    tapo_conv_init(c->conv, t->cfg);
    c->lru.data = c;
    g_queue_push_tail_link(&t->open, &c->lru);
    g_hash_table_insert(t->by_key, &c->key, c);
    return c;
}

void tapo_conns_packet(tapo_conn_table *t, const tapo_packet_place *place, const tapo_segment_fields *seg)
{
    tapo_endpoints key;
    tapo_endpoints_canonical(&seg->ends, &key);
    tapo_connection *c = g_hash_table_lookup(t->by_key, &key);
    if (c && tapo_flow_splits(&c->id, seg)) {
        end_connection(t, c, false);
        c = NULL;
    }
    if (!c)
        c = start_connection(t, &key, place, seg);
    int from = tapo_flow_endpoint(&c->id, seg);
    tapo_packet p;
    tapo_flow_packet(&c->id, place->frame, place->rel_s, from, seg, &p);
    if (!c->conv) {
        /* A packet after the connection was over: a fresh state goes on. */
        c->conv = g_new0(tapo_conv, 1);
        tapo_conv_init(c->conv, t->cfg);
        tapo_conv_resume(c->conv, &c->summary);
    }
    void *ctx[2] = { c, (void *)place };
    tapo_conv_process(c->conv, &p, t->cfg, new_stall, ctx);
    c->bytes[from] += seg->payload_len;
    c->last_rel_s = place->rel_s;
    c->last_clock_s = place->clock_s;
    c->last_epoch_s = place->epoch_s;
    /* Over (both FINs acknowledged, or a reset): kept for the grace
     * period with its state, as the plugin keeps it (a lost last ACK
     * brings the peer's FIN again), then written out. */
    g_queue_unlink(queue_of(t, c), &c->lru);
    c->over = tapo_conv_is_over(c->conv);
    g_queue_push_tail_link(queue_of(t, c), &c->lru);
}

void tapo_conns_quoted(tapo_conn_table *t, const tapo_segment_fields *seg)
{
    tapo_endpoints key;
    tapo_endpoints_canonical(&seg->ends, &key);
    tapo_connection *c = g_hash_table_lookup(t->by_key, &key);
    if (c && tapo_flow_splits(&c->id, seg))
        end_connection(t, c, false);
}

/* Ends the oldest connections of a queue while they are older than age_s. */
static void expire_queue(tapo_conn_table *t, GQueue *q, double clock_s, double age_s, bool idle)
{
    while (q->head) {
        tapo_connection *c = q->head->data;
        if (clock_s - c->last_clock_s <= age_s)
            break;
        end_connection(t, c, idle);
    }
}

void tapo_conns_expire(tapo_conn_table *t, double clock_s)
{
    expire_queue(t, &t->over, clock_s, t->grace_s, false);
    expire_queue(t, &t->open, clock_s, t->idle_s, true);
}

void tapo_conns_end_all(tapo_conn_table *t)
{
    while (t->over.head)
        end_connection(t, t->over.head->data, false);
    while (t->open.head)
        end_connection(t, t->open.head->data, false);
}

void tapo_conns_finish(tapo_conn_table *t)
{
    tapo_conns_end_all(t);
    g_hash_table_destroy(t->by_key);
}
