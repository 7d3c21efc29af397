"""`probe` judged against strict_server.py: the server kept correct, then with each flaw and each
legal variant alone. Run by probe_check.py, which keeps every grid under target/interop/probe/.

- correct: exit 0, no row deviates;
- each flaw: some row flags it (deviates or differs) that the correct run does not flag; a flaw
  that breaks a MUST deviates on a MUST row the correct run keeps, and exits 1;
- each variant: no row worse than the correct run's (holds and not_applicable, then differs,
  then deviates), and exit 0;
- the echo-token flaw's tokens appear in nothing the probe printed.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import strict_server  # noqa: E402  (its lists of flaws and variants)

TOKENS = ("strict-alice-0123456789abcdef", "strict-mallory-0123456789abcdef")
# The flaws that break only a SHOULD or the profile: flagged as differs, exit 0.
NOT_MUST = {
    "no-metadata-link",
    "other-principal-accepted",
    "delete-other",
    "get-without-session",
    "echo-token",
    "cancel-ignored",
    "cancel-cross",
    "delete-no-session-204",
}
RANK = {"holds": 0, "not_applicable": 0, "unreachable": 0, "differs": 1, "deviates": 2}
PARALLEL = 4


def probe_strict(binary, switch):
    """One probe of strict_server.py with `switch` (None, ("--flaw", NAME) or ("--variant", NAME)):
    (exit, rows, everything printed)."""
    port_file = tempfile.mktemp()
    cmd = [sys.executable, os.path.join(HERE, "strict_server.py"), port_file, *TOKENS, *(switch or ())]
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.1)
        url = f"http://127.0.0.1:{int(open(port_file).read())}/mcp"
        args = [binary, "probe", url, "--token", TOKENS[0], "--other-token", TOKENS[1], "--json"]
        done = subprocess.run(args, capture_output=True, text=True, timeout=120)
        rows = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
        return done.returncode, rows, done.stdout + done.stderr
    finally:
        server.kill()
        if os.path.exists(port_file):
            os.unlink(port_file)


def flagged(rows):
    return {r["id"]: r for r in rows if r["verdict"] in ("deviates", "differs")}


def check(checks, binary, keep):
    """Every run, judged; `keep(name, rows)` keeps a grid."""
    switches = [None] + [("--flaw", f) for f in strict_server.FLAWS] + [
        ("--variant", v) for v in strict_server.VARIANTS
    ]
    with ThreadPoolExecutor(PARALLEL) as pool:
        results = dict(zip(switches, pool.map(lambda s: probe_strict(binary, s), switches)))
    code, correct, _ = results[None]
    keep("strict-correct", correct)
    deviating = [r["id"] for r in correct if r["verdict"] == "deviates"]
    checks.check("strict server, correct: exit 0 and no row deviates", code == 0 and not deviating, (code, deviating))
    base = {r["id"]: r for r in correct}
    clean = set(base) - set(flagged(correct))
    for switch in switches[1:]:
        kind, name = switch
        code, rows, printed = results[switch]
        keep(f"strict-{kind[2:]}-{name}", rows)
        if kind == "--flaw":
            new = {i: r for i, r in flagged(rows).items() if i in clean}
            must = [i for i, r in new.items() if r["verdict"] == "deviates" and r["level"] == "MUST"]
            if name in NOT_MUST:
                ok = bool(new) and code in (0, 1)
            else:
                ok = bool(must) and code == 1
            checks.check(f"flaw {name}: flagged by {sorted(new)}, exit {code}", ok, (code, sorted(new)))
            if name == "echo-token":
                checks.check("flaw echo-token: no token printed", not any(t in printed for t in TOKENS))
        else:
            worse = [r["id"] for r in rows if RANK[r["verdict"]] > RANK[base.get(r["id"], r)["verdict"]]]
            checks.check(f"variant {name}: no row worse than the correct run's, exit 0", code == 0 and not worse, (code, worse))
