/* sender_clock.c: see sender_clock.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sender_clock.h"

/* The receiver packet had not reached the sender when it sent p: p echoes
 * an older TSval. */
static bool newer_than_echo(const tapo_sender_clock *k, unsigned i, const tapo_clock_packet *p)
{
    return p->own && p->has_ts && k->peer_has_ts[i] && (int32_t)(k->peer_tsval[i] - p->tsecr) > 0;
}

/* Nothing can be on its way to the sender (a peer packet, or a capture at
 * the sender) and no peer packet lies after p: the gap runs from the
 * latest packet and the silence from the latest peer packet, without
 * looking at each (the common case, on every packet). */
static bool read_simply(const tapo_sender_clock *k, const tapo_clock_packet *p, tapo_clock_reading *r)
{
    if ((p->own && p->in_flight_s > 0.0) || (k->peer_count && k->peer_latest_s > p->t_s))
        return false;
    double t_s = p->t_s;
    r->gap_s = k->started && t_s > k->latest_s ? t_s - k->latest_s : 0.0;
    r->prev_frame = k->latest_frame;
    double since = k->peer_count ? k->peer_latest_s : (k->started ? k->first_s : t_s);
    r->silence_s = t_s > since ? t_s - since : 0.0;
    return true;
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
    double prev = 0.0, last_peer = -1.0;
    uint32_t prev_frame = 0;
    if (k->has_own) {
        found = true;
        prev = k->own_s;
        prev_frame = k->own_frame;
    }
    for (unsigned i = 0; i < k->peer_count; i++) {
        double s = k->peer_s[i];
        if (s > received_by || (in_flight_s > 0.0 && newer_than_echo(k, i, p)))
            continue;   /* still on its way to the sender */
        if (s > last_peer)
            last_peer = s;
        if (!found || s > prev) {
            prev = s;
            prev_frame = k->peer_frame[i];
            found = true;
        }
    }
    if (behind || !found || !own || in_flight_s <= 0.0) {
        /* Nothing can be on its way: measured from the latest packet, as
         * also when the file went back in time. */
        r->gap_s = k->started && t_s > k->latest_s ? t_s - k->latest_s : 0.0;
        r->prev_frame = k->latest_frame;
    } else {
        r->gap_s = t_s > prev ? t_s - prev : 0.0;
        r->prev_frame = prev_frame;
    }
    double since = last_peer >= 0.0 ? last_peer : (k->started ? k->first_s : t_s);
    r->silence_s = t_s > since ? t_s - since : 0.0;
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
    bool drops_latest = k->peer_count == TAPO_CLOCK_PEER_RECENT && k->peer_s[k->peer_next] == k->peer_latest_s;
    k->peer_s[k->peer_next] = t_s;
    k->peer_frame[k->peer_next] = frame;
    k->peer_has_ts[k->peer_next] = p->has_ts;
    k->peer_tsval[k->peer_next] = p->tsval;
    k->peer_next = (k->peer_next + 1) % TAPO_CLOCK_PEER_RECENT;
    if (k->peer_count < TAPO_CLOCK_PEER_RECENT)
        k->peer_count++;
    if (k->peer_count == 1 || t_s >= k->peer_latest_s) {
        k->peer_latest_s = t_s;
    } else if (drops_latest) {
        k->peer_latest_s = k->peer_s[0];
        for (unsigned i = 1; i < k->peer_count; i++)
            if (k->peer_s[i] > k->peer_latest_s)
                k->peer_latest_s = k->peer_s[i];
    }
}
