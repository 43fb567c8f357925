"""One table per policy (issue 26): the plugin, tapo -o and the Lua
companion take the same preferences with the same defaults; the batch
analyser's flow rows and the Lua companion's flow report agree on
constructed connections and on every capture written by others."""

import csv
import glob
import io
import os
import shutil
import subprocess
import unittest

import tshark_runner as ts

TAPO = os.path.join(ts.BUILD, "tapo")
MIXED = os.path.join(ts.ROOT, "test-captures", "mixed-web.pcap")
CASES = os.path.join(ts.ROOT, "core", "tests", "flow_cases.tsv")
LUA = shutil.which("lua5.2") or shutil.which("lua5.4")

# Every preference of the plugin, once: tapo.NAME and its default as -o
# takes it (docs/fields.md, "Preferences").
PREFERENCES = {
    "analyse": "FALSE", "tau": "2", "small_window": "4", "rto_min_ms": "200", "rto_initial_ms": "1000",
    "min_stall_ms": "10", "episode_connections": "3", "sender": "auto", "server_ports": "", "vantage": "auto",
    "rule_order": "evidence",
}


def tapo(*args, check=True):
    proc = subprocess.run([TAPO, "-q", "-j1"] + list(args), capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError("tapo %s: %s" % (" ".join(args), proc.stderr))
    return proc


def options(prefs):
    """-o tapo.NAME:VALUE for each of prefs (name -> value)."""
    args = []
    for name, value in prefs.items():
        args += ["-o", "tapo.%s:%s" % (name, value)]
    return args


def stall_causes(*extra):
    return ts.run(["-2"] + list(extra) + ["-r", ts.readable(MIXED), "-Y", "tapo.stall", "-T", "fields",
                                          "-e", "frame.number", "-e", "tapo.stall.cause"]).stdout


class Preferences(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        out = ts.run(["-G", "defaultprefs"]).stdout
        cls.written = {}   # tapo.NAME -> the default as tshark -G defaultprefs writes it
        for line in out.splitlines():
            if line.startswith("#tapo."):
                name, _, value = line[len("#tapo."):].partition(": ")
                cls.written[name] = value

    def test_the_plugin_registers_them_with_their_defaults(self):
        self.assertEqual(list(self.written), list(PREFERENCES))
        for name, value in PREFERENCES.items():
            if name not in ("sender", "vantage", "rule_order"):   # enums: written by their titles
                self.assertEqual(self.written[name], value, name)
        # Given by name, each default changes nothing.
        self.assertEqual(stall_causes(*options(PREFERENCES)), stall_causes())

    def test_tapo_takes_every_one_by_name_and_as_the_plugin_writes_it(self):
        plain = tapo(MIXED).stdout
        self.assertGreater(len(plain.splitlines()), 10)
        self.assertEqual(tapo(*options(PREFERENCES), MIXED).stdout, plain)
        self.assertEqual(tapo(*options(self.written), MIXED).stdout, plain)
        bad = tapo("-o", "tapo.no_such:1", MIXED, check=False)
        self.assertEqual(bad.returncode, 1)
        self.assertIn("tapo.no_such:1", bad.stderr)
        for wrong in ("tapo.tau:0", "tapo.episode_connections:1", "tapo.sender:server", "tapo.server_ports:80-x",
                      "tapo.analyse:maybe"):
            self.assertEqual(tapo("-o", wrong, MIXED, check=False).returncode, 1, wrong)

    def test_server_ports_choose_the_sender_as_in_the_plugin(self):
        # 58246 is a client's port: with it as a server port, that
        # connection is analysed from the client's side.
        for ports in ("8080", "58246"):
            prefs = ["-o", "tapo.sender:ports", "-o", "tapo.server_ports:" + ports]
            plugin = dict(line.split("\t") for line in ts.run(
                ["-2"] + prefs + ["-r", ts.readable(MIXED), "-Y", "tapo.stall", "-T", "fields",
                                  "-e", "frame.number", "-e", "tapo.sender.port"]).stdout.splitlines())
            rows = list(csv.DictReader(io.StringIO(tapo(*prefs, MIXED).stdout)))
            self.assertEqual({r["frame.number"]: r["sender"].rsplit(":", 1)[1] for r in rows}, plugin, ports)
        senders = {r["sender"] for r in csv.DictReader(io.StringIO(tapo(*prefs, MIXED).stdout))}
        self.assertIn("10.77.0.2:58246", senders)

    @unittest.skipUnless(LUA, "no lua5.2 (scripts/install-deps installs it)")
    def test_the_lua_companion_reads_the_same_names_and_defaults(self):
        policy = os.path.join(ts.ROOT, "lua", "tapo_policy.lua")
        table = subprocess.run([LUA, "-e", 'for _, p in ipairs(dofile(%r).PREFS) do print(p.name .. "\\t" .. '
                                'p.default) end' % policy], capture_output=True, text=True, check=True).stdout
        self.assertEqual(dict(line.split("\t") for line in table.splitlines()), PREFERENCES)
        # What the GUI's HTML report hands to tapo: the plugin's current
        # preferences, read by name through Wireshark's get_preference.
        probe = os.path.join(ts.work_dir("tapo-prefs-"), "probe.lua")
        with open(probe, "w") as f:
            f.write('local html = dofile("%s")\nfor _, p in ipairs(html.plugin_prefs()) do print(p) end\n'
                    % os.path.join(os.path.dirname(ts.lua_script()), "tapo_html.lua"))
        os.chmod(probe, 0o644)
        given = [l for l in ts.run(["-X", "lua_script:" + probe, "-r", ts.readable(MIXED), "-c", "1", "-q"]).stdout
                 .splitlines() if l.startswith("tapo.")]
        self.assertEqual([g.partition(":")[0][len("tapo."):] for g in given], list(PREFERENCES))
        for g in given:
            name, _, value = g[len("tapo."):].partition(":")
            self.assertEqual(value.lower(), PREFERENCES[name].lower(), name)
        args = [a for g in given for a in ("-o", g)]
        self.assertEqual(tapo(*args, MIXED).stdout, tapo(MIXED).stdout)


class FlowReportsAgree(unittest.TestCase):
    """The batch analyser's flow rows (C) and the Lua companion's flow
    report, column by column."""

    SECONDS = {"start_s", "duration_s", "stalled_time_s", "stall_ratio", "dominant_cause_time_s",
               "whatif_saving_s", "idle_time_s"}

    def test_constructed_cases(self):
        c = subprocess.run([os.path.join(ts.BUILD, "core", "tests", "test_flow_report"), CASES],
                           capture_output=True, text=True)
        self.assertEqual(c.returncode, 0, c.stderr)
        if LUA:
            lua = subprocess.run([LUA, os.path.join(ts.ROOT, "tests", "lua", "test_flow_cases.lua"), CASES],
                                 capture_output=True, text=True)
            self.assertEqual(lua.returncode, 0, lua.stderr)

    def test_every_shared_capture(self):
        captures = sorted(p for p in glob.glob(os.path.join(ts.REAL_CAPTURES, "*"))
                          if not p.endswith((".tsv", ".md")))
        if not captures:
            self.skipTest("no captures in " + ts.REAL_CAPTURES)
        for pcap in captures:
            with self.subTest(capture=os.path.basename(pcap)):
                lua = list(csv.DictReader(io.StringIO(ts.run(
                    ["-2", "-q", "-X", "lua_script:" + ts.lua_script(), "-X", "lua_script1:format=csv",
                     "-X", "lua_script1:limit=0", "-r", ts.readable(pcap)]).stdout)))
                rows = {r["first_frame"]: r for r in csv.DictReader(io.StringIO(
                    tapo("--stalls", os.devnull, "--flows", "-", pcap, check=False).stdout))}
                self.assertEqual(sorted(r["first_frame"] for r in lua), sorted(rows))
                for l in lua:
                    b = rows[l["first_frame"]]
                    for column in list(l)[1:]:
                        if column in self.SECONDS:
                            self.assertAlmostEqual(float(l[column]), float(b[column]),
                                                   delta=2e-6 * (1 + int(b["stalls"])), msg=column)
                        else:
                            self.assertEqual(l[column], b[column], column)


if __name__ == "__main__":
    unittest.main()
