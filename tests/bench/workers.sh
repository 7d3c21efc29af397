#!/usr/bin/env bash
# Worker counts against p99 and 503s: for each worker count, a fresh `serve --workers W`, then
# `bench` (a separate process, keep-alive pings on live sessions) at 16 and at 64 connections.
# A connection that finds every worker busy gets 503 from the acceptor at once; `bench` counts
# those answers (`status_503`) among its errors and reconnects. One run, one row per worker count
# and connection count; the throughput column counts answered pings only, and the latency
# percentiles are those of answered pings.
#
# What it does not do: it never fails on a slow result (only on an error that is not a 503, or a
# row with no answered ping: `bench --allow-503` accepts the 503s and exits 1 on anything else);
# it does not pin CPUs
# (server and load generator share the cores). Loopback only; each run lasts SECONDS.
#
#   tests/bench/workers.sh [SECONDS] [WORKERS...]        defaults: 5 and 8 16 32 64 128
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-5}
shift || true
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(8 16 32 64 128)
for n in "$seconds" "${counts[@]}"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "usage: tests/bench/workers.sh [SECONDS] [WORKERS...] (positive integers)" >&2; exit 2; }
done
source tests/bench/lib.sh
need python3 "apt-get install python3"
need cargo "install Rust with rustup (https://rustup.rs)"
require_tools
cargo build --release --quiet
bin=$PWD/target/release/loopback-mcp-http
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

echo "| workers | connections | pings/s answered | p50 µs | p99 µs | errors | of which 503 |"
echo "|---|---|---|---|---|---|---|"
for workers in "${counts[@]}"; do
  # Room for one session per connection, for one principal.
  "$bin" serve --workers "$workers" --max-sessions 1024 --max-sessions-per-principal 1024 \
    < /dev/null > "$work/serve.json" &
  pid=$!
  wait_until 10 "serve --workers $workers to start" test -s "$work/serve.json"
  read -r url token <<< "$(serve_url_and_token "$work/serve.json")"
  "$bin" bench --allow-503 --url "$url" --token "$token" --connections 16 --seconds 1 > /dev/null  # warm-up
  for connections in 16 64; do
    "$bin" bench --allow-503 --url "$url" --token "$token" --connections "$connections" --seconds "$seconds" |
      python3 -c '
import json, sys
r = json.load(sys.stdin)
print("| '"$workers"' | {connections} | {operations_per_second} | {p50_us} | {p99_us} | {errors} | {status_503} |".format(**r))
if r["errors"] != r["status_503"] or r["operations"] == 0:
    sys.exit("workers.sh: {} errors that are not 503s, {} operations (first: {})".format(r["errors"] - r["status_503"], r["operations"], r.get("first_error", r.get("failure"))))
'
  done
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
  rm -f "$work/serve.json"
done
