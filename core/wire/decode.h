/* decode.h: from a captured frame to the TCP segment TAPO analyses.
 *
 * The link layers users meet (Ethernet with VLAN and QinQ tags and PPPoE,
 * Linux cooked v1 and v2, raw IP, BSD and OpenBSD loopback, PPP), IPv4 and
 * IPv6 with extension headers, IP-in-IP and GRE (Ethernet, IP, and Aruba's
 * 802.11 inside), down to the innermost TCP header, as Wireshark reads it
 * (the plugin takes the last occurrence of every field).  A TCP header
 * quoted in an ICMP error is no segment of the connection; Wireshark still
 * looks its connection up when 16 bytes of it are there (a quoted SYN can
 * even start a new stream), so it is decoded apart.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_DECODE_H
#define TAPO_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "packet/packet_input.h"

/* A connection's endpoints as the segment carries them. */
typedef struct tapo_endpoints {
    uint8_t family;              /* 4 or 6 */
    uint8_t src[16];             /* IPv4 in the first 4 bytes */
    uint8_t dst[16];
    uint16_t sport;
    uint16_t dport;
} tapo_endpoints;

/* What the TCP header says, before any per-connection interpretation. */
typedef struct tapo_segment_fields {
    tapo_endpoints ends;
    uint32_t seq_raw;
    uint32_t ack_raw;
    uint16_t flags;              /* TAPO_TCP_* and the rest of the flag bits */
    uint16_t window_raw;         /* the 16-bit field, unscaled */
    uint32_t payload_len;        /* bytes, from the IP lengths (snaplen-proof) */
    bool options_truncated;      /* the snaplen cut the TCP options: Wireshark stops reading there */
    const uint8_t *options;      /* the TCP options captured (valid with the frame's bytes)... */
    uint32_t options_len;        /* ...bytes */
    bool has_wscale;             /* window scale option present */
    uint8_t wscale;              /* its shift count, as sent */
    uint16_t mss_option;         /* bytes; 0 none */
    uint8_t sack_count;
    uint32_t sack_left_raw[TAPO_MAX_SACK_BLOCKS];
    uint32_t sack_right_raw[TAPO_MAX_SACK_BLOCKS];
    bool has_timestamps;
    uint32_t tsval;
    uint32_t tsecr;
    uint16_t ip_id;              /* innermost IPv4 ID; 0 for IPv6 */
    uint8_t ttl;                 /* innermost IPv4 TTL or IPv6 hop limit, hops; 0 unknown */
} tapo_segment_fields;

typedef enum {
    TAPO_DECODE_TCP,             /* a TCP segment: fields filled */
    TAPO_DECODE_QUOTED,          /* a TCP header quoted in an ICMP error: endpoints, seq, ack and flags filled */
    TAPO_DECODE_OTHER,           /* not TCP (or TCP inside an ICMP error, or a fragment) */
    TAPO_DECODE_TRUNCATED,       /* the TCP header was cut by the snaplen */
    TAPO_DECODE_MALFORMED,       /* lengths or headers that make no sense */
    TAPO_DECODE_UNKNOWN_LINK     /* a link type this decoder does not read */
} tapo_decode_result;

/* encap is Wiretap's WTAP_ENCAP_* of the frame; caplen the bytes captured,
 * len the frame's length on the wire.  Lengths follow Wireshark's: an IPv4
 * total length of 0 (TSO) or longer than the frame counts what the frame
 * holds (SDK research: tcp.len). */
tapo_decode_result tapo_decode_frame(int encap, const uint8_t *data, uint32_t caplen, uint32_t len,
                                     tapo_segment_fields *out);

/* The same, but the TCP options are not read (their fields stay unset):
 * enough to know whose connection a segment is, and cheaper. */
tapo_decode_result tapo_decode_frame_endpoints(int encap, const uint8_t *data, uint32_t caplen, uint32_t len,
                                               tapo_segment_fields *out);

/* Reads the options of a segment that tapo_decode_frame_endpoints decoded
 * as TAPO_DECODE_TCP (its frame's bytes still there): the fields are then
 * tapo_decode_frame's. */
void tapo_decode_options(tapo_segment_fields *seg);

#endif /* TAPO_DECODE_H */
