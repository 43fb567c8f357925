/* test_trust_rules.c: the rules that keep verdicts from contradicting the
 * packets (docs/algorithm.md, "IP IDs" and "The audit"): the audit's
 * checks, confidence and caveats, the server named by its port, the
 * sender's clock under bursts, and IP IDs from a counter shared with other
 * connections.  Plain C + GLib.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <glib.h>

#include "verdict/audit.h"
#include "packet_builder.h"
#include "roles/roles.h"
#include "roles/sender_choice.h"
#include "timeline/ts_clock.h"

#define MSS TB_MSS
#define WIN 65535
#define REQ 200

/* ---- the audit on hand-made verdicts --------------------------------- */

typedef struct audit_case {
    tapo_stall_view view;
    tapo_facts facts;
    tapo_config cfg;
    tapo_verdict v;
} audit_case;

static void audit_case_init(audit_case *a, tapo_cause tree_cause)
{
    memset(a, 0, sizeof *a);
    tapo_config_init_defaults(&a->cfg);
    a->view.snap.srtt = tapo_opt_s_of(0.05);
    a->view.snap.cur.payload = true;   /* data ended the stall */
    a->v.view = &a->view;
    a->v.cause = tree_cause;
    a->v.sender_role_known = true;
}

static void test_audit_dsack_refutes_a_double(void)
{
    audit_case a;
    audit_case_init(&a, TAPO_CAUSE_T_DOUBLE);
    a.facts.cur_spurious = true;
    tapo_audit(&a.view, &a.facts, false, &a.cfg, &a.v);
    g_assert_cmpint(a.v.cause, ==, TAPO_CAUSE_ACK_DELAY);
    g_assert_cmpint(a.v.tree_cause, ==, TAPO_CAUSE_T_DOUBLE);
    g_assert_nonnull(a.v.audit_reason);
    g_assert_true(a.v.caveats & TAPO_CAVEAT_AUDITED);
    g_assert_cmpint(a.v.confidence, ==, TAPO_CONFIDENCE_MEDIUM);
}

static void test_audit_hole_refutes_packet_delay(void)
{
    audit_case a;
    audit_case_init(&a, TAPO_CAUSE_PACKET_DELAY);
    a.view.snap.holes = 1;
    tapo_audit(&a.view, &a.facts, false, &a.cfg, &a.v);
    g_assert_cmpint(a.v.cause, ==, TAPO_CAUSE_UNDETERMINED);
    g_assert_cmpint(a.v.confidence, ==, TAPO_CONFIDENCE_LOW);
    g_assert_true(a.v.caveats & TAPO_CAVEAT_UNEXPLAINED);
}

static void test_audit_reset_is_no_delivery(void)
{
    audit_case a;
    audit_case_init(&a, TAPO_CAUSE_DATA_UNAVAILABLE);
    a.view.snap.cur.rst = true;
    tapo_audit(&a.view, &a.facts, false, &a.cfg, &a.v);
    g_assert_cmpint(a.v.cause, ==, TAPO_CAUSE_UNDETERMINED);
}

static void test_audit_idle_close_is_client_idle(void)
{
    audit_case a;
    audit_case_init(&a, TAPO_CAUSE_RESOURCE_CONSTRAINT);
    a.facts.closing = true;
    tapo_audit(&a.view, &a.facts, false, &a.cfg, &a.v);
    g_assert_cmpint(a.v.cause, ==, TAPO_CAUSE_CLIENT_IDLE);
    /* With a request pending, the pause stands. */
    audit_case_init(&a, TAPO_CAUSE_RESOURCE_CONSTRAINT);
    a.facts.closing = true;
    a.view.snap.request_pending = true;
    tapo_audit(&a.view, &a.facts, false, &a.cfg, &a.v);
    g_assert_cmpint(a.v.cause, ==, TAPO_CAUSE_RESOURCE_CONSTRAINT);
}

static void test_confidence_follows_the_caveats(void)
{
    audit_case a;
    audit_case_init(&a, TAPO_CAUSE_DATA_UNAVAILABLE);
    tapo_audit(&a.view, &a.facts, false, &a.cfg, &a.v);
    g_assert_cmpint(a.v.confidence, ==, TAPO_CONFIDENCE_HIGH);
    g_assert_cmpuint(a.v.caveats, ==, 0);
    /* No handshake: medium. */
    audit_case_init(&a, TAPO_CAUSE_DATA_UNAVAILABLE);
    a.v.sender_role_known = false;
    tapo_audit(&a.view, &a.facts, false, &a.cfg, &a.v);
    g_assert_cmpint(a.v.confidence, ==, TAPO_CONFIDENCE_MEDIUM);
    g_assert_true(a.v.caveats & TAPO_CAVEAT_NO_HANDSHAKE);
    /* A bare ACK ended it: medium. */
    audit_case_init(&a, TAPO_CAUSE_PACKET_DELAY);
    a.view.snap.cur.payload = false;
    tapo_audit(&a.view, &a.facts, false, &a.cfg, &a.v);
    g_assert_cmpint(a.v.confidence, ==, TAPO_CONFIDENCE_MEDIUM);
    g_assert_true(a.v.caveats & TAPO_CAVEAT_BARE_ACK);
    /* The receiver's new data with its own request unanswered (rule 5 as
     * decided): it needed no answer, or gave up waiting: medium. */
    audit_case_init(&a, TAPO_CAUSE_CLIENT_IDLE);
    a.view.snap.cur.dir = TAPO_DIR_IN;
    tapo_audit(&a.view, &a.facts, false, &a.cfg, &a.v);
    g_assert_cmpint(a.v.confidence, ==, TAPO_CONFIDENCE_HIGH);
    a.view.snap.request_pending = true;
    tapo_audit(&a.view, &a.facts, false, &a.cfg, &a.v);
    g_assert_cmpint(a.v.confidence, ==, TAPO_CONFIDENCE_MEDIUM);
    g_assert_true(a.v.caveats & TAPO_CAVEAT_PENDING_REQUEST);
    /* packet-delay without an RTT sample: the gap may be no stall at all. */
    audit_case_init(&a, TAPO_CAUSE_PACKET_DELAY);
    a.view.snap.srtt = tapo_opt_s_none();
    tapo_audit(&a.view, &a.facts, false, &a.cfg, &a.v);
    g_assert_cmpint(a.v.confidence, ==, TAPO_CONFIDENCE_LOW);
    g_assert_true(a.v.caveats & TAPO_CAVEAT_NO_RTT_SAMPLE);
    /* A double resting on copies never captured. */
    audit_case_init(&a, TAPO_CAUSE_T_DOUBLE);
    a.view.snap.inferred = TAPO_INFERRED_RETX_LOST | TAPO_INFERRED_BY_IP_ID;
    tapo_audit(&a.view, &a.facts, false, &a.cfg, &a.v);
    g_assert_cmpint(a.v.confidence, ==, TAPO_CONFIDENCE_LOW);
    g_assert_true(a.v.caveats & TAPO_CAVEAT_INFERRED);
}

/* ---- the sender chosen against the byte counts ---------------------------- */

/* A request of 300 bytes and, after 0.5 s of the server's think time, an
 * answer of `answer` bytes: data-unavailable at the answer's first byte.
 * Under the upload floor the responder is the sender even when its answer
 * is the shorter; read from the client, the same gap is the client's idle
 * after it asked, so the verdict rests on that choice: medium, caveat
 * sender-choice.  An answer longer than the request leaves it high. */
static tapo_verdict think_time_verdict(uint32_t answer)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tb_handshake(&b, 0.0, 0.05, WIN, WIN);
    tb_data(&b, CLIENT, 0.1, 1, 300, 1);
    tb_ack(&b, SERVER, 0.1502, 301, 1, WIN);
    uint32_t first = tb_data(&b, SERVER, 0.65, 1, answer, 301);
    tb_ack(&b, CLIENT, 0.70, 1 + answer, 301, WIN);
    tapo_verdict v = tb_verdict(&b, first, true);
    tb_free(&b);
    return v;
}

static void test_sender_chosen_against_the_bytes(void)
{
    tapo_verdict shorter = think_time_verdict(100);
    g_assert_cmpint(shorter.cause, ==, TAPO_CAUSE_DATA_UNAVAILABLE);
    g_assert_cmpint(shorter.sender, ==, SERVER);
    g_assert_true(shorter.sender_uncertain);
    g_assert_true(shorter.caveats & TAPO_CAVEAT_SENDER_CHOICE);
    g_assert_cmpint(shorter.confidence, ==, TAPO_CONFIDENCE_MEDIUM);
    tapo_verdict longer = think_time_verdict(400);
    g_assert_cmpint(longer.cause, ==, TAPO_CAUSE_DATA_UNAVAILABLE);
    g_assert_false(longer.sender_uncertain);
    g_assert_cmpuint(longer.caveats, ==, 0);
    g_assert_cmpint(longer.confidence, ==, TAPO_CONFIDENCE_HIGH);
}

/* ---- the sender chosen by who answers whom --------------------------------- */

/* Messages are runs of new payload that no packet of the peer interrupts;
 * one is answered when the peer's next message comes before its own. */
