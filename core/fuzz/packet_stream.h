/* packet_stream.h: a conversation's packets encoded as bytes, so that a
 * fuzzer can mutate them and labelled captures can seed it.
 *
 * Layout (little endian), all of it optional: bytes that run out read as 0.
 *   header, 4 bytes: sender mode (bits 0-1) and vantage mode (bits 2-3);
 *     tau in tenths (0: 2); minimum stall in ms; small-window limit
 *     (0: 4 segments)
 *   then per packet:
 *     u8  meta: bit 0 endpoint, bit 1 header unreadable, bit 2 TCP
 *         timestamps, bit 3 keep-alive, bit 4 zero-window probe, bit 5
 *         window scale known, bit 6 time goes back by the delta
 *     u8  TCP flags
 *     u32 time delta, microseconds
 *     u32 raw sequence number, u32 raw acknowledgement number
 *     u16 payload length, bytes
 *     u32 window, bytes
 *     u16 MSS option, bytes (0: none)
 *     u8  SACK blocks (low 3 bits, at most 4), then per block u32 left, u32 right
 *     u16 IPv4 ID
 *     u32 TSval, u32 TSecr (with bit 2 only)
 * pcap_to_stream.py writes this from a capture.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_PACKET_STREAM_H
#define TAPO_PACKET_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "packet/packet_input.h"

typedef struct tapo_stream_reader {
    const uint8_t *data;
    size_t size;
    size_t pos;
    double time_s;               /* clock of the packets decoded so far, seconds */
    uint32_t frame;              /* frames decoded so far */
} tapo_stream_reader;

void tapo_stream_open(tapo_stream_reader *r, const uint8_t *data, size_t size, tapo_config *cfg);

/* Decodes the next packet; false at the end of the bytes. */
bool tapo_stream_next(tapo_stream_reader *r, tapo_packet *p);

#endif /* TAPO_PACKET_STREAM_H */
