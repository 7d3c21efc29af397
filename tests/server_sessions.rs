//! Sessions and the MCP subset over real round trips: initialize and version negotiation, the
//! version and session headers, ownership, lifetime, capacity, DELETE, the lifecycle, the methods,
//! Unicode principals and concurrent use.

mod common;

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::server::*;
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::ClientResponse;
use loopback_mcp_http::json::{self, Number, Object, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::jsonrpc::{self, Id};
use loopback_mcp_http::mcp::requests;
use loopback_mcp_http::server::ServerConfig;
use loopback_mcp_http::sse;

/// The id `-0`: an integer whose exact text is not that of its value.
fn minus_zero() -> Id {
    Id::Number(Number::parse("-0").expect("a JSON number"))
}

fn init_with_version(version: &str) -> String {
    json::encode(&requests::initialize(&Id::String("init".into()), version, CLIENT))
}

#[test]
fn initialize_answers_2025_11_25_whatever_version_is_proposed() {
    let t = start();
    for proposed in ["2025-11-25", "2026-07-28", "2025-03-26", "1999-01-01"] {
        let response =
            t.raw(&t.post_bytes(Role::Full, None, &init_with_version(proposed), &[])).unwrap();
        let session = response.field_str("mcp-session-id").expect("a session").to_owned();
        t.remember(&session);
        assert_eq!(
            (response.status, response.field_str("content-type")),
            (200, Some("application/json"))
        );
        assert_eq!(
            String::from_utf8_lossy(&response.body),
            r#"{"id":"init","jsonrpc":"2.0","result":{"capabilities":{"logging":{},"resources":{},"tools":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"loopback-mcp-http","version":"0.1.0"}}}"#
        );
        assert!(session.len() >= 32 && session.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    }
}

#[test]
fn session_ids_are_unique_and_unpredictable_looking() {
    let t = start_with(ServerConfig {
        limits: Limits {
            sessions_active_max: 64,
            sessions_per_principal_max: 64,
            ..Limits::DEFAULT
        },
        ..ServerConfig::default()
    });
    let mut ids = std::collections::BTreeSet::new();
    let mut conn = t.connect();
    for _ in 0..40 {
        let response =
            t.exchange(&mut conn, &t.post_bytes(Role::Full, None, init_body(), &[])).unwrap();
        let id = response.field_str("mcp-session-id").unwrap().to_owned();
        t.remember(&id);
        assert_eq!(id.len(), 48, "192 random bits in hex");
        assert!(ids.insert(id));
    }
}

#[test]
fn the_later_revisions_probe_gets_a_clean_400_and_no_session() {
    let t = start();
    let probe = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}"#;
    let host = t.host();
    let bearer = t.bearer(Role::Full);
    let base = vec![
        ("Host", host.as_str()),
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
        ("MCP-Protocol-Version", "2026-07-28"),
    ];
    let mut with_token = base.clone();
    with_token.push(("Authorization", bearer.as_str()));
    for fields in [base, with_token] {
        let bytes = loopback_mcp_http::client::request("POST", "/mcp", &fields, probe.as_bytes());
        let mut conn = t.connect();
        let response = t.exchange(&mut conn, &bytes).unwrap();
        assert_eq!(
            (response.status, error_code(&response).as_str()),
            (400, "protocol_version_unsupported")
        );
        assert_eq!(response.field_count("mcp-session-id"), 0);
        assert_eq!(response.field_count("www-authenticate"), 0);
        assert!(conn.is_closed_by_peer());
    }
    assert_eq!(t.server.endpoint().live_sessions(Instant::now()), 0);
}

#[test]
fn the_version_header_is_optional_on_initialize_and_required_after() {
    let t = start();
    let session = t.open_session(Role::Full);
    // On initialize: absent or 2025-11-25 is fine; anything else is 400 and creates nothing.
    for (version, status) in
        [("2025-11-25", 200), ("2026-07-28", 400), ("2025-06-18", 400), ("", 400)]
    {
        let response = t
            .raw(&t.post_bytes(Role::Full, None, init_body(), &[("MCP-Protocol-Version", version)]))
            .unwrap();
        assert_eq!(response.status, status, "{version:?}");
        if let Some(id) = response.field_str("mcp-session-id") {
            t.remember(id);
        }
    }
    // After initialize: required, exactly once, exactly 2025-11-25 (GET and DELETE too).
    let host = t.host();
    let bearer = t.bearer(Role::Full);
    // (what, extra fields, public code)
    type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, &'a str);
    let cases: Vec<Case> = vec![
        ("missing", vec![], "protocol_version_missing"),
        (
            "later revision",
            vec![("MCP-Protocol-Version", "2026-07-28")],
            "protocol_version_unsupported",
        ),
        ("older", vec![("MCP-Protocol-Version", "2025-03-26")], "protocol_version_unsupported"),
        (
            "twice",
            vec![("MCP-Protocol-Version", "2025-11-25"), ("MCP-Protocol-Version", "2025-11-25")],
            "protocol_version_repeated",
        ),
    ];
    for (name, extra, code) in cases {
        for method in ["POST", "GET", "DELETE"] {
            let mut fields = vec![
                ("Host", host.as_str()),
                ("Authorization", bearer.as_str()),
                ("MCP-Session-Id", session.as_str()),
                ("Accept", "application/json, text/event-stream"),
            ];
            let body = if method == "POST" {
                fields.push(("Content-Type", "application/json"));
                ping_body()
            } else {
                ""
            };
            fields.extend(extra.iter().copied());
            let bytes =
                loopback_mcp_http::client::request(method, "/mcp", &fields, body.as_bytes());
            let response = t.raw(&bytes).unwrap();
            assert_eq!(
                (response.status, error_code(&response).as_str()),
                (400, code),
                "{name} {method}"
            );
        }
    }
    // The session survived all of that.
    assert_eq!(
        t.raw(&t.post_bytes(Role::Full, Some(&session), ping_body(), &[])).unwrap().status,
        200
    );
}

#[test]
fn a_session_id_must_be_present_once_and_well_formed() {
    let t = start();
    let session = t.open_session(Role::Full);
    let ping = |extra: &[(&str, &str)]| {
        let mut bytes =
            t.post_bytes(Role::Full, None, ping_body(), &[("MCP-Protocol-Version", "2025-11-25")]);
        if !extra.is_empty() {
            bytes = t.post_bytes(
                Role::Full,
                None,
                ping_body(),
                &[&[("MCP-Protocol-Version", "2025-11-25")], extra].concat(),
            );
        }
        t.raw(&bytes).unwrap()
    };
    let long = "a".repeat(129);
    type Case<'a> = (Vec<(&'a str, &'a str)>, u16, &'a str);
    let cases: Vec<Case> = vec![
        (vec![], 400, "session_missing"),
        (vec![("MCP-Session-Id", long.as_str())], 400, "session_malformed"),
        (vec![("MCP-Session-Id", "has space")], 400, "session_malformed"),
        (vec![("MCP-Session-Id", "caf\u{e9}")], 400, "session_malformed"),
        (
            vec![("MCP-Session-Id", session.as_str()), ("MCP-Session-Id", session.as_str())],
            400,
            "session_malformed",
        ),
        (
            vec![("MCP-Session-Id", "0123456789abcdef0123456789abcdef0123456789abcdef")],
            404,
            "session_not_found",
        ),
        (vec![("MCP-Session-Id", "x")], 404, "session_not_found"),
    ];
    for (extra, status, code) in cases {
        let response = ping(&extra);
        assert_eq!((response.status, error_code(&response).as_str()), (status, code), "{extra:?}");
    }
    // initialize must not carry one.
    let response = t
        .raw(&t.post_bytes(Role::Full, None, init_body(), &[("MCP-Session-Id", &session)]))
        .unwrap();
    assert_eq!((response.status, error_code(&response).as_str()), (400, "session_on_initialize"));
}

