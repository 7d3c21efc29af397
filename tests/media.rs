//! Media types and Accept lists, including the project's answer to "does `*/*` satisfy the MCP
//! Accept rule?" (no: see `http::media`).

use loopback_mcp_http::http::media::{Accept, MediaErrorKind, MediaType};
use loopback_mcp_http::limits::Limits;

const RANGES: usize = Limits::DEFAULT.accept_ranges_max;

#[test]
fn content_types_parse_strictly_and_only_json_utf8_passes() {
    // (value, parses, is application/json with an acceptable charset)
    let cases: [(&[u8], Result<bool, MediaErrorKind>); 16] = [
        (b"application/json", Ok(true)),
        (b"Application/JSON", Ok(true)),
        (b"application/json; charset=utf-8", Ok(true)),
        (b"application/json;charset=\"UTF-8\"", Ok(true)),
        (b"application/json ; charset=utf-8 ", Ok(true)),
        (b"application/json;", Ok(true)),
        (b"application/json; charset=latin1", Ok(false)),
        (b"application/json; profile=x", Ok(false)),
        (b"text/plain", Ok(false)),
        (b"application/jsonx", Ok(false)),
        (b"application/json, text/plain", Err(MediaErrorKind::Syntax)),
        (b"application", Err(MediaErrorKind::Syntax)),
        (b"application/", Err(MediaErrorKind::Syntax)),
        (b"application/json; charset", Err(MediaErrorKind::Syntax)),
        (b"application/json; charset=\"utf-8", Err(MediaErrorKind::Syntax)),
        (b"*/*", Err(MediaErrorKind::WildcardInvalid)),
    ];
    for (value, expected) in cases {
        let got = MediaType::parse(value).map(|m| m.is_json_utf8()).map_err(|e| e.kind);
        assert_eq!(got, expected, "{:?}", String::from_utf8_lossy(value));
    }
}

#[test]
fn quoted_parameter_values_are_unescaped() {
    let media = MediaType::parse(br#"text/plain; a="x\"y\\z"; b=tok"#).unwrap();
    assert_eq!(media.param("A"), Some(&br#"x"y\z"#[..]));
    assert_eq!(media.param("b"), Some(&b"tok"[..]));
    assert_eq!(media.param("c"), None);
}

#[test]
fn mcp_accept_rule_requires_each_type_to_be_listed() {
    // (Accept field lines, lists application/json, lists text/event-stream)
    let cases: [(&[&[u8]], bool, bool); 14] = [
        (&[b"application/json, text/event-stream"], true, true),
        (&[b"text/event-stream,application/json"], true, true),
        (&[b"application/json", b"text/event-stream"], true, true),
        (&[b"APPLICATION/JSON;q=0.5, Text/Event-Stream;q=0.001"], true, true),
        (&[b"application/json;charset=utf-8, text/event-stream"], true, true),
        (&[b"application/json"], true, false),
        (&[b"text/event-stream"], false, true),
        (&[b"*/*"], false, false),
        (&[b"application/*, text/*"], false, false),
        (&[b"application/json;q=0, text/event-stream"], false, true),
        (&[b"application/json, application/json;q=0, text/event-stream"], false, true),
        (&[b"application/json, text/event-stream;q=0"], true, false),
        (&[b""], false, false),
        (&[], false, false),
    ];
    for (values, json, sse) in cases {
        let accept = Accept::parse(values.iter().copied(), RANGES).unwrap();
        let got = (accept.lists("application", "json"), accept.lists("text", "event-stream"));
        assert_eq!(got, (json, sse), "{values:?}");
        let types = [("application", "json"), ("text", "event-stream")];
        let one_pass = Accept::lists_each(values.iter().copied(), RANGES, types);
        assert_eq!(one_pass, Ok([json, sse]), "{values:?}");
    }
}

#[test]
fn general_quality_prefers_the_most_specific_range() {
    let accept = Accept::parse(
        [&b"*/*;q=0.1, text/*;q=0.5, text/event-stream;q=0.8, image/png;q=0"[..]],
        RANGES,
    )
    .unwrap();
    let cases: [(&str, &str, u16); 5] = [
        ("text", "event-stream", 800),
        ("text", "plain", 500),
        ("application", "json", 100),
        ("image", "png", 0),
        ("Text", "Event-Stream", 800),
    ];
    for (type_, subtype, q) in cases {
        assert_eq!(accept.quality(type_, subtype), q, "{type_}/{subtype}");
    }
    assert_eq!(Accept::default().quality("text", "plain"), 0);
}

#[test]
fn malformed_accept_values_are_refused() {
    let cases: [(&[u8], MediaErrorKind); 9] = [
        (b"application", MediaErrorKind::Syntax),
        (b"text/event-stream;q=\"0\"", MediaErrorKind::QualityInvalid),
        (b"application/json text/event-stream", MediaErrorKind::Syntax),
        (b"application/json;q=2", MediaErrorKind::QualityInvalid),
        (b"application/json;q=0.5;q=0.5", MediaErrorKind::QualityInvalid),
        (b"application/json;q=", MediaErrorKind::Syntax),
        (b"application/json;q=1.5", MediaErrorKind::QualityInvalid),
        (b"*/json", MediaErrorKind::WildcardInvalid),
        (b"text/event-stream;a=\"\x01\"", MediaErrorKind::Syntax),
    ];
    for (value, kind) in cases {
        let got = Accept::parse([value], RANGES).map_err(|e| e.kind);
        assert_eq!(got.err(), Some(kind), "{:?}", String::from_utf8_lossy(value));
    }
}

#[test]
fn a_weight_may_come_before_other_parameters() {
    // RFC 9110 §12.5.1: a parameter named "q" is the weight wherever it stands.
    let accept = Accept::parse([&b"text/event-stream;q=0.5;level=1"[..]], RANGES).unwrap();
    assert_eq!(accept.quality("text", "event-stream"), 500);
    assert_eq!(accept.ranges[0].media.param("level"), Some(&b"1"[..]));
}

#[test]
fn the_number_of_ranges_is_a_budget() {
    let at_max = vec![b"a/b".to_vec(); RANGES].join(&b","[..]);
    assert_eq!(Accept::parse([at_max.as_slice()], RANGES).map(|a| a.ranges.len()), Ok(RANGES));
    let over = vec![b"a/b".to_vec(); RANGES + 1].join(&b","[..]);
    let error = Accept::parse([over.as_slice()], RANGES).unwrap_err();
    assert_eq!(error.kind, MediaErrorKind::TooManyRanges { limit: RANGES });
    // Spread over several field lines, the ranges still count together.
    let half = vec![b"a/b".to_vec(); RANGES / 2 + 1].join(&b","[..]);
    let error = Accept::parse([half.as_slice(), half.as_slice()], RANGES).unwrap_err();
    assert_eq!(error.kind, MediaErrorKind::TooManyRanges { limit: RANGES });
}

#[test]
fn empty_list_elements_are_skipped() {
    let accept =
        Accept::parse([&b" , application/json ,, text/event-stream , "[..]], RANGES).unwrap();
    assert_eq!(accept.ranges.len(), 2);
}
