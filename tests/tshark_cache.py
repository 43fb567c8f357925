"""One tshark run per distinct invocation, shared by the tests that ask for it.

Starting tshark costs about 0.17 s before it reads a packet, and the suite
asks the same questions of the same captures many times (the labelled corpus
is read by a dozen modules).  tshark_runner.run() comes here: an invocation
is identified by its arguments, the contents of every file they name
(captures, Lua scripts and the modules beside them), the plugin folder's
contents and the standard input; the first call runs tshark, and every later
identical call gets its exit status, standard output and standard error.

The results are kept in TAPO_TSHARK_CACHE, a folder scripts/test makes for
one run (and removes) so that the test modules it runs side by side share
them, or else in a folder of this process, removed when it exits.  Nothing
outlives a run, so a rebuilt plugin or an edited capture is never answered
from an older one.  TAPO_TSHARK_CACHE=off runs every call.

A file is identified by a hash of its contents: tests write captures of
the same name and size one after the other (tests/fuzz_tshark.py), faster
than the file system's clock ticks.
"""

import atexit
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time

# Outputs larger than this are not kept (tshark -V of a large capture): the
# run is cheap beside writing and reading them back, bytes.
LARGEST_KEPT = 64 << 20
# A file unchanged for this long is hashed once per process (a rewrite now
# would change its modification time), seconds.
SETTLED_S = 2.0

_folder = None
_hashes = {}


def _cache_folder():
    global _folder
    if _folder is None:
        given = os.environ.get("TAPO_TSHARK_CACHE")
        if given == "off":
            _folder = ""
        elif given:
            os.makedirs(given, exist_ok=True)
            _folder = given
        else:
            _folder = tempfile.mkdtemp(prefix="tapo-tshark-cache-")
            atexit.register(shutil.rmtree, _folder, True)
    return _folder


def file_hash(path):
    """A hash of the file's contents (memoised once the file has settled)."""
    st = os.stat(path)
    stamp = (path, st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
    if stamp in _hashes:
        return _hashes[stamp]
    h = hashlib.blake2b(digest_size=20)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    digest = h.hexdigest()
    if time.time() - max(st.st_mtime, st.st_ctime) > SETTLED_S:
        _hashes[stamp] = digest
    return digest


def folder_identity(path):
    """(relative name, hash) of every file under a folder."""
    found = []
    for top, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(top, name)
            if os.path.isfile(full):
                found.append((os.path.relpath(full, path), file_hash(full)))
    return found


def _named_files(args):
    """The files an argument list names: "-r PATH", "lua_script:PATH", a
    preference's "name:PATH"; a Lua script brings its folder's modules."""
    named = {}
    for arg in args:
        for candidate in (arg, arg.split(":", 1)[-1]):
            if not candidate.startswith("-") and os.path.isfile(candidate):
                named[candidate] = file_hash(candidate)
                if candidate.endswith(".lua"):
                    for rel, digest in folder_identity(os.path.dirname(candidate)):
                        if rel.endswith(".lua"):
                            named[os.path.join(os.path.dirname(candidate), rel)] = digest
    return named


def key(args, plugin_folder, input_text):
    """The identity of an invocation (a hex string)."""
    identity = {
        "args": list(args),
        "files": _named_files(args),
        "plugin_folder": plugin_folder,
        "plugins": folder_identity(plugin_folder) if os.path.isdir(plugin_folder) else None,
        "input": input_text,
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


def _log(event, args):
    path = os.environ.get("TAPO_TSHARK_LOG")
    if path:
        with open(path, "a") as log:
            log.write(json.dumps({"time": time.time(), "event": event, "args": list(args)}) + "\n")


def _load(path, argv):
    with open(path) as f:
        kept = json.load(f)
    return subprocess.CompletedProcess(argv, kept["returncode"], kept["stdout"], kept["stderr"])


def lookup_or_run(args, argv, plugin_folder, input_text, start):
    """The completed process of this invocation: a kept one, or start()'s
    (then kept).  Identical calls from other processes of the same run
    wait for the first instead of running tshark again."""
    folder = _cache_folder()
    if not folder:
        return start()
    name = key(args, plugin_folder, input_text)
    path = os.path.join(folder, name + ".json")
    with open(os.path.join(folder, name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(path):
            _log("kept", args)
            return _load(path, argv)
        proc = start()
        if len(proc.stdout or "") + len(proc.stderr or "") <= LARGEST_KEPT:
            partial = path + ".partial"
            with open(partial, "w") as f:
                json.dump({"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}, f)
            os.rename(partial, path)
        return proc
