//! The loopback client: the I/O shell on the client side.
//!
//! - [`http`]: one connection; byte-exact requests, responses read with the strict response
//!   parser under the response budget, whole or, for an event stream, one chunk at a time.
//! - [`mcp`]: the MCP 2025-11-25 client on top: initialize (stopping if the server's version is
//!   not one it speaks), the session, JSON and event-stream replies checked for content type and
//!   id, the bearer token only ever in the `Authorization` field.
//! - [`modern`]: the MCP 2026-07-28 client on the same connection (`_meta`, the mirrored
//!   headers, the typed modern errors), and the choice of era for a client that speaks both.
//! - [`mirroring`]: which tools a 2026-07-28 client may call (their `x-mcp-header` annotations
//!   checked), and the mirrored headers it writes for a request; pure.
//! - [`stream`]: an event stream read event by event as it is written, closed to cancel, and a
//!   2025-11-25 call resumed after it.
//! - [`trace`]: the redacted wire trace.

pub mod error;
pub mod http;
pub mod mcp;
pub mod mirroring;
pub mod modern;
pub mod stream;
pub mod trace;

pub use http::{ClientError, ClientResponse, HttpConnection, request};
