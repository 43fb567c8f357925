/* test_recovery.c: how a retransmission was triggered, and what the capture
 * point missed of it (recovery.c), with numbers worked out by hand.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>

#include "sender/recovery.h"

/* A retransmission seen with an SRTT of 100 ms and an RTO of 300 ms, so a
 * stall threshold of 200 ms. */
static tapo_retx_clues clues(double silence_s, uint64_t signals)
{
    tapo_retx_clues c = {
        .signals = signals, .fast_signals = 1, .silence_s = silence_s, .threshold_s = 0.2,
        .srtt = { true, 0.1 }, .rto_s = 0.3, .open = false, .resends_last = false, .above_una = false,
        .since_tx_known = true, .since_tx_s = 0.05,
    };
    return c;
}

/* SACK-driven recovery resends a hole at once after the SACK that marked
 * it lost, however long ago the hole was first sent. */
static void test_fast_however_late(void)
{
    tapo_retx_clues c = clues(0.0004, 3);
    c.since_tx_s = 0.45;   /* one and a half RTOs after the original */
    g_assert_cmpint(tapo_retx_trigger(&c), ==, TAPO_TRIGGER_FAST);
    c.since_tx_s = 5.0;
    g_assert_cmpint(tapo_retx_trigger(&c), ==, TAPO_TRIGGER_FAST);
}

/* After a silence of a stall threshold only a timer sends, signals or not. */
static void test_timer_after_silence(void)
{
    tapo_retx_clues c = clues(0.3, 3);
    g_assert_cmpint(tapo_retx_trigger(&c), ==, TAPO_TRIGGER_TIMEOUT);
    /* A timestamp rounding a hair below the threshold is still a timer. */
    c.silence_s = 0.199;
    g_assert_cmpint(tapo_retx_trigger(&c), ==, TAPO_TRIGGER_TIMEOUT);
    /* Without silence and without signals: continuing a timeout's recovery. */
    c = clues(0.001, 0);
    g_assert_cmpint(tapo_retx_trigger(&c), ==, TAPO_TRIGGER_TIMEOUT);
}

/* A tail-loss probe: in Open, the last data outstanding, sent while earlier
 * data is outstanding (an RTO would resend snd_una) or clearly before the
 * RTO with one segment out. */
static void test_probe(void)
{
    tapo_retx_clues c = clues(0.21, 0);
    c.open = true;
    c.resends_last = true;
    c.above_una = true;
    g_assert_cmpint(tapo_retx_trigger(&c), ==, TAPO_TRIGGER_PROBE);
    c.above_una = false;
    c.since_tx_s = 0.21;   /* 0.7 RTO: before the RTO could fire */
    g_assert_cmpint(tapo_retx_trigger(&c), ==, TAPO_TRIGGER_PROBE);
    c.since_tx_s = 0.3;    /* at the RTO: a timeout */
    g_assert_cmpint(tapo_retx_trigger(&c), ==, TAPO_TRIGGER_TIMEOUT);
    c.open = false;        /* in Loss the timer is the RTO */
    c.since_tx_s = 0.21;
    g_assert_cmpint(tapo_retx_trigger(&c), ==, TAPO_TRIGGER_TIMEOUT);
}

#define UNCOUNTED (-1)   /* no IP IDs to count unseen packets */

static tapo_unseen_estimate unseen(const tapo_retx_clues *c, double since_armed_s, int32_t counted,
                                   bool original_new)
{
    tapo_unseen_clues u = {
        .original_new = original_new,
        .unseen_packets = counted == UNCOUNTED ? tapo_opt_count_none() : tapo_opt_count_of((uint32_t)counted),
        .since_armed_s = since_armed_s,
    };
    tapo_unseen_estimate e;
    tapo_retx_unseen(c, &u, tapo_retx_trigger(c), &e);
    return e;
}

/* Timing alone proves no transmission (spec section 8): without IDs that
 * count them, a copy after RTO + 2 RTO (0.9 s) or RTO + 2 RTO + 4 RTO
 * (2.1 s) follows no lost retransmission, only a lost original. */
