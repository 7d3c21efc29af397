//! Response serialization where the framing is not the caller's to get wrong.
//!
//! [`ResponseWriter`] appends one HTTP/1.1 response to a byte buffer: the status line from
//! [`Status`], the caller's fields, then `Content-Length` computed from the body (never for 1xx
//! or 204), the empty line and the body. A response to HEAD ends after its head
//! ([`ResponseWriter::finish_without_content`]), announcing at most the length a GET would get.
//! A response whose body is not known when it starts (an event stream written as it happens)
//! is framed by the request's version ([`OpenFraming`], whose docs give the rules): to HTTP/1.1 it
//! says `Transfer-Encoding: chunked` ([`ResponseWriter::finish_open`]) and its body follows as
//! chunks ([`chunk`]), ended by [`LAST_CHUNK`], so the recipient finds the end of a body nobody
//! could measure in advance and tells it from a cut; to HTTP/1.0 it carries no transfer coding
//! and ends when the connection closes. The caller cannot set `Content-Length` or
//! `Transfer-Encoding` itself, cannot put CR, LF or any other control byte into a field (so no
//! value can split the head, whatever it came from), and cannot exceed the response budget. On
//! any error the buffer is cut back to where the response started, so a half-written response is
//! never sent.
//!
//! It writes bytes into memory only; sending them is the server's job.

use std::fmt;

use super::chars;
use super::date::HttpDate;
use super::status::Status;
use super::vocab::Version;
use crate::decimal;

/// Why a response could not be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WriteErrorKind {
    /// A field name that is not a token.
    FieldNameInvalid,
    /// A field value with a control byte, DEL, or leading or trailing whitespace.
    FieldValueInvalid,
    /// `Content-Length` or `Transfer-Encoding`, which the writer alone decides.
    FramingFieldReserved,
    /// A body on a status that never carries one (1xx, 204).
    ContentForbidden,
    /// The whole response would exceed the response budget.
    ResponseTooLarge { limit: usize },
}

/// A response that was not written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WriteError {
    pub kind: WriteErrorKind,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "response not written: {:?}", self.kind)
    }
}

impl std::error::Error for WriteError {}

/// Field lines fixed when the program is built (`Content-Type: application/json`, ...): the
/// list, and the same lines as bytes, so a response copies them in one go.
///
/// [`FixedFields::new`] checks, while the constant is evaluated, every rule
/// [`ResponseWriter::field`] checks at run time, and that the bytes are exactly the list's lines:
/// a constant that breaks one does not compile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedFields {
    list: &'static [(&'static str, &'static str)],
    lines: &'static [u8],
}

impl FixedFields {
    /// No fields.
    pub const NONE: FixedFields = FixedFields::new(&[], b"");

    /// Fixed fields whose `lines` are `name: value` CRLF for each entry of `list`, in order.
    ///
    /// # Panics
    /// When they are not, or when a name or value breaks a field rule: at compile time, for a
    /// constant.
    pub const fn new(
        list: &'static [(&'static str, &'static str)],
        lines: &'static [u8],
    ) -> FixedFields {
        assert!(
            fixed_lines_match(list, lines),
            "fixed field lines that break a rule or their list"
        );
        FixedFields { list, lines }
    }

    /// The fields, in order.
    pub fn list(&self) -> &'static [(&'static str, &'static str)] {
        self.list
    }
}

/// True when every entry of `list` passes [`check_field`]'s rules and `lines` is exactly their
/// field lines. Written for constant evaluation: loops and byte comparisons only.
const fn fixed_lines_match(list: &[(&str, &str)], lines: &[u8]) -> bool {
    let mut at = 0;
    let mut i = 0;
    while i < list.len() {
        let (name, value) = (list[i].0.as_bytes(), list[i].1.as_bytes());
        if !const_field_ok(name, value) {
            return false;
        }
        let mut part = 0;
        while part < 4 {
            let bytes: &[u8] = match part {
                0 => name,
                1 => b": ",
                2 => value,
                _ => b"\r\n",
            };
            let mut j = 0;
            while j < bytes.len() {
                if at >= lines.len() || lines[at] != bytes[j] {
                    return false;
                }
                at += 1;
                j += 1;
            }
            part += 1;
        }
        i += 1;
    }
    at == lines.len()
}

