/* run.c: see run.h.
 *
 * The reader (the calling thread) decodes frames and hands TCP segments in
 * batches to the worker that owns their connection; each worker keeps its
 * own connections, report and output buffer, so nothing is shared but the
 * output files (one lock) and the queues.  A worker gets a fixed number of
 * batches and returns them when done: the reader waits when a worker falls
 * behind, so memory does not grow with the input.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "run.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "connection_table.h"
#include "verdict.h"
#include "decode.h"

#define BATCH_PACKETS 1024            /* segments per batch, count */
/* Batches a worker owns, count: enough for the reader to run ahead while a
 * worker pauses (writing out ended connections); 32 batches of 1024 items
 * of about 160 bytes are 5 MB per worker (8 made two workers 10 % slower). */
#define BATCHES_PER_WORKER 32
#define EXPIRE_EVERY_S 1.0            /* capture seconds between checks for ended connections */
#define OUTPUT_FLUSH_BYTES 65536      /* a worker's output is written past this, bytes */
#define MESSAGES_PER_FILE 5           /* undecodable frames reported one by one, count */
#define PROGRESS_EVERY_S 1.0          /* wall seconds between progress lines */

/* What a worker does, in the reader's order: every worker sees the
 * expiry points at the same places among its packets whatever the number
 * of workers, so the output does not depend on it. */
typedef enum {
    ITEM_SEGMENT,                     /* a TCP segment */
    ITEM_QUOTED,                      /* a TCP header quoted in an ICMP error */
    ITEM_EXPIRE,                      /* write out connections ended by place.clock_s */
    ITEM_END_ALL                      /* a capture ended: write out every connection */
} item_kind;

typedef struct item {
    item_kind kind;
    tapo_packet_place place;
    tapo_segment_fields seg;
} item;

typedef struct batch {
    unsigned n;
    bool end;                         /* no more input */
    item items[BATCH_PACKETS];
} batch;

typedef struct shared {
    const tapo_run_options *o;
    const char *const *names;         /* file names by index */
    GMutex output_lock;
} shared;

typedef struct worker {
    shared *sh;
    GThread *thread;
    GAsyncQueue *todo;                /* batches to analyse */
    GAsyncQueue *empty;               /* batches the reader may fill */
    batch *filling;                   /* the reader's current batch for this worker */
    tapo_conn_table table;
    tapo_report report;
    GString *stall_out, *flow_out;
} worker;

/* ---- output ---------------------------------------------------------- */

static void flush(worker *w, bool force)
{
    if (!force && w->stall_out->len + w->flow_out->len < OUTPUT_FLUSH_BYTES)
        return;
    g_mutex_lock(&w->sh->output_lock);
    if (w->sh->o->stalls && w->stall_out->len)
        fwrite(w->stall_out->str, 1, w->stall_out->len, w->sh->o->stalls);
    if (w->sh->o->flows && w->flow_out->len)
        fwrite(w->flow_out->str, 1, w->flow_out->len, w->sh->o->flows);
    g_mutex_unlock(&w->sh->output_lock);
    g_string_truncate(w->stall_out, 0);
    g_string_truncate(w->flow_out, 0);
}

static void write_stall(worker *w, const tapo_connection *c, const tapo_conn_stall *s, const tapo_verdict *v)
{
    tapo_report_add_stall(&w->report, v);
    if (!w->sh->o->stalls)
        return;
    char src[TAPO_ADDRESS_TEXT_MAX], dst[TAPO_ADDRESS_TEXT_MAX];
    tapo_row_place place = {
        .file = w->sh->names[s->place.file], .frame = s->place.frame, .time_s = s->place.epoch_s,
        .src = src, .dst = dst, .conn = c->start.frame,
    };
    tapo_endpoint_address(&c->id.first, v->sender, src, &place.sport);
    tapo_endpoint_address(&c->id.first, 1 - v->sender, dst, &place.dport);
    tapo_rows_stall(w->stall_out, w->sh->o->format, &place, v, &c->summary, &w->sh->o->cfg);
    flush(w, false);
}

/* The flow report's line of a connection that ended. */
static tapo_flow_row *flow_row(const worker *w, const tapo_connection *c)
{
    tapo_flow_row *row = g_new0(tapo_flow_row, 1);
    row->file = g_strdup(w->sh->names[c->start.file]);
    row->first_frame = c->start.frame;
    int client = c->summary.initiator.known ? c->summary.initiator.e : 0;
    row->client = tapo_endpoint_text(&c->id.first, client);
    row->server = tapo_endpoint_text(&c->id.first, 1 - client);
    row->start_s = c->start.epoch_s;
    row->duration_s = c->last.rel_s - c->start.rel_s;
    row->bytes_to_server = c->bytes[client];
    row->bytes_to_client = c->bytes[1 - client];
    return row;
}

