/* test_vantage.c: where the capture was taken (vantage.c), the timestamp
 * clock (ts_clock.c), and a conversation captured at the receiver.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>

#include "packet_builder.h"
#include "timeline/ts_clock.h"
#include "timeline/vantage.h"

#define WIN 65535
#define REQ 100
#define MSS TB_MSS

static const tapo_hops no_hops = { 0 };

static tapo_turnaround turn(double sample_s, tapo_turn_kind kind)
{
    tapo_turnaround t = { 0 };
    tapo_turn_add(&t, sample_s, kind);
    return t;
}

/* Spec section 1: at the sender, the sender answers at once and the
 * receiver a round trip later; at the receiver, the reverse; in the
 * middle each answers after a part of the round trip. */
static void test_vantage_from_turnarounds(void)
{
    tapo_basis basis;
    tapo_turnaround fast = turn(0.0002, TAPO_TURN_HANDSHAKE);
    tapo_turnaround slow = turn(0.1, TAPO_TURN_HANDSHAKE);
    g_assert_cmpint(tapo_vantage_infer(&fast, &slow, &no_hops, &no_hops, &basis), ==, TAPO_VANTAGE_SENDER);
    g_assert_cmpint(basis, ==, TAPO_BASIS_HANDSHAKE);
    g_assert_cmpint(tapo_vantage_infer(&slow, &fast, &no_hops, &no_hops, &basis), ==, TAPO_VANTAGE_RECEIVER);
    tapo_turnaround part1 = turn(0.04, TAPO_TURN_CLEAN), part2 = turn(0.06, TAPO_TURN_CLEAN);
    g_assert_cmpint(tapo_vantage_infer(&part1, &part2, &no_hops, &no_hops, &basis), ==, TAPO_VANTAGE_MIDDLE);
    g_assert_cmpint(basis, ==, TAPO_BASIS_TURNAROUND);
    /* Only the receiver measured, answering in 30 us: captured at it. */
    tapo_turnaround none = { 0 }, host = turn(0.00003, TAPO_TURN_CLEAN);
    g_assert_cmpint(tapo_vantage_infer(&none, &host, &no_hops, &no_hops, &basis), ==, TAPO_VANTAGE_RECEIVER);
    /* Nothing measured: the paper's assumption. */
    g_assert_cmpint(tapo_vantage_infer(&none, &none, &no_hops, &no_hops, &basis), ==, TAPO_VANTAGE_SENDER);
    g_assert_cmpint(basis, ==, TAPO_BASIS_DEFAULT);
    /* A SYN-ACK alone says nothing yet: a slow server looks like a long path. */
    g_assert_cmpint(tapo_vantage_infer(&slow, &none, &no_hops, &no_hops, &basis), ==, TAPO_VANTAGE_SENDER);
    g_assert_cmpint(basis, ==, TAPO_BASIS_DEFAULT);
}

static tapo_hops hops(uint8_t ttl)
{
    tapo_hops h = { 0 };
    tapo_hops_note(&h, ttl);
    return h;
}

/* Turnarounds within one tick of a coarse capture clock (10 ms) place
 * nothing; the TTL can: the endpoint whose packets crossed no router was
 * on the capture's link (a Windows client at 128, its server's at 127). */
