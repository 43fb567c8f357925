/* recovery.c: retransmission triggers, and transmissions lost before the
 * capture point.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sender/recovery.h"

#include <math.h>

/* Only a timer sends after the sender heard nothing for a stall threshold:
 * fast retransmissions and RACK leave within a fraction of an RTT of the
 * ACK that released them, a tail-loss probe waits 2 SRTT, an RTO longer. */
static bool after_timer_silence(const tapo_retx_clues *c)
{
    return c->silence_s >= TAPO_TIMER_SLACK * c->threshold_s;
}

/* Spec section 2, RFC 6675 widened to RACK and early retransmit (one
 * signal suffices: Decision in docs/algorithm.md).  Without a silence, a
 * retransmission without signals continues a timeout's recovery.  After
 * one: a tail-loss probe when it resends the last outstanding data while
 * earlier data is outstanding (an RTO resends snd_una) or, with one
 * segment out, clearly before the RTO; otherwise a timeout. */
tapo_trigger tapo_retx_trigger(const tapo_retx_clues *c)
{
    if (!after_timer_silence(c))
        return c->signals >= 1 ? TAPO_TRIGGER_FAST : TAPO_TRIGGER_TIMEOUT;
    if (c->open && c->resends_last) {
        if (c->above_una)
            return TAPO_TRIGGER_PROBE;
        if (c->since_tx_known && c->since_tx_s < TAPO_PROBE_RTO_SHARE * c->rto_s)
            return TAPO_TRIGGER_PROBE;
    }
    return TAPO_TRIGGER_TIMEOUT;
}

/* When the k-th expiry (k >= 1) of a timer armed at 0 falls: the RTO doubles
 * after each expiry (RFC 6298 5.5); with a tail-loss probe first (probe_s >
 * 0), the RTO is armed again when the probe leaves. */
static double expiry_s(unsigned k, double rto_s, double probe_s)
{
    double doubling = (double)((1u << (k - 1)) - 1);
    if (probe_s > 0.0)
        return k == 1 ? probe_s : probe_s + rto_s * (double)((1u << (k - 1)) - 1);
    return rto_s * (doubling * 2.0 + 1.0);
}

/* How many times the retransmission timer expired in a silence, choosing
 * the schedule (RTO only, or probe first with several or one segment out)
 * that fits best.  *probe_first tells whether that schedule began with a
 * probe. */
static unsigned timer_expiries(const tapo_retx_clues *c, double since_armed_s, bool *probe_first)
{
    double probes[3] = { 0.0, 0.0, 0.0 };
    unsigned schedules = 1;
    if (c->open && c->srtt.known && c->srtt.s > 0.0) {
        probes[schedules++] = fmin(2.0 * c->srtt.s, c->rto_s);
        probes[schedules++] = fmin(2.0 * c->srtt.s + TAPO_PROBE_SINGLE_EXTRA_S, c->rto_s);
    }
    unsigned best_k = 1;
    double best_error = INFINITY;
    *probe_first = false;
    for (unsigned s = 0; s < schedules; s++) {
        for (unsigned k = 1; k <= TAPO_TIMER_EXPIRIES_MAX; k++) {
            double at = expiry_s(k, c->rto_s, probes[s]);
            if (!(at > 0.0))
                continue;
            double error = fabs(since_armed_s - at) / at;
            if (error < best_error) {
                best_error = error;
                best_k = k;
                *probe_first = probes[s] > 0.0;
            }
        }
    }
    return best_k;
}

void tapo_retx_unseen(const tapo_retx_clues *c, const tapo_unseen_clues *u, tapo_trigger trigger,
                      tapo_unseen_estimate *out)
{
    out->lost_retransmissions = 0;
    out->first_trigger = trigger;
    out->unseen_beyond = 0;
    out->inferred = TAPO_INFERRED_ORIGINAL_LOST;
    /* Timing alone never proves a transmission (spec section 8): only the
     * sender's IDs count unseen packets, where the census proves them its
     * own (endpoint.c).  Timing then only says what those packets were:
     * a copy released by loss signals answers them (nothing lost in
     * between); a copy after a timer silence follows a fast retransmission
     * that enough signals (a SACK under RACK, dupthres duplicate ACKs
     * without SACK) must have released, and earlier expiries of the timer. */
    if (!u->unseen_packets.known)
        return;
    uint32_t fast_lost = 0, timers_lost = 0, probes_elsewhere = 0;
    bool probe_first = false;
    if (trigger != TAPO_TRIGGER_FAST) {
        fast_lost = !u->original_new && c->signals >= c->fast_signals ? 1 : 0;
        timers_lost = timer_expiries(c, u->since_armed_s, &probe_first) - 1;
        /* A tail-loss probe resends the last segment: of another range
         * than this one, unless this one is the last. */
        if (probe_first && !c->resends_last && timers_lost > 0) {
            timers_lost--;
            probes_elsewhere = 1;
        }
    }
    uint32_t by_timing = fast_lost + timers_lost;
    /* Counted packets bound what timing places: what it cannot place was
     * data above the range (a probe of another segment is none). */
    uint32_t counted = u->unseen_packets.n;
    uint32_t available = u->original_new ? (counted > 0 ? counted - 1 : 0) : counted;
    available = available > probes_elsewhere ? available - probes_elsewhere : 0;
    uint32_t lost = by_timing < available ? by_timing : available;
    /* A lost original with more data queued behind it (a full segment) was
     * followed by the rest: unseen packets after it are its next originals
     * before any is called a lost copy (the weaker claim). */
    if (u->original_new && u->queued_more)
        lost = 0;
    out->unseen_beyond = available - lost;
    out->inferred |= TAPO_INFERRED_BY_IP_ID;
    out->lost_retransmissions = lost;
    if (lost > 0) {
        out->inferred |= TAPO_INFERRED_RETX_LOST;
        if (fast_lost && lost >= fast_lost)
            out->first_trigger = TAPO_TRIGGER_FAST;
        else
            out->first_trigger = probe_first ? TAPO_TRIGGER_PROBE : TAPO_TRIGGER_TIMEOUT;
    }
}
