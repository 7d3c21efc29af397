"""The official MCP Python SDK client (pinned in requirements.txt) against `serve` in the 2026-07-28
era, judged from the wire.

Each scenario runs the SDK's `Client` over its streamable HTTP transport (an httpx2 client with the
bearer header) through its own recording proxy (proxy.py), and is judged by modern_wire.py:

  modern (role full, `serve --protocol-versions 2026-07-28`) and dual (the same against
  `--protocol-versions 2025-11-25,2026-07-28`), mode="auto": server/discover first (200) and the
  client settles on 2026-07-28; every request a POST with MCP-Protocol-Version 2026-07-28 and
  Mcp-Method, no initialize, no GET, no DELETE, no Mcp-Session-Id; tools/list names the nine
  modern tools; tools/call tenant_documents {tenant: acme} carries Mcp-Name tenant_documents and
  exactly Mcp-Param-Tenant: acme and answers both URIs; with limit 1 it carries Mcp-Param-Limit: 1
  too and answers the first URI alone;
  pin (mode="2026-07-28"): no probe at all, the first request is tools/list, and the calls work;
  fallback (role full, the default serve), mode="auto": server/discover → 400
  protocol_version_unsupported, then initialize → 200 and a plain 2025-11-25 session (no Mcp-*
  routing fields); tools/list names test_reconnection; leaving the client sends DELETE (204);
  hook: an httpx2 request hook rewriting Mcp-Param-Tenant to globex gets the mismatch on the wire,
  refused 400 -32020 naming Mcp-Param-Tenant, and the client raises MCPError -32020 (the SDK has
  no per-call headers option: `call_tool` takes none);
  unlisted: a tools/call before any tools/list goes out without Mcp-Param fields (400 -32020);
  the SDK then lists the tools and resends with them (200);
  sentinel (role unicode, its tenant `Ünïcødé/東京?#tenant`; and role full with `Zoë 山田`):
  Mcp-Param-Tenant is `=?base64?<UTF-8 in base64>?=`, accepted (200): the unicode tenant's two
  documents, and for Zoë 山田, not the caller's tenant, isError true (tenant_not_found).

Usage: python python_modern.py PATH_TO_BINARY
Exits 0 when every check passed; prints one line per check on stderr.
"""

import asyncio
import importlib.metadata
import os
import shutil
import sys
import tempfile
import urllib.parse

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

import modern_wire as wire
from harness import Checks, Serve
from proxy import Proxy

STEP_TIMEOUT_S = 30
SDK_VERSION = "2.3.0"
UNICODE_TENANT = "Ünïcødé/東京?#tenant"
OTHER_TENANT = "Zoë 山田"
checks = Checks("python sdk client, 2026-07-28")


async def rewrite_tenant(request):
    """An httpx2 request hook: the request's headers are final here, the SDK's included."""
    if "mcp-param-tenant" in request.headers:
        request.headers["mcp-param-tenant"] = "globex"


async def session(url, token, mode, body, hook=None):
    """Runs body(client) in a Client of that mode; (what connect gave, what body returned)."""
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"},
        event_hooks={"request": [hook]} if hook else {},
        timeout=httpx2.Timeout(10),
    )
    async with http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            discovered = client.session.discover_result
            connect = {
                "era": (
                    "modern" if discovered is not None or client.protocol_version == wire.MODERN else "legacy"
                ),
                "version": client.protocol_version,
                "supported": discovered.supported_versions if discovered is not None else None,
            }
            return connect, await body(client)


async def call(client, arguments):
    try:
        result = await client.call_tool("tenant_documents", arguments)
        return {
            "ok": True,
            "is_error": result.is_error,
            "texts": [getattr(c, "text", None) for c in result.content],
        }
    except MCPError as e:
        data = e.error.data if isinstance(e.error.data, dict) else {}
        return {"ok": False, "code": e.code, "header": data.get("header"), "error": e.error.message}


async def list_names(client):
    return [t.name for t in (await client.list_tools()).tools]


async def modern_body(client):
    tools = await list_names(client)
    return tools, await call(client, {"tenant": "acme"}), await call(client, {"tenant": "acme", "limit": 1})


def bounded(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, STEP_TIMEOUT_S))


