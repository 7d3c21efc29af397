"""The official TypeScript SDK 2.x client against `serve` in the 2026-07-28 era, judged from the wire.

Runs ts_modern.mjs (@modelcontextprotocol/client's Client with versionNegotiation `{ mode: 'auto' }`
and its StreamableHTTPClientTransport, bearer token through requestInit) with the pinned Node 22,
each scenario through its own recording proxy (proxy.py), and checks what it sent (judged by
modern_wire.py):

  modern (role full, `serve --protocol-versions 2026-07-28`) and dual (the same against
  `--protocol-versions 2025-11-25,2026-07-28`): server/discover first (200) and the client
  settles on 2026-07-28; every request a POST with MCP-Protocol-Version 2026-07-28 and Mcp-Method,
  no initialize, no GET, no DELETE, no Mcp-Session-Id; tools/list names the seven modern tools;
  tools/call tenant_documents {tenant: acme} carries Mcp-Name tenant_documents and exactly
  Mcp-Param-Tenant: acme and answers both URIs; with limit 1 it carries Mcp-Param-Limit: 1 too
  and answers the first URI alone;
  fallback (role full, the default serve): server/discover → 400 protocol_version_unsupported,
  then initialize → 200, and a plain 2025-11-25 session after it (no Mcp-* routing fields);
  tools/list names test_reconnection; terminateSession sends DELETE (204);
  default (role full, the dual-era serve, no versionNegotiation option): the SDK's default era is
  legacy: no probe, the first request is initialize (200), and a 2025-11-25 session;
  fetch-hook: a `fetch` option rewriting Mcp-Param-Tenant to globex gets the mismatch on the
  wire, refused 400 -32020 naming Mcp-Param-Tenant, and the client gets ProtocolError -32020;
  call-headers: the per-call `headers` option cannot override a mirrored field (Mcp-Param-Tenant:
  globex there still goes out as acme, 200), but adds one for an argument the body lacks
  (Mcp-Param-Limit: 7), refused 400 -32020 naming Mcp-Param-Limit;
  unlisted: a tools/call before any tools/list goes out without Mcp-Param fields (400 -32020);
  the SDK then lists the tools and resends with them (200);
  sentinel (role unicode, its tenant `Ünïcødé/東京?#tenant`; and role full with `Zoë 山田`):
  Mcp-Param-Tenant is `=?base64?<UTF-8 in base64>?=`, accepted (200): the unicode tenant's two
  documents, and for Zoë 山田, not the caller's tenant, isError true (tenant_not_found).

Usage: python ts_modern_check.py PATH_TO_BINARY NODE22 NPM_DIR
NPM_DIR is where package.json was installed (its node_modules holds the SDK). Exits 0 when every
check passed.
"""

import json
import os
import shutil
import sys
import tempfile
import urllib.parse

import modern_wire as wire
from harness import Checks, Serve, run
from proxy import Proxy

CLIENT_TIMEOUT_S = 60
SDK_VERSION = "2.4.0"
UNICODE_TENANT = "Ünïcødé/東京?#tenant"
OTHER_TENANT = "Zoë 山田"
checks = Checks("ts sdk 2.x client, 2026-07-28")


def run_client(node, script, label, scenario, url, token, *extra):
    code, out, err, seconds = run(
        [node, script, scenario, url, *extra], CLIENT_TIMEOUT_S, env={"MCP_BEARER": token}
    )
    checks.check(
        f"{label}: the client ran to its end within {CLIENT_TIMEOUT_S}s",
        code == 0,
        f"exit {code}, {seconds:.1f}s {checks.redact(err[-300:]) if code else ''}".strip(),
    )
    try:
        return json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        checks.check(f"{label}: the client printed its JSON line", False, checks.redact(err[-2000:]))
        return {"steps": {}}


def connect_of(observed):
    return {
        "era": observed.get("era"),
        "version": observed.get("protocol_version"),
        "supported": observed.get("supported_versions"),
    }


def call_of(observed, name):
    step = observed.get("steps", {}).get(name, {"ok": False, "error": {"message": "step not reached"}})
    if step["ok"]:
        value = step.get("value") or {}
        return {"ok": True, "is_error": value.get("isError"), "texts": value.get("text")}
    error = step.get("error") or {}
    return {
        "ok": False,
        "code": error.get("code"),
        "header": (error.get("data") or {}).get("header"),
        "error": f"{error.get('name')}: {error.get('message')}",
    }


def tools_of(observed):
    return observed.get("steps", {}).get("listTools", {}).get("value")


