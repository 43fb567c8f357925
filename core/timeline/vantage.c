/* vantage.c: turnarounds, timestamp echoes and the vantage they imply.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "timeline/vantage.h"

#include <math.h>

#include "base/finite.h"

bool tapo_turn_add(tapo_turnaround *t, double sample_s, tapo_turn_kind kind)
{
    if (!(sample_s >= 0.0) || sample_s > TAPO_TURN_MAX_S)
        return false;   /* a file going back in time, or nonsense */
    /* What the vantage and the distance read: whether there are samples
     * and whether just one, the least, the handshake's, the recent least. */
    bool changed = t->samples < 2 || sample_s < t->min_s || (kind == TAPO_TURN_HANDSHAKE && !t->handshake);
    if (t->samples == 0 || sample_s < t->min_s)
        t->min_s = sample_s;
    t->samples++;
    t->handshake = t->handshake || kind == TAPO_TURN_HANDSHAKE;
    /* Only an answer that cannot have waited proves how far the endpoint
     * is; a sample that may have waited proves only how near. */
    if (kind == TAPO_TURN_CLEAN || kind == TAPO_TURN_HANDSHAKE) {
        changed = changed || !t->proven;
        t->proven = true;
    }
    /* Every sample bounds the round trip from above (causality); a head
     * adds the application's think time, so it counts among the recent
     * ones only before any clean one, or as a bound tighter than theirs
     * (clean samples that are all delayed ACKs).  A delayable ACK counts
     * as clean here: it follows the path's queueing as well, and keeping
     * it out lost as many verdicts as it gained (tests/verdicts/README.md,
     * fifteenth session). */
    if (kind == TAPO_TURN_RESPONSE_HEAD && t->recent.count > 0 && sample_s >= t->recent_min_s)
        return changed;
    t->recent_s[tapo_ring_push(&t->recent, TAPO_TURN_RECENT)] = sample_s;
    double least = t->recent_s[0];
    for (unsigned i = 1; i < t->recent.count; i++)
        least = tapo_min(least, t->recent_s[i]);
    changed = changed || least != t->recent_min_s;
    t->recent_min_s = least;
    return changed;
}

double tapo_turn_recent(const tapo_turnaround *t)
{
    if (t->recent.count == 0)
        return t->samples ? t->min_s : 0.0;
    return t->recent_min_s;
}

bool tapo_hops_note(tapo_hops *h, uint8_t ttl)
{
    if (ttl == 0 || h->varies || ttl == h->ttl)
        return false;
    bool home = tapo_hops_home(h);
    if (h->ttl == 0)
        h->ttl = ttl;
    else
        h->varies = true;
    return home != tapo_hops_home(h);
}

bool tapo_hops_note_same_host(tapo_hops *h)
{
    bool first = !h->same_host;
    h->same_host = true;
    return first;
}

bool tapo_hops_home(const tapo_hops *h)
{
    return !h->varies && (h->ttl == 64 || h->ttl == 128 || h->ttl == 255);
}

/* The capture was on one endpoint's link and not the other's. */
static bool placed_by_hops(const tapo_hops *sender, const tapo_hops *receiver, tapo_vantage *v)
{
    bool s_home = tapo_hops_home(sender), r_home = tapo_hops_home(receiver);
    if (s_home == r_home || sender->ttl == 0 || receiver->ttl == 0)
        return false;
    *v = s_home ? TAPO_VANTAGE_SENDER : TAPO_VANTAGE_RECEIVER;
    return true;
}

/* Where the turnarounds alone put the capture (basis: turnaround or
 * handshake, or default without any). */
static tapo_vantage placed_by_turnarounds(const tapo_turnaround *sender, const tapo_turnaround *receiver,
                                          tapo_basis *basis)
{
    bool have_s = sender->samples > 0, have_r = receiver->samples > 0;
    *basis = TAPO_BASIS_TURNAROUND;
    if (have_s && have_r) {
        double path = sender->min_s + receiver->min_s;
        if (sender->handshake && receiver->handshake)
            *basis = TAPO_BASIS_HANDSHAKE;
        if (path <= 0.0 || sender->min_s <= TAPO_VANTAGE_NEAR_SHARE * path)
            return TAPO_VANTAGE_SENDER;
        if (receiver->min_s <= TAPO_VANTAGE_NEAR_SHARE * path)
            return TAPO_VANTAGE_RECEIVER;
        return TAPO_VANTAGE_MIDDLE;
    }
    /* One side measured: a host-fast answer puts the capture at that
     * endpoint; a slow one puts it away from it (most often at the other
     * end: a laptop downloading, a server receiving an upload).  Not from
     * the SYN-ACK alone, though: a server slow to answer a SYN looks like a
     * long path until the ACK of its SYN-ACK tells them apart. */
    if ((have_r && receiver->handshake && receiver->samples == 1) ||
        (have_s && sender->handshake && sender->samples == 1))
        have_r = have_s = false;
    if (have_r)
        return receiver->min_s < TAPO_VANTAGE_HOST_TURN_S ? TAPO_VANTAGE_RECEIVER : TAPO_VANTAGE_SENDER;
    if (have_s)
        return sender->min_s < TAPO_VANTAGE_HOST_TURN_S ? TAPO_VANTAGE_SENDER : TAPO_VANTAGE_RECEIVER;
    *basis = TAPO_BASIS_DEFAULT;
    return TAPO_VANTAGE_SENDER;
}

