"""tapo as a service, watched by a real Prometheus (issue 29).

A Prometheus (Debian's package) runs on the loopback with the scrape
configuration and the alert rules of docs/monitoring.md.  Each of the lab's
impairment scenarios runs on real Linux TCP with `tapo -i` on the sender's
interface and `--metrics` on an address Prometheus reaches (a veth pair
into the sender's namespace); once the traffic is over and the stalls have
settled, PromQL queries against Prometheus' HTTP API give the stalls by
cause, which must equal those of `tapo --report json` on the capture saved
in the same run.  promtool checks the rules, the dashboard's queries and a
scrape of the endpoint.

By default the scenarios run are those that together give every cause in
every category (fifteen; about two minutes); TAPO_MONITOR_SCENARIOS=all
runs every scenario the lab makes live, TAPO_MONITOR_SCENARIOS="a b" those.
Needs root, network namespaces and TUN devices (as test_lab_replay) and
prometheus; run it under `flock /tmp/tapo-lab.lock`."""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

import monitor
import test_lab_replay
import tshark_runner as ts

LAB = os.path.join(ts.ROOT, "test-captures", "lab")
sys.path.insert(0, LAB)

import lab        # noqa: E402
import netlab     # noqa: E402
import scenarios  # noqa: E402

DOC = os.path.join(ts.ROOT, "docs", "monitoring.md")
DASHBOARD = os.path.join(ts.ROOT, "docs", "tapo-grafana-dashboard.json")
METRICS_PORT = 9977                   # the documented one
# The scrapes' veth pair: this run's own devices and /30 of 10.78.0.0/16
# (the host's end is in the machine's namespace, shared by every run).
HOST_DEV, NS_DEV = netlab.own_name("tmh"), netlab.own_name("tmn")
_NET = (int(netlab.LAB_ID, 36) % 16384) * 4
HOST_SIDE, NS_SIDE = ("10.78.%d.%d" % (_NET >> 8, (_NET & 255) + i) for i in (1, 2))
SETTLE_S = 2.0                        # tapo's --settle in these runs, seconds
SCRAPE_S = 1                          # Prometheus' scrape interval here, seconds
# Every cause in every category between them (test-captures/*.expected),
# with several connections at once (mixed-web), an upload and IPv6.
DEFAULT_SCENARIOS = ("ack-delay", "continuous-loss", "large-dupthres", "resource-constraint", "small-cwnd",
                     "small-rwnd", "t-double-paper", "undetermined", "syn-retry", "zero-window", "f-double",
                     "mixed-web", "upload-tail", "ipv6-tail", "undetermined-retransmission")
ALL_CAUSES = 15                       # (cause, category) pairs of the vocabulary


