#!/usr/bin/env bash
# Side by side, in one run: keep-alive pings with wrk against this server (`serve`), the minimal
# std::net responder (tests/bench/raw-limit, a ceiling that checks nothing) and the official Rust
# SDK server (tests/bench/rmcp-peer). It builds all three itself (the peers with
# CARGO_TARGET_DIR=target/bench-peers, so nothing lands outside target/; the first build of
# rmcp-peer downloads its crates and takes a minute or two), warms each server up, then runs wrk
# (2 threads, CONNECTIONS keep-alive connections, SECONDS) with tests/bench/ping.lua against each
# in turn, round after round. Prints one RESULT line per server and round (with the server's CPU
# time per request, user and system, from /proc/PID/stat), then a table of medians and the ratios
# of the medians.
#
# What it does not do: it asserts no speed and never fails on a slow result (it fails when a tool
# is missing, a build fails, a server does not start, or any answer is not a good one); it does not pin CPUs, so wrk and the
# servers share the same cores; it does not measure instructions (see instructions.sh). Loopback
# only (127.0.0.1, free ports picked at start); each wrk run is bounded by its duration, every
# wait by a timeout.
#
#   tests/bench/side_by_side.sh [SECONDS] [CONNECTIONS] [ROUNDS]     defaults: 5 16 3
#   e.g. tests/bench/side_by_side.sh 5 16 9
set -euo pipefail
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
need cargo "install Rust with rustup (https://rustup.rs)"
require_tools

lua=$PWD/tests/bench/ping.lua
peers=$PWD/target/bench-peers/release
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2> /dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# SKIP_RMCP=1 leaves the official SDK's server out (its first build downloads a hundred crates);
# CI's bench smoke does.
peers_built=(raw-limit rmcp-peer)
[ "${SKIP_RMCP:-0}" = 1 ] && peers_built=(raw-limit)
echo "building loopback-mcp-http and ${peers_built[*]} (release)..." >&2
cargo build --release --quiet
for peer in "${peers_built[@]}"; do
  CARGO_TARGET_DIR=$PWD/target/bench-peers cargo build --release --quiet --locked \
    --manifest-path "tests/bench/$peer/Cargo.toml"
done

# A free loopback port for each peer (the OS picks them; a tiny race with other programs).
read -r raw_port rmcp_port <<< "$(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))')"

# One session per round, all for one principal within a session lifetime: room for them all (the
# defaults, 8 slots and 4 per principal, would refuse the fifth round's initialize with 429).
"$PWD/target/release/loopback-mcp-http" serve --workers 64 --max-sessions 64 \
  --max-sessions-per-principal 64 < /dev/null > "$work/ours.json" 2> "$work/ours.err" & pids+=($!)
ours_pid=$!
"$peers/raw-limit" "$raw_port" > /dev/null 2> "$work/raw.err" & pids+=($!)
raw_pid=$!
if [ "${SKIP_RMCP:-0}" != 1 ]; then
  "$peers/rmcp-peer" "$rmcp_port" > /dev/null 2> "$work/rmcp.err" & pids+=($!)
  rmcp_pid=$!
fi

# What `wait_until` shows when a wait times out.
show_logs() {
  cat "$work"/*.err >&2 2> /dev/null || true
}
listening() { python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$1" 2> /dev/null; }
wait_until 10 "loopback-mcp-http's start line" test -s "$work/ours.json"
wait_until 10 "raw-limit on port $raw_port" listening "$raw_port"
[ "${SKIP_RMCP:-0}" = 1 ] || wait_until 10 "rmcp-peer on port $rmcp_port" listening "$rmcp_port"
for p in "${pids[@]}"; do kill -0 "$p" || { echo "a server exited at start" >&2; cat "$work"/*.err >&2; exit 1; }; done
read -r ours_url token <<< "$(serve_url_and_token "$work/ours.json")"
raw_url=http://127.0.0.1:$raw_port/mcp
rmcp_url=http://127.0.0.1:$rmcp_port/mcp

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

# cpu PID: the process's user and system CPU time so far, in clock ticks
cpu() { awk '{print $14, $15}' "/proc/$1/stat"; }
ticks=$(getconf CLK_TCK)
# wrk is bounded by -d; --timeout bounds each request, the outer timeout the whole run.
wrk_run() { # url session bearer seconds [wrk flags...]
  local url=$1 session=$2 bearer=$3 duration=$4
  shift 4
  MCP_SESSION_ID=$session MCP_BEARER=$bearer timeout $((duration + 30)) \
    wrk -t2 -c"$connections" -d"${duration}s" --timeout 5s "$@" -s "$lua" "$url"
}
run() { # name url session bearer pid
  local line u0 s0 u1 s1 good
  read -r u0 s0 <<< "$(cpu "$5")"
  line=$(wrk_run "$2" "$3" "$4" "$seconds" --latency | grep '^RESULT')
  read -r u1 s1 <<< "$(cpu "$5")"
  good=$(echo "$line" | sed -E 's/.*good=([0-9]+).*/\1/')
  local per_req
  per_req=$(python3 -c 'import sys; t, n, u, s = map(int, sys.argv[1:]); print(f"user_us_per_req={u / t * 1e6 / max(n, 1):.2f} sys_us_per_req={s / t * 1e6 / max(n, 1):.2f}")' "$ticks" "$good" $((u1 - u0)) $((s1 - s0)))
  echo "$1 $line $per_req"
  echo "$line $per_req" >> "$work/$1.results"
}

