//! The client's own checks, against a fake server that answers canned bytes: the MCP client stops
//! the handshake on a protocol version it does not speak, and refuses replies with the wrong
//! content type, a mismatched id or a malformed session id; the HTTP client reads chunked
//! responses whole and chunk by chunk, strictly, as the server writes them.

use std::net::TcpListener;
use std::sync::mpsc;
use std::time::{Duration, Instant};

mod common;

use common::fake::{Step, fake, json_reply, scripted};
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

// ---------------------------------------------------------------------------------------------
// Chunked responses.

const GET: &[u8] = b"GET /mcp HTTP/1.1\r\nHost: a\r\n\r\n";
const STREAM_HEAD: &str =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
const EVENT_1: &str = "id: 1\ndata: {\"n\":1}\n\n";
const EVENT_2: &str = "id: 2\ndata: {\"n\":2}\n\n";

/// `data` as one chunk.
fn chunk(data: &str) -> String {
    format!("{:x}\r\n{data}\r\n", data.len())
}

/// A chunk of `n` bytes (`x`).
fn chunk_of(n: usize) -> String {
    chunk(&"x".repeat(n))
}

/// A stream response of `chunks`, ended by the last chunk.
fn stream(chunks: &[String]) -> String {
    format!("{STREAM_HEAD}{}0\r\n\r\n", chunks.concat())
}