static void test_vantage_from_hops(void)
{
    tapo_basis basis;
    tapo_turnaround zero = turn(0.0, TAPO_TURN_HANDSHAKE), none = { 0 };
    tapo_hops home = hops(128), routed = hops(127), home64 = hops(64);
    g_assert_cmpint(tapo_vantage_infer(&zero, &zero, &routed, &home, &basis), ==, TAPO_VANTAGE_RECEIVER);
    g_assert_cmpint(basis, ==, TAPO_BASIS_HOPS);
    g_assert_cmpint(tapo_vantage_infer(&zero, &zero, &home, &routed, &basis), ==, TAPO_VANTAGE_SENDER);
    g_assert_cmpint(basis, ==, TAPO_BASIS_HOPS);
    g_assert_cmpint(tapo_vantage_infer(&none, &none, &routed, &home, &basis), ==, TAPO_VANTAGE_RECEIVER);
    /* Both on the capture's link, or neither: the TTL cannot tell. */
    g_assert_cmpint(tapo_vantage_infer(&zero, &zero, &home64, &home, &basis), ==, TAPO_VANTAGE_SENDER);
    g_assert_cmpint(basis, ==, TAPO_BASIS_HANDSHAKE);
    g_assert_cmpint(tapo_vantage_infer(&none, &none, &routed, &routed, &basis), ==, TAPO_VANTAGE_SENDER);
    g_assert_cmpint(basis, ==, TAPO_BASIS_DEFAULT);
    /* Measured turnarounds win over the TTL. */
    tapo_turnaround fast = turn(0.0002, TAPO_TURN_HANDSHAKE), slow = turn(0.1, TAPO_TURN_HANDSHAKE);
    g_assert_cmpint(tapo_vantage_infer(&fast, &slow, &routed, &home, &basis), ==, TAPO_VANTAGE_SENDER);
    /* Unless the turnarounds put the capture away from the sender on its
     * link only by its answers that may have waited: a delayed ACK, a
     * response's head (they prove how near an endpoint is, never how
     * far). */
    tapo_turnaround waited = turn(0.047, TAPO_TURN_MAY_WAIT), echo = turn(0.003, TAPO_TURN_RESPONSE_HEAD);
    g_assert_false(waited.proven);
    g_assert_cmpint(tapo_vantage_infer(&waited, &echo, &home64, &routed, &basis), ==, TAPO_VANTAGE_SENDER);
    g_assert_cmpint(basis, ==, TAPO_BASIS_HOPS);
    g_assert_cmpint(tapo_vantage_infer(&waited, &echo, &no_hops, &no_hops, &basis), ==, TAPO_VANTAGE_RECEIVER);
    /* The same at the receiver: its delayed ACKs do not put the capture
     * away from it, when nothing or a proven answer measured the sender. */
    tapo_turnaround quick = turn(0.003, TAPO_TURN_CLEAN);
    g_assert_cmpint(tapo_vantage_infer(&none, &waited, &routed, &home64, &basis), ==, TAPO_VANTAGE_RECEIVER);
    g_assert_cmpint(basis, ==, TAPO_BASIS_HOPS);
    g_assert_cmpint(tapo_vantage_infer(&quick, &waited, &routed, &home64, &basis), ==, TAPO_VANTAGE_RECEIVER);
    g_assert_cmpint(basis, ==, TAPO_BASIS_HOPS);
    /* But not away from a sender whose distance only answers that may have
     * waited bound: its packets would be placed by that bound. */
    g_assert_cmpint(tapo_vantage_infer(&echo, &waited, &routed, &home64, &basis), ==, TAPO_VANTAGE_SENDER);
    g_assert_cmpint(basis, ==, TAPO_BASIS_TURNAROUND);
    tapo_turnaround far = turn(0.047, TAPO_TURN_CLEAN);   /* an ACK of two full segments: sent at once */
    g_assert_true(far.proven);
    g_assert_cmpint(tapo_vantage_infer(&far, &echo, &home64, &routed, &basis), ==, TAPO_VANTAGE_RECEIVER);
    g_assert_cmpint(basis, ==, TAPO_BASIS_TURNAROUND);
    /* A TTL that changes proves nothing. */
    tapo_hops changing = hops(128);
    g_assert_true(tapo_hops_note(&changing, 127));
    g_assert_false(tapo_hops_home(&changing));
    g_assert_cmpint(tapo_vantage_infer(&none, &none, &routed, &changing, &basis), ==, TAPO_VANTAGE_SENDER);
}

/* Loopback (a proxy and its server on ::1, a database on 127.0.0.1): one
 * address at both ends, every packet seen where it left and where it
 * arrived at once.  The capture is at the sender whichever endpoint sends,
 * whatever the turnarounds (the endpoints' own scheduling) suggest
 * (test_decode.c: a packet to its own address says so). */
static void test_vantage_of_one_host(void)
{
    tapo_basis basis;
    tapo_turnaround part1 = turn(0.0014, TAPO_TURN_HANDSHAKE), part2 = turn(0.00002, TAPO_TURN_HANDSHAKE);
    tapo_hops local = { 0 };
    g_assert_true(tapo_hops_note_same_host(&local));
    g_assert_false(tapo_hops_note_same_host(&local));
    g_assert_cmpint(tapo_vantage_infer(&part1, &part2, &no_hops, &no_hops, &basis), ==, TAPO_VANTAGE_RECEIVER);
    g_assert_cmpint(tapo_vantage_infer(&part1, &part2, &local, &no_hops, &basis), ==, TAPO_VANTAGE_SENDER);
    g_assert_cmpint(basis, ==, TAPO_BASIS_SAME_HOST);
    g_assert_cmpint(tapo_vantage_infer(&part2, &part1, &no_hops, &local, &basis), ==, TAPO_VANTAGE_SENDER);
    g_assert_cmpstr(tapo_basis_name(basis), ==, "same-host");
}