static void test_messages_counted(void)
{
    tapo_message_tracker m;
    tapo_messages_init(&m);
    tapo_messages_packet(&m, 0, true);    /* a report, in two segments */
    tapo_messages_packet(&m, 0, true);
    tapo_messages_packet(&m, 1, false);   /* acknowledged */
    tapo_messages_packet(&m, 0, true);    /* a heartbeat */
    tapo_messages_packet(&m, 1, false);
    tapo_messages_packet(&m, 0, true);    /* another, */
    tapo_messages_packet(&m, 1, true);    /* answered by a command */
    tapo_messages_packet(&m, 0, false);
    g_assert_cmpuint(m.counts.messages[0], ==, 3);
    g_assert_cmpuint(m.counts.answered[0], ==, 1);
    g_assert_cmpuint(m.counts.messages[1], ==, 1);
    g_assert_cmpuint(m.counts.answered[1], ==, 0);
}

/* Under the upload floor the initiator is the sender when it pushes its
 * data: more payload, fewer than half of its messages answered, at least
 * two unanswered.  Answered messages are requests; one unanswered request
 * is a server that did not answer. */
static void test_sender_chosen_by_answers(void)
{
    tapo_config cfg;
    tapo_config_init_defaults(&cfg);
    tapo_conv_summary sum = { .payload_bytes = { 145, 13 }, .initiator = { .known = true, .e = 0 },
                              .port = { 40000, 4433 },
                              .messages = { .messages = { 6, 1 }, .answered = { 1, 1 } } };
    tapo_basis basis;
    g_assert_cmpint(tapo_conv_sender(&sum, &cfg, NULL, &basis), ==, 0);
    tapo_stall_view quiet = { 0 };   /* a stall no copy of the sender ended */
    g_assert_true(tapo_conv_sender_uncertain(&sum, 0, basis, &quiet));
    sum.messages.answered[0] = 5;   /* the server answered them: requests */
    g_assert_cmpint(tapo_conv_sender(&sum, &cfg, NULL, &basis), ==, 1);
    sum = (tapo_conv_summary){ .payload_bytes = { 5, 0 }, .initiator = { .known = true, .e = 0 },
                               .messages = { .messages = { 1, 0 } } };
    g_assert_cmpint(tapo_conv_sender(&sum, &cfg, NULL, &basis), ==, 1);   /* one request, unanswered */
}

/* An upload is the client's excess over the server, not its total: an
 * HTTP client whose requests (long URLs, cookies) outweigh the answers,
 * every one answered, is still waiting on the server; a client 4 KB or
 * more ahead sent more than requests. */
static void test_requests_heavier_than_answers(void)
{
    tapo_config cfg;
    tapo_config_init_defaults(&cfg);
    tapo_conv_summary sum = { .payload_bytes = { 5700, 3900 }, .initiator = { .known = true, .e = 0 },
                              .port = { 45692, 80 },
                              .messages = { .messages = { 6, 6 }, .answered = { 6, 5 } } };
    tapo_basis basis;
    g_assert_cmpint(tapo_conv_sender(&sum, &cfg, NULL, &basis), ==, 1);
    sum.payload_bytes[0] = 3900 + TAPO_SENDER_SWITCH_BYTES - 1;
    g_assert_cmpint(tapo_conv_sender(&sum, &cfg, NULL, &basis), ==, 1);
    sum.payload_bytes[0] = 3900 + TAPO_SENDER_SWITCH_BYTES;   /* an upload */
    g_assert_cmpint(tapo_conv_sender(&sum, &cfg, NULL, &basis), ==, 0);
    g_assert_cmpint(basis, ==, TAPO_BASIS_DATA);
}

/* At the server, 10 ms from the client: the server's data (the heavier)
 * is acknowledged at once, its threshold 20 ms; the client's requests only
 * by the server's 200 ms delayed ACKs, which raise the client's threshold
 * to about 90 ms.  The client sends four segments, the server SACKs the
 * last three, and the client resends the first 50 ms after the last SACK:
 * a fast copy within its own threshold, no stall of the client's.  Nor of
 * the server's, though the gap is more than twice its threshold: a stall
 * that an endpoint's own retransmission ends is that endpoint's (spec
 * section 1), and the client's recovery delayed none of the server's data. */
static void test_a_receivers_copy_is_its_own(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tb_handshake(&b, 0.0, 0.01, WIN, WIN);
    uint32_t s = 1;
    for (int k = 0; k < 8; k++, s += MSS) {   /* the server's data, the heavier */
        tb_data(&b, SERVER, 0.1 + 0.02 * k, s, MSS, 1);
        tb_ack(&b, CLIENT, 0.11 + 0.02 * k, s + MSS, 1, WIN);
    }
    uint32_t c = 1;
    for (int k = 0; k < 2; k++, c += REQ) {
        tb_data(&b, CLIENT, 0.3 + 0.3 * k, c, REQ, s);
        tb_ack(&b, SERVER, 0.5 + 0.3 * k, c + REQ, s, WIN);
    }
    for (uint32_t k = 0; k < 4; k++)
        tb_data(&b, CLIENT, 1.0 + 0.0001 * k, c + k * MSS, MSS, s);
    for (uint32_t k = 1; k < 4; k++)
        tb_sack(&b, SERVER, 1.0101 + 0.0001 * k, c, s, WIN, c + MSS, c + (k + 1) * MSS);
    uint32_t copy = tb_data(&b, CLIENT, 1.0604, c, MSS, s);
    g_assert_false(tb_is_stall(&b, copy));
    tb_free(&b);
}

/* ---- Peers and closes ----------------------------------------------------- */

/* At the responder, 10 ms from its peer: the initiator sends a 1460-byte
 * message, and the responder's next, 3 bytes, comes 19 s later.  Between
 * BGP-like peers (port 639, MSDP) nothing awaited it: the heavier sender's
 * data is the connection's and the gap is its peer's idle.  Between a web
 * client and server (port 80) the message is a request and the 3 bytes its
 * late answer. */
static void test_peers_heavier_sender(void)
{
    const uint16_t ports[] = { 639, 80 };
    const int senders[] = { CLIENT, SERVER };
    const tapo_cause causes[] = { TAPO_CAUSE_CLIENT_IDLE, TAPO_CAUSE_DATA_UNAVAILABLE };
    for (int i = 0; i < 2; i++) {
        tb b;
        tb_init(&b, 1000, 5000000);
        b.port[SERVER] = ports[i];
        tb_handshake(&b, 0.0, 0.01, WIN, WIN);
        tb_data(&b, CLIENT, 1.0, 1, MSS, 1);
        tb_ack(&b, SERVER, 1.0001, 1 + MSS, 1, WIN);
        uint32_t message = tb_data(&b, SERVER, 20.0, 1, 3, 1 + MSS);
        tb_ack(&b, CLIENT, 20.0102, 4, 1 + MSS, WIN);
        tapo_verdict v = tb_verdict(&b, message, true);
        g_assert_cmpint(v.sender, ==, senders[i]);
        g_assert_cmpint(v.cause, ==, causes[i]);
        tb_free(&b);
    }
}

/* The same peers: the lighter peer's 3-byte message is acknowledged 0.2 s
 * later by a delayed ACK, and the heavier peer's next message follows 40 s
 * on, on its own timer.  That message answers nothing, so the late ACK
 * delayed the lighter peer's data: its stall, packet-delay (not the
 * heavier peer's slow answer). */
static void test_peers_late_ack_delays_the_other(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    b.port[SERVER] = 639;
    tb_handshake(&b, 0.0, 0.01, WIN, WIN);
    tb_data(&b, CLIENT, 1.0, 1, MSS, 1);
    tb_ack(&b, SERVER, 1.0001, 1 + MSS, 1, WIN);
    tb_data(&b, SERVER, 20.0, 1, 3, 1 + MSS);
    uint32_t late_ack = tb_ack(&b, CLIENT, 20.21, 4, 1 + MSS, WIN);
    tb_data(&b, CLIENT, 60.0, 1 + MSS, 100, 4);
    tapo_verdict v = tb_verdict(&b, late_ack, true);
    g_assert_cmpint(v.sender, ==, SERVER);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_PACKET_DELAY);
    tb_free(&b);
}

/* At the server: the client uploads 5 segments, the server answers 300
 * bytes, the client acknowledges them with a bare FIN, and the server
 * closes 0.1 s later.  The client closing answered the server's answer:
 * nothing of it is pending, and the gap is the server closing an idle
 * connection (client-idle of the uploading client), not an unexplained
 * one. */
static void test_closing_answers_nothing(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tb_handshake(&b, 0.0, 0.01, WIN, WIN);
    for (uint32_t k = 0; k < 5; k++)
        tb_data(&b, CLIENT, 1.0 + 0.0001 * k, 1 + k * MSS, MSS, 1);
    uint32_t end = 1 + 5 * MSS;
    tb_ack(&b, SERVER, 1.0005, end, 1, WIN);
    tb_data(&b, SERVER, 1.2, 1, 300, end);
    tb_packet(&b, CLIENT, 1.2102, end, 301, 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN, 0, NULL);
    tb_ack(&b, SERVER, 1.2103, end + 1, 301, WIN);
    uint32_t close = tb_packet(&b, SERVER, 1.31, 301, end + 1, 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN, 0, NULL);
    tapo_verdict v = tb_verdict(&b, close, true);
    g_assert_cmpint(v.sender, ==, CLIENT);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_CLIENT_IDLE);
    tb_free(&b);
}

