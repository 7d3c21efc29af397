"""The MCP Inspector's CLI mode (@modelcontextprotocol/inspector, pinned in package.json) against
`serve`, judged from its output and from the wire (recording proxies, proxy.py).

The exact command line, taken from the installed package's `--cli --help`:
  node <inspector>/clients/launcher/build/index.js --cli URL --transport http
       --header "Authorization: Bearer <token>" --connect-timeout 10000 --method METHOD [...]
with HOME pointed at a scratch directory (the CLI keeps a catalog under ~/.mcp-inspector).

Checks:
  - the Node binary is 22.19 or later (the Inspector's engines field) and the Inspector is 2.12.x;
  - resources/list (default protocol era, `legacy`): exit 0, the two fixture resources on stdout;
    on the wire no probe, the first request is initialize (200), every request carries the
    Authorization field, and resources/list is answered 200; its stream and the GET stream open
    with a priming event (empty data), which the Inspector ignores;
  - logging/setLevel --log-level debug: exit 0, `{}` on stdout; on the wire a logging/setLevel
    with level debug answered 200;
  - --protocol-era auto: the first request is `server/discover` with MCP-Protocol-Version
    2026-07-28, answered 400 protocol_version_unsupported; the next is initialize without the
    version field, answered 200; resources/list then succeeds (exit 0, the fixture resources);
  - --protocol-era modern: no fallback: exit 1 with "Version negotiation failed", and on the wire
    only the one server/discover (400), no initialize;
  - over every run: the Inspector never sends DELETE (each run leaves its session to expire).

Usage: python inspector_check.py PATH_TO_BINARY NODE22 NPM_DIR
Exits 0 when every check passed.
"""

import json
import os
import shutil
import sys
import tempfile

from harness import Checks, Serve, run
from proxy import Proxy

RUN_TIMEOUT_S = 60
FIXTURE_URIS = ["kb://tenant/acme/handbook", "kb://tenant/acme/faq"]
checks = Checks("mcp inspector cli")


def version_tuple(text):
    return tuple(int(part) for part in text.strip().lstrip("v").split(".")[:3])


def inspector(node, launcher, home, url, token, *args):
    cmd = [
        node,
        launcher,
        "--cli",
        url,
        "--transport",
        "http",
        "--header",
        f"Authorization: Bearer {token}",
        "--connect-timeout",
        "10000",
        *args,
    ]
    code, out, err, seconds = run(cmd, RUN_TIMEOUT_S, env={"HOME": home})
    shown = " ".join(a if token not in a else "Authorization: Bearer <token>" for a in cmd[2:])
    checks.note(f"inspector {shown}: exit {code} in {seconds:.2f}s")
    return code, out, err


def uris(out):
    try:
        return [r["uri"] for r in json.loads(out)["resources"]]
    except (ValueError, KeyError, TypeError):
        return None


def summary(log):
    return [
        f"{r['method']} {r['rpc'] or ''} v={r['version']} -> {r['status']} {r['error'] or ''}".strip()
        for r in log
    ]


