"""The official TypeScript SDK client against `serve`, judged from the wire.

Runs ts_client.mjs (the SDK's Client and StreamableHTTPClientTransport, bearer token through
requestInit) with the pinned Node 22 through recording proxies (proxy.py), and checks both what
the client reports and what it actually sent:

  full (role full):
    - no protocol probe: the first request is initialize (200, a session id handed out), then
      notifications/initialized (202); every request carries the Authorization field and, after
      initialize, MCP-Protocol-Version 2025-11-25; ping, logging/setLevel and both resources/list
      answer 200 and the client sees the two fixture resources;
    - the GET stream: every GET answers 200 with a priming event first (an id, `retry: 1000`,
      empty data); the notifications delivered over all GETs are session_started, then one
      resources_listed per resources/list call, none twice and none missing, and the client's
      notification handler saw exactly those in that order (no duplicate, no loss), besides the
      tool call's own notification;
    - Last-Event-ID: every GET after the first carries Last-Event-ID equal to the last id the
      GET before it delivered, priming ids included, so the client keeps its cursor across an
      empty poll (at least one GET follows a poll that held only its prime), and at least one
      resumed GET delivered a notification;
    - test_reconnection: tools/list names it alone; exactly one tools/call POST, answered with an
      event stream holding only a priming event; then, at least 0.95 s later (its retry), one GET
      with Last-Event-ID equal to that priming id, answered with a priming event, the call's
      notification and its response, all on that POST stream; the client gets the result
      (isError false) and never sends the call again;
    - cadence: at least 4 re-polls, every gap between the end of one GET and the start of the
      next at least 0.95 s and their median within [0.95 s, 1.5 s] (the `retry: 1000` the server
      sends: never a tight loop, and not a slower backoff);
    - terminateSession: exactly one DELETE, answered 204, and the client forgets the session id;
  refused (role connect_only): resources/list fails at once (< 5 s) with StreamableHTTPError code
    403 naming insufficient_scope; on the wire exactly one resources/list POST, answered 403 with
    the exact insufficient_scope challenge; the session is then ended with DELETE (204);
  rejected (role expired): connect fails with StreamableHTTPError code 401 naming invalid_token;
    on the wire exactly one request, the initialize, answered 401 with the exact invalid_token
    challenge;
  ttl (role full, its own `serve --session-ttl-secs 2`): the first GET after expiry answers 404
    session_not_found after the 2 s lifetime (within [1.9 s, 6 s]); the client re-polls GET at
    most 3 times in all on 404 and then stops; a ping after expiry fails with StreamableHTTPError
    code 404 and is answered 404 on the wire; the client never sends a second initialize (it does
    not re-initialize by itself: the pinned behaviour the README describes) and keeps the dead
    session id.

Measured values (cadence, time to the 403, when the 404 came) are printed as `note` lines.

Usage: python ts_client_check.py PATH_TO_BINARY NODE22 NPM_DIR
NPM_DIR is where package.json was installed (its node_modules holds the SDK). Exits 0 when every
check passed.
"""

import json
import os
import shutil
import statistics
import sys
import tempfile

from harness import Checks, Serve, run
from modern_wire import LEGACY_TOOLS
from proxy import Proxy

CLIENT_TIMEOUT_S = 60
FIXTURE_URIS = ["kb://tenant/acme/handbook", "kb://tenant/acme/faq"]
checks = Checks("ts sdk client")


def run_client(node, script, scenario, url, token):
    code, out, err, seconds = run([node, script, scenario, url], CLIENT_TIMEOUT_S, env={"MCP_BEARER": token})
    checks.check(
        f"{scenario}: the client ran to its end within {CLIENT_TIMEOUT_S}s",
        code == 0,
        f"exit {code}, {seconds:.1f}s",
    )
    try:
        return json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        checks.check(f"{scenario}: the client printed its JSON line", False, checks.redact(err[-2000:]))
        return {"steps": {}, "notifications": [], "transport_errors": []}


def step(observed, name):
    return observed["steps"].get(name, {"ok": False, "error": {"code": None, "message": "step not reached"}})


