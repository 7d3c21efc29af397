//! An in-process server on a free loopback port with the fixture roles: what `demo`, `attack` and
//! `lab` run against, so each starts from a fresh, known state.

use std::time::SystemTime;

use crate::auth::fixtures::{Fixture, Role};
use crate::client::mcp::McpClient;
use crate::client::trace::Trace;
use crate::limits::Limits;
use crate::server::{self, RunningServer, ServerConfig};

/// The profile name every summary line carries.
pub const PROFILE: &str = "loopback-streamable-http-teaching-profile-v1";

/// A running server and the tokens of its roles.
pub struct LocalServer {
    pub server: RunningServer,
    pub fixture: Fixture,
    trace: bool,
}

impl LocalServer {
    /// Starts a server with the default budgets and a few workers.
    pub fn start(trace: bool) -> Result<LocalServer, String> {
        let limits = Limits { requests_in_processing_max: 8, ..Limits::DEFAULT };
        let config = ServerConfig { limits, ..ServerConfig::default() };
        let bound = server::bind(config).map_err(|e| e.to_string())?;
        let fixture = Fixture::build(bound.port(), SystemTime::now(), &mut server::fill_os_random)
            .map_err(|e| format!("cannot build the fixture tokens: {e}"))?;
        let server = bound.start(fixture.policy.clone()).map_err(|e| e.to_string())?;
        Ok(LocalServer { server, fixture, trace })
    }

    /// A client for `role`, tracing to stderr when asked. Every fixture token is a trace secret,
    /// so a trace never shows one, whichever client printed it.
    pub fn client(&self, role: Role) -> McpClient {
        let mut trace = Trace::new(self.trace);
        for (_, token) in self.fixture.tokens() {
            trace.secret(token);
        }
        McpClient::new(self.server.address(), self.fixture.token(role), trace)
    }
}
