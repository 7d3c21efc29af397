//! The HTTP/1.1 request head parser: bytes in, "need more" or "complete at offset N" out.
//!
//! Sans-IO: [`RequestParser::parse`] is called with everything received so far for one request
//! (the same prefix, growing), and it scans only the bytes it has not seen before, so a head
//! that arrives one byte per read costs linear, not quadratic, time. It never reads a socket and
//! never copies a byte: the parsed head borrows from the caller's buffer. Its only allocations
//! are two lists of field lines (the spans, sized from the field budget when the parser is made,
//! and the head's field list when it completes), so no input makes it allocate past the budget.
//!
//! # How a verdict is reached
//!
//! Bytes are read left to right, and the parser stops at the first byte that proves the request
//! invalid: a byte that cannot appear where it stands (a first byte that is not a token byte, a
//! control byte, DEL or non-ASCII byte in the request line, a bare CR or LF: 400), or a budget
//! crossed by that byte (414, 431, and 501 for an over-long method). Checks that need a whole
//! element run when it ends, in this order:
//!
//! 1. at the end of the request line: the version (505 if well-formed but not 1.0/1.1), then the
//!    target form (`http::target`, 400; `*` only for OPTIONS), then the method (a visible byte that is not a token
//!    byte: 400; a token this server does not know: 501);
//! 2. at the end of the head: Host, Transfer-Encoding, Content-Length, the body budget (413),
//!    Expect (417), Connection (`http::framing`); a chunked body is accepted only by a parser made
//!    [`RequestParser::with_codings`] that allow it.
//!
//! Because the verdict depends only on the bytes and never on how they were split into reads,
//! feeding a request in one piece or one byte at a time gives the same answer; the tests and the
//! `http_parser` fuzz target check exactly that.
//!
//! The body is not this module's business: the head reports how it is framed (a length, or the
//! chunked coding that `http::chunked` decodes), and the caller reads exactly that.

use super::chars::{self, TCHAR, VCHAR};
use super::error::{HeadErrorKind, RequestError, RequestErrorKind};
use super::fields::{FieldBudget, FieldList, FieldScanner};
use super::framing::{self, BodyFraming, Framing, TransferCodings};
use super::target;
use super::vocab::{Method, Parsed, VERSION_LEN, Version, version_byte_fits};
use crate::limits::Limits;

/// A complete, valid request head, borrowing from the buffer it was parsed from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestHead<'b> {
    pub method: Method,
    /// The path, exactly as sent (never decoded or normalized).
    pub target: &'b str,
    pub version: Version,
    /// Every field line in order; names as sent, values with surrounding whitespace removed.
    pub fields: FieldList<'b>,
    /// How the body is delimited: its Content-Length (0 when there is none), or chunked.
    pub body: BodyFraming,
    /// The client sent `Expect: 100-continue` (HTTP/1.1 only).
    pub expect_continue: bool,
    /// The connection may carry another request after this one.
    pub keep_alive: bool,
}

/// Where the request-line scan is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineState {
    /// Before the method, where an empty line may still be skipped.
    Start,
    /// After the CR of an empty line.
    LeadingCr,
    Method,
    Target,
    /// Inside the version; the payload counts the bytes already matched (8 once complete, when
    /// only the CR may follow).
    Version(usize),
    /// After the version's CR.
    LineCr,
    /// The request line is done and passed every check; the header section is being scanned.
    Fields(RequestLine),
}

/// A request line that passed every check: what a head view needs of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RequestLine {
    method: Method,
    version: Version,
    /// The target's bytes: `target_start..target_end`.
    target_start: usize,
    target_end: usize,
}

/// A head whose empty line has arrived: its length and its checked request line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HeadEnd {
    len: usize,
    line: RequestLine,
}

/// A head the parser accepted: everything needed to view it again over the same buffer, which
/// only the parser can make. Holding one is the proof that the head passed every check, so a
/// view never has to guess.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accepted {
    end: HeadEnd,
    framing: Framing,
}

impl Accepted {
    /// The head's length in bytes: where its body starts.
    pub fn head_len(&self) -> usize {
        self.end.len
    }

    /// How the body is delimited (a length is always within the body budget).
    pub fn body(&self) -> BodyFraming {
        self.framing.body
    }

    /// The method of the request line.
    pub fn method(&self) -> Method {
        self.end.line.method
    }

    /// The client sent `Expect: 100-continue` (HTTP/1.1 only).
    pub fn expect_continue(&self) -> bool {
        self.framing.expect_continue
    }

    /// The head allows another request after this one.
    pub fn keep_alive(&self) -> bool {
        self.framing.keep_alive
    }
}

