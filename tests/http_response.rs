//! The response writer (server side) and the strict response parser (client side): its framing
//! verdicts, chunked heads included, whole, split at every point and one byte at a time.

mod common;

use loopback_mcp_http::http::writer::{ResponseWriter, WriteErrorKind};
use loopback_mcp_http::http::{
    Parsed, Response, ResponseError, ResponseFraming, ResponseParser, Status,
};
use loopback_mcp_http::limits::Limits;

/// A parse result reduced to comparable data: status, framing, body, keep-alive and consumed
/// length.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    Partial,
    Complete { status: u16, framing: ResponseFraming, body: Vec<u8>, keep_alive: bool, len: usize },
    Refused(&'static str),
}

fn seen(result: Result<Parsed<Response<'_>>, ResponseError>) -> Seen {
    match result {
        Ok(Parsed::Partial) => Seen::Partial,
        Ok(Parsed::Complete { value, len }) => Seen::Complete {
            status: value.status,
            framing: value.framing,
            body: value.body.to_vec(),
            keep_alive: value.keep_alive,
            len,
        },
        Err(e) => Seen::Refused(e.code()),
    }
}

fn ok(status: u16, body: &str, keep_alive: bool, len: usize) -> Seen {
    let framing = ResponseFraming::Length;
    Seen::Complete { status, framing, body: body.as_bytes().to_vec(), keep_alive, len }
}

/// A chunked head of `len` bytes: complete at its end, with no body.
fn chunked(status: u16, keep_alive: bool, len: usize) -> Seen {
    let framing = ResponseFraming::Chunked;
    Seen::Complete { status, framing, body: Vec::new(), keep_alive, len }
}

/// Checks every row with parsers from `parser`: the expected verdict whole, and the same verdict
/// split at every point (the first part's verdict too, when it has one) and one byte at a time.
fn check(rows: &[(&[u8], Seen)], parser: fn(&Limits) -> ResponseParser) {
    for (input, expected) in rows {
        let text = String::from_utf8_lossy(input);
        let got = seen(parser(&Limits::DEFAULT).parse(input));
        assert_eq!(&got, expected, "{text:?}");
        for k in 0..=input.len() {
            let mut parser = parser(&Limits::DEFAULT);
            let first = seen(parser.parse(&input[..k]));
            let second = seen(parser.parse(input));
            if first != Seen::Partial {
                assert_eq!(first, got, "split at {k} of {text:?}");
            }
            assert_eq!(second, got, "split at {k} of {text:?}");
        }
        let mut parser = parser(&Limits::DEFAULT);
        for k in 0..input.len() {
            if seen(parser.parse(&input[..k])) != Seen::Partial {
                break;
            }
        }
        assert_eq!(seen(parser.parse(input)), got, "byte by byte: {text:?}");
    }
}

