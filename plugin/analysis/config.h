/* config.h: the tunables of the analysis (the plugin's preferences).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_CONFIG_H
#define TAPO_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

/* Which endpoint of a conversation is "the sender" (spec section 1). */
typedef enum {
    TAPO_SENDER_RESPONDER,   /* the endpoint that sent the SYN-ACK (default) */
    TAPO_SENDER_INITIATOR,   /* the endpoint that sent the SYN */
    TAPO_SENDER_PORTS        /* the endpoint using one of the configured server ports */
} tapo_sender_mode;

typedef struct tapo_config {
    double tau;                      /* stall threshold multiplier of SRTT (paper: 2) */
    uint32_t small_window_segments;  /* in_flight below this is "small" (paper: 4 segments) */
    double rto_min_s;                /* minimum RTO, seconds (Linux: 0.2) */
    double rto_initial_s;            /* RTO before the first RTT sample, seconds (RFC 6298: 1) */
    tapo_sender_mode sender_mode;
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

/* The defaults of the paper and of Linux. */
void tapo_config_init_defaults(tapo_config *cfg);

#endif /* TAPO_CONFIG_H */
