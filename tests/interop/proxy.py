"""A loopback forwarding proxy in front of `serve` that can add a bearer token and record the wire.

Two jobs, each optional:
  - token injection: the official conformance suite sends no credentials, and this server requires
    a bearer token on /mcp, so the proxy inserts `Authorization: Bearer <token>` into each request
    head (refusing a request that already carries one);
  - recording: one JSON line per exchange (request and final response) in a log file, so that a
    check can assert what a real client put on the wire (methods, versions, Last-Event-ID,
    Mcp-Param fields, statuses, SSE event ids) instead of trusting what the client reports about
    itself.

Otherwise it changes nothing: Host and Origin pass through as the client sent them, bodies and
responses are forwarded byte for byte, and when the server closes an idle connection the proxy
closes the client's connection to it as well. It understands only what it must to find message
boundaries: request heads end at CRLF CRLF and bodies are Content-Length long (this server refuses
every other framing anyway); responses are read the same way, 1xx responses included, except that a chunked response (a stream
the server writes as it happens) is forwarded chunk by chunk as each one arrives, so that a client
behind the proxy sees every event when the server sends it, and the proxy closes the server's
connection as soon as the client's closes (which the server may read as a cancellation).

A record never holds a secret: no header value but MCP-Protocol-Version, Origin, Host, Mcp-Method,
Mcp-Name and Mcp-Param-* is kept; session ids are replaced by the first 8 hex digits of their
SHA-256 (enough to tell sessions apart), and event ids (`<session tag>-g<n>`,
`<session tag>-p<k>-<n>`) keep only their stream part (`g<n>`, `p<k>-<n>`). Record fields:
  t, t_end        seconds since the proxy started: request head seen, response fully forwarded
  conn            client connection number; method, target, host, origin
  version         the MCP-Protocol-Version field, or null
  auth            whether the request carried an Authorization field (as sent by the client)
  session         digest of the request's MCP-Session-Id, or null
  last_event_id   stream part of Last-Event-ID, or null
  rpc             the JSON-RPC method of the request body ("<response>" for a client response)
  detail          the protocolVersion an initialize asks for, the level a logging/setLevel sets,
                  the JSON-RPC id of a subscriptions/listen
  mcp_fields      the request's Mcp-Method, Mcp-Name and Mcp-Param-* fields as sent, each
                  [name as spelled, value] in order (routing values, never secrets)
  status          the final response status, from its head (so also for a stream cut short);
                  challenge: its WWW-Authenticate value, or null
  error           `error.message` of a JSON error body (this server's public code), or null;
                  error_code its `error.code`, error_header its `error.data.header`, or null
  tool_result     for a response holding a JSON-RPC result with `content` (a tools/call result,
                  as JSON or in an event): {"is_error": result.isError, "texts": [each text]}
  issued_session  digest of an MCP-Session-Id the response handed out, or null
  events          for an event stream: [{"id": "g1" or "p2-1" or null, "retry": ms or null,
                  "priming": bool (an id and empty data), "method": ..., "event": data.event of a
                  notifications/message, "response": bool, "subscription": the
                  subscription id in params._meta}] (a comment-only block is an
                  event with nothing set); for a chunked stream, as far as it got
  comments        for an event stream: how many comment lines (keep-alives) it held
  aborted         true when the client or the server went away before the exchange completed

Usage as a program (the conformance run): python3 proxy.py LISTEN_PORT_FILE SERVE_LINE_FILE ROLE
[--record LOG]. It binds 127.0.0.1 on a free port and writes that port to LISTEN_PORT_FILE (so
`serve` can be told to allow that Host and Origin), then waits for SERVE_LINE_FILE, the JSON line
`serve` printed, and forwards to its URL with the token of ROLE (`-` for no token).

Usage as a module: `Proxy(token=None, record=path)` binds at once (see `.port`); `.start(port)`
forwards to `serve` on that port; `.records()` reads the log back.
"""

import argparse
import hashlib
import json
import re
import select
import socket
import threading
import time

HEAD_MAX = 64 * 1024


def read_until(sock, buf, end_mark):
    """Reads until `end_mark`; returns (what came before it with the mark, rest), or (None, buf) at
    EOF or past HEAD_MAX bytes without it."""
    while end_mark not in buf:
        if len(buf) > HEAD_MAX:
            return None, buf
        chunk = sock.recv(65536)
        if not chunk:
            return None, buf
        buf += chunk
    end = buf.index(end_mark) + len(end_mark)
    return buf[:end], buf[end:]


