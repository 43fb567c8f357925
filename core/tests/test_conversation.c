/* test_conversation.c: the state machine, stall detection and hindsight on
 * hand-written TCP exchanges whose causes are known by construction.
 *
 * Unless said otherwise: client ISN 1000, server ISN 5000000, MSS 1460,
 * windows 65535, captured at the server with an RTT of 100 ms.  After the
 * handshake the server's SRTT is 0.0998 s, RTO 0.2998 s, so the stall
 * threshold is min(2 SRTT, RTO) = 0.1996 s.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>

#include "packet_builder.h"
#include "roles/sender_choice.h"

#define MSS TB_MSS
#define SEG(i) (1 + (uint32_t)(i) * MSS)   /* relative seq of the server's i-th segment */
#define WIN 65535
#define REQ 100                             /* request length, bytes */

static void start(tb *b, uint32_t server_isn)
{
    tb_init(b, 1000, server_isn);
    tb_handshake(b, 0.0, 0.1, WIN, WIN);
}

/* A request at t, answered by nothing yet. */
static uint32_t request(tb *b, double t)
{
    return tb_data(b, CLIENT, t, 1, REQ, 1);
}

static uint32_t server_seg(tb *b, double t, int i)
{
    return tb_data(b, SERVER, t, SEG(i), MSS, 1 + REQ);
}

/* The short last segment of a response, of len bytes. */
static uint32_t server_last(tb *b, double t, int i, uint32_t len)
{
    return tb_data(b, SERVER, t, SEG(i), len, 1 + REQ);
}

#define SHORT 700   /* bytes in the last segment of a response */

/* A server segment without PSH: more data follows in the same write. */
static uint32_t server_seg_more(tb *b, double t, int i)
{
    return tb_packet(b, SERVER, t, SEG(i), 1 + REQ, MSS, TAPO_TCP_ACK, WIN, 0, NULL);
}

static uint32_t client_ack(tb *b, double t, uint32_t ack)
{
    return tb_ack(b, CLIENT, t, ack, 1 + REQ, WIN);
}

static void assert_cause(tb *b, uint32_t frame, bool final, tapo_cause cause)
{
    tapo_verdict v = tb_verdict(b, frame, final);
    if (v.cause != cause)
        g_error("frame %u (%s): expected %s (rule %d), got %s (rule %d)", frame,
                final ? "two-pass" : "one-pass", tapo_cause_get(cause)->name, cause,
                tapo_cause_get(v.cause)->name, v.cause);
}

static void assert_both(tb *b, uint32_t frame, tapo_cause cause)
{
    assert_cause(b, frame, false, cause);
    assert_cause(b, frame, true, cause);
}

/* Client pauses, server think time, a pause mid-response. */
static void test_application_stalls(void)
{
    tb b;
    start(&b, 5000000);
    g_assert_cmpfloat_with_epsilon(b.conv.ep[SERVER].rtt.srtt_s, 0.0998, 1e-9);
    uint32_t idle = request(&b, 1.0);                 /* 0.9 s after the handshake */
    tb_ack(&b, SERVER, 1.04, 1 + REQ, 1, WIN);        /* delayed ACK, no stall */
    uint32_t think = server_seg(&b, 1.6, 0);          /* 0.56 s of think time */
    server_seg(&b, 1.6001, 1);
    client_ack(&b, 1.7, SEG(2));
    uint32_t pause = server_seg(&b, 2.5, 2);          /* nothing outstanding, no new request */
    client_ack(&b, 2.6, SEG(3));
    uint32_t bye = tb_packet(&b, CLIENT, 5.0, 1 + REQ, SEG(3), 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN, 0, NULL);

    assert_both(&b, idle, TAPO_CAUSE_CLIENT_IDLE);
    assert_both(&b, think, TAPO_CAUSE_DATA_UNAVAILABLE);
    assert_both(&b, pause, TAPO_CAUSE_RESOURCE_CONSTRAINT);
    assert_both(&b, bye, TAPO_CAUSE_CLIENT_IDLE);
    g_assert_cmpuint(tb_stall_count(&b), ==, 4);
    const tapo_stall_view *rec = tb_record(&b, think);
    g_assert_cmpuint(rec->facts_final.prev_frame, ==, think - 1);
    g_assert_cmpfloat_with_epsilon(rec->facts_final.duration_s, 0.56, 1e-9);
    g_assert_cmpfloat_with_epsilon(rec->snap.threshold_s, 0.1996, 1e-9);
    g_assert_cmpint(tb_verdict(&b, think, true).file_pos, ==, TAPO_FILE_POS_HEAD);
    tb_free(&b);
}

/* A record is settled once nothing watches its final facts: a tracker's
 * questions answered or its connection ended; a gap watch ended by the
 * sender's first packet sent after the gap. */
static void test_settled_record(void)
{
    tapo_stall_record rec = { .frame = 9 };
    rec.view[SERVER].stalled = true;
    tapo_hindsight hs;
    tapo_hs_init(&hs);
    tapo_hs_open(&hs, &rec.view[SERVER].facts_final, 0, 100, 1, false);
    g_assert_false(tapo_record_settled(&rec));
    tapo_hs_destroy(&hs);                              /* the connection ended */
    g_assert_true(tapo_record_settled(&rec));
    tapo_hs_init(&hs);
    tapo_hs_watch_gap(&hs, &rec.view[SERVER].facts_final, 1.0, 2.0, 0.2, 1.9);
    g_assert_false(tapo_record_settled(&rec));
    tapo_hs_sent_at(&hs, 1.5, 7, 0.001, tapo_opt_s_none()); /* inside the gap: it shrinks */
    g_assert_false(tapo_record_settled(&rec));
    g_assert_cmpfloat_with_epsilon(rec.view[SERVER].facts_final.duration_s, 0.5, 1e-9);
    tapo_hs_sent_at(&hs, 2.1, 8, 0.001, tapo_opt_s_none()); /* after it: nothing later falls inside */
    g_assert_true(tapo_record_settled(&rec));
    tapo_hs_destroy(&hs);
    g_assert_true(tapo_record_settled(&rec));
}

/* A bare FIN that gave up a chain of timer copies: the chain went on only
 * if the head is resent after it. */
static void test_close_inside_chain(void)
{
    for (int resent = 0; resent < 2; resent++) {
        tapo_facts facts = { 0 };
        tapo_hindsight hs;
        tapo_hs_init(&hs);
        tapo_hs_open(&hs, &facts, 100, 400, 1, false);
        tapo_hs_cur_gave_up(&hs, 100);
        tapo_hs_fin(&hs, 0.0, false);
        tapo_hs_resent(&hs, 300, 400);                   /* not the head */
        if (resent)
            tapo_hs_resent(&hs, 100, 401);               /* the head, with the FIN */
        g_assert_cmpint(facts.chain_went_on, ==, resent);
        tapo_hs_destroy(&hs);
    }
}

