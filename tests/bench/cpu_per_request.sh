#!/usr/bin/env bash
# CPU time per request at a fixed offered rate below saturation, the resource measure that needs
# no wall-clock comparison: `bench --rate RATE` (open loop, a process of its own) sends pings to
# this server (`serve`, `--route ping`: on a session per connection), to raw-limit and to a second
# raw-limit (the control; both `--route raw-ping`: the same request bytes, with the same token and
# a placeholder session id). Each server is its own process, named to `bench` with `--pid`, which
# reads its user and system CPU time from /proc/PID/stat when the measured seconds begin and after
# their last answer (a warm-up second before them is not counted). ROUNDS rounds, each server once
# per round in an order rotated every round. Prints one line per run, then a table of medians over
# the rounds: user, system and total µs per request, the total's range, the total over raw-limit's,
# and the late sends and p99 latency (from each request's due time) that show whether the rate was
# below saturation.
#
# What it does not do: it bounds nothing, fails on no figure (late or unsent requests included),
# and does not pin CPUs. The kernel's total CPU time of a process is exact, its split into user and
# system is sampled at each clock tick, so the split is coarse where the total is not; the control
# shows how far the totals move between identical servers. It fails when a tool is missing, a
# build fails, a server does not start or exits, or `bench` reports an unexpected answer or none.
# Loopback only (free ports picked at start); every run and every wait is bounded.
#
#   tests/bench/cpu_per_request.sh [RATE] [SECONDS] [ROUNDS]      defaults: 5000 10 3
#   CONNECTIONS=8 (the rate is spread over them); DETOURS="100 230" adds a raw-limit run with
#   `--detours N` for each N (code on every request's path and nothing else: what that costs);
#   PROFILED=1 adds this server built by tests/bench/profiled.sh (the same code, laid out by a
#   profile: what the same code costs packed together)
set -euo pipefail
cd "$(dirname "$0")/../.."
rate=${1:-5000}
seconds=${2:-10}
rounds=${3:-3}
connections=${CONNECTIONS:-8}
for n in "$rate" "$seconds" "$rounds" "$connections"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "usage: tests/bench/cpu_per_request.sh [RATE] [SECONDS] [ROUNDS] (positive integers; CONNECTIONS too)" >&2; exit 2; }
done
detours=${DETOURS:-}
profiled=${PROFILED:-0}
[[ $profiled =~ ^[01]$ ]] || { echo "PROFILED: 0 or 1" >&2; exit 2; }
for n in $detours; do
  [[ $n =~ ^[1-9][0-9]*$ && $n -le 256 ]] || { echo "DETOURS: counts from 1 to 256" >&2; exit 2; }
done

source tests/bench/lib.sh
need python3 "apt-get install python3"
need cargo "install Rust with rustup (https://rustup.rs)"
require_tools
echo "building loopback-mcp-http and raw-limit (release)..." >&2
cargo build --release --quiet
CARGO_TARGET_DIR=$PWD/target/bench-peers cargo build --release --quiet --locked \
  --manifest-path tests/bench/raw-limit/Cargo.toml
ours=$PWD/target/release/loopback-mcp-http
declare -A binary_of=([loopback-mcp-http]=$ours)
servers=(loopback-mcp-http)
if [ "$profiled" = 1 ]; then
  binary_of[loopback-mcp-http-profiled]=$(tests/bench/profiled.sh)
  servers+=(loopback-mcp-http-profiled)
fi

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2> /dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
show_logs() { cat "$work"/*.err >&2 2> /dev/null || true; }
listening() { python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$1" 2> /dev/null; }

declare -A pid url route token_of
# A session per connection and run, all of one principal, each living longer than its run.
for name in "${servers[@]}"; do
  "${binary_of[$name]}" serve --max-sessions 1024 --max-sessions-per-principal 1024 \
    --session-ttl-secs $((seconds + 60)) < /dev/null > "$work/$name.json" 2> "$work/$name.err" &
  pids+=($!)
  pid[$name]=$!
  route[$name]=ping
  wait_until 10 "$name's start line" test -s "$work/$name.json"
  read -r "url[$name]" "token_of[$name]" <<< "$(serve_url_and_token "$work/$name.json")"
done
ours_count=${#servers[@]}
servers+=(raw-limit raw-limit-2)
declare -A detours_of=([raw-limit]=0 [raw-limit-2]=0)
for n in $detours; do
  servers+=("raw-limit+$n-detours")
  detours_of[raw-limit+$n-detours]=$n
done
for name in "${servers[@]:ours_count}"; do
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  target/bench-peers/release/raw-limit "$port" --detours "${detours_of[$name]}" \
    > /dev/null 2> "$work/$name.err" &
  pids+=($!)
  pid[$name]=$!
  url[$name]=http://127.0.0.1:$port/mcp
  route[$name]=raw-ping
  token_of[$name]=${token_of[loopback-mcp-http]}
  wait_until 10 "$name on port $port" listening "$port"
done

for round in $(seq 1 "$rounds"); do
  k=$((round % ${#servers[@]}))
  order=("${servers[@]:k}" "${servers[@]:0:k}")
  for name in "${order[@]}"; do
    kill -0 "${pid[$name]}" 2> /dev/null || { echo "$name exited" >&2; show_logs; exit 1; }
    line=$(timeout $((seconds + 60)) "$ours" bench --rate "$rate" --connections "$connections" \
      --seconds "$seconds" --route "${route[$name]}" --url "${url[$name]}" \
      --token "${token_of[$name]}" --pid "${pid[$name]}") || { echo "$name: bench failed: $line" >&2; exit 1; }
    echo "$name $line" | tee -a "$work/runs"
  done
done

python3 - "$work/runs" "$rate" "$seconds" "$connections" "${servers[@]}" << 'EOF'
import json, statistics, sys
path, rate, seconds, connections, *names = sys.argv[1:]
runs = {}
for line in open(path):
    name, _, report = line.partition(" ")
    runs.setdefault(name, []).append(json.loads(report))
def median(name, key):
    return statistics.median(r[key] for r in runs[name])
print(f"\n{rate} pings/s over {connections} connections, {len(runs[names[0]])} rounds of {seconds} s,"
      f" medians over the rounds (CPU time from /proc at {runs[names[0]][0]['clock_ticks_per_second']} ticks/s):")
print("| server | user µs/request | system µs/request | total µs/request | total range | total over raw-limit's | late | p99 µs |")
print("|---|---|---|---|---|---|---|---|")
base = median("raw-limit", "server_us_per_op")
for n in names:
    totals = [r["server_us_per_op"] for r in runs[n]]
    # A run too short for one clock tick of raw-limit's CPU time has no ratio.
    ratio = f"{median(n, 'server_us_per_op') / base:.2f}" if base > 0 else "n/a (no tick)"
    print(f"| {n} | {median(n, 'server_user_us_per_op'):.2f} | {median(n, 'server_system_us_per_op'):.2f} | "
          f"{median(n, 'server_us_per_op'):.2f} | {min(totals):.2f}–{max(totals):.2f} | "
          f"{ratio} | {median(n, 'late'):.0f} | {median(n, 'p99_us'):.0f} |")
EOF