#[test]
fn a_session_belongs_to_its_principal_and_looks_missing_to_anyone_else() {
    let t = start();
    let alice = t.open_session(Role::Full);
    let mallory = t.open_session(Role::OtherSubject);
    for (role, session, status) in [
        (Role::Full, &alice, 200),
        (Role::ConnectOnly, &alice, 200),
        (Role::OtherSubject, &alice, 404),
        (Role::Unicode, &alice, 404),
        (Role::TenantDenied, &alice, 404),
        (Role::Full, &mallory, 404),
        (Role::OtherSubject, &mallory, 200),
    ] {
        let response = t.raw(&t.post_bytes(role, Some(session), ping_body(), &[])).unwrap();
        assert_eq!(response.status, status, "{} on a session", role.name());
        if status == 404 {
            assert_eq!(error_code(&response), "session_not_found");
        }
    }
    // DELETE by someone else ends nothing.
    let response = t.raw(&t.session_bytes("DELETE", Role::OtherSubject, &alice, &[])).unwrap();
    assert_eq!(response.status, 404);
    assert_eq!(
        t.raw(&t.post_bytes(Role::Full, Some(&alice), ping_body(), &[])).unwrap().status,
        200
    );
}

#[test]
fn delete_ends_the_session_for_every_method() {
    let t = start();
    let session = t.open_session(Role::Full);
    let response = t.raw(&t.session_bytes("DELETE", Role::Full, &session, &[])).unwrap();
    assert_eq!((response.status, response.body.len()), (204, 0));
    for bytes in [
        t.post_bytes(Role::Full, Some(&session), ping_body(), &[]),
        t.post_bytes(Role::Full, Some(&session), list_body(), &[]),
        t.session_bytes("GET", Role::Full, &session, &[]),
        t.session_bytes("DELETE", Role::Full, &session, &[]),
    ] {
        let response = t.raw(&bytes).unwrap();
        assert_eq!((response.status, error_code(&response).as_str()), (404, "session_not_found"));
    }
}

