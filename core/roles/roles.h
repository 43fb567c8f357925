/* roles.h: which endpoint of a connection is its client and which its
 * server (docs/algorithm.md, "Client and server"), and how each endpoint
 * is named to an operator.
 *
 * The client sent the SYN.  Without the handshake, the ports tell: a
 * system port against a higher one, else a port below the ephemeral range
 * against one inside it; else the sender of the first packet seen (a
 * capture usually starts with a request).  Which endpoint is the client
 * is independent of which one TAPO analyses as the sender (tapo.sender).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_ROLES_H
#define TAPO_ROLES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/optional.h"
#include "record/stall.h"
#include "base/vocabulary.h"

/* Clients bind ephemeral ports: IANA's range (RFC 6335) and Linux's
 * default ip_local_port_range both start at or above this. */
#define TAPO_EPHEMERAL_PORT_MIN 32768
/* Below this, ports are the well-known services' (RFC 6335 system ports). */
#define TAPO_SYSTEM_PORT_END 1024
/* "address:port" of an endpoint: an IPv6 address, brackets and a port. */
#define TAPO_ENDPOINT_NAME_MAX 64

/* The endpoint the ports say is the server; unknown when they do not tell. */
tapo_opt_endpoint tapo_server_by_ports(uint16_t port0, uint16_t port1);

/* Whether a port is a routing protocol's whose speakers are peers (BGP,
 * MSDP, LDP): each sends its messages on its own timers, and none is a
 * request that the other answers. */
bool tapo_is_peer_protocol(uint16_t port0, uint16_t port1);

/* The connection's client (endpoint 0 or 1) and how it was decided:
 * TAPO_BASIS_HANDSHAKE, TAPO_BASIS_PORTS or TAPO_BASIS_DEFAULT. */
int tapo_conv_client(const tapo_conv_summary *sum, tapo_basis *basis);

/* The endpoints' "address:port", by endpoint; filled by whoever knows the
 * addresses (the frames layer). */
typedef struct tapo_endpoint_names {
    char name[2][TAPO_ENDPOINT_NAME_MAX];
} tapo_endpoint_names;

#endif /* TAPO_ROLES_H */
