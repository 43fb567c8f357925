/* conversation.c: one packet, one pass through the connection's two
 * endpoints.
 *
 * For each packet: drop it if the capture saw it twice; a SYN with a new
 * initial sequence number may start the connection over; the handshake and
 * the TCP timestamps measure turnarounds; the gap it ends is read on both
 * endpoints' timelines; where the gap may be a stall, the sender state is
 * read before the packet changes it; the packet goes through its sender
 * and its receiver once; and each possible stall is built from what was
 * read before and what the packet was (stall_build.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "connection/conversation.h"
#include "base/endpoint_pair.h"

#include <math.h>
#include <string.h>

#include "roles/sender_choice.h"
#include "connection/stall_build.h"
#include "connection/stall_gap.h"

static tapo_stall_record *heap_get(void *ctx)
{
    (void)ctx;
    return g_new(tapo_stall_record, 1);
}

static void heap_put(void *ctx, tapo_stall_record *rec)
{
    (void)ctx;
    g_free(rec);
}

const tapo_record_pool tapo_heap_records = { heap_get, heap_put, NULL };

void tapo_conv_init(tapo_conv *c, const tapo_config *cfg)
{
    memset(c, 0, sizeof *c);
    tapo_endpoint_init(&c->ep[0], cfg);
    tapo_endpoint_init(&c->ep[1], cfg);
    c->turn_version = 1;   /* the endpoints' distances (version 0) are not measured yet */
    tapo_messages_init(&c->messages);
}

void tapo_conv_destroy(tapo_conv *c)
{
    tapo_endpoint_destroy(&c->ep[0]);
    tapo_endpoint_destroy(&c->ep[1]);
}

/* A new connection on the same ports (port reuse after TIME-WAIT, a server
 * that restarted and answers a retried SYN): everything starts over but
 * the events; the records of the old connection stay as they are. */
static void restart(tapo_conv *c, const tapo_config *cfg)
{
    tapo_conv_events events = c->events;
    events.restarts++;
    tapo_conv_destroy(c);
    tapo_conv_init(c, cfg);
    c->events = events;
}

/* The responder's side starts over: a later SYN-ACK replaces the first. */
static void restart_sender(tapo_endpoint *e, const tapo_config *cfg)
{
    tapo_sender_destroy(&e->tx);
    tapo_sender_init(&e->tx);
    tapo_rtt_init(&e->rtt, cfg->rto_initial_s);
}

tapo_vantage tapo_conv_vantage(const tapo_conv *c, int sender, const tapo_config *cfg,
                               tapo_basis *basis)
{
    return tapo_endpoint_vantage(&c->ep[sender], &c->ep[tapo_peer_of(sender)], cfg, basis);
}

/* ---- turnarounds and RTT samples -------------------------------------- */

/* e's estimator starts over from this one sample, seconds: its first was
 * placed wrongly. */
static void rtt_start_over(tapo_endpoint *e, double sample_s, const tapo_config *cfg)
{
    tapo_rtt_init(&e->rtt, cfg->rto_initial_s);
    memset(&e->rtt_history, 0, sizeof e->rtt_history);
    tapo_rtt_sample(&e->rtt, sample_s, cfg->rto_min_s);
}

/* The responder's SYN-ACK is placed on its timeline with the only distance
 * known by then, its handshake turnaround, which includes its time to
 * answer the SYN (a router accepting a BGP session after 2 s).  Linux's
 * sample runs from when the SYN-ACK left, so while it is the estimator's
 * only one, a shorter distance measured since takes it again. */
static void replace_syn_ack_sample(tapo_conv *c, tapo_endpoint *e, const tapo_endpoint *other,
                                   const tapo_config *cfg)
{
    if (e->rtt.samples != 1) {
        e->rtt_from_syn_ack = false;   /* a second sample settled it */
        return;
    }
    const tapo_distance *d = tapo_endpoint_distance(e, other, cfg, c->turn_version);
    if (d->away && !d->known)
        return;
    double sample = c->handshake.ack_s - c->handshake.syn_ack_s + (d->away ? d->round_trip_min_s : 0.0);
    if (sample < e->rtt.srtt_s - tapo_placement_margin(d))   /* beyond what placing a packet can tell */
        rtt_start_over(e, sample, cfg);
}

G_GNUC_NO_INLINE static void replace_syn_ack_samples(tapo_conv *c, const tapo_config *cfg)
{
    for (int k = 0; k < 2; k++)
        if (c->ep[k].rtt_from_syn_ack)
            replace_syn_ack_sample(c, &c->ep[k], &c->ep[tapo_peer_of(k)], cfg);
}