/* At the server, 10 ms from the client: after an answered request the
 * client sends a second request, the server acknowledges it and, 5 s
 * later, closes with a bare FIN.  The FIN answers nothing, so nothing
 * shows the 5 s were the server's think time (rule 3 names a response's
 * first payload): undetermined.  The same FIN numbered 2 000 bytes past
 * what was seen shows a response the capture missed, sent before it: the
 * server answered (data-unavailable, as before). */
static void answered_at_server(tb *b);
static void asked_at_client(tb *b, double rtt_s);

static void test_a_bare_close_answers_nothing(void)
{
    const uint32_t missed[] = { 0, 2000 };
    const tapo_cause causes[] = { TAPO_CAUSE_UNDETERMINED, TAPO_CAUSE_DATA_UNAVAILABLE };
    for (int i = 0; i < 2; i++) {
        tb b;
        answered_at_server(&b);
        tb_data(&b, CLIENT, 1.0, 1 + REQ, REQ, 1001);
        tb_ack(&b, SERVER, 1.0001, 1 + 2 * REQ, 1001, WIN);
        uint32_t close = tb_packet(&b, SERVER, 6.0, 1001 + missed[i], 1 + 2 * REQ, 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN,
                                   0, NULL);
        tb_ack(&b, CLIENT, 6.01, 1002 + missed[i], 1 + 2 * REQ, WIN);
        tapo_verdict v = tb_verdict(&b, close, true);
        g_assert_cmpint(v.sender, ==, SERVER);
        g_assert_cmpint(v.cause, ==, causes[i]);
        g_assert_cmpint(tapo_close_unanswered(&v.view->snap), ==, missed[i] == 0);
        tb_free(&b);
    }
}

/* At the client, 100 ms from the server, IPv4 IDs numbered one by one:
 * the handshake, then a request of REQ bytes at 0.1002 s. */
static void request_at_client(tb *b)
{
    tb_init(b, 1000, 5000000);
    b->use_ip_id = true;
    tb_packet(b, CLIENT, 0.0, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
    tb_packet(b, SERVER, 0.1, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, WIN, 0, NULL);
    tb_packet(b, CLIENT, 0.10005, 1, 1, 0, TAPO_TCP_ACK, WIN, 0, NULL);
    tb_data(b, CLIENT, 0.1002, 1, REQ, 1);
}

/* ---- IDs skipped before an answer ------------------------------------------ */

/* request_at_client, the server's ACK of the request, its IDs skipping
 * skip values, its answer of len bytes at answer_s (its frame), the
 * client's ACK of it and the client's next request 0.1 s later. */
static uint32_t answer_after_skip(tb *b, uint16_t skip, double answer_s, uint32_t len)
{
    request_at_client(b);
    tb_ack(b, SERVER, 0.2002, 1 + REQ, 1, WIN);
    b->next_ip_id[SERVER] += skip;
    uint32_t answer = tb_data(b, SERVER, answer_s, 1, len, 1 + REQ);
    tb_ack(b, CLIENT, answer_s + 0.0001, 1 + len, 1 + REQ, WIN);
    tb_data(b, CLIENT, answer_s + 0.1, 1 + REQ, REQ, 1 + len);
    return answer;
}


/* At the client: the server acknowledges a request and answers it 5 s
 * later, 5 IP IDs skipped that no packet carried (undetermined: copies or
 * a wait, classifier.c).  Its next answer, to the next request, carries
 * no ID (0): it skipped nothing, and its wait is data-unavailable; the
 * skip belongs to the packet that made it, not to the sender's next. */
static void test_a_skip_is_its_own_packets(void)
{
    tb b;
    uint32_t skipped = answer_after_skip(&b, 5, 5.2, 79);
    b.next_ip_id[SERVER] = 0xffff;   /* the next ID is 0: none */
    uint32_t plain = tb_data(&b, SERVER, 10.3, 80, 79, 1 + 2 * REQ);
    tb_ack(&b, CLIENT, 10.3001, 159, 1 + 2 * REQ, WIN);
    tapo_verdict v = tb_verdict(&b, skipped, true);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_UNDETERMINED);
    g_assert_cmpuint(v.view->snap.cur.ids_skipped_unclaimed, ==, 5);
    v = tb_verdict(&b, plain, true);
    g_assert_cmpuint(v.view->snap.cur.ids_skipped_unclaimed, ==, 0);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_DATA_UNAVAILABLE);
    tb_free(&b);
}

/* At the client: the client sends three messages in a row and the server
 * answers 0.9 s later, three IP IDs skipped that no packet carried.  The
 * server owed an ACK to each message (a receiver in quick-ack mode
 * acknowledges every segment): those explain the skip, so no copy of the
 * answer is claimed (spec section 8); its wait is data-unavailable
 * (epiecs/packetlife-backup bgp-add-path.cap, whose capture kept no pure
 * ACK: its skipped IDs had been taken for an original and a copy lost). */
static void test_skipped_ids_are_owed_acks(void)
{
    tb b;
    request_at_client(&b);
    tb_data(&b, SERVER, 0.2004, 1, 79, 1 + REQ);
    for (uint32_t i = 0; i < 3; i++)
        tb_data(&b, CLIENT, 1.0 + 0.001 * i, 1 + (1 + i) * REQ, REQ, 80);
    b.next_ip_id[SERVER] += 3;
    uint32_t answer = tb_data(&b, SERVER, 1.9, 80, 79, 1 + 4 * REQ);
    tb_ack(&b, CLIENT, 1.9001, 159, 1 + 4 * REQ, WIN);
    tapo_verdict v = tb_verdict(&b, answer, true);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_DATA_UNAVAILABLE);
    g_assert_false(v.view->snap.cur.retransmission);
    tb_free(&b);
}

/* ---- the server by its port ------------------------------------------- */

static void test_server_by_ports(void)
{
    g_assert_cmpint(tapo_server_by_ports(80, 40000).e, ==, 0);
    g_assert_cmpint(tapo_server_by_ports(40000, 443).e, ==, 1);
    g_assert_cmpint(tapo_server_by_ports(8080, 51000).e, ==, 0);    /* below the ephemeral range */
    g_assert_false(tapo_server_by_ports(40000, 50000).known);  /* two ephemeral ports */
    g_assert_false(tapo_server_by_ports(80, 443).known);       /* two services */
}

/* ---- the sender's clock under bursts ------------------------------------- */

/* A server whose first packets fit 1 ms ticks, then segments sent every
 * 10 ms that a link releases together 0.5 s later: each was held for what
 * its TSval says, not taken for a slower clock. */
static void test_clock_of_a_burst_released_late(void)
{
    tapo_ts_clock k = { 0 };
    tapo_ts_clock_note(&k, 7000, 0.000);
    for (uint32_t i = 1; i <= 5; i++)
        tapo_ts_clock_note(&k, 7090 + i, 0.090 + i * 0.001);
    for (uint32_t i = 0; i < 50; i++) {
        uint32_t tsval = 7100 + 10 * i;           /* sent at 0.100 + 0.01 i */
        double arrival = 0.600 + i * 0.00002;      /* released together */
        tapo_ts_clock_note(&k, tsval, arrival);
        tapo_opt_s held = tapo_ts_clock_delay(&k, tsval, arrival);
        g_assert_true(held.known);
        g_assert_cmpfloat_with_epsilon(held.s, 0.5 - 0.01 * i, 0.003);
    }
}

/* ---- IP IDs from a counter shared with other connections ------------------ */

/* At the client: the server's host numbers packets from one counter.  A
 * segment that continues the data 10 ms after the previous one, 10 IDs
 * on, with only the client's ACK in between, proves it: its next segment
 * after 5 s of silence, 30 IDs on, is new data (the application paused
 * after a short segment), not a copy of a lost original.  Read as a
 * counter of this connection, the 29 missing IDs would be copies. */
/* At the client: the server answers a request with six segments 10 ms
 * apart, the last a short one, then after 5 s of silence sends another
 * segment, `late_skip` IDs on.  Before the fourth segment, its host's
 * other traffic takes IDs: `jump` more IDs unseen (0: none), or one ID on
 * a packet of the host's to another connection (`host_packet`).  Returns
 * the late segment's verdict (two passes), which counted no lost original. */
static tapo_verdict late_segment(uint16_t jump, bool host_packet, uint16_t late_skip)
{
    tb b;
    request_at_client(&b);
    uint32_t seq = 1;
    for (int i = 0; i < 6; i++) {
        uint32_t len = i == 5 ? 500 : MSS;
        if (i == 3) {
            b.next_ip_id[SERVER] += jump;
            if (host_packet)
                tb_other_packet(&b, SERVER, ++b.next_ip_id[SERVER]);
        }
        tb_data(&b, SERVER, 0.2002 + i * 0.01, seq, len, 1 + REQ);
        tb_ack(&b, CLIENT, 0.2003 + i * 0.01, seq + len, 1 + REQ, WIN);
        seq += len;
    }
    b.next_ip_id[SERVER] += late_skip;
    uint32_t late = tb_data(&b, SERVER, 5.3, seq, MSS, 1 + REQ);
    tb_ack(&b, CLIENT, 5.3001, seq + MSS, 1 + REQ, WIN);
    tapo_verdict v = tb_verdict(&b, late, true);
    g_assert_false(v.view->snap.inferred & TAPO_INFERRED_ORIGINAL_LOST);
    tb_free(&b);
    v.view = NULL;   /* freed with the bench */
    v.facts = NULL;
    return v;
}

