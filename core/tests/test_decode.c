/* test_decode.c: the decoder's quick path for plain Ethernet, IPv4 and TCP
 * (decode.c, plain_ethernet_tcp) gives what the general path gives: the
 * same IP packet decoded from an Ethernet frame (quick path) and from a
 * raw IP frame (general path), for headers the quick path takes and for
 * those it leaves to the general one.  Routers' serial links (Cisco HDLC,
 * Frame Relay in each of its encapsulations) and MPLS label stacks decode
 * to what the raw IP frame gives, and a header cut short is truncated; so
 * does TCP inside UDP tunnels.
 * Plain C + GLib, with the frames library.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include <glib.h>
#include <wiretap/wtap.h>

#include "wire/decode.h"
#include "wire/flow_identity.h"

/* An IPv4 packet: header of ihl words, TCP header of doff words with the
 * given options, payload bytes; total: the IP total length field (0 for
 * TSO), or the real length when negative. */
static guint ipv4_tcp(uint8_t *p, unsigned ihl, unsigned doff, const uint8_t *opts, unsigned optlen,
                      unsigned payload, int total, uint16_t frag, uint8_t proto)
{
    guint n = ihl * 4 + doff * 4 + payload;
    memset(p, 0, n);
    p[0] = (uint8_t)(0x40 | ihl);
    guint t = total < 0 ? n : (guint)total;
    p[2] = (uint8_t)(t >> 8), p[3] = (uint8_t)t;
    p[4] = 0x12, p[5] = 0x34, p[6] = (uint8_t)(frag >> 8), p[7] = (uint8_t)frag, p[8] = 63, p[9] = proto;
    memcpy(p + 12, (uint8_t[]){ 10, 0, 0, 1, 10, 0, 0, 2 }, 8);
    uint8_t *t0 = p + ihl * 4;
    memcpy(t0, (uint8_t[]){ 0x1f, 0x90, 0xc3, 0x50, 1, 2, 3, 4, 5, 6, 7, 8 }, 12);
    t0[12] = (uint8_t)(doff << 4), t0[13] = 0x18, t0[14] = 0xff, t0[15] = 0x10;
    if (optlen)
        memcpy(t0 + 20, opts, optlen);
    return n;
}

static void same_fields(const tapo_segment_fields *a, const tapo_segment_fields *b)
{
    g_assert_cmpint(a->ends.family, ==, b->ends.family);
    g_assert_cmpmem(a->ends.src, 16, b->ends.src, 16);
    g_assert_cmpmem(a->ends.dst, 16, b->ends.dst, 16);
    g_assert_cmpuint(a->ends.sport, ==, b->ends.sport);
    g_assert_cmpuint(a->ends.dport, ==, b->ends.dport);
    g_assert_cmpuint(a->seq_raw, ==, b->seq_raw);
    g_assert_cmpuint(a->ack_raw, ==, b->ack_raw);
    g_assert_cmpuint(a->flags, ==, b->flags);
    g_assert_cmpuint(a->window_raw, ==, b->window_raw);
    g_assert_cmpuint(a->payload_len, ==, b->payload_len);
    g_assert_cmpint(a->options_truncated, ==, b->options_truncated);
    g_assert_cmpuint(a->options_len, ==, b->options_len);
    g_assert_cmpint(a->has_wscale, ==, b->has_wscale);
    if (a->has_wscale)
        g_assert_cmpuint(a->wscale, ==, b->wscale);
    g_assert_cmpuint(a->mss_option, ==, b->mss_option);
    g_assert_cmpuint(a->sack_count, ==, b->sack_count);
    for (unsigned i = 0; i < a->sack_count; i++) {
        g_assert_cmpuint(a->sack_left_raw[i], ==, b->sack_left_raw[i]);
        g_assert_cmpuint(a->sack_right_raw[i], ==, b->sack_right_raw[i]);
    }
    g_assert_cmpint(a->has_timestamps, ==, b->has_timestamps);
    if (a->has_timestamps) {
        g_assert_cmpuint(a->tsval, ==, b->tsval);
        g_assert_cmpuint(a->tsecr, ==, b->tsecr);
    }
    g_assert_cmpuint(a->ip_id, ==, b->ip_id);
    g_assert_cmpuint(a->ttl, ==, b->ttl);
}

