/* packet_builder.h: a test bench that feeds hand-written TCP exchanges to a
 * tapo_conv, one call per packet, and keeps the stall records.
 *
 * Endpoint 0 is the client (it sends the SYN), endpoint 1 the server.
 * Sequence numbers in calls are relative to each side's ISN, like
 * Wireshark's tcp.seq; the bench turns them into raw numbers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_PACKET_BUILDER_H
#define TAPO_PACKET_BUILDER_H

#include "connection/conversation.h"
#include "verdict/verdict.h"

#define CLIENT 0
#define SERVER 1
#define TB_MAX_FRAMES 4096
#define TB_MSS 1460      /* MSS option in both SYNs, and the segment size tests use, bytes */
#define TB_HOST(e) (0x0a000001u + (uint32_t)(e))   /* endpoint e's IPv4 address in the census */

typedef struct tb {
    tapo_conv conv;
    tapo_config cfg;
    uint32_t isn[2];                          /* raw ISN of each endpoint */
    uint16_t port[2];                         /* TCP port of each endpoint (40000 and 80 unless a test sets them) */
    uint32_t frame;                           /* last frame number */
    bool scale_known;                         /* window scale known for non-SYN packets */
    bool use_ip_id;                           /* number packets with IPv4 IDs */
    uint16_t next_ip_id[2];                   /* next IPv4 ID of each endpoint (apart: the server's start at 0x8000) */
    uint8_t ttl[2];                           /* IPv4 TTL of each endpoint's packets as captured, hops (0: unknown, the default) */
    tapo_id_census census;                    /* the IDs of the bench's "capture": its packets only */
    tapo_packet last;                         /* last packet fed */
    tapo_stall_record *records[TB_MAX_FRAMES + 1]; /* by frame; NULL = no stall */
} tb;

void tb_init(tb *b, uint32_t client_isn, uint32_t server_isn);
void tb_free(tb *b);

/* A packet from endpoint 'from' at time t (seconds).  seq and ack are
 * relative; sack pairs are relative to the receiver of 'from', i.e. the
 * same space as ack.  Returns the frame number. */
uint32_t tb_packet(tb *b, int from, double t, uint32_t seq, uint32_t ack, uint32_t len,
                   uint16_t flags, uint32_t window, unsigned nsack, const uint32_t *sack);

/* A keep-alive of endpoint 'from': no payload, one below next_seq (its
 * next sequence number, relative). */
uint32_t tb_keep_alive(tb *b, int from, double t, uint32_t next_seq, uint32_t ack);
/* The same with the byte below next_seq repeated (Windows, SMB servers). */
uint32_t tb_keep_alive_byte(tb *b, int from, double t, uint32_t next_seq, uint32_t ack);

/* Feeds the last packet again at time t: the same frame captured twice. */
uint32_t tb_repeat_last(tb *b, double t);

/* A packet of endpoint host_of's host outside this connection (another
 * connection, or not TCP), carrying IPv4 ID id: noted in the census only. */
void tb_other_packet(tb *b, int host_of, uint16_t id);

/* Shorthands. */
void tb_handshake(tb *b, double t, double rtt, uint32_t client_window, uint32_t server_window);
uint32_t tb_data(tb *b, int from, double t, uint32_t seq, uint32_t len, uint32_t ack);
uint32_t tb_ack(tb *b, int from, double t, uint32_t ack, uint32_t seq, uint32_t window);
uint32_t tb_sack(tb *b, int from, double t, uint32_t ack, uint32_t seq, uint32_t window,
                 uint32_t left, uint32_t right);

/* The connection's summary as it stands (what verdicts are computed from). */
tapo_conv_summary tb_summary(tb *b);

/* Verdict of a frame; aborts the test when it is not a stall. */
tapo_verdict tb_verdict(tb *b, uint32_t frame, bool final);
/* The analysed sender's view of a stall (two passes). */
const tapo_stall_view *tb_record(tb *b, uint32_t frame);
bool tb_is_stall(tb *b, uint32_t frame);
unsigned tb_stall_count(tb *b);

#endif
