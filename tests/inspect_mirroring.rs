//! `inspect mirroring` as a black box, and against a live server: one table of whole 2026-07-28
//! requests, each with the exact JSON line and exit status the binary prints, and each sent to a
//! server started with `--protocol-versions 2026-07-28` to check that the answer the line
//! predicts (status, JSON-RPC code, message, `data`, id) is the answer the server gives.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::server::*;
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::{ClientResponse, request};
use loopback_mcp_http::endpoint::tools::Tool;
use loopback_mcp_http::inspect::{self, Subject};
use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::method::Offer;
use loopback_mcp_http::mcp::revision::{Revision, Versions};
use loopback_mcp_http::server::ServerConfig;

const BIN: &str = env!("CARGO_BIN_EXE_loopback-mcp-http");

/// The `_meta` every modern request carries.
macro_rules! meta {
    () => {
        r#""_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#
    };
}

/// A `tools/call` of `tenant_documents` with `arguments`.
macro_rules! tenant_call {
    ($arguments:literal) => {
        concat!(
            r#"{"id":7,"jsonrpc":"2.0","method":"tools/call","params":{"#,
            meta!(),
            r#","arguments":"#,
            $arguments,
            r#","name":"tenant_documents"}}"#
        )
    };
}

/// One request: what it shows, its body, its fields after the standard ones, the line
/// `inspect mirroring` prints and its exit status.
struct Row {
    behaviour: &'static str,
    body: &'static str,
    fields: &'static [(&'static str, &'static str)],
    line: &'static str,
    exit: i32,
}

const STANDARD: [(&str, &str); 3] = [
    ("MCP-Protocol-Version", "2026-07-28"),
    ("Mcp-Method", "tools/call"),
    ("Mcp-Name", "tenant_documents"),
];