static void test_timing_alone_counts_nothing(void)
{
    for (double silence = 0.3; silence < 2.2; silence *= 2.0) {
        tapo_retx_clues c = clues(silence, 0);
        tapo_unseen_estimate e = unseen(&c, silence, UNCOUNTED, false);
        g_assert_cmpuint(e.lost_retransmissions, ==, 0);
        g_assert_cmpuint(e.unseen_beyond, ==, 0);
        g_assert_cmpint(e.first_trigger, ==, TAPO_TRIGGER_TIMEOUT);
        g_assert_cmpuint(e.inferred, ==, TAPO_INFERRED_ORIGINAL_LOST);
    }
}

/* Where IDs count the unseen packets, timing says what they were: two
 * unseen packets before a copy 0.9 s into the silence (RTO + 2 RTO) were
 * one lost timeout retransmission and one packet of data above it; at
 * 2.1 s (RTO + 2 RTO + 4 RTO) both were lost copies. */
static void test_counted_packets_placed_by_timing(void)
{
    tapo_retx_clues c = clues(0.9, 0);
    tapo_unseen_estimate e = unseen(&c, 0.9, 2, false);
    g_assert_cmpuint(e.lost_retransmissions, ==, 1);
    g_assert_cmpuint(e.unseen_beyond, ==, 1);
    g_assert_cmpint(e.first_trigger, ==, TAPO_TRIGGER_TIMEOUT);
    g_assert_true(e.inferred & TAPO_INFERRED_RETX_LOST);
    c.silence_s = 2.1;
    e = unseen(&c, 2.1, 2, false);
    g_assert_cmpuint(e.lost_retransmissions, ==, 2);
    g_assert_cmpuint(e.unseen_beyond, ==, 0);
}

/* Loss signals that reached the sender must have released a fast
 * retransmission; when the next copy seen comes from the timer, that fast
 * retransmission was lost before the capture point: an f-double. */
static void test_unseen_fast_retransmission(void)
{
    tapo_retx_clues c = clues(0.3, 4);
    tapo_unseen_estimate e = unseen(&c, 0.3, 1, false);
    g_assert_cmpuint(e.lost_retransmissions, ==, 1);
    g_assert_cmpint(e.first_trigger, ==, TAPO_TRIGGER_FAST);
    /* Not when the original itself is first seen now: the signals then
     * concern data the sender had not yet resent (the one unseen packet
     * was that original). */
    e = unseen(&c, 0.3, 1, true);
    g_assert_cmpuint(e.lost_retransmissions, ==, 0);
    /* Nor without IDs that count it. */
    e = unseen(&c, 0.3, UNCOUNTED, false);
    g_assert_cmpuint(e.lost_retransmissions, ==, 0);
}

/* IPv4 IDs numbered one by one count the unseen packets: the count caps
 * what timing suggests, and the rest was data above the range. */
static void test_unseen_counted_by_ip_id(void)
{
    tapo_retx_clues c = clues(0.9, 0);
    tapo_unseen_estimate e = unseen(&c, 0.9, 0, false);
    g_assert_cmpuint(e.lost_retransmissions, ==, 0);
    g_assert_true(e.inferred & TAPO_INFERRED_BY_IP_ID);
    e = unseen(&c, 0.9, 3, false);
    g_assert_cmpuint(e.lost_retransmissions, ==, 1);
    g_assert_cmpuint(e.unseen_beyond, ==, 2);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/recovery/fast-however-late", test_fast_however_late);
    g_test_add_func("/recovery/timer-after-silence", test_timer_after_silence);
    g_test_add_func("/recovery/probe", test_probe);
    g_test_add_func("/recovery/timing-alone-counts-nothing", test_timing_alone_counts_nothing);
    g_test_add_func("/recovery/counted-packets-placed-by-timing", test_counted_packets_placed_by_timing);
    g_test_add_func("/recovery/unseen-fast-retransmission", test_unseen_fast_retransmission);
    g_test_add_func("/recovery/unseen-counted-by-ip-id", test_unseen_counted_by_ip_id);
    return g_test_run();
}
