/* seqspace.h: raw 32-bit TCP sequence numbers as 64-bit stream offsets.
 *
 * One tapo_seqspace belongs to one direction of a connection.  The first raw
 * number seen becomes offset 0; later numbers are placed by their signed
 * 32-bit distance from the highest number the sender has transmitted, so a
 * stream that wraps past 2^32 keeps growing instead of jumping backwards.
 * Only the sender's own transmissions move the reference: a bogus ACK or SACK
 * edge from the peer cannot drag it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_SEQSPACE_H
#define TAPO_SEQSPACE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct tapo_seqspace {
    bool anchored;       /* a reference point exists */
    uint32_t ref_raw;    /* raw sequence number of the reference */
    int64_t ref_offset;  /* its stream offset, bytes */
} tapo_seqspace;

/* Offset of raw in an anchored space, without anchoring an empty one
 * (callers check space->anchored). */
static inline int64_t tapo_seq_peek(const tapo_seqspace *space, uint32_t raw)
{
    return space->ref_offset + (int32_t)(raw - space->ref_raw);
}

/* Offset of raw, anchoring the space at raw (offset 0) if it is empty. */
static inline int64_t tapo_seq_offset(tapo_seqspace *space, uint32_t raw)
{
    if (!space->anchored) {
        space->anchored = true;
        space->ref_raw = raw;
        space->ref_offset = 0;
    }
    return tapo_seq_peek(space, raw);
}

/* Moves the reference forward to raw when raw lies ahead of it; call with the
 * end of each segment the sender transmits. */
static inline void tapo_seq_advance(tapo_seqspace *space, uint32_t raw)
{
    int64_t offset = tapo_seq_offset(space, raw);
    if (offset > space->ref_offset) {
        space->ref_raw = raw;
        space->ref_offset = offset;
    }
}

#endif /* TAPO_SEQSPACE_H */
