//! The chunked decoder against a table of valid and hostile bodies, fed whole, split at every
//! point and one byte at a time; every budget at its edge and one past it; the encoder.
//!
//! Rows with an `HP` id are the chunked cases of the public Http11Probe suite (its request bodies,
//! after a `Transfer-Encoding: chunked` head), with the verdict a strict parser gives; `tests/
//! server_chunked.rs` sends the same cases to `serve --chunked` over a socket. Rows with a `C` id
//! are the project's own.

use loopback_mcp_http::http::chunked::{
    self,
    request::{ChunkedDecoder, Decoded},
};
use loopback_mcp_http::http::{ChunkedError, RequestErrorKind};
use loopback_mcp_http::limits::Limits;

/// What a decoder made of a whole input.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    /// Still waiting, after taking this many bytes.
    Partial(usize),
    /// The body, and the bytes after the coding.
    Complete {
        body: Vec<u8>,
        rest: Vec<u8>,
    },
    Refused(ChunkedError),
}

/// Feeds `input` to a fresh decoder in pieces ending at `ends`, the way a connection does: the
/// region keeps what the decoder kept, and each piece is appended after it.
fn decode_in_pieces(input: &[u8], ends: &[usize], limits: &Limits) -> Outcome {
    let mut decoder = ChunkedDecoder::new(limits);
    let mut region: Vec<u8> = Vec::new();
    let (mut fed, mut outcome) = (0, Outcome::Partial(0));
    for &end in ends {
        region.extend_from_slice(&input[fed..end]);
        fed = end;
        let now = match decoder.decode(&mut region) {
            Ok(Decoded::Partial { kept }) => {
                assert!(kept <= ChunkedDecoder::kept_bytes_max(limits), "kept past the bound");
                region.truncate(kept);
                Outcome::Partial(decoder.raw_len())
            }
            Ok(Decoded::Complete { body_len, next, kept }) => {
                region.truncate(kept);
                let rest = region[next..].to_vec();
                assert_eq!(decoder.raw_len() + rest.len(), fed, "the coding's length");
                Outcome::Complete { body: region[..body_len].to_vec(), rest }
            }
            Err(e) => Outcome::Refused(e),
        };
        if let Outcome::Refused(_) = outcome {
            assert_eq!(now, outcome, "a refusal changed when more bytes arrived");
        }
        outcome = now;
    }
    outcome
}

/// The outcome of `input`, checked to be the same however it is split.
fn decode_every_way(input: &[u8], limits: &Limits, id: &str) -> Outcome {
    let n = input.len();
    let whole = decode_in_pieces(input, &[n], limits);
    let step = if n <= 1024 { 1 } else { n / 61 + 1 };
    for k in (0..=n).step_by(step) {
        assert_eq!(decode_in_pieces(input, &[k, n], limits), whole, "{id}: split at {k}");
    }
    let every_byte: Vec<usize> = (0..=n).collect();
    assert_eq!(decode_in_pieces(input, &every_byte, limits), whole, "{id}: byte by byte");
    whole
}

