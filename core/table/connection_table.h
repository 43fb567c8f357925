/* connection_table.h: the TCP connections of a capture and their life, the
 * same in the plugin and the batch analyser; only where their memory comes
 * from and what happens when one ends differ (tapo_table_hooks).
 *
 * A connection:
 *   - starts with its first segment, keyed by its endpoints;
 *   - ends when a pure SYN with another initial sequence number starts a
 *     new stream on the same ports (Wireshark's rule, wire_state.h), or a
 *     TCP header quoted in an ICMP error would (then the next segment
 *     starts the new one);
 *   - once over (both FINs acknowledged, or a reset) and quiet for the
 *     grace period, keeps only its summary: a lost last ACK brings the
 *     peer's FIN again within that time, and a segment after it resumes
 *     from the summary;
 *   - quiet for another grace period after that, or for the idle timeout
 *     (when one is set) while open, ends: a later segment on the same
 *     endpoints starts a new connection.
 * Times are on the run's clock: the latest capture time so far, which
 * never goes back (so that what ends does not depend on packets out of
 * order).  The rules are applied when a connection's next segment comes,
 * and to all connections when the owner ticks the table (to write them
 * out and free memory, within one more timeout): how often it ticks
 * changes no result.
 *
 * Memory follows the connections open at once, plus the stall records the
 * owner keeps.  An owner with a memory cap evicts connections, the one
 * quiet for the longest first (tapo_table_evict_oldest): an evicted
 * connection ends as an idle one does, with the verdicts known so far.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_CONNECTION_TABLE_H
#define TAPO_CONNECTION_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "base/config.h"
#include "connection/conversation.h"
#include "table/flow_index.h"
#include "wire/decode.h"
#include "wire/endpoints.h"
#include "wire/flow_identity.h"

#define TAPO_TABLE_TICK_S 1.0         /* capture seconds between looks for connections to end */

/* Where a packet comes from. */
typedef struct tapo_packet_place {
    uint32_t file;                    /* index of its capture in the run (the batch analyser's) */
    uint32_t frame;                   /* frame number in that capture */
    double rel_s;                     /* seconds since the capture's first frame (frame.time_relative) */
    double epoch_s;                   /* seconds since the epoch */
    double clock_s;                   /* the run's clock then: the latest rel_s so far, never going
                                         back, seconds; what activity and expiry are measured on */
} tapo_packet_place;

typedef struct tapo_connection tapo_connection;

/* A stall and where it happened. */
typedef struct tapo_conn_stall {
    tapo_stall_record rec;
    tapo_connection *conn;
    tapo_packet_place place;
} tapo_conn_stall;

struct tapo_connection {
    uint32_t hash;                    /* tapo_endpoints_either_way_hash of its endpoints */
    tapo_flow_identity id;            /* endpoints as its first segment carried them; Wireshark's view */
    uint32_t number;                  /* connections started in the table before it, count */
    tapo_packet_place start;          /* its first segment */
    tapo_packet_place last;           /* its latest segment */
    uint64_t bytes[2];                /* payload each endpoint sent, retransmissions included, bytes */
    tapo_conv *conv;                  /* its state; NULL once dropped */
    tapo_conv_summary summary;        /* what is left of it once the state is dropped */
    GPtrArray *stalls;                /* tapo_conn_stall, in order; NULL until the first */
    uint32_t vantage_note_frame;      /* its first stall seen away from the analysed sender; 0 none */
    double last_clock_s;              /* the run's clock at its latest segment, seconds */
    double queued_clock_s;            /* the run's clock when it was last queued, seconds */
    uint32_t rows_written;            /* its stalls already written out while it runs (streaming), count */
    GList link;                       /* in the table's open, over or dropped queue */
    uint8_t queue;                    /* which (connection_table.c) */
};

/* Why a connection left the table. */
typedef enum {
    TAPO_END_OVER,                    /* it ended: a new stream on its ports, its grace periods, the input's end */
    TAPO_END_IDLE,                    /* open, quiet for the idle timeout */
    TAPO_END_EVICTED                  /* the owner needed its memory (tapo_table_evict_oldest) */
} tapo_end_reason;

