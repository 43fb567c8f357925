-- The Lua companion's flow report (lua/tapo_report.lua) on the constructed
-- connections of core/tests/flow_cases.tsv, which the batch analyser's
-- rows are held to as well (core/tests/test_flow_report.c):
--   lua5.2 tests/lua/test_flow_cases.lua core/tests/flow_cases.tsv
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
local report = dofile(here .. "../../lua/tapo_report.lua")
local path = arg[1] or (here .. "../../core/tests/flow_cases.tsv")

local failures, cases = 0, 0
local function expect(what, got, want, name)
    if got ~= want then
        failures = failures + 1
        io.stderr:write(string.format("FAIL %s: %s is %s, not %s\n", name, what, got, want))
    end
end

local function split(text, sep)
    local out = {}
    for piece in (text .. sep):gmatch("(.-)" .. sep) do out[#out + 1] = piece end
    return out
end

-- One connection from its duration and its stalls
-- ("cause:category:duration_s:frame"), each stall's hint naming its frame.
local function summary_of(duration, stalls_text)
    local flows = { [0] = report.new_flow(0, 0.0, "10.0.0.2:40000", "10.0.0.1:80", 1, 0.0) }
    report.add_packet(flows[0], tonumber(duration), true, 0)
    local stalls = {}
    if stalls_text ~= "-" then
        for _, s in ipairs(split(stalls_text, " ")) do
            local cause, category, seconds, frame = s:match("^([^:]+):([^:]+):([^:]+):(%d+)$")
            frame = tonumber(frame)
            stalls[frame] = { stream = 0, frame = frame, duration = tonumber(seconds), cause = cause,
                              category = category, hint = "frame " .. frame, confidence = "high", phase = "data" }
        end
    end
    return report.summarise(flows, stalls)[1]
end

local function check_flow(col, name)
    local s = summary_of(col[2], col[3])
    expect("stall_ratio", string.format("%.6f", s.ratio), col[4], name)
    expect("dominant_cause", s.dominant or "-", col[5], name)
    expect("dominant_cause_time_s", string.format("%.6f", s.dominant_time), col[6], name)
    expect("the advice's frame", s.advice == "" and "0" or s.advice:match("^frame (%d+)$") or s.advice, col[7], name)
    expect("idle_time_s", string.format("%.6f", s.idle_time), col[8], name)
end

-- Which port is a server's without a handshake: 1, 2, or "-".
local function check_ports(col, name)
    local server = report.server_by_ports(tonumber(col[2]), tonumber(col[3]))
    expect("the server", server and tostring(server) or "-", col[4], name)
end

local file = assert(io.open(path, "r"))
for line in file:lines() do
    if line ~= "" and line:sub(1, 1) ~= "#" then
        local col = split(line, "\t")
        cases = cases + 1
        if #col == 4 then check_ports(col, col[1]) else check_flow(col, col[1]) end
    end
end
file:close()

-- A connection's packets are its own TCP segments, as TAPO reads frames:
-- not a header quoted in an ICMP error, nor one sampled inside UDP (sFlow).
for protocols, own in pairs({ ["eth:ethertype:ip:tcp"] = true, ["eth:ethertype:ip:gre:ip:tcp:http"] = true,
                              ["eth:ethertype:ip:icmp:ip:tcp"] = false, ["eth:ethertype:ipv6:icmpv6:ipv6:tcp"] = false,
                              ["eth:ethertype:ip:udp:sflow:eth:ethertype:ip:tcp"] = false,
                              ["eth:ethertype:ip:udp:dns"] = false }) do
    cases = cases + 1
    expect("own segment of " .. protocols, tostring(report.own_segment(protocols)), tostring(own), "segments")
end
if cases == 0 then failures = failures + 1 end
print(string.format("test_flow_cases.lua: %d cases, %d failures", cases, failures))
os.exit(failures == 0 and 0 or 1)
