/* rtt_estimator.h: RFC 6298 smoothed RTT and retransmission timeout, with the
 * constants Linux uses (spec section 2).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_RTT_ESTIMATOR_H
#define TAPO_RTT_ESTIMATOR_H

#include <stdbool.h>
#include <stdint.h>

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
double tapo_rtt_stall_threshold(const tapo_rtt *rtt, double tau);

#endif /* TAPO_RTT_ESTIMATOR_H */
