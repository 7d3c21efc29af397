//! `inspect`: one codec's verdict on a file or on standard input, as one JSON line, or the
//! 2026-07-28 endpoint's mirrored-header checks on one request (`mirroring`); the engine is
//! [`loopback_mcp_http::inspect`]. Exit status: 0 accepted (for `mirroring`, every mirrored header
//! agrees), 1 refused or incomplete, 2 usage or input error.

use std::io::Read;
use std::process::ExitCode;
use std::time::Instant;

use loopback_mcp_http::inspect::{self, Subject};
use loopback_mcp_http::json;
use loopback_mcp_http::limits::Limits;

/// Runs `inspect <subject> [FILE]` with the arguments after `inspect`.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let (subject, path) = match args {
        [subject] => (subject, None),
        [subject, path] => (subject, Some(path.as_str())),
        _ => return Err("inspect takes a subject and at most one file".to_owned()),
    };
    if subject == "connection" {
        return Ok(run_conversation(path));
    }
    let Some(subject) = Subject::from_name(subject) else {
        let mut names: Vec<&str> = Subject::ALL.iter().map(|s| s.name()).collect();
        names.push("connection");
        let near = super::help::did_you_mean(subject, &names);
        return Err(format!("unknown subject {subject:?}{near}"));
    };
    Ok(run_inspect(subject, path))
}

/// Reads the input, refusing one larger than any budget could need, so a huge file cannot
/// exhaust memory.
fn read_input(path: Option<&str>) -> Result<Vec<u8>, String> {
    let l = Limits::DEFAULT;
    let cap = l.response_bytes_max.max(l.request_head_bytes_max() + l.request_body_bytes_max);
    let mut input = Vec::new();
    let take = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    let read = match path {
        None | Some("-") => std::io::stdin().take(take).read_to_end(&mut input),
        Some(path) => std::fs::File::open(path).and_then(|f| f.take(take).read_to_end(&mut input)),
    };
    read.map_err(|e| format!("cannot read input: {e}"))?;
    if input.len() > cap {
        return Err(format!("input larger than {cap} bytes"));
    }
    Ok(input)
}

/// `inspect connection`: every step of the machine over the input, as JSON lines.
fn run_conversation(path: Option<&str>) -> ExitCode {
    let input = match read_input(path) {
        Ok(input) => input,
        Err(problem) => {
            errln!("error: {problem}");
            return ExitCode::from(2);
        }
    };
    let report = inspect::connection(&input, &Limits::DEFAULT, Instant::now());
    let mut out = String::new();
    for step in &report.steps {
        out.push_str(&json::encode(step));
        out.push('\n');
    }
    super::print_text(&out);
    if report.accepted { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

fn run_inspect(subject: Subject, path: Option<&str>) -> ExitCode {
    let input = match read_input(path) {
        Ok(input) => input,
        Err(problem) => {
            errln!("error: {problem}");
            return ExitCode::from(2);
        }
    };
    let report = inspect::inspect(subject, &input, &Limits::DEFAULT);
    let mut line = json::encode(&report.value);
    line.push('\n');
    super::print_text(&line);
    if report.accepted { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
