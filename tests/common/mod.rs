//! Helpers shared by the integration tests: feeding a parser every way a peer could split its
//! bytes, and building large inputs.
#![allow(dead_code)] // each test binary uses a different subset

pub mod fake;
pub mod serve;
pub mod server;
pub mod wire;

use loopback_mcp_http::http::{
    BodyFraming, Parsed, RequestError, RequestHead, RequestParser, TransferCodings,
};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::random::RandomUnavailable;

/// A deterministic stand-in for the operating system's generator (a 64-bit LCG, top byte).
pub fn deterministic_random() -> impl FnMut(&mut [u8]) -> Result<(), RandomUnavailable> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    move |buf: &mut [u8]| {
        for b in buf.iter_mut() {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            *b = (state >> 56) as u8;
        }
        Ok(())
    }
}

/// `byte` repeated `n` times.
pub fn rep(byte: u8, n: usize) -> Vec<u8> {
    vec![byte; n]
}

/// The concatenation of `parts`.
pub fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// A one-line description of a parsed head, for exact comparisons in tables.
pub fn summary(head: &RequestHead<'_>) -> String {
    let body = match head.body {
        BodyFraming::Length(n) => format!("cl={n}"),
        BodyFraming::Chunked => "chunked".to_owned(),
    };
    format!(
        "{} {} {} {body} {}{}",
        head.method.as_str(),
        head.target,
        head.version.as_str(),
        if head.keep_alive { "keep" } else { "close" },
        if head.expect_continue { " expect-100" } else { "" },
    )
}

/// The verdict of a request parser, reduced to comparable data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Partial,
    Head { summary: String, fields: Vec<(String, Vec<u8>)>, len: usize },
    Refused(RequestError),
}

fn verdict(result: Result<Parsed<RequestHead<'_>>, RequestError>) -> Verdict {
    match result {
        Ok(Parsed::Partial) => Verdict::Partial,
        Ok(Parsed::Complete { value, len }) => Verdict::Head {
            summary: summary(&value),
            fields: value.fields.iter().map(|f| (f.name.to_owned(), f.value.to_vec())).collect(),
            len,
        },
        Err(e) => Verdict::Refused(e),
    }
}

/// Parses `input` in one call.
pub fn parse_once(input: &[u8], limits: &Limits) -> Verdict {
    parse_once_with(input, limits, TransferCodings::LengthOnly)
}

/// Parses `input` in one call, with a parser accepting `codings`.
pub fn parse_once_with(input: &[u8], limits: &Limits, codings: TransferCodings) -> Verdict {
    verdict(RequestParser::with_codings(limits, codings).parse(input))
}

/// Parses `input` as if it arrived in the given pieces (cumulative ends), returning the verdict
/// after the last piece. A final verdict on an earlier piece must be repeated by later calls.
pub fn parse_in_pieces(input: &[u8], ends: &[usize], limits: &Limits) -> Verdict {
    parse_in_pieces_with(input, ends, limits, TransferCodings::LengthOnly)
}

fn parse_in_pieces_with(
    input: &[u8],
    ends: &[usize],
    limits: &Limits,
    codings: TransferCodings,
) -> Verdict {
    let mut parser = RequestParser::with_codings(limits, codings);
    let mut last = Verdict::Partial;
    for &end in ends {
        let now = verdict(parser.parse(&input[..end]));
        if last != Verdict::Partial {
            assert_eq!(now, last, "a final verdict changed when more bytes arrived");
        }
        last = now;
    }
    last
}

/// Asserts that every way of splitting `input` gives `expected`: every single split point for
/// inputs up to 2 KiB (a sample of them above), and one byte per call.
pub fn assert_split_invariant(input: &[u8], expected: &Verdict, limits: &Limits, id: &str) {
    assert_split_invariant_with(input, expected, limits, TransferCodings::LengthOnly, id);
}

/// [`assert_split_invariant`] for a parser accepting `codings`.
pub fn assert_split_invariant_with(
    input: &[u8],
    expected: &Verdict,
    limits: &Limits,
    codings: TransferCodings,
    id: &str,
) {
    let n = input.len();
    let step = if n <= 2048 { 1 } else { n / 97 + 1 };
    for k in (0..=n).step_by(step) {
        let got = parse_in_pieces_with(input, &[k, n], limits, codings);
        assert_eq!(&got, expected, "{id}: split at {k} changed the verdict");
    }
    let every_byte: Vec<usize> = (0..=n).collect();
    let got = parse_in_pieces_with(input, &every_byte, limits, codings);
    assert_eq!(&got, expected, "{id}: byte by byte");
}