/* The packet (n bytes, of which cut are dropped by the snaplen) both ways. */
static void both_ways(const uint8_t *packet, guint n, guint cut)
{
    uint8_t frame[1600] = { [12] = 0x08, [13] = 0x00 };
    memcpy(frame + 14, packet, n);
    for (int endpoints_only = 0; endpoints_only < 2; endpoints_only++) {
        tapo_segment_fields eth, raw;
        memset(&eth, 0xa5, sizeof eth);
        memset(&raw, 0x5a, sizeof raw);
        tapo_decode_result (*decode)(int, const uint8_t *, uint32_t, uint32_t, tapo_segment_fields *) =
            endpoints_only ? tapo_decode_frame_endpoints : tapo_decode_frame;
        tapo_decode_result r_eth = decode(WTAP_ENCAP_ETHERNET, frame, 14 + n - cut, 14 + n, &eth);
        tapo_decode_result r_raw = decode(WTAP_ENCAP_RAW_IP, packet, n - cut, n, &raw);
        g_assert_cmpint(r_eth, ==, r_raw);
        if (r_eth == TAPO_DECODE_TCP)
            same_fields(&eth, &raw);
    }
}

static void test_quick_path_decodes_as_the_general_one(void)
{
    static const uint8_t timestamps[] = { 1, 1, 8, 10, 0, 0, 1, 0, 0, 0, 2, 0 };
    static const uint8_t sack[] = { 1, 1, 5, 18, 0, 0, 0, 9, 0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0, 30, 2, 4, 5, 0xb4 };
    static const uint8_t syn[] = { 2, 4, 5, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7 };
    uint8_t p[1600];
    both_ways(p, ipv4_tcp(p, 5, 8, timestamps, sizeof timestamps, 100, -1, 0, 6), 0);
    both_ways(p, ipv4_tcp(p, 5, 11, sack, sizeof sack, 0, -1, 0, 6), 0);
    both_ways(p, ipv4_tcp(p, 5, 10, syn, sizeof syn, 0, -1, 0, 6), 0);
    both_ways(p, ipv4_tcp(p, 5, 10, syn, sizeof syn, 0, -1, 0, 6), 8);        /* options cut by the snaplen */
    both_ways(p, ipv4_tcp(p, 5, 8, timestamps, sizeof timestamps, 1400, -1, 0, 6), 1400);  /* headers only */
    both_ways(p, ipv4_tcp(p, 5, 5, NULL, 0, 10, 0, 0, 6), 0);                /* TSO: no total length */
    both_ways(p, ipv4_tcp(p, 5, 5, NULL, 0, 10, 30, 0, 6), 0);               /* total below the headers */
    both_ways(p, ipv4_tcp(p, 5, 5, NULL, 0, 10, 2000, 0, 6), 0);             /* total beyond the frame */
    both_ways(p, ipv4_tcp(p, 6, 5, NULL, 0, 10, -1, 0, 6), 0);               /* IP options */
    both_ways(p, ipv4_tcp(p, 5, 5, NULL, 0, 10, -1, 0x2000, 6), 0);          /* a fragment */
    both_ways(p, ipv4_tcp(p, 5, 5, NULL, 0, 10, -1, 0, 17), 0);              /* not TCP */
    both_ways(p, ipv4_tcp(p, 5, 4, NULL, 0, 10, -1, 0, 6), 0);               /* TCP header too short */
    both_ways(p, ipv4_tcp(p, 5, 15, NULL, 0, 0, 50, 0, 6), 0);               /* TCP header past the total */
}

/* The packet behind a link header of n bytes decodes as the raw IP one;
 * the header alone, one byte short, is truncated. */
static void behind_link(int encap, const uint8_t *header, guint n, const uint8_t *packet, guint len)
{
    uint8_t frame[1600];
    memcpy(frame, header, n);
    memcpy(frame + n, packet, len);
    tapo_segment_fields linked, raw;
    memset(&linked, 0xa5, sizeof linked);
    memset(&raw, 0x5a, sizeof raw);
    g_assert_cmpint(tapo_decode_frame(encap, frame, n + len, n + len, &linked), ==, TAPO_DECODE_TCP);
    g_assert_cmpint(tapo_decode_frame(WTAP_ENCAP_RAW_IP, packet, len, len, &raw), ==, TAPO_DECODE_TCP);
    same_fields(&linked, &raw);
    g_assert_cmpint(tapo_decode_frame(encap, frame, n - 1, n - 1, &linked), ==, TAPO_DECODE_TRUNCATED);
}