def read_head(sock, buf):
    """Reads until CRLF CRLF; returns (head, rest) or (None, buf) at EOF."""
    return read_until(sock, buf, b"\r\n\r\n")


def read_exact(sock, buf, n):
    while len(buf) < n:
        chunk = sock.recv(65536)
        if not chunk:
            return None, buf
        buf += chunk
    return buf[:n], buf[n:]


def is_chunked(head):
    return re.search(rb"\r\ntransfer-encoding:[ \t]*chunked[ \t]*\r\n", head, re.IGNORECASE) is not None


def read_line(sock, buf):
    """Reads until CRLF; returns (line with its CRLF, rest) or (None, buf) at EOF."""
    return read_until(sock, buf, b"\r\n")


class Watching:
    """`upstream` as read while a stream is forwarded, also watching the client: its recv answers
    b"" (as at the end of the stream) as soon as the client has closed its side, so that the
    proxy closes the server's connection then, not at the next chunk it fails to forward."""

    def __init__(self, upstream, client):
        self.upstream, self.client, self.watch = upstream, client, True

    def recv(self, n):
        while self.watch:
            readable, _, _ = select.select([self.upstream, self.client], [], [])
            if self.client in readable:
                try:
                    peeked = self.client.recv(1, socket.MSG_PEEK)
                except OSError:
                    peeked = b""
                if not peeked:
                    return b""
                self.watch = False  # the client sent something: that is no close
            if self.upstream in readable:
                break
        return self.upstream.recv(n)


def forward_chunks(upstream, buf, client, entry):
    """Forwards a chunked body from `upstream` to `client`, each chunk as soon as it is complete,
    recording its events into `entry` as they pass; returns (the decoded body, rest) or
    (None, buf) when either side went away first."""
    body = b""
    upstream = Watching(upstream, client)
    while True:
        size_line, buf = read_line(upstream, buf)
        if size_line is None:
            return None, buf
        size = int(size_line.split(b";", 1)[0].strip(), 16)
        if size == 0:
            trailer = b""
            while True:
                line, buf = read_line(upstream, buf)
                if line is None:
                    return None, buf
                trailer += line
                if line == b"\r\n":
                    break
            client.sendall(size_line + trailer)
            return body, buf
        data, buf = read_exact(upstream, buf, size + 2)
        if data is None:
            return None, buf
        body += data[:size]
        entry["events"], entry["comments"] = sse_events(body), sse_comments(body)
        client.sendall(size_line + data)


def client_speaks_first(client, upstream):
    """Waits between requests. False when the server closes its side of an idle connection (as
    this server does after its idle deadline) before the client sends anything: the proxy then
    closes the client's connection too, so a client sees the close as it would without a proxy
    instead of sending its next request into a dead connection."""
    while True:
        readable, _, _ = select.select([client, upstream], [], [])
        if upstream in readable:
            return False
        if client in readable:
            return True


def content_length(head):
    match = re.search(rb"\r\ncontent-length:[ \t]*(\d+)[ \t]*\r\n", head, re.IGNORECASE)
    return int(match.group(1)) if match else 0


def status_of(head):
    return int(head.split(b" ", 2)[1])


def fields_of(head):
    """The head's fields as {lowercase name: [values]}."""
    fields = {}
    for line in head.split(b"\r\n")[1:]:
        if b":" in line:
            name, value = line.split(b":", 1)
            fields.setdefault(name.strip().lower().decode("latin-1"), []).append(
                value.strip().decode("latin-1")
            )
    return fields


def digest(secret):
    """An irreversible short name for a session id."""
    return hashlib.sha256(secret.encode("latin-1")).hexdigest()[:8]


def stream_part(event_id):
    """`<tag>-g3` -> `g3`: the stream part of an event id, without the per-session tag."""
    return event_id.split("-", 1)[1] if "-" in event_id else event_id


def one(fields, name):
    values = fields.get(name)
    return values[0] if values else None


def rpc_of(body):
    """(JSON-RPC method or "<response>"/"<batch>", detail): the detail is the protocolVersion an
    initialize asks for, the level a logging/setLevel sets and the id of a subscriptions/listen
    (the subscription id its stream's messages must carry), else None."""
    try:
        message = json.loads(body)
    except ValueError:
        return None, None
    if isinstance(message, list):
        return "<batch>", None
    if not isinstance(message, dict):
        return None, None
    method = message.get("method")
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    detail = {
        "initialize": params.get("protocolVersion"),
        "logging/setLevel": params.get("level"),
        "subscriptions/listen": message.get("id"),
    }.get(method)
    return method or "<response>", detail