static void add_turnaround(tapo_conv *c, tapo_endpoint *e, double sample_s, tapo_turn_kind kind,
                           const tapo_config *cfg)
{
    if (tapo_turn_add(&e->turn, sample_s, kind)) {
        c->turn_version++;   /* the endpoints' distances are to be measured again */
        if (G_UNLIKELY(c->ep[0].rtt_from_syn_ack || c->ep[1].rtt_from_syn_ack))
            replace_syn_ack_samples(c, cfg);
    }
}

/* The handshake's turnarounds; and the initiator's first RTT sample, from
 * its SYN, which the SYN-ACK answered before the capture point's distance
 * to the initiator was known (guessed, or not taken at all): once the ACK
 * of the SYN-ACK measures that distance, the SYN's round trip is the whole
 * handshake as seen here (Wireshark's initial RTT), or at the initiator
 * SYN to SYN-ACK. */
static void note_handshake(tapo_conv *c, tapo_endpoint *self, const tapo_endpoint *peer,
                           const tapo_packet *p, const tapo_config *cfg)
{
    if (tapo_handshake_over_for(&c->handshake, p))
        return;
    tapo_handshake_timing timing;
    tapo_handshake_note(&c->handshake, p, &timing);
    if (timing.turnaround)
        add_turnaround(c, self, timing.turnaround_s, TAPO_TURN_HANDSHAKE, cfg);
    if (timing.syn_ack_unseen) {
        /* One direction only: the handshake's round trip is the path's,
         * both endpoints' first sample. */
        for (int e = 0; e < 2; e++)
            if (c->ep[e].rtt.samples == 0)
                tapo_rtt_sample(&c->ep[e].rtt, timing.syn_round_trip_s, cfg->rto_min_s);
        return;
    }
    /* Linux takes the SYN's round trip as the initiator's first sample
     * (Karn's rule permitting), so one left untaken is taken now. */
    bool untaken = self->syn_rtt_untaken && self->rtt.samples == 0;
    self->syn_rtt_untaken = false;
    if (!timing.syn_round_trip || (self->rtt.samples != 1 && !untaken))
        return;
    tapo_basis basis;
    if (tapo_endpoint_vantage(self, peer, cfg, &basis) == TAPO_VANTAGE_SENDER) {
        if (untaken)
            tapo_rtt_sample(&self->rtt, c->handshake.syn_ack_s - c->handshake.syn_s, cfg->rto_min_s);
        return;
    }
    rtt_start_over(self, timing.syn_round_trip_s, cfg);
}

/* A keep-alive re-sends a byte its peer has, and the peer answers it at
 * once with an ACK (RFC 1122 4.2.3.6; RFC 9293 3.10.7.4: an unacceptable
 * segment is acknowledged at once): self's bare ACK right after the
 * peer's keep-alive is a turnaround of self, as clean as an ACK of data.
 * Without it the distance measured before may be longer than this answer
 * took, and the answer would be placed before the question. */
G_GNUC_NO_INLINE static void note_keep_alive(tapo_conv *c, tapo_endpoint *self, const tapo_packet *p,
                                             const tapo_config *cfg)
{
    bool answers = c->keep_alive_by == 1 + tapo_peer_of(p->from);
    c->keep_alive_by = p->keep_alive ? (uint8_t)(1 + p->from) : 0;
    if (!answers || !p->header_valid || p->payload_len > 0 || p->keep_alive ||
        (p->flags & (TAPO_TCP_SYN | TAPO_TCP_FIN | TAPO_TCP_RST)) || !(p->flags & TAPO_TCP_ACK))
        return;
    add_turnaround(c, self, p->time_s - self->tx.peer_last_seen_s, TAPO_TURN_CLEAN, cfg);
}

/* What self's answer p measured, read before p updates the senders: the
 * head of a response includes think time (head), and a bare ACK of less
 * than two full-sized segments of the peer's may have waited for the
 * delayed-ACK timer (RFC 1122 4.2.3.2, RFC 5681 4.2); a SACK (out-of-order
 * data), a FIN or a second full segment is acknowledged at once. */
static tapo_turn_kind answer_kind(const tapo_endpoint *peer, const tapo_packet *p, bool head)
{
    if (head)
        return TAPO_TURN_RESPONSE_HEAD;
    if (p->payload_len > 0 || p->sack_count > 0 || !(p->flags & TAPO_TCP_ACK) ||
        (p->flags & (TAPO_TCP_SYN | TAPO_TCP_FIN | TAPO_TCP_RST)) || !peer->tx.seq.anchored)
        return TAPO_TURN_CLEAN;
    int64_t acked = tapo_seq_peek(&peer->tx.seq, p->ack_raw) - peer->tx.snd_una;
    int64_t mss = tapo_sender_mss(&peer->tx);
    return mss > 0 && acked > 0 && acked < 2 * mss ? TAPO_TURN_MAY_WAIT : TAPO_TURN_CLEAN;
}

