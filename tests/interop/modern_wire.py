"""The judgement shared by the 2026-07-28 client checks (python_modern.py, ts_modern_check.py);
not a check itself.

Each function reads the exchanges a recording proxy (proxy.py) logged for one client run, and
what that client reported about the same run in one plain shape, and prints its checks through
harness.Checks. A client's report is only believed where the wire agrees: the Mcp-Param fields,
versions, sessions and statuses are all taken from the wire.

Report shapes (each SDK's driver turns its own results into these):
  connect   {"era": "modern" or "legacy", "version": negotiated version,
             "supported": the versions its server/discover result named, or None}
  call      {"ok": bool, "is_error": result.isError, "texts": [text of each content item],
             "code": JSON-RPC error code when not ok, "header": the error's data.header}
"""

import base64

MODERN = "2026-07-28"
MODERN_TOOLS = [
    "whoami",
    "tenant_documents",
    "test_missing_capability",
    "test_logging_tool",
    "count_slowly",
    "test_tool_with_progress",
    "test_tool_fast",
    "test_tool_slow",
    "test_trigger_tool_change",
]
LEGACY_TOOLS = [
    "test_reconnection",
    "count_slowly",
    "test_tool_with_progress",
    "test_tool_fast",
    "test_tool_slow",
]
ACME_URIS = ["kb://tenant/acme/handbook", "kb://tenant/acme/faq"]
HEADER_MISMATCH = -32020


def values(record, name):
    """The values of the Mcp-* routing field `name` (any spelling) in one request."""
    return [v for n, v in record.get("mcp_fields") or [] if n.lower() == name.lower()]


def params(record):
    """{lowercase Mcp-Param-* name: [values]} of one request."""
    found = {}
    for name, value in record.get("mcp_fields") or []:
        if name.lower().startswith("mcp-param-"):
            found.setdefault(name.lower(), []).append(value)
    return found


def lines(texts):
    """The non-empty lines of a result's texts (the tool answers its URIs one a line)."""
    return [line for text in texts or [] for line in (text or "").split("\n") if line]


def sentinel(value):
    """The `=?base64?...?=` form of a header value that is not plain ASCII."""
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def summary(log):
    return [
        f"{r['method']} {r['rpc'] or ''} v={r['version']} {dict((n, v) for n, v in r['mcp_fields'])} -> "
        f"{r['status']} {r['error'] or ''}".strip()
        for r in log
    ]


def calls(log):
    return [r for r in log if r["rpc"] == "tools/call"]


def judge_stateless(checks, label, log):
    """What every 2026-07-28 exchange of a modern client must look like on the wire."""
    checks.check(
        f"{label}: every request is a POST; no initialize, no GET, no DELETE",
        bool(log) and all(r["method"] == "POST" and r["rpc"] != "initialize" for r in log),
        str(sorted({f"{r['method']} {r['rpc']}" for r in log})),
    )
    checks.check(
        f"{label}: no Mcp-Session-Id on any request, none handed out",
        all(r["session"] is None and r["issued_session"] is None for r in log),
        str([(r["session"], r["issued_session"]) for r in log if r["session"] or r["issued_session"]]),
    )
    checks.check(
        f"{label}: every request carries MCP-Protocol-Version {MODERN} and Mcp-Method = its method",
        all(r["version"] == MODERN and values(r, "Mcp-Method") == [r["rpc"]] for r in log),
        str([(r["rpc"], r["version"], values(r, "Mcp-Method")) for r in log]),
    )
    checks.check(
        f"{label}: every request carries the bearer header",
        all(r["auth"] for r in log),
        f"{sum(r['auth'] for r in log)}/{len(log)}",
    )


