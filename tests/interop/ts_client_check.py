"""The official TypeScript SDK client against `serve`, judged from the wire.

Runs ts_client.mjs (the SDK's Client and StreamableHTTPClientTransport, bearer token through
requestInit) with the pinned Node 22 through recording proxies (proxy.py), and checks both what
the client reports and what it actually sent:

  full (role full):
    - no protocol probe: the first request is initialize (200, a session id handed out), then
      notifications/initialized (202); every request carries the Authorization field and, after
      initialize, MCP-Protocol-Version 2025-11-25; ping, logging/setLevel and both resources/list
      answer 200 and the client sees the two fixture resources;
    - the GET stream: every GET answers 200; the event ids delivered over all GETs are g1..gN with
      N = 1 + the number of resources/list calls (session_started, then one resources_listed per
      call), none twice and none missing, and the client's notification handler saw exactly those
      events in that order (no duplicate, no loss);
    - Last-Event-ID resumption: every GET that follows a GET which delivered events carries
      Last-Event-ID equal to the last id delivered, and at least one such resumed GET delivered an
      event (a replay, not only an empty poll);
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
        "full: both resources/list answered 200 as an event stream",
        [r["status"] for r in listed] == [200, 200]
        and all(r["events"] and r["events"][0]["response"] for r in listed),
        str([r["status"] for r in listed]),
    )
    checks.check(
        "full: the client lists the two fixture resources",
        step(observed, "listResources").get("value") == FIXTURE_URIS
        and step(observed, "listResources2").get("value") == FIXTURE_URIS,
        str(step(observed, "listResources").get("value")),
    )

    checks.check(
        "full: every GET answered 200",
        bool(gets) and all(r["status"] == 200 for r in gets),
        str([r["status"] for r in gets]),
    )
    delivered = [e for r in gets for e in (r["events"] or []) if e["id"] is not None]
    ids = [e["id"] for e in delivered]
    expected = [f"g{n}" for n in range(1, 2 + len(listed))]
    checks.check(
        "full: the GET streams delivered g1..gN exactly once each (no duplicate, no loss)",
        ids == expected,
        f"{ids}, expected {expected}",
    )
    wire_events = [e["event"] for e in delivered]
    checks.check(
        "full: they were session_started, then one resources_listed per resources/list",
        wire_events == ["session_started"] + ["resources_listed"] * len(listed),
        str(wire_events),
    )
    seen = [n["event"] for n in observed["notifications"]]
    checks.check(
        "full: the client's handler saw exactly the delivered events, in order",
        seen == wire_events,
        str(seen),
    )
    resumed, replayed, plain_after_empty = 0, 0, 0
    wrong = []
    for previous, current in zip(gets, gets[1:]):
        previous_ids = [e["id"] for e in previous["events"] or [] if e["id"] is not None]
        if previous_ids:
            resumed += 1
            if current["last_event_id"] != previous_ids[-1]:
                wrong.append((previous_ids[-1], current["last_event_id"]))
            if any(e["id"] for e in current["events"] or []):
                replayed += 1
        elif current["last_event_id"] is None:
            plain_after_empty += 1
    checks.check(
        "full: each GET after one that delivered events carries Last-Event-ID = the last id delivered",
        resumed >= 2 and not wrong,
        f"{resumed} resumed GETs, mismatches {wrong}",
    )
    checks.check(
        "full: a resumed GET replayed an event", replayed >= 1, f"{replayed} resumed GETs delivered events"
    )
    checks.note(
        f"full: after an empty stream the next GET carries no Last-Event-ID ({plain_after_empty} of {len(gets) - 1 - resumed} such GETs)"
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
