/* udp_tunnels.c: see decode_layers.h (tapo_wire_udp).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "wire/decode_layers.h"

/* The tunnels, by the ports Wireshark decodes them on (IANA). */
#define UDP_PORT_GTP_U 2152           /* 3GPP TS 29.281 */
#define UDP_PORT_TEREDO 3544          /* RFC 4380 */
#define UDP_PORT_VXLAN 4789           /* RFC 7348 */
#define UDP_PORT_AYIYA 5072           /* draft-massar-v6ops-ayiya */
#define UDP_PORT_GENEVE 6081          /* RFC 8926 */

/* The IP packet a tunnel header announces, its version as said. */
static tapo_decode_result inner_ip(cursor c, unsigned version, const tapo_wire_layers *layers,
                                   tapo_segment_fields *out)
{
    if (c.len < 1 || (c.p[0] >> 4) != version)
        return TAPO_DECODE_OTHER;
    return layers->ip(c, out);
}

/* VXLAN (RFC 7348): 8 bytes, the I flag set, then an Ethernet frame. */
static tapo_decode_result vxlan(cursor c, const tapo_wire_layers *layers, tapo_segment_fields *out)
{
    if (c.len < 8 || !(c.p[0] & 0x08))
        return TAPO_DECODE_OTHER;
    tapo_wire_skip(&c, 8);
    return layers->ethernet(c, out);
}

/* Geneve (RFC 8926): version 0, 8 bytes and the options' length in 4-byte
 * words, then what its protocol type (an ethertype) says. */
static tapo_decode_result geneve(cursor c, const tapo_wire_layers *layers, tapo_segment_fields *out)
{
    if (c.len < 8 || (c.p[0] >> 6) != 0)
        return TAPO_DECODE_OTHER;
    uint16_t type = tapo_wire_be16(c.p + 2);
    if (!tapo_wire_skip(&c, 8 + (uint32_t)(c.p[0] & 0x3f) * 4))
        return TAPO_DECODE_OTHER;
    return type == ETHERTYPE_TEB ? layers->ethernet(c, out) : layers->by_ethertype(c, type, out);
}

/* GTP-U (3GPP TS 29.281): version 1, protocol type GTP, a G-PDU (type 255)
 * carries a user's IP packet after 8 bytes, 4 more when a sequence
 * number, N-PDU number or extension flag is set, and the chained extension
 * headers (each its length in 4-byte words first, the next one's type
 * last). */
static tapo_decode_result gtp_u(cursor c, const tapo_wire_layers *layers, tapo_segment_fields *out)
{
    if (c.len < 8 || (c.p[0] >> 5) != 1 || !(c.p[0] & 0x10) || c.p[1] != 0xff)
        return TAPO_DECODE_OTHER;
    bool optional = c.p[0] & 0x07, extension = c.p[0] & 0x04;
    if (!tapo_wire_skip(&c, 8))
        return TAPO_DECODE_OTHER;
    if (optional) {
        if (c.len < 4)
            return TAPO_DECODE_OTHER;
        uint8_t next = c.p[3];
        tapo_wire_skip(&c, 4);
        for (int n = 0; extension && next != 0; n++) {
            if (n == 8 || c.len < 1 || c.p[0] == 0 || c.len < (uint32_t)c.p[0] * 4)
                return TAPO_DECODE_OTHER;
            uint32_t size = (uint32_t)c.p[0] * 4;
            next = c.p[size - 1];
            tapo_wire_skip(&c, size);
        }
    }
    if (c.len < 1)
        return TAPO_DECODE_OTHER;
    return inner_ip(c, c.p[0] >> 4 == 6 ? 6 : 4, layers, out);
}

/* Teredo (RFC 4380): IPv6, after an authentication indicator (type 1:
 * client identifier and authentication value of the lengths it gives, an
 * 8-byte nonce and a confirmation byte) and an origin indication (type 0,
 * 8 bytes), each optional, in that order. */
static tapo_decode_result teredo(cursor c, const tapo_wire_layers *layers, tapo_segment_fields *out)
{
    if (c.len >= 4 && c.p[0] == 0 && c.p[1] == 1 &&
        !tapo_wire_skip(&c, 4 + (uint32_t)c.p[2] + c.p[3] + 8 + 1))
        return TAPO_DECODE_OTHER;
    if (c.len >= 2 && c.p[0] == 0 && c.p[1] == 0 && !tapo_wire_skip(&c, 8))
        return TAPO_DECODE_OTHER;
    return inner_ip(c, 6, layers, out);
}

/* AYIYA: an 8-byte header (identity length 2^n bytes in the first nibble,
 * signature length in 4-byte words in the second byte's, the opcode in the
 * third byte's low nibble: 1 forwards, the next header in the fourth),
 * then the identity and the signature, then the packet. */
static tapo_decode_result ayiya(cursor c, const tapo_wire_layers *layers, tapo_segment_fields *out)
{
    if (c.len < 8 || (c.p[2] & 0x0f) != 1 || (c.p[3] != IPPROTO_IPV6_IN && c.p[3] != IPPROTO_IPV4_IN))
        return TAPO_DECODE_OTHER;
    unsigned version = c.p[3] == IPPROTO_IPV6_IN ? 6 : 4;
    if (!tapo_wire_skip(&c, 8 + (1u << (c.p[0] >> 4)) + (uint32_t)(c.p[1] >> 4) * 4))
        return TAPO_DECODE_OTHER;
    return inner_ip(c, version, layers, out);
}

/* The tunnel's port at either end (GTP-U, Teredo, AYIYA); VXLAN and
 * Geneve are known by the receiving end's alone, the sender's port being a
 * hash of the inner flow (RFC 7348, RFC 8926). */
static bool either_port(uint16_t sport, uint16_t dport, uint16_t port)
{
    return sport == port || dport == port;
}

tapo_decode_result tapo_wire_udp(cursor c, uint32_t length, const tapo_wire_layers *layers,
                                 tapo_segment_fields *out)
{
    if (c.len < 8)
        return TAPO_DECODE_OTHER;
    uint16_t sport = tapo_wire_be16(c.p), dport = tapo_wire_be16(c.p + 2);
    uint32_t datagram = tapo_wire_be16(c.p + 4);
    if (datagram < 8 || datagram > length)
        return TAPO_DECODE_OTHER;
    tapo_wire_skip(&c, 8);
    tapo_wire_end_at(&c, datagram - 8);
    if (dport == UDP_PORT_VXLAN)
        return vxlan(c, layers, out);
    if (dport == UDP_PORT_GENEVE)
        return geneve(c, layers, out);
    if (either_port(sport, dport, UDP_PORT_GTP_U))
        return gtp_u(c, layers, out);
    if (either_port(sport, dport, UDP_PORT_TEREDO))
        return teredo(c, layers, out);
    if (either_port(sport, dport, UDP_PORT_AYIYA))
        return ayiya(c, layers, out);
    return TAPO_DECODE_OTHER;
}
