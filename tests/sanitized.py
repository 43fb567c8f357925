"""tshark with the plugin built under AddressSanitizer and UBSan.

scripts/test builds it in $TAPO_SANITIZE_BUILD_DIR (cmake -DTAPO_SANITIZE=ON);
tshark itself is not instrumented, so the ASan runtime is preloaded.  A
report is the plugin's fault when its stack passes through the plugin's
code, and Wireshark's own otherwise.
"""

import os
import re
import subprocess

import tshark_runner as ts

SANITIZE_BUILD = os.environ.get("TAPO_SANITIZE_BUILD_DIR", os.path.join(ts.ROOT, "build-sanitize"))
SANITIZER_ENV = [
    "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:exitcode=86",
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87",
]
REPORT = re.compile(r"ERROR: AddressSanitizer|runtime error:|UndefinedBehaviorSanitizer")
OUR_CODE = re.compile(r"tapo\.so|/plugin/(analysis|epan)/")


def plugin_dir():
    built = os.path.join(SANITIZE_BUILD, "plugins")
    if not os.path.isdir(built):
        return None
    subprocess.run(["chmod", "-R", "a+rX", built], check=True)
    return built


def available():
    return plugin_dir() is not None


def libasan():
    return subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True,
                          text=True).stdout.strip()


def run(args, timeout=600):
    """Runs tshark with the sanitized plugin; returns the completed process."""
    argv = ts.command(args, plugin_dir_override=plugin_dir())
    i = argv.index("tshark")
    argv[i:i] = ["LD_PRELOAD=" + libasan()] + SANITIZER_ENV
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


def verdict(proc):
    """'ok', or whose fault a crash or sanitizer report is: 'plugin' or
    'wireshark' (then the caller may confirm by running without TAPO)."""
    report = REPORT.search(proc.stderr) is not None
    crashed = proc.returncode < 0 or proc.returncode in (86, 87) or proc.returncode > 128
    if not report and not crashed and "Dissector bug" not in proc.stdout + proc.stderr:
        return "ok"
    return "plugin" if OUR_CODE.search(proc.stderr) or "TAPO" in proc.stderr else "wireshark"
