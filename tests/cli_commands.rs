//! `demo`, `attack`, `lab` and `inspect` as black boxes: the built binary, its stdout line, its exit
//! status, and a `--trace` that never shows a token or a session id.

use std::process::{Command, Output};

use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;

const BIN: &str = env!("CARGO_BIN_EXE_loopback-mcp-http");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run the binary")
}

/// The last stdout line as JSON.
fn summary(output: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or("");
    json::decode(last.as_bytes(), Limits::DEFAULT.json_depth_max)
        .unwrap_or_else(|e| panic!("not a JSON line ({e}): {stdout}"))
}

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The longest run of lowercase hexadecimal digits: tokens are 64 and session ids 48 of them.
fn longest_hex_run(text: &str) -> usize {
    text.split(|c: char| !matches!(c, '0'..='9' | 'a'..='f')).map(str::len).max().unwrap_or(0)
}

#[test]
fn demo_passes_and_counts_its_round_trips() {
    let output = run(&["demo"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let line = summary(&output);
    assert_eq!(
        json::encode(&line),
        r#"{"http_round_trips":9,"profile":"loopback-streamable-http-teaching-profile-v1","protocol_version":"2025-11-25","verdict":"PASS"}"#
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 1, "exactly one line");
}

#[test]
fn attack_blocks_every_attack_and_lists_each() {
    let output = run(&["attack"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let line = summary(&output);
    assert_eq!(text(&line, "verdict"), "BLOCK");
    let blocked =
        line.get("blocked_attacks").and_then(Value::as_number).and_then(|n| n.as_u64()).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().filter(|l| l.starts_with("blocked")).count() as u64, blocked);
    assert_eq!(blocked, 25, "README names 25 attacks");
    assert!(!stderr.contains("GOT THROUGH"));
    for named in [
        "foreign Origin",
        "another resource",
        "another subject's token on a live session",
        "revoked token on a live session",
        "Transfer-Encoding with Content-Length",
        "oversize header",
        "query string",
        "revision change",
    ] {
        assert!(stderr.contains(named), "no attack mentions {named:?}");
    }
}

#[test]
fn lab_runs_every_experiment_as_predicted() {
    let output = run(&["lab", "run", "all"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stdout));
    let line = summary(&output);
    assert_eq!(text(&line, "verdict"), "PASS");
    assert_eq!(line.get("mismatches"), Some(&Value::from(0u64)));
    let list = run(&["lab", "list"]);
    let names: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    assert_eq!(names.len(), 11);
    let one = run(&["lab", "run", &names[0]]);
    assert_eq!((one.status.code(), text(&summary(&one), "verdict")), (Some(0), "PASS"));
    assert_eq!(run(&["lab", "run", "no-such-experiment"]).status.code(), Some(2));
}

#[test]
fn traces_show_the_wire_but_never_a_token_or_session_id() {
    for args in
        [&["demo", "--trace"][..], &["attack", "--trace"], &["lab", "run", "all", "--trace"]]
    {
        let output = run(args);
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("> POST /mcp HTTP/1.1") && stderr.contains("< HTTP/1.1 200 OK"),
            "{args:?}: no wire trace"
        );
        assert!(stderr.contains("Authorization: [redacted]"), "{args:?}");
        assert!(stderr.contains("MCP-Session-Id: [redacted]"), "{args:?}");
        assert!(longest_hex_run(&stderr) < 32, "{args:?}: a token or session id in the trace");
        assert!(longest_hex_run(&String::from_utf8_lossy(&output.stdout)) < 32, "{args:?}: stdout");
    }
}

#[test]
fn usage_errors_exit_2() {
    for args in [&[][..], &["frobnicate"], &["demo", "extra"], &["lab"], &["inspect", "yaml"]] {
        assert_eq!(run(args).status.code(), Some(2), "{args:?}");
    }
}
