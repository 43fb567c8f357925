/* test_classifier.c: every rule of the decision tree (spec section 4), and
 * its precedence, on hand-made snapshots.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>
#include <string.h>

#include "verdict/classifier.h"

static tapo_config cfg;

/* A sender in Open state, 10 segments in flight, a big window, and a
 * timeout retransmission of the head with 9 segments above it. */
static void base(tapo_snapshot *s, tapo_facts *f)
{
    memset(s, 0, sizeof *s);
    memset(f, 0, sizeof *f);
    s->ca_state = TAPO_CA_OPEN;
    s->packets_out = 10;
    s->dupthres = 3;
    s->mss = 1448;
    s->rwnd = 65535 * 4;
    s->init_rwnd = 65535;
    s->rwnd_seen = true;
    s->rwnd_scale_known = true;
    s->cur.dir = TAPO_DIR_OUT;
    s->cur.payload = true;
    s->cur.retransmission = true;
    s->cur.retrans_count = 1;
    s->cur.first_retrans = TAPO_TRIGGER_TIMEOUT;
    s->cur.trigger = TAPO_TRIGGER_TIMEOUT;
    s->cur.segs_sent_after = 9;
    f->had_more_data = true;
}

static tapo_cause cause_of(const tapo_snapshot *s, const tapo_facts *f)
{
    return tapo_classify(s, f, &cfg).cause;
}

/* A snapshot where nothing is outstanding and cur is not a retransmission. */
static void idle_base(tapo_snapshot *s, tapo_facts *f)
{
    base(s, f);
    s->packets_out = 0;
    s->cur.retransmission = false;
    s->cur.retrans_count = 0;
    s->cur.first_retrans = TAPO_TRIGGER_NONE;
    s->cur.trigger = TAPO_TRIGGER_NONE;
    s->cur.segs_sent_after = 0;
    s->sent_payload = true;
    f->had_more_data = false;
}

static void test_f_double(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    s.cur.retrans_count = 2;
    s.cur.first_retrans = TAPO_TRIGGER_FAST;
    s.ca_state = TAPO_CA_RECOVERY;
    tapo_verdict v = tapo_classify(&s, &f, &cfg);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_F_DOUBLE);
    g_assert_true(v.retransmission);
    g_assert_cmpint(v.category, ==, TAPO_CATEGORY_NETWORK);
}

static void test_t_double_after_timeout_and_probe(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    s.cur.retrans_count = 3;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_T_DOUBLE);
    s.cur.first_retrans = TAPO_TRIGGER_PROBE;   /* a tail-loss probe is timer-driven */
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_T_DOUBLE);
}

/* Double beats every later rule, tail included. */
static void test_double_precedes_tail(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    s.cur.retrans_count = 2;
    s.cur.segs_sent_after = 0;
    f.had_more_data = false;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_T_DOUBLE);
}

static void test_tail(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    s.packets_out = 2;
    s.cur.segs_sent_after = 1;
    f.had_more_data = false;
    tapo_verdict v = tapo_classify(&s, &f, &cfg);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_TAIL);
    g_assert_cmpint(v.file_pos, ==, TAPO_FILE_POS_TAIL);
    /* Exactly dupthres segments after it: not a tail any more. */
    s.cur.segs_sent_after = 3;
    g_assert_cmpint(cause_of(&s, &f), !=, TAPO_CAUSE_TAIL);
}

/* A raised dupthres widens the tail. */
static void test_tail_uses_dupthres(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    s.cur.segs_sent_after = 5;
    f.had_more_data = false;
    g_assert_cmpint(cause_of(&s, &f), !=, TAPO_CAUSE_TAIL);
    s.dupthres = 6;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_TAIL);
}

/* More data to send means the sender was window-limited: no tail. */
static void test_tail_needs_no_more_data(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    s.packets_out = 2;
    s.cur.segs_sent_after = 1;
    f.had_more_data = true;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_SMALL_CWND);
}

static void test_small_cwnd_and_rwnd(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    s.packets_out = 3;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_SMALL_CWND);
    s.rwnd = 4 * s.mss - 1;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_SMALL_RWND);
    s.rwnd = 4 * s.mss;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_SMALL_CWND);
}

