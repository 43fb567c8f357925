#!/usr/bin/env python3
"""The impairment lab: makes labelled captures from real Linux TCP.

    sudo test-captures/lab/lab.py [--out DIR] [SCENARIO ...]
    test-captures/lab/lab.py --list

For each scenario (scenarios.py) it builds two network namespaces joined by
the emulated link (netlab.py, relay.py), runs the server and the scripted
client (endpoints.py), captures on the server's side as the paper does,
and writes into DIR (default: test-captures/):
    NAME.pcap        the capture
    NAME.lab.json    what the relay dropped or held, the server namespace's
                     kernel counters, the sysctls and the kernel version
    NAME.expected    the stalls the scenario implies (label.py)
Needs root (namespaces, TUN devices), tcpdump, tshark, editcap, nstat.
"""

import argparse
import datetime
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import carry      # noqa: E402
import label      # noqa: E402
import netlab     # noqa: E402
import relay      # noqa: E402
import scenarios  # noqa: E402

COUNTERS = ["TcpExtTCPTimeouts", "TcpExtTCPLossProbes", "TcpExtTCPLossProbeRecovery",
            "TcpExtTCPFastRetrans", "TcpExtTCPSlowStartRetrans", "TcpExtTCPLostRetransmit",
            "TcpExtTCPDSACKRecv", "TcpExtTCPDSACKOfoRecv", "TcpExtTCPSpuriousRTOs",
            "TcpExtTCPSackRecovery", "TcpExtTCPRenoRecovery", "TcpExtTCPSynRetrans",
            "TcpRetransSegs"]


def wait_for_line(proc, text, timeout=5.0):
    end = time.monotonic() + timeout
    stream = proc.stderr if proc.stderr else proc.stdout
    while time.monotonic() < end:
        line = stream.readline()
        if text in line:
            return
        if proc.poll() is not None:
            raise RuntimeError("process exited before saying %r" % text)
    raise RuntimeError("timed out waiting for %r" % text)


# The vantage points a run captures at, and the file suffix of each: the
# server's TUN device (the paper's vantage), the client's, and the tap in
# the middle of the emulated path (relay.py).
VANTAGES = {"sender": "", "receiver": ".receiver", "middle": ".middle"}


def start_capture(ns, pcap, snaplen):
    """tcpdump on a namespace's TUN device.  --immediate-mode hands every
    packet to tcpdump at once: with the default buffering the last packets
    of a run could still be in the kernel's ring when tcpdump is stopped."""
    dump = subprocess.Popen(netlab.ns_exec(ns, [
        "tcpdump", "-i", "tun0", "-n", "-U", "--immediate-mode", "-B", "16384", "-Z", "root",
        "-s", str(snaplen or 0), "-w", pcap, "tcp", "port", str(netlab.SERVER_PORT)]),
        stderr=subprocess.PIPE, text=True)
    wait_for_line(dump, "listening on")
    return dump


class Monitor:
    """A live analyser running beside the capture in the sender's namespace
    (tests/test_live.py): every line it prints, with the wall time it came
    at; SIGINT when the run is over."""

    def __init__(self, ns, argv):
        self.proc = subprocess.Popen(netlab.ns_exec(ns, argv), stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1, start_new_session=True)
        self.lines, self.errors = [], []
        self.threads = [threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines), daemon=True),
                        threading.Thread(target=self._pump, args=(self.proc.stderr, self.errors), daemon=True)]
        for t in self.threads:
            t.start()

    @staticmethod
    def _pump(stream, into):
        for line in stream:
            into.append((time.monotonic(), line.rstrip("\n")))

    def finish(self, t0):
        # The whole process group: a pipeline (tcpdump | tshark) stops as one.
        os.killpg(self.proc.pid, signal.SIGINT)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        for t in self.threads:
            t.join(timeout=10)
        return {"returncode": self.proc.returncode, "stderr": "\n".join(l for _, l in self.errors),
                "lines": [[round(t - t0, 6), line] for t, line in self.lines]}


