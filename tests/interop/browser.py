"""A real browser against `serve`: Debian's Chromium, headless, judged from its own net log.

What it checks (`check`), each against a fresh `serve`:
  (a) DNS rebinding. With `--host-resolver-rules "MAP rebind.test 127.0.0.1"`, loading
      http://rebind.test:<port>/.well-known/oauth-protected-resource/mcp reaches the server with
      `Host: rebind.test:<port>`, and every attempt the browser makes is answered 421 with the
      host_not_allowed body (Chromium retries a 421 once on a fresh connection, so two attempts
      are expected and counted); the same page at 127.0.0.1 is 200 (the control).
  (b) A foreign loopback origin. A page served from http://127.0.0.1:<other port> POSTs an
      initialize to /mcp with fetch mode `no-cors` and `Content-Type: text/plain` (a "simple"
      request: no preflight). The browser sends it with `Origin: http://127.0.0.1:<other port>`
      and gets 403 origin_not_allowed (status and body from the net log; the page itself only
      sees an opaque response). Against `serve --max-sessions 1`: afterwards a normal initialize
      with a token gets 200 and a second one 503, so the refused request created nothing.
  (c) An allowed origin is still not enough. With `serve --allow-origin <the page's origin>`, a
      fetch with `Authorization` and `Content-Type: application/json` is not a simple request:
      the browser first sends a CORS preflight `OPTIONS /mcp` (Access-Control-Request-Method POST,
      Access-Control-Request-Headers authorization,content-type), which this server answers 405
      with no CORS fields; the preflight fails and the POST itself is never sent (no request
      headers of it in the net log), the page's fetch rejects with a TypeError, and the one
      session slot is still free. The token is in none of the browser's records.

Interface (also for a later Rust `lab` experiment; every subcommand prints JSON on stdout):
  browser.py install [--record FILE]
      Installs Debian's `chromium` with apt-get when /usr/bin/chromium is missing (needs root; a
      failure fails, it never skips) and prints {"chromium": "<chromium --version>",
      "package": "<Debian package version>"}; FILE gets the same two lines as text.
  browser.py navigate URL [--map HOST=IP]... [--netlog FILE] [--capture Default|Everything]
      Loads URL as the top-level page with --dump-dom; prints {"command", "dom", "console",
      "requests"}.
  browser.py fetch TARGET --page-port PORT [--mode no-cors|cors] [--header "Name: value"]...
                   [--body TEXT] [--netlog FILE] [--capture Default|Everything]
      Serves a page at http://127.0.0.1:PORT/ whose script POSTs BODY to TARGET with
      fetch(TARGET, {method: "POST", mode, headers, body}); loads it and prints {"command",
      "outcome" (what the page's fetch resolved or rejected with), "console", "requests"}. The
      fetch options reach the page from /config at run time, so the DOM never holds them.
  browser.py check PATH_TO_BINARY
      The checks above; one line per check on stderr, exit 1 if any failed.

The Chromium command line (see `command()`): /usr/bin/chromium --headless=new --no-sandbox
--disable-background-networking --disable-component-update --disable-sync --no-first-run
--disable-gpu --user-data-dir=<fresh temporary directory>
--host-resolver-rules="[MAP <host> <ip>, ]MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
--log-net-log=<file> --net-log-capture-mode=<Default|Everything> --enable-logging=stderr --v=0
[--virtual-time-budget=5000] --dump-dom <url>. The resolver rule makes every other name fail
inside the browser, so its background services never look up or reach anything off loopback.

How statuses are read ("requests"): the net log is JSON {"constants", "events"}; event types are
numbers named in constants.logEventTypes. Events whose source type is URL_REQUEST are grouped by
source id, one group per request: URL_REQUEST_START_JOB gives method and URL (CORS_REQUEST's
request line and URL for a request that never started, as one stopped by its preflight),
HTTP_TRANSACTION_SEND_REQUEST_HEADERS one attempt on the wire (its request line and the headers as
sent), HTTP_TRANSACTION_READ_RESPONSE_HEADERS that attempt's status line (the status is its second
word), URL_REQUEST_JOB_FILTERED_BYTES_READ the body bytes (base64, only in capture mode
Everything), CHECK_CORS_PREFLIGHT_REQUIRED whether a preflight was needed,
CORS_PREFLIGHT_URL_REQUEST the source id of the preflight request, CORS_PREFLIGHT_ERROR its
failure, and REQUEST_ALIVE's end the final net error. A request that never got an
HTTP_TRANSACTION_SEND_REQUEST_HEADERS was never sent. Capture mode Default strips Authorization
and cookies from the log and keeps no bodies; Everything keeps bodies (used only where no token
is involved).
"""

