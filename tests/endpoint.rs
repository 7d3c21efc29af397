//! The endpoint driven without sockets: a parsed head, a body, a clock and a random source in, a
//! reply out. Covers what the socket tests cannot arrange, such as a random source that fails.

mod common;

use std::time::{Duration, Instant, SystemTime};

use loopback_mcp_http::auth::fixtures::{Fixture, Role};
use loopback_mcp_http::client::mcp::RequestSpec;
use loopback_mcp_http::endpoint::{Clock, Endpoint, EndpointConfig, Reply};
use loopback_mcp_http::http::{Parsed, RequestParser};
use loopback_mcp_http::json;
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::jsonrpc::Id;
use loopback_mcp_http::mcp::requests::{self, ClientInfo};
use loopback_mcp_http::random::RandomUnavailable;

const PORT: u16 = 8123;
const CLIENT: ClientInfo<'static> = ClientInfo { name: "t", version: "1" };

fn clock(now: Instant) -> Clock {
    Clock { now, wall: SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000) }
}

/// An endpoint with one session slot, and the `full` role's token.
fn endpoint() -> (Endpoint, String) {
    let (endpoint, fixture) = endpoint_with(Limits { sessions_active_max: 1, ..Limits::DEFAULT });
    (endpoint, fixture.token(Role::Full).to_owned())
}

/// An endpoint with these limits, and its fixture's tokens.
fn endpoint_with(limits: Limits) -> (Endpoint, Fixture) {
    let wall = clock(Instant::now()).wall;
    let fixture = Fixture::build(PORT, wall, &mut common::deterministic_random()).expect("fixture");
    (Endpoint::new(EndpointConfig::loopback(PORT, limits), fixture.policy.clone()), fixture)
}

fn retry_after(reply: &Reply) -> Option<&str> {
    reply.fields().find(|(name, _)| *name == "Retry-After").map(|(_, v)| v)
}

fn code(reply: &Reply) -> String {
    let body = json::decode(&reply.body, 8).expect("a JSON body");
    body.get("error").and_then(|e| e.get("message")).and_then(|m| m.as_str()).unwrap_or("").into()
}

#[test]
fn a_full_table_says_when_its_earliest_session_expires() {
    let (endpoint, fixture) = endpoint_with(Limits { sessions_active_max: 2, ..Limits::DEFAULT });
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    let mut random = common::deterministic_random();
    let open = |role: Role,
                now: Instant,
                random: &mut dyn FnMut(&mut [u8]) -> Result<(), RandomUnavailable>| {
        send(&endpoint, &initialize_bytes(fixture.token(role)), now, random)
    };
    assert_eq!(open(Role::Full, at(0), &mut random).status.code(), 200);
    assert_eq!(open(Role::OtherSubject, at(5_000), &mut random).status.code(), 200);
    // (time, Retry-After): the first session expires at 60 s; rounded up, at least 1.
    let cases: [(u64, &str); 4] = [(10_000, "50"), (10_500, "50"), (59_000, "1"), (59_999, "1")];
    for (ms, seconds) in cases {
        let refused = open(Role::TenantDenied, at(ms), &mut no_random());
        assert_eq!((refused.status.code(), code(&refused).as_str()), (503, "session_capacity"));
        assert_eq!(retry_after(&refused), Some(seconds), "at {ms} ms");
    }
    assert_eq!(open(Role::TenantDenied, at(60_000), &mut random).status.code(), 200);
}

#[test]
fn a_principal_at_its_quota_gets_429_and_others_keep_their_slots() {
    let limits =
        Limits { sessions_active_max: 8, sessions_per_principal_max: 2, ..Limits::DEFAULT };
    let (endpoint, fixture) = endpoint_with(limits);
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    let mut random = common::deterministic_random();
    let full = initialize_bytes(fixture.token(Role::Full));
    assert_eq!(send(&endpoint, &full, at(0), &mut random).status.code(), 200);
    assert_eq!(send(&endpoint, &full, at(3_000), &mut random).status.code(), 200);
    // Nothing is drawn for a refusal: the random source would panic.
    let refused = send(&endpoint, &full, at(20_200), &mut no_random());
    assert_eq!((refused.status.code(), code(&refused).as_str()), (429, "session_quota"));
    assert_eq!(retry_after(&refused), Some("40"));
    assert_eq!(session_id(&refused), None);
    // `connect_only` is alice of acme too: the same principal, the same quota.
    let narrow = initialize_bytes(fixture.token(Role::ConnectOnly));
    assert_eq!(send(&endpoint, &narrow, at(20_200), &mut no_random()).status.code(), 429);
    let other = initialize_bytes(fixture.token(Role::OtherSubject));
    assert_eq!(send(&endpoint, &other, at(20_200), &mut random).status.code(), 200);
    assert_eq!(endpoint.live_sessions(at(20_200)), 3);
    assert_eq!(send(&endpoint, &full, at(60_000), &mut random).status.code(), 200);
}

