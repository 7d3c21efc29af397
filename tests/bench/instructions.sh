#!/usr/bin/env bash
# Instructions and malloc calls per request, measures that do not move with the machine's load:
# `serve` and tests/bench/raw-limit each run under `valgrind --tool=callgrind` while
# tests/bench/drive.py sends exactly N requests, one after the other on keep-alive connections (a
# new connection every 1000 requests, this server's per-connection budget, for both servers),
# checking every answer. Routes:
#   loopback-mcp-http ping        ping on a live session (initialize + initialized once before)
#   loopback-mcp-http resources   resources/list on a live session (answered as an event stream)
#   loopback-mcp-http initialize  initialize + DELETE of the new session (one operation = both)
#   loopback-mcp-http poll        a GET of the session's notification stream (a priming event)
#   loopback-mcp-http reconnect   tools/call test_reconnection (its stream closed after the priming
#                                 event) + the GET that resumes it (one operation = both)
#   loopback-mcp-http unauthorized  initialize without a token, on a fresh connection each (401)
#   raw-limit ping                the same ping request, without session or token
# Each is run with N1 and N2 requests; (Ir at N2 - Ir at N1) / (N2 - N1) is the cost of one more
# request, with start-up, the session set-up and shut-down cancelled out. ROUNDS rounds,
# interleaved across the servers and routes; the medians are reported. Per request: total Ir (all
# threads of the server process), the SHA-256 part (the inclusive Ir of the sha2 crate's
# compression functions; valgrind hides the CPU's SHA extensions, so sha2 runs its software
# path), Ir without SHA-256, and the calls to malloc (callgrind's call counts to malloc, calloc,
# posix_memalign, aligned_alloc and memalign: every new block; realloc and free apart), then the
# ratio to raw-limit, a table of where the instructions go (groups such as the allocator, UTF-8
# validation, SipHash, header field scanning, media types, JSON decoding; see callgrind_costs.py)
# and the top TOP functions of the ping route by inclusive and self Ir. Last, the code each
# operation runs: the 64-byte lines of code holding an instruction run at least once an operation
# (by the same difference), and the 4 KiB pages they lie on (callgrind runs with --dump-instr=yes
# for this), with the functions that own most of the ping's lines; `LINES` lines give the counts
# to other tools.
# The server is stopped with SIGTERM, on which callgrind writes its output.
#
# What it does not do: it counts user-space instructions only (no kernel time, no system calls,
# no cache simulation, no wall-clock time, no concurrency: one client, one request in flight); it
# asserts nothing about the figures, and fails only when a build, a server or an answer does.
# Loopback only; every wait has a timeout.
#
#   tests/bench/instructions.sh [N1] [N2] [ROUNDS]           defaults: 1000 6000 3
#   TOP=15 (functions listed for ping; 0 for none), KEEP_DIR=DIR (keep the callgrind output files
#   there, e.g. for callgrind_annotate), ROUTES="ping unauthorized" (measure only these routes of
#   loopback-mcp-http; raw-limit's ping is always measured), PROFILED=1 (also the ping of this
#   server built by tests/bench/profiled.sh, as loopback-mcp-http-profiled: the same code laid out
#   by a profile)
set -euo pipefail
cd "$(dirname "$0")/../.."
n1=${1:-1000}
n2=${2:-6000}
rounds=${3:-3}
top=${TOP:-15}
for n in "$n1" "$n2" "$rounds"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "usage: tests/bench/instructions.sh [N1] [N2] [ROUNDS] (positive integers)" >&2; exit 2; }
done
[ "$n2" -gt "$n1" ] || { echo "N2 must be larger than N1" >&2; exit 2; }
[[ $top =~ ^[0-9]+$ ]] || { echo "TOP must be a number" >&2; exit 2; }
profiled=${PROFILED:-0}
[[ $profiled =~ ^[01]$ ]] || { echo "PROFILED: 0 or 1" >&2; exit 2; }

source tests/bench/lib.sh
need valgrind "apt-get install valgrind"
need python3 "apt-get install python3"
need cargo "install Rust with rustup (https://rustup.rs)"
require_tools

bench=$PWD/tests/bench
work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill -KILL "$server_pid" 2> /dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
started=$SECONDS

echo "building loopback-mcp-http and raw-limit (release)..." >&2
cargo build --release --quiet
CARGO_TARGET_DIR=$PWD/target/bench-peers cargo build --release --quiet --locked \
  --manifest-path tests/bench/raw-limit/Cargo.toml
