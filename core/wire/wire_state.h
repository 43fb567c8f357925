/* wire_state.h: what Wireshark's TCP dissector (4.0) keeps per direction of
 * a connection and derives for each segment, so that the analysis gets the
 * same input here as in the plugin: when a SYN starts a new stream on the
 * same ports, the scaled window and whether its scale is known, and the
 * keep-alive and zero-window-probe flags.
 *
 * From packet-tcp.c (dissect_tcp, verify_tcp_window_scaling,
 * tcp_analyze_sequence_number), as 4.0 to 4.6 do it:
 * - a stream splits only on a pure SYN whose sequence number differs from
 *   its direction's base sequence number (set by the direction's first
 *   packet: its seq for a SYN, seq - 1 otherwise; or by the peer's first
 *   ACK: ack - 1); a SYN-ACK with another seq replaces the base;
 * - a window scale option sets its direction's shift (at most 14); a SYN
 *   whose direction has none sets both to "no scaling", and a SYN-ACK does
 *   so when the SYN had none (unless the snaplen cut the SYN's options:
 *   Wireshark's reading of the segment ends there); non-SYN windows are
 *   scaled by a known shift, and unscaled (scale unknown) before any
 *   handshake;
 * - a zero-window probe is one byte at the next sequence number while the
 *   peer's last raw window was 0; a keep-alive is 0 or 1 byte at the next
 *   sequence number minus one, without SYN, FIN or RST.  The next sequence
 *   number only moves forward (SYN and FIN count one), never on a probe.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_WIRE_STATE_H
#define TAPO_WIRE_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/decode.h"
#include "packet/packet_input.h"

#define TAPO_WS_SCALE_UNKNOWN (-1)    /* no handshake seen: windows unscaled */
#define TAPO_WS_SCALE_NONE (-2)       /* the handshake did not agree on scaling */
#define TAPO_WS_SHIFT_MAX 14          /* RFC 7323 */

typedef struct tapo_wire_direction {
    bool base_set;
    uint32_t base_seq;                /* raw */
    int win_scale;                    /* shift, or TAPO_WS_SCALE_* */
    uint32_t nextseq;                 /* raw; 0 unset */
    uint32_t window;                  /* last raw window; UINT32_MAX before any */
} tapo_wire_direction;

typedef struct tapo_wire_state {
    tapo_wire_direction dir[2];       /* by endpoint */
} tapo_wire_state;

void tapo_wire_init(tapo_wire_state *w);

/* A pure SYN from endpoint 'from' that starts a new stream. */
bool tapo_wire_splits(const tapo_wire_state *w, int from, const tapo_segment_fields *seg);

/* Fills what Wireshark derives for this segment (window, its scale,
 * keep-alive, zero-window probe) into p, and updates the state. */
void tapo_wire_segment(tapo_wire_state *w, int from, const tapo_segment_fields *seg, tapo_packet *p);

#endif /* TAPO_WIRE_STATE_H */