def main(binary, node, npm_dir):
    package = os.path.join(npm_dir, "node_modules", "@modelcontextprotocol", "inspector")
    launcher = os.path.join(package, "clients", "launcher", "build", "index.js")
    code, node_version, _, _ = run([node, "--version"], 10)
    checks.check(
        "Node is 22, at 22.19 or later (the Inspector's engines field)",
        code == 0 and (22, 19, 0) <= version_tuple(node_version) < (23, 0, 0),
        node_version.strip(),
    )
    with open(os.path.join(package, "package.json")) as f:
        version = json.load(f)["version"]
    checks.check("the Inspector is the pinned 2.12.x", version.startswith("2.12."), version)
    home = tempfile.mkdtemp(prefix="inspector-home-")
    work = tempfile.mkdtemp(prefix="inspector-")
    try:
        names = ("list", "set_level", "auto", "modern")
        proxies = {name: Proxy(record=os.path.join(work, f"{name}.jsonl")) for name in names}
        hosts = [flag for p in proxies.values() for flag in ("--allow-host", f"127.0.0.1:{p.port}")]
        with Serve(binary, *hosts) as serve:
            checks.hide(*serve.tokens.values())
            token = serve.tokens["full"]
            logs = {}
            for name in names:
                proxies[name].start(serve.port)
            url = {name: f"http://127.0.0.1:{proxies[name].port}/mcp" for name in names}

            code, out, err = inspector(node, launcher, home, url["list"], token, "--method", "resources/list")
            log = logs["list"] = proxies["list"].records()
            checks.check(
                "resources/list: exit 0 and the two fixture resources",
                code == 0 and uris(out) == FIXTURE_URIS,
                f"exit {code}, {uris(out)} {checks.redact(err[-300:])}",
            )
            first = log[0] if log else {}
            checks.check(
                "resources/list: no probe; the first request is initialize, 200",
                first.get("rpc") == "initialize" and first.get("status") == 200,
                str(summary(log[:1])),
            )
            checks.note(
                f"resources/list: initialize asks for protocolVersion {first.get('detail')}; wire: {summary(log)}"
            )
            checks.check(
                "resources/list: every request carries the bearer header",
                bool(log) and all(r["auth"] for r in log),
                f"{sum(r['auth'] for r in log)}/{len(log)}",
            )
            listed = [r["status"] for r in log if r["rpc"] == "resources/list"]
            checks.check("resources/list: answered 200 on the wire", listed == [200], str(listed))
            streams = [r["events"] or [] for r in log if r["rpc"] == "resources/list" or r["method"] == "GET"]
            checks.check(
                "resources/list and the GET stream open with a priming event, which the Inspector "
                "ignores (its output is the two resources alone)",
                bool(streams) and all(events and events[0]["priming"] for events in streams),
                str(streams)[:300],
            )
            automatic = [r["detail"] for r in log if r["rpc"] == "logging/setLevel"]
            checks.note(f"resources/list: logging/setLevel sent unasked after connecting, levels {automatic}")

            code, out, err = inspector(
                node,
                launcher,
                home,
                url["set_level"],
                token,
                "--method",
                "logging/setLevel",
                "--log-level",
                "debug",
            )
            log = logs["set_level"] = proxies["set_level"].records()
            try:
                result = json.loads(out)
            except ValueError:
                result = None
            checks.check(
                "logging/setLevel: exit 0 and {} on stdout",
                code == 0 and result == {},
                f"exit {code}, {out.strip()[:200]} {checks.redact(err[-300:])}",
            )
            levels = [(r["detail"], r["status"]) for r in log if r["rpc"] == "logging/setLevel"]
            checks.check(
                "logging/setLevel: a setLevel debug answered 200 on the wire",
                ("debug", 200) in levels and all(s == 200 for _, s in levels),
                str(levels),
            )

            code, out, err = inspector(
                node,
                launcher,
                home,
                url["auto"],
                token,
                "--protocol-era",
                "auto",
                "--method",
                "resources/list",
            )
            log = logs["auto"] = proxies["auto"].records()
            checks.check(
                "era auto: exit 0 and the two fixture resources",
                code == 0 and uris(out) == FIXTURE_URIS,
                f"exit {code}, {uris(out)} {checks.redact(err[-300:])}",
            )
            head = [(r["method"], r["rpc"], r["version"], r["status"], r["error"]) for r in log[:2]]
            checks.check(
                "era auto: server/discover at 2026-07-28 first, answered 400 protocol_version_unsupported",
                head[:1] == [("POST", "server/discover", "2026-07-28", 400, "protocol_version_unsupported")],
                str(head[:1]),
            )
            checks.check(
                "era auto: then the fallback, initialize without the version field, answered 200",
                head[1:] == [("POST", "initialize", None, 200, None)],
                str(head[1:]),
            )
            checks.note(f"era auto: wire: {summary(log)}")
            listed = [r["status"] for r in log if r["rpc"] == "resources/list"]
            checks.check("era auto: resources/list answered 200 on the wire", listed == [200], str(listed))

            code, out, err = inspector(
                node,
                launcher,
                home,
                url["modern"],
                token,
                "--protocol-era",
                "modern",
                "--method",
                "resources/list",
            )
            log = logs["modern"] = proxies["modern"].records()
            said = (out + err).strip()
            checks.check(
                "era modern: no fallback, exit 1 naming the failed negotiation",
                code == 1 and "Version negotiation failed" in said,
                f"exit {code}: {checks.redact(said[-300:])}",
            )
            wire = [(r["method"], r["rpc"], r["version"], r["status"]) for r in log]
            checks.check(
                "era modern: only the one server/discover (400), no initialize",
                wire == [("POST", "server/discover", "2026-07-28", 400)],
                str(wire),
            )

            every = [r for log in logs.values() for r in log]
            deletes = [r for r in every if r["method"] == "DELETE"]
            checks.check(
                "the Inspector never sends DELETE (in any run)",
                bool(every) and deletes == [],
                f"{len(deletes)} DELETEs in {len(every)} requests",
            )
            sessions = sum(1 for r in every if r["issued_session"])
            checks.note(f"{sessions} sessions opened by the Inspector and left to expire (never DELETEd)")
            for proxy in proxies.values():
                proxy.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
    checks.exit()
