/* stall_fields.c: see stall_fields.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "explain/stall_fields.h"
#include "base/endpoint_pair.h"

#include "explain/whatif.h"

#include <stdio.h>
#include <string.h>

#define F(id, name, label, type, blurb) [id] = { name, label, type, blurb }
const tapo_field_def tapo_field_defs[TAPO_F_COUNT] = {
    F(TAPO_F_CAUSE, "tapo.stall.cause", "Cause", TAPO_FIELD_STRING,
      "Why the connection stalled (the TAPO decision tree)"),
    F(TAPO_F_CATEGORY, "tapo.stall.category", "Category", TAPO_FIELD_STRING,
      "server, client, network or unknown"),
    F(TAPO_F_PHASE, "tapo.stall.phase", "Phase", TAPO_FIELD_STRING,
      "handshake (SYN or SYN-ACK retries), data, or teardown (FIN retries, idle closes, resets)"),
    F(TAPO_F_RULE, "tapo.stall.rule", "Decision", TAPO_FIELD_STRING,
      "The rule of the decision tree that fired and the values it compared; what the audit found against it"),
    F(TAPO_F_CONFIDENCE, "tapo.stall.confidence", "Confidence", TAPO_FIELD_STRING,
      "How sure the verdict is: high, medium or low"),
    F(TAPO_F_CAVEAT, "tapo.stall.caveat", "Caveats", TAPO_FIELD_STRING,
      "Why the verdict is not more certain, comma-separated: no-rtt-sample, no-handshake, inferred, "
      "capture-gap, clock, window-scale, audited, unexplained, bare-ack, sender-choice, pending-request"),
    F(TAPO_F_RETRANSMISSION, "tapo.stall.retransmission", "Timeout retransmission", TAPO_FIELD_BOOL,
      "The stall ended with a retransmission its timer sent (the causes from f-double to undetermined)"),
    F(TAPO_F_DURATION, "tapo.stall.duration", "Duration", TAPO_FIELD_SECONDS,
      "Gap before this packet, seconds"),
    F(TAPO_F_THRESHOLD, "tapo.stall.threshold", "Threshold", TAPO_FIELD_SECONDS,
      "min(tau * SRTT, RTO) that the gap exceeded, seconds"),
    F(TAPO_F_SRTT, "tapo.stall.srtt", "SRTT", TAPO_FIELD_SECONDS,
      "Sender's smoothed RTT at the stall's start, seconds (RFC 6298)"),
    F(TAPO_F_RTO, "tapo.stall.rto", "RTO", TAPO_FIELD_SECONDS,
      "Sender's retransmission timeout at the stall's start, seconds"),
    F(TAPO_F_PREV_FRAME, "tapo.stall.prev_frame", "Previous frame", TAPO_FIELD_FRAME,
      "The packet before the gap"),
    F(TAPO_F_ORIG_FRAME, "tapo.stall.orig_frame", "Original transmission", TAPO_FIELD_FRAME,
      "The first transmission of the retransmitted segment"),
    F(TAPO_F_PREV_RETRANS_FRAME, "tapo.stall.prev_retrans_frame", "Earlier retransmission", TAPO_FIELD_FRAME,
      "The segment's first retransmission, whose loss makes this stall a double (fast: f-double, "
      "timeout or probe: t-double)"),
    F(TAPO_F_LOSS_SIGNAL_FRAME, "tapo.stall.loss_signal_frame", "First loss signal", TAPO_FIELD_FRAME,
      "The first duplicate ACK or SACK that showed the segment missing"),
    F(TAPO_F_DSACK_FRAME, "tapo.stall.dsack_frame", "D-SACK", TAPO_FIELD_FRAME,
      "The D-SACK that proved the retransmission spurious"),
    F(TAPO_F_WINDOW_FRAME, "tapo.stall.window_frame", "Window closed", TAPO_FIELD_FRAME,
      "The receiver's advertisement that closed the window (below one MSS) in force at the stall's start"),
    F(TAPO_F_WINDOW_UPDATE_FRAME, "tapo.stall.window_update_frame", "Window opened", TAPO_FIELD_FRAME,
      "The receiver's window update that opened that window again"),
    F(TAPO_F_CA_STATE, "tapo.stall.ca_state", "Congestion state", TAPO_FIELD_STRING,
      "Open, Disorder, Recovery or Loss at the stall's start"),
    F(TAPO_F_IN_FLIGHT, "tapo.stall.in_flight", "In flight", TAPO_FIELD_UINT,
      "packets_out + retrans_out - (sacked_out + lost_out), segments"),
    F(TAPO_F_PACKETS_OUT, "tapo.stall.packets_out", "Packets out", TAPO_FIELD_UINT,
      "snd_nxt - snd_una, segments"),
    F(TAPO_F_SACKED_OUT, "tapo.stall.sacked_out", "SACKed out", TAPO_FIELD_UINT,
      "Segments above snd_una covered by SACK blocks"),
    F(TAPO_F_LOST_OUT, "tapo.stall.lost_out", "Lost out", TAPO_FIELD_UINT,
      "Retransmitted segments not shown duplicate by DSACK"),
    F(TAPO_F_RETRANS_OUT, "tapo.stall.retrans_out", "Retransmitted out", TAPO_FIELD_UINT,
      "Retransmitted segments not yet acknowledged"),
    F(TAPO_F_HOLES, "tapo.stall.holes", "Holes", TAPO_FIELD_UINT,
      "Un-SACKed segments below the highest SACKed byte"),
    F(TAPO_F_DUPTHRES, "tapo.stall.dupthres", "Duplicate-ACK threshold", TAPO_FIELD_UINT,
      "3, raised by observed reordering, segments"),
    F(TAPO_F_RWND, "tapo.stall.rwnd", "Receiver window", TAPO_FIELD_UINT,
      "Receiver's last advertised window, bytes"),
    F(TAPO_F_INIT_RWND, "tapo.stall.init_rwnd", "Initial receiver window", TAPO_FIELD_UINT,
      "Receiver's window in its SYN, bytes"),
    F(TAPO_F_MSS, "tapo.stall.mss", "MSS", TAPO_FIELD_UINT, "Segment size used, bytes"),
    F(TAPO_F_RETRANS_COUNT, "tapo.stall.retrans_count", "Retransmissions", TAPO_FIELD_UINT,
      "Times this segment has been retransmitted, this one included"),
    F(TAPO_F_FIRST_RETRANS, "tapo.stall.first_retrans", "First retransmission", TAPO_FIELD_STRING,
      "What triggered the segment's first retransmission: fast, timeout or probe"),
    F(TAPO_F_SPURIOUS, "tapo.stall.spurious", "Spurious", TAPO_FIELD_BOOL,
      "A DSACK proved the retransmission unnecessary"),
    F(TAPO_F_POSITION, "tapo.stall.position", "Position", TAPO_FIELD_DOUBLE,
      "Place of this packet in the sender's data, 0 to 1"),
    F(TAPO_F_FILE_POS, "tapo.stall.file_pos", "Response position", TAPO_FIELD_STRING,
      "head, middle or tail of the current response"),
    F(TAPO_F_PKT_DIR, "tapo.stall.pkt_dir", "Direction", TAPO_FIELD_STRING,
      "out (sender to receiver) or in"),
    F(TAPO_F_FINAL, "tapo.stall.final", "Final", TAPO_FIELD_BOOL,
      "The cause used the whole capture (two-pass); false: provisional (one pass)"),
    F(TAPO_F_HINT, "tapo.stall.hint", "Hint", TAPO_FIELD_STRING,
      "What to check or change, on which machine"),
    F(TAPO_F_WHATIF, "tapo.stall.whatif", "What if", TAPO_FIELD_STRING,
      "The mitigation modelled for this cause: tail loss probe or RACK (absent where no model holds)"),
    F(TAPO_F_SAVING, "tapo.stall.saving", "Saving", TAPO_FIELD_SECONDS,
      "How much shorter the stall would have been with that mitigation, seconds"),
    F(TAPO_F_CLIENT, "tapo.client", "Client", TAPO_FIELD_STRING,
      "address:port of the connection's client (it sent the SYN; without the handshake, by its port)"),
    F(TAPO_F_SERVER, "tapo.server", "Server", TAPO_FIELD_STRING,
      "address:port of the connection's server"),
    F(TAPO_F_VANTAGE, "tapo.vantage", "Vantage", TAPO_FIELD_STRING,
      "Where the capture was taken, relative to the analysed sender: sender, receiver or middle"),
    F(TAPO_F_VANTAGE_BASIS, "tapo.vantage.basis", "Vantage decided by", TAPO_FIELD_STRING,
      "handshake, turnaround, preference, or default (nothing measured yet)"),
    F(TAPO_F_SENDER, "tapo.sender", "Sender", TAPO_FIELD_STRING,
      "The analysed sender: responder or initiator (absent without the handshake)"),
    F(TAPO_F_SENDER_BASIS, "tapo.sender.basis", "Sender chosen by", TAPO_FIELD_STRING,
      "data (the heavier sender), direction (the side whose data was in flight, or whose "
      "retransmission ended the stall), handshake, preference or default"),
    F(TAPO_F_SENDER_PORT, "tapo.sender.port", "Sender port", TAPO_FIELD_PORT,
      "TCP port of the analysed sender"),
    F(TAPO_F_RTT_TO_SENDER, "tapo.stall.rtt_to_sender", "RTT to the sender", TAPO_FIELD_SECONDS,
      "Round trip from the capture point to the sender and back, seconds"),
    F(TAPO_F_RTT_TO_RECEIVER, "tapo.stall.rtt_to_receiver", "RTT to the receiver", TAPO_FIELD_SECONDS,
      "Round trip from the capture point to the receiver and back, seconds"),
    F(TAPO_F_INFERRED, "tapo.stall.inferred", "Inferred", TAPO_FIELD_STRING,
      "What the verdict relies on that the capture could not see"),
    F(TAPO_F_EPISODE, "tapo.episode", "Episode", TAPO_FIELD_UINT,
      "The incident this stall is part of: stalls of several connections at once sharing a scope (two passes)"),
    F(TAPO_F_EPISODE_CONNECTIONS, "tapo.episode.connections", "Episode connections", TAPO_FIELD_UINT,
      "Connections that stalled in the episode, count"),
    F(TAPO_F_EPISODE_SCOPE, "tapo.episode.scope", "Episode scope", TAPO_FIELD_STRING,
      "What they share: server ADDRESS:PORT, client ADDRESS, client prefix, server prefix, or capture"),
    F(TAPO_F_EPISODE_START, "tapo.episode.start", "Episode start", TAPO_FIELD_TIME,
      "When the episode's first stall began"),
    F(TAPO_F_EPISODE_DURATION, "tapo.episode.duration", "Episode duration", TAPO_FIELD_SECONDS,
      "From its first stall's start to its last stall's end, seconds"),
    F(TAPO_F_EPISODE_CAUSE, "tapo.episode.cause", "Episode cause", TAPO_FIELD_STRING,
      "The cause with the most stalled time in the episode"),
};
#undef F

static void set_string(tapo_field_value *f, const char *s)
{
    f->present = s != NULL;
    f->s = s;
}

static void set_uint(tapo_field_value *f, uint32_t u)
{
    f->present = true;
    f->u = u;
}

static void set_seconds(tapo_field_value *f, double d)
{
    f->present = true;
    f->d = d;
}

static void set_bool(tapo_field_value *f, bool b)
{
    f->present = true;
    f->b = b;
}

/* A link to a frame, shown only when the capture has it (not 0). */
static void set_frame(tapo_field_value *f, uint32_t frame)
{
    f->present = frame != 0;
    f->u = frame;
}