/* The client's next request lost twice before the capture point at the
 * server (its IP IDs skip two packets that appear nowhere): the copy the
 * capture sees is the first the server gets, a request all the same, and
 * the server's half second before answering it is its think time (the lab's
 * mixed-lossy-modern once read it as a pause mid-response). */
static void test_copy_of_an_unseen_request_is_a_request(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    b.use_ip_id = true;
    tb_handshake(&b, 0.0, 0.1, WIN, WIN);
    request(&b, 0.5);
    server_last(&b, 0.501, 0, SHORT);
    client_ack(&b, 0.6, 1 + SHORT);
    b.next_ip_id[CLIENT] += 2;                        /* two copies lost on the way */
    tb_data(&b, CLIENT, 1.5, 1 + REQ, REQ, 1 + SHORT);
    tb_ack(&b, SERVER, 1.5001, 1 + 2 * REQ, 1 + SHORT, WIN);
    uint32_t think = tb_data(&b, SERVER, 2.0, 1 + SHORT, SHORT, 1 + 2 * REQ);
    assert_both(&b, think, TAPO_CAUSE_DATA_UNAVAILABLE);
    tb_free(&b);
}

/* A three-segment response whose last segment is lost once: the RTO
 * resends it with nothing after it: tail, in Open state. */
static void run_tail_loss(uint32_t server_isn)
{
    tb b;
    start(&b, server_isn);
    request(&b, 0.1001);
    server_seg(&b, 0.101, 0);
    server_seg(&b, 0.1011, 1);
    server_last(&b, 0.1012, 2, SHORT);                /* lost */
    client_ack(&b, 0.2, SEG(2));
    uint32_t rto = server_last(&b, 0.5, 2, SHORT);    /* 0.3 s later */
    client_ack(&b, 0.6, SEG(2) + SHORT);
    request(&b, 0.61);                                /* next request: the response had ended */

    assert_both(&b, rto, TAPO_CAUSE_TAIL);
    const tapo_stall_view *rec = tb_record(&b, rto);
    g_assert_cmpint(rec->snap.ca_state, ==, TAPO_CA_OPEN);
    g_assert_cmpint(rec->snap.cur.first_retrans, ==, TAPO_TRIGGER_TIMEOUT);
    g_assert_cmpuint(rec->snap.cur.retrans_count, ==, 1);
    g_assert_cmpuint(rec->snap.packets_out, ==, 1);
    tapo_verdict v = tb_verdict(&b, rto, true);
    g_assert_true(v.retransmission);
    g_assert_cmpfloat_with_epsilon(v.position, 2.0 * MSS / (2 * MSS + SHORT), 1e-9);
    tb_free(&b);
}

static void test_tail(void)
{
    run_tail_loss(5000000);
}

/* The same exchange with the server's sequence numbers wrapping past 2^32
 * in the middle of the response. */
static void test_tail_across_wrap(void)
{
    run_tail_loss(0xFFFFFFFFu - 2 * MSS);
}

/* The last two segments are lost; with others still outstanding the sender
 * resends the last one, not the head, after a silence: a tail-loss probe. */
static void test_tail_loss_probe(void)
{
    tb b;
    start(&b, 5000000);
    request(&b, 0.1001);
    for (int i = 0; i < 3; i++)
        server_seg_more(&b, 0.101 + i * 0.0001, i);
    server_last(&b, 0.1013, 3, SHORT);                /* segments 2 and 3 lost */
    client_ack(&b, 0.2, SEG(2));
    uint32_t probe = server_last(&b, 0.41, 3, SHORT); /* 2 SRTT after the ACK */
    tb_sack(&b, CLIENT, 0.51, SEG(2), 1 + REQ, WIN, SEG(3), SEG(3) + SHORT);
    server_seg_more(&b, 0.5101, 2);                    /* RACK: segment 2 was lost */
    client_ack(&b, 0.61, SEG(3) + SHORT);
    request(&b, 0.62);

    assert_both(&b, probe, TAPO_CAUSE_TAIL);
    const tapo_stall_view *rec = tb_record(&b, probe);
    g_assert_cmpint(rec->snap.cur.trigger, ==, TAPO_TRIGGER_PROBE);
    g_assert_cmpint(rec->snap.cur.first_retrans, ==, TAPO_TRIGGER_PROBE);
    g_assert_cmpint(rec->snap.ca_state, ==, TAPO_CA_OPEN);
    tb_free(&b);
}

/* A response that ends on a full segment: one pass guesses more data
 * follows (a full segment usually does); hindsight sees the next request
 * instead and calls the loss a tail. */
static void test_full_last_segment_needs_hindsight(void)
{
    tb b;
    start(&b, 5000000);
    request(&b, 0.1001);
    server_seg(&b, 0.101, 0);
    server_seg(&b, 0.1011, 1);                         /* lost, full-sized */
    client_ack(&b, 0.2, SEG(1));
    uint32_t rto = server_seg(&b, 0.5, 1);
    client_ack(&b, 0.6, SEG(2));
    request(&b, 0.7);
    assert_cause(&b, rto, false, TAPO_CAUSE_SMALL_CWND);
    assert_cause(&b, rto, true, TAPO_CAUSE_TAIL);
    tb_free(&b);
}

/* The tail segment's RTO retransmission is lost too: t-double. */
static void test_t_double(void)
{
    tb b;
    start(&b, 5000000);
    request(&b, 0.1001);
    server_seg(&b, 0.101, 0);
    server_last(&b, 0.1011, 1, SHORT);
    client_ack(&b, 0.2, SEG(1));
    uint32_t first = server_last(&b, 0.5, 1, SHORT);  /* RTO, lost again */
    uint32_t second = server_last(&b, 1.1, 1, SHORT); /* backed-off RTO */
    client_ack(&b, 1.2, SEG(1) + SHORT);

    assert_both(&b, first, TAPO_CAUSE_TAIL);
    assert_both(&b, second, TAPO_CAUSE_T_DOUBLE);
    const tapo_stall_view *rec = tb_record(&b, second);
    g_assert_cmpuint(rec->snap.cur.retrans_count, ==, 2);
    g_assert_cmpint(rec->snap.ca_state, ==, TAPO_CA_LOSS);
    tb_free(&b);
}

/* A 20-segment response (the last one last_len bytes) in two flights of
 * 10; segment 10 is lost, SACKs for 11-13 come back and the sender
 * fast-retransmits it.  Returns the fast retransmission's frame. */
static uint32_t twenty_segments_fast_retransmit_10(tb *b, uint32_t last_len)
{
    request(b, 0.1001);
    for (int i = 0; i < 10; i++)
        server_seg_more(b, 0.101 + i * 0.0001, i);
    client_ack(b, 0.2, SEG(10));
    for (int i = 10; i < 19; i++)
        server_seg_more(b, 0.2001 + i * 0.0001, i);
    if (last_len == MSS)
        server_seg_more(b, 0.2020, 19);
    else
        server_last(b, 0.2020, 19, last_len);
    for (int i = 11; i < 14; i++)
        tb_sack(b, CLIENT, 0.3 + i * 0.0001, SEG(10), 1 + REQ, WIN, SEG(11), SEG(i + 1));
    return server_seg_more(b, 0.3015, 10);
}