/* Call before p updates the senders; answer: what p's echo measures
 * (answer_kind). */
static void note_timestamps(tapo_conv *c, tapo_endpoint *self, const tapo_endpoint *peer,
                            const tapo_packet *p, tapo_turn_kind answer, const tapo_config *cfg)
{
    if (!p->header_valid || !p->has_timestamps)
        return;
    tapo_ts_sent(&self->ts, p->tsval, p->time_s);
    tapo_ts_clock_note(&self->ts_clock, p->tsval, p->time_s);
    double turnaround;
    if (!(p->flags & TAPO_TCP_ACK) || !tapo_ts_echo(&self->ts, &peer->ts, p->tsecr, p->time_s, &turnaround))
        return;
    /* A probe, a keep-alive or a retransmission answers a timer, not the
     * packet it echoes. */
    int64_t from, to;
    if (p->keep_alive || p->zero_window_probe || tapo_sender_resends(&self->tx, p, &from, &to))
        return;
    add_turnaround(c, self, turnaround, answer, cfg);
}

/* Whether p's peer, as the sender, had data outstanding, no recovery
 * running, and sent nothing for longer than its timer allows until p (read
 * before p changes it): its timer would have resent that data, so an ACK
 * the capture missed had reached it (spec section 8, the sender's
 * silence). */
static bool silent_past_timer(const tapo_endpoint *peer, const tapo_packet *p)
{
    tapo_opt_s last = tapo_sender_last_seen(&peer->tx);
    if (!last.known || p->time_s - last.s < TAPO_SILENCE_FLOOR_S || !tapo_sender_outstanding(&peer->tx))
        return false;   /* nearly every packet: no snapshot needed */
    tapo_snapshot snap;
    tapo_facts facts;
    memset(&snap, 0, sizeof snap);
    memset(&facts, 0, sizeof facts);
    tapo_sender_snapshot(&peer->tx, &snap, &facts);
    snap.rto_s = peer->rtt.rto_s;
    snap.srtt = peer->rtt.has_sample ? tapo_opt_s_of(peer->rtt.srtt_s) : tapo_opt_s_none();
    return tapo_silence_outlasts_timer(&snap, p->time_s - last.s);
}

/* A round trip of exactly zero: the data and its ACK share a timestamp, so
 * the round trip was shorter than the capture clock's tick (10 ms in old
 * captures): half a tick on average.  Left out, such zeros would leave the
 * estimator only the long samples (delayed ACKs) and an SRTT far above
 * the sender's; taken as zero, they would shrink the threshold to the
 * minimum stall duration, under one tick.  So the zero counts as half the
 * tick, or as the SRTT when that is already shorter; before any sample or
 * tick it stays no measurement (tapo_rtt_sample drops zeros).  Seconds. */
static double rtt_within_tick(const tapo_conv *c, const tapo_endpoint *peer, double sample_s)
{
    if (sample_s != 0.0 || !peer->rtt.has_sample || c->quirks.tick_s == 0.0f)
        return sample_s;
    return tapo_min(c->quirks.tick_s / 2.0, peer->rtt.srtt_s);
}

/* An ACK from p's sender (self) of its peer's data: a turnaround of self,
 * and an RTT sample of the peer on its own timeline, when that is known.
 * Not when the peer's silence outlasted its timer (acked_before: an
 * earlier ACK, unseen, had reached it) and p now acknowledges everything:
 * p's is not the first ACK of that data, and a round trip taken from it
 * would last the whole silence (the sender's silence, spec section 8). */
static void note_rtt(tapo_conv *c, tapo_endpoint *self, tapo_endpoint *peer, const tapo_packet *p,
                     const tapo_rx_info *rx, bool acked_before, tapo_turn_kind kind, const tapo_config *cfg)
{
    if (!rx->rtt_valid || (acked_before && !tapo_sender_outstanding(&peer->tx)))
        return;
    add_turnaround(c, self, p->time_s - rx->rtt_seen_s, kind, cfg);
    const tapo_distance *d = tapo_endpoint_distance(peer, self, cfg, c->turn_version);
    if (!d->known) {
        peer->syn_rtt_untaken = peer->rtt.samples == 0 && (p->flags & TAPO_TCP_SYN);
        return;
    }
    double sent = rx->rtt_tx_time_s;
    if (d->away && rx->rtt_seen_s - sent <= 0.0)
        sent = rx->rtt_seen_s - d->round_trip_min_s;   /* placed before the distance was known */
    if (G_UNLIKELY(peer->rtt.samples == 0))
        peer->rtt_from_syn_ack = d->away && c->handshake.acked && rx->rtt_seen_s == c->handshake.syn_ack_s;
    tapo_rtt_history_note(&peer->rtt_history, &peer->rtt, p->time_s, rx->rtt_from, rx->rtt_to);
    tapo_rtt_sample(&peer->rtt, rtt_within_tick(c, peer, p->time_s - sent), cfg->rto_min_s);
}

