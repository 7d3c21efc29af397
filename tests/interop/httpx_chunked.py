"""A chunked request body from the HTTP client the Python SDK uses (httpx2, pinned in
requirements.txt), against `serve --chunked` and plain `serve`.

httpx2 sends a body given as a generator with `Transfer-Encoding: chunked`, one chunk per piece it
yields (a bytes body gets `Content-Length`). Checks:
  1. under --chunked: a session from initialize, then `ping` streamed in pieces gets exactly the
     answer (status, content type, JSON body) of the same ping sent with Content-Length, and the
     bytes on the wire really were chunked (the request carried no Content-Length);
  2. a streamed initialize opens a session there too;
  3. without the flag, the streamed ping is refused before its body: 501
     `transfer_encoding_chunked`, the connection closed; the Content-Length ping still gets 200.

Usage: python httpx_chunked.py PATH_TO_BINARY
"""

import json
import sys

import httpx2

from harness import Checks, Serve

PROTOCOL = "2025-11-25"
checks = Checks("httpx chunked")


def pieces(body, size):
    """A generator body: httpx2 sends each piece as one chunk."""

    def generate():
        for start in range(0, len(body), size):
            yield body[start : start + size]

    return generate()


def headers(token, session=None):
    fields = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Authorization": f"Bearer {token}",
    }
    if session:
        fields["MCP-Session-Id"] = session
        fields["MCP-Protocol-Version"] = PROTOCOL
    return fields


def message(method, id_=None, params=None):
    value = {"jsonrpc": "2.0", "method": method}
    if id_ is not None:
        value["id"] = id_
    if params is not None:
        value["params"] = params
    return json.dumps(value).encode()


INITIALIZE = message(
    "initialize",
    1,
    {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "httpx-chunked", "version": "1"}},
)


def open_session(client, url, token, body):
    response = client.post(url, headers=headers(token), content=body)
    session = response.headers.get("mcp-session-id")
    checks.hide(session)
    if session:
        initialized = client.post(url, headers=headers(token, session), content=message("notifications/initialized"))
        checks.check("notifications/initialized is accepted", initialized.status_code == 202, initialized.status_code)
    return response, session


def answer(response):
    return response.status_code, response.headers.get("content-type"), response.text


def with_flag(binary):
    with Serve(binary, "--chunked") as serve:
        token = serve.tokens["full"]
        checks.hide(token)
        sent = []
        hooks = {"request": [lambda request: sent.append(dict(request.headers))]}
        with httpx2.Client(timeout=10, event_hooks=hooks) as client:
            response, session = open_session(client, serve.url, token, pieces(INITIALIZE, 40))
            checks.check("a streamed initialize opens a session under --chunked", response.status_code == 200 and bool(session), response.status_code)
            streamed = [h for h in sent if h.get("transfer-encoding") == "chunked"]
            checks.check("httpx2 sent the streamed initialize chunked, without Content-Length", bool(streamed) and all("content-length" not in h for h in streamed))
            ping = message("ping", 2)
            by_length = client.post(serve.url, headers=headers(token, session), content=ping)
            checks.check("the Content-Length ping is answered 200", by_length.status_code == 200, answer(by_length))
            for size in (1, 7, len(ping)):
                sent.clear()
                by_chunks = client.post(serve.url, headers=headers(token, session), content=pieces(ping, size))
                chunked = sent and sent[-1].get("transfer-encoding") == "chunked"
                same = answer(by_chunks) == answer(by_length)
                checks.check(f"a ping streamed in pieces of {size} gets the Content-Length ping's answer", chunked and same, answer(by_chunks))


def without_flag(binary):
    with Serve(binary) as serve:
        token = serve.tokens["full"]
        checks.hide(token)
        with httpx2.Client(timeout=10) as client:
            response, session = open_session(client, serve.url, token, INITIALIZE)
            ping = message("ping", 2)
            refused = client.post(serve.url, headers=headers(token, session), content=pieces(ping, 7))
            checks.check(
                "without --chunked, the streamed ping gets 501 and the connection closes",
                refused.status_code == 501 and refused.headers.get("connection") == "close" and "transfer_encoding_chunked" in refused.text,
                (refused.status_code, refused.text),
            )
            by_length = client.post(serve.url, headers=headers(token, session), content=ping)
            checks.check("without --chunked, the Content-Length ping still gets 200", by_length.status_code == 200, by_length.status_code)


def main():
    binary = sys.argv[1]
    with_flag(binary)
    without_flag(binary)
    checks.exit()


if __name__ == "__main__":
    main()
