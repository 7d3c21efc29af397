//! The GET notification stream over real round trips: one event per poll with `retry`, no
//! cursorless replay, `Last-Event-ID` recovery within the session's GET stream only, and the
//! bound on kept events.

mod common;

use common::server::*;
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::jsonrpc::Id;
use loopback_mcp_http::mcp::requests;
use loopback_mcp_http::sse::{self, Event};

/// Opens the GET stream and parses it.
fn get(t: &TestServer, session: &str, extra: &[(&str, &str)]) -> (u16, Vec<Event>) {
    let response = t.raw(&t.session_bytes("GET", Role::Full, session, extra)).unwrap();
    if response.status != 200 {
        return (response.status, Vec::new());
    }
    assert_eq!(response.field_str("content-type"), Some("text/event-stream"));
    (200, sse::parse_stream(&response.body, &Limits::DEFAULT).unwrap())
}

fn event_name(event: &Event) -> String {
    let message = json::decode(
        event.data.as_deref().unwrap_or("").as_bytes(),
        Limits::DEFAULT.json_depth_max,
    )
    .unwrap();
    assert_eq!(message.get("method").and_then(Value::as_str), Some("notifications/message"));
    assert!(message.get("id").is_none(), "a GET stream never carries a JSON-RPC response");
    message
        .get("params")
        .and_then(|p| p.get("data"))
        .and_then(|d| d.get("event"))
        .and_then(Value::as_str)
        .unwrap()
        .to_owned()
}

fn list(t: &TestServer, session: &str) -> Vec<Event> {
    let response = t.raw(&t.post_bytes(Role::Full, Some(session), list_body(), &[])).unwrap();
    assert_eq!(response.status, 200);
    sse::parse_stream(&response.body, &Limits::DEFAULT).unwrap()
}

#[test]
fn a_poll_delivers_the_next_event_with_retry_then_never_again() {
    let t = start();
    let session = t.open_session(Role::Full);
    let (status, events) = get(&t, &session, &[]);
    assert_eq!(status, 200);
    assert_eq!(events.len(), 1);
    assert_eq!(event_name(&events[0]), "session_started");
    assert_eq!(events[0].retry, Some(1000));
    assert!(events[0].id.as_deref().unwrap().ends_with("-g1"));
    // At most once: a second cursorless poll does not replay it; the stream holds only retry.
    let (_, events) = get(&t, &session, &[]);
    assert_eq!(events, vec![Event { retry: Some(1000), ..Event::default() }]);
}

#[test]
fn last_event_id_returns_only_later_events_of_the_get_stream() {
    let t = start();
    let session = t.open_session(Role::Full);
    let (_, first) = get(&t, &session, &[]);
    let cursor = first[0].id.clone().unwrap();
    list(&t, &session);
    list(&t, &session);
    let (status, replayed) = get(&t, &session, &[("Last-Event-ID", &cursor)]);
    assert_eq!(status, 200);
    let names: Vec<String> = replayed.iter().map(event_name).collect();
    assert_eq!(names, vec!["resources_listed", "resources_listed"]);
    let ids: Vec<&str> = replayed.iter().filter_map(|e| e.id.as_deref()).collect();
    assert!(ids[0].ends_with("-g2") && ids[1].ends_with("-g3"), "{ids:?}");
    // Recovering from the same cursor again works (replay is by cursor, not by delivery).
    let (_, again) = get(&t, &session, &[("Last-Event-ID", &cursor)]);
    assert_eq!(again.len(), 2);
    // The replay counted as delivery: a cursorless poll has nothing new.
    assert_eq!(get(&t, &session, &[]).1, vec![Event { retry: Some(1000), ..Event::default() }]);
}

#[test]
fn cursors_from_post_streams_or_other_sessions_are_refused_and_replay_nothing() {
    let t = start();
    let session = t.open_session(Role::Full);
    let other = t.open_session(Role::Full);
    let post_id = list(&t, &session)[0].id.clone().unwrap();
    let (_, other_events) = get(&t, &other, &[]);
    let other_id = other_events[0].id.clone().unwrap();
    let own_tag = post_id.split('-').next().unwrap().to_owned();
    let future = format!("{own_tag}-g99");
    let cases: [(&str, &str); 5] = [
        (&post_id, "last_event_id_post_stream"),
        (&other_id, "last_event_id_other_session"),
        (&future, "last_event_id_not_issued"),
        ("garbage", "last_event_id_malformed"),
        ("1", "last_event_id_malformed"),
    ];
    for (cursor, code) in cases {
        let response = t
            .raw(&t.session_bytes("GET", Role::Full, &session, &[("Last-Event-ID", cursor)]))
            .unwrap();
        assert_eq!((response.status, error_code(&response).as_str()), (400, code), "{cursor}");
    }
    // Nothing was replayed or consumed by those refusals.
    let (_, events) = get(&t, &session, &[]);
    assert_eq!(event_name(&events[0]), "session_started");
}

#[test]
fn event_ids_are_unique_across_every_stream_of_a_session() {
    let t = start();
    let session = t.open_session(Role::Full);
    let mut ids = std::collections::BTreeSet::new();
    for _ in 0..3 {
        for event in list(&t, &session) {
            assert!(ids.insert(event.id.unwrap()));
        }
    }
    for _ in 0..5 {
        for event in get(&t, &session, &[]).1 {
            if let Some(id) = event.id {
                assert!(ids.insert(id));
            }
        }
    }
    assert_eq!(ids.len(), 3 + 4, "three POST streams, four queued GET events");
}