/* Minima: answers delayed by the endpoint only add; the recent minimum
 * follows queueing, and a response's head (think time) is not clean
 * unless it is the tighter bound. */
static void test_turnaround_minima(void)
{
    tapo_turnaround t = { 0 };
    tapo_turn_add(&t, 0.05, TAPO_TURN_CLEAN);
    tapo_turn_add(&t, 0.03, TAPO_TURN_CLEAN);
    tapo_turn_add(&t, 0.5, TAPO_TURN_RESPONSE_HEAD);
    g_assert_cmpfloat(t.min_s, ==, 0.03);
    g_assert_cmpfloat(tapo_turn_recent(&t), ==, 0.03);
    for (int i = 0; i < TAPO_TURN_RECENT; i++)
        tapo_turn_add(&t, 0.08, TAPO_TURN_CLEAN);   /* a queue has built up */
    g_assert_cmpfloat(tapo_turn_recent(&t), ==, 0.08);
    g_assert_cmpfloat(t.min_s, ==, 0.03);
    /* A head still bounds the round trip: one faster than the recent clean
     * samples (delayed ACKs, say) is the tighter bound. */
    tapo_turn_add(&t, 0.5, TAPO_TURN_RESPONSE_HEAD);
    g_assert_cmpfloat(tapo_turn_recent(&t), ==, 0.08);
    tapo_turn_add(&t, 0.05, TAPO_TURN_RESPONSE_HEAD);
    g_assert_cmpfloat(tapo_turn_recent(&t), ==, 0.05);
    /* Heads alone (every answer rode on a response): the least of them,
     * which a delayed ACK coming later does not displace. */
    tapo_turnaround h = { 0 };
    tapo_turn_add(&h, 0.06, TAPO_TURN_RESPONSE_HEAD);
    tapo_turn_add(&h, 0.002, TAPO_TURN_RESPONSE_HEAD);
    tapo_turn_add(&h, 0.2, TAPO_TURN_CLEAN);
    g_assert_cmpfloat(tapo_turn_recent(&h), ==, 0.002);
    tapo_turn_add(&t, -1.0, TAPO_TURN_CLEAN);       /* the file went back in time */
    g_assert_cmpfloat(t.min_s, ==, 0.03);
}

/* A TSecr times the echo of the TSval it repeats, once. */
static void test_timestamp_echo(void)
{
    tapo_ts_history a = { 0 }, b = { 0 };
    tapo_ts_sent(&a, 100, 1.0);
    tapo_ts_sent(&a, 100, 1.001);   /* same tick: its first time stays */
    tapo_ts_sent(&a, 105, 1.005);
    double turnaround;
    g_assert_true(tapo_ts_echo(&b, &a, 100, 1.04, &turnaround));
    g_assert_cmpfloat_with_epsilon(turnaround, 0.04, 1e-12);
    g_assert_false(tapo_ts_echo(&b, &a, 100, 1.05, &turnaround));   /* already echoed */
    g_assert_false(tapo_ts_echo(&b, &a, 999, 1.06, &turnaround));   /* never seen */
}

/* The TSval clock of a 1 ms stack: packets that met no queue arrive a fixed
 * time after their tick; one that waited 30 ms in a queue shows it. */
static void test_timestamp_clock(void)
{
    tapo_ts_clock k = { 0 };
    g_assert_false(tapo_ts_clock_delay(&k, 0, 1.0).known);
    /* Before the rate is measured: the first packets fit 1 ms ticks. */
    tapo_ts_clock_note(&k, 1000, 10.0);
    tapo_ts_clock_note(&k, 1010, 10.010);
    g_assert_cmpfloat_with_epsilon(tapo_ts_clock_delay(&k, 1010, 10.016).s, 0.006, 1e-9);
    for (int i = 2; i <= 40; i++)
        tapo_ts_clock_note(&k, 1000 + 10 * (uint32_t)i, 10.0 + 0.01 * i);
    g_assert_cmpfloat(k.rate_hz, ==, 1000.0);
    g_assert_cmpfloat_with_epsilon(tapo_ts_clock_delay(&k, 1400, 10.43).s, 0.03, 1e-9);
    g_assert_true(tapo_ts_clock_delay(&k, 1400, 10.40).known);
    g_assert_cmpfloat_with_epsilon(tapo_ts_clock_delay(&k, 1400, 10.40).s, 0.0, 1e-9);
    /* A 10 ms kernel tick is not mistaken for 1 ms. */
    tapo_ts_clock old = { 0 };
    tapo_ts_clock_note(&old, 50, 1.0);
    tapo_ts_clock_note(&old, 60, 1.1);
    g_assert_false(tapo_ts_clock_delay(&old, 60, 1.12).known);
}