/* A connection left the table: the final verdict of every stall, then the
 * connection's line. */
static void connection_ended(void *ctx, tapo_connection *c, bool idle)
{
    worker *w = ctx;
    tapo_flow_row *row = flow_row(w, c);
    for (guint i = 0; c->stalls && i < c->stalls->len; i++) {
        const tapo_conn_stall *s = c->stalls->pdata[i];
        tapo_verdict v;
        if (!tapo_conv_verdict(&c->summary, &s->rec, w->table.cfg, true, &v))
            continue;
        write_stall(w, c, s, &v);
        row->stalls++;
        row->stalled_s += v.duration_s;
        row->stalled_by_cause_s[v.cause] += v.duration_s;
        row->vantage = tapo_vantage_name(v.view->snap.vantage);
    }
    if (w->sh->o->flows)
        tapo_rows_flow(w->flow_out, w->sh->o->format, row);
    w->report.idle_flushed += idle;
    tapo_report_add_flow(&w->report, row);
    flush(w, false);
}

static void *heap_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return g_malloc0(size);
}

static void heap_release(void *ctx, void *storage)
{
    (void)ctx;
    g_free(storage);
}

/* ---- workers ----------------------------------------------------------- */

static void worker_init(worker *w, shared *sh)
{
    memset(w, 0, sizeof *w);
    w->sh = sh;
    tapo_report_init(&w->report);
    w->stall_out = g_string_sized_new(OUTPUT_FLUSH_BYTES);
    w->flow_out = g_string_sized_new(OUTPUT_FLUSH_BYTES);
    tapo_table_hooks hooks = { heap_alloc, heap_release, connection_ended, w };
    tapo_table_init(&w->table, &sh->o->cfg, sh->o->grace_s, sh->o->idle_s, false, hooks);
}

static void do_item(worker *w, const item *it)
{
    switch (it->kind) {
    case ITEM_SEGMENT: {
        tapo_table_result ignored;
        tapo_table_segment(&w->table, &it->place, &it->seg, &ignored);
        break;
    }
    case ITEM_QUOTED:
        tapo_table_quoted(&w->table, &it->seg);
        break;
    case ITEM_EXPIRE:
        tapo_table_tick(&w->table, it->place.clock_s);
        break;
    case ITEM_END_ALL:
        tapo_table_end_all(&w->table);
        break;
    }
}

static void analyse(worker *w, const batch *b)
{
    for (unsigned i = 0; i < b->n; i++)
        do_item(w, &b->items[i]);
}

static void worker_finish(worker *w)
{
    tapo_table_finish(&w->table);
    flush(w, true);
}

static gpointer worker_thread(gpointer data)
{
    worker *w = data;
    for (;;) {
        batch *b = g_async_queue_pop(w->todo);
        bool end = b->end;
        analyse(w, b);
        b->n = 0;
        b->end = false;
        g_async_queue_push(w->empty, b);
        if (end)
            break;
    }
    worker_finish(w);
    return NULL;
}

static void workers_start(worker *ws, int n)
{
    for (int i = 0; i < n; i++) {
        ws[i].todo = g_async_queue_new();
        ws[i].empty = g_async_queue_new();
        for (int k = 0; k < BATCHES_PER_WORKER; k++)
            g_async_queue_push(ws[i].empty, g_new0(batch, 1));
        ws[i].filling = g_async_queue_pop(ws[i].empty);
        ws[i].thread = g_thread_new("tapo-worker", worker_thread, &ws[i]);
    }
}

static void send_batch(worker *w, bool end)
{
    w->filling->end = end;
    g_async_queue_push(w->todo, w->filling);
    w->filling = end ? NULL : g_async_queue_pop(w->empty);
}

static void workers_stop(worker *ws, int n)
{
    for (int i = 0; i < n; i++)
        send_batch(&ws[i], true);
    for (int i = 0; i < n; i++) {
        g_thread_join(ws[i].thread);
        batch *b;
        while ((b = g_async_queue_try_pop(ws[i].empty)))
            g_free(b);
        g_async_queue_unref(ws[i].todo);
        g_async_queue_unref(ws[i].empty);
    }
}

/* ---- the reader -------------------------------------------------------- */

typedef struct input {
    tapo_capture *cap;
    uint32_t index;
    const char *name;
    unsigned messages;                /* undecodable frames reported */
    bool pending;                     /* a frame is read and waits (time-ordered merge) */
    tapo_frame frame;
    tapo_decode_result decoded;
    tapo_segment_fields seg;
} input;

