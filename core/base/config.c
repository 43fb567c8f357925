/* config.c: default tunables.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "base/config.h"

#include <stddef.h>

void tapo_config_init_defaults(tapo_config *cfg)
{
    cfg->tau = 2.0;
    cfg->small_window_segments = 4;
    cfg->rto_min_s = 0.2;
    cfg->rto_initial_s = 1.0;
    cfg->min_stall_s = 0.01;
    cfg->episode_min_connections = 3;
    cfg->sender_mode = TAPO_SENDER_AUTO;
    cfg->vantage_mode = TAPO_VANTAGE_MODE_AUTO;
    cfg->rule_order = TAPO_RULE_ORDER_EVIDENCE;
    cfg->is_server_port = NULL;
    cfg->is_server_port_data = NULL;
}