#[test]
fn responses_get_their_exact_framing_verdicts() {
    let cases: Vec<(&[u8], Seen)> = vec![
        (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", ok(200, "hi", true, 40)),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiHTTP/1.1", ok(200, "hi", true, 40)),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nh", Seen::Partial),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", Seen::Partial),
        (b"HTTP/1.1 20", Seen::Partial),
        (b"HTTP/1.1 204 No Content\r\n\r\n", ok(204, "", true, 27)),
        (b"HTTP/1.1 100 Continue\r\n\r\n", ok(100, "", true, 25)),
        (b"HTTP/1.1 304 Not Modified\r\n\r\n", ok(304, "", true, 29)),
        (b"HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n", ok(200, "", true, 36)),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            ok(200, "", false, 57),
        ),
        (b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", ok(200, "", false, 38)),
        (
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 1\r\nX: \xff\r\n\r\n!",
            ok(404, "!", true, 52),
        ),
        (b"HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", Seen::Refused("status_line_syntax")),
        (b"HTTP/1.1  200 OK\r\n", Seen::Refused("status_line_syntax")),
        (b"HTTP/1.1 20 OK\r\n", Seen::Refused("status_line_syntax")),
        (b"HTTP/1.1 099 Low\r\n", Seen::Refused("status_code_invalid")),
        (b"HTTP/1.1 600 High\r\n", Seen::Refused("status_code_invalid")),
        (b"HTTP/2.0 200 OK\r\n", Seen::Refused("version_unsupported")),
        (b"http/1.1 200 OK\r\n", Seen::Refused("status_line_syntax")),
        (b"HTTP/1.1 200 O\x01K\r\n", Seen::Refused("status_line_syntax")),
        (b"HTTP/1.1 200 OK\n", Seen::Refused("bare_lf")),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 0\n\r\n", Seen::Refused("bare_lf")),
        (
            b"HTTP/1.1 200 OK\r\n X: folded\r\n\r\n",
            Seen::Refused("field_line_starts_with_whitespace"),
        ),
        (b"HTTP/1.1 200 OK\r\nX : 1\r\n\r\n", Seen::Refused("whitespace_before_colon")),
        (b"HTTP/1.1 200 OK\r\n\r\n", Seen::Refused("content_length_missing")),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx",
            Seen::Refused("content_length_duplicate"),
        ),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 1 \r\n\r\nx", ok(200, "x", true, 40)),
        (b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", Seen::Refused("content_length_invalid")),
        (
            b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n",
            Seen::Refused("content_forbidden"),
        ),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551616\r\n\r\n",
            Seen::Refused("response_too_large"),
        ),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 65536\r\n\r\n", Seen::Refused("response_too_large")),
        (b"HTTP/1.1 100 Continue\r\nContent-Length: 0\r\n\r\n", Seen::Refused("content_forbidden")),
        (b"HTTP/1.1 304 Not Modified\r\nContent-Length: 1234\r\n\r\n", ok(304, "", true, 51)),
        (
            b"HTTP/1.1 304 Not Modified\r\nContent-Length: x\r\n\r\n",
            Seen::Refused("content_length_invalid"),
        ),
    ];
    check(&cases, ResponseParser::new);
}

const CHUNKED_HEAD: &[u8] = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";

#[test]
fn a_chunked_head_completes_at_its_end_with_an_empty_body() {
    let n = CHUNKED_HEAD.len();
    let with_chunks = [CHUNKED_HEAD, b"5\r\nhello\r\n0\r\n\r\n"].concat();
    let rows: Vec<(&[u8], Seen)> = vec![
        (CHUNKED_HEAD, chunked(200, true, 47)),
        (&with_chunks, chunked(200, true, n)),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n", chunked(200, true, 47)),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: CHUNKED\r\n\r\n", chunked(200, true, 47)),
        (b"HTTP/1.1 200 OK\r\ntransfer-encoding:chunked \t\r\n\r\n", chunked(200, true, 48)),
        (
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-store\r\n\r\n",
            chunked(200, true, 105),
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
            chunked(200, false, 66),
        ),
        (b"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n", chunked(404, true, 54)),
        (b"HTTP/1.1 201 \r\nTransfer-Encoding: chunked\r\n\r\n", chunked(201, true, 45)),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n", Seen::Partial),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r", Seen::Partial),
    ];
    check(&rows, ResponseParser::new);
}