/* A web server's 250 Hz clock, ticking 1.7 % slow (a virtual machine
 * losing timer ticks, chrissanders/packets' DVWA captures): a response in
 * one tick, then its keep-alive FIN 1 252 ticks (5.008 s of its clock)
 * and 5.09 s of the capture's later.  That FIN alone measures the rate;
 * snapped to 250 Hz it would read the FIN 87 ms late, a slow clock and a
 * late packet being the same to one span: its delay is unknown.  The next
 * packet is measured by a rate that packets before it set. */
static void test_timestamp_clock_own_measure(void)
{
    tapo_ts_clock k = { 0 };
    tapo_ts_clock_note(&k, 4652137, 0.0019);
    tapo_ts_clock_note(&k, 4652138, 0.0038);
    tapo_ts_clock_note(&k, 4652138, 0.0058);
    tapo_ts_clock_note(&k, 4653389, 5.0967);
    g_assert_cmpfloat(k.rate_hz, ==, 250.0);
    g_assert_false(tapo_ts_clock_delay(&k, 4653389, 5.0967).known);
    tapo_ts_clock_note(&k, 4653390, 5.1007);
    g_assert_true(tapo_ts_clock_delay(&k, 4653390, 5.1007).known);
}

/* A reference that is no reading of the clock (a SYN-ACK with TSval 0)
 * makes the clock tick impossibly fast (RFC 7323: at most once a
 * millisecond): the clock starts over from a later packet, and learns the
 * 10 Hz of a stack that ticks ten times a second, whose 100 ms tick is too
 * coarse to place a packet. */
static void test_timestamp_clock_reference(void)
{
    tapo_ts_clock k = { 0 };
    tapo_ts_clock_note(&k, 0, 0.1);                     /* the SYN-ACK */
    for (int i = 1; i <= 60; i++)
        tapo_ts_clock_note(&k, 218529 + (uint32_t)i, 0.2 + 0.1 * i);
    g_assert_cmpuint(k.first_tsval, !=, 0);
    g_assert_cmpfloat(k.rate_hz, ==, 10.0);
    g_assert_false(tapo_ts_clock_delay(&k, 218590, 6.3).known);
}

/* A download captured at the client, 100 ms from the server: the SYN-ACK
 * comes a round trip after the SYN and the client answers everything at
 * once.  The server's RTT is the path's, not the client's 50 us. */
static void receiver_side_download(tb *b, tapo_vantage_mode mode, double min_stall_s)
{
    tb_init(b, 1000, 5000000);
    b->cfg.vantage_mode = mode;
    b->cfg.min_stall_s = min_stall_s;
    b->use_ip_id = true;   /* IPv4 IDs numbered one by one, as Linux does */
    tb_packet(b, CLIENT, 0.0, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
    tb_packet(b, SERVER, 0.1, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, WIN, 0, NULL);
    tb_packet(b, CLIENT, 0.10005, 1, 1, 0, TAPO_TCP_ACK, WIN, 0, NULL);
    tb_data(b, CLIENT, 0.1002, 1, REQ, 1);
    /* The response: 4 segments, each acknowledged at once. */
    for (int i = 0; i < 4; i++) {
        double t = 0.2002 + i * 0.0005;
        tb_packet(b, SERVER, t, 1 + (uint32_t)i * MSS, 1 + REQ, MSS, TAPO_TCP_ACK, WIN, 0, NULL);
        tb_ack(b, CLIENT, t + 0.00005, 1 + (uint32_t)(i + 1) * MSS, 1 + REQ, WIN);
    }
}

/* The ACK at frame came late for the data it acknowledged: packet-delay,
 * measured against the sender's SRTT of srtt_s seconds. */
static void assert_late_ack(tb *b, uint32_t frame, double srtt_s)
{
    tapo_verdict v = tb_verdict(b, frame, true);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_PACKET_DELAY);
    g_assert_true(v.view->snap.srtt.known);
    g_assert_cmpfloat_with_epsilon(v.view->snap.srtt.s, srtt_s, 0.001);
}