#[test]
fn a_keep_alive_connection_sees_what_another_did_to_its_session_as_a_new_one_would() {
    // A connection keeps the session it found last; whatever happened to that session since,
    // its next request gets exactly what the same request on a new connection gets.
    type Case = (&'static str, fn(&TestServer, &str), Role, &'static str, u16, &'static str);
    let cases: [Case; 6] = [
        ("nothing", |_, _| {}, Role::Full, "ping", 200, ""),
        (
            "nothing, then someone else asks",
            |_, _| {},
            Role::OtherSubject,
            "ping",
            404,
            "session_not_found",
        ),
        ("a DELETE on another connection", delete, Role::Full, "ping", 404, "session_not_found"),
        ("a DELETE, then a GET", delete, Role::Full, "GET", 404, "session_not_found"),
        ("a DELETE, then a DELETE", delete, Role::Full, "DELETE", 404, "session_not_found"),
        ("the principal's revision moves on", bump, Role::Full, "ping", 401, "invalid_token"),
    ];
    fn delete(t: &TestServer, session: &str) {
        let response = t.raw(&t.session_bytes("DELETE", Role::Full, session, &[])).unwrap();
        assert_eq!(response.status, 204);
    }
    fn bump(t: &TestServer, _: &str) {
        assert!(Role::Full.bump_revision_in(&mut t.server.endpoint().policy_mut()).is_some());
    }
    for (event, happen, role, request, status, code) in cases {
        let t = start();
        let session = t.open_session(Role::Full);
        let mut kept = t.connect();
        let first =
            t.exchange(&mut kept, &t.post_bytes(Role::Full, Some(&session), ping_body(), &[]));
        assert_eq!(first.unwrap().status, 200, "{event}");
        happen(&t, &session);
        let bytes = match request {
            "ping" => t.post_bytes(role, Some(&session), ping_body(), &[]),
            method => t.session_bytes(method, role, &session, &[]),
        };
        let on_kept = t.exchange(&mut kept, &bytes).unwrap();
        let on_new = t.raw(&bytes).unwrap();
        let got = |r: &ClientResponse| {
            let code =
                if r.status >= 400 && !r.body.is_empty() { error_code(r) } else { String::new() };
            (r.status, code)
        };
        assert_eq!(got(&on_kept), (status, code.to_owned()), "after: {event}");
        assert_eq!(got(&on_kept), got(&on_new), "after: {event}");
    }
}

#[test]
fn an_expired_session_is_gone_over_the_socket_too() {
    // The exact lifetime, used or not, is checked with an injected clock (tests/endpoint.rs);
    // here only that expiry reaches the wire, waiting well past it.
    let limits = Limits { session_ttl: Duration::from_millis(300), ..Limits::DEFAULT };
    let t = start_with(ServerConfig { limits, ..ServerConfig::default() });
    let session = t.open_session(Role::Full);
    thread::sleep(Duration::from_millis(300));
    let ping = || t.raw(&t.post_bytes(Role::Full, Some(&session), ping_body(), &[])).unwrap();
    let started = Instant::now();
    let mut response = ping();
    while response.status == 200 && started.elapsed() < Duration::from_secs(5) {
        thread::sleep(Duration::from_millis(20));
        response = ping();
    }
    assert_eq!((response.status, error_code(&response).as_str()), (404, "session_not_found"));
}

#[test]
fn capacity_full_fails_closed_and_allocates_nothing() {
    let limits = Limits { sessions_active_max: 3, ..Limits::DEFAULT };
    let t = start_with(ServerConfig { limits, ..ServerConfig::default() });
    let sessions: Vec<String> = (0..3).map(|_| t.open_session(Role::Full)).collect();
    for _ in 0..3 {
        let response = t.raw(&t.post_bytes(Role::Full, None, init_body(), &[])).unwrap();
        assert_eq!((response.status, error_code(&response).as_str()), (503, "session_capacity"));
        assert_eq!(response.field_count("mcp-session-id"), 0);
    }
    assert_eq!(t.server.endpoint().live_sessions(Instant::now()), 3);
    // Existing sessions keep working; ending one frees a place.
    assert_eq!(
        t.raw(&t.post_bytes(Role::Full, Some(&sessions[0]), ping_body(), &[])).unwrap().status,
        200
    );
    assert_eq!(
        t.raw(&t.session_bytes("DELETE", Role::Full, &sessions[0], &[])).unwrap().status,
        204
    );
    t.open_session(Role::Full);
}

#[test]
fn rejected_initializes_never_leave_a_session_behind() {
    let t = start();
    let bad_params =
        r#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"capabilities":{}}}"#;
    let response = t.raw(&t.post_bytes(Role::Full, None, bad_params, &[])).unwrap();
    assert_eq!(
        (response.status, String::from_utf8_lossy(&response.body).as_ref()),
        (
            200,
            r#"{"error":{"code":-32602,"message":"initialize_params_invalid"},"id":7,"jsonrpc":"2.0"}"#
        )
    );
    for bytes in [
        t.post_bytes(Role::Expired, None, init_body(), &[]),
        t.post_bytes(Role::Full, None, init_body(), &[("MCP-Protocol-Version", "2026-07-28")]),
        t.post_bytes(Role::Full, None, init_body(), &[("Origin", "http://evil.example")]),
        t.post_bytes(Role::Full, None, bad_params, &[]),
    ] {
        let response = t.raw(&bytes).unwrap();
        assert_eq!(response.field_count("mcp-session-id"), 0);
    }
    assert_eq!(t.server.endpoint().live_sessions(Instant::now()), 0);
}

#[test]
fn the_lifecycle_allows_only_ping_before_initialized() {
    let t = start();
    let response = t.raw(&t.post_bytes(Role::Full, None, init_body(), &[])).unwrap();
    let session = response.field_str("mcp-session-id").unwrap().to_owned();
    t.remember(&session);
    let ping = t.raw(&t.post_bytes(Role::Full, Some(&session), ping_body(), &[])).unwrap();
    assert_eq!(ping.status, 200);
    let list = t.raw(&t.post_bytes(Role::Full, Some(&session), list_body(), &[])).unwrap();
    assert_eq!((list.status, error_code(&list).as_str()), (400, "not_initialized"));
    let initialized =
        t.raw(&t.post_bytes(Role::Full, Some(&session), initialized_body(), &[])).unwrap();
    assert_eq!((initialized.status, initialized.body.len()), (202, 0));
    assert_eq!(
        t.raw(&t.post_bytes(Role::Full, Some(&session), list_body(), &[])).unwrap().status,
        200
    );
}

#[test]
fn jsonrpc_responses_from_the_client_are_refused_and_other_notifications_accepted() {
    let t = start();
    let session = t.open_session(Role::Full);
    let cases: [(&str, u16, &str); 3] = [
        (r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, 400, "unsolicited_response"),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}"#,
            400,
            "unsolicited_response",
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            202,
            "",
        ),
    ];
    for (body, status, code) in cases {
        let response = t.raw(&t.post_bytes(Role::Full, Some(&session), body, &[])).unwrap();
        assert_eq!(response.status, status, "{body}");
        if status == 400 {
            assert_eq!(error_code(&response), code);
        } else {
            assert!(response.body.is_empty());
        }
    }
}

