//! The strict decoder of chunked request bodies, under `serve --chunked`: in place, byte by byte,
//! with its own code for each kind of mistake.
//!
//! Sans-IO, like the head parser: [`ChunkedDecoder::decode`] is handed the body's bytes as they
//! arrive and answers "more", "complete" or a typed error at the offset of the byte that decided
//! it, whatever the split. It stops on the first byte that proves the body bad, with a code of its
//! own for each kind of mistake. The budgets are [`Limits`]' and are checked on the byte that
//! crosses them: the size's digits, each chunk's extension bytes, the number of chunks, the decoded
//! total (checked as soon as a size is complete, before its data is read) and the trailer
//! section's lines and bytes.
//!
//! It decodes in place: each chunk's data is moved down over the framing before it, so the region
//! it is given always starts with the body decoded so far, and the body is one contiguous slice
//! right after the head. A connection's buffer needs room for the head, the body budget and a
//! trailer section, not for the framing of however many chunks arrive.
//!
//! # Under `serve --chunked`
//!
//! The server refuses every `Transfer-Encoding` by default. Under `serve --chunked` it decodes
//! chunked bodies as well, strictly, and the decoded body goes through exactly the order of a
//! `Content-Length` body: the same JSON decoder, the same token policy, the same sessions.
//!
//! | request | default | `--chunked` |
//! |---|---|---|
//! | `Transfer-Encoding: chunked` (any case), alone, HTTP/1.1 | 501 `transfer_encoding_chunked` | decoded |
//! | `gzip, chunked` (codings before chunked) | 501 | 501 (not implemented) |
//! | `chunked, gzip`, `chunked, chunked`, `xchunked`, two TE lines, TE with `Content-Length`, TE on HTTP/1.0 | 400 | 400, the same code |
//! | `Content-Length` bodies | decoded | decoded, byte for byte as without the flag |
//!
//! # What the decoder refuses
//!
//! | bytes | code | why |
//! |---|---|---|
//! | ` 5`, `+5`, `-1`, an empty line | `chunk_size_missing` | a size is `1*HEXDIG`, nothing before it |
//! | `0x5`, `1_0` | `chunk_size_byte` | the size ends at the first non-digit, which must be whitespace before `;`, `;` or CR |
//! | seventeen hex digits | `chunk_size_too_long` | at most 16<!-- limit: chunk_size_digits_max --> digits, leading zeros included: every size fits 64 bits, so none can wrap |
//! | `5 \r\n` | `chunk_size_whitespace` | whitespace after a size only before an extension (BWS before `;`) |
//! | `5;\r\n`, `5;=x` | `chunk_extension_name_missing` | an extension is `;` and a token |
//! | `5;bad[=x`, a NUL or DEL in an extension | `chunk_extension_byte` | names and token values are `tchar`s |
//! | `5;a=\r\n` / `5;a \r\n` | `chunk_extension_value_missing` / `chunk_extension_whitespace` | BWS only before `;` and around `=` |
//! | `5;a="x\r\n` | `chunk_extension_quoted_byte` | no control byte, CR and LF included, inside quotes |
//! | `5;\nhello`, `hello\n0` | `chunk_bare_lf` | CRLF only, as everywhere in this parser |
//! | `5\rhello` | `chunk_bare_cr` | a CR must be followed by LF |
//! | `5\r\nhello!!`, `5\r\nhello0` | `chunk_data_unterminated` | after exactly its size, a chunk's data ends with CRLF |
//! | trailer lines with a bare LF, obs-fold, a space before the colon, … | `trailer_bare_lf`, `trailer_line_starts_with_whitespace`, … | trailers follow the header section's own field rules |
//! | a trailer named `Content-Length`, `Host`, `Authorization`, `MCP-Session-Id`, `Mcp-Param-Limit`, … | `trailer_field_forbidden` | see below |
//! | more than 256<!-- limit: chunks_per_body_max --> chunks, or more than 256<!-- limit: chunk_extension_bytes_max --> extension bytes on one line | `chunks_too_many`, `chunk_extension_too_large` (400) | framing budgets |
//! | a size that would take the body past 16 KiB<!-- limit: request_body_bytes_max --> | `chunked_body_too_large` (413) | decided when the size ends, before its data |
//! | more than 8<!-- limit: trailer_fields_max --> trailer lines or 1 KiB<!-- limit: trailer_section_bytes_max --> of them | `trailer_fields_too_many`, `trailer_section_too_large` (431) | trailer budgets |
//!
//! Every refusal is a 400 (or 413, 431) with `Connection: close`; nothing after the refused byte is
//! ever interpreted. A body with no last chunk ends at the body deadline or when the client closes,
//! never as a request.
//!
//! **Trailers are checked, then dropped.** The decoder scans them with the header section's own
//! scanner and rules, under their own budgets, and hands none of them on: nothing after the body
//! reaches the endpoint, so a trailer cannot supply a field the receive order reads. One that names
//! such a field (framing, `Host`, `Origin`, `Accept`, `Content-Type`, credentials, the MCP fields:
//! exactly the names the field scanner tags for lookups, and every `Mcp-Param-{Name}`, which the
//! 2026-07-28 mirroring checks read) is refused outright, because RFC 9110
//! §6.5.1 forbids sending those as trailers, and a server that merged one would let it override
//! what was checked.
//!
//! Not here: the chunk-size line's grammar (the scanner in `line`) and response bodies
//! ([`super::response`]).