def judge_modern(checks, label, log, connect, tools, acme, acme_limit, supported):
    """Discover, tools/list, tenant_documents twice (without and with limit), all modern."""
    first = log[0] if log else {}
    checks.check(
        f"{label}: the first request is server/discover at {MODERN}, answered 200",
        (first.get("rpc"), first.get("version"), first.get("status")) == ("server/discover", MODERN, 200),
        f"{first.get('rpc')} v={first.get('version')} -> {first.get('status')}",
    )
    checks.check(
        f"{label}: the client negotiated {MODERN} (era modern)",
        (connect.get("era"), connect.get("version")) == ("modern", MODERN),
        f"{connect.get('era')} {connect.get('version')}",
    )
    checks.check(
        f"{label}: its discover result names the versions serve offers, {supported}",
        sorted(connect.get("supported") or []) == sorted(supported),
        str(connect.get("supported")),
    )
    judge_stateless(checks, label, log)
    listed = [r["status"] for r in log if r["rpc"] == "tools/list"]
    checks.check(
        f"{label}: tools/list answered 200 and the client lists the nine modern tools",
        listed == [200] and tools == MODERN_TOOLS,
        f"{listed} {tools}",
    )
    wire = calls(log)
    checks.check(
        f"{label}: two tools/call on the wire, each 200",
        [r["status"] for r in wire] == [200, 200],
        str([r["status"] for r in wire]),
    )
    if len(wire) != 2:
        checks.note(f"{label}: wire: {summary(log)}")
        return
    plain, limited = wire
    for name, record, expected in (
        ("{tenant: acme}", plain, {"mcp-param-tenant": ["acme"]}),
        ("{tenant: acme, limit: 1}", limited, {"mcp-param-tenant": ["acme"], "mcp-param-limit": ["1"]}),
    ):
        checks.check(
            f"{label}: tools/call {name} carries Mcp-Name tenant_documents and exactly {expected} (the SDK's own)",
            values(record, "Mcp-Name") == ["tenant_documents"] and params(record) == expected,
            str(record["mcp_fields"]),
        )
    checks.note(f"{label}: the SDK spells them {[n for n, _ in limited['mcp_fields']]}")
    checks.check(
        f"{label}: {{tenant: acme}} answers both URIs (wire and client)",
        lines((plain["tool_result"] or {}).get("texts")) == ACME_URIS
        and (plain["tool_result"] or {}).get("is_error") is False
        and acme.get("ok")
        and acme.get("is_error") is False
        and lines(acme.get("texts")) == ACME_URIS,
        f"wire {plain['tool_result']}, client {acme}",
    )
    checks.check(
        f"{label}: {{tenant: acme, limit: 1}} answers the first URI alone (wire and client)",
        lines((limited["tool_result"] or {}).get("texts")) == ACME_URIS[:1]
        and acme_limit.get("ok")
        and acme_limit.get("is_error") is False
        and lines(acme_limit.get("texts")) == ACME_URIS[:1],
        f"wire {limited['tool_result']}, client {acme_limit}",
    )


def judge_fallback(checks, label, log, connect, tools):
    """Against a 2025-11-25-only serve: the probe refused, then initialize and a legacy session."""
    head = [(r["rpc"], r["version"], r["status"], r["error"]) for r in log[:2]]
    checks.check(
        f"{label}: server/discover at {MODERN} first, answered 400 protocol_version_unsupported",
        head[:1] == [("server/discover", MODERN, 400, "protocol_version_unsupported")],
        str(head[:1]),
    )
    checks.check(
        f"{label}: then initialize without the version field, answered 200 with a session",
        head[1:2] == [("initialize", None, 200, None)] and log[1]["issued_session"] is not None,
        str(head[1:2]),
    )
    checks.check(
        f"{label}: the client settles on 2025-11-25 (era legacy)",
        (connect.get("era"), connect.get("version")) == ("legacy", "2025-11-25"),
        f"{connect.get('era')} {connect.get('version')}",
    )
    later = log[1:]
    checks.check(
        f"{label}: after the probe no Mcp-Method, Mcp-Name or Mcp-Param field (a plain 2025 exchange)",
        all(not r["mcp_fields"] for r in later),
        str([r["mcp_fields"] for r in later if r["mcp_fields"]]),
    )
    checks.check(
        f"{label}: every request after initialize carries the session and MCP-Protocol-Version 2025-11-25",
        len(later) >= 2
        and all(r["session"] == log[1]["issued_session"] and r["version"] == "2025-11-25" for r in later[1:]),
        str([(r["rpc"] or r["method"], r["version"], r["session"]) for r in later[1:]]),
    )
    listed = [r["status"] for r in log if r["rpc"] == "tools/list"]
    checks.check(
        f"{label}: tools/list answered 200, naming test_reconnection and the four others",
        listed == [200] and tools == LEGACY_TOOLS,
        f"{listed} {tools}",
    )
    checks.note(f"{label}: wire: {summary(log)}")


