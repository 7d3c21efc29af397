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
//!    Expect (417), Connection (`http::framing`).
//!
//! Because the verdict depends only on the bytes and never on how they were split into reads,
//! feeding a request in one piece or one byte at a time gives the same answer; the tests and the
//! `http_parser` fuzz target check exactly that.
//!
//! The body is not this module's business: the head reports its `Content-Length`, and the caller
//! reads exactly that many bytes.

use super::chars::{self, TCHAR, VCHAR};
use super::error::{HeadErrorKind, RequestError, RequestErrorKind};
use super::fields::{FieldBudget, FieldList, FieldScanner};
use super::framing::{self, Framing};
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
    /// The body length: the Content-Length, or 0 when there is none.
    pub content_length: u64,
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
    /// The request line is done and valid; the header section is being scanned.
    Fields,
}

/// The budgets the head parser reads from [`Limits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HeadBudget {
    leading_empty_lines_max: usize,
    method_bytes_max: usize,
    target_bytes_max: usize,
    body_bytes_max: usize,
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
    /// The method and version, once the request line passed every check.
    line: Option<(Method, Version)>,
    fields: FieldScanner,
    /// Set once a verdict is reached: `Ok(head length)` or the error.
    outcome: Option<Result<usize, RequestError>>,
    /// The whole-head checks' result, kept so a second `parse` of the same head (after its body
    /// arrived) does not run them again.
    framing: Option<Framing>,
}

impl RequestParser {
    /// A parser enforcing the head budgets of `limits`.
    pub fn new(limits: &Limits) -> Self {
        let fields = FieldBudget::from_limits(limits);
        RequestParser {
            budget: HeadBudget {
                leading_empty_lines_max: limits.leading_empty_lines_max,
                method_bytes_max: limits.method_bytes_max,
                target_bytes_max: limits.request_target_bytes_max,
                body_bytes_max: limits.request_body_bytes_max,
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
            line: None,
            fields: FieldScanner::new(fields),
            outcome: None,
            framing: None,
        }
    }

    /// Makes the parser ready for the next request, keeping its allocation.
    pub fn reset(&mut self) {
        self.state = LineState::Start;
        self.pos = 0;
        self.leading_empty_lines = 0;
        self.method_not_token = false;
        self.method_ended = false;
        self.line = None;
        self.fields.reset();
        self.outcome = None;
        self.framing = None;
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
        let Some(len) = self.feed(buf)? else {
            return Ok(Parsed::Partial);
        };
        let framing = self.judge_head(buf, len)?;
        Ok(Parsed::Complete { value: self.view(buf, len, framing), len })
    }

    /// The verdict reached so far: the head's length once its empty line arrived (before or after
    /// the whole-head checks), or the refusal; `None` while more bytes are needed.
    pub fn verdict(&self) -> Option<Result<usize, RequestError>> {
        self.outcome
    }

    /// The method this request names, once its token has ended, even when the request is refused
    /// later: a response to HEAD must carry no content, errors included. `buf` is the buffer of
    /// the last call.
    pub fn method(&self, buf: &[u8]) -> Option<Method> {
        if let Some((method, _)) = self.line {
            return Some(method); // the line was checked: its method is known
        }
        if !self.method_ended {
            return None;
        }
        Method::from_token(buf.get(self.method_start..self.target_start - 1)?)
    }

    /// The length of the accepted head (where its body starts); `None` before that, or after a
    /// refusal.
    pub fn head_len(&self) -> Option<usize> {
        match (self.outcome, self.framing) {
            (Some(Ok(len)), Some(_)) => Some(len),
            _ => None,
        }
    }

    /// The head [`RequestParser::parse`] accepted, viewed again over the same buffer (which may
    /// have grown since: a body arrived). Nothing is scanned or checked again, and nothing is
    /// allocated. `None` until a head was accepted, and after a refusal.
    pub fn head<'b>(&'b self, buf: &'b [u8]) -> Option<RequestHead<'b>> {
        match (self.outcome, self.framing) {
            (Some(Ok(len)), Some(framing)) if buf.len() >= len => {
                Some(self.view(buf, len, framing))
            }
            _ => None,
        }
    }

    /// The byte-level half of [`RequestParser::parse`]: scans the new bytes and answers the head's
    /// length once its empty line has arrived, without building the head or running the checks
    /// that need it whole (Host, framing, Expect, Connection). A reader calls this after each read
    /// and `parse` once, when it has the head.
    ///
    /// # Panics
    ///
    /// When `buf` is shorter than a previous call's buffer: that is a caller bug, never input.
    pub fn feed(&mut self, buf: &[u8]) -> Result<Option<usize>, RequestError> {
        assert!(buf.len() >= self.pos, "RequestParser::parse called with a shrunken buffer");
        let outcome = match self.outcome {
            Some(outcome) => outcome,
            None => match self.scan(buf) {
                Ok(None) => return Ok(None),
                Ok(Some(len)) => Ok(len),
                Err(e) => Err(e),
            },
        };
        self.outcome = Some(outcome);
        outcome.map(Some)
    }

    /// Runs the byte scanners; `Some(len)` when the empty line ending the head was read.
    fn scan(&mut self, buf: &[u8]) -> Result<Option<usize>, RequestError> {
        while self.state != LineState::Fields {
            let Some(&byte) = buf.get(self.pos) else {
                return Ok(None);
            };
            let at = self.pos;
            self.pos += 1;
            self.line_step(byte, at)?;
            if self.state == LineState::Fields {
                self.check_request_line(buf)?;
            }
        }
        Ok(self.fields.scan(buf, &mut self.pos)?)
    }

    /// Consumes one byte of the (possibly preceded by empty lines) request line.
    fn line_step(&mut self, byte: u8, at: usize) -> Result<(), RequestError> {
        let fail = |kind| Err(RequestError::new(kind, at));
        let bare_cr = RequestErrorKind::Head(HeadErrorKind::BareCr);
        let bare_lf = RequestErrorKind::Head(HeadErrorKind::BareLf);
        match self.state {
            LineState::Start => match byte {
                b'\r' => self.state = LineState::LeadingCr,
                b'\n' => return fail(bare_lf),
                _ if chars::is(byte, TCHAR) => {
                    self.method_start = at;
                    self.state = LineState::Method;
                }
                _ => return fail(RequestErrorKind::RequestLineStart),
            },
            LineState::LeadingCr => {
                if byte != b'\n' {
                    return fail(bare_cr);
                }
                self.leading_empty_lines += 1;
                if self.leading_empty_lines > self.budget.leading_empty_lines_max {
                    let limit = self.budget.leading_empty_lines_max;
                    return fail(RequestErrorKind::LeadingEmptyLines { limit });
                }
                self.state = LineState::Start;
            }
            LineState::Method => match byte {
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
                    // A visible byte that is not a token byte is judged with the method, after
                    // the version and the target (step 1 of the order in the module docs).
                    self.method_not_token |= !chars::is(byte, TCHAR);
                }
                b'\r' => return fail(RequestErrorKind::TargetMissing),
                b'\n' => return fail(bare_lf),
                _ => return fail(RequestErrorKind::MethodByte),
            },
            LineState::Target => match byte {
                b' ' if at == self.target_start => return fail(RequestErrorKind::TargetMissing),
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
                b'\n' => return fail(bare_lf),
                b'\r' if at == self.target_start => return fail(RequestErrorKind::TargetMissing),
                // "GET /path\r\n": an HTTP/0.9-style line with no version.
                b'\r' => return fail(RequestErrorKind::VersionSyntax),
                _ => return fail(RequestErrorKind::TargetByte),
            },
            LineState::Version(matched) if matched < VERSION_LEN => {
                if !version_byte_fits(matched, byte) {
                    return fail(RequestErrorKind::VersionSyntax);
                }
                self.state = LineState::Version(matched + 1);
            }
            LineState::Version(_) => match byte {
                b'\r' => self.state = LineState::LineCr,
                b'\n' => return fail(bare_lf),
                _ => return fail(RequestErrorKind::VersionSyntax),
            },
            LineState::LineCr => {
                if byte != b'\n' {
                    return fail(bare_cr);
                }
                self.state = LineState::Fields;
            }
            // `scan` stops calling this once the line is done; in a release build the byte would
            // be left to the field scanner, which is where it belongs.
            LineState::Fields => debug_assert!(false, "line_step called after the request line"),
        }
        Ok(())
    }