/* What the owner of a table does with its memory and its connections. */
typedef struct tapo_table_hooks {
    /* Zeroed storage of size bytes for a connection or a stall record. */
    void *(*alloc)(void *ctx, size_t size);
    /* Storage from alloc no longer used; NULL: kept until the owner frees
     * it all (the plugin's file scope). */
    void (*release)(void *ctx, void *storage);
    /* A connection left the table, for that reason.  Its state is gone,
     * its summary and stalls final; the owner writes them out.  Afterwards
     * the table releases it and its stalls. */
    void (*ended)(void *ctx, tapo_connection *c, tapo_end_reason why);
    void *ctx;
} tapo_table_hooks;

typedef struct tapo_conn_table {
    tapo_flow_index *by_key;          /* its connections by their endpoints; NULL once finished */
    GQueue queues[3];                 /* open, over, dropped: least recently queued first */
    const tapo_config *cfg;
    double grace_s;                   /* seconds after a connection is over */
    double idle_s;                    /* seconds without packets before an open connection ends; 0: never */
    bool keep_ended;                  /* ended connections and their stalls stay (the plugin's frames point at them) */
    tapo_table_hooks hooks;
    uint32_t started;                 /* connections started, count */
    uint64_t evicted;                 /* connections evicted (tapo_table_evict_oldest), count */
    tapo_opt_s last_tick_s;           /* the clock when connections were last looked at */
    tapo_conn_stall *spare;           /* storage for the next possible stall */
    tapo_connection *last_hit;        /* the latest segment's connection: the next one's, often */
    tapo_id_census ids;               /* the IPv4 IDs of every packet of the input (id_census.h) */
    uint32_t frame_id_order;          /* the census order of the frame being read; 0 none (not IPv4) */
} tapo_conn_table;

void tapo_table_init(tapo_conn_table *t, const tapo_config *cfg, double grace_s, double idle_s,
                     bool keep_ended, tapo_table_hooks hooks);

/* Ends every connection (the end of the input) and frees the table. */
void tapo_table_finish(tapo_conn_table *t);

/* What one segment did. */
typedef struct tapo_table_result {
    tapo_connection *conn;            /* its connection */
    bool started;                     /* it started that connection */
    tapo_conn_stall *stall;           /* it ended a stall; NULL none */
    tapo_conv_events before;          /* the connection's events before it (compare with conn->conv->events) */
} tapo_table_result;

/* Once a second of the run's clock (clock_s), ends or drops the
 * connections whose time has come. */
void tapo_table_tick(tapo_conn_table *t, double clock_s);

/* Every frame of the input, TCP or not, in capture order, before its
 * segment (if any) is given to the table: its IPv4 ID goes into the
 * census (decode.h says which, for tunnels).  Frames that are not IPv4
 * count too (they carry no ID). */
void tapo_table_frame(tapo_conn_table *t, const tapo_segment_fields *seg, tapo_decode_result decoded);

/* One TCP segment, in capture order, after tapo_table_frame for its frame. */
void tapo_table_segment(tapo_conn_table *t, const tapo_packet_place *place, const tapo_segment_fields *seg,
                        tapo_table_result *out);

/* A TCP header quoted in an ICMP error: a quoted SYN with another ISN
 * starts a new stream in Wireshark, so it ends the connection here too. */
void tapo_table_quoted(tapo_conn_table *t, const tapo_segment_fields *seg);

/* Ends the connection that has been quiet for the longest, whatever its
 * state (open, over, or only its summary kept), as if it had timed out;
 * counted in t->evicted.  False when the table is empty. */
bool tapo_table_evict_oldest(tapo_conn_table *t);

/* Connections in the table now, count. */
guint tapo_table_size(const tapo_conn_table *t);

/* Ends every connection (a capture ends; the table stays). */
void tapo_table_end_all(tapo_conn_table *t);

/* The summary of a connection's verdicts: from its live state, or kept. */
const tapo_conv_summary *tapo_table_summary(tapo_connection *c);

#endif /* TAPO_CONNECTION_TABLE_H */
