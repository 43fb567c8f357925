/* flow_identity.c: see flow_identity.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "wire/flow_identity.h"

#include <string.h>

void tapo_flow_identity_init(tapo_flow_identity *id, const tapo_segment_fields *first)
{
    id->first = first->ends;
    id->same_host = memcmp(first->ends.src, first->ends.dst, sizeof first->ends.src) == 0;
    tapo_wire_init(&id->wire);
}

int tapo_flow_endpoint(const tapo_flow_identity *id, const tapo_segment_fields *seg)
{
    if (seg->ends.sport != seg->ends.dport)
        return seg->ends.sport == id->first.sport ? 0 : 1;
    return memcmp(seg->ends.src, id->first.src, 16) == 0 ? 0 : 1;
}

bool tapo_flow_splits(const tapo_flow_identity *id, const tapo_segment_fields *seg)
{
    return tapo_wire_splits(&id->wire, tapo_flow_endpoint(id, seg), seg);
}

void tapo_flow_packet(tapo_flow_identity *id, uint32_t frame, double time_s, int from,
                      const tapo_segment_fields *seg, tapo_packet *p)
{
    memset(p, 0, sizeof *p);
    p->frame = frame;
    p->time_s = time_s;
    p->from = from;
    p->src_port = seg->ends.sport;
    p->dst_port = seg->ends.dport;
    p->header_valid = true;
    p->seq_raw = seg->seq_raw;
    p->ack_raw = seg->ack_raw;
    p->payload_len = seg->payload_len;
    p->flags = seg->flags & 0xff;
    p->mss_option = seg->mss_option;
    if (seg->flags & TAPO_TCP_ACK) {   /* Wireshark shows SACK edges against the ACK */
        p->sack_count = seg->sack_count;
        memcpy(p->sack_left_raw, seg->sack_left_raw, sizeof p->sack_left_raw);
        memcpy(p->sack_right_raw, seg->sack_right_raw, sizeof p->sack_right_raw);
    }
    p->ip_id = seg->ip_id;
    p->ttl = seg->ttl;
    p->same_host = id->same_host;
    p->has_timestamps = seg->has_timestamps;
    p->tsval = seg->tsval;
    p->tsecr = seg->tsecr;
    tapo_wire_segment(&id->wire, from, seg, p);
}
