/* memory_cap.c: see memory_cap.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "memory_cap.h"

#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>

#define RELEASE_EVERY_US 1000000      /* free memory is given back at most this often, microseconds */

uint64_t tapo_memory_resident(void)
{
    /* statm's second field: resident pages.  Read with plain read(2):
     * cheap enough to be done every few hundred new connections. */
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char text[128];
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    char *end = NULL;
    strtoull(text, &end, 10);
    unsigned long long resident = end ? strtoull(end, NULL, 10) : 0;
    return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
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

static void release(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

static void set_heap_high(tapo_memory_cap *cap, uint64_t high)
{
    cap->heap_high = MAX(high, TAPO_MEMORY_HEAP_MIN);
    cap->heap_low = cap->heap_high / 100 * TAPO_MEMORY_LOW_PERCENT;
}

bool tapo_memory_cap_init(tapo_memory_cap *cap, uint64_t limit_bytes, uint64_t reserved_bytes, GError **error)
{
    *cap = (tapo_memory_cap){ .limit_bytes = limit_bytes };
    if (limit_bytes == 0)
        return true;
    cap->resident_high = limit_bytes / 100 * TAPO_MEMORY_RESIDENT_PERCENT;
    uint64_t resident = tapo_memory_resident(), heap = tapo_memory_heap();
    uint64_t besides = (resident > heap ? resident - heap : 0) + reserved_bytes;
    uint64_t left = cap->resident_high > besides ? cap->resident_high - besides : 0;
    if (left / 100 * TAPO_MEMORY_HEAP_SHARE < TAPO_MEMORY_HEAP_MIN) {
        uint64_t least = (besides + TAPO_MEMORY_HEAP_MIN * 100 / TAPO_MEMORY_HEAP_SHARE) * 100 /
                         TAPO_MEMORY_RESIDENT_PERCENT;
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--memory-limit %" G_GUINT64_FORMAT " MiB is too little: tapo holds %" G_GUINT64_FORMAT
                    " MiB besides its connections, the capture's buffer included; give it at least %"
                    G_GUINT64_FORMAT " MiB", limit_bytes >> 20, besides >> 20, (least >> 20) + 1);
        return false;
    }
    set_heap_high(cap, left / 100 * TAPO_MEMORY_HEAP_SHARE);
    return true;
}

uint64_t tapo_memory_cap_check(tapo_memory_cap *cap)
{
    if (!cap->limit_bytes)
        return 0;
    if (tapo_memory_heap() > cap->heap_high)
        return cap->heap_low;
    uint64_t resident = tapo_memory_resident();
    if (resident <= cap->resident_high)
        return 0;
    gint64 now = g_get_monotonic_time();
    if (now - cap->released_us < RELEASE_EVERY_US)
        return 0;   /* the cap's last tenth is room for that second */
    cap->released_us = now;
    release();
    resident = tapo_memory_resident();
    if (resident <= cap->resident_high)
        return 0;
    /* The heap holds more besides its chunks in use than the marks left
     * room for: lower them by the excess. */
    uint64_t excess = resident - cap->resident_high;
    set_heap_high(cap, cap->heap_high > excess ? cap->heap_high - excess : 0);
    return cap->heap_low;
}