/* 20 segments; segment 10 is lost, fast-retransmitted after 3 SACKs, and
 * lost again: the RTO resends it: f-double (paper Figure 9). */
static void run_f_double(uint32_t server_isn)
{
    tb b;
    start(&b, server_isn);
    uint32_t fast = twenty_segments_fast_retransmit_10(&b, MSS);   /* lost again */
    for (int i = 14; i < 20; i++)
        tb_sack(&b, CLIENT, 0.3016 + i * 0.0001, SEG(10), 1 + REQ, WIN, SEG(11), SEG(i + 1));
    uint32_t rto = server_seg_more(&b, 0.65, 10);
    client_ack(&b, 0.75, SEG(20));

    g_assert_false(tb_is_stall(&b, fast));
    assert_both(&b, rto, TAPO_CAUSE_F_DOUBLE);
    const tapo_stall_view *rec = tb_record(&b, rto);
    g_assert_cmpint(rec->snap.cur.first_retrans, ==, TAPO_TRIGGER_FAST);
    g_assert_cmpint(rec->snap.ca_state, ==, TAPO_CA_RECOVERY);
    g_assert_cmpuint(rec->snap.sacked_out, ==, 9);
    g_assert_cmpuint(rec->snap.retrans_out, ==, 1);
    tb_free(&b);
}

static void test_f_double(void)
{
    run_f_double(5000000);
}

static void test_f_double_across_wrap(void)
{
    run_f_double(0xFFFFFFFFu - 11 * MSS);
}

/* Segments 10 (fast-retransmitted, delivered) and 19 (the last) are lost:
 * the RTO for 19 is a tail stall in Recovery (paper Table 7). */
static void test_tail_in_recovery(void)
{
    tb b;
    start(&b, 5000000);
    twenty_segments_fast_retransmit_10(&b, SHORT);      /* delivered */
    for (int i = 14; i < 19; i++)
        tb_sack(&b, CLIENT, 0.3016 + i * 0.0001, SEG(10), 1 + REQ, WIN, SEG(11), SEG(i + 1));
    client_ack(&b, 0.4, SEG(19));                      /* partial ACK: 19 is missing */
    uint32_t rto = server_last(&b, 0.7, 19, SHORT);
    client_ack(&b, 0.8, SEG(19) + SHORT);
    tb_packet(&b, CLIENT, 0.81, 1 + REQ, SEG(19) + SHORT, 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN, 0, NULL);

    assert_both(&b, rto, TAPO_CAUSE_TAIL);
    g_assert_cmpint(tb_record(&b, rto)->snap.ca_state, ==, TAPO_CA_RECOVERY);
    tb_free(&b);
}

/* Six segments arrive but their ACKs are held for a second.  At the RTO
 * nothing is known to have arrived (one pass: continuous-loss); later the
 * ACKs and a DSACK show the originals arrived (two passes: ack-delay). */
static void test_ack_delay_needs_hindsight(void)
{
    tb b;
    start(&b, 5000000);
    request(&b, 0.1001);
    for (int i = 0; i < 6; i++)
        server_seg_more(&b, 0.101 + i * 0.0001, i);
    uint32_t rto = server_seg_more(&b, 0.45, 0);
    for (int i = 1; i <= 6; i++)
        client_ack(&b, 1.2 + i * 0.0001, SEG(i));
    /* The retransmitted copy of segment 0 arrives as a duplicate: DSACK. */
    tb_sack(&b, CLIENT, 1.25, SEG(6), 1 + REQ, WIN, SEG(0), SEG(1));
    tb_packet(&b, CLIENT, 1.26, 1 + REQ, SEG(6), 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN, 0, NULL);

    assert_cause(&b, rto, false, TAPO_CAUSE_CONTINUOUS_LOSS);
    assert_cause(&b, rto, true, TAPO_CAUSE_ACK_DELAY);
    g_assert_true(tb_verdict(&b, rto, true).spurious);
    g_assert_false(tb_verdict(&b, rto, false).spurious);
    tb_free(&b);
}

/* Six segments all lost: only the retransmissions arrive.  Continuous loss
 * both ways. */
static void test_continuous_loss(void)
{
    tb b;
    start(&b, 5000000);
    request(&b, 0.1001);
    for (int i = 0; i < 6; i++)
        server_seg_more(&b, 0.101 + i * 0.0001, i);
    uint32_t rto = server_seg_more(&b, 0.45, 0);
    client_ack(&b, 0.55, SEG(1));
    server_seg_more(&b, 0.5501, 1);
    server_seg_more(&b, 0.5502, 2);
    client_ack(&b, 0.65, SEG(3));
    for (int i = 3; i < 6; i++)
        server_seg_more(&b, 0.6501 + i * 0.0001, i);
    client_ack(&b, 0.75, SEG(6));

    assert_both(&b, rto, TAPO_CAUSE_CONTINUOUS_LOSS);
    tb_free(&b);
}

/* The client closes its window, probes come, then the window reopens and
 * the server continues: zero-window stalls. */
static void test_zero_window(void)
{
    tb b;
    start(&b, 5000000);
    request(&b, 0.1001);
    for (int i = 0; i < 4; i++)
        server_seg_more(&b, 0.101 + i * 0.0001, i);
    tb_ack(&b, CLIENT, 0.2, SEG(4), 1 + REQ, 0);      /* window closed */
    /* Linux's probe: an empty segment at snd_una - 1. */
    uint32_t probe = tb_packet(&b, SERVER, 0.7, SEG(4) - 1, 1 + REQ, 0, TAPO_TCP_ACK, WIN, 0, NULL);
    tb_ack(&b, CLIENT, 0.7999, SEG(4), 1 + REQ, 0);
    uint32_t update = tb_ack(&b, CLIENT, 3.2, SEG(4), 1 + REQ, WIN);
    server_seg(&b, 3.2001, 4);
    client_ack(&b, 3.3, SEG(5));

    assert_both(&b, probe, TAPO_CAUSE_ZERO_WINDOW);
    assert_both(&b, update, TAPO_CAUSE_ZERO_WINDOW);
    g_assert_cmpuint(tb_record(&b, update)->snap.rwnd, ==, 0);
    tb_free(&b);
}

/* An ACK 0.25 s late: above 2 SRTT, below the RTO: packet-delay. */
static void test_packet_delay(void)
{
    tb b;
    start(&b, 5000000);
    request(&b, 0.1001);
    for (int i = 0; i < 4; i++)
        server_seg(&b, 0.101 + i * 0.0001, i);
    uint32_t late = client_ack(&b, 0.3513, SEG(4));
    assert_both(&b, late, TAPO_CAUSE_PACKET_DELAY);
    g_assert_cmpuint(tb_record(&b, late)->snap.packets_out, ==, 4);
    tb_free(&b);
}