/// The budgets the head parser reads from [`Limits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HeadBudget {
    leading_empty_lines_max: usize,
    method_bytes_max: usize,
    target_bytes_max: usize,
    body_bytes_max: usize,
    codings: TransferCodings,
    fields: FieldBudget,
}

/// An incremental parser for one request head. Call [`RequestParser::reset`] before the next
/// request on the same connection.
#[derive(Clone, Debug)]
pub struct RequestParser {
    budget: HeadBudget,
    state: LineState,
    pos: usize,
    leading_empty_lines: usize,
    method_start: usize,
    target_start: usize,
    version_start: usize,
    /// The method holds a visible byte that is not a token byte.
    method_not_token: bool,
    /// The method's token has ended (its space arrived), whatever is decided about the line.
    method_ended: bool,
    fields: FieldScanner,
    /// Set once the byte scan reached a verdict: the head's end, or the error.
    outcome: Option<Result<HeadEnd, RequestError>>,
    /// The whole-head checks' result, kept so a second `parse` of the same head (after its body
    /// arrived) does not run them again.
    accepted: Option<Accepted>,
}

impl RequestParser {
    /// A parser enforcing the head budgets of `limits`, accepting `Content-Length` bodies only.
    pub fn new(limits: &Limits) -> Self {
        RequestParser::with_codings(limits, TransferCodings::LengthOnly)
    }

    /// A parser enforcing the head budgets of `limits` that also accepts the transfer codings
    /// `codings` allows.
    pub fn with_codings(limits: &Limits, codings: TransferCodings) -> Self {
        let fields = FieldBudget::from_limits(limits);
        RequestParser {
            budget: HeadBudget {
                leading_empty_lines_max: limits.leading_empty_lines_max,
                method_bytes_max: limits.method_bytes_max,
                target_bytes_max: limits.request_target_bytes_max,
                body_bytes_max: limits.request_body_bytes_max,
                codings,
                fields,
            },
            state: LineState::Start,
            pos: 0,
            leading_empty_lines: 0,
            method_start: 0,
            target_start: 0,
            version_start: 0,
            method_not_token: false,
            method_ended: false,
            fields: FieldScanner::new(fields),
            outcome: None,
            accepted: None,
        }
    }

    /// Makes the parser ready for the next request, keeping its allocation.
    pub fn reset(&mut self) {
        self.state = LineState::Start;
        self.pos = 0;
        self.leading_empty_lines = 0;
        self.method_not_token = false;
        self.method_ended = false;
        self.fields.reset();
        self.outcome = None;
        self.accepted = None;
    }

    /// Parses the bytes received so far for this request.
    ///
    /// `buf` must start at the request's first byte and extend the buffer of the previous call
    /// (the bytes already scanned are not looked at again). Returns [`Parsed::Partial`] while the
    /// head is incomplete, or the head and its length in bytes (the body, if any, starts there).
    /// Once a verdict is reached, later calls repeat it.
    ///
    /// # Panics
    ///
    /// When `buf` is shorter than a previous call's buffer: that is a caller bug, never input.
    pub fn parse<'b>(&'b mut self, buf: &'b [u8]) -> Result<Parsed<RequestHead<'b>>, RequestError> {
        match self.judge(buf)? {
            Parsed::Partial => Ok(Parsed::Partial),
            Parsed::Complete { value: accepted, len } => {
                Ok(Parsed::Complete { value: self.view(buf, &accepted), len })
            }
        }
    }

    /// [`RequestParser::parse`] without building the head: the [`Accepted`] token a caller views
    /// it with later ([`RequestParser::view`]), as often as it likes, at no cost.
    pub fn judge(&mut self, buf: &[u8]) -> Result<Parsed<Accepted>, RequestError> {
        if let Some(accepted) = self.accepted {
            return Ok(Parsed::Complete { value: accepted, len: accepted.end.len });
        }
        let Some(end) = self.feed(buf)? else {
            return Ok(Parsed::Partial);
        };
        let accepted = self.judge_head(buf, end)?;
        Ok(Parsed::Complete { value: accepted, len: end.len })
    }

    /// The method this request names, once its token has ended, even when the request is refused
    /// later: a response to HEAD must carry no content, errors included. `buf` is the buffer of
    /// the last call.
    pub fn method(&self, buf: &[u8]) -> Option<Method> {
        if let LineState::Fields(line) = self.state {
            return Some(line.method); // the line was checked: its method is known
        }
        if !self.method_ended {
            return None;
        }
        Method::from_token(buf.get(self.method_start..self.target_start - 1)?)
    }

