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
fn a_port_nothing_listens_on_gets_one_line_and_exit_2() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let output = probe(&[&format!("http://127.0.0.1:{port}/mcp")]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let expected = format!(
        "probe: nothing is listening at 127.0.0.1:{port} (connection refused); no row was tried\n"
    );
    assert_eq!(stderr, expected);
    assert!(output.stdout.is_empty());
}

#[test]
fn a_server_that_accepts_and_never_answers_gets_one_line_and_exit_2() {
    // Every connection is accepted and closed unread: a listener, but no answer.
    let port = scripted(|_| Vec::new());
    let output = probe(&[&format!("http://127.0.0.1:{port}/mcp")]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let last = stderr.lines().last().unwrap_or_default();
    assert_eq!(last, format!("probe: the server at 127.0.0.1:{port} accepted but never answered"));
    assert!(output.stdout.is_empty());
}

/// A server on a thread of its own that answers every request with `answer(request)`, then
/// closes; its port.
fn scripted(answer: fn(&[u8]) -> Vec<u8>) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                use std::io::{Read, Write};
                let _ = stream.set_read_timeout(Some(std::time::Duration::from_millis(300)));
                let mut request = Vec::new();
                let mut chunk = [0u8; 65536];
                while let Ok(n @ 1..) = stream.read(&mut chunk) {
                    request.extend_from_slice(&chunk[..n]);
                    if request.windows(4).any(|w| w == b"\r\n\r\n") {
                        break;
                    }
                }
                let _ = stream.write_all(&answer(&request));
            });
        }
    });
    port
}

/// The tokens the hostile server echoes: one shaped like a public code, one not.
const ECHOED: [&str; 2] = ["leaked_secret_value", "b64+token/with.dots~9"];

/// Every answer a 401 that repeats the tokens in every field, parameter name, value and message.
fn echoing(_: &[u8]) -> Vec<u8> {
    let [a, b] = ECHOED;
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":-32000,"message":"{a}","data":"{b}"}},"result":{{"protocolVersion":"{a}"}}}}"#
    );
    format!(
        "HTTP/1.1 401 {a}\r\nWWW-Authenticate: {a} {a}=\"{b}\", Bearer {a}=\"{b}\", error=\"{a}\", resource_metadata=\"http://127.0.0.1:1/{b}\"\r\nX-{a}: {b}\r\nMcp-Session-Id: {b}\r\nAllow: {a}, GET\r\nContent-Type: application/{a}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

#[test]
fn a_server_that_echoes_the_token_everywhere_gets_it_printed_by_no_flag() {
    let url = format!("http://127.0.0.1:{}/mcp", scripted(echoing));
    let header = format!("X-Key: {}", ECHOED[1]);
    let flag_sets: [&[&str]; 7] = [
        &[],
        &["--json"],
        &["--junit"],
        &["--failing"],
        &["--trace"],
        &["--trace-bytes", "--json"],
        &["--failing", "--fail-on", "differs", "--trace-bytes"],
    ];
    for flags in flag_sets {
        let base = ["--token", ECHOED[0], "--other-token", ECHOED[1], "--header", header.as_str()];
        let output = probe(&[&[url.as_str()][..], &base[..], flags].concat());
        let printed = [output.stdout, output.stderr].concat();
        let printed = String::from_utf8_lossy(&printed);
        assert!(!printed.is_empty(), "{flags:?}");
        for secret in ECHOED {
            assert!(!printed.contains(secret), "{flags:?} printed {secret}: {printed}");
        }
    }
}

/// Every answer a 200 whose body is a page, not a JSON-RPC message.
fn unreadable(_: &[u8]) -> Vec<u8> {
    let body = "<html>hello</html>";
    format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).into_bytes()
}

#[test]
fn a_server_whose_answers_cannot_be_read_fails_the_probe() {
    let url = format!("http://127.0.0.1:{}/mcp", scripted(unreadable));
    let output = probe(&[&url, "--json"]);
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let verdicts: Vec<(String, String)> = rows(&output)
        .iter()
        .map(|r| (text(r, "id").to_owned(), text(r, "verdict").to_owned()))
        .filter(|(id, _)| id.ends_with("-readable") || id == "answer-types")
        .collect();
    let expected = [
        ("initialize-readable", "deviates"),
        ("discover-readable", "deviates"),
        ("answer-types", "deviates"),
    ];
    assert_eq!(verdicts, expected.map(|(i, v)| (i.to_owned(), v.to_owned())));
}

#[test]
fn a_port_that_is_not_only_digits_is_refused_before_any_connection() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    for url in [format!("http://127.0.0.1:+{port}/mcp"), format!("http://127.0.0.1: {port}/mcp")] {
        let output = probe(&[&url]);
        assert_eq!(output.status.code(), Some(2), "{url}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("is not a port"), "{url}");
    }
    assert!(listener.accept().is_err(), "a connection was made");
}

#[test]
fn the_reports_are_junit_for_ci_and_the_failing_rows_for_the_eye() {
    let url = format!("http://127.0.0.1:{}/mcp", scripted(unreadable));
    let junit = probe(&[&url, "--junit"]);
    let xml = String::from_utf8_lossy(&junit.stdout);
    assert!(
        xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"probe\"")
    );
    let cases = xml.matches("<testcase ").count();
    let json = rows(&probe(&[&url, "--json"]));
    assert_eq!(cases, json.len());
    let deviating = json.iter().filter(|r| text(r, "verdict") == "deviates").count();
    assert_eq!(xml.matches("<failure ").count(), deviating);
    let skipped = json
        .iter()
        .filter(|r| matches!(text(r, "verdict"), "not_applicable" | "unreachable"))
        .count();
    assert_eq!(xml.matches("<skipped ").count(), skipped);
    let failing = probe(&[&url, "--failing"]);
    let grid = String::from_utf8_lossy(&failing.stdout);
    let flagged =
        json.iter().filter(|r| matches!(text(r, "verdict"), "deviates" | "differs")).count();
    let shown =
        grid.lines().filter(|l| l.starts_with("deviates ") || l.starts_with("differs ")).count();
    assert_eq!(shown, flagged);
    assert!(!grid.lines().any(|l| l.starts_with("holds ") || l.starts_with("not_applicable ")));
    assert!(grid.trim_end().lines().last().unwrap().contains(" rows: "), "{grid}");
    assert_eq!(probe(&[&url, "--json", "--junit"]).status.code(), Some(2));
}

#[test]
fn a_probe_holds_at_most_two_sessions_of_one_principal_at_a_time() {
    // A server that takes no third session of a principal answers every row as one that takes
    // four: the probe never asks it for a third.
    let limits = Limits { sessions_per_principal_max: 2, ..Limits::DEFAULT };
    let tight = start_with(ServerConfig { limits, ..ServerConfig::default() });
    let usual = server((Versions::LEGACY, false));
    let verdicts = |t: &TestServer, other: bool| {
        let url = format!("http://{}/mcp", t.server.address());
        let mut args = vec![url.as_str(), "--json", "--token", t.token(Role::Full)];
        if other {
            args.extend(["--other-token", t.token(Role::OtherSubject)]);
        }
        let output = probe(&args);
        let rows = rows(&output);
        rows.iter().map(|r| format!("{} {}", text(r, "id"), text(r, "verdict"))).collect::<Vec<_>>()
    };
    for other in [true, false] {
        assert_eq!(verdicts(&tight, other), verdicts(&usual, other), "--other-token {other}");
    }
}