/// A refusal: its code, and its offset in the response when the bytes were refused.
type Refusal = (&'static str, Option<usize>);

/// A response read whole: status, body and keep-alive.
type Whole = (u16, Vec<u8>, bool);

/// The exchange of `GET` with a fake server answering `reply`, or why it failed.
fn read_whole(reply: String) -> Result<Whole, Refusal> {
    let (address, server) = fake(vec![reply.clone()]);
    let mut conn = HttpConnection::connect(address, &Limits::DEFAULT).unwrap();
    let outcome = conn.exchange(GET);
    conn.close();
    server.join().unwrap();
    match outcome {
        Ok(response) => {
            assert_eq!(response.raw, reply.as_bytes(), "raw is the response as it arrived");
            Ok((response.status, response.body, response.keep_alive))
        }
        Err(ClientError::Response(e)) => Err((e.code(), Some(e.offset()))),
        Err(e) => Err((e.code(), None)),
    }
}

#[test]
fn a_chunked_response_is_read_whole_to_its_decoded_body() {
    let head = STREAM_HEAD.len();
    let max = Limits::DEFAULT.response_bytes_max;
    let half = max / 2;
    let close_head = STREAM_HEAD.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n");
    let rows: Vec<(String, Result<Whole, Refusal>)> = vec![
        (stream(&[]), Ok((200, b"".to_vec(), true))),
        (
            stream(&[chunk(EVENT_1), chunk(EVENT_2)]),
            Ok((200, [EVENT_1, EVENT_2].concat().into(), true)),
        ),
        (
            format!("{STREAM_HEAD}5;a=b ; c=\"d\"\r\nhello\r\n000\r\n\r\n"),
            Ok((200, b"hello".to_vec(), true)),
        ),
        (format!("{close_head}{}0\r\n\r\n", chunk("hi")), Ok((200, b"hi".to_vec(), false))),
        (stream(&[chunk_of(half), chunk_of(half)]), Ok((200, vec![b'x'; max], true))),
        (
            stream(&[chunk_of(half), chunk_of(half + 1)]),
            Err(("chunked_body_too_large", Some(head + chunk_of(half).len() + 4))),
        ),
        (format!("{STREAM_HEAD}10001\r\n"), Err(("chunked_body_too_large", Some(head + 5)))),
        (format!("{STREAM_HEAD}0x5\r\n"), Err(("chunk_size_byte", Some(head + 1)))),
        (format!("{STREAM_HEAD}5\r\nhello!\r\n"), Err(("chunk_data_unterminated", Some(head + 8)))),
        (
            format!("{STREAM_HEAD}0\r\nX-Late: 1\r\n\r\n"),
            Err(("trailer_section_not_empty", Some(head + 3))),
        ),
        (format!("{STREAM_HEAD}{}", chunk(EVENT_1)), Err(("closed_before_response", None))),
    ];
    for (reply, expected) in rows {
        let shown = reply.chars().take(120).collect::<String>();
        assert_eq!(read_whole(reply), expected, "{shown:?}");
    }
}

#[test]
fn a_chunked_stream_hands_out_each_chunk_before_the_next_is_written() {
    let (go, wait) = mpsc::channel();
    let first = format!("{STREAM_HEAD}{}", chunk(EVENT_1));
    let (address, server) = scripted(vec![
        Step::Read,
        Step::Write(first),
        Step::Wait(wait),
        Step::Write(format!("{}0\r\n\r\n", chunk(EVENT_2))),
    ]);
    let mut conn = HttpConnection::connect(address, &Limits::DEFAULT).unwrap();
    conn.send(GET).unwrap();
    let head = conn.receive_stream_head().unwrap();
    assert_eq!((head.status, head.body.as_slice()), (200, &b""[..]));
    assert_eq!(head.raw, STREAM_HEAD.as_bytes());
    assert_eq!(head.field_str("transfer-encoding"), Some("chunked"));
    let soon = || Instant::now() + Duration::from_secs(5);
    // The fake server waits on the channel: the second chunk is not written yet.
    assert_eq!(conn.next_chunk(soon()).unwrap(), Some(EVENT_1.as_bytes().to_vec()));
    let started = Instant::now();
    let waited = conn.next_chunk(started + Duration::from_millis(200));
    assert!(matches!(waited, Err(ClientError::DeadlinePassed)), "{waited:?}");
    assert!(started.elapsed() >= Duration::from_millis(200), "{:?}", started.elapsed());
    assert_eq!(conn.receive().map_err(|e| e.code()), Err("stream_open"));
    go.send(()).unwrap();
    assert_eq!(conn.next_chunk(soon()).unwrap(), Some(EVENT_2.as_bytes().to_vec()));
    assert_eq!(conn.next_chunk(soon()).unwrap(), None);
    assert_eq!(conn.next_chunk(soon()).unwrap(), None, "nothing after the end");
    conn.close();
    assert_eq!(server.join().unwrap().len(), 1);
}

#[test]
fn a_keep_alive_chunked_response_leaves_the_next_response_on_the_connection() {
    let next = json_reply("", "{}");
    // Both responses in one write: the second arrives in the same read as the first's end.
    let both = format!("{}{next}", stream(&[chunk(EVENT_1)]));
    let soon = || Instant::now() + Duration::from_secs(5);

    let (address, server) = fake(vec![both.clone()]);
    let mut conn = HttpConnection::connect(address, &Limits::DEFAULT).unwrap();
    let whole = conn.exchange(GET).unwrap();
    assert_eq!((whole.body.as_slice(), whole.keep_alive), (EVENT_1.as_bytes(), true));
    let after = conn.receive().unwrap();
    assert_eq!(
        (after.status, after.body.as_slice(), after.raw),
        (200, &b"{}"[..], next.clone().into())
    );
    conn.close();
    server.join().unwrap();

    let (address, server) = fake(vec![both]);
    let mut conn = HttpConnection::connect(address, &Limits::DEFAULT).unwrap();
    conn.send(GET).unwrap();
    conn.receive_stream_head().unwrap();
    assert_eq!(conn.next_chunk(soon()).unwrap(), Some(EVENT_1.as_bytes().to_vec()));
    assert_eq!(conn.next_chunk(soon()).unwrap(), None);
    assert_eq!(conn.receive().unwrap().body, b"{}");
    conn.close();
    server.join().unwrap();

    // Two requests on one connection: a chunked answer, then a Content-Length one.
    let (address, server) = fake(vec![stream(&[chunk(EVENT_2)]), next]);
    let mut conn = HttpConnection::connect(address, &Limits::DEFAULT).unwrap();
    assert_eq!(conn.exchange(GET).unwrap().body, EVENT_2.as_bytes());
    assert_eq!(conn.exchange(GET).unwrap().body, b"{}");
    conn.close();
    assert_eq!(server.join().unwrap().len(), 2);
}

#[test]
fn a_length_response_read_as_a_stream_is_one_chunk() {
    let soon = || Instant::now() + Duration::from_secs(5);
    let reply = json_reply("", r#"{"a":1}"#);
    let cases: [(String, Vec<Vec<u8>>); 3] = [
        (reply.clone(), vec![br#"{"a":1}"#.to_vec()]),
        ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".into(), vec![]),
        (format!("HTTP/1.1 100 Continue\r\n\r\n{reply}"), vec![br#"{"a":1}"#.to_vec()]),
    ];
    for (reply, chunks) in cases {
        let (address, server) = fake(vec![reply.clone()]);
        let mut conn = HttpConnection::connect(address, &Limits::DEFAULT).unwrap();
        conn.send(GET).unwrap();
        let head = conn.receive_stream_head().unwrap();
        assert_eq!(head.status, 200);
        assert!(head.body.is_empty() && head.raw.ends_with(b"\r\n\r\n"), "{reply:?}");
        let mut got = Vec::new();
        while let Some(chunk) = conn.next_chunk(soon()).unwrap() {
            got.push(chunk);
        }
        assert_eq!(got, chunks, "{reply:?}");
        conn.close();
        server.join().unwrap();
    }
}

/// The chunks a stream read hands out for `reply`, then its error's code and offset, if any.
fn read_stream(reply: String) -> (usize, Option<Refusal>) {
    let (address, server) = fake(vec![reply]);
    let mut conn = HttpConnection::connect(address, &Limits::DEFAULT).unwrap();
    conn.send(GET).unwrap();
    conn.receive_stream_head().unwrap();
    let mut chunks = 0;
    let error = loop {
        match conn.next_chunk(Instant::now() + Duration::from_secs(5)) {
            Ok(Some(_)) => chunks += 1,
            Ok(None) => break None,
            Err(ClientError::Response(e)) => break Some((e.code(), Some(e.offset()))),
            Err(e) => break Some((e.code(), None)),
        }
    };
    conn.close();
    server.join().unwrap();
    (chunks, error)
}

#[test]
fn a_stream_bounds_each_chunk_by_the_response_budget_and_refuses_bad_framing() {
    let head = STREAM_HEAD.len();
    let max = Limits::DEFAULT.response_bytes_max;
    let rows: Vec<(String, (usize, Option<Refusal>))> = vec![
        (stream(&[chunk_of(max), chunk_of(max)]), (2, None)),
        (format!("{STREAM_HEAD}10001\r\n"), (0, Some(("chunk_too_large", Some(head + 5))))),
        (
            format!("{STREAM_HEAD}{}5\nhello", chunk(EVENT_1)),
            (1, Some(("chunk_bare_lf", Some(head + chunk(EVENT_1).len() + 1)))),
        ),
        (
            format!("{STREAM_HEAD}{}0\r\nX: 1\r\n\r\n", chunk(EVENT_1)),
            (1, Some(("trailer_section_not_empty", Some(head + chunk(EVENT_1).len() + 3)))),
        ),
        (format!("{STREAM_HEAD}{}", chunk(EVENT_1)), (1, Some(("closed_before_response", None)))),
    ];
    for (reply, expected) in rows {
        let shown = reply.chars().take(120).collect::<String>();
        assert_eq!(read_stream(reply), expected, "{shown:?}");
    }
}

#[test]
fn closing_the_connection_cancels_a_stream_and_the_server_sees_the_close() {
    let (address, server) = scripted(vec![
        Step::Read,
        Step::Write(format!("{STREAM_HEAD}{}", chunk(EVENT_1))),
        Step::AwaitClose,
    ]);
    let mut conn = HttpConnection::connect(address, &Limits::DEFAULT).unwrap();
    conn.send(GET).unwrap();
    conn.receive_stream_head().unwrap();
    let first = conn.next_chunk(Instant::now() + Duration::from_secs(5)).unwrap();
    assert_eq!(first, Some(EVENT_1.as_bytes().to_vec()));
    conn.close();
    let seen = server.join().unwrap();
    assert_eq!(seen.last().map(String::as_str), Some("<closed>"));
}