/* Away from the sender, its packet p can be seen after receiver packets
 * that reached it later.  Put right what those decided too early: a stall
 * they ended whose gap p falls in (hindsight), and RTT samples they gave
 * for data p resends, which break Karn's rule. */
static void place_late_sender_packet(tapo_endpoint *self, const tapo_packet *p, const tapo_view_gap *g)
{
    tapo_sender_sent_at(&self->tx, p, g->time_s, g->on_clock.margin_s, g->on_clock.unheard_from_s);
    int64_t from, to;
    if (tapo_sender_resends(&self->tx, p, &from, &to))
        tapo_rtt_history_rewind(&self->rtt_history, &self->rtt, g->time_s, from, to);
}

/* ---- the packet through both endpoints -------------------------------- */

/* p goes through its sender (self) and its receiver (peer), once; true when
 * it asks the peer something new (a request). */
static bool pass_packet(tapo_conv *c, tapo_endpoint *self, tapo_endpoint *peer, const tapo_packet *p,
                        const tapo_view_gap gaps[2], bool acked_before, tapo_turn_kind answer,
                        const tapo_config *cfg, tapo_tx_info *tx, tapo_rx_info *rx)
{
    const tapo_view_gap *g = &gaps[p->from];
    uint32_t owed_acks = self->ip_ids.peer_data_packets;   /* read before the ID count resets it */
    tapo_send_context ctx = {
        .margin_s = g->on_clock.margin_s,
        .send_time_s = g->time_s,
        .srtt = g->srtt,
        .rto_s = g->rto_s,
        .rto_min_s = cfg->rto_min_s,
        .silence_s = g->clock.silence_s,
        .threshold_s = g->threshold_s,
        .away = g->distance.away,
        .at_receiver = g->distance.at_receiver,
        .unseen_packets = tapo_endpoint_count_unseen(self, p, cfg->rto_min_s),
        .owed_acks = owed_acks,
        /* A request seemingly on its way had arrived if p acknowledges it:
         * an ACK says exactly what its sender had received. */
        .request_on_way = g->clock.request_on_way && !tapo_sender_acked_all(&peer->tx, p),
        .peer_closed = tapo_sender_fin_sent(&peer->tx),
    };
    tapo_endpoint_note_peer_packet(peer, p->header_valid &&
                                          (p->payload_len > 0 || (p->flags & (TAPO_TCP_SYN | TAPO_TCP_FIN))));
    /* p acknowledging the peer's data the capture never saw (one direction
     * only): its sender heard the peer speak before it sent p. */
    uint64_t heard_unseen = tapo_sender_acked_unseen(&peer->tx, p);
    if (heard_unseen)
        tapo_sender_peer_spoke(&self->tx, NULL);
    tapo_sender_on_send(&self->tx, p, &ctx, tx);
    /* More than a FIN's one sequence number: the peer's payload. */
    if (heard_unseen > 1)
        tx->heard_unseen_payload = true;
    /* A request for the peer: payload it never had (new data, or the copy
     * of an original lost on its way); a keep-alive, a window probe or the
     * copy of what it acknowledged asks nothing. */
    bool new_payload = p->payload_len > 0 && tx->kind != TAPO_TX_WINDOW_PROBE &&
                       (tx->new_data || tapo_sender_unacked_payload(&self->tx, p));
    tapo_sender_on_receive(&peer->tx, p, peer->rtt.rto_s, gaps[tapo_peer_of(p->from)].distance.away, new_payload,
                           tx->new_data, rx);
    note_rtt(c, self, peer, p, rx, acked_before, answer, cfg);
    return new_payload;
}

/* ---- possible stalls -------------------------------------------------- */

/* What a possible stall of endpoint s's view is built from, read before p
 * changes anything. */
typedef struct view_before {
    tapo_snapshot snap;
    tapo_facts facts;
} view_before;

