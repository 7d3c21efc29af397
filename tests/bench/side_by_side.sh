#!/usr/bin/env bash
# Side by side with wrk: keep-alive pings (tests/bench/ping.lua) against this server (`serve`),
# raw-limit (a ceiling that checks nothing), a second raw-limit (the control: an identical server,
# so its ratio to the first is the noise of the measure), tiny-http-peer (tiny_http, off the
# shelf) and rmcp-peer (the official Rust SDK). It builds them all (the peers under
# target/bench-peers). For each connection count: 2 s (SECONDS if shorter) of the same load
# against each server as a warm-up (answers checked, figures dropped), then ROUNDS rounds, each
# running wrk (2 threads, SECONDS) against every server once, in an order rotated every round;
# the servers not being measured are paused (SIGSTOP), so none runs its background work beside
# another's run. Every server is sent the same fields (a bearer token, a session id: its own
# where it has sessions, a placeholder of the same length elsewhere), so wrk does the same work
# for each. Prints one line per run, then per connection count a table: the median requests/s
# with its range, the median p50 and p99, and the median over rounds of the server's requests/s
# over raw-limit's in the same round, with its range.
#
# What it does not do: it asserts no speed, and no ratio is a bound (wrk shares the two cores with
# the server, and the control shows how far the ratios move). It fails when a tool is missing, a
# build fails, a server does not start or exits, or any answer is not a good one: a status other
# than 2xx, a body without a result, a socket error or wrk timeout, a stalled connection (neither
# side sent anything for half a second, asked of `ss` near the end of each run: wrk
# counts a request that never gets an answer nowhere), or a run without a good answer. Loopback
# only (free ports picked at start); every wrk run and every wait is bounded.
#
#   tests/bench/side_by_side.sh [SECONDS] [ROUNDS] [CONNECTIONS...]      defaults: 5 3 16 64
#   SKIP_RMCP=1 leaves rmcp-peer out (its first build downloads about a hundred crates),
#   SKIP_TINY=1 tiny-http-peer (neither is built then).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-5}
rounds=${2:-3}
shift 2 || shift $#
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(16 64)
for n in "$seconds" "$rounds" "${counts[@]}"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "usage: tests/bench/side_by_side.sh [SECONDS] [ROUNDS] [CONNECTIONS...] (positive integers)" >&2; exit 2; }
done

source tests/bench/lib.sh
need wrk "apt-get install wrk"
need curl "apt-get install curl"
need python3 "apt-get install python3"
need ss "apt-get install iproute2"
need cargo "install Rust with rustup (https://rustup.rs)"
require_tools

peers=(raw-limit)
[ "${SKIP_TINY:-0}" = 1 ] || peers+=(tiny-http-peer)
[ "${SKIP_RMCP:-0}" = 1 ] || peers+=(rmcp-peer)
echo "building loopback-mcp-http and ${peers[*]} (release)..." >&2
cargo build --release --quiet
for peer in "${peers[@]}"; do
  CARGO_TARGET_DIR=$PWD/target/bench-peers cargo build --release --quiet --locked \
    --manifest-path "tests/bench/$peer/Cargo.toml"
done
bin=$PWD/target/bench-peers/release