#[test]
fn methods_answer_with_exact_bodies() {
    let t = start();
    let session = t.open_session(Role::Full);
    let cases: [(Value, &str); 8] = [
        (requests::ping(&Id::from(2)), r#"{"id":2,"jsonrpc":"2.0","result":{}}"#),
        (
            requests::set_log_level(&Id::from(4), "warning"),
            r#"{"id":4,"jsonrpc":"2.0","result":{}}"#,
        ),
        (
            requests::set_log_level(&Id::from(5), "loud"),
            r#"{"error":{"code":-32602,"message":"log_level_invalid"},"id":5,"jsonrpc":"2.0"}"#,
        ),
        (
            jsonrpc::request(&Id::String("x".into()), "prompts/list", Object::new()),
            r#"{"error":{"code":-32601,"message":"method_not_found"},"id":"x","jsonrpc":"2.0"}"#,
        ),
        (
            requests::list_tools(&Id::from(7)),
            r#"{"id":7,"jsonrpc":"2.0","result":{"tools":[{"description":"Closes its event stream after the priming event; the result arrives when the client resumes with Last-Event-ID","inputSchema":{"properties":{},"type":"object"},"name":"test_reconnection"},{"description":"Counts to steps, pause_ms apart, with a progress notification per step when the request carries a progressToken; its event stream stays open while it counts","inputSchema":{"properties":{"pause_ms":{"description":"Milliseconds between two steps, 0 to 1000 (100 when absent)","type":"integer"},"steps":{"description":"How many steps, 1 to 20","type":"integer"}},"required":["steps"],"type":"object"},"name":"count_slowly"},{"description":"Three steps 50 ms apart, reporting progress 0, 50 and 100 of 100","inputSchema":{"properties":{},"type":"object"},"name":"test_tool_with_progress"},{"description":"Answers at once with one text item","inputSchema":{"properties":{},"type":"object"},"name":"test_tool_fast"},{"description":"Works durationMs milliseconds on an event stream, writing at every step (its progress, or a keep-alive), and honours a cancellation within a step","inputSchema":{"properties":{"durationMs":{"description":"How long the call works, in milliseconds, 0 to the server's budget","type":"integer"}},"required":["durationMs"],"type":"object"},"name":"test_tool_slow"}]}}"#,
        ),
        (
            requests::call_tool(&Id::from(8), "other_tool"),
            r#"{"error":{"code":-32602,"message":"tool_unknown"},"id":8,"jsonrpc":"2.0"}"#,
        ),
        (
            jsonrpc::request(&Id::from(6), "server/discover", Object::new()),
            r#"{"error":{"code":-32601,"message":"method_not_found"},"id":6,"jsonrpc":"2.0"}"#,
        ),
        // An integer id comes back exactly as it was written.
        (requests::ping(&minus_zero()), r#"{"id":-0,"jsonrpc":"2.0","result":{}}"#),
    ];
    for (message, expected) in cases {
        let body = json::encode(&message);
        let response = t.raw(&t.post_bytes(Role::Full, Some(&session), &body, &[])).unwrap();
        assert_eq!(
            (response.status, response.field_str("content-type")),
            (200, Some("application/json"))
        );
        assert_eq!(String::from_utf8_lossy(&response.body), expected);
    }
}

#[test]
fn resources_list_is_an_event_stream_carrying_the_response_with_the_same_id() {
    let t = start();
    for (role, segment) in [
        (Role::Full, "acme"),
        (Role::Unicode, "%C3%9Cn%C3%AFc%C3%B8d%C3%A9%2F%E6%9D%B1%E4%BA%AC%3F%23tenant"),
    ] {
        let session = t.open_session(role);
        let response = t.raw(&t.post_bytes(role, Some(&session), list_body(), &[])).unwrap();
        assert_eq!(
            (response.status, response.field_str("content-type")),
            (200, Some("text/event-stream"))
        );
        let events = sse::parse_stream(&response.body, &Limits::DEFAULT).unwrap();
        assert_eq!(events.len(), 2, "a priming event, then the response");
        let prime = &events[0];
        assert!(prime.id.as_deref().is_some_and(|id| id.ends_with("-p1-1")), "{prime:?}");
        assert_eq!((prime.data.as_deref(), prime.retry), (Some(""), Some(1000)));
        assert!(events[1].id.as_deref().is_some_and(|id| id.ends_with("-p1-2")), "{events:?}");
        let message = json::decode(
            events[1].data.as_deref().unwrap().as_bytes(),
            Limits::DEFAULT.json_depth_max,
        )
        .unwrap();
        assert_eq!(message.get("id"), Some(&Value::from(3i64)));
        let resources = message
            .get("result")
            .and_then(|r| r.get("resources"))
            .and_then(Value::as_array)
            .unwrap();
        let uris: Vec<&str> =
            resources.iter().filter_map(|r| r.get("uri").and_then(Value::as_str)).collect();
        assert_eq!(
            uris,
            vec![format!("kb://tenant/{segment}/handbook"), format!("kb://tenant/{segment}/faq")]
        );
    }
}

#[test]
fn thirty_two_concurrent_pings_in_one_session_are_all_answered() {
    let t = Arc::new(start_with(ServerConfig::default()));
    let session = Arc::new(t.open_session(Role::Full));
    let handles: Vec<_> = (0..32)
        .map(|i| {
            let (t, session) = (Arc::clone(&t), Arc::clone(&session));
            thread::spawn(move || {
                let response = t
                    .raw(&t.post_bytes(Role::Full, Some(&session), &ping_with_id(i), &[]))
                    .unwrap();
                (response.status, String::from_utf8(response.body).unwrap(), i)
            })
        })
        .collect();
    for handle in handles {
        let (status, body, i) = handle.join().unwrap();
        assert_eq!((status, body), (200, empty_result(i)));
    }
}

#[test]
fn sessions_of_different_principals_work_side_by_side_under_concurrency() {
    let t = Arc::new(start_with(ServerConfig::default()));
    let handles: Vec<_> = [Role::Full, Role::OtherSubject, Role::Unicode, Role::ConnectOnly]
        .into_iter()
        .map(|role| {
            let t = Arc::clone(&t);
            thread::spawn(move || {
                let session = t.open_session(role);
                let mut conn = t.connect();
                for _ in 0..20 {
                    let response = t
                        .exchange(&mut conn, &t.post_bytes(role, Some(&session), ping_body(), &[]))
                        .unwrap();
                    assert_eq!(response.status, 200);
                }
                assert_eq!(
                    t.raw(&t.session_bytes("DELETE", role, &session, &[])).unwrap().status,
                    204
                );
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    assert_eq!(t.server.endpoint().live_sessions(Instant::now()), 0);
}

#[test]
fn one_principal_never_holds_every_slot_and_others_can_still_open_sessions() {
    let t = start();
    let quota = Limits::DEFAULT.sessions_per_principal_max;
    assert!(quota < Limits::DEFAULT.sessions_active_max);
    for _ in 0..quota {
        t.open_session(Role::Full);
    }
    let refused = t.raw(&t.post_bytes(Role::Full, None, init_body(), &[])).unwrap();
    assert_eq!((refused.status, error_code(&refused).as_str()), (429, "session_quota"));
    let seconds: u64 = refused.field_str("retry-after").unwrap().parse().unwrap();
    assert!((1..=Limits::DEFAULT.session_ttl.as_secs()).contains(&seconds), "{seconds}");
    assert_eq!(refused.field_count("mcp-session-id"), 0);
    t.open_session(Role::OtherSubject);
}

#[test]
fn a_full_table_answers_503_with_retry_after() {
    let t = start_with(ServerConfig {
        limits: Limits { sessions_active_max: 2, ..Limits::DEFAULT },
        ..ServerConfig::default()
    });
    t.open_session(Role::Full);
    t.open_session(Role::OtherSubject);
    let refused = t.raw(&t.post_bytes(Role::TenantDenied, None, init_body(), &[])).unwrap();
    assert_eq!((refused.status, error_code(&refused).as_str()), (503, "session_capacity"));
    let seconds: u64 = refused.field_str("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&seconds), "{seconds}");
}
