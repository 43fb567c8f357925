/* run_outputs.c: what a connection that ended writes (run_worker.h): its
 * stalls' rows with their final verdicts (unless streamed already), its
 * flow row, its part of the report, the HTML report's stalls and the
 * stalls the episodes are found among.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "run_worker.h"

#include "base/endpoint_pair.h"
#include "explain/advice.h"
#include "explain/stall_fields.h"
#include "table/episode_stalls.h"
#include "verdict/verdict.h"

/* The outputs' counts, for --metrics (under the output lock). */
void tapo_run_publish_outputs(const tapo_run_options *o)
{
    const tapo_output *outs[3] = { o->stalls, o->flows, o->episodes };
    static const char *const names[3] = { "stalls", "flows", "episodes" };
    for (int i = 0; i < 3; i++)
        if (outs[i]) {
            tapo_metrics_output counts = { outs[i]->rows, outs[i]->rows_lost, outs[i]->files };
            tapo_metrics_set_output(o->metrics, names[i], &counts);
        }
}

/* The stalls whose rows were just written counted, and the outputs'
 * counts, in one step: a scrape sees a stall and its row together. */
static void publish_rows(worker *w)
{
    tapo_metrics *m = w->sh->o->metrics;
    tapo_metrics_hold(m);
    for (guint i = 0; i < w->stall_notes->len; i++)
        tapo_metrics_stall(m, &g_array_index(w->stall_notes, tapo_metrics_stall_note, i));
    g_array_set_size(w->stall_notes, 0);
    tapo_run_publish_outputs(w->sh->o);
    tapo_metrics_release(m);
}

/* Writes the worker's buffered rows out (force: whatever their size; a
 * streaming run also pushes them to the files). */
void worker_flush(worker *w, bool force)
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
        publish_rows(w);
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
    worker_flush(w, false);
}

/* A stall's row is decided (streamed, or final when its connection
 * ended): written, counted for --metrics, and, streaming, grouped. */
void worker_stall_decided(worker *w, tapo_connection *c, const tapo_conn_stall *s, const tapo_verdict *v)
{
    write_stall(w, c, s, v);
    if (w->sh->o->metrics) {
        tapo_basis basis;
        int client = tapo_conv_client(&c->summary, &basis);
        char *server = tapo_endpoint_text(&c->id.first, tapo_peer_of(client));
        tapo_metrics_stall_note note = tapo_metrics_stall_note_of(v, server);
        g_array_append_val(w->stall_notes, note);   /* counted when its row is written */
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
static char *flow_advice(const worker *w, const tapo_connection *c, const tapo_flow_row *row)
{
    uint32_t place = tapo_flow_advice_place(row);   /* the stall's index in c->stalls, + 1 */
    tapo_verdict v;
    if (place == 0)
        return NULL;
    const tapo_conn_stall *s = c->stalls->pdata[place - 1];
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
void worker_connection_ended(void *ctx, tapo_connection *c, tapo_end_reason why)
{
    worker *w = ctx;
    tapo_flow_row *row = flow_row(w, c);
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
            worker_stall_decided(w, c, s, &v);
        tapo_flow_add_stall(row, &v, i + 1);
    }
    g_free(label);
    tapo_flow_decide(row);
    /* Names and advice only for a line that is written or listed. */
    if (!row->client && (w->sh->o->flows || tapo_report_lists(&w->report, row)))
        name_flow_row(c, row);
    if (row->client)
        row->advice = flow_advice(w, c, row);
    if (w->sh->o->flows) {
        tapo_rows_flow(w->flow_out, w->sh->o->format, row);
        w->flow_rows++;
    }
    w->report.idle_flushed += why == TAPO_END_IDLE;
    tapo_report_add_flow(&w->report, row);
    if (w->pending)
        g_hash_table_remove(w->pending, c);
    worker_flush(w, w->sh->o->stream);
}
