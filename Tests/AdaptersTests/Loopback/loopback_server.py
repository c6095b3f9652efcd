#!/usr/bin/env python3
"""A scripted HTTP server on loopback for the adapters' real-HTTP tests.

Usage: loopback_server.py ROUTES_JSON
  Binds 127.0.0.1 on a free port, prints "PORT <n>" on stdout, and serves until its standard
  input closes (the test process ended) or MAX_LIFETIME seconds pass, whichever comes first.

ROUTES_JSON maps "METHOD /path" (the query string is ignored; a trailing * matches a prefix)
to a response or a list of responses served in turn (the last one repeats):
  {"status": 200, "body": "...", "json": {...}, "headers": {...}, "delay_ms": 0}
GET /__requests returns every request received so far as JSON:
  [{"method", "path", "query", "headers", "body"}]
Only the standard library is used.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

MAX_LIFETIME = 300

routes = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
counters = {}
received = []
lock = threading.Lock()


def pick(method, path):
    key = f"{method} {path}"
    if key in routes:
        return key, routes[key]
    for pattern, spec in routes.items():
        if pattern.endswith("*") and key.startswith(pattern[:-1]):
            return pattern, spec
    return None, None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def handle_any(self):
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        if parts.path == "/__requests":
            with lock:
                payload = json.dumps(received).encode()
            return self.reply(200, payload, {"Content-Type": "application/json"})
        with lock:
            received.append({
                "method": self.command,
                "path": parts.path,
                "query": parts.query,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body,
            })
            key, spec = pick(self.command, parts.path)
            if isinstance(spec, list):
                index = counters.get(key, 0)
                counters[key] = index + 1
                spec = spec[min(index, len(spec) - 1)]
        if spec is None:
            return self.reply(404, b'{"error":"no route"}', {"Content-Type": "application/json"})
        delay = spec.get("delay_ms", 0)
        if delay:
            time.sleep(min(delay, 30_000) / 1000.0)
        headers = dict(spec.get("headers", {}))
        if "json" in spec:
            payload = json.dumps(spec["json"]).encode()
            headers.setdefault("Content-Type", "application/json")
        else:
            payload = spec.get("body", "").encode()
        self.reply(spec.get("status", 200), payload, headers)

    def reply(self, status, payload, headers):
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if payload:
                self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = handle_any


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"PORT {server.server_address[1]}", flush=True)
    deadline = time.monotonic() + MAX_LIFETIME

    def watch_stdin():
        sys.stdin.read()
        server.shutdown()

    watcher = threading.Thread(target=watch_stdin, daemon=True)
    watcher.start()
    while watcher.is_alive() and time.monotonic() < deadline:
        watcher.join(timeout=0.5)
    server.shutdown()


if __name__ == "__main__":
    main()
