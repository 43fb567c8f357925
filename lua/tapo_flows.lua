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

-- The C plugin's fields, read once the companion is active (activate()).
local f_cause, f_duration, f_final, f_hint, f_vantage, f_confidence, f_phase
local f_whatif, f_saving, f_episode, f_ep_scope, f_ep_connections, f_ep_start, f_ep_duration, f_ep_cause
local f_stream, f_srcport, f_dstport, f_len, f_flags, f_frame

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
proto.prefs.gui = Pref.bool("Keep per-flow data in the GUI", false,
    "Collect the flow report while captures load (Tools > TAPO > Flow report); the TAPO profile " ..
    "turns it on.  Takes effect when Wireshark starts")
local PREF_FORMATS = { [1] = "text", [2] = "csv", [3] = "json" }

-- State of the current file: flows by tcp.stream, stall records by frame,
-- and the frames accounted for, in order (frames 1..accounted).
local flows, stalls, server_port, accounted = {}, {}, {}, 0

function proto.init()
    flows, stalls, server_port, accounted = {}, {}, {}, 0
end

local function seconds(nstime)
    return tonumber(tostring(nstime)) or 0
end

-- "address:port", an IPv6 address in brackets (as the batch analyser).
local function endpoint(address, port)
    local a = tostring(address)
    if a:find(":", 1, true) then a = "[" .. a .. "]" end
    return a .. ":" .. port
end