static void read_before(const tapo_conv *c, int s, const tapo_view_gap *g, const tapo_config *cfg,
                        view_before *b)
{
    const tapo_endpoint *e = &c->ep[s], *other = &c->ep[tapo_peer_of(s)];
    tapo_snapshot *snap = &b->snap;
    memset(snap, 0, sizeof *snap);
    memset(&b->facts, 0, sizeof b->facts);
    snap->threshold_s = g->threshold_s;
    snap->srtt = g->srtt;
    snap->rto_s = g->rto_s;
    snap->vantage = tapo_endpoint_vantage(e, other, cfg, &snap->vantage_basis);
    snap->rtt_to_sender = g->distance.away && g->distance.known ? tapo_opt_s_of(g->distance.round_trip_now_s)
                                                                : tapo_opt_s_none();
    snap->rtt_to_receiver = other->turn.samples ? tapo_opt_s_of(tapo_turn_recent(&other->turn)) : tapo_opt_s_none();
    if (g->distance.away && g->distance.known)
        snap->inferred |= TAPO_INFERRED_PATH_RTT;
    tapo_sender_snapshot(&e->tx, snap, &b->facts);
    snap->clock_trouble = c->events.time_backwards || c->events.time_jumps;
    snap->handshake_open = c->handshake.syn_seen && !c->handshake.acked &&
                           tapo_sender_payload_bytes(&e->tx) == 0 && tapo_sender_payload_bytes(&other->tx) == 0;
    snap->closing = c->reset_ends || tapo_sender_fin_sent(&e->tx) || tapo_sender_fin_sent(&other->tx);
    b->facts.duration_s = g->clock.gap_s;
    b->facts.prev_frame = g->clock.prev_frame;
    b->facts.revoked = false;
}

/* Hindsight revises the final facts of the record from now on. */
static void watch(tapo_endpoint *e, const view_before *b, tapo_stall_view *view)
{
    view->facts_final = b->facts;
    view->facts_final.had_more_data = false;   /* until new data shows otherwise */
    tapo_sender_watch(&e->tx, &view->facts_final, b->snap.window_closed_frame != 0);
}

/* The latest capture time at which the sender's new data after the
 * peer's bare ACK p counts as sent at once, released by it: the round
 * trip from the capture point to the sender and back, and the minimum
 * stall duration for the host's reaction. */
static double release_deadline(const tapo_packet *p, const tapo_snapshot *snap, const tapo_config *cfg)
{
    double to_sender_s = snap->rtt_to_sender.known ? snap->rtt_to_sender.s : 0.0;
    return p->time_s + to_sender_s + cfg->min_stall_s;
}

/* The sender's FIN closes with p's data when it follows at once: before
 * a gap that would be a stall itself (the stall's threshold, at least the
 * minimum stall duration), capture time.  Data, then a pause, then the FIN
 * is the response's end and a close, not a goodbye sent with the close. */
static double close_deadline(const tapo_packet *p, const tapo_snapshot *snap, const tapo_config *cfg)
{
    return p->time_s + fmax(snap->threshold_s, cfg->min_stall_s);
}

/* Builds the views of the possible stall from what was read before p and
 * what p was; true when p ends a stall for either endpoint. */
static bool build_views(tapo_conv *c, const tapo_packet *p, const tapo_view_gap gaps[2],
                        const view_before before[2], const tapo_tx_info *tx, const tapo_rx_info *rx,
                        const tapo_config *cfg, tapo_stall_record *rec)
{
    bool stalled = false;
    for (int s = 0; s < 2; s++) {
        if (!gaps[s].candidate)
            continue;
        tapo_endpoint *e = &c->ep[s];
        tapo_cur_input cur = {
            .own = s == p->from, .tx = tx, .payload = p->payload_len > 0,
            .window_opened = s != p->from && rx->window_opened, .away = gaps[s].distance.away,
            .acked_after_s = s != p->from && rx->rtt_valid ? tapo_opt_s_of(p->time_s - rx->rtt_seen_s)
                                                            : tapo_opt_s_none(),
            .ids_skipped = s == p->from ? e->ip_ids.unclaimed_skipped : 0,
            .ids_prove_none_unseen = s == p->from && tx->none_unseen,
            .heard_unseen_payload = s == p->from && tx->heard_unseen_payload,
            .acks_all = s != p->from && !tapo_sender_outstanding(&e->tx),
            .reveals_data = s != p->from && rx->revealed_bytes > 0,
            .revealed_bytes = s != p->from ? rx->revealed_bytes : 0,
            .reveals_resent = s != p->from && rx->revealed_resent,
            .refill_hole_frame = s != p->from ? rx->refill_hole_frame : 0,
            .refill_sacked = s != p->from ? rx->refill_sacked : 0,
            .frame = p->frame, .bytes_sent = tapo_sender_payload_bytes(&e->tx),
            .syn = p->header_valid && (p->flags & TAPO_TCP_SYN),
            .fin = p->header_valid && (p->flags & TAPO_TCP_FIN), .rst = p->header_valid && (p->flags & TAPO_TCP_RST),
            .since_tx_s = gaps[s].since_tx_s, .rto_min_s = cfg->rto_min_s,
        };
        tapo_stall_build(&before[s].snap, &before[s].facts, &cur, cfg, &rec->view[s]);
        if (cur.own && tx->kind == TAPO_TX_RETRANSMISSION)
            tapo_sender_watch_cur(&e->tx, tx);
        if (!cur.own && tapo_cur_is_peer_bare_ack(&rec->view[s].snap.cur) && rec->view[s].snap.packets_out > 0)
            tapo_sender_watch_acked(&e->tx, release_deadline(p, &rec->view[s].snap, cfg));
        rec->view[s].facts_final.far_ack = !cur.own && rx->far_ack;   /* for tapo_hs_gap_busy */
        if (rec->view[s].snap.cur.unseen_resent) {   /* the proof is in the packet: final at once */
            tapo_cur_reveals proof = tapo_unseen_copy_proof(p->frame);
            tapo_facts_add_cur(&rec->view[s].facts_final, &proof);
        }
        if (cur.own)
            tapo_sender_watch_sent(&e->tx, tx, cur.fin, tx->kind == TAPO_TX_NONE && !cur.fin && !cur.syn && !cur.rst,
                                   close_deadline(p, &rec->view[s].snap, cfg));
        stalled = stalled || rec->view[s].stalled;
    }
    return stalled;
}

