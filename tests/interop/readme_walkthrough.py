#!/usr/bin/env python3
"""Runs README's course exactly as written, and checks every line it prints.

Every section of README from "A session with curl" on is course, except the ones in SKIPPED (each
with the reason). Its ```sh blocks are mostly followed by a ```text block: what that block prints.
All the sh blocks run in order in one bash process (so the variables and the server started by the
first stay), with a marker line printed between them; the output is cut at the markers and each
piece compared with its text block, line for line. In an expected line, "…" stands for any run of
characters (the port, a session's random tag); every other character must match exactly, and the
number of lines too. A block without a text block must run without error; what it prints is not
checked.

The blocks run from the repository root, whatever the current directory, with TMPDIR set to a
directory of this run's own; after the course's last block ("Cleaning up") that directory must be
empty: the course leaves nothing behind.

Before the cleaning-up block, the script prints the `full` token and the mode of the file README's
`serve --announce` writes: that file must be 0600, and no file under the temporary directory or the
repository that holds the token may be readable by other users.

At script speed (the default) five more checks follow:
  - twice: the whole course again, each block run twice in a row, both runs printing what README
    shows; except the blocks that start a server in the background, stop one (`kill `) or end the
    course, each run once: a server is one process, started and stopped once;
  - reopening: the blocks up to the one that defines `session`, then `session` and a ping six
    times over (past the quota of four live sessions per principal): each opens a fresh session
    and the ping is answered 200; then, with the server stopped, `ask` prints curl's error;
  - starting again: the first block twice in one shell leaves one server and one course directory,
    and the cleaning-up block then leaves no server and an empty TMPDIR;
  - two terminals: a second bash follows the second-terminal block and pings on its own session
    while the first keeps its own; then `role` with a mistyped name names the roles and leaves
    TOKEN alone, and with the server stopped `session` and `control` each say so in one line;
  - an interactive shell: README's first blocks, exercise 5's bytes typed with a pause past the
    head's deadlines, and the control exercise, typed into `bash -i` on a pseudo-terminal, as a
    person would: the background `serve` must keep running (a job that read the terminal would be
    stopped), the shell must outlive the socket the server closed, the control reply must appear
    on the terminal, and the next request must get 401.

`--pace F` runs the blocks with one real pause instead, scaled by F: 90*F seconds between the
block that opens a session (the one defining `session`) and the next, which uses it, with the
session lifetime README gives `serve` (its `--session-ttl-secs`) multiplied by F. F must keep
the pause longer than the default session lifetime of 60 s, so a session with the default
lifetime could not survive it: the next block's answers show that README's lifetime does.

Usage: readme_walkthrough.py [--pace F] [README]   (exit 0 when every check passed)
"""

import os
import pty
import re
import select
import signal
import stat
import subprocess
import sys
import tempfile
import time

