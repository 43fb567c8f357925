/* endpoint.c: see endpoint.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "connection/endpoint.h"

#include <math.h>
#include <string.h>

void tapo_endpoint_init(tapo_endpoint *e, const tapo_config *cfg)
{
    memset(e, 0, sizeof *e);
    tapo_sender_init(&e->tx);
    tapo_rtt_init(&e->rtt, cfg->rto_initial_s);
}

void tapo_endpoint_destroy(tapo_endpoint *e)
{
    tapo_sender_destroy(&e->tx);
}

tapo_vantage tapo_endpoint_vantage(const tapo_endpoint *self, const tapo_endpoint *peer,
                                   const tapo_config *cfg, tapo_basis *basis)
{
    if (cfg->vantage_mode != TAPO_VANTAGE_MODE_AUTO) {
        *basis = TAPO_BASIS_PREFERENCE;
        return cfg->vantage_mode == TAPO_VANTAGE_MODE_RECEIVER ? TAPO_VANTAGE_RECEIVER
             : cfg->vantage_mode == TAPO_VANTAGE_MODE_MIDDLE ? TAPO_VANTAGE_MIDDLE
             : TAPO_VANTAGE_SENDER;
    }
    return tapo_vantage_infer(&self->turn, &peer->turn, &self->hops, &peer->hops, basis);
}

const tapo_distance *tapo_endpoint_measure_distance(tapo_endpoint *self, const tapo_endpoint *peer,
                                                    const tapo_config *cfg, uint32_t turn_version)
{
    tapo_distance d = { 0 };
    tapo_basis basis;
    tapo_vantage vantage = tapo_endpoint_vantage(self, peer, cfg, &basis);
    d.away = vantage != TAPO_VANTAGE_SENDER;
    d.at_receiver = vantage == TAPO_VANTAGE_RECEIVER;
    d.known = !d.away || self->turn.samples > 0;
    if (d.away && d.known) {
        d.round_trip_min_s = self->turn.min_s;
        d.round_trip_now_s = tapo_turn_recent(&self->turn);
    }
    self->distance = d;
    self->distance_version = turn_version;
    return &self->distance;
}

/* Causality: p was sent after self received what p acknowledges or
 * echoes, so not before those packets were seen.  Estimates of the
 * distance are minima and jitter; this keeps an answer after its
 * question. */
static tapo_opt_s answered_since(const tapo_endpoint *peer, const tapo_packet *p)
{
    tapo_opt_s since = tapo_opt_s_none();
    if (!p->header_valid)
        return since;
    if (p->flags & TAPO_TCP_ACK)
        since = tapo_sender_all_acked_seen(&peer->tx, p->ack_raw);
    double echoed;
    if (p->has_timestamps && tapo_ts_first_seen(&peer->ts, p->tsecr, &echoed))
        since = tapo_opt_s_of(since.known ? tapo_max(since.s, echoed) : echoed);
    return since;
}

double tapo_endpoint_send_time(const tapo_endpoint *self, const tapo_endpoint *peer,
                               const tapo_packet *p, const tapo_distance *d)
{
    if (!d->away || !d->known)
        return p->time_s;
    tapo_opt_s queued = tapo_opt_s_none();
    if (p->has_timestamps)
        queued = tapo_ts_clock_delay(&self->ts_clock, p->tsval, p->time_s);
    if (!queued.known)
        queued = tapo_opt_s_of(d->round_trip_now_s - d->round_trip_min_s);
    double t = p->time_s - d->round_trip_min_s - queued.s;
    tapo_opt_s since = answered_since(peer, p);
    return since.known ? tapo_max(t, since.s) : t;
}

/* Whether a jump of the IDs counts more packets than this connection could
 * have sent unseen: p continues the data exactly (no new data was sent in
 * between), too soon for a retransmission timer, so the unseen packets
 * could only have answered the peer's packets (ACKs, fast retransmissions)
 * or been one tail-loss probe, and none of that once p came sooner than a
 * probe's timer too (twice the SRTT, RFC 8985).  A host-wide counter jumps
 * by what the host sent elsewhere. */
static bool proves_shared(const tapo_endpoint *e, const tapo_packet *p, unsigned unseen, double rto_min_s)
{
    const tapo_ip_ids *ids = &e->ip_ids;
    double since_s = p->time_s - ids->last_s;
    bool probe_possible = !e->rtt.has_sample || since_s >= TAPO_PROBE_SRTTS * e->rtt.srtt_s;
    return unseen > ids->peer_packets + (probe_possible ? 1u : 0u) && since_s < rto_min_s &&
           tapo_sender_continues(&e->tx, p);
}

/* Whether the IDs missing between the endpoint's previous packet and p
 * are proven this connection's: no other packet of the capture, whatever
 * its addresses, carried one of them in between (spec section 8).
 * Without the capture's census nothing is proven. */
