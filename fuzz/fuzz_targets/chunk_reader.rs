//! Fuzzes the response-side chunk reader with raw bytes, fed whole, split where the input says,
//! and one byte at a time, against an oracle written here:
//!
//! - the oracle reads the whole input at once, by index, rule by rule of RFC 9112 §7.1 (its own
//!   byte classes, no state machine, the extension budget judged after the grammar): the reader
//!   must hand out exactly its chunks, end where it ends, and refuse with its kind at its offset;
//! - split invariance: however the bytes arrive, the same chunks and the same stop;
//! - both budgets (each chunk, the whole body), with the default limits and tiny ones.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::http::ChunkedErrorKind;
use loopback_mcp_http::http::chunked::response::{ChunkBudget, ChunkReader, NextChunk};
use loopback_mcp_http::limits::{Limits, PRIMING_EVENT_BYTES_MAX, RESPONSE_HEAD_BYTES_RESERVE};

/// Small budgets, so the fuzzer reaches every one of them.
const TINY: Limits = Limits {
    response_bytes_max: RESPONSE_HEAD_BYTES_RESERVE + PRIMING_EVENT_BYTES_MAX + 64,
    sse_event_bytes_max: 64,
    chunk_size_digits_max: 4,
    chunk_extension_bytes_max: 16,
    ..Limits::DEFAULT
};
const _: () = assert!(TINY.validate().is_ok());

/// How a read stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Stop {
    Partial,
    /// The end, after this many bytes.
    End(usize),
    Refused(ChunkedErrorKind, usize),
}

/// The chunks handed out, and how the read stopped.
type Read = (Vec<Vec<u8>>, Stop);

/// The input's layout: one byte choosing the budgets (bit 0: tiny limits; bit 1: the whole-body
/// budget), one byte counting split points (up to 8), one byte per split point, then the body.
fn plan(data: &[u8]) -> Option<(Limits, ChunkBudget, &[u8], &[u8])> {
    let (&choice, rest) = data.split_first()?;
    let (&count, rest) = rest.split_first()?;
    let count = usize::from(count % 9).min(rest.len());
    let (splits, bytes) = rest.split_at(count);
    let limits = if choice & 1 == 1 { TINY } else { Limits::DEFAULT };
    let budget = if choice & 2 == 2 { ChunkBudget::WholeBody } else { ChunkBudget::PerChunk };
    Some((limits, budget, splits, bytes))
}

fuzz_target!(|data: &[u8]| {
    let Some((limits, budget, splits, bytes)) = plan(data) else {
        return;
    };
    let expected = oracle(bytes, &limits, budget);
    assert_eq!(read(bytes, &[bytes.len()], &limits, budget), expected, "whole");
    let mut ends: Vec<usize> = splits.iter().map(|&s| usize::from(s) % (bytes.len() + 1)).collect();
    ends.sort_unstable();
    ends.push(bytes.len());
    assert_eq!(read(bytes, &ends, &limits, budget), expected, "split at {ends:?}");
    if bytes.len() <= 512 {
        let every: Vec<usize> = (0..=bytes.len()).collect();
        assert_eq!(read(bytes, &every, &limits, budget), expected, "byte by byte");
    }
});

/// Feeds `bytes` to a fresh reader in pieces ending at `ends`, as a client does: the bytes not
/// taken stay, each piece goes after them, and chunks are read until `Partial`.
fn read(bytes: &[u8], ends: &[usize], limits: &Limits, budget: ChunkBudget) -> Read {
    let mut reader = ChunkReader::new(limits, budget);
    let (mut pending, mut fed, mut taken, mut chunks) = (Vec::new(), 0, 0, Vec::new());
    for &end in ends {
        pending.extend_from_slice(&bytes[fed..end]);
        fed = end;
        loop {
            match reader.next(&pending) {
                Ok(NextChunk::Partial) => break,
                Ok(NextChunk::Chunk { data, consumed }) => {
                    assert!(data.start < data.end && data.end + 2 == consumed);
                    chunks.push(pending[data].to_vec());
                    pending.drain(..consumed);
                    taken += consumed;
                }
                Ok(NextChunk::End { consumed }) => return (chunks, Stop::End(taken + consumed)),
                Err(e) => return (chunks, Stop::Refused(e.kind, e.offset)),
            }
        }
    }
    (chunks, Stop::Partial)
}

