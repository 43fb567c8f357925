/* test_scoreboard.c: outstanding data, SACK, DSACK (RFC 2883) and the
 * memory bound.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>

#include "sender/scoreboard.h"

#define MSS 1000

/* A transmission at t seconds, captured at the sender. */
static tapo_tx_time at(double t)
{
    return (tapo_tx_time){ t, t, 1 };
}

typedef struct {
    unsigned delivered;
    int64_t delivered_bytes;
    unsigned duplicated;
    uint64_t last_dup_order;
    uint32_t last_dup_segments;
} events;

static void on_delivered(void *ctx, int64_t start, int64_t end, uint64_t order)
{
    events *e = ctx;
    (void)order;
    e->delivered++;
    e->delivered_bytes += end - start;
}

static void on_duplicated(void *ctx, int64_t start, int64_t end, uint64_t order, uint32_t segs)
{
    events *e = ctx;
    (void)start;
    (void)end;
    e->duplicated++;
    e->last_dup_order = order;
    e->last_dup_segments = segs;
}

/* Ten segments of MSS bytes at offsets 1..10001, sent at t = 0.01 * i. */
static void send_ten(tapo_scoreboard *sb)
{
    for (int i = 0; i < 10; i++)
        tapo_sb_append(sb, 1 + i * MSS, 1 + (i + 1) * MSS, at(0.01 * i), (uint64_t)i + 1, 0, true);
}

static void test_segments_rounding(void)
{
    g_assert_cmpuint(tapo_segments(0, MSS), ==, 0);
    g_assert_cmpuint(tapo_segments(1, MSS), ==, 1);
    g_assert_cmpuint(tapo_segments(MSS, MSS), ==, 1);
    g_assert_cmpuint(tapo_segments(MSS + 1, MSS), ==, 2);
    g_assert_cmpuint(tapo_segments(5, 0), ==, 1);
}

static void test_sack_counts_holes(void)
{
    tapo_scoreboard sb;
    tapo_sb_init(&sb);
    send_ten(&sb);
    events ev = { 0 };
    tapo_sb_listener l = { on_delivered, on_duplicated, &ev };
    tapo_sb_feedback fb;
    /* Segment 3 (offsets 2001..3001) lost: SACK 3001..6001. */
    tapo_sb_sack(&sb, 3001, 6001, MSS, &l, &fb);
    g_assert_cmpint(fb.newly_delivered, ==, 3 * MSS);
    g_assert_cmpuint(ev.delivered, ==, 3);
    tapo_sb_counts c;
    tapo_sb_count(&sb, MSS, &c);
    g_assert_cmpuint(c.sacked_out, ==, 3);
    g_assert_cmpuint(c.holes, ==, 3);   /* segments 1, 2, 3 below the highest SACK */
    /* Cumulative ACK up to 2001 leaves one hole. */
    tapo_sb_ack(&sb, 2001, MSS, &l, &fb);
    tapo_sb_count(&sb, MSS, &c);
    g_assert_cmpuint(c.holes, ==, 1);
    g_assert_cmpuint(c.sacked_out, ==, 3);
    tapo_sb_destroy(&sb);
}

static void test_signals_count_later_sacks(void)
{
    tapo_scoreboard sb;
    tapo_sb_init(&sb);
    send_ten(&sb);
    tapo_sb_feedback fb;
    tapo_sb_sack(&sb, 3001, 6001, MSS, NULL, &fb);
    tapo_sb_desc d;
    tapo_sb_describe(&sb, 2001, 3001, MSS, 0, &d);
    g_assert_true(d.found);
    g_assert_cmpuint(d.prior_tx_max, ==, 1);
    g_assert_cmpuint(d.sacked_sent_after, ==, 3);
    /* Once retransmitted, the old SACKs no longer count as signals. */
    tapo_sb_retransmit(&sb, 2001, 3001, TAPO_TRIGGER_FAST, 0, at(0.5), 20, 0);
    tapo_sb_describe(&sb, 2001, 3001, MSS, 0, &d);
    g_assert_cmpuint(d.prior_tx_max, ==, 2);
    g_assert_cmpint(d.first_retx, ==, TAPO_TRIGGER_FAST);
    g_assert_cmpuint(d.sacked_sent_after, ==, 0);
    tapo_sb_counts c;
    tapo_sb_count(&sb, MSS, &c);
    g_assert_cmpuint(c.retrans_out, ==, 1);
    g_assert_cmpuint(c.lost_out, ==, 1);
    tapo_sb_destroy(&sb);
}

/* A retransmission that covers part of an entry splits it. */
static void test_partial_retransmission_splits(void)
{
    tapo_scoreboard sb;
    tapo_sb_init(&sb);
    tapo_sb_append(&sb, 1, 3001, at(0.0), 1, 0, true);
    tapo_sb_retransmit(&sb, 1001, 2001, TAPO_TRIGGER_TIMEOUT, 0, at(1.0), 2, 0);
    g_assert_cmpuint(tapo_sb_size(&sb), ==, 3);
    tapo_sb_desc d;
    tapo_sb_describe(&sb, 1, 1001, MSS, 0, &d);
    g_assert_cmpuint(d.prior_tx_max, ==, 1);
    tapo_sb_describe(&sb, 1001, 2001, MSS, 0, &d);
    g_assert_cmpuint(d.prior_tx_max, ==, 2);
    tapo_sb_destroy(&sb);
}

