/* conversation.c: stall detection, vantage, sender choice and verdicts for
 * one TCP connection.
 *
 * Every packet is seen from both endpoints as the analysed sender: each
 * endpoint has its own timeline (sender_clock.h), RTT estimator and state,
 * so that the sender can be chosen from the data and settled with
 * hindsight (spec section 1) without reading the capture again.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "conversation.h"

#include <math.h>
#include <string.h>

#include "classifier.h"
#include "recovery.h"

void tapo_conv_init(tapo_conv *c, const tapo_config *cfg)
{
    memset(c, 0, sizeof *c);
    tapo_sender_init(&c->ep[0], cfg);
    tapo_sender_init(&c->ep[1], cfg);
    c->initiator = -1;
}

void tapo_conv_destroy(tapo_conv *c)
{
    tapo_sender_destroy(&c->ep[0]);
    tapo_sender_destroy(&c->ep[1]);
}

/* A new connection on the same ports (port reuse after TIME-WAIT, a server
 * that restarted and answers a retried SYN): everything starts over; the
 * ports stay, they define the endpoints. */
static void restart(tapo_conv *c, const tapo_config *cfg)
{
    /* (Records of the old connection stay as they are.) */
    uint16_t port[2] = { c->port[0], c->port[1] };
    tapo_conv_events events = c->events;
    events.restarts++;
    tapo_conv_destroy(c);
    tapo_conv_init(c, cfg);
    c->port[0] = port[0];
    c->port[1] = port[1];
    c->events = events;
}

/* What a SYN or SYN-ACK with another initial sequence number than its
 * sender used before means. */
typedef enum {
    HANDSHAKE_SAME,               /* no new ISN (a resent SYN keeps its ISN) */
    HANDSHAKE_NEW_CONNECTION,     /* a new SYN, or a SYN-ACK answering another SYN */
    HANDSHAKE_NEW_ANSWER,         /* a second SYN-ACK to the same SYN before it was acknowledged */
    HANDSHAKE_STRAY               /* a second SYN-ACK to a SYN already acknowledged: not this connection's */
} handshake_kind;

static handshake_kind classify_handshake(const tapo_conv *c, const tapo_packet *p)
{
    if (!p->header_valid || !(p->flags & TAPO_TCP_SYN))
        return HANDSHAKE_SAME;
    const tapo_sender *s = &c->ep[p->from];
    if (!s->syn_sent || p->seq_raw == s->isn_raw)
        return HANDSHAKE_SAME;
    if (!(p->flags & TAPO_TCP_ACK))
        return HANDSHAKE_NEW_CONNECTION;
    const tapo_sender *peer = &c->ep[1 - p->from];
    if (!peer->syn_sent || p->ack_raw != peer->isn_raw + 1)
        return HANDSHAKE_NEW_CONNECTION;
    /* The same SYN answered twice (a retried SYN reaching two servers behind
     * one address, or a server that restarted): the initiator's ACK tells
     * which answer it took. */
    return c->handshake_acked ? HANDSHAKE_STRAY : HANDSHAKE_NEW_ANSWER;
}

/* The responder's side starts over: a later SYN-ACK replaces the first. */
static void restart_endpoint(tapo_conv *c, int e, const tapo_config *cfg)
{
    tapo_sender_destroy(&c->ep[e]);
    tapo_sender_init(&c->ep[e], cfg);
}

static bool same_segment(const tapo_packet *a, const tapo_packet *b)
{
    if (a->from != b->from || a->seq_raw != b->seq_raw || a->ack_raw != b->ack_raw ||
        a->payload_len != b->payload_len || a->flags != b->flags || a->window != b->window ||
        a->ip_id != b->ip_id || a->sack_count != b->sack_count)
        return false;
    for (unsigned i = 0; i < a->sack_count && i < TAPO_MAX_SACK_BLOCKS; i++)
        if (a->sack_left_raw[i] != b->sack_left_raw[i] || a->sack_right_raw[i] != b->sack_right_raw[i])
            return false;
    return true;
}

/* One frame captured more than once (see the limits in the header). */
static bool is_capture_duplicate(const tapo_conv *c, const tapo_packet *p)
{
    double window = p->ip_id ? TAPO_DUPLICATE_WINDOW_ID_S : TAPO_DUPLICATE_WINDOW_S;
    for (unsigned i = 0; i < TAPO_RECENT_PACKETS; i++) {
        const tapo_packet *q = &c->recent[i];
        if (q->frame != 0 && same_segment(p, q) && fabs(p->time_s - q->time_s) < window)
            return true;
    }
    return false;
}