def error_of(body):
    """(message, code, data.header) of a JSON-RPC error body; Nones otherwise."""
    try:
        message = json.loads(body)
    except ValueError:
        return None, None, None
    if isinstance(message, dict) and isinstance(message.get("error"), dict):
        error = message["error"]
        data = error.get("data") if isinstance(error.get("data"), dict) else {}
        return error.get("message"), error.get("code"), data.get("header")
    return None, None, None


MCP_FIELD = re.compile(r"mcp-(method|name|param-.*)", re.IGNORECASE)


def mcp_fields_of(head):
    """[name as spelled, value] of each Mcp-Method, Mcp-Name and Mcp-Param-* field, in order."""
    found = []
    for line in head.split(b"\r\n")[1:]:
        if b":" in line:
            name, value = line.split(b":", 1)
            name = name.strip().decode("latin-1")
            if MCP_FIELD.fullmatch(name):
                found.append([name, value.strip().decode("latin-1")])
    return found


def tool_result_of(content_type, body):
    """{"is_error", "texts"} of the first JSON-RPC result with `content` in a JSON body or in the
    data of an event stream; None when there is none."""
    if content_type == "application/json":
        payloads = [body.decode("utf-8", "replace")]
    elif content_type == "text/event-stream":
        payloads = []
        for block in re.split(r"\r?\n\r?\n", body.decode("utf-8", "replace")):
            data = [line[5:].lstrip(" ") if line.startswith("data:") else None for line in block.splitlines()]
            if any(d is not None for d in data):
                payloads.append("\n".join(d for d in data if d is not None))
    else:
        return None
    for payload in payloads:
        try:
            message = json.loads(payload)
        except ValueError:
            continue
        result = message.get("result") if isinstance(message, dict) else None
        if isinstance(result, dict) and isinstance(result.get("content"), list):
            content = [c for c in result["content"] if isinstance(c, dict)]
            texts = [c.get("text") for c in content if c.get("type") == "text"]
            return {"is_error": result.get("isError"), "texts": texts}
    return None


def sse_comments(body):
    """How many comment lines (`:` first, as a keep-alive) an event-stream body holds."""
    return sum(1 for line in re.split(rb"\r?\n", body) if line.startswith(b":"))


def sse_events(body):
    """Each event of an event-stream body, summarized (see the module doc)."""
    events = []
    for block in re.split(r"\r?\n\r?\n", body.decode("utf-8", "replace")):
        if not block.strip():
            continue
        event = {
            "id": None,
            "retry": None,
            "priming": False,
            "method": None,
            "event": None,
            "response": False,
            "subscription": None,
        }
        data = []
        for line in block.splitlines():
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "id":
                event["id"] = stream_part(value)
            elif name == "retry":
                event["retry"] = int(value)
            elif name == "data":
                data.append(value)
        event["priming"] = event["id"] is not None and data == [""]
        if data and not event["priming"]:
            try:
                message = json.loads("\n".join(data))
            except ValueError:
                message = {}
            event["method"] = message.get("method")
            event["response"] = "result" in message or "error" in message
            params = message.get("params") or {}
            if isinstance(params.get("data"), dict):
                event["event"] = params["data"].get("event")
            meta = params.get("_meta") if isinstance(params, dict) else None
            if isinstance(meta, dict):
                event["subscription"] = meta.get("io.modelcontextprotocol/subscriptionId")
        events.append(event)
    return events