// ---------------------------------------------------------------------------------------------
// The oracle.

/// Why the oracle stopped before the end of the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Halt {
    Partial,
    Refused(ChunkedErrorKind, usize),
}

fn refused<T>(kind: ChunkedErrorKind, at: usize) -> Result<T, Halt> {
    Err(Halt::Refused(kind, at))
}

/// The byte at `i`, or `Partial` when the input ends before it.
fn at(b: &[u8], i: usize) -> Result<u8, Halt> {
    b.get(i).copied().ok_or(Halt::Partial)
}

fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

fn is_field_value(c: u8) -> bool {
    c == b'\t' || c == b' ' || (0x21..=0x7e).contains(&c) || c >= 0x80
}

fn skip(b: &[u8], i: usize, class: fn(u8) -> bool) -> usize {
    i + b[i.min(b.len())..].iter().take_while(|&&c| class(c)).count()
}

fn skip_ws(b: &[u8], i: usize) -> usize {
    skip(b, i, |c| c == b' ' || c == b'\t')
}

/// The whole body, chunk after chunk.
fn oracle(b: &[u8], limits: &Limits, budget: ChunkBudget) -> Read {
    let mut chunks = Vec::new();
    let (mut i, mut total) = (0, 0usize);
    loop {
        let max = limits.response_bytes_max;
        let (room, too_large) = match budget {
            ChunkBudget::PerChunk => (max, ChunkedErrorKind::ChunkTooLarge { limit: max }),
            ChunkBudget::WholeBody => (max - total, ChunkedErrorKind::BodyTooLarge { limit: max }),
        };
        let step = size_line(b, i, limits, room, too_large).and_then(|(size, data)| {
            if size == 0 {
                return last_chunk_end(b, data).map(|end| (None, end));
            }
            chunk_data(b, data, size).map(|next| (Some(data..data + size), next))
        });
        match step {
            Ok((Some(data), next)) => {
                total += data.len();
                chunks.push(b[data].to_vec());
                i = next;
            }
            Ok((None, end)) => return (chunks, Stop::End(end)),
            Err(Halt::Partial) => return (chunks, Stop::Partial),
            Err(Halt::Refused(kind, at)) => return (chunks, Stop::Refused(kind, at)),
        }
    }
}

/// `chunk-size [ chunk-ext ] CRLF` from `s`: the size and where the data starts.
fn size_line(
    b: &[u8],
    s: usize,
    limits: &Limits,
    room: usize,
    too_large: ChunkedErrorKind,
) -> Result<(usize, usize), Halt> {
    use ChunkedErrorKind as K;
    let digits_end = skip(b, s, |c| c.is_ascii_hexdigit());
    let max = limits.chunk_size_digits_max;
    if digits_end - s > max {
        return refused(K::SizeTooLong { limit: max }, s + max);
    }
    if digits_end == s {
        return match at(b, s)? {
            b'\n' => refused(K::BareLf, s),
            _ => refused(K::SizeMissing, s),
        };
    }
    let end = at(b, digits_end)?;
    match end {
        b'\n' => return refused(K::BareLf, digits_end),
        b' ' | b'\t' | b';' | b'\r' => {}
        _ => return refused(K::SizeByte, digits_end),
    }
    let text = std::str::from_utf8(&b[s..digits_end]).unwrap();
    let size = u64::from_str_radix(text, 16).unwrap();
    let size = match usize::try_from(size) {
        Ok(size) if size <= room => size,
        _ => return refused(too_large, digits_end),
    };
    let cr = if end == b'\r' { digits_end } else { extensions(b, digits_end, limits)? };
    match at(b, cr + 1)? {
        b'\n' => Ok((size, cr + 2)),
        _ => refused(K::BareCr, cr + 1),
    }
}