/* An upload whose first segment the receiver acknowledges 0.3 s late (a
 * delayed ACK), seen at the client, half way or at the server.  At the
 * server, the SYN-ACK is answered before the capture point's distance to
 * the client is known, so its sample cannot be placed yet; Linux takes the
 * SYN's round trip as the client's first sample all the same, so the late
 * ACK is a stall measured against it: packet-delay, SRTT 0.1 s. */
static void initiator_upload(tb *b, double syn_ack_s)
{
    tb_init(b, 1000, 5000000);
    tb_packet(b, CLIENT, 0.0, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
    tb_packet(b, SERVER, syn_ack_s, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, WIN, 0, NULL);
    tb_packet(b, CLIENT, 0.10005, 1, 1, 0, TAPO_TCP_ACK, WIN, 0, NULL);
    tb_data(b, CLIENT, 0.1002, 1, MSS, 1);
}

static void test_initiator_syn_round_trip(void)
{
    const double syn_acks[] = { 0.1, 0.06, 0.0002 };   /* at the client; in the middle; at the server */
    for (unsigned k = 0; k < G_N_ELEMENTS(syn_acks); k++) {
        tb b;
        initiator_upload(&b, syn_acks[k]);
        uint32_t late = tb_ack(&b, SERVER, 0.4002, 1 + MSS, 1, WIN);
        /* The rest of the upload, over 4 KB, once the ACK reached the client. */
        double rest = 0.4002 + (0.1 - syn_acks[k]) + 0.0002;
        for (uint32_t i = 1; i < 4; i++)
            tb_data(&b, CLIENT, rest + i * 0.0001, 1 + i * MSS, MSS, 1);
        tb_ack(&b, SERVER, rest + syn_acks[k] + 0.0005, 1 + 4 * MSS, 1, WIN);
        assert_late_ack(&b, late, 0.1);
        tb_free(&b);
    }
}

/* Captured half way (8 ms from each end), a responder that takes 2 s to
 * answer the SYN (a router accepting a BGP session): its handshake
 * turnaround is no distance.  Linux's sample runs from when its SYN-ACK
 * left, so once its answer to the request measures the distance, the SYN-ACK
 * sample is 16 ms, and a 0.3 s late ACK of its later data is a stall:
 * packet-delay, SRTT 16 ms, not the 2 s the accept time would make it. */
static void test_responder_slow_syn_ack(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tb_packet(&b, CLIENT, 0.0, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
    tb_packet(&b, SERVER, 2.0, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, WIN, 0, NULL);
    tb_packet(&b, CLIENT, 2.008, 1, 1, 0, TAPO_TCP_ACK, WIN, 0, NULL);
    tb_data(&b, CLIENT, 2.0082, 1, REQ, 1);
    for (uint32_t i = 0; i < 4; i++)   /* the answer, 8 ms after the request */
        tb_data(&b, SERVER, 2.0162 + i * 0.0001, 1 + i * MSS, MSS, 1 + REQ);
    tb_ack(&b, CLIENT, 2.0245, 1 + 4 * MSS, 1 + REQ, WIN);
    tb_data(&b, SERVER, 2.1, 1 + 4 * MSS, MSS, 1 + REQ);
    uint32_t late = tb_ack(&b, CLIENT, 2.4, 1 + 5 * MSS, 1 + REQ, WIN);
    assert_late_ack(&b, late, 0.016);
    tb_free(&b);
}

static void test_receiver_side_round_trip(void)
{
    tb b;
    receiver_side_download(&b, TAPO_VANTAGE_MODE_AUTO, 0.01);
    tapo_basis basis;
    g_assert_cmpint(tapo_conv_vantage(&b.conv, SERVER, &b.cfg, &basis), ==, TAPO_VANTAGE_RECEIVER);
    g_assert_cmpint(basis, ==, TAPO_BASIS_HANDSHAKE);
    g_assert_cmpuint(tb_stall_count(&b), ==, 0);   /* 0.5 ms gaps are no stalls */
    /* The server pauses 0.5 s mid-response. */
    uint32_t pause = tb_packet(&b, SERVER, 0.75, 1 + 4 * MSS, 1 + REQ, MSS, TAPO_TCP_ACK, WIN, 0, NULL);
    tb_ack(&b, CLIENT, 0.75005, 1 + 5 * MSS, 1 + REQ, WIN);
    tapo_verdict v = tb_verdict(&b, pause, true);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_RESOURCE_CONSTRAINT);
    g_assert_cmpint(v.view->snap.vantage, ==, TAPO_VANTAGE_RECEIVER);
    g_assert_cmpfloat_with_epsilon(v.view->snap.srtt.s, 0.1, 0.005);
    g_assert_true(v.view->snap.inferred & TAPO_INFERRED_PATH_RTT);
    g_assert_cmpfloat_with_epsilon(v.view->snap.rtt_to_sender.s, 0.1, 0.001);
    g_assert_true(v.view->snap.rtt_to_receiver.known);
    g_assert_cmpfloat(v.view->snap.rtt_to_receiver.s, <, 0.001);
    tb_free(&b);

    /* Forced to the sender's vantage, the client's 50 us answers become the
     * RTT and the 0.5 ms gaps stalls (the minimum duration aside). */
    receiver_side_download(&b, TAPO_VANTAGE_MODE_SENDER, 0.0);
    tb_packet(&b, SERVER, 0.75, 1 + 4 * MSS, 1 + REQ, MSS, TAPO_TCP_ACK, WIN, 0, NULL);
    g_assert_cmpuint(tb_stall_count(&b), >, 1);
    tb_free(&b);
}

/* Captured at the client: the last segment of a response and its RTO copy
 * never arrive; the second RTO's copy is the first the capture sees.  The
 * sender's view: a tail retransmitted twice by its timer, t-double, with
 * the lost transmissions inferred. */
static void test_receiver_side_unseen_losses(void)
{
    tb b;
    receiver_side_download(&b, TAPO_VANTAGE_MODE_AUTO, 0.01);
    /* The last segment (5) was sent at 0.2022 by the server's clock, lost;
     * RTO 0.3 s later, lost; 0.6 s later, seen. */
    b.next_ip_id[SERVER] += 2;   /* the two lost copies took an IPv4 ID each */
    uint32_t seen = tb_data(&b, SERVER, 0.2022 + 0.9 + 0.1, 1 + 4 * MSS, 700, 1 + REQ);
    tb_ack(&b, CLIENT, 1.30230, 1 + 4 * MSS + 700, 1 + REQ, WIN);
    tb_data(&b, CLIENT, 2.0, 1 + REQ, REQ, 1 + 4 * MSS + 700);   /* the next request */
    tapo_verdict v = tb_verdict(&b, seen, true);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_T_DOUBLE);
    g_assert_true(v.view->snap.inferred & TAPO_INFERRED_ORIGINAL_LOST);
    g_assert_true(v.view->snap.inferred & TAPO_INFERRED_RETX_LOST);
    g_assert_cmpuint(v.view->snap.cur.retrans_count, ==, 2);
    tb_free(&b);
}

