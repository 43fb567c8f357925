/* run.c: see run.h.
 *
 * Each worker reads every input itself and analyses the connections that
 * hash to it (their endpoints, modulo the number of workers); it sees
 * every TCP segment's time, so that all workers keep the run's one clock
 * and end connections at the same points as a single worker would.  A
 * mapped pcap file costs each extra reader a few dozen instructions a
 * packet, far less than handing packets between threads.  Inputs that can
 * be read only once (a pipe) get one worker.  Each worker keeps its own
 * connections, report and output buffer: nothing is shared but the output
 * files (one lock).
 *
 * Streaming (a live interface, a pipe): rows cannot wait for the end of the
 * input.  A stall's row is written once its settle time has passed on the
 * capture's clock (with the hindsight of that much capture), the outputs
 * flushed; the report still counts final verdicts, when connections end.
 * Episodes are found as stalls settle (episode_stream.h), so that nothing
 * grows with the length of the run.
 *
 * Long runs (metrics.h, memory_cap.h): the run publishes its counts for
 * --metrics as it goes, evicts the quietest connections when the heap
 * passes the memory cap, completes output segments that are old enough and
 * reopens the outputs on SIGHUP, every SETTLE_CHECK_S of the clock and
 * whenever the link is quiet.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "run.h"
#include "base/endpoint_pair.h"

#include <math.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "explain/advice.h"
#include "capture/capture.h"
#include "table/connection_table.h"
#include "wire/decode.h"
#include "table/episode_stalls.h"
#include "episode_stream.h"
#include "live.h"
#include "explain/stall_fields.h"
#include "verdict/verdict.h"
#include "explain/whatif.h"

#define OUTPUT_FLUSH_BYTES 65536      /* a worker's output is written past this, bytes */
#define MESSAGES_PER_FILE 5           /* undecodable frames reported one by one, count */
#define PROGRESS_EVERY_S 1.0          /* wall seconds between progress lines */
#define SETTLE_CHECK_S 0.5            /* capture seconds between looks for settled stalls (streaming) */
#define PUBLISH_EVERY_US 500000       /* wall microseconds between publications of the counts (--metrics) */
#define CAP_CHECK_CONNECTIONS 256     /* new connections between looks at the memory (--memory-limit), count */
#define EVICT_BATCH 64                /* connections evicted at least between looks at the memory, count */
#define EVICT_SHARE 8                 /* or this share of those held (1/8), whichever is more */
#define LONGEST_EPISODE_STALL_S 60.0  /* streaming: a stall longer than this may miss an earlier episode, seconds */
#define STREAM_REPORT_EPISODES 10000  /* streaming: episodes the report lists; the rest are in rows and metrics */

/* Set by a signal: the inputs end at the next frame; the outputs are reopened. */
static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t reopen_requested;

typedef struct shared {
    const tapo_run_options *o;
    const char *const *names;         /* file names by index */
    GMutex output_lock;
} shared;

typedef struct worker {
    shared *sh;
    unsigned index;                   /* analyses the connections that hash to it... */
    unsigned count;                   /* ...modulo the number of workers */
    GThread *thread;
    tapo_conn_table table;
    tapo_report report;
    GString *stall_out, *flow_out, *episode_out;
    uint64_t stall_rows, flow_rows, episode_rows; /* rows in them, count */
    bool complete;                    /* every input read to its end */
    gint64 progress_start_us, progress_last_us;
    GHashTable *pending;              /* streaming: connections with stalls not yet written */
    GArray *episode_stalls;           /* tapo_episode_stall: every stall, for the episodes at the end */
    GArray *episode_places;           /* tapo_row_member: where each is */
    GStringChunk *episode_texts;      /* their scope keys */
    tapo_html_stalls html;            /* every stall for the HTML report, in the order of episode_stalls */
    double settled_check_s;           /* the clock when they were last looked at, seconds */
    uint64_t rows_streamed;           /* stall rows written before their connection ended, count */
    gint64 summary_last_us;           /* wall time of the latest summary line (live) */
    tapo_episode_stream *episodes;    /* streaming: episodes found as stalls settle; NULL: at the end */
    GStringChunk *scratch;            /* texts of the stall being added to it */
    uint64_t episodes_unlisted;       /* streaming: episodes past STREAM_REPORT_EPISODES, count */
    double latest_epoch_s;            /* streaming: the latest frame's time, or the wall's when quiet, seconds */
    uint64_t connections;             /* started, count */
    tapo_memory_cap cap;              /* --memory-limit: this worker's marks (they adapt); a zero limit: none */
    unsigned since_cap_check;         /* connections started since the heap was looked at, count */
    gint64 published_us;              /* wall time of the latest publication (--metrics) */
} worker;

