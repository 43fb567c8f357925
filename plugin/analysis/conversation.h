/* conversation.h: one TCP connection: stall detection (spec section 3),
 * the choice of sender (spec section 1) and the verdict for each stall.
 *
 * Use per packet, in capture order:
 *   if (tapo_conv_ends_stall(c, p, cfg)) rec = <allocate a tapo_stall_record>;
 *   tapo_conv_process(c, p, cfg, rec);      (rec NULL when no stall)
 * and later, as often as needed:
 *   verdict = tapo_conv_verdict(c, rec, cfg, final);
 * The record must live as long as the conversation: hindsight revises it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_CONVERSATION_H
#define TAPO_CONVERSATION_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "packet_input.h"
#include "sender_state.h"
#include "stall.h"

/* Copies of one frame captured several times (an "any" capture, a span
 * port, a router seen twice) arrive interleaved within a few packets. */
#define TAPO_RECENT_PACKETS 4
/* Copies with the same non-zero IPv4 ID closer than this are one frame:
 * a TCP retransmission always gets a new IP ID. */
#define TAPO_DUPLICATE_WINDOW_ID_S 0.05
/* Without an IP ID, only identical copies closer than this are one frame:
 * back-to-back duplicate ACKs of a fast link can be 10 us apart. */
#define TAPO_DUPLICATE_WINDOW_S 0.000005
/* A sender whose peer sent more than this many times its payload, and at
 * least TAPO_REVERSED_MIN_BYTES, is probably the wrong endpoint. */
#define TAPO_REVERSED_RATIO 4
#define TAPO_REVERSED_MIN_BYTES 65536

typedef struct tapo_conv {
    tapo_sender ep[2];            /* each endpoint as a sender; 0 sent the first packet seen */
    uint16_t port[2];             /* TCP port of each endpoint */
    int initiator;                /* endpoint that sent the SYN; -1 unknown */
    bool has_prev;                /* a packet was seen before */
    double prev_time_s;           /* latest capture time seen, seconds */
    uint32_t prev_frame;          /* frame with that time: a gap is measured from it */
    tapo_packet recent[TAPO_RECENT_PACKETS]; /* last packets, to spot frames captured twice */
    unsigned recent_next;         /* ring position of the next insertion */
    bool rst_seen;                /* a reset ended the connection */
} tapo_conv;

void tapo_conv_init(tapo_conv *c, const tapo_config *cfg);
void tapo_conv_destroy(tapo_conv *c);

/* True when p ends a stall for the current sender. */
bool tapo_conv_ends_stall(const tapo_conv *c, const tapo_packet *p, const tapo_config *cfg);

/* Updates the conversation with p; fills rec when it is not NULL. */
void tapo_conv_process(tapo_conv *c, const tapo_packet *p, const tapo_config *cfg,
                       tapo_stall_record *rec);

/* The endpoint analysed as the sender now: ports preference, else the
 * handshake roles, else the heavier sender so far. */
int tapo_conv_sender(const tapo_conv *c, const tapo_config *cfg);

/* True when the peer of the analysed sender sent much more payload: the
 * capture is probably an upload and the sender preference is wrong. */
bool tapo_conv_sender_looks_reversed(const tapo_conv *c, int sender);

/* The verdict for a stall, with what was known at the packet (final false)
 * or with the whole capture (final true). */
tapo_verdict tapo_conv_verdict(const tapo_conv *c, const tapo_stall_record *rec,
                               const tapo_config *cfg, bool final);

#endif /* TAPO_CONVERSATION_H */