def main(binary, node, npm_dir):
    code, out, _, _ = run([node, "--version"], 10)
    checks.check("Node 22 is there", code == 0 and out.startswith("v22."), out.strip())
    script = os.path.join(npm_dir, "ts_modern.mjs")
    shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ts_modern.mjs"), script)
    work = tempfile.mkdtemp(prefix="ts-modern-")

    try:
        names = ["modern", "fetch-hook", "call-headers", "unlisted", "sentinel", "sentinel-other"]
        proxies = {
            name: Proxy(record=os.path.join(work, f"{name}.jsonl"))
            for name in names + ["dual", "default", "fallback"]
        }

        def hosts(*which):
            return [flag for name in which for flag in ("--allow-host", f"127.0.0.1:{proxies[name].port}")]

        def client(serve, name, scenario, role, *extra):
            proxy = proxies[name].start(serve.port)
            observed = run_client(
                node, script, name, scenario, f"http://127.0.0.1:{proxy.port}/mcp", serve.tokens[role], *extra
            )
            log = proxy.records()
            proxy.close()
            return observed, log

        with Serve(binary, "--protocol-versions", wire.MODERN, *hosts(*names)) as serve:
            checks.hide(*serve.tokens.values())
            observed, log = client(serve, "modern", "modern", "full")
            checks.check(
                "modern: the client is @modelcontextprotocol/client " + SDK_VERSION + " on Node 22",
                observed.get("sdk_version") == SDK_VERSION
                and observed.get("node_version", "").startswith("v22."),
                f"{observed.get('sdk_version')} on {observed.get('node_version')}",
            )
            wire.judge_modern(
                checks,
                "modern",
                log,
                connect_of(observed),
                tools_of(observed),
                call_of(observed, "callAcme"),
                call_of(observed, "callAcmeLimit"),
                [wire.MODERN],
            )
            checks.check(
                "modern: the transport never held a session id",
                observed.get("session_id") is None,
                str(observed.get("session_id")),
            )

            observed, log = client(serve, "fetch-hook", "fetch-hook", "full")
            checks.check(
                "fetch-hook: the hook saw Mcp-Param-Tenant (the SDK's) and rewrote it on each call",
                observed.get("rewritten", 0) >= 1,
                f"{observed.get('rewritten')} rewritten",
            )
            wire.judge_refused(
                checks, "fetch-hook", log, call_of(observed, "callAcme"), "Mcp-Param-Tenant", "globex"
            )

            observed, log = client(serve, "call-headers", "call-headers", "full")
            calls = wire.calls(log)
            first = calls[0] if calls else {"mcp_fields": [], "status": None}
            tenant_call = call_of(observed, "callTenantHeader")
            checks.check(
                "call-headers: Mcp-Param-Tenant: globex in callTool's headers option goes out as the mirrored acme, once",
                wire.params(first) == {"mcp-param-tenant": ["acme"]} and first["status"] == 200,
                f"{first['mcp_fields']} -> {first['status']}",
            )
            checks.check(
                "call-headers: and that call succeeds with both URIs",
                tenant_call.get("ok") and wire.lines(tenant_call.get("texts")) == wire.ACME_URIS,
                str(tenant_call),
            )
            checks.note(
                "call-headers: the SDK's mirrored Mcp-Param value overrides the caller's headers option"
            )
            rest = log[log.index(first) + 1 :] if calls else []
            wire.judge_refused(
                checks,
                "call-headers, an extra Mcp-Param-Limit: 7",
                rest,
                call_of(observed, "callLimitHeader"),
                "Mcp-Param-Limit",
                "7",
            )

            observed, log = client(serve, "unlisted", "unlisted", "full")
            wire.judge_unlisted(checks, "unlisted", log, call_of(observed, "callAcmeLimit"))

            quoted = urllib.parse.quote(UNICODE_TENANT, safe="")
            observed, log = client(serve, "sentinel", "sentinel", "unicode", UNICODE_TENANT)
            wire.judge_sentinel(
                checks,
                "sentinel, role unicode",
                log,
                call_of(observed, "callTenant"),
                UNICODE_TENANT,
                [f"kb://tenant/{quoted}/handbook", f"kb://tenant/{quoted}/faq"],
                False,
            )
            observed, log = client(serve, "sentinel-other", "sentinel", "full", OTHER_TENANT)
            wire.judge_sentinel(
                checks,
                "sentinel, role full, not its tenant",
                log,
                call_of(observed, "callTenant"),
                OTHER_TENANT,
                ["tenant_not_found"],
                True,
            )

        with Serve(
            binary, "--protocol-versions", f"2025-11-25,{wire.MODERN}", *hosts("dual", "default")
        ) as serve:
            checks.hide(*serve.tokens.values())
            observed, log = client(serve, "dual", "modern", "full")
            wire.judge_modern(
                checks,
                "dual",
                log,
                connect_of(observed),
                tools_of(observed),
                call_of(observed, "callAcme"),
                call_of(observed, "callAcmeLimit"),
                ["2025-11-25", wire.MODERN],
            )
            observed, log = client(serve, "default", "default", "full")
            head = [(r["rpc"], r["version"], r["status"]) for r in log[:1]]
            checks.check(
                "default: without versionNegotiation no probe: the first request is initialize, answered 200",
                head == [("initialize", None, 200)] and not any(r["rpc"] == "server/discover" for r in log),
                str(head),
            )
            checks.check(
                "default: the client settles on 2025-11-25 (era legacy) and lists the legacy tools",
                (observed.get("era"), observed.get("protocol_version"), tools_of(observed))
                == ("legacy", "2025-11-25", wire.LEGACY_TOOLS),
                f"{observed.get('era')} {observed.get('protocol_version')} {tools_of(observed)}",
            )

        with Serve(binary, *hosts("fallback")) as serve:
            checks.hide(*serve.tokens.values())
            observed, log = client(serve, "fallback", "fallback", "full")
            wire.judge_fallback(checks, "fallback", log, connect_of(observed), tools_of(observed))
            deletes = [r["status"] for r in log if r["method"] == "DELETE"]
            checks.check(
                "fallback: terminateSession sends one DELETE, answered 204", deletes == [204], str(deletes)
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
    checks.exit()