/// [`check_field`]'s rules, for constant evaluation.
const fn const_field_ok(name: &[u8], value: &[u8]) -> bool {
    if name.is_empty() || is_framing_name(name) || !all_in_class(name, chars::TCHAR) {
        return false;
    }
    if let (Some(first), Some(last)) = (value.first(), value.last())
        && (matches!(*first, b' ' | b'\t') || matches!(*last, b' ' | b'\t'))
    {
        return false;
    }
    all_in_class(value, chars::FIELD_VALUE)
}

/// True when every byte of `bytes` is in `class`, for constant evaluation.
const fn all_in_class(bytes: &[u8], class: u8) -> bool {
    let mut i = 0;
    while i < bytes.len() {
        if !chars::is_const(bytes[i], class) {
            return false;
        }
        i += 1;
    }
    true
}

/// `Content-Length` or `Transfer-Encoding`, in any case.
const fn is_framing_name(name: &[u8]) -> bool {
    same_ignoring_case(name, b"content-length") || same_ignoring_case(name, b"transfer-encoding")
}

/// `<[u8]>::eq_ignore_ascii_case`, which is usable in constants only from Rust 1.89.
const fn same_ignoring_case(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if !a[i].eq_ignore_ascii_case(&b[i]) {
            return false;
        }
        i += 1;
    }
    true
}

/// Appends one response to a buffer. Create it, add fields, then [`ResponseWriter::finish`].
#[derive(Debug)]
pub struct ResponseWriter<'o> {
    out: &'o mut Vec<u8>,
    start: usize,
    status: Status,
    failed: Option<WriteError>,
}

impl<'o> ResponseWriter<'o> {
    /// Starts a response by writing its status line.
    pub fn new(out: &'o mut Vec<u8>, status: Status) -> Self {
        let start = out.len();
        out.extend_from_slice(status.line().as_bytes());
        ResponseWriter { out, start, status, failed: None }
    }

    /// Adds one field line. An invalid field poisons the writer: `finish` will report it.
    pub fn field(&mut self, name: &str, value: &[u8]) -> &mut Self {
        if self.failed.is_none() {
            match check_field(name, value) {
                Ok(()) => {
                    self.out.extend_from_slice(name.as_bytes());
                    self.out.extend_from_slice(b": ");
                    self.out.extend_from_slice(value);
                    self.out.extend_from_slice(b"\r\n");
                }
                Err(kind) => self.failed = Some(WriteError { kind }),
            }
        }
        self
    }

    /// Adds the `Date` field; an [`HttpDate`] holds only bytes a field value may hold.
    pub fn date(&mut self, date: &HttpDate) -> &mut Self {
        if self.failed.is_none() {
            self.out.extend_from_slice(b"Date: ");
            self.out.extend_from_slice(date.as_bytes());
            self.out.extend_from_slice(b"\r\n");
        }
        self
    }

    /// Adds fixed field lines, checked when they were built.
    pub fn fixed(&mut self, fields: &FixedFields) -> &mut Self {
        if self.failed.is_none() {
            self.out.extend_from_slice(fields.lines);
        }
        self
    }

    /// Writes the framing, the empty line and the body. Returns the length of the whole response,
    /// or leaves the buffer as it was before [`ResponseWriter::new`] and returns the error.
    pub fn finish(mut self, body: &[u8], response_bytes_max: usize) -> Result<usize, WriteError> {
        let result = self.finish_inner(body, response_bytes_max);
        if result.is_err() {
            self.out.truncate(self.start);
        }
        result
    }

    fn finish_inner(
        &mut self,
        body: &[u8],
        response_bytes_max: usize,
    ) -> Result<usize, WriteError> {
        if let Some(error) = self.failed {
            return Err(error);
        }
        if self.status.forbids_content() {
            if !body.is_empty() {
                return Err(WriteError { kind: WriteErrorKind::ContentForbidden });
            }
        } else {
            self.out.extend_from_slice(b"Content-Length: ");
            decimal::push(self.out, body.len() as u64);
            self.out.extend_from_slice(b"\r\n");
        }
        self.out.extend_from_slice(b"\r\n");
        let len = self.out.len() - self.start + body.len();
        if len > response_bytes_max {
            let kind = WriteErrorKind::ResponseTooLarge { limit: response_bytes_max };
            return Err(WriteError { kind });
        }
        self.out.extend_from_slice(body);
        Ok(len)
    }
}

