/* plugin.c: the symbols Wireshark's plugin loader looks for.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "ws_compat.h"

#include <epan/proto.h>
#include <epan/tap.h>

#include "packet-tapo.h"

#if __has_include(<wsutil/plugins.h>)
#include <wsutil/plugins.h>
#endif

#ifndef TAPO_VERSION
#define TAPO_VERSION "0.0.0"
#endif

WS_DLL_PUBLIC_DEF const char plugin_version[] = TAPO_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

#ifdef WS_PLUGIN_DESC_DISSECTOR
WS_DLL_PUBLIC uint32_t plugin_describe(void);

uint32_t plugin_describe(void)
{
    return WS_PLUGIN_DESC_DISSECTOR | WS_PLUGIN_DESC_TAP_LISTENER;
}
#endif

void plugin_register(void)
{
    static proto_plugin tapo_proto = {
        .register_protoinfo = proto_register_tapo,
        .register_handoff = proto_reg_handoff_tapo,
    };
    static tap_plugin tapo_tap = {
        .register_tap_listener = register_tapo_stats_tree,
    };
    proto_register_plugin(&tapo_proto);
    tap_register_plugin(&tapo_tap);
}
