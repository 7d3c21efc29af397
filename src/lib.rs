//! loopback-mcp-http: the MCP 2025-11-25 Streamable HTTP transport and an OAuth 2.1 resource
//! server boundary, made real on 127.0.0.1 with raw sockets and hand-written codecs.
#![forbid(unsafe_code)]

mod decimal;
pub mod http;
pub mod json;
pub mod limits;
pub mod sse;