/* A stall that a receiver packet ended: a sender packet seen later may
 * turn out to have been sent inside its gap (hindsight). */
static void watch_gap(tapo_conv *c, const tapo_packet *p, const tapo_view_gap gaps[2],
                      tapo_stall_record *rec)
{
    int s = tapo_peer_of(p->from);
    tapo_stall_view *view = &rec->view[s];
    /* A stall the receiver's own timer ended (its SYN resent) is that
     * timer's, wherever the sender's packets fall; its data resent ends
     * no stall of this view (stall_build.c). */
    bool receivers_timer = view->snap.cur.handshake_retransmission;
    if (view->stalled && !receivers_timer)
        tapo_sender_watch_gap(&c->ep[s].tx, &view->facts_final, gaps[s].time_s - gaps[s].clock.gap_s,
                              gaps[s].time_s, view->snap.threshold_s, p->time_s);
}

/* ---- the connection's life --------------------------------------------- */

bool tapo_conv_is_over(const tapo_conv *c)
{
    return c->reset_ends || (tapo_sender_finished(&c->ep[0].tx) && tapo_sender_finished(&c->ep[1].tx));
}

/* Once the connection is over, free the per-flow containers (state stays
 * bounded on long captures of many flows), but not while hindsight still
 * waits on a sender's stalls after a close: the D-SACK of a last copy
 * comes with the final ACKs, after its ACK (the table drops the state
 * after its grace period in any case).  After its own reset an endpoint
 * sends nothing more, and so does the receiver of a reset numbered where
 * the sender's data ends.  A reset numbered below that repeats sequence
 * space the receiver may have taken already (the sender's FIN): then it
 * is outside the receiver's window (RFC 793, 5961), which ignores it and
 * goes on sending and resending: its containers stay until its own close
 * or the table's grace period. */
static void release_if_over(tapo_conv *c, const tapo_packet *p)
{
    if (p->header_valid && (p->flags & TAPO_TCP_RST)) {
        c->reset_ends |= (uint8_t)(1u << p->from);
        if (tapo_sender_at_end(&c->ep[p->from].tx, p))
            c->reset_ends |= (uint8_t)(1u << tapo_peer_of(p->from));
    } else if (p->header_valid && (p->flags & TAPO_TCP_SYN)) {
        c->reset_ends = 0;   /* a SYN retried after a reset refused it: the handshake starts again */
    }
    if (!tapo_conv_is_over(c))
        return;
    for (int e = 0; e < 2; e++)
        if ((c->reset_ends & (1u << e)) || (tapo_sender_finished(&c->ep[e].tx) && !tapo_sender_watching(&c->ep[e].tx)))
            tapo_sender_release(&c->ep[e].tx);
}

/* What a SYN with another initial sequence number does; false: p belongs
 * to another connection and changes nothing here. */
