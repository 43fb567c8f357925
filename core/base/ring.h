/* ring.h: the latest N entries of something, the oldest overwritten first.
 *
 * The ring holds only positions; the entries live in the caller's array of
 * structs of capacity N:
 *
 *     entries[tapo_ring_push(&ring, N)] = entry;
 *     for (unsigned k = 0; k < ring.count; k++)
 *         use(&entries[tapo_ring_newest(&ring, N, k)]);   newest first
 *
 * Where the order does not matter, positions 0 to count - 1 are the
 * entries, as long as none was dropped (tapo_ring_drop_newest).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_RING_H
#define TAPO_RING_H

#include <stdint.h>

typedef struct tapo_ring {
    uint16_t next;                    /* position of the next entry */
    uint16_t count;                   /* entries held, at most the capacity */
} tapo_ring;

/* The position to write a new entry at; the oldest goes once the ring is full. */
static inline unsigned tapo_ring_push(tapo_ring *r, unsigned capacity)
{
    unsigned at = r->next;
    r->next = (uint16_t)((at + 1) % capacity);
    if (r->count < capacity)
        r->count++;
    return at;
}

/* The position of the k-th newest entry (k = 0: the newest; k < count). */
static inline unsigned tapo_ring_newest(const tapo_ring *r, unsigned capacity, unsigned k)
{
    return (r->next + capacity - 1 - k) % capacity;
}

/* Forgets the newest entry (count > 0). */
static inline void tapo_ring_drop_newest(tapo_ring *r, unsigned capacity)
{
    r->next = (uint16_t)tapo_ring_newest(r, capacity, 0);
    r->count--;
}

#endif /* TAPO_RING_H */