def main(binary):
    checks.check(
        f"the client is the pinned mcp {SDK_VERSION}",
        importlib.metadata.version("mcp") == SDK_VERSION,
        importlib.metadata.version("mcp"),
    )
    work = tempfile.mkdtemp(prefix="python-modern-")
    names = ["modern", "pin", "hook", "unlisted", "sentinel", "sentinel-other"]
    proxies = {
        name: Proxy(record=os.path.join(work, f"{name}.jsonl")) for name in names + ["dual", "fallback"]
    }

    def hosts(*which):
        return [flag for name in which for flag in ("--allow-host", f"127.0.0.1:{proxies[name].port}")]

    def client(serve, name, role, mode, body, hook=None):
        proxy = proxies[name].start(serve.port)
        try:
            connect, value = bounded(
                session(f"http://127.0.0.1:{proxy.port}/mcp", serve.tokens[role], mode, body, hook)
            )
            checks.check(f"{name}: the client connected and ran to its end within {STEP_TIMEOUT_S}s", True)
        except Exception as e:  # reported as a failed check, then judged from the wire anyway
            checks.check(
                f"{name}: the client connected and ran to its end within {STEP_TIMEOUT_S}s",
                False,
                repr(e)[:300],
            )
            connect, value = {}, None
        log = proxy.records()
        proxy.close()
        return connect, value, log

    def judge_modern(label, connect, value, log, supported):
        tools, acme, acme_limit = value or (None, {}, {})
        wire.judge_modern(checks, label, log, connect, tools, acme, acme_limit, supported)

    try:
        with Serve(binary, "--protocol-versions", wire.MODERN, *hosts(*names)) as serve:
            checks.hide(*serve.tokens.values())
            connect, value, log = client(serve, "modern", "full", "auto", modern_body)
            judge_modern("modern", connect, value, log, [wire.MODERN])

            connect, value, log = client(serve, "pin", "full", wire.MODERN, modern_body)
            rpcs = [r["rpc"] for r in log]
            checks.check(
                f"pin: mode={wire.MODERN!r} sends no probe: tools/list, then the two tools/call",
                rpcs == ["tools/list", "tools/call", "tools/call"],
                str(rpcs),
            )
            tools, acme, acme_limit = value or (None, {}, {})
            checks.check(
                "pin: with the same Mcp-Param fields and answers",
                [wire.params(r) for r in wire.calls(log)]
                == [{"mcp-param-tenant": ["acme"]}, {"mcp-param-tenant": ["acme"], "mcp-param-limit": ["1"]}]
                and wire.lines(acme.get("texts")) == wire.ACME_URIS
                and wire.lines(acme_limit.get("texts")) == wire.ACME_URIS[:1],
                str([r["mcp_fields"] for r in wire.calls(log)]),
            )

            async def hook_body(client):
                await list_names(client)
                return await call(client, {"tenant": "acme"})

            _, value, log = client(serve, "hook", "full", "auto", hook_body, rewrite_tenant)
            wire.judge_refused(checks, "hook", log, value or {}, "Mcp-Param-Tenant", "globex")
            checks.note(
                "hook: the SDK has no per-call headers option (Client.call_tool takes none); the httpx2 hook is the way"
            )

            async def unlisted_body(client):
                return await call(client, {"tenant": "acme", "limit": 1})

            _, value, log = client(serve, "unlisted", "full", "auto", unlisted_body)
            wire.judge_unlisted(checks, "unlisted", log, value or {})

            def sentinel_body(tenant):
                async def body(client):
                    await list_names(client)
                    return await call(client, {"tenant": tenant})

                return body

            quoted = urllib.parse.quote(UNICODE_TENANT, safe="")
            _, value, log = client(serve, "sentinel", "unicode", "auto", sentinel_body(UNICODE_TENANT))
            wire.judge_sentinel(
                checks,
                "sentinel, role unicode",
                log,
                value or {},
                UNICODE_TENANT,
                [f"kb://tenant/{quoted}/handbook", f"kb://tenant/{quoted}/faq"],
                False,
            )
            _, value, log = client(serve, "sentinel-other", "full", "auto", sentinel_body(OTHER_TENANT))
            wire.judge_sentinel(
                checks,
                "sentinel, role full, not its tenant",
                log,
                value or {},
                OTHER_TENANT,
                ["tenant_not_found"],
                True,
            )

        with Serve(binary, "--protocol-versions", f"2025-11-25,{wire.MODERN}", *hosts("dual")) as serve:
            checks.hide(*serve.tokens.values())
            connect, value, log = client(serve, "dual", "full", "auto", modern_body)
            judge_modern("dual", connect, value, log, ["2025-11-25", wire.MODERN])

        with Serve(binary, *hosts("fallback")) as serve:
            checks.hide(*serve.tokens.values())
            connect, value, log = client(serve, "fallback", "full", "auto", list_names)
            wire.judge_fallback(checks, "fallback", log, connect, value)
            deletes = [r["status"] for r in log if r["method"] == "DELETE"]
            checks.check(
                "fallback: leaving the client sends one DELETE, answered 204", deletes == [204], str(deletes)
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1])
    checks.exit()