def run_live(sc, out_dir, vantages=False, monitors=None, on_network=None, before_finish=None):
    """Runs one scenario on the emulated path; returns (pcaps, sidecar) where
    pcaps maps each vantage captured to its file.  monitors: name -> argv of
    live analysers to run in the sender's namespace ("{iface}" and "{port}"
    in them name the sender's TUN device and the server's port); what they
    printed, and when, goes into sidecar["monitors"], with the time the
    client was done (sidecar["client_done_s"]), seconds from their start.
    on_network(net): called once the namespaces exist, before anything runs
    in them; before_finish(): once the traffic is over, before the monitors
    are stopped (tests/test_monitor_lab.py scrapes them then)."""
    with netlab.favoured():
        return _run_live(sc, out_dir, vantages, monitors, on_network, before_finish)


def _run_live(sc, out_dir, vantages, monitors, on_network, before_finish):
    net = netlab.Netlab(sc.variant, sc.server_sysctls, sc.client_sysctls, sc.initcwnd, sc.ipv6,
                        sc.rto_min_ms, sc.sender)
    sender_ns, receiver_ns = ((netlab.SERVER_NS, netlab.CLIENT_NS) if sc.sender == "server"
                              else (netlab.CLIENT_NS, netlab.SERVER_NS))
    tmp = tempfile.mkdtemp(prefix="tapo-lab-")
    names = VANTAGES if vantages else {"sender": ""}
    tmp_pcaps = {v: os.path.join(tmp, sc.name + suffix + ".pcap") for v, suffix in names.items()}
    procs = []
    try:
        if on_network:
            on_network(net)
        dumps = [start_capture(sender_ns, tmp_pcaps["sender"], sc.snaplen)]
        if vantages:
            dumps.append(start_capture(receiver_ns, tmp_pcaps["receiver"], sc.snaplen))
        procs.extend(dumps)
        t0 = time.monotonic()
        live = {}
        for name, argv in (monitors or {}).items():
            argv = [a.replace("{iface}", "tun0").replace("{port}", str(netlab.SERVER_PORT)) for a in argv]
            live[name] = Monitor(sender_ns, argv)
            procs.append(live[name].proc)
        if live:
            time.sleep(1.0)   # the analysers are listening before the first packet
        endpoints = os.path.join(HERE, "endpoints.py")
        server = subprocess.Popen(netlab.ns_exec(netlab.SERVER_NS, [
            sys.executable, endpoints, "server", net.server_address(), str(netlab.SERVER_PORT)]),
            stdout=subprocess.PIPE, text=True)
        procs.append(server)
        wait_for_line(server, "listening")
        client = subprocess.Popen(netlab.ns_exec(netlab.CLIENT_NS, [
            sys.executable, endpoints, "client", net.server_address(), str(netlab.SERVER_PORT),
            json.dumps(sc.client)]), stdout=subprocess.PIPE, text=True)
        procs.append(client)
        link = relay.Relay(net.server_fd, net.client_fd, sc.link, seed=sc.name,
                           tap_path=tmp_pcaps.get("middle"), snaplen=sc.snaplen)
        done_at = [None]

        def stop():
            if done_at[0] is None and client.poll() is not None:
                done_at[0] = time.monotonic()
            return done_at[0] is not None and time.monotonic() - done_at[0] > sc.settle_s

        link.run(stop)
        if before_finish:
            before_finish()
        monitored = {name: m.finish(t0) for name, m in live.items()}
        report = json.loads(client.stdout.read() or "{}")
        counters = net.kernel_counters(sender_ns)
        for dump in dumps:
            dump.send_signal(signal.SIGINT)
            dump.wait(timeout=5)
        sidecar = {
            "scenario": sc.name,
            "description": sc.description,
            "made": "Linux %s, %s" % (os.uname().release, datetime.date.today().isoformat()),
            "variant": sc.variant,
            "sender": sc.sender,
            "server_sysctls": net.server_sysctls,
            "client_sysctls": net.client_sysctls,
            "rto_min_ms": sc.rto_min_ms,
            "initcwnd": sc.initcwnd,
            "ipv6": sc.ipv6,
            "link": sc.link,
            "client_script": sc.client,
            "client_received": report.get("received"),
            "relay_log": link.log,
            "relay_packets": dict(link.packets),
            "relay_write_errors": dict(link.write_errors),
            "kernel_counters": {k: counters.get(k, 0) for k in COUNTERS},
        }
        if live:
            sidecar["monitors"] = monitored
            sidecar["client_done_s"] = round(done_at[0] - t0, 6)
        pcaps = {}
        for v, path in tmp_pcaps.items():
            pcaps[v] = os.path.join(out_dir, os.path.basename(path))
            shutil.copyfile(path, pcaps[v])
        return pcaps, sidecar
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        net.close()
        shutil.rmtree(tmp, ignore_errors=True)


