/* packet_builder.c: see packet_builder.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "packet_builder.h"

#include <glib.h>
#include <string.h>

void tb_init(tb *b, uint32_t client_isn, uint32_t server_isn)
{
    memset(b, 0, sizeof *b);
    tapo_config_init_defaults(&b->cfg);
    tapo_conv_init(&b->conv, &b->cfg);
    b->isn[CLIENT] = client_isn;
    b->isn[SERVER] = server_isn;
    b->port[CLIENT] = 40000;
    b->port[SERVER] = 80;
    b->scale_known = true;
    b->next_ip_id[SERVER] = 0x8000;   /* two hosts' counters, far apart */
    tapo_id_census_init(&b->census);
}

void tb_free(tb *b)
{
    tapo_conv_destroy(&b->conv);
    tapo_id_census_destroy(&b->census);
    for (unsigned i = 0; i <= TB_MAX_FRAMES; i++)
        g_free(b->records[i]);
}

static uint32_t feed(tb *b, const tapo_packet *p)
{
    tapo_stall_record *rec = tapo_conv_process(&b->conv, p, &b->cfg, &tapo_heap_records);
    b->records[p->frame] = rec;
    b->last = *p;
    return p->frame;
}

static tapo_packet make_packet(tb *b, int from, double t, uint32_t seq, uint32_t ack, uint32_t len,
                               uint16_t flags, uint32_t window, unsigned nsack, const uint32_t *sack)
{
    g_assert_cmpuint(b->frame, <, TB_MAX_FRAMES);
    tapo_packet p = { 0 };
    p.frame = ++b->frame;
    p.time_s = t;
    p.from = from;
    p.src_port = b->port[from];
    p.dst_port = b->port[1 - from];
    p.header_valid = true;
    p.seq_raw = b->isn[from] + seq;
    p.ack_raw = b->isn[1 - from] + ack;
    p.payload_len = len;
    p.flags = flags;
    p.ttl = b->ttl[from];
    p.window = window;
    p.window_scale_known = b->scale_known || (flags & TAPO_TCP_SYN);
    p.mss_option = (flags & TAPO_TCP_SYN) ? TB_MSS : 0;
    p.sack_count = (uint8_t)nsack;
    for (unsigned i = 0; i < nsack; i++) {
        p.sack_left_raw[i] = b->isn[1 - from] + sack[2 * i];
        p.sack_right_raw[i] = b->isn[1 - from] + sack[2 * i + 1];
    }
    if (b->use_ip_id) {
        p.ip_id = ++b->next_ip_id[from];
        p.census = &b->census;
        p.id_order = tapo_id_census_note(&b->census, p.ip_id, TB_HOST(from));
    }
    return p;
}

uint32_t tb_packet(tb *b, int from, double t, uint32_t seq, uint32_t ack, uint32_t len,
                   uint16_t flags, uint32_t window, unsigned nsack, const uint32_t *sack)
{
    tapo_packet p = make_packet(b, from, t, seq, ack, len, flags, window, nsack, sack);
    return feed(b, &p);
}

/* A keep-alive one below next_seq, carrying len bytes (0 or 1). */
static uint32_t keep_alive(tb *b, int from, double t, uint32_t next_seq, uint32_t ack, uint32_t len)
{
    tapo_packet p = make_packet(b, from, t, next_seq - 1, ack, len, TAPO_TCP_ACK, 65535, 0, NULL);
    p.keep_alive = true;   /* as the wire decoder marks it */
    return feed(b, &p);
}

uint32_t tb_keep_alive(tb *b, int from, double t, uint32_t next_seq, uint32_t ack)
{
    return keep_alive(b, from, t, next_seq, ack, 0);
}

uint32_t tb_keep_alive_byte(tb *b, int from, double t, uint32_t next_seq, uint32_t ack)
{
    return keep_alive(b, from, t, next_seq, ack, 1);
}

uint32_t tb_repeat_last(tb *b, double t)
{
    tapo_packet p = b->last;
    p.frame = ++b->frame;
    p.time_s = t;
    if (p.census)
        p.id_order = tapo_id_census_note(&b->census, p.ip_id, TB_HOST(p.from));
    return feed(b, &p);
}

void tb_other_packet(tb *b, int host_of, uint16_t id)
{
    tapo_id_census_note(&b->census, id, TB_HOST(host_of));
}

void tb_handshake(tb *b, double t, double rtt, uint32_t client_window, uint32_t server_window)
{
    tb_packet(b, CLIENT, t, 0, 0, 0, TAPO_TCP_SYN, client_window, 0, NULL);
    /* Captured at the server, like the paper: the SYN-ACK leaves at once and
     * the client's ACK comes back one RTT later. */
    tb_packet(b, SERVER, t + 0.0002, 0, 1, 0, TAPO_TCP_SYN | TAPO_TCP_ACK, server_window, 0, NULL);
    tb_packet(b, CLIENT, t + rtt, 1, 1, 0, TAPO_TCP_ACK, client_window, 0, NULL);
}

uint32_t tb_data(tb *b, int from, double t, uint32_t seq, uint32_t len, uint32_t ack)
{
    return tb_packet(b, from, t, seq, ack, len, TAPO_TCP_ACK | TAPO_TCP_PSH, 65535, 0, NULL);
}

uint32_t tb_ack(tb *b, int from, double t, uint32_t ack, uint32_t seq, uint32_t window)
{
    return tb_packet(b, from, t, seq, ack, 0, TAPO_TCP_ACK, window, 0, NULL);
}

uint32_t tb_sack(tb *b, int from, double t, uint32_t ack, uint32_t seq, uint32_t window,
                 uint32_t left, uint32_t right)
{
    uint32_t sack[2] = { left, right };
    return tb_packet(b, from, t, seq, ack, 0, TAPO_TCP_ACK, window, 1, sack);
}

tapo_conv_summary tb_summary(tb *b)
{
    tapo_conv_summary sum;
    tapo_conv_summarize(&b->conv, &sum);
    return sum;
}

/* A stall for the sender chosen with the whole capture (two passes). */
bool tb_is_stall(tb *b, uint32_t frame)
{
    tapo_verdict v;
    tapo_conv_summary sum = tb_summary(b);
    return frame <= TB_MAX_FRAMES && b->records[frame] != NULL &&
           tapo_conv_verdict(&sum, b->records[frame], &b->cfg, true, &v);
}

tapo_verdict tb_verdict(tb *b, uint32_t frame, bool final)
{
    tapo_verdict v;
    tapo_conv_summary sum = tb_summary(b);
    if (frame > TB_MAX_FRAMES || !b->records[frame] ||
        !tapo_conv_verdict(&sum, b->records[frame], &b->cfg, final, &v))
        g_error("frame %u is not a stall (%s)", frame, final ? "two-pass" : "one-pass");
    return v;
}

const tapo_stall_view *tb_record(tb *b, uint32_t frame)
{
    return tb_verdict(b, frame, true).view;
}

unsigned tb_stall_count(tb *b)
{
    unsigned n = 0;
    for (uint32_t f = 1; f <= b->frame; f++)
        n += tb_is_stall(b, f);
    return n;
}
