//! What `bench` was asked for: the flags, the route of each operation, and the server the load
//! goes to (one started in-process, with room for the load, or `--url`).
//!
//! Not here: sending the load (`closed`, `rate`) or reading the answers (`link`).

use std::net::SocketAddr;
use std::time::Duration;

use crate::cli::args::Flags;
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::server::fixture::start_with_fixture;
use loopback_mcp_http::server::{RunningServer, ServerConfig};

/// What one operation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Route {
    Ping,
    Resources,
    Initialize,
    RawPing,
}

impl Route {
    pub(super) fn parse(name: Option<&str>) -> Result<Route, String> {
        match name {
            None | Some("ping") => Ok(Route::Ping),
            Some("resources") => Ok(Route::Resources),
            Some("initialize") => Ok(Route::Initialize),
            Some("raw-ping") => Ok(Route::RawPing),
            Some(other) => Err(format!("unknown route {other:?}")),
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Route::Ping => "ping",
            Route::Resources => "resources",
            Route::Initialize => "initialize",
            Route::RawPing => "raw-ping",
        }
    }
}

/// The shortest and the longest run `--seconds` asks for.
const SECONDS_RANGE: std::ops::RangeInclusive<Duration> =
    Duration::from_millis(100)..=Duration::from_secs(600);

/// `--seconds`: whole seconds, or seconds and up to three decimals (`0.5`), 0.1 to 600.
fn seconds(text: &str) -> Result<Duration, String> {
    let refused = || format!("--seconds must be 0.1 to 600, up to three decimals: {text:?}");
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(fraction) || fraction.len() > 3 {
        return Err(refused());
    }
    let millis = format!("{fraction:0<3}").parse::<u64>().map_err(|_| refused())?;
    let secs = whole.parse::<u64>().map_err(|_| refused())?;
    let duration = Duration::from_secs(secs.min(601)) + Duration::from_millis(millis);
    SECONDS_RANGE.contains(&duration).then_some(duration).ok_or_else(refused)
}

/// The most operations per second `--rate` offers.
const RATE_MAX: u64 = 100_000;

/// What the command line asked for.
pub(super) struct Plan {
    pub(super) connections: usize,
    /// How long the run (after a `--rate` warm-up) lasts.
    pub(super) seconds: Duration,
    pub(super) route: Route,
    pub(super) url: Option<String>,
    pub(super) token: Option<String>,
    /// Operations per second, open-loop; `None` for the closed loop.
    pub(super) rate: Option<u64>,
    /// The server's process, for its CPU time at a rate.
    pub(super) pid: Option<u32>,
    /// 503 answers are load shed, not unexpected.
    pub(super) allow_503: bool,
}

impl Plan {
    pub(super) fn parse(args: &[String]) -> Result<Plan, String> {
        let known = ["connections", "seconds", "route", "url", "token", "rate", "pid"];
        let flags = Flags::parse_with_switches(args, &known, &["allow-503"])?;
        let plan = Plan {
            connections: flags.one("connections")?.unwrap_or(16),
            seconds: seconds(flags.one::<String>("seconds")?.as_deref().unwrap_or("5"))?,
            route: Route::parse(flags.one::<String>("route")?.as_deref())?,
            url: flags.one("url")?,
            token: flags.one("token")?,
            rate: flags.one("rate")?,
            pid: flags.one("pid")?,
            allow_503: flags.has("allow-503"),
        };
        if !(1..=1024).contains(&plan.connections) {
            return Err("--connections must be 1-1024".into());
        }
        if plan.rate.is_some_and(|rate| !(1..=RATE_MAX).contains(&rate)) {
            return Err(format!("--rate must be 1-{RATE_MAX} operations per second"));
        }
        if plan.pid.is_some() && (plan.rate.is_none() || plan.url.is_none()) {
            return Err("--pid goes with --rate and --url".into());
        }
        if plan.route == Route::RawPing && plan.url.is_none() {
            return Err(
                "--route raw-ping needs --url: this server answers pings in a session".into()
            );
        }
        Ok(plan)
    }
}

/// Where the load goes.
pub(super) struct Target {
    pub(super) address: SocketAddr,
    pub(super) token: String,
    /// The in-process server, kept alive for the run; `None` for `--url`.
    pub(super) server: Option<RunningServer>,
}

impl Target {
    /// A server in this process with room for `connections` of one principal, each with a
    /// session that outlives the longest run, and a worker each.
    pub(super) fn in_process(connections: usize) -> Result<Target, String> {
        let limits = Limits {
            sessions_active_max: 1024,
            sessions_per_principal_max: 1024,
            session_ttl: Duration::from_secs(3600),
            requests_in_processing_max: connections.max(64),
            ..Limits::DEFAULT
        };
        let config = ServerConfig { limits, ..ServerConfig::default() };
        let (server, fixture) = start_with_fixture(config).map_err(|e| e.to_string())?;
        Ok(Target {
            address: server.address(),
            token: fixture.token(Role::Full).to_owned(),
            server: Some(server),
        })
    }

    pub(super) fn external(url: &str, token: String) -> Result<Target, String> {
        Ok(Target { address: crate::cli::args::loopback_address(url)?, token, server: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_that_need_another_are_refused_alone() {
        let parse = |words: &[&str]| {
            Plan::parse(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>()).err()
        };
        assert_eq!(parse(&["--rate", "1000"]), None);
        assert!(parse(&["--rate", "0"]).is_some());
        assert!(parse(&["--pid", "1"]).is_some());
        assert!(parse(&["--pid", "1", "--rate", "10"]).is_some());
        assert_eq!(parse(&["--pid", "1", "--rate", "10", "--url", "u", "--token", "t"]), None);
        assert!(parse(&["--route", "raw-ping"]).is_some());
        assert_eq!(parse(&["--route", "raw-ping", "--url", "u", "--token", "t"]), None);
        assert_eq!(parse(&["--allow-503", "--connections", "2"]), None);
    }
}