/* The late segment is the application's pause: no copy counted. */
static void assert_a_pause(tapo_verdict v)
{
    g_assert_false(v.retransmission);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_RESOURCE_CONSTRAINT);
}

static void test_a_jump_proves_the_counter_shared(void)
{
    assert_a_pause(late_segment(9, false, 29));
}

/* At the client: the server acknowledges a request, and its first answer
 * comes 0.9 s later one IP ID on from its ACK, the missing ID in no packet
 * of the capture: on its own, an original lost before the capture point,
 * and the answer its copy (within one timeout of the 1 s floor: an idle
 * sender's longer silence claims no copy,
 * /trust/an-idle-sender-claims-no-chain).  Later the server's host
 * carries, on another connection, an ID this connection's next skip
 * misses: its counter is
 * shared, so the first skip proves no lost original either, and the
 * two-pass verdict claims no copy (undetermined, by the audit); without
 * that later packet the copy stands. */
static void test_shared_counter_proves_no_copy(void)
{
    for (int proven = 0; proven < 2; proven++) {
        tb b;
        uint32_t answer = answer_after_skip(&b, 1, 1.1, 300);
        if (proven)
            tb_other_packet(&b, SERVER, ++b.next_ip_id[SERVER]);
        tb_data(&b, SERVER, 2.1002, 301, 300, 1 + 2 * REQ);
        tb_ack(&b, CLIENT, 2.1003, 601, 1 + 2 * REQ, WIN);
        tapo_verdict v = tb_verdict(&b, answer, true);
        g_assert_true(v.view->snap.inferred & TAPO_INFERRED_BY_IP_ID);
        g_assert_cmpint(v.retransmission, ==, !proven);
        if (proven) {
            g_assert_cmpint(v.cause, ==, TAPO_CAUSE_UNDETERMINED);
            g_assert_nonnull(v.audit_reason);
        }
        tb_free(&b);
    }
}

/* At the client: the server answers a request, and then, with nothing
 * outstanding, sends new data after a silence, two IP IDs on that no packet
 * of the capture carried.  After 1.3 s those can be an original lost before
 * the capture point and its timer's copy (their chain takes up to 3 s), so
 * the data is their copy; after 30 s the silence is longer than any chain
 * of two: the server was idle first, and IDs numbered while the connection
 * was idle may be its host's other packets (zeek modbus-and-non-modbus-p502
 * 7: a Modbus poller's next query 29.6 s on, taken for a lost query's third
 * copy).  No copy is claimed: its new data after a pause. */
static void test_an_idle_sender_claims_no_chain(void)
{
    const double silences[] = { 1.3, 30.0 };
    for (int k = 0; k < 2; k++) {
        tb b;
        request_at_client(&b);
        tb_data(&b, SERVER, 0.2004, 1, 79, 1 + REQ);
        tb_ack(&b, CLIENT, 0.2005, 80, 1 + REQ, WIN);
        b.next_ip_id[SERVER] += 2;
        uint32_t push = tb_data(&b, SERVER, 0.2005 + silences[k], 80, 79, 1 + REQ);
        tb_ack(&b, CLIENT, 0.2006 + silences[k], 159, 1 + REQ, WIN);
        tapo_verdict v = tb_verdict(&b, push, true);
        g_assert_cmpint(v.retransmission, ==, k == 0);
        if (k == 1)
            g_assert_cmpint(v.cause, ==, TAPO_CAUSE_RESOURCE_CONSTRAINT);
        tb_free(&b);
    }
}

/* At the client, of a connection whose handshake the capture missed (no
 * MSS option): two requests, each answered by a reply of len bytes 40 ms
 * later, and 0.45 s after the second the server's next message, with no
 * request pending.  A 94-byte reply, the largest the server sent, is no
 * full segment (the MSS is only known to be at least that): its next
 * message is its application's pause, resource-constraint (the fifth
 * fresh round's ftp-with-numbers-in-filename.pcap 796: an FTP server's
 * "226 File send OK" 0.45 s after "150 Opening ...", undetermined "after a
 * full segment").  A 600-byte one may be a full segment with more queued
 * behind it, lost before the capture point: undetermined, as before. */
static void test_a_short_segment_is_no_full_one(void)
{
    const uint32_t lens[] = { 94, 600 };
    for (int k = 0; k < 2; k++) {
        tb b;
        tb_init(&b, 1000, 5000000);
        uint32_t len = lens[k];
        for (uint32_t i = 0; i < 2; i++) {
            double t = 0.5 * i;
            tb_data(&b, CLIENT, t, 1 + i * REQ, REQ, 1 + i * len);
            tb_data(&b, SERVER, t + 0.04, 1 + i * len, len, 1 + (i + 1) * REQ);
            tb_ack(&b, CLIENT, t + 0.0401, 1 + (i + 1) * len, 1 + (i + 1) * REQ, WIN);
        }
        uint32_t next = tb_data(&b, SERVER, 0.9901, 1 + 2 * len, 19, 1 + 2 * REQ);
        tb_ack(&b, CLIENT, 0.9902, 20 + 2 * len, 1 + 2 * REQ, WIN);
        tapo_verdict v = tb_verdict(&b, next, true);
        g_assert_cmpint(v.cause, ==, k == 0 ? TAPO_CAUSE_RESOURCE_CONSTRAINT : TAPO_CAUSE_UNDETERMINED);
        tb_free(&b);
    }
}

/* At the client, 228 ms from the server: the server answers a request
 * and closes (its data and FIN together); the client's ACK of the FIN and
 * its own FIN leave at once; the server's FIN comes again 0.2156 s after
 * the first, not acknowledging the client's FIN.  A sender resends only
 * what it has not seen acknowledged, so the client's ACK and FIN had not
 * reached it: the copy was its timer's, a stall, and the capture shows
 * the original's ACK leaving before it: ack-delay (the fifth fresh
 * round's http-bad-request-with-version.pcap 10; a bare FIN had not
 * counted as resending what an ACK covered, and the client's packets,
 * within the placement's precision of the copy, ended its gap). */
static void test_a_fin_resent_after_its_ack(void)
{
    tb b;
    asked_at_client(&b, 0.228);
    tb_ack(&b, SERVER, 0.7115, 1 + REQ, 1, WIN);
    tb_data(&b, SERVER, 0.9665, 1, 179, 1 + REQ);
    tb_packet(&b, SERVER, 0.96647, 180, 1 + REQ, 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN, 0, NULL);
    tb_ack(&b, CLIENT, 0.9667, 181, 1 + REQ, WIN);
    tb_packet(&b, CLIENT, 0.9670, 1 + REQ, 181, 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN, 0, NULL);
    uint32_t copy = tb_packet(&b, SERVER, 1.1821, 180, 1 + REQ, 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN, 0, NULL);
    tb_ack(&b, CLIENT, 1.1824, 181, 2 + REQ, WIN);
    tb_ack(&b, SERVER, 1.4467, 2 + REQ, 181, WIN);
    tapo_verdict v = tb_verdict(&b, copy, true);
    g_assert_true(v.retransmission);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_ACK_DELAY);
    tb_free(&b);
}

/* At the client, 0.8 ms from the server: the client's second request
 * leaves 18 us before the server's data that acknowledges only the first
 * (they crossed: a TCP acknowledges all it received in order), and 0.145 s
 * on the server answers it.  The second request was pending when the
 * server sent that answer, which is its think time (data-unavailable);
 * read as having arrived before the crossing data, within the placement's
 * precision, it was answered by it, and the answer became a pause
 * (resource-constraint; stratosphereips test-cc-capture-1.pcap 684). */
static void test_an_ack_says_what_had_arrived(void)
{
    tb b;
    asked_at_client(&b, 0.0008);
    tb_data(&b, SERVER, 0.0018, 1, 100, 1 + REQ);
    tb_ack(&b, CLIENT, 0.00181, 101, 1 + REQ, WIN);
    tb_data(&b, CLIENT, 0.01, 1 + REQ, 31, 101);
    tb_data(&b, SERVER, 0.010018, 101, 31, 1 + REQ);
    tb_ack(&b, CLIENT, 0.0102, 132, 32 + REQ, WIN);
    uint32_t answer = tb_data(&b, SERVER, 0.155, 132, 500, 32 + REQ);
    tb_ack(&b, CLIENT, 0.1551, 632, 32 + REQ, WIN);
    g_assert_cmpint(tb_verdict(&b, answer, true).cause, ==, TAPO_CAUSE_DATA_UNAVAILABLE);
    tb_free(&b);
}

/* At the server, 10 ms from the client: the handshake, a request of REQ
 * bytes, the server's 1000-byte answer and the client's ACK of it (at
 * 0.0302 s). */
static void answered_at_server(tb *b)
{
    tb_init(b, 1000, 5000000);
    tb_handshake(b, 0.0, 0.01, WIN, WIN);
    tb_data(b, CLIENT, 0.02, 1, REQ, 1);
    tb_data(b, SERVER, 0.0201, 1, 1000, 1 + REQ);
    tb_ack(b, CLIENT, 0.0302, 1001, 1 + REQ, WIN);
}

