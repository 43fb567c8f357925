"""Hostile traffic against a long-running tapo (issue 29).

For over a minute, tests/hostile_traffic.py sends as fast as it can on one
end of a veth pair (in a namespace of its own) a SYN flood, a port scan
with its resets, one-packet connections (IPv4 and IPv6) and random frames,
while `tapo -i` on the other end runs with --memory-limit and --metrics.
Halfway through, tapo is stopped for a second (SIGSTOP), so that its
kernel buffer overflows for certain.  Then:

- its resident memory, sampled four times a second, and its peak (VmHWM)
  stayed under the cap;
- the endpoint answered every scrape in time, and promtool accepts it;
- evictions were counted (millions of connections for a cap of thousands),
  and every frame sent is either one tapo read or one the kernel or the
  interface dropped, as its metrics count them;
- it ends on SIGTERM, writing out what it holds.

Needs root and network namespaces; run it under `flock /tmp/tapo-lab.lock`."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
import unittest

import monitor
import test_lab_replay
import tshark_runner as ts

NS = "tapo-hostile-%d" % os.getpid()   # this run's own (two runs on one machine)
CAP_MIB = 64
SECONDS = 62                          # of traffic: at least a minute
STOP_AT_S, STOP_FOR_S = 30, 1.0       # tapo is stopped then, for that long
PORT = 9977
GENERATOR = os.path.join(ts.ROOT, "tests", "hostile_traffic.py")


def in_ns(argv, **kw):
    return subprocess.run(["ip", "netns", "exec", NS] + argv, **kw)


def vm(pid, field):
    """A VmRSS-like field of /proc/PID/status, bytes."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


