"""Shared pieces of the interoperability checks; not a check itself.

Serve(binary, *flags)  starts `serve` with those flags, reads its JSON line (bounded), and ends
                       it on exit; `.url`, `.port`, `.tokens`, `.resource_metadata`,
                       `.control("revoke full")` for the stdin control plane.
Checks(name)           prints one line per check on stderr ("ok  ..." or "FAIL ..."), replaces
                       every secret it was told about by "<redacted>", and ends with
                       "<name>: N passed, N failed"; `.exit()` exits 1 if any failed.
note(...)              prints an observation that is not a check (measured values).
run(cmd, timeout, ...) a subprocess with a hard timeout; its output is returned, not printed.
"""

import json
import os
import select
import signal
import subprocess
import sys
import time

HELLO_TIMEOUT_S = 10


class Serve:
    def __init__(self, binary, *flags):
        self.proc = subprocess.Popen(
            [binary, "serve", *flags], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        line = self._readline(HELLO_TIMEOUT_S)
        if not line:
            self.stop()
            raise RuntimeError(f"serve {' '.join(flags)} printed no JSON line")
        hello = json.loads(line)
        self.hello = hello
        self.url = hello["url"]
        self.port = int(self.url.split(":")[2].split("/")[0])
        self.tokens = hello["tokens"]
        self.resource_metadata = hello["resource_metadata"]
        self.allowed_origins = hello["allowed_origins"]

    def _readline(self, timeout):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        return self.proc.stdout.readline() if ready else ""

    def control(self, command):
        """One control line on serve's stdin; its one-line JSON answer."""
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        line = self._readline(HELLO_TIMEOUT_S)
        return json.loads(line) if line else {}

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class Checks:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = []
        self.secrets = set()

    def hide(self, *secrets):
        self.secrets.update(s for s in secrets if s)

    def redact(self, text):
        text = str(text)
        for secret in self.secrets:
            text = text.replace(secret, "<redacted>")
        return text

    def check(self, name, ok, detail=""):
        line = f"{'ok  ' if ok else 'FAIL'} {name}{': ' + str(detail) if detail != '' else ''}"
        print(self.redact(line), file=sys.stderr, flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed.append(name)
        return ok

    def note(self, text):
        print(self.redact(f"note {text}"), file=sys.stderr, flush=True)

    def exit(self):
        print(f"{self.name}: {self.passed} passed, {len(self.failed)} failed", file=sys.stderr, flush=True)
        sys.exit(1 if self.failed else 0)


def run(cmd, timeout, env=None, cwd=None):
    """Runs cmd to completion within timeout seconds; (returncode, stdout, stderr, seconds).
    The command gets its own process group, and on a timeout the whole group is killed and
    returncode is None (never raised)."""
    started = time.monotonic()
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=full_env,
        cwd=cwd,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err, time.monotonic() - started
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return None, out, err, time.monotonic() - started
