//! The chunked transfer coding (RFC 9112 §7.1): a strict decoder of request bodies that works in
//! place, a strict reader of response bodies that hands out one chunk at a time, and the encoder
//! the client sends with.
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
//! Both read a chunk-size line with one scanner, the grammar's one home: a size of hex digits in
//! either case, then extensions that are checked and dropped, then CRLF.
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
//! # Reading a response body chunk by chunk
//!
//! [`ChunkReader::next`] is handed the bytes of a response body that earlier calls have not
//! taken, and answers [`NextChunk::Partial`] (more bytes needed), [`NextChunk::Chunk`] (one
//! chunk's data, as a range of those bytes, and how many bytes the chunk took with its framing)
//! or [`NextChunk::End`] (the last chunk and the empty line, and how many bytes they took). It
//! moves nothing: the caller drops the bytes taken and hands over the rest with whatever arrived
//! since, so the bytes after the body stay the caller's, for the next response on the
//! connection. A chunk comes out once its data and their CRLF are in, so a client reading an
//! event stream written one event per chunk gets each event as soon as it has arrived. Like the
//! decoder, it refuses at the byte that proves the body bad, with the same verdict whatever the
//! split, and errors count their offsets from the body's first byte.
//!
//! The size lines are the decoder's, under the same size-digit and extension budgets (the table
//! above); a stream has no chunk count. What differs:
//!
//! | bytes | code | why |
//! |---|---|---|
//! | a size over the response budget, 64 KiB<!-- limit: response_bytes_max --> | `chunk_too_large` | [`ChunkBudget::PerChunk`]: a stream's chunks are bounded one by one, decided when the size ends, before its data |
//! | sizes that add up past the response budget | `chunked_body_too_large` | [`ChunkBudget::WholeBody`]: a body read whole is bounded as a whole, decided likewise |
//! | `0\r\nX: 1\r\n\r\n` | `trailer_section_not_empty` | only the empty trailer section: this project's server writes none, and a trailer this client dropped unread could not say anything |
//! | `0\r\n\n`, `0\r\n\rX` | `chunk_bare_lf`, `chunk_bare_cr` | CRLF only |
//!
//! Not here: transfer codings other than chunked, chunk extensions' meaning (they are checked and
//! dropped), and keeping trailers.

use std::ops::Range;

use super::chars::{self, FIELD_VALUE, TCHAR};
use super::error::{ChunkedError, ChunkedErrorKind};
use super::fields::{FieldBudget, FieldScanner};
use crate::limits::Limits;

/// The budgets of one chunked request body, read from [`Limits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ChunkedBudget {
    line: LineBudget,
    chunks_max: usize,
    body_bytes_max: usize,
    trailer: FieldBudget,
}

/// The budgets of one chunk-size line, read from [`Limits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LineBudget {
    size_digits_max: usize,
    extension_bytes_max: usize,
}

impl LineBudget {
    const fn from_limits(limits: &Limits) -> LineBudget {
        LineBudget {
            size_digits_max: limits.chunk_size_digits_max,
            extension_bytes_max: limits.chunk_extension_bytes_max,
        }
    }
}

/// How large the chunk whose size is being read may be, and the error for a larger one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SizeRoom {
    bytes: usize,
    too_large: ChunkedErrorKind,
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

/// Where a chunk-size line's scan is, after its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Extension {
    /// Whitespace (BWS).
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
}

/// Where a chunk-size line's scan is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Line {
    /// Before the line's first byte.
    Start,
    /// Inside the size's hex digits.
    Size,
    /// After the size, before the CR.
    Extension(Extension),
    /// After the line's CR.
    Lf,
}

/// What one byte of a chunk-size line did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineStep {
    /// The line goes on.
    More,
    /// The byte was the line's LF: the chunk's size, within its room.
    Done(usize),
}

/// The scanner of one chunk-size line, `chunk-size [ chunk-ext ] CRLF`: the one home of that
/// grammar, for the request decoder and the response reader alike. It is fed one byte at a time,
/// decides each refusal at the byte that proves it, and checks the size against the room it is
/// given at the byte that ends the size, before any extension or data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SizeLine {
    budget: LineBudget,
    at: Line,
    /// The size's digits so far and its value.
    digits: usize,
    size: u64,
    /// The size once it ended within its room.
    length: usize,
    /// The line's extension bytes so far.
    extension_bytes: usize,
}

