/* connections.h: the connections one worker analyses, each with the same
 * analysis core as the plugin (tapo_conv), and what happens when one ends.
 *
 * Memory follows the connections open at once: a connection's state is
 * dropped once it is over (both FINs acknowledged, or a reset), as the
 * plugin does; its stalls get their final verdicts (the plugin's two-pass
 * verdicts: the connection's whole data is known) and are written when no
 * packet came for a grace period after that, or when it was idle for the
 * idle timeout (then flagged), or at the end of the input.  A SYN that
 * starts a new stream on the same ports (wire_state.h) ends the previous
 * connection at once.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_CONNECTIONS_H
#define TAPO_CONNECTIONS_H

#include <stdint.h>

#include <glib.h>

#include "config.h"
#include "conversation.h"
#include "decode.h"
#include "endpoints.h"
#include "flow_identity.h"
#include "report.h"

/* Where a packet comes from in the run. */
typedef struct tapo_packet_place {
    uint32_t file;                    /* index of its capture in the run */
    uint32_t frame;                   /* frame number in that capture */
    double rel_s;                     /* seconds since the run's first frame */
    double epoch_s;                   /* seconds since the epoch */
    double clock_s;                   /* the latest rel_s of the run so far (never goes back): what
                                         activity and expiry are measured on, seconds */
} tapo_packet_place;

/* A stall as the batch keeps it until the connection ends. */
typedef struct tapo_batch_stall {
    tapo_stall_record rec;
    tapo_packet_place place;
} tapo_batch_stall;

typedef struct tapo_connection {
    tapo_endpoints key;               /* canonical: the lower endpoint first */
    tapo_flow_identity id;            /* endpoints as its first packet carried them, wire state */
    tapo_packet_place start;          /* its first packet */
    double last_rel_s;                /* its latest packet, seconds since the run's first frame */
    double last_clock_s;              /* the run's clock at its latest packet, seconds */
    double last_epoch_s;
    tapo_conv *conv;                  /* NULL once over */
    tapo_conv_summary summary;        /* kept when conv is dropped */
    GPtrArray *stalls;                /* tapo_batch_stall; NULL until the first */
    uint64_t bytes[2];                /* payload each endpoint sent, retransmissions included, bytes */
    GList lru;                        /* link in the table's open or over queue */
    bool over;
} tapo_connection;

/* Where ended connections go: one call per stall with its final verdict,
 * then one per connection. */
typedef struct tapo_conn_sink {
    void (*stall)(void *ctx, const tapo_connection *c, const tapo_batch_stall *s,
                  const tapo_verdict *v);
    void (*ended)(void *ctx, const tapo_connection *c, tapo_flow_row *row, bool idle);
    void *ctx;
} tapo_conn_sink;

typedef struct tapo_conn_table {
    GHashTable *by_key;               /* tapo_endpoints (canonical) -> tapo_connection */
    GQueue open;                      /* least recently active first */
    GQueue over;
    const tapo_config *cfg;
    double grace_s;                   /* seconds after a connection is over */
    double idle_s;                    /* seconds without a packet */
    tapo_conn_sink sink;
    const char *const *file_names;    /* by file index, for the flow rows */
} tapo_conn_table;

void tapo_conns_init(tapo_conn_table *t, const tapo_config *cfg, double grace_s, double idle_s,
                     tapo_conn_sink sink, const char *const *file_names);

/* One TCP segment of the run, in capture order. */
void tapo_conns_packet(tapo_conn_table *t, const tapo_packet_place *place, const tapo_segment_fields *seg);

/* A TCP header quoted in an ICMP error: a quoted SYN with another ISN
 * starts a new stream in Wireshark, so it ends the connection here too. */
void tapo_conns_quoted(tapo_conn_table *t, const tapo_segment_fields *seg);

/* Writes out connections over or idle for long enough at the run's clock
 * clock_s (tapo_packet_place): the queues are in the order of that clock,
 * which never goes back, so what ends does not depend on which other
 * connections a worker has. */
void tapo_conns_expire(tapo_conn_table *t, double clock_s);

/* Writes out every connection (the end of a capture); the table stays. */
void tapo_conns_end_all(tapo_conn_table *t);

/* Writes out every connection (the end of the input) and frees the table. */
void tapo_conns_finish(tapo_conn_table *t);

#endif /* TAPO_CONNECTIONS_H */