declare -A binary_of=([loopback-mcp-http]=$PWD/target/release/loopback-mcp-http
  [raw-limit]=$PWD/target/bench-peers/release/raw-limit)
if [ "$profiled" = 1 ]; then
  binary_of[loopback-mcp-http-profiled]=$(tests/bench/profiled.sh)
fi
if [ -n "${KEEP_DIR:-}" ]; then mkdir -p "$KEEP_DIR"; fi

# What `wait_until` shows when a wait times out.
show_logs() {
  tail -n 20 "$work"/run.* >&2 2> /dev/null || true
}
gone() { ! kill -0 "$1" 2> /dev/null; }

# measure SERVER ROUTE N ROUND: one server process under callgrind, N operations, then SIGTERM;
# appends one JSON line to $work/summary.jsonl.
measure() {
  local server=$1 route=$2 n=$3 round=$4 out="$work/callgrind.$1.$2.$3.$4.out" url token=""
  local grind=(valgrind --tool=callgrind --dump-instr=yes --compress-pos=no
    --callgrind-out-file="$out" --log-file="$work/run.valgrind")
  local t0=$SECONDS
  rm -f "$work"/run.*
  if [ "$server" != raw-limit ]; then
    # Room for every session of the run, and a lifetime longer than any run.
    "${grind[@]}" "${binary_of[$server]}" serve --max-sessions $((n2 + 16)) --session-ttl-secs 86400 \
      < /dev/null > "$work/run.stdout" 2> "$work/run.stderr" &
    server_pid=$!
    wait_until 120 "$server's start line" test -s "$work/run.stdout"
    read -r url token <<< "$(serve_url_and_token "$work/run.stdout")"
  else
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "${grind[@]}" "${binary_of[raw-limit]}" "$port" < /dev/null > "$work/run.stdout" 2> "$work/run.stderr" &
    server_pid=$!
    wait_until 120 "$server's start line" grep -q listening "$work/run.stderr"
    url=http://127.0.0.1:$port/mcp
  fi
  local drive_route=$route
  [ "$server" = raw-limit ] && drive_route=raw-ping
  if ! timeout 1800 python3 "$bench/drive.py" --url "$url" --token "$token" --route "$drive_route" \
    --count "$n" --timeout 60 > "$work/run.drive"; then
    echo "the driver failed against $server ($route, N=$n)" >&2
    exit 1
  fi
  kill -TERM "$server_pid"
  wait_until 120 "$server to exit and callgrind to write its output" gone "$server_pid"
  wait "$server_pid" 2> /dev/null || true
  server_pid=
  grep -q '^totals:' "$out" || { echo "callgrind wrote no totals for $server $route N=$n" >&2; cat "$work/run.valgrind" >&2; exit 1; }
  python3 "$bench/callgrind_costs.py" summarize "$out" "$server/$route" "$n" "$round" >> "$work/summary.jsonl"
  echo "round $round/$rounds $server $route N=$n: $(tail -n 1 "$work/summary.jsonl" | python3 -c 'import json,sys; r = json.load(sys.stdin); print("Ir={:,} mallocs={:,}".format(r["ir"], r["mallocs"]))') ($((SECONDS - t0)) s; $(cat "$work/run.drive"))" >&2
  if [ -n "${KEEP_DIR:-}" ]; then cp "$out" "$KEEP_DIR/"; fi
  rm -f "$out"
}

routes=${ROUTES:-ping resources initialize poll reconnect unauthorized}
targets=()
for route in $routes; do
  case $route in
    ping | resources | initialize | poll | reconnect | unauthorized) targets+=("loopback-mcp-http $route") ;;
    *) echo "ROUTES: unknown route $route" >&2; exit 2 ;;
  esac
done
if [ "$profiled" = 1 ]; then targets+=("loopback-mcp-http-profiled ping"); fi
targets+=("raw-limit ping")
for round in $(seq 1 "$rounds"); do
  for target in "${targets[@]}"; do
    read -r server route <<< "$target"
    for n in "$n1" "$n2"; do
      measure "$server" "$route" "$n" "$round"
    done
  done
done

python3 "$bench/callgrind_costs.py" report "$n1" "$n2" "$top" "$work/summary.jsonl"
echo
echo "total run time: $((SECONDS - started)) s ($rounds rounds, N1=$n1, N2=$n2)"
