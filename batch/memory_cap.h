/* memory_cap.h: tapo's memory, measured, and the cap a long run keeps it
 * under (--memory-limit).
 *
 * The cap is on the resident memory of the whole process, which is what
 * the kernel, systemd's MemoryMax and an operator see.  What grows with
 * the traffic lives on the heap with the connections, so the run watches
 * the heap in use (glibc's mallinfo2, every thread's arena): past a high
 * mark it evicts connections, the quietest first, down to a low mark.
 * Freed chunks stay with the process for the next connections, so the
 * heap's marks leave room for what the heap holds besides its chunks in
 * use (a churn of connections fragments it): the high mark starts at three
 * quarters of what the cap leaves besides the rest of the process and the
 * capture's buffer.  Should the resident memory still pass 90 % of the cap,
 * the heap's free memory is given back to the system (malloc_trim, at most
 * once a second: it costs page faults later) and, if that is not enough,
 * the marks are lowered by the excess for the rest of the run.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_MEMORY_CAP_H
#define TAPO_MEMORY_CAP_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#define TAPO_MEMORY_RESIDENT_PERCENT 90   /* the resident memory is kept under this share of the cap, percent */
#define TAPO_MEMORY_HEAP_SHARE 75         /* the heap's high mark: this share of what the cap leaves it, percent */
#define TAPO_MEMORY_LOW_PERCENT 85        /* evictions go down to this share of the high mark, percent */
#define TAPO_MEMORY_HEAP_MIN (8u << 20)   /* the least heap a capped run may have, bytes */

/* The process' resident memory now, bytes (0 when unknown). */
uint64_t tapo_memory_resident(void);

/* The heap in use now, bytes (the resident memory where there is no
 * mallinfo2). */
uint64_t tapo_memory_heap(void);

typedef struct tapo_memory_cap {
    uint64_t limit_bytes;             /* on the resident memory; 0: none */
    uint64_t resident_high;           /* the resident memory kept under this, bytes */
    uint64_t heap_high;               /* heap in use past which connections are evicted, bytes */
    uint64_t heap_low;                /* down to this, bytes */
    gint64 released_us;               /* when free memory was last given back, monotonic microseconds */
} tapo_memory_cap;

/* A cap of limit_bytes (0: none) for a process that will also map
 * reserved_bytes it holds no pages of yet (the capture's buffer); false
 * and *error when that leaves the heap less than TAPO_MEMORY_HEAP_MIN. */
bool tapo_memory_cap_init(tapo_memory_cap *cap, uint64_t limit_bytes, uint64_t reserved_bytes, GError **error);

/* The heap in use to evict connections down to, bytes, when the cap is
 * passed (the marks may be lowered); 0 when all is well (always without a
 * cap). */
uint64_t tapo_memory_cap_check(tapo_memory_cap *cap);

#endif /* TAPO_MEMORY_CAP_H */