use super::line::{LineBudget, LineStep, SizeLine, SizeRoom};
use crate::http::error::{ChunkedError, ChunkedErrorKind};
use crate::http::fields::{FieldBudget, FieldScanner, FieldSpan};
use crate::limits::Limits;

/// The budgets of one chunked request body, read from [`Limits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ChunkedBudget {
    line: LineBudget,
    chunks_max: usize,
    body_bytes_max: usize,
    trailer: FieldBudget,
}
/// Where the decoder is in the coding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Inside a chunk-size line (the scanner knows where).
    Line,
    /// Inside a chunk's data, with this many bytes to go (never 0).
    Data(usize),
    /// After a chunk's data: its CR, then its LF.
    DataCr,
    DataLf,
    /// After the last chunk: the trailer section, scanned where it lies.
    Trailer,
}

/// What one call of [`ChunkedDecoder::decode`] made of the region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// Every byte was taken and more are needed: the region now holds `kept` bytes (the body so
    /// far, then any partial trailer section), and the next bytes go right after them.
    Partial { kept: usize },
    /// The coding ended: `region[..body_len]` is the body, and the bytes that followed the
    /// coding (a pipelined request's, if any) now lie at `region[next..kept]`.
    Complete { body_len: usize, next: usize, kept: usize },
}

/// The decoder of one chunked body. [`ChunkedDecoder::reset`] makes it ready for the next one,
/// keeping its allocation (the trailer scanner's span list, sized from its budget).
#[derive(Clone, Debug)]
pub struct ChunkedDecoder {
    budget: ChunkedBudget,
    state: State,
    /// Bytes of the coding taken so far: the offset of the next one, for errors.
    raw: usize,
    /// Decoded bytes at the start of the region.
    body_len: usize,
    /// The sum of the sizes declared so far (the body's length once every chunk's data is in).
    declared: usize,
    /// Chunk-size lines begun.
    chunks: usize,
    /// The current chunk-size line.
    line: SizeLine,
    trailer: FieldScanner,
    /// How far the trailer scan got, from the trailer section's first byte (which lies right
    /// after the body in the region), and that byte's offset in the coding.
    trailer_scanned: usize,
    trailer_start: usize,
    /// Trailer lines whose names were checked.
    trailer_checked: usize,
    /// The verdict once reached: the body's length and where the coding ended in the region, or
    /// the error. Later calls repeat it.
    verdict: Option<Result<(usize, usize), ChunkedError>>,
}

