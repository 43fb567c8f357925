/* memory_cap.h: tapo's memory, measured, and the cap a long run keeps it
 * under (--memory-limit).
 *
 * The cap is on the resident memory of the whole process.  What grows with
 * the traffic lives on the heap (connections, their stall records, rows
 * waiting to be written), so the run measures the heap in use (glibc's
 * mallinfo2, which counts every thread's arena) and, past a high mark,
 * evicts connections, the quietest first, down to a low mark.  The marks
 * are the cap less what the process holds besides the heap when the run
 * starts (code, libraries, stacks), the capture's kernel buffer and a
 * margin for the heap's fragmentation.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_MEMORY_CAP_H
#define TAPO_MEMORY_CAP_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#define TAPO_MEMORY_HEAP_MIN (8u << 20)   /* the least heap a capped run may have, bytes */

/* The process' resident memory now, bytes (0 when unknown). */
uint64_t tapo_memory_resident(void);

/* The heap in use now, bytes (the resident memory where there is no
 * mallinfo2). */
uint64_t tapo_memory_heap(void);

typedef struct tapo_memory_cap {
    uint64_t limit_bytes;             /* on the resident memory; 0: none */
    uint64_t heap_high;               /* heap in use past which connections are evicted, bytes */
    uint64_t heap_low;                /* down to this, bytes */
} tapo_memory_cap;

/* A cap of limit_bytes (0: none) for a process that will also map
 * reserved_bytes it holds no pages of yet (the capture's buffer); false
 * and *error when the cap leaves the heap less than TAPO_MEMORY_HEAP_MIN. */
bool tapo_memory_cap_init(tapo_memory_cap *cap, uint64_t limit_bytes, uint64_t reserved_bytes, GError **error);

/* Whether the heap in use is past the high mark (never without a cap). */
bool tapo_memory_cap_over(const tapo_memory_cap *cap, uint64_t heap_bytes);

#endif /* TAPO_MEMORY_CAP_H */