impl SizeLine {
    const fn new(budget: LineBudget) -> SizeLine {
        SizeLine { budget, at: Line::Start, digits: 0, size: 0, length: 0, extension_bytes: 0 }
    }

    /// No byte of the current line was read yet.
    fn is_fresh(&self) -> bool {
        self.at == Line::Start
    }

    /// Reads one byte of the line, at offset `at` of the body.
    fn byte(&mut self, byte: u8, at: usize, room: SizeRoom) -> Result<LineStep, ChunkedError> {
        let fail = |kind| Err(ChunkedError { kind, offset: at });
        match self.at {
            Line::Start => match (hex_value(byte), byte) {
                (Some(digit), _) => {
                    (self.digits, self.size, self.extension_bytes) = (1, digit, 0);
                    self.at = Line::Size;
                    Ok(LineStep::More)
                }
                (None, b'\n') => fail(ChunkedErrorKind::BareLf),
                (None, _) => fail(ChunkedErrorKind::SizeMissing),
            },
            Line::Size => self.size_byte(byte, at, room),
            Line::Extension(extension) => self.extension_byte(extension, byte, at),
            Line::Lf if byte == b'\n' => {
                self.at = Line::Start;
                Ok(LineStep::Done(self.length))
            }
            Line::Lf => fail(ChunkedErrorKind::BareCr),
        }
    }

    /// A byte after the size's first digit: another digit (within the digit budget), or the byte
    /// that ends the size, where the size is checked against its room.
    fn size_byte(&mut self, byte: u8, at: usize, room: SizeRoom) -> Result<LineStep, ChunkedError> {
        let fail = |kind| Err(ChunkedError { kind, offset: at });
        if let Some(digit) = hex_value(byte) {
            self.digits += 1;
            let size = self.size.checked_mul(16).map(|s| s | digit);
            match size {
                Some(size) if self.digits <= self.budget.size_digits_max => self.size = size,
                _ => {
                    let limit = self.budget.size_digits_max;
                    return fail(ChunkedErrorKind::SizeTooLong { limit });
                }
            }
            return Ok(LineStep::More);
        }
        let next = match byte {
            b' ' | b'\t' => Line::Extension(Extension::Whitespace(After::Size)),
            b';' => Line::Extension(Extension::NameStart),
            b'\r' => Line::Lf,
            b'\n' => return fail(ChunkedErrorKind::BareLf),
            _ => return fail(ChunkedErrorKind::SizeByte),
        };
        match usize::try_from(self.size) {
            Ok(size) if size <= room.bytes => self.length = size,
            _ => return fail(room.too_large),
        }
        if next != Line::Lf {
            self.count_extension_byte(at)?;
        }
        self.at = next;
        Ok(LineStep::More)
    }