/* The inferred bits as one readable line. */
static const char *inferred_line(unsigned bits, char buf[TAPO_INFERRED_LINE_MAX])
{
    buf[0] = '\0';
    size_t used = 0;
    for (unsigned i = 0; i < TAPO_INFERRED_COUNT_BITS; i++) {
        if (!(bits & (1u << i)))
            continue;
        const char *text = tapo_inferred_text((tapo_inferred)(1u << i));
        size_t need = strlen(text) + (used ? 2 : 0);
        if (used + need + 1 > TAPO_INFERRED_LINE_MAX)
            break;
        if (used) {
            memcpy(buf + used, "; ", 2);
            used += 2;
        }
        memcpy(buf + used, text, strlen(text) + 1);
        used += strlen(text);
    }
    return buf;
}

/* The caveat bits as "name,name". */
static const char *caveat_line(unsigned bits, char buf[TAPO_CAVEAT_LINE_MAX])
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < TAPO_CAVEAT_COUNT_BITS; i++) {
        if (!(bits & (1u << i)))
            continue;
        int n = snprintf(buf + used, TAPO_CAVEAT_LINE_MAX - used, "%s%s", used ? "," : "",
                         tapo_caveat_name((tapo_caveat)(1u << i)));
        if (n < 0 || (size_t)n >= TAPO_CAVEAT_LINE_MAX - used)
            break;
        used += (size_t)n;
    }
    return buf;
}