/* A capture out of time order (a merged file, interfaces read in turn) or
 * whose clock jumped: counted, so that the glue can say so. */
static void note_capture_clock(tapo_conv *c, const tapo_packet *p)
{
    if (c->has_prev && p->time_s < c->latest_time_s)
        c->events.time_backwards++;
    if (c->has_prev && p->time_s - c->latest_time_s > TAPO_CLOCK_JUMP_S)
        c->events.time_jumps++;
    if (!c->has_prev || p->time_s > c->latest_time_s)
        c->latest_time_s = p->time_s;
}

/* ---- vantage and the sender's timeline -------------------------------- */

tapo_vantage tapo_conv_vantage(const tapo_conv *c, int sender, const tapo_config *cfg,
                               tapo_basis *basis)
{
    if (cfg->vantage_mode != TAPO_VANTAGE_MODE_AUTO) {
        *basis = TAPO_BASIS_PREFERENCE;
        return cfg->vantage_mode == TAPO_VANTAGE_MODE_RECEIVER ? TAPO_VANTAGE_RECEIVER
             : cfg->vantage_mode == TAPO_VANTAGE_MODE_MIDDLE ? TAPO_VANTAGE_MIDDLE
             : TAPO_VANTAGE_SENDER;
    }
    return tapo_vantage_infer(&c->turn[sender], &c->turn[1 - sender], basis);
}

/* How far the capture point is from the sender (sender_clock.h).  It
 * changes only with the turnarounds, so it is kept until one is added
 * (add_turnaround): every packet asks for it several times. */
static tapo_distance distance_to(tapo_conv *c, int sender, const tapo_config *cfg)
{
    if (c->distance_fresh[sender])
        return c->distance[sender];
    tapo_distance d = { 0 };
    tapo_basis basis;
    d.away = tapo_conv_vantage(c, sender, cfg, &basis) != TAPO_VANTAGE_SENDER;
    d.known = !d.away || c->turn[sender].samples > 0;
    if (d.away && d.known) {
        d.round_trip_min_s = c->turn[sender].min_s;
        d.round_trip_now_s = tapo_turn_recent(&c->turn[sender]);
    }
    c->distance[sender] = d;
    c->distance_fresh[sender] = true;
    return d;
}

static void add_turnaround(tapo_conv *c, int endpoint, double sample_s, tapo_turn_kind kind)
{
    tapo_turn_add(&c->turn[endpoint], sample_s, kind);
    c->distance_fresh[0] = c->distance_fresh[1] = false;
}

/* Causality: p was sent after the sender received what p acknowledges or
 * echoes, so not before those packets were seen (seconds; -inf: no bound).
 * Estimates of the distance are minima and jitter; this keeps an answer
 * after its question. */
static double answered_since(const tapo_conv *c, const tapo_packet *p)
{
    double since = -INFINITY;
    const tapo_sender *peer = &c->ep[1 - p->from];
    if (!p->header_valid)
        return since;
    if ((p->flags & TAPO_TCP_ACK) && peer->anchored && peer->snd_nxt > peer->data_start) {
        tapo_seqspace space = peer->seq;
        if (tapo_seq_offset(&space, p->ack_raw) >= peer->snd_nxt)
            since = peer->nxt_seen_s;
    }
    double echoed;
    if (p->has_timestamps && tapo_ts_first_seen(&c->ts[1 - p->from], p->tsecr, &echoed))
        since = fmax(since, echoed);
    return since;
}

/* When p happened on endpoint 'sender's timeline: its own packets left a
 * round trip before they were seen, plus whatever queueing they met on the
 * way (from their TSval clock, else the current queueing of the path); its
 * peer's packets count at their capture time. */
static double sender_time(const tapo_conv *c, const tapo_packet *p, int sender,
                          const tapo_distance *d)
{
    if (p->from != sender || !d->away || !d->known)
        return p->time_s;
    double queued = -1.0;
    if (p->has_timestamps)
        queued = tapo_ts_clock_delay(&c->ts_clock[sender], p->tsval, p->time_s);
    if (queued < 0.0)
        queued = d->round_trip_now_s - d->round_trip_min_s;
    double t = p->time_s - d->round_trip_min_s - queued;
    return fmax(t, answered_since(c, p));
}

