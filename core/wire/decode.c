/* decode.c: see decode.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "wire/decode.h"
#include "wire/decode_layers.h"

#include <string.h>

#include <wireshark.h>
#include <wiretap/wtap.h>

#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88a8
#define ETHERTYPE_QINQ_OLD 0x9100
#define ETHERTYPE_PPPOE_SESSION 0x8864
#define ETHERTYPE_MPLS 0x8847
#define ETHERTYPE_MPLS_MULTICAST 0x8848
#define MPLS_LABELS_MAX 8             /* label stack entries read before giving up (RFC 3032: 4 bytes each) */
#define GRE_ARUBA_80211 0x8200        /* Aruba controllers tunnel 802.11 frames */
#define SLL_HEADER 16                 /* Linux cooked v1, its protocol (an ethertype) at byte 14 */
#define SLL2_HEADER 20                /* Linux cooked v2, its protocol at byte 0 */
#define CHDLC_HEADER 4                /* Cisco HDLC: address, control, protocol (an ethertype) at byte 2 */
#define FR_ADDRESS_MAX 4              /* Q.922 address: 2 to 4 bytes, the last with its EA bit set */
#define FR_UI 0x03                    /* RFC 2427: unnumbered information, then an NLPID */
#define NLPID_PAD 0x00
#define NLPID_SNAP 0x80
#define NLPID_IPV4 0xcc
#define NLPID_IPV6 0x8e
#define PPP_IPV4 0x0021
#define PPP_IPV6 0x0057
#define IPPROTO_TCP_ 6
#define IPPROTO_GRE_ 47
#define IPPROTO_UDP_ 17
#define IPPROTO_ICMP_ 1
#define IPPROTO_ICMPV6_ 58

static tapo_decode_result by_ethertype(cursor c, uint16_t type, tapo_segment_fields *out);
static tapo_decode_result ip(cursor c, tapo_segment_fields *out);
static tapo_decode_result ethernet(cursor c, tapo_segment_fields *out);

/* What a UDP tunnel's payload starts with (udp_tunnels.c). */
static const tapo_wire_layers tunnel_payloads = { ethernet, ip, by_ethertype };

/* ---- TCP ------------------------------------------------------------- */

static void tcp_options(const uint8_t *o, uint32_t n, tapo_segment_fields *out)
{
    /* Most segments of today's stacks carry NOP, NOP, timestamps alone. */
    if (n == 12 && o[0] == 1 && o[1] == 1 && o[2] == 8 && o[3] == 10) {
        out->has_timestamps = true;
        out->tsval = tapo_wire_be32(o + 4);
        out->tsecr = tapo_wire_be32(o + 8);
        return;
    }
    uint32_t i = 0;
    while (i < n) {
        uint8_t kind = o[i];
        if (kind == 0)
            break;                    /* end of options */
        if (kind == 1) {
            i++;                      /* no-operation */
            continue;
        }
        if (i + 1 >= n || o[i + 1] < 2 || i + o[i + 1] > n)
            break;                    /* malformed: Wireshark stops here too */
        uint8_t len = o[i + 1];
        const uint8_t *v = o + i + 2;
        if (kind == 2 && len == 4) {
            out->mss_option = tapo_wire_be16(v);
        } else if (kind == 3 && len == 3) {
            out->has_wscale = true;
            out->wscale = v[0];
        } else if (kind == 5 && len >= 10 && (len - 2) % 8 == 0) {
            for (unsigned b = 0; b < (len - 2u) / 8 && out->sack_count < TAPO_MAX_SACK_BLOCKS; b++) {
                out->sack_left_raw[out->sack_count] = tapo_wire_be32(v + 8 * b);
                out->sack_right_raw[out->sack_count] = tapo_wire_be32(v + 8 * b + 4);
                out->sack_count++;
            }
        } else if (kind == 8 && len == 10) {
            out->has_timestamps = true;
            out->tsval = tapo_wire_be32(v);
            out->tsecr = tapo_wire_be32(v + 4);
        }
        i += len;
    }
}