    /// A byte of a chunk-size line after its size: whitespace, an extension's name or value, or
    /// the CR that ends the line. Counted against the extension budget first (an unquoted CR or
    /// LF is not).
    fn extension_byte(
        &mut self,
        extension: Extension,
        byte: u8,
        at: usize,
    ) -> Result<LineStep, ChunkedError> {
        let quoted = matches!(extension, Extension::Quoted | Extension::QuotedPair);
        if quoted || (byte != b'\r' && byte != b'\n') {
            self.count_extension_byte(at)?;
        }
        match extension_next(extension, byte) {
            Ok(next) => {
                self.at = next;
                Ok(LineStep::More)
            }
            Err(kind) => Err(ChunkedError { kind, offset: at }),
        }
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
}

/// Where a byte takes the extension part of a chunk-size line, or why it may not stand there:
/// BWS only before `;` and around `=`, names and token values of `tchar`s, quoted values of
/// field-value bytes, CRLF only after a name or a value.
fn extension_next(extension: Extension, byte: u8) -> Result<Line, ChunkedErrorKind> {
    use ChunkedErrorKind as K;
    let whitespace = byte == b' ' || byte == b'\t';
    let token = chars::is(byte, TCHAR);
    let to = |next| Ok(Line::Extension(next));
    match (extension, byte) {
        (Extension::Quoted, b'"') => to(Extension::QuotedEnd),
        (Extension::Quoted, b'\\') => to(Extension::QuotedPair),
        (Extension::Quoted | Extension::QuotedPair, _) if chars::is(byte, FIELD_VALUE) => {
            to(Extension::Quoted)
        }
        (Extension::Quoted | Extension::QuotedPair, _) => Err(K::ExtensionQuotedByte),
        (
            Extension::Whitespace(_)
            | Extension::NameStart
            | Extension::Name
            | Extension::ValueStart
            | Extension::Token
            | Extension::QuotedEnd,
            b'\n',
        ) => Err(K::BareLf),
        (Extension::Name | Extension::Token | Extension::QuotedEnd, b'\r') => Ok(Line::Lf),
        (Extension::Whitespace(_) | Extension::NameStart | Extension::ValueStart, _)
            if whitespace =>
        {
            to(extension)
        }
        (
            Extension::Whitespace(_) | Extension::Name | Extension::Token | Extension::QuotedEnd,
            b';',
        ) => to(Extension::NameStart),
        (Extension::Whitespace(After::Name) | Extension::Name, b'=') => to(Extension::ValueStart),
        (Extension::Whitespace(After::Size), _) => Err(K::SizeWhitespace),
        (Extension::Whitespace(After::Name | After::Value), _) => Err(K::ExtensionWhitespace),
        (Extension::NameStart, b'\r' | b';' | b'=') => Err(K::ExtensionNameMissing),
        (Extension::NameStart | Extension::Name, _) if token => to(Extension::Name),
        (Extension::Name, _) if whitespace => to(Extension::Whitespace(After::Name)),
        (Extension::ValueStart, b'\r' | b';') => Err(K::ExtensionValueMissing),
        (Extension::ValueStart, b'"') => to(Extension::Quoted),
        (Extension::ValueStart | Extension::Token, _) if token => to(Extension::Token),
        (Extension::Token | Extension::QuotedEnd, _) if whitespace => {
            to(Extension::Whitespace(After::Value))
        }
        (
            Extension::NameStart
            | Extension::Name
            | Extension::ValueStart
            | Extension::Token
            | Extension::QuotedEnd,
            _,
        ) => Err(K::ExtensionByte),
    }
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

/// What a [`ChunkReader`] bounds a chunk's size by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkBudget {
    /// Each chunk alone, at most the response budget (`chunk_too_large`): a stream read chunk
    /// by chunk, however long it lasts.
    PerChunk,
    /// All the chunks together, at most the response budget (`chunked_body_too_large`): a body
    /// read whole.
    WholeBody,
}

/// What one call of [`ChunkReader::next`] found at the start of the bytes it was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NextChunk {
    /// Every byte given was judged and more are needed: call again with the same bytes and the
    /// ones that arrive next.
    Partial,
    /// One chunk: its data is `buf[data]`, and it took `buf[..consumed]` with its framing.
    Chunk { data: Range<usize>, consumed: usize },
    /// The last chunk and the empty line that ends the body took `buf[..consumed]`; whatever
    /// follows belongs to the next message.
    End { consumed: usize },
}

/// Where the reader is in the current chunk; the data's range is counted from the start of the
/// bytes the current call was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reading {
    /// Inside a chunk-size line (the scanner knows where).
    Line,
    /// A chunk's data, then its CR, then its LF.
    Data {
        start: usize,
        end: usize,
    },
    DataCr {
        start: usize,
        end: usize,
    },
    DataLf {
        start: usize,
        end: usize,
    },
    /// After the last chunk's line: the CR, then the LF, of the empty trailer section's end.
    EndCr,
    EndLf,
}

/// The reader of one chunked response body, one chunk at a time; sans-IO, and it moves no byte.
///
/// Each call of [`ChunkReader::next`] gets the body's bytes that earlier calls have not taken
/// (`consumed`), followed by any that arrived since, and judges each byte once. A chunk comes out
/// only once its data and their CRLF are in. Errors count their offsets from the body's first
/// byte; once one is found, later calls repeat it, and after the end they take nothing more.
#[derive(Clone, Debug)]
pub struct ChunkReader {
    line: SizeLine,
    budget: ChunkBudget,
    /// The response budget, which bounds a chunk or the whole body.
    bytes_max: usize,
    reading: Reading,
    /// Bytes of the current call's buffer already judged: `Partial` keeps them judged.
    scanned: usize,
    /// Bytes of the body taken by earlier chunks: the body offset of the buffer's first byte.
    taken: usize,
    /// Data bytes of the chunks announced so far.
    declared: usize,
    /// The verdict once reached: the end (`Ok`) or the error. Later calls repeat it.
    verdict: Option<Result<(), ChunkedError>>,
}

