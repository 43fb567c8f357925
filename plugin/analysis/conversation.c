/* conversation.c: stall detection, sender choice and verdicts for one TCP
 * connection.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "conversation.h"

#include <math.h>
#include <string.h>

#include "classifier.h"

void tapo_conv_init(tapo_conv *c, const tapo_config *cfg)
{
    memset(c, 0, sizeof *c);
    tapo_sender_init(&c->ep[0], cfg);
    tapo_sender_init(&c->ep[1], cfg);
    c->initiator = -1;
}

void tapo_conv_destroy(tapo_conv *c)
{
    tapo_sender_destroy(&c->ep[0]);
    tapo_sender_destroy(&c->ep[1]);
}

static double gap_before(const tapo_conv *c, const tapo_packet *p)
{
    if (!c->has_prev)
        return 0.0;
    /* A merged or reordered file can go back in time: no negative gaps. */
    return fmax(0.0, p->time_s - c->prev_time_s);
}

static bool same_segment(const tapo_packet *a, const tapo_packet *b)
{
    if (a->from != b->from || a->seq_raw != b->seq_raw || a->ack_raw != b->ack_raw ||
        a->payload_len != b->payload_len || a->flags != b->flags || a->window != b->window ||
        a->ip_id != b->ip_id || a->sack_count != b->sack_count)
        return false;
    for (unsigned i = 0; i < a->sack_count && i < TAPO_MAX_SACK_BLOCKS; i++)
        if (a->sack_left_raw[i] != b->sack_left_raw[i] || a->sack_right_raw[i] != b->sack_right_raw[i])
            return false;
    return true;
}

/* One frame captured more than once (see the limits in the header). */
static bool is_capture_duplicate(const tapo_conv *c, const tapo_packet *p)
{
    double window = p->ip_id ? TAPO_DUPLICATE_WINDOW_ID_S : TAPO_DUPLICATE_WINDOW_S;
    for (unsigned i = 0; i < TAPO_RECENT_PACKETS; i++) {
        const tapo_packet *q = &c->recent[i];
        if (q->frame != 0 && same_segment(p, q) && fabs(p->time_s - q->time_s) < window)
            return true;
    }
    return false;
}

int tapo_conv_sender(const tapo_conv *c, const tapo_config *cfg)
{
    if (cfg->sender_mode == TAPO_SENDER_PORTS && cfg->is_server_port) {
        bool server0 = cfg->is_server_port(c->port[0], cfg->is_server_port_data);
        bool server1 = cfg->is_server_port(c->port[1], cfg->is_server_port_data);
        if (server0 != server1)
            return server0 ? 0 : 1;
    }
    if (c->initiator >= 0)
        return cfg->sender_mode == TAPO_SENDER_INITIATOR ? c->initiator : 1 - c->initiator;
    /* No handshake: the heavier sender so far; on a tie, the endpoint that
     * received the first packet seen (usually the server). */
    return c->ep[0].payload_bytes > c->ep[1].payload_bytes ? 0 : 1;
}

bool tapo_conv_ends_stall(const tapo_conv *c, const tapo_packet *p, const tapo_config *cfg)
{
    if (!c->has_prev || is_capture_duplicate(c, p))
        return false;
    int s = tapo_conv_sender(c, cfg);
    return gap_before(c, p) > tapo_sender_threshold(&c->ep[s], cfg);
}

/* Takes the sender's snapshot before p changes anything, and opens the
 * hindsight tracker that will revise its facts. */
static void open_record(tapo_conv *c, const tapo_config *cfg, double gap, tapo_stall_record *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->sender = tapo_conv_sender(c, cfg);
    tapo_sender *s = &c->ep[rec->sender];
    tapo_snapshot *snap = &rec->snap;
    snap->threshold_s = tapo_sender_threshold(s, cfg);
    snap->prev_frame = c->prev_frame;
    snap->duration_s = gap;
    snap->srtt_s = s->rtt.srtt_s;
    snap->rto_s = s->rtt.rto_s;
    snap->has_rtt = s->rtt.has_sample;
    tapo_sender_snapshot(s, snap, &rec->facts_at_packet);
    rec->facts_final = rec->facts_at_packet;
    rec->facts_final.had_more_data = false;   /* until new data shows otherwise */
    tapo_hs_open(&s->hs, &rec->facts_final, s->snd_una, s->snd_nxt, s->tx_order);
}

/* Describes cur as the sender's own packet. */
static void describe_own_packet(tapo_sender *s, const tapo_tx_info *tx, tapo_stall_record *rec)
{
    tapo_cur *cur = &rec->snap.cur;
    bool resent = tx->kind == TAPO_TX_RETRANSMISSION;
    cur->dir = TAPO_DIR_OUT;
    cur->new_data = tx->new_data;
    cur->retransmission = resent && !tx->handshake;
    cur->handshake_retransmission = resent && tx->handshake;
    cur->window_probe = tx->kind == TAPO_TX_WINDOW_PROBE;
    cur->retrans_count = resent ? tx->retrans_count : 0;
    cur->first_retrans = resent ? tx->first_retrans : TAPO_TRIGGER_NONE;
    cur->trigger = resent ? tx->trigger : TAPO_TRIGGER_NONE;
    cur->segs_sent_after = tx->segs_sent_after;
    cur->data_offset = tx->data_offset;
    if (!resent)
        return;
    if (tx->already_duplicated) {
        rec->facts_at_packet.cur_spurious = true;
        rec->facts_final.cur_spurious = true;
    }
    tapo_hs_set_cur_range(&s->hs, tx->retx_start, tx->retx_end);
}