/// The extensions from `p` (a whitespace or `;` right after the size) to the line's CR: the
/// grammar first, then the budget, which counts every byte from `p` but an unquoted CR or LF.
fn extensions(b: &[u8], p: usize, limits: &Limits) -> Result<usize, Halt> {
    let max = limits.chunk_extension_bytes_max;
    let over = ChunkedErrorKind::ExtensionTooLarge { limit: max };
    let crossing = p + max; // the first byte past the budget
    match extension_grammar(b, p) {
        Ok(cr) if crossing < cr => refused(over, crossing),
        Ok(cr) => Ok(cr),
        Err(Halt::Partial) if crossing < b.len() => refused(over, crossing),
        Err(Halt::Partial) => Err(Halt::Partial),
        Err(Halt::Refused(kind, at)) => {
            let unquoted_line_end =
                kind != ChunkedErrorKind::ExtensionQuotedByte && matches!(b[at], b'\r' | b'\n');
            if crossing < at || (crossing == at && !unquoted_line_end) {
                refused(over, crossing)
            } else {
                refused(kind, at)
            }
        }
    }
}

/// `*( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] )` from `p`, up to the CR.
fn extension_grammar(b: &[u8], p: usize) -> Result<usize, Halt> {
    use ChunkedErrorKind as K;
    let mut i = p;
    let after_size = skip_ws(b, i);
    if after_size > i {
        match at(b, after_size)? {
            b';' => i = after_size,
            b'\n' => return refused(K::BareLf, after_size),
            _ => return refused(K::SizeWhitespace, after_size),
        }
    }
    loop {
        // `b[i]` is a `;`.
        let name = skip_ws(b, i + 1);
        let name_end = skip(b, name, is_tchar);
        if name_end == name {
            return match at(b, name)? {
                b'\n' => refused(K::BareLf, name),
                b'\r' | b';' | b'=' => refused(K::ExtensionNameMissing, name),
                _ => refused(K::ExtensionByte, name),
            };
        }
        let w = skip_ws(b, name_end);
        let value_end = match at(b, w)? {
            b'=' => value(b, w + 1)?,
            _ => name_end,
        };
        let w = skip_ws(b, value_end);
        let spaced = w > value_end;
        match at(b, w)? {
            b';' => i = w,
            b'\n' => return refused(K::BareLf, w),
            b'\r' if !spaced => return Ok(w),
            _ if spaced => return refused(K::ExtensionWhitespace, w),
            _ => return refused(K::ExtensionByte, w),
        }
    }
}

/// A value after `=` (and its BWS, from `v`): a token or a quoted string; where it ends.
fn value(b: &[u8], v: usize) -> Result<usize, Halt> {
    use ChunkedErrorKind as K;
    let v = skip_ws(b, v);
    match at(b, v)? {
        b'\n' => refused(K::BareLf, v),
        b'\r' | b';' => refused(K::ExtensionValueMissing, v),
        b'"' => {
            let mut j = v + 1;
            loop {
                match at(b, j)? {
                    b'"' => return Ok(j + 1),
                    b'\\' if is_field_value(at(b, j + 1)?) => j += 2,
                    b'\\' => return refused(K::ExtensionQuotedByte, j + 1),
                    c if is_field_value(c) => j += 1,
                    _ => return refused(K::ExtensionQuotedByte, j),
                }
            }
        }
        c if is_tchar(c) => Ok(skip(b, v, is_tchar)),
        _ => refused(K::ExtensionByte, v),
    }
}

/// A chunk's data of `size` bytes from `d`, and its CRLF: where the next chunk starts.
fn chunk_data(b: &[u8], d: usize, size: usize) -> Result<usize, Halt> {
    let end = d + size;
    match at(b, end)? {
        b'\r' => {}
        b'\n' => return refused(ChunkedErrorKind::BareLf, end),
        _ => return refused(ChunkedErrorKind::DataUnterminated, end),
    }
    match at(b, end + 1)? {
        b'\n' => Ok(end + 2),
        _ => refused(ChunkedErrorKind::BareCr, end + 1),
    }
}

/// After the last chunk's line at `d`: only the empty line. Where the body ends.
fn last_chunk_end(b: &[u8], d: usize) -> Result<usize, Halt> {
    match at(b, d)? {
        b'\r' => {}
        b'\n' => return refused(ChunkedErrorKind::BareLf, d),
        _ => return refused(ChunkedErrorKind::TrailerSectionNotEmpty, d),
    }
    match at(b, d + 1)? {
        b'\n' => Ok(d + 2),
        _ => refused(ChunkedErrorKind::BareCr, d + 1),
    }
}