/* The decision line: the tree's, and when the audit changed the cause,
 * the audit's finding before it. */
static void rule_line(const tapo_verdict *v, const tapo_config *cfg, char line[TAPO_RULE_LINE_MAX])
{
    tapo_classify_explain(&v->view->snap, v->facts, cfg, line);
    if (!v->audit_reason)
        return;
    char tree[TAPO_RULE_LINE_MAX];
    memcpy(tree, line, TAPO_RULE_LINE_MAX);
    const tapo_cause_info *info = tapo_cause_get(v->cause);
    snprintf(line, TAPO_RULE_LINE_MAX, "%s %s: audit: %s; the tree said %s", tapo_cause_rule(info, cfg),
             info->name, v->audit_reason, tree);
}

/* The sender state at the stall's start (paper Table 2). */
static void state_fields(const tapo_verdict *v, tapo_field_value *out)
{
    const tapo_snapshot *s = &v->view->snap;
    set_string(&out[TAPO_F_CA_STATE], tapo_ca_state_name(s->ca_state));
    set_uint(&out[TAPO_F_IN_FLIGHT], v->in_flight);
    set_uint(&out[TAPO_F_PACKETS_OUT], s->packets_out);
    set_uint(&out[TAPO_F_SACKED_OUT], s->sacked_out);
    set_uint(&out[TAPO_F_LOST_OUT], v->lost_out);
    set_uint(&out[TAPO_F_RETRANS_OUT], s->retrans_out);
    set_uint(&out[TAPO_F_HOLES], s->holes);
    set_uint(&out[TAPO_F_DUPTHRES], s->dupthres);
    if (s->rwnd_seen) {
        set_uint(&out[TAPO_F_RWND], s->rwnd);
        if (!s->rwnd_scale_known)
            out[TAPO_F_RWND].note = " (window scale unknown: handshake not captured)";
    }
    if (s->init_rwnd)
        set_uint(&out[TAPO_F_INIT_RWND], s->init_rwnd);
    set_uint(&out[TAPO_F_MSS], s->mss);
}