/* in_flight is equation 1: SACKed and lost segments are not in flight. */
static void test_in_flight_equation(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    s.packets_out = 8;
    s.sacked_out = 3;
    s.retrans_out = 2;
    f.lost_out = 2;
    g_assert_cmpuint(tapo_in_flight(&s, f.lost_out), ==, 5);
    g_assert_cmpint(cause_of(&s, &f), !=, TAPO_CAUSE_SMALL_CWND);
    s.sacked_out = 5;      /* 8 + 2 - (5 + 2) = 3 */
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_SMALL_CWND);
    /* Hindsight: a DSACK showed one retransmission was not lost: 4 in flight. */
    f.lost_out = 1;
    g_assert_cmpint(cause_of(&s, &f), !=, TAPO_CAUSE_SMALL_CWND);
    s.packets_out = 1;
    s.sacked_out = 4;
    g_assert_cmpuint(tapo_in_flight(&s, 9), ==, 0);   /* never negative */
}

/* The small-window limit is a preference. */
static void test_small_window_preference(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    s.packets_out = 5;
    g_assert_cmpint(cause_of(&s, &f), !=, TAPO_CAUSE_SMALL_CWND);
    cfg.small_window_segments = 6;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_SMALL_CWND);
    cfg.small_window_segments = 4;
}

/* Without the handshake the window scale is unknown: only a zero window
 * can make the receiver window the limit. */
static void test_small_rwnd_needs_known_scale(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    s.packets_out = 3;
    s.rwnd = 500;
    s.rwnd_scale_known = false;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_SMALL_CWND);
    s.rwnd = 0;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_SMALL_RWND);
    /* Before any window was seen (one direction captured) nothing is known. */
    s.rwnd_seen = false;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_SMALL_CWND);
}

static void test_continuous_loss(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    f.outstanding_all_lost = true;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_CONTINUOUS_LOSS);
    /* A segment SACKed: not every outstanding segment was lost. */
    s.sacked_out = 1;
    g_assert_cmpint(cause_of(&s, &f), !=, TAPO_CAUSE_CONTINUOUS_LOSS);
}

/* Spec rule 1.0: a retransmission the packets prove unnecessary is
 * ack-delay before every loss rule (a double, a tail, a small window, a
 * continuous loss), with its rule number in the decision line.  In the
 * paper's order (rule 1.5) the loss rules come first. */
static void test_ack_delay(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    f.outstanding_all_lost = true;
    f.cur_spurious = true;
    tapo_verdict v = tapo_classify(&s, &f, &cfg);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_ACK_DELAY);
    g_assert_true(v.spurious);
    char line[TAPO_RULE_LINE_MAX];
    tapo_classify_explain(&s, &f, &cfg, line);
    g_assert_true(g_str_has_prefix(line, "1.0 ack-delay: "));
    s.cur.retrans_count = 2;   /* resent before: a double, were it lost */
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_ACK_DELAY);
    s.cur.retrans_count = 1;
    s.cur.segs_sent_after = 0; /* the last segment: a tail, were it lost */
    f.had_more_data = false;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_ACK_DELAY);

    tapo_config paper = cfg;
    paper.rule_order = TAPO_RULE_ORDER_PAPER;
    g_assert_cmpint(tapo_classify(&s, &f, &paper).cause, ==, TAPO_CAUSE_TAIL);
    s.cur.segs_sent_after = 8;
    g_assert_cmpint(tapo_classify(&s, &f, &paper).cause, ==, TAPO_CAUSE_CONTINUOUS_LOSS);
    f.outstanding_all_lost = false;
    g_assert_cmpint(tapo_classify(&s, &f, &paper).cause, ==, TAPO_CAUSE_ACK_DELAY);
    tapo_classify_explain(&s, &f, &paper, line);
    g_assert_true(g_str_has_prefix(line, "1.5 ack-delay: "));
}

/* The sender giving up after unanswered timer copies carries the chain's
 * cause; its decision line says how it gave up: a reset, or a FIN (the
 * application closing while the timer still ran). */
static void test_give_up(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    s.cur.retransmission = false;
    s.cur.gives_up = true;
    s.cur.retrans_count = 2;
    char line[TAPO_RULE_LINE_MAX];
    for (int rst = 0; rst < 2; rst++) {
        s.cur.rst = rst;
        s.cur.fin = !rst;
        g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_T_DOUBLE);
        tapo_classify_explain(&s, &f, &cfg, line);
        g_assert_nonnull(strstr(line, rst ? "reset the connection" : "closed the connection"));
    }
}

static void test_large_dupthres(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    s.loss_signals = 3;
    s.sacked_out = 3;
    s.dupthres = 8;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_LARGE_DUPTHRES);
    /* Without SACK the signals are duplicate ACKs. */
    s.sacked_out = 0;
    s.loss_signals = 5;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_LARGE_DUPTHRES);
    /* A fast retransmission that happened to end a stall waited for nothing. */
    s.cur.trigger = TAPO_TRIGGER_FAST;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_RETRANS_UNDETERMINED);
}

