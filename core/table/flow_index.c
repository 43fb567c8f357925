/* flow_index.c: see flow_index.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "table/flow_index.h"

#include "wire/endpoints.h"

#define FIRST_SLOTS 64                /* slots of a new index, count (a power of two) */

/* An entry's first slot to try: the hash's top bits after a multiplication
 * by 2^32 / the golden ratio (Fibonacci hashing), since the workers of a
 * run shard connections by the hash's low bits (run.c). */
static uint32_t home_slot(uint32_t hash, uint32_t mask)
{
    /* mask is 2^bits - 1 (never 0): its leading zeros are 32 - bits. */
    return (uint32_t)((hash * 2654435769u) >> __builtin_clz(mask));
}

void tapo_flow_index_init(tapo_flow_index *x)
{
    x->slots = g_new0(tapo_flow_slot, FIRST_SLOTS);
    x->mask = FIRST_SLOTS - 1;
    x->count = 0;
}

void tapo_flow_index_destroy(tapo_flow_index *x)
{
    g_free(x->slots);
    x->slots = NULL;
    x->mask = 0;
    x->count = 0;
}

void *tapo_flow_index_find(const tapo_flow_index *x, const tapo_endpoints *ends, uint32_t hash)
{
    for (uint32_t i = home_slot(hash, x->mask);; i = (i + 1) & x->mask) {
        const tapo_flow_slot *s = &x->slots[i];
        if (!s->ends)
            return NULL;
        if (s->hash == hash && tapo_endpoints_same_flow(s->ends, ends))
            return s->value;
    }
}

static void place(tapo_flow_slot *slots, uint32_t mask, tapo_flow_slot entry)
{
    uint32_t i = home_slot(entry.hash, mask);
    while (slots[i].ends)
        i = (i + 1) & mask;
    slots[i] = entry;
}

/* Twice the slots, every entry placed again. */
static void grow(tapo_flow_index *x)
{
    uint32_t mask = x->mask * 2 + 1;
    tapo_flow_slot *slots = g_new0(tapo_flow_slot, (gsize)mask + 1);
    for (uint32_t i = 0; i <= x->mask; i++)
        if (x->slots[i].ends)
            place(slots, mask, x->slots[i]);
    g_free(x->slots);
    x->slots = slots;
    x->mask = mask;
}

void tapo_flow_index_add(tapo_flow_index *x, const tapo_endpoints *ends, uint32_t hash, void *value)
{
    if (2 * (x->count + 1) > x->mask + 1)
        grow(x);
    place(x->slots, x->mask, (tapo_flow_slot){ ends, value, hash });
    x->count++;
}

/* Whether the entry at slot j belongs at or before slot i of the run
 * (its home slot is not in (i, j]): then it may move back to i. */
static bool may_fill(uint32_t home, uint32_t i, uint32_t j, uint32_t mask)
{
    return ((j - home) & mask) >= ((j - i) & mask);
}

void tapo_flow_index_remove(tapo_flow_index *x, uint32_t hash, const void *value)
{
    uint32_t i = home_slot(hash, x->mask);
    while (x->slots[i].ends && x->slots[i].value != value)
        i = (i + 1) & x->mask;
    if (!x->slots[i].ends)
        return;
    /* Shifts the rest of the run back over the hole, so that every entry
     * stays reachable from its home slot without tombstones. */
    for (uint32_t j = (i + 1) & x->mask; x->slots[j].ends; j = (j + 1) & x->mask) {
        if (may_fill(home_slot(x->slots[j].hash, x->mask), i, j, x->mask)) {
            x->slots[i] = x->slots[j];
            i = j;
        }
    }
    x->slots[i] = (tapo_flow_slot){ NULL, NULL, 0 };
    x->count--;
}
