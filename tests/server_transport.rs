//! The HTTP side of the server over real sockets: routing, Host and Origin, Accept and
//! Content-Type, bodies, the connection lifecycle (keep-alive, pipelining, close after errors,
//! 100-continue, deadlines) and overload.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

use common::server::*;
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::{ClientError, request};
use loopback_mcp_http::json;
use loopback_mcp_http::limits::{Limits, LimitsError};
use loopback_mcp_http::mcp::jsonrpc::{self, Id};
use loopback_mcp_http::server::{self, ServerConfig, ServerError};

/// A request from parts, with this server's Host unless `fields` brings its own.
fn req(t: &TestServer, method: &str, path: &str, fields: &[(&str, &str)], body: &str) -> Vec<u8> {
    let host = t.host();
    let mut all: Vec<(&str, &str)> = Vec::new();
    if !fields.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        all.push(("Host", host.as_str()));
    }
    all.extend_from_slice(fields);
    request(method, path, &all, body.as_bytes())
}

#[test]
fn each_route_and_method_gets_its_exact_status() {
    let t = start();
    let token = t.bearer(Role::Full);
    let auth = ("Authorization", token.as_str());
    let json = ("Content-Type", "application/json");
    let both = ("Accept", "application/json, text/event-stream");
    // (method, path, fields, body, status, code, Allow)
    type Case<'a> =
        (&'a str, &'a str, Vec<(&'a str, &'a str)>, &'a str, u16, &'a str, Option<&'a str>);
    let cases: Vec<Case> = vec![
        ("GET", "/", vec![], "", 404, "not_found", None),
        ("GET", "/mcp/", vec![], "", 404, "not_found", None),
        ("GET", "/MCP", vec![], "", 404, "not_found", None),
        ("PUT", "/mcp", vec![auth], "", 405, "method_not_allowed", Some("GET, POST, DELETE")),
        ("PATCH", "/mcp", vec![], "", 405, "method_not_allowed", Some("GET, POST, DELETE")),
        ("OPTIONS", "/mcp", vec![], "", 405, "method_not_allowed", Some("GET, POST, DELETE")),
        (
            "POST",
            "/.well-known/oauth-protected-resource",
            vec![],
            "",
            405,
            "method_not_allowed",
            Some("GET, HEAD"),
        ),
        ("GET", "/mcp", vec![auth], "", 406, "not_acceptable", None),
        ("GET", "/mcp", vec![auth, ("Accept", "*/*")], "", 406, "not_acceptable", None),
        (
            "POST",
            "/mcp",
            vec![auth, json, ("Accept", "application/json")],
            ping_body(),
            406,
            "not_acceptable",
            None,
        ),
        (
            "POST",
            "/mcp",
            vec![auth, json, ("Accept", "*/*")],
            ping_body(),
            406,
            "not_acceptable",
            None,
        ),
        (
            "POST",
            "/mcp",
            vec![auth, json, ("Accept", "text/event-stream")],
            ping_body(),
            406,
            "not_acceptable",
            None,
        ),
        (
            "POST",
            "/mcp",
            vec![auth, json, ("Accept", "application/json;q=2")],
            ping_body(),
            400,
            "accept_invalid",
            None,
        ),
        (
            "POST",
            "/mcp",
            vec![auth, both, ("Content-Type", "text/plain")],
            ping_body(),
            415,
            "unsupported_media_type",
            None,
        ),
        ("POST", "/mcp", vec![auth, both], ping_body(), 415, "unsupported_media_type", None),
        (
            "POST",
            "/mcp",
            vec![auth, both, ("Content-Type", "application/json; charset=latin1")],
            ping_body(),
            415,
            "unsupported_media_type",
            None,
        ),
        (
            "POST",
            "/mcp",
            vec![auth, both, json, json],
            ping_body(),
            415,
            "unsupported_media_type",
            None,
        ),
        (
            "GET",
            "/mcp",
            vec![auth, ("Accept", "text/event-stream")],
            "x",
            400,
            "body_not_allowed",
            None,
        ),
        ("DELETE", "/mcp", vec![auth], "x", 400, "body_not_allowed", None),
    ];
    for (method, path, fields, body, status, code, allow) in cases {
        let response = t.raw(&req(&t, method, path, &fields, body)).unwrap();
        assert_eq!(
            (response.status, error_code(&response).as_str()),
            (status, code),
            "{method} {path} {fields:?}"
        );
        assert_eq!(response.field_str("allow"), allow, "{method} {path}");
        assert_eq!(response.field_str("connection"), Some("close"), "errors close the connection");
        assert_eq!(
            response.field_count("www-authenticate"),
            0,
            "no OAuth challenge before the policy runs"
        );
    }
}

#[test]
fn head_gets_no_content_on_any_route_and_a_get_pipelined_after_it_is_answered() {
    let t = start();
    let host = t.host();
    let get_document =
        t.raw(&req(&t, "GET", "/.well-known/oauth-protected-resource/mcp", &[], "")).unwrap();
    assert_eq!(get_document.status, 200);
    let document_length = get_document.body.len().to_string();
    // (path, extra field, status, Content-Length, Allow)
    type Case<'a> = (&'a str, Option<(&'a str, &'a str)>, u16, Option<&'a str>, Option<&'a str>);
    let cases: [Case; 6] = [
        ("/.well-known/oauth-protected-resource/mcp", None, 200, Some(&document_length), None),
        ("/.well-known/oauth-protected-resource", None, 200, Some(&document_length), None),
        ("/mcp", None, 405, None, Some("GET, POST, DELETE")),
        ("/", None, 404, None, None),
        ("/.well-known/oauth-protected-resource/mcp", Some(("Cookie", "a=b")), 400, None, None),
        ("/mcp", Some(("Origin", "http://evil.example")), 403, None, None),
    ];
    for (path, extra, status, length, allow) in cases {
        let fields: Vec<(&str, &str)> = extra.into_iter().collect();
        let mut conn = t.connect();
        conn.send(&req(&t, "HEAD", path, &fields, "")).unwrap();
        let response = conn.receive_head().unwrap();
        t.check_no_secrets(&response);
        assert_eq!(response.status, status, "HEAD {path} {extra:?}");
        assert_eq!(response.field_str("content-length"), length, "HEAD {path} {extra:?}");
        assert_eq!(response.field_str("allow"), allow, "HEAD {path}");
        assert!(response.raw.ends_with(b"\r\n\r\n") && response.body.is_empty(), "HEAD {path}");
        if status == 200 {
            assert_eq!(response.field_str("content-type"), Some("application/json"));
            assert!(response.keep_alive);
        } else {
            assert_eq!(response.field_str("connection"), Some("close"));
            assert!(conn.is_closed_by_peer(), "nothing follows the head of HEAD {path}");
        }
    }
    // HEAD then GET in one write: the GET's response is the next bytes after the HEAD's head.
    let mut conn = t.connect();
    let path = "/.well-known/oauth-protected-resource/mcp";
    let mut pipelined = request("HEAD", path, &[("Host", &host)], b"");
    pipelined.extend(request("GET", path, &[("Host", &host)], b""));
    conn.send(&pipelined).unwrap();
    let head = conn.receive_head().unwrap();
    assert_eq!((head.status, head.body.len()), (200, 0));
    let get = conn.receive_final().unwrap();
    assert_eq!((get.status, get.body), (200, get_document.body));
}