/* ---- output ---------------------------------------------------------- */

/* The outputs' counts, for --metrics (under the output lock). */
static void publish_outputs(const tapo_run_options *o)
{
    const tapo_output *outs[3] = { o->stalls, o->flows, o->episodes };
    static const char *const names[3] = { "stalls", "flows", "episodes" };
    for (int i = 0; i < 3; i++)
        if (outs[i]) {
            tapo_metrics_output counts = { outs[i]->rows, outs[i]->rows_lost, outs[i]->files };
            tapo_metrics_set_output(o->metrics, names[i], &counts);
        }
}

/* Writes the worker's buffered rows out (force: whatever their size; a
 * streaming run also pushes them to the files). */
static void flush(worker *w, bool force)
{
    if (!force && w->stall_out->len + w->flow_out->len + w->episode_out->len < OUTPUT_FLUSH_BYTES)
        return;
    const tapo_run_options *o = w->sh->o;
    tapo_output *outs[3] = { o->stalls, o->flows, o->episodes };
    GString *bufs[3] = { w->stall_out, w->flow_out, w->episode_out };
    uint64_t *rows[3] = { &w->stall_rows, &w->flow_rows, &w->episode_rows };
    g_mutex_lock(&w->sh->output_lock);
    for (int i = 0; i < 3; i++) {
        if (outs[i] && bufs[i]->len)
            tapo_output_write_rows(outs[i], bufs[i]->str, bufs[i]->len, *rows[i]);
        if (outs[i] && o->stream)
            tapo_output_flush(outs[i]);
        g_string_truncate(bufs[i], 0);
        *rows[i] = 0;
    }
    if (o->metrics)
        publish_outputs(o);
    g_mutex_unlock(&w->sh->output_lock);
}

static void write_stall(worker *w, const tapo_connection *c, const tapo_conn_stall *s, const tapo_verdict *v)
{
    if (!w->sh->o->stalls)
        return;
    char src[TAPO_ADDRESS_TEXT_MAX], dst[TAPO_ADDRESS_TEXT_MAX];
    tapo_endpoint_names names;
    tapo_endpoint_names_of(&c->id.first, &names);
    tapo_row_place place = {
        .file = w->sh->names[s->place.file], .frame = s->place.frame, .time_s = s->place.epoch_s,
        .src = src, .dst = dst, .conn = c->start.frame, .sender = names.name[v->sender], .names = &names,
    };
    /* The packet's own direction: from the sender, or to it. */
    int from = v->view->snap.cur.dir == TAPO_DIR_OUT ? v->sender : tapo_peer_of(v->sender);
    tapo_endpoint_address(&c->id.first, from, src, &place.sport);
    tapo_endpoint_address(&c->id.first, tapo_peer_of(from), dst, &place.dport);
    tapo_rows_stall(w->stall_out, w->sh->o->format, &place, v, &c->summary, &w->sh->o->cfg);
    w->stall_rows++;
    flush(w, false);
}

/* A stall's row is decided (streamed, or final when its connection
 * ended): written, counted for --metrics, and, streaming, grouped. */
static void stall_decided(worker *w, tapo_connection *c, const tapo_conn_stall *s, const tapo_verdict *v)
{
    write_stall(w, c, s, v);
    if (w->sh->o->metrics) {
        tapo_basis basis;
        int client = tapo_conv_client(&c->summary, &basis);
        char *server = tapo_endpoint_text(&c->id.first, tapo_peer_of(client));
        tapo_metrics_stall(w->sh->o->metrics, v, server);
        g_free(server);
    }
    if (w->episodes) {
        tapo_episode_stall es;
        tapo_episode_stall_describe(c, s, v, w->scratch, &es);
        tapo_episode_stream_add(w->episodes, &es, w->sh->names[s->place.file], s->place.frame);
        g_string_chunk_clear(w->scratch);
    }
}

/* The hint of the latest stall of the flow's dominant cause, as its
 * stall row says it (the Lua companion's advice). */
static char *flow_advice(const worker *w, const tapo_connection *c, const tapo_flow_row *row,
                         const int latest_of_cause[TAPO_CAUSE_COUNT])
{
    tapo_cause dominant = tapo_flow_dominant(row);
    tapo_verdict v;
    if (dominant == TAPO_CAUSE_COUNT || latest_of_cause[dominant] < 0)
        return NULL;
    const tapo_conn_stall *s = c->stalls->pdata[latest_of_cause[dominant]];
    if (!tapo_conv_verdict(&c->summary, &s->rec, w->table.cfg, true, &v))
        return NULL;
    tapo_endpoint_names names;
    tapo_endpoint_names_of(&c->id.first, &names);
    char hint[TAPO_HINT_LINE_MAX];
    tapo_advice(&v, &c->summary, &names, hint);
    return g_strdup(hint);
}

