/* sender_choice.c: see sender_choice.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "roles/sender_choice.h"

#include <glib.h>

#include "base/endpoint_pair.h"
#include "roles/roles.h"

/* The sender a preference forces, if it applies to this connection. */
static bool forced_sender(const tapo_conv_summary *sum, const tapo_config *cfg, int *sender)
{
    if (cfg->sender_mode == TAPO_SENDER_PORTS && cfg->is_server_port) {
        bool server0 = cfg->is_server_port(sum->port[0], cfg->is_server_port_data);
        bool server1 = cfg->is_server_port(sum->port[1], cfg->is_server_port_data);
        if (server0 != server1) {
            *sender = server0 ? 0 : 1;
            return true;
        }
    }
    if (sum->initiator.known && cfg->sender_mode == TAPO_SENDER_RESPONDER) {
        *sender = tapo_peer_of(sum->initiator.e);
        return true;
    }
    if (sum->initiator.known && cfg->sender_mode == TAPO_SENDER_INITIATOR) {
        *sender = sum->initiator.e;
        return true;
    }
    return false;
}

/* The client sent more than the server by more than a request: an
 * upload, the client is the data sender.  The excess counts, not the
 * total: requests a little heavier than their answers (an HTTP client's
 * long URLs and cookies, SMB and SSH sessions, a Modbus poller) add up
 * past any floor while every one of them waits on the server's answer. */
static bool is_upload_bytes(uint64_t client_bytes, uint64_t server_bytes)
{
    return client_bytes >= server_bytes + TAPO_SENDER_SWITCH_BYTES;
}

/* Endpoint e pushes its data to a peer that only acknowledges it (reports,
 * heartbeats, a small upload): e sent more payload, and the peer answered
 * fewer than half of e's messages with payload of its own, at least
 * TAPO_SENDER_UNANSWERED of them (one unanswered request is a server
 * that did not answer). */
static bool pushes(const tapo_conv_summary *sum, int e)
{
    const tapo_message_counts *m = &sum->messages;
    uint32_t unanswered = m->messages[e] - m->answered[e];
    return sum->payload_bytes[e] > sum->payload_bytes[tapo_peer_of(e)] && unanswered > m->answered[e] &&
           unanswered >= TAPO_SENDER_UNANSWERED;
}

/* The client is the data sender: an upload by its bytes, or data it
 * pushes whatever their amount. */
static bool client_sends(const tapo_conv_summary *sum, int client, int server)
{
    return is_upload_bytes(sum->payload_bytes[client], sum->payload_bytes[server]) || pushes(sum, client);
}

/* The client: the initiator, or without a handshake the endpoint that is
 * not the server its port names; unknown without either. */
static tapo_opt_endpoint client_of(const tapo_conv_summary *sum)
{
    if (sum->initiator.known)
        return sum->initiator;
    tapo_opt_endpoint server = tapo_server_by_ports(sum->port[0], sum->port[1]);
    return server.known ? tapo_opt_endpoint_of(tapo_peer_of(server.e)) : server;
}

/* The endpoint of view answerer sent cur, a payload answering a request
 * pending for it, and cur acknowledges all the other endpoint (view busy)
 * had in flight: an answer, not an ACK that came late. */
static bool answers_in_flight(const tapo_snapshot *answerer, const tapo_snapshot *busy)
{
    return answerer->cur.dir == TAPO_DIR_OUT && answerer->cur.payload && !answerer->cur.retransmission &&
           answerer->request_pending && answerer->packets_out == 0 && busy->cur.acks_all;
}

/* An upload's chunk (by its bytes, not reports pushed to a peer that
 * rarely answers) answered late by the server: its answer ended the gap,
 * with nothing of the client's in flight and the chunk pending for it.
 * The wait was the server's to answer, as in any request and response
 * (the client waits for that answer to send its next chunk). */
static bool answers_upload(const tapo_conv_summary *sum, const tapo_stall_record *rec, int client, int server)
{
    return rec && !pushes(sum, client) && rec->view[server].stalled && rec->view[client].snap.packets_out == 0 &&
           answers_in_flight(&rec->view[server].snap, &rec->view[client].snap);
}