/* ip_payload: the TCP segment's length from the IP header, bytes. */
static tapo_decode_result tcp(cursor c, uint32_t ip_payload, tapo_segment_fields *out)
{
    if (c.len < 20)
        return TAPO_DECODE_TRUNCATED;
    uint32_t header = (uint32_t)(c.p[12] >> 4) * 4;
    if (header < 20 || header > ip_payload)
        return TAPO_DECODE_MALFORMED;
    out->ends.sport = tapo_wire_be16(c.p);
    out->ends.dport = tapo_wire_be16(c.p + 2);
    out->seq_raw = tapo_wire_be32(c.p + 4);
    out->ack_raw = tapo_wire_be32(c.p + 8);
    out->flags = (uint16_t)(((c.p[12] & 0x01) << 8) | c.p[13]);
    out->window_raw = tapo_wire_be16(c.p + 14);
    out->payload_len = ip_payload - header;
    out->sack_count = 0;
    out->has_wscale = out->has_timestamps = false;
    out->mss_option = 0;
    /* Options cut by the snaplen are lost, as in Wireshark. */
    uint32_t captured = c.len < header ? c.len : header;
    out->options_truncated = captured < header;
    out->options = c.p + 20;
    out->options_len = captured > 20 ? captured - 20 : 0;
    if (!c.endpoints_only)
        tapo_decode_options(out);
    return TAPO_DECODE_TCP;
}

void tapo_decode_options(tapo_segment_fields *seg)
{
    tcp_options(seg->options, seg->options_len, seg);
}

/* ---- IP -------------------------------------------------------------- */

static tapo_decode_result gre(cursor c, tapo_segment_fields *out);

/* An ICMP or ICMPv6 error quoting the start of a TCP segment: the quoted
 * TCP header's first 16 bytes (ports, seq, ack, flags) as Wireshark reads
 * them before giving up on a short quote. */
static tapo_decode_result icmp_error(cursor c, bool v6, tapo_segment_fields *out)
{
    if (c.len < 8)
        return TAPO_DECODE_OTHER;
    uint8_t type = c.p[0];
    bool error = v6 ? type >= 1 && type <= 4 : type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
    if (!error || ++c.depth > TUNNEL_DEPTH_MAX)
        return TAPO_DECODE_OTHER;
    tapo_wire_skip(&c, 8);
    c.wire = c.len;                   /* a quote is what it is */
    tapo_segment_fields inner;
    memset(&inner, 0, sizeof inner);
    /* Parse the quoted IP header, then read the TCP header's first bytes. */
    if (c.len < 1)
        return TAPO_DECODE_OTHER;
    uint8_t proto;
    if ((c.p[0] >> 4) == 4 && c.len >= 20 && (c.p[0] & 0x0f) >= 5) {
        proto = c.p[9];
        inner.ends.family = 4;
        memcpy(inner.ends.src, c.p + 12, 4);
        memcpy(inner.ends.dst, c.p + 16, 4);
        tapo_wire_skip(&c, (uint32_t)(c.p[0] & 0x0f) * 4);
    } else if ((c.p[0] >> 4) == 6 && c.len >= 40) {
        proto = c.p[6];
        inner.ends.family = 6;
        memcpy(inner.ends.src, c.p + 8, 16);
        memcpy(inner.ends.dst, c.p + 24, 16);
        tapo_wire_skip(&c, 40);
    } else {
        return TAPO_DECODE_OTHER;
    }
    if (proto != IPPROTO_TCP_ || c.len < 16)
        return TAPO_DECODE_OTHER;
    inner.ends.sport = tapo_wire_be16(c.p);
    inner.ends.dport = tapo_wire_be16(c.p + 2);
    inner.seq_raw = tapo_wire_be32(c.p + 4);
    inner.ack_raw = tapo_wire_be32(c.p + 8);
    inner.flags = (uint16_t)(((c.p[12] & 0x01) << 8) | c.p[13]);
    inner.ip_id = out->ip_id;         /* the error's own packet, for the census */
    *out = inner;
    return TAPO_DECODE_QUOTED;
}