impl ChunkedDecoder {
    /// A decoder enforcing the chunked-body budgets of `limits`.
    pub fn new(limits: &Limits) -> ChunkedDecoder {
        let trailer = FieldBudget {
            value_bytes_max: limits.header_value_bytes_max,
            fields_max: limits.trailer_fields_max,
            section_bytes_max: limits.trailer_section_bytes_max,
        };
        let line = LineBudget::from_limits(limits);
        ChunkedDecoder {
            budget: ChunkedBudget {
                line,
                chunks_max: limits.chunks_per_body_max,
                body_bytes_max: limits.request_body_bytes_max,
                trailer,
            },
            state: State::Line,
            raw: 0,
            body_len: 0,
            declared: 0,
            chunks: 0,
            line: SizeLine::new(line),
            trailer: FieldScanner::new(trailer),
            trailer_scanned: 0,
            trailer_start: 0,
            trailer_checked: 0,
            verdict: None,
        }
    }

    /// The most bytes the decoder keeps in its region while a valid body is still arriving: the
    /// body budget, and a trailer section up to its budget with the CR of its empty line. A
    /// buffer one byte larger (after the head) always has room for the next read.
    pub fn kept_bytes_max(limits: &Limits) -> usize {
        limits.request_body_bytes_max + limits.trailer_section_bytes_max + 1
    }

    /// Makes the decoder ready for the next body.
    pub fn reset(&mut self) {
        self.state = State::Line;
        self.raw = 0;
        self.body_len = 0;
        self.declared = 0;
        self.chunks = 0;
        self.line = SizeLine::new(self.budget.line);
        self.trailer.reset();
        self.trailer_scanned = 0;
        self.trailer_start = 0;
        self.trailer_checked = 0;
        self.verdict = None;
    }

    /// Bytes of the coding taken so far; once complete, the coding's whole length.
    pub fn raw_len(&self) -> usize {
        self.raw
    }

    /// Chunks begun so far, the last one included.
    pub fn chunks(&self) -> usize {
        self.chunks
    }

    /// Trailer field lines read (and discarded) so far.
    pub fn trailer_fields(&self) -> usize {
        self.trailer.fields().len()
    }

    /// Decodes the bytes that arrived since the last call.
    ///
    /// `region` must be what the last call left (its first `kept` bytes, untouched) followed by
    /// the new bytes; the first call gets the body's first bytes. Once a verdict is reached, later
    /// calls repeat it and touch nothing.
    pub fn decode(&mut self, region: &mut [u8]) -> Result<Decoded, ChunkedError> {
        if let Some(verdict) = self.verdict {
            let (body_len, next) = verdict?;
            return Ok(Decoded::Complete { body_len, next, kept: region.len() });
        }
        let decoded = self.run(region);
        match decoded {
            Ok(Decoded::Complete { body_len, next, .. }) => {
                self.verdict = Some(Ok((body_len, next)))
            }
            Err(error) => self.verdict = Some(Err(error)),
            Ok(Decoded::Partial { .. }) => {}
        }
        decoded
    }

    /// Takes the new bytes: runs of data are moved down to the end of the body, framing bytes go
    /// one at a time through `step`, and the trailer section goes to the field scanner.
    fn run(&mut self, region: &mut [u8]) -> Result<Decoded, ChunkedError> {
        let mut read = self.body_len + self.trailer_scanned;
        assert!(read <= region.len(), "ChunkedDecoder::decode called with a shrunken region");
        while read < region.len() {
            match self.state {
                State::Trailer => return self.trailer_bytes(region, read),
                State::Data(left) => {
                    let n = left.min(region.len() - read);
                    region.copy_within(read..read + n, self.body_len);
                    (read, self.body_len, self.raw) = (read + n, self.body_len + n, self.raw + n);
                    self.state = if n == left { State::DataCr } else { State::Data(left - n) };
                }
                _ => {
                    let (byte, at) = (region[read], self.raw);
                    (read, self.raw) = (read + 1, self.raw + 1);
                    self.step(byte, at)?;
                }
            }
        }
        if self.state == State::Trailer {
            return self.trailer_bytes(region, read);
        }
        Ok(Decoded::Partial { kept: self.body_len })
    }

