//! loopback-mcp-http: the boundaries of the MCP 2025-11-25 Streamable HTTP transport and of an
//! OAuth 2.1 protected resource, made real on 127.0.0.1 with raw sockets and hand-written codecs.
//!
//! # Architecture
//!
//! A sans-IO core and a thin shell. Bytes come in through one connection loop and pass inward
//! through pure layers; the reply goes back out through the same codecs. Only the shell touches
//! sockets, threads, clocks and randomness, so every other layer can be driven from a byte slice
//! by a unit test or a fuzz target. Bad input becomes a typed error, and each error type maps to
//! an HTTP status in exactly one place.
//!
//! Modules, in reading order. The pure core:
//!
//! - [`limits`]: every budget, one struct, relations checked at compile time.
//! - [`http`]: the request head parser, framing rules, media types, the response writer and the
//!   client's response parser. Bytes only.
//! - [`json`]: strict RFC 8259 decoding (explicit stack, duplicate keys refused) and encoding.
//! - [`sse`]: the event encoder and the strict, bounded stream parser.
//! - [`auth`]: the offline token policy, challenges, protected-resource metadata, fixture roles.
//! - [`mcp`]: JSON-RPC messages, the messages a client sends, the session table, and each
//!   session's resumable event streams.
//! - [`random`]: the fallible random source the core is handed, and ids drawn from it.
//! - [`digest`]: SHA-256 digests as the keys of the token and session tables.
//! - [`endpoint`]: the receive order, from a parsed head and body to a reply; every refusal's
//!   status in one table.
//! - [`inspect`]: a codec's verdict on some bytes as JSON, for the `inspect` command.
//!
//! The shell, the only modules that touch sockets, threads, clocks and the operating system's
//! random generator:
//!
//! - [`server`]: the loopback listener, the worker pool, one connection's loop, and a server
//!   started with fresh fixture tokens.
//! - [`client`]: one connection from the client side, the MCP client and its redacted trace.
//!
//! The commands (`demo`, `attack`, `lab`, `serve`, `inspect`, `bench`) live in the binary, not
//! here: they use this library's public API like any other program.
//!
//! Imports point one way: from the shell inward, and from the meeting point (`endpoint`) down
//! to the layers it joins. Exactly these, one line per top-level module (`tests/tidy.rs` compares
//! this list with the code, and the code with its rules):
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
//! - `endpoint` imports `auth`, `http`, `json`, `limits`, `mcp`, `random`, `sse`.
//! - `inspect` imports `endpoint`, `http`, `json`, `limits`, `sse`.
//! - `server` imports `auth`, `endpoint`, `http`, `limits`, `random`.
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
//! table or the endpoint. No module imports itself through a cycle, however long, and no test
//! includes the binary's modules.
//!
//! Invariants stated as absences, and enforced by `tests/tidy.rs`: no core module opens a socket,
//! spawns a thread, touches the file system, a process, the environment or standard I/O, reads a
//! clock or draws randomness from the OS; no function is longer than 70 lines. Also: no error
//! value holds bytes of the input; no parser recurses on input structure; no buffer grows past a
//! budget because a peer asked it to.
#![forbid(unsafe_code)]

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
