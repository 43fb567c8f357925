/* conversation.h: one TCP connection: stall detection (spec section 3),
 * the vantage and the choice of sender (spec section 1), and the verdict
 * for each stall.
 *
 * Use per packet, in capture order:
 *   rec = tapo_conv_process(c, p, cfg, alloc, ctx);   (non-NULL: p ends a stall)
 * and later, as often as needed:
 *   if (tapo_conv_verdict(c, rec, cfg, final, &v)) ... render v
 * A record comes from alloc(ctx) and must live as long as the conversation:
 * hindsight revises it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_CONVERSATION_H
#define TAPO_CONVERSATION_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "packet_input.h"
#include "sender_clock.h"
#include "sender_state.h"
#include "stall.h"
#include "ts_clock.h"
#include "vantage.h"

/* Copies of one frame captured several times (an "any" capture, a span
 * port, a router seen twice) arrive interleaved within a few packets. */
#define TAPO_RECENT_PACKETS 4
/* Copies with the same non-zero IPv4 ID closer than this are one frame:
 * a TCP retransmission always gets a new IP ID. */
#define TAPO_DUPLICATE_WINDOW_ID_S 0.05
/* Without an IP ID, only identical copies closer than this are one frame:
 * back-to-back duplicate ACKs of a fast link can be 10 us apart. */
#define TAPO_DUPLICATE_WINDOW_S 0.000005
/* A forced sender whose peer sent more than this many times its payload,
 * and at least TAPO_REVERSED_MIN_BYTES, is probably the wrong endpoint. */
#define TAPO_REVERSED_RATIO 4
#define TAPO_REVERSED_MIN_BYTES 65536
/* An endpoint numbers its packets one by one (IPv4 IDs) when at least this
 * share of its consecutive packets seen differ by one... */
#define TAPO_IP_ID_SEQUENTIAL_SHARE 0.8
/* ...over at least this many steps, count; */
#define TAPO_IP_ID_MIN_STEPS 4
/* and a larger jump says nothing about packets lost, count. */
#define TAPO_IP_ID_MAX_UNSEEN 64

/* A gap longer than this is more likely the capture's clock jumping (a
 * merged file, a clock step) than a connection idle that long; it still
 * counts, with a note. */
#define TAPO_CLOCK_JUMP_S 86400.0      /* seconds: a day */

/* How precisely a sender packet is placed on its sender's timeline away
 * from the sender: a TSval tick, or a share of the round trip (jitter). */
#define TAPO_PLACEMENT_MARGIN_S 0.002
#define TAPO_PLACEMENT_MARGIN_SHARE 0.1

/* How one endpoint numbers its IPv4 packets. */
typedef struct tapo_ip_ids {
    bool seen;                    /* an ID was seen */
    uint16_t last;                /* the latest ID */
    uint32_t steps;               /* consecutive pairs seen, count */
    uint32_t unit_steps;          /* of which differed by one, count */
} tapo_ip_ids;

/* How far the capture point is from an endpoint as the sender
 * (sender_clock.h). */
typedef struct tapo_distance {
    bool away;                    /* the capture is not at the sender */
    bool known;                   /* the round trip to the sender was measured */
    double round_trip_min_s;      /* capture point -> sender -> capture point, least delayed, seconds */
    double round_trip_now_s;      /* the same with the current queueing, seconds */
} tapo_distance;

typedef tapo_stall_record *(*tapo_record_alloc)(void *ctx);

/* What happened to a connection that the user should hear of: counts that
 * a caller compares before and after a packet. */
typedef struct tapo_conv_events {
    uint32_t restarts;            /* times a new connection started on the same ports, count */
    uint32_t strays;              /* SYN-ACKs of another connection ignored, count */
    uint32_t time_backwards;      /* packets stamped before the latest one seen, count */
    uint32_t time_jumps;          /* gaps over TAPO_CLOCK_JUMP_S, count */
} tapo_conv_events;

/* What rendering a connection's verdicts needs once its state is gone
 * (tapo_conv_is_over): the sender is chosen from these with hindsight. */
typedef struct tapo_conv_summary {
    uint64_t payload_bytes[2];    /* new payload each endpoint sent, bytes */
    int initiator;                /* endpoint that sent the SYN; -1 unknown */
    uint16_t port[2];             /* TCP port of each endpoint */
} tapo_conv_summary;

