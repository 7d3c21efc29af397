//! The MCP 2025-11-25 subset this server speaks, as pure data and functions.
//!
//! - [`jsonrpc`]: one JSON-RPC message per body; requests, notifications, responses.
//! - [`requests`]: the messages a client sends, built as values.
//! - [`session`]: sessions bound to a principal, their lifetime and capacity.
//! - [`stream`]: a session's event streams: event ids as positions, the messages kept for
//!   resumption, and what a `Last-Event-ID` resumes.
//! - [`uri`]: `kb://` resource URIs with the tenant percent-encoded as one segment.
//!
//! The constants and the session-id rule below are the wire vocabulary the server and the client
//! share; the client needs nothing else from here.
//!
//! Only the stable 2025-11-25 revision is modelled. Nothing here reads a clock, draws randomness or
//! touches a socket.

pub mod jsonrpc;
pub mod requests;
pub mod session;
pub mod stream;
pub mod uri;

/// The one protocol revision this server speaks.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// The one MCP endpoint path, for the server and its clients.
pub const MCP_PATH: &str = "/mcp";

/// The longest session id MCP allows.
pub const SESSION_ID_BYTES_MAX: usize = 128;

/// True for a session id as MCP 2025-11-25 allows them: 1 to 128 visible ASCII characters
/// (0x21 to 0x7E). The wire rule both sides check: the server on every request, the client on
/// the id `initialize` hands out.
pub fn is_valid_session_id(id: &[u8]) -> bool {
    (1..=SESSION_ID_BYTES_MAX).contains(&id.len()) && id.iter().all(|b| (0x21..=0x7e).contains(b))
}
