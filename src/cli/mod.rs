//! The commands behind `main`: argument reading and the shells that run the library and print
//! what it computes. `serve`, `demo`, `attack`, `inspect` and `bench` print JSON lines on stdout;
//! `lab` prints readable experiment reports and ends with a JSON summary line. Diagnostics, attack
//! listings and the `--trace` wire trace go to stderr.

pub mod args;
pub mod ask;
pub mod attack;
pub mod bench;
pub mod browser;
pub mod case;
pub mod catalogue;
pub mod control;
pub mod demo;
pub mod help;
pub mod inspect;
pub mod lab;
pub mod local;
pub mod out;
pub mod overload;
pub mod probe;
pub mod render;
pub mod scene;
pub mod serve;
pub mod stale;
pub mod watch;

use loopback_mcp_http::json::{self, Object, Value};
use loopback_mcp_http::mcp::revision::Versions;

use local::PROFILE;

/// Prints one JSON line on stdout and flushes it.
pub fn print_line(value: &Value) {
    let mut line = json::encode(value);
    line.push('\n');
    out::write(out::Stream::Stdout, &line);
}

/// Prints text on stdout and flushes it (a reader that has gone ends the program, see `out`).
pub fn print_text(text: &str) {
    out::write(out::Stream::Stdout, text);
}

/// The one summary line of `demo`, `attack` and `lab`: their counts, the profile, the protocol
/// versions when there are some (comma-separated, as `--protocol-versions` takes them), and the
/// verdict.
pub fn print_summary(counts: &[(&'static str, u64)], versions: Option<Versions>, verdict: &str) {
    let mut line: Object = counts.iter().map(|&(k, n)| (k.into(), Value::from(n))).collect();
    line.insert("profile".into(), PROFILE.into());
    if let Some(versions) = versions {
        let mut names = versions.names();
        names.sort_unstable();
        line.insert("protocol_version".into(), names.join(",").into());
    }
    line.insert("verdict".into(), verdict.into());
    print_line(&Value::Object(line));
}
