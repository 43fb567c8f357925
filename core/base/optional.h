/* optional.h: values that may be unknown, said so explicitly instead of by
 * a sentinel such as -1.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_OPTIONAL_H
#define TAPO_OPTIONAL_H

#include <stdbool.h>
#include <stdint.h>

/* A time or a duration, seconds, when known. */
typedef struct tapo_opt_s {
    bool known;
    double s;                         /* seconds; 0 when unknown */
} tapo_opt_s;

static inline tapo_opt_s tapo_opt_s_of(double s)
{
    return (tapo_opt_s){ true, s };
}

static inline tapo_opt_s tapo_opt_s_none(void)
{
    return (tapo_opt_s){ false, 0.0 };
}

/* A stream offset (bytes from the sender's first), when known. */
typedef struct tapo_opt_offset {
    bool known;
    int64_t at;                       /* 0 when unknown */
} tapo_opt_offset;

/* A cumulative ACK at o stops inside [lo, hi): the receiver still waits
 * for bytes of that range (it does not have them all in order). */
static inline bool tapo_ack_stops_inside(tapo_opt_offset o, int64_t lo, int64_t hi)
{
    return o.known && o.at >= lo && o.at < hi;
}

/* A count, when known. */
typedef struct tapo_opt_count {
    bool known;
    uint32_t n;                       /* 0 when unknown */
} tapo_opt_count;

static inline tapo_opt_count tapo_opt_count_of(uint32_t n)
{
    return (tapo_opt_count){ true, n };
}

static inline tapo_opt_count tapo_opt_count_none(void)
{
    return (tapo_opt_count){ false, 0 };
}

/* One of a connection's two endpoints (0 sent the first packet seen), when
 * known. */
typedef struct tapo_opt_endpoint {
    bool known;
    uint8_t e;                        /* 0 or 1; 0 when unknown */
} tapo_opt_endpoint;

static inline tapo_opt_endpoint tapo_opt_endpoint_of(int e)
{
    return (tapo_opt_endpoint){ true, (uint8_t)e };
}

static inline tapo_opt_endpoint tapo_opt_endpoint_none(void)
{
    return (tapo_opt_endpoint){ false, 0 };
}

#endif /* TAPO_OPTIONAL_H */
