//! Fuzzes the media-type and Accept parsers with raw header values.
//!
//! Checked on every input: no panic; an accepted `Content-Type` has no wildcard; an accepted
//! Accept list stays within its range budget, has no weight left among the parameters and only
//! weights from 0 to 1000; a type the MCP rule finds listed also has a weight above zero under
//! RFC negotiation; the one-pass check (`Accept::lists_each`) agrees with the parsed list, refusals
//! included, and so its answer by the bytes of the usual spelling (`Accept::names_exactly`);
//! `MediaType::names_json_utf8` is the parser's answer; and two field lines that parse on their
//! own parse to the same ranges when sent as one comma-joined line (RFC 9110 §5.3).
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::http::media::{Accept, MediaType};

/// A small range budget, so its edge is reached quickly; and the default one.
const RANGE_BUDGETS: [usize; 2] = [3, 16];
const PROBES: [(&str, &str); 3] =
    [("application", "json"), ("text", "event-stream"), ("text", "plain")];

fuzz_target!(|data: &[u8]| {
    if let Ok(media) = MediaType::parse(data) {
        assert!(media.type_ != b"*" && media.subtype != b"*");
    }
    let parsed_json = MediaType::parse(data).is_ok_and(|m| m.is_json_utf8());
    assert_eq!(MediaType::names_json_utf8(data), parsed_json);
    for ranges_max in RANGE_BUDGETS {
        check_accept(data, ranges_max);
    }
});

fn check_accept(data: &[u8], ranges_max: usize) {
    let parsed = Accept::parse([data], ranges_max);
    let one_pass = Accept::lists_each([data], ranges_max, PROBES);
    if Accept::names_exactly(data, ranges_max, PROBES) {
        assert_eq!(one_pass, Ok([true; 3]));
    }
    for pair in [[PROBES[0], PROBES[1]], [PROBES[1], PROBES[0]]] {
        if Accept::names_exactly(data, ranges_max, pair) {
            assert_eq!(Accept::lists_each([data], ranges_max, pair), Ok([true; 2]));
        }
    }
    match &parsed {
        Ok(accept) => assert_eq!(one_pass, Ok(PROBES.map(|(t, s)| accept.lists(t, s)))),
        Err(error) => assert_eq!(one_pass, Err(*error)),
    }
    let Ok(accept) = parsed else {
        return;
    };
    assert!(accept.ranges.len() <= ranges_max);
    for range in &accept.ranges {
        assert!(range.quality <= 1000);
        assert!(range.media.params.iter().all(|p| !p.name.eq_ignore_ascii_case("q")));
    }
    for (type_, subtype) in PROBES {
        if accept.lists(type_, subtype) {
            assert!(accept.quality(type_, subtype) > 0, "{type_}/{subtype}");
        }
    }
    // Split the value in two field lines at the first comma, if any: when both halves parse,
    // the joined value is the same list.
    let Some(comma) = data.iter().position(|&b| b == b',') else {
        return;
    };
    let (first, second) = (&data[..comma], &data[comma + 1..]);
    if let Ok(lines) = Accept::parse([first, second], ranges_max) {
        assert_eq!(lines, accept);
    }
}
