//! Every budget the codecs enforce, exactly at its value (accepted) and one past it (refused),
//! with the default limits and with small hand-built ones, to show the code reads the struct.
//!
//! The chunked-body budgets (under `--chunked`) go through the chunked decoder the same way, split
//! at every point. The session, concurrency and deadline budgets belong to the server and are
//! tested with it.

mod common;

use common::{Verdict, assert_split_invariant, cat, parse_once, rep};
use loopback_mcp_http::http::chunked::{ChunkedDecoder, Decoded};
use loopback_mcp_http::http::writer::{ResponseWriter, WriteErrorKind};
use loopback_mcp_http::http::{Parsed, ResponseErrorKind, ResponseParser, Status};
use loopback_mcp_http::json::{self, JsonErrorKind};
use std::time::Duration;

use loopback_mcp_http::limits::{
    BYTES_CEILING, CHUNK_SIZE_DIGITS_CEILING, COUNT_CEILING, DURATION_CEILING, JSON_DEPTH_CEILING,
    Limits, LimitsError, PRIMING_EVENT_BYTES_MAX, RESPONSE_HEAD_BYTES_RESERVE, WORKERS_CEILING,
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

#[test]
fn ceilings_hold_at_max_and_refuse_max_plus_one() {
    let d = Limits::DEFAULT;
    let one_ns = Duration::from_nanos(1);
    // (at the ceiling, one past it, the budget named in the refusal)
    let cases: [(Limits, Limits, &str); 8] = [
        (
            Limits { chunk_size_digits_max: CHUNK_SIZE_DIGITS_CEILING, ..d },
            Limits { chunk_size_digits_max: CHUNK_SIZE_DIGITS_CEILING + 1, ..d },
            "chunk_size_digits_max",
        ),
        (
            Limits { requests_in_processing_max: WORKERS_CEILING, ..d },
            Limits { requests_in_processing_max: WORKERS_CEILING + 1, ..d },
            "requests_in_processing_max",
        ),
        (
            Limits { sessions_per_principal_max: COUNT_CEILING, ..d },
            Limits { sessions_per_principal_max: COUNT_CEILING + 1, ..d },
            "sessions_per_principal_max",
        ),
        (
            Limits { json_depth_max: JSON_DEPTH_CEILING, ..d },
            Limits { json_depth_max: JSON_DEPTH_CEILING + 1, ..d },
            "json_depth_max",
        ),
        (
            Limits { request_body_bytes_max: BYTES_CEILING, ..d },
            Limits { request_body_bytes_max: BYTES_CEILING + 1, ..d },
            "request_body_bytes_max",
        ),
        (
            Limits { sessions_active_max: COUNT_CEILING, ..d },
            Limits { sessions_active_max: COUNT_CEILING + 1, ..d },
            "sessions_active_max",
        ),
        (
            Limits { session_ttl: DURATION_CEILING, ..d },
            Limits { session_ttl: DURATION_CEILING + one_ns, ..d },
            "session_ttl",
        ),
        (
            Limits { response_write_deadline: DURATION_CEILING, ..d },
            Limits { response_write_deadline: DURATION_CEILING + one_ns, ..d },
            "response_write_deadline",
        ),
    ];
    for (at_max, over, name) in cases {
        assert_eq!(at_max.validate(), Ok(()), "{name} at its ceiling");
        assert_eq!(over.validate(), Err(LimitsError::AboveCeiling(name)), "{name} past it");
    }
}
