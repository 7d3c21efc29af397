//! Every budget the codecs enforce, exactly at its value (accepted) and one past it (refused),
//! with the default limits and with small hand-built ones, to show the code reads the struct.
//!
//! The chunked-body budgets (under `--chunked`) go through the chunked decoder the same way, split
//! at every point. The session, concurrency and deadline budgets belong to the server and are
//! tested with it.

mod common;

use common::{Verdict, assert_split_invariant, cat, parse_once, rep};
use loopback_mcp_http::http::chunked::request::{ChunkedDecoder, Decoded};
use loopback_mcp_http::http::writer::{ResponseWriter, WriteErrorKind};
use loopback_mcp_http::http::{Parsed, ResponseErrorKind, ResponseParser, Status};
use loopback_mcp_http::json::{self, JsonErrorKind};
use std::time::Duration;

use loopback_mcp_http::limits::{
    Amount, BUDGETS, BYTES_CEILING, CHUNK_SIZE_DIGITS_CEILING, COUNT_CEILING, DURATION_CEILING,
    JSON_DEPTH_CEILING, Limits, LimitsError, PRIMING_EVENT_BYTES_MAX, RESPONSE_HEAD_BYTES_RESERVE,
    WORKERS_CEILING,
};
use loopback_mcp_http::sse::{self, SseErrorKind};

const HEAD_START: &[u8] = b"GET / HTTP/1.1\r\nHost: a\r\n";

