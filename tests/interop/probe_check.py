"""`probe` against real servers on 127.0.0.1, each grid kept under target/interop/probe/:

- this server in each era setting (2025-11-25, both, 2026-07-28), with the `full` and
  `other_subject` tokens: exit 0, every MUST holds, at least 40 rows, no token printed;
- the Python SDK server (python_server.py, on uvicorn): the probe ends within 60 s, and its
  verdicts agree with this script's own raw requests (the rows for a foreign Origin and for
  duplicate JSON keys);
- the TypeScript SDK 2.x server (ts_server.mjs, node:http): the probe ends within 60 s;
- a deliberately lax server (lax_server.py): exit 1, and the six laxities it has are each
  `deviates` or `differs`;
- a strict server written from the specification (strict_server.py), correct and then with each
  of its flaws and legal variants alone (probe_flaws.py says what each must give);
- `probe compare` over the grids kept: one self-contained page, rendered in headless Chromium
  with a row per case and a column per run, loading nothing but itself.

A peer's grid is a result of the run, not a test of the peer: what the SDK servers answer is
printed and kept, and only the probe's own working is checked.

    python probe_check.py BINARY NODE NPM_DIR OUT_DIR
"""
import html.parser
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

import browser
import probe_flaws
from harness import Checks, Serve, run

HERE = os.path.dirname(os.path.abspath(__file__))
PROBE_SECONDS = 60


def probe(binary, url, *flags):
    """One `probe --json` run: (exit, rows, stderr, seconds)."""
    code, out, err, took = run([binary, "probe", url, "--json", *flags], PROBE_SECONDS + 30)
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    return code, rows, err, took


def keep(out_dir, name, rows, err):
    """The grid as JSON lines, and its summary line."""
    with open(os.path.join(out_dir, name + ".jsonl"), "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    summary = err.strip().splitlines()[-1] if err.strip() else "(no summary)"
    print(f"probe {name}: {summary} (target/interop/probe/{name}.jsonl)", file=sys.stderr, flush=True)


def verdict(rows, case):
    return next((r["verdict"] for r in rows if r["case"] == case), None)


def started(cmd, env=None):
    """A peer started with a port file; (process, port)."""
    port_file = tempfile.mktemp()
    proc = subprocess.Popen([*cmd, port_file], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    for _ in range(300):
        if os.path.exists(port_file) and open(port_file).read().strip():
            port = int(open(port_file).read())
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    return proc, port
                except OSError:
                    time.sleep(0.1)
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{cmd[-1]} did not start")


def raw(port, request):
    """The status code of the answer to exact request bytes, on a fresh connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(request)
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    return int(data.split(b" ")[1]) if data.startswith(b"HTTP/") else None


def post(port, body, extra=""):
    body = body.encode()
    return (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json, text/event-stream\r\n"
        f"Content-Type: application/json\r\n{extra}Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def independent(port):
    """This script's own observations of the Python SDK server: (Origin refused, keys accepted)."""
    init = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"check","version":"1"}}}'
    origin = raw(port, post(port, init, "Origin: http://evil.example\r\n"))
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(post(port, init))
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(4096)
    session = next(l.split(b":", 1)[1].strip().decode() for l in head.split(b"\r\n") if l.lower().startswith(b"mcp-session-id:"))
    fields = f"MCP-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
    raw(port, post(port, '{"jsonrpc":"2.0","method":"notifications/initialized"}', fields))
    keys = raw(port, post(port, '{"jsonrpc":"2.0","id":2,"method":"tools/list","method":"ping","params":{}}', fields))
    raw(port, f"DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{fields}\r\n".encode())
    return origin, keys


def this_server(checks, binary, out_dir):
    for versions in ["2025-11-25", "2025-11-25,2026-07-28", "2026-07-28"]:
        with Serve(binary, "--protocol-versions", versions) as serve:
            tokens = [serve.tokens["full"], serve.tokens["other_subject"]]
            checks.hide(*tokens)
            code, rows, err, took = probe(binary, serve.url, "--token", tokens[0], "--other-token", tokens[1])
            keep(out_dir, "this-server-" + versions.replace(",", "-and-"), rows, err)
            broken = [r["case"] for r in rows if r["level"] == "MUST" and r["verdict"] not in ("holds", "not_applicable")]
            checks.check(f"{versions}: exit 0, every MUST holds", code == 0 and not broken, (code, broken))
            checks.check(f"{versions}: at least 40 rows", len(rows) >= 40, len(rows))
            printed = json.dumps(rows) + err
            checks.check(f"{versions}: no token in what it printed", not any(t in printed for t in tokens))