static tapo_decode_result ip_payload(cursor c, uint8_t proto, uint32_t length, tapo_segment_fields *out)
{
    switch (proto) {
    case IPPROTO_TCP_:
        return tcp(c, length, out);
    case IPPROTO_IPV4_IN:
    case IPPROTO_IPV6_IN:
        if (++c.depth > TUNNEL_DEPTH_MAX)
            return TAPO_DECODE_OTHER;
        return ip(c, out);
    case IPPROTO_GRE_:
        if (++c.depth > TUNNEL_DEPTH_MAX)
            return TAPO_DECODE_OTHER;
        return gre(c, out);
    case IPPROTO_UDP_:
        if (++c.depth > TUNNEL_DEPTH_MAX)
            return TAPO_DECODE_OTHER;
        return tapo_wire_udp(c, length, &tunnel_payloads, out);
    case IPPROTO_ICMP_:
    case IPPROTO_ICMPV6_:
        return icmp_error(c, proto == IPPROTO_ICMPV6_, out);
    default:
        return TAPO_DECODE_OTHER;
    }
}

/* What an IPv4 header gives every frame: the family, the addresses, the ID
 * (every IPv4 packet's, for the census: connection_table.h) and the TTL. */
static void ipv4_fields(const uint8_t *ip, tapo_segment_fields *out)
{
    out->ends.family = 4;
    out->ip_id = tapo_wire_be16(ip + 4);
    out->ttl = ip[8];
    memset(out->ends.src, 0, sizeof out->ends.src);
    memset(out->ends.dst, 0, sizeof out->ends.dst);
    memcpy(out->ends.src, ip + 12, 4);
    memcpy(out->ends.dst, ip + 16, 4);
}

static tapo_decode_result ipv4(cursor c, tapo_segment_fields *out)
{
    if (c.len < 20)
        return TAPO_DECODE_TRUNCATED;
    uint32_t header = (uint32_t)(c.p[0] & 0x0f) * 4;
    uint32_t total = tapo_wire_be16(c.p + 2);
    if (total == 0)
        total = c.wire;               /* TSO: Wireshark takes what the frame holds */
    if (header < 20 || total < header)
        return TAPO_DECODE_MALFORMED;
    if (total > c.wire)
        total = c.wire;               /* a frame shorter than its IP length: what is there */
    ipv4_fields(c.p, out);
    uint16_t fragment = tapo_wire_be16(c.p + 6);
    if (fragment & 0x3fff)
        return TAPO_DECODE_OTHER;     /* a fragment: Wireshark analyses the reassembled datagram */
    uint8_t proto = c.p[9];
    if (!tapo_wire_skip(&c, header))
        return TAPO_DECODE_TRUNCATED;
    return ip_payload(c, proto, total - header, out);
}

static bool is_ipv6_extension(uint8_t next)
{
    return next == 0 || next == 43 || next == 60 || next == 51 || next == 135 || next == 139 ||
           next == 140;
}

static tapo_decode_result ipv6(cursor c, tapo_segment_fields *out)
{
    if (c.len < 40)
        return TAPO_DECODE_TRUNCATED;
    uint32_t payload = tapo_wire_be16(c.p + 4);
    uint8_t next = c.p[6];
    out->ends.family = 6;
    memcpy(out->ends.src, c.p + 8, 16);
    memcpy(out->ends.dst, c.p + 24, 16);
    out->ip_id = 0;
    out->ttl = c.p[7];
    if (payload == 0)
        return TAPO_DECODE_OTHER;     /* a jumbogram (Wireshark: malformed without TSO support) */
    if (payload > c.wire - 40)
        payload = c.wire - 40;        /* what the frame holds */
    tapo_wire_skip(&c, 40);
    while (is_ipv6_extension(next) || next == 44) {
        if (c.len < 8)
            return TAPO_DECODE_TRUNCATED;
        if (next == 44 && (tapo_wire_be16(c.p + 2) & 0xfff9))
            return TAPO_DECODE_OTHER; /* a fragment */
        uint32_t ext = next == 44 ? 8 : next == 51 ? ((uint32_t)c.p[1] + 2) * 4 : ((uint32_t)c.p[1] + 1) * 8;
        if (ext > payload)
            return TAPO_DECODE_MALFORMED;
        next = c.p[0];
        payload -= ext;
        if (!tapo_wire_skip(&c, ext))
            return TAPO_DECODE_TRUNCATED;
    }
    return ip_payload(c, next, payload, out);
}

