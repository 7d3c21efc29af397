//! The event streams over real round trips: every stream opens with a priming event, a GET poll
//! delivers what the GET stream has not written yet, `Last-Event-ID` resumes the stream its id
//! belongs to (the GET stream or a POST stream) and nothing else, a stream the server closes after
//! its prime is resumed to its result, and the kept budget's edges.

mod common;

use common::server::*;
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::jsonrpc::Id;
use loopback_mcp_http::mcp::requests;
use loopback_mcp_http::server::ServerConfig;
use loopback_mcp_http::sse::{self, Event};

/// A GET on the session's stream, with `extra` fields: the status and the parsed events.
fn get(t: &TestServer, session: &str, extra: &[(&str, &str)]) -> (u16, Vec<Event>) {
    let response = t.raw(&t.session_bytes("GET", Role::Full, session, extra)).unwrap();
    if response.status != 200 {
        return (response.status, Vec::new());
    }
    assert_eq!(response.field_str("content-type"), Some("text/event-stream"));
    (200, sse::parse_stream(&response.body, &Limits::DEFAULT).unwrap())
}

fn resume(t: &TestServer, session: &str, cursor: &str) -> (u16, Vec<Event>) {
    get(t, session, &[("Last-Event-ID", cursor)])
}

/// A POST of `body` answered as an event stream: its raw body and its events.
fn post_stream(t: &TestServer, session: &str, body: &str) -> (Vec<u8>, Vec<Event>) {
    let response = t.raw(&t.post_bytes(Role::Full, Some(session), body, &[])).unwrap();
    assert_eq!(
        (response.status, response.field_str("content-type")),
        (200, Some("text/event-stream"))
    );
    let events = sse::parse_stream(&response.body, &Limits::DEFAULT).unwrap();
    (response.body, events)
}

fn list(t: &TestServer, session: &str) -> Vec<Event> {
    post_stream(t, session, list_body()).1
}

fn call_tool_body() -> String {
    json::encode(&requests::call_tool(&Id::from(5), "test_reconnection"))
}

/// What an event is: `prime`, the `data.event` of a notification, or `response <id>`.
fn kind(event: &Event) -> String {
    let data = event.data.as_deref().unwrap_or("");
    if data.is_empty() {
        assert!(event.id.is_some() && event.retry == Some(1000), "a prime: {event:?}");
        return "prime".into();
    }
    let message = json::decode(data.as_bytes(), Limits::DEFAULT.json_depth_max).unwrap();
    if let Some(id) = message.get("id") {
        return format!("response {}", json::encode(id));
    }
    let name = message.get("params").and_then(|p| p.get("data")).and_then(|d| d.get("event"));
    name.and_then(Value::as_str).unwrap().to_owned()
}

fn kinds(events: &[Event]) -> Vec<String> {
    events.iter().map(kind).collect()
}

fn last_id(events: &[Event]) -> String {
    events.iter().filter_map(|e| e.id.clone()).next_back().unwrap()
}

fn ids(events: &[Event]) -> Vec<String> {
    events.iter().map(|e| e.id.clone().unwrap()).collect()
}

/// The session's event-id tag: everything before the first `-`.
fn tag(events: &[Event]) -> String {
    events[0].id.as_deref().unwrap().split('-').next().unwrap().to_owned()
}

#[test]
fn every_stream_opens_with_a_priming_event_of_exactly_these_bytes() {
    let t = start();
    let session = t.open_session(Role::Full);
    let (body, events) = post_stream(&t, &session, &call_tool_body());
    let prime = format!("id: {}\nretry: 1000\ndata:\n\n", events[0].id.as_deref().unwrap());
    assert_eq!(String::from_utf8(body).unwrap(), prime, "the tool's stream is its prime alone");
    let (body, _) = post_stream(&t, &session, list_body());
    assert!(String::from_utf8(body).unwrap().starts_with(&prime.replace("-p1-1", "-p2-1")));
    // The GET stream, fresh, resumed, and with nothing to deliver: a prime first every time.
    let (_, fresh) = get(&t, &session, &[]);
    let (_, resumed) = resume(&t, &session, &last_id(&fresh));
    let (_, empty) = resume(&t, &session, &last_id(&resumed));
    for events in [&fresh, &resumed, &empty] {
        assert_eq!(kind(&events[0]), "prime");
        assert_eq!(events[0].data.as_deref(), Some(""));
    }
    assert_eq!(kinds(&empty), ["prime"], "an empty poll still hands out a cursor");
}

#[test]
fn a_fresh_poll_delivers_what_the_get_stream_has_not_written_yet_once() {
    let t = start();
    let session = t.open_session(Role::Full);
    let (_, first) = get(&t, &session, &[]);
    assert_eq!(kinds(&first), ["prime", "session_started"]);
    let tag = tag(&first);
    assert_eq!(ids(&first), [format!("{tag}-g1"), format!("{tag}-g2")]);
    let (_, again) = get(&t, &session, &[]);
    assert_eq!(ids(&again), [format!("{tag}-g3")], "nothing new: its prime, at the next position");
    list(&t, &session);
    assert_eq!(kinds(&get(&t, &session, &[]).1), ["prime", "resources_listed"]);
}

