"""What an operator reads (issue 19): the phase of each stall, the client
and the server named, hints in plain words that name a machine, one
vocabulary in the Lua report and the batch analyser's flows, a profile
whose buttons filter what their labels say, and TAPO's expert entries in
`tshark -z expert` without anything else asking for TAPO.
"""

import csv
import glob
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import operator_captures
import trust_captures
import tshark_runner as ts

CAPTURES = os.path.join(ts.ROOT, "test-captures")
PROFILE = os.path.join(ts.ROOT, "profiles", "TAPO")
FIELDS = ["frame.number", "tapo.stall.cause", "tapo.stall.category", "tapo.stall.phase",
          "tapo.stall.retransmission", "tapo.stall.confidence", "tapo.stall.hint", "tapo.client",
          "tapo.server", "tapo.sender.port", "tcp.srcport"]


def batch(*args):
    proc = subprocess.run([os.path.join(ts.BUILD, "tapo")] + list(args), capture_output=True, text=True)
    if proc.returncode not in (0, 2):
        raise RuntimeError("tapo %s: %s" % (args, proc.stderr))
    return proc.stdout


def stalls(path, two_pass=True):
    return [dict(zip(FIELDS, r)) for r in ts.stall_fields(path, FIELDS, two_pass=two_pass)]


class Built(unittest.TestCase):
    """The captures of operator_captures and trust_captures, written once."""

    @classmethod
    def setUpClass(cls):
        cls.dir = ts.work_dir("tapo-operator-")
        cls.paths = {n: operator_captures.write(cls.dir, n) for n in operator_captures.CAPTURES}
        for n in ("p13_idle_close", "p13_reset_after_retries", "p06_lost_request"):
            cls.paths[n] = trust_captures.write(cls.dir, n)
        for p in cls.paths.values():
            os.chmod(p, 0o644)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)


class Phases(Built):
    def test_unanswered_syns_are_the_handshake(self):
        rows = stalls(self.paths["syn_unanswered"])
        self.assertEqual(len(rows), 3)
        for r in rows:
            self.assertEqual(r["tapo.stall.phase"], "handshake")
            self.assertEqual(r["tapo.stall.cause"], "undetermined")
            self.assertIn("got no answer to its SYN", r["tapo.stall.hint"])
            self.assertIn("the server 10.0.0.1:80", r["tapo.stall.hint"])
            self.assertNotEqual(r["tapo.stall.confidence"], "low")

    def test_a_fin_retried_is_the_teardown(self):
        rows = stalls(self.paths["fin_retried"])
        self.assertEqual([(r["tapo.stall.phase"], r["tapo.stall.cause"]) for r in rows],
                         [("teardown", "tail"), ("teardown", "t-double"), ("teardown", "t-double")])
        self.assertIn("resent its FIN", rows[0]["tapo.stall.hint"])

    def test_an_idle_close_and_an_abort_are_the_teardown(self):
        idle, = stalls(self.paths["p13_idle_close"])
        self.assertEqual((idle["tapo.stall.phase"], idle["tapo.stall.cause"]), ("teardown", "client-idle"))
        *retries, abort = stalls(self.paths["p13_reset_after_retries"])
        self.assertEqual({r["tapo.stall.phase"] for r in retries}, {"data"})
        self.assertEqual(abort["tapo.stall.phase"], "teardown")

    def test_phases_are_counted_apart(self):
        paths = [self.paths[n] for n in ("syn_unanswered", "fin_retried", "p13_idle_close")]
        want = {"handshake": 3, "teardown": 4}
        # The statistics tree.
        for path in paths:
            tree = ts.run(["-2", "-q", "-z", "tapo,tree", "-r", path]).stdout
            self.assertIn("Stalls by phase", tree)
        tree = ts.run(["-2", "-q", "-z", "tapo,tree", "-r", self.paths["fin_retried"]]).stdout
        self.assertRegex(tree, r"\n teardown\s+3\s")
        # The batch report.
        report = json.loads(batch("-q", "--report", "json", *paths))
        node = next(n for n in report["breakdown"]["children"] if n["name"] == "Stalls by phase")
        self.assertEqual({c["name"]: c["total"] for c in node["children"]}, want)
        # The Lua report, per flow.
        lua = {}
        for path in paths:
            data = json.loads(ts.run(["-2", "-q", "-X", "lua_script:" + ts.lua_script(), "-X",
                                      "lua_script1:format=json", "-r", path]).stdout)
            for f in data["flows"]:
                for phase, n in f["stalls_by_phase"].items():
                    lua[phase] = lua.get(phase, 0) + n
        self.assertEqual({k: v for k, v in lua.items() if k != "data" and v}, want)