/* The endpoints' names in the flow report's line of c. */
static void name_flow_row(const tapo_connection *c, tapo_flow_row *row)
{
    tapo_basis basis;
    int client = tapo_conv_client(&c->summary, &basis);
    row->client = tapo_endpoint_text(&c->id.first, client);
    row->server = tapo_endpoint_text(&c->id.first, tapo_peer_of(client));
}

/* The flow report's line of a connection that ended, without the names
 * (name_flow_row) and the advice: the line of most connections is only
 * counted. */
static tapo_flow_row *flow_row(const worker *w, const tapo_connection *c)
{
    tapo_flow_row *row = g_new0(tapo_flow_row, 1);
    row->file = g_strdup(w->sh->names[c->start.file]);
    row->first_frame = c->start.frame;
    tapo_basis basis;
    int client = tapo_conv_client(&c->summary, &basis);
    row->start_s = c->start.epoch_s;
    row->duration_s = c->last.rel_s - c->start.rel_s;
    row->bytes_to_server = c->bytes[client];
    row->bytes_to_client = c->bytes[tapo_peer_of(client)];
    return row;
}

/* Stall s of connection c as the HTML report shows it; label: "client ->
 * server". */
static void add_html_stall(worker *w, const tapo_connection *c, const tapo_conn_stall *s, const tapo_verdict *v,
                           const char *label)
{
    tapo_endpoint_names names;
    tapo_endpoint_names_of(&c->id.first, &names);
    tapo_field_value fields[TAPO_F_COUNT];
    tapo_field_text text;
    tapo_stall_fields(v, &c->summary, w->table.cfg, &names, NULL, fields, &text);
    tapo_html_stall h = {
        .file = w->sh->names[s->place.file], .conn_frame = c->start.frame, .frame = s->place.frame,
        .label = label, .ends = c->id.first, .sender = (uint8_t)v->sender,
        .start_s = s->place.epoch_s - v->duration_s, .end_s = s->place.epoch_s, .duration_s = v->duration_s,
        .cause = v->cause, .phase = v->phase, .confidence = v->confidence,
        .saving_s = fields[TAPO_F_SAVING].present ? fields[TAPO_F_SAVING].d : 0.0,
        .retransmission = fields[TAPO_F_RETRANSMISSION].b,
        .rule = fields[TAPO_F_RULE].present ? fields[TAPO_F_RULE].s : NULL,
        .hint = fields[TAPO_F_HINT].present ? fields[TAPO_F_HINT].s : NULL,
    };
    static const tapo_field_id evidence[] = { TAPO_F_ORIG_FRAME, TAPO_F_PREV_RETRANS_FRAME,
                                              TAPO_F_LOSS_SIGNAL_FRAME, TAPO_F_DSACK_FRAME };
    for (unsigned k = 0; k < G_N_ELEMENTS(evidence); k++)
        h.evidence[k] = fields[evidence[k]].present ? fields[evidence[k]].u : 0;
    tapo_html_stalls_add(&w->html, &h);
}

/* A connection left the table: the final verdict of every stall, then the
 * connection's line. */
