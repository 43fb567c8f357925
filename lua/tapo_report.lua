-- tapo_report.lua: the pure part of the TAPO flow report.
--
-- No Wireshark API here: flows and stalls in, report tables and text, CSV
-- or JSON out, so that plain `lua5.2 tests/lua/test_report.lua` can test
-- it.  Wireshark loads every .lua file of its plugin folders, this one
-- too: loading it only builds and returns this table.
--
-- The rules are the batch analyser's (core/explain/flow_report.h; docs/
-- lua-companion.md, "One vocabulary"), its constants read from
-- tapo_policy.lua, which the C tables write; core/tests/flow_cases.tsv holds
-- both to the same constructed cases.  The advice for a flow is the C
-- plugin's hint for its dominant cause (tapo.stall.hint), so that the two
-- never disagree.
--
-- SPDX-License-Identifier: GPL-2.0-or-later

local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
local policy = dofile(here .. "tapo_policy.lua")

local M = {}

-- Quantiles of the stall ratio printed in the summary (per cent).
M.QUANTILES = policy.QUANTILES

-- Columns of the CSV output, in order.
-- After "stream" they are the batch analyser's --flows columns (after its
-- "file"), name for name (docs/lua-companion.md, "One vocabulary").
M.CSV_COLUMNS = { "stream", "first_frame", "client", "server", "start_s", "duration_s", "bytes_to_server",
                  "bytes_to_client", "stalls", "stalled_time_s", "stall_ratio", "dominant_cause",
                  "dominant_cause_time_s", "advice", "vantage", "low_confidence_stalls",
                  "handshake_stalls", "teardown_stalls", "whatif_saving_s", "idle_time_s" }