class Roles(Built):
    def test_client_and_server_without_a_handshake(self):
        for name, client, server in (("midstream_download", "10.0.0.2:51000", "10.0.0.1:443"),
                                     ("midstream_upload", "10.0.0.2:51000", "10.0.0.1:22"),
                                     ("midstream_request_response", "10.0.0.2:40000", "10.0.0.1:8080")):
            with self.subTest(capture=name):
                rows = stalls(self.paths[name])
                self.assertTrue(rows)
                for r in rows:
                    self.assertEqual((r["tapo.client"], r["tapo.server"]), (client, server))
                # The hint names the sender by its role: the client of an upload.
                sender = "the client " + client if name == "midstream_upload" else "the server " + server
                self.assertIn(sender, rows[0]["tapo.stall.hint"].lower().replace("the application on ", ""))

    def test_the_lost_request_is_the_clients(self):
        rows = stalls(self.paths["p06_lost_request"])
        retries = [r for r in rows if r["tapo.stall.cause"] in ("tail", "t-double")]
        self.assertTrue(retries)
        for r in retries:
            self.assertTrue(r["tapo.stall.hint"].startswith("The client " + r["tapo.client"]), r["tapo.stall.hint"])

    def test_batch_rows_carry_the_packets_own_addresses(self):
        rows = list(csv.DictReader(io.StringIO(batch("-q", self.paths["fin_retried"]))))
        self.assertTrue(rows)
        for r in rows:
            # The server's FIN: from the server, to the client; the sender apart.
            self.assertEqual((r["src"], r["srcport"], r["dst"]), ("10.0.0.1", "80", "10.0.0.2"))
            self.assertEqual(r["sender"], "10.0.0.1:80")
        client_rows = [r for r in csv.DictReader(io.StringIO(batch("-q", os.path.join(CAPTURES, "client-idle.pcap"))))
                       if r["tapo.stall.pkt_dir"] == "in"]
        self.assertTrue(client_rows)
        for r in client_rows:
            self.assertEqual(r["src"] + ":" + r["srcport"], r["tapo.client"])
            self.assertEqual(r["sender"], r["tapo.server"])


class Hints(Built):
    # What an operator cannot turn on or look up.
    JARGON = re.compile(r"S-RTO|Eifel|\bTLP\b|F-RTO|spec\b|section \d|paper|Table \d|dupthres|\{")
    MACHINE = re.compile(r"the (server|client) [0-9a-f.:\[\]]+:\d+|the path", re.I)

    def test_every_hint_names_a_machine_in_plain_words(self):
        paths = sorted(glob.glob(os.path.join(CAPTURES, "*.pcap")) + glob.glob(os.path.join(CAPTURES, "vantage", "*.pcap")))
        paths += list(self.paths.values())
        seen = set()
        for path in paths:
            for r in stalls(path):
                hint = r["tapo.stall.hint"]
                seen.add(r["tapo.stall.cause"])
                self.assertRegex(hint, self.MACHINE, "%s frame %s" % (path, r["frame.number"]))
                self.assertNotRegex(hint, self.JARGON, "%s frame %s" % (path, r["frame.number"]))
        self.assertGreaterEqual(len(seen), 12)

    def test_field_descriptions_need_no_spec(self):
        out = ts.run(["-G", "fields"]).stdout
        for line in out.splitlines():
            cols = line.split("\t")
            if len(cols) > 2 and cols[2].startswith("tapo"):
                self.assertNotRegex(cols[-1], r"spec\b|section \d", cols[2])