/* RFC 2883: a DSACK for a range that was retransmitted and then ACKed
 * still finds it in the history ring. */
static void test_dsack_after_ack(void)
{
    tapo_scoreboard sb;
    tapo_sb_init(&sb);
    send_ten(&sb);
    tapo_sb_retransmit(&sb, 1, 1001, TAPO_TRIGGER_TIMEOUT, 0, at(1.0), 42, 0);
    events ev = { 0 };
    tapo_sb_listener l = { on_delivered, on_duplicated, &ev };
    tapo_sb_feedback fb;
    tapo_sb_ack(&sb, 10001, MSS, &l, &fb);
    g_assert_true(fb.retransmitted_delivered);   /* Karn: no RTT sample */
    g_assert_cmpuint(tapo_sb_size(&sb), ==, 0);
    tapo_sb_dsack(&sb, 1, 1001, MSS, 0, &l);
    g_assert_cmpuint(ev.duplicated, ==, 1);
    g_assert_cmpuint(ev.last_dup_order, ==, 42);
    g_assert_cmpuint(ev.last_dup_segments, ==, 1);
    /* Reported once only. */
    tapo_sb_dsack(&sb, 1, 1001, MSS, 0, &l);
    g_assert_cmpuint(ev.duplicated, ==, 1);
    tapo_sb_destroy(&sb);
}

/* A DSACK for outstanding data marks it, and lost_out no longer counts it. */
static void test_dsack_outstanding_not_lost(void)
{
    tapo_scoreboard sb;
    tapo_sb_init(&sb);
    send_ten(&sb);
    tapo_sb_retransmit(&sb, 4001, 5001, TAPO_TRIGGER_TIMEOUT, 0, at(1.0), 20, 0);
    tapo_sb_counts c;
    tapo_sb_count(&sb, MSS, &c);
    g_assert_cmpuint(c.lost_out, ==, 1);
    events ev = { 0 };
    tapo_sb_listener l = { on_delivered, on_duplicated, &ev };
    tapo_sb_dsack(&sb, 4001, 5001, MSS, 0, &l);
    tapo_sb_count(&sb, MSS, &c);
    g_assert_cmpuint(c.retrans_out, ==, 1);
    g_assert_cmpuint(c.lost_out, ==, 0);
    g_assert_cmpuint(ev.duplicated, ==, 1);
    tapo_sb_destroy(&sb);
}

/* The earliest never-retransmitted entry gives the RTT sample time. */
static void test_ack_rtt_candidate(void)
{
    tapo_scoreboard sb;
    tapo_sb_init(&sb);
    send_ten(&sb);
    tapo_sb_feedback fb;
    tapo_sb_ack(&sb, 3001, MSS, NULL, &fb);
    g_assert_false(fb.retransmitted_delivered);
    g_assert_true(fb.earliest_tx.known);
    g_assert_cmpfloat_with_epsilon(fb.earliest_tx.s, 0.0, 1e-12);
    g_assert_cmpint(fb.newly_delivered, ==, 3 * MSS);
    tapo_sb_destroy(&sb);
}

/* A hole filled without retransmission below SACKed data: reordering of
 * (highest SACKed - hole start) / MSS segments. */
static void test_reordering_degree(void)
{
    tapo_scoreboard sb;
    tapo_sb_init(&sb);
    send_ten(&sb);
    tapo_sb_feedback fb;
    tapo_sb_sack(&sb, 2001, 7001, MSS, NULL, &fb);
    tapo_sb_ack(&sb, 7001, MSS, NULL, &fb);
    g_assert_cmpuint(fb.reordering, ==, 7);
    tapo_sb_destroy(&sb);
}

/* Without any ACK the scoreboard stays within its bound. */
static void test_bound_without_acks(void)
{
    tapo_scoreboard sb;
    tapo_sb_init(&sb);
    for (int i = 0; i < 3 * TAPO_SB_MAX_SEGMENTS; i++) {
        tapo_sb_append(&sb, (int64_t)i * MSS, (int64_t)(i + 1) * MSS, at(i * 0.001), (uint64_t)i + 1, 0, true);
        /* Alternate SACK marks so that merging alone cannot help. */
        if (i % 2) {
            tapo_sb_feedback fb;
            tapo_sb_sack(&sb, (int64_t)i * MSS, (int64_t)(i + 1) * MSS, MSS, NULL, &fb);
        }
        g_assert_cmpuint(tapo_sb_size(&sb), <=, TAPO_SB_MAX_SEGMENTS + 1);
    }
    tapo_sb_destroy(&sb);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/scoreboard/segments", test_segments_rounding);
    g_test_add_func("/scoreboard/sack-holes", test_sack_counts_holes);
    g_test_add_func("/scoreboard/signals", test_signals_count_later_sacks);
    g_test_add_func("/scoreboard/split", test_partial_retransmission_splits);
    g_test_add_func("/scoreboard/dsack-after-ack", test_dsack_after_ack);
    g_test_add_func("/scoreboard/dsack-outstanding", test_dsack_outstanding_not_lost);
    g_test_add_func("/scoreboard/rtt-candidate", test_ack_rtt_candidate);
    g_test_add_func("/scoreboard/reordering", test_reordering_degree);
    g_test_add_func("/scoreboard/bound", test_bound_without_acks);
    return g_test_run();
}
