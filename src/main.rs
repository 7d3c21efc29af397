//! The command line: a thin shell that reads input, calls the library and prints one JSON line.
//!
//! `inspect <request|response|json|sse> [FILE]` runs one codec over a file (or standard input)
//! and prints its verdict. Exit status: 0 accepted, 1 refused or incomplete, 2 usage error.
//! Nothing here parses protocol bytes itself.
#![forbid(unsafe_code)]

use std::io::{Read, Write};
use std::process::ExitCode;

use loopback_mcp_http::inspect::{self, Subject};
use loopback_mcp_http::json;
use loopback_mcp_http::limits::Limits;

const USAGE: &str = "\
usage: loopback-mcp-http inspect <request|response|json|sse> [FILE]

Runs one of the project's strict codecs over FILE (or standard input) and prints its verdict as
one JSON line: the parsed parts, or the public error code, byte offset and (for requests) the
HTTP status a server would answer with.

exit status: 0 accepted, 1 refused or incomplete, 2 usage error";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["inspect", subject, rest @ ..] if rest.len() <= 1 => {
            let Some(subject) = Subject::from_name(subject) else {
                return usage_error(&format!("unknown subject {subject:?}"));
            };
            run_inspect(subject, rest.first().copied())
        }
        ["-h" | "--help" | "help"] => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => usage_error("expected a command"),
    }
}

fn usage_error(problem: &str) -> ExitCode {
    eprintln!("error: {problem}\n\n{USAGE}");
    ExitCode::from(2)
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

fn run_inspect(subject: Subject, path: Option<&str>) -> ExitCode {
    let input = match read_input(path) {
        Ok(input) => input,
        Err(problem) => {
            eprintln!("error: {problem}");
            return ExitCode::from(2);
        }
    };
    let report = inspect::inspect(subject, &input, &Limits::DEFAULT);
    let mut line = json::encode(&report.value);
    line.push('\n');
    if std::io::stdout().write_all(line.as_bytes()).is_err() {
        return ExitCode::from(2);
    }
    if report.accepted { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
