//! `bench`: a load generator, closed-loop or at a fixed rate, and `bench codec` for the codecs
//! alone.
//!
//! `bench [--connections N] [--seconds S] [--route R] [--rate N [--pid PID]] [--url URL --token T]
//! [--allow-503]` opens N keep-alive connections, each on its own thread, and sends one request
//! after another for S seconds, waiting for each response (a closed loop). Only correct responses count: the
//! expected status, content type and JSON-RPC id. The routes:
//!
//! - `ping`, and `resources` (`resources/list`, answered as an event stream), each on a session
//!   that the connection opens first (`initialize` + `initialized`, not counted as an operation);
//! - `initialize`: the pair initialize + DELETE of the new session is one operation, each
//!   request timed on its own;
//! - `raw-ping`: the same ping request (the token, a placeholder session id as long as this
//!   server's, the protocol version) without opening a session, for a server that checks
//!   nothing, such as tests/bench/raw-limit. Only the status, the content type and a `result` are
//!   checked. This server refuses it (no such session), so it needs `--url`.
//!
//! By default the target is a server started in-process, with room for its load: 1024 sessions
//! in all and for one principal (every bench connection is the same principal), a session
//! lifetime of an hour, and a worker per connection (64 at least). `--url` and `--token` aim it at
//! any loopback server instead. One JSON line: operations and requests per second, latency
//! percentiles, the answers by status, errors (`status_503` counts the 503 answers among them),
//! and the process's resident memory (server and generator together).
//!
//! `--rate N` makes it open-loop, and reads the server's CPU time per operation: see `rate`.
//!
//! Exit status: 0 when every operation was answered as expected; 1 when one was not, or none was
//! answered, with the reason on stderr (`--allow-503` accepts 503 answers, the load a full worker
//! pool sheds); 2 for a usage error. A late or unsent operation is a measurement, not a failure.
//!
//! `bench codec` times the parsers alone (`codec`), and `bench overload` fills the worker pool
//! (`super::overload`).
//!
//! Timings are measurements, never assertions: nothing here decides pass or fail on a speed.
//!
//! The parts: `plan` (the command line, the routes, the target), `link` (one load connection and
//! what counts as a correct answer), `report` (what the connections measured, and the line),
//! `histogram`, `closed` (the closed loop), `rate` (the open loop) and `codec`.
//!
//! Not here: the overload probe (`super::overload`), and any pass or fail on a speed.

mod closed;
mod codec;
mod histogram;
mod link;
mod plan;
mod rate;
mod report;

use std::process::ExitCode;

use closed::load;
use loopback_mcp_http::json::{self, Value};
use plan::{Plan, Target};
use rate::load_at_rate;

/// Runs `bench` with the arguments after it.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    match args.first().map(String::as_str) {
        Some("codec") if args.len() == 1 => return Ok(codec::codec()),
        Some("codec") => return Err("bench codec takes no arguments".into()),
        Some("overload") => return overload(&args[1..]),
        Some(other) if !other.starts_with('-') => {
            let near = super::help::did_you_mean(other, &["codec", "overload"]);
            return Err(format!("unknown bench mode {other:?}{near}"));
        }
        _ => {}
    }
    let plan = Plan::parse(args)?;
    let target = match (&plan.url, &plan.token) {
        (Some(url), Some(token)) => Target::external(url, token.clone())?,
        (None, None) => Target::in_process(plan.connections)?,
        _ => return Err("--url and --token go together".into()),
    };
    let (report, failure) = match plan.rate {
        None => load(&target, &plan)?,
        Some(rate) => load_at_rate(&target, &plan, rate)?,
    };
    super::print_line(&report);
    if let Some(why) = failure {
        errln!("error: {why}");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// `bench overload`: one line, and a failure when no probe was answered at all.
fn overload(args: &[String]) -> Result<ExitCode, String> {
    let report = super::overload::run(args)?;
    super::print_line(&report);
    if report.get("answered_200") == Some(&Value::from(0u64))
        && report.get("answered_503") == Some(&Value::from(0u64))
    {
        let n = |key: &str| report.get(key).map_or_else(String::new, json::encode);
        errln!(
            "error: no probe was answered: {} refused, {} reset, {} closed silently, {} timed out",
            n("refused"),
            n("resets"),
            n("silent_closes"),
            n("timeouts")
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
