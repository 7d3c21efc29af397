//! Cancellation over real sockets. In 2025-11-25 a `notifications/cancelled` reaches the request
//! in progress under its id in its own session, and nothing else: not an unknown or finished id,
//! not another session's request, not another principal's. In 2026-07-28 closing the stream is
//! the signal, and a `notifications/cancelled` POST is accepted and ignored. And the conformance
//! suite's two tools the rules are shown with, `test_tool_fast` and `test_tool_slow`.

mod common;

use std::thread;
use std::time::{Duration, Instant};

use common::server::*;
use common::wire::*;
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::revision::Versions;
use loopback_mcp_http::server::ServerConfig;

fn server(limits: Limits) -> TestServer {
    // Room for the parallel cases' sessions, and 8 open streams for one principal.
    let limits = Limits {
        requests_in_processing_max: 64,
        sessions_active_max: 32,
        sessions_per_principal_max: 16,
        ..limits
    };
    start_with(ServerConfig { limits, versions: Versions::ALL, ..ServerConfig::default() })
}

/// The params of a `test_tool_slow` call of `ms` milliseconds.
fn slow(ms: &str) -> String {
    format!(r#""arguments":{{"durationMs":{ms}}},"name":"test_tool_slow""#)
}

const FAST: &str = r#""arguments":{},"name":"test_tool_fast""#;

/// A 2025-11-25 `tools/call` with id `id` in `session`.
fn call(t: &TestServer, role: Role, session: &str, id: u64, params: &str) -> Vec<u8> {
    let body =
        format!(r#"{{"id":{id},"jsonrpc":"2.0","method":"tools/call","params":{{{params}}}}}"#);
    t.post_bytes(role, Some(session), &body, &[])
}

/// The status of a `notifications/cancelled` for `id` in `session`.
fn cancel(t: &TestServer, role: Role, session: &str, id: u64) -> u16 {
    let body = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"reason":"test","requestId":{id}}}}}"#
    );
    t.raw(&t.post_bytes(role, Some(session), &body, &[])).unwrap().status
}

