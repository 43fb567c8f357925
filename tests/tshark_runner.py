"""Runs tshark with the plugin from the build tree, as an unprivileged user.

Wireshark ignores WIRESHARK_PLUGIN_DIR and personal plugin folders when run
as root (SDK notes section 0.5), so when the tests run as root tshark is
started through runuser as TAPO_TEST_USER (default "nobody") with a private
configuration folder.
"""

import glob
import json
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import traceback

import tshark_cache

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("TAPO_BUILD_DIR", os.path.join(ROOT, "build"))
TEST_USER = os.environ.get("TAPO_TEST_USER", "nobody")
# Captures written by others, read in place (never copied into the repository).
REAL_CAPTURES = os.environ.get("TAPO_REAL_CAPTURES",
                               os.path.join(os.path.dirname(ROOT), "shared", "real-captures"))

_config_dir = None


def config_dir():
    """A private Wireshark configuration folder the test user can write."""
    global _config_dir
    if _config_dir is None:
        _config_dir = tempfile.mkdtemp(prefix="tapo-test-cfg-")
        if os.geteuid() == 0:
            pw = pwd.getpwnam(TEST_USER)
            os.chown(_config_dir, pw.pw_uid, pw.pw_gid)
        os.chmod(_config_dir, 0o755)
    return _config_dir


def work_dir(prefix):
    """A new folder under the private configuration folder that the test
    user can read (captures written for tshark)."""
    path = tempfile.mkdtemp(prefix=prefix, dir=config_dir())
    os.chmod(path, 0o755)
    return path


_plugin_copy = None


def _user_can_read(path):
    if os.geteuid() != 0:
        return os.access(path, os.R_OK)
    return subprocess.run(["runuser", "-u", TEST_USER, "--", "test", "-r", path]).returncode == 0


def plugin_dir():
    """The build tree's plugin folder, or a copy the test user can read
    (a checkout under /root is closed to it)."""
    global _plugin_copy
    built = os.path.join(BUILD, "plugins")
    probe = next(iter(sorted(glob.glob(os.path.join(built, "*", "epan", "tapo.so")))), built)
    if _user_can_read(probe):
        return built
    if _plugin_copy is None:
        _plugin_copy = os.path.join(config_dir(), "plugins")
        shutil.copytree(built, _plugin_copy)
        subprocess.run(["chmod", "-R", "a+rX", _plugin_copy], check=True)
    return _plugin_copy


_lua_copy = None


def lua_script():
    """lua/tapo_flows.lua, or a copy (with its module) the test user can read."""
    global _lua_copy
    script = os.path.join(ROOT, "lua", "tapo_flows.lua")
    if _user_can_read(script):
        return script
    if _lua_copy is None:
        _lua_copy = os.path.join(config_dir(), "lua")
        shutil.copytree(os.path.join(ROOT, "lua"), _lua_copy)
        subprocess.run(["chmod", "-R", "a+rX", _lua_copy], check=True)
    return os.path.join(_lua_copy, "tapo_flows.lua")


_installed = None


def installed_plugin_dir():
    """A plugin folder laid out like an installation: the C plugin in
    <major.minor>/epan/ and the Lua companion at the top."""
    global _installed
    if _installed is None:
        _installed = os.path.join(config_dir(), "installed-plugins")
        shutil.copytree(os.path.join(BUILD, "plugins"), _installed)
        for name in ("tapo_flows.lua", "tapo_report.lua", "tapo_html.lua", "tapo_policy.lua"):
            shutil.copy(os.path.join(ROOT, "lua", name), _installed)
        subprocess.run(["chmod", "-R", "a+rX", _installed], check=True)
    return _installed


def _log(args, plugin):
    """With TAPO_TSHARK_LOG set, appends one JSON line per tshark command
    (the calling test module, its arguments, the plugin folder) to that file:
    a census of what the suite runs, to find the duplicates."""
    path = os.environ.get("TAPO_TSHARK_LOG")
    if not path:
        return
    caller = next((os.path.basename(f.filename) for f in reversed(traceback.extract_stack())
                   if os.path.basename(f.filename).startswith("test_")), "?")
    with open(path, "a") as log:
        log.write(json.dumps({"time": time.time(), "caller": caller, "args": list(args),
                              "plugin": plugin}) + "\n")