def check_full(observed, log):
    posts = [r for r in log if r["method"] == "POST"]
    gets = sorted((r for r in log if r["method"] == "GET"), key=lambda r: r["t"])
    deletes = [r for r in log if r["method"] == "DELETE"]
    checks.check(
        "full: the client is the pinned SDK on Node 22",
        observed.get("sdk_version") == "1.32.2" and observed.get("node_version", "").startswith("v22."),
        f"{observed.get('sdk_version')} on {observed.get('node_version')}",
    )
    first = log[0] if log else {}
    checks.check(
        "full: no protocol probe; the first request is initialize, answered 200 with a session id",
        first.get("rpc") == "initialize"
        and first.get("status") == 200
        and first.get("issued_session") is not None,
        f"{first.get('rpc')} -> {first.get('status')}",
    )
    checks.check(
        "full: the initialize carries no MCP-Protocol-Version",
        first.get("version") is None,
        str(first.get("version")),
    )
    initialized = [r for r in posts if r["rpc"] == "notifications/initialized"]
    checks.check(
        "full: notifications/initialized answered 202",
        [r["status"] for r in initialized] == [202],
        str([r["status"] for r in initialized]),
    )
    checks.check(
        "full: every request carries the bearer header (requestInit), GET and DELETE included",
        bool(log) and all(r["auth"] for r in log),
        f"{sum(r['auth'] for r in log)}/{len(log)}",
    )
    checks.check(
        "full: every request after initialize carries MCP-Protocol-Version 2025-11-25",
        all(r["version"] == "2025-11-25" for r in log[1:]),
        str(sorted({str(r["version"]) for r in log[1:]})),
    )
    checks.check(
        "full: the client negotiated 2025-11-25",
        observed.get("protocol_version") == "2025-11-25",
        str(observed.get("protocol_version")),
    )
    for name, rpc in (("ping", "ping"), ("setLoggingLevel", "logging/setLevel")):
        statuses = [r["status"] for r in posts if r["rpc"] == rpc]
        checks.check(
            f"full: {rpc} succeeds (200 on the wire)",
            step(observed, name)["ok"] and statuses == [200],
            f"{statuses}",
        )
    listed = [r for r in posts if r["rpc"] == "resources/list"]
    checks.check(
        "full: both resources/list answered 200 as an event stream: a priming event, then the response",
        [r["status"] for r in listed] == [200, 200]
        and all(
            [(e["priming"], e["response"]) for e in r["events"] or []] == [(True, False), (False, True)]
            for r in listed
        ),
        str([r["events"] for r in listed])[:300],
    )
    checks.check(
        "full: the client lists the two fixture resources",
        step(observed, "listResources").get("value") == FIXTURE_URIS
        and step(observed, "listResources2").get("value") == FIXTURE_URIS,
        str(step(observed, "listResources").get("value")),
    )

    check_reconnection(observed, posts, gets)
    # The standalone GET stream; a GET resuming a POST stream carries a `p<k>-<n>` cursor.
    gets = [r for r in gets if not (r["last_event_id"] or "").startswith("p")]
    checks.check(
        "full: every GET answered 200",
        bool(gets) and all(r["status"] == 200 for r in gets),
        str([r["status"] for r in gets]),
    )
    checks.check(
        "full: every GET stream opens with a priming event (an id, retry 1000, empty data)",
        all(
            r["events"] and r["events"][0]["priming"] and r["events"][0]["retry"] == 1000
            for r in gets
        ),
        str([(r["events"] or [{}])[0] for r in gets][:3]),
    )
    delivered = [e for r in gets for e in (r["events"] or []) if not e["priming"]]
    wire_events = [e["event"] for e in delivered]
    checks.check(
        "full: the GET streams delivered session_started, then one resources_listed per resources/list",
        wire_events == ["session_started"] + ["resources_listed"] * len(listed),
        str(wire_events),
    )
    ids = [e["id"] for r in gets for e in (r["events"] or [])]
    checks.check("full: no event id twice", len(ids) == len(set(ids)), str(ids))
    seen = [n["event"] for n in observed["notifications"] if n["event"] != "test_reconnection_called"]
    checks.check(
        "full: the client's handler saw exactly the delivered events, in order",
        seen == wire_events,
        str(seen),
    )
    resumed, replayed, after_empty = 0, 0, 0
    wrong = []
    for previous, current in zip(gets, gets[1:]):
        previous_ids = [e["id"] for e in previous["events"] or [] if e["id"] is not None]
        resumed += 1
        if current["last_event_id"] != (previous_ids[-1] if previous_ids else None):
            wrong.append((previous_ids[-1:], current["last_event_id"]))
        if all(e["priming"] for e in previous["events"] or []):
            after_empty += 1
        if any(not e["priming"] for e in current["events"] or []):
            replayed += 1
    checks.check(
        "full: each GET after the first carries Last-Event-ID = the last id the GET before delivered",
        resumed >= 2 and not wrong,
        f"{resumed} resumed GETs, mismatches {wrong}",
    )
    checks.check(
        "full: the cursor survives an empty poll (a GET after a prime-only stream still resumes)",
        after_empty >= 1 and not wrong,
        f"{after_empty} GETs after a poll that held only its prime",
    )
    checks.check(
        "full: a resumed GET delivered a notification", replayed >= 1, f"{replayed} resumed GETs delivered events"
    )
    gaps = [round(b["t"] - a["t_end"], 3) for a, b in zip(gets, gets[1:])]
    checks.check(
        "full: the GET stream is re-polled, never sooner than 0.95 s after the last one ended (retry: 1000)",
        len(gaps) >= 4 and min(gaps) >= 0.95,
        str(gaps),
    )
    checks.check(
        "full: at the retry pace: median gap within [0.95 s, 1.5 s]",
        bool(gaps) and 0.95 <= statistics.median(gaps) <= 1.5,
        str(gaps),
    )
    if gaps:
        checks.note(
            f"full: GET re-poll cadence median {statistics.median(gaps):.3f}s over {len(gaps)} gaps (min {min(gaps):.3f}s, max {max(gaps):.3f}s)"
        )
    checks.check(
        "full: terminateSession sends one DELETE, answered 204",
        [r["status"] for r in deletes] == [204],
        str([r["status"] for r in deletes]),
    )
    checks.check(
        "full: terminateSession succeeds and the client forgets the session id",
        step(observed, "terminateSession")["ok"] and observed.get("session_cleared") is True,
        json.dumps(step(observed, "terminateSession").get("error")),
    )
    after = [f"{r['method']} {r['status']}" for r in log if deletes and r["t"] > deletes[0]["t"]]
    checks.check("full: nothing is sent after the DELETE", after == [], str(after))
    checks.check(
        "full: no transport error during the session",
        observed["transport_errors"] == [],
        json.dumps(observed["transport_errors"])[:300],
    )


