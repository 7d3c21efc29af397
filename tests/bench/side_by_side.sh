#!/usr/bin/env bash
# Side by side, in one run: keep-alive pings with wrk against this server (`serve`), the minimal
# std::net responder (tests/bench/raw-limit, a ceiling that checks nothing), a tiny_http server
# (tests/bench/tiny-http-peer, off-the-shelf and synchronous, also checking nothing) and the
# official Rust SDK server (tests/bench/rmcp-peer). It builds all four itself (the peers with
# CARGO_TARGET_DIR=target/bench-peers, so nothing lands outside target/; the first build of
# rmcp-peer downloads its crates and takes a minute or two, tiny-http-peer's a few seconds), warms
# each server up (2 s of the same load, answers checked, figures kept apart), then runs rounds: in
# each round wrk (2 threads, 1 with PIN=1; CONNECTIONS keep-alive connections, SECONDS) with
# tests/bench/ping.lua against every server once, in an order that changes every round so that
# no server always goes first or always follows the same one (each round prints its order).
# Every server is sent the same request fields (a bearer token, a session id), so that what wrk
# writes, on the same cores, does not differ by server (what it does with each answer depends on
# the answer: raw-limit answers in this server's shape for that reason). Prints one RESULT line per
# server and run (with the server's CPU time per request, user and system, from /proc/PID/stat;
# wrk's CPU time per request and how many CPUs it kept busy, from bash's `time`; the machine's
# rescheduling interrupts per request, from /proc/interrupts; and the server's memory), then each
# round's ratios to raw-limit (requests/s and p99) with their medians and a 95 % interval for each
# median (from six rounds on), a table of medians over the rounds, and a RATIOS line: this
# server's CPU time per request over raw-limit's (its median user time plus its median system
# time; the control's too, with CONTROL=1, and raw-limit-matched's with MATCHED=1), then the
# ratios of the medians.
# Memory, from /proc/PID/status: idle VmRSS read just before each run, once the server holds no
# connection (waited for, 2 s at most); busy VmRSS the largest of samples taken every 100 ms
# during the run; and VmHWM, the process's own peak, at the end.
#
# What it does not do: it asserts no speed and never fails on a slow result. It fails when a tool
# is missing, a build fails, a server does not start or exits, or any answer of any server is not
# a good one: a status other than 2xx, a body without a result, a socket error or wrk timeout, or
# a stalled connection (one on which, during a run, neither side has sent anything for 0.5 to 2 s,
# judged by `ss` once near the end of the run: wrk counts a timeout only when an answer comes
# late, so a request that never gets one is counted nowhere), or a run without a single good
# answer. While one server is measured the others are paused (SIGSTOP), so no server's background
# work runs beside another's round. By default it pins nothing, so wrk and the server share the
# same cores, and where the scheduler puts their threads moves the figures a lot from round to
# round; PIN=1 puts wrk (one thread) on one CPU and every server on another, a client machine and a
# server machine of one core each. In either placement wrk spends about as much CPU per request
# as the fastest servers it measures (pinned, its core is all but always busy), so the load
# generator is half of what sets the requests/s; the servers' CPU time per request, with the
# control's beside it, is the other view (see tests/bench/README.md). It does not measure
# instructions (see instructions.sh). Loopback only (127.0.0.1, free ports picked at start);
# each wrk run is bounded by its duration, every wait by a timeout.
#
#   tests/bench/side_by_side.sh [SECONDS] [CONNECTIONS] [ROUNDS]     defaults: 5 16 3
#   e.g. tests/bench/side_by_side.sh 5 16 8   (four servers: two whole squares of four rounds)
#   SKIP_RMCP=1 leaves rmcp-peer out, SKIP_TINY=1 tiny-http-peer (neither is built then).
#   PIN=1 pins wrk to the first CPU this script may use and the servers to the second (two at least).
#   CONTROL=1 adds a second raw-limit, measured like the others: its ratios to the first are the
#   noise of the measure on this machine (identical servers, so 1.00 but for the noise).
#   MATCHED=1 adds raw-limit-matched: raw-limit built with every function on a 64-byte line of its
#   own (CARGO_TARGET_DIR=target/bench-peers-aligned) and started with `matched`, so that it runs
#   about as many instructions and lines of code per ping as this server and still checks nothing.
#   RAW_LIMIT_MATCHED_STEPS=N builds it with N steps instead of its default; `MATCHED=1
#   tests/bench/instructions.sh` prints the N that matches today's tree (its MATCH line).
#   CAPPED=1 adds raw-limit-capped: raw-limit started with `capped`, so that it ends every
#   connection after its 1000th request as this server does (wrk reconnects at once): the ceiling
#   with this server's connection lifetime as well as its answer shape; this server's
#   round-by-round ratio to it is printed with its median and interval.
#   CANDIDATE=PATH adds another build of this server (a scratch copy of the tree, built with
#   `cargo build --release`; PATH is its binary), started with the same flags and measured like
#   the tree's own build, each with a fresh session every run: its round-by-round ratio to this
#   build (requests/s and p99) is printed with its median and interval. The way to try a change
#   against the tree it changes, in the same rounds, rather than across runs.
set -euo pipefail
# CANDIDATE may be given relative to the caller's directory; the script then moves to the tree's.
candidate=${CANDIDATE:+$(realpath -m -- "$CANDIDATE")}
if [ -n "$candidate" ] && ! { [ -f "$candidate" ] && [ -x "$candidate" ]; }; then
  echo "CANDIDATE=$CANDIDATE is not an executable file" >&2
  exit 2
