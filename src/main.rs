//! The command line: a thin dispatcher to the commands in `cli`, which print JSON lines.
//!
//! - `demo`, `attack`, `lab`: the normal path, the refused attacks and the one-change experiments,
//!   each against a fresh in-process server, with `--trace` (lines) or `--trace-bytes` (byte for
//!   byte) for the redacted wire trace;
//! - `serve`: a server on a loopback port, with a control plane on stdin;
//! - `inspect <subject> [FILE]`: one codec's verdict on some bytes, or the connection machine's
//!   steps over a conversation;
//! - `bench`: a closed-loop load generator, `bench codec` for the codecs alone, `bench overload`
//!   for idle connections against probes.
//!
//! Usage errors exit with status 2. Nothing here parses protocol bytes itself.
#![forbid(unsafe_code)]

mod cli;

use std::process::ExitCode;

use loopback_mcp_http::client::trace::TraceMode;

const USAGE: &str = "\
usage: loopback-mcp-http demo [--trace | --trace-bytes]
       loopback-mcp-http attack [--trace | --trace-bytes]
       loopback-mcp-http lab list | lab run <name|all> [--trace | --trace-bytes]
       loopback-mcp-http serve [--port N] [--allow-origin URL]... [--allow-host HOST:PORT]...
                               [--max-sessions N] [--max-sessions-per-principal N]
                               [--session-ttl-secs N] [--workers N] [--bind 127.0.0.1]
                               [--chunked] [--announce FILE]
       loopback-mcp-http control <serve's JSON line file> <revoke|bump-revision> <role>
       loopback-mcp-http inspect <request|response|response-to-head|json|sse|chunked|connection>
                                 [FILE]
       loopback-mcp-http bench [--connections N] [--seconds S] [--route ping|resources|initialize]
                               [--url URL --token T]
       loopback-mcp-http bench codec
       loopback-mcp-http bench overload [--idle N] [--probes P] [--interval-ms MS]
                                        [--reopen-ms MS] [--url URL]

demo      runs the normal path of a session against a fresh server and prints one JSON line
          with the verdict PASS (exit 0) or FAIL.
attack    runs hostile requests and prints BLOCK (exit 0) only when every one is refused with
          its expected status and public error code; each is listed on stderr.
lab       changes one thing in a correct request and compares the predicted status with the
          observed one.
          --trace prints every request and response on stderr, line by line; --trace-bytes
          prints them byte for byte (CR, LF and control bytes escaped, the end of the head
          marked). Both redact tokens and session ids.
serve     runs the server on 127.0.0.1 and prints one JSON line (URL, metadata URL, allowed
          origins, protocol version, a token per fixture role, its control file). Lines on stdin,
          when it is not a terminal, are control commands: `revoke <role>` and
          `bump-revision <role>`, each answered by one JSON line.
          --announce FILE writes that line to FILE instead, created new with mode 0600.
          --chunked also accepts request bodies in the chunked coding (alone: any other
          Transfer-Encoding keeps its 400 or 501), decoded strictly before the JSON is read.
control   sends one control command to a running serve through its owner-only control channel
          and prints the reply; the file is where serve's first line was saved.
inspect   runs one of the project's strict codecs over FILE (or standard input) and prints its
          verdict as one JSON line: the parsed parts, or the public error code, the byte offset
          and (for requests) the status a server would answer with. `inspect connection` prints
          the connection state machine's steps over a whole conversation, one JSON line each;
          `inspect chunked` decodes a chunked body (the bytes after the head).
          Exit status 0 accepted, 1 refused or incomplete.
bench     a closed-loop load generator over keep-alive connections (against an in-process
          server unless --url is given), the codecs alone (bench codec), or idle connections
          against probes (bench overload); one JSON line of figures.

`loopback-mcp-http <command> --help` explains one command. Usage errors exit with status 2.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if cli::help::wants_help(&args) || args.first().is_some_and(|a| a == "help") {
        let asked = if args.first().is_some_and(|a| a == "help") { &args[1..] } else { &args[..] };
        return print_help(cli::help::find(asked));
    }
    let Some((command, rest)) = args.split_first() else {
        return usage_error("expected a command", &args);
    };
    let trace =
        match (rest.iter().any(|a| a == "--trace"), rest.iter().any(|a| a == "--trace-bytes")) {
            (false, false) => TraceMode::Off,
            (true, false) => TraceMode::Lines,
            (false, true) => TraceMode::Bytes,
            (true, true) => {
                return usage_error("--trace and --trace-bytes exclude each other", &args);
            }
        };
    let is_trace = |a: &&String| *a == "--trace" || *a == "--trace-bytes";
    let plain: Vec<String> = rest.iter().filter(|a| !is_trace(a)).cloned().collect();
    let outcome = match command.as_str() {
        "demo" if plain.is_empty() => Ok(cli::demo::run(trace)),
        "attack" if plain.is_empty() => Ok(cli::attack::run(trace)),
        "lab" => cli::lab::run(&plain, trace),
        "demo" | "attack" => Err(format!("{command} takes only --trace or --trace-bytes")),
        "serve" => cli::serve::run(rest),
        "control" => cli::control::run(rest),
        "bench" => cli::bench::run(rest),
        "inspect" => cli::inspect::run(rest),
        other => Err(format!("unknown command {other:?}")),
    };
    outcome.unwrap_or_else(|problem| usage_error(&problem, &args))
}

/// `--help`: the whole usage for the program, a command's own text for a command.
fn print_help(usage: &cli::help::Usage) -> ExitCode {
    if usage.path.is_empty() {
        println!("{USAGE}");
    } else {
        print!("{}", cli::help::text(usage, &cli::lab::experiment_names()));
    }
    ExitCode::SUCCESS
}

/// One line: what was wrong, and the accepted form of the command the arguments name.
fn usage_error(problem: &str, args: &[String]) -> ExitCode {
    eprintln!("{}", cli::help::error_line(problem, cli::help::find(args)));
    ExitCode::from(2)
}