/* Placing a sender packet on its timeline away from the sender is accurate
 * to a TSval tick and the path's jitter, seconds. */
static double placement_margin(const tapo_distance *d)
{
    return fmax(TAPO_PLACEMENT_MARGIN_S, TAPO_PLACEMENT_MARGIN_SHARE * d->round_trip_min_s);
}

/* Sender packets never captured since the previous one seen, from IPv4 IDs
 * numbered one by one; -1 unknown.  Updates the endpoint's ID history.
 * Random IDs land within TAPO_IP_ID_MAX_UNSEEN of the previous one once in
 * a thousand, so a small step is evidence by itself until enough steps
 * show whether this endpoint numbers one by one (a host-wide counter, as
 * some stacks keep, moves by more). */
static int32_t count_unseen(tapo_ip_ids *ids, uint16_t id)
{
    if (id == 0)
        return -1;   /* no ID (IPv6), or a stack that leaves it 0 */
    int32_t unseen = -1;
    if (ids->seen) {
        uint16_t step = (uint16_t)(id - ids->last);
        bool sequential = ids->steps < TAPO_IP_ID_MIN_STEPS ||
                          ids->unit_steps >= TAPO_IP_ID_SEQUENTIAL_SHARE * ids->steps;
        if (sequential && step >= 1 && step <= TAPO_IP_ID_MAX_UNSEEN)
            unseen = step - 1;
        ids->steps++;
        ids->unit_steps += step == 1;
    }
    ids->seen = true;
    ids->last = id;
    return unseen;
}

/* ---- turnarounds ----------------------------------------------------- */

/* Whether p carries data its sender had sent before; *from and *to get
 * its range (stream offsets). */
static bool resends(const tapo_sender *s, const tapo_packet *p, int64_t *from, int64_t *to)
{
    if (!p->header_valid || p->payload_len == 0 || !s->anchored)
        return false;
    tapo_seqspace space = s->seq;
    *from = tapo_seq_offset(&space, p->seq_raw);
    *to = *from + p->payload_len;
    return *from < s->snd_nxt;
}


/* The initiator's first RTT sample came from its SYN, answered before the
 * capture point's distance to the initiator was known: once the ACK of
 * the SYN-ACK measures it, the SYN's round trip is the whole handshake as
 * seen here (SYN to that ACK), Wireshark's initial RTT. */
static void resample_syn(tapo_conv *c, const tapo_packet *p, const tapo_config *cfg)
{
    int initiator = p->from;
    tapo_basis basis;
    if (c->ep[initiator].rtt.samples != 1 ||
        tapo_conv_vantage(c, initiator, cfg, &basis) == TAPO_VANTAGE_SENDER)
        return;
    tapo_rtt_init(&c->ep[initiator].rtt, cfg->rto_initial_s);
    memset(&c->rtt_history[initiator], 0, sizeof c->rtt_history[initiator]);
    tapo_rtt_sample(&c->ep[initiator].rtt, p->time_s - c->syn_s, cfg->rto_min_s);
}

static void note_handshake(tapo_conv *c, const tapo_packet *p, const tapo_config *cfg)
{
    if (!p->header_valid)
        return;
    bool syn = p->flags & TAPO_TCP_SYN, ack = p->flags & TAPO_TCP_ACK;
    if (syn && !ack) {
        c->initiator = p->from;
        c->syn_s = p->time_s;
        c->syn_seen = true;
    } else if (syn && ack) {
        if (c->initiator < 0)
            c->initiator = 1 - p->from;
        else if (p->from != c->initiator && c->syn_seen)
            add_turnaround(c, p->from, p->time_s - c->syn_s, TAPO_TURN_HANDSHAKE);
        c->syn_ack_s = p->time_s;
        c->syn_ack_seen = true;
    } else if (ack && p->from == c->initiator && c->syn_ack_seen && !c->handshake_acked) {
        add_turnaround(c, p->from, p->time_s - c->syn_ack_s, TAPO_TURN_HANDSHAKE);
        c->handshake_acked = true;
        if (c->syn_seen)
            resample_syn(c, p, cfg);
    }
}

/* Call before p updates the senders: whether p answers a pending request
 * (the head of a response) decides whether its echo is a clean sample. */
