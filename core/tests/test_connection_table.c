/* test_connection_table.c: the table's memory cap (connection_table.h):
 * tapo_table_evict_oldest ends the connection quiet for the longest first,
 * whichever queue it is in, tells the owner why, and counts it; and its
 * index (flow_index.h) finds every connection either way round while
 * others come and go.  Plain C + GLib, with the frames library.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <glib.h>

#include "table/connection_table.h"

typedef struct ended_log {
    GArray *ports;                    /* client port of each connection that ended, in order */
    GArray *reasons;                  /* tapo_end_reason of each */
} ended_log;

static void *alloc0(void *ctx, size_t size)
{
    (void)ctx;
    return g_malloc0(size);
}

static void release(void *ctx, void *storage)
{
    (void)ctx;
    g_free(storage);
}

static void ended(void *ctx, tapo_connection *c, tapo_end_reason why)
{
    ended_log *log = ctx;
    uint16_t port = c->id.first.sport == 80 ? c->id.first.dport : c->id.first.sport;
    g_array_append_val(log->ports, port);
    g_array_append_val(log->reasons, why);
}

/* A segment from client port `port` of 10.0.0.1 to 10.0.0.2:80 (or back),
 * at clock t. */
static void segment(tapo_conn_table *t, uint16_t port, bool to_server, uint16_t flags, double when)
{
    tapo_segment_fields seg;
    memset(&seg, 0, sizeof seg);
    seg.ends.family = 4;
    uint8_t client[4] = { 10, 0, 0, 1 }, server[4] = { 10, 0, 0, 2 };
    memcpy(seg.ends.src, to_server ? client : server, 4);
    memcpy(seg.ends.dst, to_server ? server : client, 4);
    seg.ends.sport = to_server ? port : 80;
    seg.ends.dport = to_server ? 80 : port;
    seg.seq_raw = to_server ? 1000 : 5000;
    seg.ack_raw = to_server ? 5001 : 1001;
    seg.flags = flags;
    seg.window_raw = 65535;
    static uint32_t frame;
    tapo_packet_place place = { 0, ++frame, when, 1e9 + when, when };
    tapo_table_result result;
    tapo_table_segment(t, &place, &seg, &result);
}

static void test_the_quietest_connection_goes_first(void)
{
    tapo_config cfg;
    tapo_config_init_defaults(&cfg);
    ended_log log = { g_array_new(FALSE, FALSE, sizeof(uint16_t)), g_array_new(FALSE, FALSE, sizeof(tapo_end_reason)) };
    tapo_conn_table t;
    tapo_table_init(&t, &cfg, 240.0, 3600.0, false, (tapo_table_hooks){ alloc0, release, ended, &log });
    /* Connections from ports 1000..1004 start at 1, 2, 3, 4, 5 s; then
     * 1000 and 1002 are active again, and 1003 is reset (over). */
    for (uint16_t i = 0; i < 5; i++)
        segment(&t, 1000 + i, true, TAPO_TCP_SYN, 1.0 + i);
    segment(&t, 1000, false, TAPO_TCP_SYN | TAPO_TCP_ACK, 6.0);
    segment(&t, 1002, true, TAPO_TCP_ACK, 7.0);
    segment(&t, 1003, true, TAPO_TCP_RST, 7.5);
    g_assert_cmpuint(tapo_table_size(&t), ==, 5);
    /* Quiet for the longest: 1001 (2 s), 1004 (5 s), 1000 (6 s), 1002
     * (7 s), then 1003 (7.5 s), though it is over and in another queue. */
    static const uint16_t expected[] = { 1001, 1004, 1000, 1002, 1003 };
    for (unsigned k = 0; k < G_N_ELEMENTS(expected); k++) {
        g_assert_true(tapo_table_evict_oldest(&t));
        g_assert_cmpuint(g_array_index(log.ports, uint16_t, k), ==, expected[k]);
        g_assert_cmpint(g_array_index(log.reasons, tapo_end_reason, k), ==, TAPO_END_EVICTED);
    }
    g_assert_false(tapo_table_evict_oldest(&t));
    g_assert_cmpuint(t.evicted, ==, 5);
    g_assert_cmpuint(tapo_table_size(&t), ==, 0);
    /* A segment of an evicted connection starts a new one. */
    segment(&t, 1001, true, TAPO_TCP_ACK, 8.0);
    g_assert_cmpuint(tapo_table_size(&t), ==, 1);
    g_assert_cmpuint(t.started, ==, 6);
    tapo_table_finish(&t);
    g_assert_cmpint(g_array_index(log.reasons, tapo_end_reason, 5), ==, TAPO_END_OVER);
    g_array_free(log.ports, TRUE);
    g_array_free(log.reasons, TRUE);
}

