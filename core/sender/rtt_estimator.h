/* rtt_estimator.h: RFC 6298 smoothed RTT and retransmission timeout, with the
 * constants Linux uses (spec section 2).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_RTT_ESTIMATOR_H
#define TAPO_RTT_ESTIMATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "base/finite.h"
#include "base/ring.h"

typedef struct tapo_rtt {
    bool has_sample;   /* at least one valid RTT sample was taken */
    double srtt_s;     /* smoothed RTT, seconds; 0 until has_sample */
    double rttvar_s;   /* RTT variation, seconds; 0 until has_sample */
    double rto_s;      /* retransmission timeout, seconds */
    uint32_t samples;  /* number of samples taken */
} tapo_rtt;

/* Starts an estimator with no sample: RTO = rto_initial_s. */
void tapo_rtt_init(tapo_rtt *rtt, double rto_initial_s);

/* Feeds one RTT measurement (seconds) from a segment sent once (Karn).
 * rto_min_s bounds the variance term and the RTO from below. */
void tapo_rtt_sample(tapo_rtt *rtt, double sample_s, double rto_min_s);

/* Stall threshold: min(tau * SRTT, RTO), or RTO while there is no sample. */
static inline double tapo_rtt_stall_threshold(const tapo_rtt *rtt, double tau)
{
    return rtt->has_sample ? tapo_min(tau * rtt->srtt_s, rtt->rto_s) : rtt->rto_s;
}

#define TAPO_RTT_HISTORY 4   /* earlier estimator states kept, count */

/* The estimator's states before its latest samples.  Away from the sender,
 * the capture can see a sender packet after ACKs that reached the sender
 * only later; that packet is judged with the estimate the sender had when
 * it sent it. */
typedef struct tapo_rtt_step {
    double sampled_s;                    /* when a sample was taken, sender time, seconds */
    int64_t from, to;                    /* the data it acknowledged, stream offsets */
    tapo_rtt before;                     /* the estimator just before it */
} tapo_rtt_step;

typedef struct tapo_rtt_history {
    tapo_rtt_step steps[TAPO_RTT_HISTORY]; /* the latest (ring) */
    tapo_ring ring;
} tapo_rtt_history;

/* Call before feeding a sample taken at time at_s for data [from, to). */
void tapo_rtt_history_note(tapo_rtt_history *h, const tapo_rtt *before, double at_s,
                           int64_t from, int64_t to);

/* Data [from, to) was resent at t_s, before samples taken for it later:
 * Karn's rule, learnt late.  Forgets those samples, and the ones after
 * them: 'now' becomes the estimator as it stood before the first. */
void tapo_rtt_history_rewind(tapo_rtt_history *h, tapo_rtt *now, double t_s, int64_t from,
                             int64_t to);

/* The estimator as it stood at time t_s: 'now', unless samples were taken
 * after t_s (the oldest state kept when all were). */
const tapo_rtt *tapo_rtt_as_of(const tapo_rtt_history *h, const tapo_rtt *now, double t_s);

#endif /* TAPO_RTT_ESTIMATOR_H */