def judge_refused(checks, label, log, call, header, sent):
    """A tools/call whose `header` was made to disagree with the body (`sent` on the wire)."""
    wire = calls(log)
    checks.check(
        f"{label}: on the wire {header}: {sent}",
        bool(wire) and all(values(r, header) == [sent] for r in wire),
        str([r["mcp_fields"] for r in wire]),
    )
    checks.check(
        f"{label}: each such tools/call refused 400, -32020 header_mismatch naming {header}",
        bool(wire)
        and all(
            (r["status"], r["error_code"], r["error"], r["error_header"])
            == (400, HEADER_MISMATCH, "header_mismatch", header)
            for r in wire
        ),
        str([(r["status"], r["error_code"], r["error"], r["error_header"]) for r in wire]),
    )
    checks.check(
        f"{label}: the client gets the error -32020 naming {header}",
        not call.get("ok") and call.get("code") == HEADER_MISMATCH and call.get("header") == header,
        str(call),
    )
    between = [r["rpc"] for r in log[log.index(wire[0]) :]] if wire else []
    checks.check(
        f"{label}: the SDK re-lists the tools once and resends once, then gives up",
        between == ["tools/call", "tools/list", "tools/call"],
        str(between),
    )


def judge_unlisted(checks, label, log, call):
    """tools/call before any tools/list: the SDK has no schema to mirror from yet."""
    rpcs = [r["rpc"] for r in log]
    checks.check(
        f"{label}: on the wire server/discover, tools/call, tools/list, tools/call",
        rpcs == ["server/discover", "tools/call", "tools/list", "tools/call"],
        str(rpcs),
    )
    wire = calls(log)
    if len(wire) != 2:
        return
    checks.check(
        f"{label}: the first tools/call carries no Mcp-Param field and is refused 400 -32020",
        params(wire[0]) == {}
        and (wire[0]["status"], wire[0]["error_code"]) == (400, HEADER_MISMATCH)
        and (wire[0]["error_header"] or "").startswith("Mcp-Param-"),
        f"{wire[0]['mcp_fields']} -> {wire[0]['status']} {wire[0]['error_code']} {wire[0]['error_header']}",
    )
    checks.check(
        f"{label}: after the listing it resends with Mcp-Param-Tenant: acme and Mcp-Param-Limit: 1, answered 200",
        params(wire[1]) == {"mcp-param-tenant": ["acme"], "mcp-param-limit": ["1"]}
        and wire[1]["status"] == 200,
        f"{wire[1]['mcp_fields']} -> {wire[1]['status']}",
    )
    checks.check(
        f"{label}: the client gets the first URI alone",
        call.get("ok") and call.get("is_error") is False and lines(call.get("texts")) == ACME_URIS[:1],
        str(call),
    )


def judge_sentinel(checks, label, log, call, tenant, expected_lines, expect_error):
    """tools/call with a tenant that is not plain ASCII: the SDK must send the base64 sentinel."""
    wire = calls(log)
    record = wire[0] if len(wire) == 1 else {"mcp_fields": [], "tool_result": None}
    sent = values(record, "Mcp-Param-Tenant")
    checks.check(
        f"{label}: one tools/call, with Mcp-Param-Tenant: {sentinel(tenant)}",
        len(wire) == 1 and sent == [sentinel(tenant)],
        str(sent),
    )
    checks.check(
        f"{label}: its base64 decodes to the tenant exactly (UTF-8)",
        len(sent) == 1
        and sent[0].startswith("=?base64?")
        and base64.b64decode(sent[0][len("=?base64?") : -2]).decode("utf-8") == tenant,
        repr(tenant),
    )
    result = record.get("tool_result") or {}
    checks.check(
        f"{label}: the server accepts it (200) and answers isError {expect_error}: {expected_lines}",
        record.get("status") == 200
        and result.get("is_error") is expect_error
        and lines(result.get("texts")) == expected_lines,
        f"{record.get('status')} {result}",
    )
    checks.check(
        f"{label}: the client sees the same",
        call.get("ok")
        and call.get("is_error") is expect_error
        and lines(call.get("texts")) == expected_lines,
        str(call),
    )
