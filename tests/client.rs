//! The MCP client's own checks, against a fake server that answers canned bytes: it stops the
//! handshake on a protocol version it does not speak, and refuses replies with the wrong content
//! type, a mismatched id or a malformed session id.

use std::net::TcpListener;
use std::time::{Duration, Instant};

mod common;

use common::fake::{fake, json_reply};
use loopback_mcp_http::client::mcp::{McpClient, McpError, ReplyRule};
use loopback_mcp_http::client::trace::Trace;
use loopback_mcp_http::client::{ClientError, HttpConnection};
use loopback_mcp_http::http::ResponseErrorKind;
use loopback_mcp_http::json::{self, object};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::jsonrpc::{self, Id};

/// The fake server's answer to the client's first `initialize` (id 1).
fn initialize_result(version: &str) -> String {
    let result = object([
        ("protocolVersion", version.into()),
        ("capabilities", object([])),
        ("serverInfo", object([("name", "fake".into()), ("version", "1".into())])),
    ]);
    json::encode(&jsonrpc::result(&Id::from(1), result))
}

#[test]
fn an_unsupported_server_version_stops_the_handshake_before_initialized() {
    let (address, server) =
        fake(vec![json_reply("MCP-Session-Id: abc\r\n", &initialize_result("2099-01-01"))]);
    let mut client = McpClient::new(address, "token", Trace::new(false));
    match client.initialize("2025-11-25") {
        Err(McpError::VersionUnsupported(version)) => assert_eq!(version, "2099-01-01"),
        other => panic!("{other:?}"),
    }
    assert_eq!(client.session(), None);
    assert!(matches!(client.initialized(), Err(McpError::NoSession)), "initialized is never sent");
    drop(client);
    let requests = server.join().unwrap();
    assert_eq!(requests.len(), 1);
    assert!(requests[0].contains("\r\nAuthorization: Bearer token\r\n"));
    assert!(!requests[0].lines().next().unwrap().contains("token"), "never in the URL");
}

#[test]
fn replies_that_break_the_rules_are_refused() {
    let cases: Vec<(String, ReplyRule)> = vec![
        (json_reply("", &initialize_result("2025-11-25")), ReplyRule::SessionIdMissing),
        (
            json_reply("MCP-Session-Id: has space\r\n", &initialize_result("2025-11-25")),
            ReplyRule::SessionIdInvalid,
        ),
        (
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}".to_owned(),
            ReplyRule::ContentTypeNotJson,
        ),
        (
            json_reply(
                "MCP-Session-Id: abc\r\n",
                &initialize_result("2025-11-25").replace("\"id\":1", "\"id\":2"),
            ),
            ReplyRule::IdMismatch,
        ),
        (
            json_reply("MCP-Session-Id: abc\r\n", r#"{"jsonrpc":"2.0","id":1,"method":"x"}"#),
            ReplyRule::ResultOrErrorMissing,
        ),
        (
            json_reply(
                "MCP-Session-Id: abc\r\n",
                r#"{"jsonrpc":"2.0","id":1,"result":{},"result":{}}"#,
            ),
            ReplyRule::BodyNotJson,
        ),
    ];
    for (reply, rule) in cases {
        let (address, server) = fake(vec![reply]);
        let mut client = McpClient::new(address, "token", Trace::new(false));
        match client.initialize("2025-11-25") {
            Err(error @ McpError::Reply(got)) => {
                assert_eq!(got, rule);
                assert_eq!(error.code(), rule.code());
            }
            other => panic!("{rule:?}: {other:?}"),
        }
        drop(client);
        server.join().unwrap();
    }
}

#[test]
fn an_oversized_response_is_refused_before_its_body_is_read() {
    let (address, server) = fake(vec![
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 70000\r\n\r\n".into(),
    ]);
    let mut client = McpClient::new(address, "token", Trace::new(false));
    match client.initialize("2025-11-25") {
        Err(McpError::Http(ClientError::Response(e))) => {
            assert_eq!(e.kind(), ResponseErrorKind::ResponseTooLarge { limit: 65536 });
        }
        other => panic!("{other:?}"),
    }
    drop(client);
    server.join().unwrap();
}