#[test]
fn the_conformance_tools_answer_in_both_eras_and_the_slow_one_streams_at_once() {
    let t = server(Limits::DEFAULT);
    let session = t.open_session(Role::Full);
    let legacy = t.raw(&call(&t, Role::Full, &session, 3, FAST)).unwrap();
    let modern_fast = t.raw(&modern(&t, Role::Full, "tools/call", FAST, "")).unwrap();
    for (era, answer) in [("2025-11-25", legacy), ("2026-07-28", modern_fast)] {
        let body = String::from_utf8_lossy(&answer.body).into_owned();
        assert_eq!(answer.status, 200, "{era}");
        assert!(body.contains(r#"{"text":"answered at once","type":"text"}"#), "{era}: {body}");
    }
    // Ten seconds of work: the first event of each stream comes at once.
    for request in [
        call(&t, Role::Full, &session, 4, &slow("10000")),
        modern(&t, Role::Full, "tools/call", &slow("10000"), ""),
    ] {
        let started = Instant::now();
        let first = Wire::open(&t, &request).until("data:", 1);
        assert!(started.elapsed() < Duration::from_secs(3), "{first}");
        assert!(first.contains("Content-Type: text/event-stream\r\n"), "{first}");
    }
}

/// A 2025-11-25 slow call, its cancellation, and what became of the call.
struct Attempt {
    /// Who cancels, in which session (`None`: the caller's own).
    canceller: (Role, Option<&'static str>),
    /// The id the cancellation names: the call's (1) or another.
    names: u64,
    /// The call ends without a result.
    stops: bool,
}

/// The call `attempt` makes, cancelled as it says: the cancellation's status, whether the call
/// ended without a result, and how long after the cancellation its stream ended.
fn run(t: &TestServer, attempt: &Attempt) -> (u16, bool, Duration) {
    let session = t.open_session(Role::Full);
    let mut wire = Wire::open(t, &call(t, Role::Full, &session, 1, &slow("600")));
    wire.until("data:", 1);
    let (role, elsewhere) = attempt.canceller;
    let other = elsewhere.map(|_| t.open_session(role));
    let status = cancel(t, role, other.as_deref().unwrap_or(&session), attempt.names);
    let sent = Instant::now();
    let seen = wire.until("\r\n0\r\n\r\n", 1);
    (status, !seen.contains(r#""result""#), sent.elapsed())
}

#[test]
fn a_cancellation_reaches_its_own_sessions_request_in_progress_and_nothing_else() {
    let t = server(Limits::DEFAULT);
    let cases: [(&str, Attempt); 4] = [
        ("in progress", Attempt { canceller: (Role::Full, None), names: 1, stops: true }),
        ("an unknown id", Attempt { canceller: (Role::Full, None), names: 9, stops: false }),
        (
            "another session of the same principal",
            Attempt { canceller: (Role::Full, Some("own")), names: 1, stops: false },
        ),
        (
            "another principal",
            Attempt { canceller: (Role::OtherSubject, Some("own")), names: 1, stops: false },
        ),
    ];
    let results: Vec<(u16, bool, Duration)> = thread::scope(|scope| {
        let runs: Vec<_> = cases.iter().map(|(_, a)| scope.spawn(|| run(&t, a))).collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    for ((what, attempt), (status, stopped, after)) in cases.iter().zip(results) {
        assert_eq!((status, stopped), (202, attempt.stops), "{what}");
        if attempt.stops {
            assert!(after < Duration::from_millis(1500), "{what}: ended {after:?} later");
        }
    }
    let stats = eventually(&t, |s| s.calls_cancelled + s.calls_finished == 4);
    assert_eq!((stats.calls_cancelled, stats.calls_finished), (1, 3));
    // A finished request's id, and a burst of unknown ones: 202 each, nothing changes.
    let session = t.open_session(Role::Full);
    let done = t.raw(&call(&t, Role::Full, &session, 5, &slow("0"))).unwrap();
    assert!(String::from_utf8_lossy(&done.body).contains(r#""result""#));
    for id in [5, 11, 12, 13, 14, 15] {
        assert_eq!(cancel(&t, Role::Full, &session, id), 202, "{id}");
    }
    let fast = t.raw(&call(&t, Role::Full, &session, 6, FAST)).unwrap();
    assert!(String::from_utf8_lossy(&fast.body).contains("answered at once"));
    assert_eq!(stats_now(&t), (1, 4));
}

fn stats_now(t: &TestServer) -> (u64, u64) {
    let s = stats(t);
    (s.calls_cancelled, s.calls_finished)
}

#[test]
fn a_cancelled_2025_stream_is_resumed_without_a_result() {
    let t = server(Limits::DEFAULT);
    let session = t.open_session(Role::Full);
    let mut wire = Wire::open(&t, &call(&t, Role::Full, &session, 1, &slow("10000")));
    let prime = wire.until("data:", 1);
    let prime_id = prime.lines().find_map(|l| l.strip_prefix("id: ")).unwrap().to_owned();
    drop(wire);
    assert_eq!(cancel(&t, Role::Full, &session, 1), 202);
    eventually(&t, |s| s.calls_cancelled == 1);
    let resume = t.session_bytes("GET", Role::Full, &session, &[("Last-Event-ID", &prime_id)]);
    let answer = t.raw(&resume).unwrap();
    assert_eq!(answer.status, 204, "{}", String::from_utf8_lossy(&answer.body));
}

#[test]
fn closing_a_2026_stream_cancels_it_and_a_cancellation_post_is_ignored() {
    let t = server(Limits::DEFAULT);
    let request = modern(&t, Role::Full, "tools/call", &slow("10000"), "");
    let mut wire = Wire::open(&t, &request);
    wire.until("data:", 1);
    drop(wire);
    let started = Instant::now();
    eventually(&t, |s| s.calls_cancelled == 1);
    assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    // Five opened and closed in a row: nothing stays open, and the fast tool answers.
    for _ in 0..5 {
        let mut wire = Wire::open(&t, &request);
        assert!(wire.until("\r\n\r\n", 1).starts_with("HTTP/1.1 200 OK\r\n"));
    }
    let after = eventually(&t, |s| s.calls_cancelled == 6 && s.streams_open == 0);
    assert_eq!((after.calls_cancelled, after.streams_open), (6, 0));
    let fast = t.raw(&modern(&t, Role::Full, "tools/call", FAST, "")).unwrap();
    assert_eq!(fast.status, 200);
    // This revision's signal is the close: a `notifications/cancelled` POST changes nothing.
    let mut wire = Wire::open(&t, &modern(&t, Role::Full, "tools/call", &slow("300"), ""));
    wire.until("data:", 1);
    let note = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#;
    let extra = [("MCP-Protocol-Version", MODERN)];
    assert_eq!(t.raw(&t.post_bytes(Role::Full, None, note, &extra)).unwrap().status, 202);
    assert!(wire.until("\r\n0\r\n\r\n", 1).contains(r#""result""#));
}

#[test]
fn slow_tool_durations_hold_at_their_budget_and_are_refused_one_past() {
    let t = server(Limits {
        test_tool_slow_duration_max: Duration::from_millis(40),
        ..Limits::DEFAULT
    });
    let cases: [(&str, &str); 5] = [
        ("40", r#""result""#),
        ("0", r#""result""#),
        ("41", r#""code":-32602,"message":"duration_invalid""#),
        ("-1", r#""code":-32602,"message":"duration_invalid""#),
        (r#""40""#, r#""code":-32602,"message":"duration_invalid""#),
    ];
    for (duration, expected) in cases {
        let seen = Wire::open(&t, &modern(&t, Role::Full, "tools/call", &slow(duration), ""))
            .until(expected, 1);
        assert!(seen.starts_with("HTTP/1.1 200 OK\r\n"), "{duration}: {seen}");
    }
}