/* The endpoint whose data the connection is about (the paper's server). */
static int data_sender(const tapo_conv_summary *sum, const tapo_stall_record *rec, tapo_basis *basis)
{
    uint64_t bytes0 = sum->payload_bytes[0], bytes1 = sum->payload_bytes[1];
    if (rec && bytes0 >= TAPO_BULK_BYTES && bytes1 >= TAPO_BULK_BYTES) {
        /* Both send bulk data in turns: the side whose data was in flight,
         * unless the server's answer ended the gap (its payload, a request
         * pending for it, acknowledging all that was in flight): then the
         * gap was its wait to answer.  A client's next request answers
         * nothing: it carries the late ACK of the response in flight (an
         * SMB client polling), and the stall stays the one of the side
         * whose data waited (spec section 1).  Without a client known,
         * either side's answer. */
        bool out0 = rec->view[0].snap.packets_out > 0, out1 = rec->view[1].snap.packets_out > 0;
        if (out0 != out1) {
            int busy = out0 ? 0 : 1, other = tapo_peer_of(busy);
            *basis = TAPO_BASIS_DIRECTION;
            tapo_opt_endpoint client = client_of(sum);
            bool may_answer = !client.known || client.e != other;
            return may_answer && answers_in_flight(&rec->view[other].snap, &rec->view[busy].snap) ? other : busy;
        }
    }
    /* Peers: no request awaits an answer, the heavier sender's data is the
     * connection's. */
    if (tapo_is_peer_protocol(sum->port[0], sum->port[1]) && bytes0 != bytes1) {
        *basis = TAPO_BASIS_DATA;
        return bytes0 > bytes1 ? 0 : 1;
    }
    /* The server (the responder; without a handshake, the endpoint its
     * port names stands in), unless its client has sent more, and enough
     * to be more than a request (an upload), or pushes its data: a client
     * that sent a little more than its answers was sending requests. */
    tapo_opt_endpoint client = client_of(sum);
    if (client.known) {
        int server = tapo_peer_of(client.e);
        if (client_sends(sum, client.e, server)) {
            if (answers_upload(sum, rec, client.e, server)) {
                *basis = TAPO_BASIS_DIRECTION;
                return server;
            }
            *basis = TAPO_BASIS_DATA;
            return client.e;
        }
        *basis = sum->payload_bytes[server] > 0 ? TAPO_BASIS_DATA
               : sum->initiator.known         ? TAPO_BASIS_HANDSHAKE
                                              : TAPO_BASIS_PORTS;
        return server;
    }
    /* Neither handshake nor port rule: the heavier sender so far, on a tie
     * the endpoint that received the first packet seen (usually the
     * server). */
    if (bytes0 != bytes1) {
        *basis = TAPO_BASIS_DATA;
        return bytes0 > bytes1 ? 0 : 1;
    }
    *basis = TAPO_BASIS_DEFAULT;
    return 1;
}

/* The other endpoint's stall, ended by the sender's bare ACK of all it had
 * out: the late ACK delayed the other's data, not the sender's.  Either the
 * sender's own view stalled too and that ACK answered nothing after it
 * (hindsight: a delayed ACK), or the other sent new data at once after the
 * ACK (hindsight, facts->released: Nagle or a closed window held it back;
 * spec section 1, the endpoint whose data the stall delays).  Released
 * data was part of what the sender waited for: a request completed only
 * after the ACK, so an answer after it does not make the wait the
 * sender's. */
static bool stall_of_acked_data(const tapo_conv_summary *sum, int sender, const tapo_stall_view *mine,
                                const tapo_stall_view *other)
{
    if (!other->stalled || other->snap.packets_out == 0)
        return false;
    /* Between peers the sender's next message answers nothing: its late
     * ACK was all it had for the other's message.  A client's next message
     * answers the server's only when sent at once: after a stall of its
     * own it is the client's next request (an upload's next chunk), and
     * the late ACK before it held only the server's data. */
    tapo_opt_endpoint client = client_of(sum);
    bool by_client = client.known && client.e == sender;
    bool answered = (by_client ? mine->facts_final.answered_at_once : mine->facts_final.answered) &&
                    !tapo_is_peer_protocol(sum->port[0], sum->port[1]);
    bool released = tapo_cur_is_peer_bare_ack(&other->snap.cur) && other->facts_final.released;
    if (mine->stalled)
        return tapo_cur_is_bare_ack(&mine->snap.cur) && (!answered || released) && other->snap.cur.acks_all;
    return released;
}