fi
cd "$(dirname "$0")/../.."
seconds=${1:-5}
connections=${2:-16}
rounds=${3:-3}
for n in "$seconds" "$connections" "$rounds"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "usage: tests/bench/side_by_side.sh [SECONDS] [CONNECTIONS] [ROUNDS] (positive integers)" >&2; exit 2; }
done

source tests/bench/lib.sh
need wrk "apt-get install wrk"
need curl "apt-get install curl"
need python3 "apt-get install python3"
need ss "apt-get install iproute2"
need cargo "install Rust with rustup (https://rustup.rs)"
require_tools

# PIN=1: wrk with one thread on one CPU, every server on another; else no pinning, two wrk threads.
pin=${PIN:-0}
server_cpu=()
client_cpu=()
wrk_threads=2
if [ "$pin" = 1 ]; then
  need taskset "apt-get install util-linux"
  require_tools
  # The first two CPUs this script may run on (a container's cpuset need not start at 0).
  read -r client_at server_at <<< "$(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0))[:2])')"
  [ -n "${server_at:-}" ] || { echo "side_by_side.sh: PIN=1 needs two CPUs, this process may use one" >&2; exit 2; }
  server_cpu=(taskset -c "$server_at")
  client_cpu=(taskset -c "$client_at")
  wrk_threads=1
fi

lua=$PWD/tests/bench/ping.lua
peers=$PWD/target/bench-peers/release
work=$(mktemp -d)
pids=()
cleanup() {
  # A paused server (see `measure_only`) acts on SIGTERM only once it runs again.
  for p in "${pids[@]}"; do kill -CONT "$p" 2> /dev/null || true; done
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2> /dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# SKIP_RMCP=1 leaves the official SDK's server out (its first build downloads a hundred crates);
# CI's bench smoke does. SKIP_TINY=1 leaves tiny-http-peer out.
skip_rmcp=${SKIP_RMCP:-0}
skip_tiny=${SKIP_TINY:-0}
peers_built=(raw-limit)
[ "$skip_tiny" = 1 ] || peers_built+=(tiny-http-peer)
[ "$skip_rmcp" = 1 ] || peers_built+=(rmcp-peer)
echo "building loopback-mcp-http and ${peers_built[*]} (release)..." >&2
cargo build --release --quiet
for peer in "${peers_built[@]}"; do
  CARGO_TARGET_DIR=$PWD/target/bench-peers cargo build --release --quiet --locked \
    --manifest-path "tests/bench/$peer/Cargo.toml"
done
matched=${MATCHED:-0}
if [ "$matched" = 1 ]; then
  RUSTFLAGS="-C llvm-args=-align-all-functions=6" CARGO_TARGET_DIR=$PWD/target/bench-peers-aligned \
    cargo build --release --quiet --locked --manifest-path tests/bench/raw-limit/Cargo.toml
fi

# A free loopback port for each peer (the OS picks them; a tiny race with other programs).
read -r raw_port tiny_port rmcp_port control_port matched_port capped_port <<< "$(python3 -c '
import socket
socks = [socket.socket() for _ in range(6)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))')"

