/* decode_layers.h: what the decoder's layers share (decode.c reads links,
 * IP and TCP; udp_tunnels.c the UDP tunnels): the cursor over a frame's
 * bytes, and the layers a tunnel's payload starts with.  Internal to
 * core/wire.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_DECODE_LAYERS_H
#define TAPO_DECODE_LAYERS_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/decode.h"

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define ETHERTYPE_TEB 0x6558          /* transparent Ethernet bridging (GRE, Geneve) */
#define IPPROTO_IPV4_IN 4
#define IPPROTO_IPV6_IN 41
#define TUNNEL_DEPTH_MAX 4            /* layers of encapsulation followed, count */

typedef struct cursor {
    const uint8_t *p;
    uint32_t len;                     /* bytes captured from p */
    uint32_t wire;                    /* bytes on the wire from p (the frame's length: snaplen-proof) */
    int depth;                        /* tunnels entered */
    bool endpoints_only;              /* the TCP options are not read */
} cursor;

static inline uint16_t tapo_wire_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t tapo_wire_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Moves the cursor n bytes on; false (and unmoved) when fewer were captured. */
static inline bool tapo_wire_skip(cursor *c, uint32_t n)
{
    if (c->len < n)
        return false;
    c->p += n;
    c->len -= n;
    c->wire = c->wire > n ? c->wire - n : 0;
    return true;
}

/* The layer ends n bytes on, whatever the frame holds after (padding, a
 * trailer): the cursor sees no more of the wire nor of the capture. */
static inline void tapo_wire_end_at(cursor *c, uint32_t n)
{
    if (c->wire > n)
        c->wire = n;
    if (c->len > c->wire)
        c->len = c->wire;
}

/* The decoder's layers a tunnel's payload starts with (decode.c), handed
 * to the tunnels' decoders: an Ethernet frame, an IP packet, what an
 * ethertype announces. */
typedef struct tapo_wire_layers {
    tapo_decode_result (*ethernet)(cursor c, tapo_segment_fields *out);
    tapo_decode_result (*ip)(cursor c, tapo_segment_fields *out);
    tapo_decode_result (*by_ethertype)(cursor c, uint16_t type, tapo_segment_fields *out);
} tapo_wire_layers;

/* A UDP datagram of length bytes (RFC 768), its header included: TCP
 * inside the tunnels Wireshark decodes by their ports (VXLAN, Geneve,
 * GTP-U, Teredo, AYIYA), each tunnel's own header checked first, its
 * payload read by layers; any other UDP is no TCP (TAPO_DECODE_OTHER).
 * The datagram ends where its length says (udp_tunnels.c). */
tapo_decode_result tapo_wire_udp(cursor c, uint32_t length, const tapo_wire_layers *layers,
                                 tapo_segment_fields *out);

#endif /* TAPO_DECODE_LAYERS_H */
