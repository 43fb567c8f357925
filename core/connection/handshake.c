/* handshake.c: see handshake.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "connection/handshake.h"
#include "base/endpoint_pair.h"

#include <string.h>

tapo_handshake_kind tapo_handshake_classify(const tapo_handshake *h, const tapo_sender *self,
                                            const tapo_sender *peer, const tapo_packet *p)
{
    if (!p->header_valid || !(p->flags & TAPO_TCP_SYN))
        return TAPO_HANDSHAKE_SAME;
    uint32_t isn, peer_isn;
    if (!tapo_sender_isn(self, &isn) || p->seq_raw == isn)
        return TAPO_HANDSHAKE_SAME;
    if (!(p->flags & TAPO_TCP_ACK))
        return TAPO_HANDSHAKE_NEW_CONNECTION;
    if (!tapo_sender_isn(peer, &peer_isn) || p->ack_raw != peer_isn + 1)
        return TAPO_HANDSHAKE_NEW_CONNECTION;
    /* The same SYN answered twice (a retried SYN reaching two servers behind
     * one address, or a server that restarted): the initiator's ACK tells
     * which answer it took. */
    return h->acked ? TAPO_HANDSHAKE_STRAY : TAPO_HANDSHAKE_NEW_ANSWER;
}

void tapo_handshake_note(tapo_handshake *h, const tapo_packet *p, tapo_handshake_timing *timing)
{
    memset(timing, 0, sizeof *timing);
    if (!p->header_valid)
        return;
    bool syn = p->flags & TAPO_TCP_SYN, ack = p->flags & TAPO_TCP_ACK;
    if (syn && !ack) {
        h->initiator = tapo_opt_endpoint_of(p->from);
        h->syn_s = p->time_s;
        h->syn_seen = true;
    } else if (syn && ack) {
        if (!h->initiator.known) {
            h->initiator = tapo_opt_endpoint_of(tapo_peer_of(p->from));
        } else if (p->from != h->initiator.e && h->syn_seen) {
            timing->turnaround = true;
            timing->turnaround_s = p->time_s - h->syn_s;
        }
        h->syn_ack_s = p->time_s;
        h->syn_ack_seen = true;
    } else if (ack && h->initiator.known && p->from == h->initiator.e && h->syn_ack_seen && !h->acked) {
        timing->turnaround = true;
        timing->turnaround_s = p->time_s - h->syn_ack_s;
        h->acked = true;
        h->ack_s = p->time_s;
        if (h->syn_seen) {
            timing->syn_round_trip = true;
            timing->syn_round_trip_s = p->time_s - h->syn_s;
        }
    } else if (ack && !(p->flags & TAPO_TCP_RST) && h->syn_seen && p->from == h->initiator.e && !h->syn_ack_seen &&
               !h->acked) {
        /* The initiator acknowledges a SYN-ACK the capture never saw (it
         * sees one direction only): SYN to ACK is still the round trip
         * of the path, as Wireshark's initial RTT counts it. */
        h->acked = true;
        timing->syn_round_trip = true;
        timing->syn_round_trip_s = p->time_s - h->syn_s;
        timing->syn_ack_unseen = true;
    }
}