work=$(mktemp -d)
pids=()
cleanup() {
  # A paused server acts on SIGTERM only once it runs again.
  for p in "${pids[@]}"; do kill -CONT "$p" 2> /dev/null || true; done
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2> /dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
show_logs() { cat "$work"/*.err >&2 2> /dev/null || true; }

# The servers, each with its process, URL and whether each run opens it a session.
declare -A pid url needs_session
servers=()
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
listening() { python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$1" 2> /dev/null; }
start_peer() { # NAME BINARY
  local port
  port=$(free_port)
  "$bin/$2" "$port" > /dev/null 2> "$work/$1.err" &
  pids+=($!)
  pid[$1]=$!
  url[$1]=http://127.0.0.1:$port/mcp
  servers+=("$1")
  wait_until 10 "$1 on port $port" listening "$port"
}
# Workers: twice the most connections, 64 at least. This server ends a connection after its 1000th
# request and wrk reconnects at once; with one worker per connection, the new connection can
# arrive before the closing worker is free, and get the 503 of a full pool (workers.sh shows it).
most=$(printf '%s\n' "${counts[@]}" | sort -n | tail -1)
workers=$((most * 2 > 64 ? most * 2 : 64))
# A fresh session every run, all of one principal, each living longer than its run.
"$PWD/target/release/loopback-mcp-http" serve --workers "$workers" --max-sessions 1024 \
  --max-sessions-per-principal 1024 --session-ttl-secs $((seconds + 60)) < /dev/null > "$work/ours.json" 2> "$work/ours.err" &
pids+=($!)
pid[loopback-mcp-http]=$!
servers+=(loopback-mcp-http)
wait_until 10 "loopback-mcp-http's start line" test -s "$work/ours.json"
read -r "url[loopback-mcp-http]" token <<< "$(serve_url_and_token "$work/ours.json")"
needs_session[loopback-mcp-http]=1
start_peer raw-limit raw-limit
start_peer raw-limit-2 raw-limit
if [ "${SKIP_TINY:-0}" != 1 ]; then start_peer tiny_http tiny-http-peer; fi
if [ "${SKIP_RMCP:-0}" != 1 ]; then
  start_peer rmcp rmcp-peer
  needs_session[rmcp]=1
fi
placeholder=$(printf '0%.0s' $(seq 48))

# session NAME: initialize + initialized for a server with sessions; prints the session id.
session() {
  [ "${needs_session[$1]:-0}" = 1 ] || { echo "$placeholder"; return; }
  local mcp=(-H 'Accept: application/json, text/event-stream' -H 'Content-Type: application/json'
    -H "Authorization: Bearer $token" --max-time 5)
  local sid
  sid=$(curl -s -D - -o /dev/null "${url[$1]}" "${mcp[@]}" \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' \
    | tr -d '\r' | sed -n 's/^[Mm][Cc][Pp]-[Ss]ession-[Ii]d: //p')
  [ -n "$sid" ] || { echo "no session id from $1" >&2; return 1; }
  curl -s -o /dev/null "${url[$1]}" "${mcp[@]}" -H "MCP-Session-Id: $sid" \
    -H 'MCP-Protocol-Version: 2025-11-25' -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo "$sid"
}

# run NAME CONNECTIONS ROUND: one wrk run with the others paused; round 0 is the warm-up. Appends
# wrk's RESULT line and the stalled connections seen by `ss` to $work/runs.
run() {
  local name=$1 connections=$2 round=$3 duration=$seconds sid port line
  [ "$round" = 0 ] && [ "$duration" -gt 2 ] && duration=2
  for other in "${servers[@]}"; do kill -STOP "${pid[$other]}" 2> /dev/null || true; done
  kill -CONT "${pid[$name]}" 2> /dev/null || true
  kill -0 "${pid[$name]}" 2> /dev/null || { echo "$name exited" >&2; show_logs; exit 1; }
  sid=$(session "$name")
  port=${url[$name]#http://127.0.0.1:}
  port=${port%/mcp}
  # Near the end of the run: the connections on which neither side sent anything for 500 ms or more.
  (sleep "$(python3 -c "print($duration * 0.8)")"
    ss -tniH state established "( sport = :$port )" > "$work/ss.out") &
  local sampler=$!
  line=$(MCP_SESSION_ID=$sid MCP_BEARER=$token timeout $((duration + 30)) \
    wrk -t2 -c"$connections" -d"${duration}s" --timeout 5s --latency -s tests/bench/ping.lua \
    "${url[$name]}" 2> "$work/wrk.err" | grep '^RESULT') \
    || { echo "$name: wrk gave no RESULT line" >&2; cat "$work/wrk.err" >&2; exit 1; }
  wait "$sampler" || true
  local stalled
  stalled=$(python3 -c '
import re, sys
details = open(sys.argv[1]).read().split("\n")[1::2]
times = [dict(re.findall(r"\b(lastsnd|lastrcv):(\d+)", d)) for d in details]
print(sum(min(int(t.get("lastsnd", 0)), int(t.get("lastrcv", 0))) >= 500 for t in times))' "$work/ss.out")
  echo "server=$name connections=$connections round=$round ${line#RESULT } stalled=$stalled" | tee -a "$work/runs"
}

for connections in "${counts[@]}"; do
  for name in "${servers[@]}"; do run "$name" "$connections" 0; done
  for round in $(seq 1 "$rounds"); do
    # Rotated each round, so no server always runs first or after the same one.
    order=("${servers[@]:round % ${#servers[@]}}" "${servers[@]:0:round % ${#servers[@]}}")
    for name in "${order[@]}"; do run "$name" "$connections" "$round"; done
  done
done
for p in "${pids[@]}"; do kill -CONT "$p" 2> /dev/null || true; done

python3 - "$work/runs" "$seconds" "${servers[@]}" << 'EOF'
import re, statistics, sys
path, seconds, *names = sys.argv[1:]
runs = [dict(re.findall(r"(\w+)=([\w.-]+)", line)) for line in open(path)]
def median(values):
    return statistics.median_low(sorted(values))
bad = [r for r in runs if int(r["bad_status"]) + int(r["bad_body"]) + int(r["socket_errors"])
       + int(r["stalled"]) > 0 or int(r["good"]) == 0]
for c in dict.fromkeys(r["connections"] for r in runs):
    rows = [r for r in runs if r["connections"] == c and r["round"] != "0"]
    rounds = sorted({r["round"] for r in rows}, key=int)
    by = {(r["server"], r["round"]): r for r in rows}
    print(f"\n{c} connections, {len(rounds)} rounds of {seconds} s, medians over the rounds:")
    print("| server | requests/s | range | p50 µs | p99 µs | requests/s over raw-limit's | range |")
    print("|---|---|---|---|---|---|---|")
    for n in names:
        rps = [float(by[n, i]["rps"]) for i in rounds]
        ratio = [float(by[n, i]["rps"]) / float(by["raw-limit", i]["rps"]) for i in rounds]
        p50 = median(float(by[n, i]["p50_us"]) for i in rounds)
        p99 = median(float(by[n, i]["p99_us"]) for i in rounds)
        print(f"| {n} | {median(rps):.0f} | {min(rps):.0f}–{max(rps):.0f} | {p50:.0f} | {p99:.0f} | "
              f"{median(ratio):.2f} | {min(ratio):.2f}–{max(ratio):.2f} |")
if bad:
    sys.exit("side_by_side.sh: runs with answers that were not good (warm-up included):\n"
             + "\n".join(" ".join(f"{k}={v}" for k, v in r.items()) for r in bad))
EOF