/* Whether the turnarounds put the capture away from the endpoint on
 * whose link the TTLs put it (by_hops) with nothing but that endpoint's
 * answers that may have waited (delayed ACKs, heads of responses): they
 * prove how near an endpoint is, never how far.  Then the TTLs win, but
 * not to move the capture away from a sender whose distance only such
 * answers bound: away from the sender its packets are placed by that
 * distance (originals lost before the capture, copies proven unneeded),
 * which takes a proven one, or none at all (then nothing is placed by
 * it). */
static bool far_unproven(tapo_vantage by_hops, tapo_vantage v, const tapo_turnaround *sender,
                         const tapo_turnaround *receiver)
{
    const tapo_turnaround *near = by_hops == TAPO_VANTAGE_SENDER ? sender : receiver;
    if (v == by_hops || near->samples == 0 || near->proven)
        return false;
    return by_hops == TAPO_VANTAGE_SENDER || sender->samples == 0 || sender->proven;
}

tapo_vantage tapo_vantage_infer(const tapo_turnaround *sender, const tapo_turnaround *receiver,
                                const tapo_hops *sender_hops, const tapo_hops *receiver_hops,
                                tapo_basis *basis)
{
    if (sender_hops->same_host || receiver_hops->same_host) {
        /* Loopback, or a host talking to itself: each packet was seen
         * where it left and where it arrived at once, so at the sender
         * whichever endpoint sends.  Its turnarounds are the endpoints'
         * own scheduling, no path to place packets by. */
        *basis = TAPO_BASIS_SAME_HOST;
        return TAPO_VANTAGE_SENDER;
    }
    tapo_vantage v = placed_by_turnarounds(sender, receiver, basis);
    tapo_vantage by_hops;
    if (!placed_by_hops(sender_hops, receiver_hops, &by_hops))
        return v;
    /* The TTLs say whose link the capture was on; the turnarounds yield
     * where they cannot tell (within one clock tick, or none), and where
     * they put it away from the sender on its link only by answers that
     * may have waited. */
    bool both = sender->samples > 0 && receiver->samples > 0;
    bool within_tick = both && sender->min_s + receiver->min_s <= 0.0;
    if (*basis == TAPO_BASIS_DEFAULT || within_tick || far_unproven(by_hops, v, sender, receiver)) {
        *basis = TAPO_BASIS_HOPS;
        return by_hops;
    }
    return v;
}

void tapo_ts_sent(tapo_ts_history *h, uint32_t tsval, double t)
{
    if (h->ring.count > 0 && h->sent[tapo_ring_newest(&h->ring, TAPO_TS_HISTORY, 0)].tsval == tsval)
        return;   /* the same clock tick: keep its first time */
    h->sent[tapo_ring_push(&h->ring, TAPO_TS_HISTORY)] = (tapo_ts_sent_at){ tsval, t };
}

bool tapo_ts_first_seen(const tapo_ts_history *h, uint32_t tsval, double *first_seen_s)
{
    if (tsval == 0)
        return false;
    for (unsigned i = 0; i < h->ring.count; i++) {
        if (h->sent[i].tsval == tsval) {
            *first_seen_s = h->sent[i].first_seen_s;
            return true;
        }
    }
    return false;
}

bool tapo_ts_echo(tapo_ts_history *echoer, const tapo_ts_history *peer, uint32_t tsecr,
                  double t, double *turnaround_s)
{
    if (tsecr == 0 || (echoer->echoed && echoer->last_echo == tsecr))
        return false;
    echoer->echoed = true;
    echoer->last_echo = tsecr;
    double first;
    if (!tapo_ts_first_seen(peer, tsecr, &first))
        return false;
    *turnaround_s = t - first;
    return true;
}
