/* connection_table.c: see connection_table.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "table/connection_table.h"

#include <string.h>

/* The queues a connection can be in, each least recently active first. */
enum {
    QUEUE_OPEN,                       /* its state is live and it is not over */
    QUEUE_OVER,                       /* over: its state stays for the grace period */
    QUEUE_DROPPED,                    /* only its summary stays, for another grace period */
    QUEUE_NONE                        /* ended: out of the table */
};

void tapo_table_init(tapo_conn_table *t, const tapo_config *cfg, double grace_s, double idle_s,
                     bool keep_ended, tapo_table_hooks hooks)
{
    memset(t, 0, sizeof *t);
    t->by_key = g_new(tapo_flow_index, 1);
    tapo_flow_index_init(t->by_key);
    for (int q = 0; q < 3; q++)
        g_queue_init(&t->queues[q]);
    t->cfg = cfg;
    t->grace_s = grace_s;
    t->idle_s = idle_s;
    t->keep_ended = keep_ended;
    t->hooks = hooks;
    t->last_tick_s = tapo_opt_s_none();
    tapo_id_census_init(&t->ids);
}

void tapo_table_frame(tapo_conn_table *t, const tapo_segment_fields *seg, tapo_decode_result decoded)
{
    bool ipv4 = decoded != TAPO_DECODE_UNKNOWN_LINK && seg->ends.family == 4;
    /* An ICMP error's ID is its own, its addresses the quoted packet's:
     * its host is unknown. */
    uint32_t host = 0;
    if (ipv4 && decoded != TAPO_DECODE_QUOTED)
        memcpy(&host, seg->ends.src, sizeof host);
    t->frame_id_order = ipv4 ? tapo_id_census_note(&t->ids, seg->ip_id, host) : 0;
}

/* Puts c at the tail of a queue, as active at its latest segment. */
static void move_to(tapo_conn_table *t, tapo_connection *c, uint8_t queue)
{
    if (c->queue != QUEUE_NONE)
        g_queue_unlink(&t->queues[c->queue], &c->link);
    c->queue = queue;
    c->queued_clock_s = c->last_clock_s;
    if (queue != QUEUE_NONE)
        g_queue_push_tail_link(&t->queues[queue], &c->link);
}

const tapo_conv_summary *tapo_table_summary(tapo_connection *c)
{
    if (c->conv)
        tapo_conv_summarize(c->conv, &c->summary);
    return &c->summary;
}

/* Keeps only the summary. */
static void drop_state(tapo_connection *c)
{
    if (!c->conv)
        return;
    tapo_conv_summarize(c->conv, &c->summary);
    tapo_conv_destroy(c->conv);
    g_free(c->conv);
    c->conv = NULL;
}

static void release(tapo_conn_table *t, void *storage)
{
    if (t->hooks.release)
        t->hooks.release(t->hooks.ctx, storage);
}

/* The connection leaves the table: the owner gets its final verdicts. */
static void end_connection(tapo_conn_table *t, tapo_connection *c, tapo_end_reason why)
{
    drop_state(c);
    tapo_flow_index_remove(t->by_key, c->hash, c);
    if (t->last_hit == c)
        t->last_hit = NULL;
    move_to(t, c, QUEUE_NONE);
    if (t->hooks.ended)
        t->hooks.ended(t->hooks.ctx, c, why);
    if (c->stalls) {
        if (!t->keep_ended)
            for (guint i = 0; i < c->stalls->len; i++)
                release(t, c->stalls->pdata[i]);
        g_ptr_array_free(c->stalls, TRUE);
        c->stalls = NULL;
    }
    if (!t->keep_ended)
        release(t, c);
}

static tapo_conv *new_state(const tapo_config *cfg)
{
    tapo_conv *conv = g_new(tapo_conv, 1);
    tapo_conv_init(conv, cfg);
    return conv;
}