# The servers of this run, in the order of the first round, and per server: its process, its URL,
# the bearer token wrk sends (empty: none) and whether each round opens it a session.
servers=(loopback-mcp-http raw-limit)
declare -A pid url bearer needs_session
# One session per round, all for one principal within a session lifetime: room for them all (the
# defaults, 8 slots and 4 per principal, would refuse the fifth round's initialize with 429).
# Workers: twice the connections, 64 at least. This server ends a connection after its 1000th
# request (`requests_per_connection_max`) and wrk reconnects at once; with exactly one worker per
# connection, the new connection can arrive before the closing worker has handed its socket to the
# lingering set and given its place back, and it gets the 503 a full pool answers at once (the
# pool's promise; `workers.sh` shows it). Of the peers, only raw-limit-capped (CAPPED=1) ends a
# connection.
workers=$((connections * 2 > 64 ? connections * 2 : 64))
# The tree's build and a candidate (CANDIDATE=PATH) start with the same flags.
serve_flags=(serve --workers "$workers" --max-sessions 64 --max-sessions-per-principal 64)
"${server_cpu[@]}" "$PWD/target/release/loopback-mcp-http" "${serve_flags[@]}" \
  < /dev/null > "$work/ours.json" 2> "$work/ours.err" & pids+=($!)
pid[loopback-mcp-http]=$!
if [ -n "$candidate" ]; then
  "${server_cpu[@]}" "$candidate" "${serve_flags[@]}" \
    < /dev/null > "$work/candidate.json" 2> "$work/candidate.err" & pids+=($!)
  pid[candidate]=$!
  servers+=(candidate)
fi
"${server_cpu[@]}" "$peers/raw-limit" "$raw_port" > /dev/null 2> "$work/raw.err" & pids+=($!)
pid[raw-limit]=$!
control=${CONTROL:-0}
if [ "$control" = 1 ]; then
  "${server_cpu[@]}" "$peers/raw-limit" "$control_port" > /dev/null 2> "$work/control.err" & pids+=($!)
  pid[raw-limit-2]=$!
  servers+=(raw-limit-2)
fi
if [ "$matched" = 1 ]; then
  "${server_cpu[@]}" "$PWD/target/bench-peers-aligned/release/raw-limit" "$matched_port" matched \
    > /dev/null 2> "$work/matched.err" & pids+=($!)
  pid[raw-limit-matched]=$!
  servers+=(raw-limit-matched)
fi
capped=${CAPPED:-0}
if [ "$capped" = 1 ]; then
  "${server_cpu[@]}" "$peers/raw-limit" "$capped_port" capped > /dev/null 2> "$work/capped.err" & pids+=($!)
  pid[raw-limit-capped]=$!
  servers+=(raw-limit-capped)
fi
if [ "$skip_tiny" != 1 ]; then
  "${server_cpu[@]}" "$peers/tiny-http-peer" "$tiny_port" > /dev/null 2> "$work/tiny.err" & pids+=($!)
  pid[tiny_http]=$!
  servers+=(tiny_http)
fi
if [ "$skip_rmcp" != 1 ]; then
  "${server_cpu[@]}" "$peers/rmcp-peer" "$rmcp_port" > /dev/null 2> "$work/rmcp.err" & pids+=($!)
  pid[rmcp]=$!
  servers+=(rmcp)
fi