static void connection_ended(void *ctx, tapo_connection *c, tapo_end_reason why)
{
    worker *w = ctx;
    tapo_flow_row *row = flow_row(w, c);
    int latest_of_cause[TAPO_CAUSE_COUNT];
    for (int k = 0; k < TAPO_CAUSE_COUNT; k++)
        latest_of_cause[k] = -1;
    if (w->sh->o->html)
        name_flow_row(c, row);
    char *label = w->sh->o->html ? g_strdup_printf("%s -> %s", row->client, row->server) : NULL;
    tapo_episode_stall common;   /* what the connection's stalls share in the episodes */
    bool described = false;
    for (guint i = 0; c->stalls && i < c->stalls->len; i++) {
        const tapo_conn_stall *s = c->stalls->pdata[i];
        tapo_verdict v;
        if (!tapo_conv_verdict(&c->summary, &s->rec, w->table.cfg, true, &v))
            continue;
        latest_of_cause[v.cause] = (int)i;
        tapo_report_add_stall(&w->report, &v);
        if (!w->episodes) {
            if (!described)
                tapo_episode_connection_describe(c, w->episode_texts, &common);
            described = true;
            tapo_episode_stall es = common;
            tapo_episode_stall_place(s, &v, &es);
            tapo_row_member where = { w->sh->names[s->place.file], s->place.frame };
            g_array_append_val(w->episode_stalls, es);
            g_array_append_val(w->episode_places, where);
        }
        if (label)
            add_html_stall(w, c, s, &v, label);
        if (i >= c->rows_written)
            stall_decided(w, c, s, &v);
        row->stalls++;
        row->stalled_s += v.duration_s;
        row->stalled_by_cause_s[v.cause] += v.duration_s;
        row->vantage = tapo_vantage_name(v.view->snap.vantage);
        row->low_confidence += v.confidence == TAPO_CONFIDENCE_LOW;
        row->handshake_stalls += v.phase == TAPO_PHASE_HANDSHAKE;
        row->teardown_stalls += v.phase == TAPO_PHASE_TEARDOWN;
        tapo_whatif what;
        if (tapo_whatif_of(&v, &what))
            row->saving_s += what.saving_s;
    }
    g_free(label);
    /* Names and advice only for a line that is written or listed. */
    if (!row->client && (w->sh->o->flows || tapo_report_lists(&w->report, row)))
        name_flow_row(c, row);
    if (row->client)
        row->advice = flow_advice(w, c, row, latest_of_cause);
    if (w->sh->o->flows) {
        tapo_rows_flow(w->flow_out, w->sh->o->format, row);
        w->flow_rows++;
    }
    w->report.idle_flushed += why == TAPO_END_IDLE;
    tapo_report_add_flow(&w->report, row);
    if (w->pending)
        g_hash_table_remove(w->pending, c);
    flush(w, w->sh->o->stream);
}

/* ---- streaming ------------------------------------------------------------- */

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
            stall_decided(w, c, s, &v);
            w->rows_streamed++;
        }
        c->rows_written++;
    }
    return true;
}

static void write_all_settled(worker *w, double clock_s)
{
    if (!w->pending || g_hash_table_size(w->pending) == 0)
        return;
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, w->pending);
    while (g_hash_table_iter_next(&it, &key, NULL))
        if (write_settled(w, key, clock_s))
            g_hash_table_iter_remove(&it);
    flush(w, true);
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
static void close_episodes(worker *w, bool all)
{
    if (!w->episodes)
        return;
    tapo_episode_stream_close(w->episodes, w->latest_epoch_s, all, stream_episode, w);
    flush(w, true);
}

/* ---- long runs ----------------------------------------------------------- */

static tapo_live *volatile live_source;
static bool speaks(const worker *w);

/* The worker's counts, for --metrics (force: now, else at most every
 * PUBLISH_EVERY_US). */
static void publish(worker *w, bool force)
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
    tapo_live *live = live_source;
    if (live) {
        uint64_t kernel, interface;
        tapo_live_drops(live, &kernel, &interface);
        tapo_metrics_set_drops(o->metrics, kernel, interface);
    }
    if (speaks(w)) {
        g_mutex_lock(&w->sh->output_lock);
        publish_outputs(o);
        g_mutex_unlock(&w->sh->output_lock);
        tapo_metrics_set_memory(o->metrics, tapo_memory_heap(), o->memory ? o->memory->limit_bytes : 0);
    }
}

/* --memory-limit: past the heap's high mark, the quietest connections are
 * written out and freed, down to the low mark (memory_cap.h). */
static void keep_under_cap(worker *w)
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
        flush(w, true);
    }
    if (before == 0 && w->table.evicted > 0 && speaks(w))
        fprintf(stderr, "tapo: the memory neared --memory-limit %" G_GUINT64_FORMAT " MiB: the quietest connections "
                "are written out early (tapo_connections_evicted_total)\n", w->cap.limit_bytes >> 20);
}

/* Every SETTLE_CHECK_S of the clock and whenever the link is quiet. */
static void upkeep(worker *w)
{
    const tapo_run_options *o = w->sh->o;
    if (reopen_requested && speaks(w)) {
        reopen_requested = 0;
        g_mutex_lock(&w->sh->output_lock);
        tapo_output *outs[3] = { o->stalls, o->flows, o->episodes };
        for (int i = 0; i < 3; i++)
            if (outs[i])
                tapo_output_reopen(outs[i]);
        g_mutex_unlock(&w->sh->output_lock);
        fprintf(stderr, "tapo: SIGHUP: outputs reopened\n");
    }
    if (o->stalls && speaks(w)) {
        g_mutex_lock(&w->sh->output_lock);
        tapo_output_tick(o->stalls);
        g_mutex_unlock(&w->sh->output_lock);
    }
    close_episodes(w, false);
    keep_under_cap(w);
    publish(w, false);
}

/* ---- reading ------------------------------------------------------------- */