-- Clients bind ephemeral ports (RFC 6335, Linux's ip_local_port_range);
-- services listen below 1024: the plugin's rules (core/roles/roles.c).
local EPHEMERAL_PORT_MIN, SYSTEM_PORT_END = policy.EPHEMERAL_PORT_MIN, policy.SYSTEM_PORT_END

-- Without a handshake, which of two ports is the server's: 1 (the first),
-- 2 (the second), or nil when the ports do not tell.
function M.server_by_ports(port1, port2)
    local function lower(a, b)
        if a == b then return nil end
        return a and 1 or 2
    end
    return lower(port1 < SYSTEM_PORT_END, port2 < SYSTEM_PORT_END) or
           lower(port1 < EPHEMERAL_PORT_MIN, port2 < EPHEMERAL_PORT_MIN)
end

-- Whether a packet's first TCP header (frame.protocols lists its layers)
-- is a segment of its connection, as TAPO reads frames (core/wire/decode.c):
-- not a header quoted in an ICMP error, nor one carried in a UDP datagram
-- (sFlow's sampled headers, a UDP tunnel TAPO does not open).
function M.own_segment(protocols)
    for layer in (protocols .. ":"):gmatch("([^:]*):") do
        if layer == "tcp" then return true end
        if layer == "udp" or layer == "icmp" or layer == "icmpv6" then return false end
    end
    return false
end

-- A new flow seen at time t (seconds since the capture's first packet),
-- in frame first_frame at epoch (seconds since 1970): `client` to `server`.
function M.new_flow(stream, t, client, server, first_frame, epoch)
    return { stream = stream, client = client, server = server, first = t, last = t,
             first_frame = first_frame or 0, epoch = epoch or t,
             bytes_to_server = 0, bytes_to_client = 0 }
end

-- Accounts one packet of the flow: time (seconds), direction, payload bytes.
function M.add_packet(flow, t, to_server, bytes)
    if t > flow.last then flow.last = t end
    if t < flow.first then flow.first = t end
    if to_server then
        flow.bytes_to_server = flow.bytes_to_server + bytes
    else
        flow.bytes_to_client = flow.bytes_to_client + bytes
    end
end

-- Idle time: the client had nothing to ask (nothing to fix in TCP).
M.IDLE_CAUSE = policy.IDLE_CAUSE
-- The categories an operator can act on first (tapo.stall.category).
M.ACTIONABLE = policy.ACTIONABLE

-- Seconds as whole nanoseconds: stalled times compare to the nanosecond,
-- whatever order their stalls were added in.
local function nanoseconds(s)
    return math.floor(s * 1e9 + 0.5)
end

-- The cause (a name: both "undetermined" are one) with the most stalled
-- time, idle time aside (client-idle only when the flow has nothing else);
-- ties by count, then by name.
function M.dominant(by_cause)
    local best, best_time, best_count
    for cause, t in pairs(by_cause) do
        local better = best == nil or (best == M.IDLE_CAUSE and cause ~= M.IDLE_CAUSE)
        if not better and (cause == M.IDLE_CAUSE) == (best == M.IDLE_CAUSE) then
            local ns, best_ns = nanoseconds(t.time), nanoseconds(best_time)
            better = ns > best_ns or (ns == best_ns and (t.count > best_count or
                     (t.count == best_count and cause < best)))
        end
        if better then best, best_time, best_count = cause, t.time, t.count end
    end
    return best, best_time or 0
end

-- The stall ratio: stalled time over duration, at most 1; of a flow of no
-- duration, 1 when it stalled (its stalled time exceeds its duration), else 0.
function M.ratio(stalled, duration)
    if duration <= 0 then return stalled > 0 and 1 or 0 end
    return math.min(1, stalled / duration)
end

-- Where a stall's time counts in the order flows are listed: what an
-- operator can act on (the network's and the server's stalls), the rest
-- but idle time (a closed receive window, stalls no rule explains), idle.
function M.rank_part(cause, category)
    if cause == M.IDLE_CAUSE then return "idle_time" end
    return M.ACTIONABLE[category] and "act_time" or "other_time"
end

-- Per-flow summaries from the flows and the stall records
-- (stalls[frame] = {stream, duration, cause, category, final, hint, vantage, confidence, phase,
--  whatif, saving, episode = {id, scope, connections, start, duration, cause} or nil}).
function M.summarise(flows, stalls)
    local summaries, by_stream = {}, {}
    for stream, flow in pairs(flows) do
        local s = { stream = stream, client = flow.client, server = flow.server,
                    first_frame = flow.first_frame, start = flow.epoch, duration = flow.last - flow.first,
                    bytes_to_server = flow.bytes_to_server, bytes_to_client = flow.bytes_to_client,
                    stalls = 0, stalled_time = 0, by_cause = {}, hints = {}, hint_frames = {}, vantage = "",
                    by_confidence = { high = 0, medium = 0, low = 0 },
                    by_phase = { handshake = 0, data = 0, teardown = 0 }, saving = 0,
                    act_time = 0, other_time = 0, idle_time = 0 }
        by_stream[stream] = s
        summaries[#summaries + 1] = s
    end
    for _, st in pairs(stalls) do
        local s = by_stream[st.stream]
        if s then
            s.stalls = s.stalls + 1
            s.stalled_time = s.stalled_time + st.duration
            local part = M.rank_part(st.cause, st.category)
            s[part] = s[part] + st.duration
            local c = s.by_cause[st.cause] or { count = 0, time = 0 }
            c.count, c.time = c.count + 1, c.time + st.duration
            s.by_cause[st.cause] = c
            -- The advice of the cause's latest stall (as the batch analyser's).
            if not s.hint_frames[st.cause] or st.frame > s.hint_frames[st.cause] then
                s.hints[st.cause], s.hint_frames[st.cause] = st.hint or "", st.frame
            end
            if st.confidence and s.by_confidence[st.confidence] then
                s.by_confidence[st.confidence] = s.by_confidence[st.confidence] + 1
            end
            if st.phase and s.by_phase[st.phase] then
                s.by_phase[st.phase] = s.by_phase[st.phase] + 1
            end
            s.saving = s.saving + (st.saving or 0)
            -- Where the capture was taken, as the latest stall of the flow saw it.
            if st.vantage and (not s.vantage_frame or st.frame > s.vantage_frame) then
                s.vantage, s.vantage_frame = st.vantage, st.frame
            end
        end
    end
    for _, s in ipairs(summaries) do
        s.ratio = M.ratio(s.stalled_time, s.duration)
        s.dominant, s.dominant_time = M.dominant(s.by_cause)
        s.advice = s.dominant and s.hints[s.dominant] or ""
    end
    -- Most to act on first (as the batch analyser's report).
    table.sort(summaries, function(a, b)
        if a.act_time ~= b.act_time then return a.act_time > b.act_time end
        if a.other_time ~= b.other_time then return a.other_time > b.other_time end
        if a.idle_time ~= b.idle_time then return a.idle_time > b.idle_time end
        return a.stream < b.stream
    end)
    return summaries
end

-- Nearest-rank quantile q (per cent) of a list of numbers.
function M.quantile(values, q)
    if #values == 0 then return 0 end
    local sorted = {}
    for i, v in ipairs(values) do sorted[i] = v end
    table.sort(sorted)
    local rank = math.max(1, math.ceil(q / 100 * #sorted))
    return sorted[rank]
end

-- The whole report: mode says which causes the stalls carry.
-- What the modelled mitigations would have saved, by mitigation (seconds),
-- and the episodes, from their member stalls, in order.
local function savings_and_episodes(stalls)
    local savings, episodes, by_id = {}, {}, {}
    for _, st in pairs(stalls) do
        if st.whatif and st.saving then
            savings[st.whatif] = (savings[st.whatif] or 0) + st.saving
        end
        local e = st.episode
        if e and not by_id[e.id] then
            by_id[e.id] = { id = e.id, scope = e.scope, connections = e.connections, start = e.start,
                            duration = e.duration, cause = e.cause, stalls = 0 }
            episodes[#episodes + 1] = by_id[e.id]
        end
        if e then by_id[e.id].stalls = by_id[e.id].stalls + 1 end
    end
    table.sort(episodes, function(a, b) return a.id < b.id end)
    return savings, episodes
end

function M.build(flows, stalls, mode)
    local summaries = M.summarise(flows, stalls)
    local ratios, stalled, total_stalls, total_time, idle_time = {}, 0, 0, 0, 0
    for i, s in ipairs(summaries) do
        ratios[i] = s.ratio
        if s.stalls > 0 then stalled = stalled + 1 end
        total_stalls = total_stalls + s.stalls
        total_time = total_time + s.stalled_time
        idle_time = idle_time + s.idle_time
    end
    local quantiles = {}
    for _, q in ipairs(M.QUANTILES) do
        quantiles[#quantiles + 1] = { q = q, ratio = M.quantile(ratios, q) }
    end
    local savings, episodes = savings_and_episodes(stalls)
    return { mode = mode, flows = summaries, flow_count = #summaries, stalled_flows = stalled,
             stalls = total_stalls, stalled_time = total_time, idle_time = idle_time, ratio_quantiles = quantiles,
             savings = savings, episodes = episodes }
end

local function limited(report, limit)
    local n = #report.flows
    if limit and limit > 0 and limit < n then n = limit end
    return n
end

-- Seconds since 1970 (a number, or its text) as UTC, to the millisecond.
local function utc_text(seconds)
    local t = tonumber(tostring(seconds))
    if not t then return tostring(seconds) end
    local whole = math.floor(t)
    return os.date("!%Y-%m-%d %H:%M:%S", whole) .. string.format(".%03d UTC", math.floor((t - whole) * 1000))
end

function M.format_text(report, limit)
    local out = {}
    local function add(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
    add("TAPO flow report (%s)", report.mode)
    add("Flows: %d, with stalls: %d; stalls: %d, stalled time: %.3f s, of which idle (client-idle, nothing to " ..
        "fix in TCP): %.3f s", report.flow_count, report.stalled_flows, report.stalls, report.stalled_time,
        report.idle_time)
    local qs = {}
    for _, q in ipairs(report.ratio_quantiles) do
        qs[#qs + 1] = string.format("p%d %.2f", q.q, q.ratio)
    end
    add("Stall ratio (stalled time / flow duration) over all flows: %s", table.concat(qs, ", "))
    local names = {}
    for name in pairs(report.savings) do names[#names + 1] = name end
    table.sort(names)
    for _, name in ipairs(names) do
        add("What if: %s would have cut the stalled time by %.3f s (%.1f %%)", name, report.savings[name],
            report.stalled_time > 0 and 100 * report.savings[name] / report.stalled_time or 0)
    end
    add("Episodes (stalls of several connections at once): %d", #report.episodes)
    for _, e in ipairs(report.episodes) do
        add("  #%d %s, %.3f s: %d connections, %s; mostly %s", e.id, utc_text(e.start), e.duration, e.connections,
            e.scope, e.cause)
    end
    add("")
    add("Flows to look at: network and server stalls first, then the rest, idle time last")
    add("%6s  %-44s %8s %6s %5s %10s %8s %6s  %-8s  %-20s %s", "stream", "client -> server", "dur(s)",
        "stalls", "low", "stalled(s)", "idle(s)", "ratio", "vantage", "cause", "advice")
    for i = 1, limited(report, limit) do
        local f = report.flows[i]
        add("%6d  %-44s %8.3f %6d %5d %10.3f %8.3f %6.2f  %-8s  %-20s %s", f.stream,
            f.client .. " -> " .. f.server, f.duration, f.stalls, f.by_confidence.low, f.stalled_time,
            f.idle_time, f.ratio, f.vantage ~= "" and f.vantage or "-", f.dominant or "-", f.advice)
    end
    if limited(report, limit) < #report.flows then
        add("(%d more flows; use limit=0 for all)", #report.flows - limited(report, limit))
    end
    return table.concat(out, "\n") .. "\n"
end

local function csv_field(v)
    local s = tostring(v)
    if s:find('[,"\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
    return s
end

function M.format_csv(report, limit)
    local out = { table.concat(M.CSV_COLUMNS, ",") }
    for i = 1, limited(report, limit) do
        local f = report.flows[i]
        local row = { f.stream, f.first_frame, f.client, f.server, string.format("%.6f", f.start),
                      string.format("%.6f", f.duration), f.bytes_to_server, f.bytes_to_client, f.stalls,
                      string.format("%.6f", f.stalled_time), string.format("%.6f", f.ratio),
                      f.dominant or "", string.format("%.6f", f.dominant_time), f.advice, f.vantage,
                      f.by_confidence.low, f.by_phase.handshake, f.by_phase.teardown,
                      string.format("%.6f", f.saving), string.format("%.6f", f.idle_time) }
        for j, v in ipairs(row) do row[j] = csv_field(v) end
        out[#out + 1] = table.concat(row, ",")
    end
    return table.concat(out, "\n") .. "\n"
end

local function json_string(s)
    local escaped = s:gsub('[%c"\\]', function(c)
        local named = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\t'] = '\\t', ['\r'] = '\\r' }
        return named[c] or string.format("\\u%04x", c:byte())
    end)
    return '"' .. escaped .. '"'
end

local function json_number(x)
    return string.format("%.6f", x)
end

function M.format_json(report, limit)
    local flows = {}
    for i = 1, limited(report, limit) do
        local f = report.flows[i]
        local causes, names = {}, {}
        for cause in pairs(f.by_cause) do names[#names + 1] = cause end
        table.sort(names)
        for _, cause in ipairs(names) do
            local c = f.by_cause[cause]
            causes[#causes + 1] = string.format('{"cause":%s,"stalls":%d,"stalled_time_s":%s}',
                                                json_string(cause), c.count, json_number(c.time))
        end
        flows[#flows + 1] = string.format(
            '{"stream":%d,"first_frame":%d,"client":%s,"server":%s,"start_s":%s,"duration_s":%s,' ..
            '"bytes_to_server":%d,"bytes_to_client":%d,"stalls":%d,"stalled_time_s":%s,' ..
            '"stall_ratio":%s,"dominant_cause":%s,"advice":%s,"vantage":%s,"causes":[%s],' ..
            '"stalls_by_confidence":{"high":%d,"medium":%d,"low":%d},' ..
            '"stalls_by_phase":{"handshake":%d,"data":%d,"teardown":%d},"whatif_saving_s":%s,' ..
            '"idle_time_s":%s}',
            f.stream, f.first_frame, json_string(f.client), json_string(f.server), json_number(f.start),
            json_number(f.duration), f.bytes_to_server, f.bytes_to_client, f.stalls,
            json_number(f.stalled_time), json_number(f.ratio),
            f.dominant and json_string(f.dominant) or "null", json_string(f.advice),
            f.vantage ~= "" and json_string(f.vantage) or "null", table.concat(causes, ","),
            f.by_confidence.high, f.by_confidence.medium, f.by_confidence.low,
            f.by_phase.handshake, f.by_phase.data, f.by_phase.teardown, json_number(f.saving),
            json_number(f.idle_time))
    end
    local qs = {}
    for _, q in ipairs(report.ratio_quantiles) do
        qs[#qs + 1] = string.format('{"percent":%d,"stall_ratio":%s}', q.q, json_number(q.ratio))
    end
    local savings = {}
    local names = {}
    for name in pairs(report.savings) do names[#names + 1] = name end
    table.sort(names)
    for _, name in ipairs(names) do
        savings[#savings + 1] = string.format('{"mitigation":%s,"saving_s":%s}', json_string(name),
                                              json_number(report.savings[name]))
    end
    local episodes = {}
    for _, e in ipairs(report.episodes) do
        episodes[#episodes + 1] = string.format(
            '{"episode":%d,"scope":%s,"connections":%d,"stalls":%d,"start":%s,"duration_s":%s,"cause":%s}',
            e.id, json_string(e.scope), e.connections, e.stalls, json_string(e.start), json_number(e.duration),
            json_string(e.cause))
    end
    return string.format(
        '{"mode":%s,"summary":{"flows":%d,"stalled_flows":%d,"stalls":%d,"stalled_time_s":%s,"idle_time_s":%s,' ..
        '"stall_ratio_quantiles":[%s],"whatif_savings":[%s]},"episodes":[%s],"flows":[%s]}\n',
        json_string(report.mode), report.flow_count, report.stalled_flows, report.stalls,
        json_number(report.stalled_time), json_number(report.idle_time), table.concat(qs, ","), table.concat(savings, ","),
        table.concat(episodes, ","), table.concat(flows, ","))
end

M.FORMATS = { text = M.format_text, csv = M.format_csv, json = M.format_json }

return M