import argparse
import base64
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request

from harness import Checks, Serve, run

CHROMIUM = "/usr/bin/chromium"
BASE_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-gpu",
]
LAUNCH_TIMEOUT_S = 60
APT_UPDATE_TIMEOUT_S = 300
APT_INSTALL_TIMEOUT_S = 900
FETCH_BUDGET_MS = 5000
INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "browser-page", "version": "1"},
        },
    }
)
METADATA_PATH = "/.well-known/oauth-protected-resource/mcp"


# -- installing and launching ----------------------------------------------------------------


def chromium_version():
    code, out, err, _ = run([CHROMIUM, "--version"], 30)
    if code != 0 or not out.strip():
        raise RuntimeError(f"{CHROMIUM} --version failed ({code}): {err.strip()[-300:]}")
    # Debian's wrapper script may print a shell warning on stderr; the version is stdout's line.
    version = out.strip().splitlines()[-1]
    code, package, _, _ = run(["dpkg-query", "-W", "-f", "${Version}", "chromium"], 30)
    return {"chromium": version, "package": package.strip() if code == 0 else "unknown"}


def install():
    """Debian's chromium when it is missing; raises (never skips) when it cannot be had."""
    if not os.path.exists(CHROMIUM):
        if os.geteuid() != 0:
            raise RuntimeError(
                f"{CHROMIUM} is missing and installing it needs root (apt-get install chromium)"
            )
        env = {"DEBIAN_FRONTEND": "noninteractive"}
        for cmd, timeout in (
            (["apt-get", "update", "-q"], APT_UPDATE_TIMEOUT_S),
            (
                ["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium"],
                APT_INSTALL_TIMEOUT_S,
            ),
        ):
            print(f"browser: {' '.join(cmd)}", file=sys.stderr, flush=True)
            code, _, err, seconds = run(cmd, timeout, env=env)
            if code != 0:
                raise RuntimeError(f"{' '.join(cmd)} failed ({code}, {seconds:.0f}s): {err.strip()[-500:]}")
    if not os.path.exists(CHROMIUM):
        raise RuntimeError(f"{CHROMIUM} is still missing after apt-get install chromium")
    return chromium_version()


def resolver_rules(mappings):
    rules = [f"MAP {host} {ip}" for host, ip in mappings]
    return ", ".join(rules + ["MAP * ~NOTFOUND", "EXCLUDE 127.0.0.1"])


def command(url, netlog, user_data_dir, mappings=(), capture="Default", budget_ms=None):
    cmd = [
        CHROMIUM,
        *BASE_FLAGS,
        f"--user-data-dir={user_data_dir}",
        f"--host-resolver-rules={resolver_rules(mappings)}",
        f"--log-net-log={netlog}",
        f"--net-log-capture-mode={capture}",
        "--enable-logging=stderr",
        "--v=0",
    ]
    if budget_ms:
        cmd.append(f"--virtual-time-budget={budget_ms}")
    return cmd + ["--dump-dom", url]


def launch(url, netlog, mappings=(), capture="Default", budget_ms=None):
    """One headless load of url; (command, dom, console lines, parsed requests, stderr)."""
    user_data_dir = tempfile.mkdtemp(prefix="chromium-profile-")
    try:
        cmd = command(url, netlog, user_data_dir, mappings, capture, budget_ms)
        code, out, err, seconds = run(cmd, LAUNCH_TIMEOUT_S)
        if code is None:
            raise RuntimeError(f"chromium did not finish within {LAUNCH_TIMEOUT_S}s")
        if code != 0:
            raise RuntimeError(f"chromium exited {code}: {err.strip()[-500:]}")
        console = [line.split("] ", 1)[-1] for line in err.splitlines() if ":CONSOLE" in line]
        shown = [a.replace(user_data_dir, "<fresh profile>") for a in cmd]
        return shown, out, console, url_requests(load_netlog(netlog)), err, seconds
    finally:
        shutil.rmtree(user_data_dir, ignore_errors=True)


