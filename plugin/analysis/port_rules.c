/* port_rules.c: see port_rules.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "port_rules.h"

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
