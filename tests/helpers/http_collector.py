#!/usr/bin/env python3
"""A scripted HTTP collector for zlbench's push tests (stdlib only, 127.0.0.1).

    http_collector.py --record-dir DIR [--script 503,503,200] [--message TEXT]
                      [--port N] [--port-file FILE] [--tls-cert PEM --tls-key PEM]

Listens on 127.0.0.1 (port 0 = a free one), prints the port on stdout and writes
it to --port-file (atomically), then answers each request with the next step of
the script; the last step repeats. Steps (comma-separated):
    NNN         status NNN; non-2xx replies carry {"message": TEXT} when --message
                is given, 2xx replies {"ok": true, "request": n}
    NNN:TEXT    status NNN with TEXT as a text/plain body (no commas in TEXT)
    close       close the connection without replying (a transport error)
    hang        read the request, then never reply (the client's own time limit ends it)
With --tls-cert/--tls-key it speaks HTTPS. Each request n (from 1) is recorded before it is answered, as DIR/NNNN.json
({"method", "path", "headers", "step"}) and DIR/NNNN.body (raw bytes).
"""
import argparse
import json
import os
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


def write_atomic(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def parse_script(text):
    steps = []
    for raw in text.split(","):
        step = raw.strip()
        if not step:
            continue
        if step in ("close", "hang"):
            steps.append((step, None, None))
            continue
        code, _, body = step.partition(":")
        if not code.isdigit() or not 100 <= int(code) <= 599:
            raise SystemExit(f"http_collector: bad script step {step!r}")
        steps.append(("status", int(code), body if _ else None))
    if not steps:
        raise SystemExit("http_collector: empty script")
    return steps


class Collector:
    def __init__(self, steps, record_dir, message):
        self.steps = steps
        self.record_dir = record_dir
        self.message = message
        self.count = 0
        self.lock = threading.Lock()

    def next(self):
        with self.lock:
            self.count += 1
            n = self.count
        return n, self.steps[min(n, len(self.steps)) - 1]


def make_handler(collector):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *args):
            pass

        def handle_any(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            n, (kind, code, text) = collector.next()
            base = os.path.join(collector.record_dir, f"{n:04d}")
            write_atomic(base + ".body", body)
            meta = {
                "method": self.command,
                "path": self.path,
                "headers": {k: v for k, v in self.headers.items()},
                "step": code if kind == "status" else kind,
            }
            write_atomic(base + ".json", json.dumps(meta, indent=1).encode())
            if kind == "hang":
                time.sleep(3600)
            if kind in ("close", "hang"):
                self.close_connection = True
                return
            if text is not None:
                reply, ctype = text.encode() + b"\n", "text/plain"
            elif 200 <= code < 300:
                reply, ctype = json.dumps({"ok": True, "request": n}).encode(), "application/json"
            elif collector.message is not None:
                reply, ctype = json.dumps({"message": collector.message}).encode(), "application/json"
            else:
                reply, ctype = b"", "text/plain"
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        do_POST = handle_any
        do_PUT = handle_any
        do_GET = handle_any

    return Handler


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record-dir", required=True)
    ap.add_argument("--script", default="200")
    ap.add_argument("--message")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    a = ap.parse_args()
    os.makedirs(a.record_dir, exist_ok=True)
    collector = Collector(parse_script(a.script), a.record_dir, a.message)
    server = HTTPServer(("127.0.0.1", a.port), make_handler(collector))
    if a.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.tls_cert, a.tls_key)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    port = server.server_address[1]
    print(port, flush=True)
    if a.port_file:
        write_atomic(a.port_file, f"{port}\n".encode())
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