#[test]
fn every_fixed_refusal_fits_the_smallest_valid_response_budget() {
    use loopback_mcp_http::endpoint::{Delivery, Rejection};
    use loopback_mcp_http::limits::{PRIMING_EVENT_BYTES_MAX, RESPONSE_HEAD_BYTES_RESERVE};
    let (endpoint, _) = endpoint();
    let smallest = RESPONSE_HEAD_BYTES_RESERVE + PRIMING_EVENT_BYTES_MAX + 1;
    assert_eq!(
        Limits { response_bytes_max: smallest, sse_event_bytes_max: 1, ..Limits::DEFAULT }
            .validate(),
        Ok(())
    );
    let date = loopback_mcp_http::http::date::imf_fixdate(u64::MAX);
    let auth = |denial| Rejection::Auth {
        denial,
        requirement: loopback_mcp_http::auth::scope::READ_RESOURCES,
    };
    let rejections = [
        Rejection::Overloaded,
        Rejection::Internal,
        Rejection::SessionQuota { retry_after_secs: u64::MAX },
        Rejection::SessionCapacity { retry_after_secs: u64::MAX },
        Rejection::MethodNotAllowed { allow: "GET, POST, DELETE" },
        auth(loopback_mcp_http::auth::policy::Denial::InsufficientScope {
            scope: "mcp:connect resources:read".into(),
        }),
        auth(loopback_mcp_http::auth::policy::Denial::InvalidToken(
            loopback_mcp_http::auth::policy::InvalidTokenReason::Expired,
        )),
    ];
    for rejection in rejections {
        let reply = rejection.reply(endpoint.metadata_url());
        let delivery = Delivery { close: true, head: false, date: Some(&date) };
        let mut out = Vec::new();
        let written = reply.serialize(&mut out, delivery, smallest);
        assert!(written.is_ok(), "{rejection:?} needs {} bytes", out.len());
    }
}

fn host() -> String {
    format!("127.0.0.1:{PORT}")
}

fn initialize_bytes(token: &str) -> Vec<u8> {
    let body = json::encode(&requests::initialize_current(&Id::from(1), CLIENT));
    RequestSpec::mcp_post(&host(), token, None, body.as_bytes()).bytes()
}

fn send(
    endpoint: &Endpoint,
    bytes: &[u8],
    now: Instant,
    random: &mut dyn FnMut(&mut [u8]) -> Result<(), RandomUnavailable>,
) -> Reply {
    let mut parser = RequestParser::new(endpoint.limits());
    let parsed = parser.parse(bytes).expect("a valid head");
    let Parsed::Complete { value: head, len } = parsed else { panic!("a complete head") };
    endpoint.handle(&head, &bytes[len..], clock(now), random)
}

fn session_id(reply: &Reply) -> Option<&str> {
    reply.fields().find(|(name, _)| *name == "MCP-Session-Id").map(|(_, v)| v)
}

#[test]
fn initialize_with_a_failing_random_source_is_500_and_leaves_nothing_behind() {
    let (endpoint, token) = endpoint();
    let now = Instant::now();
    let request = initialize_bytes(&token);
    let mut failing = |_: &mut [u8]| Err(RandomUnavailable { os_error: None });

    let refused = send(&endpoint, &request, now, &mut failing);
    assert_eq!(refused.status.code(), 500);
    assert_eq!(
        String::from_utf8_lossy(&refused.body),
        r#"{"error":{"code":-32603,"message":"internal_error"},"jsonrpc":"2.0"}"#
    );
    assert_eq!(session_id(&refused), None);
    assert_eq!(endpoint.live_sessions(now), 0);

    // The one slot is still free: a working source gets the session.
    let accepted = send(&endpoint, &request, now, &mut common::deterministic_random());
    assert_eq!(accepted.status.code(), 200);
    assert_eq!(session_id(&accepted).map(str::len), Some(48));
    assert_eq!(endpoint.live_sessions(now), 1);
}