static tapo_connection *start_connection(tapo_conn_table *t, uint32_t hash, const tapo_packet_place *place,
                                         const tapo_segment_fields *seg)
{
    tapo_connection *c = t->hooks.alloc(t->hooks.ctx, sizeof *c);
    c->hash = hash;
    tapo_flow_identity_init(&c->id, seg);
    c->number = t->started++;
    c->start = *place;
    c->conv = new_state(t->cfg);
    c->queue = QUEUE_NONE;
    c->link.data = c;
    c->last_clock_s = place->clock_s;
    move_to(t, c, QUEUE_OPEN);
    tapo_flow_index_add(t->by_key, &c->id.first, hash, c);
    return c;
}

/* ---- stall records ------------------------------------------------------- */

static tapo_stall_record *get_record(void *ctx)
{
    tapo_conn_table *t = ctx;
    if (!t->spare)
        t->spare = t->hooks.alloc(t->hooks.ctx, sizeof *t->spare);
    return &t->spare->rec;
}

static void put_record(void *ctx, tapo_stall_record *rec)
{
    (void)ctx;
    (void)rec;   /* it is the spare: kept for the next possible stall */
}

/* ---- segments ------------------------------------------------------------ */

/* Applies the rules of time to c at the run's clock; false when c ended. */
static bool still_there(tapo_conn_table *t, tapo_connection *c, double clock_s)
{
    double quiet = clock_s - c->last_clock_s;
    if (c->queue == QUEUE_OVER && quiet > t->grace_s) {
        drop_state(c);
        move_to(t, c, QUEUE_DROPPED);
    }
    bool gone = c->queue == QUEUE_DROPPED && quiet > 2 * t->grace_s;
    bool idle = c->queue == QUEUE_OPEN && t->idle_s > 0.0 && quiet > t->idle_s;
    if (gone || idle)
        end_connection(t, c, idle ? TAPO_END_IDLE : TAPO_END_OVER);
    return !(gone || idle);
}

/* How long a connection stays in queue q without a segment; 0: for ever. */
static double queue_timeout_s(const tapo_conn_table *t, int q)
{
    return q == QUEUE_OPEN ? t->idle_s : q == QUEUE_OVER ? t->grace_s : 2 * t->grace_s;
}

void tapo_table_tick(tapo_conn_table *t, double clock_s)
{
    if (t->last_tick_s.known && clock_s - t->last_tick_s.s < TAPO_TABLE_TICK_S)
        return;
    t->last_tick_s = tapo_opt_s_of(clock_s);
    /* A segment does not move its connection in the queue (that would cost
     * every packet): the queues are in the order connections were queued.
     * A head queued long enough ago is due, or was active since and goes
     * to the tail as of its latest segment. */
    for (int q = QUEUE_OPEN; q <= QUEUE_DROPPED; q++) {
        double timeout = queue_timeout_s(t, q);
        while (timeout > 0.0 && t->queues[q].head) {
            tapo_connection *c = t->queues[q].head->data;
            if (clock_s - c->queued_clock_s <= timeout)
                break;
            if (still_there(t, c, clock_s) && c->queue == q)
                move_to(t, c, (uint8_t)q);
        }
    }
}

/* The connection of seg's endpoints (hash: theirs either way round): the
 * latest segment's first, the next one's often. */
static tapo_connection *lookup(tapo_conn_table *t, const tapo_segment_fields *seg, uint32_t hash)
{
    tapo_connection *last = t->last_hit;
    if (last && last->hash == hash && tapo_endpoints_same_flow(&last->id.first, &seg->ends))
        return last;
    return tapo_flow_index_find(t->by_key, &seg->ends, hash);
}

/* Out of line: inlined into the batch's worker loop (which the link-time
 * inliner does or not as unrelated code grows), the per-packet path takes
 * 1.5 % more instructions. */
