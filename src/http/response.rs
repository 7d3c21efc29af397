//! The client's strict response parser: status line, header section, Content-Length body.
//!
//! Like the request parser it is incremental and sans-IO: [`ResponseParser::parse`] takes every
//! byte received so far for one response and answers "need more" or "complete, `len` bytes". It
//! completes only once the whole body is present, and refuses a response whose head plus
//! announced body would exceed the response budget before a single body byte is read.
//!
//! Grammar: `HTTP-version SP 3DIGIT SP [ reason-phrase ] CRLF`, then the same field-line rules as
//! requests (CRLF only, token names, no whitespace before the colon, no folding, no control
//! bytes). Framing rules: no Transfer-Encoding (this client does not read chunked bodies), exactly
//! one valid Content-Length unless the status never carries content: none at all on 1xx and 204,
//! and on 304 at most one valid one, which describes a representation that is not sent. A parser
//! made with [`ResponseParser::for_head`] reads the response to a HEAD request, which ends after
//! its head whatever it announces (RFC 9112 §6.3): at most one valid Content-Length, no content.
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
    /// Exactly Content-Length bytes (empty for 1xx, 204 and 304).
    pub body: &'b [u8],
    /// The server left the connection open for another request.
    pub keep_alive: bool,
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
    /// Head and body length, once the framing of a complete head was judged.
    total: Option<usize>,
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
        let total = match self.total {
            Some(total) => total,
            None => match self.framed_total(buf, head_len) {
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
        let response = self.response(buf, head_len, version, total);
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

    /// Applies the framing rules to a complete head (once): the length of head and body.
    fn framed_total(&self, buf: &[u8], head_len: usize) -> Result<usize, ResponseError> {
        let fields = self.fields.list(&buf[..head_len]);
        let body_len = self.body_length(&fields, head_len)?;
        let limit = self.response_bytes_max;
        let total = u64::try_from(head_len).ok().and_then(|h| h.checked_add(body_len));
        let total = total.and_then(|t| usize::try_from(t).ok()).filter(|&t| t <= limit);
        total.ok_or(ResponseError::new(ResponseErrorKind::ResponseTooLarge { limit }, head_len))
    }

    /// The complete response in `buf[..total]`.
    fn response<'b>(
        &'b self,
        buf: &'b [u8],
        head_len: usize,
        version: Version,
        total: usize,
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
            body: &buf[head_len..total],
            keep_alive,
        }
    }

    /// The body length the head announces, or why the framing is refused. Errors point at the
    /// end of the head, where they are decided.
    fn body_length(&self, fields: &FieldList<'_>, head_len: usize) -> Result<u64, ResponseError> {
        let fail = |kind| Err(ResponseError::new(kind, head_len));
        if fields.get("transfer-encoding").is_some() {
            return fail(ResponseErrorKind::TransferEncodingUnsupported);
        }
        // 1xx and 204 never carry Content-Length (RFC 9110 §8.6); 304 and any response to HEAD
        // may, naming the length of the representation they stand for, but carry no content.
        let length_forbidden = self.status < 200 || self.status == 204;
        let announced_only = self.status == 304 || self.answers_head;
        let length = match fields.single("content-length") {
            Occurrence::Absent if length_forbidden || announced_only => return Ok(0),
            Occurrence::Absent => return fail(ResponseErrorKind::ContentLengthMissing),
            _ if length_forbidden => return fail(ResponseErrorKind::ContentForbidden),
            Occurrence::Repeated => return fail(ResponseErrorKind::ContentLengthDuplicate),
            Occurrence::Once(value) => decimal::parse(value),
        };
        match length {
            Decimal::NotDigits => fail(ResponseErrorKind::ContentLengthInvalid),
            _ if announced_only => Ok(0),
            Decimal::Value(n) => Ok(n),
            Decimal::Overflow => {
                fail(ResponseErrorKind::ResponseTooLarge { limit: self.response_bytes_max })
            }
        }
    }
}
