"""The official TypeScript SDK 2.x client against `serve` in the 2026-07-28 era, judged from the wire.

Runs ts_modern.mjs (@modelcontextprotocol/client's Client with versionNegotiation `{ mode: 'auto' }`
and its StreamableHTTPClientTransport, bearer token through requestInit) with the pinned Node 22,
each scenario through its own recording proxy (proxy.py), and checks what it sent (judged by
modern_wire.py):

  modern (role full, `serve --protocol-versions 2026-07-28`) and dual (the same against
  `--protocol-versions 2025-11-25,2026-07-28`): server/discover first (200) and the client
  settles on 2026-07-28; every request a POST with MCP-Protocol-Version 2026-07-28 and Mcp-Method,
  no initialize, no GET, no DELETE, no Mcp-Session-Id; tools/list names the nine modern tools;
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

Streams that stay open, against `serve --protocol-versions 2026-07-28 --stream-keepalive-secs 1`
(every exchange judged stateless as above):
  progress: callTool count_slowly {steps: 3, pause_ms: 400} with `onprogress`: the callback gets
  progress 1, 2, 3 of total 3, in that order, the first at least 600 ms before callTool returns
  (while the server still counted), and the result is exactly "counted to 3"; on the wire one 200
  event stream of exactly three notifications/progress, then the response;
  quiet: callTool count_slowly {steps: 3, pause_ms: 1000} without `onprogress` (no progress token,
  so the stream writes nothing for 3 s): on the wire at least two comment lines (`: keep-alive`),
  every one before the response, which is the stream's last event; the SDK returns "counted to 3",
  after at least 3 s, and reports no transport error;
  listen: `listen({toolsListChanged: true})` resolves with the honored filter exactly
  {toolsListChanged: true}; then callTool test_trigger_tool_change (another POST) answers "the tool
  list changed (1 changes so far)", and the SDK's notifications/tools/list_changed handler runs
  exactly once, its `_meta` naming the listen's id (the SDK's `listen:0`); close() ends it as
  'local' and sends one notifications/cancelled (202; with MCP-Protocol-Version and no
  Mcp-* field, which the revision does not require of a notification POST), and the SDK reports
  no transport error; on the wire the listen is one POST
  answered 200 whose stream carries exactly the acknowledgement, then the list change, both
  tagged `listen:0`, and no response (the client closed it); serve's `stats` then shows no listen
  and no stream open, one tool list change, and the two count_slowly calls finished, none
  cancelled.

Usage: python ts_modern_check.py PATH_TO_BINARY NODE22 NPM_DIR
NPM_DIR is where package.json was installed (its node_modules holds the SDK). Exits 0 when every
check passed.
"""

import json
import os
import shutil
import sys
import tempfile
import time
import urllib.parse

import modern_wire as wire
from harness import Checks, Serve, run
from proxy import Proxy

CLIENT_TIMEOUT_S = 60
STREAMS = ["progress", "quiet", "listen"]
SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId"
LISTEN_ID = "listen:0"  # the SDK's first listen id (`listen:` and a counter from 0)
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


def stream_of(log, rpc):
    return next((r for r in log if r["rpc"] == rpc), None)


def judge_progress(label, observed, log):
    progress = observed.get("progress") or []
    returned = observed.get("returned_ms") or 0
    checks.check(
        f"{label}: onprogress got 1, 2, 3 of 3, in order",
        [(p.get("progress"), p.get("total")) for p in progress] == [(1, 3), (2, 3), (3, 3)],
        str(progress),
    )
    early = returned - progress[0]["ms"] if progress else 0
    checks.check(
        f"{label}: the first at least 600 ms before callTool returned (while the server counted)",
        early >= 600,
        f"{early} ms",
    )
    call = call_of(observed, "countSlowly")
    checks.check(
        f"{label}: the result is exactly 'counted to 3'",
        call == {"ok": True, "is_error": False, "texts": ["counted to 3"]},
        str(call),
    )
    record = stream_of(log, "tools/call") or {}
    methods = [e["method"] for e in record.get("events") or [] if e["method"] or e["response"]]
    checks.check(
        f"{label}: on the wire one 200 event stream: three notifications/progress, then the response",
        record.get("status") == 200 and methods == ["notifications/progress"] * 3 + [None],
        f"{record.get('status')} {methods}",
    )


def judge_quiet(label, observed, log):
    record = stream_of(log, "tools/call") or {}
    events = record.get("events") or []
    comments = record.get("comments") or 0
    # A block with nothing set is a comment-only block (proxy.py); the response must come last.
    kinds = ["response" if e["response"] else (e["method"] or "comment") for e in events]
    checks.check(
        f"{label}: on the wire two or more comment lines, all before the response, which comes last",
        record.get("status") == 200 and comments >= 2 and kinds == ["comment"] * (len(kinds) - 1) + ["response"],
        f"{record.get('status')} {comments} comment lines, {kinds}",
    )
    call = call_of(observed, "countSlowly")
    checks.check(
        f"{label}: the SDK skipped them and returned exactly 'counted to 3'",
        call == {"ok": True, "is_error": False, "texts": ["counted to 3"]},
        str(call),
    )
    checks.check(
        f"{label}: after the 3 s the server counted, with no transport error",
        (observed.get("returned_ms") or 0) >= 3000 and observed.get("transport_errors") == [],
        f"{observed.get('returned_ms')} ms, {observed.get('transport_errors')}",
    )


