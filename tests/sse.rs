//! SSE framing: the encoder's exact bytes, the strict parser's verdicts on the WHATWG line
//! rules, chunk-split invariance, and encode/parse round trips.

use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::sse::{self, Event, SseEncodeError, SseErrorKind, SseParser};

fn event(id: Option<&str>, kind: Option<&str>, data: Option<&str>, retry: Option<u64>) -> Event {
    Event {
        id: id.map(str::to_owned),
        event: kind.map(str::to_owned),
        data: data.map(str::to_owned),
        retry,
    }
}

const MAX: usize = Limits::DEFAULT.sse_event_bytes_max;

fn data(d: &str) -> Event {
    event(None, None, Some(d), None)
}

/// Parses `input` delivered in pieces ending at `ends`.
fn parse_in_pieces(input: &[u8], ends: &[usize]) -> Result<Vec<Event>, (SseErrorKind, usize)> {
    let mut parser = SseParser::new(&Limits::DEFAULT);
    let mut events = Vec::new();
    let mut start = 0;
    for &end in ends {
        parser.push(&input[start..end], &mut events).map_err(|e| (e.kind, e.offset))?;
        start = end;
    }
    parser.finish().map_err(|e| (e.kind, e.offset))?;
    Ok(events)
}

type Expected = Result<Vec<Event>, (SseErrorKind, usize)>;

#[test]
fn event_streams_get_their_exact_events_or_errors() {
    let cases: Vec<(&str, &[u8], Expected)> = vec![
        ("lf", b"data: x\n\n", Ok(vec![data("x")])),
        ("crlf", b"data: x\r\n\r\n", Ok(vec![data("x")])),
        ("cr", b"data: x\r\r", Ok(vec![data("x")])),
        ("mixed endings", b"data: a\rdata: b\r\ndata: c\n\n", Ok(vec![data("a\nb\nc")])),
        ("no space after colon", b"data:x\n\n", Ok(vec![data("x")])),
        ("only one space is dropped", b"data:  x\n\n", Ok(vec![data(" x")])),
        ("field without colon", b"data\n\n", Ok(vec![data("")])),
        ("empty data line", b"data:\n\n", Ok(vec![data("")])),
        ("two empty data lines", b"data\ndata\n\n", Ok(vec![data("\n")])),
        ("colon in value", b"data: a:b\n\n", Ok(vec![data("a:b")])),
        ("comments ignored", b": hello\ndata: x\n: bye\n\n", Ok(vec![data("x")])),
        ("comment-only block is no event", b": keep-alive\n\n", Ok(vec![])),
        (
            "keep-alives between events, mid-stream",
            b"id: 1\ndata: a\n\n: keep-alive\n\n: keep-alive\n\nid: 2\ndata: b\n\n",
            Ok(vec![
                event(Some("1"), None, Some("a"), None),
                event(Some("2"), None, Some("b"), None),
            ]),
        ),
        (
            "a keep-alive inside an event",
            b"data: a\n: keep-alive\ndata: b\n\n",
            Ok(vec![data("a\nb")]),
        ),
        ("blank lines alone", b"\n\n\r\n", Ok(vec![])),
        ("empty stream", b"", Ok(vec![])),
        ("bom at start", b"\xef\xbb\xbfdata: x\n\n", Ok(vec![data("x")])),
        (
            "all fields",
            b"id: g-7\nevent: message\nretry: 3000\ndata: {}\n\n",
            Ok(vec![event(Some("g-7"), Some("message"), Some("{}"), Some(3000))]),
        ),
        ("retry only", b"retry: 1000\n\n", Ok(vec![event(None, None, None, Some(1000))])),
        ("empty id", b"id\n\n", Ok(vec![event(Some(""), None, None, None)])),
        (
            "two events",
            b"id: 1\ndata: a\n\nid: 2\ndata: b\n\n",
            Ok(vec![
                event(Some("1"), None, Some("a"), None),
                event(Some("2"), None, Some("b"), None),
            ]),
        ),
        ("utf-8 data", "data: é😀\n\n".as_bytes(), Ok(vec![data("é😀")])),
        ("unknown field", b"foo: x\n\n", Err((SseErrorKind::UnknownField, 0))),
        ("field names are case-sensitive", b"Data: x\n\n", Err((SseErrorKind::UnknownField, 0))),
        (
            "bom not at start",
            b"data: x\n\n\xef\xbb\xbfdata: y\n\n",
            Err((SseErrorKind::UnknownField, 9)),
        ),
        ("duplicate id", b"id: 1\nid: 2\n\n", Err((SseErrorKind::DuplicateField, 6))),
        ("duplicate event", b"event: a\nevent: b\n\n", Err((SseErrorKind::DuplicateField, 9))),
        ("duplicate retry", b"retry: 1\nretry: 1\n\n", Err((SseErrorKind::DuplicateField, 9))),
        ("nul in id", b"id: a\x00b\n\n", Err((SseErrorKind::IdContainsNul, 0))),
        ("retry with letters", b"retry: 10s\n\n", Err((SseErrorKind::RetryInvalid, 0))),
        ("retry empty", b"retry:\n\n", Err((SseErrorKind::RetryInvalid, 0))),
        ("retry negative", b"retry: -1\n\n", Err((SseErrorKind::RetryInvalid, 0))),
        (
            "retry overflow",
            b"retry: 18446744073709551616\n\n",
            Err((SseErrorKind::RetryInvalid, 0)),
        ),
        ("invalid utf-8", b"data: \xff\n\n", Err((SseErrorKind::InvalidUtf8, 0))),
        ("invalid utf-8 in comment", b": \xc0\xaf\n\n", Err((SseErrorKind::InvalidUtf8, 0))),
        ("truncated line", b"data: x", Err((SseErrorKind::TruncatedEvent, 7))),
        ("truncated event", b"data: x\n", Err((SseErrorKind::TruncatedEvent, 8))),
        (
            "truncated second event",
            b"data: x\n\ndata: y\n",
            Err((SseErrorKind::TruncatedEvent, 17)),
        ),
        (
            "trailing comment without newline",
            b"data: x\n\n: c",
            Err((SseErrorKind::TruncatedEvent, 12)),
        ),
    ];
    for (name, input, expected) in cases {
        let n = input.len();
        assert_eq!(parse_in_pieces(input, &[n]), expected, "{name}");
        for k in 0..=n {
            assert_eq!(parse_in_pieces(input, &[k, n]), expected, "{name}: split at {k}");
        }
        let every_byte: Vec<usize> = (1..=n).collect();
        assert_eq!(parse_in_pieces(input, &every_byte), expected, "{name}: byte by byte");
    }
}