def sdk_servers(checks, binary, node, npm_dir, out_dir):
    python = [sys.executable, os.path.join(HERE, "python_server.py")]
    proc, port = started(python)
    try:
        origin, keys = independent(port)
        code, rows, err, took = probe(binary, f"http://127.0.0.1:{port}/mcp")
        keep(out_dir, "python-sdk", rows, err)
        checks.check("Python SDK: the probe ends within 60 s", code in (0, 1) and took < PROBE_SECONDS, (code, round(took, 1)))
        expected_origin = "holds" if origin == 403 else "deviates"
        checks.check("Python SDK: foreign Origin agrees with a raw request", verdict(rows, "foreign Origin") == expected_origin, (origin, verdict(rows, "foreign Origin")))
        expected_keys = "differs" if keys is not None and keys < 300 else "holds"
        checks.check("Python SDK: duplicate JSON keys agrees with a raw request", verdict(rows, "duplicate JSON keys") == expected_keys, (keys, verdict(rows, "duplicate JSON keys")))
    finally:
        proc.kill()
    env = dict(os.environ, NODE_PATH=os.path.join(npm_dir, "node_modules"))
    script = os.path.join(npm_dir, "ts_server.mjs")
    with open(os.path.join(HERE, "ts_server.mjs")) as src, open(script, "w") as dst:
        dst.write(src.read())
    proc, port = started([node, script], env)
    try:
        code, rows, err, took = probe(binary, f"http://127.0.0.1:{port}/mcp")
        keep(out_dir, "typescript-sdk", rows, err)
        checks.check("TypeScript SDK: the probe ends within 60 s", code in (0, 1) and took < PROBE_SECONDS, (code, round(took, 1)))
    finally:
        proc.kill()


def lax_server(checks, binary, out_dir):
    proc, port = started([sys.executable, os.path.join(HERE, "lax_server.py")])
    try:
        code, rows, err, took = probe(binary, f"http://127.0.0.1:{port}/mcp")
        keep(out_dir, "lax", rows, err)
        checks.check("lax server: exit 1", code == 1, code)
        for case in [
            "Transfer-Encoding with Content-Length",
            "bare LF line endings",
            "foreign Origin",
            "duplicate JSON keys",
            "NaN in a number",
            "JSON-RPC batch",
        ]:
            checks.check(f"lax server: {case} is caught", verdict(rows, case) in ("deviates", "differs"), verdict(rows, case))
    finally:
        proc.kill()


def keep_rows(out_dir, name, rows):
    with open(os.path.join(out_dir, name + ".jsonl"), "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")


class Cells(html.parser.HTMLParser):
    """The page's shape: header cells, body rows, and the cells of each body row."""

    def __init__(self):
        super().__init__()
        self.part, self.header, self.rows = None, 0, []

    def handle_starttag(self, tag, attrs):
        if tag in ("thead", "tbody"):
            self.part = tag
        elif tag == "th" and self.part == "thead":
            self.header += 1
        elif tag == "tr" and self.part == "tbody":
            self.rows.append(0)
        elif tag == "td" and self.part == "tbody":
            self.rows[-1] += 1


def compare(checks, binary, out_dir):
    """probe compare over the kept grids, rendered by headless Chromium."""
    names = ["this-server-2025-11-25", "this-server-2025-11-25-and-2026-07-28", "this-server-2026-07-28",
             "python-sdk", "typescript-sdk", "strict-correct"]
    files = [os.path.join(out_dir, n + ".jsonl") for n in names]
    code, page, err, _ = run([binary, "probe", "compare", *files], 30)
    checks.check("probe compare: exit 0", code == 0, err.strip()[-300:])
    path = os.path.abspath(os.path.join(out_dir, "compare.html"))
    with open(path, "w") as f:
        f.write(page)
    ids = set()
    for name in files:
        ids |= {json.loads(l)["id"] for l in open(name) if l.strip()}
    netlog = os.path.abspath(os.path.join(out_dir, "compare-netlog.json"))
    _, dom, _, requests, _, _ = browser.launch("file://" + path, netlog)
    shape = Cells()
    shape.feed(dom)
    checks.check(f"probe compare: Chromium renders {len(ids)} rows of {len(files)} runs",
                 shape.header == len(files) + 1 and len(shape.rows) == len(ids)
                 and all(n == len(files) for n in shape.rows), (shape.header, len(shape.rows)))
    # Requests the browser makes of its own, for no page, are "not an origin"'s.
    by_page = [r for r in requests if r.get("initiator") != "not an origin"]
    fetched = [r for r in by_page if not (r.get("url") or "").startswith("file:")]
    checks.check("probe compare: the page loads nothing", not fetched, fetched[:3])
    print(f"probe compare: target/interop/probe/compare.html", file=sys.stderr, flush=True)


def main():
    binary, node, npm_dir, out_dir = sys.argv[1:5]
    os.makedirs(out_dir, exist_ok=True)
    checks = Checks("probe")
    this_server(checks, binary, out_dir)
    sdk_servers(checks, binary, node, npm_dir, out_dir)
    lax_server(checks, binary, out_dir)
    probe_flaws.check(checks, binary, lambda name, rows: keep_rows(out_dir, name, rows))
    compare(checks, binary, out_dir)
    checks.exit()


if __name__ == "__main__":
    main()
