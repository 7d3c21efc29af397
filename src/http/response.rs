//! The client's strict response parser: status line, header section, and the framing of the
//! body, which is read here when it has a Content-Length and by
//! [`ChunkReader`](super::chunked::response::ChunkReader) when it is chunked.
//!
//! Like the request parser it is incremental and sans-IO: [`ResponseParser::parse`] takes every
//! byte received so far for one response and answers "need more" or "complete, `len` bytes". A
//! Content-Length response completes only once its whole body is present, and is refused before
//! a single body byte is read when its head plus announced body would exceed the response
//! budget. A chunked response completes at the end of its head, with [`ResponseFraming::Chunked`]
//! and an empty body: its chunks follow, to be read one by one.
//!
//! Grammar: `HTTP-version SP 3DIGIT SP [ reason-phrase ] CRLF`, then the same field-line rules as
//! requests (CRLF only, token names, no whitespace before the colon, no folding, no control
//! bytes). Framing rules, in this order, at the end of the head:
//!
//! 1. Transfer-Encoding is accepted in one shape only: one field line whose value is `chunked`
//!    (any case), on HTTP/1.1, without Content-Length, on a status that carries content. Every
//!    other shape is refused, first match wins: on HTTP/1.0 (`transfer_encoding_on_http10`),
//!    next to Content-Length (`transfer_encoding_with_content_length`), on two field lines
//!    (`transfer_encoding_duplicate`), on 1xx, 204, 304 or the answer to HEAD
//!    (`transfer_encoding_without_content`), a malformed list or one with chunked before its end
//!    or twice (`transfer_encoding_invalid`: `chunked, gzip`), chunked after another coding
//!    (`transfer_encoding_layered`: `gzip, chunked`), no chunked at all
//!    (`transfer_encoding_unsupported`: `gzip`).
//! 2. Without Transfer-Encoding: exactly one valid Content-Length unless the status never
//!    carries content: none at all on 1xx and 204, and on 304 at most one valid one, which
//!    describes a representation that is not sent. A parser made with
//!    [`ResponseParser::for_head`] reads the response to a HEAD request, which ends after its
//!    head whatever it announces (RFC 9112 §6.3): at most one valid Content-Length, no content.
//!
//! It does not follow redirects, decode content codings or interpret any field besides the
//! framing ones and Connection.

use super::chars::{self, FIELD_VALUE};
use super::error::{HeadErrorKind, ResponseError, ResponseErrorKind};
use super::fields::{FieldBudget, FieldList, FieldScanner, Occurrence};
use super::framing::ConnectionOptions;
use super::vocab::{Parsed, VERSION_LEN, Version, version_byte_fits};
use crate::decimal::{self, Decimal};
use crate::limits::Limits;

/// A complete response, borrowing from the buffer it was parsed from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response<'b> {
    pub version: Version,
    /// The status code, 100–599.
    pub status: u16,
    /// The reason phrase as sent (it carries no meaning).
    pub reason: &'b [u8],
    pub fields: FieldList<'b>,
    /// How the body is delimited.
    pub framing: ResponseFraming,
    /// With [`ResponseFraming::Length`], exactly Content-Length bytes (empty for 1xx, 204, 304
    /// and the answer to HEAD); with [`ResponseFraming::Chunked`], empty.
    pub body: &'b [u8],
    /// The server left the connection open for another request.
    pub keep_alive: bool,
}

/// How a response's body is delimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseFraming {
    /// By its Content-Length, or by having no content: the body is in [`Response::body`], and
    /// the response ends with it.
    Length,
    /// By the chunked coding (`Transfer-Encoding: chunked`): the response's `len` ends with its
    /// head, and the chunks that follow are read with
    /// [`ChunkReader`](super::chunked::response::ChunkReader).
    Chunked,
}

/// What a complete head says about the body after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BodyLength {
    /// This many bytes (a Content-Length, or 0).
    Bytes(u64),
    Chunked,
}

/// Where the status-line scan is; from the version on, each state carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineState {
    /// Inside `HTTP/1.x`; the payload counts the bytes already matched.
    Version(usize),
    SpaceBeforeCode(Version),
    /// Inside the three-digit code; the payload counts the digits read.
    Code(usize, Version),
    SpaceBeforeReason(Version),
    Reason(Version),
    LineCr(Version),
    /// The status line is done; the header section is being scanned.
    Fields(Version),
}

