/* test_evidence.c: the frames each stall links as its evidence (spec
 * section 5) and the decision line, on hand-written exchanges captured at
 * the server whose frames are known by construction.
 *
 * Client ISN 1000, server ISN 5000000, MSS 1460, windows 65535, RTT 100 ms.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <string.h>

#include "verdict/classifier.h"
#include "packet_builder.h"

#define MSS TB_MSS
#define SEG(i) (1 + (uint32_t)(i) * MSS)
#define WIN 65535
#define REQ 100

static void start(tb *b)
{
    tb_init(b, 1000, 5000000);
    tb_handshake(b, 0.0, 0.1, WIN, WIN);
    tb_data(b, CLIENT, 0.1001, 1, REQ, 1);
}

/* Server segment i; more data follows (no PSH). */
static uint32_t seg(tb *b, double t, int i)
{
    return tb_packet(b, SERVER, t, SEG(i), 1 + REQ, MSS, TAPO_TCP_ACK, WIN, 0, NULL);
}

static uint32_t sack(tb *b, double t, int hole, int top)
{
    return tb_sack(b, CLIENT, t, SEG(hole), 1 + REQ, WIN, SEG(hole + 1), SEG(top + 1));
}

static const tapo_cur *cur_of(tb *b, uint32_t frame)
{
    return &tb_record(b, frame)->snap.cur;
}

/* Segment 1 of 8 is lost; three SACKs release its fast retransmission,
 * lost too; the RTO resends it: f-double.  The links are the original, the
 * fast retransmission and the first SACK. */
static void test_f_double_links(void)
{
    tb b;
    start(&b);
    seg(&b, 0.101, 0);
    uint32_t original = seg(&b, 0.1011, 1);
    for (int i = 2; i < 8; i++)
        seg(&b, 0.101 + i * 0.0001, i);
    uint32_t first_sack = sack(&b, 0.2, 1, 2);
    sack(&b, 0.2001, 1, 3);
    sack(&b, 0.2002, 1, 4);
    uint32_t fast = seg(&b, 0.2003, 1);
    for (int top = 5; top < 8; top++)
        sack(&b, 0.2004 + top * 0.0001, 1, top);
    uint32_t rto = seg(&b, 0.55, 1);
    tb_ack(&b, CLIENT, 0.65, SEG(8), 1 + REQ, WIN);

    tapo_verdict v = tb_verdict(&b, rto, true);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_F_DOUBLE);
    g_assert_cmpuint(cur_of(&b, rto)->orig_frame, ==, original);
    g_assert_cmpuint(cur_of(&b, rto)->first_retx_frame, ==, fast);
    g_assert_cmpuint(cur_of(&b, rto)->loss_signal_frame, ==, first_sack);
    g_assert_cmpuint(v.facts->dsack_frame, ==, 0);
    tb_free(&b);
}

/* The last segment is lost, resent by the RTO, lost again, resent by the
 * backed-off RTO: t-double, linking the first RTO's copy; nothing
 * signalled the loss. */
static void test_t_double_links(void)
{
    tb b;
    start(&b);
    seg(&b, 0.101, 0);
    uint32_t original = tb_data(&b, SERVER, 0.1011, SEG(1), 700, 1 + REQ);
    tb_ack(&b, CLIENT, 0.2, SEG(1), 1 + REQ, WIN);
    uint32_t first = tb_data(&b, SERVER, 0.5, SEG(1), 700, 1 + REQ);
    uint32_t second = tb_data(&b, SERVER, 1.1, SEG(1), 700, 1 + REQ);
    tb_ack(&b, CLIENT, 1.2, SEG(1) + 700, 1 + REQ, WIN);

    g_assert_cmpint(tb_verdict(&b, second, true).cause, ==, TAPO_CAUSE_T_DOUBLE);
    g_assert_cmpuint(cur_of(&b, second)->orig_frame, ==, original);
    g_assert_cmpuint(cur_of(&b, second)->first_retx_frame, ==, first);
    g_assert_cmpuint(cur_of(&b, second)->loss_signal_frame, ==, 0);
    tb_free(&b);
}

/* Six segments arrive, their ACKs are late, the RTO resends the head and
 * a DSACK reports the copy: two passes link the DSACK, one pass cannot. */