def check_reconnection(observed, posts, gets):
    tools = step(observed, "listTools")
    checks.check(
        "full: tools/list names test_reconnection and the four others",
        tools["ok"] and tools.get("value") == LEGACY_TOOLS,
        json.dumps(tools.get("value") or tools.get("error")),
    )
    calls = [r for r in posts if r["rpc"] == "tools/call"]
    first = calls[0] if calls else {}
    checks.check(
        "full: exactly one tools/call POST (the call is never sent again)",
        len(calls) == 1,
        f"{len(calls)}",
    )
    events = first.get("events") or []
    checks.check(
        "full: the call is answered 200 with an event stream holding only its priming event",
        first.get("status") == 200 and len(events) == 1 and events[0]["priming"] and events[0]["retry"] == 1000,
        json.dumps(events),
    )
    prime = events[0]["id"] if events else None
    resumptions = [r for r in gets if prime and r["last_event_id"] == prime]
    checks.check(
        "full: the SDK resumes it by itself: one GET with Last-Event-ID = that priming id",
        len(resumptions) == 1,
        f"{prime}: {[r['last_event_id'] for r in gets if (r['last_event_id'] or '').startswith('p')]}",
    )
    if resumptions and first:
        wait = resumptions[0]["t"] - first["t_end"]
        checks.check("full: after waiting the retry (at least 0.95 s)", wait >= 0.95, f"{wait:.3f}s")
        checks.note(f"full: test_reconnection resumed {wait:.3f}s after its stream ended")
        resumed = resumptions[0]["events"] or []
        stream = prime.split("-")[0]
        kinds = ["prime" if e["priming"] else e["event"] or ("response" if e["response"] else "?") for e in resumed]
        checks.check(
            "full: the resumption brings a priming event, the call's notification and its response",
            resumptions[0]["status"] == 200 and kinds == ["prime", "test_reconnection_called", "response"],
            str(kinds),
        )
        checks.check(
            "full: all of it on that POST stream, nothing of the GET stream or another",
            all(e["id"].split("-")[0] == stream for e in resumed),
            str([e["id"] for e in resumed]),
        )
    called = step(observed, "callTool")
    value = called.get("value") or {}
    checks.check(
        "full: the client gets the tool's result (isError false)",
        called["ok"] and value.get("isError") is False and value.get("text", [""])[0].startswith("delivered on resumption"),
        json.dumps(value or called.get("error"))[:200],
    )
    notes = [n["event"] for n in observed["notifications"]]
    checks.check(
        "full: the handler saw the call's notification once",
        notes.count("test_reconnection_called") == 1,
        str(notes),
    )


