#!/usr/bin/env bash
# Side by side, in one run: keep-alive pings with wrk against this server (`serve`), the minimal
# std::net responder and the official Rust SDK server from ../shared/bench/ (built beforehand in a
# scratch copy, see that folder's README). Prints one RESULT line per server and round (with the
# server's CPU time per request, user and system), then the ratios of the medians. Loopback only; each run is bounded by its duration.
#
#   tests/bench/side_by_side.sh PEERS_DIR [SECONDS] [CONNECTIONS] [ROUNDS]
#   e.g. tests/bench/side_by_side.sh /tmp/benchpeers 5 16 3
set -euo pipefail
cd "$(dirname "$0")/../.."
peers=${1:?the folder holding the built raw-limit and rmcp-peer}
seconds=${2:-5}
connections=${3:-16}
rounds=${4:-3}
lua=$PWD/tests/bench/ping.lua
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

cargo build --release --quiet
"$PWD/target/release/loopback-mcp-http" serve --workers 64 < /dev/null > "$work/ours.json" & pids+=($!)
"$peers/raw-limit/target/release/raw-limit" 18181 > /dev/null 2>&1 & pids+=($!)
"$peers/rmcp-peer/target/release/rmcp-peer" 18182 > /dev/null 2>&1 & pids+=($!)
until [ -s "$work/ours.json" ]; do sleep 0.1; done
sleep 1
read -r ours_url token <<< "$(python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); print(d["url"], d["tokens"]["full"])' "$work/ours.json")"

# open_session URL [TOKEN]: initialize + initialized; prints the session id
open_session() {
  local url=$1 auth=()
  [ -n "${2:-}" ] && auth=(-H "Authorization: Bearer $2")
  local mcp=(-H 'Accept: application/json, text/event-stream' -H 'Content-Type: application/json')
  local sid
  sid=$(curl -s -D - -o /dev/null "$url" "${mcp[@]}" "${auth[@]}" \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' \
    | tr -d '\r' | sed -n 's/^[Mm][Cc][Pp]-[Ss]ession-[Ii]d: //p')
  curl -s -o /dev/null "$url" "${mcp[@]}" "${auth[@]}" -H "MCP-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25' \
    -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo "$sid"
}
rmcp_session=$(open_session "http://127.0.0.1:18182/mcp")

# cpu PID: the process's user and system CPU time so far, in clock ticks
cpu() { awk '{print $14, $15}' "/proc/$1/stat"; }
ticks=$(getconf CLK_TCK)
run() { # name url session bearer pid
  local line u0 s0 u1 s1 good
  read -r u0 s0 <<< "$(cpu "$5")"
  line=$(MCP_SESSION_ID=$3 MCP_BEARER=$4 wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$lua" "$2" | grep '^RESULT')
  read -r u1 s1 <<< "$(cpu "$5")"
  good=$(echo "$line" | sed -E 's/.*good=([0-9]+).*/\1/')
  echo "$1 $line $(python3 -c 'import sys; t, n, u, s = map(int, sys.argv[1:]); print(f"user_us_per_req={u / t * 1e6 / max(n, 1):.2f} sys_us_per_req={s / t * 1e6 / max(n, 1):.2f}")' "$ticks" "$good" $((u1 - u0)) $((s1 - s0)))"
  echo "$line" | sed -E 's/.*rps=([0-9]+).*p99_us=([0-9]+).*/\1 \2/' >> "$work/$1"
}
# Warm-up, not counted: first connections fault in each server's buffers and thread stacks.
warm=$(open_session "$ours_url" "$token")
for target in "$ours_url $warm $token" "http://127.0.0.1:18181/mcp" "http://127.0.0.1:18182/mcp $rmcp_session"; do
  read -r url session bearer <<< "$target"
  MCP_SESSION_ID=${session:-} MCP_BEARER=${bearer:-} wrk -t2 -c"$connections" -d2s -s "$lua" "$url" > /dev/null
done
for round in $(seq 1 "$rounds"); do
  # A fresh session each round: this server's sessions live 60 s from creation, never longer.
  ours_session=$(open_session "$ours_url" "$token")
  run loopback-mcp-http "$ours_url" "$ours_session" "$token" "${pids[0]}"
  run raw-limit http://127.0.0.1:18181/mcp "" "" "${pids[1]}"
  run rmcp http://127.0.0.1:18182/mcp "$rmcp_session" "" "${pids[2]}"
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ours=$(cut -d' ' -f1 "$work/loopback-mcp-http" | median)
raw=$(cut -d' ' -f1 "$work/raw-limit" | median)
rmcp=$(cut -d' ' -f1 "$work/rmcp" | median)
p99=$(cut -d' ' -f2 "$work/loopback-mcp-http" | median)
python3 -c "import sys; o, r, m, p = map(float, sys.argv[1:]); print(f'median rps: loopback-mcp-http {o:.0f}, raw-limit {r:.0f}, rmcp {m:.0f}; ratio to raw-limit {o/r:.2f}, to rmcp {o/m:.2f}; loopback-mcp-http p99 {p:.0f} us')" "$ours" "$raw" "$rmcp" "$p99"
