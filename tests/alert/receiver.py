#!/usr/bin/python3
"""A loopback HTTP receiver for alert delivery tests (Python standard library only).

Records every request (time, path, headers, body, the answer given) as one JSON line in --log, and
answers POSTs from a script, one entry per request in arrival order, then 200 once the script
runs out:
  200          accept
  500          a server error
  429:N        too many requests, Retry-After: N (seconds)
  503:DATE     unavailable, Retry-After: an HTTP date
  400, 401     a client error (permanent for the sender)
  hang:S       read the request, answer nothing for S seconds, then close
  reset        read the request, then close with SO_LINGER 0 (the client sees a reset)
The port it listens on (127.0.0.1) is printed as the first line of standard output.
"""

import argparse
import http.server
import json
import socket
import struct
import sys
import threading
import time


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--log", required=True, help="JSON-lines file of every request")
    p.add_argument("--script", default="", help="comma-separated answers, in request order")
    p.add_argument("--port", type=int, default=0)
    return p.parse_args()


class State:
    def __init__(self, script, log_path):
        self.script = [s for s in script.split(",") if s]
        self.next = 0
        self.lock = threading.Lock()
        self.log = open(log_path, "a", encoding="utf-8")

    def take(self):
        with self.lock:
            seq = self.next
            self.next += 1
            return seq, (self.script[seq] if seq < len(self.script) else "200")

    def record(self, entry):
        with self.lock:
            self.log.write(json.dumps(entry, sort_keys=True) + "\n")
            self.log.flush()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state = None  # set in main

    def log_message(self, *args):  # keep stderr quiet
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        if len(raw) < length:
            # The sender went away inside the body (a delivery process killed mid-send): an
            # incomplete request is not one a server accepts, so it is neither answered nor
            # recorded.
            self.close_connection = True
            return
        body = raw.decode("utf-8", "replace")
        seq, answer = self.state.take()
        kind, _, arg = answer.partition(":")
        entry = {
            "t": time.time(),
            "seq": seq,
            "path": self.path,
            "headers": {k: v for k, v in self.headers.items()},
            "body": body,
            "answer": answer,
            "status": int(kind) if kind.isdigit() else None,
        }
        # Recorded before answering: a 200 the client never read still counts as accepted.
        self.state.record(entry)
        if kind == "hang":
            time.sleep(float(arg or "5"))
            self.close_connection = True
            return
        if kind == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
            self.close_connection = True
            self._reset = True
            self.connection.close()
            return
        status = int(kind)
        payload = b"ok" if 200 <= status < 300 else ("error %d" % status).encode()
        try:
            self.send_response(status)
            if arg and status in (429, 503):
                self.send_header("Retry-After", arg)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(payload)
        except OSError:
            pass  # the client went away (killed): its answer is recorded already
        self.close_connection = True

    def finish(self):
        if getattr(self, "_reset", False):
            return
        try:
            super().finish()
        except OSError:
            pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a killed client's broken pipe is expected


def main():
    args = parse_args()
    Handler.state = State(args.script, args.log)
    server = Server(("127.0.0.1", args.port), Handler)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever(poll_interval=0.05)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