/// An incremental parser for one response. [`ResponseParser::reset`] before the next one.
#[derive(Clone, Debug)]
pub struct ResponseParser {
    response_bytes_max: usize,
    reason_bytes_max: usize,
    state: LineState,
    pos: usize,
    major: u8,
    status: u16,
    reason_start: usize,
    reason_end: usize,
    fields: FieldScanner,
    /// The head length once the empty line has been read, and the status line's version.
    head: Option<(usize, Version)>,
    /// Head and body length, and the framing, once a complete head was judged.
    total: Option<(usize, ResponseFraming)>,
    /// The request was HEAD: the response has no content, whatever it announces.
    answers_head: bool,
    /// The error, once one was found: later calls repeat it.
    failed: Option<ResponseError>,
}

impl ResponseParser {
    /// A parser enforcing the response budget and the header budgets of `limits`.
    pub fn new(limits: &Limits) -> Self {
        let fields = FieldBudget::from_limits(limits);
        ResponseParser {
            response_bytes_max: limits.response_bytes_max,
            reason_bytes_max: limits.header_value_bytes_max,
            state: LineState::Version(0),
            pos: 0,
            major: 0,
            status: 0,
            reason_start: 0,
            reason_end: 0,
            fields: FieldScanner::new(fields),
            head: None,
            total: None,
            answers_head: false,
            failed: None,
        }
    }

    /// A parser for the response to a HEAD request: it ends after its head.
    pub fn for_head(limits: &Limits) -> Self {
        ResponseParser { answers_head: true, ..ResponseParser::new(limits) }
    }

    /// Makes the parser ready for the next response, keeping its allocation.
    pub fn reset(&mut self) {
        self.state = LineState::Version(0);
        self.pos = 0;
        self.status = 0;
        self.fields.reset();
        self.head = None;
        self.total = None;
        self.failed = None;
    }

    /// Parses the bytes received so far for this response; `buf` starts at its first byte and
    /// extends the previous call's buffer. Once a verdict is reached, later calls repeat it.
    ///
    /// # Panics
    ///
    /// When `buf` is shorter than a previous call's buffer: that is a caller bug, never input.
    pub fn parse<'b>(&'b mut self, buf: &'b [u8]) -> Result<Parsed<Response<'b>>, ResponseError> {
        assert!(buf.len() >= self.pos, "ResponseParser::parse called with a shrunken buffer");
        if let Some(error) = self.failed {
            return Err(error);
        }
        let (head_len, version) = match self.head {
            Some(head) => head,
            None => match self.scan(buf) {
                Ok(Some(head)) => {
                    self.head = Some(head);
                    head
                }
                Ok(None) => return Ok(Parsed::Partial),
                Err(error) => {
                    self.failed = Some(error);
                    return Err(error);
                }
            },
        };
        let (total, framing) = match self.total {
            Some(total) => total,
            None => match self.framed_total(buf, head_len, version) {
                Ok(total) => {
                    self.total = Some(total);
                    total
                }
                Err(error) => {
                    self.failed = Some(error);
                    return Err(error);
                }
            },
        };
        if buf.len() < total {
            return Ok(Parsed::Partial);
        }
        let response = self.response(buf, head_len, version, total, framing);
        Ok(Parsed::Complete { value: response, len: total })
    }

    /// Runs the byte scanners; the head's length and version once its empty line was read.
    fn scan(&mut self, buf: &[u8]) -> Result<Option<(usize, Version)>, ResponseError> {
        let version = loop {
            if let LineState::Fields(version) = self.state {
                break version;
            }
            let Some(&byte) = buf.get(self.pos) else {
                return Ok(None);
            };
            let at = self.pos;
            self.pos += 1;
            self.line_step(byte, at)?;
        };
        Ok(self.fields.scan(buf, &mut self.pos)?.map(|len| (len, version)))
    }

    /// Consumes one byte of the status line, by the grammar's stage: the version, the code, the
    /// reason, the line's end.
    fn line_step(&mut self, byte: u8, at: usize) -> Result<(), ResponseError> {
        let fail = |kind| Err(ResponseError::new(kind, at));
        match self.state {
            LineState::Version(matched) => self.version_byte(matched, byte, at)?,
            LineState::SpaceBeforeCode(version) => {
                if byte != b' ' {
                    return fail(ResponseErrorKind::StatusLineSyntax);
                }
                self.state = LineState::Code(0, version);
            }
            LineState::Code(read, version) => self.code_byte(read, version, byte, at)?,
            LineState::SpaceBeforeReason(version) => {
                if byte != b' ' {
                    return fail(ResponseErrorKind::StatusLineSyntax);
                }
                self.reason_start = at + 1;
                self.state = LineState::Reason(version);
            }
            LineState::Reason(version) => self.reason_byte(version, byte, at)?,
            LineState::LineCr(version) => {
                if byte != b'\n' {
                    return fail(ResponseErrorKind::Head(HeadErrorKind::BareCr));
                }
                self.state = LineState::Fields(version);
            }
            // `scan` stops calling this once the line is done.
            LineState::Fields(_) => {}
        }
        Ok(())
    }