fn stream_reply(status: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// A client that has initialized with the fake server (its first reply), then calls the tool.
fn call_tool_against(replies: Vec<String>) -> (Result<usize, McpError>, Vec<String>) {
    let mut all = vec![json_reply("MCP-Session-Id: abc\r\n", &initialize_result("2025-11-25"))];
    all.extend(replies);
    let (address, server) = fake(all);
    let mut client = McpClient::new(address, "token", Trace::new(false));
    client.initialize("2025-11-25").unwrap();
    let outcome = client.call_tool("test_reconnection").map(|streamed| streamed.resumptions);
    drop(client);
    (outcome, server.join().unwrap())
}

const PRIME: &str = "id: t-p1-1\nretry: 1\ndata:\n\n";
const RESULT: &str =
    "id: t-p1-3\ndata: {\"id\":2,\"jsonrpc\":\"2.0\",\"result\":{\"content\":[]}}\n\n";

#[test]
fn a_stream_that_ends_without_its_response_is_resumed_with_its_last_id_never_resent() {
    let resumed = format!("id: t-p1-2\nretry: 1\ndata:\n\n{RESULT}");
    let (outcome, requests) =
        call_tool_against(vec![stream_reply("200 OK", PRIME), stream_reply("200 OK", &resumed)]);
    assert_eq!(outcome.map_err(|e| e.code()), Ok(1));
    assert_eq!(requests.len(), 3);
    assert!(requests[1].starts_with("POST /mcp ") && requests[1].contains("tools/call"));
    assert!(requests[2].starts_with("GET /mcp "), "resumed by GET, never by a second POST");
    assert!(requests[2].contains("\r\nLast-Event-ID: t-p1-1\r\n"));
    assert!(requests[2].contains("\r\nMCP-Session-Id: abc\r\n"));
}

#[test]
fn a_resumption_that_fails_is_a_typed_error() {
    let body = r#"{"error":{"code":-32000,"message":"last_event_id_evicted"},"jsonrpc":"2.0"}"#;
    let refused = format!(
        "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let cases: Vec<(Vec<String>, &str)> = vec![
        // Refused: the status and the public code are the error.
        (vec![stream_reply("200 OK", PRIME), refused.clone()], "resume_refused"),
        // 204: the stream owes nothing more, yet no response came.
        (
            vec![stream_reply("200 OK", PRIME), "HTTP/1.1 204 No Content\r\n\r\n".into()],
            "stream_complete_without_response",
        ),
        // Nothing to resume from.
        (vec![stream_reply("200 OK", "retry: 1\n\n")], "stream_ended_without_response"),
        // A server whose retry would pass the request's deadline.
        (
            vec![stream_reply("200 OK", "id: t-p1-1\nretry: 86400000\ndata:\n\n")],
            "request_deadline_passed",
        ),
        // Every resumption ends without the response: the client stops at its budget.
        (
            vec![
                stream_reply("200 OK", PRIME),
                stream_reply("200 OK", "id: t-p1-2\nretry: 1\ndata:\n\n"),
                stream_reply("200 OK", "id: t-p1-3\nretry: 1\ndata:\n\n"),
                stream_reply("200 OK", "id: t-p1-4\nretry: 1\ndata:\n\n"),
            ],
            "resumptions_exhausted",
        ),
    ];
    for (replies, code) in cases {
        let expected_requests = replies.len() + 1;
        let (outcome, requests) = call_tool_against(replies);
        assert_eq!(outcome.map_err(|e| e.code()), Err(code));
        assert_eq!(requests.len(), expected_requests, "{code}");
        assert_eq!(requests.iter().filter(|r| r.starts_with("POST")).count(), 2, "{code}");
    }
    let (outcome, _) = call_tool_against(vec![stream_reply("200 OK", PRIME), refused]);
    match outcome {
        Err(McpError::ResumeRefused { status, code }) => {
            assert_eq!((status, code.as_str()), (400, "last_event_id_evicted"));
        }
        other => panic!("{other:?}"),
    }
}

/// The final response after `interim` interim ones, and the limits the client reads it with.
fn after_interim(interim: usize, limits: &Limits) -> Result<u16, ClientError> {
    let reply =
        format!("{}{}", "HTTP/1.1 100 Continue\r\n\r\n".repeat(interim), json_reply("", "{}"));
    let (address, server) = fake(vec![reply]);
    let mut conn = HttpConnection::connect(address, limits).unwrap();
    let outcome = conn.exchange(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n").map(|r| r.status);
    drop(conn);
    server.join().unwrap();
    outcome
}

#[test]
fn interim_responses_hold_at_max_and_fail_one_past_it() {
    for limits in [Limits::DEFAULT, Limits { interim_responses_max: 1, ..Limits::DEFAULT }] {
        let max = limits.interim_responses_max;
        assert_eq!(after_interim(max, &limits).map_err(|e| e.code()), Ok(200), "{max}");
        assert_eq!(
            after_interim(max + 1, &limits).map_err(|e| e.code()),
            Err("too_many_interim_responses"),
            "{max} + 1"
        );
    }
}

#[test]
fn a_silent_server_fails_the_exchange_at_the_io_timeout_and_not_before() {
    let timeout = Duration::from_millis(300);
    let limits = Limits { client_io_timeout: timeout, ..Limits::DEFAULT };
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let mut conn = HttpConnection::connect(listener.local_addr().unwrap(), &limits).unwrap();
    let (_silent, _) = listener.accept().unwrap();
    let started = Instant::now();
    let outcome = conn.exchange(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    let waited = started.elapsed();
    assert!(matches!(outcome, Err(ClientError::Io(_))), "{outcome:?}");
    assert!(waited >= timeout, "gave up after {waited:?}");
    assert!(waited < timeout * 5, "waited {waited:?}");
}

#[test]
fn resumptions_hold_at_max_and_stop_one_past_it() {
    let max = Limits::DEFAULT.client_resumptions_max;
    let empty = |n: usize| stream_reply("200 OK", &format!("id: t-p1-{n}\nretry: 1\ndata:\n\n"));
    // The first stream and `max` resumptions end without the response; the last one brings it.
    let mut replies: Vec<String> = (1..=max).map(empty).collect();
    replies.push(stream_reply(
        "200 OK",
        &format!("id: t-p1-{}\nretry: 1\ndata:\n\n{RESULT}", max + 1),
    ));
    let (outcome, _) = call_tool_against(replies);
    assert_eq!(outcome.map_err(|e| e.code()), Ok(max));
    // One more resumption would be needed: the client stops at its budget.
    let (outcome, requests) = call_tool_against((1..=max + 1).map(empty).collect());
    assert_eq!(outcome.map_err(|e| e.code()), Err("resumptions_exhausted"));
    assert_eq!(requests.len(), 2 + max, "initialize, the call and {max} resumptions");
}