static void note_timestamps(tapo_conv *c, const tapo_packet *p)
{
    if (!p->header_valid || !p->has_timestamps)
        return;
    tapo_ts_sent(&c->ts[p->from], p->tsval, p->time_s);
    tapo_ts_clock_note(&c->ts_clock[p->from], p->tsval, p->time_s);
    double turnaround;
    if (!(p->flags & TAPO_TCP_ACK) ||
        !tapo_ts_echo(&c->ts[p->from], &c->ts[1 - p->from], p->tsecr, p->time_s, &turnaround))
        return;
    /* A probe, a keep-alive or a retransmission answers a timer, not the
     * packet it echoes. */
    int64_t from, to;
    if (p->keep_alive || p->zero_window_probe || resends(&c->ep[p->from], p, &from, &to))
        return;
    bool head = p->payload_len > 0 && c->ep[p->from].request_pending;
    add_turnaround(c, p->from, turnaround, head ? TAPO_TURN_RESPONSE_HEAD : TAPO_TURN_CLEAN);
}

/* An ACK from p's sender of its peer's data: a turnaround of p's sender,
 * and an RTT sample of the peer on its own timeline, when that is known. */
static void note_rtt(tapo_conv *c, const tapo_packet *p, const tapo_rtt_candidate *cand,
                     const tapo_config *cfg)
{
    if (!cand->valid)
        return;
    int sender = 1 - p->from;
    add_turnaround(c, p->from, p->time_s - cand->seen_s, TAPO_TURN_CLEAN);
    tapo_distance d = distance_to(c, sender, cfg);
    if (!d.known)
        return;
    double sent = cand->tx_time_s;
    if (d.away && cand->seen_s - sent <= 0.0)
        sent = cand->seen_s - d.round_trip_min_s;   /* placed before the distance was known */
    tapo_rtt_history_note(&c->rtt_history[sender], &c->ep[sender].rtt, p->time_s, cand->from, cand->to);
    tapo_rtt_sample(&c->ep[sender].rtt, p->time_s - sent, cfg->rto_min_s);
}

/* ---- stalls ----------------------------------------------------------- */

/* The gap before p for each endpoint as the sender. */
typedef struct view_gap {
    tapo_distance distance;
    double time_s;                /* p on the sender's timeline, seconds */
    tapo_clock_packet on_clock;   /* p as the sender's clock sees it */
    const tapo_rtt *rtt;          /* the sender's estimate at that time */
    tapo_clock_reading clock;
    double threshold_s;
    bool candidate;               /* the gap may be a stall: snapshot taken */
} view_gap;

static void read_views(tapo_conv *c, const tapo_packet *p, const tapo_config *cfg,
                       view_gap gaps[2])
{
    for (int s = 0; s < 2; s++) {
        view_gap *g = &gaps[s];
        g->distance = distance_to(c, s, cfg);
        g->time_s = sender_time(c, p, s, &g->distance);
        g->on_clock = (tapo_clock_packet){
            .t_s = g->time_s, .own = p->from == s, .frame = p->frame,
            .has_ts = p->header_valid && p->has_timestamps, .tsval = p->tsval, .tsecr = p->tsecr,
            .in_flight_s = p->time_s - g->time_s, .margin_s = placement_margin(&g->distance),
        };
        tapo_clock_read(&c->clock[s], &g->on_clock, &g->clock);
        g->rtt = tapo_rtt_as_of(&c->rtt_history[s], &c->ep[s].rtt, g->time_s);
        g->threshold_s = tapo_rtt_stall_threshold(g->rtt, cfg->tau);
        /* Only a gap above the threshold can be a stall, or nearly as long
         * before a retransmission its timer produced; shorter than the
         * minimum stall duration, only such a retransmission (ends_stall). */
        bool may_resend = p->from == s && p->header_valid &&
                          (p->payload_len > 0 || (p->flags & (TAPO_TCP_SYN | TAPO_TCP_FIN)));
        g->candidate = c->has_prev && g->clock.gap_s >= TAPO_TIMER_SLACK * g->threshold_s &&
                       (g->clock.gap_s >= cfg->min_stall_s || may_resend);
    }
}

/* Takes endpoint s's snapshot before p changes anything, and opens the
 * hindsight tracker that will revise its facts. */