/* At the server, a capture that kept a few packets of a long download (a
 * sliced capture): the client's ACK jumps 1.9 GB past anything the capture
 * saw the server send, and the server's next segment starts exactly
 * there; later the same again, 3.9 GB from the first reference, past the
 * 32-bit wrap.  Both ends agree that the capture missed the data in
 * between: no segment is a copy of old data (without the rejoin, the
 * second jump's segments were placed gigabytes back, as copies).  A far
 * ACK that no segment of the server confirms stays ignored (garbage). */
static void test_sliced_capture_claims_no_copy(void)
{
    tb b;
    answered_at_server(&b);
    tb_data(&b, SERVER, 2.0, 1001, 752, 1 + REQ);
    uint32_t far = 1001u + 1900000000u, farther = far + 45000000u + 1920000000u;
    tb_ack(&b, CLIENT, 60.0, far, 1 + REQ, WIN);
    tb_data(&b, SERVER, 60.0015, far, 752, 1 + REQ);
    tb_data(&b, SERVER, 61.3, far + 45000000u, 752, 1 + REQ);
    tb_ack(&b, CLIENT, 61.3003, far + 45000752u, 1 + REQ, WIN);
    tb_ack(&b, CLIENT, 113.0, farther, 1 + REQ, WIN);
    tb_data(&b, SERVER, 113.0001, farther, 752, 1 + REQ);
    tb_data(&b, SERVER, 114.3, farther + 42000000u, 752, 1 + REQ);
    tb_ack(&b, CLIENT, 114.3003, farther + 42000752u, 1 + REQ, WIN);
    tb_ack(&b, CLIENT, 120.0, farther + 1500000000u, 1 + REQ, WIN);   /* garbage: confirmed by nothing */
    tb_data(&b, SERVER, 120.5, farther + 42000752u, 100, 1 + REQ);
    for (uint32_t f = 1; f <= b.frame; f++)
        if (tb_is_stall(&b, f))
            g_assert_false(tb_verdict(&b, f, true).retransmission);
    g_assert_true(b.conv.ep[SERVER].tx.capture_missed);
    tb_free(&b);
}

/* At the client, rtt_s from the server: the handshake, and a request of
 * REQ bytes rtt_s + 0.1 ms after the SYN. */
static void asked_at_client(tb *b, double rtt_s)
{
    tb_init(b, 1000, 5000000);
    tb_packet(b, CLIENT, 0.0, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
    tb_packet(b, SERVER, rtt_s, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, WIN, 0, NULL);
    tb_ack(b, CLIENT, rtt_s + 0.00005, 1, 1, WIN);
    tb_data(b, CLIENT, rtt_s + 0.0001, 1, REQ, 1);
}

/* At the client, 6 ms from the server (a download): the client closes
 * (FIN), the server's next segment arrives and the client's TCP answers
 * it with a reset numbered at its FIN, below what the server had then
 * received, so the server ignores it (RFC 793, 5961) and goes on: more
 * segments, then two timer copies of the segment the capture saw arrive.
 * The reset's receiver keeps its state, and the arrival, answered by the
 * reset, proves both copies unnecessary (ack-delay), the second too,
 * though nothing answered the first. */
static void test_an_ignored_reset_keeps_the_copies_proven(void)
{
    tb b;
    asked_at_client(&b, 0.006);
    uint32_t seq = 1;
    for (int k = 0; k < 4; k++, seq += TB_MSS)
        tb_data(&b, SERVER, 0.013 + 0.0001 * k, seq, TB_MSS, 1 + REQ);
    tb_ack(&b, CLIENT, 0.0135, seq, 1 + REQ, WIN);
    tb_packet(&b, CLIENT, 0.0136, 1 + REQ, seq, 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN, 0, NULL);
    uint32_t arrived = seq;
    tb_data(&b, SERVER, 0.01361, arrived, TB_MSS, 1 + REQ);
    tb_packet(&b, CLIENT, 0.01364, 1 + REQ, 0, 0, TAPO_TCP_RST, 0, 0, NULL);
    for (int k = 1; k <= 4; k++)
        tb_data(&b, SERVER, 0.0195 + 0.0001 * k, arrived + (uint32_t)k * TB_MSS, TB_MSS, 2 + REQ);
    uint32_t first = tb_data(&b, SERVER, 0.22, arrived, TB_MSS, 2 + REQ);
    uint32_t second = tb_data(&b, SERVER, 0.63, arrived, TB_MSS, 2 + REQ);
    g_assert_cmpint(tb_verdict(&b, first, true).cause, ==, TAPO_CAUSE_ACK_DELAY);
    g_assert_cmpint(tb_verdict(&b, second, true).cause, ==, TAPO_CAUSE_ACK_DELAY);
    tb_free(&b);
}

/* At the client, 6 ms from the server: the client's window is full, and
 * the server's next segment arrives beyond it; the client's duplicate ACK
 * at that segment's start, after it arrived, says its TCP dropped it.
 * The server's timer copy is then no proven-unnecessary copy: not
 * ack-delay, though the capture saw the original arrive and the client
 * answer after it. */
static void test_a_dropped_arrival_proves_nothing(void)
{
    tb b;
    asked_at_client(&b, 0.006);
    tb_data(&b, SERVER, 0.013, 1, TB_MSS, 1 + REQ);
    tb_ack(&b, CLIENT, 0.0131, 1 + TB_MSS, 1 + REQ, 0);             /* window full */
    uint32_t beyond = 1 + TB_MSS;
    tb_data(&b, SERVER, 0.0132, beyond, TB_MSS, 1 + REQ);            /* arrives, dropped */
    tb_ack(&b, CLIENT, 0.0133, beyond, 1 + REQ, 0);                  /* at its start: not taken */
    tb_ack(&b, CLIENT, 0.05, beyond, 1 + REQ, WIN);                  /* window open again */
    uint32_t copy = tb_data(&b, SERVER, 0.25, beyond, TB_MSS, 1 + REQ);
    tb_ack(&b, CLIENT, 0.2501, beyond + TB_MSS, 1 + REQ, WIN);
    g_assert_true(tb_is_stall(&b, copy));
    g_assert_cmpint(tb_verdict(&b, copy, true).cause, !=, TAPO_CAUSE_ACK_DELAY);
    tb_free(&b);
}

/* Captured next to the client but before its lossy last hop: the
 * server's answer passes the capture point, and the client, which never
 * got it, sends its request again (data, so no duplicate ACK), its ACK
 * still at the answer's start.  The server's timer copies are then no
 * proven-unnecessary copies (not ack-delay): the first, sent before the
 * client spoke, is denied by that later ACK (hindsight), the second by
 * the ACK seen before it.  Control: the client's packet acknowledges the
 * answer, and its arrival is proven (ack-delay). */
static void test_an_answer_short_of_the_range_denies_arrival(void)
{
    for (int got_it = 0; got_it < 2; got_it++) {
        tb b;
        asked_at_client(&b, 0.006);
        uint32_t answer = 1;
        tb_data(&b, SERVER, 0.013, answer, TB_MSS, 1 + REQ);             /* passes the capture point */
        uint32_t first = tb_data(&b, SERVER, 0.25, answer, TB_MSS, 1 + REQ);
        uint32_t ack = got_it ? answer + TB_MSS : answer;
        tb_data(&b, CLIENT, 0.3, 1, REQ, ack);                           /* the request again */
        uint32_t second = tb_data(&b, SERVER, 0.7, answer, TB_MSS, 1 + REQ);
        tapo_cause causes[2] = { tb_verdict(&b, first, true).cause, tb_verdict(&b, second, true).cause };
        for (int k = 0; k < 2; k++) {
            if (got_it)
                g_assert_cmpint(causes[k], ==, TAPO_CAUSE_ACK_DELAY);
            else
                g_assert_cmpint(causes[k], !=, TAPO_CAUSE_ACK_DELAY);
        }
        tb_free(&b);
    }
}

/* At the client, 70 ms from the server (no timestamps): a bulk transfer
 * whose first segment arrives but is not acknowledged; the client
 * acknowledges each of the 200 later segments with a duplicate ACK that
 * SACKs them, one every 0.2 ms, more than the sender's clock remembers in
 * a round trip.  The server resends the hole one round trip after the
 * first SACK (fast: released by them), then its timer resends it twice
 * more with no answer.  The first copy was fast, so the doubles are
 * f-double: the clock's ring, full of ACKs still on their way, is no
 * proof that the sender heard nothing since the connection began. */
static void test_a_full_ring_is_no_silence(void)
{
    tb b;
    asked_at_client(&b, 0.07);
    double t = 0.1402;
    tb_data(&b, SERVER, t, 1, TB_MSS, 1 + REQ);                      /* the hole: never acknowledged */
    for (uint32_t k = 1; k <= 200; k++) {
        double at = t + 0.0002 * k;
        tb_data(&b, SERVER, at, 1 + k * TB_MSS, TB_MSS, 1 + REQ);
        uint32_t sack[2] = { 1 + TB_MSS, 1 + (k + 1) * TB_MSS };
        tb_packet(&b, CLIENT, at + 0.00002, 1 + REQ, 1, 0, TAPO_TCP_ACK, 0xffff, 1, sack);
    }
    tb_data(&b, SERVER, t + 0.0006 + 0.07, 1, TB_MSS, 1 + REQ);   /* released by the third SACK */
    tb_data(&b, SERVER, 0.6, 1, TB_MSS, 1 + REQ);
    uint32_t copy = tb_data(&b, SERVER, 1.2, 1, TB_MSS, 1 + REQ);
    tapo_verdict v = tb_verdict(&b, copy, true);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_F_DOUBLE);
    tb_free(&b);
}