    /// One framing byte, by where it stands: a chunk-size line's, or the CRLF after a chunk's
    /// data.
    fn step(&mut self, byte: u8, at: usize) -> Result<(), ChunkedError> {
        let fail = |kind| Err(ChunkedError { kind, offset: at });
        match self.state {
            State::Line => self.line_byte(byte, at),
            State::DataLf if byte == b'\n' => {
                self.state = State::Line;
                Ok(())
            }
            State::DataLf => fail(ChunkedErrorKind::BareCr),
            State::DataCr => match byte {
                b'\r' => {
                    self.state = State::DataLf;
                    Ok(())
                }
                b'\n' => fail(ChunkedErrorKind::BareLf),
                _ => fail(ChunkedErrorKind::DataUnterminated),
            },
            State::Data(_) | State::Trailer => Ok(()), // `run` takes these bytes itself
        }
    }

    /// A byte of a chunk-size line. Its first byte begins a chunk, within the chunk budget; its
    /// size must fit what is left of the body budget; its LF is followed by the chunk's data or,
    /// after the last chunk, by the trailer section.
    fn line_byte(&mut self, byte: u8, at: usize) -> Result<(), ChunkedError> {
        if self.line.is_fresh() {
            self.chunks += 1;
            if self.chunks > self.budget.chunks_max {
                let limit = self.budget.chunks_max;
                let kind = ChunkedErrorKind::TooManyChunks { limit };
                return Err(ChunkedError { kind, offset: at });
            }
        }
        let limit = self.budget.body_bytes_max;
        let room = SizeRoom {
            bytes: limit - self.declared,
            too_large: ChunkedErrorKind::BodyTooLarge { limit },
        };
        if let LineStep::Done(size) = self.line.byte(byte, at, room)? {
            self.declared += size;
            self.state = if size == 0 {
                self.trailer_start = self.raw;
                State::Trailer
            } else {
                State::Data(size)
            };
        }
        Ok(())
    }

    /// The trailer section's bytes from `region[read..]`: moved (the first time) to lie right
    /// after the body, then scanned by the field scanner, each completed line's name checked.
    fn trailer_bytes(&mut self, region: &mut [u8], read: usize) -> Result<Decoded, ChunkedError> {
        let section_start = self.body_len;
        let scanned_end = section_start + self.trailer_scanned;
        if read != scanned_end {
            region.copy_within(read.., scanned_end);
        }
        let kept = scanned_end + (region.len() - read);
        let section = &region[section_start..kept];
        let scanned = self.trailer.scan(section, &mut self.trailer_scanned);
        self.raw = self.trailer_start + self.trailer_scanned;
        // A line that ended before a refused byte was read first: its name is judged first.
        self.check_trailer_names(section)?;
        let to_error = |kind, offset| ChunkedError { kind, offset: self.trailer_start + offset };
        match scanned {
            Err(e) => Err(to_error(ChunkedErrorKind::Trailer(e.kind), e.offset)),
            Ok(None) => Ok(Decoded::Partial { kept }),
            Ok(Some(end)) => {
                Ok(Decoded::Complete { body_len: self.body_len, next: section_start + end, kept })
            }
        }
    }

    /// Refuses the first newly completed trailer line (of `section`) whose name the crate reads
    /// from a head.
    fn check_trailer_names(&mut self, section: &[u8]) -> Result<(), ChunkedError> {
        let lines = &self.trailer.fields()[self.trailer_checked..];
        self.trailer_checked += lines.len();
        let forbidden =
            |line: &&FieldSpan| line.known.forbidden_as_trailer(&section[line.name.clone()]);
        match lines.iter().find(forbidden) {
            Some(line) => Err(ChunkedError {
                kind: ChunkedErrorKind::TrailerFieldForbidden,
                offset: self.trailer_start + line.line_start,
            }),
            None => Ok(()),
        }
    }
}