static void test_retransmission_undetermined(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    s.loss_signals = 2;
    tapo_verdict v = tapo_classify(&s, &f, &cfg);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_RETRANS_UNDETERMINED);
    g_assert_cmpstr(tapo_cause_get(v.cause)->name, ==, "undetermined");
    g_assert_cmpint(v.category, ==, TAPO_CATEGORY_NETWORK);
    g_assert_true(v.retransmission);
}

/* A resent SYN, or the receiver resending its data, is a retransmission
 * stall the tree cannot refine. */
static void test_handshake_and_receiver_retransmissions(void)
{
    tapo_snapshot s; tapo_facts f;
    idle_base(&s, &f);
    s.cur.dir = TAPO_DIR_IN;
    s.cur.handshake_retransmission = true;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_RETRANS_UNDETERMINED);
    s.cur.handshake_retransmission = false;
    s.cur.receiver_retransmission = true;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_RETRANS_UNDETERMINED);
}

static void test_zero_window(void)
{
    tapo_snapshot s; tapo_facts f;
    idle_base(&s, &f);
    s.packets_out = 0;
    s.rwnd = 0;
    s.cur.dir = TAPO_DIR_IN;
    s.cur.payload = false;
    f.had_more_data = true;
    tapo_verdict v = tapo_classify(&s, &f, &cfg);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_ZERO_WINDOW);
    g_assert_cmpint(v.category, ==, TAPO_CATEGORY_CLIENT);
    g_assert_false(v.retransmission);
    /* Below one MSS counts as closed; one MSS does not. */
    s.rwnd = s.mss - 1;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_ZERO_WINDOW);
    s.rwnd = s.mss;
    g_assert_cmpint(cause_of(&s, &f), !=, TAPO_CAUSE_ZERO_WINDOW);
    /* With nothing more to send, a closed window stalls nothing. */
    s.rwnd = 0;
    f.had_more_data = false;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_CLIENT_IDLE);
    /* The sender's window probe proves it had data. */
    s.cur.dir = TAPO_DIR_OUT;
    s.cur.window_probe = true;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_ZERO_WINDOW);
}

static void test_data_unavailable(void)
{
    tapo_snapshot s; tapo_facts f;
    idle_base(&s, &f);
    s.request_pending = true;
    s.cur.new_data = true;
    tapo_verdict v = tapo_classify(&s, &f, &cfg);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_DATA_UNAVAILABLE);
    g_assert_cmpint(v.category, ==, TAPO_CATEGORY_SERVER);
    g_assert_cmpint(v.file_pos, ==, TAPO_FILE_POS_HEAD);
    /* A bare ACK from the sender on a pending request, too, when its
     * answer followed (hindsight); one that answered nothing is not. */
    s.cur.payload = false;
    s.cur.new_data = false;
    f.answered = true;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_DATA_UNAVAILABLE);
    f.answered = false;
    g_assert_cmpint(cause_of(&s, &f), !=, TAPO_CAUSE_DATA_UNAVAILABLE);
    /* A server that speaks first: its first payload ever. */
    s.request_pending = false;
    s.sent_payload = false;
    s.cur.payload = true;
    s.cur.new_data = true;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_DATA_UNAVAILABLE);
}

static void test_resource_constraint(void)
{
    tapo_snapshot s; tapo_facts f;
    idle_base(&s, &f);
    s.cur.new_data = true;
    tapo_verdict v = tapo_classify(&s, &f, &cfg);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_RESOURCE_CONSTRAINT);
    g_assert_cmpint(v.category, ==, TAPO_CATEGORY_SERVER);
}

static void test_client_idle(void)
{
    tapo_snapshot s; tapo_facts f;
    idle_base(&s, &f);
    s.cur.dir = TAPO_DIR_IN;            /* a new request */
    tapo_verdict v = tapo_classify(&s, &f, &cfg);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_CLIENT_IDLE);
    g_assert_cmpint(v.category, ==, TAPO_CATEGORY_CLIENT);
    /* The receiver's FIN on an idle connection. */
    s.cur.payload = false;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_CLIENT_IDLE);
    /* The sender closing an idle connection. */
    s.cur.dir = TAPO_DIR_OUT;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_CLIENT_IDLE);
    /* The receiver finishing its request after a pause. */
    s.cur.dir = TAPO_DIR_IN;
    s.cur.payload = true;
    s.request_pending = true;
    g_assert_cmpint(cause_of(&s, &f), ==, TAPO_CAUSE_CLIENT_IDLE);
}

