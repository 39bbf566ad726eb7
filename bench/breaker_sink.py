#!/usr/bin/env python3
"""Sink for bench/breaker_drain.sh (docs/benchmarks.md, "Circuit breaker recovery").

An HTTP/1.1 keep-alive server on 127.0.0.1 (one thread per connection) that answers 503
while "down" and 200 after "up", serving each request in --service-ms. It records, for every
request received after "up", the time since "up" and how many requests were in flight at
its arrival (itself included), deduplicating deliveries by webhook-id.
Control: POST /control/up; GET /stats -> JSON {down_requests, up_requests, unique, arrivals}.
Writes its port to --port-file. Thread-safety: one lock around the counters.
"""
import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock = threading.Lock()
state = {"up_at": None, "in_flight": 0, "down": 0, "arrivals": [], "ids": set()}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    service = 0.0

    def log_message(self, *args):
        pass

    def answer(self, status, body=b""):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        with lock:
            body = {"down_requests": state["down"], "up_requests": len(state["arrivals"]),
                    "unique": len(state["ids"]), "arrivals": state["arrivals"]}
        self.answer(200, json.dumps(body).encode())

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        if self.path == "/control/up":
            with lock:
                state["up_at"] = time.monotonic()
            return self.answer(200)
        with lock:
            up_at = state["up_at"]
            if up_at is None:
                state["down"] += 1
            else:
                state["in_flight"] += 1
                state["arrivals"].append([round(time.monotonic() - up_at, 4), state["in_flight"]])
        if up_at is None:
            return self.answer(503)
        time.sleep(self.service)
        with lock:
            state["in_flight"] -= 1
            state["ids"].add(self.headers.get("webhook-id", ""))
        self.answer(200)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--service-ms", type=float, default=20.0)
    args = parser.parse_args()
    Handler.service = args.service_ms / 1000.0
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(args.port_file, "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