static void open_view(tapo_conv *c, int s, const view_gap *g, const tapo_config *cfg,
                      tapo_stall_view *view)
{
    tapo_sender *sender = &c->ep[s];
    tapo_snapshot *snap = &view->snap;
    snap->threshold_s = g->threshold_s;
    snap->prev_frame = g->clock.prev_frame;
    snap->duration_s = g->clock.gap_s;
    snap->srtt_s = g->rtt->srtt_s;
    snap->rto_s = g->rtt->rto_s;
    snap->vantage = tapo_conv_vantage(c, s, cfg, &snap->vantage_basis);
    snap->rtt_to_sender_s = g->distance.round_trip_now_s;
    snap->rtt_to_receiver_s = c->turn[1 - s].samples ? tapo_turn_recent(&c->turn[1 - s]) : 0.0;
    if (g->distance.away && g->distance.known)
        snap->inferred |= TAPO_INFERRED_PATH_RTT;
    tapo_sender_snapshot(sender, snap, &view->facts_at_packet);
    view->facts_final = view->facts_at_packet;
    view->facts_final.had_more_data = false;   /* until new data shows otherwise */
    tapo_hs_open(&sender->hs, &view->facts_final, sender->snd_una, sender->snd_nxt, sender->tx_order,
                 snap->window_closed_frame != 0);
}

/* Describes cur as endpoint s's own packet. */
static void describe_own_packet(tapo_sender *s, const tapo_tx_info *tx, bool away,
                                tapo_stall_view *view)
{
    tapo_cur *cur = &view->snap.cur;
    bool resent = tx->kind == TAPO_TX_RETRANSMISSION;
    cur->dir = TAPO_DIR_OUT;
    cur->new_data = tx->new_data;
    cur->retransmission = resent && !tx->handshake;
    cur->handshake_retransmission = resent && tx->handshake;
    cur->window_probe = tx->kind == TAPO_TX_WINDOW_PROBE;
    cur->retrans_count = resent ? tx->retrans_count : 0;
    cur->first_retrans = resent ? tx->first_retrans : TAPO_TRIGGER_NONE;
    cur->trigger = resent ? tx->trigger : TAPO_TRIGGER_NONE;
    cur->segs_sent_after = tx->segs_sent_after;
    cur->data_offset = tx->data_offset;
    cur->orig_frame = tx->orig_frame;
    cur->first_retx_frame = tx->first_retx_frame;
    cur->loss_signal_frame = tx->signal_frame;
    if (away && tx->new_data && view->snap.packets_out == 0)
        view->snap.inferred |= TAPO_INFERRED_DELAY_UNSEEN;
    if (!resent)
        return;
    tapo_sender_amend_snapshot(s, tx, &view->snap, &view->facts_at_packet, &view->facts_final);
    if (tx->already_duplicated) {
        view->facts_at_packet.cur_spurious = true;
        view->facts_final.cur_spurious = true;
    }
    tapo_hs_set_cur_range(&s->hs, tx->retx_start, tx->retx_end);
}

/* Describes cur as a packet from endpoint s's peer. */
static void describe_peer_packet(const tapo_sender *s, const tapo_tx_info *peer_tx,
                                 tapo_stall_view *view)
{
    tapo_cur *cur = &view->snap.cur;
    bool resent = peer_tx->kind == TAPO_TX_RETRANSMISSION;
    cur->dir = TAPO_DIR_IN;
    cur->handshake_retransmission = resent && peer_tx->handshake;
    cur->receiver_retransmission = resent && !peer_tx->handshake;
    cur->data_offset = s->payload_bytes;
    /* A window update that ends the stall is known at the packet itself. */
    view->facts_at_packet.window_open_frame = view->facts_final.window_open_frame;
}

/* Whether p, seen from endpoint s as the sender, ends a stall: a gap above
 * the threshold and the minimum duration, or any retransmission a timer
 * produced (spec section 3), whatever rounding of its gap.  The minimum
 * duration filters timestamp jitter; a timer that fired is no jitter (on a
 * LAN a tail-loss probe leaves after a few milliseconds of silence). */
static bool ends_stall(const view_gap *g, const tapo_cur *cur, const tapo_config *cfg)
{
    if (!g->candidate)
        return false;
    bool timer = (cur->dir == TAPO_DIR_OUT && cur->retransmission &&
                  (cur->trigger == TAPO_TRIGGER_TIMEOUT || cur->trigger == TAPO_TRIGGER_PROBE)) ||
                 cur->handshake_retransmission;
    return timer || (g->clock.gap_s > g->threshold_s && g->clock.gap_s >= cfg->min_stall_s);
}

