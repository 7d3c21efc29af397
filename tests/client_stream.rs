//! The project's client reading streams that stay open, against a real server: events in hand
//! before the work ends, closing as cancellation in 2026-07-28 and as a pause in 2025-11-25
//! (resumed with `Last-Event-ID`), keep-alive comments skipped and counted, an idle timer that
//! a keep-alive resets, and a listen that sees a list change.

mod common;

use std::thread;
use std::time::{Duration, Instant};

use common::server::*;
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::mcp::McpClient;
use loopback_mcp_http::client::trace::Trace;
use loopback_mcp_http::endpoint::live::Stats;
use loopback_mcp_http::json::{Object, Value, members};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::revision::Versions;
use loopback_mcp_http::server::ServerConfig;

/// Long enough for any event that must come; never a bound on speed.
const PATIENCE: Duration = Duration::from_secs(10);

fn server(keepalive: Duration) -> TestServer {
    let limits =
        Limits { requests_in_processing_max: 16, stream_keepalive: keepalive, ..Limits::DEFAULT };
    start_with(ServerConfig { limits, versions: Versions::ALL, ..ServerConfig::default() })
}

fn client(t: &TestServer, versions: Versions) -> McpClient {
    let mut client = McpClient::new(t.server.address(), t.token(Role::Full), Trace::new(false));
    client.open(versions).unwrap();
    client
}

fn slow(steps: i64, pause_ms: i64) -> Object {
    members([("steps", steps.into()), ("pause_ms", pause_ms.into())])
}

fn method(message: &Value) -> &str {
    message.get("method").and_then(Value::as_str).unwrap_or("response")
}

fn progress(message: &Value) -> Option<i64> {
    message.get("params")?.get("progress")?.as_number()?.as_i64()
}

