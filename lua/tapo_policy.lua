-- tapo_policy.lua: the core's policies the Lua companion follows, written by
-- core/tools/lua_policy.c from the C tables.  Do not edit: change those and run
--   cmake --build build --target tapo_policy_lua
-- (ctest's policy.lua fails while this file is out of date).  Wireshark loads every
-- .lua file of its plugin folders: loading this one only returns its table.
--
-- SPDX-License-Identifier: GPL-2.0-or-later

return {
    -- The TAPO plugin's preferences (tapo.NAME), in its order: the type, the default as
    -- tshark -o and tapo -o take it, an enum's choices (core/base/preferences.c).
    PREFS = {
        { name = "analyse", type = "bool", default = "FALSE" },
        { name = "tau", type = "decimal", default = "2" },
        { name = "small_window", type = "uint", default = "4" },
        { name = "rto_min_ms", type = "uint", default = "200" },
        { name = "rto_initial_ms", type = "uint", default = "1000" },
        { name = "min_stall_ms", type = "uint", default = "10" },
        { name = "episode_connections", type = "uint", default = "3" },
        { name = "sender", type = "enum", default = "auto", choices = { "auto", "responder", "initiator", "ports" } },
        { name = "server_ports", type = "range", default = "" },
        { name = "vantage", type = "enum", default = "auto", choices = { "auto", "sender", "receiver", "middle" } },
        { name = "rule_order", type = "enum", default = "evidence", choices = { "evidence", "paper" } },
    },
    -- Without a handshake the ports tell the server: a port below SYSTEM_PORT_END against a
    -- higher one, else one below EPHEMERAL_PORT_MIN against one inside the ephemeral range
    -- (core/roles/roles.h).
    SYSTEM_PORT_END = 1024,
    EPHEMERAL_PORT_MIN = 32768,
    -- The flow report (core/explain/flow_report.h): idle time, nothing to fix in TCP; the
    -- categories an operator acts on first; the quantiles of the stall ratio, per cent.
    IDLE_CAUSE = "client-idle",
    ACTIONABLE = { ["server"] = true, ["network"] = true },
    QUANTILES = { 50, 75, 90, 95, 99, 100 },
}
