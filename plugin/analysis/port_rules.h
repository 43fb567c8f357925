/* port_rules.h: which endpoint of a connection is the server when the
 * handshake was not captured, from its ports alone (docs/algorithm.md,
 * "Client and server").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TAPO_PORT_RULES_H
#define TAPO_PORT_RULES_H

#include <stdint.h>

/* Clients bind ephemeral ports: IANA's range (RFC 6335) and Linux's
 * default ip_local_port_range both start at or above this. */
#define TAPO_EPHEMERAL_PORT_MIN 32768
/* Below this, ports are the well-known services' (RFC 6335 system ports). */
#define TAPO_SYSTEM_PORT_END 1024

/* The endpoint (0 or 1) the ports say is the server, or -1 when they do
 * not tell: a system port against a higher one, else a port below the
 * ephemeral range against one inside it. */
int tapo_server_by_ports(uint16_t port0, uint16_t port1);

#endif /* TAPO_PORT_RULES_H */
