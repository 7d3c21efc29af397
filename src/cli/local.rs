//! An in-process server on a free loopback port with the fixture roles: what `demo`, `attack` and
//! `lab` run against, so each starts from a fresh, known state.

use loopback_mcp_http::auth::fixtures::{Fixture, Role};
use loopback_mcp_http::client::mcp::McpClient;
use loopback_mcp_http::client::trace::{Trace, TraceMode};
use loopback_mcp_http::http::TransferCodings;
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::PROTOCOL_VERSION;
use loopback_mcp_http::mcp::revision::Versions;
use loopback_mcp_http::server::fixture::start_with_fixture;
use loopback_mcp_http::server::watch::Watch;
use loopback_mcp_http::server::{RunningServer, ServerConfig};
use std::sync::Arc;

/// The profile name every summary line carries.
pub const PROFILE: &str = "loopback-streamable-http-teaching-profile-v1";

/// The default server of these commands: the default budgets with a few workers.
fn few_workers() -> ServerConfig {
    let limits = Limits { requests_in_processing_max: 8, ..Limits::DEFAULT };
    ServerConfig { limits, ..ServerConfig::default() }
}

/// A running server and the tokens of its roles.
pub struct LocalServer {
    pub server: RunningServer,
    pub fixture: Fixture,
    trace: TraceMode,
    /// The configuration it was started from, which [`LocalServer::restarted`] varies: what it
    /// holds beyond the variation (a watch, the workers) carries over.
    base: ServerConfig,
}

impl LocalServer {
    /// Starts a server with the default budgets and a few workers.
    pub fn start(trace: TraceMode) -> Result<LocalServer, String> {
        LocalServer::start_speaking(trace, TransferCodings::LengthOnly, Versions::LEGACY)
    }

    /// [`LocalServer::start`] for a server that decodes `codings` (as `serve --chunked` does)
    /// and speaks `versions` (as `serve --protocol-versions` does).
    pub fn start_speaking(
        trace: TraceMode,
        codings: TransferCodings,
        versions: Versions,
    ) -> Result<LocalServer, String> {
        let config = ServerConfig { request_codings: codings, versions, ..few_workers() };
        LocalServer::start_configured(trace, config)
    }

    /// [`LocalServer::start_speaking`] with these budgets.
    pub fn start_limited(
        trace: TraceMode,
        codings: TransferCodings,
        versions: Versions,
        limits: Limits,
    ) -> Result<LocalServer, String> {
        let config =
            ServerConfig { limits, request_codings: codings, versions, ..ServerConfig::default() };
        LocalServer::start_configured(trace, config)
    }

    /// [`LocalServer::start`] with `limits` as its budgets, describing each exchange it decides
    /// to `watch` (as `serve --watch` does).
    pub fn start_watched(
        trace: TraceMode,
        watch: Arc<Watch>,
        limits: Limits,
    ) -> Result<LocalServer, String> {
        let config = ServerConfig { watch: Some(watch), limits, ..ServerConfig::default() };
        LocalServer::start_configured(trace, config)
    }

    /// The budgets of [`LocalServer::start`].
    pub fn few_workers_limits() -> Limits {
        few_workers().limits
    }

    /// A new server, tracing as this one does, of the configuration this one was started from
    /// as `vary` changes it (this one keeps running until it is dropped).
    pub fn restarted(
        &self,
        vary: impl FnOnce(ServerConfig) -> ServerConfig,
    ) -> Result<LocalServer, String> {
        let (server, fixture) =
            start_with_fixture(vary(self.base.clone())).map_err(|e| e.to_string())?;
        Ok(LocalServer { server, fixture, trace: self.trace, base: self.base.clone() })
    }

    /// A server of `config` with the fixture roles.
    fn start_configured(trace: TraceMode, config: ServerConfig) -> Result<LocalServer, String> {
        let (server, fixture) = start_with_fixture(config.clone()).map_err(|e| e.to_string())?;
        Ok(LocalServer { server, fixture, trace, base: config })
    }

    /// How its clients trace.
    pub fn trace(&self) -> TraceMode {
        self.trace
    }

    /// A client for `role` with an initialized session (initialize, then initialized).
    pub fn session(&self, role: Role) -> Result<McpClient, String> {
        let mut client = self.client(role);
        client
            .initialize(PROTOCOL_VERSION)
            .map_err(|e| format!("{}: initialize: {e}", role.name()))?;
        client.initialized().map_err(|e| format!("{}: initialized: {e}", role.name()))?;
        Ok(client)
    }

    /// A client for `role`, tracing to stderr when asked. Every fixture token is a trace secret,
    /// so a trace never shows one, whichever client printed it.
    pub fn client(&self, role: Role) -> McpClient {
        let mut trace = Trace::with_mode(self.trace);
        for (_, token) in self.fixture.tokens() {
            trace.secret(token);
        }
        McpClient::new(self.server.address(), self.fixture.token(role), trace)
    }
}
