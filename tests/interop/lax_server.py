"""A deliberately lax 2025-11-25 MCP server, for the probe to catch: it frames a body by
Content-Length even under Transfer-Encoding and keeps the connection, reads a bare LF as a line
end, ignores Origin and Host, keeps the last of two equal JSON keys, takes NaN, runs a batch,
checks no media type, session, version or token, and repeats what it was sent in its errors.

Run: python3 lax_server.py PORT_FILE  (it listens on 127.0.0.1, a free port, written to PORT_FILE)
"""
import json
import socket
import sys
import threading
import uuid


def head_end(buf):
    """Where the head ends: at the first empty line, whether lines end in CRLF or a bare LF."""
    ends = [i + n for i, n in ((buf.find(b"\r\n\r\n"), 4), (buf.find(b"\n\n"), 2)) if i >= 0]
    return min(ends) if ends else -1


def read_head(conn, buf):
    while head_end(buf) < 0:
        chunk = conn.recv(65536)
        if not chunk or len(buf) > 1 << 20:
            return None, buf
        buf += chunk
    end = head_end(buf)
    lines = buf[:end].decode("latin-1").replace("\r\n", "\n").split("\n")
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip():
            fields[name.strip().lower()] = value.strip()  # the last of a repeated field wins
    return (lines[0], fields, end), buf


def answer(message, session):
    method = message.get("method")
    if "id" not in message or message.get("id") is None:
        return None
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "lax", "version": "0"}}
    elif method in ("ping",):
        result = {}
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
    else:
        return {"jsonrpc": "2.0", "id": message.get("id"),
                "error": {"code": -32601, "message": "no method " + str(method)}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def respond(conn, status, body, extra=()):
    reason = {200: "OK", 202: "Accepted", 400: "Bad Request", 404: "Not Found"}.get(status, "X")
    head = "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % (
        status, reason, len(body))
    for name, value in extra:
        head += "%s: %s\r\n" % (name, value)
    conn.sendall(head.encode() + b"\r\n" + body)


def serve(conn):
    buf = b""
    try:
        while True:
            parsed, buf = read_head(conn, buf)
            if parsed is None:
                return
            line, fields, end = parsed
            length = int(fields.get("content-length", "0").lstrip("+") or 0)
            while len(buf) < end + length:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buf += chunk
            body, buf = buf[end:end + length], buf[end + length:]
            method = line.split(" ")[0]
            if method == "DELETE":
                respond(conn, 200, b"")
                continue
            if method != "POST":
                respond(conn, 404, ("no route for " + line).encode())
                continue
            try:
                message = json.loads(body.decode("utf-8", "replace"))
            except ValueError as e:
                respond(conn, 400, json.dumps({"error": str(e), "got": body[:200].decode("latin-1")}).encode())
                continue
            session = fields.get("mcp-session-id") or uuid.uuid4().hex
            if isinstance(message, list):
                replies = [r for r in (answer(m, session) for m in message) if r]
                respond(conn, 200, json.dumps(replies).encode())
                continue
            reply = answer(message, session)
            if reply is None:
                respond(conn, 202, b"")
                continue
            extra = [("Mcp-Session-Id", session)] if message.get("method") == "initialize" else []
            respond(conn, 200, json.dumps(reply).encode(), extra)
    except OSError:
        return
    finally:
        conn.close()


def main():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    with open(sys.argv[1], "w") as f:
        f.write(str(listener.getsockname()[1]))
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
