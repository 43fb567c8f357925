/* rtt_estimator.c: RFC 6298 section 2 as Linux applies it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "sender/rtt_estimator.h"

#include "base/config.h"

#include <math.h>

void tapo_rtt_init(tapo_rtt *rtt, double rto_initial_s)
{
    rtt->has_sample = false;
    rtt->srtt_s = 0.0;
    rtt->rttvar_s = 0.0;
    rtt->rto_s = rto_initial_s;
    rtt->samples = 0;
}

void tapo_rtt_sample(tapo_rtt *rtt, double sample_s, double rto_min_s)
{
    /* Negative (a reordered file) or NaN is no measurement; neither is an
     * RTT of exactly zero: the data and its ACK shared a timestamp because
     * the capture clock is coarser than the RTT (10 ms ticks in old
     * captures), and zeros would shrink the stall threshold to nothing. */
    if (!(sample_s > 0.0) || isinf(sample_s))
        return;
    if (!rtt->has_sample) {
        /* RFC 6298 (2.2): first measurement. */
        rtt->srtt_s = sample_s;
        rtt->rttvar_s = sample_s / 2.0;
        rtt->has_sample = true;
    } else {
        /* RFC 6298 (2.3): RTTVAR uses the SRTT from before this sample. */
        rtt->rttvar_s = 0.75 * rtt->rttvar_s + 0.25 * fabs(rtt->srtt_s - sample_s);
        rtt->srtt_s = 0.875 * rtt->srtt_s + 0.125 * sample_s;
    }
    rtt->samples++;
    /* Linux replaces RFC 6298's clock granularity G by the minimum RTO. */
    double variance_term = tapo_max(rto_min_s, 4.0 * rtt->rttvar_s);
    rtt->rto_s = tapo_min(tapo_max(rtt->srtt_s + variance_term, rto_min_s), TAPO_RTO_MAX_S);
}

void tapo_rtt_history_note(tapo_rtt_history *h, const tapo_rtt *before, double at_s,
                           int64_t from, int64_t to)
{
    h->steps[tapo_ring_push(&h->ring, TAPO_RTT_HISTORY)] = (tapo_rtt_step){ at_s, from, to, *before };
}

const tapo_rtt *tapo_rtt_as_of(const tapo_rtt_history *h, const tapo_rtt *now, double t_s)
{
    /* Newest first: the state before the earliest sample taken after t_s. */
    const tapo_rtt *state = now;
    for (unsigned k = 0; k < h->ring.count; k++) {
        const tapo_rtt_step *step = &h->steps[tapo_ring_newest(&h->ring, TAPO_RTT_HISTORY, k)];
        if (step->sampled_s <= t_s)
            break;
        state = &step->before;
    }
    return state;
}

void tapo_rtt_history_rewind(tapo_rtt_history *h, tapo_rtt *now, double t_s, int64_t from,
                             int64_t to)
{
    /* Newest first, back to the first sample after t_s; remember how far
     * the last one for the resent data lies. */
    unsigned keep = h->ring.count;
    for (unsigned k = 0; k < h->ring.count; k++) {
        const tapo_rtt_step *step = &h->steps[tapo_ring_newest(&h->ring, TAPO_RTT_HISTORY, k)];
        if (step->sampled_s <= t_s)
            break;
        if (step->from < to && from < step->to)
            keep = h->ring.count - 1 - k;
    }
    while (h->ring.count > keep) {
        *now = h->steps[tapo_ring_newest(&h->ring, TAPO_RTT_HISTORY, 0)].before;
        tapo_ring_drop_newest(&h->ring, TAPO_RTT_HISTORY);
    }
}