fn ping_bytes(token: &str, session: &str) -> Vec<u8> {
    let body = json::encode(&requests::ping(&Id::from(2)));
    RequestSpec::mcp_post(&host(), token, Some(session), body.as_bytes()).bytes()
}

#[test]
fn a_session_lives_exactly_its_ttl_however_often_it_is_used() {
    let (endpoint, token) = endpoint();
    let ttl = Limits::DEFAULT.session_ttl;
    let t0 = Instant::now();
    let opened =
        send(&endpoint, &initialize_bytes(&token), t0, &mut common::deterministic_random());
    let session = session_id(&opened).expect("a session id").to_owned();
    let initialized = RequestSpec::mcp_post(
        &host(),
        &token,
        Some(&session),
        json::encode(&requests::initialized()).as_bytes(),
    );
    assert_eq!(send(&endpoint, &initialized.bytes(), t0, &mut no_random()).status.code(), 202);
    // Used all along its life: every use answers, none extends it.
    let nanosecond = Duration::from_nanos(1);
    let cases: [(Duration, u16); 4] =
        [(Duration::ZERO, 200), (ttl / 2, 200), (ttl - nanosecond, 200), (ttl, 404)];
    for (after, status) in cases {
        let reply = send(&endpoint, &ping_bytes(&token, &session), t0 + after, &mut no_random());
        assert_eq!(reply.status.code(), status, "{after:?} after creation");
    }
}

/// For requests that must not draw randomness.
fn no_random() -> impl FnMut(&mut [u8]) -> Result<(), RandomUnavailable> {
    |_: &mut [u8]| panic!("this request draws no randomness")
}

/// A session of the `full` role opened and initialized at `t0`.
fn open_initialized(endpoint: &Endpoint, token: &str, t0: Instant) -> String {
    let opened = send(endpoint, &initialize_bytes(token), t0, &mut common::deterministic_random());
    let session = session_id(&opened).expect("a session id").to_owned();
    let initialized = json::encode(&requests::initialized());
    let bytes = RequestSpec::mcp_post(&host(), token, Some(&session), initialized.as_bytes());
    assert_eq!(send(endpoint, &bytes.bytes(), t0, &mut no_random()).status.code(), 202);
    session
}

/// The last event id of an event-stream reply.
fn last_event_id(reply: &Reply) -> String {
    let events = loopback_mcp_http::sse::parse_stream(&reply.body, &Limits::DEFAULT).unwrap();
    events.into_iter().filter_map(|e| e.id).next_back().expect("an event id")
}

#[test]
fn kept_events_live_exactly_as_long_as_their_session() {
    let (endpoint, token) = endpoint();
    let ttl = Limits::DEFAULT.session_ttl;
    let t0 = Instant::now();
    let session = open_initialized(&endpoint, &token, t0);
    let call = json::encode(&requests::call_tool(&Id::from(3), "test_reconnection"));
    let bytes = RequestSpec::mcp_post(&host(), &token, Some(&session), call.as_bytes()).bytes();
    let called = send(&endpoint, &bytes, t0, &mut no_random());
    let cursor = last_event_id(&called);
    let resume = RequestSpec::mcp_session("GET", &host(), &token, Some(&session))
        .with("Last-Event-ID", &cursor)
        .bytes();
    // To its last nanosecond the session keeps the owed result; at its end, the session and
    // everything it kept are gone, and the cursor is never read: 404, as for any request.
    let nanosecond = Duration::from_nanos(1);
    let resumed = send(&endpoint, &resume, t0 + ttl - nanosecond, &mut no_random());
    assert_eq!(resumed.status.code(), 200);
    assert!(String::from_utf8_lossy(&resumed.body).contains(r#""id":3,"jsonrpc":"2.0","result""#));
    let expired = send(&endpoint, &resume, t0 + ttl, &mut no_random());
    assert_eq!((expired.status.code(), code(&expired).as_str()), (404, "session_not_found"));
    assert_eq!(endpoint.live_sessions(t0 + ttl), 0);
}
