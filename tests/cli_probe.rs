//! `probe` as a black box: the built binary against this server in each era setting (every MUST
//! holds, at least 40 rows, no token anywhere in what it prints), its refusal of any URL off
//! this machine, and a server that never answers.

mod common;

use std::process::{Command, Output};

use common::server::{TestServer, start_with};
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::revision::{Revision, Versions};
use loopback_mcp_http::server::ServerConfig;

const BIN: &str = env!("CARGO_BIN_EXE_loopback-mcp-http");

fn probe(args: &[&str]) -> Output {
    Command::new(BIN).arg("probe").args(args).output().expect("run the binary")
}

/// The rows of a `--json` run.
fn rows(output: &Output) -> Vec<Value> {
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .map(|l| json::decode(l.as_bytes(), Limits::DEFAULT.json_depth_max).expect("a JSON row"))
        .collect()
}

fn text<'v>(row: &'v Value, key: &str) -> &'v str {
    row.get(key).and_then(Value::as_str).unwrap_or_else(|| panic!("no {key}: {row:?}"))
}

/// The longest run of lowercase hexadecimal digits: tokens are 64 of them, session ids 48.
fn longest_hex_run(text: &str) -> usize {
    text.split(|c: char| !matches!(c, '0'..='9' | 'a'..='f')).map(str::len).max().unwrap_or(0)
}

fn server((versions, conformance_fixtures): (Versions, bool)) -> TestServer {
    start_with(ServerConfig { versions, conformance_fixtures, ..ServerConfig::default() })
}

#[test]
fn this_server_keeps_every_must_in_each_era_setting_and_no_token_is_printed() {
    let settings = [
        (Versions::LEGACY, false),
        (Versions::only(Revision::V2026_07_28), false),
        (Versions::ALL, false),
        (Versions::ALL, true),
    ];
    let servers: Vec<TestServer> = settings.iter().map(|v| server(*v)).collect();
    let outputs: Vec<Output> = std::thread::scope(|scope| {
        let runs: Vec<_> = servers
            .iter()
            .map(|t| {
                scope.spawn(move || {
                    let url = format!("http://{}/mcp", t.server.address());
                    let (full, other) = (t.token(Role::Full), t.token(Role::OtherSubject));
                    let args = ["--token", full, "--other-token", other, "--json", "--trace-bytes"];
                    probe(&[&[url.as_str()][..], &args[..]].concat())
                })
            })
            .collect();
        runs.into_iter().map(|r| r.join().expect("a probe's thread")).collect()
    });
    for ((versions, t), output) in settings.iter().zip(&servers).zip(&outputs) {
        assert_kept_and_clean(&format!("{versions:?}"), t, output);
    }
    // What each setting applies differs: the modern rows only where 2026-07-28 is spoken, the
    // cancellations only with sessions, the step-up rows only with the suite's fixtures.
    let applied = |output: &Output, case: &str| {
        rows(output).iter().any(|r| text(r, "case") == case && text(r, "verdict") == "holds")
    };
    let cases = [
        "server/discover",
        "an unknown MCP-Session-Id",
        "cancellation from another principal",
        "a fixture tool with an under-scoped token",
        "a template id the token's scopes do not name",
    ];
    let held: Vec<Vec<bool>> =
        outputs.iter().map(|o| cases.iter().map(|case| applied(o, case)).collect()).collect();
    assert_eq!(
        held,
        [
            [false, true, true, false, false],
            [true, false, false, false, false],
            [true, true, true, false, false],
            [true, true, true, true, true],
        ]
    );
}

/// A probe of this server: exit 0, every row complete, no MUST broken, no token or session id
/// printed (the byte trace redacts them), and no session left behind.
fn assert_kept_and_clean(setting: &str, t: &TestServer, output: &Output) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{setting}: {stderr}");
    let rows = rows(output);
    assert!(rows.len() >= 40, "{setting}: {} rows", rows.len());
    for row in &rows {
        for key in ["case", "sent", "rule", "source", "level", "observed", "verdict"] {
            assert!(!text(row, key).is_empty(), "{setting}: {key} of {row:?}");
        }
        let verdict = text(row, "verdict");
        assert!(verdict != "deviates" && verdict != "unreachable", "{setting}: {row:?}");
        if text(row, "level") == "MUST" {
            assert!(verdict == "holds" || verdict == "not_applicable", "{setting}: {row:?}");
        }
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    for secret in [t.token(Role::Full), t.token(Role::OtherSubject)] {
        assert!(!stdout.contains(secret) && !stderr.contains(secret), "{setting}: a token");
    }
    assert!(longest_hex_run(&stdout) < 32 && longest_hex_run(&stderr) < 32, "{setting}");
    assert!(stderr.contains("Authorization: [redacted]"), "{setting}: the trace");
    assert!(stderr.lines().any(|l| l.starts_with("probe: HTTP framing: ")), "{setting}");
    let live = t.server.endpoint().live_sessions(std::time::Instant::now());
    assert_eq!(live, 0, "{setting}: a session left");
}

#[test]
fn a_url_off_this_machine_is_refused_before_any_connection() {
    let cases: [(&str, &str); 5] = [
        ("http://example.invalid:80/mcp", "\"example.invalid\" is not this machine"),
        ("https://127.0.0.1:8000/mcp", "is not an http:// URL"),
        ("http://127.0.0.1/mcp", "names no port"),
        ("http://10.0.0.1.example.invalid:8000/mcp", "is not this machine"),
        ("http://127.0.0.1:8000/mcp?token=x", "takes no query"),
    ];
    for (url, message) in cases {
        let output = probe(&[url]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{url}: {stderr}");
        assert!(stderr.contains(message), "{url}: {stderr}");
        let off = !url.contains('?');
        assert_eq!(stderr.contains("only to this machine"), off, "{url}: {stderr}");
        assert!(!stderr.contains("token=x"), "a query is never repeated: {stderr}");
        assert!(output.stdout.is_empty(), "{url}");
    }
    let help = probe(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("usage: loopback-mcp-http probe URL"));
}

#[test]
fn a_server_that_never_answers_exits_2() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let output = probe(&[&format!("http://127.0.0.1:{port}/mcp")]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("never answered"), "{stderr}");
}
