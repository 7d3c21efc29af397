//! Fuzzes the client's response parser with raw bytes: no panic, an accepted response stays
//! within the response budget and carries exactly its Content-Length (none for 1xx, 204, 304),
//! and the verdict does not depend on how the bytes were split. The same bytes read as the
//! response to a HEAD request end after their head: no content, whatever they announce, and the
//! same verdict whole or split.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::http::{Parsed, Response, ResponseError, ResponseParser};
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
            assert!(*len <= data.len() && *len <= limits.response_bytes_max);
            assert!((100..=599).contains(&response.status));
            // 1xx, 204 and 304 never carry content (a 304's Content-Length describes a
            // representation that is not sent); every other status carries exactly its length.
            let no_content = response.status < 200 || matches!(response.status, 204 | 304);
            match response.fields.get("content-length") {
                Some(_) if no_content => assert!(response.body.is_empty()),
                Some(value) => {
                    let n: usize = std::str::from_utf8(value).unwrap().parse().unwrap();
                    assert_eq!(response.body.len(), n);
                }
                None => assert!(response.body.is_empty() && no_content),
            }
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