FIRST_SECTION = "## A session with curl"
# Sections the course does not run, each with the reason.
SKIPPED = {
    # `cargo test` and `demo` are CI's own first steps, and a test that ran `cargo test` would run
    # itself again.
    "## Two commands on a fresh machine",
    # It needs the nightly toolchain and a minute; CI's fuzz smoke step runs every target.
    "## Fuzzing",
}
# What the cleaning-up block holds: the token checks run before it.
CLEANUP = "-name 'loopback-course.*'"
MARKER = "@@ readme block {} @@"
TIMEOUT_SECONDS = 300
INTERACTIVE_SECONDS = 60
READER_PAUSE_SECONDS = 90
DEFAULT_SESSION_TTL_SECONDS = 60
TTL_FLAG = re.compile(r"--session-ttl-secs (\d+)")
ANNOUNCE_FLAG = re.compile(r'--announce ("[^"]+"|\S+)')
# The largest file searched for the token; the walkthrough writes only small ones.
SCANNED_BYTES_MAX = 1 << 20
# The repository root: README's commands run from there.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def section(text, heading):
    start = text.index("\n" + heading + "\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def course_sections(text):
    """The headings of the sections the course runs, in order."""
    headings = re.findall(r"^## .*$", text, re.M)
    missing = [h for h in SKIPPED if h not in headings]
    if missing:
        sys.exit(f"readme_walkthrough: no section {missing}: was it renamed?")
    first = headings.index(FIRST_SECTION)
    return [h for h in headings[first:] if h not in SKIPPED]


def blocks(text):
    """(sh source, expected lines or None) for each sh block of the sections, in order."""
    found = []
    for heading in course_sections(text):
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


def run_script(sources, timeout, tmpdir):
    """Runs the sources in order in one bash process, with TMPDIR set to `tmpdir`, a marker printed
    before each and after the last; what each printed, by index."""
    script = ["set -euo pipefail"]
    for i, source in enumerate(sources):
        script.append(f"echo '{MARKER.format(i)}'")
        script.append(source)
    script.append(f"echo '{MARKER.format(len(sources))}'")
    # Its own process group, so that a server left running by a failed block is stopped too; its
    # output goes to a file, which such a server cannot hold open the way it would a pipe.
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as output:
        session = subprocess.Popen(
            ["bash", "-c", "\n".join(script)],
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=ROOT,
            env=dict(os.environ, TMPDIR=tmpdir),
        )
        try:
            session.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            print(f"README walkthrough: still running after {timeout} s", file=sys.stderr)
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
    return printed, session.returncode, stdout


def compare(found, printed, returncode, stdout):
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
    if returncode != 0 and not failures:
        failures.append(f"the session ended with status {returncode}:\n{stdout[-2000:]}")
    return failures


def paced(found, factor):
    """The blocks with one pause, after the block that opens a session, the lifetime scaled."""
    pause = READER_PAUSE_SECONDS * factor
    if pause <= DEFAULT_SESSION_TTL_SECONDS:
        sys.exit(f"readme_walkthrough: --pace {factor} pauses {pause:.1f} s, not longer than the default lifetime")
    opened = next(i for i, (source, _) in enumerate(found) if "session() {" in source)
    if opened + 1 >= len(found):
        sys.exit("readme_walkthrough: no block follows the one that opens a session")
    sources = []
    for i, (source, _) in enumerate(found):
        scaled = TTL_FLAG.sub(lambda m: f"--session-ttl-secs {round(int(m.group(1)) * factor)}", source)
        sources.append(f"sleep {pause:.1f}\n{scaled}" if i == opened + 1 else scaled)
    if not any(TTL_FLAG.search(source) for source, _ in found):
        sys.exit("readme_walkthrough: README starts serve without --session-ttl-secs")
    return sources, pause


def runs_once(source):
    """Whether a block must run once only: it starts a server (the next block uses that one), stops
    one, or ends the course."""
    starts = re.search(r"loopback-mcp-http serve .*&$", source, re.M) is not None
    return starts or "kill " in source or CLEANUP in source


def check_twice(found):
    """The course with each block run twice in a row (see the module docs): both runs of a block
    print what README shows."""
    sources, owners = [], []
    for i, (source, _) in enumerate(found):
        for _ in range(1 if runs_once(source) else 2):
            sources.append(source)
            owners.append(i)
    with tempfile.TemporaryDirectory() as tmpdir:
        printed, returncode, stdout = run_script(sources, TIMEOUT_SECONDS, tmpdir)
    failures = []
    for index, owner in enumerate(owners):
        source, expected = found[owner]
        if index not in printed:
            return [f"twice: block {owner + 1} did not run to its end:\n{source}\n{stdout[-2000:]}"]
        if expected is None:
            continue
        got = printed[index].rstrip("\n").split("\n")
        if not (len(got) == len(expected) and all(map(matches, expected, got))):
            failures.append(f"twice: block {owner + 1} printed something else when run again:\n"
                            + "\n".join(got))
    if returncode != 0 and not failures:
        failures.append(f"twice: the session ended with status {returncode}:\n{stdout[-2000:]}")
    return failures


def check_reopening(found):
    """`session` six times, each followed by a ping; every session fresh, every ping 200."""
    upto = next(i for i, (source, _) in enumerate(found) if "session() {" in source)
    loop = (
        "for i in 1 2 3 4 5 6; do OLD=$SESSION; session > /dev/null; "
        "[ \"$SESSION\" != \"$OLD\" ] && echo fresh; "
        "ask \"$URL\" \"${MCP[@]}\" \"${S[@]}\" -d '{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}' | head -1; done; kill \"$SERVER\"; "
        # With the server gone, `ask` shows curl's own error instead of nothing.
        "wait || true; ask \"$URL\" 2>&1 | sed 's/ after .*//' || true"
    )
    sources = [source for source, _ in found[: upto + 1]] + [loop]
    with tempfile.TemporaryDirectory() as tmpdir:
        printed, returncode, stdout = run_script(sources, TIMEOUT_SECONDS, tmpdir)
    got = printed.get(len(sources) - 1, "").rstrip("\n").split("\n")
    expected = ["fresh", "HTTP/1.1 200 OK"] * 6 + ["curl: (7) Failed to connect to 127.0.0.1 port …"]
    same = len(got) == len(expected) and all(map(matches, expected, got))
    if returncode != 0 or not same:
        return [f"reopening six times printed:\n" + "\n".join(got) + f"\n(status {returncode})\n{stdout[-1000:]}"]
    return []


def check_start_again(found):
    """The first block run twice in one shell: one server and one course directory, and the
    cleaning-up block leaves nothing and no server."""
    first = found[0][0]
    cleanup = next(source for source, _ in found if CLEANUP in source)
    count = (
        "sleep 0.5; pgrep -fc \"announce $BASE/loopback-course[.]\" || true; "
        "ls -d \"$BASE\"/loopback-course.* | wc -l"
    )
    after = "sleep 0.5; pgrep -fc \"announce $BASE/loopback-course[.]\" || true; ls -A \"$BASE\" | wc -l"
    sources = [first, first, count, cleanup, after]
    with tempfile.TemporaryDirectory() as tmpdir:
        printed, returncode, stdout = run_script(sources, TIMEOUT_SECONDS, tmpdir)
    got = [printed.get(2, "").split(), printed.get(4, "").split()]
    if returncode != 0 or got != [["1", "1"], ["0", "0"]]:
        return [f"the first block run twice, then cleaning up, left (servers, directories) {got} "
                f"(status {returncode}):\n{stdout[-1500:]}"]
    return []


def check_two_terminals(found):
    """A second shell that follows README's second-terminal block holds a session of its own:
    each terminal's `session` ends only its own shell's last session. The helpers fail in one
    line each: `role` with an unknown name leaves TOKEN as it was, and `session` and `control`
    say when the server has gone."""
    upto = next(i for i, (source, _) in enumerate(found) if "session() {" in source)
    second = next(source for source, _ in found if source.startswith("source \"${WORK:?"))
    ping = "ask \"$URL\" \"${MCP[@]}\" \"${S[@]}\" -d '{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}' | head -1"
    # The second terminal: another bash with its own process id, WORK set by hand, as README says.
    other = f"WORK=$WORK bash -c {shquote(second.strip() + '; session > /dev/null; ' + ping)}"
    steps = (
        f"{other}; {ping}; {other}; {ping}\n"
        "T0=$TOKEN; role ful 2>&1 || true; [ \"$TOKEN\" = \"$T0\" ] && echo 'TOKEN unchanged'\n"
        "kill \"$SERVER\"; wait || true; sleep 0.5; session || true\n"
        "target/release/loopback-mcp-http control \"$WORK/serve.json\" stats 2>&1 | sed \"s|$WORK|WORK|g\" || true"
    )
    sources = [source for source, _ in found[: upto + 1]] + [steps]
    with tempfile.TemporaryDirectory() as tmpdir:
        printed, returncode, stdout = run_script(sources, TIMEOUT_SECONDS, tmpdir)
    got = printed.get(len(sources) - 1, "").rstrip("\n").split("\n")
    expected = ["48 hex digits", "HTTP/1.1 202 Accepted", "HTTP/1.1 200 OK", "HTTP/1.1 200 OK"] * 2 + [
        "no role 'ful' (did you mean full?); the roles: …",
        "TOKEN unchanged",
        "no server answers at http://127.0.0.1:…/mcp; the first block starts one",
        "error: no server is running under this directory: WORK (its serve.json names a serve that has stopped)",
    ]
    same = len(got) == len(expected) and all(map(matches, expected, got))
    if returncode != 0 or not same:
        return ["two terminals printed:\n" + "\n".join(got) + f"\n(status {returncode})\n{stdout[-1500:]}"]
    return []


def shquote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def check_interactive(found):
    """README's first blocks and the control exercise, typed into an interactive bash."""
    setup = [source for source, _ in found[:2]]
    session_block = next(source for source, _ in found if "session() {" in source)
    control_block = next(source for source, _ in found if " control " in source and " revoke full" in source)
    # Exercise 5 typed slowly: the head's first line, a pause past both of its deadlines, then the
    # rest, written to a socket the server has closed, in a subshell as the exercise does it.
    slow = (
        "PORT=${URL#http://127.0.0.1:}; PORT=${PORT%/mcp}\n"
        "( exec 3<>\"/dev/tcp/127.0.0.1/$PORT\"; printf 'POST /mcp HTTP/1.1\\r\\n' >&3; sleep 6; "
        "printf 'Host: 127.0.0.1\\r\\n\\r\\n' >&3; cat <&3 ); echo \"the shell lives on\""
    )
    typed = "\n".join(setup + [session_block, "jobs", slow, control_block, "jobs", "exit"]) + "\n"
    with tempfile.TemporaryDirectory() as tmpdir:
        return type_into_bash(typed, tmpdir)


def type_into_bash(typed, tmpdir):
    """Types `typed` into an interactive bash on a pseudo-terminal; what went wrong, if anything."""
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(ROOT)
        os.environ["TMPDIR"] = tmpdir
        os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
    transcript = b""
    # A shell whose job was stopped does not exit on `exit`: a bounded wait, then the verdict.
    deadline = time.monotonic() + INTERACTIVE_SECONDS
    os.write(fd, typed.encode())
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if not ready:
            if os.waitpid(pid, os.WNOHANG) != (0, 0):
                break
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        transcript += chunk
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    text = transcript.decode("utf-8", "replace").replace("\r", "")
    problems = []
    if re.search(r"Stopped", text):
        problems.append("a job was stopped")
    if "the shell lives on" not in text.split('echo "the shell lives on"', 1)[-1]:
        problems.append("the shell did not outlive the socket the server closed")
    if '{"command":"revoke","ok":true,"role":"full"}' not in text.split("revoke full", 1)[-1]:
        problems.append("the control reply did not reach the terminal")
    if "HTTP/1.1 401 Unauthorized" not in text.split("revoke full", 1)[-1]:
        problems.append("the request after the revocation did not get 401")
    if problems:
        return [f"interactive shell: {', '.join(problems)}\n--- transcript:\n{text[-3000:]}"]
    return []


def epilogue(found):
    """A source run before the cleaning-up block, once every server the course started is
    stopped: the last token read, the mode of the file `serve --announce` wrote, the mode of the
    directory it lies in, and how many control directories are left there after up to 5 s (each
    server's watcher removes its own)."""
    announce = next((m.group(1) for source, _ in found for m in ANNOUNCE_FLAG.finditer(source)), None)
    if announce is None:
        sys.exit("readme_walkthrough: README starts serve without --announce")
    work = f'"$(dirname {announce})"'
    left = f"find {work} -maxdepth 1 -name 'loopback-mcp-http-*'"
    return (
        f'printf "%s\\n" "$TOKEN"; stat -c %a {announce}; stat -c %a {work}\n'
        f'for i in $(seq 50); do [ -z "$({left})" ] && break; sleep 0.1; done\n'
        f"{left} | wc -l"
    )


def readable_by_others(path):
    """Whether a user other than the owner could read the file: it grants read to others, and
    every directory above it grants them search."""
    if not os.stat(path).st_mode & 0o004:
        return False
    parent = os.path.dirname(os.path.abspath(path))
    while True:
        if not os.stat(parent).st_mode & 0o001:
            return False
        if parent == os.path.dirname(parent):
            return True
        parent = os.path.dirname(parent)


def check_tokens(printed):
    """The announcement is 0600 in a 0700 directory, no control directory is left in it, and no
    file others can read holds the token."""
    lines = printed.rstrip("\n").split("\n")
    if len(lines) != 4 or not lines[0]:
        return [f"the epilogue printed {lines!r}, not the token, two modes and a count"]
    token, mode, work_mode, left = lines
    failures = [] if mode == "600" else [f"serve --announce wrote a file of mode {mode}, not 600"]
    if work_mode != "700":
        failures.append(f"the course's directory has mode {work_mode}, not 700")
    if left.strip() != "0":
        failures.append(f"{left.strip()} control directories outlived their servers")
    exposed = []
    for top in (tempfile.gettempdir(), ROOT):
        for folder, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if d not in ("target", ".git", "node_modules")]
            for name in files:
                path = os.path.join(folder, name)
                try:
                    # Regular files only: opening a FIFO (valgrind leaves some in /tmp) would block.
                    status = os.lstat(path)
                    if not stat.S_ISREG(status.st_mode) or status.st_size > SCANNED_BYTES_MAX:
                        continue
                    with open(path, "rb") as f:
                        if token.encode() in f.read() and readable_by_others(path):
                            exposed.append(path)
                except OSError:
                    continue
    if exposed:
        failures.append("a token in files other users can read: " + ", ".join(exposed))
    return failures


