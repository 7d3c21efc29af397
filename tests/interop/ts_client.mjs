/**
 * The official TypeScript SDK client (@modelcontextprotocol/sdk, pinned in package.json) driving
 * one scenario against `serve`, with the bearer token sent through `requestInit.headers`.
 *
 * It only acts and reports: it prints one JSON line on stdout with what the client saw (results,
 * notifications with their times, errors with their status codes, durations); the assertions
 * live in ts_client_check.py, which also reads the wire from a recording proxy (proxy.py).
 *
 * Scenarios:
 *   full      connect, ping, logging/setLevel; once the GET stream delivered session_started,
 *             resources/list (its resources_listed notification is then due on the next, resumed
 *             GET); idle through a few polls; a second resources/list and its notification;
 *             tools/list, then tools/call test_reconnection (the server closes that call's stream
 *             after its priming event; the SDK must resume it by itself, with a GET carrying
 *             Last-Event-ID, to get the result); idle again; terminateSession (DELETE); close.
 *   refused   connect, then resources/list once, timed (a connect_only token: 403); DELETE; close.
 *   rejected  connect only (an expired token: the initialize itself fails with 401).
 *   ttl       connect and ping, then idle past the session lifetime (serve --session-ttl-secs 2)
 *             while the GET stream keeps polling, then ping again (404), then idle once more to see
 *             whether the client opens a new session by itself.
 *
 * Usage: node ts_client.mjs SCENARIO URL, with the token in the environment variable MCP_BEARER.
 * The file is copied into the directory whose node_modules holds the pinned SDK and run there.
 * Every wait is bounded; the script exits 2 on an unexpected exception (reported in the JSON
 * line) and 0 otherwise.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';

const [scenario, url] = process.argv.slice(2);
const bearer = process.env.MCP_BEARER;
const started = performance.now();
const now = () => Math.round(performance.now() - started) / 1000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The copy that runs sits beside the node_modules holding the SDK (see the usage above).
const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
).version;

const observed = {
  scenario,
  sdk_version: sdkVersion,
  node_version: process.version,
  notifications: [],
  transport_errors: [],
  steps: {},
};

function describe(error) {
  return {
    name: error?.constructor?.name ?? typeof error,
    code: error?.code ?? null,
    message: String(error?.message ?? error).slice(0, 300),
  };
}

async function waitFor(predicate, ms) {
  const deadline = performance.now() + ms;
  while (!predicate() && performance.now() < deadline) await sleep(50);
  return predicate();
}

async function step(name, action) {
  const t0 = performance.now();
  try {
    const value = await action();
    observed.steps[name] = { ok: true, seconds: (performance.now() - t0) / 1000, value: value ?? null };
  } catch (error) {
    observed.steps[name] = { ok: false, seconds: (performance.now() - t0) / 1000, error: describe(error) };
  }
  return observed.steps[name];
}

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
});
transport.onerror = (error) => observed.transport_errors.push({ t: now(), ...describe(error) });
const client = new Client({ name: 'loopback-interop-ts', version: '1.0.0' });
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
  observed.notifications.push({ t: now(), level: n.params.level, event: n.params.data?.event ?? null });
});
const events = () => observed.notifications.map((n) => n.event);

async function main() {
  const connected = await step('connect', () => client.connect(transport));
  observed.protocol_version = transport.protocolVersion ?? null;
  if (scenario === 'rejected' || !connected.ok) return;
  if (scenario === 'full') {
    await step('ping', () => client.ping());
    await step('setLoggingLevel', () => client.setLoggingLevel('debug'));
    // resources/list as soon as the GET stream delivered session_started, so that its
    // notification is queued before the next GET (due a second later, with Last-Event-ID): that
    // GET must replay it.
    observed.first_seen = await waitFor(() => events().includes('session_started'), 10000);
    await step('listResources', async () => (await client.listResources()).resources.map((r) => r.uri));
    observed.second_seen = await waitFor(() => events().includes('resources_listed'), 10000);
    await sleep(2500);
    await step('listResources2', async () => (await client.listResources()).resources.map((r) => r.uri));
    observed.third_seen = await waitFor(() => observed.notifications.length >= 3, 10000);
    await step('listTools', async () => (await client.listTools()).tools.map((t) => t.name));
    await step('callTool', async () => {
      const result = await client.callTool({ name: 'test_reconnection', arguments: {} });
      return { isError: result.isError ?? null, text: result.content.map((c) => c.text) };
    });
    await sleep(2500);
    await step('terminateSession', () => transport.terminateSession());
    observed.session_cleared = transport.sessionId === undefined;
  } else if (scenario === 'refused') {
    await step('listResources', () => client.listResources());
    await step('terminateSession', () => transport.terminateSession());
  } else if (scenario === 'ttl') {
    await step('ping', () => client.ping());
    await sleep(3500);
    await step('pingAfterExpiry', () => client.ping());
    await sleep(2500);
    observed.session_id_still_set = transport.sessionId !== undefined;
  } else {
    throw new Error(`unknown scenario ${scenario}`);
  }
}

let exitCode = 0;
try {
  await main();
} catch (error) {
  observed.unexpected = describe(error);
  exitCode = 2;
}
await client.close().catch(() => {});
observed.seconds = now();
// Nothing secret goes out: errors carry response bodies (public codes), never request headers.
process.stdout.write(JSON.stringify(observed) + '\n');
process.exit(exitCode);
