//! rmcp-peer: a benchmark peer for loopback-mcp-http, the official Rust MCP SDK server (rmcp 3.11,
//! tokio + axum): a minimal stateful Streamable HTTP server on /mcp that answers `ping` and
//! `initialize` and offers no tools or resources.
//! Stateful (legacy session mode, the default), LocalSessionManager,
//! json_response requested (rmcp only honours it on the stateless path, so with sessions every
//! reply is an event stream: a `retry` event, then the result).
//! Usage: rmcp-peer [PORT] [--no-nodelay] (default port 18083), loopback only.
//! TCP_NODELAY is set on accepted sockets unless --no-nodelay is given:
//! axum::serve does not set it, and the session-mode SSE reply is written in
//! several small chunks, so without it Nagle + delayed ACK add ~40 ms per ping.
use std::sync::Arc;

use axum::serve::ListenerExt;

use rmcp::{
    ServerHandler,
    model::{ServerCapabilities, ServerConfig},
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};

#[derive(Clone, Default)]
struct PingOnly;

impl ServerHandler for PingOnly {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().build())
    }
}

#[tokio::main]
async fn main() {
    let port: u16 = std::env::args().nth(1).and_then(|p| p.parse().ok()).unwrap_or(18083);
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        .with_json_response(true);
    let service: StreamableHttpService<PingOnly, LocalSessionManager> = StreamableHttpService::new(
        || Ok(PingOnly),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let nodelay = !std::env::args().any(|a| a == "--no-nodelay");
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.expect("bind");
    eprintln!("rmcp peer listening on 127.0.0.1:{port} (nodelay={nodelay})");
    let listener = listener.tap_io(move |tcp| {
        if nodelay {
            let _ = tcp.set_nodelay(true);
        }
    });
    axum::serve(listener, router).await.expect("serve");
}
