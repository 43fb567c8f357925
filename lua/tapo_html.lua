-- tapo_html.lua: Tools > TAPO > HTML incident report: the batch analyser's
-- report (tapo --html, docs/batch.md "The HTML report") of the capture open
-- in Wireshark, opened in the browser: the same page `tapo --html` writes
-- for that file, named after it.
--
-- Wireshark's Lua cannot name the file it has open; the TAPO C plugin
-- can, and puts its path in the environment variable TAPO_CAPTURE_FILE of
-- the Wireshark process (plugin/packet-tapo.h).  tapo reads that file
-- itself (every format and link type Wireshark reads), with the plugin's
-- current preferences; the report goes to TMPDIR (or /tmp) as
-- <capture>-tapo-report.html, and nothing else is left there.  $TAPO_BIN
-- names the tapo command, $TAPO_BROWSER the command that opens the report
-- (default: the desktop's browser).
-- Loaded by tapo_flows.lua; on its own (Wireshark loads every .lua of the
-- folder) it only returns its table.
--
-- SPDX-License-Identifier: GPL-2.0-or-later

local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
local policy = dofile(here .. "tapo_policy.lua")

local M = {}

-- The variable the C plugin sets (TAPO_CAPTURE_FILE_ENV).
M.CAPTURE_ENV = "TAPO_CAPTURE_FILE"

-- The TAPO plugin's preferences, every one of which tapo takes
-- (-o tapo.NAME:VALUE): their names, from the plugin's table.
M.PREFS = {}
for i, pref in ipairs(policy.PREFS) do M.PREFS[i] = pref.name end

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

-- The capture open in Wireshark, as the C plugin named it; nil when none
-- is open (or the C plugin is not loaded).
function M.open_capture()
    local path = os.getenv(M.CAPTURE_ENV)
    if path and path ~= "" then return path end
    return nil
end

-- The report's path for a capture: "<TMPDIR>/<its name less its
-- extension>-tapo-report.html" (a report made again replaces it).
function M.report_path(capture)
    local dir = os.getenv("TMPDIR")
    if not dir or dir == "" then dir = "/tmp" end
    local name = capture:match("([^/]+)$") or capture
    local stem = name:match("^(.+)%.[%w]+$") or name
    return dir .. "/" .. stem .. "-tapo-report.html"
end

-- tapo --html report capture, with prefs ({"tapo.tau:3", ...}): true or
-- false, and what tapo said (its standard error and output).
function M.write(capture, report, prefs)
    local tapo = M.find_tapo()
    if not tapo then
        return false, "the tapo command was not found (scripts/setup installs it; or set TAPO_BIN)"
    end
    local cmd = { quote(tapo), "--quiet", "--html", quote(report) }
    for _, p in ipairs(prefs or {}) do cmd[#cmd + 1] = "-o " .. quote(p) end
    cmd[#cmd + 1] = quote(capture)
    local pipe = io.popen(table.concat(cmd, " ") .. " 2>&1", "r")
    if not pipe then return false, "tapo could not be started" end
    local said = pipe:read("*a") or ""
    local a, _, code = pipe:close()
    -- Lua 5.2 and later: true, or nil, "exit", code.  Exit 2: the capture
    -- was not read to its end, the report was still written.
    local ok = a == true or code == 2
    if ok and readable(report) then return true, said end
    return false, "tapo failed" .. (said ~= "" and (": " .. said) or " (no message)")
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
    local window = TextWindow.new("TAPO HTML report")
    local capture = M.open_capture()
    if not capture then
        window:set("No capture file to report on: open one first (the TAPO C plugin names it to the " ..
                   "companion; tshark -G plugins lists tapo.so when it is loaded).")
        return
    end
    local report = M.report_path(capture)
    local ok, said = M.write(capture, report, M.plugin_prefs())
    if not ok then
        window:set("The HTML report of\n  " .. capture .. "\ncould not be made: " .. tostring(said))
        return
    end
    window:set("The incident report of\n  " .. capture .. "\nis in\n  " .. report ..
               "\nand opens in your browser (it needs no network: mail it, attach it to a ticket)." ..
               (said ~= "" and ("\n\ntapo said:\n" .. said) or ""))
    window:add_button("Open it again", function() open_report(report) end)
    open_report(report)
end

return M
