#!/usr/bin/env python3
"""Runs the test modules (tests/test_*.py) side by side, each in its own
process, and reports every module's result and time.

    tests/run_modules.py [-j JOBS] [MODULE...]     (default: every module, JOBS = CPUs)

Every module's output (unittest -v: every test's result) is printed whole
when the module ends, so outputs never interleave; a summary follows, and
the exit status is non-zero when any module failed.

Modules that need a resource only one of them may use at a time take a lock
on it, shared with every other run on the machine:
- "lab": network namespaces and the impairment lab, whose timings a second
  lab beside it would disturb (a module naming test_lab_replay.POSSIBLE,
  netlab or "netns");
- "display": Xvfb and the Wireshark GUI (a module naming gui_screenshots
  or Xvfb).
The locks are TAPO_LOCK_DIR/tapo-lab.lock and tapo-gui.lock (default
/tmp, where the team's manual runs take them too).  A worker waiting for a
lock runs another module meanwhile.  The lab's endpoints must get the CPU
when their packets come (a server that waits for it looks like a
resource-constraint stall), and the GUI its screenshots in time: while a
module that needs a resource runs, the others run at a lower priority
(nice NICE_OTHERS, each module in a process group of its own), using what
it leaves.

The modules share one tshark cache (tshark_cache.py) for the run: a
folder made here unless TAPO_TSHARK_CACHE names one.  Modules start
longest first, by the times of the last run (kept in
TAPO_BUILD_DIR/test-module-times.json) or, without one, by KNOWN_ORDER.
"""

import argparse
import fcntl
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.environ.get("TAPO_BUILD_DIR", os.path.join(ROOT, "build"))
TIMES = os.path.join(BUILD, "test-module-times.json")
LOCK_DIR = os.environ.get("TAPO_LOCK_DIR", "/tmp")
LOCK_FILES = {"lab": "tapo-lab.lock", "display": "tapo-gui.lock"}
NEEDS = {
    "lab": re.compile(r"test_lab_replay\.POSSIBLE|\bnetlab\b|\"netns\""),
    "display": re.compile(r"\bgui_screenshots\b|\bXvfb\b"),
}
NICE_OTHERS = 10
# The slowest modules first when no earlier run was timed (a clean clone),
# seconds measured on two cores; the others follow in name order.
KNOWN_ORDER = {}


def needs(module):
    with open(os.path.join(HERE, module + ".py")) as f:
        text = f.read()
    return {name for name, pattern in NEEDS.items() if pattern.search(text)}


def past_times():
    try:
        with open(TIMES) as f:
            return {k: float(v) for k, v in json.load(f).items()}
    except (OSError, ValueError):
        return {}


class Job:
    def __init__(self, module, log_dir):
        self.module = module
        self.needs = needs(module)
        self.log_path = os.path.join(log_dir, module + ".log")
        self.proc = self.log = None
        self.locks = []
        self.started = self.seconds = None

    def try_lock(self):
        """Takes every lock the module needs, or none."""
        for name in sorted(self.needs):
            f = open(os.path.join(LOCK_DIR, LOCK_FILES[name]), "a")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.close()
                self.unlock()
                return False
            self.locks.append(f)
        return True

    def unlock(self):
        for f in self.locks:
            f.close()
        self.locks = []

    def start(self):
        self.log = open(self.log_path, "w")
        self.started = time.monotonic()
        self.proc = subprocess.Popen([sys.executable, "-m", "unittest", "-v", self.module], cwd=HERE,
                                     stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True)
        self.nice = 0

    def renice(self, nice):
        """Sets the priority of the module's processes (raising it back
        needs root: otherwise it stays lowered)."""
        if nice != self.nice and self.proc.poll() is None:
            try:
                os.setpriority(os.PRIO_PGRP, self.proc.pid, nice)
                self.nice = nice
            except OSError:
                pass

    def done(self):
        if self.proc.poll() is None:
            return False
        self.seconds = time.monotonic() - self.started
        self.log.close()
        self.unlock()
        return True

    def output(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def summary(self):
        """(passed?, tests run, what unittest's last line said)."""
        text = self.output()
        ran = re.findall(r"^Ran (\d+) tests? in", text, re.M)
        last = [l for l in text.splitlines() if re.match(r"^(OK|FAILED)\b", l)]
        return self.proc.returncode == 0, int(ran[-1]) if ran else 0, last[-1] if last else "no result"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-j", "--jobs", type=int, default=int(os.environ.get("TAPO_TEST_JOBS", 0)) or os.cpu_count())
    parser.add_argument("modules", nargs="*")
    args = parser.parse_args()
    modules = args.modules or sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(HERE, "test_*.py")))
    times = dict(KNOWN_ORDER, **past_times())
    modules.sort(key=lambda m: -times.get(m, 0.0))

    own_cache = None
    if not os.environ.get("TAPO_TSHARK_CACHE"):
        own_cache = tempfile.mkdtemp(prefix="tapo-tshark-cache-")
        os.environ["TAPO_TSHARK_CACHE"] = own_cache
    log_dir = tempfile.mkdtemp(prefix="tapo-test-logs-")
    pending = [Job(m, log_dir) for m in modules]
    running, finished = [], []
    began = time.monotonic()
    print("%d modules, %d at a time" % (len(pending), args.jobs), flush=True)
    try:
        while pending or running:
            for job in [j for j in running if j.done()]:
                running.remove(job)
                finished.append(job)
                ok, ran, said = job.summary()
                sys.stdout.write("\n==== %s: %s, %d tests, %.0f s (%s)\n" % (
                    job.module, "passed" if ok else "FAILED", ran, job.seconds, said))
                sys.stdout.write(job.output())
                sys.stdout.flush()
            while pending and len(running) < args.jobs:
                ready = next((j for j in pending if j.try_lock()), None)
                if ready is None:
                    break
                pending.remove(ready)
                ready.start()
                running.append(ready)
            favoured = any(j.needs for j in running)
            for job in running:
                job.renice(NICE_OTHERS if favoured and not job.needs else 0)
            time.sleep(0.2)
    finally:
        for job in running:
            os.killpg(job.proc.pid, 9)
        if own_cache:
            shutil.rmtree(own_cache, ignore_errors=True)
    wall = time.monotonic() - began

    print("\n==== summary: modules by time (%d at a time, %.0f s in all)" % (args.jobs, wall))
    failed, total = [], 0
    for job in sorted(finished, key=lambda j: -j.seconds):
        ok, ran, said = job.summary()
        total += ran
        if not ok:
            failed.append(job.module)
        print("  %-24s %-7s %4d tests %7.1f s  %s" % (job.module, "ok" if ok else "FAILED", ran, job.seconds, said))
    print("Ran %d tests in %d modules in %.0f s: %s" % (
        total, len(finished), wall, "FAILED: " + " ".join(failed) if failed else "all passed"))
    # The real captures are read in place; without them their tests skip,
    # which a green line must not hide.
    real = os.environ.get("TAPO_REAL_CAPTURES", os.path.join(os.path.dirname(ROOT), "shared", "real-captures"))
    if not os.path.isdir(real):
        print("WARNING: %s is missing: every test on the shared real captures (the verdict set, the audit, "
              "plugin against tapo) was skipped" % real)
    try:
        kept = dict(past_times(), **{j.module: round(j.seconds, 1) for j in finished})
        with open(TIMES, "w") as f:
            json.dump(kept, f, indent=1, sort_keys=True)
    except OSError:
        pass
    shutil.rmtree(log_dir, ignore_errors=True)
    return 1 if failed or len(finished) != len(modules) else 0


if __name__ == "__main__":
    sys.exit(main())
