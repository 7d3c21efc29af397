"""The official MCP Python SDK client (pinned in requirements.txt) against `serve`.

Checks, each ending in bounded time:
  1. full role: connect (the 2.x client probes `server/discover` with the 2026-07-28 header first
     and must fall back to initialize on our 400), ping, resources/list, at least one
     notifications/message from the GET stream, tools/call test_reconnection (the server closes
     that call's stream after its priming event: the client must resume it by itself, with one
     GET carrying Last-Event-ID equal to the priming id, after the retry, and never send the call
     again), then leave the client context (which sends DELETE); a raw request with that session
     id must then get 404;
  2. connect_only role: resources/list surfaces the 403 as an error at once, without a retry storm;
  3. a token revoked mid-session through serve's stdin: the next call fails cleanly (401).

Usage: python python_client.py PATH_TO_BINARY
Exits 0 when every check passed; prints one line per check on stderr.
"""

import asyncio
import json
import re
import subprocess
import sys
import time

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

STEP_TIMEOUT_S = 30
failures = []


def check(name, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", file=sys.stderr)
    if not ok:
        failures.append(name)


class Recorder:
    """Counts requests by method, keeps (time, method, JSON-RPC method, Last-Event-ID) of each,
    and remembers the session id the server handed out."""

    def __init__(self):
        self.counts = {}
        self.requests = []
        self.session_id = None

    async def request(self, request):
        self.counts[request.method] = self.counts.get(request.method, 0) + 1
        rpc = None
        if request.method == "POST":
            try:
                rpc = json.loads(request.content).get("method")
            except (ValueError, AttributeError):
                pass
        self.requests.append((time.monotonic(), request.method, rpc, request.headers.get("last-event-id")))

    async def response(self, response):
        session = response.headers.get("mcp-session-id")
        if session:
            self.session_id = session


async def with_client(url, token, recorder, body, logging_callback=None):
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"},
        event_hooks={"request": [recorder.request], "response": [recorder.response]},
        timeout=httpx2.Timeout(10),
    )
    async with http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode="auto", logging_callback=logging_callback) as client:
            return await body(client)


async def full_session(url, token):
    recorder = Recorder()
    messages = []

    async def on_log(params):
        messages.append(params)

    async def body(client):
        await client.send_ping()
        listed = await client.list_resources()
        uris = [str(r.uri) for r in listed.resources]
        deadline = time.monotonic() + 10
        while not messages and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        called = await client.call_tool("test_reconnection", {})
        return uris, called

    uris, called = await asyncio.wait_for(with_client(url, token, recorder, body, on_log), STEP_TIMEOUT_S)
    check("full: initialize, ping, resources/list", uris == ["kb://tenant/acme/handbook", "kb://tenant/acme/faq"], str(uris))
    check("full: a notifications/message from the GET stream", len(messages) >= 1, f"{len(messages)} received")
    check("full: DELETE sent when the client context ended", recorder.counts.get("DELETE", 0) == 1, str(recorder.counts))
    gets = recorder.counts.get("GET", 0)
    check("full: the GET stream is re-opened at the retry pace, not in a loop", 1 <= gets <= 30, f"{gets} GETs")
    text = [getattr(c, "text", "") for c in called.content]
    check(
        "full: test_reconnection's result arrives (isError false)",
        not called.is_error and len(text) == 1 and text[0].startswith("delivered on resumption"),
        repr(called)[:200],
    )
    calls = [r for r in recorder.requests if r[2] == "tools/call"]
    check("full: the call is sent once, never again", len(calls) == 1, str(len(calls)))
    resumed = [r for r in recorder.requests if r[1] == "GET" and re.search(r"-p\d+-1$", r[3] or "")]
    check(
        "full: the client resumes the call's stream by itself: one GET with the priming id as Last-Event-ID",
        len(resumed) == 1,
        str([r[3] and r[3].split("-", 1)[1] for r in recorder.requests if r[1] == "GET"]),
    )
    if calls and resumed:
        wait = resumed[0][0] - calls[0][0]
        check("full: after waiting the retry (at least 0.95 s)", wait >= 0.95, f"{wait:.3f}s")
    return recorder.session_id


def session_is_gone(url, token, session_id):
    response = httpx2.post(
        url,
        headers={
            "Authorization": f"Bearer {token}",
            "MCP-Session-Id": session_id,
            "MCP-Protocol-Version": "2025-11-25",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        },
        content=b'{"jsonrpc":"2.0","id":9,"method":"ping"}',
        timeout=10,
    )
    check("full: the ended session answers 404", response.status_code == 404, str(response.status_code))


async def scope_refusal(url, token):
    recorder = Recorder()

    async def body(client):
        started = time.monotonic()
        try:
            await client.list_resources()
            return None, time.monotonic() - started
        except MCPError as e:
            return e, time.monotonic() - started

    error, elapsed = await asyncio.wait_for(with_client(url, token, recorder, body), STEP_TIMEOUT_S)
    check("connect_only: resources/list fails with an error", error is not None, repr(error))
    check("connect_only: it fails at once", elapsed < 5, f"{elapsed:.2f}s")
    posts = recorder.counts.get("POST", 0)
    check("connect_only: no retry storm", posts <= 5, f"{posts} POSTs: {recorder.counts}")


async def revoked_mid_session(url, token, serve):
    recorder = Recorder()

    async def body(client):
        await client.send_ping()
        serve.stdin.write("revoke other_subject\n")
        serve.stdin.flush()
        reply = json.loads(serve.stdout.readline())
        check("revoke: the control command is acknowledged", reply.get("ok") is True, json.dumps(reply))
        started = time.monotonic()
        try:
            await client.send_ping()
            return None, time.monotonic() - started
        except MCPError as e:
            return e, time.monotonic() - started

    error, elapsed = await asyncio.wait_for(with_client(url, token, recorder, body), STEP_TIMEOUT_S)
    check("revoke: the next call fails", error is not None, repr(error))
    check("revoke: it fails at once and the client ends cleanly", elapsed < 5, f"{elapsed:.2f}s")


async def main(binary):
    serve = subprocess.Popen([binary, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        hello = json.loads(serve.stdout.readline())
        url, tokens = hello["url"], hello["tokens"]
        session_id = await full_session(url, tokens["full"])
        check("full: the client saw a session id", bool(session_id))
        if session_id:
            session_is_gone(url, tokens["full"], session_id)
        await scope_refusal(url, tokens["connect_only"])
        await revoked_mid_session(url, tokens["other_subject"], serve)
    finally:
        serve.kill()
        serve.wait()


if __name__ == "__main__":
    import warnings

    # The 2.x client warns that ping is gone in 2026-07-28; this server speaks 2025-11-25.
    warnings.filterwarnings("ignore", message=".*removed as of 2026-07-28.*")
    asyncio.run(main(sys.argv[1]))
    print(f"python sdk client: {len(failures)} failed", file=sys.stderr)
    sys.exit(1 if failures else 0)
