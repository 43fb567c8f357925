/* flow_index.h: the connections of a table by their endpoints, whichever
 * endpoint sent the segment looked up.
 *
 * Open addressing with linear probing over a power-of-two array of slots,
 * at most half full: a lookup costs one hash of the segment's endpoints
 * (the same either way round, so they need not be put in order first) and
 * usually one slot.  Each slot keeps its entry's hash, so that a probe
 * compares endpoints only on a hash match.  Removal shifts the following
 * entries back (no tombstones), so a table that sees connections come and
 * go for days stays as short to search as on its first hour.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_FLOW_INDEX_H
#define TAPO_FLOW_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "wire/decode.h"

typedef struct tapo_flow_slot {
    const tapo_endpoints *ends;       /* the entry's endpoints (owned by the value); NULL: empty */
    void *value;
    uint32_t hash;                    /* tapo_endpoints_either_way_hash of ends */
} tapo_flow_slot;

typedef struct tapo_flow_index {
    tapo_flow_slot *slots;
    uint32_t mask;                    /* slots - 1 (a power of two, minus one) */
    uint32_t count;                   /* entries, count */
} tapo_flow_index;

void tapo_flow_index_init(tapo_flow_index *x);
void tapo_flow_index_destroy(tapo_flow_index *x);

/* The value whose endpoints are ends either way round, or NULL; hash is
 * tapo_endpoints_either_way_hash(ends). */
void *tapo_flow_index_find(const tapo_flow_index *x, const tapo_endpoints *ends, uint32_t hash);

/* Adds value under ends (which must stay valid while it is in the index,
 * and not be there yet). */
void tapo_flow_index_add(tapo_flow_index *x, const tapo_endpoints *ends, uint32_t hash, void *value);

/* Removes the entry of value (added under this hash), if there. */
void tapo_flow_index_remove(tapo_flow_index *x, uint32_t hash, const void *value);

#endif /* TAPO_FLOW_INDEX_H */
