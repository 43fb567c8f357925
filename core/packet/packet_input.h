/* packet_input.h: what the analysis needs to know about one TCP segment.
 *
 * The frames library (core/wire/flow_identity.h) fills it from a
 * frame's bytes, in the plugin and in the batch analyser alike, with what
 * Wireshark's TCP dissector would derive (window scaling, keep-alives and
 * zero-window probes); unit tests fill it by hand.  Nothing here depends
 * on Wireshark.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_PACKET_INPUT_H
#define TAPO_PACKET_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "packet/id_census.h"

#define TAPO_MAX_SACK_BLOCKS 4     /* a TCP header has room for at most 4 SACK blocks */

/* TCP header flag bits, as on the wire. */
#define TAPO_TCP_FIN 0x01
#define TAPO_TCP_SYN 0x02
#define TAPO_TCP_RST 0x04
#define TAPO_TCP_PSH 0x08
#define TAPO_TCP_ACK 0x10

typedef struct tapo_packet {
    uint32_t frame;              /* frame number in the capture */
    double time_s;               /* capture time, seconds from any fixed origin */
    int from;                    /* endpoint that sent it: 0 or 1 (see conversation.h) */
    uint16_t src_port;           /* TCP source port */
    uint16_t dst_port;           /* TCP destination port */
    bool header_valid;           /* seq, ack and flags were readable (not truncated away) */
    uint32_t seq_raw;            /* raw sequence number */
    uint32_t ack_raw;            /* raw acknowledgement number; meaningful with TAPO_TCP_ACK */
    uint32_t payload_len;        /* TCP payload length, bytes (from the IP length, so snaplen-proof) */
    uint16_t flags;              /* TAPO_TCP_* bits */
    uint32_t window;             /* advertised window, bytes, scaled when the scale is known */
    bool window_scale_known;     /* false when the handshake was not captured (window unscaled) */
    uint16_t mss_option;         /* MSS option value, bytes; 0 when absent */
    uint8_t sack_count;          /* SACK blocks below, 0..TAPO_MAX_SACK_BLOCKS */
    uint32_t sack_left_raw[TAPO_MAX_SACK_BLOCKS];   /* raw left edges */
    uint32_t sack_right_raw[TAPO_MAX_SACK_BLOCKS];  /* raw right edges (one past the block) */
    uint16_t ip_id;              /* IPv4 identification; 0 when absent (IPv6) or unused */
    uint8_t ttl;                 /* IPv4 TTL or IPv6 hop limit as captured, hops; 0 unknown */
    bool same_host;              /* its source and destination addresses are one (loopback, a host to itself) */
    const tapo_id_census *census;/* the IDs of the capture's IPv4 packets so far, this one included; NULL unknown */
    uint32_t id_order;           /* this packet's order in the census; 0 when not noted */
    bool has_timestamps;         /* the TCP timestamps option (RFC 7323) is present */
    uint32_t tsval;              /* its TSval: the sender's clock, in the sender's own units */
    uint32_t tsecr;              /* its TSecr: the latest TSval the sender had received from its peer */
    bool keep_alive;             /* Wireshark flagged it as a keep-alive */
    bool zero_window_probe;      /* Wireshark flagged it as a zero-window probe */
} tapo_packet;

/* One past the sequence space p occupies (its payload, and its FIN), raw. */
static inline uint32_t tapo_packet_end_raw(const tapo_packet *p)
{
    return p->seq_raw + p->payload_len + ((p->flags & TAPO_TCP_FIN) ? 1u : 0u);
}

/* An acknowledgement number covers the peer's sequence space up to
 * end_raw (raw numbers, compared across the wrap). */
static inline bool tapo_ack_covers(uint32_t ack_raw, uint32_t end_raw)
{
    return (int32_t)(ack_raw - end_raw) >= 0;
}

#endif /* TAPO_PACKET_INPUT_H */