bool tapo_conv_is_over(const tapo_conv *c)
{
    bool closed = true;
    for (int e = 0; e < 2; e++)
        closed = closed && c->ep[e].fin_sent && c->ep[e].snd_una >= c->ep[e].snd_nxt;
    return closed || c->rst_seen;
}

/* Once the connection is over, free the per-flow containers (state stays
 * bounded on long captures of many flows). */
static void release_if_over(tapo_conv *c, const tapo_packet *p)
{
    if (p->header_valid && (p->flags & TAPO_TCP_RST))
        c->rst_seen = true;
    if (tapo_conv_is_over(c)) {
        tapo_sender_release(&c->ep[0]);
        tapo_sender_release(&c->ep[1]);
    }
}

/* Feeds p to both endpoints' states; tx describes it as its sender's. */
static void update_senders(tapo_conv *c, const tapo_packet *p, const view_gap gaps[2],
                           const tapo_config *cfg, tapo_tx_info *tx)
{
    int from = p->from;
    const view_gap *g = &gaps[from];
    tapo_send_context ctx = {
        .margin_s = placement_margin(&g->distance),
        .send_time_s = g->time_s,
        .srtt_s = g->rtt->srtt_s,
        .rto_s = g->rtt->rto_s,
        .rto_min_s = cfg->rto_min_s,
        .silence_s = g->clock.silence_s,
        .threshold_s = g->threshold_s,
        .away = g->distance.away,
        .unseen_packets = count_unseen(&c->ip_ids[from], p->ip_id),
    };
    tapo_sender_on_send(&c->ep[from], p, &ctx, tx);
    tapo_rtt_candidate cand;
    tapo_sender_on_receive(&c->ep[1 - from], p, &cand);
    note_rtt(c, p, &cand, cfg);
}

/* Keeps the record of a packet that ended a stall, or forgets it. */
static tapo_stall_record *settle(tapo_conv *c, tapo_stall_record *scratch, bool stalled,
                                 tapo_record_alloc alloc, void *alloc_ctx)
{
    tapo_stall_record *rec = stalled ? alloc(alloc_ctx) : NULL;
    if (rec)
        *rec = *scratch;
    for (int s = 0; s < 2; s++) {
        tapo_facts *facts = &scratch->view[s].facts_final;
        if (rec)
            tapo_hs_retarget(&c->ep[s].hs, facts, &rec->view[s].facts_final);
        else
            tapo_hs_forget(&c->ep[s].hs, facts);
    }
    return rec;
}

/* Away from the sender, its packet p can be seen after peer packets that
 * reached it later.  Put right what those peer packets decided too early:
 * a stall they ended whose gap p falls in was shorter on the sender's
 * timeline (measured from p, or no stall at all), and RTT samples they gave
 * for data p resends break Karn's rule. */
static void settle_late_sender_packet(tapo_conv *c, const tapo_packet *p, const view_gap *g)
{
    int s = p->from;
    /* One that lands just before a peer packet may answer it. */
    double margin = placement_margin(&g->distance);
    if (c->peer_stall[s] && g->time_s > c->peer_stall_from_s[s] &&
        g->time_s < c->peer_stall_to_s[s] - margin) {
        tapo_stall_view *view = &c->peer_stall[s]->view[s];
        double gap = c->peer_stall_to_s[s] - g->time_s;
        if (gap > view->snap.threshold_s) {
            view->snap.duration_s = gap;
            view->snap.prev_frame = p->frame;
            c->peer_stall_from_s[s] = g->time_s;
        } else {
            view->revoked = true;
        }
    }
    int64_t from, to;
    if (resends(&c->ep[s], p, &from, &to))
        tapo_rtt_history_rewind(&c->rtt_history[s], &c->ep[s].rtt, g->time_s, from, to);
}

static void remember_peer_stall(tapo_conv *c, const tapo_packet *p, const view_gap gaps[2],
                                tapo_stall_record *rec)
{
    int s = 1 - p->from;
    if (!rec || !rec->view[s].stalled)
        return;
    c->peer_stall[s] = rec;
    c->peer_stall_from_s[s] = gaps[s].time_s - gaps[s].clock.gap_s;
    c->peer_stall_to_s[s] = gaps[s].time_s;
}

