"""The official MCP Python SDK client (pinned in requirements.txt) reading streams that stay open,
against `serve --protocol-versions 2026-07-28 --stream-keepalive-secs 1`, judged from the wire
through a recording proxy (proxy.py), which forwards a chunked stream chunk by chunk:

  progress: tools/call count_slowly {steps: 3, pause_ms: 400} with a progress callback; the
  callback gets progress 1, 2, 3 in order, the first at least 600 ms before the call returns (so
  it arrived while the server still counted), and the result is "counted to 3"; on the wire the
  response is an event stream of three notifications/progress and then the response;
  keep-alive: count_slowly {steps: 3, pause_ms: 1000} without a progress token, quiet for 3 s
  while the server sends a comment line every second: on the wire the stream holds at least two
  comments, and the SDK skips them and returns "counted to 3";
  listen: Client.listen(tools_list_changed=True) is acknowledged (the honored filter names tool
  list changes), then `change-tools` on serve's control plane makes the list change, and the SDK
  yields a tools list change event; on the wire the listen's stream starts with
  notifications/subscriptions/acknowledged and carries notifications/tools/list_changed, both
  tagged with the listen's id.

Usage: python python_streams.py PATH_TO_BINARY
Exits 0 when every check passed; prints one line per check on stderr.
"""

import asyncio
import os
import shutil
import sys
import tempfile
import time

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

import modern_wire as wire
from harness import Checks, Serve
from proxy import Proxy

STEP_TIMEOUT_S = 30
SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId"
checks = Checks("python sdk client, open streams")


async def with_client(url, token, body):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(10))
    async with http:
        async with Client(streamable_http_client(url, http_client=http), mode=wire.MODERN) as client:
            return await body(client)


def text_of(result):
    return [getattr(c, "text", None) for c in result.content]


async def progress_body(client):
    seen = []

    async def on_progress(progress, total, message):
        seen.append((progress, total, time.monotonic()))

    result = await client.call_tool(
        "count_slowly", {"steps": 3, "pause_ms": 400}, progress_callback=on_progress
    )
    return seen, time.monotonic(), text_of(result)


async def quiet_body(client):
    return text_of(await client.call_tool("count_slowly", {"steps": 3, "pause_ms": 1000}))


def listen_body(serve):
    async def body(client):
        async with client.listen(tools_list_changed=True) as sub:
            honored = bool(sub.honored.tools_list_changed)
            changed = await asyncio.to_thread(serve.control, "change-tools")
            event = await asyncio.wait_for(sub.__anext__(), 10)
            return honored, changed, type(event).__name__, repr(event)[:200]

    return body


def stream_of(log, rpc):
    return next((r for r in log if r["rpc"] == rpc), None)


def tagged(record):
    """The methods of the listen stream's messages, each with the subscription id it carried."""
    return [(e["method"], e["subscription"]) for e in (record or {}).get("events") or [] if e["method"]]


def main(binary):
    work = tempfile.mkdtemp(prefix="python-streams-")
    proxies = {name: Proxy(record=os.path.join(work, f"{name}.jsonl")) for name in ("progress", "quiet", "listen")}
    hosts = [flag for p in proxies.values() for flag in ("--allow-host", f"127.0.0.1:{p.port}")]

    def run(serve, name, body):
        proxy = proxies[name].start(serve.port)
        url = f"http://127.0.0.1:{proxy.port}/mcp"
        try:
            value = asyncio.run(asyncio.wait_for(with_client(url, serve.tokens["full"], body), STEP_TIMEOUT_S))
            checks.check(f"{name}: the client ran to its end within {STEP_TIMEOUT_S}s", True)
        except Exception as e:  # a failed check, then judged from the wire anyway
            checks.check(f"{name}: the client ran to its end within {STEP_TIMEOUT_S}s", False, repr(e)[:300])
            value = None
        log = proxy.records()
        proxy.close()
        return value, log

    try:
        flags = ("--protocol-versions", wire.MODERN, "--stream-keepalive-secs", "1", *hosts)
        with Serve(binary, *flags) as serve:
            checks.hide(*serve.tokens.values())
            value, log = run(serve, "progress", progress_body)
            seen, returned, texts = value or ([], 0, None)
            checks.check(
                "progress: the callback got 1, 2, 3 of 3, in order",
                [(p, t) for p, t, _ in seen] == [(1, 3), (2, 3), (3, 3)],
                str([(p, t) for p, t, _ in seen]),
            )
            early = returned - seen[0][2] if seen else 0
            checks.check(
                "progress: the first arrived at least 600 ms before the call returned (while the server counted)",
                early >= 0.6,
                f"{early:.3f} s",
            )
            checks.check("progress: the result is 'counted to 3'", texts == ["counted to 3"], str(texts))
            call = stream_of(log, "tools/call")
            methods = [e["method"] for e in (call or {}).get("events") or [] if e["method"] or e["response"]]
            checks.check(
                "progress: on the wire, three notifications/progress then the response",
                methods == ["notifications/progress"] * 3 + [None],
                str(methods),
            )

            value, log = run(serve, "quiet", quiet_body)
            call = stream_of(log, "tools/call")
            comments = (call or {}).get("comments") or 0
            checks.check("keep-alive: the stream held two or more comment lines", comments >= 2, str(comments))
            checks.check(
                "keep-alive: the SDK skipped them and returned 'counted to 3'",
                value == ["counted to 3"],
                str(value),
            )

            value, log = run(serve, "listen", listen_body(serve))
            honored, changed, kind, shown = value or (None, {}, None, None)
            checks.check("listen: the acknowledgement honored tool list changes", honored is True, str(honored))
            checks.check(
                "listen: serve's control plane changed the tool list",
                changed.get("ok") is True and changed.get("tools_changed") == 1,
                str(changed),
            )
            checks.check(
                "listen: the SDK yielded a tool list change event",
                kind is not None and "tool" in kind.lower(),
                f"{kind}: {shown}",
            )
            record = stream_of(log, "subscriptions/listen")
            methods = tagged(record)
            ids = {tag for _, tag in methods}
            checks.check(
                "listen: on the wire, the acknowledgement first, then notifications/tools/list_changed",
                [m for m, _ in methods[:2]]
                == ["notifications/subscriptions/acknowledged", "notifications/tools/list_changed"],
                str(methods),
            )
            listen_id = (record or {}).get("detail")
            checks.check(
                "listen: every message tagged with one subscription id, the listen's JSON-RPC id",
                listen_id is not None and ids == {listen_id},
                f"{ids}, the listen's id {listen_id!r}",
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1])
    checks.exit()