/* In the middle, 0.05 ms from a Windows client whose host numbers every
 * packet from one counter: its pure ACK 30 ms after its last data skips 33
 * IDs, more than it could have sent on this connection in that time (it
 * sent no new data: the ACK continues its sequence), which proves the
 * counter shared; so the 17 IDs its FIN skips 12 s later are its host's
 * other packets, not lost copies of the FIN (client-idle, no double). */
static void test_a_pure_ack_proves_the_counter_shared(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    b.use_ip_id = true;
    tb_packet(&b, CLIENT, 0.0, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
    tb_packet(&b, SERVER, 0.0005, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, WIN, 0, NULL);
    tb_ack(&b, CLIENT, 0.00055, 1, 1, WIN);
    tb_data(&b, CLIENT, 0.00096, 1, TB_MSS, 1);
    tb_data(&b, CLIENT, 0.00097, 1 + TB_MSS, 512, 1);
    uint32_t c = 1 + TB_MSS + 512;
    tb_ack(&b, SERVER, 0.0012, c, 1, WIN);
    tb_data(&b, SERVER, 0.0018, 1, 261, c);
    tb_data(&b, CLIENT, 0.0021, c, 220, 262);
    c += 220;
    tb_data(&b, SERVER, 0.0026, 262, 105, c);
    tb_data(&b, CLIENT, 0.0028, c, 824, 367);
    c += 824;
    tb_data(&b, SERVER, 0.0034, 367, 952, c);
    b.next_ip_id[CLIENT] += 33;
    tb_ack(&b, CLIENT, 0.0322, 1319, c, WIN);
    b.next_ip_id[CLIENT] += 16;
    uint32_t fin = tb_packet(&b, CLIENT, 11.99, c, 1319, 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN, 0, NULL);
    tb_ack(&b, SERVER, 11.9906, c + 1, 1319, WIN);
    tapo_verdict v = tb_verdict(&b, fin, true);
    g_assert_false(v.retransmission);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_CLIENT_IDLE);
    tb_free(&b);
}

/* At the server, 10 ms from the client: both send bulk data (64 KB each
 * way, as SMB reads and writes do), the client 'more' segments more than
 * the server, or the server -more more.  c and s: each side's next
 * relative sequence number after it. */
static void both_sent_bulk(tb *b, int more, uint32_t *c, uint32_t *s)
{
    tb_init(b, 1000, 5000000);
    tb_handshake(b, 0.0, 0.01, WIN, WIN);
    *c = *s = 1;
    double t = 0.02;
    for (int k = 0; k < 48 + more; k++, *c += TB_MSS)
        tb_data(b, CLIENT, t + 0.0001 * k, *c, TB_MSS, *s);
    tb_ack(b, SERVER, t + 0.01, *c, *s, WIN);
    t = 0.04;
    for (int k = 0; k < 48 - more; k++, *s += TB_MSS)
        tb_data(b, SERVER, t + 0.0001 * k, *s, TB_MSS, *c);
    tb_ack(b, CLIENT, t + 0.015, *s, *c, WIN);
}

/* Both sent bulk data; then the client's 278-byte request waits 50 ms for
 * the server's answer, which acknowledges it.  The client's data was in
 * flight, but what ended the gap was the server's answer to it: the
 * server's wait (data-unavailable), not the client's ACK coming late
 * (packet-delay). */
static void test_an_answer_ends_the_answerers_wait(void)
{
    tb b;
    uint32_t c, s;
    both_sent_bulk(&b, 0, &c, &s);
    tb_data(&b, CLIENT, 0.1, c, 278, s);
    uint32_t answer = tb_data(&b, SERVER, 0.15, s, 10060, c + 278);
    tb_ack(&b, CLIENT, 0.16, s + 10060, c + 278, WIN);
    tapo_verdict v = tb_verdict(&b, answer, true);
    g_assert_cmpint(v.sender, ==, SERVER);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_DATA_UNAVAILABLE);
    tb_free(&b);
}

/* Both sent bulk data; the server answers a request at once, and the
 * client's next request comes 200 ms later, carrying the first ACK of that
 * answer (an SMB client polling).  A request answers nothing: the gap
 * delayed the server's answer's ACK (packet-delay, the server's stall),
 * whichever side sent more.  Where the client sent more, readers split
 * on whose stall it is (the client's wait to send, by its bytes): the
 * sender's choice is uncertain. */
static void test_a_request_answers_nothing(void)
{
    for (int client_heavier = 0; client_heavier < 2; client_heavier++) {
        tb b;
        uint32_t c, s;
        both_sent_bulk(&b, client_heavier ? 2 : -2, &c, &s);
        tb_data(&b, CLIENT, 0.1, c, 278, s);
        tb_data(&b, SERVER, 0.1001, s, 116, c + 278);
        uint32_t next = tb_data(&b, CLIENT, 0.3001, c + 278, 278, s + 116);
        tb_data(&b, SERVER, 0.3002, s + 116, 116, c + 556);
        tapo_verdict v = tb_verdict(&b, next, true);
        g_assert_cmpint(v.sender, ==, SERVER);
        g_assert_cmpint(v.cause, ==, TAPO_CAUSE_PACKET_DELAY);
        g_assert_cmpint(v.sender_uncertain, ==, client_heavier);
        tb_free(&b);
    }
}

/* The client's chunk of an upload: 20 segments from its byte *c at t_s,
 * acknowledging the server's byte s; *c moves past them. */
static void upload_chunk(tb *b, double t_s, uint32_t *c, uint32_t s)
{
    for (int k = 0; k < 20; k++, *c += TB_MSS)
        tb_data(b, CLIENT, t_s + 0.0001 * k, *c, TB_MSS, s);
}

/* 10 ms apart: the handshake and the upload's first chunk, which the
 * server acknowledges at 0.03 s. */
static void upload_started(tb *b, uint32_t *c, uint32_t *s)
{
    tb_init(b, 1000, 5000000);
    tb_handshake(b, 0.0, 0.01, WIN, WIN);
    *c = *s = 1;
    upload_chunk(b, 0.02, c, *s);
    tb_ack(b, SERVER, 0.03, *c, *s, WIN);
}

/* At the client, 2 ms from the server (the handshake's turnaround): the
 * client polls, the server answers each request 60 ms later on the
 * answer itself (no bare ACK), and the client's next request follows the
 * answer at once.  Those 60 ms are the server's think time, not its
 * distance from the capture point: a turnaround whose answer is the head
 * of a response is not clean (vantage.h), whether its time comes from an
 * echo or from the ACK the answer carries.  Taken as the distance, the
 * server's answer was placed 60 ms before the capture saw it, and the
 * client's request sent at once after it became a stall of the answer's
 * late ACK (packet-delay, high) at a gap of 0.1 ms
 * (filecontainer-smb.pcap 1309). */
static void test_an_answer_on_its_ack_is_no_distance(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    tb_handshake(&b, 0.0, 0.002, WIN, WIN);
    uint32_t c = 1, s = 1, last = 0;
    double t = 0.01;
    for (int i = 0; i < 6; i++) {
        tb_data(&b, CLIENT, t, c, 200, s);
        c += 200;
        last = tb_data(&b, SERVER, t + 0.06, s, 250, c);
        s += 250;
        t += 0.0601;
    }
    uint32_t next = tb_data(&b, CLIENT, t, c, 200, s);
    g_assert_false(tb_is_stall(&b, next));
    g_assert_true(tb_is_stall(&b, last));
    g_assert_cmpint(tb_verdict(&b, last, true).cause, ==, TAPO_CAUSE_DATA_UNAVAILABLE);
    tb_free(&b);
}

/* A remote login captured at the client (its packets at TTL 64, crossing
 * no router; the server's at 61), starting mid-connection: each keystroke
 * is echoed 3 ms later, and the client acknowledges each 1-byte echo with
 * its delayed-ACK timer, 47 ms later.  Those 47 ms are the timer, not a
 * path: an ACK of less than two full segments may wait (RFC 1122), so the
 * client's turnarounds prove it no farther than 47 ms, and the TTL places
 * the capture at it.  Taken as its distance, the capture was "at the
 * server", the client's keystroke "had arrived" when the capture saw it,
 * and its timer's copies became ack-delay (blitz ipv6_ftp_nasa.snp 37,
 * 38).  At the client they are what the packets show: the last byte
 * re-sent by its timer (tail), then again (t-double). */