    /// The whole-line checks, in precedence order: version, target form, method.
    fn check_request_line(&mut self, buf: &[u8]) -> Result<(), RequestError> {
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
        // Asterisk-form names the server itself, for OPTIONS only (RFC 9112 §3.2.4).
        let asterisk =
            target == b"*" && &buf[self.method_start..self.target_start - 1] == b"OPTIONS";
        if !asterisk {
            target::check(target)
                .map_err(|(kind, offset)| RequestError::new(kind, self.target_start + offset))?;
        }
        if self.method_not_token {
            return Err(RequestError::new(RequestErrorKind::MethodNotToken, self.method_start));
        }
        let method = &buf[self.method_start..self.target_start - 1];
        let method = Method::from_token(method)
            .ok_or(RequestError::new(RequestErrorKind::MethodUnknown, self.method_start))?;
        self.line = Some((method, version));
        Ok(())
    }

    /// The whole-head checks (Host, framing, Expect, Connection), run once per head: a refusal
    /// becomes the parser's verdict, and an acceptance is kept for later views.
    fn judge_head(&mut self, buf: &[u8], len: usize) -> Result<Framing, RequestError> {
        if let Some(framing) = self.framing {
            return Ok(framing);
        }
        let Some((_, version)) = self.line else {
            // `feed` reports a head only after `check_request_line` set the version. Were that
            // ever broken, a release build refuses the request rather than guess at its line.
            debug_assert!(false, "a complete head without a checked request line");
            let error = RequestError::new(RequestErrorKind::VersionSyntax, 0);
            self.outcome = Some(Err(error));
            return Err(error);
        };
        let head = &buf[..len];
        match framing::check(head, self.fields.fields(), version, self.budget.body_bytes_max) {
            Ok(framing) => {
                self.framing = Some(framing);
                Ok(framing)
            }
            Err(error) => {
                self.outcome = Some(Err(error));
                Err(error)
            }
        }
    }

    /// The accepted head as a view over `buf`: borrowed text and the recorded field spans.
    fn view<'b>(&'b self, buf: &'b [u8], len: usize, framing: Framing) -> RequestHead<'b> {
        let head = &buf[..len];
        // The line is checked before a head can be accepted (see `judge_head`).
        debug_assert!(self.line.is_some(), "a head view without a checked request line");
        let (method, version) = self.line.unwrap_or((Method::Get, Version::Http11));
        RequestHead {
            method,
            target: chars::ascii_str(&head[self.target_start..self.version_start - 1]),
            version,
            fields: FieldList::from_spans(head, self.fields.fields()),
            content_length: framing.content_length,
            expect_continue: framing.expect_continue,
            keep_alive: framing.keep_alive,
        }
    }
}