G_GNUC_NO_INLINE void tapo_table_segment(tapo_conn_table *t, const tapo_packet_place *place,
                                          const tapo_segment_fields *seg, tapo_table_result *out)
{
    uint32_t hash = tapo_endpoints_either_way_hash(&seg->ends);
    tapo_connection *c = lookup(t, seg, hash);
    if (c && !still_there(t, c, place->clock_s))
        c = NULL;
    if (c && tapo_flow_splits(&c->id, seg)) {
        end_connection(t, c, TAPO_END_OVER);
        c = NULL;
    }
    out->started = c == NULL;
    if (!c)
        c = start_connection(t, hash, place, seg);
    t->last_hit = c;
    out->conn = c;
    int from = tapo_flow_endpoint(&c->id, seg);
    tapo_packet p;
    tapo_flow_packet(&c->id, place->frame, place->rel_s, from, seg, &p);
    p.census = &t->ids;
    p.id_order = t->frame_id_order;
    t->frame_id_order = 0;   /* noted once: a segment without its frame's note has none */
    if (!c->conv) {
        /* A segment after the state was dropped: a fresh state goes on. */
        c->conv = new_state(t->cfg);
        tapo_conv_resume(c->conv, &c->summary);
    }
    out->before = c->conv->events;
    tapo_record_pool pool = { get_record, put_record, t };
    tapo_stall_record *rec = tapo_conv_process(c->conv, &p, t->cfg, &pool);
    out->stall = NULL;
    if (rec) {
        tapo_conn_stall *s = t->spare;
        t->spare = NULL;
        s->conn = c;
        s->place = *place;
        if (!t->keep_ended) {
            if (!c->stalls)
                c->stalls = g_ptr_array_new();
            g_ptr_array_add(c->stalls, s);
        }
        out->stall = s;
        const tapo_stall_view *view = &rec->view[rec->sender_at_packet];
        if (c->vantage_note_frame == 0 && view->stalled && view->snap.vantage != TAPO_VANTAGE_SENDER)
            c->vantage_note_frame = rec->frame;
    }
    c->bytes[from] += seg->payload_len;
    c->last = *place;
    c->last_clock_s = place->clock_s;
    uint8_t queue = tapo_conv_is_over(c->conv) ? QUEUE_OVER : QUEUE_OPEN;
    if (c->queue != queue)
        move_to(t, c, queue);
}

void tapo_table_quoted(tapo_conn_table *t, const tapo_segment_fields *seg)
{
    tapo_connection *c = lookup(t, seg, tapo_endpoints_either_way_hash(&seg->ends));
    if (c && tapo_flow_splits(&c->id, seg))
        end_connection(t, c, TAPO_END_OVER);
}

/* The connection of queue q quiet for the longest; NULL when q is empty.
 * The queue is in the order connections were queued, and a connection's
 * latest segment is never earlier than its queuing: the first head not
 * active since it was queued is quiet for longer than any behind it.  The
 * heads active since go to the tail, as of their latest segment, as the
 * tick moves them. */
static tapo_connection *quietest(tapo_conn_table *t, int q)
{
    while (t->queues[q].head) {
        tapo_connection *c = t->queues[q].head->data;
        if (c->last_clock_s <= c->queued_clock_s)
            return c;
        move_to(t, c, (uint8_t)q);
    }
    return NULL;
}

bool tapo_table_evict_oldest(tapo_conn_table *t)
{
    tapo_connection *oldest = NULL;
    for (int q = QUEUE_OPEN; q <= QUEUE_DROPPED; q++) {
        tapo_connection *c = quietest(t, q);
        if (c && (!oldest || c->last_clock_s < oldest->last_clock_s))
            oldest = c;
    }
    if (!oldest)
        return false;
    t->evicted++;
    end_connection(t, oldest, TAPO_END_EVICTED);
    return true;
}

guint tapo_table_size(const tapo_conn_table *t)
{
    return t->by_key->count;
}

void tapo_table_end_all(tapo_conn_table *t)
{
    for (int q = QUEUE_DROPPED; q >= QUEUE_OPEN; q--)
        while (t->queues[q].head)
            end_connection(t, t->queues[q].head->data, TAPO_END_OVER);
    t->last_tick_s = tapo_opt_s_none();   /* the next capture has a clock of its own */
}

void tapo_table_finish(tapo_conn_table *t)
{
    tapo_table_end_all(t);
    if (t->spare)
        release(t, t->spare);
    tapo_flow_index_destroy(t->by_key);
    g_free(t->by_key);
    t->by_key = NULL;
    tapo_id_census_destroy(&t->ids);
}