static bool follow_handshake(tapo_conv *c, tapo_endpoint *self, const tapo_endpoint *peer,
                             const tapo_packet *p, const tapo_config *cfg)
{
    switch (tapo_handshake_classify(&c->handshake, &self->tx, &peer->tx, p)) {
    case TAPO_HANDSHAKE_NEW_CONNECTION:
        restart(c, cfg);
        return true;
    case TAPO_HANDSHAKE_NEW_ANSWER:
        restart_sender(self, cfg);
        return true;
    case TAPO_HANDSHAKE_STRAY:
        c->events.strays++;
        return false;
    case TAPO_HANDSHAKE_SAME:
        break;
    }
    return true;
}

/* What p tells before it reaches its endpoints: the ports, the capture's
 * clock, the handshake, timestamps and hop counts; then the gap p ends for
 * each endpoint as the sender. */
static void read_gaps(tapo_conv *c, tapo_endpoint *self, tapo_endpoint *peer, const tapo_packet *p,
                      tapo_turn_kind answer, const tapo_config *cfg, tapo_view_gap gaps[2])
{
    if (!c->has_prev) {
        self->port = p->src_port;
        peer->port = p->dst_port;
    }
    tapo_quirks_note_time(&c->quirks, p, &c->events);
    /* p's own turnaround first: a SYN-ACK tells how far the capture point
     * is from its sender before it is placed on that sender's timeline. */
    note_handshake(c, self, peer, p, cfg);
    if (G_UNLIKELY(c->keep_alive_by || p->keep_alive))
        note_keep_alive(c, self, p, cfg);
    note_timestamps(c, self, peer, p, answer, cfg);
    if (tapo_hops_note(&self->hops, p->ttl))
        c->turn_version++;   /* the vantage may read otherwise */
    if (G_UNLIKELY(p->same_host) && tapo_hops_note_same_host(&self->hops))
        c->turn_version++;
    for (int s = 0; s < 2; s++)
        tapo_view_gap_read(&c->ep[s], &c->ep[tapo_peer_of(s)], p, s == p->from, cfg, c->turn_version, &gaps[s]);
    tapo_view_gaps_settle(gaps, p, !c->has_prev, cfg);
}

/* A record for p when it may end a stall, with each candidate endpoint's
 * state read before p changes it; NULL (most packets) when it cannot. */
/* Away from the sender, what it had acknowledged when it sent p (its own
 * packet) corrects the state read before p. */
static void read_behind(const tapo_endpoint *self, const tapo_packet *p, const tapo_view_gap *own,
                        tapo_snapshot *snap)
{
    if (!own->distance.away)
        return;
    tapo_acks_received acks;
    tapo_sender_acks_received(&self->tx, own->time_s, own->on_clock.margin_s, own->on_clock.has_ts, p->tsecr, p,
                              &acks);
    tapo_sender_snapshot_behind(&self->tx, &acks, snap);
}

/* A request that the sender's own packet p acknowledges none of had not
 * reached it: it had none pending (an ACK says exactly what its sender had
 * received, whatever the capture saw leave the receiver).  When the
 * request left long enough before p to have arrived (longer than the
 * round trip between the capture point and the sender, twice, and the
 * minimum stall duration for the host), it was lost on its way: the
 * receiver was not idle either (request_unheard).  Sooner, the two
 * crossed.  Out of line: reached only by possible stalls, and inlined it
 * costs the per-packet path 1.4 % of its instructions (the inliner's
 * budget). */
G_GNUC_NO_INLINE static void note_unheard_request(const tapo_endpoint *self, const tapo_packet *p,
                                                  const tapo_view_gap *own, const tapo_config *cfg,
                                                  tapo_snapshot *snap)
{
    double since_s;
    if (!tapo_sender_request_unheard(&self->tx, p, &since_s))
        return;
    snap->request_pending = false;
    double round_trip_s = own->distance.away && own->distance.known ? own->distance.round_trip_now_s : 0.0;
    snap->request_unheard = since_s > 2.0 * round_trip_s + cfg->min_stall_s;
}

static tapo_stall_record *open_record(tapo_conv *c, const tapo_packet *p, const tapo_view_gap gaps[2],
                                      const tapo_config *cfg, const tapo_record_pool *pool,
                                      view_before before[2])
{
    if (!gaps[0].candidate && !gaps[1].candidate)
        return NULL;
    tapo_stall_record *rec = pool->get(pool->ctx);
    memset(rec, 0, sizeof *rec);
    rec->frame = p->frame;
    for (int s = 0; s < 2; s++) {
        if (!gaps[s].candidate)
            continue;
        read_before(c, s, &gaps[s], cfg, &before[s]);
        if (s == p->from) {
            read_behind(&c->ep[s], p, &gaps[s], &before[s].snap);
            note_unheard_request(&c->ep[s], p, &gaps[s], cfg, &before[s].snap);
        }
        watch(&c->ep[s], &before[s], &rec->view[s]);
    }
    return rec;
}