-- The first pass that reads the fields (tshark -2 builds no tree in its
-- first pass): the flow's times, bytes and endpoints.  The client sent the
-- SYN; without a handshake the ports tell (a service's port against a
-- client's), else the first packet's sender is the client: the plugin's
-- rules (tapo.client).
local function account_packet(pinfo, stream)
    local sport, dport = f_srcport().value, f_dstport().value
    local t = seconds(pinfo.rel_ts)
    local flow = flows[stream]
    if not flow then
        local src, dst = endpoint(pinfo.src, sport), endpoint(pinfo.dst, dport)
        local flags = f_flags() and f_flags().value or 0
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
            server_port[stream] = sport
        else
            flow = report.new_flow(stream, t, src, dst, pinfo.number, epoch)
            server_port[stream] = dport
        end
        flows[stream] = flow
    end
    local len = f_len() and f_len().value or 0
    report.add_packet(flow, t, dport == server_port[stream], len)
end

-- One stall record per frame.  The first pass counts stalls as they come
-- (the "so far" fields); every pass replaces the cause, duration and the
-- rest, and drops a record whose frame ends no stall any more, so that
-- after tshark -2 or a GUI retap the records are the final stalls (the
-- analysed sender or the sender's timeline can change with hindsight).
local function record_stall(pinfo, stream)
    local rec = stalls[pinfo.number]
    local duration = seconds(f_duration().value)
    if not rec then
        local flow = flows[stream]
        flow.stall_count = (flow.stall_count or 0) + 1
        flow.stalled_so_far = (flow.stalled_so_far or 0) + duration
        local elapsed = seconds(pinfo.rel_ts) - flow.first
        rec = { stream = stream, frame = pinfo.number, index = flow.stall_count,
                so_far = flow.stalled_so_far,
                ratio_so_far = elapsed > 0 and math.min(1, flow.stalled_so_far / elapsed) or 0 }
        stalls[pinfo.number] = rec
    end
    rec.duration = duration
    rec.cause = f_cause().value
    rec.final = f_final().value
    rec.hint = f_hint() and f_hint().value or ""
    rec.vantage = f_vantage() and f_vantage().value or nil
    rec.confidence = f_confidence() and f_confidence().value or nil
    rec.phase = f_phase() and f_phase().value or nil
    rec.whatif = f_whatif() and f_whatif().value or nil
    rec.saving = f_saving() and seconds(f_saving().value) or nil
    rec.episode = nil
    if f_episode() then
        rec.episode = { id = f_episode().value, scope = f_ep_scope().value,
                        connections = f_ep_connections().value, start = tostring(f_ep_start().value),
                        duration = seconds(f_ep_duration().value), cause = f_ep_cause().value }
    end
    return rec
end

-- The flow's stalls as the records stand.
local function flow_totals(stream)
    local n, time = 0, 0
    for _, rec in pairs(stalls) do
        if rec.stream == stream then n, time = n + 1, time + rec.duration end
    end
    return n, time
end

function proto.dissector(tvb, pinfo, tree)
    if not f_frame() then return end   -- no tree in this pass: nothing to read
    local in_order = pinfo.number == accounted + 1
    if in_order then accounted = pinfo.number end
    local stream_field = f_stream()
    if not stream_field then return end
    local stream = stream_field.value
    if in_order then account_packet(pinfo, stream) end
    if not f_cause() then
        stalls[pinfo.number] = nil   -- no stall in this pass (see record_stall)
        return
    end
    if not flows[stream] then return end
    local rec = record_stall(pinfo, stream)
    local sub = tree:add(proto, tvb(0, 0))
    sub:add(pf.index, rec.index):set_generated()
    sub:add(pf.stalled_so_far, rec.so_far):set_generated()
    sub:add(pf.ratio_so_far, rec.ratio_so_far):set_generated()
    if pinfo.visited then
        -- The whole capture has been read: the records are the flow's
        -- stalls (later frames not yet rendered again keep their first
        -- pass's verdict).
        local flow = flows[stream]
        local n, time = flow_totals(stream)
        local duration = flow.last - flow.first
        sub:add(pf.flow_stalls, n):set_generated()
        sub:add(pf.flow_stalled, time):set_generated()
        sub:add(pf.flow_duration, duration):set_generated()
        sub:add(pf.flow_ratio, duration > 0 and math.min(1, time / duration) or 0):set_generated()
    end
end

local function mode()
    local any, final = false, false
    for _, rec in pairs(stalls) do
        any = true
        final = final or rec.final
    end
    if not any then return "no stalls" end
    return final and "two-pass: final causes" or "one-pass: provisional causes, run tshark -2 for final ones"
end

local function current_report(format, limit)
    return report.FORMATS[format](report.build(flows, stalls, mode()), limit)
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
-- the preferences are applied at start-up.
local active = false

local function activate()
    if active then return true end
    local ok, err = pcall(function()
        f_cause = Field.new("tapo.stall.cause")
        f_duration = Field.new("tapo.stall.duration")
        f_final = Field.new("tapo.stall.final")
        f_hint = Field.new("tapo.stall.hint")
        f_vantage = Field.new("tapo.vantage")
        f_confidence = Field.new("tapo.stall.confidence")
        f_phase = Field.new("tapo.stall.phase")
        f_whatif = Field.new("tapo.stall.whatif")
        f_saving = Field.new("tapo.stall.saving")
        f_episode = Field.new("tapo.episode")
        f_ep_scope = Field.new("tapo.episode.scope")
        f_ep_connections = Field.new("tapo.episode.connections")
        f_ep_start = Field.new("tapo.episode.start")
        f_ep_duration = Field.new("tapo.episode.duration")
        f_ep_cause = Field.new("tapo.episode.cause")
        f_stream = Field.new("tcp.stream")
        f_srcport = Field.new("tcp.srcport")
        f_dstport = Field.new("tcp.dstport")
        f_len = Field.new("tcp.len")
        f_flags = Field.new("tcp.flags")
        f_frame = Field.new("frame.number")
    end)
    if not ok then
        if not f_cause then   -- the first extractor: no tapo.* field at all
            io.stderr:write("TAPO companion: the TAPO C plugin (tapo.so) is not loaded, so there are no " ..
                            "tapo.* fields to report on; install it with scripts/setup.\n")
        else
            io.stderr:write("TAPO companion: " .. tostring(err) .. " (restart Wireshark to apply)\n")
        end
        return false
    end
    register_postdissector(proto)
    -- tshark: a listener makes tshark dissect even with -q, and prints the
    -- report when the capture is done.
    local listener = Listener.new(nil, "tcp")
    function listener.draw()
        local want = wanted_report()
        if not gui_enabled() and want and want.format ~= "none" then
            io.write(current_report(want.format, want.limit))
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

-- GUI: Tools > TAPO > Flow report.
if gui_enabled() then
    local function show_report()
        if not active then
            TextWindow.new("TAPO flow report"):set(
                "The TAPO companion collects per-flow data only when asked, so that captures load as fast " ..
                "as without it.  Turn on Edit > Preferences > Protocols > TAPOFLOW > \"Keep per-flow data " ..
                "in the GUI\" (or choose the TAPO configuration profile) and restart Wireshark.")
            return
        end
        retap_packets()   -- renders every frame once more, with the final causes
        local summaries = report.build(flows, stalls, mode())
        local window = TextWindow.new("TAPO flow report")
        window:set(report.format_text(summaries, 0))
        window:add_button("Show the worst flow's stalls", function()
            local worst = summaries.flows[1]
            if worst then
                set_filter(string.format("tcp.stream == %d && tapo.stall", worst.stream))
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