static void test_a_delayed_ack_places_no_capture(void)
{
    tb b;
    tb_init(&b, 1000, 5000000);
    b.ttl[CLIENT] = 64;
    b.ttl[SERVER] = 61;
    uint32_t c = 1, s = 1;
    double t = 0.0;
    for (int i = 0; i < 6; i++) {
        tb_data(&b, CLIENT, t, c, 1, s);
        c += 1;
        tb_data(&b, SERVER, t + 0.003, s, 1, c);
        s += 1;
        tb_ack(&b, CLIENT, t + 0.050, s, c, WIN);
        t += 0.15;
    }
    tb_data(&b, CLIENT, t, c, 1, s);                      /* its echo is lost */
    uint32_t copy1 = tb_data(&b, CLIENT, t + 0.21, c, 1, s);
    uint32_t copy2 = tb_data(&b, CLIENT, t + 0.63, c, 1, s);
    tb_data(&b, SERVER, t + 0.635, s, 1, c + 1);
    tapo_verdict v1 = tb_verdict(&b, copy1, true), v2 = tb_verdict(&b, copy2, true);
    g_assert_cmpint(v1.sender, ==, CLIENT);
    g_assert_cmpint(v1.cause, ==, TAPO_CAUSE_TAIL);
    g_assert_cmpint(v2.cause, ==, TAPO_CAUSE_T_DOUBLE);
    tb_free(&b);
}

/* An upload in chunks: the client sends 20 segments, the server answers
 * each chunk with 187 bytes at once, and the client's delayed ACK of that
 * answer comes 40 ms later (the server's threshold is 20 ms).  When the
 * client's next chunk follows 10 s later, it answers nothing: the client
 * had nothing to send, and its late ACK held only the server's answer
 * (packet-delay, the server's stall).  When the chunk follows at once
 * after the ACK, the client's delayed-ACK timer fired while it prepared
 * the chunk: its own wait (data-unavailable, the client's stall). */
static void test_an_uploads_next_chunk_answers_late(void)
{
    for (int at_once = 0; at_once < 2; at_once++) {
        tb b;
        uint32_t c, s;
        upload_started(&b, &c, &s);
        tb_data(&b, SERVER, 0.035, s, 187, c);
        uint32_t ack = tb_ack(&b, CLIENT, 0.075, s + 187, c, WIN);
        upload_chunk(&b, at_once ? 0.0755 : 10.0, &c, s + 187);
        tapo_verdict v = tb_verdict(&b, ack, true);
        g_assert_cmpint(v.sender, ==, at_once ? CLIENT : SERVER);
        g_assert_cmpint(v.cause, ==, at_once ? TAPO_CAUSE_DATA_UNAVAILABLE : TAPO_CAUSE_PACKET_DELAY);
        tb_free(&b);
    }
}

/* The same upload, the server's 187-byte answer 0.3 s after its ACK of
 * the chunk (its threshold 20 ms), and the client's next chunk at once
 * after that answer.  The client had nothing in flight and waited for
 * the answer: the server's wait to answer (data-unavailable, the
 * server's stall), not the client idle because the server spoke. */
static void test_an_upload_answered_late_is_the_servers_wait(void)
{
    tb b;
    uint32_t c, s;
    upload_started(&b, &c, &s);
    uint32_t answer = tb_data(&b, SERVER, 0.33, s, 187, c);
    upload_chunk(&b, 0.331, &c, s + 187);
    tapo_verdict v = tb_verdict(&b, answer, true);
    g_assert_cmpint(v.sender, ==, SERVER);
    g_assert_cmpint(v.cause, ==, TAPO_CAUSE_DATA_UNAVAILABLE);
    g_assert_true(v.sender_uncertain);   /* it sent less: chosen by reading its message as an answer */
    tb_free(&b);
}

/* A remote-login keystroke: the client's one byte, unacknowledged, sent
 * again by its timer 0.2 s later at snd_nxt - 1, which Wireshark flags as
 * a keep-alive.  A keep-alive repeats a byte the peer has acknowledged
 * (RFC 1122 4.2.3.6); this byte was not: a retransmission, the client's
 * own stall.  Once the server acknowledged the byte, the same segment is
 * a keep-alive on an idle connection (client-idle). */
static void test_an_unacked_byte_is_no_keep_alive(void)
{
    for (int acked = 0; acked < 2; acked++) {
        tb b;
        tb_init(&b, 1000, 5000000);
        tb_handshake(&b, 0.0, 0.01, WIN, WIN);
        tb_data(&b, CLIENT, 0.02, 1, 20, 1);
        tb_data(&b, SERVER, 0.031, 1, 2000, 21);
        tb_ack(&b, CLIENT, 0.041, 2001, 21, WIN);
        tb_data(&b, CLIENT, 1.0, 21, 1, 2001);
        if (acked)
            tb_ack(&b, SERVER, 1.011, 22, 2001, WIN);
        uint32_t again = tb_keep_alive_byte(&b, CLIENT, acked ? 30.0 : 1.2, 22, 2001);
        tapo_verdict v = tb_verdict(&b, again, true);
        g_assert_cmpint(v.retransmission, ==, !acked);
        g_assert_cmpint(v.sender, ==, acked ? SERVER : CLIENT);
        if (acked)
            g_assert_cmpint(v.cause, ==, TAPO_CAUSE_CLIENT_IDLE);
        tb_free(&b);
    }
}

/* At the client, 10 ms from the server: the client's first 2 bytes of a
 * request (a length prefix), the server's delayed ACK of them 0.2 s
 * later, and its answer 22 ms after that ACK.  When the client sends the
 * rest of the request at once after the ACK (Nagle's algorithm held it
 * for that ACK), the request was incomplete until then: the server could
 * not answer, and the late ACK delayed the client's data (packet-delay,
 * the client's stall).  When nothing follows the ACK before the answer,
 * the server acknowledged a whole request and answered it later: its
 * delayed-ACK timer fired while it worked (data-unavailable). */