def command(args, plugin_dir_override=None):
    """The argv that runs tshark with the build-tree plugin."""
    _log(args, plugin_dir_override or "build")
    env = ["env", "HOME=" + config_dir(), "WIRESHARK_CONFIG_DIR=" + config_dir(),
           "WIRESHARK_PLUGIN_DIR=" + (plugin_dir_override or plugin_dir())]
    argv = env + ["tshark"] + list(args)
    if os.geteuid() == 0:
        argv = ["runuser", "-u", TEST_USER, "--"] + argv
    return argv


def run(args, check=True, input_text=None, plugin_dir_override=None):
    """Runs tshark; returns the completed process (text).  The same
    arguments on the same files with the same plugin run once: later calls,
    in this process or in another test module of the same run, get the
    first one's output (tshark_cache.py)."""
    argv = command(args, plugin_dir_override)
    proc = tshark_cache.lookup_or_run(
        args, argv, plugin_dir_override or plugin_dir(), input_text,
        lambda: subprocess.run(argv, capture_output=True, text=True, input=input_text))
    if check and proc.returncode != 0:
        raise RuntimeError("tshark %s failed (%d): %s" % (" ".join(args), proc.returncode, proc.stderr))
    return proc


def readable(path):
    """Makes sure the test user can read path (captures in root's checkout)."""
    if _user_can_read(path):
        return path
    copy = os.path.join(config_dir(), os.path.basename(path))
    shutil.copyfile(path, copy)
    os.chmod(copy, 0o644)
    return copy


# Fields besides the plugin's own that tests ask of stall-ending frames.
COMMON_STALL_FIELDS = ["frame.number", "frame.time_epoch", "frame.time_relative", "tcp.stream",
                       "tcp.srcport", "tcp.dstport", "tcp.seq_raw", "tcp.ack_raw", "tcp.len"]
_wide = None


def wide_stall_fields():
    """Every field of the plugin that prints a value, and COMMON_STALL_FIELDS."""
    global _wide
    if _wide is None:
        listed = run(["-G", "fields"], check=False).stdout
        own = [row[2] for row in (line.split("\t") for line in listed.splitlines())
               if len(row) > 4 and row[0] == "F" and row[4] == "tapo" and row[3] not in ("FT_NONE", "FT_PROTOCOL")]
        _wide = COMMON_STALL_FIELDS + [f for f in own if f not in COMMON_STALL_FIELDS]
    return _wide


def _stall_args(pcap, fields, two_pass, extra):
    args = ["-r", readable(pcap), "-T", "fields", "-E", "separator=/t"]
    if "-Y" not in extra:
        args += ["-Y", "tapo.stall"]
    if two_pass:
        args.insert(0, "-2")
    for f in fields:
        args += ["-e", f]
    extra = list(extra)
    if "-Y" in extra:   # a caller's filter narrows the stalls further
        i = extra.index("-Y")
        extra[i + 1] = "tapo.stall && (%s)" % extra[i + 1]
    return extra + args


def _narrowed(wide_out, wide, fields):
    """What tshark prints for `fields` alone, from its output for `wide`
    (each column of -T fields is printed independently of the others)."""
    columns = [wide.index(f) for f in fields]
    lines = []
    for line in wide_out.split("\n")[:-1]:
        values = line.split("\t")
        lines.append("\t".join(values[i] for i in columns))
    return "".join(line + "\n" for line in lines)


def stall_fields(pcap, fields, two_pass=True, extra=()):
    """Rows of the given fields for every stall-ending frame.  Asked with
    every field of the plugin at once (one tshark run answers every test
    that reads this capture so), unless TAPO_TSHARK_WIDE=off;
    TAPO_TSHARK_WIDE=verify also runs the narrow command and fails on any
    difference."""
    args = _stall_args(pcap, fields, two_pass, extra)
    mode = os.environ.get("TAPO_TSHARK_WIDE", "on")
    out = None
    wide = wide_stall_fields() if mode != "off" else []
    if fields and set(fields) <= set(wide):
        proc = run(_stall_args(pcap, wide, two_pass, extra), check=False)
        if proc.returncode == 0 and (proc.stdout == "" or proc.stdout.endswith("\n")):
            out = _narrowed(proc.stdout, wide, fields)
    if out is None or mode == "verify":
        narrow = run(args).stdout
        if out is not None and narrow != out:
            raise AssertionError("tshark %s: the wide run's columns differ from the narrow run's" % " ".join(args))
        out = narrow
    return [line.split("\t") for line in out.splitlines() if line]


def normalise_bool(value):
    """FT_BOOLEAN prints 1/0 on Wireshark 4.0 and True/False from 4.4 on."""
    return {"1": True, "True": True, "0": False, "False": False}.get(value)
