-- wrk script: keep-alive JSON-RPC pings to one live MCP session.
--   MCP_SESSION_ID  the session to ping in (left out when empty, for servers without sessions)
--   MCP_BEARER      sent as "Authorization: Bearer <value>" when set
-- Each request carries a fresh id; a response counts as good only when its status is 2xx and its
-- body holds a "result" and no "error" (JSON or SSE-framed). The last line printed is
--   RESULT rps=... p50_us=... p99_us=... max_us=... good=... bad_status=... bad_body=... socket_errors=...
-- It does not check the answer's id, open the session or judge a figure: side_by_side.sh does
-- the rest.

wrk.method = "POST"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
local session = os.getenv("MCP_SESSION_ID") or ""
if session ~= "" then wrk.headers["MCP-Session-Id"] = session end
local bearer = os.getenv("MCP_BEARER") or ""
if bearer ~= "" then wrk.headers["Authorization"] = "Bearer " .. bearer end

local all = {}
local count = 0

function setup(thread)
  count = count + 1
  thread:set("base", count * 1000000000)
  table.insert(all, thread)
end

function init(args)
  good, bad_status, bad_body = 0, 0, 0
  next_id = base
end

function request()
  next_id = next_id + 1
  return wrk.format(nil, nil, nil, '{"jsonrpc":"2.0","id":' .. next_id .. ',"method":"ping"}')
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    bad_status = bad_status + 1
  elseif body and body:find('"result"', 1, true) and not body:find('"error"', 1, true) then
    good = good + 1
  else
    bad_body = bad_body + 1
  end
end

function done(summary, latency, requests)
  local g, s, b = 0, 0, 0
  for _, t in ipairs(all) do
    g, s, b = g + t:get("good"), s + t:get("bad_status"), b + t:get("bad_body")
  end
  local e = summary.errors
  io.write(string.format("RESULT rps=%.0f p50_us=%.0f p99_us=%.0f max_us=%.0f good=%d bad_status=%d bad_body=%d socket_errors=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50), latency:percentile(99), latency.max,
    g, s, b, e.connect + e.read + e.write + e.timeout))
end