#[test]
fn every_other_transfer_encoding_shape_is_refused_with_its_code() {
    let te = |status: &str, fields: &str| format!("HTTP/1.1 {status}\r\n{fields}\r\n");
    let chunked_line = "Transfer-Encoding: chunked\r\n";
    let rows: Vec<(String, &str)> = vec![
        (format!("HTTP/1.0 200 OK\r\n{chunked_line}\r\n"), "transfer_encoding_on_http10"),
        (
            format!("HTTP/1.0 200 OK\r\n{chunked_line}Content-Length: 0\r\n\r\n"),
            "transfer_encoding_on_http10",
        ),
        (
            te("200 OK", &format!("{chunked_line}Content-Length: 5\r\n")),
            "transfer_encoding_with_content_length",
        ),
        (
            te("200 OK", &format!("Content-Length: 5\r\n{chunked_line}")),
            "transfer_encoding_with_content_length",
        ),
        (
            te("204 No Content", &format!("{chunked_line}Content-Length: 0\r\n")),
            "transfer_encoding_with_content_length",
        ),
        (
            te("200 OK", &format!("{chunked_line}Content-Length: 1\r\nContent-Length: 1\r\n")),
            "transfer_encoding_with_content_length",
        ),
        (te("200 OK", &chunked_line.repeat(2)), "transfer_encoding_duplicate"),
        (
            te("200 OK", &format!("Transfer-Encoding: gzip\r\n{chunked_line}")),
            "transfer_encoding_duplicate",
        ),
        (te("204 No Content", chunked_line), "transfer_encoding_without_content"),
        (te("100 Continue", chunked_line), "transfer_encoding_without_content"),
        (te("101 Switching Protocols", chunked_line), "transfer_encoding_without_content"),
        (te("304 Not Modified", chunked_line), "transfer_encoding_without_content"),
        (te("204 No Content", "Transfer-Encoding: gzip\r\n"), "transfer_encoding_without_content"),
        (te("200 OK", "Transfer-Encoding: chunked, gzip\r\n"), "transfer_encoding_invalid"),
        (te("200 OK", "Transfer-Encoding: chunked, chunked\r\n"), "transfer_encoding_invalid"),
        (te("200 OK", "Transfer-Encoding: chunked,\r\n"), "transfer_encoding_invalid"),
        (te("200 OK", "Transfer-Encoding: ,chunked\r\n"), "transfer_encoding_invalid"),
        (te("200 OK", "Transfer-Encoding: \r\n"), "transfer_encoding_invalid"),
        (te("200 OK", "Transfer-Encoding: chunked;q=1\r\n"), "transfer_encoding_invalid"),
        (te("200 OK", "Transfer-Encoding: \"chunked\"\r\n"), "transfer_encoding_invalid"),
        (te("200 OK", "Transfer-Encoding: gzip, chunked\r\n"), "transfer_encoding_layered"),
        (te("200 OK", "Transfer-Encoding: gzip,chunked\r\n"), "transfer_encoding_layered"),
        (te("200 OK", "Transfer-Encoding: identity, chunked\r\n"), "transfer_encoding_layered"),
        (te("200 OK", "Transfer-Encoding: gzip\r\n"), "transfer_encoding_unsupported"),
        (te("200 OK", "Transfer-Encoding: xchunked\r\n"), "transfer_encoding_unsupported"),
        (te("200 OK", "Transfer-Encoding: identity\r\n"), "transfer_encoding_unsupported"),
        (te("200 OK", "Transfer-Encoding: gzip, deflate\r\n"), "transfer_encoding_unsupported"),
    ];
    for (head, code) in &rows {
        let error = ResponseParser::new(&Limits::DEFAULT).parse(head.as_bytes()).unwrap_err();
        assert_eq!((error.code(), error.offset()), (*code, head.len()), "{head:?}");
    }
    let rows: Vec<(&[u8], Seen)> =
        rows.iter().map(|(head, code)| (head.as_bytes(), Seen::Refused(code))).collect();
    check(&rows, ResponseParser::new);
}

#[test]
fn a_chunked_answer_to_head_is_refused_and_a_length_one_ends_at_its_head() {
    let rows: Vec<(&[u8], Seen)> = vec![
        (CHUNKED_HEAD, Seen::Refused("transfer_encoding_without_content")),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
            Seen::Refused("transfer_encoding_without_content"),
        ),
        (
            b"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            Seen::Refused("transfer_encoding_on_http10"),
        ),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", ok(200, "", true, 38)),
    ];
    check(&rows, ResponseParser::for_head);
}

