"""Helpers of the monitoring tests (issue 29): a tapo run with --metrics,
its endpoint scraped and parsed, and what tapo --report json says, to
compare with."""

import json
import os
import re
import subprocess
import threading
import time
import urllib.request

import tshark_runner as ts

TAPO = os.path.join(ts.BUILD, "tapo")
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def parse_metrics(text):
    """Prometheus' text format as {(name, ((label, value), ...)): value}."""
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, "not a sample line: %r" % line
        name, labels, value = m.groups()
        pairs = tuple(sorted((k, bytes(v, "utf-8").decode("unicode_escape"))
                             for k, v in LABEL.findall(labels or "")))
        samples[(name, pairs)] = float(value)
    return samples


def total(samples, name, **match):
    """The sum of a metric's samples whose labels include match."""
    return sum(v for (n, labels), v in samples.items()
               if n == name and all(dict(labels).get(k) == want for k, want in match.items()))


def by_labels(samples, name, *keys):
    """{(label values...): sum} of a metric, grouped by those labels, zeros left out."""
    out = {}
    for (n, labels), v in samples.items():
        if n == name and v:
            key = tuple(dict(labels).get(k) for k in keys)
            out[key] = out.get(key, 0) + v
    return out


def report_stalls(report):
    """{(cause, category): stalls} of a tapo --report json."""
    stalls = next((n for n in report["breakdown"]["children"] if n["name"] == "Stalls"), {})
    out = {}
    for category in stalls.get("children", []):
        for node in category.get("children", []):
            leaves = node["children"] if node["name"] == "timeout retransmission" else [node]
            for leaf in leaves:
                out[(leaf["name"], category["name"])] = out.get((leaf["name"], category["name"]), 0) + leaf["total"]
    return out


def report_json(*args):
    out = subprocess.run([TAPO, "-q", "--report", "json", "-w", os.devnull] + list(args),
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


class Run:
    """A tapo process with --metrics on a port of its choice: its stderr is
    read as it comes, its endpoint found there."""

    def __init__(self, argv, stdin=None, env=None, wrap=()):
        self.proc = subprocess.Popen(list(wrap) + [TAPO] + list(argv), stdin=stdin, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.err_lines = []
        self.out = []
        self.threads = [threading.Thread(target=self._pump, args=(self.proc.stderr, self.err_lines), daemon=True),
                        threading.Thread(target=self._pump, args=(self.proc.stdout, self.out), daemon=True)]
        for t in self.threads:
            t.start()
        self.url = None

    @staticmethod
    def _pump(stream, into):
        for line in stream:
            into.append(line.decode("utf-8", "replace"))

    @property
    def stderr(self):
        return "".join(self.err_lines)

    def wait_url(self, timeout=20):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            m = re.search(r"metrics at (http://\S+)", self.stderr)
            if m:
                self.url = m.group(1)
                return self.url
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError("tapo did not start its endpoint: %s" % self.stderr)

    def scrape(self, timeout=10):
        with urllib.request.urlopen(self.url or self.wait_url(), timeout=timeout) as r:
            assert r.status == 200
            assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
            return r.read().decode("utf-8")

    def wait_metrics(self, predicate, timeout=60, interval=0.2):
        """Scrapes until predicate(samples) holds; returns the text."""
        end = time.monotonic() + timeout
        while True:
            text = self.scrape()
            if predicate(parse_metrics(text)):
                return text
            if time.monotonic() > end:
                raise AssertionError("the metrics never got there: %s" % text[-2000:])
            time.sleep(interval)

    def finish(self, sig=None, timeout=60):
        if sig is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            for t in self.threads:
                t.join(timeout=10)
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if stream and not stream.closed:
                    try:
                        stream.close()
                    except BrokenPipeError:
                        pass
        return self.proc.returncode


def promtool_check(text):
    """promtool check metrics: (exit status, what it said)."""
    p = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr
