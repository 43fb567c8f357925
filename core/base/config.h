/* config.h: the tunables of the analysis, as the preferences set them
 * (preferences.h declares the preferences: names, defaults, values).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_CONFIG_H
#define TAPO_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

/* Which endpoint of a conversation is "the sender" (spec section 1). */
typedef enum {
    TAPO_SENDER_AUTO,        /* the heavier data sender, per direction when both send bulk (default) */
    TAPO_SENDER_RESPONDER,   /* the endpoint that sent the SYN-ACK */
    TAPO_SENDER_INITIATOR,   /* the endpoint that sent the SYN */
    TAPO_SENDER_PORTS        /* the endpoint using one of the configured server ports */
} tapo_sender_mode;

/* Where the capture was taken (spec section 1). */
typedef enum {
    TAPO_VANTAGE_MODE_AUTO,  /* inferred per connection (default) */
    TAPO_VANTAGE_MODE_SENDER,
    TAPO_VANTAGE_MODE_RECEIVER,
    TAPO_VANTAGE_MODE_MIDDLE
} tapo_vantage_mode;

/* The order of the timeout-retransmission sub-rules (spec section 4). */
typedef enum {
    TAPO_RULE_ORDER_EVIDENCE,  /* a retransmission proven unnecessary is ack-delay first (default) */
    TAPO_RULE_ORDER_PAPER      /* the paper's Table 5: ack-delay after the loss rules */
} tapo_rule_order;

typedef struct tapo_config {
    double tau;                      /* stall threshold multiplier of SRTT (paper: 2) */
    uint32_t small_window_segments;  /* in_flight below this is "small" (paper: 4 segments) */
    double rto_min_s;                /* minimum RTO, seconds (Linux: 0.2) */
    double rto_initial_s;            /* RTO before the first RTT sample, seconds (RFC 6298: 1) */
    double min_stall_s;              /* shorter gaps are no stall, seconds (docs/algorithm.md: 10 ms) */
    uint32_t episode_min_connections;/* stalls of this many connections at once can be an episode, count (3) */
    tapo_sender_mode sender_mode;
    tapo_vantage_mode vantage_mode;
    tapo_rule_order rule_order;
    /* For TAPO_SENDER_PORTS: returns true when port is a server port.  NULL
     * means no port is a server port. */
    bool (*is_server_port)(uint16_t port, void *user_data);
    void *is_server_port_data;
} tapo_config;

/* Limits that are not preferences, with the reason for each. */
#define TAPO_RTO_MAX_S 120.0          /* RFC 6298 allows an upper bound; Linux uses 120 s */
#define TAPO_DUPTHRES_DEFAULT 3       /* RFC 5681 duplicate-ACK threshold, segments */
#define TAPO_DUPTHRES_MAX 300         /* Linux net.ipv4.tcp_max_reordering, segments */
#define TAPO_MSS_FALLBACK 1460        /* bytes; used until an MSS option or a segment is seen */
/* MSS options below Linux's floor (TCP_MIN_MSS) are nonsense: ignored. */
#define TAPO_MSS_OPTION_MIN 88        /* bytes */
/* An MSS option above jumbo frames (65495 on loopback) says nothing about
 * the path: the segments sent, once at least a classic minimum, tell it. */
#define TAPO_MSS_JUMBO 9000           /* bytes */
#define TAPO_MSS_CLASSIC_MIN 536      /* bytes, RFC 9293's default MSS */
/* Both endpoints of a request/response connection that each sent this much
 * payload are both bulk senders: each stall is analysed from the side whose
 * data was in flight (spec section 1). */
#define TAPO_BULK_BYTES 65536         /* bytes */
/* The initiator is the data sender (an upload) once it has sent at least
 * this much more than the responder: more than a request. */
#define TAPO_SENDER_SWITCH_BYTES 4096 /* bytes */
/* Below it, the initiator is the data sender when the responder answered
 * fewer than half of its messages with payload, and at least this many
 * went unanswered (record/messages.h). */
#define TAPO_SENDER_UNANSWERED 2      /* messages */

/* A gap exceeds the threshold only by more than the capture clock's
 * resolution: pcap's microsecond (a double holding epoch seconds keeps
 * about 0.2 us more).  On a coarse clock (10 ms ticks) gaps and SRTT are
 * whole ticks, and a gap of exactly twice an SRTT of one tick must not be
 * decided by the rounding of the subtraction. */
#define TAPO_CLOCK_RESOLUTION_S 1e-6  /* seconds */

/* A connection that is over (both FINs acknowledged, or a reset) keeps its
 * state this long after its latest packet: a lost last ACK makes the peer
 * resend its FIN on its timer (Linux: at most 120 s apart, tcp_orphan_retries
 * times), and that stall needs the state.  Then only a summary stays. */
#define TAPO_CLOSED_GRACE_S 240.0     /* seconds: twice Linux's largest RTO */

/* The defaults of the paper and of Linux: the preferences' defaults
 * (preferences.c), no server port. */
void tapo_config_init_defaults(tapo_config *cfg);

#endif /* TAPO_CONFIG_H */
