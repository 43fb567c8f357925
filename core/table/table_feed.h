/* table_feed.h: the one loop step that feeds a frame to the table of
 * connections, the same for the plugin and the batch analyser: the run's
 * clock, the frame's IPv4 ID into the census, the table's tick, then the
 * TCP header quoted in an ICMP error or the TCP segment.
 *
 * The tick comes before the header, quoted or not, so that what has timed
 * out is gone before a header can name it (a later segment on the same
 * ports starts a new connection either way; connection_table.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_TABLE_FEED_H
#define TAPO_TABLE_FEED_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/capture.h"
#include "table/connection_table.h"
#include "wire/decode.h"

/* The run's clock and where frames sit on it. */
typedef struct tapo_table_clock {
    tapo_rel_clock rel;               /* times since the capture's (or the run's) first frame */
    double clock_s;                   /* the latest relative time so far: never goes back, seconds */
} tapo_table_clock;

/* Whether a frame's TCP header is this table's, when several tables share
 * one input (the batch analyser's workers, each with the connections that
 * hash to it); it may decode the header in full now, into decoded and seg. */
typedef bool (*tapo_table_claim)(void *ctx, tapo_decode_result *decoded, tapo_segment_fields *seg);

/* What feeding a frame did. */
typedef enum {
    TAPO_FED_OTHER,                   /* no TCP header: nothing for the table */
    TAPO_FED_ANOTHERS,                /* a TCP header of another table's connection (claim said no) */
    TAPO_FED_QUOTED,                  /* a TCP header quoted in an ICMP error */
    TAPO_FED_SEGMENT                  /* a TCP segment: the result says what it did */
} tapo_fed;

/* Feeds frame f of the capture numbered file in the run (0 for the
 * plugin), decoded as decoded and seg, to t in capture order.  claim:
 * NULL when every header is t's. */
tapo_fed tapo_table_feed(tapo_conn_table *t, tapo_table_clock *k, const tapo_frame *f, uint32_t file,
                         tapo_decode_result decoded, tapo_segment_fields *seg, tapo_table_claim claim, void *ctx,
                         tapo_table_result *out);

#endif /* TAPO_TABLE_FEED_H */
