"""A strict MCP 2025-11-25 server, written from the specification for the probe to be judged by:
it keeps every rule `probe` judges, and can switch on one flaw (a rule broken) or one legal
variant (a rule kept in an unusual way) at a time. It shares no code with the project.

    python3 strict_server.py PORT_FILE TOKEN OTHER_TOKEN [--flaw NAME | --variant NAME]

It listens on 127.0.0.1, a free port, written to PORT_FILE. TOKEN and OTHER_TOKEN are the two
principals' bearer tokens. FLAWS and VARIANTS below list the switches.
"""
import json
import secrets
import socket
import sys
import threading
import time

FLAWS = {
    "token-403": "a bad or missing token is answered 403",
    "basic-challenge": "the 401 carries a Basic challenge alone",
    "no-metadata-link": "the Bearer challenge names no resource_metadata",
    "dead-link": "resource_metadata names a URL that answers 404",
    "foreign-resource": "the metadata's resource names another server",
    "no-metadata": "no metadata anywhere, and no link",
    "delete-keeps-session": "DELETE answers 204 and the session goes on",
    "session-400": "an ended or unknown session is answered 400",
    "other-principal-accepted": "a session answers another principal's token",
    "delete-other": "DELETE ends another principal's session",
    "replay-all": "a GET stream replays every session's events, whatever Last-Event-ID says",
    "get-without-session": "a GET stream opens without a session id",
    "echo-token": "errors repeat the Authorization value",
    "query-token": "a token in ?access_token= is taken",
    "version-200": "an unsupported version is answered 200, and initialize echoes it",
    "sse-no-content-type": "event streams carry no Content-Type",
    "origin-400": "a foreign Origin is answered 400",
    "cancel-ignored": "a cancellation is ignored",
    "cancel-cross": "a cancellation is honoured from another session",
    "405-no-allow": "405 carries no Allow",
    "te-cl-kept-open": "Transfer-Encoding with Content-Length is answered 400 on a connection kept open",
    "notification-200": "a notification is answered 200 with a body",
    "session-id-space": "session ids hold a space",
    "delete-twice-200": "a second DELETE of an ended session is answered 200",
    "get-json": "the GET stream is answered with JSON",
    "no-authorization-servers": "the metadata lists no authorization server",
    "event-ids-per-stream": "event ids count from 1 on every stream",
    "delete-no-session-204": "DELETE without a session id is answered 204",
}
VARIANTS = {
    "challenge-list": "Basic and Bearer challenges in one WWW-Authenticate line",
    "upper-params": "challenge parameter names in upper case",
    "all-sse": "every answer to a request is an event stream",
    "no-delete": "DELETE is answered 405 with Allow",
    "root-metadata": "the metadata only at the root well-known URI, which the challenge names",
    "query-ignored": "a token in the query is ignored",
    "stateless": "no sessions: initialize mints no id, GET and DELETE are answered 405 with Allow",
}

