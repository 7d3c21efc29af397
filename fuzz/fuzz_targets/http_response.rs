//! Fuzzes the client's response parser with raw bytes: no panic, an accepted response stays
//! within the response budget and carries exactly its Content-Length (none for 1xx, 204, 304),
//! or is chunked and ends with its head (one `Transfer-Encoding: chunked` line, any case, no
//! Content-Length, HTTP/1.1, a status with content), and the verdict does not depend on how the
//! bytes were split. Every accepted head, chunked or not, is one `httparse` parses to the same
//! length, version, status and field lines. The same bytes read as the response to a HEAD
//! request end after their head: no content, whatever they announce, and the same verdict whole
//! or split.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::http::{
    Parsed, Response, ResponseError, ResponseFraming, ResponseParser, Version,
};
use loopback_mcp_http::limits::{Limits, PRIMING_EVENT_BYTES_MAX, RESPONSE_HEAD_BYTES_RESERVE};

/// As small as the budgets' relations allow: one 64-byte event and a priming event beside a
/// response head.
const TINY: Limits = Limits {
    response_bytes_max: RESPONSE_HEAD_BYTES_RESERVE + PRIMING_EVENT_BYTES_MAX + 64,
    header_value_bytes_max: 16,
    header_fields_max: 4,
    header_section_bytes_max: 64,
    sse_event_bytes_max: 64,
    ..Limits::DEFAULT
};
const _: () = assert!(TINY.validate().is_ok());

fn verdict<'b>(
    result: Result<Parsed<Response<'b>>, ResponseError>,
) -> Option<Result<(Response<'b>, usize), ResponseError>> {
    match result {
        Ok(Parsed::Partial) => None,
        Ok(Parsed::Complete { value, len }) => Some(Ok((value, len))),
        Err(e) => Some(Err(e)),
    }
}

fuzz_target!(|data: &[u8]| {
    for limits in [Limits::DEFAULT, TINY] {
        check_head_responses(data, &limits);
        let mut whole = ResponseParser::new(&limits);
        let once = verdict(whole.parse(data));
        if let Some(Ok((response, len))) = &once {
            check_accepted(data, response, *len, &limits);
        }
        let n = data.len();
        let step = if n <= 64 { 1 } else { n / 31 };
        for k in (0..=n).step_by(step) {
            let mut parser = ResponseParser::new(&limits);
            {
                let first = verdict(parser.parse(&data[..k]));
                if first.is_some() {
                    assert_eq!(first, once, "split at {k}");
                }
            }
            assert_eq!(verdict(parser.parse(data)), once, "split at {k}");
        }
        if n <= 4096 {
            let mut parser = ResponseParser::new(&limits);
            for k in 0..n {
                if verdict(parser.parse(&data[..k])).is_some() {
                    break;
                }
            }
            assert_eq!(verdict(parser.parse(data)), once, "byte by byte");
        }
    }
});

/// What any accepted response must be: within the budget, framed as its head says, and a head
/// that httparse reads the same way.
fn check_accepted(data: &[u8], response: &Response<'_>, len: usize, limits: &Limits) {
    assert!(len <= data.len() && len <= limits.response_bytes_max);
    assert!((100..=599).contains(&response.status));
    // 1xx, 204 and 304 never carry content (a 304's Content-Length describes a representation
    // that is not sent); every other status carries exactly its length, or is chunked.
    let no_content = response.status < 200 || matches!(response.status, 204 | 304);
    let fields = &response.fields;
    match response.framing {
        ResponseFraming::Chunked => {
            assert!(!no_content && response.version == Version::Http11);
            assert!(response.body.is_empty() && data[..len].ends_with(b"\r\n\r\n"));
            assert_eq!(fields.count("transfer-encoding"), 1);
            let coding = fields.get("transfer-encoding").unwrap();
            assert!(coding.eq_ignore_ascii_case(b"chunked"));
            assert_eq!(fields.count("content-length"), 0);
        }
        ResponseFraming::Length => {
            assert_eq!(fields.count("transfer-encoding"), 0);
            match fields.get("content-length") {
                Some(_) if no_content => assert!(response.body.is_empty()),
                Some(value) => {
                    let n: usize = std::str::from_utf8(value).unwrap().parse().unwrap();
                    assert_eq!(response.body.len(), n);
                }
                None => assert!(response.body.is_empty() && no_content),
            }
        }
    }
    compare_with_httparse(&data[..len - response.body.len()], response);
}

/// httparse, on a head this parser accepted: complete at the same length, with the same version,
/// status, reason and field lines (values compared without surrounding whitespace).
fn compare_with_httparse(head: &[u8], response: &Response<'_>) {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut parsed = httparse::Response::new(&mut headers);
    let outcome = parsed.parse(head);
    assert!(matches!(outcome, Ok(httparse::Status::Complete(n)) if n == head.len()), "{outcome:?}");
    let version = match response.version {
        Version::Http10 => 0,
        Version::Http11 => 1,
    };
    assert_eq!((parsed.version, parsed.code), (Some(version), Some(response.status)));
    // httparse gives a reason with any obs-text byte (0x80 and up) as an empty one.
    let reason =
        if response.reason.is_ascii() { std::str::from_utf8(response.reason).unwrap() } else { "" };
    assert_eq!(parsed.reason, Some(reason));
    assert_eq!(parsed.headers.len(), response.fields.len());
    let trim = |v: &[u8]| -> Vec<u8> {
        let start = v.iter().position(|&b| b != b' ' && b != b'\t').unwrap_or(v.len());
        let end = v.iter().rposition(|&b| b != b' ' && b != b'\t').map_or(start, |e| e + 1);
        v[start..end].to_vec()
    };
    for (theirs, ours) in parsed.headers.iter().zip(response.fields.iter()) {
        assert_eq!((theirs.name, trim(theirs.value)), (ours.name, ours.value.to_vec()));
    }
}

/// As the response to a HEAD request: an accepted response has no content and ends with its
/// head's empty line, and splitting the bytes changes nothing.
fn check_head_responses(data: &[u8], limits: &Limits) {
    let mut whole = ResponseParser::for_head(limits);
    let once = verdict(whole.parse(data));
    if let Some(Ok((response, len))) = &once {
        assert!(response.body.is_empty());
        assert!(*len <= data.len() && data[..*len].ends_with(b"\r\n\r\n"));
    }
    let n = data.len();
    let step = if n <= 64 { 1 } else { n / 31 };
    for k in (0..=n).step_by(step) {
        let mut parser = ResponseParser::for_head(limits);
        {
            let first = verdict(parser.parse(&data[..k]));
            if first.is_some() {
                assert_eq!(first, once, "HEAD split at {k}");
            }
        }
        assert_eq!(verdict(parser.parse(data)), once, "HEAD split at {k}");
    }
}