typedef struct input {
    tapo_capture *cap;
    uint32_t index;
    const char *name;
    unsigned messages;                /* undecodable frames reported */
    bool pending;                     /* a frame is read and waits (time-ordered merge) */
    tapo_frame frame;
} input;

/* The first worker speaks for all: they read the same inputs. */
static bool speaks(const worker *w)
{
    return w->index == 0;
}

static const char *decode_problem(tapo_decode_result r)
{
    switch (r) {
    case TAPO_DECODE_TRUNCATED: return "the TCP/IP headers were cut by the snaplen";
    case TAPO_DECODE_MALFORMED: return "malformed IP or TCP lengths";
    case TAPO_DECODE_UNKNOWN_LINK: return "a link type the batch analyser does not decode";
    default: return NULL;
    }
}

static void progress(worker *w, bool last)
{
    if (!w->sh->o->progress || !speaks(w))
        return;
    gint64 now = g_get_monotonic_time();
    if (!last && now - w->progress_last_us < (gint64)(PROGRESS_EVERY_S * 1e6))
        return;
    w->progress_last_us = now;
    double elapsed = (now - w->progress_start_us) / 1e6;
    fprintf(stderr, "\r%" G_GUINT64_FORMAT " packets, %.2f M/s, %.0f s elapsed%s", w->report.packets,
            elapsed > 0 ? w->report.packets / elapsed / 1e6 : 0.0, elapsed, last ? "\n" : "   ");
    fflush(stderr);
}

/* Reads the next frame of an input; false at its end. */
static bool read_next(worker *w, input *in)
{
    GError *error = NULL;
    if (!tapo_capture_next(in->cap, &in->frame, &error)) {
        if (error) {
            if (speaks(w))
                fprintf(stderr, "tapo: %s (the run goes on with the next capture)\n", error->message);
            g_error_free(error);
            w->complete = false;
        }
        return false;
    }
    if (speaks(w))
        w->report.packets++;
    return true;
}

/* The run's clock and where the next frame sits on it. */
typedef struct run_clock {
    tapo_rel_clock rel;               /* times since the capture's (or the run's) first frame */
    double clock_s;                   /* the latest relative time so far: never goes back */
} run_clock;

static void handle(worker *w, input *in, run_clock *k)
{
    const tapo_frame *f = &in->frame;
    double rel_s = tapo_rel_time(&k->rel, f);
    if (rel_s > k->clock_s)
        k->clock_s = rel_s;
    if (f->time_s > w->latest_epoch_s)
        w->latest_epoch_s = f->time_s;
    /* With several workers, whose connection it is comes first: the
     * options of others' segments are not read. */
    tapo_segment_fields seg = { .ends.family = 0 };
    tapo_decode_result decoded = !f->is_packet ? TAPO_DECODE_OTHER
        : w->count > 1 ? tapo_decode_frame_endpoints(f->encap, f->data, f->caplen, f->len, &seg)
        : tapo_decode_frame(f->encap, f->data, f->caplen, f->len, &seg);
    const char *problem = decode_problem(decoded);
    if (problem && speaks(w)) {
        w->report.undecodable++;
        if (++in->messages <= MESSAGES_PER_FILE)
            fprintf(stderr, "tapo: %s: frame %u: %s; skipped\n", in->name, f->number, problem);
    }
    tapo_table_frame(&w->table, &seg, decoded);
    if (decoded == TAPO_DECODE_TCP || decoded == TAPO_DECODE_QUOTED) {
        tapo_table_tick(&w->table, k->clock_s);
        if (w->count > 1) {
            if (tapo_endpoints_either_way_hash(&seg.ends) % w->count != w->index)
                return;   /* another worker's connection */
            if (decoded == TAPO_DECODE_TCP)
                tapo_decode_options(&seg);   /* its own segment: decoded once */
        }
        if (decoded == TAPO_DECODE_QUOTED) {
            tapo_table_quoted(&w->table, &seg);
            return;
        }
        w->report.tcp_packets++;
        tapo_packet_place place = { in->index, f->number, rel_s, f->time_s, k->clock_s };
        tapo_table_result result;
        tapo_table_segment(&w->table, &place, &seg, &result);
        if (w->pending && result.stall) {
            g_hash_table_add(w->pending, result.conn);
            if (w->sh->o->settle_s <= 0.0)
                write_all_settled(w, k->clock_s);
        }
        /* Last: an eviction may end the segment's own connection. */
        if (result.started) {
            w->connections++;
            if (w->cap.limit_bytes && ++w->since_cap_check >= CAP_CHECK_CONNECTIONS)
                keep_under_cap(w);
        }
    }
    if (k->clock_s - w->settled_check_s >= SETTLE_CHECK_S || reopen_requested) {
        w->settled_check_s = k->clock_s;
        if (w->pending)
            write_all_settled(w, k->clock_s);
        upkeep(w);
    }
    progress(w, false);
}