#[test]
fn a_get_cursor_returns_only_later_events_of_the_get_stream() {
    let t = start();
    let session = t.open_session(Role::Full);
    let (_, first) = get(&t, &session, &[]);
    let cursor = last_id(&first);
    list(&t, &session);
    list(&t, &session);
    post_stream(&t, &session, &call_tool_body()); // owes its result: never on the GET stream
    let (status, later) = resume(&t, &session, &cursor);
    assert_eq!(status, 200);
    assert_eq!(kinds(&later), ["prime", "resources_listed", "resources_listed"]);
    // The same cursor again: the same events again, written at new positions.
    let (_, again) = resume(&t, &session, &cursor);
    assert_eq!(kinds(&again), kinds(&later));
    assert!(ids(&again).iter().all(|id| !ids(&later).contains(id)), "ids are never reused");
    // From the prime of the first poll: session_started too.
    let from_prime = format!("{}-g1", tag(&first));
    assert_eq!(
        kinds(&resume(&t, &session, &from_prime).1),
        ["prime", "session_started", "resources_listed", "resources_listed"]
    );
}

#[test]
fn a_post_stream_closed_after_its_prime_resumes_to_its_result_and_nothing_else() {
    let t = start();
    let session = t.open_session(Role::Full);
    get(&t, &session, &[]);
    list(&t, &session); // a GET notification, and another POST stream's response
    let (_, called) = post_stream(&t, &session, &call_tool_body());
    assert_eq!(kinds(&called), ["prime"]);
    let prime = last_id(&called);
    assert!(prime.ends_with("-p2-1"), "{prime}");
    let (status, resumed) = resume(&t, &session, &prime);
    assert_eq!(status, 200);
    assert_eq!(kinds(&resumed), ["prime", "test_reconnection_called", "response 5"]);
    assert!(ids(&resumed).iter().all(|id| id.contains("-p2-")), "only its own stream");
    let result = json::decode(resumed[2].data.as_deref().unwrap().as_bytes(), 64).unwrap();
    let text = result.get("result").and_then(|r| r.get("content")).and_then(Value::as_array);
    assert_eq!(text.map(<[Value]>::len), Some(1));
    // After its result the stream owes nothing and never will: 204, no body.
    let done = t
        .raw(&t.session_bytes(
            "GET",
            Role::Full,
            &session,
            &[("Last-Event-ID", &last_id(&resumed))],
        ))
        .unwrap();
    assert_eq!((done.status, done.body.len(), done.field_str("content-type")), (204, 0, None));
    // A resumption cut after its own prime is resumed from that prime.
    assert_eq!(kinds(&resume(&t, &session, &resumed[0].id.clone().unwrap()).1), kinds(&resumed));
}

#[test]
fn cursors_of_other_sessions_never_issued_or_malformed_are_refused_and_replay_nothing() {
    let t = start();
    let session = t.open_session(Role::Full);
    let other = t.open_session(Role::Full);
    let (_, own) = get(&t, &session, &[]);
    let (_, other_get) = get(&t, &other, &[]);
    let (_, other_post) = post_stream(&t, &other, &call_tool_body());
    let tag = tag(&own);
    let cases: [(String, &str); 9] = [
        (last_id(&other_get), "last_event_id_other_session"),
        (last_id(&other_post), "last_event_id_other_session"),
        (format!("{tag}-g99"), "last_event_id_not_issued"),
        (format!("{tag}-p1-1"), "last_event_id_not_issued"),
        (format!("{tag}-g0"), "last_event_id_not_issued"),
        (format!("{tag}-g01"), "last_event_id_malformed"),
        (format!("{tag}-g+1"), "last_event_id_malformed"),
        ("garbage".into(), "last_event_id_malformed"),
        ("1".into(), "last_event_id_malformed"),
    ];
    for (cursor, code) in cases {
        let response = t
            .raw(&t.session_bytes("GET", Role::Full, &session, &[("Last-Event-ID", &cursor)]))
            .unwrap();
        assert_eq!((response.status, error_code(&response).as_str()), (400, code), "{cursor}");
    }
    let twice = [("Last-Event-ID", own[0].id.as_deref().unwrap()); 2];
    let response = t.raw(&t.session_bytes("GET", Role::Full, &session, &twice)).unwrap();
    assert_eq!((response.status, error_code(&response).as_str()), (400, "last_event_id_malformed"));
    // The other session's owed result is still there for its own resumption.
    assert_eq!(kinds(&resume(&t, &other, &last_id(&other_post)).1).last().unwrap(), "response 5");
}

#[test]
fn event_ids_are_unique_across_every_stream_of_a_session() {
    let t = start();
    let session = t.open_session(Role::Full);
    let mut seen = std::collections::BTreeSet::new();
    let mut count = 0;
    for _ in 0..3 {
        let mut events = list(&t, &session);
        let (_, called) = post_stream(&t, &session, &call_tool_body());
        events.extend(resume(&t, &session, &last_id(&called)).1);
        events.extend(called);
        events.extend(get(&t, &session, &[]).1);
        for id in ids(&events) {
            count += 1;
            assert!(seen.insert(id.clone()), "{id} twice");
        }
    }
    assert_eq!(count, 3 * (2 + 1 + 3) + 2 + 2 + 2 + 1, "every event had an id");
}