WELL_KNOWN = "/.well-known/oauth-protected-resource"
HEAD_BYTES_MAX = 16 * 1024
FIELDS_MAX = 100
VALUE_BYTES_MAX = 8 * 1024
BODY_BYTES_MAX = 1024 * 1024
TCHAR = set(b"!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


class Refusal(Exception):
    """A request refused before it is read whole: the status, and whether to close."""

    def __init__(self, status, code, close=True):
        super().__init__(code)
        self.status, self.code, self.close = status, code, close


class State:
    def __init__(self, port, tokens, flaw, variant):
        self.port, self.flaw, self.variant = port, flaw, variant
        self.tokens = {tokens[0]: "alice", tokens[1]: "mallory"}
        self.lock = threading.Lock()
        self.sessions = {}  # id -> principal
        self.ended = set()
        self.events = {}  # session id -> [(event id, stream, data)]
        self.calls = {}  # (session id, request id) -> threading.Event (cancelled)
        self.counter = 0

    def next_id(self, session, stream):
        with self.lock:
            self.counter += 1
            return f"{session[:8]}-{stream}-{self.counter}"

    def record(self, session, event_id, stream, data):
        with self.lock:
            self.events.setdefault(session, []).append((event_id, stream, data))


def head_end(buf):
    at = buf.find(b"\r\n\r\n")
    return at + 4 if at >= 0 else -1


def read_head(conn, buf):
    """The head of the next request: (method, target, version, fields, rest) or None at the end."""
    while head_end(buf) < 0:
        if len(buf) > HEAD_BYTES_MAX:
            raise Refusal(431, "head_too_large")
        bare = buf.replace(b"\r\n", b"")
        if b"\n" in bare or b"\r" in bare[:-1]:
            raise Refusal(400, "bare_line_end")
        chunk = conn.recv(65536)
        if not chunk:
            return None
        buf += chunk
    end = head_end(buf)
    head, rest = buf[:end - 4], buf[end:]
    if b"\n" in head.replace(b"\r\n", b"") or b"\r" in head.replace(b"\r\n", b""):
        raise Refusal(400, "bare_line_end")
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3 or not parts[0] or not set(parts[0]) <= TCHAR or parts[2] != b"HTTP/1.1":
        raise Refusal(400, "bad_request_line")
    fields = []
    for line in lines[1:]:
        if line[:1] in (b" ", b"\t"):
            raise Refusal(400, "folded_line")
        name, colon, value = line.partition(b":")
        if not colon or not name or not set(name) <= TCHAR:
            raise Refusal(400, "bad_field")
        if len(value) > VALUE_BYTES_MAX:
            raise Refusal(431, "value_too_large")
        fields.append((name.decode().lower(), value.strip(b" \t").decode("latin-1")))
        if len(fields) > FIELDS_MAX:
            raise Refusal(431, "too_many_fields")
    return parts[0].decode(), parts[1].decode("latin-1"), fields, rest


def one(fields, name):
    values = [v for n, v in fields if n == name]
    return values[0] if len(values) == 1 else None


def framing(state, fields):
    """The body length, or a refusal of the framing (RFC 9112 §6)."""
    hosts = [v for n, v in fields if n == "host"]
    if len(hosts) != 1:
        raise Refusal(400, "host")
    te = [v for n, v in fields if n == "transfer-encoding"]
    cl = [v for n, v in fields if n == "content-length"]
    if te:
        if cl:
            raise Refusal(400, "te_with_cl", close=state.flaw != "te-cl-kept-open")
        if te == ["chunked"]:
            raise Refusal(501, "chunked_not_implemented")
        raise Refusal(400, "transfer_coding")
    if len(cl) > 1 or (cl and not cl[0].isdigit()):
        raise Refusal(400, "content_length")
    length = int(cl[0]) if cl else 0
    if length > BODY_BYTES_MAX:
        raise Refusal(413, "too_large")
    return length


def write(conn, status, body=b"", fields=(), close=False, content_type="application/json"):
    reasons = {200: "OK", 202: "Accepted", 204: "No Content", 400: "Bad Request",
               401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
               406: "Not Acceptable", 413: "Content Too Large", 415: "Unsupported Media Type",
               421: "Misdirected Request", 431: "Request Header Fields Too Large",
               501: "Not Implemented"}
    head = f"HTTP/1.1 {status} {reasons.get(status, 'Status')}\r\n"
    if body and content_type:
        head += f"Content-Type: {content_type}\r\n"
    for name, value in fields:
        head += f"{name}: {value}\r\n"
    if close:
        head += "Connection: close\r\n"
    if status != 204:
        head += f"Content-Length: {len(body)}\r\n"
    conn.sendall(head.encode("latin-1") + b"\r\n" + body)


def error_body(code, message):
    return json.dumps({"jsonrpc": "2.0", "error": {"code": code, "message": message}}).encode()


def serve(conn, state):
    buf = b""
    try:
        while True:
            try:
                parsed = read_head(conn, buf)
                if parsed is None:
                    return
                method, target, fields, buf = parsed
                length = framing(state, fields)
            except Refusal as refusal:
                write(conn, refusal.status, error_body(-32600, refusal.code), close=refusal.close)
                if refusal.close:
                    return
                # The flaw: the bytes after the refused head are read as the next request.
                continue
            while len(buf) < length:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buf += chunk
            body, buf = buf[:length], buf[length:]
            if not Request(conn, state, method, target, fields, body).answer():
                return
    except (OSError, ValueError):
        return
    finally:
        conn.close()


class Request:
    def __init__(self, conn, state, method, target, fields, body):
        self.conn, self.state, self.method, self.target = conn, state, method, target
        self.fields, self.body = fields, body
        self.flaw, self.variant = state.flaw, state.variant
        self.origin = f"http://127.0.0.1:{state.port}"

    def field(self, name):
        return one(self.fields, name)

    def refuse(self, status, message, extra=()):
        text = message
        if self.flaw == "echo-token":
            text = f"{message}: {self.field('authorization')}"
        write(self.conn, status, error_body(-32000, text), extra, close=True)
        return False

    def answer(self):
        """Answers the request; whether the connection goes on."""
        host = self.field("host")
        if host not in (f"127.0.0.1:{self.state.port}", f"localhost:{self.state.port}"):
            return self.refuse(421, "host_not_allowed")
        origin = self.field("origin")
        if origin is not None and origin not in (self.origin, f"http://localhost:{self.state.port}"):
            return self.refuse(400 if self.flaw == "origin-400" else 403, "origin_not_allowed")
        path, _, query = self.target.partition("?")
        if path.startswith(WELL_KNOWN):
            return self.metadata(path)
        if path != "/mcp":
            return self.refuse(404, "not_found")
        if self.method not in ("POST", "GET", "DELETE"):
            allow = () if self.flaw == "405-no-allow" else (("Allow", "GET, POST, DELETE"),)
            return self.refuse(405, "method_not_allowed", allow)
        principal = self.principal(query)
        if principal is None:
            return False
        if self.method == "POST":
            return Post(self, principal).answer()
        if self.method == "GET":
            return self.get(principal)
        return self.delete(principal)

    def principal(self, query):
        """The principal the token names, or None once the refusal is written."""
        token = None
        if query:
            if self.flaw == "query-token" and query.startswith("access_token="):
                token = query.split("=", 1)[1]
            elif self.variant != "query-ignored":
                self.refuse(400, "query_forbidden")
                return None
        authorization = self.field("authorization")
        if authorization and authorization[:7].lower() == "bearer ":
            token = authorization[7:]
        if token is None:
            self.challenge(None)
            return None
        if token not in self.state.tokens:
            self.challenge("invalid_token")
            return None
        return self.state.tokens[token]

    def challenge(self, error):
        link = f"{self.origin}{WELL_KNOWN}/mcp"
        if self.variant == "root-metadata":
            link = f"{self.origin}{WELL_KNOWN}"
        if self.flaw == "dead-link":
            link = f"{self.origin}{WELL_KNOWN}/nowhere"
        names = ("ERROR", "RESOURCE_METADATA") if self.variant == "upper-params" else ("error", "resource_metadata")
        params = [f'{names[0]}="{error}"'] if error else []
        if self.flaw not in ("no-metadata-link", "no-metadata"):
            params.append(f'{names[1]}="{link}"')
        bearer = "Bearer " + ", ".join(params) if params else "Bearer"
        if self.flaw == "basic-challenge":
            value = 'Basic realm="mcp"'
        elif self.variant == "challenge-list":
            value = f'Basic realm="mcp", {bearer}'
        else:
            value = bearer
        status = 403 if self.flaw == "token-403" else 401
        return self.refuse(status, error or "missing_credentials", (("WWW-Authenticate", value),))

    def metadata(self, path):
        if self.method not in ("GET", "HEAD"):
            return self.refuse(405, "method_not_allowed", (("Allow", "GET, HEAD"),))
        served = WELL_KNOWN if self.variant == "root-metadata" else f"{WELL_KNOWN}/mcp"
        if path != served or self.flaw == "no-metadata":
            return self.refuse(404, "not_found")
        resource = "http://127.0.0.1:1/mcp" if self.flaw == "foreign-resource" else f"{self.origin}/mcp"
        servers = [] if self.flaw == "no-authorization-servers" else [f"{self.origin}/as"]
        document = {"resource": resource, "authorization_servers": servers}
        write(self.conn, 200, json.dumps(document).encode())
        return True

    def session(self, principal):
        """The session the request names: its id, or None once the refusal is written."""
        session = self.field("mcp-session-id")
        if self.variant == "stateless":
            session = ""
        elif session is None:
            if self.method == "GET" and self.flaw == "get-without-session":
                return ""
            return self.refuse(400, "session_missing") or None
        owner = principal if self.variant == "stateless" else self.state.sessions.get(session)
        if owner is None or (owner != principal and self.flaw != "other-principal-accepted"):
            gone = self.flaw == "session-400" and (session in self.state.ended or owner is None)
            return self.refuse(400 if gone else 404, "session_not_found") or None
        version = [v for n, v in self.fields if n == "mcp-protocol-version"]
        if len(version) != 1 or (version[0] != "2025-11-25" and self.flaw != "version-200"):
            return self.refuse(400, "protocol_version") or None
        return session

    def get(self, principal):
        if self.variant == "stateless":
            return self.refuse(405, "method_not_allowed", (("Allow", "POST"),))
        if "text/event-stream" not in (self.field("accept") or ""):
            return self.refuse(406, "not_acceptable")
        session = self.session(principal)
        if session is None:
            return False
        if self.flaw == "get-json":
            write(self.conn, 200, b"{}")
            return True
        cursor = self.field("last-event-id")
        replay = []
        with self.state.lock:
            if self.flaw == "replay-all":
                replay = [e for events in self.state.events.values() for e in events]
            elif cursor:
                own = self.state.events.get(session, [])
                at = next((i for i, e in enumerate(own) if e[0] == cursor), None)
                if at is not None:
                    stream = own[at][1]
                    replay = [e for e in own[at + 1:] if e[1] == stream]
        stream = Stream(self, session or "nosession", "get")
        stream.start()
        for event_id, _, data in replay:
            stream.raw_event(event_id, data)
        stream.prime()
        time.sleep(0.3)
        stream.end()
        return False

    def delete(self, principal):
        if self.variant == "stateless":
            return self.refuse(405, "method_not_allowed", (("Allow", "POST"),))
        if self.variant == "no-delete":
            return self.refuse(405, "method_not_allowed", (("Allow", "GET, POST"),))
        session = self.field("mcp-session-id")
        if session is None:
            if self.flaw == "delete-no-session-204":
                write(self.conn, 204)
                return True
            return self.refuse(400, "session_missing")
        owner = self.state.sessions.get(session)
        if session in self.state.ended and self.flaw == "delete-twice-200":
            write(self.conn, 200, b"")
            return True
        if owner is None or (owner != principal and self.flaw != "delete-other"):
            return self.refuse(400 if self.flaw == "session-400" else 404, "session_not_found")
        if self.flaw != "delete-keeps-session":
            del self.state.sessions[session]
            self.state.ended.add(session)
        write(self.conn, 204)
        return True


class Stream:
    """An event stream in the chunked coding, each event recorded for resumption."""

    def __init__(self, request, session, kind):
        self.request, self.session, self.kind = request, session, kind
        self.name = secrets.token_hex(3)
        self.count = 0

    def next_id(self):
        if self.request.flaw == "event-ids-per-stream":
            self.count += 1
            return str(self.count)
        return self.request.state.next_id(self.session, self.name)

    def start(self, extra=()):
        fields = [("Transfer-Encoding", "chunked"), ("Cache-Control", "no-store"), *extra]
        if self.request.flaw != "sse-no-content-type":
            fields.insert(0, ("Content-Type", "text/event-stream"))
        head = "HTTP/1.1 200 OK\r\n" + "".join(f"{n}: {v}\r\n" for n, v in fields) + "\r\n"
        self.request.conn.sendall(head.encode())

    def chunk(self, data):
        self.request.conn.sendall(b"%x\r\n%s\r\n" % (len(data), data))

    def raw_event(self, event_id, data):
        self.chunk(f"id: {event_id}\ndata: {data}\n\n".encode())

    def event(self, data):
        event_id = self.next_id()
        self.request.state.record(self.session, event_id, self.name, data)
        self.raw_event(event_id, data)

    def prime(self):
        event_id = self.next_id()
        self.chunk(f"id: {event_id}\nretry: 1000\ndata:\n\n".encode())

    def end(self):
        self.request.conn.sendall(b"0\r\n\r\n")


class Post:
    def __init__(self, request, principal):
        self.request, self.principal = request, principal

    def answer(self):
        r = self.request
        accept = r.field("accept") or ""
        if "application/json" not in accept or "text/event-stream" not in accept:
            return r.refuse(406, "not_acceptable")
        if (r.field("content-type") or "").split(";")[0].strip() != "application/json":
            return r.refuse(415, "unsupported_media_type")
        message = decode(r.body)
        if not isinstance(message, dict):
            return r.refuse(400, "json_invalid" if message is None else "batch_not_supported")
        if message.get("method") == "initialize" and "id" in message:
            return self.initialize(message)
        session = r.session(self.principal)
        if session is None:
            return False
        if "method" not in message:
            return r.refuse(400, "unsolicited_response")
        if "id" not in message:
            return self.notification(message, session)
        if message["id"] is None or isinstance(message["id"], (bool, float, dict, list)):
            return r.refuse(400, "id_invalid")
        return self.request_answer(message, session)

    def initialize(self, message):
        r = self.request
        asked = (message.get("params") or {}).get("protocolVersion")
        version = asked if r.flaw == "version-200" else "2025-11-25"
        session = secrets.token_hex(16)
        if r.flaw == "session-id-space":
            session = session[:16] + " " + session[16:]
        r.state.sessions[session] = self.principal
        result = {"protocolVersion": version, "capabilities": {"tools": {}},
                  "serverInfo": {"name": "strict", "version": "1"}}
        minted = () if r.variant == "stateless" else (("MCP-Session-Id", session),)
        return self.respond(message["id"], result, minted)

    def notification(self, message, session):
        r = self.request
        if message.get("method") == "notifications/cancelled":
            wanted = (message.get("params") or {}).get("requestId")
            with r.state.lock:
                for (owner, request_id), cancelled in r.state.calls.items():
                    same = owner == session or r.flaw == "cancel-cross"
                    if request_id == wanted and same and r.flaw != "cancel-ignored":
                        cancelled.set()
        if r.flaw == "notification-200":
            write(r.conn, 200, b'{"ok":true}')
        else:
            write(r.conn, 202)
        return True

    def request_answer(self, message, session):
        method = message.get("method")
        if method == "ping":
            return self.respond(message["id"], {})
        if method == "tools/list":
            tool = {"name": "test_tool_slow", "inputSchema": {"type": "object"}}
            return self.respond(message["id"], {"tools": [tool]})
        if method == "tools/call" and (message.get("params") or {}).get("name") == "test_tool_slow":
            return self.slow_call(message, session)
        return self.respond_error(message["id"], -32601, "method_not_found")

    def slow_call(self, message, session):
        r = self.request
        duration = ((message["params"].get("arguments") or {}).get("durationMs") or 100) / 1000
        cancelled = threading.Event()
        key = (session, message["id"])
        with r.state.lock:
            r.state.calls[key] = cancelled
        stream = Stream(r, session, "call")
        stream.start()
        stream.prime()
        if not cancelled.wait(min(duration, 2.0)):
            result = {"content": [{"type": "text", "text": "done"}]}
            stream.event(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}))
        with r.state.lock:
            r.state.calls.pop(key, None)
        stream.end()
        return True

    def respond(self, request_id, result, extra=()):
        return self.send({"jsonrpc": "2.0", "id": request_id, "result": result}, extra)

    def respond_error(self, request_id, code, text):
        return self.send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}}, ())

    def send(self, message, extra):
        r = self.request
        if r.variant == "all-sse":
            session = dict(extra).get("MCP-Session-Id") or r.field("mcp-session-id") or "none"
            stream = Stream(r, session, "post")
            stream.start(extra)
            stream.prime()
            stream.event(json.dumps(message))
            stream.end()
            return True
        write(r.conn, 200, json.dumps(message).encode(), extra)
        return True


def decode(body):
    """A JSON text strictly: UTF-8, no repeated key, no NaN; None when it is not one."""
    def pairs(items):
        keys = [k for k, _ in items]
        if len(keys) != len(set(keys)):
            raise ValueError("duplicate key")
        return dict(items)

    def constant(name):
        raise ValueError(name)

    try:
        return json.loads(body.decode("utf-8"), object_pairs_hook=pairs, parse_constant=constant)
    except (ValueError, RecursionError, UnicodeDecodeError):
        return None


def main():
    port_file, token, other = sys.argv[1:4]
    flaw = variant = None
    if len(sys.argv) == 6:
        kind, name = sys.argv[4:6]
        if kind == "--flaw" and name in FLAWS:
            flaw = name
        elif kind == "--variant" and name in VARIANTS:
            variant = name
        else:
            sys.exit(f"unknown {kind} {name}")
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    state = State(listener.getsockname()[1], (token, other), flaw, variant)
    with open(port_file, "w") as f:
        f.write(str(state.port))
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, state), daemon=True).start()


if __name__ == "__main__":
    main()