typedef struct tapo_conv {
    tapo_sender ep[2];            /* each endpoint as a sender; 0 sent the first packet seen */
    tapo_turnaround turn[2];      /* each endpoint's turnarounds (vantage.h) */
    tapo_distance distance[2];    /* from each endpoint as the sender, while fresh */
    bool distance_fresh[2];       /* no turnaround was added since it was computed */
    tapo_ts_history ts[2];        /* TSvals each endpoint sent */
    tapo_ts_clock ts_clock[2];    /* each endpoint's TSval clock */
    tapo_sender_clock clock[2];   /* the packets on each endpoint's timeline, as a sender */
    tapo_rtt_history rtt_history[2]; /* each endpoint's recent RTT estimates */
    /* The latest stall of each endpoint's view that a packet of its peer
     * ended, and the gap it measured on the sender's timeline: a sender
     * packet seen later but sent inside the gap revokes it. */
    tapo_stall_record *peer_stall[2];
    double peer_stall_from_s[2];  /* sender time, seconds */
    double peer_stall_to_s[2];
    tapo_ip_ids ip_ids[2];        /* each endpoint's IPv4 IDs */
    uint16_t port[2];             /* TCP port of each endpoint */
    int initiator;                /* endpoint that sent the SYN; -1 unknown */
    bool syn_seen, syn_ack_seen;  /* the handshake's first two packets were seen */
    double syn_s;                 /* capture time of the latest SYN, seconds */
    double syn_ack_s;             /* capture time of the latest SYN-ACK, seconds */
    bool handshake_acked;         /* the initiator's first ACK of the SYN-ACK was timed */
    bool has_prev;                /* a packet was seen before */
    tapo_packet recent[TAPO_RECENT_PACKETS]; /* last packets, to spot frames captured twice */
    unsigned recent_next;         /* ring position of the next insertion */
    bool rst_seen;                /* a reset ended the connection */
    double latest_time_s;         /* the latest capture time seen, seconds */
    tapo_conv_events events;
} tapo_conv;

void tapo_conv_init(tapo_conv *c, const tapo_config *cfg);
void tapo_conv_destroy(tapo_conv *c);

/* Updates the conversation with p; returns the record when p ends a stall
 * for either endpoint as the sender, else NULL. */
tapo_stall_record *tapo_conv_process(tapo_conv *c, const tapo_packet *p, const tapo_config *cfg,
                                     tapo_record_alloc alloc, void *alloc_ctx);

/* The vantage for endpoint 'sender' as the sender, as measured now. */
tapo_vantage tapo_conv_vantage(const tapo_conv *c, int sender, const tapo_config *cfg,
                               tapo_basis *basis);

/* True once both FINs are acknowledged, or after a reset.  Once no packet
 * came for TAPO_CLOSED_GRACE_S more, the caller may keep only the summary
 * (memory bound on endless captures); a later packet of the connection
 * starts a fresh state resumed from it. */
bool tapo_conv_is_over(const tapo_conv *c);

void tapo_conv_summarize(const tapo_conv *c, tapo_conv_summary *sum);

/* Continues a connection whose state was dropped: counts and roles go on. */
void tapo_conv_resume(tapo_conv *c, const tapo_conv_summary *sum);

/* The endpoint analysed as the sender now (one pass: so far; at the end of
 * the capture: with hindsight), and how it was chosen.  rec, when given,
 * lets a stall of a connection where both endpoints send bulk data be
 * analysed from the side whose data was in flight. */
int tapo_conv_sender(const tapo_conv_summary *sum, const tapo_config *cfg,
                     const tapo_stall_record *rec, tapo_basis *basis);

/* True when a forced sender's peer sent much more payload: the capture is
 * probably an upload and the preference is wrong. */
bool tapo_conv_sender_looks_reversed(const tapo_conv_summary *sum, int sender,
                                     const tapo_config *cfg);

/* The verdict for a stall, with what was known at the packet (final false)
 * or with the whole capture (final true).  False when, for the sender
 * chosen in that pass, the packet ends no stall. */
bool tapo_conv_verdict(const tapo_conv_summary *sum, const tapo_stall_record *rec,
                       const tapo_config *cfg, bool final, tapo_verdict *v);

#endif /* TAPO_CONVERSATION_H */
