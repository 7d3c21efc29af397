#!/usr/bin/env python3
"""Sends exactly COUNT operations, one after the other, on one keep-alive connection, and checks
every response; the load driver of tests/bench/instructions.sh.

    drive.py --url URL [--token TOKEN] --route ROUTE --count COUNT [--per-connection K]
             [--timeout SECONDS]

Routes (each request is a POST to URL with the same headers as ping.lua, unless said otherwise):
  ping        initialize + notifications/initialized (set-up, once), then COUNT `ping`s in that
              session; each answer must be 200 application/json with that id and a result.
  resources   the same set-up, then COUNT `resources/list`; each answer must be 200
              text/event-stream: a priming event (an id, `retry` and empty data), then an event
              whose data has that id and a result.
  initialize  COUNT operations of two requests: `initialize` (200 JSON with that id, a result and
              an MCP-Session-Id), then DELETE of that session (204).
  poll        the same set-up, then COUNT GETs of the session's notification stream (`Accept:
              text/event-stream`); each answer must be 200 text/event-stream opening with a priming
              event (the first also carries the session's notification).
  reconnect   the same set-up, then COUNT operations of two requests: `tools/call` of
              `test_reconnection` (200, an event stream holding only its priming event), then a
              GET with that event's id as `Last-Event-ID` (200: a new priming event, the call's
              notification, then its result with that id).
  unauthorized COUNT `initialize`s without a token, each on a fresh connection (the server closes
              after it): each answer must be 401 with a `WWW-Authenticate` challenge.
  raw-ping    COUNT `ping`s without session or token (for raw-limit, which answers every request
              with a fixed result: only the 200 and the "result" are checked).

Connections: a new one is opened after every K requests (default 1000, the server's own
requests-per-connection budget, so every server sees the same connection churn), and whenever a
response says `Connection: close` (loopback-mcp-http does so on the 1000th request of a
connection); a close without a complete response is a failure.

What it does not do: no concurrency, no timing worth quoting (the server usually runs under
valgrind), no retries; the first bad answer, closed connection or timeout ends it with exit
status 1. Prints one line: `DRIVE route=... count=... requests=... seconds=...`. Standard library
only; 127.0.0.1 URLs only.
"""

import argparse
import json
import socket
import sys
import time
from urllib.parse import urlsplit

PROTOCOL_VERSION = "2025-11-25"


class Failure(Exception):
    pass


