/* advice.c: see advice.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "explain/advice.h"
#include "base/endpoint_pair.h"

#include <stdio.h>
#include <string.h>

#define ROLE_PHRASE_MAX (TAPO_ENDPOINT_NAME_MAX + 16)

static const char syn_unanswered[] =
    "{client} got no answer to its SYN for {duration}: check that {server} is up and listening, and "
    "that no filter on the path drops the SYN";
static const char syn_ack_unanswered[] =
    "{server} got no ACK for its SYN-ACK for {duration}: look for loss on the path toward {client}";
static const char fin_unanswered[] =
    "{sender} resent its FIN after {duration} without an ACK from {receiver}: that end may be gone "
    "(closed, reset or unreachable), or the path lost the ACKs";
static const char reset_after_retries[] =
    "{sender} reset the connection {duration} after its last retransmission, none of them answered: "
    "{receiver} may be gone, or the path between them lost everything";
static const char close_after_retries[] =
    "{sender} closed the connection {duration} after its last retransmission, none of them answered: "
    "{receiver} may be gone, or the path between them lost everything";
static const char close_inside_chain[] =
    "{sender} closed its side {duration} after its last retransmission, and went on resending the unanswered "
    "data after it: {receiver} may be gone, or the path between them lost everything";
static const char idle_close_by_sender[] =
    "{sender} closed the connection after {duration} idle: nothing was pending, nothing to fix in TCP";
static const char unseen_idle_close_by_sender[] =
    "{sender} closed the connection after {duration} idle (its FIN is not in the capture: {receiver}'s ACK of "
    "it is): nothing was pending, nothing to fix in TCP";
static const char idle_close_by_receiver[] =
    "{receiver} closed the connection after {duration} with nothing more to ask: nothing to fix in TCP";
static const char delayed_ack[] =
    "{receiver} held its ACK of a single segment for {duration} (its delayed-ACK timer) and nothing was "
    "lost: if the wait matters, have {receiver} acknowledge at once (Linux: TCP_QUICKACK; Windows: "
    "TcpAckFrequency) or {sender} send without waiting for the ACK (TCP_NODELAY)";

/* The same hold, ended by the receiver's next message: no timer fired,
 * the ACK waited for data to ride on (a client polling, a chatty
 * protocol's next command). */
static const char ack_with_next_message[] =
    "{receiver} acknowledged a single segment only with its next message, a stall of {duration} (a delayed ACK "
    "that waited for data to carry it), and nothing was lost: if the wait matters, have {receiver} acknowledge at once "
    "(Linux: TCP_QUICKACK; Windows: TcpAckFrequency) or {sender} send without waiting for the ACK (TCP_NODELAY)";

/* The receiver's request never reached the sender (is_request_lost in
 * classifier.c): no pause of either end, a loss on the way to the sender. */
static const char request_lost[] =
    "{sender} never received the last request of {receiver} (its packet acknowledges none of it): "
    "look for loss on the path from {receiver} to {sender}";

/* The sender closed with a request pending and answered nothing
 * (tapo_close_unanswered): no rule names whose wait that was. */
static const char close_unanswered[] =
    "{sender} closed the connection {duration} after the last message of {receiver} without answering it: "
    "either that message needed no answer, or the application of {sender} gave up on it; the packets do not "
    "tell which";

/* New data after a silence, with IP IDs the capture never saw
 * (is_wait_or_unseen_sends in classifier.c): the wait or a loss. */
static const char unseen_sends_possible[] =
    "{sender} sent this data {duration} after its previous packet, and its IP IDs show packets the capture "
    "never saw: the data may have been lost before the capture point and sent again, or it waited; "
    "a capture nearer {sender} would tell";

/* data-unavailable ended by the sender's bare ACK of the request, its
 * answer only later (hindsight): the gap is until that ACK, not the
 * answer, so "waited before answering" would understate the wait. */
static const char acked_before_answer[] =
    "{sender} acknowledged the request {duration} after it, with no answer ready, and answered only later: "
    "look at its application (processing, back ends, caches)";

/* The longest a receiver may delay an ACK (RFC 1122 4.2.3.2), and the
 * shortest delayed-ACK timer (Linux's), seconds, with a little slack. */
#define DELAYED_ACK_MAX_S 0.5
#define DELAYED_ACK_MIN_S 0.03

/* How long the receiver held its ACK, seconds: from the capture of the
 * segment it acknowledges to the ACK, less the round trip from the
 * capture point to the receiver (nothing at the receiver, where the
 * capture shows the hold itself; the whole path at the sender).  Without
 * that segment's time (Karn), the gap less the sender's whole round trip. */
static double receiver_hold(const tapo_verdict *v)
{
    const tapo_snapshot *snap = &v->view->snap;
    double to_receiver_s = snap->rtt_to_receiver.known ? snap->rtt_to_receiver.s : 0.0;
    if (snap->cur.acked_after_s.known)
        return snap->cur.acked_after_s.s - to_receiver_s;
    double path_s = to_receiver_s + (snap->rtt_to_sender.known ? snap->rtt_to_sender.s : 0.0);
    if (path_s <= 0.0 && snap->srtt.known)
        path_s = snap->srtt.s;
    return v->duration_s - path_s;
}

/* packet-delay where the receiver's own delayed-ACK timer explains the
 * wait: one segment outstanding (a delayed ACK waits for a second one),
 * the receiver's packet acknowledges it, and it held that ACK as long as a
 * delayed-ACK timer does.  An ACK sent at once after a segment that was
 * late on its way is the path's delay, not the receiver's. */