def check_refused(observed, log, serve):
    listing = step(observed, "listResources")
    error = listing.get("error") or {}
    checks.check(
        "connect_only: resources/list fails with StreamableHTTPError code 403",
        not listing["ok"] and error.get("name") == "StreamableHTTPError" and error.get("code") == 403,
        json.dumps(error)[:200],
    )
    checks.check(
        "connect_only: the error names insufficient_scope",
        "insufficient_scope" in error.get("message", ""),
        error.get("message", "")[:200],
    )
    checks.check(
        "connect_only: it fails at once (< 5 s)",
        listing.get("seconds", 99) < 5,
        f"{listing.get('seconds', 0) * 1000:.1f} ms",
    )
    checks.note(f"connect_only: time to the 403 surfaced: {listing.get('seconds', 0) * 1000:.1f} ms")
    wire = [r for r in log if r["rpc"] == "resources/list"]
    challenge = f'Bearer error="insufficient_scope", scope="mcp:connect resources:read", resource_metadata="{serve.resource_metadata}"'
    checks.check(
        "connect_only: exactly one resources/list on the wire (no retry), 403 insufficient_scope",
        [(r["status"], r["error"]) for r in wire] == [(403, "insufficient_scope")],
        str([(r["status"], r["error"]) for r in wire]),
    )
    checks.check(
        "connect_only: with the exact challenge",
        [r["challenge"] for r in wire] == [challenge],
        str([r["challenge"] for r in wire]),
    )
    deletes = [r["status"] for r in log if r["method"] == "DELETE"]
    checks.check("connect_only: the session is ended with DELETE (204)", deletes == [204], str(deletes))


def check_rejected(observed, log, serve):
    connect = step(observed, "connect")
    error = connect.get("error") or {}
    checks.check(
        "expired: connect fails with StreamableHTTPError code 401",
        not connect["ok"] and error.get("name") == "StreamableHTTPError" and error.get("code") == 401,
        json.dumps(error)[:200],
    )
    checks.check(
        "expired: the error names invalid_token",
        "invalid_token" in error.get("message", ""),
        error.get("message", "")[:200],
    )
    challenge = (
        f'Bearer error="invalid_token", resource_metadata="{serve.resource_metadata}", scope="mcp:connect"'
    )
    wire = [(r["method"], r["rpc"], r["status"], r["error"]) for r in log]
    checks.check(
        "expired: exactly one request, the initialize, answered 401 invalid_token",
        wire == [("POST", "initialize", 401, "invalid_token")],
        str(wire),
    )
    checks.check(
        "expired: with the exact challenge",
        [r["challenge"] for r in log] == [challenge],
        str([r["challenge"] for r in log]),
    )


