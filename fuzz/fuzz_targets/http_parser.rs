//! Fuzzes the request head parser with raw bytes.
//!
//! Checked on every input, with the default budgets and with tiny ones (so budget edges are
//! reached quickly): no panic; an accepted head obeys the grammar and every budget; the verdict
//! is the same whether the bytes arrive at once, split at any point, or one byte per call; and
//! whatever this parser accepts, httparse parses to the same method, path, version, fields and
//! length (one-way: httparse is more lenient, so its refusals say nothing about ours). A parser
//! that accepts chunked bodies (`--chunked`) gives the same verdict on every input but one kind:
//! where the default refuses a chunked coding with 501, it gives the same 501 unless the coding is
//! `chunked` alone; then the checks after framing (Expect, Connection) still run, so it gives
//! what the default gives the same bytes without that Transfer-Encoding line, with a chunked body
//! in place of an empty one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::http::chars::{self, FIELD_VALUE, TCHAR};
use loopback_mcp_http::http::{
    BodyFraming, Parsed, RequestError, RequestErrorKind, RequestHead, RequestParser,
    TransferCodings, Version,
};
use loopback_mcp_http::limits::Limits;

const TINY: Limits = Limits {
    request_body_bytes_max: 100,
    header_value_bytes_max: 16,
    header_fields_max: 4,
    header_section_bytes_max: 64,
    request_target_bytes_max: 16,
    method_bytes_max: 8,
    leading_empty_lines_max: 2,
    ..Limits::DEFAULT
};
const _: () = assert!(TINY.validate().is_ok());

#[derive(Debug, PartialEq, Eq)]
enum Verdict<'b> {
    Partial,
    Head(RequestHead<'b>, usize),
    Refused(RequestError),
}

fn verdict<'b>(result: Result<Parsed<RequestHead<'b>>, RequestError>) -> Verdict<'b> {
    match result {
        Ok(Parsed::Partial) => Verdict::Partial,
        Ok(Parsed::Complete { value, len }) => Verdict::Head(value, len),
        Err(e) => Verdict::Refused(e),
    }
}

fuzz_target!(|data: &[u8]| {
    for limits in [Limits::DEFAULT, TINY] {
        let mut parser = RequestParser::new(&limits);
        let once = verdict(parser.parse(data));
        match &once {
            Verdict::Head(head, len) => {
                check_head(data, head, *len, &limits);
                if limits == Limits::DEFAULT {
                    check_against_httparse(data, head, *len);
                }
            }
            Verdict::Refused(e) => {
                assert!(e.offset() <= data.len());
                assert!([400, 413, 414, 417, 431, 501, 505].contains(&e.status().code()));
            }
            Verdict::Partial => {}
        }
        check_split_invariance(data, &once, &limits);
        check_chunked_changes_one_verdict(data, &once, &limits);
    }
});

fn check_chunked_changes_one_verdict(data: &[u8], once: &Verdict<'_>, limits: &Limits) {
    let mut parser = RequestParser::with_codings(limits, TransferCodings::Chunked);
    let chunked = verdict(parser.parse(data));
    let plain_chunked_line = match once {
        Verdict::Refused(e) if e.kind() == RequestErrorKind::TransferEncodingChunked => {
            // The 501 points at the one Transfer-Encoding line.
            let line = transfer_encoding_line(data, e.offset());
            let value = chars::trim_ows(&data[line.start + TE_NAME.len()..line.end - 2]);
            value.eq_ignore_ascii_case(b"chunked").then_some(line)
        }
        _ => None,
    };
    let Some(line) = plain_chunked_line else {
        assert_eq!(&chunked, once, "--chunked changed a verdict it must keep");
        return;
    };
    // The default's verdict on the same bytes without that line is what the later checks say.
    let without = [&data[..line.start], &data[line.end..]].concat();
    let removed = line.len();
    let mut parser = RequestParser::new(limits);
    match (&chunked, verdict(parser.parse(&without))) {
        (Verdict::Head(head, len), Verdict::Head(plain, plain_len)) => {
            assert_eq!(head.body, BodyFraming::Chunked);
            assert_eq!(plain.body, BodyFraming::Length(0));
            assert_eq!(head.fields.count("content-length"), 0);
            assert!(head.version == Version::Http11 && *len == plain_len + removed);
            assert_eq!(
                (head.method, head.target, head.expect_continue, head.keep_alive),
                (plain.method, plain.target, plain.expect_continue, plain.keep_alive)
            );
            let codings: Vec<&[u8]> = head.fields.all("transfer-encoding").collect();
            assert!(matches!(codings[..], [only] if only.eq_ignore_ascii_case(b"chunked")));
            let others =
                head.fields.iter().filter(|f| !f.name.eq_ignore_ascii_case("transfer-encoding"));
            assert!(
                others
                    .map(|f| (f.name, f.value))
                    .eq(plain.fields.iter().map(|f| (f.name, f.value)))
            );
        }
        (Verdict::Refused(later), Verdict::Refused(plain)) => {
            let shift = if plain.offset() >= line.start { removed } else { 0 };
            assert_eq!((later.kind(), later.offset()), (plain.kind(), plain.offset() + shift));
        }
        (chunked, plain) => panic!("--chunked gave {chunked:?}, without the coding {plain:?}"),
    }
}

