-- Plain-Lua tests of lua/tapo_report.lua (no Wireshark):
--   lua5.2 tests/lua/test_report.lua
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
local report = dofile(here .. "../../lua/tapo_report.lua")

local failures = 0
local function check(cond, what)
    if not cond then
        failures = failures + 1
        io.stderr:write("FAIL " .. what .. "\n")
    end
end
local function near(a, b) return math.abs(a - b) < 1e-9 end

-- Nearest-rank quantiles.
local values = { 0.5, 0.1, 0.9, 0.3 }
check(report.quantile(values, 50) == 0.3, "median of 4 values is the 2nd smallest")
check(report.quantile(values, 100) == 0.9, "p100 is the maximum")
check(report.quantile(values, 1) == 0.1, "p1 is the minimum")
check(report.quantile({}, 50) == 0, "quantile of nothing is 0")
check(values[1] == 0.5, "quantile does not reorder its input")

-- Dominant cause: most time, then most stalls, then name.
check(report.dominant({ tail = { count = 1, time = 2 }, ["client-idle"] = { count = 5, time = 1 } }) == "tail",
      "dominant by time")
check(report.dominant({ tail = { count = 1, time = 2 }, ["t-double"] = { count = 2, time = 2 } }) == "t-double",
      "time tie broken by count")
check(report.dominant({ tail = { count = 1, time = 2 }, ["f-double"] = { count = 1, time = 2 } }) == "f-double",
      "full tie broken by name")
check(report.dominant({}) == nil, "no stalls, no dominant cause")
check(report.dominant({ tail = { count = 1, time = 1 }, ["client-idle"] = { count = 2, time = 9 } }) == "tail",
      "idle time aside: the loss is the dominant cause")
check(report.dominant({ ["client-idle"] = { count = 2, time = 9 } }) == "client-idle",
      "client-idle only when the flow has nothing else")

-- Flows, stalls and the summary.
local flows = {
    [0] = report.new_flow(0, 0.0, "10.0.0.2:40000", "10.0.0.1:80"),
    [1] = report.new_flow(1, 1.0, "10.0.0.2:40002", "10.0.0.1:80"),
}
report.add_packet(flows[0], 4.0, true, 100)
report.add_packet(flows[0], 2.0, false, 1448)
report.add_packet(flows[1], 2.0, false, 0)
local stalls = {
    [10] = { stream = 0, frame = 10, duration = 1.5, cause = "tail", hint = "TLP", vantage = "sender" },
    [12] = { stream = 0, frame = 12, duration = 0.5, cause = "client-idle", hint = "idle",
             vantage = "receiver" },
    [20] = { stream = 1, frame = 20, duration = 0.25, cause = "packet-delay", hint = "jitter" },
}
local r = report.build(flows, stalls, "two-pass: final causes")
check(r.flow_count == 2 and r.stalled_flows == 2 and r.stalls == 3, "summary counts")
check(near(r.stalled_time, 2.25), "summary stalled time")
local f0 = r.flows[1]
check(f0.stream == 0, "flows ordered by stalled time")
check(near(f0.duration, 4.0) and near(f0.stalled_time, 2.0) and near(f0.ratio, 0.5), "flow 0 numbers")
check(f0.bytes_to_server == 100 and f0.bytes_to_client == 1448, "flow 0 bytes")
check(f0.dominant == "tail" and f0.advice == "TLP", "flow 0 dominant cause, and the C hint as advice")
check(f0.vantage == "receiver", "flow 0 vantage: as its latest stall saw it")
check(r.flows[2].vantage == "", "flow 1 vantage unknown")
check(near(r.flows[2].ratio, 0.25), "flow 1 ratio")

-- The order flows are listed in: network and server stalled time first,
-- then the rest but idle time, idle time last.
local ranked_flows = {
    [0] = report.new_flow(0, 0, "c:1", "s:1"), [1] = report.new_flow(1, 0, "c:2", "s:1"),
    [2] = report.new_flow(2, 0, "c:3", "s:1"), [3] = report.new_flow(3, 0, "c:4", "s:1"),
}
for _, f in pairs(ranked_flows) do report.add_packet(f, 20, true, 1) end
local ranked = report.build(ranked_flows, {
    [1] = { stream = 0, frame = 1, duration = 10, cause = "client-idle", category = "client" },
    [2] = { stream = 1, frame = 2, duration = 0.1, cause = "tail", category = "network" },
    [3] = { stream = 1, frame = 3, duration = 12, cause = "client-idle", category = "client" },
    [4] = { stream = 2, frame = 4, duration = 3, cause = "zero-window", category = "client" },
    [5] = { stream = 3, frame = 5, duration = 0.2, cause = "data-unavailable", category = "server" },
}, "two-pass: final causes")
local order = {}
for i, f in ipairs(ranked.flows) do order[i] = f.stream end
check(table.concat(order, ",") == "3,1,2,0", "most to act on first: " .. table.concat(order, ","))
check(ranked.flows[2].dominant == "tail" and near(ranked.flows[2].idle_time, 12), "idle time apart")
check(near(ranked.idle_time, 22), "the summary's idle time")
check(report.format_text(ranked, 0):find("of which idle (client-idle, nothing to fix in TCP): 22.000 s", 1, true)
      ~= nil, "the text says the idle time")
check(report.format_csv(ranked, 0):match("^[^\n]*,idle_time_s\n") ~= nil, "CSV idle_time_s column")

-- Formats.
local csv = report.format_csv(r, 0)
local header = csv:match("^[^\n]*")
check(header == table.concat(report.CSV_COLUMNS, ","), "CSV header row")
local rows = 0
for _ in csv:gmatch("\n[^\n]") do rows = rows + 1 end
check(rows == 2, "one CSV row per flow")
check(report.format_csv(r, 1):match("\n0,") and not report.format_csv(r, 1):match("\n1,"), "CSV limit")
local quoted = report.format_csv(report.build({ [3] = report.new_flow(3, 0, 'a,"b"', "c") }, {}, "no stalls"), 0)
check(quoted:find('"a,""b"""', 1, true) ~= nil, "CSV quotes commas and quotes")
local json = report.format_json(r, 0)
check(json:match('^{"mode":"two%-pass: final causes"') ~= nil, "JSON starts with the mode")
check(json:find('"dominant_cause":"tail"', 1, true) ~= nil, "JSON dominant cause")
check(json:find('"vantage":"receiver"', 1, true) ~= nil and json:find('"vantage":null', 1, true) ~= nil,
      "JSON vantage, null when unknown")
local odd = report.format_json(report.build({ [4] = report.new_flow(4, 0, 'x"\n\\', "y") }, {}, "no stalls"), 0)
check(odd:find('"client":"x\\"\\n\\\\"', 1, true) ~= nil, "JSON escapes quotes, newlines, backslashes")
check(odd:find('"dominant_cause":null', 1, true) ~= nil, "JSON null dominant cause without stalls")
local text = report.format_text(r, 1)
check(text:find("Flows: 2, with stalls: 2; stalls: 3", 1, true) ~= nil, "text summary")
check(text:find("(1 more flows; use limit=0 for all)", 1, true) ~= nil, "text limit note")

if failures > 0 then
    io.stderr:write(failures .. " failure(s)\n")
    os.exit(1)
end
print("tapo_report.lua: all checks passed")