impl ResponseWriter<'_> {
    /// Writes the framing of a body written as it happens, as `framing` says, the empty line
    /// and `first` as the body's first piece (none when it is empty); the caller appends the
    /// later pieces ([`OpenFraming::piece`]) and the end ([`OpenFraming::end`]). Chunked, the head
    /// says `Transfer-Encoding: chunked`; delimited by the close, it says nothing of the body's
    /// length, and the caller must have added `Connection: close`. Returns the length written, or
    /// leaves the buffer as it was before [`ResponseWriter::new`] and returns the error.
    pub fn finish_open(
        mut self,
        framing: OpenFraming,
        first: &[u8],
        response_bytes_max: usize,
    ) -> Result<usize, WriteError> {
        let result = self.finish_open_inner(framing, first, response_bytes_max);
        if result.is_err() {
            self.out.truncate(self.start);
        }
        result
    }

    fn finish_open_inner(
        &mut self,
        framing: OpenFraming,
        first: &[u8],
        response_bytes_max: usize,
    ) -> Result<usize, WriteError> {
        if let Some(error) = self.failed {
            return Err(error);
        }
        if self.status.forbids_content() {
            return Err(WriteError { kind: WriteErrorKind::ContentForbidden });
        }
        match framing {
            OpenFraming::Chunked => self.out.extend_from_slice(b"Transfer-Encoding: chunked\r\n"),
            OpenFraming::UntilClose => {}
        }
        self.out.extend_from_slice(b"\r\n");
        framing.piece(first, self.out);
        let len = self.out.len() - self.start;
        if len > response_bytes_max {
            let kind = WriteErrorKind::ResponseTooLarge { limit: response_bytes_max };
            return Err(WriteError { kind });
        }
        Ok(len)
    }

    /// Writes the framing and the empty line, and no content: the response to a HEAD request
    /// (RFC 9110 §9.3.2). `announced` is the `Content-Length` the same request with GET would
    /// get (RFC 9110 §8.6), or `None` to send none. Returns the length of the head, or leaves the
    /// buffer as it was before [`ResponseWriter::new`] and returns the error.
    pub fn finish_without_content(
        mut self,
        announced: Option<usize>,
        response_bytes_max: usize,
    ) -> Result<usize, WriteError> {
        let result = self.finish_head(announced, response_bytes_max);
        if result.is_err() {
            self.out.truncate(self.start);
        }
        result
    }

    fn finish_head(
        &mut self,
        announced: Option<usize>,
        response_bytes_max: usize,
    ) -> Result<usize, WriteError> {
        if let Some(error) = self.failed {
            return Err(error);
        }
        if let Some(length) = announced.filter(|_| !self.status.forbids_content()) {
            self.out.extend_from_slice(b"Content-Length: ");
            decimal::push(self.out, length as u64);
            self.out.extend_from_slice(b"\r\n");
        }
        self.out.extend_from_slice(b"\r\n");
        let len = self.out.len() - self.start;
        if len > response_bytes_max {
            return Err(WriteError {
                kind: WriteErrorKind::ResponseTooLarge { limit: response_bytes_max },
            });
        }
        Ok(len)
    }
}

/// How a body written as it happens is delimited, decided by the request's version alone (never
/// by what the body is, nor by the MCP era of the request).
///
/// - **HTTP/1.1: chunked.** Each piece goes out as a chunk, and [`LAST_CHUNK`] ends the body: the
///   recipient tells a complete stream from a cut one, and the connection can carry the next
///   request.
/// - **HTTP/1.0: delimited by the close.** RFC 9112 §6.1: a server MUST NOT send
///   `Transfer-Encoding` unless the request indicates HTTP/1.1, since an HTTP/1.0 recipient does
///   not know the coding and would read the chunk-size lines as content. Without it, and without
///   `Content-Length`, the body of a response is everything up to the close of the connection
///   (RFC 9112 §6.3, rule 8). So the head says `Connection: close`, each piece is written as it
///   is, unframed, the moment it is produced, and closing the connection ends the body. The price
///   is the one §6.3 names: a close cannot be told from a cut, and the connection carries
///   nothing more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenFraming {
    Chunked,
    UntilClose,
}

impl OpenFraming {
    /// The framing a response to a request of `version` gets.
    pub const fn of(version: Version) -> OpenFraming {
        match version {
            Version::Http11 => OpenFraming::Chunked,
            Version::Http10 => OpenFraming::UntilClose,
        }
    }