typedef struct reader {
    const tapo_run_options *o;
    worker *workers;                  /* NULL with one job */
    worker single;
    int jobs;
    bool have_origin;
    int64_t origin_sec;               /* the run's first frame: relative times start there */
    int32_t origin_nsec;
    double now_rel_s;
    double clock_s;                   /* the latest now_rel_s so far: never goes back */
    double last_expire_s;             /* the clock when connections were last checked for their end */
    tapo_report *report;
    bool complete;                    /* every input read to its end */
    gint64 progress_start_us, progress_last_us;
} reader;

static const char *decode_problem(tapo_decode_result r)
{
    switch (r) {
    case TAPO_DECODE_TRUNCATED: return "the TCP/IP headers were cut by the snaplen";
    case TAPO_DECODE_MALFORMED: return "malformed IP or TCP lengths";
    case TAPO_DECODE_UNKNOWN_LINK: return "a link type the batch analyser does not decode";
    default: return NULL;
    }
}

/* Seconds since the run's first frame, computed as Wireshark computes
 * frame.time_relative (exact nanoseconds, then a double), so that gaps
 * equal the plugin's. */
static double relative_time(reader *r, const tapo_frame *f)
{
    if (!r->have_origin && f->has_time) {
        r->origin_sec = f->time_sec;
        r->origin_nsec = f->time_nsec;
        r->have_origin = true;
    }
    if (!f->has_time || !r->have_origin)
        return r->now_rel_s;
    int64_t sec = f->time_sec - r->origin_sec;
    int64_t nsec = (int64_t)f->time_nsec - r->origin_nsec;
    if (nsec < 0) {
        sec--;
        nsec += 1000000000;
    }
    return (double)sec + (double)nsec / 1e9;
}

/* Queues an item for worker w (or does it at once with no workers). */
static void queue_item(reader *r, worker *w, item_kind kind, const tapo_packet_place *place,
                       const tapo_segment_fields *seg)
{
    if (!r->workers) {
        /* No workers: done at once, nothing copied. */
        item it = { .kind = kind, .place = *place };
        if (seg)
            it.seg = *seg;
        do_item(w, &it);
        return;
    }
    item *it = &w->filling->items[w->filling->n++];
    it->kind = kind;
    it->place = *place;
    if (seg)
        it->seg = *seg;
    if (w->filling->n == BATCH_PACKETS)
        send_batch(w, false);
}

/* Once a second of capture time: every worker checks for ended
 * connections at this point of the input. */
static void schedule_expiry(reader *r, const tapo_packet_place *place)
{
    if (place->clock_s - r->last_expire_s < EXPIRE_EVERY_S)
        return;
    r->last_expire_s = place->clock_s;
    for (int i = 0; i < r->jobs; i++)
        queue_item(r, r->workers ? &r->workers[i] : &r->single, ITEM_EXPIRE, place, NULL);
}

static void dispatch(reader *r, const tapo_packet_place *place, const tapo_segment_fields *seg, bool quoted)
{
    schedule_expiry(r, place);
    if (!quoted)
        r->report->tcp_packets++;
    worker *w = &r->single;
    if (r->workers) {
        tapo_endpoints key;
        tapo_endpoints_canonical(&seg->ends, &key);
        w = &r->workers[tapo_endpoints_hash(&key) % (guint)r->jobs];
    }
    queue_item(r, w, quoted ? ITEM_QUOTED : ITEM_SEGMENT, place, seg);
}

static void progress(reader *r, bool last)
{
    if (!r->o->progress)
        return;
    gint64 now = g_get_monotonic_time();
    if (!last && now - r->progress_last_us < (gint64)(PROGRESS_EVERY_S * 1e6))
        return;
    r->progress_last_us = now;
    double elapsed = (now - r->progress_start_us) / 1e6;
    fprintf(stderr, "\r%" G_GUINT64_FORMAT " packets, %.2f M/s, %.0f s elapsed%s", r->report->packets,
            elapsed > 0 ? r->report->packets / elapsed / 1e6 : 0.0, elapsed, last ? "\n" : "   ");
    fflush(stderr);
}

/* Reads the next frame of an input, decoded; false at its end. */
static bool read_next(reader *r, input *in)
{
    GError *error = NULL;
    if (!tapo_capture_next(in->cap, &in->frame, &error)) {
        if (error) {
            fprintf(stderr, "tapo: %s (the run goes on with the next capture)\n", error->message);
            g_error_free(error);
            r->complete = false;
        }
        return false;
    }
    r->report->packets++;
    in->decoded = in->frame.is_packet
        ? tapo_decode_frame(in->frame.encap, in->frame.data, in->frame.caplen, in->frame.len, &in->seg)
        : TAPO_DECODE_OTHER;
    const char *problem = decode_problem(in->decoded);
    if (problem) {
        r->report->undecodable++;
        if (++in->messages <= MESSAGES_PER_FILE)
            fprintf(stderr, "tapo: %s: frame %u: %s; skipped\n", in->name, in->frame.number, problem);
    }
    return true;
}