/// An input (a request, or a chunked body) whose measured quantity is exactly `n`, for one
/// budget.
struct Budget {
    name: &'static str,
    max: fn(&Limits) -> usize,
    build: fn(&Limits, usize) -> Vec<u8>,
    /// Status and code one past the budget.
    over: (u16, &'static str),
}

fn with_target(_: &Limits, n: usize) -> Vec<u8> {
    cat(&[b"GET /", &rep(b'a', n - 1), b" HTTP/1.1\r\nHost: a\r\n\r\n"])
}

fn with_method(_: &Limits, n: usize) -> Vec<u8> {
    cat(&[&rep(b'M', n), b" / HTTP/1.1\r\nHost: a\r\n\r\n"])
}

fn with_value(_: &Limits, n: usize) -> Vec<u8> {
    cat(&[HEAD_START, b"X: ", &rep(b'v', n), b"\r\n\r\n"])
}

/// `n` field lines in all (Host included).
fn with_fields(_: &Limits, n: usize) -> Vec<u8> {
    let mut out = HEAD_START.to_vec();
    for i in 1..n {
        out.extend_from_slice(format!("X-{i}: v\r\n").as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out
}

/// A header section of exactly `n` bytes (Host's 9 included), in lines whose values stay
/// within the value budget.
fn with_section(limits: &Limits, n: usize) -> Vec<u8> {
    let mut out = HEAD_START.to_vec();
    let mut left = n - b"Host: a\r\n".len();
    let chunk = limits.header_value_bytes_max;
    while left > 0 {
        // "X: " + value + CRLF is 5 bytes plus the value; never leave less than 5 for the last.
        let value = if left >= chunk + 5 + 5 { chunk } else { left - 5 };
        out.extend_from_slice(b"X: ");
        out.extend_from_slice(&rep(b'v', value));
        out.extend_from_slice(b"\r\n");
        left -= value + 5;
    }
    out.extend_from_slice(b"\r\n");
    out
}

fn with_body(_: &Limits, n: usize) -> Vec<u8> {
    format!("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: {n}\r\n\r\n").into_bytes()
}

fn with_leading_lines(_: &Limits, n: usize) -> Vec<u8> {
    cat(&[&b"\r\n".repeat(n), HEAD_START, b"\r\n"])
}

const REQUEST_BUDGETS: [Budget; 7] = [
    Budget {
        name: "request_target_bytes_max",
        max: |l| l.request_target_bytes_max,
        build: with_target,
        over: (414, "target_too_long"),
    },
    Budget {
        name: "method_bytes_max",
        max: |l| l.method_bytes_max,
        build: with_method,
        over: (501, "method_too_long"),
    },
    Budget {
        name: "header_value_bytes_max",
        max: |l| l.header_value_bytes_max,
        build: with_value,
        over: (431, "field_value_too_large"),
    },
    Budget {
        name: "header_fields_max",
        max: |l| l.header_fields_max,
        build: with_fields,
        over: (431, "fields_too_many"),
    },
    Budget {
        name: "header_section_bytes_max",
        max: |l| l.header_section_bytes_max,
        build: with_section,
        over: (431, "field_section_too_large"),
    },
    Budget {
        name: "request_body_bytes_max",
        max: |l| l.request_body_bytes_max,
        build: with_body,
        over: (413, "content_length_too_large"),
    },
    Budget {
        name: "leading_empty_lines_max",
        max: |l| l.leading_empty_lines_max,
        build: with_leading_lines,
        over: (400, "leading_empty_lines"),
    },
];

/// Small budgets, all different from the defaults.
const SMALL: Limits = Limits {
    request_body_bytes_max: 10,
    json_depth_max: 3,
    header_value_bytes_max: 20,
    header_fields_max: 4,
    header_section_bytes_max: 40,
    request_target_bytes_max: 8,
    method_bytes_max: 7,
    leading_empty_lines_max: 2,
    response_bytes_max: 120,
    sse_event_bytes_max: 16,
    sse_stream_events_max: 2,
    ..Limits::DEFAULT
};

fn check_request_budgets(limits: &Limits) {
    for budget in &REQUEST_BUDGETS {
        let max = (budget.max)(limits);
        let at_max = (budget.build)(limits, max);
        let verdict = parse_once(&at_max, limits);
        // A method of exactly the budget is parsed; it is simply not one this server knows.
        let accepted = match &verdict {
            Verdict::Head { .. } => true,
            Verdict::Refused(e) => {
                budget.name == "method_bytes_max" && e.code() == "method_unknown"
            }
            Verdict::Partial => false,
        };
        assert!(accepted, "{} at {max}: {verdict:?}", budget.name);
        assert_split_invariant(&at_max, &verdict, limits, budget.name);

        let over = (budget.build)(limits, max + 1);
        let verdict = parse_once(&over, limits);
        let Verdict::Refused(error) = &verdict else {
            panic!("{} at {}: {verdict:?}", budget.name, max + 1);
        };
        assert_eq!((error.status().code(), error.code()), budget.over, "{}", budget.name);
        assert_split_invariant(&over, &verdict, limits, budget.name);
    }
}

#[test]
fn request_budgets_hold_at_max_and_refuse_max_plus_one() {
    check_request_budgets(&Limits::DEFAULT);
}

#[test]
fn request_budgets_follow_hand_built_limits() {
    check_request_budgets(&SMALL);
}

/// A size of `n` digits (leading zeros, then 1) and its one byte of data.
fn with_size_digits(_: &Limits, n: usize) -> Vec<u8> {
    cat(&[&rep(b'0', n - 1), b"1\r\nx\r\n0\r\n\r\n"])
}

/// One chunk whose extension part (`;` and a name) is `n` bytes.
fn with_extension(_: &Limits, n: usize) -> Vec<u8> {
    cat(&[b"1;", &rep(b'e', n - 1), b"\r\nx\r\n0\r\n\r\n"])
}

/// `n` chunks in all: `n - 1` of one byte, then the last.
fn with_chunks(_: &Limits, n: usize) -> Vec<u8> {
    cat(&[&b"1\r\nx\r\n".repeat(n - 1), b"0\r\n\r\n"])
}

/// A body of `n` bytes in one chunk.
fn with_decoded(_: &Limits, n: usize) -> Vec<u8> {
    cat(&[format!("{n:x}\r\n").as_bytes(), &rep(b'x', n), b"\r\n0\r\n\r\n"])
}

/// `n` trailer lines.
fn with_trailer_lines(_: &Limits, n: usize) -> Vec<u8> {
    cat(&[b"0\r\n", &b"X: v\r\n".repeat(n), b"\r\n"])
}

/// A trailer section of exactly `n` bytes, in lines whose values stay within the value budget.
fn with_trailer_section(limits: &Limits, n: usize) -> Vec<u8> {
    let mut out = b"0\r\n".to_vec();
    let (mut left, widest) = (n, limits.header_value_bytes_max);
    while left > 0 {
        let value = if left >= widest + 5 + 5 { widest } else { left - 5 };
        out.extend_from_slice(&cat(&[b"X: ", &rep(b'v', value), b"\r\n"]));
        left -= value + 5;
    }
    cat(&[&out, b"\r\n"])
}

const CHUNKED_BUDGETS: [Budget; 6] = [
    Budget {
        name: "chunk_size_digits_max",
        max: |l| l.chunk_size_digits_max,
        build: with_size_digits,
        over: (400, "chunk_size_too_long"),
    },
    Budget {
        name: "chunk_extension_bytes_max",
        max: |l| l.chunk_extension_bytes_max,
        build: with_extension,
        over: (400, "chunk_extension_too_large"),
    },
    Budget {
        name: "chunks_per_body_max",
        max: |l| l.chunks_per_body_max,
        build: with_chunks,
        over: (400, "chunks_too_many"),
    },
    Budget {
        name: "request_body_bytes_max (chunked)",
        max: |l| l.request_body_bytes_max,
        build: with_decoded,
        over: (413, "chunked_body_too_large"),
    },
    Budget {
        name: "trailer_fields_max",
        max: |l| l.trailer_fields_max,
        build: with_trailer_lines,
        over: (431, "trailer_fields_too_many"),
    },
    Budget {
        name: "trailer_section_bytes_max",
        max: |l| l.trailer_section_bytes_max,
        build: with_trailer_section,
        over: (431, "trailer_section_too_large"),
    },
];

/// The decoder's verdict on `body` arriving whole, checked against every split into two and one
/// byte at a time: the decoded length, or the refusal's status and code.
fn decode_every_way(body: &[u8], limits: &Limits) -> Result<usize, (u16, &'static str)> {
    let feed = |ends: &[usize]| {
        let (mut decoder, mut region, mut fed) = (ChunkedDecoder::new(limits), Vec::new(), 0);
        let mut last = None;
        for &end in ends {
            region.extend_from_slice(&body[fed..end]);
            fed = end;
            last = Some(match decoder.decode(&mut region) {
                Ok(Decoded::Partial { kept }) => {
                    region.truncate(kept);
                    Err((0, "incomplete"))
                }
                Ok(Decoded::Complete { body_len, .. }) => Ok(body_len),
                Err(e) => {
                    let kind = loopback_mcp_http::http::RequestErrorKind::Chunked(e.kind);
                    Err((kind.status().code(), kind.code()))
                }
            });
        }
        last.unwrap_or(Err((0, "incomplete")))
    };
    let whole = feed(&[body.len()]);
    for k in 0..=body.len() {
        assert_eq!(feed(&[k, body.len()]), whole, "split at {k}");
    }
    let every: Vec<usize> = (0..=body.len()).collect();
    assert_eq!(feed(&every), whole, "byte by byte");
    whole
}

fn check_chunked_budgets(limits: &Limits) {
    for budget in &CHUNKED_BUDGETS {
        let max = (budget.max)(limits);
        let at_max = decode_every_way(&(budget.build)(limits, max), limits);
        assert!(at_max.is_ok(), "{} at {max}: {at_max:?}", budget.name);
        let over = decode_every_way(&(budget.build)(limits, max + 1), limits);
        assert_eq!(over, Err(budget.over), "{} at {}", budget.name, max + 1);
    }
}

#[test]
fn chunked_budgets_hold_at_max_and_refuse_max_plus_one() {
    check_chunked_budgets(&Limits::DEFAULT);
}

#[test]
fn chunked_budgets_follow_hand_built_limits() {
    let small = Limits {
        chunk_size_digits_max: 3,
        chunk_extension_bytes_max: 5,
        chunks_per_body_max: 3,
        trailer_fields_max: 2,
        trailer_section_bytes_max: 30,
        ..SMALL
    };
    check_chunked_budgets(&small);
}

#[test]
fn budgets_fail_before_the_line_ends() {
    // Endless lines: the verdict comes as soon as the budget is crossed, with no CRLF in sight.
    let l = Limits::DEFAULT;
    let cases: [(Vec<u8>, &str, usize); 3] = [
        (cat(&[b"GET /", &rep(b'a', 100_000)]), "target_too_long", 4 + l.request_target_bytes_max),
        (cat(&[HEAD_START, b"X: ", &rep(b'v', 100_000)]), "field_value_too_large", 28 + 2048),
        (cat(&[HEAD_START, &rep(b'N', 100_000)]), "field_section_too_large", 25 + 12288 - 9),
    ];
    for (input, code, offset) in cases {
        let Verdict::Refused(e) = parse_once(&input, &l) else { panic!("{code}") };
        assert_eq!((e.code(), e.offset()), (code, offset));
    }
}

fn nested(depth: usize) -> Vec<u8> {
    cat(&[&rep(b'[', depth), &rep(b']', depth)])
}

#[test]
fn json_depth_holds_at_max_and_refuses_max_plus_one() {
    for limits in [Limits::DEFAULT, SMALL] {
        let max = limits.json_depth_max;
        assert!(json::decode(&nested(max), max).is_ok());
        let objects = cat(&[&b"{\"a\":".repeat(max), b"1", &rep(b'}', max)]);
        assert!(json::decode(&objects, max).is_ok());
        let error = json::decode(&nested(max + 1), max).unwrap_err();
        assert_eq!((error.kind, error.offset), (JsonErrorKind::DepthLimit { limit: max }, max));
    }
}

#[test]
fn response_budget_holds_at_max_and_refuses_max_plus_one_on_both_sides() {
    for limits in [Limits::DEFAULT, SMALL] {
        let max = limits.response_bytes_max;
        // "HTTP/1.1 200 OK\r\n" + "Content-Length: N\r\n" + "\r\n" + body
        let head = |body: usize| 17 + 16 + body.to_string().len() + 2 + 2;
        let body_at_max = (max - 60..max).find(|&b| head(b) + b == max).unwrap();

        let mut out = Vec::new();
        let written =
            ResponseWriter::new(&mut out, Status::Ok).finish(&rep(b'x', body_at_max), max);
        assert_eq!(written, Ok(max));
        let mut parser = ResponseParser::new(&limits);
        match parser.parse(&out) {
            Ok(Parsed::Complete { len, .. }) => assert_eq!(len, max),
            other => panic!("{other:?}"),
        }

        let mut out = Vec::new();
        let over =
            ResponseWriter::new(&mut out, Status::Ok).finish(&rep(b'x', body_at_max + 1), max);
        assert_eq!(over.map_err(|e| e.kind), Err(WriteErrorKind::ResponseTooLarge { limit: max }));
        assert!(out.is_empty(), "a refused response leaves nothing behind");

        // The client refuses as soon as the head announces too much, before any body byte.
        let head_only = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body_at_max + 1);
        let error = ResponseParser::new(&limits).parse(head_only.as_bytes()).unwrap_err();
        assert_eq!(error.kind(), ResponseErrorKind::ResponseTooLarge { limit: max });
    }
}

#[test]
fn sse_event_size_holds_at_max_and_refuses_max_plus_one() {
    for limits in [Limits::DEFAULT, SMALL] {
        let max = limits.sse_event_bytes_max;
        // "data:" + value: the line's bytes are the whole event.
        let event = |n: usize| cat(&[b"data:", &rep(b'x', n - 5), b"\n\n"]);
        assert_eq!(sse::parse_stream(&event(max), &limits).map(|e| e.len()), Ok(1));
        let error = sse::parse_stream(&event(max + 1), &limits).unwrap_err();
        assert_eq!((error.kind, error.offset), (SseErrorKind::EventTooLarge { limit: max }, max));
    }
}

#[test]
fn sse_event_count_holds_at_max_and_refuses_max_plus_one() {
    for limits in [Limits::DEFAULT, SMALL] {
        let max = limits.sse_stream_events_max;
        let stream = |n: usize| b"data: x\n\n".repeat(n);
        assert_eq!(sse::parse_stream(&stream(max), &limits).map(|e| e.len()), Ok(max));
        let error = sse::parse_stream(&stream(max + 1), &limits).unwrap_err();
        assert_eq!(error.kind, SseErrorKind::TooManyEvents { limit: max });
    }
}

#[test]
fn one_event_of_the_largest_size_always_fits_a_response_with_its_head_and_priming_event() {
    let d = Limits::DEFAULT;
    let room = d.response_bytes_max - RESPONSE_HEAD_BYTES_RESERVE - PRIMING_EVENT_BYTES_MAX;
    let d = Limits { sse_bytes_kept_per_session_max: room + 1, ..d };
    assert_eq!(Limits { sse_event_bytes_max: room, ..d }.validate(), Ok(()));
    assert_eq!(
        Limits { sse_event_bytes_max: room + 1, ..d }.validate(),
        Err(LimitsError::SseEventExceedsResponse)
    );
    // A session keeps at least one event of the largest size.
    let at = Limits { sse_bytes_kept_per_session_max: d.sse_event_bytes_max, ..d };
    assert_eq!(at.validate(), Ok(()));
    let below = Limits { sse_bytes_kept_per_session_max: d.sse_event_bytes_max - 1, ..d };
    assert_eq!(below.validate(), Err(LimitsError::KeptBytesBelowEvent));
    // A client's deadline leaves room to wait the server's retry once.
    let longer = Limits { client_request_deadline: d.stream_retry + Duration::from_nanos(1), ..d };
    assert_eq!(longer.validate(), Ok(()));
    let equal = Limits { client_request_deadline: d.stream_retry, ..d };
    assert_eq!(equal.validate(), Err(LimitsError::RequestDeadlineNotAboveRetry));
    // The quota is not related to the table's capacity: a quota above it lets capacity bind.
    let capacity_binds = Limits { sessions_active_max: 2, sessions_per_principal_max: 4, ..d };
    assert_eq!(capacity_binds.validate(), Ok(()));
}

/// An amount one step past `amount` in its kind: one more byte or count, one more nanosecond.
fn one_past(amount: Amount) -> Amount {
    match amount {
        Amount::Bytes(n) => Amount::Bytes(n + 1),
        Amount::Count(n) => Amount::Count(n + 1),
        Amount::Time(d) => Amount::Time(d + Duration::from_nanos(1)),
    }
}

/// An amount one step below `amount` in its kind, if there is one.
fn one_below(amount: Amount) -> Option<Amount> {
    match amount {
        Amount::Bytes(n) => n.checked_sub(1).map(Amount::Bytes),
        Amount::Count(n) => n.checked_sub(1).map(Amount::Count),
        Amount::Time(d) => d.checked_sub(Duration::from_nanos(1)).map(Amount::Time),
    }
}

/// Whether `limits` was refused for the magnitude of the budget `name` itself (a relation to
/// another budget may still refuse it).
fn refused_for(limits: &Limits, name: &str) -> bool {
    matches!(limits.validate(), Err(LimitsError::Zero(n) | LimitsError::AboveCeiling(n)) if n == name)
}

#[test]
fn every_budget_holds_at_its_floor_and_ceiling_and_is_refused_one_step_outside() {
    for budget in BUDGETS {
        let with = |amount| {
            let mut limits = Limits::DEFAULT;
            (budget.set)(&mut limits, amount);
            assert_eq!((budget.get)(&limits), amount, "{} was not set", budget.name);
            limits
        };
        for held in [budget.floor, budget.ceiling] {
            assert!(!refused_for(&with(held), budget.name), "{} at {held:?}", budget.name);
        }
        let over = with(one_past(budget.ceiling));
        assert_eq!(over.validate(), Err(LimitsError::AboveCeiling(budget.name)));
        if let Some(under) = one_below(budget.floor) {
            assert_eq!(with(under).validate(), Err(LimitsError::Zero(budget.name)));
        }
    }
    let names: Vec<&str> = BUDGETS.iter().map(|b| b.name).collect();
    assert!(names.contains(&"chunk_size_digits_max") && names.len() >= 44, "{names:?}");
    // The ceilings the rows name.
    let ceiling = |name| BUDGETS.iter().find(|b| b.name == name).map(|b| b.ceiling);
    assert_eq!(ceiling("chunk_size_digits_max"), Some(Amount::Count(CHUNK_SIZE_DIGITS_CEILING)));
    assert_eq!(ceiling("requests_in_processing_max"), Some(Amount::Count(WORKERS_CEILING)));
    assert_eq!(ceiling("json_depth_max"), Some(Amount::Count(JSON_DEPTH_CEILING)));
    assert_eq!(ceiling("request_body_bytes_max"), Some(Amount::Bytes(BYTES_CEILING)));
    assert_eq!(ceiling("sessions_active_max"), Some(Amount::Count(COUNT_CEILING)));
    assert_eq!(ceiling("session_ttl"), Some(Amount::Time(DURATION_CEILING)));
}

/// Where a budget is tested at its edge: at its value (held) and one past it (refused).
enum Edge {
    /// This test, in this file.
    Test(&'static str, &'static str),
    /// Nothing to be past: the budget paces a thread or is announced to clients, and this test
    /// checks that it is used.
    Paces(&'static str, &'static str, &'static str),
}

/// Every budget and the test of its edge. A budget added to the table without a row here fails
/// `every_budget_has_an_edge_test`, which names it.
const EDGES: [(&str, Edge); 56] = {
    use Edge::{Paces, Test};
    const LIMITS: &str = "tests/limits.rs";
    const CONNECTION: &str = "tests/connection.rs";
    const REQUEST: &str = "request_budgets_hold_at_max_and_refuse_max_plus_one";
    const CHUNKED: &str = "chunked_budgets_hold_at_max_and_refuse_max_plus_one";
    const WRITES: &str =
        "writes_wait_one_write_timeout_without_progress_and_the_response_deadline_in_all";
    const DRAIN: &str = "a_linger_drains_until_the_peer_closes_its_deadline_or_its_byte_budget";
    [
        ("request_body_bytes_max", Test(LIMITS, REQUEST)),
        ("chunk_size_digits_max", Test(LIMITS, CHUNKED)),
        ("chunk_extension_bytes_max", Test(LIMITS, CHUNKED)),
        ("chunks_per_body_max", Test(LIMITS, CHUNKED)),
        ("trailer_fields_max", Test(LIMITS, CHUNKED)),
        ("trailer_section_bytes_max", Test(LIMITS, CHUNKED)),
        ("json_depth_max", Test(LIMITS, "json_depth_holds_at_max_and_refuses_max_plus_one")),
        ("header_value_bytes_max", Test(LIMITS, REQUEST)),
        ("header_fields_max", Test(LIMITS, REQUEST)),
        ("accept_ranges_max", Test("tests/media.rs", "the_number_of_ranges_is_a_budget")),
        ("header_section_bytes_max", Test(LIMITS, REQUEST)),
        ("request_target_bytes_max", Test(LIMITS, REQUEST)),
        ("method_bytes_max", Test(LIMITS, REQUEST)),
        ("leading_empty_lines_max", Test(LIMITS, REQUEST)),
        (
            "response_bytes_max",
            Test(LIMITS, "response_budget_holds_at_max_and_refuses_max_plus_one_on_both_sides"),
        ),
        (
            "reply_text_bytes_kept_max",
            Test(
                "src/endpoint/state.rs",
                "the_text_buffer_comes_back_empty_and_never_larger_than_its_bound",
            ),
        ),
        (
            "sessions_active_max",
            Test("tests/endpoint.rs", "a_full_table_says_when_its_earliest_session_expires"),
        ),
        (
            "sessions_per_principal_max",
            Test(
                "tests/endpoint.rs",
                "a_principal_at_its_quota_gets_429_and_others_keep_their_slots",
            ),
        ),
        (
            "session_ttl",
            Test("tests/endpoint.rs", "a_session_lives_exactly_its_ttl_however_often_it_is_used"),
        ),
        (
            "sse_events_kept_per_session_max",
            Test(
                "tests/server_streams.rs",
                "at_the_kept_budget_every_cursor_resumes_and_one_past_it_the_oldest_is_dropped",
            ),
        ),
        (
            "sse_bytes_kept_per_session_max",
            Test("src/mcp/stream.rs", "the_byte_budget_drops_the_oldest_too"),
        ),
        (
            "sse_event_bytes_max",
            Test(LIMITS, "sse_event_size_holds_at_max_and_refuses_max_plus_one"),
        ),
        (
            "sse_stream_events_max",
            Test(LIMITS, "sse_event_count_holds_at_max_and_refuses_max_plus_one"),
        ),
        (
            "requests_in_processing_max",
            Test(
                "tests/server_transport.rs",
                "when_every_worker_is_busy_new_connections_get_a_readable_503",
            ),
        ),
        (
            "closing_worker_wait",
            Test(
                "src/server/pool.rs",
                "an_offer_waits_only_for_a_closing_taker_and_only_until_the_wait_ends",
            ),
        ),
        (
            "socket_read_timeout",
            Test(CONNECTION, "once_a_head_has_begun_one_read_waits_at_most_the_read_timeout"),
        ),
        (
            "request_head_deadline",
            Test(CONNECTION, "a_trickling_head_is_closed_at_the_head_deadline_and_not_before"),
        ),
        (
            "request_body_deadline",
            Test(
                CONNECTION,
                "a_body_is_read_to_its_length_within_the_body_deadline_and_read_timeout",
            ),
        ),
        (
            "connection_idle_timeout",
            Test(CONNECTION, "the_idle_timeout_governs_before_a_first_byte_at_its_edge"),
        ),
        (
            "requests_per_connection_max",
            Test(CONNECTION, "the_last_request_of_the_connection_budget_is_dispatched_to_close"),
        ),
        ("socket_write_timeout", Test(CONNECTION, WRITES)),
        ("response_write_deadline", Test(CONNECTION, WRITES)),
        (
            "accept_error_pause",
            Paces(
                "it paces the acceptor after a failed accept",
                "src/server/mod.rs",
                "run_acceptor",
            ),
        ),
        ("drain_bytes_max", Test(CONNECTION, DRAIN)),
        ("drain_timeout", Test(CONNECTION, DRAIN)),
        (
            "connections_lingering_max",
            Test(
                "tests/server_transport.rs",
                "when_the_lingering_set_is_full_the_oldest_is_closed_and_a_new_refusal_is_still_answered",
            ),
        ),
        (
            "linger_sweep_interval",
            Paces("it paces the sweeper", "src/server/linger.rs", "run_sweeper"),
        ),
        (
            "stream_retry",
            Paces(
                "it is announced in every priming event",
                "tests/server_streams.rs",
                "every_stream_opens_with_a_priming_event_of_exactly_these_bytes",
            ),
        ),
        (
            "list_ttl",
            Paces(
                "it is announced as ttlMs in every 2026-07-28 list result",
                "tests/server_modern.rs",
                "discovery_lists_and_tools_answer_with_the_modern_result_fields",
            ),
        ),
        (
            "client_io_timeout",
            Test(
                "tests/client.rs",
                "a_silent_server_fails_the_exchange_at_the_io_timeout_and_not_before",
            ),
        ),
        (
            "client_resumptions_max",
            Test("tests/client.rs", "resumptions_hold_at_max_and_stop_one_past_it"),
        ),
        (
            "client_request_deadline",
            Test("tests/client.rs", "a_resumption_that_fails_is_a_typed_error"),
        ),
        (
            "interim_responses_max",
            Test("tests/client.rs", "interim_responses_hold_at_max_and_fail_one_past_it"),
        ),
        (
            "control_line_bytes_max",
            Test(
                "tests/cli_control.rs",
                "a_command_at_the_budget_runs_and_one_byte_more_is_refused_on_both_paths",
            ),
        ),
        (
            "control_line_deadline",
            Test("tests/cli_control.rs", "a_line_that_arrives_after_its_deadline_never_runs"),
        ),
        (
            "control_connections_max",
            Test(
                "tests/cli_control.rs",
                "a_connection_past_every_slot_is_answered_busy_at_once_and_the_owner_tries_again",
            ),
        ),
        ("count_slowly_steps_max", Test(LIVE, SLOW_ARGUMENTS)),
        ("count_slowly_pause_max", Test(LIVE, SLOW_ARGUMENTS)),
        (
            "test_tool_slow_duration_max",
            Test(
                "tests/server_cancel.rs",
                "slow_tool_durations_hold_at_their_budget_and_are_refused_one_past",
            ),
        ),
        (
            "test_tool_slow_step",
            Paces(
                "it cuts a slow tool's work into steps, each a write and a look for a cancellation",
                "src/endpoint/tools.rs",
                "slow_tool_steps",
            ),
        ),
        (
            "stream_keepalive",
            Test(LIVE, "a_quiet_stream_sends_a_comment_line_at_its_keepalive_interval"),
        ),
        (
            "stream_poll_interval",
            Paces(
                "it paces how often a quiet stream looks for news",
                "src/endpoint/live.rs",
                "next",
            ),
        ),
        ("stream_share_percent", Test(LIVE, SHARE)),
        ("open_streams_per_principal_max", Test(LIVE, STREAM_QUOTA)),
        ("listens_per_principal_max", Test(LIVE, SHARE)),
        (
            "listen_lifetime",
            Test(
                LIVE,
                "a_listen_ends_gracefully_at_its_lifetime_and_without_a_result_when_its_token_is_revoked",
            ),
        ),
    ]
};

const LIVE: &str = "tests/server_live.rs";
const SLOW_ARGUMENTS: &str = "slow_call_arguments_hold_at_their_budgets_and_are_refused_one_past";
const SHARE: &str = "open_streams_hold_at_most_their_share_and_one_principal_its_listens";
const STREAM_QUOTA: &str = "one_principals_abandoned_calls_hold_its_part_and_others_still_stream";

#[test]
fn every_budget_has_an_edge_test() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    for budget in BUDGETS {
        if !EDGES.iter().any(|(name, _)| *name == budget.name) {
            problems.push(format!("{}: no edge test named in EDGES", budget.name));
        }
    }
    for (name, edge) in &EDGES {
        if !BUDGETS.iter().any(|b| b.name == *name) {
            problems.push(format!("{name}: in EDGES but no budget"));
        }
        let (file, function) = match edge {
            Edge::Test(file, test) => (file, test),
            Edge::Paces(why, file, function) => {
                if why.is_empty() {
                    problems.push(format!("{name}: no reason it has no edge"));
                }
                (file, function)
            }
        };
        let source = std::fs::read_to_string(root.join(file)).unwrap_or_default();
        if !source.contains(&format!("fn {function}(")) {
            problems.push(format!("{name}: {file} has no fn {function}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn each_read_budget_names_a_duration_of_the_table() {
    use loopback_mcp_http::http::connection::ReadBudget::{
        self, Body, ConnectionIdle, Head, SocketRead,
    };
    // A read budget added to the enum does not compile here until it is listed.
    let listed = |budget: ReadBudget| match budget {
        ConnectionIdle | SocketRead | Head | Body => budget,
    };
    for budget in [ConnectionIdle, SocketRead, Head, Body].map(listed) {
        let row = BUDGETS.iter().find(|b| b.name == budget.name());
        assert!(matches!(row.map(|b| b.floor), Some(Amount::Time(_))), "{budget:?}");
    }
}