static void test_ack_delay_links_the_dsack(void)
{
    tb b;
    start(&b);
    for (int i = 0; i < 6; i++)
        seg(&b, 0.101 + i * 0.0001, i);
    uint32_t rto = seg(&b, 0.45, 0);
    tb_ack(&b, CLIENT, 1.2, SEG(6), 1 + REQ, WIN);
    uint32_t dsack = tb_sack(&b, CLIENT, 1.25, SEG(6), 1 + REQ, WIN, SEG(0), SEG(1));

    tapo_verdict final = tb_verdict(&b, rto, true);
    g_assert_cmpint(final.cause, ==, TAPO_CAUSE_ACK_DELAY);
    g_assert_cmpuint(final.facts->dsack_frame, ==, dsack);
    g_assert_cmpuint(tb_verdict(&b, rto, false).facts->dsack_frame, ==, 0);
    tb_free(&b);
}

/* The client closes its window, the server probes, the window opens: the
 * closing ACK and the update are linked; a stall the update itself ends
 * knows it in one pass too. */
static void test_zero_window_links(void)
{
    tb b;
    start(&b);
    for (int i = 0; i < 4; i++)
        seg(&b, 0.101 + i * 0.0001, i);
    uint32_t closed = tb_ack(&b, CLIENT, 0.2, SEG(4), 1 + REQ, 0);
    uint32_t probe = tb_packet(&b, SERVER, 0.7, SEG(4) - 1, 1 + REQ, 0, TAPO_TCP_ACK, WIN, 0, NULL);
    tb_ack(&b, CLIENT, 0.7999, SEG(4), 1 + REQ, 0);
    uint32_t update = tb_ack(&b, CLIENT, 3.2, SEG(4), 1 + REQ, WIN);
    seg(&b, 3.2001, 4);
    tb_ack(&b, CLIENT, 3.3, SEG(5), 1 + REQ, WIN);

    g_assert_cmpint(tb_verdict(&b, probe, true).cause, ==, TAPO_CAUSE_ZERO_WINDOW);
    g_assert_cmpuint(tb_record(&b, probe)->snap.window_closed_frame, ==, closed);
    g_assert_cmpuint(tb_verdict(&b, probe, true).facts->window_open_frame, ==, update);
    g_assert_cmpuint(tb_verdict(&b, probe, false).facts->window_open_frame, ==, 0);
    g_assert_cmpuint(tb_record(&b, update)->snap.window_closed_frame, ==, closed);
    g_assert_cmpuint(tb_verdict(&b, update, false).facts->window_open_frame, ==, update);
    tb_free(&b);
}

/* The decision line names the rule and the values it compared. */
static void test_decision_line(void)
{
    tapo_config cfg;
    tapo_config_init_defaults(&cfg);
    tapo_snapshot s;
    tapo_facts f;
    memset(&s, 0, sizeof s);
    memset(&f, 0, sizeof f);
    s.packets_out = 2;
    s.dupthres = 3;
    s.mss = 1448;
    s.rwnd = 65535;
    s.rwnd_seen = s.rwnd_scale_known = true;
    s.cur.dir = TAPO_DIR_OUT;
    s.cur.retransmission = true;
    s.cur.retrans_count = 1;
    s.cur.segs_sent_after = 5;
    f.had_more_data = true;
    char line[TAPO_RULE_LINE_MAX];
    tapo_classify_explain(&s, &f, &cfg, line);
    g_assert_cmpstr(line, ==, "1.3 small-cwnd: retransmission by the sender; in_flight 2 < 4 segments; "
                              "rwnd 65535 >= 4 MSS (5792 bytes)");
    s.rwnd = 4000;
    tapo_classify_explain(&s, &f, &cfg, line);
    g_assert_true(g_str_has_prefix(line, "1.3 small-rwnd: "));
    g_assert_nonnull(strstr(line, "rwnd 4000 < 4 MSS (5792 bytes)"));
    s.cur.retransmission = false;
    tapo_classify_explain(&s, &f, &cfg, line);
    g_assert_cmpstr(line, ==, "6 packet-delay: packets_out 2 > 0; no retransmission");
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/evidence/f-double", test_f_double_links);
    g_test_add_func("/evidence/t-double", test_t_double_links);
    g_test_add_func("/evidence/ack-delay-dsack", test_ack_delay_links_the_dsack);
    g_test_add_func("/evidence/zero-window", test_zero_window_links);
    g_test_add_func("/evidence/decision-line", test_decision_line);
    return g_test_run();
}
