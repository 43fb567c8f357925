/* flow_identity.h: what turns a decoded segment into the analysis core's
 * packet on its connection, identically in the plugin and the batch
 * analyser: which endpoint sent it (endpoint 0 sent the connection's first
 * packet, as the core expects), whether it starts a new stream on the same
 * ports, and what Wireshark's TCP dissector derives for it (wire_state.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_FLOW_IDENTITY_H
#define TAPO_FLOW_IDENTITY_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/decode.h"
#include "packet/packet_input.h"
#include "wire/wire_state.h"

typedef struct tapo_flow_identity {
    tapo_endpoints first;             /* as its first packet carried them: endpoint 0 sent it */
    bool same_host;                   /* both endpoints have one address (loopback, a host to itself) */
    tapo_wire_state wire;
} tapo_flow_identity;

void tapo_flow_identity_init(tapo_flow_identity *id, const tapo_segment_fields *first);

/* The endpoint that sent seg: by port, by address when both ports are equal. */
int tapo_flow_endpoint(const tapo_flow_identity *id, const tapo_segment_fields *seg);

/* seg (a pure SYN with another ISN) starts a new stream on these ports. */
bool tapo_flow_splits(const tapo_flow_identity *id, const tapo_segment_fields *seg);

/* The core's packet for seg, sent by 'from'; updates the wire state. */
void tapo_flow_packet(tapo_flow_identity *id, uint32_t frame, double time_s, int from,
                      const tapo_segment_fields *seg, tapo_packet *p);

#endif /* TAPO_FLOW_IDENTITY_H */