/* Captured at the client, after the download: 40 s idle, the client's
 * keep-alive, and the server's ACK of it 70 ms later, less than the 100 ms
 * the handshake measured (the path got faster).  The ACK answers the
 * keep-alive, so it cannot have left the server before the keep-alive
 * reached it: the idle gap ends at the keep-alive, client-idle, and the
 * ACK ends none (chrissanders/packets http_espn_fail.pcapng). */
static void test_keep_alive_answer(void)
{
    tb b;
    receiver_side_download(&b, TAPO_VANTAGE_MODE_AUTO, 0.01);
    uint32_t done = 1 + 4 * MSS;
    uint32_t probe = tb_keep_alive(&b, CLIENT, 40.0, 1 + REQ, done);
    uint32_t answer = tb_ack(&b, SERVER, 40.07, 1 + REQ, done, WIN);
    tapo_verdict v = tb_verdict(&b, probe, true);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_CLIENT_IDLE);
    g_assert_false(tb_is_stall(&b, answer));
    tb_free(&b);
}

/* Captured at the client, after the download: the client sends 50 bytes
 * and the server's bare ACK of them comes 0.25 s later.  For the server
 * that is no stall (0.15 s on its timeline, its threshold 0.2 s); for the
 * client, whose data waited, it is (threshold 0.2 s).  When the client's
 * next data leaves at once after the ACK (Nagle held it back), the late
 * ACK delayed the client's data: its stall, packet-delay (two passes: it
 * takes the next packet to know).  When the client stays quiet, the ACK
 * held nothing back and the stall stays the server's view: none. */
