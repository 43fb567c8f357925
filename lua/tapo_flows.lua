-- tapo_flows.lua: the TAPO companion post-dissector (Wireshark Lua 5.2 and
-- 5.4).  It reads the C plugin's tapo.* fields and works per flow: each
-- stall packet gets tapoflow.* fields, tshark prints a report at the end
-- when asked, and the GUI shows it under Tools > TAPO > Flow report.
--
--   tshark -q -X lua_script:tapo_flows.lua -r FILE
--   tshark -q -X lua_script:tapo_flows.lua -X lua_script1:format=json -X lua_script1:limit=10 -r FILE
--   tshark -q -o tapoflow.report:csv -r FILE        (with the script installed as a plugin)
--
-- Installed as a plugin it stays inactive (and costs nothing) unless a
-- report is asked for, or tapoflow.gui is on in the GUI.
--
-- Arguments (-X lua_script1:key=value): format=text|csv|json|none (text),
-- limit=N flows listed, 0 for all (20 for text, all otherwise).
-- The report's arithmetic and formats live in tapo_report.lua; the GUI's
-- HTML incident report (Tools > TAPO > HTML incident report) in tapo_html.lua.
--
-- SPDX-License-Identifier: GPL-2.0-or-later

local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
local report = dofile(here .. "tapo_report.lua")
local html = dofile(here .. "tapo_html.lua")

local function parse_args(...)
    local opts = { format = "text", limit = nil }
    for _, arg in ipairs({ ... }) do
        local key, value = tostring(arg):match("^([%w_]+)=(.*)$")
        if key == "format" and (report.FORMATS[value] or value == "none") then
            opts.format = value
        elseif key == "limit" and tonumber(value) then
            opts.limit = math.floor(tonumber(value))
        else
            io.stderr:write("TAPO companion: ignoring argument " .. tostring(arg) ..
                            " (format=text|csv|json|none, limit=N)\n")
        end
    end
    if opts.limit == nil then opts.limit = opts.format == "text" and 20 or 0 end
    return opts
end