static bool missing_ids_unclaimed(const tapo_ip_ids *ids, const tapo_packet *p)
{
    return p->census && ids->last_order && p->id_order &&
           !tapo_id_census_carried_between(p->census, ids->last_order, ids->last, p->id_order, p->ip_id);
}

/* A skip whose missing IDs the sender's own host carried between its two
 * packets, on packets outside this connection (another connection, or not
 * TCP), proves its counter host-wide: a later skip may be packets it sent
 * elsewhere that the capture does not hold as much as this connection's
 * own lost ones (spec section 8). */
static bool host_numbered_elsewhere(const tapo_ip_ids *ids, const tapo_packet *p, uint16_t step)
{
    return step <= TAPO_IP_ID_MAX_UNSEEN + 1 && p->census && ids->last_order && p->id_order &&
           tapo_id_census_host_carried_between(p->census, ids->last_order, ids->last, p->id_order, p->ip_id);
}

/* Whether a skip of step proves the counter shared, by timing or by the
 * host's packets elsewhere.  Out of line: reached only on a skip. */
G_GNUC_NO_INLINE static bool skip_proves_shared(const tapo_endpoint *e, const tapo_packet *p, uint16_t step,
                                                double rto_min_s)
{
    return proves_shared(e, p, step - 1u, rto_min_s) || host_numbered_elsewhere(&e->ip_ids, p, step);
}

/* A skip of the IDs too large to count this early (before the counter is
 * shown to step by one), after IDs that had only stepped by one, that no
 * packet of the capture claims: the sender may have sent that many
 * packets the capture missed, or packets of other connections from a
 * counter they share; nothing tells which.  (A counter that had already
 * skipped is another's as much as this connection's.)  Out of line: the
 * per-packet path reaches it only on such a skip. */
G_GNUC_NO_INLINE static uint16_t early_unclaimed_skip(const tapo_ip_ids *ids, const tapo_packet *p, uint16_t step,
                                                      bool established)
{
    if (step <= 1 || established || ids->shared || ids->unit_steps != ids->steps ||
        step > TAPO_IP_ID_MAX_UNSEEN + 1 || !missing_ids_unclaimed(ids, p))
        return 0;
    return (uint16_t)(step - 1u);
}

/* Two consecutive IDs say that nothing was sent in between, whatever the
 * counter (one per connection, or one for the whole host: then nothing was
 * sent at all).  A larger step counts unseen packets of this connection
 * once its IDs are shown to step by one packet by packet; before that,
 * only a step of a few (two originals of a small window lost, and their
 * probe): a counter shared with other connections (some stacks keep one
 * per host) jumps by what the host sent elsewhere, typically more, and
 * random IDs land near the previous one by chance.  Once a jump proves
 * the counter shared (too many unseen packets too soon, or the host's
 * packets elsewhere carrying the missing IDs), no jump counts any more.
 * And a gap counts only where no other packet of the capture carried a
 * missing ID. */
tapo_opt_count tapo_endpoint_count_unseen(tapo_endpoint *e, const tapo_packet *p, double rto_min_s)
{
    uint16_t id = p->ip_id;
    tapo_ip_ids *ids = &e->ip_ids;
    ids->unclaimed_skipped = 0;         /* p's own: a packet without an ID skipped nothing */
    if (id == 0)
        return tapo_opt_count_none();   /* no ID (IPv6), or a stack that leaves it 0 */
    tapo_opt_count unseen = tapo_opt_count_none();
    if (ids->seen) {
        uint16_t step = (uint16_t)(id - ids->last);
        bool established = ids->steps >= TAPO_IP_ID_MIN_STEPS;
        bool sequential = ids->unit_steps >= TAPO_IP_ID_SEQUENTIAL_SHARE * ids->steps;
        unsigned max_step = !established ? TAPO_IP_ID_EARLY_MAX_UNSEEN + 1
                          : sequential ? TAPO_IP_ID_MAX_UNSEEN : 1;
        if (step > 1 && !ids->shared && skip_proves_shared(e, p, step, rto_min_s))
            ids->shared = true;
        if (step == 1 || (!ids->shared && step >= 1 && step <= max_step && missing_ids_unclaimed(ids, p)))
            unseen = tapo_opt_count_of(step - 1u);
        if (!unseen.known)
            ids->unclaimed_skipped = early_unclaimed_skip(ids, p, step, established);
        ids->steps++;
        ids->unit_steps += step == 1;
    }
    ids->seen = true;
    ids->last = id;
    ids->last_order = p->id_order;
    ids->last_s = p->time_s;
    ids->peer_packets = 0;
    ids->peer_data_packets = 0;
    return unseen;
}

void tapo_endpoint_note_peer_packet(tapo_endpoint *e, bool takes_sequence)
{
    e->ip_ids.peer_packets++;
    e->ip_ids.peer_data_packets += takes_sequence && e->ip_ids.peer_data_packets < UINT16_MAX;
}