# -- reading the net log ---------------------------------------------------------------------


def load_netlog(path):
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError:
        # A log cut short (the browser was killed) lacks its closing "]}".
        return json.loads(text.rstrip().rstrip(",") + "]}")


def url_requests(netlog):
    constants = netlog["constants"]
    names = {number: name for name, number in constants["logEventTypes"].items()}
    url_request = constants["logSourceType"]["URL_REQUEST"]
    begin = constants["logEventPhase"]["PHASE_BEGIN"]
    end = constants["logEventPhase"]["PHASE_END"]
    requests = {}
    for event in netlog["events"]:
        source = event["source"]
        if source["type"] != url_request:
            continue
        r = requests.setdefault(
            source["id"],
            {
                "id": source["id"],
                "method": None,
                "url": None,
                "initiator": None,
                "attempts": [],
                "body": None,
                "preflight_required": None,
                "preflight_reason": None,
                "preflight_id": None,
                "preflight_error": None,
                "created_by": None,
                "net_error": None,
            },
        )
        name, phase, params = names.get(event["type"]), event.get("phase"), event.get("params") or {}
        if name == "CORS_REQUEST" and phase == begin and r["method"] is None:
            # A request stopped by its preflight never starts a job; this is all there is of it.
            r["method"] = (params.get("request_headers") or {}).get("line", "").split(" ")[0] or None
            r["url"] = params.get("url")
        elif name == "URL_REQUEST_START_JOB" and phase == begin and r["initiator"] is None:
            r["method"], r["url"], r["initiator"] = (
                params.get("method"),
                params.get("url"),
                params.get("initiator"),
            )
        elif name == "HTTP_TRANSACTION_SEND_REQUEST_HEADERS":
            sent = {}
            for header in params.get("headers", []):
                key, _, value = header.partition(": ")
                sent[key.lower()] = value
            r["attempts"].append(
                {
                    "request_line": params.get("line", "").strip(),
                    "sent": sent,
                    "status": None,
                    "status_line": None,
                }
            )
        elif name == "HTTP_TRANSACTION_READ_RESPONSE_HEADERS" and r["attempts"]:
            status_line = (params.get("headers") or [""])[0]
            r["attempts"][-1]["status_line"] = status_line
            parts = status_line.split(" ")
            r["attempts"][-1]["status"] = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        elif name == "URL_REQUEST_JOB_FILTERED_BYTES_READ" and "bytes" in params:
            r["body"] = (r["body"] or "") + base64.b64decode(params["bytes"]).decode("utf-8", "replace")
        elif name == "CHECK_CORS_PREFLIGHT_REQUIRED":
            r["preflight_required"] = params.get("preflight_required")
            r["preflight_reason"] = params.get("preflight_required_reason")
        elif name == "CORS_PREFLIGHT_URL_REQUEST":
            r["preflight_id"] = (params.get("source_dependency") or {}).get("id")
        elif name == "CORS_PREFLIGHT_ERROR":
            r["preflight_error"] = params
        elif name == "CREATED_BY":
            r["created_by"] = (params.get("source_dependency") or {}).get("id")
        elif name == "REQUEST_ALIVE" and phase == end:
            r["net_error"] = params.get("net_error", 0)
    for r in requests.values():
        statuses = [a["status"] for a in r["attempts"]]
        r["status"] = statuses[-1] if statuses else None
        # Only what a reader needs; never a credential (Default mode strips them anyway).
        for attempt in r["attempts"]:
            attempt["sent"] = {
                k: v
                for k, v in attempt["sent"].items()
                if k
                in (
                    "host",
                    "origin",
                    "content-type",
                    "access-control-request-method",
                    "access-control-request-headers",
                    "sec-fetch-mode",
                    "sec-fetch-site",
                )
            }
    return sorted(requests.values(), key=lambda r: r["id"])


def on_loopback(requests, port):
    """The requests to the server under test (the page server's and the background ones left out)."""
    return [r for r in requests if r["url"] and f":{port}/" in r["url"]]