/* The capture misses the client's ACK of each response, and the client's
 * next request, 20 s later, acknowledges it.  The server stayed silent
 * with that data outstanding far past its timer (RTO about 0.3 s): had no
 * ACK reached it, it would have resent the data.  Both silences are the
 * client's (spec section 8, the sender's silence), and the request's ACK
 * is no 20 s round-trip sample: the second silence is read with the
 * server's timer as the first one was. */
static void test_silence_is_no_rtt_sample(void)
{
    tb b;
    start(&b, 5000000);
    request(&b, 0.1001);
    for (int i = 0; i < 4; i++)
        server_seg(&b, 0.2 + i * 0.0001, i);
    client_ack(&b, 0.301, SEG(4));
    uint32_t acked = SEG(4);
    for (int r = 1; r <= 3; r++) {
        double t = r == 1 ? 0.4 : 20.4 * (r - 1);
        uint32_t asks = tb_data(&b, CLIENT, t, 1 + r * REQ, REQ, acked);
        if (r > 1) {
            assert_both(&b, asks, TAPO_CAUSE_CLIENT_IDLE);
            const tapo_stall_view *view = tb_record(&b, asks);
            g_assert_true(view->snap.srtt.known);
            g_assert_cmpfloat(view->snap.srtt.s, <, 0.5);
        }
        tb_data(&b, SERVER, t + 0.1, acked, SHORT, 1 + (r + 1) * REQ);
        acked += SHORT;
    }
    tb_free(&b);
}

/* A request answered by one short segment, its ACK captured (0.3 s). */
static void answered_request(tb *b)
{
    start(b, 5000000);
    request(b, 0.1001);
    server_last(b, 0.2, 0, SHORT);
    client_ack(b, 0.3, 1 + SHORT);
}

/* The capture misses the client's ACK of a short answer, and the client's
 * next request acknowledges it.  With an RTT sample, the server's timer
 * (RTO 0.3 s) fires within RFC 6298's minimum of 1 s on any standard
 * stack: silent 1.2 s with the answer outstanding and not resent, it had
 * the ACK, and the gap is the client's idle time.  Silent 0.95 s (three
 * RTOs, but below that minimum), a stack with a 1 s minimum RTO could
 * still have been waiting: the data stays outstanding (packet-delay). */
static void test_silence_past_the_minimum_rto(void)
{
    const double silences[] = { 1.2, 0.95 };
    for (int i = 0; i < 2; i++) {
        tb b;
        start(&b, 5000000);
        request(&b, 0.1001);
        server_last(&b, 0.2, 0, SHORT);
        uint32_t next = tb_data(&b, CLIENT, 0.2 + silences[i], 1 + REQ, REQ, 1 + SHORT);
        assert_both(&b, next, i == 0 ? TAPO_CAUSE_CLIENT_IDLE : TAPO_CAUSE_PACKET_DELAY);
        g_assert_cmpuint(tb_record(&b, next)->snap.packets_out, ==, i == 0 ? 0 : 1);
        tb_free(&b);
    }
}

/* The capture misses the client's ACK of the server's message, and the
 * server's own next message, 1.5 s later, is new data, no copy: at the
 * server the capture shows it sent nothing in between, so its timer had
 * nothing to resend: it had the ACK, and the gap is a pause between its
 * messages (resource-constraint), not late packets. */
static void test_own_packet_after_silence(void)
{
    tb b;
    answered_request(&b);
    tb_data(&b, SERVER, 0.5, 1 + SHORT, 50, 1 + REQ);   /* its ACK: not captured */
    uint32_t next = tb_data(&b, SERVER, 2.0, 1 + SHORT + 50, 50, 1 + REQ);
    assert_both(&b, next, TAPO_CAUSE_RESOURCE_CONSTRAINT);
    g_assert_true(tb_record(&b, next)->snap.inferred & TAPO_INFERRED_ACK_UNSEEN);
    tb_free(&b);
}

/* The same away from the server (50 ms each side of the capture point):
 * a copy lost before the capture point would look the same, unless the
 * server's IP IDs show it sent nothing in between (spec section 8).  IDs
 * that step by one: resource-constraint.  IDs that skip two: the server
 * may have resent the message twice, lost on its way: not a pause. */