class OneVocabulary(unittest.TestCase):
    """The Lua report and tapo --flows name the same things the same way
    and agree field by field (docs/lua-companion.md, "One vocabulary")."""

    FLOATS = {"start_s", "duration_s", "stalled_time_s", "stall_ratio", "dominant_cause_time_s"}

    def test_lua_report_and_batch_flows_agree(self):
        tmp = tempfile.mkdtemp(prefix="tapo-vocab-")
        try:
            for pcap in sorted(glob.glob(os.path.join(CAPTURES, "*.pcap"))):
                with self.subTest(capture=os.path.basename(pcap)):
                    lua = list(csv.DictReader(io.StringIO(ts.run(
                        ["-2", "-q", "-X", "lua_script:" + ts.lua_script(), "-X", "lua_script1:format=csv",
                         "-X", "lua_script1:limit=0", "-r", ts.readable(pcap)]).stdout)))
                    flows = os.path.join(tmp, "flows.csv")
                    batch("-q", "--flows", flows, "-F", "csv", "--stalls", os.devnull, pcap)
                    with open(flows) as f:
                        rows = list(csv.DictReader(f))
                    self.assertEqual(list(lua[0].keys())[1:] if lua else [], list(rows[0].keys())[1:] if lua else [])
                    by_frame = {r["first_frame"]: r for r in rows}
                    self.assertEqual(sorted(by_frame), sorted(r["first_frame"] for r in lua))
                    for l in lua:
                        b = by_frame[l["first_frame"]]
                        for k in list(l.keys())[1:]:
                            if k in self.FLOATS:
                                self.assertAlmostEqual(float(l[k]), float(b[k]), delta=2e-6, msg=k)
                            else:
                                self.assertEqual(l[k], b[k], k)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_ratio_quantiles_agree(self):
        # The Lua report covers one file: compare on one.
        mixed = os.path.join(CAPTURES, "mixed-web.pcap")
        lua = json.loads(ts.run(["-2", "-q", "-X", "lua_script:" + ts.lua_script(), "-X",
                                 "lua_script1:format=json", "-r", ts.readable(mixed)]).stdout)
        report = json.loads(batch("-q", "--report", "json", mixed))
        want = {q["percent"]: round(q["stall_ratio"], 6) for q in lua["summary"]["stall_ratio_quantiles"]}
        got = {int(k[1:]): round(v, 6) for k, v in report["stall_ratio_quantiles"].items()}
        self.assertEqual(got, want)