static tapo_decode_result ip(cursor c, tapo_segment_fields *out)
{
    if (c.len < 1)
        return TAPO_DECODE_TRUNCATED;
    switch (c.p[0] >> 4) {
    case 4:
        return ipv4(c, out);
    case 6:
        return ipv6(c, out);
    default:
        return TAPO_DECODE_OTHER;
    }
}

/* ---- tunnels and links ----------------------------------------------- */

/* An 802.11 data frame with LLC/SNAP, as Aruba tunnels it in GRE. */
static tapo_decode_result wlan_data(cursor c, tapo_segment_fields *out)
{
    if (c.len < 24)
        return TAPO_DECODE_TRUNCATED;
    uint8_t fc0 = c.p[0], fc1 = c.p[1];
    if (((fc0 >> 2) & 3) != 2)
        return TAPO_DECODE_OTHER;     /* not a data frame */
    uint32_t header = 24;
    if ((fc1 & 3) == 3)
        header += 6;                  /* four addresses */
    if (fc0 & 0x80) {
        header += 2;                  /* QoS control */
        if (fc1 & 0x80)
            header += 4;              /* HT control */
    }
    if (!tapo_wire_skip(&c, header) || c.len < 8)
        return TAPO_DECODE_TRUNCATED;
    if (c.p[0] != 0xaa || c.p[1] != 0xaa || c.p[2] != 0x03)
        return TAPO_DECODE_OTHER;
    uint16_t type = tapo_wire_be16(c.p + 6);
    tapo_wire_skip(&c, 8);
    return by_ethertype(c, type, out);
}

static tapo_decode_result ethernet(cursor c, tapo_segment_fields *out)
{
    if (c.len < 14)
        return TAPO_DECODE_TRUNCATED;
    uint16_t type = tapo_wire_be16(c.p + 12);
    tapo_wire_skip(&c, 14);
    return by_ethertype(c, type, out);
}

static tapo_decode_result gre(cursor c, tapo_segment_fields *out)
{
    if (c.len < 4)
        return TAPO_DECODE_TRUNCATED;
    uint16_t flags = tapo_wire_be16(c.p);
    uint16_t type = tapo_wire_be16(c.p + 2);
    if (flags & 0x0007)
        return TAPO_DECODE_OTHER;     /* GRE version 1 (PPTP) carries PPP */
    uint32_t header = 4 + ((flags & 0x8000) ? 4 : 0) + ((flags & 0x2000) ? 4 : 0) + ((flags & 0x1000) ? 4 : 0);
    if (!tapo_wire_skip(&c, header))
        return TAPO_DECODE_TRUNCATED;
    if (type == GRE_ARUBA_80211)
        return wlan_data(c, out);
    if (type == ETHERTYPE_TEB)
        return ethernet(c, out);
    return by_ethertype(c, type, out);
}

static tapo_decode_result ppp_protocol(cursor c, uint16_t proto, tapo_segment_fields *out)
{
    if (proto == PPP_IPV4 || proto == PPP_IPV6)
        return ip(c, out);
    return TAPO_DECODE_OTHER;
}

/* An MPLS label stack (RFC 3032): 4-byte entries down to the one whose
 * bottom-of-stack bit is set, then IP as its version nibble says.  A
 * pseudowire (Ethernet over MPLS, a control word first) is not read. */
static tapo_decode_result mpls(cursor c, tapo_segment_fields *out)
{
    for (int labels = 0;; labels++) {
        if (labels == MPLS_LABELS_MAX)
            return TAPO_DECODE_OTHER;
        if (c.len < 4)
            return TAPO_DECODE_TRUNCATED;
        bool bottom = c.p[2] & 1;
        tapo_wire_skip(&c, 4);
        if (bottom)
            break;
    }
    if (c.len < 1)
        return TAPO_DECODE_TRUNCATED;
    uint8_t version = c.p[0] >> 4;
    return version == 4 || version == 6 ? ip(c, out) : TAPO_DECODE_OTHER;
}