def doc_block(marker):
    """The YAML block after a marker comment of docs/monitoring.md."""
    with open(DOC) as f:
        doc = f.read()
    return re.search(r"```yaml\n(.*?)```", doc[doc.index(marker):], re.S).group(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def live_scenarios():
    names = os.environ.get("TAPO_MONITOR_SCENARIOS", "").split() or DEFAULT_SCENARIOS
    return [sc for sc in scenarios.SCENARIOS if not sc.derive and (names == ["all"] or sc.name in names)]


def dashboard_rules():
    """The dashboard's queries as recording rules, for promtool."""
    with open(DASHBOARD) as f:
        dash = json.load(f)
    exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
    lines = ["groups:", "  - name: dashboard", "    rules:"]
    for i, e in enumerate(exprs):
        e = e.replace("$__rate_interval", "5m").replace('instance=~"$instance"', 'instance=~".+"')
        lines += ["      - record: tapo:panel_%d" % i, "        expr: %s" % json.dumps(e)]
    return exprs, "\n".join(lines) + "\n"


@unittest.skipUnless(test_lab_replay.POSSIBLE, test_lab_replay.WHY_NOT)
@unittest.skipUnless(shutil.which("prometheus") and shutil.which("promtool"),
                     "prometheus is missing (scripts/install-deps)")
class PrometheusWatchesTheLab(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = ts.work_dir("tapo-monitor-lab-")
        # Prometheus with the documented job, scraping the lab's tapo.
        scrape = doc_block("<!-- scrape-config")
        scrape = scrape.replace("scrape_interval: 15s", "scrape_interval: %ds" % SCRAPE_S)
        scrape = scrape.replace("'127.0.0.1:9977'", "'%s:%d'" % (NS_SIDE, METRICS_PORT))
        cls.rules = os.path.join(cls.dir, "tapo-rules.yml")
        with open(cls.rules, "w") as f:
            f.write(doc_block("<!-- alert-rules"))
        config = os.path.join(cls.dir, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  evaluation_interval: %ds\nrule_files: ['%s']\n" % (SCRAPE_S, cls.rules) + scrape)
        cls.log = open(os.path.join(cls.dir, "prometheus.log"), "w")
        cls.port = free_port()
        cls.api = "http://127.0.0.1:%d" % cls.port
        cls.prometheus = subprocess.Popen(
            ["prometheus", "--config.file=" + config, "--storage.tsdb.path=" + os.path.join(cls.dir, "tsdb"),
             "--web.listen-address=127.0.0.1:%d" % cls.port, "--storage.tsdb.retention.time=1d"],
            stdout=subprocess.DEVNULL, stderr=cls.log)
        end = time.monotonic() + 60
        while not cls.ready():
            if time.monotonic() > end or cls.prometheus.poll() is not None:
                raise RuntimeError("Prometheus did not start: " + open(os.path.join(cls.dir, "prometheus.log")).read())
            time.sleep(0.2)
        cls.runs = {}
        cls.scraped = {}
        for sc in live_scenarios():
            cls.run_scenario(sc)

    @classmethod
    def tearDownClass(cls):
        cls.prometheus.terminate()
        try:
            cls.prometheus.wait(timeout=30)
        except subprocess.TimeoutExpired:
            cls.prometheus.kill()
            cls.prometheus.wait()
        cls.log.close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    @classmethod
    def ready(cls):
        try:
            with urllib.request.urlopen(cls.api + "/-/ready", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    @classmethod
    def query(cls, promql):
        """An instant query's vector as [(labels, value)]."""
        url = cls.api + "/api/v1/query?" + urllib.parse.urlencode({"query": promql})
        with urllib.request.urlopen(url, timeout=10) as r:
            answer = json.load(r)
        assert answer["status"] == "success", answer
        return [(s["metric"], float(s["value"][1])) for s in answer["data"]["result"]]

    @classmethod
    def run_scenario(cls, sc):
        ns = netlab.SERVER_NS if sc.sender == "server" else netlab.CLIENT_NS

        def metrics_link(net):
            # A veth pair from here into the sender's namespace, for the scrapes.
            # (Removing the namespace removes the pair.)
            subprocess.run(["ip", "link", "del", HOST_DEV], stderr=subprocess.DEVNULL, check=False)
            for cmd in (["ip", "link", "add", HOST_DEV, "type", "veth", "peer", "name", NS_DEV],
                        ["ip", "link", "set", NS_DEV, "netns", ns],
                        ["ip", "addr", "add", HOST_SIDE + "/30", "dev", HOST_DEV],
                        ["ip", "link", "set", HOST_DEV, "up"],
                        ["ip", "-n", ns, "addr", "add", NS_SIDE + "/30", "dev", NS_DEV],
                        ["ip", "-n", ns, "link", "set", NS_DEV, "up"]):
                subprocess.run(cmd, check=True)

        def settled():
            # The traffic is over: every stall's row is written within the
            # settle time (the capture's clock follows the wall's when the
            # link is quiet) and a look for settled stalls; then a scrape.
            ready = time.time() + SETTLE_S + 1.0
            end = time.monotonic() + 30 + SETTLE_S
            while True:
                time.sleep(0.5)
                up = cls.query('tapo_capture_running{job="tapo"} == 1 and on() tapo_stalls_settling{job="tapo"} == 0 '
                               'and on() timestamp(tapo_stalls_settling{job="tapo"}) > %f' % ready)
                if up or time.monotonic() > end:
                    break
            cls.scraped[sc.name] = {
                "up": bool(up),
                "stalls": {(m["cause"], m["category"]): v for m, v in
                           cls.query('sum by (cause, category) (tapo_stalls_total{job="tapo"}) > 0')},
                "packets": cls.query('tapo_tcp_packets_total{job="tapo"}'),
            }
            with urllib.request.urlopen("http://%s:%d/metrics" % (NS_SIDE, METRICS_PORT), timeout=10) as r:
                cls.scraped[sc.name]["text"] = r.read().decode()

        tapo = [monitor.TAPO, "-q", "-i", "{iface}", "-f", "tcp port {port}", "--settle", str(SETTLE_S),
                "--metrics", "%s:%d" % (NS_SIDE, METRICS_PORT), "-w", os.devnull, "--interval", "0"]
        pcaps, sidecar = lab.run_live(sc, cls.dir, monitors={"tapo": tapo}, on_network=metrics_link,
                                      before_finish=settled)
        os.chmod(pcaps["sender"], 0o644)
        cls.runs[sc.name] = (pcaps["sender"], sidecar)

    def test_stalls_by_cause_equal_the_report_on_the_saved_capture(self):
        self.assertGreaterEqual(len(self.runs), 1)
        causes_seen = set()
        for name, (pcap, sidecar) in sorted(self.runs.items()):
            with self.subTest(scenario=name):
                scraped = self.scraped[name]
                m = sidecar["monitors"]["tapo"]
                self.assertEqual(m["returncode"], 0, m["stderr"])
                self.assertTrue(scraped["up"], "Prometheus never saw this run's tapo settled")
                self.assertGreater(sum(v for _, v in scraped["packets"]), 0)
                report = monitor.report_json(pcap)
                expected = monitor.report_stalls(report)
                self.assertEqual(scraped["stalls"], {k: float(v) for k, v in expected.items() if v}, m["stderr"])
                causes_seen.update(expected)
        if os.environ.get("TAPO_MONITOR_SCENARIOS", "all") == "all":
            self.assertEqual(len(causes_seen), ALL_CAUSES, causes_seen)

    def test_promtool_accepts_the_scrapes(self):
        for name, scraped in sorted(self.scraped.items()):
            with self.subTest(scenario=name):
                status, said = monitor.promtool_check(scraped["text"])
                self.assertEqual((status, said), (0, ""))
                self.assertIn("tapo_kernel_dropped_packets_total 0", scraped["text"])

    def test_promtool_checks_the_rules_and_the_dashboard(self):
        p = subprocess.run(["promtool", "check", "rules", self.rules], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("SUCCESS: 6 rules found", p.stdout)
        exprs, rules = dashboard_rules()
        path = os.path.join(self.dir, "dashboard-rules.yml")
        with open(path, "w") as f:
            f.write(rules)
        p = subprocess.run(["promtool", "check", "rules", path], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        # Every metric the rules and the dashboard read is one tapo serves.
        served = set(re.findall(r"^# TYPE (\S+) (\S+)$", next(iter(self.scraped.values()))["text"], re.M))
        names = {n for n, _ in served}
        names |= {n + s for n, kind in served if kind == "histogram" for s in ("_bucket", "_sum", "_count")}
        with open(self.rules) as f:
            used = set(re.findall(r"\b((?:tapo|process)_[a-z_]+)\b", f.read() + "\n".join(exprs)))
        self.assertEqual(used - names, set())
        # Prometheus loaded the rules it was given.
        with urllib.request.urlopen(self.api + "/api/v1/rules", timeout=10) as r:
            groups = json.load(r)["data"]["groups"]
        self.assertEqual(len(groups[0]["rules"]), 6)


if __name__ == "__main__":
    unittest.main()
