//! The chunked transfer coding of a request body (RFC 9112 §7.1): a strict decoder that works in
//! place, and the encoder the client sends with.
//!
//! ```text
//! chunked-body = *chunk last-chunk trailer-section CRLF
//! chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
//! chunk-size   = 1*HEXDIG
//! last-chunk   = 1*("0") [ chunk-ext ] CRLF
//! chunk-ext    = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
//! chunk-ext-val = token / quoted-string
//! ```
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
//! | a trailer named `Content-Length`, `Host`, `Authorization`, `MCP-Session-Id`, … | `trailer_field_forbidden` | see below |
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
//! exactly the names the field scanner tags for lookups) is refused outright, because RFC 9110
//! §6.5.1 forbids sending those as trailers, and a server that merged one would let it override
//! what was checked.
//!
//! Not here: transfer codings other than chunked, chunk extensions' meaning (they are checked and
//! dropped), keeping trailers, and chunked responses (this project writes `Content-Length`).

use super::chars::{self, FIELD_VALUE, TCHAR};
use super::error::{ChunkedError, ChunkedErrorKind};
use super::fields::{FieldBudget, FieldScanner};
use crate::limits::Limits;

/// The budgets of one chunked body, read from [`Limits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ChunkedBudget {
    size_digits_max: usize,
    extension_bytes_max: usize,
    chunks_max: usize,
    body_bytes_max: usize,
    trailer: FieldBudget,
}

/// What the whitespace being read follows, which decides what may come after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum After {
    /// The size: only `;` may follow.
    Size,
    /// An extension name: `=` or `;`.
    Name,
    /// An extension value: `;`.
    Value,
}

