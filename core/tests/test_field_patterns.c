/* test_field_patterns.c: the patterns captures from real networks show
 * (issue 9), on hand-written exchanges captured at the server: a SYN resent
 * at the initial RTO, LAN-scale gaps, SACK-driven fast retransmission long
 * after the original, a connection restarting on the same ports, a stray
 * SYN-ACK, and an upload.
 *
 * Client ISN 1000, server ISN 5000000, MSS 1460, windows 65535.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>

#include "packet_builder.h"

#define MSS TB_MSS
#define SEG(i) (1 + (uint32_t)(i) * MSS)
#define WIN 65535
#define REQ 100

static uint32_t server_seg(tb *b, double t, int i)
{
    return tb_packet(b, SERVER, t, SEG(i), 1 + REQ, MSS, TAPO_TCP_ACK, WIN, 0, NULL);
}

static uint32_t server_last(tb *b, double t, int i, uint32_t len)
{
    return tb_data(b, SERVER, t, SEG(i), len, 1 + REQ);
}

static uint32_t request(tb *b, double t)
{
    return tb_data(b, CLIENT, t, 1, REQ, 1);
}

static tapo_cause cause_of(tb *b, uint32_t frame, bool final)
{
    return tb_verdict(b, frame, final).cause;
}

/* The client resends its SYN a few microseconds before a whole second
 * (timestamps rounded): a timer's retransmission always ends a stall. */