    /// The head `accepted` stands for, viewed over `buf` (the buffer it was parsed from, which
    /// may have grown since: a body arrived). Nothing is scanned or checked again, and nothing
    /// is allocated.
    ///
    /// # Panics
    ///
    /// When `buf` is shorter than the head: the token belongs to another buffer, a caller bug.
    pub fn view<'b>(&'b self, buf: &'b [u8], accepted: &Accepted) -> RequestHead<'b> {
        let (end, framing) = (accepted.end, accepted.framing);
        let head = &buf[..end.len];
        RequestHead {
            method: end.line.method,
            target: chars::ascii_str(&head[end.line.target_start..end.line.target_end]),
            version: end.line.version,
            fields: self.fields.list(head),
            body: framing.body,
            expect_continue: framing.expect_continue,
            keep_alive: framing.keep_alive,
        }
    }

    /// The byte-level half of [`RequestParser::parse`]: scans the new bytes and answers the head's
    /// end once its empty line has arrived, without running the checks that need it whole.
    fn feed(&mut self, buf: &[u8]) -> Result<Option<HeadEnd>, RequestError> {
        assert!(buf.len() >= self.pos, "RequestParser::parse called with a shrunken buffer");
        let outcome = match self.outcome {
            Some(outcome) => outcome,
            None => match self.scan(buf) {
                Ok(None) => return Ok(None),
                Ok(Some(end)) => Ok(end),
                Err(e) => Err(e),
            },
        };
        self.outcome = Some(outcome);
        outcome.map(Some)
    }

    /// Runs the byte scanners; the head's end once the empty line ending it was read.
    fn scan(&mut self, buf: &[u8]) -> Result<Option<HeadEnd>, RequestError> {
        let line = loop {
            if let LineState::Fields(line) = self.state {
                break line;
            }
            let Some(&byte) = buf.get(self.pos) else {
                return Ok(None);
            };
            let at = self.pos;
            self.pos += 1;
            self.line_step(buf, byte, at)?;
        };
        let end = self.fields.scan(buf, &mut self.pos)?;
        Ok(end.map(|len| HeadEnd { len, line }))
    }

    /// Consumes one byte of the (possibly preceded by empty lines) request line, by the grammar's
    /// stage: before the method, its token, the target, the version, the line's end.
    fn line_step(&mut self, buf: &[u8], byte: u8, at: usize) -> Result<(), RequestError> {
        match self.state {
            LineState::Start => self.start_byte(byte, at),
            LineState::LeadingCr => self.leading_lf(byte, at),
            LineState::Method => self.method_byte(byte, at),
            LineState::Target => self.target_byte(byte, at),
            LineState::Version(matched) => self.version_byte(matched, byte, at),
            LineState::LineCr => {
                if byte != b'\n' {
                    return Err(bare(HeadErrorKind::BareCr, at));
                }
                self.state = LineState::Fields(self.check_request_line(buf)?);
                Ok(())
            }
            // `scan` stops calling this once the line is done.
            LineState::Fields(_) => Ok(()),
        }
    }

    /// Before the method: an empty line (its CR), or the method's first byte.
    fn start_byte(&mut self, byte: u8, at: usize) -> Result<(), RequestError> {
        match byte {
            b'\r' => self.state = LineState::LeadingCr,
            b'\n' => return Err(bare(HeadErrorKind::BareLf, at)),
            _ if chars::is(byte, TCHAR) => {
                self.method_start = at;
                self.state = LineState::Method;
            }
            _ => return Err(RequestError::new(RequestErrorKind::RequestLineStart, at)),
        }
        Ok(())
    }

    /// The LF of an empty line before the request line, within its budget.
    fn leading_lf(&mut self, byte: u8, at: usize) -> Result<(), RequestError> {
        if byte != b'\n' {
            return Err(bare(HeadErrorKind::BareCr, at));
        }
        self.leading_empty_lines += 1;
        if self.leading_empty_lines > self.budget.leading_empty_lines_max {
            let limit = self.budget.leading_empty_lines_max;
            return Err(RequestError::new(RequestErrorKind::LeadingEmptyLines { limit }, at));
        }
        self.state = LineState::Start;
        Ok(())
    }