/// Where the decoder is in the coding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Before the first byte of a chunk-size line.
    LineStart,
    /// Inside the size's hex digits.
    Size,
    /// Whitespace (BWS) inside a chunk-size line.
    Whitespace(After),
    /// After `;` (and any whitespace): an extension name must start.
    NameStart,
    Name,
    /// After `=` (and any whitespace): a value must start.
    ValueStart,
    Token,
    Quoted,
    /// After a backslash inside a quoted value.
    QuotedPair,
    /// After a quoted value's closing quote.
    QuotedEnd,
    /// After a chunk-size line's CR.
    LineLf,
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
    /// The current size: its digits so far and its value.
    digits: usize,
    size: u64,
    /// The current line's extension bytes so far.
    extension_bytes: usize,
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
        ChunkedDecoder {
            budget: ChunkedBudget {
                size_digits_max: limits.chunk_size_digits_max,
                extension_bytes_max: limits.chunk_extension_bytes_max,
                chunks_max: limits.chunks_per_body_max,
                body_bytes_max: limits.request_body_bytes_max,
                trailer,
            },
            state: State::LineStart,
            raw: 0,
            body_len: 0,
            declared: 0,
            chunks: 0,
            digits: 0,
            size: 0,
            extension_bytes: 0,
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
        self.state = State::LineStart;
        self.raw = 0;
        self.body_len = 0;
        self.declared = 0;
        self.chunks = 0;
        self.extension_bytes = 0;
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

    /// One framing byte, by where it stands: a size line's start, its size, its extensions, its
    /// LF, or the CRLF after a chunk's data.
    fn step(&mut self, byte: u8, at: usize) -> Result<(), ChunkedError> {
        let fail = |kind| Err(ChunkedError { kind, offset: at });
        match self.state {
            State::LineStart => self.line_start(byte, at),
            State::Size => self.size_byte(byte, at),
            State::LineLf if byte == b'\n' => {
                self.line_end();
                Ok(())
            }
            State::DataLf if byte == b'\n' => {
                self.state = State::LineStart;
                Ok(())
            }
            State::LineLf | State::DataLf => fail(ChunkedErrorKind::BareCr),
            State::DataCr => match byte {
                b'\r' => {
                    self.state = State::DataLf;
                    Ok(())
                }
                b'\n' => fail(ChunkedErrorKind::BareLf),
                _ => fail(ChunkedErrorKind::DataUnterminated),
            },
            State::Data(_) | State::Trailer => Ok(()), // `run` takes these bytes itself
            _ => self.extension_byte(byte, at),
        }
    }

    /// The first byte of a chunk-size line, which begins a chunk (within the chunk budget) and
    /// must be a hex digit.
    fn line_start(&mut self, byte: u8, at: usize) -> Result<(), ChunkedError> {
        self.chunks += 1;
        if self.chunks > self.budget.chunks_max {
            let limit = self.budget.chunks_max;
            return Err(ChunkedError {
                kind: ChunkedErrorKind::TooManyChunks { limit },
                offset: at,
            });
        }
        let kind = match (hex_value(byte), byte) {
            (Some(digit), _) => {
                (self.digits, self.size, self.extension_bytes) = (1, digit, 0);
                self.state = State::Size;
                return Ok(());
            }
            (None, b'\n') => ChunkedErrorKind::BareLf,
            (None, _) => ChunkedErrorKind::SizeMissing,
        };
        Err(ChunkedError { kind, offset: at })
    }

    /// A byte after the size's first digit: another digit (within the digit budget), or the byte
    /// that ends the size, where the body budget is checked.
    fn size_byte(&mut self, byte: u8, at: usize) -> Result<(), ChunkedError> {
        let fail = |kind| Err(ChunkedError { kind, offset: at });
        if let Some(digit) = hex_value(byte) {
            self.digits += 1;
            let size = self.size.checked_mul(16).map(|s| s | digit);
            match size {
                Some(size) if self.digits <= self.budget.size_digits_max => self.size = size,
                _ => {
                    return fail(ChunkedErrorKind::SizeTooLong {
                        limit: self.budget.size_digits_max,
                    });
                }
            }
            return Ok(());
        }
        let next = match byte {
            b' ' | b'\t' => State::Whitespace(After::Size),
            b';' => State::NameStart,
            b'\r' => State::LineLf,
            b'\n' => return fail(ChunkedErrorKind::BareLf),
            _ => return fail(ChunkedErrorKind::SizeByte),
        };
        let room = self.budget.body_bytes_max - self.declared;
        match usize::try_from(self.size) {
            Ok(size) if size <= room => self.declared += size,
            _ => return fail(ChunkedErrorKind::BodyTooLarge { limit: self.budget.body_bytes_max }),
        }
        if next != State::LineLf {
            self.count_extension_byte(at)?;
        }
        self.state = next;
        Ok(())
    }

    /// A byte of a chunk-size line after its size: whitespace, an extension's name or value, or
    /// the CR that ends the line. Counted against the extension budget first (the CR is not).
    fn extension_byte(&mut self, byte: u8, at: usize) -> Result<(), ChunkedError> {
        use ChunkedErrorKind as K;
        let fail = |kind| Err(ChunkedError { kind, offset: at });
        let quoted = matches!(self.state, State::Quoted | State::QuotedPair);
        match byte {
            b'\r' if !quoted => {
                self.state = match self.state {
                    State::Name | State::Token | State::QuotedEnd => State::LineLf,
                    State::Whitespace(After::Size) => return fail(K::SizeWhitespace),
                    State::NameStart => return fail(K::ExtensionNameMissing),
                    State::ValueStart => return fail(K::ExtensionValueMissing),
                    _ => return fail(K::ExtensionWhitespace),
                };
                return Ok(());
            }
            b'\n' if !quoted => return fail(K::BareLf),
            _ => self.count_extension_byte(at)?,
        }
        let whitespace = byte == b' ' || byte == b'\t';
        let token = chars::is(byte, TCHAR);
        self.state = match (self.state, byte) {
            (State::Whitespace(_) | State::NameStart | State::ValueStart, _) if whitespace => {
                self.state
            }
            (State::Whitespace(_) | State::Name | State::Token | State::QuotedEnd, b';') => {
                State::NameStart
            }
            (State::Whitespace(After::Name) | State::Name, b'=') => State::ValueStart,
            (State::Whitespace(After::Size), _) => return fail(K::SizeWhitespace),
            (State::Whitespace(_), _) => return fail(K::ExtensionWhitespace),
            (State::NameStart, b';' | b'=') => return fail(K::ExtensionNameMissing),
            (State::NameStart, _) if token => State::Name,
            (State::Name, _) if token => State::Name,
            (State::Name, _) if whitespace => State::Whitespace(After::Name),
            (State::ValueStart, b';') => return fail(K::ExtensionValueMissing),
            (State::ValueStart, b'"') => State::Quoted,
            (State::ValueStart | State::Token, _) if token => State::Token,
            (State::Token | State::QuotedEnd, _) if whitespace => State::Whitespace(After::Value),
            (State::Quoted, b'"') => State::QuotedEnd,
            (State::Quoted, b'\\') => State::QuotedPair,
            (State::Quoted | State::QuotedPair, _) if chars::is(byte, FIELD_VALUE) => State::Quoted,
            (State::Quoted | State::QuotedPair, _) => return fail(K::ExtensionQuotedByte),
            _ => return fail(K::ExtensionByte),
        };
        Ok(())
    }

    fn count_extension_byte(&mut self, at: usize) -> Result<(), ChunkedError> {
        self.extension_bytes += 1;
        if self.extension_bytes > self.budget.extension_bytes_max {
            let limit = self.budget.extension_bytes_max;
            let kind = ChunkedErrorKind::ExtensionTooLarge { limit };
            return Err(ChunkedError { kind, offset: at });
        }
        Ok(())
    }

    /// A chunk-size line's LF: the chunk's data follows, or, after the last chunk, the trailer
    /// section.
    fn line_end(&mut self) {
        // The size was checked against the body budget, which fits a usize.
        let size = usize::try_from(self.size).unwrap_or(usize::MAX);
        self.state = if size == 0 {
            self.trailer_start = self.raw;
            State::Trailer
        } else {
            State::Data(size)
        };
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
        self.check_trailer_names()?;
        let to_error = |kind, offset| ChunkedError { kind, offset: self.trailer_start + offset };
        match scanned {
            Err(e) => Err(to_error(ChunkedErrorKind::Trailer(e.kind), e.offset)),
            Ok(None) => Ok(Decoded::Partial { kept }),
            Ok(Some(end)) => {
                Ok(Decoded::Complete { body_len: self.body_len, next: section_start + end, kept })
            }
        }
    }

    /// Refuses the first newly completed trailer line whose name the crate reads from a head.
    fn check_trailer_names(&mut self) -> Result<(), ChunkedError> {
        let lines = &self.trailer.fields()[self.trailer_checked..];
        self.trailer_checked += lines.len();
        match lines.iter().find(|line| line.known.forbidden_in_trailer()) {
            Some(line) => Err(ChunkedError {
                kind: ChunkedErrorKind::TrailerFieldForbidden,
                offset: self.trailer_start + line.line_start,
            }),
            None => Ok(()),
        }
    }
}

/// The value of a hex digit (`HEXDIG`, either case).
fn hex_value(byte: u8) -> Option<u64> {
    char::from(byte).to_digit(16).map(u64::from)
}

/// Appends `chunks` as a chunked body: each non-empty chunk as its size in lower-case hex, CRLF,
/// its bytes and CRLF; then the last chunk and the empty line (no extensions, no trailers). An
/// empty chunk is skipped, since a zero size would end the body.
pub fn encode(chunks: &[&[u8]], out: &mut Vec<u8>) {
    for chunk in chunks.iter().filter(|c| !c.is_empty()) {
        out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        out.extend_from_slice(chunk);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
}
