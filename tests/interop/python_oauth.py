"""The MCP Python SDK's OAuth client provider (mcp 2.3.0, pinned in requirements.txt) against `serve`.

`mcp.client.auth.OAuthClientProvider` with an in-memory token storage is the httpx2 `auth` of the
client; every request it makes, the SDK's own discovery requests included, is recorded with
httpx2 event hooks. The authorization server this server names,
https://issuer.loopback-mcp-http.invalid, can never resolve, so the flow must end there.

Checks:
  1. no token (empty storage): the request sequence is exactly
       (1) POST /mcp `server/discover` with MCP-Protocol-Version 2026-07-28 -> 400;
       (2) POST /mcp `initialize`, no Authorization -> 401 with exactly
           `Bearer resource_metadata="<serve's resource_metadata>", scope="mcp:connect"`;
       (3) GET of exactly that resource_metadata URL, without Authorization -> 200; its body
           parses, names this server's URL as `resource` and the .invalid issuer, and the
           provider holds the same document (its resource check against the server URL passed);
       (4) GET https://issuer.loopback-mcp-http.invalid/.well-known/oauth-authorization-server
           -> no response: a name-resolution error;
     and nothing else. The client fails cleanly and at once (< 5 s): the exception that leaves it
     is a plain ExceptionGroup (not an OAuth or MCP error type) holding one httpx2.ConnectError
     caused by a socket.gaierror. The type and the timings are printed.
  2. step-up: a connect_only token in the storage connects (probe 400, initialize 200), its
     resources/list gets 403 insufficient_scope with the exact challenge, and that leads to the
     same discovery: GET of the resource_metadata URL (200, no Authorization), then the .invalid
     authorization server's metadata (name-resolution error); resources/list is not retried.

Usage: python python_oauth.py PATH_TO_BINARY
Exits 0 when every check passed.
"""

import asyncio
import json
import socket
import sys
import time

import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata, OAuthToken

from harness import Checks, Serve

STEP_TIMEOUT_S = 30
ISSUER = "https://issuer.loopback-mcp-http.invalid"
AS_METADATA = f"{ISSUER}/.well-known/oauth-authorization-server"
checks = Checks("python sdk oauth")


class MemoryStorage:
    """The TokenStorage protocol, in memory."""

    def __init__(self, tokens=None):
        self.tokens = tokens
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


class Wire:
    """Every request the client's httpx2 client sends, and its response if one came."""

    def __init__(self):
        self.started = time.monotonic()
        self.exchanges = []

    def now(self):
        return time.monotonic() - self.started

    async def request(self, request):
        rpc = None
        if request.method == "POST":
            try:
                rpc = json.loads(request.content).get("method")
            except ValueError:
                pass
        self.exchanges.append(
            {
                "t": self.now(),
                "t_end": None,
                "method": request.method,
                "url": str(request.url),
                "version": request.headers.get("mcp-protocol-version"),
                "auth": "authorization" in request.headers,
                "rpc": rpc,
                "status": None,
                "challenge": None,
                "body": None,
            }
        )

    async def response(self, response):
        for exchange in reversed(self.exchanges):
            if (
                exchange["status"] is None
                and exchange["url"] == str(response.request.url)
                and exchange["method"] == response.request.method
            ):
                exchange["status"] = response.status_code
                exchange["challenge"] = response.headers.get("www-authenticate")
                exchange["t_end"] = self.now()
                if "oauth-protected-resource" in exchange["url"]:
                    exchange["body"] = (await response.aread()).decode()
                break


def gaierror_in(error):
    while error is not None:
        if isinstance(error, socket.gaierror):
            return error
        error = error.__cause__ or error.__context__
    return None