static void test_bare_ack_that_releases_data(void)
{
    for (int released = 0; released < 2; released++) {
        tb b;
        receiver_side_download(&b, TAPO_VANTAGE_MODE_AUTO, 0.01);
        uint32_t done = 1 + 4 * MSS;
        tb_data(&b, CLIENT, 1.0, 1 + REQ, 50, done);
        uint32_t ack = tb_ack(&b, SERVER, 1.25, 1 + REQ + 50, done, WIN);
        tb_data(&b, CLIENT, released ? 1.25005 : 3.0, 1 + REQ + 50, 1000, done);
        g_assert_cmpint(tb_is_stall(&b, ack), ==, released);
        if (released) {
            tapo_verdict v = tb_verdict(&b, ack, true);
            g_assert_cmpint(v.cause, ==, TAPO_CAUSE_PACKET_DELAY);
            g_assert_true(v.view->facts_final.released);
        }
        tb_free(&b);
    }
}

/* Capture at the client: a server segment seen less than a round trip after
 * the client's new request left the server before the request reached it
 * (its ACK says so), so the request is still pending when the server
 * pauses, and the server's next data is the first of its answer.  A server
 * segment that acknowledges the request, or comes a round trip later,
 * answered it: the pause is then in the middle of the answer. */
static void test_crossing_request(void)
{
    static const struct {
        double t;                  /* when the server segment is seen, seconds */
        bool acks_request;         /* its ACK covers the request */
        tapo_cause expected;       /* of the server's data after the pause */
    } cases[] = {
        { 1.03, false, TAPO_CAUSE_DATA_UNAVAILABLE },    /* crossed it */
        { 1.03, true, TAPO_CAUSE_RESOURCE_CONSTRAINT },  /* had it: the ACK proves it */
        { 1.15, true, TAPO_CAUSE_RESOURCE_CONSTRAINT },  /* a round trip later */
    };
    /* A request sent twice gives no round-trip sample (Karn) to place the
     * server's segment by: only its ACK shows the request had arrived. */
    for (int resent = 0; resent < 2; resent++) {
        tb b;
        receiver_side_download(&b, TAPO_VANTAGE_MODE_AUTO, 0.01);
        uint32_t done = 1 + 4 * MSS;
        tb_data(&b, CLIENT, 0.7, 1 + REQ, 50, done);
        tb_data(&b, CLIENT, 1.0, 1 + REQ, 50, done);
        tb_data(&b, SERVER, 1.03, done, 100, 1 + REQ + (resent ? 50 : 0));
        tb_ack(&b, CLIENT, 1.03005, done + 100, 1 + REQ + 50, WIN);
        uint32_t answer = tb_data(&b, SERVER, 1.6, done + 100, MSS, 1 + REQ + 50);
        tapo_verdict v = tb_verdict(&b, answer, true);
        g_assert_cmpint(v.cause, ==, resent ? TAPO_CAUSE_RESOURCE_CONSTRAINT : TAPO_CAUSE_DATA_UNAVAILABLE);
        tb_free(&b);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        tb b;
        receiver_side_download(&b, TAPO_VANTAGE_MODE_AUTO, 0.01);
        uint32_t done = 1 + 4 * MSS;
        tb_data(&b, CLIENT, 1.0, 1 + REQ, 50, done);
        uint32_t ack = 1 + REQ + (cases[i].acks_request ? 50 : 0);
        tb_data(&b, SERVER, cases[i].t, done, 100, ack);
        tb_ack(&b, CLIENT, cases[i].t + 0.00005, done + 100, 1 + REQ + 50, WIN);
        uint32_t answer = tb_data(&b, SERVER, 1.6, done + 100, MSS, 1 + REQ + 50);
        tapo_verdict v = tb_verdict(&b, answer, true);
        g_assert_cmpint(v.cause, ==, cases[i].expected);
        tb_free(&b);
    }
}

