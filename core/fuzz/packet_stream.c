/* packet_stream.c: see packet_stream.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "packet_stream.h"

#include <string.h>

static uint32_t take(tapo_stream_reader *r, unsigned bytes)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < bytes; i++) {
        uint32_t b = r->pos < r->size ? r->data[r->pos] : 0;
        r->pos++;
        v |= b << (8 * i);
    }
    return v;
}

void tapo_stream_open(tapo_stream_reader *r, const uint8_t *data, size_t size, tapo_config *cfg)
{
    memset(r, 0, sizeof *r);
    r->data = data;
    r->size = size;
    tapo_config_init_defaults(cfg);
    uint32_t modes = take(r, 1), tau_tenths = take(r, 1), min_stall_ms = take(r, 1),
             small = take(r, 1);
    cfg->sender_mode = (tapo_sender_mode)(modes & 3);
    cfg->vantage_mode = (tapo_vantage_mode)((modes >> 2) & 3);
    if (tau_tenths)
        cfg->tau = tau_tenths / 10.0;
    cfg->min_stall_s = min_stall_ms / 1000.0;
    if (small)
        cfg->small_window_segments = small;
}

bool tapo_stream_next(tapo_stream_reader *r, tapo_packet *p)
{
    if (r->pos >= r->size)
        return false;
    memset(p, 0, sizeof *p);
    uint32_t meta = take(r, 1);
    p->flags = (uint16_t)take(r, 1);
    double delta = take(r, 4) / 1e6;
    r->time_s += (meta & 0x40) ? -delta : delta;
    p->time_s = r->time_s;
    p->frame = ++r->frame;
    p->from = meta & 1;
    p->src_port = p->from ? 80 : 40000;
    p->dst_port = p->from ? 40000 : 80;
    p->header_valid = !(meta & 2);
    p->has_timestamps = meta & 4;
    p->keep_alive = meta & 8;
    p->zero_window_probe = meta & 0x10;
    p->window_scale_known = meta & 0x20;
    p->seq_raw = take(r, 4);
    p->ack_raw = take(r, 4);
    p->payload_len = take(r, 2);
    p->window = take(r, 4);
    p->mss_option = (uint16_t)take(r, 2);
    p->sack_count = (uint8_t)(take(r, 1) & 7);
    if (p->sack_count > TAPO_MAX_SACK_BLOCKS)
        p->sack_count = TAPO_MAX_SACK_BLOCKS;
    for (unsigned i = 0; i < p->sack_count; i++) {
        p->sack_left_raw[i] = take(r, 4);
        p->sack_right_raw[i] = take(r, 4);
    }
    p->ip_id = (uint16_t)take(r, 2);
    if (p->has_timestamps) {
        p->tsval = take(r, 4);
        p->tsecr = take(r, 4);
    }
    return true;
}