class Proxy:
    def __init__(self, token=None, record=None):
        self.token = token.encode() if isinstance(token, str) else token
        self.record_path = record
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.connections = 0
        self.active = 0
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.upstream_port = None
        if record:
            open(record, "w").close()

    def now(self):
        return round(time.monotonic() - self.started, 4)

    def start(self, upstream_port):
        self.upstream_port = upstream_port
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def close(self):
        self.listener.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def records(self, settle_s=2.0):
        """The exchanges recorded so far, once every client connection has closed (bounded)."""
        deadline = time.monotonic() + settle_s
        while self.active and time.monotonic() < deadline:
            time.sleep(0.02)
        with open(self.record_path) as f:
            return [json.loads(line) for line in f if line.strip()]

    def _write(self, entry):
        if not self.record_path:
            return
        with self.lock, open(self.record_path, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
                self.active += 1
                conn = self.connections
            threading.Thread(target=self._serve_client, args=(client, conn), daemon=True).start()

    def _serve_client(self, client, conn):
        upstream = None
        cbuf, ubuf = b"", b""
        entry = None
        try:
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            while True:
                if not cbuf and not client_speaks_first(client, upstream):
                    return
                head, cbuf = read_head(client, cbuf)
                if head is None:
                    return
                fields = fields_of(head)
                request_line = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
                session = one(fields, "mcp-session-id")
                last_event_id = one(fields, "last-event-id")
                entry = {
                    "t": self.now(),
                    "t_end": None,
                    "conn": conn,
                    "method": request_line[0],
                    "target": request_line[1] if len(request_line) > 1 else "",
                    "host": one(fields, "host"),
                    "origin": one(fields, "origin"),
                    "version": one(fields, "mcp-protocol-version"),
                    "auth": "authorization" in fields,
                    "session": digest(session) if session is not None else None,
                    "last_event_id": stream_part(last_event_id) if last_event_id is not None else None,
                    "rpc": None,
                    "detail": None,
                    "mcp_fields": mcp_fields_of(head),
                    "status": None,
                    "challenge": None,
                    "error": None,
                    "error_code": None,
                    "error_header": None,
                    "tool_result": None,
                    "issued_session": None,
                    "events": None,
                    "comments": None,
                    "aborted": True,
                }
                if self.token is not None and entry["auth"]:
                    client.sendall(
                        b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    )
                    return
                body, cbuf = read_exact(client, cbuf, content_length(head))
                if body is None:
                    return
                if body:
                    entry["rpc"], entry["detail"] = rpc_of(body)
                if self.token is not None:
                    line_end = head.index(b"\r\n") + 2
                    head = (
                        head[:line_end] + b"Authorization: Bearer " + self.token + b"\r\n" + head[line_end:]
                    )
                upstream.sendall(head + body)
                while True:
                    rhead, ubuf = read_head(upstream, ubuf)
                    if rhead is None:
                        return
                    status = status_of(rhead)
                    if status >= 200:
                        # Known from the head, so kept even when a stream is cut short.
                        rfields = fields_of(rhead)
                        issued = one(rfields, "mcp-session-id")
                        entry["status"] = status
                        entry["challenge"] = one(rfields, "www-authenticate")
                        entry["issued_session"] = digest(issued) if issued is not None else None
                    if status >= 200 and is_chunked(rhead):
                        client.sendall(rhead)
                        rbody, ubuf = forward_chunks(upstream, ubuf, client, entry)
                        if rbody is None:
                            return
                        streamed = True
                    else:
                        length = 0 if status < 200 or status in (204, 304) else content_length(rhead)
                        rbody, ubuf = read_exact(upstream, ubuf, length)
                        if rbody is None:
                            return
                        streamed = False
                    if status >= 200:
                        content_type = (one(rfields, "content-type") or "").split(";")[0].strip()
                        if content_type == "text/event-stream":
                            entry["events"], entry["comments"] = sse_events(rbody), sse_comments(rbody)
                        elif content_type == "application/json":
                            entry["error"], entry["error_code"], entry["error_header"] = error_of(rbody)
                        entry["tool_result"] = tool_result_of(content_type, rbody)
                    if not streamed:
                        client.sendall(rhead + rbody)
                    if status >= 200:
                        break
                entry["t_end"] = self.now()
                entry["aborted"] = False
                self._write(entry)
                entry = None
                if re.search(rb"\r\nconnection:[^\r]*close", rhead, re.IGNORECASE):
                    return
        except OSError:
            return
        finally:
            if entry is not None:
                entry["t_end"] = self.now()
                self._write(entry)
            client.close()
            if upstream is not None:
                upstream.close()
            with self.lock:
                self.active -= 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("port_file")
    parser.add_argument("serve_line_file")
    parser.add_argument("role", help="the role whose token is added, or - for none")
    parser.add_argument("--record", help="write one JSON line per exchange to this file")
    args = parser.parse_args()
    token = None
    proxy = Proxy(record=args.record)
    with open(args.port_file, "w") as f:
        f.write(str(proxy.port))
    line = ""
    while not line.endswith("\n"):
        time.sleep(0.05)
        try:
            with open(args.serve_line_file) as f:
                line = f.readline()
        except FileNotFoundError:
            pass
    serve = json.loads(line)
    if args.role != "-":
        token = serve["tokens"][args.role]
    proxy.token = token.encode() if token else None
    proxy.start(int(serve["url"].split(":")[2].split("/")[0]))
    threading.Event().wait()


if __name__ == "__main__":
    main()