static tapo_decode_result by_ethertype(cursor c, uint16_t type, tapo_segment_fields *out)
{
    for (int tags = 0; type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ || type == ETHERTYPE_QINQ_OLD; tags++) {
        if (tags > 2 || c.len < 4)
            return TAPO_DECODE_TRUNCATED;
        type = tapo_wire_be16(c.p + 2);
        tapo_wire_skip(&c, 4);
    }
    switch (type) {
    case ETHERTYPE_IPV4:
    case ETHERTYPE_IPV6:
        return ip(c, out);
    case ETHERTYPE_MPLS:
    case ETHERTYPE_MPLS_MULTICAST:
        return mpls(c, out);
    case ETHERTYPE_PPPOE_SESSION: {
        if (c.len < 8)
            return TAPO_DECODE_TRUNCATED;
        uint32_t payload = tapo_wire_be16(c.p + 4);   /* PPP protocol and data, bytes */
        type = tapo_wire_be16(c.p + 6);
        tapo_wire_skip(&c, 8);
        /* Wireshark ends the frame where PPPoE says: padding is no data. */
        tapo_wire_end_at(&c, payload >= 2 ? payload - 2 : 0);
        return ppp_protocol(c, type, out);
    }
    default:
        return TAPO_DECODE_OTHER;
    }
}

/* BSD loopback: the address family in host order (2 IPv4, 24, 28 or 30 IPv6). */
static tapo_decode_result null_loopback(cursor c, bool network_order, tapo_segment_fields *out)
{
    if (c.len < 4)
        return TAPO_DECODE_TRUNCATED;
    uint32_t le = (uint32_t)c.p[0] | (uint32_t)c.p[1] << 8 | (uint32_t)c.p[2] << 16 | (uint32_t)c.p[3] << 24;
    uint32_t family = network_order ? tapo_wire_be32(c.p) : (le > 0xffff ? tapo_wire_be32(c.p) : le);
    tapo_wire_skip(&c, 4);
    if (family == 2 || family == 24 || family == 28 || family == 30)
        return ip(c, out);
    return TAPO_DECODE_OTHER;
}

/* A link header of header bytes with an ethertype at byte type_at (Linux
 * cooked captures, Cisco HDLC, Frame Relay's Cisco encapsulation), then
 * what it names. */
static tapo_decode_result after_typed_header(cursor c, uint32_t header, uint32_t type_at, tapo_segment_fields *out)
{
    if (c.len < header)
        return TAPO_DECODE_TRUNCATED;
    uint16_t type = tapo_wire_be16(c.p + type_at);
    tapo_wire_skip(&c, header);
    return by_ethertype(c, type, out);
}

/* RFC 2427's multiprotocol encapsulation after the UI byte: an NLPID
 * (after an optional pad byte), IP directly or SNAP with an ethertype. */
static tapo_decode_result frame_relay_nlpid(cursor c, tapo_segment_fields *out)
{
    if (c.len >= 1 && c.p[0] == NLPID_PAD)
        tapo_wire_skip(&c, 1);
    if (c.len < 1)
        return TAPO_DECODE_TRUNCATED;
    uint8_t nlpid = c.p[0];
    tapo_wire_skip(&c, 1);
    if (nlpid == NLPID_IPV4 || nlpid == NLPID_IPV6)
        return ip(c, out);
    if (nlpid != NLPID_SNAP)
        return TAPO_DECODE_OTHER;
    if (c.len < 5)   /* OUI, then the protocol */
        return TAPO_DECODE_TRUNCATED;
    bool ethertype = c.p[0] == 0 && c.p[1] == 0 && c.p[2] == 0;
    uint16_t type = tapo_wire_be16(c.p + 3);
    tapo_wire_skip(&c, 5);
    return ethertype ? by_ethertype(c, type, out) : TAPO_DECODE_OTHER;
}

/* Frame Relay: a Q.922 address (its bytes end at the one whose EA bit,
 * bit 0, is set), then RFC 2427's encapsulation, or Cisco's (an
 * ethertype, whose first byte is never the UI byte). */