def main():
    args = sys.argv[1:]
    factor = None
    if args[:1] == ["--pace"]:
        factor, args = float(args[1]), args[2:]
    readme = args[0] if args else os.path.join(ROOT, "README.md")
    found = blocks(open(readme, encoding="utf-8").read())
    if not found:
        sys.exit("readme_walkthrough: no sh blocks found")
    if factor is None:
        sources, pause = [source for source, _ in found], 0
    else:
        sources, pause = paced(found, factor)
    timeout = TIMEOUT_SECONDS + pause
    cleanup = next((i for i, source in enumerate(sources) if CLEANUP in source), None)
    if cleanup is None:
        sys.exit(f"readme_walkthrough: no block runs {CLEANUP}")
    with tempfile.TemporaryDirectory() as tmpdir:
        run = sources[:cleanup] + [epilogue(found)] + sources[cleanup:]
        printed, returncode, stdout = run_script(run, timeout, tmpdir)
        # Back to the blocks' own indexes: the epilogue's piece is the one at `cleanup`.
        token_check = printed.pop(cleanup, "")
        printed = {(i - 1 if i > cleanup else i): piece for i, piece in printed.items()}
        failures = compare(found, printed, returncode, stdout)
        if not failures:
            failures += check_tokens(token_check)
        left = sorted(os.listdir(tmpdir))
        if not failures and left:
            failures.append("the course left behind, in its TMPDIR: " + ", ".join(left))
    if factor is None and not failures:
        failures += check_twice(found)
    if factor is None and not failures:
        failures += check_reopening(found)
        failures += check_start_again(found)
        failures += check_two_terminals(found)
        failures += check_interactive(found)
    if failures:
        print("README walkthrough: " + "\n\n".join(failures), file=sys.stderr)
        sys.exit(1)
    checked = sum(1 for _, expected in found if expected is not None)
    how = f"with a pause of {pause:.1f} s in a live session" if factor else "at script speed, then each twice, reopened six times, the first block twice, in two terminals and in an interactive shell"
    print(f"README walkthrough: {len(found)} blocks ran {how}, {checked} printed exactly what README shows",
          file=sys.stderr)


if __name__ == "__main__":
    main()
