//! Fuzzes the chunked decoder with raw bytes, fed whole and split where the input says:
//!
//! - split invariance: the same verdict, body and trailing bytes however the input arrives, and
//!   the region the decoder keeps never grows past its bound;
//! - a refusal is decided by the byte at its offset (for a forbidden trailer name, by the LF of
//!   the line its offset points at): the bytes before it still wait for more, and the bytes
//!   through it are refused the same way;
//! - a complete coding ends where it ends: its own bytes, alone, decode to the same body, and the
//!   body stays within its budget;
//! - a differential against `httparse::parse_chunk_size` on the first line: when httparse does not
//!   accept a size line, this decoder refuses it too (it is the stricter of the two), and when both
//!   accept one, they agree on its length and on the size.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::http::chunked::request::{ChunkedDecoder, Decoded};
use loopback_mcp_http::http::{ChunkedError, ChunkedErrorKind};
use loopback_mcp_http::limits::Limits;

/// Small budgets, so the fuzzer reaches every one of them.
const TINY: Limits = Limits {
    request_body_bytes_max: 64,
    chunk_size_digits_max: 4,
    chunk_extension_bytes_max: 16,
    chunks_per_body_max: 6,
    trailer_fields_max: 2,
    trailer_section_bytes_max: 32,
    header_value_bytes_max: 16,
    ..Limits::DEFAULT
};
const _: () = assert!(TINY.validate().is_ok());

#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    Partial,
    Complete { body: Vec<u8>, rest: Vec<u8>, raw: usize },
    Refused(ChunkedError),
}

/// The input's layout: one byte choosing the budgets (odd: tiny), one byte counting split points
/// (up to 8), one byte per split point, then the bytes to decode. Seeds are easy to write by hand.
fn plan(data: &[u8]) -> Option<(&Limits, &[u8], &[u8])> {
    let (&budgets, rest) = data.split_first()?;
    let (&count, rest) = rest.split_first()?;
    let count = usize::from(count % 9).min(rest.len());
    let (splits, bytes) = rest.split_at(count);
    Some((if budgets % 2 == 1 { &TINY } else { &Limits::DEFAULT }, splits, bytes))
}

fuzz_target!(|data: &[u8]| {
    let Some((limits, splits, bytes)) = plan(data) else {
        return;
    };
    let limits = *limits;
    let whole = decode(bytes, &[bytes.len()], &limits);
    let mut ends: Vec<usize> = splits.iter().map(|&s| usize::from(s) % (bytes.len() + 1)).collect();
    ends.sort_unstable();
    ends.push(bytes.len());
    assert_eq!(decode(bytes, &ends, &limits), whole, "a split changed the verdict");
    if bytes.len() <= 256 {
        let every: Vec<usize> = (0..=bytes.len()).collect();
        assert_eq!(decode(bytes, &every, &limits), whole, "byte by byte changed the verdict");
    }
    match &whole {
        Outcome::Refused(error) => {
            assert!(error.offset < bytes.len(), "a refusal past the input");
            let at = deciding_byte(bytes, error);
            assert_eq!(decode(&bytes[..at], &[at], &limits), Outcome::Partial, "decided early");
            let through = decode(&bytes[..=at], &[at + 1], &limits);
            assert_eq!(through, whole, "not decided by its byte");
        }
        Outcome::Complete { body, rest, raw } => {
            assert!(body.len() <= limits.request_body_bytes_max);
            assert_eq!(raw + rest.len(), bytes.len());
            let alone = decode(&bytes[..*raw], &[*raw], &limits);
            let expected = Outcome::Complete { body: body.clone(), rest: Vec::new(), raw: *raw };
            assert_eq!(alone, expected, "the coding's end depends on what follows it");
        }
        Outcome::Partial => {}
    }
    compare_first_line(bytes, &limits);
});

/// The byte that decided a refusal: its offset, except for a forbidden trailer name, which points
/// at its line and is decided by the line's LF.
fn deciding_byte(bytes: &[u8], error: &ChunkedError) -> usize {
    if error.kind != ChunkedErrorKind::TrailerFieldForbidden {
        return error.offset;
    }
    let lf = bytes[error.offset..].iter().position(|&b| b == b'\n');
    error.offset + lf.expect("a forbidden trailer line ends with its LF")
}

/// Feeds `bytes` to a fresh decoder in pieces ending at `ends`, as a connection does.
fn decode(bytes: &[u8], ends: &[usize], limits: &Limits) -> Outcome {
    let mut decoder = ChunkedDecoder::new(limits);
    let mut region = Vec::new();
    let (mut fed, mut outcome) = (0, Outcome::Partial);
    for &end in ends {
        region.extend_from_slice(&bytes[fed..end]);
        fed = end;
        outcome = match decoder.decode(&mut region) {
            Ok(Decoded::Partial { kept }) => {
                assert!(kept <= region.len() && kept <= ChunkedDecoder::kept_bytes_max(limits));
                region.truncate(kept);
                Outcome::Partial
            }
            Ok(Decoded::Complete { body_len, next, kept }) => {
                assert!(body_len <= next && next <= kept && kept <= region.len());
                region.truncate(kept);
                let (body, rest) = (region[..body_len].to_vec(), region[next..].to_vec());
                Outcome::Complete { body, rest, raw: decoder.raw_len() }
            }
            Err(error) => Outcome::Refused(error),
        };
    }
    outcome
}

/// The first line (through its first LF) as httparse and this decoder read it.
fn compare_first_line(bytes: &[u8], limits: &Limits) {
    let Some(lf) = bytes.iter().position(|&b| b == b'\n') else {
        return;
    };
    let line = &bytes[..=lf];
    let ours = decode(line, &[line.len()], limits);
    let Ok(httparse::Status::Complete((len, size))) = httparse::parse_chunk_size(line) else {
        assert!(matches!(ours, Outcome::Refused(_)), "a size line httparse refuses: {ours:?}");
        return;
    };
    let Ok(size) = usize::try_from(size) else {
        return;
    };
    if size > limits.request_body_bytes_max {
        return; // over the budget: refused here, whatever httparse makes of it
    }
    // The line, exactly the data its size announces, and the end of the body.
    let mut probe = line[..len].to_vec();
    probe.resize(len + size, b'x');
    probe.extend_from_slice(if size == 0 { b"\r\n" } else { b"\r\n0\r\n\r\n" });
    match decode(&probe, &[probe.len()], limits) {
        Outcome::Refused(error) => assert!(error.offset < len, "refused after the size line"),
        Outcome::Complete { body, rest, raw } => {
            assert_eq!((body.len(), rest.len(), raw), (size, 0, probe.len()), "sizes disagree");
        }
        Outcome::Partial => panic!("the probe is a whole body"),
    }
}