#[test]
fn writer_produces_exact_bytes() {
    let limits = Limits::DEFAULT;
    let mut out = Vec::new();
    let mut writer = ResponseWriter::new(&mut out, Status::Ok);
    writer.field("Content-Type", b"application/json").field("Cache-Control", b"no-store");
    assert_eq!(writer.finish(b"{}", limits.response_bytes_max), Ok(97));
    assert_eq!(
        out,
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nContent-Length: 2\r\n\r\n{}"
    );

    let cases: [(Status, &[u8]); 3] = [
        (Status::Continue, b"HTTP/1.1 100 Continue\r\n\r\n"),
        (Status::NoContent, b"HTTP/1.1 204 No Content\r\n\r\n"),
        (
            Status::RequestHeaderFieldsTooLarge,
            b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\n\r\n",
        ),
    ];
    for (status, expected) in cases {
        let mut out = b"previous".to_vec();
        ResponseWriter::new(&mut out, status).finish(b"", limits.response_bytes_max).unwrap();
        assert_eq!(&out[8..], expected);
    }
}

#[test]
fn writer_refuses_what_could_split_or_misframe_the_response() {
    type Case = (&'static str, &'static [u8], &'static [u8], Status, WriteErrorKind);
    let cases: [Case; 9] = [
        ("X-A", b"a\r\nInjected: 1", b"", Status::Ok, WriteErrorKind::FieldValueInvalid),
        ("X-A", b"a\nb", b"", Status::Ok, WriteErrorKind::FieldValueInvalid),
        ("X-A", b"a\x00b", b"", Status::Ok, WriteErrorKind::FieldValueInvalid),
        ("X-A", b" padded", b"", Status::Ok, WriteErrorKind::FieldValueInvalid),
        ("X A", b"v", b"", Status::Ok, WriteErrorKind::FieldNameInvalid),
        ("", b"v", b"", Status::Ok, WriteErrorKind::FieldNameInvalid),
        ("content-length", b"1", b"", Status::Ok, WriteErrorKind::FramingFieldReserved),
        ("Transfer-Encoding", b"chunked", b"", Status::Ok, WriteErrorKind::FramingFieldReserved),
        ("X-A", b"v", b"body", Status::NoContent, WriteErrorKind::ContentForbidden),
    ];
    for (name, value, body, status, kind) in cases {
        let mut out = b"earlier response".to_vec();
        let mut writer = ResponseWriter::new(&mut out, status);
        writer.field(name, value);
        let result = writer.finish(body, Limits::DEFAULT.response_bytes_max);
        assert_eq!(result.map_err(|e| e.kind), Err(kind), "{name:?}");
        assert_eq!(out, b"earlier response", "the buffer is restored");
    }
}

#[test]
fn every_status_the_writer_can_send_parses_back() {
    let limits = Limits::DEFAULT;
    for status in Status::ALL {
        let body: &[u8] = if status.forbids_content() { b"" } else { b"{\"ok\":true}" };
        let mut out = Vec::new();
        let mut writer = ResponseWriter::new(&mut out, status);
        writer.field("Content-Type", b"application/json");
        let len = writer.finish(body, limits.response_bytes_max).unwrap();
        match ResponseParser::new(&limits).parse(&out) {
            Ok(Parsed::Complete { value, len: parsed }) => {
                assert_eq!((value.status, value.body, parsed), (status.code(), body, len));
                assert_eq!(value.reason, status.reason().as_bytes());
                assert_eq!(value.fields.get("content-type"), Some(&b"application/json"[..]));
            }
            other => panic!("{status:?}: {other:?}"),
        }
    }
}

#[test]
fn parser_is_reusable_after_reset() {
    let input = b"HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx";
    let mut parser = ResponseParser::new(&Limits::DEFAULT);
    let Ok(Parsed::Complete { len, .. }) = parser.parse(input) else { panic!() };
    parser.reset();
    assert_eq!(seen(parser.parse(&input[len..])), ok(200, "x", true, 39));
}