static void test_idle_timeouts_are_told_apart(void)
{
    tapo_config cfg;
    tapo_config_init_defaults(&cfg);
    ended_log log = { g_array_new(FALSE, FALSE, sizeof(uint16_t)), g_array_new(FALSE, FALSE, sizeof(tapo_end_reason)) };
    tapo_conn_table t;
    tapo_table_init(&t, &cfg, 240.0, 10.0, false, (tapo_table_hooks){ alloc0, release, ended, &log });
    segment(&t, 2000, true, TAPO_TCP_SYN, 1.0);
    tapo_table_tick(&t, 20.0);
    g_assert_cmpuint(log.reasons->len, ==, 1);
    g_assert_cmpint(g_array_index(log.reasons, tapo_end_reason, 0), ==, TAPO_END_IDLE);
    g_assert_cmpuint(t.evicted, ==, 0);
    tapo_table_finish(&t);
    g_array_free(log.ports, TRUE);
    g_array_free(log.reasons, TRUE);
}

/* Endpoints number i: 10.0.0.1:i to 10.0.0.2:80. */
static tapo_endpoints endpoints_number(unsigned i)
{
    tapo_endpoints e = { .family = 4, .src = { 10, 0, 0, 1 }, .dst = { 10, 0, 0, 2 },
                         .sport = (uint16_t)i, .dport = 80 };
    return e;
}

static void test_the_index_finds_what_is_left(void)
{
    enum { N = 600 };
    static tapo_endpoints ends[N];
    tapo_flow_index x;
    tapo_flow_index_init(&x);
    /* Few distinct hashes: long runs of colliding entries, wrapping the end. */
    for (unsigned i = 0; i < N; i++) {
        ends[i] = endpoints_number(i);
        tapo_flow_index_add(&x, &ends[i], (i % 7) * 0x1fffu - 3, &ends[i]);
    }
    for (unsigned i = 0; i < N; i += 3)
        tapo_flow_index_remove(&x, (i % 7) * 0x1fffu - 3, &ends[i]);
    g_assert_cmpuint(x.count, ==, N - N / 3);
    for (unsigned i = 0; i < N; i++) {
        tapo_endpoints back = ends[i];
        back.sport = ends[i].dport;
        back.dport = ends[i].sport;
        memcpy(back.src, ends[i].dst, 16);
        memcpy(back.dst, ends[i].src, 16);
        void *expected = i % 3 ? &ends[i] : NULL;
        g_assert_true(tapo_flow_index_find(&x, &ends[i], (i % 7) * 0x1fffu - 3) == expected);
        g_assert_true(tapo_flow_index_find(&x, &back, (i % 7) * 0x1fffu - 3) == expected);
    }
    tapo_flow_index_destroy(&x);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/connection_table/evict_quietest_first", test_the_quietest_connection_goes_first);
    g_test_add_func("/connection_table/idle_timeout_reason", test_idle_timeouts_are_told_apart);
    g_test_add_func("/connection_table/index_after_removals", test_the_index_finds_what_is_left);
    return g_test_run();
}