#[test]
fn discovery_refuses_every_credential_bearing_field() {
    let t = start();
    let path = "/.well-known/oauth-protected-resource/mcp";
    let token = t.bearer(Role::Full);
    for field in [
        ("Authorization", token.as_str()),
        ("Proxy-Authorization", "Basic eDp5"),
        ("Cookie", "a=b"),
    ] {
        let response = t.raw(&req(&t, "GET", path, &[field], "")).unwrap();
        assert_eq!(
            (response.status, error_code(&response).as_str()),
            (400, "credentials_not_accepted"),
            "{}",
            field.0
        );
    }
    // Clients of later revisions send their version header on discovery too: it is not judged.
    let response =
        t.raw(&req(&t, "GET", path, &[("MCP-Protocol-Version", "2026-07-28")], "")).unwrap();
    assert_eq!(response.status, 200);
}

#[test]
fn options_asterisk_describes_the_server_and_is_answered_without_content() {
    let t = start();
    let response = t.raw(&req(&t, "OPTIONS", "*", &[], "")).unwrap();
    assert_eq!(response.status, 204);
    assert_eq!(response.field_str("allow"), Some("GET, HEAD, POST, DELETE"));
    assert_eq!(response.field_count("content-length"), 0);
    let response = t.raw(&req(&t, "OPTIONS", "*", &[("Host", "evil.example")], "")).unwrap();
    assert_eq!((response.status, error_code(&response).as_str()), (421, "host_not_allowed"));
}

