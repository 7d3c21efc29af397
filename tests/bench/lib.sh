# Shared by the benchmark scripts (sourced, never run): tool checks, bounded waits, and reading the
# JSON line `serve` prints at start. It starts no process and installs nothing.

missing_tools=0

# need TOOL HOW-TO-INSTALL: notes a missing tool with how to install it; `require_tools` then stops.
need() {
  command -v "$1" > /dev/null || { echo "$1 is not installed: $2" >&2; missing_tools=1; }
}

# require_tools: exits 1 when `need` found anything missing.
require_tools() {
  [ "$missing_tools" = 0 ] || exit 1
}

# wait_until SECONDS WHAT COMMAND...: runs COMMAND every 0.1 s until it succeeds; after SECONDS it
# says what it waited for, calls the script's `show_logs` if it has one, and exits 1.
wait_until() {
  local deadline=$((SECONDS + $1)) what=$2
  shift 2
  until "$@"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "timed out waiting for $what" >&2
      if declare -F show_logs > /dev/null; then show_logs; fi
      exit 1
    fi
    sleep 0.1
  done
}

# serve_url_and_token FILE: the endpoint URL and the `full` role's token from serve's start line.
serve_url_and_token() {
  python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); print(d["url"], d["tokens"]["full"])' "$1"
}