# What `wait_until` shows when a wait times out.
show_logs() {
  cat "$work"/*.err >&2 2> /dev/null || true
}
listening() { python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$1" 2> /dev/null; }
wait_until 10 "loopback-mcp-http's start line" test -s "$work/ours.json"
[ -z "$candidate" ] || wait_until 10 "the candidate's start line" test -s "$work/candidate.json"
wait_until 10 "raw-limit on port $raw_port" listening "$raw_port"
[ "$control" != 1 ] || wait_until 10 "the second raw-limit on port $control_port" listening "$control_port"
[ "$matched" != 1 ] || wait_until 10 "raw-limit-matched on port $matched_port" listening "$matched_port"
[ "$capped" != 1 ] || wait_until 10 "raw-limit-capped on port $capped_port" listening "$capped_port"
[ "$skip_tiny" = 1 ] || wait_until 10 "tiny-http-peer on port $tiny_port" listening "$tiny_port"
[ "$skip_rmcp" = 1 ] || wait_until 10 "rmcp-peer on port $rmcp_port" listening "$rmcp_port"
for p in "${pids[@]}"; do kill -0 "$p" || { echo "a server exited at start" >&2; cat "$work"/*.err >&2; exit 1; }; done
read -r "url[loopback-mcp-http]" token <<< "$(serve_url_and_token "$work/ours.json")"
bearer[loopback-mcp-http]=$token
needs_session[loopback-mcp-http]=1
if [ -n "$candidate" ]; then
  read -r "url[candidate]" "bearer[candidate]" <<< "$(serve_url_and_token "$work/candidate.json")"
  needs_session[candidate]=1
fi
url[raw-limit]=http://127.0.0.1:$raw_port/mcp
url[raw-limit-2]=http://127.0.0.1:$control_port/mcp
url[raw-limit-matched]=http://127.0.0.1:$matched_port/mcp
url[raw-limit-capped]=http://127.0.0.1:$capped_port/mcp
url[tiny_http]=http://127.0.0.1:$tiny_port/mcp
url[rmcp]=http://127.0.0.1:$rmcp_port/mcp
needs_session[rmcp]=1
# Every server gets the same request: the same bearer token, and a session id (its own where it
# has sessions, else a placeholder as long as this server's ids), which the peers ignore. wrk
# shares the cores with the server it measures, so a server sent fewer bytes would also be
# measured with a cheaper client.
bearer[raw-limit]=$token
bearer[raw-limit-2]=$token
bearer[raw-limit-matched]=$token
bearer[raw-limit-capped]=$token
bearer[tiny_http]=$token
bearer[rmcp]=$token
no_session=$(printf '0%.0s' $(seq 48))

# open_session URL [TOKEN]: initialize + initialized; prints the session id (fails if none came back)
open_session() {
  local url=$1 auth=()
  [ -n "${2:-}" ] && auth=(-H "Authorization: Bearer $2")
  local mcp=(-H 'Accept: application/json, text/event-stream' -H 'Content-Type: application/json' --max-time 5)
  local sid
  sid=$(curl -s -D - -o /dev/null "$url" "${mcp[@]}" "${auth[@]}" \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' \
    | tr -d '\r' | sed -n 's/^[Mm][Cc][Pp]-[Ss]ession-[Ii]d: //p')
  [ -n "$sid" ] || { echo "no session id from $url" >&2; return 1; }
  curl -s -o /dev/null "$url" "${mcp[@]}" "${auth[@]}" -H "MCP-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25' \
    -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo "$sid"
}
# session NAME: a fresh session id for a server that needs one, else nothing. (This server's
# sessions live 60 s by default from creation, never longer: a fresh one for every run.)
session() {
  if [ "${needs_session[$1]:-0}" = 1 ]; then open_session "${url[$1]}" "${bearer[$1]:-}"; fi
}

# cpu PID: the process's user and system CPU time so far, in clock ticks
cpu() { awk '{print $14, $15}' "/proc/$1/stat"; }
# wakeups_sent: the rescheduling interrupts of every CPU so far (mostly one CPU telling another
# to run a thread it has just woken; the line `RES` on x86, `IPI0` on arm64, of /proc/interrupts),
# or -1 where the kernel shows none. Counted for the whole machine: while a server is measured,
# the others are paused, so they are mostly wrk's and that server's. Printed with %.0f, since some
# awks print a sum past 2^31 in exponent form.
wakeups_sent() {
  [ -r /proc/interrupts ] || { echo -1; return; }
  awk '/Rescheduling interrupts/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; seen = 1 }
       END { if (seen) printf "%.0f\n", n; else print -1 }' /proc/interrupts
}
# status_kib PID FIELD: a field of /proc/PID/status in KiB (VmRSS, VmHWM)
status_kib() { awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status"; }
ticks=$(getconf CLK_TCK)

# The sampler of one run, started with the run's start time T0 (seconds since the epoch): VmRSS of
# PID every 100 ms, keeping the largest, until STOP exists (or the run's bound has passed); and
# once, 0.25 s before the end of the run (0.75 s in at the earliest), the stalled connections to
# PORT: established, on the server's side, with neither side sending for half the run so far
# (0.5 s at least, 2 s at most), although wrk keeps a request out on every connection. Writes
# "busy_rss_kib=N stalled=N stall_check=0|1" to OUT.
cat > "$work/sample.py" << 'EOF'
import os, re, subprocess, sys, time
pid, port, stop, out = sys.argv[1], sys.argv[2], sys.argv[4], sys.argv[5]
seconds, t0 = float(sys.argv[3]), float(sys.argv[6])
check_at = max(0.75, seconds - 0.25)
stall_ms = max(500, min(2000, check_at * 1000 / 2))
peak, stalled, checked = 0, 0, False
def rss():
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0
while not os.path.exists(stop) and time.time() - t0 < seconds + 40:
    peak = max(peak, rss())
    if not checked and time.time() - t0 >= check_at:
        checked = True
        ss = subprocess.run(["ss", "-tniH", "state", "established", f"( sport = :{port} )"],
                            capture_output=True, text=True, timeout=10).stdout
        # ss prints each socket on two lines: addresses, then its TCP details (lastsnd and
        # lastrcv, ms since the last data each way, left out when 0).
        for details in ss.split("\n")[1::2]:
            times = dict(re.findall(r"\b(lastsnd|lastrcv):(\d+)", details))
            if min(int(times.get("lastsnd", 0)), int(times.get("lastrcv", 0))) >= stall_ms:
                stalled += 1
    time.sleep(0.1)
open(out, "w").write(f"busy_rss_kib={peak} stalled={stalled} stall_check={int(checked)}\n")
EOF

# wrk is bounded by -d; --timeout bounds each request, the outer timeout the whole run. The
# time wrk took (elapsed, user and system seconds, from bash's `time`) goes to
# $work/client.cpu: the load generator shares the machine, and when its CPU is full, the server
# it measures is not alone in setting the requests/s.
wrk_run() { # url session bearer seconds [wrk flags...]
  local url=$1 session=$2 bearer=$3 duration=$4 TIMEFORMAT='%R %U %S'
  shift 4
  { time MCP_SESSION_ID=$session MCP_BEARER=$bearer timeout $((duration + 30)) \
    "${client_cpu[@]}" wrk -t"$wrk_threads" -c"$connections" -d"${duration}s" --timeout 5s "$@" -s "$lua" "$url" \
    2> "$work/wrk.err"; } 2> "$work/client.cpu"
}
# quiet PORT: waits (2 s at most) until the server on PORT holds no connection, neither open nor
# closed by the peer and not yet by the server (so a curl that just left holds no worker, and the
# idle figure is one without connections).
quiet() {
  local deadline=$((SECONDS + 2))
  while [ -n "$(ss -tnH state established state close-wait "( sport = :$1 )")" ] && [ "$SECONDS" -lt "$deadline" ]; do
    sleep 0.05
  done
}
# measure_only NAME: lets NAME run and pauses every other server (SIGSTOP), so that nothing a
# server does in the background (tiny-http-peer nudges its pool every 5 ms; runtimes keep timers)
# runs on the cores another server is being measured on. A paused server's sockets are the
# kernel's meanwhile; what they hold is finished when it runs again, before its own run.
measure_only() {
  # A server that has exited is not signalled; `run` then reports it with its log.
  for other in "${servers[@]}"; do
    [ "$other" = "$1" ] || kill -STOP "${pid[$other]}" 2> /dev/null || true
  done
  kill -CONT "${pid[$1]}" 2> /dev/null || true
}
# run NAME ROUND: one wrk run against a server, with its CPU time and memory; round 0 is the
# warm-up, kept apart from the rounds (its answers are checked all the same).
run() {
  local name=$1 round=$2 p=${pid[$1]} duration=$seconds line u0 s0 u1 s1 w0 w1 good idle sid port file
  [ "$round" = 0 ] && duration=2
  measure_only "$name"
  sid=$(session "$name")
  [ -n "$sid" ] || sid=$no_session
  port=$(echo "${url[$name]}" | sed -E 's|^http://127\.0\.0\.1:([0-9]+)/.*|\1|')
  kill -0 "$p" 2> /dev/null || { echo "$name exited" >&2; show_logs; exit 1; }
  quiet "$port"
  idle=$(status_kib "$p" VmRSS)
  rm -f "$work/stop"
  python3 "$work/sample.py" "$p" "$port" "$duration" "$work/stop" "$work/sample.out" "$(date +%s.%N)" &
  local sampler=$!
  read -r u0 s0 <<< "$(cpu "$p")"
  w0=$(wakeups_sent)
  line=$(wrk_run "${url[$name]}" "$sid" "${bearer[$name]:-}" "$duration" --latency | grep '^RESULT') \
    || { touch "$work/stop"; wait "$sampler" || true; echo "$name: wrk gave no RESULT line" >&2; cat "$work/wrk.err" >&2; exit 1; }
  read -r u1 s1 <<< "$(cpu "$p")"
  w1=$(wakeups_sent)
  touch "$work/stop"
  wait "$sampler" || true
  kill -0 "$p" 2> /dev/null || { echo "$name exited during its run" >&2; show_logs; exit 1; }
  good=$(echo "$line" | sed -E 's/.*good=([0-9]+).*/\1/')
  local extra
  # The server's CPU time per good answer, and wrk's: per answer, and in CPUs kept busy over the
  # run; the machine's rescheduling interrupts per answer, where the kernel counts them.
  extra=$(python3 -c '
import sys
t, n, u, s, w0, w1 = map(int, sys.argv[1:7])
# bash prints the times with the decimal mark of the locale
elapsed, cu, cs = (float(x.replace(",", ".")) for x in sys.argv[7:10])
n = max(n, 1)
# none where the kernel shows no count, or where a per-CPU counter wrapped during the run
wakeups = f" wakeups_per_req={(w1 - w0) / n:.3f}" if 0 <= w0 <= w1 else ""
print(f"user_us_per_req={u / t * 1e6 / n:.2f} sys_us_per_req={s / t * 1e6 / n:.2f} "
      f"client_us_per_req={(cu + cs) * 1e6 / n:.2f} client_cpus={(cu + cs) / max(elapsed, 0.001):.2f}"
      f"{wakeups}")' \
    "$ticks" "$good" $((u1 - u0)) $((s1 - s0)) "$w0" "$w1" $(cat "$work/client.cpu"))
  extra+=" idle_rss_kib=$idle $(cat "$work/sample.out" 2> /dev/null || echo 'busy_rss_kib=0 stalled=0 stall_check=0')"
  file=$work/$name.results
  if [ "$round" = 0 ]; then
    file=$work/$name.warmup
    echo "$name warm-up $line $extra"
  else
    echo "$name round=$round $line $extra"
  fi
  echo "round=$round $line $extra" >> "$file"
}

# Warm-up, not counted in the figures: first connections fault in each server's buffers and
# thread stacks.
for name in "${servers[@]}"; do run "$name" 0; done

# The order of each round, from a Williams design (a balanced Latin square): over n rounds (2n
# when n is odd) every server runs once in every position and right after every other server
# equally often, so that neither going first nor following a given server (whatever a run leaves
# behind: sockets closing, caches, the scheduler's placement) favours one of them. A plain
# rotation would give every server the same predecessor in every round.
williams_orders() { # N ROUNDS: one line per round, the server indexes in running order
  python3 -c '
import sys
n, rounds = map(int, sys.argv[1:])
first, low, high = [0], 1, n - 1
while len(first) < n:
    first.append(low); low += 1
    if len(first) < n:
        first.append(high); high -= 1
rows = [[(x + i) % n for x in first] for i in range(n)]
if n % 2:
    rows += [row[::-1] for row in rows]
for r in range(rounds):
    print(*rows[r % len(rows)])' "$1" "$2"
}
square=$((${#servers[@]} % 2 == 1 ? 2 * ${#servers[@]} : ${#servers[@]}))
if [ $((rounds % square)) != 0 ]; then
  echo "note: $rounds rounds are not a whole number of squares of $square rounds, so positions and predecessors are only nearly balanced" >&2
fi
orders=$(williams_orders "${#servers[@]}" "$rounds")
mapfile -t order_lines <<< "$orders"
[ "${#order_lines[@]}" = "$rounds" ] || { echo "side_by_side.sh: no order for every round" >&2; exit 1; }
round=0
for line in "${order_lines[@]}"; do
  round=$((round + 1))
  read -r -a indexes <<< "$line"
  order=()
  for i in "${indexes[@]}"; do order+=("${servers[$i]}"); done
  echo "round $round: ${order[*]}"
  for name in "${order[@]}"; do run "$name" "$round"; done
done
for name in "${servers[@]}"; do
  kill -CONT "${pid[$name]}"
  echo "vmhwm_kib=$(status_kib "${pid[$name]}" VmHWM)" > "$work/$name.hwm"
done

placement="nothing pinned"
if [ "$pin" = 1 ]; then placement="wrk on CPU $client_at, servers on CPU $server_at"; fi
PLACEMENT=$placement python3 - "$work" "$seconds" "$connections" "$rounds" "${servers[@]}" << 'EOF'
import math, os, re, sys
work, seconds, connections, rounds, *names = sys.argv[1:]
def load(name, kind="results"):
    rows = []
    for line in open(f"{work}/{name}.{kind}"):
        rows.append({k: float(v) for k, v in re.findall(r"(\w+)=([0-9.]+)", line)})
    return rows
def lower_median(values):
    # the middle value (the lower middle for an even count), as the earlier version of this script
    values = sorted(values)
    return values[(len(values) - 1) // 2]
def med(rows, key):
    return lower_median(r[key] for r in rows)
def median_interval(values):
    # A 95 % interval for the median of the distribution the rounds come from, free of any
    # assumption about its shape (but not of one about the rounds: independent, and alike): the
    # k-th smallest and k-th largest value, for the largest k at which the median lies between
    # them with a chance of 95 % at least, which is 1 - 2 P(B < k) for B binomial(n, 1/2). None
    # under six rounds, where even the smallest and the largest value fall short of 95 %.
    values = sorted(values)
    n, k, below = len(values), 0, 0
    for j in range(1, n // 2 + 1):
        below += math.comb(n, j - 1)
        if 1 - 2 * below / 2 ** n < 0.95:
            break
        k = j
    return (values[k - 1], values[n - k]) if k else None
def interval_text(values):
    bounds = median_interval(values)
    return f"{bounds[0]:.2f}–{bounds[1]:.2f}" if bounds else "n/a"
def mib(kib):
    return f"{kib / 1024:.1f}"
data = {n: load(n) for n in names}
warmup = {n: load(n, "warmup") for n in names}
hwm = {n: float(open(f"{work}/{n}.hwm").read().split("=")[1]) for n in names}
others = [n for n in names if n != "raw-limit"]

# Every round's ratios to raw-limit, then their medians (rows of one server are in round order).
print("\nratios to raw-limit, round by round (a server's requests/s and p99 over raw-limit's in the same round):")
print("| round | " + " | ".join(f"{n} rps | {n} p99" for n in others) + " |")
print("|---|" + "---|---|" * len(others))
per_round = {n: [(a["rps"] / b["rps"], a["p99_us"] / b["p99_us"])
                 for a, b in zip(data[n], data["raw-limit"])] for n in others}
for i in range(int(rounds)):
    print(f"| {i + 1} | " + " | ".join(f"{per_round[n][i][0]:.2f} | {per_round[n][i][1]:.2f}" for n in others) + " |")
print("| median | " + " | ".join(
    f"{lower_median(x for x, _ in per_round[n]):.2f} | {lower_median(y for _, y in per_round[n]):.2f}"
    for n in others) + " |")
intervals = [interval_text(r[i] for r in per_round[n]) for n in others for i in (0, 1)]
print("| 95 % interval of the median | " + " | ".join(intervals) + " |")
if "n/a" in intervals:
    print("(the interval needs six rounds at least)")

def paired(title, over, under):
    # One server over another, round by round (each pair from the same round), with the medians.
    pairs = [(a["rps"] / b["rps"], a["p99_us"] / b["p99_us"])
             for a, b in zip(data[over], data[under])]
    parts = []
    for label, values in (("requests/s", [x for x, _ in pairs]), ("p99", [y for _, y in pairs])):
        each = " ".join(f"{v:.2f}" for v in values)
        parts.append(f"{label} {each}; median {lower_median(values):.2f} ({interval_text(values)})")
    print(f"\n{title}, round by round: " + "; ".join(parts))
# This server against the work-matched ceiling (MATCHED=1), in the same round.
if "raw-limit-matched" in data:
    start = open(os.path.join(sys.argv[1], "matched.err")).read()
    steps = re.search(r"matched: (\d+) steps", start)
    if not steps:
        sys.exit(f"raw-limit-matched's start line gave no step count: {start!r}")
    paired(f"this server over raw-limit-matched ({steps.group(1)} steps)", "loopback-mcp-http",
           "raw-limit-matched")
# The ceiling with this server's connection lifetime (CAPPED=1), in the same round.
if "raw-limit-capped" in data:
    paired("this server over raw-limit-capped", "loopback-mcp-http", "raw-limit-capped")
# A candidate build of this server (CANDIDATE=PATH) against the tree's build, in the same round.
if "candidate" in data:
    paired("the candidate over this server", "candidate", "loopback-mcp-http")

placement = os.environ["PLACEMENT"]
print(f"\n{rounds} rounds of {seconds} s, {connections} connections, {placement}, medians over rounds:")
print("| server | median requests/s | rps range | median p99 µs | p99 range µs | median p50 µs | user µs/req | sys µs/req | wakeups/req | wrk µs/req | wrk CPUs busy | idle RSS MiB | busy RSS MiB | VmHWM MiB | not good, warm-up incl. |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
def wakeups(rows):
    # n/a when any run lacks the figure (no count from the kernel, or a counter that wrapped)
    return f"{med(rows, 'wakeups_per_req'):.3f}" if all("wakeups_per_req" in r for r in rows) else "n/a"
def not_good(r):
    return r["bad_status"] + r["bad_body"] + r["socket_errors"] + r["stalled"] + (r["good"] == 0)
for n in names:
    rows = data[n]
    rps = [r["rps"] for r in rows]
    p99 = [r["p99_us"] for r in rows]
    bad = sum(not_good(r) for r in rows + warmup[n])
    print(f"| {n} | {med(rows, 'rps'):.0f} | {min(rps):.0f}–{max(rps):.0f} | {med(rows, 'p99_us'):.0f} | "
          f"{min(p99):.0f}–{max(p99):.0f} | {med(rows, 'p50_us'):.0f} | {med(rows, 'user_us_per_req'):.2f} | "
          f"{med(rows, 'sys_us_per_req'):.2f} | {wakeups(rows)} | {med(rows, 'client_us_per_req'):.2f} | "
          f"{med(rows, 'client_cpus'):.2f} | {mib(med(rows, 'idle_rss_kib'))} | "
          f"{mib(med(rows, 'busy_rss_kib'))} | {mib(hwm[n])} | {bad:.0f} |")
o, po = med(data["loopback-mcp-http"], "rps"), med(data["loopback-mcp-http"], "p99_us")
def cpu_per_req(n):
    return med(data[n], "user_us_per_req") + med(data[n], "sys_us_per_req")
def cpu_ratio(n):
    return cpu_per_req(n) / max(cpu_per_req("raw-limit"), 0.01)
ratios = f"RATIOS cpu_per_req_ours/raw={cpu_ratio('loopback-mcp-http'):.3f}"
if "raw-limit-2" in data:
    ratios += f" cpu_per_req_control/raw={cpu_ratio('raw-limit-2'):.3f}"
for n, key in [("raw-limit", "raw"), ("tiny_http", "tiny"), ("rmcp", "rmcp"),
               ("raw-limit-matched", "matched"), ("raw-limit-capped", "capped")]:
    if n in data:
        m, pm = med(data[n], "rps"), med(data[n], "p99_us")
        ratios += f" rps_ours/{key}={o / m:.3f} p99_ours/{key}={po / pm:.3f}"
for n, key in [("raw-limit-matched", "matched"), ("raw-limit-capped", "capped")]:
    if n in data:
        ratios += f" cpu_per_req_{key}/raw={cpu_ratio(n):.3f}"
if "candidate" in data:
    c, pc = med(data["candidate"], "rps"), med(data["candidate"], "p99_us")
    ratios += f" rps_candidate/ours={c / o:.3f} p99_candidate/ours={pc / po:.3f}"
    cpu_candidate = cpu_per_req("candidate") / cpu_per_req("loopback-mcp-http")
    ratios += f" cpu_per_req_candidate/ours={cpu_candidate:.3f}"
if "raw-limit-2" in data:
    c, pc = med(data["raw-limit-2"], "rps"), med(data["raw-limit-2"], "p99_us")
    r, pr = med(data["raw-limit"], "rps"), med(data["raw-limit"], "p99_us")
    ratios += f" rps_control/raw={c / r:.3f} p99_control/raw={pc / pr:.3f}"
missed = sum(r["stall_check"] == 0 for n in names for r in data[n] + warmup[n])
if missed:
    print(f"\nnote: the stalled-connection check did not run in {missed} of the runs (its sampler started late)")
print()
print(ratios)
# An unexpected answer anywhere fails the run (never a slow one).
bad = {n: sum(not_good(r) for r in data[n] + warmup[n]) for n in names}
if any(bad.values()):
    sys.exit(f"side_by_side.sh: answers that were not good, warm-up included (bad status, bad body, "
             f"socket errors or timeouts, stalled connections, or no good answer in a run): {bad}")
EOF
