#!/usr/bin/env python3
"""A scripted HTTP server on loopback for the adapters' real-HTTP tests.

Usage: loopback_server.py ROUTES_JSON | @ROUTES_FILE
  Binds 127.0.0.1 on a free port, prints "PORT <n>" on stdout, and serves until its standard
  input closes (the test process ended) or MAX_LIFETIME seconds pass, whichever comes first.

ROUTES_JSON maps "METHOD /path" (the query string is ignored; a trailing * matches a prefix)
to a response or a list of responses served in turn (the last one repeats):
  {"status": 200, "body": "...", "json": {...}, "headers": {...}, "delay_ms": 0}
and, to script a misbehaving network (the hostile-network tests):
  "body_parts": [["text", count], ...]  the body is each text repeated count times, in order
                                        (bodies too large for a command line)
  "echo_id": true                       "$REQUEST_ID" in the body becomes the "id" of the
                                        request's JSON body (an OpenRTB answer must echo it)
  "drip": {"bytes": n, "interval_ms": m}
                                        headers (with the full Content-Length) at once, then
                                        the body n bytes at a time, one chunk every m ms
  "never": true, "hold_ms": 3000        read the request and answer nothing; close the
                                        connection after hold_ms (default 3000)
  "reset_after": n                      announce the full Content-Length, send the first n bytes
                                        of the body, then reset the connection (TCP RST)
  "no_length": true                     no Content-Length: the body ends when the connection
                                        closes (Connection: close)
"$SELF" in any body or header value becomes the server's own base URL (http://127.0.0.1:PORT),
"$HOSTPORT" its host and port (127.0.0.1:PORT), for redirects that change only the scheme or
carry user info.
  "gzip": true                          the body is sent gzip-compressed with Content-Encoding:
                                        gzip (a small body that inflates to its full size)
  "gzip_random": n                     the body is n pseudo-random bytes (seeded, so the same each
                                        time), sent gzip-framed with Content-Encoding: gzip: n
                                        bytes on the wire that inflate to n bytes (a bomb whose
                                        compressed size outgrows every socket buffer)
  "latin1": true                        the body is encoded as Latin-1, not UTF-8: "\u00ff"
                                        is the single byte 0xFF (invalid UTF-8 on the wire)
  "raw": "...", "hold_ms": 0            send these bytes (each character one Latin-1 byte) in
                                        place of a response, hold the connection hold_ms, then
                                        close it: a malformed or cut-off response
A connection the server holds (drip, never) is dropped when the server stops.
GET /__requests returns every request received so far as JSON:
  [{"method", "path", "query", "headers", "body", "sent"}]
  where "sent" is how many bytes of the response body the server managed to write before the
  reply ended (the client may close early); GET /__requests?settled first waits (at most 10 s)
  until no reply is being written, so every "sent" is final.
Only the standard library is used.
"""
import json
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

# A safety net only (the test process closing standard input ends the server): as long as the
# sanitizer run's own limit in .ci/run (2400 s), since a test there can wait minutes between
# starting its server and its first request; 300 s made the server exit under a test that
# was still to use it.
MAX_LIFETIME = 2400

def load_routes(argument):
    if argument.startswith("@"):
        with open(argument[1:], encoding="utf-8") as file:
            return json.load(file)
    return json.loads(argument)