#[test]
fn only_the_newest_events_are_kept() {
    let t = start();
    let session = t.open_session(Role::Full);
    let kept = Limits::DEFAULT.sse_events_kept_per_session_max;
    let (_, first) = get(&t, &session, &[]);
    let cursor = first[0].id.clone().unwrap();
    for _ in 0..kept + 4 {
        list(&t, &session);
    }
    let (_, replayed) = get(&t, &session, &[("Last-Event-ID", &cursor)]);
    assert_eq!(replayed.len(), kept);
    let last = replayed.last().unwrap().id.clone().unwrap();
    assert!(last.ends_with(&format!("-g{}", kept + 5)), "{last}");
}

#[test]
fn logging_level_filters_what_the_stream_receives() {
    let t = start();
    let session = t.open_session(Role::Full);
    get(&t, &session, &[]);
    let set = json::encode(&requests::set_log_level(&Id::from(9), "error"));
    assert_eq!(t.raw(&t.post_bytes(Role::Full, Some(&session), &set, &[])).unwrap().status, 200);
    list(&t, &session);
    assert_eq!(get(&t, &session, &[]).1, vec![Event { retry: Some(1000), ..Event::default() }]);
}

#[test]
fn the_get_stream_needs_the_event_stream_accept_and_a_session() {
    let t = start();
    let session = t.open_session(Role::Full);
    for accept in ["application/json", "*/*", "text/*"] {
        let bytes = loopback_mcp_http::client::request(
            "GET",
            "/mcp",
            &[
                ("Host", &t.host()),
                ("Authorization", &t.bearer(Role::Full)),
                ("MCP-Session-Id", &session),
                ("MCP-Protocol-Version", "2025-11-25"),
                ("Accept", accept),
            ],
            b"",
        );
        assert_eq!(t.raw(&bytes).unwrap().status, 406, "{accept}");
    }
    // A Content-Type on a bodiless GET is ignored (the Python SDK client sends one).
    let (status, _) = get(&t, &session, &[("Content-Type", "application/json")]);
    assert_eq!(status, 200);
    let response = t.raw(&t.session_bytes("GET", Role::OtherSubject, &session, &[])).unwrap();
    assert_eq!(response.status, 404);
}

#[test]
fn a_cursor_is_read_only_in_the_form_the_server_writes() {
    let t = start();
    let session = t.open_session(Role::Full);
    let (_, events) = get(&t, &session, &[]);
    let id = events[0].id.clone().unwrap();
    let tag = id.strip_suffix("-g1").unwrap();
    let cases: [(String, u16); 5] = [
        (format!("{tag}-g1"), 200),
        (format!("{tag}-g01"), 400),
        (format!("{tag}-g0001"), 400),
        (format!("{tag}-g+1"), 400),
        (format!("{tag}-g-1"), 400),
    ];
    for (cursor, status) in cases {
        let response = t
            .raw(&t.session_bytes("GET", Role::Full, &session, &[("Last-Event-ID", &cursor)]))
            .unwrap();
        assert_eq!(response.status, status, "{cursor}");
        if status == 400 {
            assert_eq!(error_code(&response), "last_event_id_malformed", "{cursor}");
        }
    }
}

#[test]
fn a_replay_larger_than_a_response_sends_whole_events_and_resumes_from_the_last_one() {
    // Room for the head and a little over two events of about 170 bytes each.
    let limits = Limits {
        response_bytes_max: 900,
        sse_event_bytes_max: 388,
        sse_events_kept_per_session_max: 16,
        ..Limits::DEFAULT
    };
    assert_eq!(limits.validate(), Ok(()));
    let t = start_with(loopback_mcp_http::server::ServerConfig {
        limits: Limits { requests_in_processing_max: 4, ..limits },
        ..Default::default()
    });
    let session = t.open_session(Role::Full);
    let (_, first) = get(&t, &session, &[]);
    for _ in 0..5 {
        list(&t, &session);
    }
    // Resume after session_started: five resources_listed events are kept, not all fit.
    let mut cursor = first[0].id.clone().unwrap();
    let mut seen = Vec::new();
    let mut rounds = 0;
    loop {
        let (status, events) = get(&t, &session, &[("Last-Event-ID", &cursor)]);
        assert_eq!(status, 200);
        let ids: Vec<String> = events.iter().filter_map(|e| e.id.clone()).collect();
        if ids.is_empty() {
            break;
        }
        assert!(ids.len() < 5, "a response under 900 bytes cannot hold five events");
        for event in &events {
            assert_eq!(event_name(event), "resources_listed");
        }
        cursor = ids.last().unwrap().clone();
        seen.extend(ids);
        rounds += 1;
        assert!(rounds <= 5, "resuming never ends");
    }
    let expected: Vec<String> = (2..=6)
        .map(|n| first[0].id.as_deref().unwrap().replace("-g1", &format!("-g{n}")))
        .collect();
    assert_eq!(seen, expected, "every event once, in order, across resumptions");
    assert!(rounds >= 2);
}