/// Waits until the server's counters say `done`.
fn stats_until(t: &TestServer, done: impl Fn(&Stats) -> bool) -> Stats {
    let started = Instant::now();
    loop {
        let stats = t.server.endpoint().live().stats();
        if done(&stats) || started.elapsed() > PATIENCE {
            return stats;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// How much later than the last event the first may be read, relative to when each was written:
/// scheduling on this machine, not the server's pacing.
const DELIVERY_SKEW: Duration = Duration::from_millis(5);

#[test]
fn progress_arrives_before_the_work_ends() {
    let t = server(Limits::DEFAULT.stream_keepalive);
    for versions in [Versions::LEGACY, Versions::MODERN] {
        let mut client = client(&t, versions);
        let started = Instant::now();
        let (head, _, mut reader) =
            client.call_tool_streaming("count_slowly", slow(3, 100), "p").unwrap();
        assert_eq!(head.field_str("transfer-encoding"), Some("chunked"));
        let first = reader.next_message(PATIENCE).unwrap().unwrap();
        let first_at = started.elapsed();
        let mut seen = vec![(method(&first).to_owned(), progress(&first))];
        while let Some(message) = reader.next_message(PATIENCE).unwrap() {
            seen.push((method(&message).to_owned(), progress(&message)));
        }
        let total = started.elapsed();
        let p = |n| ("notifications/progress".to_owned(), Some(n));
        assert_eq!(seen, [p(1), p(2), p(3), ("response".to_owned(), None)], "{versions:?}");
        // The server sleeps two pauses of 100 ms between writing the first event and the last.
        // This side reads each a little after it was written, the first at times a little later
        // than the last (seen: 0.07 ms), so the gap read here may fall short of the pauses by
        // that skew; a buffered answer would show no gap at all.
        let pauses = Duration::from_millis(200);
        assert!(total - first_at >= pauses - DELIVERY_SKEW, "{first_at:?} of {total:?}");
    }
}

#[test]
fn closing_after_step_two_cancels_in_2026_and_resumes_in_2025() {
    let t = server(Limits::DEFAULT.stream_keepalive);
    let mut modern = client(&t, Versions::MODERN);
    let (_, _, mut reader) = modern.call_tool_streaming("count_slowly", slow(6, 50), "m").unwrap();
    for step in 1..=2 {
        assert_eq!(progress(&reader.next_message(PATIENCE).unwrap().unwrap()), Some(step));
    }
    reader.close();
    let stats = stats_until(&t, |s| s.calls_cancelled == 1 && s.streams_open == 0);
    assert_eq!((stats.calls_cancelled, stats.calls_finished, stats.streams_open), (1, 0, 0));

    let mut legacy = client(&t, Versions::LEGACY);
    let (_, id, mut reader) = legacy.call_tool_streaming("count_slowly", slow(4, 50), "l").unwrap();
    for step in 1..=2 {
        assert_eq!(progress(&reader.next_message(PATIENCE).unwrap().unwrap()), Some(step));
    }
    let cursor = reader.last_event_id().unwrap().to_owned();
    reader.close();
    let resumed = legacy.resume(&cursor, &id).unwrap();
    let later: Vec<Option<i64>> = resumed.notifications.iter().map(progress).collect();
    assert_eq!(later, [Some(3), Some(4)]);
    let content = resumed.response.get("result").and_then(|r| r.get("content"));
    let first = content.and_then(Value::as_array).and_then(|c| c.first());
    let text = first.and_then(|c| c.get("text")).and_then(Value::as_str);
    assert_eq!(text, Some("counted to 4"));
    let stats = stats_until(&t, |s| s.calls_finished == 1);
    assert_eq!((stats.calls_cancelled, stats.calls_finished), (1, 1));
}

#[test]
fn a_keep_alive_resets_the_idle_timer_and_is_never_an_event() {
    // A 300 ms pause against a 200 ms idle timer: cut without keep-alives, whole with them.
    for (keepalive, whole) in [(Duration::from_secs(15), false), (Duration::from_millis(50), true)]
    {
        let t = server(keepalive);
        let mut client = client(&t, Versions::MODERN);
        let (_, _, mut reader) =
            client.call_tool_streaming("count_slowly", slow(1, 300), "k").unwrap();
        let idle = Duration::from_millis(200);
        let mut methods: Vec<&str> = Vec::new();
        let outcome = loop {
            match reader.next_message(idle) {
                Ok(Some(message)) => methods.push(match method(&message) {
                    "notifications/progress" => "notifications/progress",
                    "response" => "response",
                    _ => "other",
                }),
                Ok(None) => break "ended".to_owned(),
                Err(e) => break e.code().to_owned(),
            }
        };
        let expected: (&[&str], &str) = if whole {
            (&["notifications/progress", "response"], "ended")
        } else {
            (&[], "deadline_passed")
        };
        assert_eq!((methods.as_slice(), outcome.as_str()), expected, "keep-alive {keepalive:?}");
        assert_eq!(reader.comments() >= 3, whole, "{} comments", reader.comments());
    }
}

#[test]
fn a_listen_is_acknowledged_then_sees_a_list_change() {
    let t = server(Limits::DEFAULT.stream_keepalive);
    let mut client = client(&t, Versions::MODERN);
    let (head, id, mut reader) = client.listen().unwrap();
    assert_eq!(head.status, 200);
    let ack = reader.next_message(PATIENCE).unwrap().unwrap();
    assert_eq!(method(&ack), "notifications/subscriptions/acknowledged");
    t.server.endpoint().live().change_tools();
    let change = reader.next_message(PATIENCE).unwrap().unwrap();
    assert_eq!(method(&change), "notifications/tools/list_changed");
    let tag = change.get("params").and_then(|p| p.get("_meta"));
    let tag = tag.and_then(|m| m.get("io.modelcontextprotocol/subscriptionId"));
    assert_eq!(tag, Some(&id.to_value()));
    reader.close();
    let stats = stats_until(&t, |s| s.listens_open == 0);
    assert_eq!((stats.listens_open, stats.streams_open), (0, 0));
}