static void test_router_links(void)
{
    static const uint8_t timestamps[] = { 1, 1, 8, 10, 0, 0, 1, 0, 0, 0, 2, 0 };
    uint8_t p[1600];
    guint n = ipv4_tcp(p, 5, 8, timestamps, sizeof timestamps, 100, -1, 0, 6);
    static const uint8_t chdlc[] = { 0x0f, 0x00, 0x08, 0x00 };                    /* unicast, IPv4 */
    static const uint8_t fr_cisco[] = { 0x18, 0x61, 0x08, 0x00 };                 /* DLCI 390, an ethertype */
    static const uint8_t fr_nlpid[] = { 0x18, 0x61, 0x03, 0xcc };                 /* RFC 2427, IPv4 */
    static const uint8_t fr_padded[] = { 0x18, 0x61, 0x03, 0x00, 0xcc };          /* with the pad byte */
    static const uint8_t fr_snap[] = { 0x18, 0x61, 0x03, 0x00, 0x80, 0, 0, 0, 0x08, 0x00 };
    static const uint8_t fr_long_address[] = { 0x18, 0x60, 0x01, 0x03, 0xcc };   /* a 3-byte address */
    behind_link(WTAP_ENCAP_CHDLC, chdlc, sizeof chdlc, p, n);
    behind_link(WTAP_ENCAP_FRELAY, fr_cisco, sizeof fr_cisco, p, n);
    behind_link(WTAP_ENCAP_FRELAY, fr_nlpid, sizeof fr_nlpid, p, n);
    behind_link(WTAP_ENCAP_FRELAY, fr_padded, sizeof fr_padded, p, n);
    behind_link(WTAP_ENCAP_FRELAY, fr_snap, sizeof fr_snap, p, n);
    behind_link(WTAP_ENCAP_FRELAY, fr_long_address, sizeof fr_long_address, p, n);
    static const uint8_t mpls_two_labels[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x88, 0x47,
                                               0x00, 0x01, 0x00, 0xff, 0x00, 0x01, 0x01, 0xff };  /* S on the second */
    behind_link(WTAP_ENCAP_ETHERNET, mpls_two_labels, sizeof mpls_two_labels, p, n);
    static const uint8_t pseudowire[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x88, 0x47,
                                          0x00, 0x01, 0x01, 0xff, 0, 0, 0, 0 };   /* a control word: not IP */
    uint8_t frame[1600];
    memcpy(frame, pseudowire, sizeof pseudowire);
    memcpy(frame + sizeof pseudowire, p, n);
    tapo_segment_fields pw;
    g_assert_cmpint(tapo_decode_frame(WTAP_ENCAP_ETHERNET, frame, sizeof pseudowire + n, sizeof pseudowire + n, &pw),
                    ==, TAPO_DECODE_OTHER);
    static const uint8_t slarp[] = { 0x8f, 0x00, 0x80, 0x35, 0, 0, 0, 2 };       /* keep-alive: no IP */
    tapo_segment_fields out;
    g_assert_cmpint(tapo_decode_frame(WTAP_ENCAP_CHDLC, slarp, sizeof slarp, sizeof slarp, &out), ==,
                    TAPO_DECODE_OTHER);
    static const uint8_t no_end[] = { 0x18, 0x60, 0x00, 0x02, 0x03, 0xcc };      /* no EA bit in 4 bytes */
    g_assert_cmpint(tapo_decode_frame(WTAP_ENCAP_FRELAY, no_end, sizeof no_end, sizeof no_end, &out), ==,
                    TAPO_DECODE_MALFORMED);
}

