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
//! `--version` prints the version. Usage errors exit with status 2, with a "did you mean" for a
//! near miss. Nothing here parses protocol bytes itself.
#![forbid(unsafe_code)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

/// `println!` that ends the program quietly when its reader has gone (see `cli::out`).
macro_rules! outln {
    ($($arg:tt)*) => { $crate::cli::out::line($crate::cli::out::Stream::Stdout, &format!($($arg)*)) };
}

/// `print!`, flushed, that ends the program quietly when its reader has gone.
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::out::write($crate::cli::out::Stream::Stdout, &format!($($arg)*)) };
}

/// `eprintln!` that ends the program quietly when its reader has gone.
macro_rules! errln {
    ($($arg:tt)*) => { $crate::cli::out::line($crate::cli::out::Stream::Stderr, &format!($($arg)*)) };
}

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() == 1 && args[0] == "--version" {
        outln!("loopback-mcp-http {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    if cli::help::wants_help(&args) || args.first().is_some_and(|a| a == "help") {
        let asked = if args.first().is_some_and(|a| a == "help") { &args[1..] } else { &args[..] };
        let commands = cli::help::commands();
        if let Some(word) =
            asked.first().filter(|w| !w.starts_with('-') && !commands.contains(&w.as_str()))
        {
            let near = cli::help::did_you_mean(word, &commands);
            return usage_error(&format!("no command {word:?} to explain{near}"), &[]);
        }
        return print_help(cli::help::find(asked));
    }
    let Some((command, rest)) = args.split_first() else {
        return usage_error("expected a command", &args);
    };
    let outcome = match command.as_str() {
        "demo" => cli::demo::run(rest),
        "attack" => cli::attack::run(rest),
        "lab" => cli::lab::run(rest),
        "probe" => cli::probe::run(rest),
        "serve" => cli::serve::run(rest),
        "control" => cli::control::run(rest),
        "bench" => cli::bench::run(rest),
        "inspect" => cli::inspect::run(rest),
        other => {
            let near = cli::help::did_you_mean(other, &cli::help::commands());
            Err(format!("unknown command {other:?}{near}"))
        }
    };
    outcome.unwrap_or_else(|problem| usage_error(&problem, &args))
}

/// `--help`: the whole usage for the program, a command's own text for a command.
fn print_help(usage: &cli::help::Usage) -> ExitCode {
    if usage.path.is_empty() {
        out!("{}", cli::help::overview());
    } else {
        out!("{}", cli::help::text(usage, &cli::lab::experiment_names()));
    }
    ExitCode::SUCCESS
}

/// One line: what was wrong, and the accepted form of the command the arguments name.
fn usage_error(problem: &str, args: &[String]) -> ExitCode {
    errln!("{}", cli::help::error_line(problem, cli::help::find(args)));
    ExitCode::from(2)
}