/// A server keeping at most 5 messages per session.
fn start_keeping_five() -> TestServer {
    let limits = Limits {
        sse_events_kept_per_session_max: 5,
        requests_in_processing_max: 16,
        ..Limits::DEFAULT
    };
    start_with(ServerConfig { limits, ..Default::default() })
}

#[test]
fn at_the_kept_budget_every_cursor_resumes_and_one_past_it_the_oldest_is_dropped() {
    let t = start_keeping_five();
    let session = t.open_session(Role::Full);
    let (_, first) = get(&t, &session, &[]); // g1 prime, g2 session_started
    let from_prime = format!("{}-g1", tag(&first));
    // Each list keeps two: its POST stream's response, and resources_listed on the GET stream.
    list(&t, &session);
    list(&t, &session); // five kept: session_started, two responses, two resources_listed
    let (status, at_budget) = resume(&t, &session, &from_prime);
    assert_eq!(status, 200);
    assert_eq!(
        kinds(&at_budget),
        ["prime", "session_started", "resources_listed", "resources_listed"]
    );
    let cursor = last_id(&at_budget);
    // One more list keeps two more: the two oldest, session_started and the first
    // resources_listed, are dropped.
    list(&t, &session);
    let response = t
        .raw(&t.session_bytes("GET", Role::Full, &session, &[("Last-Event-ID", &from_prime)]))
        .unwrap();
    assert_eq!((response.status, error_code(&response).as_str()), (400, "last_event_id_evicted"));
    // A cursor after the dropped event misses nothing: it resumes normally.
    assert_eq!(kinds(&resume(&t, &session, &cursor).1), ["prime", "resources_listed"]);
    // The next list drops p1's response, its only message: p1's cursors are refused the same way.
    let p1 = format!("{}-p1-1", tag(&first));
    assert_eq!(kinds(&resume(&t, &session, &p1).1), ["prime", "response 3"]);
    list(&t, &session);
    let response =
        t.raw(&t.session_bytes("GET", Role::Full, &session, &[("Last-Event-ID", &p1)])).unwrap();
    assert_eq!((response.status, error_code(&response).as_str()), (400, "last_event_id_evicted"));
}

#[test]
fn kept_events_end_with_their_session() {
    let t = start();
    let session = t.open_session(Role::Full);
    let (_, called) = post_stream(&t, &session, &call_tool_body());
    let delete = t.raw(&t.session_bytes("DELETE", Role::Full, &session, &[])).unwrap();
    assert_eq!(delete.status, 204);
    let response = t
        .raw(&t.session_bytes("GET", Role::Full, &session, &[("Last-Event-ID", &last_id(&called))]))
        .unwrap();
    assert_eq!((response.status, error_code(&response).as_str()), (404, "session_not_found"));
}

#[test]
fn logging_level_filters_what_the_streams_receive() {
    let t = start();
    let session = t.open_session(Role::Full);
    get(&t, &session, &[]);
    let set = json::encode(&requests::set_log_level(&Id::from(9), "error"));
    assert_eq!(t.raw(&t.post_bytes(Role::Full, Some(&session), &set, &[])).unwrap().status, 200);
    list(&t, &session);
    assert_eq!(kinds(&get(&t, &session, &[]).1), ["prime"]);
    let (_, called) = post_stream(&t, &session, &call_tool_body());
    assert_eq!(kinds(&resume(&t, &session, &last_id(&called)).1), ["prime", "response 5"]);
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
fn a_resumption_larger_than_a_response_sends_whole_events_and_resumes_from_the_last_one() {
    // Room for the head, a prime and a little over two events of about 170 bytes each.
    let limits = Limits {
        response_bytes_max: 1000,
        sse_event_bytes_max: 360,
        requests_in_processing_max: 4,
        ..Limits::DEFAULT
    };
    assert_eq!(limits.validate(), Ok(()));
    let t = start_with(ServerConfig { limits, ..Default::default() });
    let session = t.open_session(Role::Full);
    let (_, first) = get(&t, &session, &[]);
    for _ in 0..5 {
        list(&t, &session);
    }
    // Resume after session_started: five resources_listed events are owed, not all fit.
    let mut cursor = last_id(&first);
    let mut seen = 0;
    let mut rounds = 0;
    loop {
        let (status, events) = resume(&t, &session, &cursor);
        assert_eq!(status, 200);
        assert_eq!(kind(&events[0]), "prime");
        let delivered = &events[1..];
        if delivered.is_empty() {
            break;
        }
        assert!(delivered.len() < 5, "a response under 1000 bytes cannot hold five events");
        assert!(delivered.iter().all(|e| kind(e) == "resources_listed"));
        cursor = last_id(&events);
        seen += delivered.len();
        rounds += 1;
        assert!(rounds <= 5, "resuming never ends");
    }
    assert_eq!(seen, 5, "every event once, across resumptions");
    assert!(rounds >= 2);
}