static void test_own_packet_after_silence_away(void)
{
    for (int skip = 0; skip < 2; skip++) {
        tb b;
        tb_init(&b, 1000, 5000000);
        b.use_ip_id = true;
        tb_packet(&b, CLIENT, 0.0, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
        tb_packet(&b, SERVER, 0.1, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, WIN, 0, NULL);
        tb_packet(&b, CLIENT, 0.2, 1, 1, 0, TAPO_TCP_ACK, WIN, 0, NULL);
        for (int r = 0; r < 3; r++) {                 /* turnarounds both ways: the capture is in the middle */
            double t = 0.3 + r * 0.3;
            tb_data(&b, CLIENT, t, 1 + r * REQ, REQ, 1 + r * 100);
            tb_data(&b, SERVER, t + 0.1001, 1 + r * 100, 100, 1 + (r + 1) * REQ);
            tb_ack(&b, CLIENT, t + 0.2002, 1 + (r + 1) * 100, 1 + (r + 1) * REQ, WIN);
        }
        tb_data(&b, SERVER, 1.3, 301, 50, 1 + 3 * REQ);  /* its ACK: not captured */
        b.next_ip_id[SERVER] += skip ? 2 : 0;
        uint32_t next = tb_data(&b, SERVER, 2.8, 351, 50, 1 + 3 * REQ);
        g_assert_cmpint(tb_record(&b, next)->snap.vantage, ==, TAPO_VANTAGE_MIDDLE);
        if (skip)
            g_assert_cmpint(tb_verdict(&b, next, true).cause, !=, TAPO_CAUSE_RESOURCE_CONSTRAINT);
        else
            assert_both(&b, next, TAPO_CAUSE_RESOURCE_CONSTRAINT);
        tb_free(&b);
    }
}

/* The capture misses the client's second request (a capture of one
 * direction, or one that drops): the server's answer, 0.6 s after its
 * previous packet, acknowledges it.  The request reached the server
 * before that answer, which answers it: the server's think time
 * (data-unavailable), not a pause mid-response. */
static void test_answer_to_an_unseen_request(void)
{
    tb b;
    answered_request(&b);
    uint32_t answer = tb_data(&b, SERVER, 0.9, 1 + SHORT, SHORT, 1 + 2 * REQ);  /* request 2: not captured */
    assert_both(&b, answer, TAPO_CAUSE_DATA_UNAVAILABLE);
    g_assert_true(tb_record(&b, answer)->snap.request_pending);
    tb_free(&b);
}

/* The capture loses a stretch of the connection: after an answered
 * request, the client's second request and the server's answer to it are
 * not in it.  The client's third request, 4.7 s later, starts 100 bytes
 * past its last seen byte and acknowledges 700 bytes of the server's that
 * no packet showed: both sent data in the gap, so the capture's
 * consecutive packets are not the connection's and the gap is no silence
 * (no stall; before, the server's think time read through the ACK).  The
 * controls, one side unseen each, still end a stall: the client's
 * sequence alone skips (its second request lost before a capture point
 * in the middle: nothing of the server's outstanding, the client's idle),
 * or only the server's data is unseen (read through the ACK). */
static void test_capture_hole_both_ways(void)
{
    for (int unseen = 0; unseen < 3; unseen++) {   /* 0: both, 1: the client's only, 2: the server's only */
        tb b;
        answered_request(&b);
        uint32_t seq = unseen == 2 ? 1 + REQ : 1 + 2 * REQ;
        uint32_t ack = unseen == 1 ? 1 + SHORT : 1 + 2 * SHORT;
        uint32_t next = tb_data(&b, CLIENT, 5.0, seq, REQ, ack);
        g_assert_cmpint(tb_is_stall(&b, next), ==, unseen != 0);
        tb_free(&b);
    }
}

/* The capture misses the server's response (one direction seen, or a
 * capture that drops): the client's ACK after its request acknowledges it
 * and D-SACKs its start, so it arrived twice: the server sent it twice in
 * the gap and the copy was unnecessary (ack-delay, rule 1.0), no server
 * slow to answer.  Without the D-SACK the same ACK shows only a late
 * answer (data-unavailable). */
static void test_dsack_of_unseen_response(void)
{
    for (int dsack = 0; dsack < 2; dsack++) {
        tb b;
        start(&b, 5000000);
        request(&b, 0.1001);
        uint32_t ack = dsack ? tb_sack(&b, CLIENT, 0.5, 1 + SHORT, 1 + REQ, WIN, 1, 1 + SHORT)
                             : client_ack(&b, 0.5, 1 + SHORT);
        assert_both(&b, ack, dsack ? TAPO_CAUSE_ACK_DELAY : TAPO_CAUSE_DATA_UNAVAILABLE);
        g_assert_cmpint(tb_verdict(&b, ack, true).spurious, ==, dsack);
        g_assert_cmpuint(tb_record(&b, ack)->facts_final.dsack_frame, ==, dsack ? ack : 0);
        tb_free(&b);
    }
}

/* A capture of the client's packets only: its ACKs reveal the response.
 * It SACKs segments 5 and 6 above a hole at segment 4, and 1 s later an
 * ACK fills the hole: segment 4's original was sent before 5 and 6 (in
 * order) and arrived after them, so it was lost and the server resent it
 * in the gap, unseen: a retransmission stall, its loss signal the SACK
 * (small-cwnd: 3 segments outstanding, 2 of them SACKed; more data
 * followed).  Without the SACK nothing shows a loss: new data after a
 * pause, resource-constraint. */
static void test_unseen_copy_fills_reported_hole(void)
{
    for (int sacked = 0; sacked < 2; sacked++) {
        tb b;
        start(&b, 5000000);
        request(&b, 0.1001);
        client_ack(&b, 0.25, SEG(4));
        uint32_t report = sacked ? tb_sack(&b, CLIENT, 0.26, SEG(4), 1 + REQ, WIN, SEG(5), SEG(7))
                                 : client_ack(&b, 0.26, SEG(4));
        uint32_t fill = client_ack(&b, 1.3, SEG(7));
        client_ack(&b, 1.31, SEG(9));
        tapo_verdict v = tb_verdict(&b, fill, true);
        g_assert_cmpint(v.cause, ==, sacked ? TAPO_CAUSE_SMALL_CWND : TAPO_CAUSE_RESOURCE_CONSTRAINT);
        g_assert_cmpint(v.retransmission, ==, sacked);
        g_assert_cmpuint(v.view->snap.cur.loss_signal_frame, ==, sacked ? report : 0);
        tb_free(&b);
    }
}

/* A response answered and acknowledged, then, 1.2 s later, the client's
 * ACK of one more sequence number the capture never saw: the server's FIN
 * (a FIN occupies one), the server closing an idle connection
 * (client-idle), not its application pausing mid-response.  Two unseen
 * bytes are data: resource-constraint. */
static void test_unseen_fin(void)
{
    for (uint32_t unseen = 1; unseen <= 2; unseen++) {
        tb b;
        start(&b, 5000000);
        request(&b, 0.1001);
        server_last(&b, 0.2, 0, SHORT);
        client_ack(&b, 0.3, SEG(0) + SHORT);
        uint32_t ack = client_ack(&b, 1.5, SEG(0) + SHORT + unseen);
        assert_both(&b, ack, unseen == 1 ? TAPO_CAUSE_CLIENT_IDLE : TAPO_CAUSE_RESOURCE_CONSTRAINT);
        tb_free(&b);
    }
}

/* Without SACK, 7 duplicate ACKs arrive but the sender (dupthres raised,
 * e.g. by tcp_reordering) waits for its RTO: large-dupthres. */
static void test_large_dupthres_without_sack(void)
{
    tb b;
    start(&b, 5000000);
    request(&b, 0.1001);
    for (int i = 0; i < 10; i++)
        server_seg_more(&b, 0.101 + i * 0.0001, i);
    client_ack(&b, 0.2, SEG(2));                       /* segment 2 lost */
    for (int i = 0; i < 7; i++)
        client_ack(&b, 0.2001 + i * 0.0001, SEG(2));
    uint32_t rto = server_seg_more(&b, 0.5, 2);
    client_ack(&b, 0.6, SEG(10));

    assert_both(&b, rto, TAPO_CAUSE_LARGE_DUPTHRES);
    g_assert_cmpuint(tb_record(&b, rto)->snap.loss_signals, ==, 7);
    tb_free(&b);
}

/* Two segments out, the first lost, more data queued: too few segments in
 * flight for fast retransmit: small-cwnd, or small-rwnd with a 2-MSS window. */
static void run_small_window(uint32_t client_window, tapo_cause expected)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tb_handshake(&b, 0.0, 0.1, client_window, WIN);
    request(&b, 0.1001);
    server_seg_more(&b, 0.101, 0);                     /* lost */
    server_seg_more(&b, 0.1011, 1);
    tb_packet(&b, CLIENT, 0.2, 1 + REQ, SEG(0), 0, TAPO_TCP_ACK, client_window, 2,
              (uint32_t[]){ SEG(1), SEG(2), 0, 0 });
    uint32_t rto = server_seg_more(&b, 0.5, 0);
    tb_ack(&b, CLIENT, 0.6, SEG(2), 1 + REQ, client_window);
    server_seg_more(&b, 0.6001, 2);                    /* the response goes on */
    tb_ack(&b, CLIENT, 0.7, SEG(3), 1 + REQ, client_window);

    assert_both(&b, rto, expected);
    tb_free(&b);
}

static void test_small_cwnd(void)
{
    run_small_window(WIN, TAPO_CAUSE_SMALL_CWND);
}

static void test_small_rwnd(void)
{
    run_small_window(2 * MSS, TAPO_CAUSE_SMALL_RWND);
}

