#!/usr/bin/env python3
"""Runs README's curl session and exercises exactly as written, and checks every line they print.

The sections "A session with curl" and "Exercises" hold ```sh blocks, most of them followed by a
```text block: what that block prints. All the sh blocks run in order in one bash process (so the
variables and the server started by the first stay), with a marker line printed between them; the
output is cut at the markers and each piece compared with its text block, line for line. In an
expected line, "…" stands for any run of characters (the port, a session's random tag); every
other character must match exactly, and the number of lines too. A block without a text block
must run without error; what it prints is not checked.

The blocks run from the repository root, whatever the current directory.

Usage: readme_walkthrough.py [README]   (exit 0 when every block printed what README shows)
"""

import os
import re
import signal
import subprocess
import sys
import tempfile

SECTIONS = ("## A session with curl", "## Exercises")
MARKER = "@@ readme block {} @@"
TIMEOUT_SECONDS = 300
# The repository root: README's commands run from there.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def section(text, heading):
    start = text.index("\n" + heading + "\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def blocks(text):
    """(sh source, expected lines or None) for each sh block of the sections, in order."""
    found = []
    for heading in SECTIONS:
        fences = re.finditer(r"```(sh|text)\n(.*?)```", section(text, heading), re.S)
        for fence in fences:
            kind, body = fence.group(1), fence.group(2)
            if kind == "sh":
                found.append([body, None])
            elif found and found[-1][1] is None:
                found[-1][1] = body.rstrip("\n").split("\n")
            else:
                sys.exit(f"readme_walkthrough: a text block without its sh block in {heading}")
    return found


def matches(expected, line):
    pattern = ".*".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, line) is not None


def main():
    readme = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "README.md")
    found = blocks(open(readme, encoding="utf-8").read())
    if not found:
        sys.exit("readme_walkthrough: no sh blocks found")
    script = ["set -euo pipefail"]
    for i, (source, _) in enumerate(found):
        script.append(f"echo '{MARKER.format(i)}'")
        script.append(source)
    script.append(f"echo '{MARKER.format(len(found))}'")
    # Its own process group, so that a server left running by a failed block is stopped too; its
    # output goes to a file, which such a server cannot hold open the way it would a pipe.
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as output:
        session = subprocess.Popen(
            ["bash", "-c", "\n".join(script)],
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=ROOT,
        )
        try:
            session.wait(timeout=TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            print(f"README walkthrough: still running after {TIMEOUT_SECONDS} s", file=sys.stderr)
        finally:
            try:
                os.killpg(session.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            session.wait()
        output.seek(0)
        stdout = output.read()
    pieces = re.split(r"^@@ readme block (\d+) @@\n", stdout, flags=re.M)
    printed = {int(pieces[i]): pieces[i + 1] for i in range(1, len(pieces) - 1, 2)}
    failures = []
    for i, (source, expected) in enumerate(found):
        if i not in printed:
            failures.append(f"block {i + 1} did not run to its end:\n{source}")
            break
        if expected is None:
            continue
        got = printed[i].rstrip("\n").split("\n")
        same = len(got) == len(expected) and all(map(matches, expected, got))
        if not same:
            failures.append(
                f"block {i + 1} printed something else.\n--- block:\n{source}--- expected:\n"
                + "\n".join(expected)
                + "\n--- printed:\n"
                + "\n".join(got)
            )
    if session.returncode != 0 and not failures:
        failures.append(f"the session ended with status {session.returncode}:\n{stdout[-2000:]}")
    if failures:
        print("README walkthrough: " + "\n\n".join(failures), file=sys.stderr)
        sys.exit(1)
    checked = sum(1 for _, expected in found if expected is not None)
    print(f"README walkthrough: {len(found)} blocks ran, {checked} printed exactly what README shows",
          file=sys.stderr)


if __name__ == "__main__":
    main()
