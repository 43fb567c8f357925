/* episodes.h: stalls of different connections that are one incident
 * (spec section 9; docs/algorithm.md, "Episodes").
 *
 * A stall's gap, widened by TAPO_EPISODE_SLACK_S at each end, covers a
 * span of the capture's clock; a window is a span of time in which at
 * least min_connections connections were stalled at once.  The stalls
 * meeting a window are its candidates: the narrowest scope that enough of
 * them share explains them: the same server endpoint, then the same client
 * address, the same client prefix, the same server prefix (/24 for IPv4,
 * /64 for IPv6), and last the whole capture.  Each scope key shared by at
 * least min_connections connections is an episode; its stalls leave the
 * candidates and the next scope looks at the rest.  A client-idle stall
 * joins none (a client with nothing to ask is no incident).  Built with
 * hindsight, over every stall of the capture (two passes, the batch
 * analyser).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_EPISODES_H
#define TAPO_EPISODES_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "base/vocabulary.h"

/* Two stalls this far apart still overlap: Linux's minimum RTO, so that
 * the timers of connections hit by one outage, started a few packets
 * apart, count as one event. */
#define TAPO_EPISODE_SLACK_S 0.2
#define TAPO_EPISODE_MIN_CONNECTIONS 3   /* default of the preference */
#define TAPO_EPISODE_SCOPE_TEXT_MAX 80

typedef enum {
    TAPO_SCOPE_SERVER,            /* one server endpoint (address:port) */
    TAPO_SCOPE_CLIENT,            /* one client address */
    TAPO_SCOPE_CLIENT_PREFIX,     /* one client /24 or /64 */
    TAPO_SCOPE_SERVER_PREFIX,     /* one server /24 or /64 */
    TAPO_SCOPE_CAPTURE,           /* the whole capture */
    TAPO_SCOPE_COUNT
} tapo_episode_scope;

const char *tapo_episode_scope_name(tapo_episode_scope scope);

/* One stall, as the grouping sees it.  keys: the texts that name its
 * connection's server endpoint, client address, client prefix and server
 * prefix (the capture scope needs none). */
typedef struct tapo_episode_stall {
    uint64_t connection;          /* any id, the same for every stall of a connection */
    double start_s, end_s;        /* its gap on the capture's clock, seconds */
    tapo_cause cause;
    const char *keys[TAPO_SCOPE_CAPTURE];
    uint32_t episode;             /* out: its episode, from 1 in time order; 0: none */
} tapo_episode_stall;

typedef struct tapo_episode {
    uint32_t id;                  /* from 1, in order of start */
    tapo_episode_scope scope;
    char scope_text[TAPO_EPISODE_SCOPE_TEXT_MAX]; /* "server 192.0.2.1:443", "capture" */
    uint32_t connections;         /* distinct, count */
    uint32_t stalls;              /* count */
    double start_s, end_s;        /* the earliest start and latest end of its stalls, seconds */
    tapo_cause cause;             /* the cause with the most stalled time among them */
} tapo_episode;

/* Groups the stalls (reordered freely) into episodes; sets each stall's
 * episode; returns the episodes (tapo_episode, in order of start). */
GArray *tapo_episodes_find(tapo_episode_stall *stalls, guint count, unsigned min_connections);

/* The prefix of an address text ("192.0.2.1" -> "192.0.2.0/24",
 * "2001:db8::1" -> "2001:db8::/64") into out; false when it is no address. */
bool tapo_address_prefix(const char *address, char out[64]);

#endif /* TAPO_EPISODES_H */
