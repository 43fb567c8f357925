/* sender_clock.c: see sender_clock.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "timeline/sender_clock.h"

#include <math.h>

#include "base/optional.h"
#include "packet/packet_input.h"

/* The receiver packet had not reached the sender when it sent p: p echoes
 * an older TSval. */
static bool newer_than_echo(const tapo_clock_peer *q, const tapo_clock_packet *p)
{
    return p->own && p->has_ts && q->has_ts && (int32_t)(q->tsval - p->tsecr) > 0;
}

/* Or p resends data the receiver packet (or an earlier one) acknowledged. */
static bool unheard(const tapo_clock_peer *q, const tapo_clock_packet *p)
{
    return p->own && p->unheard_from_s.known && q->t_s >= p->unheard_from_s.s;
}

/* Or p's acknowledgement does not cover the data or FIN the receiver
 * packet carried: a TCP acknowledges everything it received in order, so
 * that packet had not reached it (a FIN resent by its timer before the
 * peer's ACK and FIN arrived, which it does not acknowledge). */
static bool unacknowledged(const tapo_clock_peer *q, const tapo_clock_packet *p)
{
    return p->own && p->acks && q->takes_seq && !tapo_ack_covers(p->seq_mark_raw, q->end_raw);
}

/* The receiver packet q had not reached the sender when it sent p: seen
 * after p's time on the sender's clock and its placement's precision, or
 * (p seen after a round trip's flight) shown by p's own fields. */
static bool on_its_way(const tapo_clock_peer *q, const tapo_clock_packet *p, double received_by)
{
    if (q->t_s > received_by)
        return true;
    return p->in_flight_s > 0.0 && (newer_than_echo(q, p) || unheard(q, p) || unacknowledged(q, p));
}

/* Nothing can be on its way to the sender (a peer packet, or a capture at
 * the sender) and no peer packet lies after p: the gap runs from the
 * latest packet and the silence from the latest peer packet, without
 * looking at each (the common case, on every packet). */
static bool read_simply(const tapo_sender_clock *k, const tapo_clock_packet *p, tapo_clock_reading *r)
{
    if ((p->own && p->in_flight_s > 0.0) || (k->peer_ring.count && k->peer_latest_s > p->t_s))
        return false;
    double t_s = p->t_s;
    r->gap_s = k->started && t_s > k->latest_s ? t_s - k->latest_s : 0.0;
    r->prev_frame = k->latest_frame;
    double since = k->peer_ring.count ? k->peer_latest_s : (k->started ? k->first_s : t_s);
    r->silence_s = t_s > since ? t_s - since : 0.0;
    r->request_on_way = false;
    return true;
}

/* The earliest remembered receiver packet's time, seconds (a full ring). */
static double oldest_peer_s(const tapo_sender_clock *k)
{
    double oldest = k->peers[0].t_s;
    for (unsigned i = 1; i < k->peer_ring.count; i++)
        if (k->peers[i].t_s < oldest)
            oldest = k->peers[i].t_s;
    return oldest;
}

void tapo_clock_read(const tapo_sender_clock *k, const tapo_clock_packet *p, tapo_clock_reading *r)
{
    if (read_simply(k, p, r))
        return;
    double t_s = p->t_s, in_flight_s = p->in_flight_s;
    bool own = p->own;
    double received_by = own && in_flight_s > 0.0 ? t_s + p->margin_s : t_s;
    double horizon = own ? t_s + in_flight_s : t_s;
    bool found = false;
    bool behind = k->started && (k->latest_s > horizon || (k->has_own && k->own_s > t_s));
    double prev = 0.0;
    tapo_opt_s last_peer = tapo_opt_s_none();
    uint32_t prev_frame = 0;
    bool request_on_way = false;
    if (k->has_own) {
        found = true;
        prev = k->own_s;
        prev_frame = k->own_frame;
    }
    for (unsigned i = 0; i < k->peer_ring.count; i++) {
        const tapo_clock_peer *q = &k->peers[i];
        if (on_its_way(q, p, received_by)) {
            request_on_way = request_on_way || q->asks;
            continue;   /* still on its way to the sender */
        }
        if (!last_peer.known || q->t_s > last_peer.s)
            last_peer = tapo_opt_s_of(q->t_s);
        if (!found || q->t_s > prev) {
            prev = q->t_s;
            prev_frame = q->frame;
            found = true;
        }
    }
    if (behind || !found || !own || in_flight_s <= 0.0) {
        /* Nothing can be on its way: measured from the latest packet, as
         * also when the file went back in time. */
        r->gap_s = k->started && t_s > k->latest_s ? t_s - k->latest_s : 0.0;
        r->prev_frame = k->latest_frame;
        r->request_on_way = false;
    } else {
        r->gap_s = t_s > prev ? t_s - prev : 0.0;
        r->prev_frame = prev_frame;
        r->request_on_way = request_on_way;
    }
    double since = last_peer.known ? last_peer.s : (k->started ? k->first_s : t_s);
    /* Every remembered receiver packet still on its way, and the ring
     * full: the receiver was sending faster than the ring follows (ACKs
     * of a bulk transfer), and the older ones it dropped, up to its
     * oldest, had reached the sender for all the ring tells.  The
     * silence is not claimed longer than that: a timer is not inferred
     * from the ring's length. */
    if (!last_peer.known && k->peer_ring.count == TAPO_CLOCK_PEER_RECENT)
        since = oldest_peer_s(k);
    r->silence_s = t_s > since ? t_s - since : 0.0;
}

double tapo_clock_own_gap_bound(const tapo_sender_clock *k, double t_s)
{
    if (!k->has_own)
        return INFINITY;
    return t_s > k->own_s ? t_s - k->own_s : 0.0;
}

void tapo_clock_note(tapo_sender_clock *k, const tapo_clock_packet *p)
{
    double t_s = p->t_s;
    bool own = p->own;
    uint32_t frame = p->frame;
    if (!k->started || t_s >= k->latest_s) {
        k->latest_s = t_s;
        k->latest_frame = frame;
    }
    if (!k->started) {
        k->started = true;
        k->first_s = t_s;
    }
    if (own) {
        if (!k->has_own || t_s >= k->own_s) {
            k->own_s = t_s;
            k->own_frame = frame;
        }
        k->has_own = true;
        return;
    }
    /* The latest peer time is looked for again only when the ring drops
     * it (a capture out of time order): on every other packet it is the
     * new one or stays. */
    bool drops_latest = k->peer_ring.count == TAPO_CLOCK_PEER_RECENT &&
                        k->peers[k->peer_ring.next].t_s == k->peer_latest_s;
    k->peers[tapo_ring_push(&k->peer_ring, TAPO_CLOCK_PEER_RECENT)] =
        (tapo_clock_peer){ t_s, frame, p->has_ts, p->asks, p->takes_seq, p->tsval, p->seq_mark_raw };
    if (k->peer_ring.count == 1 || t_s >= k->peer_latest_s) {
        k->peer_latest_s = t_s;
    } else if (drops_latest) {
        k->peer_latest_s = k->peers[0].t_s;
        for (unsigned i = 1; i < k->peer_ring.count; i++)
            if (k->peers[i].t_s > k->peer_latest_s)
                k->peer_latest_s = k->peers[i].t_s;
    }
}