# Warm-up, not counted: first connections fault in each server's buffers and thread stacks.
warm=$(open_session "$ours_url" "$token")
wrk_run "$ours_url" "$warm" "$token" 2 > /dev/null
wrk_run "$raw_url" "" "" 2 > /dev/null
if [ "${SKIP_RMCP:-0}" != 1 ]; then
  warm=$(open_session "$rmcp_url")
  wrk_run "$rmcp_url" "$warm" "" 2 > /dev/null
fi

for _ in $(seq 1 "$rounds"); do
  # A fresh session each round: this server's sessions live 60 s by default from creation, never longer.
  ours_session=$(open_session "$ours_url" "$token")
  run loopback-mcp-http "$ours_url" "$ours_session" "$token" "$ours_pid"
  run raw-limit "$raw_url" "" "" "$raw_pid"
  if [ "${SKIP_RMCP:-0}" != 1 ]; then
    rmcp_session=$(open_session "$rmcp_url")
    run rmcp "$rmcp_url" "$rmcp_session" "" "$rmcp_pid"
  fi
done

python3 - "$work" "$seconds" "$connections" "$rounds" << 'EOF'
import re, statistics, sys
work, seconds, connections, rounds = sys.argv[1], *sys.argv[2:]
def load(name):
    rows = []
    for line in open(f"{work}/{name}.results"):
        rows.append({k: float(v) for k, v in re.findall(r"(\w+)=([0-9.]+)", line)})
    return rows
def med(rows, key):
    # the middle value (the lower middle for an even count), as the earlier version of this script
    values = sorted(r[key] for r in rows)
    return values[(len(values) - 1) // 2]
import os
names = [n for n in ["loopback-mcp-http", "raw-limit", "rmcp"] if os.path.exists(f"{work}/{n}.results")]
data = {n: load(n) for n in names}
print(f"\n{rounds} rounds of {seconds} s, {connections} connections, medians over rounds:")
print("| server | median requests/s | rps range | median p99 µs | p99 range µs | median p50 µs | user µs/req | sys µs/req | not good |")
print("|---|---|---|---|---|---|---|---|---|")
for n in names:
    rows = data[n]
    rps = [r["rps"] for r in rows]
    p99 = [r["p99_us"] for r in rows]
    bad = sum(r["bad_status"] + r["bad_body"] + r["socket_errors"] for r in rows)
    print(f"| {n} | {med(rows, 'rps'):.0f} | {min(rps):.0f}–{max(rps):.0f} | {med(rows, 'p99_us'):.0f} | "
          f"{min(p99):.0f}–{max(p99):.0f} | {med(rows, 'p50_us'):.0f} | {med(rows, 'user_us_per_req'):.2f} | "
          f"{med(rows, 'sys_us_per_req'):.2f} | {bad:.0f} |")
o, r = med(data["loopback-mcp-http"], "rps"), med(data["raw-limit"], "rps")
po, pr = med(data["loopback-mcp-http"], "p99_us"), med(data["raw-limit"], "p99_us")
per_round = [a["rps"] / b["rps"] for a, b in zip(data["loopback-mcp-http"], data["raw-limit"])]
print(f"\nmedian rps: loopback-mcp-http {o:.0f}, raw-limit {r:.0f}; ratio to raw-limit {o / r:.2f}; "
      f"loopback-mcp-http p99 {po:.0f} us")
print("per-round ratio to raw-limit: " + ", ".join(f"{x:.2f}" for x in per_round))
ratios = f"RATIOS rps_ours/raw={o / r:.3f} p99_ours/raw={po / pr:.3f}"
if "rmcp" in data:
    m, pm = med(data["rmcp"], "rps"), med(data["rmcp"], "p99_us")
    ratios += f" rps_ours/rmcp={o / m:.3f} p99_ours/rmcp={po / pm:.3f}"
print(ratios)
# An unexpected answer anywhere fails the run (never a slow one).
bad = {n: sum(r["bad_status"] + r["bad_body"] + r["socket_errors"] for r in data[n]) for n in names}
if any(bad.values()):
    sys.exit(f"side_by_side.sh: answers that were not good: {bad}")
EOF