class Connection:
    def __init__(self, host, port, timeout):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise Failure("connection closed by the server")
        self.buf += chunk

    def exchange(self, request):
        """Sends one request; returns (status, headers with lower-case names, body)."""
        self.sock.sendall(request)
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.1"):
            raise Failure(f"bad status line {lines[0]!r}")
        status = int(parts[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "transfer-encoding" in headers:
            raise Failure("chunked responses are not supported by this driver")
        length = int(headers.get("content-length", "0"))
        while len(self.buf) < length:
            self._fill()
        body, self.buf = self.buf[:length], self.buf[length:]
        closing = headers.get("connection", "").lower() == "close"
        return status, headers, body, closing


class Client:
    """Sequential exchanges; reconnects after `per_connection` requests or when told to close."""

    def __init__(self, port, timeout, per_connection):
        self.port, self.timeout, self.per_connection = port, timeout, per_connection
        self.conn, self.used = None, 0

    def exchange(self, request):
        if self.conn is None:
            self.conn, self.used = Connection("127.0.0.1", self.port, self.timeout), 0
        status, headers, body, closing = self.conn.exchange(request)
        self.used += 1
        if closing or self.used >= self.per_connection:
            if closing and self.conn.buf:
                raise Failure("bytes after a response that closes the connection")
            self.close()
        return status, headers, body

    def close(self):
        if self.conn is not None:
            self.conn.sock.close()
            self.conn = None


def request(method, host, path, fields, body=b""):
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}"]
    lines += [f"{name}: {value}" for name, value in fields]
    if method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def check_json_reply(status, headers, body, want_id, what):
    if status != 200 or headers.get("content-type") != "application/json":
        raise Failure(f"{what}: status {status}, content-type {headers.get('content-type')!r}")
    reply = json.loads(body)
    if reply.get("id") != want_id or "result" not in reply or "error" in reply:
        raise Failure(f"{what}: unexpected body {body[:200]!r}")


def check_event_reply(status, headers, body, want_id, what):
    if status != 200 or headers.get("content-type") != "text/event-stream":
        raise Failure(f"{what}: status {status}, content-type {headers.get('content-type')!r}")
    events = body.decode().split("\n\n")
    prime = events[0].split("\n")
    if len(prime) != 3 or not prime[0].startswith("id: ") or not prime[1].startswith("retry: ") or prime[2] != "data:":
        raise Failure(f"{what}: no priming event first: {events[0][:200]!r}")
    second = events[1] if len(events) > 1 else ""
    data = "\n".join(l[5:].lstrip(" ") for l in second.split("\n") if l.startswith("data:"))
    reply = json.loads(data)
    if reply.get("id") != want_id or "result" not in reply or "error" in reply:
        raise Failure(f"{what}: unexpected event {second[:200]!r}")


def sse_events(body):
    """The events of an event-stream body: dicts of their fields (data lines joined)."""
    events = []
    for block in body.decode().split("\n\n"):
        if not block:
            continue
        event = {}
        for line in block.split("\n"):
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            event[name] = event[name] + "\n" + value if name in event and name == "data" else value
        events.append(event)
    return events


def check_stream(status, headers, body, what):
    """A 200 event stream that opens with a priming event; its events."""
    if status != 200 or headers.get("content-type") != "text/event-stream":
        raise Failure(f"{what}: status {status}, content-type {headers.get('content-type')!r}")
    events = sse_events(body)
    if not events or set(events[0]) != {"id", "retry", "data"} or events[0]["data"] != "":
        raise Failure(f"{what}: no priming event first: {body[:200]!r}")
    return events


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", default="")
    routes = ["ping", "resources", "initialize", "poll", "reconnect", "unauthorized", "raw-ping"]
    parser.add_argument("--route", required=True, choices=routes)
    parser.add_argument("--count", required=True, type=int)
    parser.add_argument("--per-connection", type=int, default=1000, help="requests per connection")
    parser.add_argument("--timeout", type=float, default=60.0, help="per socket operation")
    args = parser.parse_args()
    url = urlsplit(args.url)
    if url.scheme != "http" or url.hostname != "127.0.0.1" or not url.port:
        sys.exit("drive.py: only http://127.0.0.1:PORT/... URLs")
    host = f"127.0.0.1:{url.port}"
    path = url.path or "/"
    if args.count < 1 or args.per_connection < 1:
        sys.exit("drive.py: --count and --per-connection must be positive")
    conn = Client(url.port, args.timeout, args.per_connection)
    base = [("Accept", "application/json, text/event-stream"), ("Content-Type", "application/json")]
    if args.token:
        base.append(("Authorization", f"Bearer {args.token}"))

    def post(fields, body):
        return conn.exchange(request("POST", host, path, fields, body.encode()))

    def initialize(id):
        body = json.dumps({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}}}, separators=(",", ":"))
        status, headers, reply = post(base, body)
        check_json_reply(status, headers, reply, id, "initialize")
        session = headers.get("mcp-session-id")
        if not session:
            raise Failure("initialize: no MCP-Session-Id")
        return session

    def in_session(session):
        return base + [("MCP-Protocol-Version", PROTOCOL_VERSION), ("MCP-Session-Id", session)]

    requests = 0
    began = time.monotonic()
    try:
        if args.route in ("ping", "resources", "poll", "reconnect"):
            session = initialize(0)
            status, _, _ = post(in_session(session), '{"jsonrpc":"2.0","method":"notifications/initialized"}')
            if status != 202:
                raise Failure(f"notifications/initialized: status {status}")
            requests += 2
            fields = in_session(session)
        if args.route == "poll":
            get = [("Accept", "text/event-stream")] + [f for f in fields if f[0] != "Accept" and f[0] != "Content-Type"]
            for i in range(1, args.count + 1):
                check_stream(*conn.exchange(request("GET", host, path, get)), "GET poll")
                requests += 1
        elif args.route == "reconnect":
            get = [("Accept", "text/event-stream")] + [f for f in fields if f[0] != "Accept" and f[0] != "Content-Type"]
            for i in range(1, args.count + 1):
                call = f'{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"test_reconnection","arguments":{{}}}}}}'
                events = check_stream(*post(fields, call), "tools/call")
                if len(events) != 1:
                    raise Failure(f"tools/call: {len(events)} events, not the priming event alone")
                resumed = check_stream(*conn.exchange(request("GET", host, path, get + [("Last-Event-ID", events[0]["id"])])), "resumption")
                if len(resumed) != 3 or json.loads(resumed[2]["data"]).get("id") != i:
                    raise Failure(f"resumption: {len(resumed)} events, not prime, notification and result {i}")
                requests += 2
        elif args.route == "unauthorized":
            fields = [f for f in base if f[0] != "Authorization"]
            body = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}'
            for i in range(1, args.count + 1):
                status, headers, _ = post(fields, body)
                if status != 401 or "www-authenticate" not in headers:
                    raise Failure(f"no token: status {status}")
                requests += 1
            conn.close()
        if args.route in ("ping", "resources"):
            method = "ping" if args.route == "ping" else "resources/list"
            check = check_json_reply if args.route == "ping" else check_event_reply
            for i in range(1, args.count + 1):
                status, headers, reply = post(fields, f'{{"jsonrpc":"2.0","id":{i},"method":"{method}"}}')
                check(status, headers, reply, i, method)
                requests += 1
        elif args.route == "initialize":
            for i in range(1, args.count + 1):
                session = initialize(i)
                fields = [f for f in base if f[0] == "Authorization"]
                fields += [("MCP-Protocol-Version", PROTOCOL_VERSION), ("MCP-Session-Id", session)]
                status, _, body = conn.exchange(request("DELETE", host, path, fields))
                if status != 204:
                    raise Failure(f"DELETE: status {status} {body[:200]!r}")
                requests += 2
        elif args.route == "raw-ping":
            fields = base + [("MCP-Protocol-Version", PROTOCOL_VERSION)]
            for i in range(1, args.count + 1):
                status, _, reply = post(fields, f'{{"jsonrpc":"2.0","id":{i},"method":"ping"}}')
                if status != 200 or b'"result"' not in reply:
                    raise Failure(f"raw ping: status {status}, body {reply[:200]!r}")
                requests += 1
    except (Failure, OSError, ValueError) as e:
        print(f"drive.py: {args.route} failed after {requests} requests: {e}", file=sys.stderr)
        sys.exit(1)
    conn.close()
    print(f"DRIVE route={args.route} count={args.count} requests={requests} "
          f"seconds={time.monotonic() - began:.2f}")


if __name__ == "__main__":
    main()