impl ChunkReader {
    /// A reader enforcing the chunk-size line budgets of `limits` and, as `budget` says, its
    /// response budget on each chunk or on the whole body.
    pub fn new(limits: &Limits, budget: ChunkBudget) -> ChunkReader {
        ChunkReader {
            line: SizeLine::new(LineBudget::from_limits(limits)),
            budget,
            bytes_max: limits.response_bytes_max,
            reading: Reading::Line,
            scanned: 0,
            taken: 0,
            declared: 0,
            verdict: None,
        }
    }

    /// Reads the next chunk from `buf`: the bytes after the last ones taken (the body's first
    /// bytes at the first call). After [`NextChunk::Partial`], `buf` must come back whole, with
    /// new bytes after it; after a chunk, it must start right after that chunk's `consumed`
    /// bytes.
    ///
    /// # Panics
    ///
    /// When `buf` is shorter than the bytes judged by a previous `Partial` call: that is a caller
    /// bug, never input.
    pub fn next(&mut self, buf: &[u8]) -> Result<NextChunk, ChunkedError> {
        match self.verdict {
            Some(Err(error)) => return Err(error),
            Some(Ok(())) => return Ok(NextChunk::End { consumed: 0 }),
            None => {}
        }
        assert!(buf.len() >= self.scanned, "ChunkReader::next called with a shrunken buffer");
        let found = self.scan(buf);
        let taken = match &found {
            Ok(NextChunk::Partial) => return found,
            Ok(NextChunk::Chunk { consumed, .. }) => *consumed,
            Ok(NextChunk::End { consumed }) => {
                self.verdict = Some(Ok(()));
                *consumed
            }
            Err(error) => {
                self.verdict = Some(Err(*error));
                0
            }
        };
        self.taken += taken;
        self.scanned = 0;
        found
    }

    /// Judges the bytes of `buf` not judged yet, up to the end of the current chunk.
    fn scan(&mut self, buf: &[u8]) -> Result<NextChunk, ChunkedError> {
        loop {
            if let Reading::Data { start, end } = self.reading {
                if buf.len() < end {
                    self.scanned = buf.len();
                    return Ok(NextChunk::Partial);
                }
                self.scanned = end;
                self.reading = Reading::DataCr { start, end };
            }
            let Some(&byte) = buf.get(self.scanned) else {
                return Ok(NextChunk::Partial);
            };
            let at = self.scanned;
            self.scanned += 1;
            if let Some(found) = self.step(byte, at)? {
                return Ok(found);
            }
        }
    }

    /// One framing byte at `buf[at]`; the chunk or the end once its last byte is read.
    fn step(&mut self, byte: u8, at: usize) -> Result<Option<NextChunk>, ChunkedError> {
        let offset = self.taken + at;
        let fail = |kind| Err(ChunkedError { kind, offset });
        match (self.reading, byte) {
            (Reading::Line, _) => self.line_byte(byte, at).map(|()| None),
            (Reading::Data { .. }, _) => Ok(None), // `scan` takes data bytes itself
            (Reading::DataCr { start, end }, b'\r') => {
                self.reading = Reading::DataLf { start, end };
                Ok(None)
            }
            (Reading::DataLf { start, end }, b'\n') => {
                self.reading = Reading::Line;
                Ok(Some(NextChunk::Chunk { data: start..end, consumed: at + 1 }))
            }
            (Reading::EndCr, b'\r') => {
                self.reading = Reading::EndLf;
                Ok(None)
            }
            (Reading::EndLf, b'\n') => Ok(Some(NextChunk::End { consumed: at + 1 })),
            (Reading::DataCr { .. } | Reading::EndCr, b'\n') => fail(ChunkedErrorKind::BareLf),
            (Reading::DataCr { .. }, _) => fail(ChunkedErrorKind::DataUnterminated),
            (Reading::EndCr, _) => fail(ChunkedErrorKind::TrailerSectionNotEmpty),
            (Reading::DataLf { .. } | Reading::EndLf, _) => fail(ChunkedErrorKind::BareCr),
        }
    }

