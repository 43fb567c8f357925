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