static tapo_decode_result frame_relay(cursor c, tapo_segment_fields *out)
{
    uint32_t address = 0;
    while (address < c.len && address < FR_ADDRESS_MAX && !(c.p[address] & 1))
        address++;
    if (address >= c.len)
        return TAPO_DECODE_TRUNCATED;
    if (address == FR_ADDRESS_MAX)
        return TAPO_DECODE_MALFORMED;
    tapo_wire_skip(&c, address + 1);
    if (c.len >= 1 && c.p[0] == FR_UI) {
        tapo_wire_skip(&c, 1);
        return frame_relay_nlpid(c, out);
    }
    return after_typed_header(c, 2, 0, out);
}

/* The frame most captures hold: Ethernet, IPv4 without options, not a
 * fragment, and a whole TCP header, all captured; decoded as the general
 * path below does (same fields, same result), without its layers of
 * checks.  False: anything else, for the general path. */
static bool plain_ethernet_tcp(const uint8_t *data, uint32_t caplen, uint32_t len, bool endpoints_only,
                               tapo_segment_fields *out)
{
    enum { ETH = 14, IP = 20, TCP = 20 };
    if (caplen < ETH + IP + TCP || tapo_wire_be16(data + 12) != ETHERTYPE_IPV4)
        return false;
    const uint8_t *ip = data + ETH, *th = ip + IP;
    uint32_t wire = (len > caplen ? len : caplen) - ETH;
    uint32_t total = tapo_wire_be16(ip + 2);
    if (ip[0] != 0x45 || ip[9] != IPPROTO_TCP_ || (tapo_wire_be16(ip + 6) & 0x3fff) || total < IP + TCP || total > wire)
        return false;
    uint32_t header = (uint32_t)(th[12] >> 4) * 4;
    if (header < TCP || header > total - IP)
        return false;
    ipv4_fields(ip, out);
    cursor c = { th, caplen - ETH - IP, wire - IP, 0, endpoints_only };
    return tcp(c, total - IP, out) == TAPO_DECODE_TCP;
}

static tapo_decode_result decode(int encap, const uint8_t *data, uint32_t caplen, uint32_t len,
                                 bool endpoints_only, tapo_segment_fields *out)
{
    if (encap == WTAP_ENCAP_ETHERNET && plain_ethernet_tcp(data, caplen, len, endpoints_only, out))
        return TAPO_DECODE_TCP;
    cursor c = { data, caplen, len > caplen ? len : caplen, 0, endpoints_only };
    out->ends.family = 0;   /* not IP until an IP header says so */
    out->ip_id = 0;
    out->ttl = 0;
    switch (encap) {
    case WTAP_ENCAP_ETHERNET:
        return ethernet(c, out);
    case WTAP_ENCAP_RAW_IP:
    case WTAP_ENCAP_RAW_IP4:
    case WTAP_ENCAP_RAW_IP6:
        return ip(c, out);
    case WTAP_ENCAP_SLL:
        return after_typed_header(c, SLL_HEADER, 14, out);
    case WTAP_ENCAP_SLL2:
        return after_typed_header(c, SLL2_HEADER, 0, out);
    case WTAP_ENCAP_NULL:
        return null_loopback(c, false, out);
    case WTAP_ENCAP_LOOP:
        return null_loopback(c, true, out);
    case WTAP_ENCAP_CHDLC:
        return after_typed_header(c, CHDLC_HEADER, 2, out);
    case WTAP_ENCAP_FRELAY:
        return frame_relay(c, out);
    case WTAP_ENCAP_PPP:
        if (c.len >= 2 && c.p[0] == 0xff && c.p[1] == 0x03)
            tapo_wire_skip(&c, 2);              /* HDLC address and control */
        if (c.len < 2)
            return TAPO_DECODE_TRUNCATED;
        {
            uint16_t proto = tapo_wire_be16(c.p);
            tapo_wire_skip(&c, 2);
            return ppp_protocol(c, proto, out);
        }
    default:
        return TAPO_DECODE_UNKNOWN_LINK;
    }
}

tapo_decode_result tapo_decode_frame(int encap, const uint8_t *data, uint32_t caplen, uint32_t len,
                                     tapo_segment_fields *out)
{
    return decode(encap, data, caplen, len, false, out);
}

tapo_decode_result tapo_decode_frame_endpoints(int encap, const uint8_t *data, uint32_t caplen, uint32_t len,
                                               tapo_segment_fields *out)
{
    return decode(encap, data, caplen, len, true, out);
}