# -- a page on another loopback origin ----------------------------------------------------------

PAGE = b"""<!doctype html><title>cross-origin page</title><pre id="outcome">pending</pre><script>
(async () => {
  const show = (text) => { document.getElementById("outcome").textContent = text; };
  try {
    const config = await (await fetch("/config")).json();
    const response = await fetch(config.target, config.init);
    show("resolved type=" + response.type + " status=" + response.status);
  } catch (e) {
    show("rejected " + e);
  }
})();
</script>
"""


class PageServer:
    """Serves PAGE at http://127.0.0.1:port/ and the fetch options at /config."""

    def __init__(self, port, target, init):
        config = json.dumps({"target": target, "init": init}).encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body, kind = {"/": (PAGE, "text/html"), "/config": (config, "application/json")}.get(
                    self.path, (b"", None)
                )
                self.send_response(200 if kind else 404)
                self.send_header("Content-Type", kind or "text/plain")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def page_fetch(target, page_port, init, netlog, capture="Default"):
    page = PageServer(page_port, target, init)
    try:
        cmd, dom, console, requests, err, seconds = launch(
            page.origin + "/", netlog, capture=capture, budget_ms=FETCH_BUDGET_MS
        )
    finally:
        page.close()
    start = dom.find('id="outcome">')
    outcome = dom[start + len('id="outcome">') : dom.find("</pre>", start)] if start >= 0 else None
    return cmd, outcome, console, requests, dom, err, seconds


# -- the checks ------------------------------------------------------------------------------


