//! Every byte the commands print goes through here, to stdout or stderr, flushed at once. A
//! reader that has gone (a pipe closed early, as `| head -n 1` closes it) ends the program at
//! once with status 141, the status a shell shows for a program that `SIGPIPE` ended, and prints
//! nothing more: no panic, no backtrace. Rust ignores `SIGPIPE`, and `println!` panics on the
//! error the write then returns; the macros `outln!`, `out!` and `errln!` (in `main.rs`) replace
//! it, and clippy's `print_stdout` and `print_stderr` lints keep it out.
//!
//! Not here: what is printed (each command), or the library's own trace, which ignores a closed
//! stderr and lets the next write here end the program.

/// The exit status of a program whose reader went away: 128 and `SIGPIPE` (13).
#[cfg_attr(test, allow(dead_code))]
pub const READER_GONE: i32 = 128 + 13;

/// The two streams a command prints on.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// Writes `text` on `stream` and flushes it. A closed reader ends the program quietly; any other
/// failure to print is dropped, since there is nowhere left to say it.
#[cfg(not(test))]
pub fn write(stream: Stream, text: &str) {
    use std::io::{self, Write};
    let written = match stream {
        Stream::Stdout => {
            let mut out = io::stdout().lock();
            out.write_all(text.as_bytes()).and_then(|()| out.flush())
        }
        Stream::Stderr => io::stderr().lock().write_all(text.as_bytes()),
    };
    if written.is_err_and(|e| e.kind() == io::ErrorKind::BrokenPipe) {
        std::process::exit(READER_GONE);
    }
}

/// In the binary's unit tests, [`write`] goes through the test harness, which captures what
/// `print!` writes and not what reaches `io::stdout` directly.
#[cfg(test)]
#[allow(clippy::print_stdout, clippy::print_stderr)]
pub fn write(stream: Stream, text: &str) {
    match stream {
        Stream::Stdout => print!("{text}"),
        Stream::Stderr => eprint!("{text}"),
    }
}

/// `text` and a newline on `stream`.
pub fn line(stream: Stream, text: &str) {
    let mut owned = String::with_capacity(text.len() + 1);
    owned.push_str(text);
    owned.push('\n');
    write(stream, &owned);
}
