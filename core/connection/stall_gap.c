/* stall_gap.c: see stall_gap.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "connection/stall_gap.h"
#include "base/endpoint_pair.h"

#include "sender/recovery.h"

/* p takes sequence space (data, SYN or FIN): it can be a retransmission. */
static bool carries_sequence(const tapo_packet *p)
{
    return p->header_valid && (p->payload_len > 0 || (p->flags & (TAPO_TCP_SYN | TAPO_TCP_FIN)));
}

/* The sender's RTT estimates as they stood when p was sent. */
static void read_estimates(const tapo_endpoint *sender, const tapo_config *cfg, tapo_view_gap *g)
{
    const tapo_rtt *rtt = tapo_rtt_as_of(&sender->rtt_history, &sender->rtt, g->time_s);
    g->srtt = rtt->has_sample ? tapo_opt_s_of(rtt->srtt_s) : tapo_opt_s_none();
    g->rto_s = rtt->rto_s;
    g->threshold_s = tapo_rtt_stall_threshold(rtt, cfg->tau);
}

void tapo_view_gap_read(tapo_endpoint *sender, const tapo_endpoint *peer, const tapo_packet *p,
                        bool own, const tapo_config *cfg, uint32_t turn_version, tapo_view_gap *g)
{
    g->distance = *tapo_endpoint_distance(sender, peer, cfg, turn_version);
    g->time_s = own ? tapo_endpoint_send_time(sender, peer, p, &g->distance) : p->time_s;
    g->on_clock = (tapo_clock_packet){
        .t_s = g->time_s, .own = own, .frame = p->frame,
        /* A SYN-ACK answering a retried SYN echoes the first SYN's TSval
         * (a server keeps it for the connection): SYNs' echoes say nothing
         * of what had arrived.  Nor is a keep-alive's TSval echoed: below
         * the window, it does not update the receiver's TS.Recent (RFC
         * 7323 4.3; Linux answers it with a duplicate ACK), so an echo
         * of an older TSval does not say it had not arrived. */
        .has_ts = p->header_valid && p->has_timestamps && !(p->flags & TAPO_TCP_SYN) && !p->keep_alive,
        .tsval = p->tsval,
        .tsecr = p->tsecr,
        .in_flight_s = p->time_s - g->time_s, .margin_s = tapo_placement_margin(&g->distance),
        .unheard_from_s = tapo_opt_s_none(),
    };
    /* What its acknowledgement says had arrived, and what would have to be
     * acknowledged of the receiver's packets. */
    if (own) {
        g->on_clock.acks = p->header_valid && (p->flags & TAPO_TCP_ACK);
        g->on_clock.seq_mark_raw = p->ack_raw;
    } else if (carries_sequence(p) && !(p->flags & TAPO_TCP_SYN)) {
        g->on_clock.takes_seq = true;
        g->on_clock.seq_mark_raw = tapo_packet_end_raw(p);
    }
    if (own && !carries_sequence(p) && tapo_clock_own_gap_bound(&sender->clock, g->time_s) < cfg->min_stall_s) {
        /* The sender's own pure ACK soon after its previous packet: its
         * gap is below the minimum stall duration (not a candidate, no
         * estimates), and nothing else reads the reading (its silence
         * and prev_frame only serve data, SYN or FIN, and candidates).
         * Away from the sender this skips the walk of the peer packets
         * still on their way to it, most of the timeline's cost. */
        g->clock = (tapo_clock_reading){ 0 };
    } else {
        if (own)
            g->on_clock.unheard_from_s = tapo_sender_acked_before_resend(&sender->tx, p);
        tapo_clock_read(&sender->clock, &g->on_clock, &g->clock);
    }
    tapo_opt_s last_tx = tapo_sender_last_tx(&sender->tx);
    g->since_tx_s = own && last_tx.known ? tapo_opt_s_of(g->time_s - last_tx.s) : tapo_opt_s_none();
    /* The estimates judge a gap that may be a stall (tapo_view_gaps_settle),
     * and the sender's own data, SYN or FIN (what a retransmission was);
     * nothing else reads them, and they are most of the reading's cost. */
    if (g->clock.gap_s >= cfg->min_stall_s || (own && carries_sequence(p))) {
        read_estimates(sender, cfg, g);
    } else {
        g->srtt = tapo_opt_s_none();
        g->rto_s = g->threshold_s = 0.0;
    }
}

void tapo_view_gaps_settle(tapo_view_gap gaps[2], const tapo_packet *p, bool first, const tapo_config *cfg)
{
    /* Both views judge the packet's own sender's wait (a SYN resent
     * ends a stall of the server's view too). */
    tapo_opt_s since_tx = gaps[p->from].since_tx_s;
    gaps[tapo_peer_of(p->from)].since_tx_s = since_tx;
    /* A stall is at least the minimum stall duration, and above the
     * threshold, or nearly as long before a retransmission a timer
     * produced, or a timer's retransmission at least the minimum RTO after
     * the sender's previous transmission whatever the threshold
     * (stall_build.c, spec section 3). */
    bool timer_wait = carries_sequence(p) && since_tx.known && since_tx.s >= TAPO_TIMER_SLACK * cfg->rto_min_s;
    for (int s = 0; s < 2; s++) {
        tapo_view_gap *g = &gaps[s];
        g->candidate = !first && g->clock.gap_s >= cfg->min_stall_s &&
                       (g->clock.gap_s >= TAPO_TIMER_SLACK * g->threshold_s || timer_wait);
    }
}
