/* test_rtt_estimator.c: RFC 6298 with Linux constants, against values
 * computed by hand (spec section 2).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>

#include "sender/rtt_estimator.h"

#define EPS 1e-9

static void test_no_sample_uses_initial_rto(void)
{
    tapo_rtt rtt;
    tapo_rtt_init(&rtt, 1.0);
    g_assert_false(rtt.has_sample);
    g_assert_cmpfloat_with_epsilon(rtt.rto_s, 1.0, EPS);
    /* Without a sample the stall threshold is the RTO, whatever tau is. */
    g_assert_cmpfloat_with_epsilon(tapo_rtt_stall_threshold(&rtt, 2.0), 1.0, EPS);
}

/* First sample R = 100 ms: SRTT = R = 0.1, RTTVAR = R/2 = 0.05,
 * RTO = 0.1 + max(0.2, 4 * 0.05 = 0.2) = 0.3; threshold min(2*0.1, 0.3) = 0.2. */
static void test_first_sample(void)
{
    tapo_rtt rtt;
    tapo_rtt_init(&rtt, 1.0);
    tapo_rtt_sample(&rtt, 0.100, 0.2);
    g_assert_true(rtt.has_sample);
    g_assert_cmpfloat_with_epsilon(rtt.srtt_s, 0.100, EPS);
    g_assert_cmpfloat_with_epsilon(rtt.rttvar_s, 0.050, EPS);
    g_assert_cmpfloat_with_epsilon(rtt.rto_s, 0.300, EPS);
    g_assert_cmpfloat_with_epsilon(tapo_rtt_stall_threshold(&rtt, 2.0), 0.200, EPS);
}

/* Second sample R = 200 ms, RTTVAR first with the old SRTT:
 * RTTVAR = 3/4 * 0.05 + 1/4 * |0.1 - 0.2| = 0.0375 + 0.025 = 0.0625
 * SRTT   = 7/8 * 0.1 + 1/8 * 0.2 = 0.0875 + 0.025 = 0.1125
 * RTO    = 0.1125 + max(0.2, 4 * 0.0625 = 0.25) = 0.3625 */
static void test_second_sample(void)
{
    tapo_rtt rtt;
    tapo_rtt_init(&rtt, 1.0);
    tapo_rtt_sample(&rtt, 0.100, 0.2);
    tapo_rtt_sample(&rtt, 0.200, 0.2);
    g_assert_cmpfloat_with_epsilon(rtt.rttvar_s, 0.0625, EPS);
    g_assert_cmpfloat_with_epsilon(rtt.srtt_s, 0.1125, EPS);
    g_assert_cmpfloat_with_epsilon(rtt.rto_s, 0.3625, EPS);
    g_assert_cmpfloat_with_epsilon(tapo_rtt_stall_threshold(&rtt, 2.0), 0.225, EPS);
    g_assert_cmpuint(rtt.samples, ==, 2);
}

/* Three equal samples of 50 ms shrink RTTVAR: 0.025, 0.01875, 0.0140625.
 * RTO = 0.05 + max(0.2, 0.05625) = 0.25: the 200 ms floor dominates. */
static void test_min_rto_dominates_small_variance(void)
{
    tapo_rtt rtt;
    tapo_rtt_init(&rtt, 1.0);
    for (int i = 0; i < 3; i++)
        tapo_rtt_sample(&rtt, 0.050, 0.2);
    g_assert_cmpfloat_with_epsilon(rtt.rttvar_s, 0.0140625, EPS);
    g_assert_cmpfloat_with_epsilon(rtt.rto_s, 0.250, EPS);
    /* tau * SRTT = 0.1 < RTO: the threshold is 2 SRTT. */
    g_assert_cmpfloat_with_epsilon(tapo_rtt_stall_threshold(&rtt, 2.0), 0.100, EPS);
    /* A larger tau makes the RTO the threshold. */
    g_assert_cmpfloat_with_epsilon(tapo_rtt_stall_threshold(&rtt, 10.0), 0.250, EPS);
}

/* A 100 s sample: SRTT 100, RTTVAR 50, RTO 300, clamped to 120 s. */
static void test_rto_clamped_to_max(void)
{
    tapo_rtt rtt;
    tapo_rtt_init(&rtt, 1.0);
    tapo_rtt_sample(&rtt, 100.0, 0.2);
    g_assert_cmpfloat_with_epsilon(rtt.rto_s, 120.0, EPS);
}

/* A different minimum RTO (the preference) changes the floor. */
static void test_min_rto_preference(void)
{
    tapo_rtt rtt;
    tapo_rtt_init(&rtt, 3.0);
    g_assert_cmpfloat_with_epsilon(rtt.rto_s, 3.0, EPS);
    tapo_rtt_sample(&rtt, 0.010, 0.5);
    g_assert_cmpfloat_with_epsilon(rtt.rto_s, 0.510, EPS);
}

static void test_invalid_samples_ignored(void)
{
    tapo_rtt rtt;
    tapo_rtt_init(&rtt, 1.0);
    tapo_rtt_sample(&rtt, -0.5, 0.2);
    tapo_rtt_sample(&rtt, 0.0 / 0.0, 0.2);
    tapo_rtt_sample(&rtt, 0.0, 0.2);   /* a coarse capture clock, not an RTT */
    g_assert_false(rtt.has_sample);
    g_assert_cmpfloat_with_epsilon(rtt.rto_s, 1.0, EPS);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/rtt/no-sample", test_no_sample_uses_initial_rto);
    g_test_add_func("/rtt/first-sample", test_first_sample);
    g_test_add_func("/rtt/second-sample", test_second_sample);
    g_test_add_func("/rtt/min-rto-floor", test_min_rto_dominates_small_variance);
    g_test_add_func("/rtt/max-clamp", test_rto_clamped_to_max);
    g_test_add_func("/rtt/min-rto-preference", test_min_rto_preference);
    g_test_add_func("/rtt/invalid-samples", test_invalid_samples_ignored);
    return g_test_run();
}