static void close_input(worker *w, input *in)
{
    if (in->messages > MESSAGES_PER_FILE && speaks(w))
        fprintf(stderr, "tapo: %s: %u frames skipped in all\n", in->name, in->messages);
    tapo_capture_close(in->cap);
    in->cap = NULL;
}

static bool open_input(worker *w, input *in, uint32_t index)
{
    GError *error = NULL;
    memset(in, 0, sizeof *in);
    in->index = index;
    in->name = w->sh->o->files[index];
    in->cap = tapo_capture_open(in->name, &error);
    if (!in->cap) {
        if (speaks(w))
            fprintf(stderr, "tapo: %s (skipped)\n", error->message);
        g_error_free(error);
        w->complete = false;
        return false;
    }
    if (speaks(w))
        w->report.files++;
    return true;
}

/* Independent captures: each is analysed as if alone, with a clock of its
 * own and its connections ended at its end; consecutive parts of one
 * (continuous) go on from file to file. */
static void read_in_turn(worker *w, uint32_t count)
{
    run_clock k = { 0 };
    for (uint32_t i = 0; i < count; i++) {
        input in;
        if (!open_input(w, &in, i))
            continue;
        while (!stop_requested && read_next(w, &in))
            handle(w, &in, &k);
        close_input(w, &in);
        if (!w->sh->o->continuous) {
            tapo_table_end_all(&w->table);
            close_episodes(w, true);
            k = (run_clock){ 0 };
        }
    }
}

/* Several captures of overlapping times: the earliest pending frame next. */
static void read_merged(worker *w, uint32_t count)
{
    run_clock k = { 0 };
    input *ins = g_new0(input, count);
    for (uint32_t i = 0; i < count; i++)
        if (open_input(w, &ins[i], i))
            ins[i].pending = read_next(w, &ins[i]);
    while (!stop_requested) {
        input *next = NULL;
        for (uint32_t i = 0; i < count; i++)
            if (ins[i].pending && (!next || ins[i].frame.time_s < next->frame.time_s))
                next = &ins[i];
        if (!next)
            break;
        handle(w, next, &k);
        next->pending = read_next(w, next);
    }
    for (uint32_t i = 0; i < count; i++)
        if (ins[i].cap)
            close_input(w, &ins[i]);
    g_free(ins);
}

/* ---- a live interface -------------------------------------------------------- */

/* The summary line of a live run on stderr, every interval. */
static void summary_line(worker *w, bool force)
{
    const tapo_run_options *o = w->sh->o;
    gint64 now = g_get_monotonic_time();
    if (o->interval_s <= 0.0 || (!force && now - w->summary_last_us < (gint64)(o->interval_s * 1e6)))
        return;
    w->summary_last_us = now;
    GDateTime *t = g_date_time_new_now_local();
    char *when = g_date_time_format(t, "%H:%M:%S");
    uint64_t kernel = 0, interface = 0;
    tapo_live_drops(live_source, &kernel, &interface);
    fprintf(stderr, "tapo: %s %s: %" G_GUINT64_FORMAT " packets (%" G_GUINT64_FORMAT " TCP), %u connections "
            "open, %" G_GUINT64_FORMAT " stalls written, %" G_GUINT64_FORMAT " dropped by the kernel, %"
            G_GUINT64_FORMAT " by the interface, %" G_GUINT64_FORMAT " connections evicted\n", when, o->interface,
            w->report.packets, w->report.tcp_packets, tapo_table_size(&w->table), w->rows_streamed, kernel,
            interface, w->table.evicted);
    g_free(when);
    g_date_time_unref(t);
}

/* While the link is quiet the capture's clock follows the wall clock, so
 * that stalls settle and idle connections end. */
static void quiet(worker *w, run_clock *k, double first_epoch_s)
{
    double now_s = g_get_real_time() / 1e6, now_rel = now_s - first_epoch_s;
    if (first_epoch_s > 0.0 && now_rel > k->clock_s) {
        k->clock_s = now_rel;
        w->latest_epoch_s = MAX(w->latest_epoch_s, now_s);
        tapo_table_tick(&w->table, k->clock_s);
        write_all_settled(w, k->clock_s);
    }
    upkeep(w);
}