#[test]
fn errors_are_sticky() {
    let mut parser = SseParser::new(&Limits::DEFAULT);
    let mut events = Vec::new();
    let first = parser.push(b"bogus\n", &mut events).unwrap_err();
    assert_eq!(parser.push(b"data: x\n\n", &mut events), Err(first));
    assert_eq!(parser.finish(), Err(first));
    assert!(events.is_empty());
}

#[test]
fn encoder_writes_exact_bytes() {
    let cases: [(Event, &[u8]); 5] = [
        (data("x"), b"data: x\n\n"),
        (data(""), b"data:\n\n"),
        (data("a\n\nb"), b"data: a\ndata:\ndata: b\n\n"),
        (
            event(Some("7"), Some("message"), Some("{}"), Some(1500)),
            b"id: 7\nevent: message\nretry: 1500\ndata: {}\n\n",
        ),
        (event(None, None, None, Some(0)), b"retry: 0\n\n"),
    ];
    for (e, expected) in cases {
        let mut out = Vec::new();
        sse::encode_event(&e, MAX, &mut out).unwrap();
        assert_eq!(out, expected, "{e:?}");
    }
}

#[test]
fn encoder_refuses_values_that_would_be_read_differently() {
    let cases: [(Event, SseEncodeError); 7] = [
        (Event::default(), SseEncodeError::EmptyEvent),
        (event(Some("a\nb"), None, Some("x"), None), SseEncodeError::IdInvalid),
        (event(Some("a\rb"), None, Some("x"), None), SseEncodeError::IdInvalid),
        (event(Some("a\0b"), None, Some("x"), None), SseEncodeError::IdInvalid),
        (event(None, Some("a\nb"), Some("x"), None), SseEncodeError::EventTypeInvalid),
        (data("a\rb"), SseEncodeError::DataInvalid),
        (data("a\r\nb"), SseEncodeError::DataInvalid),
    ];
    for (e, expected) in cases {
        let mut out = b"kept".to_vec();
        assert_eq!(sse::encode_event(&e, MAX, &mut out), Err(expected), "{e:?}");
        assert_eq!(out, b"kept");
    }
}

#[test]
fn encoder_and_parser_count_event_bytes_the_same_way() {
    let limits = Limits { sse_event_bytes_max: 20, ..Limits::DEFAULT };
    // "id: 1" (5) + "data: " (6) + 9 = 20 line bytes: the largest event both sides accept.
    let at_max = event(Some("1"), None, Some("123456789"), None);
    let mut out = Vec::new();
    sse::encode_event(&at_max, 20, &mut out).unwrap();
    assert_eq!(sse::parse_stream(&out, &limits), Ok(vec![at_max]));
    let over = event(Some("1"), None, Some("1234567890"), None);
    let mut out = b"kept".to_vec();
    assert_eq!(sse::encode_event(&over, 20, &mut out), Err(SseEncodeError::TooLarge { limit: 20 }));
    assert_eq!(out, b"kept");
    let written = b"id: 1\ndata: 1234567890\n\n";
    assert_eq!(
        sse::parse_stream(written, &limits).map_err(|e| e.kind),
        Err(SseErrorKind::EventTooLarge { limit: 20 })
    );
}

#[test]
fn encoded_events_parse_back_identically() {
    let events = vec![
        data("x"),
        data(""),
        data(" leading space"),
        data("\n"),
        data("multi\nline\n"),
        data(": not a comment"),
        data("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}"),
        event(Some(""), None, None, None),
        event(Some("s1-e42"), Some("message"), Some("é😀"), Some(u64::MAX)),
        event(None, Some(""), Some("x"), None),
        event(Some(" spaced id "), Some(" spaced type"), Some("x"), None),
        event(None, None, None, Some(3000)),
    ];
    let mut stream = Vec::new();
    for e in &events {
        sse::encode_event(e, MAX, &mut stream).unwrap();
    }
    assert_eq!(sse::parse_stream(&stream, &Limits::DEFAULT), Ok(events));
}
