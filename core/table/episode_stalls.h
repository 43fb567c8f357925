/* episode_stalls.h: a connection's stall as the grouping into episodes
 * sees it (episodes.h): its gap on the capture's clock and the scopes its
 * connection belongs to, named from the connection's addresses.  The
 * plugin and the batch analyser describe their stalls the same way.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_EPISODE_STALLS_H
#define TAPO_EPISODE_STALLS_H

#include <glib.h>

#include "table/connection_table.h"
#include "incidents/episodes.h"

/* Stall s of connection c, with its verdict v; the texts go into chunk
 * (which must outlive out). */
void tapo_episode_stall_describe(tapo_connection *c, const tapo_conn_stall *s, const tapo_verdict *v,
                                 GStringChunk *chunk, tapo_episode_stall *out);

/* The same in two steps, for the stalls of one connection: what they share
 * (the connection and its scope keys, into chunk) once... */
void tapo_episode_connection_describe(tapo_connection *c, GStringChunk *chunk, tapo_episode_stall *out);
/* ...then each stall's own (its gap and cause) over a copy of it. */
void tapo_episode_stall_place(const tapo_conn_stall *s, const tapo_verdict *v, tapo_episode_stall *out);

#endif /* TAPO_EPISODE_STALLS_H */
