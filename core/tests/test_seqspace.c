/* test_seqspace.c: 32-bit sequence numbers unwrapped to stream offsets.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>

#include "base/seqspace.h"

static void test_anchor_is_zero(void)
{
    tapo_seqspace s = { 0 };
    g_assert_cmpint(tapo_seq_offset(&s, 123456u), ==, 0);
    g_assert_cmpint(tapo_seq_offset(&s, 123556u), ==, 100);
    g_assert_cmpint(tapo_seq_offset(&s, 123400u), ==, -56);
}

static void test_wraparound_keeps_growing(void)
{
    tapo_seqspace s = { 0 };
    uint32_t isn = 0xFFFFFF00u;
    g_assert_cmpint(tapo_seq_offset(&s, isn), ==, 0);
    /* 0x200 bytes later the raw number has wrapped past zero. */
    tapo_seq_advance(&s, isn + 0x200u);
    g_assert_cmpint(tapo_seq_offset(&s, 0x00000100u), ==, 0x200);
    /* A retransmission from before the wrap still maps below. */
    g_assert_cmpint(tapo_seq_offset(&s, 0xFFFFFF80u), ==, 0x80);
}

static void test_many_wraps(void)
{
    tapo_seqspace s = { 0 };
    uint32_t raw = 7;
    tapo_seq_offset(&s, raw);
    /* Advance in 1 GB steps through three full wraps. */
    for (int i = 1; i <= 12; i++) {
        raw += 0x40000000u;
        tapo_seq_advance(&s, raw);
        g_assert_cmpint(tapo_seq_offset(&s, raw), ==, (int64_t)i * 0x40000000);
    }
}

/* Only advance() moves the reference: looking up a far-away number (a
 * bogus ACK) does not drag later lookups. */
static void test_lookup_does_not_move_reference(void)
{
    tapo_seqspace s = { 0 };
    tapo_seq_offset(&s, 1000u);
    g_assert_cmpint(tapo_seq_offset(&s, 1000u + 0x7FFFFFF0u), ==, 0x7FFFFFF0);
    g_assert_cmpint(tapo_seq_offset(&s, 1100u), ==, 100);
    /* advance() ignores numbers behind the reference. */
    tapo_seq_advance(&s, 900u);
    g_assert_cmpint(tapo_seq_offset(&s, 1100u), ==, 100);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/seqspace/anchor", test_anchor_is_zero);
    g_test_add_func("/seqspace/wraparound", test_wraparound_keeps_growing);
    g_test_add_func("/seqspace/many-wraps", test_many_wraps);
    g_test_add_func("/seqspace/lookup-is-pure", test_lookup_does_not_move_reference);
    return g_test_run();
}