/* The record once p went through: kept with its sender chosen, or given
 * back (NULL) when p ended no stall after all. */
static tapo_stall_record *close_record(tapo_conv *c, const tapo_packet *p, const tapo_view_gap gaps[2],
                                       bool stalled, const tapo_config *cfg, const tapo_record_pool *pool,
                                       tapo_stall_record *rec)
{
    if (stalled) {
        /* Chosen with p counted: the first byte of a response makes its
         * sender a data sender. */
        tapo_conv_summary sum;
        tapo_conv_summarize(c, &sum);
        int sender = tapo_conv_sender(&sum, cfg, rec, &rec->sender_basis_at_packet);
        rec->sender_at_packet = (uint8_t)sender;
        watch_gap(c, p, gaps, rec);
        return rec;
    }
    for (int s = 0; s < 2; s++)
        if (gaps[s].candidate)
            tapo_sender_unwatch(&c->ep[s].tx, &rec->view[s].facts_final);
    pool->put(pool->ctx, rec);
    return NULL;
}

tapo_stall_record *tapo_conv_process(tapo_conv *c, const tapo_packet *p, const tapo_config *cfg,
                                     const tapo_record_pool *pool)
{
    if (p->from != 0 && p->from != 1)
        return NULL;
    tapo_seen_packet seen = tapo_seen(p);
    if (tapo_quirks_is_duplicate(&c->quirks, &seen))
        return NULL;
    tapo_endpoint *self = &c->ep[p->from], *peer = &c->ep[tapo_peer_of(p->from)];
    tapo_packet resent;
    if (G_UNLIKELY(p->keep_alive) && tapo_sender_keep_alive_resends(&self->tx, p)) {
        resent = *p;   /* a retransmission Wireshark's rule flags as a keep-alive */
        resent.keep_alive = false;
        p = &resent;
    }
    if (!follow_handshake(c, self, peer, p, cfg))
        return NULL;
    /* What p measures as an answer, read before p changes anything (its
     * echo and its ACK read it): an ACK that rides on the head of a
     * response includes the think time. */
    bool head = p->payload_len > 0 && tapo_sender_request_pending(&self->tx);
    tapo_turn_kind answer = answer_kind(peer, p, head);
    tapo_view_gap gaps[2];
    read_gaps(c, self, peer, p, answer, cfg, gaps);
    if (gaps[p->from].distance.away)
        place_late_sender_packet(self, p, &gaps[p->from]);
    view_before before[2];
    /* Most packets end no gap that may be a stall: not even the call. */
    tapo_stall_record *rec = gaps[0].candidate || gaps[1].candidate ? open_record(c, p, gaps, cfg, pool, before)
                                                                    : NULL;
    bool acked_before = silent_past_timer(peer, p);
    tapo_tx_info tx;
    tapo_rx_info rx;
    /* On the peer's timeline p is a request when it asks something new. */
    gaps[tapo_peer_of(p->from)].on_clock.asks = pass_packet(c, self, peer, p, gaps, acked_before, answer, cfg, &tx, &rx);
    if (rec)
        rec = close_record(c, p, gaps, build_views(c, p, gaps, before, &tx, &rx, cfg, rec), cfg, pool, rec);
    tapo_sender_note_transmitted(&self->tx, p->time_s, tx.new_data);
    tapo_messages_packet(&c->messages, p->from, tx.new_data && p->payload_len > 0);
    release_if_over(c, p);
    for (int s = 0; s < 2; s++)
        tapo_clock_note(&c->ep[s].clock, &gaps[s].on_clock);
    tapo_quirks_remember(&c->quirks, &seen);
    c->has_prev = true;
    return rec;
}

void tapo_conv_summarize(const tapo_conv *c, tapo_conv_summary *sum)
{
    for (int e = 0; e < 2; e++) {
        sum->payload_bytes[e] = tapo_sender_payload_bytes(&c->ep[e].tx);
        sum->port[e] = c->ep[e].port;
        sum->ids_shared[e] = c->ep[e].ip_ids.shared;
    }
    sum->messages = c->messages.counts;
    sum->initiator = c->handshake.initiator;
}

void tapo_conv_resume(tapo_conv *c, const tapo_conv_summary *sum)
{
    for (int e = 0; e < 2; e++) {
        tapo_sender_resume(&c->ep[e].tx, sum->payload_bytes[e]);
        c->ep[e].port = sum->port[e];
        c->ep[e].ip_ids.shared = sum->ids_shared[e];
    }
    c->handshake.initiator = sum->initiator;
    tapo_messages_resume(&c->messages, &sum->messages);
    c->has_prev = true;   /* not the first packet: it may end a stall */
}