tapo_stall_record *tapo_conv_process(tapo_conv *c, const tapo_packet *p, const tapo_config *cfg,
                                     tapo_record_alloc alloc, void *alloc_ctx)
{
    if (p->from != 0 && p->from != 1)
        return NULL;
    if (is_capture_duplicate(c, p))
        return NULL;
    switch (classify_handshake(c, p)) {
    case HANDSHAKE_NEW_CONNECTION:
        restart(c, cfg);
        break;
    case HANDSHAKE_NEW_ANSWER:
        restart_endpoint(c, p->from, cfg);
        break;
    case HANDSHAKE_STRAY:
        c->events.strays++;
        return NULL;   /* another connection's packet: it changes nothing here */
    case HANDSHAKE_SAME:
        break;
    }
    if (!c->has_prev) {
        c->port[p->from] = p->src_port;
        c->port[1 - p->from] = p->dst_port;
    }
    note_capture_clock(c, p);
    /* p's own turnaround first: a SYN-ACK tells how far the capture point
     * is from its sender before it is placed on that sender's timeline. */
    note_handshake(c, p, cfg);
    note_timestamps(c, p);
    view_gap gaps[2];
    read_views(c, p, cfg, gaps);
    tapo_acks_received acks = { 0 };
    if (gaps[p->from].distance.away) {
        const view_gap *own = &gaps[p->from];
        settle_late_sender_packet(c, p, own);
        tapo_sender_acks_received(&c->ep[p->from], own->time_s, own->on_clock.margin_s,
                                  own->on_clock.has_ts, p->tsecr, &acks);
    }
    tapo_stall_record scratch;   /* filled only for a candidate (most packets are none) */
    bool candidate = gaps[0].candidate || gaps[1].candidate;
    if (candidate) {
        memset(&scratch, 0, sizeof scratch);
        scratch.frame = p->frame;
        for (int s = 0; s < 2; s++) {
            if (!gaps[s].candidate)
                continue;
            open_view(c, s, &gaps[s], cfg, &scratch.view[s]);
            if (s == p->from)
                tapo_sender_snapshot_behind(&c->ep[s], &acks, &scratch.view[s].snap);
        }
    }
    tapo_tx_info tx;
    update_senders(c, p, gaps, cfg, &tx);
    tapo_stall_record *rec = NULL;
    if (candidate) {
        bool stalled = false;
        for (int s = 0; s < 2; s++) {
            tapo_stall_view *view = &scratch.view[s];
            if (!gaps[s].candidate)
                continue;
            if (s == p->from)
                describe_own_packet(&c->ep[s], &tx, gaps[s].distance.away, view);
            else
                describe_peer_packet(&c->ep[s], &tx, view);
            view->snap.cur.payload = p->payload_len > 0;
            view->bytes_at_packet = c->ep[s].payload_bytes;
            view->stalled = ends_stall(&gaps[s], &view->snap.cur, cfg);
            stalled = stalled || view->stalled;
        }
        /* Chosen with p counted: the first byte of a response makes its
         * sender a data sender. */
        tapo_conv_summary sum;
        tapo_conv_summarize(c, &sum);
        scratch.sender_at_packet = tapo_conv_sender(&sum, cfg, &scratch, &scratch.sender_basis_at_packet);
        rec = settle(c, &scratch, stalled, alloc, alloc_ctx);
        remember_peer_stall(c, p, gaps, rec);
    }
    release_if_over(c, p);
    for (int s = 0; s < 2; s++)
        tapo_clock_note(&c->clock[s], &gaps[s].on_clock);
    c->recent[c->recent_next] = *p;
    c->recent_next = (c->recent_next + 1) % TAPO_RECENT_PACKETS;
    c->has_prev = true;
    return rec;
}

/* ---- the sender and the verdict ------------------------------------- */

void tapo_conv_summarize(const tapo_conv *c, tapo_conv_summary *sum)
{
    for (int e = 0; e < 2; e++) {
        sum->payload_bytes[e] = c->ep[e].payload_bytes;
        sum->port[e] = c->port[e];
    }
    sum->initiator = c->initiator;
}

void tapo_conv_resume(tapo_conv *c, const tapo_conv_summary *sum)
{
    for (int e = 0; e < 2; e++) {
        c->ep[e].payload_bytes = sum->payload_bytes[e];
        c->port[e] = sum->port[e];
    }
    c->initiator = sum->initiator;
    c->has_prev = true;   /* not the first packet: it may end a stall */
}