/* The view's stall ended with its endpoint's own copy: of data, or of a
 * SYN or SYN-ACK before its peer had sent anything. */
static bool ends_with_own_copy(const tapo_stall_view *view)
{
    return view->stalled && view->snap.cur.dir == TAPO_DIR_OUT &&
           (view->snap.cur.retransmission || (view->snap.cur.handshake_retransmission && !view->snap.rwnd_seen));
}

/* Out of line: called where a gap may be a stall, and inlined there it
 * tips the link-time inliner on the per-packet path (docs/benchmarks.md). */
G_GNUC_NO_INLINE int tapo_conv_sender(const tapo_conv_summary *sum, const tapo_config *cfg,
                     const tapo_stall_record *rec, tapo_basis *basis)
{
    int sender;
    if (forced_sender(sum, cfg, &sender)) {
        *basis = TAPO_BASIS_PREFERENCE;
        return sender;
    }
    sender = data_sender(sum, rec, basis);
    /* Both directions (spec section 1): a stall that the other endpoint's
     * own retransmission ended delayed that endpoint's data (a request lost
     * on its way to the server is the client's stall), or its handshake
     * when its peer had sent nothing yet (a SYN resent to a silent server
     * is the client's stall: the server has nothing to analyse). */
    const tapo_stall_view *other = rec ? &rec->view[tapo_peer_of(sender)] : NULL;
    if (other && ends_with_own_copy(other)) {
        *basis = TAPO_BASIS_DIRECTION;
        return tapo_peer_of(sender);
    }
    /* Likewise the other's stall that the sender's bare ACK ended. */
    const tapo_stall_view *mine = rec ? &rec->view[sender] : NULL;
    if (other && stall_of_acked_data(sum, sender, mine, other)) {
        *basis = TAPO_BASIS_DIRECTION;
        return tapo_peer_of(sender);
    }
    return sender;
}

/* Whether the sender is the client (the initiator, or without a handshake
 * the endpoint that is not the server by its port) chosen under the upload
 * floor: by its unanswered messages alone. */
static bool chosen_by_messages(const tapo_conv_summary *sum, int sender)
{
    tapo_opt_endpoint client = client_of(sum);
    return client.known && sender == client.e && sum->payload_bytes[sender] < TAPO_SENDER_SWITCH_BYTES;
}

/* Out of line: called for each stall's verdict, and inlined there it tips
 * the link-time inliner on the per-packet path (docs/benchmarks.md). */
G_GNUC_NO_INLINE bool tapo_conv_sender_uncertain(const tapo_conv_summary *sum, int sender, tapo_basis basis,
                                                 const tapo_stall_view *view)
{
    /* A stall the sender's own copy ended is its stall whatever the choice:
     * read with the other as the sender, the copy chooses it back. */
    if (ends_with_own_copy(view) || basis == TAPO_BASIS_PREFERENCE)
        return false;
    /* Between bulk senders, the side whose data waited for a bare ACK is
     * chosen by the packets; the side that answered, or whose data the
     * peer's next message acknowledged, by reading that message as an
     * answer or not, on which readers split where the bytes point the
     * other way (an SMB client that sent more than its server). */
    const tapo_cur *cur = &view->snap.cur;
    bool by_reading = basis != TAPO_BASIS_DIRECTION || view->snap.packets_out == 0 ||
                      (cur->dir == TAPO_DIR_IN && cur->payload);
    return by_reading && (sum->payload_bytes[sender] < sum->payload_bytes[tapo_peer_of(sender)] ||
                          chosen_by_messages(sum, sender));
}

bool tapo_conv_sender_looks_reversed(const tapo_conv_summary *sum, int sender,
                                     const tapo_config *cfg)
{
    if (cfg->sender_mode == TAPO_SENDER_AUTO)
        return false;
    uint64_t mine = sum->payload_bytes[sender], theirs = sum->payload_bytes[tapo_peer_of(sender)];
    return theirs >= TAPO_REVERSED_MIN_BYTES && theirs > TAPO_REVERSED_RATIO * mine;
}