async def attempt(serve, storage, body):
    """Runs the client with the OAuth provider; (wire, provider, exception or None, where it
    surfaced, seconds)."""
    wire = Wire()
    provider = OAuthClientProvider(
        serve.url,
        OAuthClientMetadata(redirect_uris=["http://127.0.0.1:9/callback"], client_name="loopback-interop"),
        storage,
        redirect_handler=None,
        callback_handler=None,
    )
    http = httpx2.AsyncClient(
        auth=provider,
        event_hooks={"request": [wire.request], "response": [wire.response]},
        timeout=httpx2.Timeout(10),
    )
    surfaced, error = None, None
    started = time.monotonic()
    try:
        async with http:
            async with Client(streamable_http_client(serve.url, http_client=http), mode="auto") as client:
                surfaced = "inside the session"
                await body(client)
                surfaced = None
    except BaseException as e:  # noqa: BLE001 - the exception type is what is being observed
        error = e
        surfaced = surfaced or "from the connection"
    return wire, provider, error, surfaced, time.monotonic() - started


def check_failure(label, error, wire, seconds, first_index):
    checks.check(
        f"{label}: the client fails (does not hang or succeed)", error is not None, repr(error)[:200]
    )
    if error is None:
        return
    inner = list(error.exceptions) if isinstance(error, BaseExceptionGroup) else []
    checks.check(
        f"{label}: what leaves the client is a plain ExceptionGroup (untyped)",
        type(error) is ExceptionGroup,
        f"{type(error).__module__}.{type(error).__qualname__}: {str(error)[:120]}",
    )
    checks.check(
        f"{label}: holding one httpx2.ConnectError",
        len(inner) == 1 and isinstance(inner[0], httpx2.ConnectError),
        repr(inner)[:200],
    )
    cause = gaierror_in(inner[0]) if inner else None
    checks.check(
        f"{label}: caused by a name-resolution error (socket.gaierror)", cause is not None, repr(cause)
    )
    checks.check(f"{label}: it fails at once (< 5 s)", seconds < 5, f"{seconds:.3f}s")
    first = wire.exchanges[first_index]["t"] if len(wire.exchanges) > first_index else 0
    checks.note(
        f"{label}: {type(error).__name__}({type(inner[0]).__module__}.{type(inner[0]).__name__}"
        f"{' <- socket.gaierror ' + str(cause.args) if cause else ''}); "
        f"{(wire.now() - first) * 1000:.1f} ms from the first request of the sequence to the failure, "
        f"{seconds * 1000:.1f} ms for the whole client"
    )


def check_metadata_fetch(label, exchange, serve):
    checks.check(
        f"{label}: GET of exactly the linked resource_metadata URL, 200",
        (exchange["method"], exchange["url"], exchange["status"]) == ("GET", serve.resource_metadata, 200),
        f"{exchange['method']} {exchange['url']} -> {exchange['status']}",
    )
    checks.check(
        f"{label}: the metadata GET carries no Authorization",
        exchange["auth"] is False,
        str(exchange["auth"]),
    )
    try:
        document = json.loads(exchange["body"] or "")
    except ValueError:
        document = {}
    checks.check(
        f"{label}: the document names this server's URL as its resource",
        document.get("resource") == serve.url,
        str(document.get("resource")),
    )
    checks.check(
        f"{label}: and the .invalid issuer as its authorization server",
        document.get("authorization_servers") == [ISSUER],
        str(document.get("authorization_servers")),
    )
    checks.note(f"{label}: the SDK sends MCP-Protocol-Version {exchange['version']} on its discovery GETs")


def check_as_fetch(label, exchange):
    checks.check(
        f"{label}: then the authorization server's metadata, with no response",
        (exchange["method"], exchange["url"], exchange["status"]) == ("GET", AS_METADATA, None),
        f"{exchange['method']} {exchange['url']} -> {exchange['status']}",
    )


def timeline(exchange, origin):
    what = exchange["rpc"] or exchange["url"].split("/", 3)[-1]
    sent = (exchange["t"] - origin) * 1000
    answered = "no answer" if exchange["t_end"] is None else f"{(exchange['t_end'] - origin) * 1000:.1f}"
    return f"{exchange['method']} {what} {sent:.1f} -> {answered}"


