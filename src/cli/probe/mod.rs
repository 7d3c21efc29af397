//! `probe URL`: the catalogue's boundary checks against any MCP server on this machine, as a
//! grid that says, row by row, which rule the answer keeps or breaks; `probe compare`: runs
//! side by side, as one HTML page.
//!
//! The URL must name 127.0.0.1 or localhost (`target`); the probe sends hostile bytes, so
//! anything else is refused before a connection is made. It finds what the server speaks, sends
//! each applicable row once on a fresh connection (at most [`peer::REQUESTS_MAX`] requests and
//! [`RUN_TIME_MAX`] in all, each with its deadline), judges each answer by the row's rule, and
//! ends every session it caused. Progress goes to stderr, a line per group; the grid (or one
//! JSON object per row, or a JUnit report) to stdout, every text through one redaction of the
//! secrets the probe holds (`secrets`).
//!
//! Exit 0 when no row has a verdict `--fail-on` names (`deviates` by default), 1 when one
//! does, 2 for a usage error, a port nothing listens on (one line, no row tried) or a server that
//! never answered.
//!
//! Not here: the rows (`catalogue`), how an answer is read (`answer`, `wire`), judged (`judge`,
//! `across`, `hygiene`) or shown (`shown`, `grid`, `report`, `compare`).

mod across;
pub mod answer;
mod compare;
mod discovery;
mod grid;
pub mod hygiene;
pub mod judge;
pub mod peer;
mod probing;
mod report;
mod secrets;
mod shown;
mod streams;
mod target;
pub mod wire;

use std::net::{SocketAddr, TcpStream};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use loopback_mcp_http::client::trace::Trace;
use loopback_mcp_http::mcp::revision::Versions;

use super::args::Flags;
use grid::Row;
use judge::Verdict;
use peer::{Credentials, Peer};
use report::FailOn;

pub use target::loopback_target;

/// The longest a probe runs.
pub const RUN_TIME_MAX: Duration = Duration::from_secs(60);

/// How long the first connect, which finds whether anything listens, may take.
const CONNECT_FIRST: Duration = Duration::from_secs(2);

/// How the rows are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Grid,
    Json,
    Junit,
}

/// `probe URL [flags]`, or `probe compare RUN.jsonl...`.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let (url, rest) = args.split_first().ok_or("probe needs a URL: http://127.0.0.1:PORT/path")?;
    if url == "compare" {
        return compare::run(rest);
    }
    let target = loopback_target(url)?;
    let known = ["token", "other-token", "header", "protocol-versions", "fail-on"];
    let flags = Flags::parse_traced(rest, &known, &["json", "junit", "failing"])?;
    let trace = flags.trace()?;
    let format = match (flags.has("json"), flags.has("junit")) {
        (false, false) => Format::Grid,
        (true, false) => Format::Json,
        (false, true) => Format::Junit,
        (true, true) => return Err("--json and --junit: choose one".into()),
    };
    let fail_on = match flags.one::<String>("fail-on")? {
        Some(name) => FailOn::parse(&name)?,
        None => FailOn::Deviates,
    };
    let versions = match flags.one::<String>("protocol-versions")? {
        Some(list) => Versions::parse(&list).map_err(|e| format!("--protocol-versions: {e}"))?,
        None => Versions::ALL,
    };
    let credentials = Credentials {
        token: flags.one("token")?,
        other_token: flags.one("other-token")?,
        headers: headers(&flags)?,
    };
    if let Some(why) = nothing_listening(target.address) {
        errln!("probe: nothing is listening at {} ({why}); no row was tried", target.address);
        return Ok(ExitCode::from(2));
    }
    let started = Instant::now();
    let mut peer =
        Peer::open(target, credentials, Trace::with_mode(trace), versions, started + RUN_TIME_MAX);
    let rows = probing::probe_all(&mut peer);
    peer.close();
    let rows: Vec<Row> = rows.into_iter().map(|row| row.redacted(&peer.secrets)).collect();
    if peer.answered == 0 {
        // Counts of rows that all went unanswered would only hide this one fact.
        errln!("probe: the server at {} accepted but never answered", peer.target.address);
        return Ok(ExitCode::from(2));
    }
    let summary = peer.secrets.redact(&grid::summary(&rows, peer.sent, started.elapsed()));
    errln!("probe: {summary}");
    write(&rows, (format, fail_on), flags.has("failing"), &summary);
    let failing = rows.iter().any(|r| fail_on.fails(r.verdict));
    Ok(if failing { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// Why nothing takes a connection at `address`, when a first connect is refused outright; `None`
/// when one is taken, or when the connect only times out (a server too busy to accept).
fn nothing_listening(address: SocketAddr) -> Option<std::io::ErrorKind> {
    match TcpStream::connect_timeout(&address, CONNECT_FIRST) {
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => Some(e.kind()),
        Ok(_) | Err(_) => None,
    }
}

/// The extra fields of `--header`, each checked to be a field name and a value.
fn headers(flags: &Flags) -> Result<Vec<(String, String)>, String> {
    let mut headers = Vec::new();
    for header in flags.all("header") {
        // Not repeated whole: the value may be a credential.
        let (name, value) = header.split_once(':').ok_or("--header: the form is 'Name: value'")?;
        let name = name.trim();
        if name.is_empty()
            || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
        {
            return Err("--header: the name before ':' is not a field name".into());
        }
        headers.push((name.to_owned(), value.trim().to_owned()));
    }
    Ok(headers)
}

/// The rows on stdout in `format`; with `failing`, the grid and the JSON rows keep only those
/// that deviate or differ.
fn write(rows: &[Row], (format, fail_on): (Format, FailOn), failing: bool, summary: &str) {
    let shown: Vec<&Row> = rows
        .iter()
        .filter(|r| !failing || matches!(r.verdict, Verdict::Deviates | Verdict::Differs))
        .collect();
    match format {
        Format::Json => {
            for row in shown {
                super::print_line(&row.json());
            }
        }
        Format::Junit => super::print_text(&report::junit(rows, fail_on)),
        Format::Grid => {
            let owned: Vec<Row> = shown.into_iter().cloned().collect();
            super::print_text(&format!("{}{summary}\n", grid::text(&owned)));
        }
    }
}