static void test_packet_delay(void)
{
    tapo_snapshot s; tapo_facts f;
    base(&s, &f);
    s.cur.retransmission = false;
    s.cur.retrans_count = 0;
    s.cur.dir = TAPO_DIR_IN;            /* a late ACK */
    s.cur.payload = false;
    tapo_verdict v = tapo_classify(&s, &f, &cfg);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_PACKET_DELAY);
    g_assert_cmpint(v.category, ==, TAPO_CATEGORY_NETWORK);
    g_assert_false(v.retransmission);
}

/* The receiver gives up on a request the sender never answered: no rule. */
static void test_undetermined(void)
{
    tapo_snapshot s; tapo_facts f;
    idle_base(&s, &f);
    s.request_pending = true;
    s.cur.dir = TAPO_DIR_IN;
    s.cur.payload = false;
    tapo_verdict v = tapo_classify(&s, &f, &cfg);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_UNDETERMINED);
    g_assert_cmpint(v.category, ==, TAPO_CATEGORY_UNKNOWN);
    g_assert_false(v.retransmission);
}

/* The vocabulary table: the exact strings of spec section 5. */
static void test_cause_names_are_the_contract(void)
{
    static const char *const expected[TAPO_CAUSE_COUNT] = {
        "ack-delay", "f-double", "t-double", "tail", "small-rwnd", "small-cwnd", "continuous-loss",
        "large-dupthres", "undetermined", "zero-window", "data-unavailable",
        "resource-constraint", "client-idle", "packet-delay", "undetermined",
    };
    for (int c = 0; c < TAPO_CAUSE_COUNT; c++) {
        const tapo_cause_info *info = tapo_cause_get(c);
        g_assert_cmpstr(info->name, ==, expected[c]);
        g_assert_nonnull(info->summary);
        g_assert_nonnull(info->mitigation);
        /* The advice names the machine to look at. */
        g_assert_true(strstr(info->advice, "{sender}") || strstr(info->advice, "{receiver}") ||
                      strstr(info->advice, "{client}") || strstr(info->advice, "{server}"));
        g_assert_cmpint(info->retransmission, ==, c <= TAPO_CAUSE_RETRANS_UNDETERMINED);
        g_assert_cmpint(info->severity, ==,
                        info->category == TAPO_CATEGORY_NETWORK && info->retransmission
                            ? TAPO_SEVERITY_WARN : TAPO_SEVERITY_NOTE);
    }
    g_assert_cmpstr(tapo_category_name(TAPO_CATEGORY_SERVER), ==, "server");
    g_assert_cmpstr(tapo_category_name(TAPO_CATEGORY_UNKNOWN), ==, "unknown");
    g_assert_cmpstr(tapo_ca_state_name(TAPO_CA_RECOVERY), ==, "Recovery");
    g_assert_cmpstr(tapo_trigger_name(TAPO_TRIGGER_PROBE), ==, "probe");
    g_assert_null(tapo_trigger_name(TAPO_TRIGGER_NONE));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    tapo_config_init_defaults(&cfg);
    g_test_add_func("/classifier/f-double", test_f_double);
    g_test_add_func("/classifier/t-double", test_t_double_after_timeout_and_probe);
    g_test_add_func("/classifier/double-precedes-tail", test_double_precedes_tail);
    g_test_add_func("/classifier/tail", test_tail);
    g_test_add_func("/classifier/tail-dupthres", test_tail_uses_dupthres);
    g_test_add_func("/classifier/tail-needs-no-more-data", test_tail_needs_no_more_data);
    g_test_add_func("/classifier/small-cwnd-rwnd", test_small_cwnd_and_rwnd);
    g_test_add_func("/classifier/in-flight", test_in_flight_equation);
    g_test_add_func("/classifier/small-window-pref", test_small_window_preference);
    g_test_add_func("/classifier/small-rwnd-scale", test_small_rwnd_needs_known_scale);
    g_test_add_func("/classifier/continuous-loss", test_continuous_loss);
    g_test_add_func("/classifier/ack-delay", test_ack_delay);
    g_test_add_func("/classifier/give-up", test_give_up);
    g_test_add_func("/classifier/large-dupthres", test_large_dupthres);
    g_test_add_func("/classifier/retrans-undetermined", test_retransmission_undetermined);
    g_test_add_func("/classifier/handshake-receiver-retrans", test_handshake_and_receiver_retransmissions);
    g_test_add_func("/classifier/zero-window", test_zero_window);
    g_test_add_func("/classifier/data-unavailable", test_data_unavailable);
    g_test_add_func("/classifier/resource-constraint", test_resource_constraint);
    g_test_add_func("/classifier/client-idle", test_client_idle);
    g_test_add_func("/classifier/packet-delay", test_packet_delay);
    g_test_add_func("/classifier/undetermined", test_undetermined);
    g_test_add_func("/classifier/names", test_cause_names_are_the_contract);
    return g_test_run();
}
