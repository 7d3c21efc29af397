//! A server on a free loopback port that serves the fixture roles, with freshly drawn tokens:
//! how `serve`, `bench`, `demo`, `attack`, `lab` and the socket tests start one.
//!
//! Part of the shell: it reads the wall clock (the fixture tokens' validity starts now) and the
//! operating system's random generator (the tokens themselves).

use std::fmt;
use std::time::SystemTime;

use super::{RunningServer, ServerConfig, ServerError, bind, fill_os_random};
use crate::auth::fixtures::{Fixture, FixtureError};

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

/// Binds `config`, draws fresh fixture tokens for the bound port (their resource names it), adds
/// the conformance suite's when `config` serves its fixtures, and starts serving them: how `serve`, `bench`, `demo`, `attack`, `lab` and the socket tests start.
pub fn start_with_fixture(config: ServerConfig) -> Result<(RunningServer, Fixture), StartError> {
    let conformance = config.conformance_fixtures;
    let bound = bind(config).map_err(StartError::Bind)?;
    let now = SystemTime::now();
    let mut fixture =
        Fixture::build(bound.port(), now, &mut fill_os_random).map_err(StartError::Fixture)?;
    if conformance {
        fixture
            .add_conformance_tokens(now)
            .map_err(|e| StartError::Fixture(FixtureError::Claims(e)))?;
    }
    let server = bound.start(fixture.policy.clone()).map_err(StartError::Start)?;
    Ok((server, fixture))
}
