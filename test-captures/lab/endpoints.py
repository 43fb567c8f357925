#!/usr/bin/env python3
"""The lab's application: a server and a scripted client.

The client sends one JSON line per request, followed by "upload" bytes
of body when it says so (an upload: a POST, a backup):
    {"size": bytes, "think_ms": ms, "pause_at": bytes, "pause_ms": ms, "close": bool,
     "upload": bytes}
and the server answers it literally: it reads the body, waits think_ms
(server think time), writes size bytes in one write (or pauses pause_ms
after pause_at bytes: an application pause mid-response) and closes the
connection when asked.

Usage:
    endpoints.py server ADDRESS PORT
    endpoints.py client ADDRESS PORT SCRIPT_JSON
The client script is {"connections": [CONN, ...], "parallel": bool} where
CONN is {"start_ms", "rcvbuf", "requests": [REQ, ...], "linger_ms",
"give_up_ms"} and REQ adds "wait_ms" (client pause before the request),
"read_chunk" and "read_delay_ms" (a slow reader) to the request fields.
"""

import json
import socket
import sys
import threading
import time


CONGESTION_CONTROL = b"cubic"   # Linux's default on Debian, set explicitly for reproducibility


def use_cubic(sock):
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, CONGESTION_CONTROL)


def serve_connection(conn):
    use_cubic(conn)
    with conn:
        pending = b""
        while True:
            while b"\n" not in pending:
                data = conn.recv(4096)
                if not data:
                    return
                pending += data
            line, pending = pending.split(b"\n", 1)
            req = json.loads(line)
            body = req.get("upload", 0)
            while len(pending) < body:
                data = conn.recv(65536)
                if not data:
                    return
                pending += data
            pending = pending[body:]
            time.sleep(req.get("think_ms", 0) / 1000.0)
            body = b"x" * req["size"]
            cut = req.get("pause_at", 0)
            try:
                if 0 < cut < len(body):
                    conn.sendall(body[:cut])
                    time.sleep(req.get("pause_ms", 0) / 1000.0)
                    conn.sendall(body[cut:])
                else:
                    conn.sendall(body)
            except OSError:
                return   # the client gave up
            if req.get("close"):
                return


def server(address, port):
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    srv = socket.socket(family, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    use_cubic(srv)
    srv.bind((address, port))
    srv.listen(64)
    print("listening", flush=True)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve_connection, args=(conn,), daemon=True).start()


def read_response(sock, req, deadline):
    want, got = req["size"], 0
    chunk = req.get("read_chunk", 65536)
    delay = req.get("read_delay_ms", 0) / 1000.0
    while got < want:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                return got
            sock.settimeout(left)
        try:
            data = sock.recv(min(chunk, want - got))
        except socket.timeout:
            return got
        if not data:
            return got
        got += len(data)
        if delay:
            time.sleep(delay)
    return got


def run_connection(address, port, spec, report):
    time.sleep(spec.get("start_ms", 0) / 1000.0)
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    use_cubic(sock)
    if spec.get("rcvbuf"):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, spec["rcvbuf"])
    sock.connect((address, port))
    results = []
    for req in spec["requests"]:
        time.sleep(req.get("wait_ms", 0) / 1000.0)
        wire = {k: req[k] for k in ("size", "think_ms", "pause_at", "pause_ms", "close", "upload")
                if k in req}
        sock.sendall(json.dumps(wire).encode() + b"\n" + b"u" * req.get("upload", 0))
        deadline = None
        if spec.get("give_up_ms"):
            deadline = time.monotonic() + spec["give_up_ms"] / 1000.0
        results.append(read_response(sock, req, deadline))
    time.sleep(spec.get("linger_ms", 0) / 1000.0)
    sock.close()
    report.append(results)


def client(address, port, script):
    conns = script["connections"]
    report = []
    if script.get("parallel"):
        threads = [threading.Thread(target=run_connection, args=(address, port, c, report))
                   for c in conns]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    else:
        for c in conns:
            run_connection(address, port, c, report)
    print(json.dumps({"received": report}), flush=True)


def main(argv):
    if len(argv) == 4 and argv[1] == "server":
        server(argv[2], int(argv[3]))
    elif len(argv) == 5 and argv[1] == "client":
        client(argv[2], int(argv[3]), json.loads(argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
