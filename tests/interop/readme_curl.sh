#!/usr/bin/env bash
# Runs the curl session of README's "Serving it" section exactly as written (the first fenced
# block of that section), then checks what it printed line by line.
set -euo pipefail
cd "$(dirname "$0")/../.."
block=$(python3 - <<'PY'
import re
text = open("README.md").read()
section = text[text.index("## Serving it"):]
section = section[:section.index("\n## ", 1)]
print(re.findall(r"```sh\n(.*?)```", section, re.S)[0])
PY
)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
bash -euo pipefail -c "$block" > "$out" 2>&1
expect() {
  if ! grep -qE -- "$1" "$out"; then
    echo "README curl walk-through: expected a line matching: $1" >&2
    cat "$out" >&2
    exit 1
  fi
}
expect '^\{"authorization_servers":\["https://issuer\.loopback-mcp-http\.invalid"\],"bearer_methods_supported":\["header"\],"resource":"http://127\.0\.0\.1:[0-9]+/mcp","scopes_supported":\["mcp:connect","resources:read"\]\}$'
expect '^202$'
expect '^\{"id":2,"jsonrpc":"2\.0","result":\{\}\}$'
expect '^data: \{"id":3,"jsonrpc":"2\.0","result":\{"resources":\[.*"uri":"kb://tenant/acme/handbook"'
expect '^retry: 1000$'
expect '^data: \{"jsonrpc":"2\.0","method":"notifications/message".*"event":"session_started"'
expect '^204$'
expect '^404$'
echo "README curl walk-through: every documented status and body seen" >&2