def check_ttl(observed, log):
    initializes = [r for r in log if r["rpc"] == "initialize"]
    checks.check(
        "ttl: one initialize, 200",
        [r["status"] for r in initializes] == [200],
        str([r["status"] for r in initializes]),
    )
    started = initializes[0]["t"] if initializes else 0
    gets = [r for r in log if r["method"] == "GET"]
    expired = [r for r in gets if r["status"] == 404]
    checks.check(
        "ttl: the GET stream meets 404 session_not_found once the session expired",
        bool(expired) and all(r["error"] == "session_not_found" for r in expired),
        str([(r["status"], r["error"]) for r in gets]),
    )
    if expired:
        at = expired[0]["t"] - started
        checks.check(
            "ttl: the first 404 comes after the 2 s lifetime, on a re-poll (within [1.9 s, 6 s])",
            1.9 <= at <= 6,
            f"{at:.2f}s after initialize",
        )
        checks.note(
            f"ttl: first 404 on GET {at:.2f}s after initialize; {len(expired)} GETs answered 404 in all"
        )
    checks.check(
        "ttl: the client stops re-polling after at most 3 GETs answered 404",
        1 <= len(expired) <= 3,
        f"{len(expired)}",
    )
    checks.check(
        "ttl: the 404s end the GET polling (no GET answered 200 after the first 404)",
        not any(r["status"] == 200 and expired and r["t"] > expired[0]["t"] for r in gets),
        str([r["status"] for r in gets]),
    )
    ping = step(observed, "pingAfterExpiry")
    error = ping.get("error") or {}
    checks.check(
        "ttl: a ping after expiry fails with StreamableHTTPError code 404",
        not ping["ok"] and error.get("code") == 404 and "session_not_found" in error.get("message", ""),
        json.dumps(error)[:200],
    )
    pings = [(r["status"], r["error"]) for r in log if r["rpc"] == "ping"]
    checks.check(
        "ttl: on the wire the pings are 200, then 404 session_not_found",
        pings == [(200, None), (404, "session_not_found")],
        str(pings),
    )
    checks.check(
        "ttl: the client does not re-initialize after the 404 (pinned behaviour)",
        len(initializes) == 1,
        f"{len(initializes)} initialize requests",
    )
    checks.check(
        "ttl: it keeps the dead session id",
        observed.get("session_id_still_set") is True,
        str(observed.get("session_id_still_set")),
    )
    messages = [e["message"] for e in observed["transport_errors"]]
    checks.note(f"ttl: transport errors reported: {messages}")


def main(binary, node, npm_dir):
    code, out, _, _ = run([node, "--version"], 10)
    checks.check("Node 22 is there", code == 0 and out.startswith("v22."), out.strip())
    script = os.path.join(npm_dir, "ts_client.mjs")
    shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ts_client.mjs"), script)
    work = tempfile.mkdtemp(prefix="ts-client-")
    try:
        proxies = {
            name: Proxy(record=os.path.join(work, f"{name}.jsonl"))
            for name in ("full", "refused", "rejected")
        }
        hosts = [flag for p in proxies.values() for flag in ("--allow-host", f"127.0.0.1:{p.port}")]
        with Serve(binary, *hosts) as serve:
            checks.hide(*serve.tokens.values())
            for name, role in (("full", "full"), ("refused", "connect_only"), ("rejected", "expired")):
                proxy = proxies[name].start(serve.port)
                observed = run_client(
                    node, script, name, f"http://127.0.0.1:{proxy.port}/mcp", serve.tokens[role]
                )
                log = proxy.records()
                {
                    "full": lambda: check_full(observed, log),
                    "refused": lambda: check_refused(observed, log, serve),
                    "rejected": lambda: check_rejected(observed, log, serve),
                }[name]()
                proxy.close()
        proxy = Proxy(record=os.path.join(work, "ttl.jsonl"))
        with Serve(binary, "--session-ttl-secs", "2", "--allow-host", f"127.0.0.1:{proxy.port}") as serve:
            checks.hide(*serve.tokens.values())
            proxy.start(serve.port)
            observed = run_client(
                node, script, "ttl", f"http://127.0.0.1:{proxy.port}/mcp", serve.tokens["full"]
            )
            check_ttl(observed, proxy.records())
            proxy.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
    checks.exit()