def rewrite_wrap(src, dst, server_isn, new_isn, client_port_filter=netlab.SERVER_PORT):
    """Copies a raw-IP pcap, shifting the server's sequence numbers (and the
    client's ACK and SACK numbers for them) so that its ISN becomes new_isn.
    Checksums are recomputed."""
    shift = (new_isn - server_isn) % 2**32
    with open(src, "rb") as f:
        data = bytearray(f.read())
    out = bytearray(data[:24])
    pos = 24
    while pos < len(data):
        incl = struct.unpack_from("<I", data, pos + 8)[0]
        rec = bytearray(data[pos:pos + 16 + incl])
        _shift_packet(rec, 16, shift, client_port_filter)
        out += rec
        pos += 16 + incl
    with open(dst, "wb") as f:
        f.write(out)


def _checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _shift_packet(rec, off, shift, server_port):
    if rec[off] >> 4 != 4:
        raise ValueError("seq-wrap rewriting handles IPv4 captures only")
    ihl = (rec[off] & 0x0F) * 4
    t = off + ihl
    sport, dport = struct.unpack_from("!HH", rec, t)
    seq, ack = struct.unpack_from("!II", rec, t + 4)
    hdr = (rec[t + 12] >> 4) * 4
    if sport == server_port:
        struct.pack_into("!I", rec, t + 4, (seq + shift) % 2**32)
    else:
        if rec[t + 13] & 0x10:
            struct.pack_into("!I", rec, t + 8, (ack + shift) % 2**32)
        i = t + 20
        while i < t + hdr:                       # SACK edges, option kind 5
            kind = rec[i]
            if kind == 0:
                break
            if kind == 1:
                i += 1
                continue
            length = rec[i + 1]
            if kind == 5:
                for e in range(i + 2, i + length, 4):
                    edge = struct.unpack_from("!I", rec, e)[0]
                    struct.pack_into("!I", rec, e, (edge + shift) % 2**32)
            i += max(length, 2)
    total = struct.unpack_from("!H", rec, off + 2)[0]
    struct.pack_into("!H", rec, t + 16, 0)
    pseudo = bytes(rec[off + 12:off + 20]) + struct.pack("!BBH", 0, 6, total - ihl)
    captured = bytes(rec[t:off + total]) if len(rec) >= off + total else None
    if captured is not None:
        struct.pack_into("!H", rec, t + 16, _checksum(bytearray(pseudo + captured)))


def run_derived(sc, out_dir):
    base_name, op, arg = sc.derive
    base = os.path.join(out_dir, base_name + ".pcap")
    with open(os.path.join(out_dir, base_name + ".lab.json")) as f:
        sidecar = json.load(f)
    pcap = os.path.join(out_dir, sc.name + ".pcap")
    if op == "cut":
        subprocess.run(["editcap", base, pcap, "1-%d" % arg], check=True)   # deletes frames 1..arg
    elif op == "snaplen":
        subprocess.run(["editcap", "-s", str(arg), base, pcap], check=True)
    elif op == "wrap":
        isn = sidecar["isns"][0]["server"]
        new_isn = (2**32 - arg) % 2**32
        rewrite_wrap(base, pcap, isn, new_isn)
        sidecar = dict(sidecar, isns=[dict(sidecar["isns"][0], server=new_isn)] + sidecar["isns"][1:])
    sidecar = dict(sidecar, scenario=sc.name, description=sc.description,
                   derived_from=base_name, derivation="%s %s" % (op, arg))
    return pcap, sidecar