def judge_listen(label, observed, log):
    listen = observed.get("steps", {}).get("listen", {})
    checks.check(
        f"{label}: listen() resolved with the honored filter {{toolsListChanged: true}}",
        listen.get("ok") and listen.get("value") == {"honored": {"toolsListChanged": True}},
        str(listen),
    )
    trigger = call_of(observed, "trigger")
    checks.check(
        f"{label}: test_trigger_tool_change answered 'the tool list changed (1 changes so far)'",
        trigger == {"ok": True, "is_error": False, "texts": ["the tool list changed (1 changes so far)"]},
        str(trigger),
    )
    changes = observed.get("changes")
    checks.check(
        f"{label}: the list_changed handler ran once, tagged with the listen's id {LISTEN_ID}",
        changes
        == [{"method": "notifications/tools/list_changed", "meta": {SUBSCRIPTION_ID_KEY: LISTEN_ID}}],
        str(changes),
    )
    checks.check(
        f"{label}: close() ended the subscription as 'local'",
        observed.get("steps", {}).get("close", {}).get("ok") and observed.get("closed") == "local",
        f"{observed.get('steps', {}).get('close')} {observed.get('closed')}",
    )
    checks.check(
        f"{label}: the SDK reported no transport error",
        observed.get("transport_errors") == [],
        str(observed.get("transport_errors")),
    )
    record = stream_of(log, "subscriptions/listen") or {}
    tagged = [(e["method"], e["subscription"]) for e in record.get("events") or [] if e["method"] or e["response"]]
    checks.check(
        f"{label}: on the wire the listen's JSON-RPC id is {LISTEN_ID}",
        record.get("detail") == LISTEN_ID,
        repr(record.get("detail")),
    )
    checks.check(
        f"{label}: on the wire one 200 stream: the acknowledgement, then the list change, both tagged, no response",
        record.get("status") == 200
        and tagged
        == [
            ("notifications/subscriptions/acknowledged", LISTEN_ID),
            ("notifications/tools/list_changed", LISTEN_ID),
        ],
        f"{record.get('status')} {tagged}",
    )
    order = [r["rpc"] for r in log if r["rpc"] != "server/discover"]
    checks.check(
        f"{label}: the trigger was its own POST (200), and close() sent notifications/cancelled (202)",
        sorted(order) == ["notifications/cancelled", "subscriptions/listen", "tools/call"]
        and [r["status"] for r in log if r["rpc"] == "tools/call"] == [200]
        and [r["status"] for r in log if r["rpc"] == "notifications/cancelled"] == [202],
        str([(r["rpc"], r["status"]) for r in log]),
    )
    # This SDK sends its notifications/cancelled with the version field alone. The revision
    # defines no header requirement for a notification POST, so the server accepts and ignores
    # it; one whose Mcp-Method disagreed with its body would be refused (server_modern.rs).
    cancelled = [(r["version"], r["mcp_fields"]) for r in log if r["rpc"] == "notifications/cancelled"]
    checks.check(
        f"{label}: that notifications/cancelled carries MCP-Protocol-Version {wire.MODERN} and no Mcp-* field",
        cancelled == [(wire.MODERN, [])],
        str(cancelled),
    )


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
            for name in names + ["dual", "default", "fallback"] + STREAMS
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

        flags = ("--protocol-versions", wire.MODERN, "--stream-keepalive-secs", "1")
        with Serve(binary, *flags, *hosts(*STREAMS)) as serve:
            checks.hide(*serve.tokens.values())
            for name, judge in zip(STREAMS, (judge_progress, judge_quiet, judge_listen)):
                observed, log = client(serve, name, name, "full")
                checks.check(
                    f"{name}: the client settles on 2026-07-28 (era modern)",
                    (observed.get("era"), observed.get("protocol_version")) == ("modern", wire.MODERN),
                    f"{observed.get('era')} {observed.get('protocol_version')}",
                )
                # Every request, the notification listen's close() sends aside (judged there).
                requests = [r for r in log if r["rpc"] != "notifications/cancelled"]
                wire.judge_stateless(checks, name, requests)
                judge(name, observed, log)
            # What serve itself counts (its stdin control plane), once the listen's close reached it.
            stats = {}
            for _ in range(30):
                stats = serve.control("stats")
                if stats.get("listens_open") == 0 and stats.get("streams_open") == 0:
                    break
                time.sleep(0.1)
            checks.check(
                "listen: then serve holds no listen and no open stream; one tool list change, two calls finished",
                [stats.get(k) for k in ("listens_open", "streams_open", "tools_changed", "calls_finished", "calls_cancelled")]
                == [0, 0, 1, 2, 0],
                str(stats),
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
    checks.exit()
