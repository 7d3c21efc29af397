//! An in-process server on a free loopback port with the fixture roles: what `demo`, `attack` and
//! `lab` run against, so each starts from a fresh, known state.

use std::fmt;
use std::time::SystemTime;

use crate::auth::fixtures::{Fixture, FixtureError, Role};
use crate::client::mcp::McpClient;
use crate::client::trace::Trace;
use crate::limits::Limits;
use crate::mcp::PROTOCOL_VERSION;
use crate::server::{self, RunningServer, ServerConfig, ServerError};

/// The profile name every summary line carries.
pub const PROFILE: &str = "loopback-streamable-http-teaching-profile-v1";

/// A running server and the tokens of its roles.
pub struct LocalServer {
    pub server: RunningServer,
    pub fixture: Fixture,
    trace: bool,
}

/// Why a server with fixture tokens did not start.
#[derive(Debug)]
pub enum StartError {
    /// The configuration was refused, or the port could not be bound.
    Bind(ServerError),
    /// The fixture tokens could not be drawn.
    Fixture(FixtureError),
    /// The server's threads could not be started.
    Start(ServerError),
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::Bind(e) | StartError::Start(e) => e.fmt(f),
            StartError::Fixture(e) => write!(f, "cannot build the fixture tokens: {e}"),
        }
    }
}

impl std::error::Error for StartError {}

/// Binds `config`, draws fresh fixture tokens for the bound port (their resource names it) and
/// starts serving them: how `serve`, `bench`, `demo`, `attack`, `lab` and the socket tests start.
pub fn start_with_fixture(config: ServerConfig) -> Result<(RunningServer, Fixture), StartError> {
    let bound = server::bind(config).map_err(StartError::Bind)?;
    let fixture = Fixture::build(bound.port(), SystemTime::now(), &mut server::fill_os_random)
        .map_err(StartError::Fixture)?;
    let server = bound.start(fixture.policy.clone()).map_err(StartError::Start)?;
    Ok((server, fixture))
}

impl LocalServer {
    /// Starts a server with the default budgets and a few workers.
    pub fn start(trace: bool) -> Result<LocalServer, String> {
        let limits = Limits { requests_in_processing_max: 8, ..Limits::DEFAULT };
        let config = ServerConfig { limits, ..ServerConfig::default() };
        let (server, fixture) = start_with_fixture(config).map_err(|e| e.to_string())?;
        Ok(LocalServer { server, fixture, trace })
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
        let mut trace = Trace::new(self.trace);
        for (_, token) in self.fixture.tokens() {
            trace.secret(token);
        }
        McpClient::new(self.server.address(), self.fixture.token(role), trace)
    }
}