#[test]
fn host_must_be_the_canonical_authority() {
    let t = start();
    let port = t.port();
    let token = t.bearer(Role::Full);
    let metadata = "/.well-known/oauth-protected-resource/mcp";
    let canonical = format!("127.0.0.1:{port}");
    let cases: Vec<(String, &str, u16, &str)> = vec![
        (canonical.clone(), "/mcp", 200, ""),
        (canonical.clone(), metadata, 200, ""),
        // The server's other name: never paired with a document naming 127.0.0.1.
        (format!("localhost:{port}"), "/mcp", 421, "host_not_canonical"),
        (format!("LOCALHOST:{port}"), "/mcp", 421, "host_not_canonical"),
        (format!("localhost:{port}"), metadata, 421, "host_not_canonical"),
        ("evil.example.com".to_owned(), "/mcp", 421, "host_not_allowed"),
        (format!("evil.example.com:{port}"), metadata, 421, "host_not_allowed"),
        ("127.0.0.1".to_owned(), "/mcp", 421, "host_not_allowed"),
        (format!("127.0.0.1:{}", port.wrapping_add(1)), "/mcp", 421, "host_not_allowed"),
        (format!("[::1]:{port}"), "/mcp", 421, "host_not_allowed"),
        (format!("127.0.0.2:{port}"), "/mcp", 421, "host_not_allowed"),
    ];
    for (host, path, status, code) in cases {
        let bytes = if path == "/mcp" && status == 200 {
            t.post_bytes_with_host(Role::Full, &host, init_body())
        } else if path == "/mcp" {
            req(&t, "GET", "/mcp", &[("Host", &host), ("Authorization", &token)], "")
        } else {
            req(&t, "GET", path, &[("Host", &host)], "")
        };
        let response = t.raw(&bytes).unwrap();
        assert_eq!(response.status, status, "{host} {path}");
        if status != 200 {
            assert_eq!(error_code(&response), code, "{host} {path}");
            assert_eq!(response.field_count("www-authenticate"), 0);
        }
    }
}

#[test]
fn origin_must_be_absent_or_exactly_allowed() {
    let t = start_with(ServerConfig {
        extra_origins: vec!["http://app.example:3000".into()],
        ..ServerConfig::default()
    });
    let port = t.port();
    let allowed = [
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
        "http://app.example:3000".into(),
    ];
    let refused = [
        "http://evil.example".to_owned(),
        "null".to_owned(),
        format!("https://127.0.0.1:{port}"),
        format!("http://127.0.0.1:{port}/"),
        "http://app.example:3000.evil".to_owned(),
        "HTTP://app.example:3000".to_owned(),
    ];
    for origin in &allowed {
        let bytes = t.post_bytes(Role::Full, None, init_body(), &[("Origin", origin)]);
        assert_eq!(t.raw(&bytes).unwrap().status, 200, "{origin}");
    }
    for origin in &refused {
        let bytes = t.post_bytes(Role::Full, None, init_body(), &[("Origin", origin)]);
        let response = t.raw(&bytes).unwrap();
        assert_eq!(
            (response.status, error_code(&response).as_str()),
            (403, "origin_not_allowed"),
            "{origin}"
        );
        assert_eq!(
            response.field_count("www-authenticate"),
            0,
            "a bad origin is not an OAuth problem"
        );
    }
    let two = t.post_bytes(
        Role::Full,
        None,
        init_body(),
        &[("Origin", &allowed[0]), ("Origin", &allowed[1])],
    );
    assert_eq!(t.raw(&two).unwrap().status, 403);
    // The guard runs before authentication: no token, bad origin, still 403.
    let bytes = req(&t, "POST", "/mcp", &[("Origin", "http://evil.example")], ping_body());
    assert_eq!(t.raw(&bytes).unwrap().status, 403);
}

