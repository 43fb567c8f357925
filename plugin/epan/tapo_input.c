/* tapo_input.c: reading the fields Wireshark's TCP dissector parsed.
 *
 * A post-dissector sees only the fields it declared (SDK notes section 0),
 * so every field is listed once in input_fields, resolved at handoff, and
 * read through the same few typed helpers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "tapo_input.h"

#include <epan/ftypes/ftypes.h>
#include <wsutil/nstime.h>

typedef enum {
    IN_STREAM, IN_SRCPORT, IN_DSTPORT, IN_SEQ_RAW, IN_ACK_RAW, IN_ACK, IN_LEN, IN_FLAGS,
    IN_WINDOW, IN_WINDOW_SCALE, IN_MSS, IN_SACK_LE, IN_SACK_RE, IN_KEEP_ALIVE,
    IN_ZERO_WINDOW_PROBE, IN_IP_ID, IN_TSVAL, IN_TSECR, IN_ICMP, IN_ICMPV6, IN_COUNT
} input_id;

typedef struct {
    const char *name;
    bool required;     /* TAPO cannot analyse anything without it */
    int hf;            /* resolved at handoff; -1 when this Wireshark lacks it */
} input_field;

static input_field input_fields[IN_COUNT] = {
    [IN_STREAM] = { "tcp.stream", true, -1 },
    [IN_SRCPORT] = { "tcp.srcport", true, -1 },
    [IN_DSTPORT] = { "tcp.dstport", true, -1 },
    [IN_SEQ_RAW] = { "tcp.seq_raw", true, -1 },
    [IN_ACK_RAW] = { "tcp.ack_raw", true, -1 },
    [IN_ACK] = { "tcp.ack", true, -1 },
    [IN_LEN] = { "tcp.len", true, -1 },
    [IN_FLAGS] = { "tcp.flags", true, -1 },
    [IN_WINDOW] = { "tcp.window_size", true, -1 },
    [IN_WINDOW_SCALE] = { "tcp.window_size_scalefactor", false, -1 },
    [IN_MSS] = { "tcp.options.mss_val", false, -1 },
    [IN_SACK_LE] = { "tcp.options.sack_le", false, -1 },
    [IN_SACK_RE] = { "tcp.options.sack_re", false, -1 },
    [IN_KEEP_ALIVE] = { "tcp.analysis.keep_alive", false, -1 },
    [IN_ZERO_WINDOW_PROBE] = { "tcp.analysis.zero_window_probe", false, -1 },
    [IN_IP_ID] = { "ip.id", false, -1 },
    [IN_TSVAL] = { "tcp.options.timestamp.tsval", false, -1 },
    [IN_TSECR] = { "tcp.options.timestamp.tsecr", false, -1 },
    /* A TCP header quoted in an ICMP error gets a tcp.stream when 16 bytes
     * of it are there, but it is no segment of the connection. */
    [IN_ICMP] = { "icmp", false, -1 },
    [IN_ICMPV6] = { "icmpv6", false, -1 },
};

GArray *tapo_input_resolve(void)
{
    GArray *wanted = g_array_new(FALSE, FALSE, sizeof(int));
    bool complete = true;
    for (int i = 0; i < IN_COUNT; i++) {
        input_field *f = &input_fields[i];
        f->hf = proto_registrar_get_id_byname(f->name);
        if (f->hf < 0) {
            ws_warning("TAPO: this Wireshark has no field %s%s", f->name,
                       f->required ? "; stall analysis is disabled" : "");
            complete = complete && !f->required;
            continue;
        }
        g_array_append_val(wanted, f->hf);
    }
    if (!complete) {
        g_array_free(wanted, TRUE);
        return NULL;
    }
    return wanted;
}

static GPtrArray *occurrences(proto_tree *tree, input_id id)
{
    int hf = input_fields[id].hf;
    if (hf < 0)
        return NULL;
    GPtrArray *a = proto_get_finfo_ptr_array(tree, hf);
    return a && a->len ? a : NULL;
}

static field_info *last_of(proto_tree *tree, input_id id)
{
    GPtrArray *a = occurrences(tree, id);
    return a ? g_ptr_array_index(a, a->len - 1) : NULL;
}

/* Unsigned integers up to 32 bits (FT_UINT*, FT_FRAMENUM). */
static bool last_uint(proto_tree *tree, input_id id, uint32_t *value)
{
    field_info *fi = last_of(tree, id);
    if (!fi)
        return false;
    *value = fvalue_get_uinteger(TAPO_FI_VALUE(fi));
    return true;
}