static void test_a_request_completed_after_its_ack(void)
{
    for (int held = 0; held < 2; held++) {
        tb b;
        tb_init(&b, 1000, 5000000);
        tb_packet(&b, CLIENT, 0.0, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
        tb_packet(&b, SERVER, 0.01, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, WIN, 0, NULL);
        tb_packet(&b, CLIENT, 0.01005, 1, 1, 0, TAPO_TCP_ACK, WIN, 0, NULL);
        tb_data(&b, CLIENT, 0.0101, 1, 2, 1);
        uint32_t ack = tb_ack(&b, SERVER, 0.2101, 3, 1, WIN);
        if (held)
            tb_data(&b, CLIENT, 0.21015, 3, 33, 1);
        tb_data(&b, SERVER, 0.2321, 1, 1156, held ? 36 : 3);
        tapo_verdict v = tb_verdict(&b, ack, true);
        g_assert_cmpint(v.sender, ==, held ? CLIENT : SERVER);
        g_assert_cmpint(v.cause, ==, held ? TAPO_CAUSE_PACKET_DELAY : TAPO_CAUSE_DATA_UNAVAILABLE);
        tb_free(&b);
    }
}
/* At the server, 10 ms from the client (an FTP control connection): the
 * server answers a request, and 40 ms later sends 24 bytes more of its
 * own ("226 Transfer complete"); the client acknowledges them and closes,
 * and the server's FIN answers the client's.  The server's last data came
 * with no close of its own: its pause was the application's
 * (resource-constraint), not a goodbye before an idle close. */
static void test_a_close_answered_is_the_peers(void)
{
    tb b;
    answered_at_server(&b);
    uint32_t last = tb_data(&b, SERVER, 0.0702, 1001, 24, 1 + REQ);
    tb_ack(&b, CLIENT, 0.0802, 1025, 1 + REQ, WIN);
    tb_packet(&b, CLIENT, 0.0803, 1 + REQ, 1025, 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN, 0, NULL);
    tb_packet(&b, SERVER, 0.08031, 1025, 2 + REQ, 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN, 0, NULL);
    tb_ack(&b, CLIENT, 0.0903, 1026, 2 + REQ, WIN);
    g_assert_cmpint(tb_verdict(&b, last, true).cause, ==, TAPO_CAUSE_RESOURCE_CONSTRAINT);
    tb_free(&b);
}

/* Whether frame ends a stall, one pass (final false) or two. */
static bool stall_in(tb *b, uint32_t frame, bool final)
{
    tapo_verdict v;
    tapo_conv_summary sum = tb_summary(b);
    return b->records[frame] && tapo_conv_verdict(&sum, b->records[frame], &b->cfg, final, &v);
}

/* A capture that kept a few packets of a long download, at the server
 * and in the middle of a 20 ms path: 58 s after the server's last
 * segment seen, the client's ACK jumps 1.9 GB past it, and the server's
 * next segment starts exactly there.  Both ends agree that the server sent
 * those 1.9 GB in the gap, more than any window, so it needed the
 * client's ACKs all along: it was at work, the gap is the capture's.  The
 * segment ends no stall (the data it skips shows that at once); the far
 * ACK looks like one until the segment confirms it (one pass), and is
 * none in two. */
static void test_sliced_capture_gap_is_no_stall(void)
{
    for (int middle = 0; middle < 2; middle++) {
        double half = middle ? 0.01 : 0.0001, back = middle ? 0.01 : 0.0199;   /* to the server, to the client */
        tb b;
        tb_init(&b, 1000, 5000000);
        tb_packet(&b, CLIENT, 0.0, 0, 0, 0, TAPO_TCP_SYN, WIN, 0, NULL);
        tb_packet(&b, SERVER, 2 * half, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, WIN, 0, NULL);
        tb_ack(&b, CLIENT, 2 * half + 2 * back, 1, 1, WIN);
        double t = 0.1;
        tb_data(&b, CLIENT, t, 1, REQ, 1);
        tb_data(&b, SERVER, t + 2 * half, 1, 1000, 1 + REQ);
        tb_ack(&b, CLIENT, t + 2 * half + 2 * back, 1001, 1 + REQ, WIN);
        tb_data(&b, SERVER, 2.0, 1001, 752, 1 + REQ);
        uint32_t far = 1001u + 1900000000u;
        uint32_t far_ack = tb_ack(&b, CLIENT, 60.0, far, 1 + REQ, WIN);
        uint32_t rejoin = tb_data(&b, SERVER, 60.0 + 2 * half + 0.0005, far, 752, 1 + REQ);
        tb_ack(&b, CLIENT, 60.0 + 2 * half + 2 * back + 0.0005, far + 752, 1 + REQ, WIN);
        g_assert_true(stall_in(&b, far_ack, false));
        g_assert_false(stall_in(&b, far_ack, true));
        g_assert_false(stall_in(&b, rejoin, false));
        g_assert_false(stall_in(&b, rejoin, true));
        tb_free(&b);
    }
}

/* At the server, 10 ms from the client: the server answers a request,
 * pauses 2 s, sends 50 bytes more, and closes.  With its FIN at once
 * after them, those bytes were a goodbye sent with the close (an idle
 * close: client-idle, by the audit); with the FIN 0.5 s later, itself
 * after a pause, they were the response's last piece and the pause before
 * them the application's (resource-constraint). */
static void test_goodbye_comes_with_the_close(void)
{
    const double fin_after_s[] = { 0.0001, 0.5 };
    const tapo_cause causes[] = { TAPO_CAUSE_CLIENT_IDLE, TAPO_CAUSE_RESOURCE_CONSTRAINT };
    for (int i = 0; i < 2; i++) {
        tb b;
        answered_at_server(&b);
        uint32_t last = tb_data(&b, SERVER, 2.0302, 1001, 50, 1 + REQ);
        tb_packet(&b, SERVER, 2.0302 + fin_after_s[i], 1051, 1 + REQ, 0, TAPO_TCP_ACK | TAPO_TCP_FIN, WIN, 0, NULL);
        tb_ack(&b, CLIENT, 2.0402 + fin_after_s[i], 1052, 1 + REQ, WIN);
        g_assert_cmpint(tb_verdict(&b, last, true).cause, ==, causes[i]);
        tb_free(&b);
    }
}

/* The census says which host carried an ID: a missing ID the sender's
 * own host carried in between proves its counter host-wide; another
 * host's packet with that ID, or one before the sender's previous packet,
 * proves nothing about it. */
static void test_census_knows_the_host(void)
{
    tapo_id_census c;
    tapo_id_census_init(&c);
    uint32_t a = 0x0a000001u, other = 0x0a000002u;
    uint32_t before = tapo_id_census_note(&c, 101, a);   /* ID 101, before the sender's previous packet */
    uint32_t prev = tapo_id_census_note(&c, 100, a);
    tapo_id_census_note(&c, 102, other);
    uint32_t next = tapo_id_census_note(&c, 104, a);
    g_assert_cmpuint(before, <, prev);
    g_assert_true(tapo_id_census_carried_between(&c, prev, 100, next, 104));         /* 102, by anyone */
    g_assert_false(tapo_id_census_host_carried_between(&c, prev, 100, next, 104));   /* not by a */
    uint32_t later = tapo_id_census_note(&c, 103, a);
    uint32_t last = tapo_id_census_note(&c, 105, a);
    g_assert_true(tapo_id_census_host_carried_between(&c, prev, 100, last, 105));    /* 103 and 104, by a */
    g_assert_false(tapo_id_census_host_carried_between(&c, later, 103, last, 105)); /* 104 came before 103 */
    uint32_t unknown = tapo_id_census_note(&c, 107, 0);
    g_assert_false(tapo_id_census_host_carried_between(&c, prev, 100, unknown, 107)); /* whose is 107? */
    tapo_id_census_destroy(&c);
}

/* At the client: the server's host numbers its packets from one counter,
 * which the capture shows once: an ID missing between two of this
 * connection's segments is carried by the same host's packet elsewhere (a
 * packet too few to prove it by timing).  After 5 s of silence its next
 * segment, new data, comes 3 IDs on, the 2 missing ones in no packet of
 * the capture: packets it sent elsewhere, unseen, as much as copies of
 * this data, so no copy is counted (the application paused after a short
 * segment).  Counted, they would make it a timer's second copy. */
static void test_host_packets_prove_the_counter_shared(void)
{
    assert_a_pause(late_segment(0, true, 2));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/trust/audit/dsack-refutes-a-double", test_audit_dsack_refutes_a_double);
    g_test_add_func("/trust/audit/hole-refutes-packet-delay", test_audit_hole_refutes_packet_delay);
    g_test_add_func("/trust/audit/reset-is-no-delivery", test_audit_reset_is_no_delivery);
    g_test_add_func("/trust/audit/idle-close-is-client-idle", test_audit_idle_close_is_client_idle);
    g_test_add_func("/trust/confidence-follows-the-caveats", test_confidence_follows_the_caveats);
    g_test_add_func("/trust/sender-chosen-against-the-bytes", test_sender_chosen_against_the_bytes);
    g_test_add_func("/trust/messages-counted", test_messages_counted);
    g_test_add_func("/trust/sender-chosen-by-answers", test_sender_chosen_by_answers);
    g_test_add_func("/trust/requests-heavier-than-answers", test_requests_heavier_than_answers);
    g_test_add_func("/trust/a-receivers-copy-is-its-own", test_a_receivers_copy_is_its_own);
    g_test_add_func("/trust/peers-heavier-sender", test_peers_heavier_sender);
    g_test_add_func("/trust/peers-late-ack-delays-the-other", test_peers_late_ack_delays_the_other);
    g_test_add_func("/trust/closing-answers-nothing", test_closing_answers_nothing);
    g_test_add_func("/trust/a-bare-close-answers-nothing", test_a_bare_close_answers_nothing);
    g_test_add_func("/trust/an-ignored-reset-keeps-the-copies-proven", test_an_ignored_reset_keeps_the_copies_proven);
    g_test_add_func("/trust/a-dropped-arrival-proves-nothing", test_a_dropped_arrival_proves_nothing);
    g_test_add_func("/trust/an-answer-short-of-the-range-denies-arrival", test_an_answer_short_of_the_range_denies_arrival);
    g_test_add_func("/trust/a-full-ring-is-no-silence", test_a_full_ring_is_no_silence);
    g_test_add_func("/trust/a-pure-ack-proves-the-counter-shared", test_a_pure_ack_proves_the_counter_shared);
    g_test_add_func("/trust/an-idle-sender-claims-no-chain", test_an_idle_sender_claims_no_chain);
    g_test_add_func("/trust/a-short-segment-is-no-full-one", test_a_short_segment_is_no_full_one);
    g_test_add_func("/trust/a-fin-resent-after-its-ack", test_a_fin_resent_after_its_ack);
    g_test_add_func("/trust/an-ack-says-what-had-arrived", test_an_ack_says_what_had_arrived);
    g_test_add_func("/trust/an-answer-ends-the-answerers-wait", test_an_answer_ends_the_answerers_wait);
    g_test_add_func("/trust/a-request-answers-nothing", test_a_request_answers_nothing);
    g_test_add_func("/trust/a-close-answered-is-the-peers", test_a_close_answered_is_the_peers);
    g_test_add_func("/trust/a-request-completed-after-its-ack", test_a_request_completed_after_its_ack);
    g_test_add_func("/trust/an-uploads-next-chunk-answers-late", test_an_uploads_next_chunk_answers_late);
    g_test_add_func("/trust/an-unacked-byte-is-no-keep-alive", test_an_unacked_byte_is_no_keep_alive);
    g_test_add_func("/trust/an-upload-answered-late-is-the-servers-wait", test_an_upload_answered_late_is_the_servers_wait);
    g_test_add_func("/trust/an-answer-on-its-ack-is-no-distance", test_an_answer_on_its_ack_is_no_distance);
    g_test_add_func("/trust/a-delayed-ack-places-no-capture", test_a_delayed_ack_places_no_capture);
    g_test_add_func("/trust/a-skip-is-its-own-packets", test_a_skip_is_its_own_packets);
    g_test_add_func("/trust/skipped-ids-are-owed-acks", test_skipped_ids_are_owed_acks);
    g_test_add_func("/trust/server-by-ports", test_server_by_ports);
    g_test_add_func("/trust/clock-of-a-burst-released-late", test_clock_of_a_burst_released_late);
    g_test_add_func("/trust/a-jump-proves-the-counter-shared", test_a_jump_proves_the_counter_shared);
    g_test_add_func("/trust/census-knows-the-host", test_census_knows_the_host);
    g_test_add_func("/trust/host-packets-prove-the-counter-shared", test_host_packets_prove_the_counter_shared);
    g_test_add_func("/trust/shared-counter-proves-no-copy", test_shared_counter_proves_no_copy);
    g_test_add_func("/trust/sliced-capture-claims-no-copy", test_sliced_capture_claims_no_copy);
    g_test_add_func("/trust/sliced-capture-gap-is-no-stall", test_sliced_capture_gap_is_no_stall);
    g_test_add_func("/trust/goodbye-comes-with-the-close", test_goodbye_comes_with_the_close);
    return g_test_run();
}