/* An IPv6 packet carrying a TCP header and payload bytes. */
static guint ipv6_tcp(uint8_t *p, unsigned payload)
{
    guint n = 40 + 20 + payload;
    memset(p, 0, n);
    p[0] = 0x60;
    p[4] = (uint8_t)((n - 40) >> 8), p[5] = (uint8_t)(n - 40), p[6] = 6, p[7] = 64;
    p[8] = 0x20, p[9] = 0x01, p[23] = 1;           /* 2001::1 */
    p[24] = 0x20, p[25] = 0x01, p[39] = 2;         /* 2001::2 */
    uint8_t *t0 = p + 40;
    memcpy(t0, (uint8_t[]){ 0xd0, 0x86, 0x00, 0x50, 1, 2, 3, 4, 5, 6, 7, 8 }, 12);
    t0[12] = 0x50, t0[13] = 0x18, t0[14] = 0xff, t0[15] = 0x10;
    return n;
}

/* An Ethernet frame of IPv4 and UDP from sport to dport, the tunnel
 * header of hlen bytes, then the inner packet; returns its length. */
static guint in_udp(uint8_t *frame, uint16_t sport, uint16_t dport, const uint8_t *header, guint hlen,
                    const uint8_t *inner, guint ilen)
{
    static const uint8_t eth[14] = { 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0x08, 0x00 };
    guint udp = 8 + hlen + ilen, ip = 20 + udp;
    memcpy(frame, eth, 14);
    uint8_t *v4 = frame + 14, *u = v4 + 20;
    memset(v4, 0, 20);
    v4[0] = 0x45, v4[2] = (uint8_t)(ip >> 8), v4[3] = (uint8_t)ip, v4[4] = 0x77, v4[8] = 64, v4[9] = 17;
    memcpy(v4 + 12, (uint8_t[]){ 192, 0, 2, 1, 192, 0, 2, 2 }, 8);
    u[0] = (uint8_t)(sport >> 8), u[1] = (uint8_t)sport, u[2] = (uint8_t)(dport >> 8), u[3] = (uint8_t)dport;
    u[4] = (uint8_t)(udp >> 8), u[5] = (uint8_t)udp, u[6] = u[7] = 0;
    memcpy(u + 8, header, hlen);
    memcpy(u + 8 + hlen, inner, ilen);
    return 14 + ip;
}

/* The inner packet of a frame decodes as the packet alone (raw IP). */
static void tunnelled(const uint8_t *frame, guint n, const uint8_t *inner, guint ilen)
{
    tapo_segment_fields tunnel, raw;
    memset(&tunnel, 0xa5, sizeof tunnel);
    memset(&raw, 0x5a, sizeof raw);
    g_assert_cmpint(tapo_decode_frame(WTAP_ENCAP_ETHERNET, frame, n, n, &tunnel), ==, TAPO_DECODE_TCP);
    g_assert_cmpint(tapo_decode_frame(WTAP_ENCAP_RAW_IP, inner, ilen, ilen, &raw), ==, TAPO_DECODE_TCP);
    same_fields(&tunnel, &raw);
    g_assert_cmpint(tapo_decode_frame_endpoints(WTAP_ENCAP_ETHERNET, frame, n, n, &tunnel), ==, TAPO_DECODE_TCP);
    g_assert_cmpmem(tunnel.ends.src, 16, raw.ends.src, 16);
}

/* TCP inside the UDP tunnels Wireshark decodes by port (VXLAN, Geneve,
 * GTP-U, Teredo, AYIYA) is TCP like any other; the same bytes on another
 * port, or behind a header that is not the tunnel's, are no TCP. */
