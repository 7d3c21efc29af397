//! The MCP endpoint and the discovery document: a parsed request in, a [`Reply`] out, in the strict
//! receive order.
//!
//! The order never changes, and an early failure never reaches a later stage. This list is the
//! one home of the receive order.
//!
//! <!-- receive-order: start -->
//! 1. The head's own rules and budgets, byte by byte (`http::RequestParser`): 400, 413, 414,
//!    417, 431, 501, 505.
//! 2. `Host` must be the server's canonical authority `127.0.0.1:<port>`, or on `/mcp` a
//!    loopback proxy's (`--allow-host`); its `localhost` alias, and discovery through a proxy,
//!    get 421 `host_not_canonical`, any other name 421 `host_not_allowed` (a DNS-rebinding
//!    guard). A present `Origin` must be in the exact allowlist (403, never an OAuth challenge).
//! 3. The route and method (404, 405 with `Allow`; HEAD is answered like GET, without content,
//!    on the discovery paths; `OPTIONS *` gets 204 with `Allow`), credentials sent to discovery
//!    (400), `Accept` (406), `Content-Type` (415), a body where none belongs (400), and a
//!    present `MCP-Protocol-Version` naming anything but 2025-11-25 (400) (`Endpoint::admit`).
//!    Only now is the body read, and only now does a client that sent `Expect: 100-continue`
//!    get its `100 Continue`.
//! 4. The body, within its budget and deadline (under `--chunked`, a chunked body is decoded
//!    first, strictly: 400, 413, 431, the connection closed): strict JSON, then exactly one
//!    JSON-RPC message (400).
//! 5. The bearer token, identity only (`OfflineTokenPolicy::authenticate`): 400, 401.
//! 6. The version header's presence (required after initialize), the session id, the session
//!    itself and the lifecycle (only `ping` before `notifications/initialized`): 400, 404; on
//!    initialize, 503 when no session slot is free and 429 when this principal holds its quota,
//!    both with `Retry-After`.
//! 7. Scopes and tenant data (`OfflineTokenPolicy::authorize`): 403.
//! 8. The method itself, answered as JSON or as an event stream.
//! <!-- receive-order: end -->
//!
//! This is the order of the 2025-11-25 era, the default server's only one: there a request
//! announcing another protocol version is a plain 400 at stage 3, before its body is read or its
//! credentials are looked at, earlier than the rest of the version and session checks on purpose
//! ([`crate::mcp`] says why). A server started with 2026-07-28 among its versions decides each
//! request's era ([`crate::mcp::era`]) instead: a GET or a DELETE at stage 3, a POST once stage 4
//! has read the method; a request of the modern era then follows the order of `modern`, with no
//! session stage.
//!
//! Pure apart from the shared state, under no lock during I/O: the policy and the session
//! table. The policy is written by the control plane under a write lock (see `published`), and a
//! request runs stages 5 to 8 under the read lock, so an edit is in force from the very next
//! request on every connection and never changes a state under a request already running. The
//! session table is locked only while a session is looked up or changed; a connection that keeps
//! its session skips it (see [`LastSession`]), and hashes a token or a session id only when it
//! differs from the one it sent before ([`crate::digest::LastDigest`]). Time and randomness come
//! from the caller.
//!
//! # The files
//!
//! Each era's pipeline is a file of its own, and the two are siblings: `legacy` (2025-11-25:
//! sessions, and the GET and DELETE of one) and `modern` (2026-07-28). `admission` holds stages 2
//! and 3 and the one era switch, `access` the stages both eras call (the token, the scopes),
//! `dispatch` the one dispatch of a request's method (each era supplies what each method does),
//! `state` the endpoint's state; `live`, `share` and `open` the streams that stay open;
//! `rejection`, `reply`, `stage`, `stream`, `methods`, `tools` and `published` what the
//! pipelines answer with. This file only declares them: no module below it imports it back.
//!
//! # Error bodies
//!
//! Every error body is a JSON-RPC error without an `id` whose `message` is a stable public code
//! (`{"error":{"code":-32000,"message":"session_not_found"},"jsonrpc":"2.0"}`; [`rejection`] has
//! every status and code), every error closes
//! the connection, and no status line, header or body ever contains a bearer token, a session id
//! (except the `MCP-Session-Id` that a successful initialize hands out), a claim or an internal
//! message; the socket tests scan every response they receive for the tokens and session ids they
//! know, and allow a session id only in that one place.

mod access;
mod admission;
mod dispatch;
mod legacy;
pub mod live;
mod methods;
pub mod modern;
mod open;
mod published;
pub mod rejection;
pub mod reply;
mod share;
pub mod stage;
mod state;
mod stream;
pub mod tools;

pub use crate::mcp::session::LastSession;
pub use published::PolicyEdit;
pub use rejection::Rejection;
pub use reply::{Delivery, Reply};
pub use stage::{Decided, ReceiveStage};
pub(crate) use state::KeptByConnection;
pub use state::{Answer, Clock, Endpoint, EndpointConfig, Route};