static int forced_sender(const tapo_conv_summary *sum, const tapo_config *cfg, bool *forced)
{
    *forced = true;
    if (cfg->sender_mode == TAPO_SENDER_PORTS && cfg->is_server_port) {
        bool server0 = cfg->is_server_port(sum->port[0], cfg->is_server_port_data);
        bool server1 = cfg->is_server_port(sum->port[1], cfg->is_server_port_data);
        if (server0 != server1)
            return server0 ? 0 : 1;
    }
    if (sum->initiator >= 0 && cfg->sender_mode == TAPO_SENDER_RESPONDER)
        return 1 - sum->initiator;
    if (sum->initiator >= 0 && cfg->sender_mode == TAPO_SENDER_INITIATOR)
        return sum->initiator;
    *forced = false;
    return -1;
}

int tapo_conv_sender(const tapo_conv_summary *sum, const tapo_config *cfg,
                     const tapo_stall_record *rec, tapo_basis *basis)
{
    bool forced;
    int sender = forced_sender(sum, cfg, &forced);
    if (forced) {
        *basis = TAPO_BASIS_PREFERENCE;
        return sender;
    }
    uint64_t bytes0 = sum->payload_bytes[0], bytes1 = sum->payload_bytes[1];
    if (rec && bytes0 >= TAPO_BULK_BYTES && bytes1 >= TAPO_BULK_BYTES) {
        /* Both send bulk data in turns: the side whose data was in flight. */
        bool out0 = rec->view[0].snap.packets_out > 0, out1 = rec->view[1].snap.packets_out > 0;
        if (out0 != out1) {
            *basis = TAPO_BASIS_DIRECTION;
            return out0 ? 0 : 1;
        }
    }
    if (sum->initiator < 0) {
        /* No handshake: the heavier sender so far; on a tie the endpoint
         * that received the first packet seen (usually the server). */
        *basis = bytes0 != bytes1 ? TAPO_BASIS_DATA : TAPO_BASIS_DEFAULT;
        return bytes0 > bytes1 ? 0 : 1;
    }
    /* The responder, unless the initiator has sent more, and enough to be
     * more than a request: an upload. */
    int responder = 1 - sum->initiator;
    uint64_t responder_bytes = sum->payload_bytes[responder];
    uint64_t initiator_bytes = sum->payload_bytes[sum->initiator];
    if (initiator_bytes > responder_bytes && initiator_bytes >= TAPO_SENDER_SWITCH_BYTES) {
        *basis = TAPO_BASIS_DATA;
        return sum->initiator;
    }
    *basis = responder_bytes > 0 ? TAPO_BASIS_DATA : TAPO_BASIS_HANDSHAKE;
    return responder;
}

bool tapo_conv_sender_looks_reversed(const tapo_conv_summary *sum, int sender,
                                     const tapo_config *cfg)
{
    if (cfg->sender_mode == TAPO_SENDER_AUTO)
        return false;
    uint64_t mine = sum->payload_bytes[sender], theirs = sum->payload_bytes[1 - sender];
    return theirs >= TAPO_REVERSED_MIN_BYTES && theirs > TAPO_REVERSED_RATIO * mine;
}

bool tapo_conv_verdict(const tapo_conv_summary *sum, const tapo_stall_record *rec,
                       const tapo_config *cfg, bool final, tapo_verdict *v)
{
    tapo_basis basis = rec->sender_basis_at_packet;
    int sender = final ? tapo_conv_sender(sum, cfg, rec, &basis) : rec->sender_at_packet;
    const tapo_stall_view *view = &rec->view[sender];
    if (!view->stalled || (final && view->revoked))
        return false;
    const tapo_facts *facts = final ? &view->facts_final : &view->facts_at_packet;
    *v = tapo_classify(&view->snap, facts, cfg);
    v->final = final;
    v->sender = sender;
    v->sender_basis = basis;
    v->sender_role = sum->initiator < 0 ? -1 : (sender == sum->initiator ? TAPO_ROLE_INITIATOR
                                                                        : TAPO_ROLE_RESPONDER);
    v->view = view;
    v->facts = facts;
    uint64_t total = final ? sum->payload_bytes[sender] : view->bytes_at_packet;
    double position = total ? (double)view->snap.cur.data_offset / (double)total : 0.0;
    v->position = fmin(1.0, position);
    return true;
}