/* Capture at the client, 100 ms from the server: the server answers a new
 * request with two segments; the client's ACK of the first leaves 0.25 s
 * later (its delayed ACK), and the server's timer copy of that segment is
 * seen 0.12 s after the ACK, more than the round trip to the server: placed
 * a round trip before it was seen, it would have left after the ACK
 * arrived.  But a sender never resends what it knows acknowledged: the
 * copy left before the ACK reached the server, whose silence the copy
 * ended (its own stall, ack-delay: the ACK had left before it), and the
 * ACK ends no stall (two passes; one pass cannot know yet).  Control: the
 * copy resends the second segment, which that ACK did not cover: the ACK
 * had reached the server, and its late arrival is a stall (packet-delay).
 * Nor does a keep-alive, which repeats an acknowledged byte on purpose,
 * say anything of when that ACK arrived. */
static void test_ack_crossing_timer_copy(void)
{
    for (int covered = 0; covered < 2; covered++) {
        tb b;
        receiver_side_download(&b, TAPO_VANTAGE_MODE_AUTO, 0.01);
        uint32_t done = 1 + 4 * MSS, asked = 1 + REQ + 50;
        tb_data(&b, CLIENT, 1.0, 1 + REQ, 50, done);
        tb_data(&b, SERVER, 1.1, done, 500, asked);
        tb_data(&b, SERVER, 1.1001, done + 500, 500, asked);
        uint32_t ack = tb_ack(&b, CLIENT, 1.35, done + 500, asked, WIN);
        uint32_t copy = tb_data(&b, SERVER, 1.47, covered ? done : done + 500, 500, asked);
        tb_ack(&b, CLIENT, 1.47005, done + 1000, asked, WIN);
        g_assert_cmpint(tb_verdict(&b, ack, false).cause, ==, TAPO_CAUSE_PACKET_DELAY);
        if (covered)
            g_assert_false(tb_is_stall(&b, ack));
        else
            g_assert_cmpint(tb_verdict(&b, ack, true).cause, ==, TAPO_CAUSE_PACKET_DELAY);
        tapo_verdict v = tb_verdict(&b, copy, true);
        g_assert_true(v.retransmission);
        if (covered)
            g_assert_cmpint(v.cause, ==, TAPO_CAUSE_ACK_DELAY);
        tb_free(&b);
    }
    tb b;
    receiver_side_download(&b, TAPO_VANTAGE_MODE_AUTO, 0.01);
    uint32_t done = 1 + 4 * MSS, asked = 1 + REQ + 50;
    tb_data(&b, CLIENT, 1.0, 1 + REQ, 50, done);
    tb_data(&b, SERVER, 1.1, done, 500, asked);
    uint32_t ack = tb_ack(&b, CLIENT, 1.35, done + 500, asked, WIN);
    tb_keep_alive_byte(&b, SERVER, 1.47, done + 500, asked);
    g_assert_cmpint(tb_verdict(&b, ack, true).cause, ==, TAPO_CAUSE_PACKET_DELAY);
    tb_free(&b);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vantage/from-turnarounds", test_vantage_from_turnarounds);
    g_test_add_func("/vantage/from-hops", test_vantage_from_hops);
    g_test_add_func("/vantage/of-one-host", test_vantage_of_one_host);
    g_test_add_func("/vantage/turnaround-minima", test_turnaround_minima);
    g_test_add_func("/vantage/timestamp-echo", test_timestamp_echo);
    g_test_add_func("/vantage/timestamp-clock", test_timestamp_clock);
    g_test_add_func("/vantage/timestamp-clock-reference", test_timestamp_clock_reference);
    g_test_add_func("/vantage/timestamp-clock-own-measure", test_timestamp_clock_own_measure);
    g_test_add_func("/vantage/receiver-side-round-trip", test_receiver_side_round_trip);
    g_test_add_func("/vantage/initiator-syn-round-trip", test_initiator_syn_round_trip);
    g_test_add_func("/vantage/responder-slow-syn-ack", test_responder_slow_syn_ack);
    g_test_add_func("/vantage/receiver-side-unseen-losses", test_receiver_side_unseen_losses);
    g_test_add_func("/vantage/keep-alive-answer", test_keep_alive_answer);
    g_test_add_func("/vantage/bare-ack-that-releases-data", test_bare_ack_that_releases_data);
    g_test_add_func("/vantage/crossing-request", test_crossing_request);
    g_test_add_func("/vantage/ack-crossing-timer-copy", test_ack_crossing_timer_copy);
    return g_test_run();
}