static void read_live(worker *w)
{
    GError *error = NULL;
    tapo_live *live = tapo_live_open(w->sh->o->interface, w->sh->o->capture_filter, w->sh->o->buffer_bytes, &error);
    if (!live) {
        fprintf(stderr, "tapo: %s\n", error->message);
        g_error_free(error);
        w->complete = false;
        return;
    }
    live_source = live;
    if (stop_requested)
        tapo_live_stop(live);
    input in = { .index = 0, .name = w->sh->o->interface };
    run_clock k = { 0 };
    double first_epoch_s = 0.0;
    w->report.files++;
    for (;;) {
        tapo_live_result r = tapo_live_next(live, &in.frame, &error);
        if (r == TAPO_LIVE_STOPPED)
            break;
        if (r == TAPO_LIVE_FRAME) {
            w->report.packets++;
            if (first_epoch_s == 0.0)
                first_epoch_s = in.frame.time_s;
            handle(w, &in, &k);
        } else {
            quiet(w, &k, first_epoch_s);
        }
        summary_line(w, false);
    }
    if (error) {
        fprintf(stderr, "tapo: %s\n", error->message);
        g_error_free(error);
        w->complete = false;
    }
    summary_line(w, true);
    publish(w, true);
    live_source = NULL;
    tapo_live_close(live);
}

void tapo_run_reopen(void)
{
    reopen_requested = 1;
}

void tapo_run_stop(void)
{
    stop_requested = 1;
    tapo_live *live = live_source;
    if (live)
        tapo_live_stop(live);
}

bool tapo_input_streams(const char *path)
{
    return strcmp(path, "-") == 0 || !g_file_test(path, G_FILE_TEST_IS_REGULAR);
}

/* ---- workers ------------------------------------------------------------- */

static void worker_init(worker *w, shared *sh, unsigned index, unsigned count)
{
    memset(w, 0, sizeof *w);
    w->sh = sh;
    w->index = index;
    w->count = count;
    w->complete = true;
    tapo_report_init(&w->report);
    w->stall_out = g_string_sized_new(OUTPUT_FLUSH_BYTES);
    w->flow_out = g_string_sized_new(OUTPUT_FLUSH_BYTES);
    w->episode_out = g_string_new("");
    if (sh->o->memory)
        w->cap = *sh->o->memory;
    if (sh->o->stream && !sh->o->html) {
        w->episodes = tapo_episode_stream_new(sh->o->cfg.episode_min_connections,
                                              sh->o->settle_s + SETTLE_CHECK_S + LONGEST_EPISODE_STALL_S);
        w->scratch = g_string_chunk_new(256);
    }
    if (sh->o->stream)
        w->pending = g_hash_table_new(g_direct_hash, g_direct_equal);
    w->summary_last_us = g_get_monotonic_time();
    w->episode_stalls = g_array_new(FALSE, FALSE, sizeof(tapo_episode_stall));
    w->episode_places = g_array_new(FALSE, FALSE, sizeof(tapo_row_member));
    w->episode_texts = g_string_chunk_new(4096);
    if (sh->o->html)
        tapo_html_stalls_init(&w->html);
    tapo_table_hooks hooks = { heap_alloc, heap_release, connection_ended, w };
    tapo_table_init(&w->table, &sh->o->cfg, sh->o->grace_s, sh->o->idle_s, false, hooks);
    w->progress_start_us = w->progress_last_us = g_get_monotonic_time();
}

static gpointer worker_run(gpointer data)
{
    worker *w = data;
    uint32_t count = w->sh->o->files ? g_strv_length(w->sh->o->files) : 0;
    if (w->sh->o->interface)
        read_live(w);
    else if (w->sh->o->merge_by_time)
        read_merged(w, count);
    else
        read_in_turn(w, count);
    tapo_table_finish(&w->table);
    close_episodes(w, true);
    flush(w, true);
    publish(w, true);
    progress(w, true);
    return NULL;
}

/* Every input is a file that each worker can open and read for itself. */
static bool inputs_rereadable(const tapo_run_options *o)
{
    if (o->interface)
        return false;
    for (char **f = o->files; *f; f++)
        if (tapo_input_streams(*f))
            return false;
    return true;
}

/* ---- episodes ------------------------------------------------------------- */

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

/* The episodes of every capture set (each capture, unless --continuous or
 * --merge-by-time make them one), into the report and --episodes. */