static void handle(reader *r, input *in)
{
    r->now_rel_s = relative_time(r, &in->frame);
    if (r->now_rel_s > r->clock_s)
        r->clock_s = r->now_rel_s;
    if (in->decoded == TAPO_DECODE_TCP || in->decoded == TAPO_DECODE_QUOTED) {
        tapo_packet_place place = { in->index, in->frame.number, r->now_rel_s, in->frame.time_s, r->clock_s };
        dispatch(r, &place, &in->seg, in->decoded == TAPO_DECODE_QUOTED);
    }
    progress(r, false);
}

static void close_input(input *in)
{
    if (in->messages > MESSAGES_PER_FILE)
        fprintf(stderr, "tapo: %s: %u frames skipped in all\n", in->name, in->messages);
    tapo_capture_close(in->cap);
    in->cap = NULL;
}

static bool open_input(reader *r, input *in, uint32_t index)
{
    GError *error = NULL;
    memset(in, 0, sizeof *in);
    in->index = index;
    in->name = r->o->files[index];
    in->cap = tapo_capture_open(in->name, &error);
    if (!in->cap) {
        fprintf(stderr, "tapo: %s (skipped)\n", error->message);
        g_error_free(error);
        r->complete = false;
        return false;
    }
    r->report->files++;
    return true;
}

/* An independent capture ends: its connections are written out, and the
 * next one has its own clock. */
static void end_capture(reader *r)
{
    tapo_packet_place place = { 0 };
    for (int i = 0; i < r->jobs; i++)
        queue_item(r, r->workers ? &r->workers[i] : &r->single, ITEM_END_ALL, &place, NULL);
    r->have_origin = false;
    r->now_rel_s = r->clock_s = 0.0;
    r->last_expire_s = -INFINITY;
}

static void read_in_turn(reader *r, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        input in;
        if (!open_input(r, &in, i))
            continue;
        while (read_next(r, &in))
            handle(r, &in);
        close_input(&in);
        if (!r->o->continuous)
            end_capture(r);
    }
}

/* Several captures of overlapping times: the earliest pending frame next. */
static void read_merged(reader *r, uint32_t count)
{
    input *ins = g_new0(input, count);
    for (uint32_t i = 0; i < count; i++)
        if (open_input(r, &ins[i], i))
            ins[i].pending = read_next(r, &ins[i]);
    for (;;) {
        input *next = NULL;
        for (uint32_t i = 0; i < count; i++)
            if (ins[i].pending && (!next || ins[i].frame.time_s < next->frame.time_s))
                next = &ins[i];
        if (!next)
            break;
        handle(r, next);
        next->pending = read_next(r, next);
    }
    for (uint32_t i = 0; i < count; i++)
        if (ins[i].cap)
            close_input(&ins[i]);
    g_free(ins);
}

bool tapo_run(const tapo_run_options *o, tapo_report *report)
{
    uint32_t count = g_strv_length(o->files);
    shared sh = { .o = o, .names = (const char *const *)o->files };
    g_mutex_init(&sh.output_lock);
    reader r = { .o = o, .jobs = o->jobs > 1 ? o->jobs : 1, .report = report, .complete = true,
                 .last_expire_s = -INFINITY };
    r.progress_start_us = r.progress_last_us = g_get_monotonic_time();
    if (r.jobs > 1) {
        r.workers = g_new0(worker, r.jobs);
        for (int i = 0; i < r.jobs; i++)
            worker_init(&r.workers[i], &sh);
        workers_start(r.workers, r.jobs);
    } else {
        worker_init(&r.single, &sh);
    }
    if (o->merge_by_time)
        read_merged(&r, count);
    else
        read_in_turn(&r, count);
    worker *ws = r.workers ? r.workers : &r.single;
    if (r.workers)
        workers_stop(r.workers, r.jobs);
    else
        worker_finish(&r.single);
    for (int i = 0; i < r.jobs; i++) {
        tapo_report_merge(report, &ws[i].report);
        tapo_report_free(&ws[i].report);
        g_string_free(ws[i].stall_out, TRUE);
        g_string_free(ws[i].flow_out, TRUE);
    }
    progress(&r, true);
    g_free(r.workers);
    g_mutex_clear(&sh.output_lock);
    return r.complete;
}