def make(sc, out_dir, vantages=False):
    """Makes one scenario's captures, sidecar and expected files; returns the
    sender-side capture."""
    if sc.derive:
        pcap, sidecar = run_derived(sc, out_dir)
        pcaps = {"sender": pcap}
    else:
        pcaps, sidecar = run_live(sc, out_dir, vantages)
        sidecar["isns"] = label.handshake_isns(label.read_frames(pcaps["sender"]))
    with open(os.path.join(out_dir, sc.name + ".lab.json"), "w") as f:
        json.dump(sidecar, f, indent=1, sort_keys=True)
        f.write("\n")
    write_labels(sc, out_dir, sidecar, pcaps)
    return pcaps["sender"]


def write_labels(sc, out_dir, sidecar, pcaps):
    """The expected files of a scenario's captures, from the packets and the
    sidecar: the sender's, then carried to every other vantage."""
    pcap = pcaps["sender"]
    frames = label.read_frames(pcap)
    mss = scenarios.MSS6 if sidecar.get("ipv6") else scenarios.MSS4
    locator = label.Locator(frames, sidecar["isns"], sidecar["relay_log"], mss,
                            sidecar.get("sender", "server"))
    expected = os.path.join(out_dir, sc.name + ".expected")
    label.write_expected(expected, sc, sidecar, locator)
    for vantage, other in pcaps.items():
        if vantage != "sender":
            carry.carry(pcap, expected, other, other[:-len(".pcap")] + ".expected", vantage, sidecar)


def relabel(sc, out_dir):
    """Writes the expected files of captures made before, again: after a
    change of the labels (scenarios.py, label.py), not of the captures."""
    pcaps = {"sender": os.path.join(out_dir, sc.name + ".pcap")}
    sidecar_path = os.path.join(out_dir, sc.name + ".lab.json")
    missing = [p for p in (pcaps["sender"], sidecar_path) if not os.path.exists(p)]
    if missing:
        sys.exit("--relabel: %s: no such file (relabel reads a capture already made)" % ", ".join(missing))
    with open(sidecar_path) as f:
        sidecar = json.load(f)
    for vantage, suffix in VANTAGES.items():
        other = os.path.join(out_dir, sc.name + suffix + ".pcap")
        if vantage != "sender" and os.path.exists(other):
            pcaps[vantage] = other
    write_labels(sc, out_dir, sidecar, pcaps)
    return pcaps["sender"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.dirname(HERE), help="output folder")
    ap.add_argument("--list", action="store_true", help="list the scenarios")
    ap.add_argument("--snaplen", type=int, default=None,
                    help="bytes kept per packet, for every scenario (default: each scenario's own)")
    ap.add_argument("--vantages", action="store_true",
                    help="also capture at the client and at a tap in the middle of the path, "
                         "and carry the labels there (NAME.receiver.*, NAME.middle.*)")
    ap.add_argument("--relabel", action="store_true",
                    help="write the named scenarios' expected files again for the captures already in "
                         "--out, from their packets and sidecars (after a change of those labels, not of "
                         "the scenarios' runs)")
    ap.add_argument("names", nargs="*", help="scenarios to make (default: all)")
    args = ap.parse_args()
    table = scenarios.by_name()
    if args.list:
        for sc in scenarios.SCENARIOS:
            print("%-28s %s" % (sc.name, sc.description))
        return 0
    unknown = [n for n in args.names if n not in table]
    if unknown:
        sys.exit("unknown scenario(s): %s (see --list)" % ", ".join(unknown))
    if args.relabel:
        # By name only: a scenario changed since its capture was made (a
        # longer blackout, say) would relabel that capture with what it no
        # longer is.
        if not args.names:
            sys.exit("--relabel needs the scenarios' names")
        for name in args.names:
            print(os.path.relpath(relabel(table[name], args.out)))
        return 0
    if os.geteuid() != 0:
        sys.exit("lab.py needs root: it creates network namespaces and TUN devices")
    names = args.names or [sc.name for sc in scenarios.SCENARIOS]
    os.makedirs(args.out, exist_ok=True)
    if args.snaplen is not None:
        for sc in table.values():
            sc.snaplen = args.snaplen
    for name in names:
        started = time.monotonic()
        pcap = make(table[name], args.out, args.vantages)
        print("%-28s %-40s %.1f s" % (name, os.path.relpath(pcap), time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
