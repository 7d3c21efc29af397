//! The MCP 2025-11-25 subset this server speaks, as pure data and functions.
//!
//! - [`jsonrpc`]: one JSON-RPC message per body; requests, notifications, responses.
//! - [`session`]: sessions bound to a principal, their lifetime, capacity and GET-stream events.
//! - [`uri`]: `kb://` resource URIs with the tenant percent-encoded as one segment.
//!
//! Only the stable 2025-11-25 revision is modelled. Nothing here reads a clock, draws randomness or
//! touches a socket.

pub mod jsonrpc;
pub mod session;
pub mod uri;

/// The one protocol revision this server speaks.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// The one MCP endpoint path, for the server and its clients.
pub const MCP_PATH: &str = "/mcp";
