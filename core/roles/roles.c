/* roles.c: see roles.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "roles/roles.h"

#include <stdbool.h>

static int lower_side_if(bool low0, bool low1)
{
    if (low0 == low1)
        return -1;
    return low0 ? 0 : 1;
}

int tapo_server_by_ports(uint16_t port0, uint16_t port1)
{
    int side = lower_side_if(port0 < TAPO_SYSTEM_PORT_END, port1 < TAPO_SYSTEM_PORT_END);
    if (side >= 0)
        return side;
    return lower_side_if(port0 < TAPO_EPHEMERAL_PORT_MIN, port1 < TAPO_EPHEMERAL_PORT_MIN);
}

int tapo_conv_client(const tapo_conv_summary *sum, tapo_basis *basis)
{
    if (sum->initiator.known) {
        *basis = TAPO_BASIS_HANDSHAKE;
        return sum->initiator.e;
    }
    int server = tapo_server_by_ports(sum->port[0], sum->port[1]);
    if (server >= 0) {
        *basis = TAPO_BASIS_PORTS;
        return 1 - server;
    }
    *basis = TAPO_BASIS_DEFAULT;
    return 0;
}
