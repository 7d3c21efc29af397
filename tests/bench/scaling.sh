#!/usr/bin/env bash
# The scaling table: `bench` (a separate process) against `serve`, for each route at 1, 16 and 64
# connections, then past the worker count; the server's resident memory at idle and its peak
# under load. Loopback only; each run lasts SECONDS. It fails when a row has an error that is not
# a 503 of load shed (`bench --allow-503` accepts those and exits 1 on any other; the row's own
# check says which), or no answered operation at all (never on a speed).
#
#   tests/bench/scaling.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/bench/lib.sh
need python3 "apt-get install python3"
need cargo "install Rust with rustup (https://rustup.rs)"
require_tools
seconds=${1:-5}
cargo build --release --quiet
bin=$PWD/target/release/loopback-mcp-http
work=$(mktemp -d)
# Room for one session per connection, all for one principal (the defaults are 8 slots and 4 per
# principal).
"$bin" serve --max-sessions 1024 --max-sessions-per-principal 1024 < /dev/null > "$work/serve.json" &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
wait_until 10 "serve's start line" test -s "$work/serve.json"
read -r url token <<< "$(serve_url_and_token "$work/serve.json")"
rss() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }
peak() { awk '/^VmHWM/ {print $2}' "/proc/$pid/status"; }
echo "idle resident memory: $(rss) KiB"
"$bin" bench --allow-503 --url "$url" --token "$token" --connections 16 --seconds 2 > /dev/null  # warm-up
echo "| route | connections | operations/s | requests/s | p50 µs | p99 µs | errors |"
echo "|---|---|---|---|---|---|---|"
# row ROUTE CONNECTIONS: one table row. The only errors allowed are 503s, the acceptor's answer when
# every worker is busy (past 64 connections, and now and then at 64 while the previous row's
# connections are still being let go). Anything else fails the script.
row() {
  "$bin" bench --allow-503 --url "$url" --token "$token" --route "$1" --connections "$2" --seconds "$seconds" |
    python3 -c '
import json, sys
r = json.load(sys.stdin)
print("| {route} | {connections} | {operations_per_second} | {requests_per_second} | {p50_us} | {p99_us} | {errors} |".format(**r))
unexpected = r["errors"] - r["status_503"]
if unexpected or r["operations"] == 0:
    sys.exit("scaling.sh: {} unexpected errors on {} at {} connections (first: {})".format(unexpected, r["route"], r["connections"], r.get("first_error", r.get("failure"))))
'
}
for route in ping resources initialize; do
  for connections in 1 16 64; do
    row "$route" "$connections"
  done
done
echo "peak resident memory up to 64 busy connections: $(peak) KiB"
for connections in 96 128; do
  row ping "$connections"
done
echo "(past 64 connections the errors are 503 answers from the acceptor: load is shed, not queued)"
