"""A loopback forwarding proxy that adds one Authorization field to every request.

The official conformance suite sends no credentials, and this server requires a bearer token
on /mcp. This proxy sits in front of `serve`, inserts `Authorization: Bearer <token>` into each
request head (refusing a request that already carries one), and changes nothing else: Host and
Origin pass through as the client sent them, bodies and responses are forwarded byte for byte.
It understands only what it must to find message boundaries: request heads end at CRLF CRLF and
bodies are Content-Length long (this server refuses every other framing anyway); responses are
read the same way, 1xx responses included.

Usage: python3 proxy.py LISTEN_PORT_FILE SERVE_LINE_FILE ROLE
It binds 127.0.0.1 on a free port and writes that port to LISTEN_PORT_FILE (so `serve` can be
told to allow that Host and Origin), then waits for SERVE_LINE_FILE, the JSON line `serve`
printed, and forwards to its URL with the token of ROLE.
"""

import json
import re
import socket
import sys
import threading
import time

HEAD_MAX = 64 * 1024


def read_head(sock, buf):
    """Reads until CRLF CRLF; returns (head, rest) or (None, buf) at EOF."""
    while b"\r\n\r\n" not in buf:
        if len(buf) > HEAD_MAX:
            return None, buf
        chunk = sock.recv(65536)
        if not chunk:
            return None, buf
        buf += chunk
    end = buf.index(b"\r\n\r\n") + 4
    return buf[:end], buf[end:]


def read_exact(sock, buf, n):
    while len(buf) < n:
        chunk = sock.recv(65536)
        if not chunk:
            return None, buf
        buf += chunk
    return buf[:n], buf[n:]


def content_length(head):
    match = re.search(rb"\r\ncontent-length:[ \t]*(\d+)[ \t]*\r\n", head, re.IGNORECASE)
    return int(match.group(1)) if match else 0


def status_of(head):
    return int(head.split(b" ", 2)[1])


def serve_client(client, upstream_port, token):
    upstream = socket.create_connection(("127.0.0.1", upstream_port))
    cbuf, ubuf = b"", b""
    try:
        while True:
            head, cbuf = read_head(client, cbuf)
            if head is None:
                return
            if re.search(rb"\r\nauthorization:", head, re.IGNORECASE):
                client.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            body, cbuf = read_exact(client, cbuf, content_length(head))
            if body is None:
                return
            line_end = head.index(b"\r\n") + 2
            injected = head[:line_end] + b"Authorization: Bearer " + token + b"\r\n" + head[line_end:]
            upstream.sendall(injected + body)
            while True:
                rhead, ubuf = read_head(upstream, ubuf)
                if rhead is None:
                    return
                status = status_of(rhead)
                length = 0 if status < 200 or status in (204, 304) else content_length(rhead)
                rbody, ubuf = read_exact(upstream, ubuf, length)
                if rbody is None:
                    return
                client.sendall(rhead + rbody)
                if status >= 200:
                    break
            if re.search(rb"\r\nconnection:[^\r]*close", rhead, re.IGNORECASE):
                return
    except OSError:
        return
    finally:
        client.close()
        upstream.close()


def main():
    port_file, serve_line_file, role = sys.argv[1], sys.argv[2], sys.argv[3]
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    with open(port_file, "w") as f:
        f.write(str(listener.getsockname()[1]))
    line = ""
    while not line.endswith("\n"):
        time.sleep(0.05)
        try:
            with open(serve_line_file) as f:
                line = f.readline()
        except FileNotFoundError:
            pass
    serve = json.loads(line)
    upstream_port = int(serve["url"].split(":")[2].split("/")[0])
    token = serve["tokens"][role].encode()
    while True:
        client, _ = listener.accept()
        threading.Thread(target=serve_client, args=(client, upstream_port, token), daemon=True).start()


if __name__ == "__main__":
    main()