#[test]
fn strict_json_and_jsonrpc_errors_are_400_without_echo() {
    let t = start();
    let cases: [(&str, &str); 9] = [
        (r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"initialize"}"#, "json_duplicate_key"),
        (r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}"#, "json_unexpected_byte"),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, "batch_not_supported"),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, "id_invalid"),
        (r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#, "json_trailing_bytes"),
        ("{\"jsonrpc\":\"2.0\",\"id\":\"\u{fffd}\",\"method\":\"ping\"", "json_unexpected_end"),
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, "jsonrpc_version"),
        (r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#, "params_invalid"),
        (r#""just a string""#, "message_not_object"),
    ];
    for (body, code) in cases {
        let response = t.raw(&t.post_bytes(Role::Full, None, body, &[])).unwrap();
        assert_eq!((response.status, error_code(&response).as_str()), (400, code), "{body}");
        assert!(!String::from_utf8_lossy(&response.body).contains("ping"), "no echo of the input");
    }
    let mut bytes = t.post_bytes(Role::Full, None, "", &[]);
    let invalid_utf8 = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}";
    bytes.truncate(bytes.len() - 2);
    bytes.extend_from_slice(format!("Content-Length: {}\r\n\r\n", invalid_utf8.len()).as_bytes());
    bytes.extend_from_slice(invalid_utf8);
    let response = t.raw(&bytes).unwrap();
    assert_eq!((response.status, error_code(&response).as_str()), (400, "json_invalid_utf8"));
}

#[test]
fn parse_errors_get_their_status_and_close() {
    let t = start();
    let host = t.host();
    let cases: Vec<(Vec<u8>, u16, &str)> = vec![
        (format!("GET /mcp?access_token=SECRETVALUE HTTP/1.1\r\nHost: {host}\r\n\r\n").into_bytes(), 400, "query_forbidden"),
        (format!("POST /mcp HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n").into_bytes(), 501, "transfer_encoding_chunked"),
        (
            format!("POST /mcp HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc").into_bytes(),
            400,
            "transfer_encoding_with_content_length",
        ),
        (format!("POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Length: 16385\r\n\r\n").into_bytes(), 413, "content_length_too_large"),
        (format!("GET /mcp HTTP/1.1\r\nHost: {host}\r\nX: {}\r\n\r\n", "v".repeat(2049)).into_bytes(), 431, "field_value_too_large"),
        (format!("GET /{} HTTP/1.1\r\nHost: {host}\r\n\r\n", "a".repeat(2048)).into_bytes(), 414, "target_too_long"),
        (format!("GET /mcp HTTP/1.2\r\nHost: {host}\r\n\r\n").into_bytes(), 505, "version_unsupported"),
        (format!("GET /mcp HTTP/1.1\nHost: {host}\r\n\r\n").into_bytes(), 400, "bare_lf"),
        (b"GET /mcp HTTP/1.1\r\n\r\n".to_vec(), 400, "host_missing"),
        (format!("BREW /mcp HTTP/1.1\r\nHost: {host}\r\n\r\n").into_bytes(), 501, "method_unknown"),
        (format!("GET /mcp HTTP/1.1\r\nHost: {host}\r\nExpect: 200-ok\r\n\r\n").into_bytes(), 417, "expectation_unsupported"),
    ];
    for (bytes, status, code) in cases {
        let mut conn = t.connect();
        let response = t.exchange(&mut conn, &bytes).unwrap();
        assert_eq!((response.status, error_code(&response).as_str()), (status, code));
        assert_eq!(response.field_str("connection"), Some("close"));
        assert!(conn.is_closed_by_peer(), "{code}: the connection is closed after the error");
        assert!(!String::from_utf8_lossy(&response.body).contains("SECRETVALUE"));
    }
}

#[test]
fn header_budgets_are_enforced_over_the_socket_at_max_and_max_plus_one() {
    let t = start();
    let limits = Limits::DEFAULT;
    let at_max = t.post_bytes(
        Role::Full,
        None,
        init_body(),
        &[("X-Pad", &"v".repeat(limits.header_value_bytes_max))],
    );
    assert_eq!(t.raw(&at_max).unwrap().status, 200);
    let over = t.post_bytes(
        Role::Full,
        None,
        init_body(),
        &[("X-Pad", &"v".repeat(limits.header_value_bytes_max + 1))],
    );
    assert_eq!(t.raw(&over).unwrap().status, 431);
    // The standard POST carries 4 fields plus Content-Length; pad up to exactly 32, then 33.
    let pads: Vec<(String, String)> = (0..27).map(|i| (format!("X-{i}"), "v".to_owned())).collect();
    let fields: Vec<(&str, &str)> = pads.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    assert_eq!(t.raw(&t.post_bytes(Role::Full, None, init_body(), &fields)).unwrap().status, 200);
    let pads: Vec<(String, String)> = (0..28).map(|i| (format!("X-{i}"), "v".to_owned())).collect();
    let fields: Vec<(&str, &str)> = pads.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    assert_eq!(t.raw(&t.post_bytes(Role::Full, None, init_body(), &fields)).unwrap().status, 431);
}

#[test]
fn body_budget_is_enforced_at_max_and_max_plus_one() {
    let t = start();
    let max = Limits::DEFAULT.request_body_bytes_max;
    // An initialize whose params carry a `pad` string sized so the whole body is `len` bytes.
    let padded = |len: usize| {
        let with_pad = |pad: String| {
            let params = json::members([
                ("protocolVersion", "2025-11-25".into()),
                ("capabilities", json::object([])),
                ("clientInfo", json::object([("name", "test".into()), ("version", "1".into())])),
                ("pad", pad.into()),
            ]);
            json::encode(&jsonrpc::request(&Id::from(1), "initialize", params))
        };
        let bare = with_pad(String::new()).len();
        let body = with_pad("p".repeat(len - bare));
        assert_eq!(body.len(), len);
        body
    };
    assert_eq!(t.raw(&t.post_bytes(Role::Full, None, &padded(max), &[])).unwrap().status, 200);
    let response = t.raw(&t.post_bytes(Role::Full, None, &padded(max + 1), &[])).unwrap();
    assert_eq!(
        (response.status, error_code(&response).as_str()),
        (413, "content_length_too_large")
    );
}

#[test]
fn keep_alive_reuses_one_connection_and_pipelined_requests_are_answered_in_order() {
    let t = start();
    let session = t.open_session(Role::Full);
    let mut conn = t.connect();
    for _ in 0..5 {
        let response = t
            .exchange(&mut conn, &t.post_bytes(Role::Full, Some(&session), ping_body(), &[]))
            .unwrap();
        assert_eq!((response.status, response.keep_alive), (200, true));
    }
    let mut pipelined = Vec::new();
    for id in 10..13 {
        pipelined.extend(t.post_bytes(Role::Full, Some(&session), &ping_with_id(id), &[]));
    }
    conn.send(&pipelined).unwrap();
    for id in 10..13 {
        let response = conn.receive_final().unwrap();
        t.check_no_secrets(&response);
        assert_eq!(String::from_utf8_lossy(&response.body), empty_result(id));
    }
}

#[test]
fn connection_close_is_honoured_and_later_pipelined_bytes_are_ignored() {
    let t = start();
    let session = t.open_session(Role::Full);
    let mut bytes =
        t.post_bytes(Role::Full, Some(&session), ping_body(), &[("Connection", "close")]);
    bytes.extend(t.post_bytes(Role::Full, Some(&session), ping_body(), &[]));
    let mut conn = t.connect();
    let response = t.exchange(&mut conn, &bytes).unwrap();
    assert_eq!((response.status, response.field_str("connection")), (200, Some("close")));
    assert!(conn.is_closed_by_peer());
}

#[test]
fn an_error_never_lets_the_unread_body_become_the_next_request() {
    // EX07: a refused request with Expect: 100-continue whose "body" is a second request.
    let t = start();
    let host = t.host();
    let smuggled = format!("GET /mcp HTTP/1.1\r\nHost: {host}\r\n\r\n");
    let bytes = format!(
        "POST /denied HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n{smuggled}",
        smuggled.len()
    );
    let mut conn = t.connect();
    conn.send(bytes.as_bytes()).unwrap();
    let response = conn.receive().unwrap();
    t.check_no_secrets(&response);
    assert_eq!(
        (response.status, response.field_str("connection")),
        (404, Some("close")),
        "no 100 for a refused request"
    );
    assert!(conn.is_closed_by_peer(), "the smuggled request is never answered");
}

#[test]
fn expect_100_continue_is_answered_before_the_body_is_sent() {
    let t = start();
    let mut head = t.post_bytes(Role::Full, None, init_body(), &[("Expect", "100-continue")]);
    let body_start = head.len() - init_body().len();
    let body = head.split_off(body_start);
    let mut conn = t.connect();
    conn.send(&head).unwrap();
    let interim = conn.receive().unwrap();
    t.check_no_secrets(&interim);
    assert_eq!((interim.status, interim.body.len()), (100, 0));
    assert_eq!(interim.raw, b"HTTP/1.1 100 Continue\r\n\r\n", "the machine's own fixed bytes");
    conn.send(&body).unwrap();
    let response = conn.receive().unwrap();
    t.remember(response.field_str("mcp-session-id").unwrap_or(""));
    t.check_no_secrets(&response);
    assert_eq!(response.status, 200);
}

#[test]
fn a_slow_head_is_cut_at_its_total_deadline_without_a_response() {
    let limits = Limits {
        request_head_deadline: Duration::from_millis(600),
        socket_read_timeout: Duration::from_millis(200),
        ..Limits::DEFAULT
    };
    let t = start_with(ServerConfig { limits, ..ServerConfig::default() });
    let mut stream = TcpStream::connect(t.server.address()).unwrap();
    stream.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
    let started = Instant::now();
    let trickle = format!("GET /mcp HTTP/1.1\r\nHost: {}\r\nX-a: ", t.host());
    let mut closed_at = None;
    // One byte every 100 ms: each read succeeds, only the total deadline can stop it.
    for byte in trickle.bytes().chain(std::iter::repeat(b'b')).take(60) {
        if stream.write_all(&[byte]).is_err() {
            closed_at = Some(started.elapsed());
            break;
        }
        let mut buf = [0u8; 64];
        match stream.read(&mut buf) {
            Ok(0) => {
                closed_at = Some(started.elapsed());
                break;
            }
            Ok(n) => {
                panic!("a partial request got a response: {:?}", String::from_utf8_lossy(&buf[..n]))
            }
            Err(_) => {}
        }
    }
    let closed_at = closed_at.expect("the server kept a trickling head open for 6 s");
    assert!(closed_at >= Duration::from_millis(500), "closed too early: {closed_at:?}");
}

#[test]
fn a_slow_body_is_cut_at_its_deadline_and_never_dispatched() {
    let limits = Limits {
        request_body_deadline: Duration::from_millis(500),
        socket_read_timeout: Duration::from_millis(200),
        ..Limits::DEFAULT
    };
    let t = start_with(ServerConfig { limits, ..ServerConfig::default() });
    let bytes = t.post_bytes(Role::Full, None, init_body(), &[]);
    let mut conn = t.connect();
    conn.send(&bytes[..bytes.len() - 10]).unwrap();
    // The server closes at the body deadline; the rest comes after it.
    assert!(conn.is_closed_by_peer(), "the partial body was answered");
    let _ = conn.send(&bytes[bytes.len() - 10..]);
    match conn.receive() {
        Err(ClientError::Closed) | Err(ClientError::Io(_)) => {}
        other => panic!("a body finished after its deadline was answered: {other:?}"),
    }
    assert_eq!(t.server.endpoint().live_sessions(Instant::now()), 0, "nothing was dispatched");
}

#[test]
fn an_idle_keep_alive_connection_is_closed_after_the_idle_timeout() {
    let limits = Limits { connection_idle_timeout: Duration::from_millis(300), ..Limits::DEFAULT };
    let t = start_with(ServerConfig { limits, ..ServerConfig::default() });
    let mut conn = t.connect();
    // Before the exchange, so that the server's idle time starts after it.
    let sent = Instant::now();
    assert_eq!(
        t.exchange(&mut conn, &t.post_bytes(Role::Full, None, init_body(), &[])).unwrap().status,
        200
    );
    // The read waits for the server's close: no earlier than the idle timeout.
    assert!(conn.is_closed_by_peer());
    assert!(sent.elapsed() >= Duration::from_millis(300), "closed before the idle timeout");
}

#[test]
fn when_every_worker_is_busy_new_connections_get_a_readable_503() {
    let limits = Limits { requests_in_processing_max: 1, ..Limits::DEFAULT };
    let t = start_with(ServerConfig { limits, ..ServerConfig::default() });
    // Hold the only worker with a kept-alive connection, on which the session is opened.
    let mut held = t.connect();
    let response =
        t.exchange(&mut held, &t.post_bytes(Role::Full, None, init_body(), &[])).unwrap();
    let session = response.field_str("mcp-session-id").unwrap().to_owned();
    t.remember(&session);
    let initialized = t.post_bytes(Role::Full, Some(&session), initialized_body(), &[]);
    assert_eq!(t.exchange(&mut held, &initialized).unwrap().status, 202);
    let ping = t.post_bytes(Role::Full, Some(&session), ping_body(), &[]);
    assert_eq!(t.exchange(&mut held, &ping).unwrap().status, 200);
    for _ in 0..3 {
        let mut conn = t.connect();
        let response = t
            .exchange(&mut conn, &t.post_bytes(Role::Full, Some(&session), ping_body(), &[]))
            .unwrap();
        assert_eq!((response.status, error_code(&response).as_str()), (503, "overloaded"));
        assert_eq!(response.field_str("connection"), Some("close"));
        assert_eq!(response.field_str("retry-after"), Some("1"));
    }
    // The held connection is still served, and once it closes a new one is served too.
    assert_eq!(
        t.exchange(&mut held, &t.post_bytes(Role::Full, Some(&session), ping_body(), &[]))
            .unwrap()
            .status,
        200
    );
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let status =
            t.raw(&t.post_bytes(Role::Full, Some(&session), ping_body(), &[])).unwrap().status;
        if status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "the worker never came back");
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_head_that_stalls_is_cut_after_one_read_timeout() {
    let limits = Limits { socket_read_timeout: Duration::from_millis(300), ..Limits::DEFAULT };
    let t = start_with(ServerConfig { limits, ..ServerConfig::default() });
    let mut stream = TcpStream::connect(t.server.address()).unwrap();
    stream.write_all(b"POST /mcp HTTP/1.1\r\nH").unwrap();
    let sent = Instant::now();
    let mut buf = [0u8; 64];
    assert_eq!(stream.read(&mut buf).unwrap(), 0, "closed without a response");
    let closed_after = sent.elapsed();
    // One read timeout (300 ms), well before the 5 s head deadline.
    assert!(closed_after >= Duration::from_millis(250), "closed too early: {closed_after:?}");
    assert!(
        closed_after < Duration::from_secs(3),
        "the read timeout did not apply: {closed_after:?}"
    );
}

/// Connections that never send a byte and never close.
fn silent_connections(t: &TestServer, n: usize) -> Vec<TcpStream> {
    (0..n).map(|_| TcpStream::connect(t.server.address()).unwrap()).collect()
}

#[test]
fn silent_connections_never_delay_another_clients_503() {
    let limits = Limits { requests_in_processing_max: 2, ..Limits::DEFAULT };
    let t = start_with(ServerConfig { limits, ..ServerConfig::default() });
    // Two hold the workers; eight more are refused and linger, each for the whole drain time.
    let _silent = silent_connections(&t, 10);
    thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    let response = t.raw(&request("GET", "/", &[("Host", &t.host())], b"")).unwrap();
    let waited = started.elapsed();
    assert_eq!((response.status, error_code(&response).as_str()), (503, "overloaded"));
    assert_eq!(response.field_str("connection"), Some("close"));
    // Written at once by the acceptor: not after eight drains of 250 ms one after another.
    assert!(waited < Duration::from_secs(1), "the 503 waited {waited:?}");
}

#[test]
fn when_the_lingering_set_is_full_the_oldest_is_closed_and_a_new_refusal_is_still_answered() {
    let limits = Limits {
        requests_in_processing_max: 1,
        connections_lingering_max: 2,
        drain_timeout: Duration::from_secs(10),
        ..Limits::DEFAULT
    };
    let t = start_with(ServerConfig { limits, ..ServerConfig::default() });
    let _held = silent_connections(&t, 1);
    thread::sleep(Duration::from_millis(100));
    let mut refused = silent_connections(&t, 3);
    for (i, stream) in refused.iter_mut().enumerate() {
        stream.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let mut received = Vec::new();
        let mut buf = [0u8; 512];
        // Each refused connection reads its whole 503, then the end of the stream (the write
        // half was shut); the read after that tells lingering from closed.
        while !received.ends_with(b"\"overloaded\"},\"jsonrpc\":\"2.0\"}") {
            let n = stream.read(&mut buf).unwrap();
            assert!(n > 0, "connection {i} ended before its 503");
            received.extend_from_slice(&buf[..n]);
        }
        assert!(received.starts_with(b"HTTP/1.1 503 Service Unavailable\r\n"), "connection {i}");
        assert_eq!(stream.read(&mut buf).unwrap(), 0, "the write half is shut after the 503");
    }
    // The third refusal pushed the first out of the full set: its socket is closed, so a byte
    // sent to it is answered with a reset and the next write fails; the lingering ones are
    // drained and take both bytes.
    for stream in &mut refused {
        stream.write_all(b"x").unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    while refused[0].write_all(b"y").is_ok() {
        assert!(Instant::now() < deadline, "the oldest refusal was never closed");
        thread::sleep(Duration::from_millis(50));
    }
    for stream in &mut refused[1..] {
        assert!(stream.write_all(b"y").is_ok(), "a newer refusal still lingers");
    }
}

#[test]
fn a_connection_carries_requests_per_connection_max_requests_and_no_more() {
    let limits = Limits { requests_per_connection_max: 3, ..Limits::DEFAULT };
    let t = start_with(ServerConfig { limits, ..ServerConfig::default() });
    let session = t.open_session(Role::Full);
    let mut conn = t.connect();
    let ping = t.post_bytes(Role::Full, Some(&session), ping_body(), &[]);
    for n in 1..=3 {
        let response = t.exchange(&mut conn, &ping).unwrap();
        assert_eq!(response.status, 200, "request {n}");
        let close = if n == 3 { Some("close") } else { None };
        assert_eq!(response.field_str("connection"), close, "request {n}");
    }
    // The fourth request on the connection is never read: the server has closed it.
    let _ = conn.send(&ping);
    assert!(matches!(conn.receive(), Err(ClientError::Closed | ClientError::Io(_))));
}

#[test]
fn a_peer_that_never_reads_loses_its_worker_at_the_response_write_deadline() {
    let limits = Limits {
        requests_in_processing_max: 1,
        requests_per_connection_max: 1 << 20,
        response_write_deadline: Duration::from_millis(500),
        socket_write_timeout: Duration::from_millis(200),
        ..Limits::DEFAULT
    };
    let t = start_with(ServerConfig { limits, ..ServerConfig::default() });
    // Pipelined discovery requests, never read: the responses fill both socket buffers and
    // the server's write blocks. Without a total write deadline the only worker would stay
    // with this connection for up to a million write timeouts.
    let request =
        request("GET", "/.well-known/oauth-protected-resource/mcp", &[("Host", &t.host())], b"")
            .repeat(256);
    let mut flood = TcpStream::connect(t.server.address()).unwrap();
    flood.set_write_timeout(Some(Duration::from_millis(200))).unwrap();
    let started = Instant::now();
    while flood.write_all(&request).is_ok() {
        assert!(started.elapsed() < Duration::from_secs(20), "the buffers never filled");
    }
    // The flood is blocked (the server stopped reading); the worker must come back while the
    // flooding connection is still open.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = t.raw(&t.post_bytes(Role::Full, None, init_body(), &[])).unwrap().status;
        if status == 200 {
            break;
        }
        assert_eq!(status, 503, "only the pool may refuse meanwhile");
        assert!(Instant::now() < deadline, "the worker never came back");
        thread::sleep(Duration::from_millis(50));
    }
    drop(flood);
}

#[test]
fn the_server_refuses_to_bind_anything_but_loopback() {
    for address in ["0.0.0.0", "::", "::1", "127.0.0.2", "10.0.0.1"] {
        let config = ServerConfig { address: address.parse().unwrap(), ..ServerConfig::default() };
        let error = server::bind(config).unwrap_err();
        assert!(matches!(error, ServerError::NotLoopback(_)), "{address}: {error}");
    }
    let bad_origin =
        ServerConfig { extra_origins: vec!["not an origin".into()], ..ServerConfig::default() };
    assert!(matches!(server::bind(bad_origin), Err(ServerError::Origin(_))));
    let zero_workers = Limits { requests_in_processing_max: 0, ..Limits::DEFAULT };
    let error = server::bind(ServerConfig { limits: zero_workers, ..ServerConfig::default() });
    assert!(matches!(
        error,
        Err(ServerError::Limits(LimitsError::Zero("requests_in_processing_max")))
    ));
    // A response budget must hold a response head besides the largest event, so the server's
    // own fixed replies (its 503 included) always fit.
    let tiny_responses =
        Limits { response_bytes_max: 64, sse_event_bytes_max: 64, ..Limits::DEFAULT };
    let error = server::bind(ServerConfig { limits: tiny_responses, ..ServerConfig::default() });
    assert!(matches!(error, Err(ServerError::Limits(LimitsError::SseEventExceedsResponse))));
}

#[test]
fn extra_hosts_extend_the_host_allowlist_for_a_proxy_in_front() {
    let t = start_with(ServerConfig {
        extra_hosts: vec!["localhost:9".into()],
        ..ServerConfig::default()
    });
    assert_eq!(
        t.raw(&t.post_bytes_with_host(Role::Full, "localhost:9", init_body())).unwrap().status,
        200
    );
    // Discovery only under the canonical authority: its document names 127.0.0.1.
    let discovery = request(
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        &[("Host", "localhost:9")],
        b"",
    );
    let response = t.raw(&discovery).unwrap();
    assert_eq!((response.status, error_code(&response).as_str()), (421, "host_not_canonical"));
    assert_eq!(
        t.raw(&t.post_bytes_with_host(Role::Full, "localhost:10", init_body())).unwrap().status,
        421
    );
    let bad = ServerConfig { extra_hosts: vec!["a b".into()], ..ServerConfig::default() };
    assert!(matches!(server::bind(bad), Err(ServerError::Host(_))));
}

#[test]
fn probes_behind_stalled_final_writes_are_refused_at_once() {
    let limits = Limits { requests_per_connection_max: 1 << 20, ..Limits::DEFAULT };
    let workers = limits.requests_in_processing_max;
    let t = start_with(ServerConfig { limits, ..ServerConfig::default() });
    let discovery = req(&t, "GET", "/.well-known/oauth-protected-resource/mcp", &[], "");
    let last =
        req(&t, "GET", "/.well-known/oauth-protected-resource/mcp", &[("Connection", "close")], "");
    // Each connection asks for more than the socket buffers hold, the last answer closing it,
    // and never reads: every worker ends up stalled in writing its connection's answers.
    let mut flood = discovery.repeat(20000);
    flood.extend_from_slice(&last);
    let stalled: Vec<TcpStream> = (0..workers)
        .map(|_| {
            let mut stream = TcpStream::connect(t.server.address()).unwrap();
            stream.set_write_timeout(Some(Duration::from_millis(500))).unwrap();
            let _ = stream.write_all(&flood);
            stream
        })
        .collect();
    thread::sleep(Duration::from_millis(200));
    for probe in 0..5 {
        let started = Instant::now();
        let response = t.raw(&discovery).unwrap();
        let waited = started.elapsed();
        assert_eq!(
            (response.status, error_code(&response).as_str()),
            (503, "overloaded"),
            "{probe}"
        );
        assert!(waited < Duration::from_secs(1), "probe {probe} waited {waited:?}");
    }
    drop(stalled);
}