    /// A byte of `HTTP/x.y`; the last one decides the version (1.0 and 1.1 only).
    fn version_byte(&mut self, matched: usize, byte: u8, at: usize) -> Result<(), ResponseError> {
        let fail = |kind| Err(ResponseError::new(kind, at));
        if !version_byte_fits(matched, byte) {
            return fail(ResponseErrorKind::StatusLineSyntax);
        }
        if matched == 5 {
            self.major = byte;
        }
        self.state = LineState::Version(matched + 1);
        if matched + 1 == VERSION_LEN {
            let version = match (self.major, byte) {
                (b'1', b'1') => Version::Http11,
                (b'1', b'0') => Version::Http10,
                _ => return fail(ResponseErrorKind::VersionUnsupported),
            };
            self.state = LineState::SpaceBeforeCode(version);
        }
        Ok(())
    }

    /// One of the three digits of the status code; the last one checks its range.
    fn code_byte(
        &mut self,
        read: usize,
        version: Version,
        byte: u8,
        at: usize,
    ) -> Result<(), ResponseError> {
        let fail = |kind| Err(ResponseError::new(kind, at));
        if !byte.is_ascii_digit() {
            return fail(ResponseErrorKind::StatusLineSyntax);
        }
        self.status = self.status * 10 + u16::from(byte - b'0');
        if read + 1 < 3 {
            self.state = LineState::Code(read + 1, version);
        } else if (100..=599).contains(&self.status) {
            self.state = LineState::SpaceBeforeReason(version);
        } else {
            return fail(ResponseErrorKind::StatusCodeInvalid);
        }
        Ok(())
    }

    /// A byte of the reason phrase, within its budget, or the CR that ends it.
    fn reason_byte(&mut self, version: Version, byte: u8, at: usize) -> Result<(), ResponseError> {
        let fail = |kind| Err(ResponseError::new(kind, at));
        match byte {
            b'\r' => {
                self.reason_end = at;
                self.state = LineState::LineCr(version);
            }
            b'\n' => return fail(ResponseErrorKind::Head(HeadErrorKind::BareLf)),
            _ if chars::is(byte, FIELD_VALUE) => {
                if at - self.reason_start >= self.reason_bytes_max {
                    let limit = self.reason_bytes_max;
                    return fail(ResponseErrorKind::ReasonTooLong { limit });
                }
            }
            _ => return fail(ResponseErrorKind::StatusLineSyntax),
        }
        Ok(())
    }

    /// Applies the framing rules to a complete head (once): the length of head and body (of
    /// the head alone for a chunked body), and the framing.
    fn framed_total(
        &self,
        buf: &[u8],
        head_len: usize,
        version: Version,
    ) -> Result<(usize, ResponseFraming), ResponseError> {
        let fields = self.fields.list(&buf[..head_len]);
        let (body_len, framing) = match self.body_length(&fields, head_len, version)? {
            BodyLength::Bytes(n) => (n, ResponseFraming::Length),
            BodyLength::Chunked => (0, ResponseFraming::Chunked),
        };
        let limit = self.response_bytes_max;
        let total = u64::try_from(head_len).ok().and_then(|h| h.checked_add(body_len));
        let total = total.and_then(|t| usize::try_from(t).ok()).filter(|&t| t <= limit);
        let total = total
            .ok_or(ResponseError::new(ResponseErrorKind::ResponseTooLarge { limit }, head_len));
        Ok((total?, framing))
    }