-- Wireshark loads this file from its plugin folders (then nobody asked for
-- a report) and maybe once more from -X lua_script: (a report was asked
-- for).  The one global below lets the second copy hand its arguments to
-- the first instead of registering everything twice.
local function in_plugin_folder(path)
    for _, dir in ipairs({ Dir.personal_plugins_path(), Dir.global_plugins_path() }) do
        if dir and path:sub(1, #dir) == dir then return true end
    end
    return false
end
local explicit = not in_plugin_folder(here)
if TAPO_FLOWS then
    if explicit then
        TAPO_FLOWS.requested = parse_args(...)
        TAPO_FLOWS.activate()
    end
    return
end
TAPO_FLOWS = { requested = explicit and parse_args(...) or nil }

-- The fields read, by short name: the C plugin's and TCP's.
local FIELD_NAMES = {
    cause = "tapo.stall.cause", category = "tapo.stall.category", duration = "tapo.stall.duration",
    final = "tapo.stall.final", hint = "tapo.stall.hint", vantage = "tapo.vantage",
    confidence = "tapo.stall.confidence", phase = "tapo.stall.phase", whatif = "tapo.stall.whatif",
    saving = "tapo.stall.saving", episode = "tapo.episode", ep_scope = "tapo.episode.scope",
    ep_connections = "tapo.episode.connections", ep_start = "tapo.episode.start",
    ep_duration = "tapo.episode.duration", ep_cause = "tapo.episode.cause",
    stream = "tcp.stream", srcport = "tcp.srcport", dstport = "tcp.dstport", len = "tcp.len",
    flags = "tcp.flags", frame = "frame.number", protocols = "frame.protocols",
}
local SHORT_NAME = {}
for short, name in pairs(FIELD_NAMES) do SHORT_NAME[name] = short end

local proto = Proto("tapoflow", "TAPO per-flow stall view")
local pf = {
    index = ProtoField.uint32("tapoflow.stall_index", "Stall number in this flow"),
    stalled_so_far = ProtoField.double("tapoflow.stalled_time_so_far",
                                       "Flow stalled time so far (s), this stall included"),
    ratio_so_far = ProtoField.double("tapoflow.ratio_so_far",
                                     "Flow stall ratio so far (stalled time / time since its first packet)"),
    flow_stalls = ProtoField.uint32("tapoflow.flow_stalls", "Stalls in the whole flow (two passes)"),
    flow_stalled = ProtoField.double("tapoflow.flow_stalled_time", "Flow stalled time (s, two passes)"),
    flow_duration = ProtoField.double("tapoflow.flow_duration", "Flow duration (s, two passes)"),
    flow_ratio = ProtoField.double("tapoflow.flow_ratio", "Flow stall ratio (two passes)"),
}
proto.fields = { pf.index, pf.stalled_so_far, pf.ratio_so_far, pf.flow_stalls, pf.flow_stalled,
                 pf.flow_duration, pf.flow_ratio }
proto.prefs.report = Pref.enum("Report at the end of tshark", 0,
    "Print the flow report when tshark finishes (also asked for by loading this script with -X lua_script:)",
    { { 1, "none", 0 }, { 2, "text", 1 }, { 3, "csv", 2 }, { 4, "json", 3 } }, false)
proto.prefs.gui = Pref.bool("Per-flow fields in the packet details", false,
    "Add the tapoflow.* fields (the stall's number in its flow, the flow's stalled time) to stall packets " ..
    "in the GUI; the TAPO profile turns it on.  Wireshark reads it when it starts (a profile chosen later " ..
    "takes effect at the next start).  Tools > TAPO > Flow report needs neither.")
local PREF_FORMATS = { [1] = "text", [2] = "csv", [3] = "json" }

local function seconds(nstime)
    return tonumber(tostring(nstime)) or 0
end

-- "address:port", an IPv6 address in brackets (as the batch analyser).
local function endpoint(address, port)
    local a = tostring(address)
    if a:find(":", 1, true) then a = "[" .. a .. "]" end
    return a .. ":" .. port
end

-- What is gathered of one reading of the capture: flows by tcp.stream,
-- stall records by frame, and the frames accounted for, in order (frames
-- 1..accounted).
local function new_collector()
    return { flows = {}, stalls = {}, server_port = {}, accounted = 0 }
end

-- The first pass that reads the fields (tshark -2 builds no tree in its
-- first pass): the flow's times, bytes and endpoints.  The client sent the
-- SYN; without a handshake the ports tell (a service's port against a
-- client's), else the first packet's sender is the client: the plugin's
-- rules (tapo.client).  F(short name) is the field's first value or nil.
local function account_packet(c, pinfo, F, stream)
    local sport, dport = F("srcport").value, F("dstport").value
    local t = seconds(pinfo.rel_ts)
    local flow = c.flows[stream]
    if not flow then
        local src, dst = endpoint(pinfo.src, sport), endpoint(pinfo.dst, dport)
        local flags = F("flags") and F("flags").value or 0
        local server_is_src
        if bit.band(flags, 0x02) ~= 0 then
            server_is_src = bit.band(flags, 0x10) ~= 0        -- a SYN-ACK comes from the server
        else
            server_is_src = report.server_by_ports(sport, dport) == 1
        end
        -- abs_ts is a number: tostring would keep only 14 digits.
        local epoch = type(pinfo.abs_ts) == "number" and pinfo.abs_ts or seconds(pinfo.abs_ts)
        if server_is_src then
            flow = report.new_flow(stream, t, dst, src, pinfo.number, epoch)
            c.server_port[stream] = sport
        else
            flow = report.new_flow(stream, t, src, dst, pinfo.number, epoch)
            c.server_port[stream] = dport
        end
        c.flows[stream] = flow
    end
    local len = F("len") and F("len").value or 0
    report.add_packet(flow, t, dport == c.server_port[stream], len)
end

-- One stall record per frame.  The first pass counts stalls as they come
-- (the "so far" fields); every pass replaces the cause, duration and the
-- rest, and drops a record whose frame ends no stall any more, so that
-- after tshark -2 or a GUI retap the records are the final stalls (the
-- analysed sender or the sender's timeline can change with hindsight).
local function record_stall(c, pinfo, F, stream)
    local rec = c.stalls[pinfo.number]
    local duration = seconds(F("duration").value)
    if not rec then
        local flow = c.flows[stream]
        flow.stall_count = (flow.stall_count or 0) + 1
        flow.stalled_so_far = (flow.stalled_so_far or 0) + duration
        local elapsed = seconds(pinfo.rel_ts) - flow.first
        rec = { stream = stream, frame = pinfo.number, index = flow.stall_count,
                so_far = flow.stalled_so_far,
                ratio_so_far = report.ratio(flow.stalled_so_far, elapsed) }
        c.stalls[pinfo.number] = rec
    end
    local function value(name)
        local fi = F(name)
        if fi then return fi.value end
        return nil
    end
    rec.duration = duration
    rec.cause = value("cause")
    rec.category = value("category")
    rec.final = value("final")
    rec.hint = value("hint") or ""
    rec.vantage = value("vantage")
    rec.confidence = value("confidence")
    rec.phase = value("phase")
    rec.whatif = value("whatif")
    rec.saving = F("saving") and seconds(F("saving").value) or nil
    rec.episode = nil
    if F("episode") then
        rec.episode = { id = value("episode"), scope = value("ep_scope"), connections = value("ep_connections"),
                        start = tostring(value("ep_start")), duration = seconds(value("ep_duration")),
                        cause = value("ep_cause") }
    end
    return rec
end

-- One packet read: accounted once, in order; its stall recorded.  Returns
-- the stall's record and flow, or nil.
local function collect(c, pinfo, F)
    if not F("frame") then return nil end   -- no tree in this pass: nothing to read
    local in_order = pinfo.number == c.accounted + 1
    if in_order then c.accounted = pinfo.number end
    local stream_field = F("stream")
    if not stream_field then return nil end
    local stream = stream_field.value
    if in_order and F("protocols") and report.own_segment(F("protocols").value) then
        account_packet(c, pinfo, F, stream)
    end
    if not F("cause") then
        c.stalls[pinfo.number] = nil   -- no stall in this pass (see record_stall)
        return nil
    end
    if not c.flows[stream] then return nil end
    return record_stall(c, pinfo, F, stream), c.flows[stream]
end

-- The flow's stalls as the records stand.
local function flow_totals(c, stream)
    local n, time = 0, 0
    for _, rec in pairs(c.stalls) do
        if rec.stream == stream then n, time = n + 1, time + rec.duration end
    end
    return n, time
end

-- The fields of the packet being read, from a tree with every field (a
-- listener's with all fields): no extractor needed, so this works
-- whenever it is asked for.
local function fields_of_tree()
    local got = {}
    for _, fi in ipairs({ all_field_infos() }) do
        local short = SHORT_NAME[fi.name]
        if short and got[short] == nil then got[short] = fi end
    end
    return function(short) return got[short] end
end

-- The companion's state for the current file, collected by its
-- post-dissector when active.
local state = new_collector()
local extractors = {}
local function extracted(short)
    return extractors[short]()
end

function proto.init()
    state = new_collector()
end

function proto.dissector(tvb, pinfo, tree)
    local rec, flow = collect(state, pinfo, extracted)
    if not rec then return end
    local sub = tree:add(proto, tvb(0, 0))
    sub:add(pf.index, rec.index):set_generated()
    sub:add(pf.stalled_so_far, rec.so_far):set_generated()
    sub:add(pf.ratio_so_far, rec.ratio_so_far):set_generated()
    if pinfo.visited then
        -- The whole capture has been read: the records are the flow's
        -- stalls (later frames not yet rendered again keep their first
        -- pass's verdict).
        local n, time = flow_totals(state, rec.stream)
        local duration = flow.last - flow.first
        sub:add(pf.flow_stalls, n):set_generated()
        sub:add(pf.flow_stalled, time):set_generated()
        sub:add(pf.flow_duration, duration):set_generated()
        sub:add(pf.flow_ratio, report.ratio(time, duration)):set_generated()
    end
end

local function mode(c)
    local any, final = false, false
    for _, rec in pairs(c.stalls) do
        any = true
        final = final or rec.final
    end
    if not any then return "no stalls" end
    return final and "two-pass: final causes" or "one-pass: provisional causes, run tshark -2 for final ones"
end

local function current_report(c, format, limit)
    return report.FORMATS[format](report.build(c.flows, c.stalls, mode(c)), limit)
end

-- tshark: a listener makes tshark dissect even with -q, and prints the
-- report when the capture is done, if one was asked for.
local function wanted_report()
    if TAPO_FLOWS.requested then return TAPO_FLOWS.requested end
    local format = PREF_FORMATS[proto.prefs.report]
    return format and { format = format, limit = format == "text" and 20 or 0 } or nil
end

-- Installed in the plugin folder, the companion does nothing until asked:
-- its field extractors make Wireshark build a protocol tree for every
-- packet, which is what an unused plugin must not cost.  It becomes
-- active when loaded with -X lua_script:, when tshark's command line names
-- tapoflow (a field or the report preference), when tapoflow.report asks
-- for a report, or in the GUI with tapoflow.gui; extractors can only be
-- made before the first packet is read, so this happens at load or when
-- the preferences are applied at start-up.  The GUI's flow report needs
-- none of this (show_report below).
local active = false

-- Why extractors could not be made, in words that are true: the C plugin
-- is missing (no tapo.* field), or Wireshark has read packets already.
local function cannot_extract(err)
    if tostring(err):find("must exist", 1, true) then
        return "the TAPO C plugin (tapo.so) is not loaded, so there are no tapo.* fields to report on; " ..
               "install it with scripts/setup"
    end
    return "the tapoflow.* fields in the packet details take effect when Wireshark starts (it has read " ..
           "packets since): restart it in this profile to see them; Tools > TAPO > Flow report works without"
end

local function activate()
    if active then return true end
    local made = {}
    local ok, err = pcall(function()
        for short, name in pairs(FIELD_NAMES) do made[short] = Field.new(name) end
    end)
    if not ok then
        io.stderr:write("TAPO companion: " .. cannot_extract(err) .. ".\n")
        return false
    end
    extractors = made
    register_postdissector(proto)
    -- tshark: a listener makes tshark dissect even with -q, and prints the
    -- report when the capture is done.
    local listener = Listener.new(nil, "tcp")
    function listener.draw()
        local want = wanted_report()
        if not gui_enabled() and want and want.format ~= "none" then
            io.write(current_report(state, want.format, want.limit))
        end
    end
    active = true
    return true
end

-- tshark: whether its command line names the companion (a tapoflow field
-- in a filter or -e, or -o tapoflow.report): the only way to know before
-- the first packet, which is when the extractors must exist.
local function command_names_companion()
    if gui_enabled() then return false end
    local f = io.open("/proc/self/cmdline", "rb")
    if not f then return false end
    local cmdline = f:read("*a") or ""
    f:close()
    local args = {}
    for arg in cmdline:gmatch("[^%z]+") do args[#args + 1] = arg end
    local paths = { ["-r"] = true, ["-w"] = true, ["-i"] = true, ["-H"] = true, ["-K"] = true,
                    ["-M"] = true, ["--read-file"] = true }
    local i = 2   -- after the program's own path
    while i <= #args do
        local arg = args[i]
        if paths[arg] then
            i = i + 1   -- its value is a file: a name containing tapoflow asks for nothing
        elseif not arg:match("^%-[rw][^%-]") and arg:find("tapoflow", 1, true) then
            return true
        end
        i = i + 1
    end
    return false
end

TAPO_FLOWS.activate = activate
if TAPO_FLOWS.requested or command_names_companion() then activate() end

function proto.prefs_changed()
    if not active and (PREF_FORMATS[proto.prefs.report] or (gui_enabled() and proto.prefs.gui)) then
        activate()
    end
end

-- GUI: Tools > TAPO > Flow report, in whichever profile is active and
-- whether or not the companion is: the capture is read once more (a
-- retap, so the causes are final), with the post-dissector's extractors
-- when it is active, else with a listener that has every field.
if gui_enabled() then
    -- Whether the C plugin registered its fields (looked up once, when asked).
    local plugin_loaded
    local function c_plugin_loaded()
        if plugin_loaded == nil then
            plugin_loaded = false
            for _, name in ipairs(Field.list()) do
                if name == "tapo.stall.cause" then plugin_loaded = true break end
            end
        end
        return plugin_loaded
    end

    local function collect_now()
        if active then
            retap_packets()
            return state
        end
        local c = new_collector()
        local tap = Listener.new("frame", "tcp", true)
        function tap.packet(pinfo)
            collect(c, pinfo, fields_of_tree())
        end
        local ok, err = pcall(retap_packets)
        tap:remove()
        if not ok then error(err) end
        return c
    end

    local function show_report()
        local window = TextWindow.new("TAPO flow report")
        if not c_plugin_loaded() then
            window:set("The TAPO C plugin (tapo.so) is not loaded, so there are no tapo.* fields to report " ..
                       "on.  Install it with scripts/setup (tshark -G plugins lists it).")
            return
        end
        local c = collect_now()
        local summaries = report.build(c.flows, c.stalls, mode(c))
        window:set(report.format_text(summaries, 0))
        window:add_button("Show the first flow's stalls", function()
            local first = summaries.flows[1]
            if first then
                set_filter(string.format("tcp.stream == %d && tapo.stall", first.stream))
                apply_filter()
            end
        end)
        window:add_button("Show one flow's stalls...", function()
            new_dialog("TAPO: stalls of one flow", function(stream)
                if tonumber(stream) then
                    set_filter(string.format("tcp.stream == %d && tapo.stall", tonumber(stream)))
                    apply_filter()
                end
            end, "tcp.stream of the flow")
        end)
    end
    register_menu("TAPO/Flow report", show_report, MENU_TOOLS_UNSORTED)
    -- The batch analyser's HTML report of the open capture (needs tapo).
    register_menu("TAPO/HTML incident report", html.report_open_capture, MENU_TOOLS_UNSORTED)
end
