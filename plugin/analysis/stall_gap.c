/* stall_gap.c: see stall_gap.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "stall_gap.h"

#include "recovery.h"

void tapo_view_gap_read(tapo_endpoint *sender, const tapo_endpoint *peer, const tapo_packet *p,
                        bool own, bool first, const tapo_config *cfg, uint32_t turn_version,
                        tapo_view_gap *g)
{
    g->distance = *tapo_endpoint_distance(sender, peer, cfg, turn_version);
    g->time_s = own ? tapo_endpoint_send_time(sender, peer, p, &g->distance) : p->time_s;
    g->on_clock = (tapo_clock_packet){
        .t_s = g->time_s, .own = own, .frame = p->frame,
        .has_ts = p->header_valid && p->has_timestamps, .tsval = p->tsval, .tsecr = p->tsecr,
        .in_flight_s = p->time_s - g->time_s, .margin_s = tapo_placement_margin(&g->distance),
    };
    tapo_clock_read(&sender->clock, &g->on_clock, &g->clock);
    const tapo_rtt *rtt = tapo_rtt_as_of(&sender->rtt_history, &sender->rtt, g->time_s);
    g->srtt_s = rtt->srtt_s;
    g->rto_s = rtt->rto_s;
    g->threshold_s = tapo_rtt_stall_threshold(rtt, cfg->tau);
    /* Only a gap above the threshold can be a stall, or nearly as long
     * before a retransmission its timer produced; shorter than the minimum
     * stall duration, only such a retransmission (stall_build.c). */
    bool may_resend = own && p->header_valid &&
                      (p->payload_len > 0 || (p->flags & (TAPO_TCP_SYN | TAPO_TCP_FIN)));
    g->candidate = !first && g->clock.gap_s >= TAPO_TIMER_SLACK * g->threshold_s &&
                   (g->clock.gap_s >= cfg->min_stall_s || may_resend);
}
