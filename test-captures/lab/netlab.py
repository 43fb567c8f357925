"""Two network namespaces joined by TUN devices that one process relays.

The server lives in namespace tapo-srv-ID, the client in tapo-cli-ID, where
ID names this lab (LAB_ID): two labs on one machine (two test runs) never
share a namespace.  Each has a TUN device "tun0"; the lab process holds both
file descriptors and moves packets between them through the link emulator
(relay.py), because the netem qdisc is not available everywhere.  TUN
devices carry plain IP packets of at most the MTU: no GSO, so the capture
shows real segments.  Addresses and ports are the namespaces' own.
"""

import contextlib
import ctypes
import fcntl
import os
import re
import struct
import subprocess

CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000

# The lab's identity: the id of the first process of the run that imported
# this module, inherited by the processes it starts (TAPO_LAB_ID), a few
# digits so that device names made from it keep within IFNAMSIZ (15).
LAB_ID = os.environ.setdefault("TAPO_LAB_ID", str(os.getpid()))
if not re.fullmatch(r"[0-9a-z]{1,8}", LAB_ID):
    raise SystemExit("TAPO_LAB_ID must be 1 to 8 digits or lower-case letters, not %r" % LAB_ID)
SERVER_NS = "tapo-srv-" + LAB_ID
CLIENT_NS = "tapo-cli-" + LAB_ID
SERVER_V4, CLIENT_V4 = "10.77.0.1", "10.77.0.2"
SERVER_V6, CLIENT_V6 = "fd77::1", "fd77::2"
SERVER_PORT = 8080
MTU = 1500

_libc = ctypes.CDLL(None, use_errno=True)

# Sender behaviour variants (sysctls of the server's namespace).  Linux
# 6.17 and later cannot switch RACK off for SACK connections; only TLP can
# be disabled (tcp_early_retrans=0), and only SACK off (NewReno) gives a
# duplicate-ACK threshold that matters.  See test-captures/README.md.
# Congestion control is set per socket to cubic by endpoints.py: a
# namespace other than the initial one may only default to the host's
# "allowed" algorithms, and the host's default varies (bbr here, cubic on
# Debian).
COMMON_SYSCTLS = {
    "net.ipv4.tcp_no_metrics_save": "1",
}
VARIANTS = {
    "modern": {},
    "paper": {"net.ipv4.tcp_early_retrans": "0"},
    "newreno": {"net.ipv4.tcp_sack": "0", "net.ipv4.tcp_early_retrans": "0"},
}


def run(cmd, check=True, **kw):
    return subprocess.run(cmd, check=check, text=True, **kw)


# The lab's priority while a scenario runs (a nice value; root only).  Its
# endpoints, relay and captures must get the CPU when their packets come,
# or a server kept waiting for it looks like a server that was slow to
# answer: anything else on the machine (another test run, a build) gets
# what they leave.
LAB_NICE = -10


@contextlib.contextmanager
def favoured():
    """Runs the block, and every process and thread it starts, at LAB_NICE
    (Linux: the calling thread's priority, which they inherit)."""
    old = os.getpriority(os.PRIO_PROCESS, 0)
    try:
        os.setpriority(os.PRIO_PROCESS, 0, LAB_NICE)
    except OSError:
        pass   # not root: the lab runs as it is
    try:
        yield
    finally:
        os.setpriority(os.PRIO_PROCESS, 0, old)


def ns_exec(ns, argv):
    return ["ip", "netns", "exec", ns] + list(argv)


def own_name(prefix):
    """A name for a namespace or device of this lab (at most 15 characters
    for a prefix of up to 6)."""
    return "%s-%s" % (prefix, LAB_ID)


def sweep_stale_namespaces():
    """Removes the namespaces of labs whose process is gone (a run that was
    killed): "tapo-...-ID" with ID a process id no longer alive."""
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    for line in listed.splitlines():
        m = re.match(r"^(tapo-[a-z]+-(\d+))\b", line)
        if m and m.group(2) != LAB_ID and not os.path.exists("/proc/" + m.group(2)):
            subprocess.run(["ip", "netns", "del", m.group(1)], stderr=subprocess.DEVNULL, check=False)


def _setns(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, "setns(%s): %s" % (path, os.strerror(err)))
    finally:
        os.close(fd)


