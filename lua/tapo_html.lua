-- tapo_html.lua: Tools > TAPO > HTML incident report: the batch analyser's
-- report (tapo --html, docs/batch.md "The HTML report") of the capture open
-- in Wireshark, opened in the browser.
--
-- Lua cannot name the file Wireshark has open, so its packets are written
-- once more (a Dumper over a retap) to a temporary pcap that tapo reads;
-- the report and tapo's messages are kept beside it, in TMPDIR (or /tmp).
-- $TAPO_BIN names the tapo command, $TAPO_BROWSER the command that opens
-- the report (default: the desktop's browser).
-- Loaded by tapo_flows.lua; on its own (Wireshark loads every .lua of the
-- folder) it only returns its table.
--
-- SPDX-License-Identifier: GPL-2.0-or-later

local M = {}
math.randomseed(os.time())

-- The TAPO plugin's preferences that tapo understands (-o tapo.NAME:VALUE).
M.PREFS = { "tau", "small_window", "rto_min_ms", "rto_initial_ms", "min_stall_ms", "episode_connections",
            "sender", "vantage", "rule_order" }

local function readable(path)
    local f = path and io.open(path, "rb")
    if f then f:close() end
    return f ~= nil
end

-- The tapo command: $TAPO_BIN, then the PATH, then where scripts/setup,
-- the personal install and the .deb put it.
function M.find_tapo()
    local given = os.getenv("TAPO_BIN")
    if given and given ~= "" then return readable(given) and given or nil end
    for dir in (os.getenv("PATH") or ""):gmatch("[^:]+") do
        if readable(dir .. "/tapo") then return dir .. "/tapo" end
    end
    local home = os.getenv("HOME")
    for _, path in ipairs({ home and (home .. "/.local/bin/tapo") or false, "/usr/local/bin/tapo",
                            "/usr/bin/tapo" }) do
        if path and readable(path) then return path end
    end
    return nil
end

local function quote(s)
    return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

local function succeeded(a, _, code)
    -- Lua 5.1: a status number; 5.2 and later: true or nil, "exit", code.
    if type(a) == "number" then return a == 0 end
    return a == true and (code == nil or code == 0)
end

-- Paths of a new report: "<dir>/tapo-report-<time>.html", its capture and
-- tapo's messages.
function M.paths()
    local dir = os.getenv("TMPDIR")
    if not dir or dir == "" then dir = "/tmp" end
    local stem = string.format("%s/tapo-report-%s-%04d", dir, os.date("%Y%m%d-%H%M%S"), math.random(0, 9999))
    return { capture = stem .. ".pcap", report = stem .. ".html", log = stem .. ".log" }
end

-- tapo --html report capture, with prefs ({"tapo.tau:3", ...}): true, or
-- false and why.
function M.write(capture, report, log, prefs)
    local tapo = M.find_tapo()
    if not tapo then
        return false, "the tapo command was not found (scripts/setup installs it; or set TAPO_BIN)"
    end
    local cmd = { quote(tapo), "--quiet", "--html", quote(report) }
    for _, p in ipairs(prefs or {}) do cmd[#cmd + 1] = "-o " .. quote(p) end
    cmd[#cmd + 1] = quote(capture)
    local ok = succeeded(os.execute(table.concat(cmd, " ") .. " > /dev/null 2> " .. quote(log)))
    if ok and readable(report) then return true end
    local f = io.open(log, "r")
    local why = f and f:read("*a") or ""
    if f then f:close() end
    return false, "tapo failed: " .. (why ~= "" and why or "no message")
end

-- The TAPO plugin's current preferences, where this Wireshark's Lua can
-- read them (get_preference); else none (tapo's defaults, as the plugin's).
function M.plugin_prefs()
    local prefs = {}
    if type(get_preference) ~= "function" then return prefs end
    for _, name in ipairs(M.PREFS) do
        local ok, value = pcall(get_preference, "tapo." .. name)
        if ok and value ~= nil then prefs[#prefs + 1] = string.format("tapo.%s:%s", name, tostring(value)) end
    end
    return prefs
end

-- Writes every packet of the open capture to path (pcap, in the first
-- packet's link type: Dumper.new_for_current; a pcapng Dumper fails on
-- Wireshark 4.0), through a retap: true, or false and why.
function M.dump_open_capture(path)
    local dumper, failed = nil, 0
    local tap = Listener.new("frame")
    function tap.packet()
        dumper = dumper or Dumper.new_for_current(path)
        if not pcall(dumper.dump_current, dumper) then failed = failed + 1 end
    end
    local ok, err = pcall(retap_packets)
    tap:remove()
    if dumper then dumper:close() end
    if not ok then return false, err end
    if not dumper then return false, "the capture has no packets" end
    if failed > 0 then
        return false, string.format("%d packets could not be copied (a capture of several link types?): " ..
                                    "run tapo --html on the file itself", failed)
    end
    return true
end

-- Opens the report: with $TAPO_BROWSER (a command) when set, else
-- Wireshark's own way to open a URL (the desktop's browser).
local function open_report(path)
    local browser = os.getenv("TAPO_BROWSER")
    if browser and browser ~= "" then
        os.execute(browser .. " " .. quote(path) .. " > /dev/null 2>&1 &")
    else
        browser_open_url("file://" .. path)
    end
end

-- The menu's action: the report of the open capture, in the browser.
function M.report_open_capture()
    local p = M.paths()
    local ok, why = M.dump_open_capture(p.capture)
    if ok then ok, why = M.write(p.capture, p.report, p.log, M.plugin_prefs()) end
    os.remove(p.capture)
    local window = TextWindow.new("TAPO HTML report")
    if not ok then
        window:set("The HTML report could not be made: " .. tostring(why))
        return
    end
    window:set("The incident report of this capture is in\n  " .. p.report ..
               "\nand opens in your browser (it needs no network: mail it, attach it to a ticket).")
    window:add_button("Open it again", function() open_report(p.report) end)
    open_report(p.report)
end

return M