const TE_NAME: &[u8] = b"transfer-encoding:";

/// The field line that starts at `start`, with its CRLF.
fn transfer_encoding_line(data: &[u8], start: usize) -> std::ops::Range<usize> {
    let rest = &data[start..];
    assert!(rest.get(..TE_NAME.len()).is_some_and(|name| name.eq_ignore_ascii_case(TE_NAME)));
    let end = rest.windows(2).position(|w| w == b"\r\n").map(|i| start + i + 2);
    start..end.unwrap_or_else(|| panic!("no CRLF after the Transfer-Encoding line at {start}"))
}

fn check_head(data: &[u8], head: &RequestHead<'_>, len: usize, limits: &Limits) {
    assert!(len <= data.len() && data[..len].ends_with(b"\r\n\r\n"));
    assert!(head.target.starts_with('/') && head.target.len() <= limits.request_target_bytes_max);
    assert!(!head.target.contains(['?', '#', '\\']));
    assert!(matches!(head.body, BodyFraming::Length(n) if n <= limits.request_body_bytes_max));
    assert!(head.fields.len() <= limits.header_fields_max);
    for field in head.fields.iter() {
        assert!(chars::is_token(field.name.as_bytes()));
        assert!(field.value.len() <= limits.header_value_bytes_max);
        assert!(field.value.iter().all(|&b| chars::is(b, FIELD_VALUE)));
        assert_eq!(chars::trim_ows(field.value), field.value, "values are reported trimmed");
    }
    assert_eq!(head.fields.count("transfer-encoding"), 0);
    assert!(head.fields.count("content-length") <= 1);
    let hosts = head.fields.count("host");
    assert!(hosts == 1 || (hosts == 0 && head.version == Version::Http10));
    assert!(head.method.as_str().bytes().all(|b| chars::is(b, TCHAR)));
}

fn check_split_invariance(data: &[u8], once: &Verdict<'_>, limits: &Limits) {
    // Every split point of short inputs, 32 of longer ones; plus one byte per call below.
    let n = data.len();
    let step = if n <= 64 { 1 } else { n / 31 };
    for k in (0..=n).step_by(step) {
        let mut parser = RequestParser::new(limits);
        {
            let first = verdict(parser.parse(&data[..k]));
            if first != Verdict::Partial {
                assert_eq!(&first, once, "verdict changed by a split at {k}");
            }
        }
        assert_eq!(&verdict(parser.parse(data)), once, "verdict changed by a split at {k}");
    }
    if n <= 4096 {
        let mut parser = RequestParser::new(limits);
        for k in 0..n {
            if verdict(parser.parse(&data[..k])) != Verdict::Partial {
                break;
            }
        }
        assert_eq!(&verdict(parser.parse(data)), once, "verdict changed byte by byte");
    }
}

fn check_against_httparse(data: &[u8], head: &RequestHead<'_>, len: usize) {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut request = httparse::Request::new(&mut headers);
    match request.parse(data) {
        Ok(httparse::Status::Complete(n)) => assert_eq!(n, len),
        other => panic!("accepted a head httparse does not: {other:?}"),
    }
    assert_eq!(request.method, Some(head.method.as_str()));
    assert_eq!(request.path, Some(head.target));
    let minor = match head.version {
        Version::Http10 => 0,
        Version::Http11 => 1,
    };
    assert_eq!(request.version, Some(minor));
    let theirs: Vec<(&str, &[u8])> =
        request.headers.iter().map(|h| (h.name, chars::trim_ows(h.value))).collect();
    let ours: Vec<(&str, &[u8])> = head.fields.iter().map(|f| (f.name, f.value)).collect();
    assert_eq!(theirs, ours);
}
