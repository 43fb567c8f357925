/* conversation.h: one TCP connection: its two endpoints, each packet
 * through them once, and the record of each stall (spec sections 1 to 3).
 *
 * Use per packet, in capture order:
 *   rec = tapo_conv_process(c, p, cfg, pool);   (non-NULL: p ends a stall)
 * and later, as often as needed (verdict.h):
 *   if (tapo_conv_verdict(&summary, rec, cfg, final, &v)) ... render v
 * A record comes from the pool (when p may end a stall; it goes back when
 * p ends none) and must live as long as the connection's state: hindsight
 * revises its final facts (hindsight.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_CONVERSATION_H
#define TAPO_CONVERSATION_H

#include <stdbool.h>
#include <stdint.h>

#include "packet/capture_quirks.h"
#include "base/config.h"
#include "connection/endpoint.h"
#include "connection/handshake.h"
#include "base/optional.h"
#include "packet/packet_input.h"
#include "record/stall.h"

/* Storage for stall records, asked for only when a packet may end a stall. */
typedef struct tapo_record_pool {
    tapo_stall_record *(*get)(void *ctx);
    void (*put)(void *ctx, tapo_stall_record *rec);   /* the packet ended no stall */
    void *ctx;
} tapo_record_pool;

/* Records from the heap (g_new), freed when given back: the owner of a
 * returned record frees it with g_free. */
extern const tapo_record_pool tapo_heap_records;

typedef struct tapo_conv {
    tapo_endpoint ep[2];          /* 0 sent the first packet seen */
    tapo_handshake handshake;
    tapo_capture_quirks quirks;
    uint32_t turn_version;        /* changes of either endpoint's turnarounds, from 1 (tapo_endpoint_distance) */
    bool has_prev;                /* a packet was seen before */
    uint8_t reset_ends;           /* the endpoints a reset ended, bit per endpoint (0: no reset): its sender, and
                                   * its receiver when it was numbered where its sender's data ends (in the
                                   * receiver's window) */
    uint8_t keep_alive_by;        /* 1 + the endpoint whose keep-alive is the latest packet; 0 none */
    tapo_conv_events events;
    tapo_message_tracker messages; /* who answered whom, for the sender's choice */
} tapo_conv;

void tapo_conv_init(tapo_conv *c, const tapo_config *cfg);
void tapo_conv_destroy(tapo_conv *c);

/* Updates the conversation with p; returns the record when p ends a stall
 * for either endpoint as the sender, else NULL. */
tapo_stall_record *tapo_conv_process(tapo_conv *c, const tapo_packet *p, const tapo_config *cfg,
                                     const tapo_record_pool *pool);

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

#endif /* TAPO_CONVERSATION_H */