/* What the stall-ending packet was. */
static void cur_fields(const tapo_verdict *v, tapo_field_value *out)
{
    const tapo_cur *cur = &v->view->snap.cur;
    if (cur->retrans_count) {
        set_uint(&out[TAPO_F_RETRANS_COUNT], cur->retrans_count);
        set_string(&out[TAPO_F_FIRST_RETRANS], tapo_trigger_name(cur->first_retrans));
    }
    set_bool(&out[TAPO_F_SPURIOUS], v->spurious);
    out[TAPO_F_POSITION].present = true;
    out[TAPO_F_POSITION].d = v->position;
    set_string(&out[TAPO_F_FILE_POS], tapo_file_pos_name(v->file_pos));
    set_string(&out[TAPO_F_PKT_DIR], cur->dir == TAPO_DIR_OUT ? "out" : "in");
}

/* The frames that show why the verdict holds (spec section 5). */
static void evidence_fields(const tapo_verdict *v, tapo_field_value *out)
{
    const tapo_snapshot *s = &v->view->snap;
    const tapo_cur *cur = &s->cur;
    if (cur->dir == TAPO_DIR_OUT && cur->retrans_count) {
        set_frame(&out[TAPO_F_ORIG_FRAME], cur->orig_frame);
        set_frame(&out[TAPO_F_LOSS_SIGNAL_FRAME], cur->loss_signal_frame);
        if (cur->retrans_count >= 2)
            set_frame(&out[TAPO_F_PREV_RETRANS_FRAME], cur->first_retx_frame);
    }
    if (v->spurious)
        set_frame(&out[TAPO_F_DSACK_FRAME], v->facts->dsack_frame);
    set_frame(&out[TAPO_F_WINDOW_FRAME], s->window_closed_frame);
    set_frame(&out[TAPO_F_WINDOW_UPDATE_FRAME], v->facts->window_open_frame);
}

/* Where the capture was taken, which endpoint is analysed, and which is
 * the client and which the server. */