    /// The complete response in `buf[..total]`.
    fn response<'b>(
        &'b self,
        buf: &'b [u8],
        head_len: usize,
        version: Version,
        total: usize,
        framing: ResponseFraming,
    ) -> Response<'b> {
        let head = &buf[..head_len];
        let fields = self.fields.list(head);
        let mut connection = ConnectionOptions::default();
        let keep_alive =
            fields.all("connection").all(|v| connection.read(v)) && connection.keep_alive(version);
        Response {
            version,
            status: self.status,
            reason: &head[self.reason_start..self.reason_end],
            fields,
            framing,
            body: &buf[head_len..total],
            keep_alive,
        }
    }

    /// The body the head announces, or why the framing is refused. Errors point at the end of
    /// the head, where they are decided.
    fn body_length(
        &self,
        fields: &FieldList<'_>,
        head_len: usize,
        version: Version,
    ) -> Result<BodyLength, ResponseError> {
        let fail = |kind| Err(ResponseError::new(kind, head_len));
        // 1xx and 204 never carry Content-Length (RFC 9110 §8.6); 304 and any response to HEAD
        // may, naming the length of the representation they stand for, but carry no content.
        let length_forbidden = self.status < 200 || self.status == 204;
        let announced_only = self.status == 304 || self.answers_head;
        let content_length = fields.single("content-length");
        let carries_content = !(length_forbidden || announced_only);
        let shape = TeShape { version, content_length, carries_content };
        match shape.verdict(fields.single("transfer-encoding")) {
            Ok(Some(body)) => return Ok(body),
            Ok(None) => {}
            Err(kind) => return fail(kind),
        }
        let length = match content_length {
            Occurrence::Absent if length_forbidden || announced_only => {
                return Ok(BodyLength::Bytes(0));
            }
            Occurrence::Absent => return fail(ResponseErrorKind::ContentLengthMissing),
            _ if length_forbidden => return fail(ResponseErrorKind::ContentForbidden),
            Occurrence::Repeated => return fail(ResponseErrorKind::ContentLengthDuplicate),
            Occurrence::Once(value) => decimal::parse(value),
        };
        match length {
            Decimal::NotDigits => fail(ResponseErrorKind::ContentLengthInvalid),
            _ if announced_only => Ok(BodyLength::Bytes(0)),
            Decimal::Value(n) => Ok(BodyLength::Bytes(n)),
            Decimal::Overflow => {
                fail(ResponseErrorKind::ResponseTooLarge { limit: self.response_bytes_max })
            }
        }
    }
}

/// What the Transfer-Encoding verdict of a response depends on besides the field itself.
struct TeShape<'b> {
    version: Version,
    content_length: Occurrence<'b>,
    /// Not 1xx, 204, 304 or the answer to HEAD.
    carries_content: bool,
}

impl TeShape<'_> {
    /// Nothing without a Transfer-Encoding; a chunked body for `Transfer-Encoding: chunked`
    /// alone; or why any other shape is refused, in the order of the module docs.
    fn verdict(
        &self,
        transfer_encoding: Occurrence<'_>,
    ) -> Result<Option<BodyLength>, ResponseErrorKind> {
        use ResponseErrorKind as K;
        let value = match transfer_encoding {
            Occurrence::Absent => return Ok(None),
            Occurrence::Once(value) => Some(value),
            Occurrence::Repeated => None,
        };
        if self.version == Version::Http10 {
            return Err(K::TransferEncodingOnHttp10);
        }
        match self.content_length {
            Occurrence::Absent => {}
            Occurrence::Once(_) | Occurrence::Repeated => {
                return Err(K::TransferEncodingWithContentLength);
            }
        }
        let Some(value) = value else {
            return Err(K::TransferEncodingDuplicate);
        };
        if !self.carries_content {
            return Err(K::TransferEncodingWithoutContent);
        }
        codings(value).map(|()| Some(BodyLength::Chunked))
    }
}

/// `Transfer-Encoding = #transfer-coding`, read strictly: every element a bare token, no empty
/// elements, chunked only as the final coding, and here only alone.
fn codings(value: &[u8]) -> Result<(), ResponseErrorKind> {
    let mut codings = 0usize;
    let mut chunked_before_last = false;
    let mut last_is_chunked = false;
    for coding in value.split(|&b| b == b',').map(chars::trim_ows) {
        if !chars::is_token(coding) {
            return Err(ResponseErrorKind::TransferEncodingInvalid);
        }
        codings += 1;
        chunked_before_last |= last_is_chunked;
        last_is_chunked = coding.eq_ignore_ascii_case(b"chunked");
    }
    match (chunked_before_last, last_is_chunked) {
        (true, _) => Err(ResponseErrorKind::TransferEncodingInvalid),
        (false, true) if codings == 1 => Ok(()),
        (false, true) => Err(ResponseErrorKind::TransferEncodingLayered),
        (false, false) => Err(ResponseErrorKind::TransferEncodingUnsupported),
    }
}