def _open_tun(name):
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


class Netlab:
    """Creates the namespaces and TUN devices; removes them on close()."""

    def __init__(self, variant, extra_server_sysctls=None, client_sysctls=None,
                 initcwnd=None, ipv6=False, rto_min_ms=None, sender="server"):
        """The variant, the initial window and the minimum RTO apply to the
        data sender's namespace (the server's, or the client's for an
        upload)."""
        self.ipv6 = ipv6
        self.server_fd = self.client_fd = None
        sweep_stale_namespaces()
        self.teardown()
        try:
            self._make(variant, extra_server_sysctls, client_sysctls, initcwnd, rto_min_ms, sender)
        except BaseException:
            self.close()
            raise

    def _make(self, variant, extra_server_sysctls, client_sysctls, initcwnd, rto_min_ms, sender):
        for ns in (SERVER_NS, CLIENT_NS):
            run(["ip", "netns", "add", ns])
        own = "/proc/self/ns/net"
        saved = os.open(own, os.O_RDONLY)
        try:
            _setns("/run/netns/" + SERVER_NS)
            self.server_fd = _open_tun("tun0")
            _setns("/run/netns/" + CLIENT_NS)
            self.client_fd = _open_tun("tun0")
        finally:
            if _libc.setns(saved, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns back")
            os.close(saved)
        at_server = sender == "server"
        self._address(SERVER_NS, SERVER_V4, SERVER_V6, *((initcwnd, rto_min_ms) if at_server else (None, None)))
        self._address(CLIENT_NS, CLIENT_V4, CLIENT_V6, *((None, None) if at_server else (initcwnd, rto_min_ms)))
        server = dict(COMMON_SYSCTLS, **(VARIANTS[variant] if at_server else {}))
        server.update(extra_server_sysctls or {})
        client = dict(COMMON_SYSCTLS, **({} if at_server else VARIANTS[variant]))
        client.update(client_sysctls or {})
        self.sysctl(SERVER_NS, server)
        self.sysctl(CLIENT_NS, client)
        self.server_sysctls, self.client_sysctls = server, client

    def _address(self, ns, v4, v6, initcwnd, rto_min_ms):
        cmds = [
            ["ip", "link", "set", "lo", "up"],
            ["ip", "link", "set", "tun0", "mtu", str(MTU), "up"],
            ["ip", "addr", "add", v4 + "/24", "dev", "tun0"],
            ["ip", "-6", "addr", "add", v6 + "/64", "dev", "tun0", "nodad"],
        ]
        for cmd in cmds:
            run(["ip", "-n", ns] + cmd[1:])
        # Per-route metrics: the initial congestion window, and a minimum
        # RTO (Linux's rto_min route attribute).  The kernel made the prefix
        # routes with the address (IPv6 ones with metric 256): replace
        # exactly those.
        metrics = []
        if initcwnd:
            metrics += ["initcwnd", str(initcwnd)]
        if rto_min_ms:
            metrics += ["rto_min", "%dms" % rto_min_ms]
        if metrics:
            run(["ip", "-n", ns, "-4", "route", "change", "10.77.0.0/24", "dev", "tun0"] + metrics)
            run(["ip", "-n", ns, "-6", "route", "replace", "fd77::/64", "dev", "tun0",
                 "metric", "256"] + metrics)

    @staticmethod
    def sysctl(ns, values):
        for key, value in values.items():
            run(ns_exec(ns, ["sysctl", "-q", "-w", "%s=%s" % (key, value)]))

    @staticmethod
    def kernel_counters(ns):
        """TcpExt and Tcp counters of a namespace (fresh, so they are the run's)."""
        out = run(ns_exec(ns, ["nstat", "-a", "-z", "--json"]), capture_output=True).stdout
        import json
        data = json.loads(out)
        return data.get("kernel", data)

    def server_address(self):
        return SERVER_V6 if self.ipv6 else SERVER_V4

    def close(self):
        for fd in (self.server_fd, self.client_fd):
            if fd is not None:
                os.close(fd)
        self.server_fd = self.client_fd = None
        self.teardown()

    @staticmethod
    def teardown():
        for ns in (SERVER_NS, CLIENT_NS):
            subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL, check=False)