    /// A byte of the method, or the space that ends it.
    fn method_byte(&mut self, byte: u8, at: usize) -> Result<(), RequestError> {
        let fail = |kind| Err(RequestError::new(kind, at));
        match byte {
            b' ' => {
                self.method_ended = true;
                self.target_start = at + 1;
                self.state = LineState::Target;
            }
            _ if chars::is(byte, VCHAR) => {
                if at - self.method_start >= self.budget.method_bytes_max {
                    let limit = self.budget.method_bytes_max;
                    return fail(RequestErrorKind::MethodTooLong { limit });
                }
                // A visible byte that is not a token byte is judged with the method, after the
                // version and the target (step 1 of the order in the module docs).
                self.method_not_token |= !chars::is(byte, TCHAR);
            }
            b'\r' => return fail(RequestErrorKind::TargetMissing),
            b'\n' => return Err(bare(HeadErrorKind::BareLf, at)),
            _ => return fail(RequestErrorKind::MethodByte),
        }
        Ok(())
    }

    /// A byte of the target, or the space that ends it.
    fn target_byte(&mut self, byte: u8, at: usize) -> Result<(), RequestError> {
        let fail = |kind| Err(RequestError::new(kind, at));
        let empty = at == self.target_start;
        match byte {
            b' ' if empty => return fail(RequestErrorKind::TargetMissing),
            b' ' => {
                self.version_start = at + 1;
                self.state = LineState::Version(0);
            }
            _ if chars::is(byte, VCHAR) => {
                if at - self.target_start >= self.budget.target_bytes_max {
                    let limit = self.budget.target_bytes_max;
                    return fail(RequestErrorKind::TargetTooLong { limit });
                }
            }
            b'\n' => return Err(bare(HeadErrorKind::BareLf, at)),
            b'\r' if empty => return fail(RequestErrorKind::TargetMissing),
            // "GET /path\r\n": an HTTP/0.9-style line with no version.
            b'\r' => return fail(RequestErrorKind::VersionSyntax),
            _ => return fail(RequestErrorKind::TargetByte),
        }
        Ok(())
    }

    /// A byte of `HTTP/x.y`, or the CR after it.
    fn version_byte(&mut self, matched: usize, byte: u8, at: usize) -> Result<(), RequestError> {
        let syntax = RequestError::new(RequestErrorKind::VersionSyntax, at);
        if matched < VERSION_LEN {
            if !version_byte_fits(matched, byte) {
                return Err(syntax);
            }
            self.state = LineState::Version(matched + 1);
            return Ok(());
        }
        match byte {
            b'\r' => self.state = LineState::LineCr,
            b'\n' => return Err(bare(HeadErrorKind::BareLf, at)),
            _ => return Err(syntax),
        }
        Ok(())
    }

    /// The whole-line checks, in precedence order: version, target form, method.
    fn check_request_line(&self, buf: &[u8]) -> Result<RequestLine, RequestError> {
        let version = &buf[self.version_start..self.version_start + VERSION_LEN];
        let version = match version {
            b"HTTP/1.1" => Version::Http11,
            b"HTTP/1.0" => Version::Http10,
            _ => {
                let kind = RequestErrorKind::VersionUnsupported;
                return Err(RequestError::new(kind, self.version_start));
            }
        };
        let target_end = self.version_start - 1;
        let target = &buf[self.target_start..target_end];
        let method = &buf[self.method_start..self.target_start - 1];
        // Asterisk-form names the server itself, for OPTIONS only (RFC 9112 §3.2.4).
        if !(target == b"*" && method == b"OPTIONS") {
            target::check(target)
                .map_err(|(kind, offset)| RequestError::new(kind, self.target_start + offset))?;
        }
        if self.method_not_token {
            return Err(RequestError::new(RequestErrorKind::MethodNotToken, self.method_start));
        }
        let method = Method::from_token(method)
            .ok_or(RequestError::new(RequestErrorKind::MethodUnknown, self.method_start))?;
        Ok(RequestLine { method, version, target_start: self.target_start, target_end })
    }

    /// The whole-head checks (Host, framing, Expect, Connection), run once per head: a refusal
    /// becomes the parser's verdict, and an acceptance is kept for later views.
    fn judge_head(&mut self, buf: &[u8], end: HeadEnd) -> Result<Accepted, RequestError> {
        let head = &buf[..end.len];
        let fields = self.fields.fields();
        let (version, budget) = (end.line.version, &self.budget);
        match framing::check(head, fields, version, budget.body_bytes_max, budget.codings) {
            Ok(framing) => {
                let accepted = Accepted { end, framing };
                self.accepted = Some(accepted);
                Ok(accepted)
            }
            Err(error) => {
                self.outcome = Some(Err(error));
                Err(error)
            }
        }
    }
}

/// A bare CR or LF at `at`.
fn bare(kind: HeadErrorKind, at: usize) -> RequestError {
    RequestError::new(RequestErrorKind::Head(kind), at)
}