/// What a row expects.
enum Expect {
    /// The body and the bytes after the coding.
    Body(&'static [u8], &'static [u8]),
    /// Still waiting.
    Partial,
    /// Refused with this status, public code and offset.
    Refuse(u16, &'static str, usize),
}
use Expect::{Body, Partial, Refuse};

fn check(rows: &[(&str, &[u8], Expect)], limits: &Limits) {
    for (id, input, expect) in rows {
        let got = decode_every_way(input, limits, id);
        match (expect, &got) {
            (Body(body, rest), Outcome::Complete { body: b, rest: r }) => {
                assert_eq!((b.as_slice(), r.as_slice()), (*body, *rest), "{id}");
            }
            (Partial, Outcome::Partial(taken)) => assert_eq!(*taken, input.len(), "{id}"),
            (Refuse(status, code, offset), Outcome::Refused(e)) => {
                let kind = RequestErrorKind::Chunked(e.kind);
                assert_eq!(
                    (kind.status().code(), kind.code(), e.offset),
                    (*status, *code, *offset),
                    "{id}"
                );
            }
            _ => panic!("{id}: got {got:?}"),
        }
    }
}

#[test]
fn http11probe_chunked_bodies_get_the_strict_verdicts() {
    let rows: [(&str, &[u8], Expect); 26] = [
        (
            "HP-BARE-SEMICOLON",
            b"5;\r\nhello\r\n0\r\n\r\n",
            Refuse(400, "chunk_extension_name_missing", 2),
        ),
        (
            "HP-EXT-INVALID-TOKEN",
            b"5;bad[=x\r\nhello\r\n0\r\n\r\n",
            Refuse(400, "chunk_extension_byte", 5),
        ),
        (
            "HP-UNDERSCORE",
            b"1_0\r\nhello world!!!!!\r\n0\r\n\r\n",
            Refuse(400, "chunk_size_byte", 1),
        ),
        ("HP-HEX-PREFIX", b"0x5\r\nhello\r\n0\r\n\r\n", Refuse(400, "chunk_size_byte", 1)),
        ("HP-SIZE-PLUS", b"+5\r\nhello\r\n0\r\n\r\n", Refuse(400, "chunk_size_missing", 0)),
        (
            "HP-SIZE-TRAILING-OWS",
            b"5 \r\nhello\r\n0\r\n\r\n",
            Refuse(400, "chunk_size_whitespace", 2),
        ),
        ("HP-LEADING-SP", b" 5\r\nhello\r\n0\r\n\r\n", Refuse(400, "chunk_size_missing", 0)),
        (
            "HP-MISSING-TRAILING-CRLF",
            b"5\r\nhello0\r\n\r\n",
            Refuse(400, "chunk_data_unterminated", 8),
        ),
        ("HP-SPILL", b"5\r\nhello!!\r\n0\r\n\r\n", Refuse(400, "chunk_data_unterminated", 8)),
        ("HP-EXT-CTRL", b"5;\x00ext\r\nhello\r\n0\r\n\r\n", Refuse(400, "chunk_extension_byte", 2)),
        ("HP-EXT-CR", b"5;a\rX\r\nhello\r\n0\r\n\r\n", Refuse(400, "chunk_bare_cr", 4)),
        ("HP-NEGATIVE", b"-1\r\nhello\r\n0\r\n\r\n", Refuse(400, "chunk_size_missing", 0)),
        ("HP-BARE-CR-TERM", b"5\rhello\r\n0\r\n\r\n", Refuse(400, "chunk_bare_cr", 2)),
        (
            "HP-SIZE-OVERFLOW",
            b"FFFFFFFFFFFFFFFF0\r\nhello\r\n0\r\n\r\n",
            Refuse(400, "chunk_size_too_long", 16),
        ),
        ("HP-EMPTY", b"0\r\n\r\n", Body(b"", b"")),
        ("HP-NO-FINAL", b"5\r\nhello\r\n", Partial),
        // The cases Http11Probe lets a server accept (bare LF) are refused here, like every bare LF.
        ("HP-EXT-LF", b"5;\nhello\r\n0\r\n\r\n", Refuse(400, "chunk_bare_lf", 2)),
        ("HP-LF-TERM", b"5\r\nhello\n0\r\n\r\n", Refuse(400, "chunk_bare_lf", 8)),
        ("HP-LF-TRAILER", b"5\r\nhello\r\n0\r\n\n", Refuse(400, "trailer_bare_lf", 13)),
        (
            "HP-TRAILER-CL",
            b"5\r\nhello\r\n0\r\nContent-Length: 50\r\n\r\n",
            Refuse(400, "trailer_field_forbidden", 13),
        ),
        (
            "HP-TRAILER-TE",
            b"5\r\nhello\r\n0\r\nTransfer-Encoding: chunked\r\n\r\n",
            Refuse(400, "trailer_field_forbidden", 13),
        ),
        (
            "HP-TRAILER-HOST",
            b"5\r\nhello\r\n0\r\nHost: evil.example.com\r\n\r\n",
            Refuse(400, "trailer_field_forbidden", 13),
        ),
        (
            "HP-TRAILER-AUTH",
            b"5\r\nhello\r\n0\r\nAuthorization: Bearer evil\r\n\r\n",
            Refuse(400, "trailer_field_forbidden", 13),
        ),
        (
            "HP-TRAILER-CONTENT-TYPE",
            b"5\r\nhello\r\n0\r\nContent-Type: text/evil\r\n\r\n",
            Refuse(400, "trailer_field_forbidden", 13),
        ),
        ("HP-CHUNKED-MULTI", b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", Body(b"hello world", b"")),
        ("HP-TRAILER-VALID", b"5\r\nhello\r\n0\r\nX-Checksum: abc\r\n\r\n", Body(b"hello", b"")),
    ];
    check(&rows, &Limits::DEFAULT);
}

#[test]
fn own_chunked_bodies_get_the_strict_verdicts() {
    let rows: [(&str, &[u8], Expect); 34] = [
        ("C01", b"A\r\nhelloworld\r\n0\r\n\r\n", Body(b"helloworld", b"")),
        ("C02", b"a\r\n0123456789\r\n0\r\n\r\n", Body(b"0123456789", b"")),
        ("C03", b"0000000000000005\r\nhello\r\n0\r\n\r\n", Body(b"hello", b"")),
        ("C04", b"5;ext=value\r\nhello\r\n0\r\n\r\n", Body(b"hello", b"")),
        // RFC 9112 §7.1.1: whitespace before `;` and around `=` must be accepted.
        ("C05", b"5 ;a\r\nhello\r\n0\r\n\r\n", Body(b"hello", b"")),
        ("C06", b"5\t; a = b ;c\r\nhello\r\n0\r\n\r\n", Body(b"hello", b"")),
        ("C07", b"5;a=\"q \\\" x;y\"\r\nhello\r\n0;last\r\n\r\n", Body(b"hello", b"")),
        ("C08", b"3\r\n\r\n\r\r\n0\r\n\r\n", Body(b"\r\n\r", b"")),
        ("C09", b"0\r\n\r\nGET / HTTP/1.1\r\n", Body(b"", b"GET / HTTP/1.1\r\n")),
        ("C10", b"2\r\nhi\r\n0\r\nX-A: 1\r\nX-B:\r\n\r\nnext", Body(b"hi", b"next")),
        ("C11", b"5;a \r\nhello\r\n0\r\n\r\n", Refuse(400, "chunk_extension_whitespace", 4)),
        ("C12", b"5;a=\r\nhello\r\n0\r\n\r\n", Refuse(400, "chunk_extension_value_missing", 4)),
        ("C13", b"5;a=b c\r\nhello\r\n0\r\n\r\n", Refuse(400, "chunk_extension_whitespace", 6)),
        ("C14", b"5;a=\"x\r\nhello\r\n0\r\n\r\n", Refuse(400, "chunk_extension_quoted_byte", 6)),
        ("C15", b"5;=x\r\nhello\r\n0\r\n\r\n", Refuse(400, "chunk_extension_name_missing", 2)),
        ("C16", b"5;a=\"x\"y\r\nhello\r\n0\r\n\r\n", Refuse(400, "chunk_extension_byte", 7)),
        ("C17", b"5;a;;\r\nhello\r\n0\r\n\r\n", Refuse(400, "chunk_extension_name_missing", 4)),
        ("C18", b"\r\n", Refuse(400, "chunk_size_missing", 0)),
        ("C19", b"\n", Refuse(400, "chunk_bare_lf", 0)),
        ("C20", b"5\nhello", Refuse(400, "chunk_bare_lf", 1)),
        ("C21", b"5\r\nhello\r\r", Refuse(400, "chunk_bare_cr", 9)),
        ("C22", b"5;a=\x7f\r\n", Refuse(400, "chunk_extension_byte", 4)),
        // A request hidden after a bare LF in a trailer, or in a quoted extension value, is never
        // reached: the byte that would start it is refused first.
        ("C23", b"0\r\nX: a\nGET /smuggled HTTP/1.1\r\n\r\n", Refuse(400, "trailer_bare_lf", 7)),
        (
            "C24",
            b"0;a=\"\r\nGET /x HTTP/1.1\r\n\r\n\"\r\n\r\n",
            Refuse(400, "chunk_extension_quoted_byte", 5),
        ),
        ("C25", b"0\r\nX: a\r\n b\r\n\r\n", Refuse(400, "trailer_line_starts_with_whitespace", 9)),
        ("C26", b"0\r\nmcp-session-id: x\r\n\r\n", Refuse(400, "trailer_field_forbidden", 3)),
        (
            "C27",
            b"0\r\nX: 1\r\nORIGIN: http://evil\r\n\r\n",
            Refuse(400, "trailer_field_forbidden", 9),
        ),
        // The forbidden line ended before the refused byte: it is the verdict, whatever the split.
        ("C28", b"0\r\nLast-Event-ID: 1\r\n\x01", Refuse(400, "trailer_field_forbidden", 3)),
        ("C29", b"0\r\nX : a\r\n\r\n", Refuse(400, "trailer_whitespace_before_colon", 4)),
        ("C30", b"0\r\nX: a\x00\r\n\r\n", Refuse(400, "trailer_value_byte", 7)),
        ("C31", b"5\r\nhel", Partial),
        // Every `Mcp-Param-{Name}`, whatever its name and case: the mirroring checks read them.
        ("C32", b"0\r\nMcp-Param-Limit: 1\r\n\r\n", Refuse(400, "trailer_field_forbidden", 3)),
        ("C33", b"0\r\nX: 1\r\nmCP-pARAM-x: 1\r\n\r\n", Refuse(400, "trailer_field_forbidden", 9)),
        // The prefix alone, or a name that only starts like it, is no mirrored field.
        ("C34", b"0\r\nMcp-Param-: 1\r\nMcp-Paramx: 1\r\n\r\n", Body(b"", b"")),
    ];
    check(&rows, &Limits::DEFAULT);
}

/// `n` chunks of one byte each, then the last chunk.
fn one_byte_chunks(n: usize) -> Vec<u8> {
    let mut body = b"1\r\nx\r\n".repeat(n);
    body.extend_from_slice(b"0\r\n\r\n");
    body
}

/// A trailer section of `lines` lines (`X: v…`), `line_bytes` bytes each with its CRLF.
fn trailers(lines: usize, line_bytes: usize) -> Vec<u8> {
    let mut out = b"0\r\n".to_vec();
    for _ in 0..lines {
        out.extend_from_slice(b"X: ");
        out.extend(std::iter::repeat_n(b'v', line_bytes - 5));
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out
}

fn verdict(input: &[u8], limits: &Limits) -> Result<usize, (u16, &'static str, usize)> {
    match decode_every_way(input, limits, "budget") {
        Outcome::Complete { body, .. } => Ok(body.len()),
        Outcome::Refused(e) => {
            let kind = RequestErrorKind::Chunked(e.kind);
            Err((kind.status().code(), kind.code(), e.offset))
        }
        Outcome::Partial(_) => panic!("incomplete"),
    }
}

#[test]
fn every_chunked_budget_holds_at_its_edge_and_refuses_one_past_it() {
    let l = Limits::DEFAULT;
    let digits = |n: usize| [b"1".to_vec(), b"0".repeat(n - 1)].concat();
    // Sixteen digits, leading zeros included, are the most; a seventeenth is refused before it
    // could overflow anything.
    let mut at = [b"0".repeat(15), b"1\r\nx\r\n0\r\n\r\n".to_vec()].concat();
    assert_eq!(verdict(&at, &l), Ok(1));
    at.insert(0, b'0');
    assert_eq!(verdict(&at, &l), Err((400, "chunk_size_too_long", 16)));
    assert_eq!(verdict(&digits(17), &l), Err((400, "chunk_size_too_long", 16)));
    // Extension bytes: `;` and a name, 256 in all, then one more.
    let extension =
        |n: usize| [b"1;".to_vec(), b"a".repeat(n - 1), b"\r\nx\r\n0\r\n\r\n".to_vec()].concat();
    assert_eq!(verdict(&extension(256), &l), Ok(1));
    assert_eq!(verdict(&extension(257), &l), Err((400, "chunk_extension_too_large", 257)));
    // Chunks: 255 with data and the last one make 256; one more is refused at its first byte.
    assert_eq!(verdict(&one_byte_chunks(255), &l), Ok(255));
    assert_eq!(verdict(&one_byte_chunks(256), &l), Err((400, "chunks_too_many", 256 * 6)));
    // The decoded body: 16 KiB in one chunk or two, and one byte more refused at the size's end.
    let sized = |sizes: &[usize]| {
        let chunks: Vec<Vec<u8>> = sizes.iter().map(|&n| vec![b'x'; n]).collect();
        let refs: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
        let mut out = Vec::new();
        chunked::encode(&refs, &mut out);
        out
    };
    assert_eq!(verdict(&sized(&[16384]), &l), Ok(16384));
    assert_eq!(verdict(&sized(&[16385]), &l), Err((413, "chunked_body_too_large", 4)));
    assert_eq!(verdict(&sized(&[8192, 8192]), &l), Ok(16384));
    let second_size_end = 4 + 2 + 8192 + 2 + 4;
    assert_eq!(
        verdict(&sized(&[8192, 8193]), &l),
        Err((413, "chunked_body_too_large", second_size_end))
    );
    // Trailer lines: 8, then a ninth refused at its first byte.
    assert_eq!(verdict(&trailers(8, 8), &l), Ok(0));
    assert_eq!(verdict(&trailers(9, 8), &l), Err((431, "trailer_fields_too_many", 3 + 64)));
    // Trailer bytes: 1024 in four lines, then one more refused on the byte that crosses.
    assert_eq!(verdict(&trailers(4, 256), &l), Ok(0));
    let mut over = trailers(4, 256);
    over.insert(6, b'v');
    assert_eq!(verdict(&over, &l), Err((431, "trailer_section_too_large", 3 + 1024)));
    // A trailer value is bounded like a header value.
    let small = Limits { header_value_bytes_max: 8, ..l };
    assert_eq!(verdict(b"0\r\nX: 12345678\r\n\r\n", &small), Ok(0));
    assert_eq!(
        verdict(b"0\r\nX: 123456789\r\n\r\n", &small),
        Err((431, "trailer_value_too_large", 14))
    );
}

#[test]
fn the_encoder_writes_what_the_decoder_reads_back() {
    let mut out = Vec::new();
    chunked::encode(&[b"{\"jsonrpc\"", b"", b":\"2.0\"}"], &mut out);
    assert_eq!(out, b"a\r\n{\"jsonrpc\"\r\n7\r\n:\"2.0\"}\r\n0\r\n\r\n");
    let got = decode_every_way(&out, &Limits::DEFAULT, "encoded");
    assert_eq!(
        got,
        Outcome::Complete { body: b"{\"jsonrpc\":\"2.0\"}".to_vec(), rest: Vec::new() }
    );
}

#[test]
fn a_decoder_reset_decodes_the_next_body_alone() {
    let mut decoder = ChunkedDecoder::new(&Limits::DEFAULT);
    let mut first = b"5;x\r\nhello\r\n0\r\n".to_vec();
    assert_eq!(decoder.decode(&mut first), Ok(Decoded::Partial { kept: 5 }));
    decoder.reset();
    let mut second = b"2\r\nhi\r\n0\r\n\r\n".to_vec();
    let decoded = decoder.decode(&mut second);
    assert_eq!(decoded, Ok(Decoded::Complete { body_len: 2, next: 4, kept: 4 }));
    assert_eq!(&second[..2], b"hi");
    assert_eq!((decoder.raw_len(), decoder.chunks(), decoder.trailer_fields()), (12, 2, 0));
}