/* The client's request goes unanswered and it gives up: no rule applies. */
static void test_unanswered_request(void)
{
    tb b;
    start(&b, 5000000);
    request(&b, 0.1001);
    tb_ack(&b, SERVER, 0.14, 1 + REQ, 1, WIN);
    uint32_t give_up = tb_packet(&b, CLIENT, 5.0, 1 + REQ, 1, 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN, 0, NULL);
    assert_both(&b, give_up, TAPO_CAUSE_UNDETERMINED);
    g_assert_cmpint(tb_verdict(&b, give_up, true).category, ==, TAPO_CATEGORY_UNKNOWN);
    tb_free(&b);
}

/* A capture clock of 1/64 s ticks (15.6 ms: old Windows captures), at the
 * server: most of the server's data is acknowledged within the tick it was
 * sent in (a round trip of zero on this clock), two responses by the
 * client's delayed-ACK timer (13 ticks).  The zeros are round trips shorter
 * than the tick: counted as half the tick, they pull SRTT back down after
 * the delayed ACKs, so five ticks of think time are a stall and one tick is
 * none.  Dropped, they would leave SRTT at 54 ms (no stall); taken as
 * zero, they would shrink the threshold to the 10 ms minimum (one tick a
 * stall). */
#define TICK 0.015625
static void test_coarse_clock_zero_rtt(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tb_packet(&b, CLIENT, 0.0, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
    tb_packet(&b, SERVER, 0.0, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, WIN, 0, NULL);
    tb_packet(&b, CLIENT, TICK, 1, 1, 0, TAPO_TCP_ACK, WIN, 0, NULL);
    uint32_t c = 1, s = 1;   /* each side's next relative sequence number */
    for (int i = 1; i <= 2; i++) {
        tb_data(&b, CLIENT, i, c, REQ, s);
        c += REQ;
        tb_data(&b, SERVER, i, s, REQ, c);
        s += REQ;
        tb_ack(&b, CLIENT, i + 13 * TICK, s, c, WIN);
    }
    for (int i = 0; i < 30; i++) {   /* request, answer, the next request: one tick */
        tb_data(&b, CLIENT, 3.0, c, REQ, s);
        c += REQ;
        tb_data(&b, SERVER, 3.0, s, REQ, c);
        s += REQ;
    }
    tb_data(&b, CLIENT, 3.0 + TICK, c, REQ, s);
    c += REQ;
    uint32_t think = tb_data(&b, SERVER, 3.0 + 6 * TICK, s, REQ, c);
    s += REQ;
    tb_data(&b, CLIENT, 3.0 + 7 * TICK, c, REQ, s);
    c += REQ;
    uint32_t one_tick = tb_data(&b, SERVER, 3.0 + 8 * TICK, s, REQ, c);
    assert_both(&b, think, TAPO_CAUSE_DATA_UNAVAILABLE);
    g_assert_false(tb_is_stall(&b, one_tick));
    tb_free(&b);
}
#undef TICK

/* A lost SYN: the client resends it after the initial RTO of 1 s.  The
 * stall is the client's (its timer, its SYN; the server sent nothing), so
 * the client is the analysed sender, and the vantage is relative to it. */
static void test_syn_retransmission(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tb_packet(&b, CLIENT, 0.0, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
    uint32_t again = tb_packet(&b, CLIENT, 1.02, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
    tb_packet(&b, SERVER, 1.0202, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, WIN, 0, NULL);
    assert_both(&b, again, TAPO_CAUSE_RETRANS_UNDETERMINED);
    g_assert_true(tb_record(&b, again)->snap.cur.handshake_retransmission);
    g_assert_cmpint(tb_verdict(&b, again, true).sender, ==, CLIENT);
    g_assert_cmpint(tb_verdict(&b, again, true).sender_basis, ==, TAPO_BASIS_DIRECTION);
    tb_free(&b);
}

/* A frame captured twice is neither a retransmission nor a duplicate ACK. */
static void test_capture_duplicates_ignored(void)
{
    tb b;
    start(&b, 5000000);
    request(&b, 0.1001);
    server_seg(&b, 0.101, 0);
    server_seg(&b, 0.101002, 0);                       /* the same frame, 2 us later */
    server_last(&b, 0.1011, 1, SHORT);                  /* lost */
    client_ack(&b, 0.2, SEG(1));
    client_ack(&b, 0.200003, SEG(1));                   /* captured twice too */
    uint32_t rto = server_last(&b, 0.5, 1, SHORT);
    client_ack(&b, 0.6, SEG(1) + SHORT);
    tb_packet(&b, CLIENT, 0.61, 1 + REQ, SEG(1) + SHORT, 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN, 0, NULL);
    assert_both(&b, rto, TAPO_CAUSE_TAIL);
    g_assert_cmpuint(tb_record(&b, rto)->snap.cur.retrans_count, ==, 1);
    g_assert_cmpint(tb_record(&b, rto)->snap.ca_state, ==, TAPO_CA_OPEN);
    tb_free(&b);
}

/* With IPv4 IDs, a copy 5 ms later with the same ID is the same frame (a
 * router seen twice); a resend with a new ID is a retransmission. */
static void test_capture_duplicates_by_ip_id(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    b.use_ip_id = true;
    tb_handshake(&b, 0.0, 0.1, WIN, WIN);
    request(&b, 0.1001);
    server_seg(&b, 0.101, 0);
    tb_repeat_last(&b, 0.106);                          /* same ID, 5 ms later */
    client_ack(&b, 0.2, SEG(1));
    tb_repeat_last(&b, 0.2003);
    server_seg(&b, 0.2005, 1);                          /* lost */
    client_ack(&b, 0.2006, SEG(1));                     /* a duplicate ACK */
    tb_repeat_last(&b, 0.2009);                         /* the same frame again: not another */
    client_ack(&b, 0.201, SEG(1));                      /* new ID: a second duplicate ACK */
    g_assert_cmpuint(b.conv.ep[SERVER].tx.dupacks, ==, 2);
    uint32_t rto = server_seg(&b, 0.6, 1);
    uint32_t copy = tb_repeat_last(&b, 0.6001);
    g_assert_false(tb_is_stall(&b, copy));
    g_assert_cmpuint(tb_record(&b, rto)->snap.cur.retrans_count, ==, 1);
    uint32_t again = server_seg(&b, 1.3, 1);            /* new ID: retransmitted again */
    g_assert_cmpuint(tb_record(&b, again)->snap.cur.retrans_count, ==, 2);
    tb_free(&b);
}

/* The server answers a SYN 1.2 s late: the client's first request was
 * pending (data-unavailable, not client-idle). */
static void test_late_syn_ack(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tb_packet(&b, CLIENT, 0.0, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
    uint32_t late = tb_packet(&b, SERVER, 1.2, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, WIN, 0, NULL);
    tb_packet(&b, CLIENT, 1.3, 1, 1, 0, TAPO_TCP_ACK, WIN, 0, NULL);
    assert_both(&b, late, TAPO_CAUSE_DATA_UNAVAILABLE);
    tb_free(&b);
}

/* Timestamps that go backwards: the gap and prev_frame refer to the latest
 * packet, so that duration = time(frame) - time(prev_frame). */
static void test_time_going_backwards(void)
{
    tb b;
    start(&b, 5000000);
    uint32_t latest = tb_data(&b, CLIENT, 0.5, 1, REQ, 1);
    tb_ack(&b, SERVER, 0.45, 1 + REQ, 1, WIN);        /* stamped earlier */
    uint32_t resp = server_seg(&b, 1.0, 0);
    const tapo_stall_view *rec = tb_record(&b, resp);
    g_assert_cmpuint(rec->facts_final.prev_frame, ==, latest);
    g_assert_cmpfloat_with_epsilon(rec->facts_final.duration_s, 0.5, 1e-9);
    tb_free(&b);
}

/* A capture that starts mid-connection: no handshake, so the heavier
 * sender is analysed, there is no RTT sample at first (threshold 1 s) and
 * the window scale is unknown (a small raw window proves nothing). */
static void test_mid_connection(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    b.scale_known = false;
    tb_packet(&b, CLIENT, 0.0, 1, 1, 0, TAPO_TCP_ACK, 200, 0, NULL);
    tb_packet(&b, SERVER, 0.05, 1, 1, MSS, TAPO_TCP_ACK, 200, 0, NULL);
    tb_packet(&b, CLIENT, 0.15, 1, 1 + MSS, 0, TAPO_TCP_ACK, 200, 0, NULL);
    tapo_basis basis;
    tapo_conv_summary sum = tb_summary(&b);
    g_assert_cmpint(tapo_conv_sender(&sum, &b.cfg, NULL, &basis), ==, SERVER);
    uint32_t pause = tb_packet(&b, SERVER, 1.0, 1 + MSS, 1, MSS, TAPO_TCP_ACK, 200, 0, NULL);
    assert_both(&b, pause, TAPO_CAUSE_RESOURCE_CONSTRAINT);
    g_assert_true(tb_record(&b, pause)->snap.rwnd_seen);
    g_assert_false(tb_record(&b, pause)->snap.rwnd_scale_known);
    tb_free(&b);
}

/* Without SACK and without the handshake: duplicate ACKs for data sent
 * before the capture began still count as loss signals at the stall, as
 * they do for the retransmission's trigger. */
static void test_mid_connection_dupacks(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tb_ack(&b, CLIENT, 0.0, SEG(2), 1, WIN);            /* segment 2, sent before, is missing */
    tb_packet(&b, SERVER, 0.001, SEG(9), 1, MSS, TAPO_TCP_ACK, WIN, 0, NULL);
    for (int i = 0; i < 4; i++)
        tb_ack(&b, CLIENT, 0.05 + i * 0.0001, SEG(2), 1, WIN);
    uint32_t rto = server_seg_more(&b, 1.2, 2);
    const tapo_stall_view *rec = tb_record(&b, rto);
    g_assert_cmpuint(rec->snap.loss_signals, ==, 4);
    g_assert_false(rec->facts_at_packet.outstanding_all_lost);
    g_assert_cmpint(rec->snap.cur.trigger, ==, TAPO_TRIGGER_TIMEOUT);
    tapo_verdict v = tb_verdict(&b, rto, false);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_LARGE_DUPTHRES);
    tb_free(&b);
}

/* The sender preference: initiator, or a server port. */
static bool port_is_80(uint16_t port, void *data)
{
    (void)data;
    return port == 80;
}

static int sender_of(tb *b, tapo_basis *basis)
{
    tapo_conv_summary sum = tb_summary(b);
    return tapo_conv_sender(&sum, &b->cfg, NULL, basis);
}

static bool looks_reversed(tb *b, int sender)
{
    tapo_conv_summary sum = tb_summary(b);
    return tapo_conv_sender_looks_reversed(&sum, sender, &b->cfg);
}

static void test_sender_preference(void)
{
    tb b;
    tapo_basis basis;
    start(&b, 5000000);
    g_assert_cmpint(sender_of(&b, &basis), ==, SERVER);
    g_assert_cmpint(basis, ==, TAPO_BASIS_HANDSHAKE);
    b.cfg.sender_mode = TAPO_SENDER_INITIATOR;
    g_assert_cmpint(sender_of(&b, &basis), ==, CLIENT);
    g_assert_cmpint(basis, ==, TAPO_BASIS_PREFERENCE);
    g_assert_false(looks_reversed(&b, SERVER));
    /* An upload: the client sends 100 KB, the server almost nothing. */
    for (int i = 0; i < 70; i++)
        tb_data(&b, CLIENT, 0.2 + i * 0.001, 1 + (uint32_t)i * MSS, MSS, 1);
    b.cfg.sender_mode = TAPO_SENDER_RESPONDER;
    g_assert_true(looks_reversed(&b, SERVER));
    g_assert_false(looks_reversed(&b, CLIENT));
    b.cfg.sender_mode = TAPO_SENDER_PORTS;
    b.cfg.is_server_port = port_is_80;
    g_assert_cmpint(sender_of(&b, &basis), ==, SERVER);
    /* Automatic: the upload's data sender, and no warning. */
    b.cfg.sender_mode = TAPO_SENDER_AUTO;
    g_assert_cmpint(sender_of(&b, &basis), ==, CLIENT);
    g_assert_cmpint(basis, ==, TAPO_BASIS_DATA);
    g_assert_false(looks_reversed(&b, SERVER));
    tb_free(&b);
}

/* Without a handshake the server its port names stands in for the
 * responder: the client (a little more data: requests) is the sender only
 * once it sent more, and at least 4 KB (an upload).  With no port rule,
 * the heavier sender. */
static void test_port_stands_in_for_handshake(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tapo_basis basis;
    tapo_conv_summary sum = { .payload_bytes = { 464, 390 }, .port = { 55684, 443 } };
    g_assert_cmpint(tapo_conv_sender(&sum, &b.cfg, NULL, &basis), ==, 1);
    sum.payload_bytes[0] = 10000;
    g_assert_cmpint(tapo_conv_sender(&sum, &b.cfg, NULL, &basis), ==, 0);
    g_assert_cmpint(basis, ==, TAPO_BASIS_DATA);
    sum = (tapo_conv_summary){ .payload_bytes = { 464, 390 }, .port = { 40000, 50000 } };
    g_assert_cmpint(tapo_conv_sender(&sum, &b.cfg, NULL, &basis), ==, 0);
    tb_free(&b);
}

/* tau is a preference: with tau = 3 a 0.25 s gap is no stall any more
 * (threshold min(0.2994, 0.2998)). */
static void test_tau_preference(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    b.cfg.tau = 3.0;
    tb_handshake(&b, 0.0, 0.1, WIN, WIN);
    request(&b, 0.1001);
    for (int i = 0; i < 4; i++)
        server_seg(&b, 0.101 + i * 0.0001, i);
    uint32_t late = client_ack(&b, 0.3513, SEG(4));
    g_assert_false(tb_is_stall(&b, late));
    tb_free(&b);
}

/* RFC 2883's second DSACK form: the first block inside the second, above
 * the cumulative ACK. */
static void test_dsack_above_ack(void)
{
    tb b;
    start(&b, 5000000);
    request(&b, 0.1001);
    for (int i = 0; i < 6; i++)
        server_seg_more(&b, 0.101 + i * 0.0001, i);
    tb_sack(&b, CLIENT, 0.2, SEG(0), 1 + REQ, WIN, SEG(2), SEG(4));
    uint32_t rto = server_seg_more(&b, 0.5, 3);          /* resends an already SACKed segment */
    uint32_t blocks[4] = { SEG(3), SEG(4), SEG(2), SEG(6) };
    tb_packet(&b, CLIENT, 0.6, 1 + REQ, SEG(0), 0, TAPO_TCP_ACK, WIN, 2, blocks);
    tapo_verdict v = tb_verdict(&b, rto, true);
    g_assert_true(v.spurious);
    tb_free(&b);
}

/* Many packets and no ACKs (one direction of asymmetric routing): the
 * state stays bounded; a reset frees it. */
static void test_state_bounded(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tb_handshake(&b, 0.0, 0.1, WIN, WIN);
    tapo_packet p = { 0 };
    GPtrArray *records = g_ptr_array_new_with_free_func(g_free);
    for (uint32_t i = 0; i < 3 * TAPO_SB_MAX_SEGMENTS; i++) {
        p.frame = 100 + i;
        p.time_s = 1.0 + i * (i % 97 == 0 ? 0.5 : 0.0001);
        p.from = SERVER;
        p.header_valid = true;
        p.seq_raw = 5000000 + 1 + i * MSS;
        p.ack_raw = 1001;
        p.payload_len = MSS;
        p.flags = TAPO_TCP_ACK;
        p.window = WIN;
        p.window_scale_known = true;
        tapo_stall_record *rec = tapo_conv_process(&b.conv, &p, &b.cfg, &tapo_heap_records);
        if (rec)
            g_ptr_array_add(records, rec);
        g_assert_cmpuint(tapo_sb_size(&b.conv.ep[SERVER].tx.sb), <=, TAPO_SB_MAX_SEGMENTS + 1);
        g_assert_cmpuint(tapo_hs_open_count(&b.conv.ep[SERVER].tx.hs), <=, TAPO_HINDSIGHT_MAX_OPEN);
    }
    tb_packet(&b, CLIENT, 1e4, 1, 1, 0, TAPO_TCP_RST, 0, 0, NULL);
    g_assert_cmpuint(tapo_sb_size(&b.conv.ep[SERVER].tx.sb), ==, 0);
    g_assert_cmpuint(tapo_hs_open_count(&b.conv.ep[SERVER].tx.hs), ==, 0);
    g_assert_cmpuint(records->len, >, TAPO_HINDSIGHT_MAX_OPEN);
    tb_free(&b);
    g_ptr_array_free(records, TRUE);
}

/* Truncated headers carry no state but still count for gaps. */
static void test_unreadable_header(void)
{
    tb b;
    start(&b, 5000000);
    tapo_packet p = { .frame = 4, .time_s = 2.0, .from = CLIENT, .header_valid = false };
    tapo_stall_record *rec = tapo_conv_process(&b.conv, &p, &b.cfg, &tapo_heap_records);
    g_assert_nonnull(rec);
    b.records[4] = rec;
    b.frame = 4;
    assert_both(&b, 4, TAPO_CAUSE_CLIENT_IDLE);
    tb_free(&b);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/conversation/application-stalls", test_application_stalls);
    g_test_add_func("/conversation/tail", test_tail);
    g_test_add_func("/conversation/silence-is-no-rtt-sample", test_silence_is_no_rtt_sample);
    g_test_add_func("/conversation/silence-past-the-minimum-rto", test_silence_past_the_minimum_rto);
    g_test_add_func("/conversation/own-packet-after-silence", test_own_packet_after_silence);
    g_test_add_func("/conversation/own-packet-after-silence-away", test_own_packet_after_silence_away);
    g_test_add_func("/conversation/answer-to-an-unseen-request", test_answer_to_an_unseen_request);
    g_test_add_func("/conversation/capture-hole-both-ways", test_capture_hole_both_ways);
    g_test_add_func("/conversation/dsack-of-unseen-response", test_dsack_of_unseen_response);
    g_test_add_func("/conversation/unseen-copy-fills-reported-hole", test_unseen_copy_fills_reported_hole);
    g_test_add_func("/conversation/unseen-fin", test_unseen_fin);
    g_test_add_func("/conversation/tail-across-wrap", test_tail_across_wrap);
    g_test_add_func("/conversation/t-double", test_t_double);
    g_test_add_func("/conversation/tail-loss-probe", test_tail_loss_probe);
    g_test_add_func("/conversation/full-last-segment", test_full_last_segment_needs_hindsight);
    g_test_add_func("/conversation/f-double", test_f_double);
    g_test_add_func("/conversation/f-double-across-wrap", test_f_double_across_wrap);
    g_test_add_func("/conversation/tail-in-recovery", test_tail_in_recovery);
    g_test_add_func("/conversation/ack-delay-hindsight", test_ack_delay_needs_hindsight);
    g_test_add_func("/conversation/continuous-loss", test_continuous_loss);
    g_test_add_func("/conversation/zero-window", test_zero_window);
    g_test_add_func("/conversation/packet-delay", test_packet_delay);
    g_test_add_func("/conversation/large-dupthres", test_large_dupthres_without_sack);
    g_test_add_func("/conversation/small-cwnd", test_small_cwnd);
    g_test_add_func("/conversation/small-rwnd", test_small_rwnd);
    g_test_add_func("/conversation/unanswered-request", test_unanswered_request);
    g_test_add_func("/conversation/syn-retransmission", test_syn_retransmission);
    g_test_add_func("/conversation/coarse-clock-zero-rtt", test_coarse_clock_zero_rtt);
    g_test_add_func("/conversation/capture-duplicates", test_capture_duplicates_ignored);
    g_test_add_func("/conversation/capture-duplicates-ip-id", test_capture_duplicates_by_ip_id);
    g_test_add_func("/conversation/late-syn-ack", test_late_syn_ack);
    g_test_add_func("/conversation/time-going-backwards", test_time_going_backwards);
    g_test_add_func("/conversation/mid-connection", test_mid_connection);
    g_test_add_func("/conversation/mid-connection-dupacks", test_mid_connection_dupacks);
    g_test_add_func("/conversation/sender-preference", test_sender_preference);
    g_test_add_func("/conversation/port-stands-in-for-handshake", test_port_stands_in_for_handshake);
    g_test_add_func("/conversation/tau-preference", test_tau_preference);
    g_test_add_func("/conversation/dsack-above-ack", test_dsack_above_ack);
    g_test_add_func("/conversation/state-bounded", test_state_bounded);
    g_test_add_func("/conversation/settled-record", test_settled_record);
    g_test_add_func("/conversation/close-inside-chain", test_close_inside_chain);
    g_test_add_func("/conversation/copy-of-an-unseen-request", test_copy_of_an_unseen_request_is_a_request);
    g_test_add_func("/conversation/unreadable-header", test_unreadable_header);
    return g_test_run();
}