def initialize(url, token):
    request = urllib.request.Request(
        url,
        data=INITIALIZE.encode(),
        method="POST",
        headers={
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers.get("MCP-Session-Id") is not None, None
    except urllib.error.HTTPError as e:
        body = e.read().decode("utf-8", "replace")
        try:
            code = json.loads(body)["error"]["message"]
        except (ValueError, KeyError, TypeError):
            code = body[:80]
        return e.code, False, code


def error_code(body):
    try:
        return json.loads(body)["error"]["message"]
    except (ValueError, KeyError, TypeError):
        return None


def check_rebinding(checks, binary, work):
    with Serve(binary) as serve:
        checks.hide(*serve.tokens.values())
        url = f"http://rebind.test:{serve.port}{METADATA_PATH}"
        cmd, dom, _, requests, _, seconds = launch(
            url,
            os.path.join(work, "a-rebind.json"),
            mappings=[("rebind.test", "127.0.0.1")],
            capture="Everything",
        )
        checks.note(f"(a) chromium command ({seconds:.1f}s): {' '.join(cmd)}")
        mine = [r for r in requests if r["url"] == url]
        page = mine[0] if mine else {"attempts": [], "body": None, "method": None}
        statuses = [a["status"] for a in page["attempts"]]
        hosts = sorted({a["sent"].get("host") for a in page["attempts"]})
        checks.check(
            "(a) the browser sent GET with Host rebind.test:<port> to the loopback server",
            page["method"] == "GET" and hosts == [f"rebind.test:{serve.port}"],
            f"{page['method']} {hosts}",
        )
        checks.check(
            "(a) every attempt answered 421 (net log)",
            bool(statuses) and all(s == 421 for s in statuses),
            str(statuses),
        )
        checks.note(
            f"(a) Chromium made {len(statuses)} attempts for the one navigation (it retries a 421 once on a new connection)"
        )
        checks.check(
            "(a) with the host_not_allowed body (net log bytes)",
            error_code(page["body"]) == "host_not_allowed",
            str(page["body"])[:120],
        )
        checks.check(
            "(a) and the page shows host_not_allowed (--dump-dom)", "host_not_allowed" in dom, dom[:160]
        )
        control = f"http://127.0.0.1:{serve.port}{METADATA_PATH}"
        _, _, _, requests, _, _ = launch(control, os.path.join(work, "a-control.json"), capture="Everything")
        mine = [r for r in requests if r["url"] == control]
        body = mine[0]["body"] if mine else None
        try:
            resource = json.loads(body)["resource"]
        except (ValueError, KeyError, TypeError):
            resource = None
        checks.check(
            "(a) control: the same document at 127.0.0.1 is 200 in the same browser",
            bool(mine) and [a["status"] for a in mine[0]["attempts"]] == [200] and resource == serve.url,
            f"{[a['status'] for a in mine[0]['attempts']] if mine else None} {resource}",
        )


def check_foreign_origin(checks, binary, work):
    page_port = free_port()
    with Serve(binary, "--max-sessions", "1") as serve:
        checks.hide(*serve.tokens.values())
        origin = f"http://127.0.0.1:{page_port}"
        checks.check(
            "(b) the page's origin is not in serve's allowlist",
            origin not in serve.allowed_origins,
            str(serve.allowed_origins),
        )
        init = {
            "method": "POST",
            "mode": "no-cors",
            "headers": {"Content-Type": "text/plain"},
            "body": INITIALIZE,
        }
        cmd, outcome, console, requests, _, _, seconds = page_fetch(
            serve.url, page_port, init, os.path.join(work, "b-foreign.json"), capture="Everything"
        )
        checks.note(f"(b) chromium command ({seconds:.1f}s): {' '.join(cmd)}")
        posts = [r for r in on_loopback(requests, serve.port) if r["method"] == "POST"]
        post = posts[0] if len(posts) == 1 else {"attempts": [], "body": None, "preflight_required": None}
        sent = post["attempts"][0]["sent"] if post["attempts"] else {}
        checks.check(
            "(b) one POST to /mcp, no preflight (a simple request)",
            len(posts) == 1 and post["preflight_required"] is False,
            f"{len(posts)} POSTs, preflight {post['preflight_required']}",
        )
        checks.check(
            "(b) sent with the page's Origin and Content-Type text/plain",
            sent.get("origin") == origin and sent.get("content-type") == "text/plain",
            json.dumps(sent),
        )
        checks.check(
            "(b) answered 403 (net log)",
            [a["status"] for a in post["attempts"]] == [403],
            str([a["status"] for a in post["attempts"]]),
        )
        checks.check(
            "(b) with origin_not_allowed (net log bytes)",
            error_code(post["body"]) == "origin_not_allowed",
            str(post["body"])[:120],
        )
        checks.check(
            "(b) the page only sees an opaque response",
            outcome == "resolved type=opaque status=0",
            str(outcome),
        )
        first = initialize(serve.url, serve.tokens["full"])
        second = initialize(serve.url, serve.tokens["full"])
        checks.check(
            "(b) nothing was created: a normal initialize then gets 200 and a session id",
            first[:2] == (200, True),
            str(first),
        )
        checks.check(
            "(b) and the one slot is really the only one: the next initialize gets 503",
            second[0] == 503,
            str(second),
        )


def check_preflight(checks, binary, work):
    page_port = free_port()
    origin = f"http://127.0.0.1:{page_port}"
    with Serve(binary, "--max-sessions", "1", "--allow-origin", origin) as serve:
        checks.hide(*serve.tokens.values())
        token = serve.tokens["full"]
        checks.check(
            "(c) serve allows the page's origin", origin in serve.allowed_origins, str(serve.allowed_origins)
        )
        init = {
            "method": "POST",
            "mode": "cors",
            "body": INITIALIZE,
            "headers": {
                "Authorization": f"Bearer {token}",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
        }
        netlog = os.path.join(work, "c-preflight.json")
        cmd, outcome, console, requests, dom, err, seconds = page_fetch(
            serve.url, page_port, init, netlog, capture="Default"
        )
        checks.note(f"(c) chromium command ({seconds:.1f}s): {' '.join(cmd)}")
        mine = on_loopback(requests, serve.port)
        posts = [r for r in mine if r["method"] == "POST"]
        options = [r for r in mine if r["method"] == "OPTIONS"]
        post = (
            posts[0]
            if len(posts) == 1
            else {
                "attempts": [],
                "preflight_required": None,
                "preflight_reason": None,
                "preflight_id": None,
                "preflight_error": None,
            }
        )
        checks.check(
            "(c) the fetch needs a preflight (Authorization is not a safelisted header)",
            post["preflight_required"] is True,
            f"{post['preflight_required']} ({post['preflight_reason']})",
        )
        preflight = options[0] if len(options) == 1 else {"attempts": [], "id": None}
        sent = preflight["attempts"][0]["sent"] if preflight["attempts"] else {}
        checks.check(
            "(c) one OPTIONS /mcp preflight, linked to the POST",
            len(options) == 1 and post["preflight_id"] == preflight["id"],
            f"{len(options)} OPTIONS",
        )
        checks.check(
            "(c) asking for POST with authorization and content-type, from the page's origin",
            sent.get("access-control-request-method") == "POST"
            and {"authorization", "content-type"}
            <= set(sent.get("access-control-request-headers", "").split(","))
            and sent.get("origin") == origin,
            json.dumps(sent),
        )
        checks.check(
            "(c) the preflight is answered 405 (net log)",
            [a["status"] for a in preflight["attempts"]] == [405],
            str([a["status"] for a in preflight["attempts"]]),
        )
        checks.check(
            "(c) the browser records the preflight as failed",
            post["preflight_error"] is not None,
            json.dumps(post["preflight_error"]),
        )
        checks.check(
            "(c) the POST itself is never sent (no request headers of it in the net log)",
            len(posts) == 1 and post["attempts"] == [],
            f"{len(posts)} POST requests, {len(post['attempts'])} sent",
        )
        checks.check(
            "(c) the page's fetch rejects", outcome == "rejected TypeError: Failed to fetch", str(outcome)
        )
        blocked = [line for line in console if "CORS policy" in line]
        checks.check("(c) the browser says why: blocked by CORS policy", bool(blocked), str(console)[:300])
        for line in blocked:
            checks.note(f"(c) console: {line}")
        status = initialize(serve.url, token)
        checks.check(
            "(c) nothing was created: the one session slot is still free (initialize 200)",
            status[:2] == (200, True),
            str(status),
        )
        with open(netlog) as f:
            recorded = f.read()
        checks.check(
            "(c) the token is in none of the browser's records (net log, DOM, stderr)",
            token not in recorded and token not in dom and token not in err,
            "",
        )


def check(binary):
    checks = Checks("chromium")
    versions = chromium_version()
    checks.note(f"{versions['chromium']} (Debian package {versions['package']})")
    work = tempfile.mkdtemp(prefix="browser-")
    try:
        check_rebinding(checks, binary, work)
        check_foreign_origin(checks, binary, work)
        check_preflight(checks, binary, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    checks.exit()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("install")
    p.add_argument("--record")
    p = sub.add_parser("navigate")
    p.add_argument("url")
    p.add_argument("--map", action="append", default=[], help="HOST=IP")
    p.add_argument("--netlog")
    p.add_argument("--capture", default="Default", choices=["Default", "Everything"])
    p = sub.add_parser("fetch")
    p.add_argument("target")
    p.add_argument("--page-port", type=int, required=True)
    p.add_argument("--mode", default="cors", choices=["cors", "no-cors", "same-origin"])
    p.add_argument("--header", action="append", default=[], help='"Name: value"')
    p.add_argument("--body", default=INITIALIZE)
    p.add_argument("--netlog")
    p.add_argument("--capture", default="Default", choices=["Default", "Everything"])
    p = sub.add_parser("check")
    p.add_argument("binary")
    args = parser.parse_args()

    if args.cmd == "install":
        versions = install()
        if args.record:
            with open(args.record, "w") as f:
                f.write(f"{versions['chromium']}\ndebian package chromium {versions['package']}\n")
        print(json.dumps(versions))
    elif args.cmd == "check":
        check(args.binary)
    else:
        scratch = tempfile.mkdtemp(prefix="browser-")
        netlog = args.netlog or os.path.join(scratch, "netlog.json")
        try:
            if args.cmd == "navigate":
                mappings = [tuple(m.split("=", 1)) for m in args.map]
                cmd, dom, console, requests, _, _ = launch(args.url, netlog, mappings, args.capture)
                print(json.dumps({"command": cmd, "dom": dom, "console": console, "requests": requests}))
            else:
                headers = dict(h.split(": ", 1) for h in args.header)
                init = {"method": "POST", "mode": args.mode, "headers": headers, "body": args.body}
                cmd, outcome, console, requests, _, _, _ = page_fetch(
                    args.target, args.page_port, init, netlog, args.capture
                )
                print(
                    json.dumps({"command": cmd, "outcome": outcome, "console": console, "requests": requests})
                )
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