class Profile(unittest.TestCase):
    """Each filter button filters what its label says, judged from the
    stalls' own fields."""

    MEANING = {
        "Stalls": lambda r: True,
        "Network": lambda r: r["tapo.stall.category"] == "network",
        "Server": lambda r: r["tapo.stall.category"] == "server",
        "Client": lambda r: r["tapo.stall.category"] == "client",
        "Unknown": lambda r: r["tapo.stall.category"] == "unknown",
        "Timeouts": lambda r: ts.normalise_bool(r["tapo.stall.retransmission"]),
        "Unsure": lambda r: r["tapo.stall.confidence"] == "low",
        "Handshake": lambda r: r["tapo.stall.phase"] == "handshake",
        "Teardown": lambda r: r["tapo.stall.phase"] == "teardown",
    }

    def buttons(self):
        with open(os.path.join(PROFILE, "dfilter_buttons")) as f:
            rows = [r for r in csv.reader(l for l in f if not l.startswith("#"))]
        return [(label, flt.replace("\\x22", '"')) for _, label, flt, _ in rows]

    def test_every_button_filters_what_it_says(self):
        buttons = self.buttons()
        self.assertEqual(sorted(label for label, _ in buttons), sorted(self.MEANING))
        for name in ("mixed-web", "mixed-bufferbloat", "syn-retry", "zero-window", "undetermined", "ack-delay"):
            pcap = os.path.join(CAPTURES, name + ".pcap")
            rows = stalls(pcap)
            for label, flt in buttons:
                with self.subTest(capture=name, button=label):
                    got = ts.run(["-2", "-r", ts.readable(pcap), "-Y", flt, "-T", "fields", "-e", "frame.number"]).stdout.split()
                    want = [r["frame.number"] for r in rows if self.MEANING[label](r)]
                    self.assertEqual(got, want)

    def test_io_graph_colours_tell_causes_apart(self):
        colours = []
        with open(os.path.join(PROFILE, "io_graphs")) as f:
            for line in f:
                m = re.search(r'"#([0-9A-Fa-f]{6})"', line)
                if m:
                    colours.append(tuple(int(m.group(1)[i:i + 2], 16) for i in (0, 2, 4)))
        self.assertEqual(len(colours), 14)
        for i, a in enumerate(colours):
            for b in colours[i + 1:]:
                # Euclidean RGB distance: near-identical shades are < 40.
                self.assertGreater(sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5, 60)

    def test_columns_fit_their_data(self):
        with open(os.path.join(PROFILE, "recent")) as f:
            widths = dict(re.findall(r"^\t(%\S+?), (\d+)", f.read(), re.M))
        # Eight pixels a character in Debian 12's packet-list font (DejaVu
        # Sans Mono 10; test_gui checks IPv6 addresses on the screen): six
        # digits, an IPv6 address of 39 characters, "resource-constraint",
        # nine decimals of seconds.
        self.assertGreaterEqual(int(widths["%m"]), 6 * 8 + 20)
        self.assertGreaterEqual(int(widths["%s"]), 39 * 8)
        self.assertGreaterEqual(int(widths["%d"]), 39 * 8)
        self.assertGreaterEqual(int(widths["%Cus:tapo.stall.cause"]), len("resource-constraint") * 8)
        self.assertGreaterEqual(int(widths["%Cus:tapo.stall.duration"]), len("0.500486000") * 8)
        # The Info column starts within a 1600-pixel window, with room.
        before_info = sum(int(w) for c, w in widths.items() if c != "%i")
        self.assertLessEqual(before_info, 1600 - 300)


    def test_colours_keep_unsure_stalls_apart_from_unknown_ones(self):
        """A low-confidence stall keeps its category's colour (in grey
        text); only unknown stalls are grey rows; each category's button
        names its rows' colour, and the Timeouts button says it counts the
        retransmissions TAPO reconstructed (issue 28)."""
        rules = []
        with open(os.path.join(PROFILE, "colorfilters")) as f:
            for line in f:
                m = re.match(r"@([^@]+)@([^@]+)@\[(\d+),(\d+),(\d+)\]\[(\d+),(\d+),(\d+)\]", line)
                if m:
                    rules.append((m.group(1), m.group(2), tuple(map(int, m.group(3, 4, 5))),
                                  tuple(map(int, m.group(6, 7, 8)))))
        by_name = {name: (flt, bg, fg) for name, flt, bg, fg in rules}
        names = [name for name, _, _, _ in rules]
        for category in ("network", "server", "client"):
            low = "TAPO stall: %s, low confidence" % category
            flt, bg, fg = by_name[low]
            self.assertIn('tapo.stall.category == "%s"' % category, flt)
            self.assertIn('tapo.stall.confidence == "low"', flt)
            self.assertEqual(bg, by_name["TAPO stall: " + category][1], "the category's background")
            self.assertNotEqual(fg, by_name["TAPO stall: " + category][2], "grey text, not the category's")
            self.assertLess(names.index(low), names.index("TAPO stall: " + category), "matched first")
            self.assertNotEqual(bg, by_name["TAPO stall: unknown"][1])
        tooltips = {}
        with open(os.path.join(PROFILE, "dfilter_buttons")) as f:
            for row in csv.reader(l for l in f if not l.startswith("#")):
                tooltips[row[1]] = row[3]
        for label, colour in (("Network", "red"), ("Server", "orange"), ("Client", "blue"), ("Unknown", "grey"),
                              ("Unsure", "grey text")):
            self.assertIn(colour, tooltips[label], label)
        self.assertIn("tapo.stall.inferred", tooltips["Timeouts"])
        self.assertIn("tcp.analysis", tooltips["Timeouts"])


class ExpertWithoutCeremony(unittest.TestCase):
    def test_z_expert_lists_tapo(self):
        pcap = ts.readable(os.path.join(CAPTURES, "mixed-web.pcap"))
        out = ts.run(["-q", "-z", "expert", "-r", pcap]).stdout
        self.assertIn("TAPO stall: tail", out)
        self.assertIn("TAPO stall: data-unavailable", out)


if __name__ == "__main__":
    unittest.main()
