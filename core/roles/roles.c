/* roles.c: see roles.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "roles/roles.h"
#include "base/endpoint_pair.h"

#include <stdbool.h>

#include <glib.h>

/* The one endpoint whose port is low; unknown when both or neither is. */
static tapo_opt_endpoint lower_side_if(bool low0, bool low1)
{
    if (low0 == low1)
        return tapo_opt_endpoint_none();
    return tapo_opt_endpoint_of(low0 ? 0 : 1);
}

tapo_opt_endpoint tapo_server_by_ports(uint16_t port0, uint16_t port1)
{
    tapo_opt_endpoint side = lower_side_if(port0 < TAPO_SYSTEM_PORT_END, port1 < TAPO_SYSTEM_PORT_END);
    if (side.known)
        return side;
    return lower_side_if(port0 < TAPO_EPHEMERAL_PORT_MIN, port1 < TAPO_EPHEMERAL_PORT_MIN);
}

/* Peer protocols by their registered port: BGP 179 (RFC 4271: KEEPALIVEs
 * on each speaker's hold timer, UPDATEs unanswered), MSDP 639 (RFC 3618),
 * LDP 646 (RFC 5036). */
static const uint16_t peer_protocol_ports[] = {179, 639, 646};

bool tapo_is_peer_protocol(uint16_t port0, uint16_t port1)
{
    for (size_t i = 0; i < G_N_ELEMENTS(peer_protocol_ports); i++)
        if (port0 == peer_protocol_ports[i] || port1 == peer_protocol_ports[i])
            return true;
    return false;
}

int tapo_conv_client(const tapo_conv_summary *sum, tapo_basis *basis)
{
    if (sum->initiator.known) {
        *basis = TAPO_BASIS_HANDSHAKE;
        return sum->initiator.e;
    }
    tapo_opt_endpoint server = tapo_server_by_ports(sum->port[0], sum->port[1]);
    if (server.known) {
        *basis = TAPO_BASIS_PORTS;
        return tapo_peer_of(server.e);
    }
    *basis = TAPO_BASIS_DEFAULT;
    return 0;
}