routes = load_routes(sys.argv[1]) if len(sys.argv) > 1 else {}
counters = {}
gzip_cache = {}
received = []
lock = threading.Lock()
# Replies being written, and a condition to wait until there are none (GET /__requests?settled).
writing = [0]
settled = threading.Condition(lock)
stopping = threading.Event()


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
                if parts.query == "settled":
                    settled.wait_for(lambda: writing[0] == 0, timeout=10)
                payload = json.dumps(received).encode()
            return self.reply(200, payload, {"Content-Type": "application/json"})
        entry = {
            "method": self.command,
            "path": parts.path,
            "query": parts.query,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body,
            "sent": 0,
        }
        with lock:
            received.append(entry)
            writing[0] += 1
        try:
            self.answer(parts, body, entry)
        finally:
            with lock:
                writing[0] -= 1
                settled.notify_all()

    def answer(self, parts, body, entry):
        with lock:
            key, spec = pick(self.command, parts.path)
            if isinstance(spec, list):
                index = counters.get(key, 0)
                counters[key] = index + 1
                spec = spec[min(index, len(spec) - 1)]
        if spec is None:
            return self.reply(404, b'{"error":"no route"}', {"Content-Type": "application/json"})
        delay = spec.get("delay_ms", 0)
        if delay:
            stopping.wait(min(delay, 30_000) / 1000.0)
        if "raw" in spec:
            try:
                self.wfile.write(spec["raw"].encode("latin-1"))
                self.wfile.flush()
                stopping.wait(min(spec.get("hold_ms", 0), 30_000) / 1000.0)
            except OSError:
                pass
            self.close_connection = True
            return
        if spec.get("never"):
            stopping.wait(min(spec.get("hold_ms", 3000), 30_000) / 1000.0)
            self.close_connection = True
            return
        own = f"http://127.0.0.1:{self.server.server_address[1]}"
        hostport = f"127.0.0.1:{self.server.server_address[1]}"
        headers = {k: str(v).replace("$SELF", own).replace("$HOSTPORT", hostport) for k, v in spec.get("headers", {}).items()}
        encoding = "latin-1" if spec.get("latin1") else "utf-8"
        if "gzip_random" in spec:
            import random
            payload = random.Random(1).randbytes(min(int(spec["gzip_random"]), 256 << 20))
        elif "json" in spec:
            payload = json.dumps(spec["json"]).encode()
            headers.setdefault("Content-Type", "application/json")
        elif "body_parts" in spec:
            payload = b"".join(str(text).encode(encoding) * int(count) for text, count in spec["body_parts"])
        else:
            payload = spec.get("body", "").encode(encoding)
        payload = payload.replace(b"$SELF", f"http://127.0.0.1:{self.server.server_address[1]}".encode())
        if spec.get("gzip") or "gzip_random" in spec:
            # Compressed once per distinct body (fast level): a bomb costs the server little CPU.
            with lock:
                cached = gzip_cache.get(payload)
            if cached is None:
                import gzip as gzip_module
                # Random bytes do not compress: stored blocks (level 0) cost no CPU.
                cached = gzip_module.compress(payload, 0 if "gzip_random" in spec else 1)
                with lock:
                    gzip_cache[payload] = cached
            payload = cached
            headers["Content-Encoding"] = "gzip"
        if spec.get("echo_id"):
            try:
                request_id = str(json.loads(body).get("id", ""))
            except (ValueError, AttributeError):
                request_id = ""
            payload = payload.replace(b"$REQUEST_ID", request_id.encode())
        self.reply(spec.get("status", 200), payload, headers, spec, entry)

    def reply(self, status, payload, headers, spec=None, entry=None):
        spec = spec or {}
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            if spec.get("no_length") or "drip" in spec or "reset_after" in spec:
                # The server closes these connections when done: it says so, so that no client
                # reuses one that is about to close.
                self.send_header("Connection", "close")
                self.close_connection = True
            if not spec.get("no_length"):
                self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if "reset_after" in spec:
                self.wfile.write(payload[: int(spec["reset_after"])])
                self.wfile.flush()
                self.reset()
            elif "drip" in spec:
                step = max(1, int(spec["drip"].get("bytes", 1)))
                interval = max(0, int(spec["drip"].get("interval_ms", 100))) / 1000.0
                for start in range(0, len(payload), step):
                    self.wfile.write(payload[start:start + step])
                    self.wfile.flush()
                    if stopping.wait(interval):
                        break
                self.close_connection = True
            elif payload:
                # In pieces, counting what went out: a client that stops reading shows here.
                step = 64 << 10
                for start in range(0, len(payload), step):
                    self.wfile.write(payload[start:start + step])
                    if entry is not None:
                        with lock:
                            entry["sent"] = start + len(payload[start:start + step])
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True

    def reset(self):
        """Closes the connection with a TCP RST (SO_LINGER 0) instead of an orderly FIN."""
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()

    def finish(self):
        try:
            super().finish()
        except OSError:
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
    stopping.set()
    server.shutdown()


if __name__ == "__main__":
    main()