static bool is_delayed_ack(const tapo_verdict *v)
{
    const tapo_snapshot *snap = &v->view->snap;
    if (v->cause != TAPO_CAUSE_PACKET_DELAY || snap->packets_out != 1 || snap->cur.dir != TAPO_DIR_IN ||
        !snap->cur.acks_all)
        return false;
    double held_s = receiver_hold(v);
    return held_s >= DELAYED_ACK_MIN_S && held_s <= DELAYED_ACK_MAX_S;
}

void tapo_role_phrase(const tapo_conv_summary *sum, const tapo_endpoint_names *names, int endpoint,
                      char out[ROLE_PHRASE_MAX])
{
    tapo_basis basis;
    const char *role = tapo_conv_client(sum, &basis) == endpoint ? "the client" : "the server";
    if (names && names->name[endpoint][0])
        snprintf(out, ROLE_PHRASE_MAX, "%s %s", role, names->name[endpoint]);
    else
        snprintf(out, ROLE_PHRASE_MAX, "%s", role);
}

/* The advice that applies: a handshake retry's, else the cause's. */
static const char *template_of(const tapo_verdict *v, const tapo_conv_summary *sum)
{
    const tapo_cur *cur = &v->view->snap.cur;
    if (cur->handshake_retransmission) {
        tapo_basis basis;
        int from = cur->dir == TAPO_DIR_OUT ? v->sender : tapo_peer_of(v->sender);
        return from == tapo_conv_client(sum, &basis) ? syn_unanswered : syn_ack_unanswered;
    }
    if (tapo_close_inside_chain(&v->view->snap, v->facts))
        return close_inside_chain;
    if (cur->dir == TAPO_DIR_OUT && cur->gives_up)
        return cur->rst ? reset_after_retries : close_after_retries;
    if (cur->dir == TAPO_DIR_OUT && cur->retransmission && cur->fin && !cur->payload)
        return fin_unanswered;
    if (v->cause == TAPO_CAUSE_CLIENT_IDLE && (cur->fin || cur->rst))
        return cur->dir == TAPO_DIR_OUT ? idle_close_by_sender : idle_close_by_receiver;
    if (v->cause == TAPO_CAUSE_CLIENT_IDLE && tapo_cur_acks_unseen_one(cur))
        return unseen_idle_close_by_sender;
    if (is_delayed_ack(v))
        return cur->payload ? ack_with_next_message : delayed_ack;
    if (v->cause == TAPO_CAUSE_DATA_UNAVAILABLE && cur->dir == TAPO_DIR_OUT && tapo_cur_is_bare_ack(cur))
        return acked_before_answer;
    if (v->cause == TAPO_CAUSE_UNDETERMINED && tapo_request_lost(&v->view->snap))
        return request_lost;
    if (v->cause == TAPO_CAUSE_UNDETERMINED && tapo_unseen_sends_possible(&v->view->snap))
        return unseen_sends_possible;
    if (v->cause == TAPO_CAUSE_UNDETERMINED && tapo_close_unanswered(&v->view->snap))
        return close_unanswered;
    return tapo_cause_get(v->cause)->advice;
}

enum { TOKENS = 5 };
static const char *const tokens[TOKENS] = { "{sender}", "{receiver}", "{client}", "{server}", "{duration}" };

/* The token the template has at t, or -1. */
static int token_at(const char *t)
{
    if (*t != '{')
        return -1;
    for (int i = 0; i < TOKENS; i++)
        if (strncmp(t, tokens[i], strlen(tokens[i])) == 0)
            return i;
    return -1;
}

/* The text token i stands for. */
static void token_text(const tapo_verdict *v, const tapo_conv_summary *sum, const tapo_endpoint_names *names,
                       int i, char out[ROLE_PHRASE_MAX])
{
    tapo_basis basis;
    int client = tapo_conv_client(sum, &basis);
    const int endpoints[] = { v->sender, tapo_peer_of(v->sender), client, tapo_peer_of(client) };
    if (i < 4)
        tapo_role_phrase(sum, names, endpoints[i], out);
    else
        snprintf(out, ROLE_PHRASE_MAX, "%.3f s", v->duration_s);
}

void tapo_advice(const tapo_verdict *v, const tapo_conv_summary *sum, const tapo_endpoint_names *names,
                 char line[TAPO_HINT_LINE_MAX])
{
    char phrases[TOKENS][ROLE_PHRASE_MAX];
    bool made[TOKENS] = { false };   /* only the tokens the template uses are written */
    size_t used = 0;
    for (const char *t = template_of(v, sum); *t && used + 1 < TAPO_HINT_LINE_MAX;) {
        int token = token_at(t);
        if (token < 0) {
            /* Plain text up to the next brace, as far as the line holds. */
            size_t n = strcspn(t + 1, "{") + 1;
            n = MIN(n, TAPO_HINT_LINE_MAX - 1 - used);
            memcpy(line + used, t, n);
            used += n;
            t += n;
            continue;
        }
        if (!made[token])
            token_text(v, sum, names, token, phrases[token]);
        made[token] = true;
        size_t n = strlen(phrases[token]);
        if (used + n >= TAPO_HINT_LINE_MAX)
            break;
        memcpy(line + used, phrases[token], n);
        used += n;
        t += strlen(tokens[token]);
    }
    line[used] = '\0';
    /* A sentence starts with a capital. */
    if (line[0] >= 'a' && line[0] <= 'z')
        line[0] = (char)(line[0] - 'a' + 'A');
}
