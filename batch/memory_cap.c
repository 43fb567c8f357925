/* memory_cap.c: see memory_cap.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "memory_cap.h"

#include <malloc.h>
#include <stdio.h>
#include <unistd.h>

#define FRAGMENTATION_SHARE 8         /* the heap's high mark leaves 1/8 of the cap for fragmentation */
#define LOW_MARK_PERCENT 85           /* evictions go down to this share of the high mark, percent */

uint64_t tapo_memory_resident(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    if (!f)
        return 0;
    int read = fscanf(f, "%lu %lu", &size, &resident);
    fclose(f);
    return read == 2 ? (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

uint64_t tapo_memory_heap(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    /* In use: the arenas' allocated chunks and the chunks mapped on their own. */
    struct mallinfo2 mi = mallinfo2();
    return (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
#else
    return tapo_memory_resident();
#endif
}

bool tapo_memory_cap_init(tapo_memory_cap *cap, uint64_t limit_bytes, uint64_t reserved_bytes, GError **error)
{
    *cap = (tapo_memory_cap){ .limit_bytes = limit_bytes };
    if (limit_bytes == 0)
        return true;
    uint64_t resident = tapo_memory_resident(), heap = tapo_memory_heap();
    uint64_t besides_heap = resident > heap ? resident - heap : 0;
    uint64_t taken = besides_heap + reserved_bytes + limit_bytes / FRAGMENTATION_SHARE;
    if (limit_bytes < taken + TAPO_MEMORY_HEAP_MIN) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--memory-limit %" G_GUINT64_FORMAT " MiB is too little: tapo holds %" G_GUINT64_FORMAT
                    " MiB besides its heap here and the capture's buffer %" G_GUINT64_FORMAT " MiB; give it at least %"
                    G_GUINT64_FORMAT " MiB", limit_bytes >> 20, besides_heap >> 20, reserved_bytes >> 20,
                    ((besides_heap + reserved_bytes + TAPO_MEMORY_HEAP_MIN) * FRAGMENTATION_SHARE /
                     (FRAGMENTATION_SHARE - 1) >> 20) + 1);
        return false;
    }
    cap->heap_high = limit_bytes - taken;
    cap->heap_low = cap->heap_high / 100 * LOW_MARK_PERCENT;
    return true;
}

bool tapo_memory_cap_over(const tapo_memory_cap *cap, uint64_t heap_bytes)
{
    return cap->limit_bytes && heap_bytes > cap->heap_high;
}