static void connection_fields(const tapo_verdict *v, const tapo_conv_summary *sum,
                              const tapo_endpoint_names *names, tapo_field_value *out, char *inferred_buf)
{
    const tapo_snapshot *s = &v->view->snap;
    if (names) {
        tapo_basis basis;
        int client = tapo_conv_client(sum, &basis);
        set_string(&out[TAPO_F_CLIENT], names->name[client]);
        set_string(&out[TAPO_F_SERVER], names->name[tapo_peer_of(client)]);
        if (basis != TAPO_BASIS_HANDSHAKE)
            out[TAPO_F_CLIENT].note = out[TAPO_F_SERVER].note =
                basis == TAPO_BASIS_PORTS ? " (by its port: handshake not captured)"
                                          : " (a guess: handshake not captured, the ports do not tell)";
    }
    set_string(&out[TAPO_F_VANTAGE], tapo_vantage_name(s->vantage));
    set_string(&out[TAPO_F_VANTAGE_BASIS], tapo_basis_name(s->vantage_basis));
    if (v->sender_role_known)
        set_string(&out[TAPO_F_SENDER], tapo_role_name(v->sender_role));
    set_string(&out[TAPO_F_SENDER_BASIS], tapo_basis_name(v->sender_basis));
    set_uint(&out[TAPO_F_SENDER_PORT], sum->port[v->sender]);
    /* A round trip within one tick of the capture's clock reads 0: not shown. */
    if (s->rtt_to_sender.known && s->rtt_to_sender.s > 0.0)
        set_seconds(&out[TAPO_F_RTT_TO_SENDER], s->rtt_to_sender.s);
    if (s->rtt_to_receiver.known && s->rtt_to_receiver.s > 0.0)
        set_seconds(&out[TAPO_F_RTT_TO_RECEIVER], s->rtt_to_receiver.s);
    if (s->inferred)
        set_string(&out[TAPO_F_INFERRED], inferred_line(s->inferred, inferred_buf));
}

/* The mitigation modelled for the cause, and what it would have saved. */
static void whatif_fields(const tapo_verdict *v, tapo_field_value *out)
{
    tapo_whatif w;
    if (!tapo_whatif_of(v, &w))
        return;
    set_string(&out[TAPO_F_WHATIF], tapo_mitigation_name(w.mitigation));
    set_seconds(&out[TAPO_F_SAVING], w.saving_s);
}

static void episode_fields(const tapo_episode *e, tapo_field_value *out)
{
    if (!e)
        return;
    set_uint(&out[TAPO_F_EPISODE], e->id);
    set_uint(&out[TAPO_F_EPISODE_CONNECTIONS], e->connections);
    set_string(&out[TAPO_F_EPISODE_SCOPE], e->scope_text);
    out[TAPO_F_EPISODE_START].present = true;
    out[TAPO_F_EPISODE_START].d = e->start_s;
    set_seconds(&out[TAPO_F_EPISODE_DURATION], e->end_s - e->start_s);
    set_string(&out[TAPO_F_EPISODE_CAUSE], tapo_cause_get(e->cause)->name);
}

void tapo_stall_fields(const tapo_verdict *v, const tapo_conv_summary *sum, const tapo_config *cfg,
                       const tapo_endpoint_names *names, const tapo_episode *episode,
                       tapo_field_value out[TAPO_F_COUNT], tapo_field_text *text)
{
    memset(out, 0, sizeof *out * TAPO_F_COUNT);
    const tapo_cause_info *info = tapo_cause_get(v->cause);
    const tapo_snapshot *s = &v->view->snap;
    set_string(&out[TAPO_F_CAUSE], info->name);
    set_string(&out[TAPO_F_CATEGORY], tapo_category_name(v->category));
    set_string(&out[TAPO_F_PHASE], tapo_phase_name(v->phase));
    rule_line(v, cfg, text->rule);
    set_string(&out[TAPO_F_RULE], text->rule);
    set_string(&out[TAPO_F_CONFIDENCE], tapo_confidence_name(v->confidence));
    if (v->caveats)
        set_string(&out[TAPO_F_CAVEAT], caveat_line(v->caveats, text->caveat));
    set_bool(&out[TAPO_F_RETRANSMISSION], v->retransmission);
    set_seconds(&out[TAPO_F_DURATION], v->duration_s);
    set_seconds(&out[TAPO_F_THRESHOLD], s->threshold_s);
    set_seconds(&out[TAPO_F_SRTT], s->srtt.known ? s->srtt.s : 0.0);   /* 0: no sample (docs/fields.md) */
    set_seconds(&out[TAPO_F_RTO], s->rto_s);
    set_uint(&out[TAPO_F_PREV_FRAME], v->prev_frame);
    evidence_fields(v, out);
    state_fields(v, out);
    cur_fields(v, out);
    set_bool(&out[TAPO_F_FINAL], v->final);
    tapo_advice(v, sum, names, text->hint);
    set_string(&out[TAPO_F_HINT], text->hint);
    whatif_fields(v, out);
    connection_fields(v, sum, names, out, text->inferred);
    episode_fields(episode, out);
}