/* Describes cur as a packet from the receiver. */
static void describe_peer_packet(const tapo_sender *s, const tapo_tx_info *peer_tx,
                                 tapo_stall_record *rec)
{
    tapo_cur *cur = &rec->snap.cur;
    bool resent = peer_tx->kind == TAPO_TX_RETRANSMISSION;
    cur->dir = TAPO_DIR_IN;
    cur->handshake_retransmission = resent && peer_tx->handshake;
    cur->receiver_retransmission = resent && !peer_tx->handshake;
    cur->data_offset = s->payload_bytes;
}

static void describe_cur(tapo_conv *c, const tapo_packet *p, const tapo_tx_info *tx,
                         tapo_stall_record *rec)
{
    tapo_sender *s = &c->ep[rec->sender];
    if (rec->sender == p->from)
        describe_own_packet(s, tx, rec);
    else
        describe_peer_packet(s, tx, rec);
    rec->snap.cur.payload = p->payload_len > 0;
    rec->snap.cur.fin = (p->flags & TAPO_TCP_FIN) != 0;
    rec->snap.cur.rst = (p->flags & TAPO_TCP_RST) != 0;
    rec->bytes_at_packet = s->payload_bytes;
}

static void note_roles(tapo_conv *c, const tapo_packet *p)
{
    if (!c->has_prev) {
        c->port[p->from] = p->src_port;
        c->port[1 - p->from] = p->dst_port;
    }
    if (c->initiator < 0 && p->header_valid && (p->flags & TAPO_TCP_SYN))
        c->initiator = (p->flags & TAPO_TCP_ACK) ? 1 - p->from : p->from;
}

/* Once both FINs are ACKed, or after a reset, no later packet can change a
 * verdict: free the per-flow containers (state stays bounded on long
 * captures of many flows). */
static void release_if_over(tapo_conv *c, const tapo_packet *p)
{
    if (p->header_valid && (p->flags & TAPO_TCP_RST))
        c->rst_seen = true;
    bool closed = true;
    for (int e = 0; e < 2; e++)
        closed = closed && c->ep[e].fin_sent && c->ep[e].snd_una >= c->ep[e].snd_nxt;
    if (closed || c->rst_seen) {
        tapo_sender_release(&c->ep[0]);
        tapo_sender_release(&c->ep[1]);
    }
}

void tapo_conv_process(tapo_conv *c, const tapo_packet *p, const tapo_config *cfg,
                       tapo_stall_record *rec)
{
    if (p->from != 0 && p->from != 1)
        return;
    if (is_capture_duplicate(c, p))
        return;
    double gap = gap_before(c, p);
    if (rec)
        open_record(c, cfg, gap, rec);
    note_roles(c, p);
    tapo_tx_info tx;
    tapo_sender_on_send(&c->ep[p->from], p, gap, tapo_sender_threshold(&c->ep[p->from], cfg), &tx);
    tapo_sender_on_receive(&c->ep[1 - p->from], p, cfg);
    if (rec)
        describe_cur(c, p, &tx, rec);
    release_if_over(c, p);
    /* A file can go back in time (merged or duplicated frames): gaps are
     * measured from the latest packet, and prev_frame names it. */
    if (!c->has_prev || p->time_s >= c->prev_time_s) {
        c->prev_time_s = p->time_s;
        c->prev_frame = p->frame;
    }
    c->recent[c->recent_next] = *p;
    c->recent_next = (c->recent_next + 1) % TAPO_RECENT_PACKETS;
    c->has_prev = true;
}

bool tapo_conv_sender_looks_reversed(const tapo_conv *c, int sender)
{
    uint64_t mine = c->ep[sender].payload_bytes, theirs = c->ep[1 - sender].payload_bytes;
    return theirs >= TAPO_REVERSED_MIN_BYTES && theirs > TAPO_REVERSED_RATIO * mine;
}

tapo_verdict tapo_conv_verdict(const tapo_conv *c, const tapo_stall_record *rec,
                               const tapo_config *cfg, bool final)
{
    tapo_verdict v = tapo_classify(&rec->snap, final ? &rec->facts_final : &rec->facts_at_packet, cfg);
    v.final = final;
    v.sender = rec->sender;
    uint64_t total = final ? c->ep[rec->sender].payload_bytes : rec->bytes_at_packet;
    double position = total ? (double)rec->snap.cur.data_offset / (double)total : 0.0;
    v.position = fmin(1.0, position);
    return v;
}