    /// A byte of a chunk-size line; its size is checked against the budget when it ends, and
    /// its LF starts the chunk's data or, after the last chunk, the end.
    fn line_byte(&mut self, byte: u8, at: usize) -> Result<(), ChunkedError> {
        let limit = self.bytes_max;
        let room = match self.budget {
            ChunkBudget::PerChunk => {
                SizeRoom { bytes: limit, too_large: ChunkedErrorKind::ChunkTooLarge { limit } }
            }
            ChunkBudget::WholeBody => SizeRoom {
                bytes: limit - self.declared,
                too_large: ChunkedErrorKind::BodyTooLarge { limit },
            },
        };
        if let LineStep::Done(size) = self.line.byte(byte, self.taken + at, room)? {
            self.declared = self.declared.saturating_add(size);
            let start = at + 1;
            self.reading = match size {
                0 => Reading::EndCr,
                _ => Reading::Data { start, end: start.saturating_add(size) },
            };
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::{PRIMING_EVENT_BYTES_MAX, RESPONSE_HEAD_BYTES_RESERVE};

    /// The smallest response budget the budgets' relations allow, so budget rows stay short.
    const SMALL: Limits = Limits {
        response_bytes_max: RESPONSE_HEAD_BYTES_RESERVE + PRIMING_EVENT_BYTES_MAX + 64,
        sse_event_bytes_max: 64,
        ..Limits::DEFAULT
    };
    const _: () = assert!(SMALL.validate().is_ok());

    /// How a reader stopped.
    #[derive(Clone, Debug, PartialEq, Eq)]
    enum Stop {
        Partial,
        /// The end, after this many bytes of the body.
        End(usize),
        /// The code and the body offset.
        Refused(&'static str, usize),
    }

    /// The chunks a reader handed out, and how it stopped.
    type Read = (Vec<Vec<u8>>, Stop);

    /// A row: the body's bytes, the chunks they read to, and how the reader stops.
    type Row<'a> = (&'a [u8], &'a [&'a [u8]], Stop);

    /// Feeds `input` to a fresh reader in pieces ending at `ends`, as a client does: the bytes
    /// not taken stay, each piece is appended after them, and chunks are read until `Partial`.
    fn read_in_pieces(input: &[u8], ends: &[usize], limits: &Limits, budget: ChunkBudget) -> Read {
        let mut reader = ChunkReader::new(limits, budget);
        let (mut pending, mut fed, mut taken, mut chunks) = (Vec::new(), 0, 0, Vec::new());
        for &end in ends {
            pending.extend_from_slice(&input[fed..end]);
            fed = end;
            loop {
                match reader.next(&pending) {
                    Ok(NextChunk::Partial) => break,
                    Ok(NextChunk::Chunk { data, consumed }) => {
                        assert!(
                            !data.is_empty() && data.end + 2 == consumed,
                            "{data:?} {consumed}"
                        );
                        chunks.push(pending[data].to_vec());
                        pending.drain(..consumed);
                        taken += consumed;
                    }
                    Ok(NextChunk::End { consumed }) => {
                        let again = reader.next(&pending[consumed..]);
                        assert_eq!(again, Ok(NextChunk::End { consumed: 0 }), "after the end");
                        return (chunks, Stop::End(taken + consumed));
                    }
                    Err(e) => {
                        assert_eq!(reader.next(&pending), Err(e), "a refusal is repeated");
                        return (chunks, Stop::Refused(e.kind.code(), e.offset));
                    }
                }
            }
        }
        (chunks, Stop::Partial)
    }

    /// What `input` reads to whole, checked to be the same at every split point and one byte at
    /// a time, and a refusal to be decided by the byte at its offset.
    fn read_every_way(input: &[u8], limits: &Limits, budget: ChunkBudget) -> Read {
        let n = input.len();
        let whole = read_in_pieces(input, &[n], limits, budget);
        for k in 0..=n {
            let split = read_in_pieces(input, &[k, n], limits, budget);
            assert_eq!(split, whole, "split at {k} of {:?}", String::from_utf8_lossy(input));
        }
        let every: Vec<usize> = (0..=n).collect();
        assert_eq!(read_in_pieces(input, &every, limits, budget), whole, "byte by byte");
        if let (chunks, Stop::Refused(_, at)) = &whole {
            let before = read_in_pieces(&input[..*at], &[*at], limits, budget);
            assert_eq!(before, (chunks.clone(), Stop::Partial), "decided before its byte");
            let through = read_in_pieces(&input[..=*at], &[*at + 1], limits, budget);
            assert_eq!(through, whole, "not decided by its byte");
        }
        whole
    }

    fn check(rows: &[Row<'_>], limits: &Limits, budget: ChunkBudget) {
        for (input, chunks, stop) in rows {
            let chunks: Vec<Vec<u8>> = chunks.iter().map(|c| c.to_vec()).collect();
            let got = read_every_way(input, limits, budget);
            assert_eq!(got, (chunks, stop.clone()), "{:?}", String::from_utf8_lossy(input));
        }
    }

    #[test]
    fn valid_chunked_bodies_read_to_their_chunks_and_end() {
        use Stop::*;
        let rows: [Row<'_>; 17] = [
            (b"0\r\n\r\n", &[], End(5)),
            (b"5\r\nhello\r\n0\r\n\r\n", &[b"hello"], End(15)),
            (b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", &[b"hello", b" world"], End(26)),
            (
                b"A\r\n0123456789\r\na\r\n9876543210\r\n0\r\n\r\n",
                &[b"0123456789", b"9876543210"],
                End(35),
            ),
            (b"0005\r\nhello\r\n000\r\n\r\n", &[b"hello"], End(20)),
            (b"0000000000000005\r\nhello\r\n0\r\n\r\n", &[b"hello"], End(30)),
            (b"4\r\n\r\n\r\n\r\n0\r\n\r\n", &[b"\r\n\r\n"], End(14)),
            (b"5;a\r\nhello\r\n0\r\n\r\n", &[b"hello"], End(17)),
            (b"5 ; a = b\r\nhello\r\n0\r\n\r\n", &[b"hello"], End(23)),
            (b"5;a=\"q \\\" ;x\"\r\nhello\r\n0\r\n\r\n", &[b"hello"], End(27)),
            (b"5\t;\ta\t=\t\"v\"\t;b\r\nhello\r\n0;last=1\r\n\r\n", &[b"hello"], End(35)),
            (b"0\r\n\r\nHTTP/1.1 200 OK\r\n", &[], End(5)),
            (b"", &[], Partial),
            (b"5\r\nhel", &[], Partial),
            (b"5\r\nhello\r\n", &[b"hello"], Partial),
            (b"5\r\nhello\r\n0\r\n\r", &[b"hello"], Partial),
            (
                b"1b\r\nid: 1\ndata: {\"a\":[1,2,3]}\n\n\r\n",
                &[b"id: 1\ndata: {\"a\":[1,2,3]}\n\n"],
                Partial,
            ),
        ];
        for budget in [ChunkBudget::PerChunk, ChunkBudget::WholeBody] {
            check(&rows, &Limits::DEFAULT, budget);
        }
    }

    #[test]
    fn malformed_chunked_bodies_are_refused_at_the_deciding_byte() {
        use Stop::Refused;
        let long_extension = [&b"5;"[..], &[b'a'; 256], b"\r\n"].concat();
        let rows: [Row<'_>; 25] = [
            (b"\r\n", &[], Refused("chunk_size_missing", 0)),
            (b" 5\r\n", &[], Refused("chunk_size_missing", 0)),
            (b"-1\r\n", &[], Refused("chunk_size_missing", 0)),
            (b"\n", &[], Refused("chunk_bare_lf", 0)),
            (b"0x5\r\n", &[], Refused("chunk_size_byte", 1)),
            (b"5\n", &[], Refused("chunk_bare_lf", 1)),
            (b"5\rx", &[], Refused("chunk_bare_cr", 2)),
            (b"00000000000000005\r\n", &[], Refused("chunk_size_too_long", 16)),
            (b"5 \r\n", &[], Refused("chunk_size_whitespace", 2)),
            (b"5 x\r\n", &[], Refused("chunk_size_whitespace", 2)),
            (b"5;\r\n", &[], Refused("chunk_extension_name_missing", 2)),
            (b"5;=x\r\n", &[], Refused("chunk_extension_name_missing", 2)),
            (b"5;a=\r\n", &[], Refused("chunk_extension_value_missing", 4)),
            (b"5;a \r\n", &[], Refused("chunk_extension_whitespace", 4)),
            (b"5;a[\r\n", &[], Refused("chunk_extension_byte", 3)),
            (b"5;a=\"x\r\n", &[], Refused("chunk_extension_quoted_byte", 6)),
            (b"5;a=\"x\"y\r\n", &[], Refused("chunk_extension_byte", 7)),
            (&long_extension, &[], Refused("chunk_extension_too_large", 257)),
            (b"5\r\nhello!!\r\n", &[], Refused("chunk_data_unterminated", 8)),
            (b"5\r\nhello\n", &[], Refused("chunk_bare_lf", 8)),
            (b"5\r\nhello\rx", &[], Refused("chunk_bare_cr", 9)),
            (b"0\r\nX: 1\r\n\r\n", &[], Refused("trailer_section_not_empty", 3)),
            (b"5\r\nhello\r\n0\r\nX", &[b"hello"], Refused("trailer_section_not_empty", 13)),
            (b"0\r\n\n", &[], Refused("chunk_bare_lf", 3)),
            (b"0\r\n\rx", &[], Refused("chunk_bare_cr", 4)),
        ];
        for budget in [ChunkBudget::PerChunk, ChunkBudget::WholeBody] {
            check(&rows, &Limits::DEFAULT, budget);
        }
    }

    /// A chunk of `n` bytes (`x`), framed.
    fn chunk_of(n: usize) -> Vec<u8> {
        let mut out = format!("{n:x}\r\n").into_bytes();
        out.resize(out.len() + n, b'x');
        out.extend_from_slice(b"\r\n");
        out
    }

    #[test]
    fn every_reader_budget_holds_at_its_edge_and_refuses_one_past_it() {
        use ChunkBudget::{PerChunk, WholeBody};
        let max = SMALL.response_bytes_max;
        let digits = [&b"0000000000000001"[..], b"\r\nx\r\n0\r\n\r\n"].concat();
        let extension = [&b"1;"[..], &[b'e'; 255], b"\r\nx\r\n0\r\n\r\n"].concat();
        let longer = [&b"1;"[..], &[b'e'; 256], b"\r\n"].concat();
        let one = [chunk_of(max), b"0\r\n\r\n".to_vec()].concat();
        let two = [chunk_of(max - 1), chunk_of(1), b"0\r\n\r\n".to_vec()].concat();
        let past = [chunk_of(max - 1), chunk_of(2), b"0\r\n\r\n".to_vec()].concat();
        let twice = [chunk_of(max), chunk_of(max), b"0\r\n\r\n".to_vec()].concat();
        let second_size = chunk_of(max - 1).len() + 1;
        let cases: Vec<(&[u8], ChunkBudget, Stop)> = vec![
            (&digits, WholeBody, Stop::End(digits.len())),
            (b"00000000000000001\r\n", WholeBody, Stop::Refused("chunk_size_too_long", 16)),
            (&extension, WholeBody, Stop::End(extension.len())),
            (&longer, WholeBody, Stop::Refused("chunk_extension_too_large", 257)),
            (&one, PerChunk, Stop::End(one.len())),
            (&one, WholeBody, Stop::End(one.len())),
            (b"2c1\r\n", PerChunk, Stop::Refused("chunk_too_large", 3)),
            (b"2c1;a\r\n", WholeBody, Stop::Refused("chunked_body_too_large", 3)),
            (b"ffffffffffffffff\r\n", PerChunk, Stop::Refused("chunk_too_large", 16)),
            (&two, WholeBody, Stop::End(two.len())),
            (&past, WholeBody, Stop::Refused("chunked_body_too_large", second_size)),
            (&past, PerChunk, Stop::End(past.len())),
            (&twice, PerChunk, Stop::End(twice.len())),
        ];
        assert_eq!(max, 0x2c0, "the rows spell the budget in hex");
        for (input, budget, stop) in cases {
            let (_, got) = read_every_way(input, &SMALL, budget);
            assert_eq!(got, stop, "{budget:?} {:?}", String::from_utf8_lossy(&input[..20]));
        }
    }
}