async def no_token(serve):
    async def body(client):
        await client.list_resources()

    wire, provider, error, surfaced, seconds = await asyncio.wait_for(
        attempt(serve, MemoryStorage(), body), STEP_TIMEOUT_S
    )
    x = wire.exchanges
    shape = [(e["method"], e["rpc"] or e["url"], e["status"]) for e in x]
    checks.check("no token: exactly four requests", len(x) == 4, str(shape))
    if len(x) >= 1:
        checks.check(
            "no token: (1) server/discover at 2026-07-28 -> 400",
            (x[0]["method"], x[0]["url"], x[0]["rpc"], x[0]["version"], x[0]["status"])
            == ("POST", serve.url, "server/discover", "2026-07-28", 400),
            str(shape[0]),
        )
    if len(x) >= 2:
        challenge = f'Bearer resource_metadata="{serve.resource_metadata}", scope="mcp:connect"'
        checks.check(
            "no token: (2) initialize without Authorization -> 401",
            (x[1]["rpc"], x[1]["auth"], x[1]["status"]) == ("initialize", False, 401),
            str(shape[1]),
        )
        checks.check(
            "no token: (2) with exactly the challenge", x[1]["challenge"] == challenge, str(x[1]["challenge"])
        )
    if len(x) >= 3:
        check_metadata_fetch("no token (3)", x[2], serve)
        held = provider.context.protected_resource_metadata
        checks.check(
            "no token: (3) the provider holds that document (its resource check passed)",
            held is not None and str(held.resource) == serve.url,
            str(held.resource if held else None),
        )
    if len(x) >= 4:
        check_as_fetch("no token (4)", x[3])
        checks.note(
            "no token: timeline, ms from the probe (sent -> answered): "
            + ", ".join(timeline(e, x[0]["t"]) for e in x)
        )
    check_failure("no token", error, wire, seconds, 0)
    checks.note(f"no token: the exception surfaced {surfaced}")


async def step_up(serve):
    async def body(client):
        await client.list_resources()

    storage = MemoryStorage(
        OAuthToken(access_token=serve.tokens["connect_only"], token_type="Bearer", scope="mcp:connect")
    )
    wire, _, error, surfaced, seconds = await asyncio.wait_for(attempt(serve, storage, body), STEP_TIMEOUT_S)
    x = [e for e in wire.exchanges if not (e["method"] == "GET" and e["url"] == serve.url)]
    shape = [(e["method"], e["rpc"] or e["url"], e["status"]) for e in x]
    checks.check(
        "connect_only: probe 400, initialize 200 with the token, initialized 202",
        [(e["rpc"], e["status"]) for e in x[:3]]
        == [("server/discover", 400), ("initialize", 200), ("notifications/initialized", 202)]
        and x[1]["auth"],
        str(shape[:3]),
    )
    listing = [i for i, e in enumerate(x) if e["rpc"] == "resources/list"]
    checks.check(
        "connect_only: one resources/list (not retried), 403",
        [x[i]["status"] for i in listing] == [403],
        str([x[i]["status"] for i in listing]),
    )
    if listing:
        i = listing[0]
        challenge = f'Bearer error="insufficient_scope", scope="mcp:connect resources:read", resource_metadata="{serve.resource_metadata}"'
        checks.check(
            "connect_only: with exactly the insufficient_scope challenge",
            x[i]["challenge"] == challenge,
            str(x[i]["challenge"]),
        )
        rest = x[i + 1 :]
        checks.check(
            "connect_only: the 403 leads to the same discovery, and nothing else",
            [(e["method"], e["url"]) for e in rest]
            == [("GET", serve.resource_metadata), ("GET", AS_METADATA)],
            str([(e["method"], e["url"], e["status"]) for e in rest]),
        )
        if len(rest) == 2:
            check_metadata_fetch("connect_only: step-up", rest[0], serve)
            check_as_fetch("connect_only: step-up", rest[1])
        check_failure("connect_only: step-up", error, wire, seconds, wire.exchanges.index(x[i]))
        checks.note(f"connect_only: the exception surfaced {surfaced}")


async def main(binary):
    with Serve(binary) as serve:
        checks.hide(*serve.tokens.values())
        await no_token(serve)
        await step_up(serve)


if __name__ == "__main__":
    import warnings

    # The 2.x client warns that ping is gone in 2026-07-28; this server speaks 2025-11-25.
    warnings.filterwarnings("ignore", message=".*removed as of 2026-07-28.*")
    asyncio.run(main(sys.argv[1]))
    checks.exit()