static void test_syn_resent_at_the_initial_rto(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tb_packet(&b, CLIENT, 10.0, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
    uint32_t again = tb_packet(&b, CLIENT, 10.999997, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
    tb_packet(&b, SERVER, 11.0, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, WIN, 0, NULL);
    g_assert_true(tb_is_stall(&b, again));
    g_assert_cmpint(cause_of(&b, again, true), ==, TAPO_CAUSE_RETRANS_UNDETERMINED);
    g_assert_true(tb_verdict(&b, again, true).retransmission);
    tb_free(&b);
}

/* A LAN with a 100 us round trip: requests answered 0.5 ms later (above
 * 2 SRTT, below the minimum stall duration) are no stalls; a 38 ms server
 * pause is.  With a minimum of 0 every gap above 2 SRTT would be one. */
static void lan_handshake(tb *b)
{
    tb_packet(b, CLIENT, 0.0, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
    tb_packet(b, SERVER, 0.000005, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, WIN, 0, NULL);
    tb_packet(b, CLIENT, 0.000105, 1, 1, 0, TAPO_TCP_ACK, WIN, 0, NULL);
}

static void lan_exchange(tb *b)
{
    lan_handshake(b);
    uint32_t seq = 1, rseq = 1;
    double t = 0.001;
    for (int i = 0; i < 6; i++) {
        tb_data(b, CLIENT, t, seq, REQ, rseq);
        seq += REQ;
        t += i == 3 ? 0.038 : 0.0005;   /* the fourth answer after a pause */
        tb_data(b, SERVER, t, rseq, 1000, seq);
        rseq += 1000;
        t += 0.0001;
        tb_ack(b, CLIENT, t, rseq, seq, WIN);
        t += 0.0005;
    }
}

static void test_lan_gaps_below_the_minimum_stall(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    lan_exchange(&b);
    g_assert_cmpuint(tb_stall_count(&b), ==, 1);
    for (uint32_t f = 1; f <= b.frame; f++)
        if (tb_is_stall(&b, f))
            g_assert_cmpint(cause_of(&b, f, true), ==, TAPO_CAUSE_DATA_UNAVAILABLE);
    tb_free(&b);

    tb_init(&b, 1000, 5000000);
    b.cfg.min_stall_s = 0.0;   /* the paper's rule alone */
    lan_exchange(&b);
    g_assert_cmpuint(tb_stall_count(&b), >, 5);
    tb_free(&b);
}

/* On a LAN the last segment of a response is lost and resent after a
 * silence (spec section 3): 4 ms after the last ACK is below the minimum
 * stall duration, no stall whatever sent it (a stack reacts that fast, and
 * timestamps jitter that much); a tail-loss probe 12 ms after it (Linux
 * waits at least 10 ms) is a stall, its gap above the threshold. */
static tb probe_after(double silence_s)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    lan_handshake(&b);
    request(&b, 0.001);
    tb_ack(&b, SERVER, 0.00102, 1 + REQ, 1, WIN);
    for (int i = 0; i < 4; i++)
        server_seg(&b, 0.0011 + i * 0.00001, i);
    server_last(&b, 0.00115, 4, 700);
    tb_ack(&b, CLIENT, 0.0013, SEG(4), 1 + REQ, WIN);
    server_last(&b, 0.0013 + silence_s, 4, 700);
    tb_ack(&b, CLIENT, 0.0014 + silence_s, SEG(4) + 700, 1 + REQ, WIN);
    return b;
}

static void test_timer_and_the_minimum_stall(void)
{
    tb b = probe_after(0.004);
    g_assert_cmpuint(tb_stall_count(&b), ==, 0);
    tb_free(&b);
    b = probe_after(0.012);
    g_assert_cmpuint(tb_stall_count(&b), ==, 1);
    uint32_t probe = b.frame - 1;
    g_assert_true(tb_is_stall(&b, probe));
    g_assert_cmpint(cause_of(&b, probe, true), ==, TAPO_CAUSE_TAIL);
    tb_free(&b);
}

/* Segment 10 of 20 is lost; the client's ACKs are held 450 ms, so the SACKs
 * reach the server long after the segment left (more than the RTO TAPO
 * estimates) and release its fast retransmission at once; that one is lost
 * too and the server's RTO (1 s minimum) resends it: f-double, not
 * t-double. */
static void test_fast_retransmission_released_late_by_sack(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tb_handshake(&b, 0.0, 0.1, WIN, WIN);
    request(&b, 0.1001);
    for (int i = 0; i < 10; i++)
        server_seg(&b, 0.101 + i * 0.0001, i);
    tb_ack(&b, CLIENT, 0.2, SEG(10), 1 + REQ, WIN);
    for (int i = 10; i < 20; i++)
        server_seg(&b, 0.2001 + i * 0.0001, i);
    uint32_t held = tb_sack(&b, CLIENT, 0.65, SEG(10), 1 + REQ, WIN, SEG(11), SEG(12));
    tb_sack(&b, CLIENT, 0.6501, SEG(10), 1 + REQ, WIN, SEG(11), SEG(13));
    uint32_t fast = server_seg(&b, 0.6504, 10);                 /* 0.45 s after the original */
    for (int i = 13; i < 20; i++)
        tb_sack(&b, CLIENT, 0.6502 + i * 0.0001, SEG(10), 1 + REQ, WIN, SEG(11), SEG(i + 1));
    uint32_t rto = server_seg(&b, 1.66, 10);
    tb_ack(&b, CLIENT, 1.76, SEG(20), 1 + REQ, WIN);

    g_assert_cmpint(cause_of(&b, held, true), ==, TAPO_CAUSE_PACKET_DELAY);
    g_assert_false(tb_is_stall(&b, fast));
    g_assert_cmpint(cause_of(&b, rto, false), ==, TAPO_CAUSE_F_DOUBLE);
    g_assert_cmpint(cause_of(&b, rto, true), ==, TAPO_CAUSE_F_DOUBLE);
    g_assert_cmpint(tb_record(&b, rto)->snap.cur.first_retrans, ==, TAPO_TRIGGER_FAST);
    tb_free(&b);
}

/* A new SYN with another ISN on the same ports (reused after TIME-WAIT, or
 * Wireshark kept one stream): the state starts over instead of reading the
 * new sequence numbers as far outside the window. */
static void test_restart_on_the_same_ports(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tb_handshake(&b, 0.0, 0.1, WIN, WIN);
    request(&b, 0.1001);
    server_seg(&b, 0.101, 0);
    server_last(&b, 0.1011, 1, 700);          /* never acknowledged */
    b.isn[CLIENT] = 3000000000u;
    b.isn[SERVER] = 123456;
    tb_handshake(&b, 5.0, 0.1, WIN, WIN);
    g_assert_cmpuint(b.conv.events.restarts, ==, 1);
    tb_data(&b, CLIENT, 5.1001, 1, REQ, 1);
    tb_ack(&b, SERVER, 5.101, 1 + REQ, 1, WIN);
    uint32_t think = server_seg(&b, 5.6, 0);
    tb_ack(&b, CLIENT, 5.7, SEG(1), 1 + REQ, WIN);
    g_assert_cmpint(cause_of(&b, think, true), ==, TAPO_CAUSE_DATA_UNAVAILABLE);
    const tapo_stall_view *view = tb_record(&b, think);
    g_assert_cmpuint(view->snap.packets_out, ==, 0);
    g_assert_cmpfloat_with_epsilon(view->facts_final.duration_s, 5.6 - 5.101, 1e-9);
    tb_free(&b);
}

/* A second SYN-ACK with another ISN, answering the SYN after the handshake
 * completed (another server behind the address, a restarted one): not this
 * connection's; the data that follows keeps the first ISN. */
static void test_stray_syn_ack_is_ignored(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tb_handshake(&b, 0.0, 0.1, WIN, WIN);
    request(&b, 0.1001);
    uint32_t saved = b.isn[SERVER];
    b.isn[SERVER] = 77777777;
    uint32_t stray = tb_packet(&b, SERVER, 0.3, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, WIN, 0, NULL);
    b.isn[SERVER] = saved;
    g_assert_cmpuint(b.conv.events.strays, ==, 1);
    g_assert_false(tb_is_stall(&b, stray));
    for (int i = 0; i < 3; i++)
        server_seg(&b, 0.7 + i * 0.0001, i);
    server_last(&b, 0.7004, 3, 700);
    tb_ack(&b, CLIENT, 0.8, SEG(3) + 700, 1 + REQ, WIN);
    uint32_t next = tb_data(&b, CLIENT, 2.0, 1 + REQ, REQ, SEG(3) + 700);
    g_assert_cmpint(cause_of(&b, next, true), ==, TAPO_CAUSE_CLIENT_IDLE);
    g_assert_cmpuint(tb_record(&b, next)->snap.packets_out, ==, 0);
    tb_free(&b);
}

/* An upload captured at the server: the client (the initiator) sends 30
 * segments; the last is lost before the server and resent by the client's
 * RTO.  Without a preference the client is the analysed sender, chosen from
 * the data, the capture is at its receiver, and the stall is its tail. */
static void test_upload_is_analysed_from_the_client(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    b.use_ip_id = true;
    tb_handshake(&b, 0.0, 0.1, WIN, WIN);
    for (int i = 0; i < 29; i++) {
        double t = 0.1001 + i * 0.0001;
        tb_packet(&b, CLIENT, t, SEG(i), 1, MSS, TAPO_TCP_ACK, WIN, 0, NULL);
        if (i % 2 == 1)
            tb_ack(&b, SERVER, t + 0.00005, SEG(i + 1), 1, WIN);
    }
    tb_ack(&b, SERVER, 0.1031, SEG(29), 1, WIN);
    b.next_ip_id[CLIENT]++;   /* the lost last segment */
    uint32_t rto = tb_data(&b, CLIENT, 0.4031, SEG(29), 500, 1);
    tb_ack(&b, SERVER, 0.40315, SEG(29) + 500, 1, WIN);
    tapo_verdict v = tb_verdict(&b, rto, true);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_TAIL);
    g_assert_cmpint(v.sender, ==, CLIENT);
    g_assert_cmpint(v.sender_role, ==, TAPO_ROLE_INITIATOR);
    g_assert_cmpint(v.sender_basis, ==, TAPO_BASIS_DATA);
    g_assert_cmpint(v.view->snap.vantage, ==, TAPO_VANTAGE_RECEIVER);
    g_assert_true(v.view->snap.inferred & TAPO_INFERRED_ORIGINAL_LOST);
    g_assert_cmpint(tb_verdict(&b, rto, false).cause, ==, TAPO_CAUSE_TAIL);
    tb_free(&b);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/patterns/syn-resent-at-the-initial-rto", test_syn_resent_at_the_initial_rto);
    g_test_add_func("/patterns/lan-gaps-below-the-minimum-stall", test_lan_gaps_below_the_minimum_stall);
    g_test_add_func("/patterns/timer-and-the-minimum-stall", test_timer_and_the_minimum_stall);
    g_test_add_func("/patterns/fast-retransmission-released-late-by-sack",
                    test_fast_retransmission_released_late_by_sack);
    g_test_add_func("/patterns/restart-on-the-same-ports", test_restart_on_the_same_ports);
    g_test_add_func("/patterns/stray-syn-ack-is-ignored", test_stray_syn_ack_is_ignored);
    g_test_add_func("/patterns/upload-is-analysed-from-the-client", test_upload_is_analysed_from_the_client);
    return g_test_run();
}