    /// Appends `data` as one piece of the body: a chunk, or the bytes themselves. Nothing for
    /// empty data.
    pub fn piece(self, data: &[u8], out: &mut Vec<u8>) {
        match self {
            OpenFraming::Chunked => chunk(data, out),
            OpenFraming::UntilClose => out.extend_from_slice(data),
        }
    }

    /// The bytes that end the body: the last chunk, or none (the close ends it).
    pub const fn end(self) -> &'static [u8] {
        match self {
            OpenFraming::Chunked => LAST_CHUNK,
            OpenFraming::UntilClose => b"",
        }
    }

    /// Whether the connection must close after the body: always when the close delimits it.
    pub const fn closes(self) -> bool {
        match self {
            OpenFraming::Chunked => false,
            OpenFraming::UntilClose => true,
        }
    }
}

/// The end of a chunked body: the last chunk, no trailer fields, the empty line.
pub const LAST_CHUNK: &[u8] = b"0\r\n\r\n";

/// Appends `data` as one chunk of a chunked body: its size in lower-case hex, CRLF, the bytes,
/// CRLF. Nothing for empty data, whose zero size would end the body.
pub fn chunk(data: &[u8], out: &mut Vec<u8>) {
    if data.is_empty() {
        return;
    }
    let mut size = [0u8; 16];
    let mut at = size.len();
    let mut n = data.len();
    while n > 0 || at == size.len() {
        at -= 1;
        size[at] = b"0123456789abcdef"[n % 16];
        n /= 16;
    }
    out.extend_from_slice(&size[at..]);
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
}

fn check_field(name: &str, value: &[u8]) -> Result<(), WriteErrorKind> {
    if !chars::is_token(name.as_bytes()) {
        return Err(WriteErrorKind::FieldNameInvalid);
    }
    if is_framing_name(name.as_bytes()) {
        return Err(WriteErrorKind::FramingFieldReserved);
    }
    let padded =
        matches!(value.first(), Some(b' ' | b'\t')) || matches!(value.last(), Some(b' ' | b'\t'));
    if padded || chars::field_value_run(value) != value.len() {
        return Err(WriteErrorKind::FieldValueInvalid);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_fields_follow_the_same_rules_as_fields_added_at_run_time() {
        let cases: [(&str, &[u8]); 15] = [
            ("X-A", b"v"),
            ("Cache-Control", b"no-store"),
            ("X-A", b""),
            ("X-A", b"a\tb c"),
            ("X-A", b"caf\xc3\xa9"),
            ("X-A", b"a\r\nInjected: 1"),
            ("X-A", b"a\x7fb"),
            ("X-A", b" padded"),
            ("X-A", b"padded\t"),
            ("X A", b"v"),
            ("", b"v"),
            ("X:A", b"v"),
            ("content-length", b"1"),
            ("Transfer-Encoding", b"chunked"),
            ("Content-Lengthy", b"1"),
        ];
        for (name, value) in cases {
            let at_run_time = check_field(name, value).is_ok();
            assert_eq!(const_field_ok(name.as_bytes(), value), at_run_time, "{name:?} {value:?}");
        }
    }

    #[test]
    fn fixed_lines_must_be_exactly_their_list() {
        let list: &[(&str, &str)] = &[("A", "1"), ("B-C", "x y")];
        let cases: [(&[u8], bool); 6] = [
            (b"A: 1\r\nB-C: x y\r\n", true),
            (b"A: 1\r\nB-C: x y\r\n\r\n", false),
            (b"A: 1\r\nB-C: x y", false),
            (b"A: 1\r\n", false),
            (b"A:1\r\nB-C: x y\r\n", false),
            (b"B-C: x y\r\nA: 1\r\n", false),
        ];
        for (lines, expected) in cases {
            assert_eq!(fixed_lines_match(list, lines), expected, "{lines:?}");
        }
        assert!(fixed_lines_match(&[], b""));
        assert!(!fixed_lines_match(&[("A", " 1")], b"A:  1\r\n"));
    }

    #[test]
    fn fixed_fields_are_copied_as_they_are() {
        const FIELDS: FixedFields = FixedFields::new(&[("X-A", "1")], b"X-A: 1\r\n");
        let mut out = Vec::new();
        let mut writer = ResponseWriter::new(&mut out, Status::NoContent);
        writer.fixed(&FIELDS);
        assert_eq!(writer.finish(b"", 1024), Ok(35));
        assert_eq!(out, b"HTTP/1.1 204 No Content\r\nX-A: 1\r\n\r\n");
    }
}
