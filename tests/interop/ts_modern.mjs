/**
 * The official TypeScript SDK 2.x client (@modelcontextprotocol/client, pinned in package.json)
 * driving one scenario against `serve` in the 2026-07-28 era, with the bearer token sent through
 * `requestInit.headers` and version negotiation `{ mode: 'auto' }` (the SDK's default is
 * 'legacy': without it the client never probes).
 *
 * It only acts and reports: it prints one JSON line on stdout with what the client saw (the era
 * and version it negotiated, results, errors with their codes); the assertions live in
 * ts_modern_check.py, which reads the wire from a recording proxy (proxy.py). Every Mcp-Param
 * field on the wire is the SDK's own: no scenario sets one, except where said.
 *
 * Scenarios:
 *   modern        connect (server/discover), tools/list, then tools/call tenant_documents with
 *                 {tenant: 'acme'} and with {tenant: 'acme', limit: 1}.
 *   fallback      connect to a 2025-11-25-only serve (the probe is refused, then initialize),
 *                 tools/list, terminateSession.
 *   default       the same as fallback, but without the versionNegotiation option.
 *   fetch-hook    a `fetch` option that rewrites Mcp-Param-Tenant to 'globex' on its way out:
 *                 connect, tools/list, tools/call tenant_documents {tenant: 'acme'}.
 *   call-headers  the per-call `headers` option of callTool: {tenant: 'acme'} with
 *                 Mcp-Param-Tenant: globex, then {tenant: 'acme'} with Mcp-Param-Limit: 7.
 *   unlisted      tools/call tenant_documents {tenant: 'acme', limit: 1} before any tools/list.
 *   sentinel      tools/list, then tools/call tenant_documents with the tenant given as the third
 *                 argument (a value that is not plain ASCII).
 *   progress      tools/call count_slowly {steps: 3, pause_ms: 400} with an `onprogress` callback
 *                 (the SDK then sends a progressToken): each progress with the milliseconds since
 *                 the call was sent, and when the call returned.
 *   quiet         tools/call count_slowly {steps: 3, pause_ms: 1000} without `onprogress` (no
 *                 progress, so the stream is quiet for 3 s), how long it took.
 *   listen        a `notifications/tools/list_changed` handler, then `listen({toolsListChanged:
 *                 true})` (its honored filter), then tools/call test_trigger_tool_change (another
 *                 request), a wait of at most 10 s for the handler, then the subscription's
 *                 close() and how it reports its end.
 *
 * Usage: node ts_modern.mjs SCENARIO URL [TENANT], with the token in the environment variable
 * MCP_BEARER. The file is copied into the directory whose node_modules holds the pinned SDK and run
 * there. Every wait is bounded (the SDK's request timeout); the script exits 2 on an unexpected
 * exception (reported in the JSON line) and 0 otherwise.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { readFileSync } from 'node:fs';

const [scenario, url, tenant] = process.argv.slice(2);
const bearer = process.env.MCP_BEARER;
const REQUEST_TIMEOUT_MS = 15000;

const observed = {
  scenario,
  sdk_version: JSON.parse(
    readFileSync(new URL('./node_modules/@modelcontextprotocol/client/package.json', import.meta.url), 'utf8'),
  ).version,
  node_version: process.version,
  transport_errors: [],
  rewritten: 0,
  steps: {},
};

function describe(error) {
  return {
    name: error?.constructor?.name ?? typeof error,
    code: error?.code ?? null,
    message: String(error?.message ?? error).slice(0, 300),
    data: error?.data ?? null,
  };
}

async function step(name, action) {
  try {
    observed.steps[name] = { ok: true, value: (await action()) ?? null };
  } catch (error) {
    observed.steps[name] = { ok: false, error: describe(error) };
  }
  return observed.steps[name];
}

// The `fetch` option: the transport hands it every request, its headers already built.
async function rewritingFetch(input, init) {
  const headers = new Headers(init?.headers);
  if (headers.has('mcp-param-tenant')) {
    headers.set('mcp-param-tenant', 'globex');
    observed.rewritten += 1;
  }
  return fetch(input, { ...init, headers });
}

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
  ...(scenario === 'fetch-hook' ? { fetch: rewritingFetch } : {}),
});
transport.onerror = (error) => observed.transport_errors.push(describe(error));
const client = new Client(
  { name: 'loopback-interop-ts2', version: '1.0.0' },
  scenario === 'default' ? {} : { versionNegotiation: { mode: 'auto' } },
);
const options = { timeout: REQUEST_TIMEOUT_MS };

const listTools = () =>
  step('listTools', async () => (await client.listTools(undefined, options)).tools.map((t) => t.name));
const callTool = (name, args, extra = {}, tool = 'tenant_documents') =>
  step(name, async () => {
    const params = { name: tool, arguments: args };
    const result = await client.callTool(params, { ...options, ...extra });
    return { isError: result.isError ?? null, text: result.content.map((c) => c.text) };
  });

// The streams that stay open: progress as it happens, a quiet one, a listen.
async function streams() {
  if (scenario === 'progress') {
    const progress = [];
    const sent = Date.now();
    const onprogress = (p) => progress.push({ progress: p.progress, total: p.total ?? null, ms: Date.now() - sent });
    await callTool('countSlowly', { steps: 3, pause_ms: 400 }, { onprogress }, 'count_slowly');
    observed.progress = progress;
    observed.returned_ms = Date.now() - sent;
  } else if (scenario === 'quiet') {
    const sent = Date.now();
    await callTool('countSlowly', { steps: 3, pause_ms: 1000 }, {}, 'count_slowly');
    observed.returned_ms = Date.now() - sent;
  } else if (scenario === 'listen') {
    const changes = [];
    let heard;
    const changed = new Promise((resolve) => (heard = resolve));
    client.setNotificationHandler('notifications/tools/list_changed', (notification) => {
      changes.push({ method: notification.method, meta: notification.params?._meta ?? null });
      heard();
    });
    let subscription;
    await step('listen', async () => {
      subscription = await client.listen({ toolsListChanged: true }, options);
      return { honored: subscription.honoredFilter };
    });
    if (!subscription) return;
    await callTool('trigger', {}, {}, 'test_trigger_tool_change');
    let timer;
    const waited = new Promise((resolve) => (timer = setTimeout(resolve, 10000)));
    await Promise.race([changed, waited]);
    clearTimeout(timer);
    observed.changes = changes;
    await step('close', () => subscription.close());
    observed.closed = await Promise.race([subscription.closed, new Promise((r) => setTimeout(() => r('not within 5 s'), 5000))]);
  }
}

async function main() {
  const connected = await step('connect', () => client.connect(transport, options));
  observed.era = client.getProtocolEra() ?? null;
  observed.protocol_version = client.getNegotiatedProtocolVersion() ?? null;
  observed.supported_versions = client.getDiscoverResult()?.supportedVersions ?? null;
  observed.session_id = transport.sessionId ?? null;
  if (!connected.ok) return;
  if (scenario === 'modern') {
    await listTools();
    await callTool('callAcme', { tenant: 'acme' });
    await callTool('callAcmeLimit', { tenant: 'acme', limit: 1 });
  } else if (scenario === 'fallback' || scenario === 'default') {
    await listTools();
    await step('terminateSession', () => transport.terminateSession());
  } else if (scenario === 'fetch-hook') {
    await listTools();
    await callTool('callAcme', { tenant: 'acme' });
  } else if (scenario === 'call-headers') {
    await listTools();
    await callTool('callTenantHeader', { tenant: 'acme' }, { headers: { 'Mcp-Param-Tenant': 'globex' } });
    await callTool('callLimitHeader', { tenant: 'acme' }, { headers: { 'Mcp-Param-Limit': '7' } });
  } else if (scenario === 'unlisted') {
    await callTool('callAcmeLimit', { tenant: 'acme', limit: 1 });
  } else if (scenario === 'sentinel') {
    await listTools();
    await callTool('callTenant', { tenant });
  } else if (['progress', 'quiet', 'listen'].includes(scenario)) {
    await streams();
  } else {
    throw new Error(`unknown scenario ${scenario}`);
  }
  observed.session_id = transport.sessionId ?? null;
}

let exitCode = 0;
try {
  await main();
} catch (error) {
  observed.unexpected = describe(error);
  exitCode = 2;
}
await client.close().catch(() => {});
// Nothing secret goes out: errors carry response bodies (public codes), never request headers.
process.stdout.write(JSON.stringify(observed) + '\n');
process.exit(exitCode);
