//! loopback-mcp-http: the boundaries of the MCP Streamable HTTP transport, in its 2025-11-25
//! revision (sessions) and its 2026-07-28 one (no sessions), and of an OAuth 2.1 protected
//! resource, made real on 127.0.0.1 with raw sockets and hand-written codecs.
//!
//! # Architecture
//!
//! A sans-IO core and a thin shell. Bytes come in through one connection loop and pass inward
//! through pure layers; the reply goes back out through the same codecs. Only the shell touches
//! sockets, threads, clocks and randomness, so every other layer can be driven from a byte slice
//! by a unit test or a fuzz target. Bad input becomes a typed error, and each error type maps to
//! an HTTP status in exactly one place.
//!
//! ## The modules
//!
//! Every module, in reading order (`tests/tidy.rs` fails when one is missing here). The pure
//! core:
//!
//! <!-- crate-map: start -->
//! - [`limits`]: every budget and its ceiling, one table, relations checked at compile time.
//! - `decimal`: `1*DIGIT` with checked arithmetic, and back; hex digits; a JSON number's value.
//! - [`random`]: the fallible random source the core is handed, and ids drawn from it.
//! - [`digest`]: SHA-256 digests as the keys of the token and session tables.
//! - [`http`]: bytes only. `chars` (byte classes), `vocab` (methods, versions), `target`,
//!   `fields` (the header section scanner), `known` (the names it looks up), `request` (the head parser), `framing`, `error`,
//!   `status`, `date`, `media` (media types and `Accept`), `mirror` (mirrored headers), `writer`
//!   (responses, and the framing of a body written as it happens), `response` (the client's
//!   parser), `authenticate` (the client's reading of `WWW-Authenticate`), `chunked` (`line`, `request`, `response`: the coding, decoded in place), and
//!   `connection` (`machine`, its states; `stage`, where it is; `driver`, the one loop;
//!   `linger`).
//! - [`json`]: strict RFC 8259: `decode` (duplicate keys refused), `encode`, `stack` (the explicit
//!   stack both keep), `value` (`Value`, `Number`), `write` (JSON text written straight from
//!   code).
//! - [`sse`]: `event`, `encode` (the event encoder) and `parse` (the strict, bounded parser).
//! - [`auth`]: the offline token policy: `bearer` (the Authorization field), `claims`, `policy`
//!   (the decision order), `scope`, `challenge` (`WWW-Authenticate`), `metadata`
//!   (protected-resource metadata), `fixtures` (the named roles).
//! - [`mcp`]: `revision` (the table of revisions, one row each, and sets of them), `era` (which
//!   era a request belongs to), `jsonrpc`, `flat` (the envelope's fast path), `method` (the
//!   methods, one row of decisions each), `meta` (a 2026-07-28 request's `_meta`), `requests`
//!   (what a client sends), `session` (the session table), `stream` (each session's resumable
//!   event streams), `tag` (their event ids' tag), `uri` (`kb://`), `conformance` (the suite's
//!   step-up fixtures, served on request).
//! - [`endpoint`]: the receive order, from a parsed head to a reply: `state`, `admission`
//!   (stages 2 and 3, and the era switch), `access` (the token and scope stages both eras call),
//!   `legacy` and `modern` (each era's pipeline), `dispatch` (the one method dispatch),
//!   `methods` and `tools` (what methods and tools answer), `rejection` (every refusal, one row
//!   each), `reply`, `stage` (where a request was decided), `stream` (the SSE writer a session's
//!   log writes through), `published` (the token policy as the control plane last left it),
//!   `live` (streams that stay open), `share` (the places they take), `open` (opening one).
//! - [`inspect`]: a codec's verdict on some bytes as JSON, for the `inspect` command.
//!
//! The shell, the only modules that touch sockets, threads, clocks and the operating system's
//! random generator:
//!
//! - [`server`]: the loopback listener, the hand-off to workers (`pool`), the socket loop that
//!   drives a connection machine (`connection`), the lingering set and its sweeper (`linger`), a
//!   server started with fresh fixture tokens (`fixture`), `watch` (`serve --watch`), and its
//!   own failures, reported on standard error (`report`).
//! - [`client`]: `http` (exact request bytes, strictly parsed responses), `mcp` (the MCP client
//!   and its checks), `error` (their typed errors), `modern` (the 2026-07-28 client and the choice of era),
//!   `mirroring` (the headers it mirrors), `stream` (streams that stay open), `trace` (the
//!   redacted wire trace).
//!
//! Outside the library:
//!
//! ```text
//! src/main.rs          the binary: the command line, dispatching to its own cli module
//! src/cli/             demo, attack and lab (tables of one declarative case type, in case, run by
//!                      scene; watch, the streams they watch; ask, lab's guesses); catalogue
//!                      (kinds, http_rows, mcp_rows, session_rows, across_rows: the boundary checks
//!                      attack, lab and probe share, made into bytes by render; sources, where each
//!                      rule is written); probe (target, peer and its world, probing, wire, answer,
//!                      judge, across with discovery and streams, hygiene, shown, secrets, grid,
//!                      report, compare: the catalogue against any server on this machine, and
//!                      runs side by side); browser (the headless Chromium lab); serve and control
//!                      (the control plane, on stdin and on a control channel), stale (old control
//!                      directories); inspect; bench (plan, link, closed, rate, codec, histogram,
//!                      report) and overload (load generators); local, help, args; out (every
//!                      line written, and status 141 once its reader has gone)
//! ```
//! <!-- crate-map: end -->
//!
//! ```text
//! tests/*.rs           one file per area; codec, policy and status rules as tables, socket
//!                      scenarios where order and timing are the point; tests/endpoint.rs drives
//!                      the endpoint without sockets, with an injected clock and random source;
//!                      tests/tidy.rs checks the layering; tests/readme.rs the documents' budget
//!                      figures and links
//! tests/common/        shared helpers: a server with fixture tokens, `serve` as a child process,
//!                      split-invariance checks
//! tests/interop/       the official clients and conformance suite against `serve`
//! tests/bench/         the benchmark scripts, the wrk script, and the three peers they compare
//!                      against, raw-limit, tiny-http-peer and rmcp-peer, each its own Cargo
//!                      project
//! fuzz/                its own workspace: one target per parser
//! ```
//!
//! The commands (`demo`, `attack`, `lab`, `serve`, `control`, `inspect`, `bench`) are not part of
//! the library: they use its public API like any other program, and no test includes their files.
//!
//! ## Which way imports point
//!
//! From the shell inward, and from the meeting point (`endpoint`) down to the layers it joins.
//! Exactly these, one line per top-level module (`tests/tidy.rs` compares this list with the code,
//! and the code with its rules):
//!
//! <!-- imports: start -->
//! - `limits` imports nothing of the project.
//! - `decimal` imports nothing of the project.
//! - `digest` imports nothing of the project.
//! - `random` imports `decimal`.
//! - `http` imports `decimal`, `limits`.
//! - `json` imports `decimal`.
//! - `sse` imports `decimal`, `limits`.
//! - `auth` imports `digest`, `http`, `json`, `random`.
//! - `mcp` imports `decimal`, `digest`, `json`.
//! - `endpoint` imports `auth`, `digest`, `http`, `json`, `limits`, `mcp`, `random`, `sse`.
//! - `inspect` imports `endpoint`, `http`, `json`, `limits`, `mcp`, `sse`.
//! - `server` imports `auth`, `digest`, `endpoint`, `http`, `limits`, `mcp`, `random`.
//! - `client` imports `auth`, `http`, `json`, `limits`, `mcp`, `sse`.
//! <!-- imports: end -->
//!
//! The rules behind that list, each enforced by `tests/tidy.rs`: the foundations (`limits`,
//! `decimal`, `digest`) import nothing of the project; the codecs (`http`, `json`, `sse`) know
//! bytes, budgets and numbers only, never `auth`, `mcp`, `endpoint`, `server` or `client`;
//! `auth` knows nothing of sessions or streams, and `mcp` nothing of the token policy (a session
//! is bound to the three values of a principal that `endpoint` copies in); the core never names
//! the shell; `client` shares only wire vocabulary with the server side (`mcp`'s version, path,
//! session-id rule and request builders, `auth::metadata`'s well-known path), never the session
//! table or the endpoint. No module of the library or the binary imports itself through a cycle,
//! however long: a child module never uses an item of its parent that re-exports the child (which
//! is why `json::value`, `sse::event` and `http::connection::machine` are files of their own).
//!
//! ## How one POST travels
//!
//! The acceptor hands the socket to a free worker (`server::pool`), which drives a
//! `http::connection::Connection` (in the buffers the worker kept from its last connection,
//! renewed) with `http::connection::drive`, the socket as its transport and the endpoint as its
//! handler (`server::connection`). The machine lends its buffer for each read, feeds the bytes to
//! `http::RequestParser` until the head is complete, and asks for admission with the parsed head;
//! the handler calls `endpoint::Endpoint::admit` (`endpoint::admission`), which checks Host,
//! Origin, route, Accept, Content-Type and, on a server of 2025-11-25 alone, the version header,
//! on the head alone. The machine writes `100 Continue` itself if it was asked for, reads exactly
//! the body, and asks for a dispatch with the request; the handler calls `Endpoint::respond`,
//! which reads the envelope with `mcp::flat` (a body it does not take, `json::decode` decodes
//! and `mcp::jsonrpc` sorts), and lets `mcp::era` decide its era. In 2025-11-25
//! (`endpoint::legacy`) it asks `auth::policy` who is calling, finds the session in
//! `mcp::session`, asks whether the call is allowed, and runs the method; in
//! 2026-07-28 (`endpoint::modern`) it checks `_meta` and the mirrored headers, then the token and
//! scopes; either way `endpoint::dispatch` runs the method. The result is a `Reply` (or a
//! `Rejection`, which knows its status and code), which the handler serializes with `http::writer`
//! straight into the buffer the machine lent; the machine has it written (in one call, unless the
//! socket takes only part) under the write deadlines, then reads the next request or closes. A
//! method whose answer stays open (a slow call, a listen) answers with the head of a stream
//! (`endpoint::live`), which takes its place first (`endpoint::share`); the machine then asks the
//! handler for each event as it happens, framed by the request's version.
//!
//! The client side mirrors it: `client::mcp` builds messages as values (`mcp::requests`) and sends
//! exact bytes, `client::http` reads the reply with `http::ResponseParser`, and `client::mcp` reads
//! event streams with `sse::parse_stream`; a reply that breaks a rule is a typed `ReplyRule` with a
//! stable code.
//!
//! ## Invariants
//!
//! Stated as absences, and enforced by `tests/tidy.rs`: no core module (every module but
//! `server`, `client` and the binary) opens a socket, spawns a thread, touches the file system, a
//! process, the environment or standard I/O, reads a clock (`Instant::now`, `SystemTime::now`,
//! `.elapsed(`) or draws randomness from the OS (`getrandom`) outside its tests; the core gets time
//! and random bytes as arguments. No function is longer than 70 lines.
//!
//! By construction: the codecs' errors are small `Copy` values (a kind with its budget, and an
//! offset) that never hold input bytes; each layer's error maps to a status in one function
//! (`RequestErrorKind::status`, `Denial::status`), and `endpoint::Rejection::status` is the one
//! table where every refusal meets its status. No parser recurses on the structure of its input,
//! and no buffer grows past a budget because a peer asked it to. The endpoint's shared state (the
//! published policy and the session table) is never locked across I/O. A state the code's own
//! logic rules out is made unrepresentable where the types allow it (the connection's stages offer
//! only the transitions of their state; a parsed head is viewed through the parser's `Accepted`
//! token, so no view guesses a request line); where it remains, a release build closes the
//! connection and reports an internal error on standard error, never a guessed value.
//!
//! # What this does not cover
//!
//! It is a profile for study and black-box testing, so much of what a deployment needs is absent on
//! purpose:
//!
//! - real OAuth: no authorization server, authorization code, PKCE, client registration, issuer
//!   discovery, signed tokens, JWKS, introspection, refresh tokens or real revocation latency;
//! - RFC 9728 conformance (an `http://` identifier cannot be), TLS, HTTP/2, proxies, load balancing;
//! - the rest of MCP: tools beyond the fixture's, prompts, resource reads and templates,
//!   resource subscriptions (a listen hears only the tool list's changes), tasks, sampling,
//!   server-to-client requests, and in 2026-07-28 multi round-trip requests;
//! - back-pressure beyond the per-write deadline, durable or cross-process event storage, delivery
//!   acknowledgement: a stream is resumable from at most
//!   32<!-- limit: sse_events_kept_per_session_max --> kept messages
//!   (64 KiB<!-- limit: sse_bytes_kept_per_session_max -->) per session, lost on restart;
//! - chunked request bodies by default (`--chunked` decodes them, and only them: no other transfer
//!   coding, no kept trailers; responses are chunked only for streams written as they happen, and
//!   only to HTTP/1.1: to HTTP/1.0 the close ends them), and
//!   any body or header beyond the small budgets.
//!
//! If you take the boundaries studied here into a real service, replace the parts in roughly this
//! order: the transport by an official SDK's Streamable HTTP implementation, keeping these
//! black-box tests; HTTPS with a reverse proxy whose header, body and timeout limits you have
//! measured; a real authorization server flow (metadata discovery, authorization code with PKCE,
//! exact redirect URIs, RFC 8707 `resource` in both requests) and token validation by signature or
//! introspection; the token checks themselves (issuer, audience, clock skew, scope, tenant and subject ACLs, revocation, no
//! token pass-through); shared storage for sessions and events with TTL, owner binding, capacity and
//! atomic updates; idempotency for anything with side effects; logs that carry only irreversible
//! correlation ids, never tokens or session ids; and interoperability runs with more than one
//! official client.
#![forbid(unsafe_code)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod auth;
pub mod client;
mod decimal;
pub mod digest;
pub mod endpoint;
pub mod http;
pub mod inspect;
pub mod json;
pub mod limits;
pub mod mcp;
pub mod random;
pub mod server;
pub mod sse;
