/* endpoint_pair.h: a connection's two endpoints are numbered 0 and 1 (0:
 * the source of its first packet seen); every per-endpoint array is
 * indexed so.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_ENDPOINT_PAIR_H
#define TAPO_ENDPOINT_PAIR_H

/* The other endpoint of the connection. */
static inline int tapo_peer_of(int endpoint)
{
    return 1 - endpoint;
}

#endif /* TAPO_ENDPOINT_PAIR_H */