@unittest.skipUnless(test_lab_replay.POSSIBLE, test_lab_replay.WHY_NOT)
class HostileTraffic(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            cls.traffic()
        except BaseException:
            cls.tearDownClass()   # unittest does not when setUpClass fails
            raise

    @classmethod
    def traffic(cls):
        cls.tapo = None
        subprocess.run(["ip", "netns", "del", NS], stderr=subprocess.DEVNULL, check=False)
        subprocess.run(["ip", "netns", "add", NS], check=True)
        for cmd in (["ip", "link", "add", "h0", "type", "veth", "peer", "name", "h1"],
                    ["sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1",
                     "net.ipv6.conf.default.disable_ipv6=1"],   # no neighbour discovery of its own
                    ["ip", "link", "set", "lo", "up"], ["ip", "link", "set", "h0", "up"],
                    ["ip", "link", "set", "h1", "up"]):
            in_ns(cmd, check=True)
        cls.tapo = monitor.Run(["-q", "-i", "h1", "--metrics", "127.0.0.1:%d" % PORT, "--memory-limit", str(CAP_MIB),
                                "-B", "1024", "-w", os.devnull, "--interval", "10"],
                               wrap=["ip", "netns", "exec", NS])
        cls.pid = cls.tapo.proc.pid
        cls.tapo.wait_url()
        cls.resident, cls.scrapes, cls.texts = [], [], []
        done = threading.Event()
        sampler = threading.Thread(target=cls.sample, args=(done,), daemon=True)
        sampler.start()
        generator = subprocess.Popen(["ip", "netns", "exec", NS, sys.executable, GENERATOR, "h0", str(SECONDS)],
                                     stdout=subprocess.PIPE, text=True)
        started = time.monotonic()
        stopped = False
        while generator.poll() is None:
            if not stopped and time.monotonic() - started > STOP_AT_S:
                os.kill(cls.pid, signal.SIGSTOP)
                time.sleep(STOP_FOR_S)
                os.kill(cls.pid, signal.SIGCONT)
                stopped = True
            cls.scrape()
            time.sleep(2)
        with generator.stdout:
            cls.sent = json.loads(generator.stdout.read())
        # What tapo read, and what it missed, add up to what was sent once it caught up.
        end = time.monotonic() + 60
        while True:
            s = monitor.parse_metrics(cls.scrape())
            seen = sum(monitor.total(s, n) for n in ("tapo_packets_total", "tapo_kernel_dropped_packets_total",
                                                     "tapo_interface_dropped_packets_total"))
            if seen >= cls.sent["frames"] or time.monotonic() > end:
                break
            time.sleep(1)
        cls.final = s
        done.set()
        sampler.join()
        cls.peak = vm(cls.pid, "VmHWM")
        cls.status = cls.tapo.finish(signal.SIGTERM, timeout=120)
        f = cls.final
        sys.stderr.write("\nhostile traffic: %d frames in %.0f s (%s); tapo read %d, the kernel dropped %d; %d connections, "
                         "%d evicted; peak resident memory %.1f MiB (cap %d MiB); %d scrapes, the slowest %.2f s\n" % (
                             cls.sent["frames"], cls.sent["seconds"], cls.sent["sent"],
                             monitor.total(f, "tapo_packets_total"), monitor.total(f, "tapo_kernel_dropped_packets_total"),
                             monitor.total(f, "tapo_connections_total"), monitor.total(f, "tapo_connections_evicted_total"),
                             cls.peak / 2**20, CAP_MIB, len(cls.scrapes), max(t for _, t in cls.scrapes)))

    @classmethod
    def tearDownClass(cls):
        if cls.tapo and cls.tapo.proc.poll() is None:
            cls.tapo.proc.kill()
        subprocess.run(["ip", "netns", "del", NS], check=False)

    @classmethod
    def sample(cls, done):
        while not done.is_set():
            cls.resident.append(vm(cls.pid, "VmRSS"))
            time.sleep(0.25)

    @classmethod
    def scrape(cls):
        started = time.monotonic()
        p = in_ns(["curl", "-s", "-m", "10", "-w", "\n%{http_code}", "http://127.0.0.1:%d/metrics" % PORT],
                  capture_output=True, text=True)
        text, _, code = p.stdout.rpartition("\n")
        cls.scrapes.append((code, time.monotonic() - started))
        cls.texts.append(text)
        return text

    def test_memory_stays_under_the_cap(self):
        cap = CAP_MIB << 20
        self.assertGreater(len(self.resident), 4 * SECONDS * 0.8)
        self.assertLess(max(self.resident), cap, "resident memory %.1f MiB" % (max(self.resident) / 2**20))
        self.assertLess(self.peak, cap, "peak resident memory %.1f MiB" % (self.peak / 2**20))
        self.assertEqual(monitor.total(self.final, "tapo_memory_limit_bytes"), cap)

    def test_the_endpoint_answers(self):
        self.assertGreater(len(self.scrapes), SECONDS // 3)
        for code, took in self.scrapes:
            self.assertEqual(code, "200")
            self.assertLess(took, 5.0)
        status, said = monitor.promtool_check(self.texts[-1])
        self.assertEqual((status, said), (0, ""))

    def test_evictions_and_drops_are_counted(self):
        s = self.final
        self.assertGreater(monitor.total(s, "tapo_connections_total"), 1_000_000)
        self.assertGreater(monitor.total(s, "tapo_connections_evicted_total"), 900_000)
        self.assertLess(monitor.total(s, "tapo_connections_open"), 100_000)
        self.assertGreater(monitor.total(s, "tapo_undecodable_packets_total"), 0)
        kernel = monitor.total(s, "tapo_kernel_dropped_packets_total")
        self.assertGreater(kernel, 0, "tapo was stopped for a second: its buffer overflowed")
        read = monitor.total(s, "tapo_packets_total")
        interface = monitor.total(s, "tapo_interface_dropped_packets_total")
        self.assertEqual(read + kernel + interface, self.sent["frames"], self.sent)
        for kind, n in self.sent["sent"].items():
            self.assertGreater(n, 10_000, kind)

    def test_it_ends_on_sigterm(self):
        self.assertEqual(self.status, 0, self.tapo.stderr[-3000:])
        self.assertIn("connections evicted", self.tapo.stderr)
        self.assertIn("written out early", self.tapo.stderr)


if __name__ == "__main__":
    unittest.main()