static void find_episodes(const tapo_run_options *o, worker *ws, unsigned jobs, tapo_report *report)
{
    GArray *all = g_array_new(FALSE, FALSE, sizeof(located));
    for (unsigned i = 0; i < jobs; i++)
        for (guint k = 0; k < ws[i].episode_stalls->len; k++) {
            located l = { g_array_index(ws[i].episode_stalls, tapo_episode_stall, k),
                          g_array_index(ws[i].episode_places, tapo_row_member, k), 0, i, k };
            l.set = o->continuous || o->merge_by_time ? 0 : (uint32_t)(l.stall.connection >> 32);
            g_array_append_val(all, l);
        }
    g_array_sort(all, by_set);   /* an empty array's data is NULL, which qsort may not take */
    GString *rows = g_string_new("");
    for (guint from = 0; from < all->len;) {
        guint to = from;
        while (to < all->len && g_array_index(all, located, to).set == g_array_index(all, located, from).set)
            to++;
        guint n = to - from;
        tapo_episode_stall *stalls = g_new(tapo_episode_stall, n);
        for (guint k = 0; k < n; k++)
            stalls[k] = g_array_index(all, located, from + k).stall;
        GArray *eps = tapo_episodes_find(stalls, n, o->cfg.episode_min_connections);
        for (guint k = 0; k < n; k++)
            g_array_index(all, located, from + k).stall.episode = stalls[k].episode;
        qsort(&g_array_index(all, located, from), n, sizeof(located), by_episode);
        guint first_id = report->episodes->len;
        for (guint e = 0; e < eps->len; e++) {
            tapo_episode *ep = &g_array_index(eps, tapo_episode, e);
            GArray *members = g_array_new(FALSE, FALSE, sizeof(tapo_row_member));
            for (guint k = from; k < to; k++)
                if (g_array_index(all, located, k).stall.episode == ep->id)
                    g_array_append_val(members, g_array_index(all, located, k).where);
            const char *file = ((tapo_row_member *)(void *)members->data)[0].file;
            tapo_report_add_episode(report, ep, file);
            ep->id = first_id + e + 1;
            if (o->episodes)
                tapo_rows_episode(rows, o->format, ep, file, (const tapo_row_member *)(void *)members->data,
                                  members->len);
            g_array_free(members, TRUE);
        }
        for (guint k = from; o->html && k < to; k++) {
            const located *l = &g_array_index(all, located, k);
            if (l->stall.episode)
                g_array_index(ws[l->worker].html.stalls, tapo_html_stall, l->index).episode =
                    first_id + l->stall.episode;
        }
        g_array_free(eps, TRUE);
        g_free(stalls);
        from = to;
    }
    if (o->episodes)
        tapo_output_write(o->episodes, rows->str, rows->len);
    g_string_free(rows, TRUE);
    g_array_free(all, TRUE);
}

bool tapo_run(const tapo_run_options *o, tapo_report *report)
{
    const char *live_names[1] = { o->interface };
    shared sh = { .o = o, .names = o->interface ? live_names : (const char *const *)o->files };
    g_mutex_init(&sh.output_lock);
    unsigned jobs = o->jobs > 1 && inputs_rereadable(o) ? (unsigned)o->jobs : 1;
    worker *ws = g_new0(worker, jobs);
    for (unsigned i = 0; i < jobs; i++)
        worker_init(&ws[i], &sh, i, jobs);
    if (jobs == 1) {
        worker_run(&ws[0]);
    } else {
        for (unsigned i = 0; i < jobs; i++)
            ws[i].thread = g_thread_new("tapo-worker", worker_run, &ws[i]);
        for (unsigned i = 0; i < jobs; i++)
            g_thread_join(ws[i].thread);
    }
    bool complete = true;
    for (unsigned i = 0; i < jobs; i++) {
        complete = complete && ws[i].complete;
        tapo_report_merge(report, &ws[i].report);
    }
    find_episodes(o, ws, jobs, report);
    for (unsigned i = 0; i < jobs; i++) {
        for (guint k = 0; o->html && k < ws[i].html.stalls->len; k++)
            tapo_html_stalls_add(o->html, &g_array_index(ws[i].html.stalls, tapo_html_stall, k));
        tapo_html_stalls_free(&ws[i].html);
        g_array_free(ws[i].episode_stalls, TRUE);
        g_array_free(ws[i].episode_places, TRUE);
        g_string_chunk_free(ws[i].episode_texts);
        tapo_report_free(&ws[i].report);
        g_string_free(ws[i].stall_out, TRUE);
        g_string_free(ws[i].flow_out, TRUE);
        g_string_free(ws[i].episode_out, TRUE);
        tapo_episode_stream_free(ws[i].episodes);
        if (ws[i].scratch)
            g_string_chunk_free(ws[i].scratch);
        if (ws[i].episodes_unlisted)
            fprintf(stderr, "tapo: %" G_GUINT64_FORMAT " more episodes are in --episodes and the metrics, not "
                    "in the report\n", ws[i].episodes_unlisted);
        if (ws[i].pending)
            g_hash_table_destroy(ws[i].pending);
    }
    g_free(ws);
    g_mutex_clear(&sh.output_lock);
    return complete;
}