const ROWS: [Row; 9] = [
    Row {
        behaviour: "a call whose every mirrored header agrees, one of them a sentinel",
        body: tenant_call!(r#"{"limit":5,"tenant":"acmé"}"#),
        fields: &[
            STANDARD[0],
            STANDARD[1],
            STANDARD[2],
            ("Mcp-Param-Tenant", "=?base64?YWNtw6k=?="),
            ("Mcp-Param-Limit", "5"),
        ],
        line: r#"{"checks":[{"body":"2026-07-28","checked":"before_authentication","header":"MCP-Protocol-Version","sent":["2026-07-28"],"verdict":"agrees"},{"body":"tools/call","checked":"before_authentication","header":"Mcp-Method","sent":["tools/call"],"verdict":"agrees"},{"body":"tenant_documents","checked":"before_authentication","header":"Mcp-Name","sent":["tenant_documents"],"verdict":"agrees"},{"body":5,"checked":"after_authentication","header":"Mcp-Param-Limit","sent":["5"],"verdict":"agrees"},{"body":"acmé","checked":"after_authentication","decoded":"acmé","header":"Mcp-Param-Tenant","sent":["=?base64?YWNtw6k=?="],"verdict":"agrees"}],"tool":"tenant_documents","verdict":"agrees"}"#,
        exit: 0,
    },
    Row {
        behaviour: "an Mcp-Method naming another method disagrees",
        body: tenant_call!(r#"{"limit":5,"tenant":"acme"}"#),
        fields: &[
            STANDARD[0],
            ("Mcp-Method", "tools/list"),
            STANDARD[2],
            ("Mcp-Param-Tenant", "acme"),
            ("Mcp-Param-Limit", "5"),
        ],
        line: r#"{"checks":[{"body":"2026-07-28","checked":"before_authentication","header":"MCP-Protocol-Version","sent":["2026-07-28"],"verdict":"agrees"},{"body":"tools/call","checked":"before_authentication","header":"Mcp-Method","sent":["tools/list"],"verdict":"header_body_mismatch"},{"body":"tenant_documents","checked":"before_authentication","header":"Mcp-Name","sent":["tenant_documents"],"verdict":"agrees"},{"body":5,"checked":"after_authentication","header":"Mcp-Param-Limit","sent":["5"],"verdict":"agrees"},{"body":"acme","checked":"after_authentication","header":"Mcp-Param-Tenant","sent":["acme"],"verdict":"agrees"}],"code":"header_mismatch","server_would_answer":{"body":{"error":{"code":-32020,"data":{"header":"Mcp-Method","reason":"header_body_mismatch"},"message":"header_mismatch"},"id":7,"jsonrpc":"2.0"},"checked":"before_authentication","status":400},"tool":"tenant_documents","verdict":"refused"}"#,
        exit: 1,
    },
    Row {
        behaviour: "a repeated Mcp-Name is refused even when both lines agree",
        body: tenant_call!(r#"{"tenant":"acme"}"#),
        fields: &[STANDARD[0], STANDARD[1], STANDARD[2], STANDARD[2], ("Mcp-Param-Tenant", "acme")],
        line: r#"{"checks":[{"body":"2026-07-28","checked":"before_authentication","header":"MCP-Protocol-Version","sent":["2026-07-28"],"verdict":"agrees"},{"body":"tools/call","checked":"before_authentication","header":"Mcp-Method","sent":["tools/call"],"verdict":"agrees"},{"body":"tenant_documents","checked":"before_authentication","header":"Mcp-Name","sent":["tenant_documents","tenant_documents"],"verdict":"header_repeated"},{"checked":"after_authentication","header":"Mcp-Param-Limit","sent":[],"verdict":"agrees"},{"body":"acme","checked":"after_authentication","header":"Mcp-Param-Tenant","sent":["acme"],"verdict":"agrees"}],"code":"header_mismatch","server_would_answer":{"body":{"error":{"code":-32020,"data":{"header":"Mcp-Name","reason":"header_repeated"},"message":"header_mismatch"},"id":7,"jsonrpc":"2.0"},"checked":"before_authentication","status":400},"tool":"tenant_documents","verdict":"refused"}"#,
        exit: 1,
    },
    Row {
        behaviour: "a sentinel whose base64 lacks its padding is refused, after the token",
        body: tenant_call!(r#"{"tenant":"acme"}"#),
        fields: &[STANDARD[0], STANDARD[1], STANDARD[2], ("Mcp-Param-Tenant", "=?base64?YWNtZQ?=")],
        line: r#"{"checks":[{"body":"2026-07-28","checked":"before_authentication","header":"MCP-Protocol-Version","sent":["2026-07-28"],"verdict":"agrees"},{"body":"tools/call","checked":"before_authentication","header":"Mcp-Method","sent":["tools/call"],"verdict":"agrees"},{"body":"tenant_documents","checked":"before_authentication","header":"Mcp-Name","sent":["tenant_documents"],"verdict":"agrees"},{"checked":"after_authentication","header":"Mcp-Param-Limit","sent":[],"verdict":"agrees"},{"body":"acme","checked":"after_authentication","header":"Mcp-Param-Tenant","sent":["=?base64?YWNtZQ?="],"verdict":"header_base64_invalid"}],"code":"header_mismatch","server_would_answer":{"body":{"error":{"code":-32020,"data":{"header":"Mcp-Param-Tenant","reason":"header_base64_invalid"},"message":"header_mismatch"},"id":7,"jsonrpc":"2.0"},"checked":"after_authentication","status":400},"tool":"tenant_documents","verdict":"refused"}"#,
        exit: 1,
    },
    Row {
        behaviour: "a body value shaped like the sentinel does not match its own literal text",
        body: tenant_call!(r#"{"tenant":"=?base64?YWNtZQ==?="}"#),
        fields: &[
            STANDARD[0],
            STANDARD[1],
            STANDARD[2],
            ("Mcp-Param-Tenant", "=?base64?YWNtZQ==?="),
        ],
        line: r#"{"checks":[{"body":"2026-07-28","checked":"before_authentication","header":"MCP-Protocol-Version","sent":["2026-07-28"],"verdict":"agrees"},{"body":"tools/call","checked":"before_authentication","header":"Mcp-Method","sent":["tools/call"],"verdict":"agrees"},{"body":"tenant_documents","checked":"before_authentication","header":"Mcp-Name","sent":["tenant_documents"],"verdict":"agrees"},{"checked":"after_authentication","header":"Mcp-Param-Limit","sent":[],"verdict":"agrees"},{"body":"=?base64?YWNtZQ==?=","checked":"after_authentication","decoded":"acme","header":"Mcp-Param-Tenant","sent":["=?base64?YWNtZQ==?="],"verdict":"header_body_mismatch"}],"code":"header_mismatch","server_would_answer":{"body":{"error":{"code":-32020,"data":{"header":"Mcp-Param-Tenant","reason":"header_body_mismatch"},"message":"header_mismatch"},"id":7,"jsonrpc":"2.0"},"checked":"after_authentication","status":400},"tool":"tenant_documents","verdict":"refused"}"#,
        exit: 1,
    },
    Row {
        behaviour: "an Mcp-Param left out while the body has its argument is missing",
        body: tenant_call!(r#"{"limit":1,"tenant":"acme"}"#),
        fields: &[STANDARD[0], STANDARD[1], STANDARD[2], ("Mcp-Param-Tenant", "acme")],
        line: r#"{"checks":[{"body":"2026-07-28","checked":"before_authentication","header":"MCP-Protocol-Version","sent":["2026-07-28"],"verdict":"agrees"},{"body":"tools/call","checked":"before_authentication","header":"Mcp-Method","sent":["tools/call"],"verdict":"agrees"},{"body":"tenant_documents","checked":"before_authentication","header":"Mcp-Name","sent":["tenant_documents"],"verdict":"agrees"},{"body":1,"checked":"after_authentication","header":"Mcp-Param-Limit","sent":[],"verdict":"header_missing"},{"body":"acme","checked":"after_authentication","header":"Mcp-Param-Tenant","sent":["acme"],"verdict":"agrees"}],"code":"header_mismatch","server_would_answer":{"body":{"error":{"code":-32020,"data":{"header":"Mcp-Param-Limit","reason":"header_missing"},"message":"header_mismatch"},"id":7,"jsonrpc":"2.0"},"checked":"after_authentication","status":400},"tool":"tenant_documents","verdict":"refused"}"#,
        exit: 1,
    },
    Row {
        behaviour: "a call of an unknown tool has no Mcp-Param to check",
        body: concat!(
            r#"{"id":7,"jsonrpc":"2.0","method":"tools/call","params":{"#,
            meta!(),
            r#","arguments":{"tenant":"acme"},"name":"no_such_tool"}}"#
        ),
        fields: &[STANDARD[0], STANDARD[1], ("Mcp-Name", "no_such_tool")],
        line: r#"{"checks":[{"body":"2026-07-28","checked":"before_authentication","header":"MCP-Protocol-Version","sent":["2026-07-28"],"verdict":"agrees"},{"body":"tools/call","checked":"before_authentication","header":"Mcp-Method","sent":["tools/call"],"verdict":"agrees"},{"body":"no_such_tool","checked":"before_authentication","header":"Mcp-Name","sent":["no_such_tool"],"verdict":"agrees"}],"tool":"tool_unknown","verdict":"agrees"}"#,
        exit: 0,
    },
    Row {
        behaviour: "a request without _meta is refused before any header is compared",
        body: r#"{"id":7,"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"tenant":"acme"},"name":"tenant_documents"}}"#,
        fields: &[STANDARD[0], STANDARD[1], STANDARD[2], ("Mcp-Param-Tenant", "acme")],
        line: r#"{"code":"meta_missing","server_would_answer":{"body":{"error":{"code":-32602,"message":"meta_missing"},"id":7,"jsonrpc":"2.0"},"checked":"before_authentication","status":400},"verdict":"refused"}"#,
        exit: 1,
    },
    Row {
        behaviour: "a body that is not JSON gets the server's parse error, without an id",
        body: r#"{"id":7,"jsonrpc":"2.0","method":"tools/call""#,
        fields: &[STANDARD[0], STANDARD[1], STANDARD[2]],
        line: r#"{"code":"json_unexpected_end","server_would_answer":{"body":{"error":{"code":-32700,"message":"json_unexpected_end"},"jsonrpc":"2.0"},"checked":"before_authentication","status":400},"verdict":"refused"}"#,
        exit: 1,
    },
];

/// The bytes of `row` for a server at `host`, with `authorization` when there is one.
fn bytes(row: &Row, host: &str, authorization: Option<&str>) -> Vec<u8> {
    let mut fields = vec![
        ("Host", host),
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
    ];
    fields.extend(authorization.map(|value| ("Authorization", value)));
    fields.extend_from_slice(row.fields);
    request("POST", "/mcp", &fields, row.body.as_bytes())
}

/// The binary's stdout line and exit status for `input`.
fn inspect_binary(input: &[u8]) -> (String, Option<i32>) {
    let mut child = Command::new(BIN)
        .args(["inspect", "mirroring"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run the binary");
    child.stdin.take().expect("stdin").write_all(input).expect("write stdin");
    let output = child.wait_with_output().expect("wait");
    (String::from_utf8_lossy(&output.stdout).trim_end().to_owned(), output.status.code())
}

#[test]
fn each_request_gets_its_exact_line_and_exit_status() {
    for row in &ROWS {
        let input = bytes(row, "127.0.0.1:8080", Some("Bearer secret-token-never-shown"));
        let (line, exit) = inspect_binary(&input);
        assert_eq!(line, row.line, "{}", row.behaviour);
        assert_eq!(exit, Some(row.exit), "{}", row.behaviour);
    }
}

/// The JSON-RPC message a reply carries last: a JSON body, or an event stream's last data.
fn last_message(response: &ClientResponse) -> Value {
    let text = String::from_utf8_lossy(&response.body).into_owned();
    let data = match text.rsplit_once("data: ") {
        Some((_, data)) => data.trim_end().to_owned(),
        None => text,
    };
    json::decode(data.as_bytes(), Limits::DEFAULT.json_depth_max)
        .unwrap_or_else(|e| panic!("{e}: {data}"))
}

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

#[test]
fn the_answer_inspect_predicts_is_the_answer_a_live_modern_server_gives() {
    let limits = Limits { requests_in_processing_max: 4, ..Limits::DEFAULT };
    let versions = Versions::parse("2026-07-28").expect("a revision");
    let t = start_with(ServerConfig { limits, versions, ..ServerConfig::default() });
    for row in &ROWS {
        let input = bytes(row, &t.host(), Some(&t.bearer(Role::Full)));
        let report = inspect::inspect(Subject::Mirroring, &input, &Limits::DEFAULT);
        let line = json::encode(&report.value);
        assert_eq!(line, row.line, "neither the host nor the token shows: {}", row.behaviour);
        let response = t.raw(&input).expect("an answer");
        let message = last_message(&response);
        match report.value.get("server_would_answer") {
            Some(answer) => {
                let status = answer.get("status").and_then(Value::as_number);
                let status = status.and_then(|n| n.as_u64()).expect("a status");
                assert_eq!(u64::from(response.status), status, "{}", row.behaviour);
                assert_eq!(answer.get("body"), Some(&message), "{}", row.behaviour);
                // Without a token, a refusal made before authentication is the same answer, and
                // one made after it is the 401 that comes first.
                let anonymous = t.raw(&bytes(row, &t.host(), None)).expect("an answer");
                match text(answer, "checked") {
                    "before_authentication" => {
                        assert_eq!(u64::from(anonymous.status), status, "{}", row.behaviour);
                        assert_eq!(last_message(&anonymous), message, "{}", row.behaviour);
                    }
                    checked => {
                        assert_eq!(checked, "after_authentication", "{}", row.behaviour);
                        assert_eq!(anonymous.status, 401, "{}", row.behaviour);
                    }
                }
            }
            // Every mirrored header agrees: the server answers past them. A tool it does not
            // find is its `-32602`, with the code the line names instead of a tool; any other
            // call is a result.
            None => {
                assert_eq!(response.status, 200, "{}", row.behaviour);
                let tool = text(&report.value, "tool");
                let error = message.get("error").map(|e| text(e, "message"));
                let known = tool.is_empty()
                    || Tool::named(tool, Offer::plain(Revision::V2026_07_28)).is_some();
                let expected = (!known).then_some(tool);
                assert_eq!(error, expected, "{}", row.behaviour);
            }
        }
    }
}