static bool last_sint(proto_tree *tree, input_id id, int32_t *value)
{
    field_info *fi = last_of(tree, id);
    if (!fi)
        return false;
    *value = fvalue_get_sinteger(TAPO_FI_VALUE(fi));
    return true;
}

static bool present(proto_tree *tree, input_id id)
{
    return occurrences(tree, id) != NULL;
}

/* SACK edges are relative to the same base as tcp.ack (SDK notes 0.8), so
 * raw = relative + (ack_raw - ack).  Only the blocks of the innermost TCP
 * header count: those after its source port in the frame. */
static void read_sack_blocks(proto_tree *tree, const field_info *header, uint32_t ack_base,
                             tapo_packet *pkt)
{
    GPtrArray *left = occurrences(tree, IN_SACK_LE);
    GPtrArray *right = occurrences(tree, IN_SACK_RE);
    if (!left || !right)
        return;
    for (unsigned i = 0; i < left->len && i < right->len; i++) {
        field_info *l = g_ptr_array_index(left, i);
        field_info *r = g_ptr_array_index(right, i);
        if (l->ds_tvb == header->ds_tvb && l->start < header->start)
            continue;
        if (pkt->sack_count == TAPO_MAX_SACK_BLOCKS)
            break;
        pkt->sack_left_raw[pkt->sack_count] = fvalue_get_uinteger(TAPO_FI_VALUE(l)) + ack_base;
        pkt->sack_right_raw[pkt->sack_count] = fvalue_get_uinteger(TAPO_FI_VALUE(r)) + ack_base;
        pkt->sack_count++;
    }
}

static void read_header(proto_tree *tree, tapo_packet *pkt)
{
    uint32_t flags = 0, ack_rel = 0, window = 0, mss = 0, ip_id = 0;
    int32_t scale = -1;
    pkt->header_valid = last_uint(tree, IN_SEQ_RAW, &pkt->seq_raw) &&
                        last_uint(tree, IN_FLAGS, &flags);
    pkt->flags = (uint16_t)flags;
    if (!last_uint(tree, IN_ACK_RAW, &pkt->ack_raw) || !last_uint(tree, IN_ACK, &ack_rel))
        pkt->flags &= (uint16_t)~TAPO_TCP_ACK;
    last_uint(tree, IN_LEN, &pkt->payload_len);
    last_uint(tree, IN_WINDOW, &window);
    pkt->window = window;
    /* -1: no handshake seen, the scale is unknown; absent on SYNs, whose
     * windows are never scaled. */
    pkt->window_scale_known = !last_sint(tree, IN_WINDOW_SCALE, &scale) || scale != -1;
    if (last_uint(tree, IN_MSS, &mss))
        pkt->mss_option = (uint16_t)mss;
    if (last_uint(tree, IN_IP_ID, &ip_id))
        pkt->ip_id = (uint16_t)ip_id;
    pkt->has_timestamps = last_uint(tree, IN_TSVAL, &pkt->tsval) && last_uint(tree, IN_TSECR, &pkt->tsecr);
    pkt->keep_alive = present(tree, IN_KEEP_ALIVE);
    pkt->zero_window_probe = present(tree, IN_ZERO_WINDOW_PROBE);
    field_info *header = last_of(tree, IN_SRCPORT);
    if (header && (pkt->flags & TAPO_TCP_ACK))
        read_sack_blocks(tree, header, pkt->ack_raw - ack_rel, pkt);
}

bool tapo_input_read(proto_tree *tree, packet_info *pinfo, uint32_t *stream, tapo_packet *pkt)
{
    memset(pkt, 0, sizeof *pkt);
    if (!tree || !last_uint(tree, IN_STREAM, stream) || present(tree, IN_ICMP) || present(tree, IN_ICMPV6))
        return false;
    uint32_t sport = 0, dport = 0;
    last_uint(tree, IN_SRCPORT, &sport);
    last_uint(tree, IN_DSTPORT, &dport);
    pkt->src_port = (uint16_t)sport;
    pkt->dst_port = (uint16_t)dport;
    pkt->frame = pinfo->num;
    pkt->time_s = nstime_to_sec(&pinfo->rel_ts);
    read_header(tree, pkt);
    return true;
}