static void test_udp_tunnels(void)
{
    uint8_t v4[200], v6[200], eth_v4[214], frame[400];
    guint n4 = ipv4_tcp(v4, 5, 5, NULL, 0, 30, -1, 0, 6), n6 = ipv6_tcp(v6, 30);
    static const uint8_t eth[14] = { 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 4, 0x08, 0x00 };
    memcpy(eth_v4, eth, 14);
    memcpy(eth_v4 + 14, v4, n4);
    guint neth = 14 + n4;

    static const uint8_t vxlan[] = { 0x08, 0, 0, 0, 0, 0, 0x2a, 0 };                  /* I flag, VNI 42 */
    uint8_t h[300];
    memcpy(h, vxlan, sizeof vxlan);
    memcpy(h + sizeof vxlan, eth_v4, neth);
    tunnelled(frame, in_udp(frame, 51000, 4789, h, sizeof vxlan + neth, h, 0), v4, n4);

    static const uint8_t geneve[] = { 0x01, 0, 0x65, 0x58, 0, 0, 0x2a, 0, 1, 2, 3, 4 };  /* one option word */
    memcpy(h, geneve, sizeof geneve);
    memcpy(h + sizeof geneve, eth_v4, neth);
    tunnelled(frame, in_udp(frame, 51000, 6081, h, sizeof geneve + neth, h, 0), v4, n4);

    static const uint8_t gtp[] = { 0x34, 0xff, 0, 0, 0, 0, 0, 7, 0, 1, 0, 0x85,      /* E flag, one extension */
                                   0x01, 0x09, 0x00, 0x00 };                          /* 4 bytes, none next */
    tunnelled(frame, in_udp(frame, 2152, 2152, gtp, sizeof gtp, v6, n6), v6, n6);
    static const uint8_t gtp_plain[] = { 0x30, 0xff, 0, 0, 0, 0, 0, 7 };            /* no optional fields */
    tunnelled(frame, in_udp(frame, 2152, 2152, gtp_plain, sizeof gtp_plain, v4, n4), v4, n4);

    static const uint8_t origin[] = { 0, 0, 0xf2, 0x27, 0x3f, 0xff, 0xfd, 0xfe };  /* origin indication */
    tunnelled(frame, in_udp(frame, 3544, 61000, origin, sizeof origin, v6, n6), v6, n6);
    tunnelled(frame, in_udp(frame, 61000, 3544, h, 0, v6, n6), v6, n6);

    uint8_t ayiya[8 + 16 + 20];
    memset(ayiya, 0, sizeof ayiya);
    ayiya[0] = 0x41, ayiya[1] = 0x52, ayiya[2] = 0x11, ayiya[3] = 41;              /* 16-byte identity, 20-byte signature, forward, IPv6 */
    tunnelled(frame, in_udp(frame, 5072, 5072, ayiya, sizeof ayiya, v6, n6), v6, n6);

    tapo_segment_fields out;
    guint n = in_udp(frame, 51000, 53, vxlan, sizeof vxlan, eth_v4, neth);         /* DNS's port */
    g_assert_cmpint(tapo_decode_frame(WTAP_ENCAP_ETHERNET, frame, n, n, &out), ==, TAPO_DECODE_OTHER);
    static const uint8_t no_flag[] = { 0, 0, 0, 0, 0, 0, 0x2a, 0 };
    n = in_udp(frame, 51000, 4789, no_flag, sizeof no_flag, eth_v4, neth);
    g_assert_cmpint(tapo_decode_frame(WTAP_ENCAP_ETHERNET, frame, n, n, &out), ==, TAPO_DECODE_OTHER);
    ayiya[2] = 0x10;                                                                /* not forwarded */
    n = in_udp(frame, 5072, 5072, ayiya, sizeof ayiya, v6, n6);
    g_assert_cmpint(tapo_decode_frame(WTAP_ENCAP_ETHERNET, frame, n, n, &out), ==, TAPO_DECODE_OTHER);
}

/* A packet to its own address (loopback, a host talking to itself) is
 * marked so: the capture point is at both ends (vantage.c); one between
 * two addresses is not. */
static void test_one_host_is_marked(void)
{
    tapo_segment_fields seg;
    memset(&seg, 0, sizeof seg);
    seg.ends.family = 6;
    seg.ends.src[15] = seg.ends.dst[15] = 1;   /* ::1 */
    seg.ends.sport = 52522;
    seg.ends.dport = 80;
    tapo_flow_identity id;
    tapo_flow_identity_init(&id, &seg);
    tapo_packet p;
    tapo_flow_packet(&id, 1, 0.0, 0, &seg, &p);
    g_assert_true(p.same_host);
    seg.ends.dst[15] = 2;
    tapo_flow_identity_init(&id, &seg);
    tapo_flow_packet(&id, 1, 0.0, 0, &seg, &p);
    g_assert_false(p.same_host);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/decode/quick_path", test_quick_path_decodes_as_the_general_one);
    g_test_add_func("/decode/router_links", test_router_links);
    g_test_add_func("/decode/one_host", test_one_host_is_marked);
    g_test_add_func("/decode/udp_tunnels", test_udp_tunnels);
    return g_test_run();
}
