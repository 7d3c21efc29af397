//! Response serialization where the framing is not the caller's to get wrong.
//!
//! [`ResponseWriter`] appends one HTTP/1.1 response to a byte buffer: the status line from
//! [`Status`], the caller's fields, then `Content-Length` computed from the body (never for 1xx
//! or 204), the empty line and the body. A response to HEAD ends after its head
//! ([`ResponseWriter::finish_without_content`]), announcing at most the length a GET would get. The caller cannot set `Content-Length` or
//! `Transfer-Encoding` itself, cannot put CR, LF or any other control byte into a field (so no
//! value can split the head, whatever it came from), and cannot exceed the response budget. On
//! any error the buffer is cut back to where the response started, so a half-written response is
//! never sent.
//!
//! It writes bytes into memory only; sending them is the server's job.

use std::fmt;

use super::chars;
use super::status::Status;
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
        out.extend_from_slice(b"HTTP/1.1 ");
        decimal::push(out, u64::from(status.code()));
        out.push(b' ');
        out.extend_from_slice(status.reason().as_bytes());
        out.extend_from_slice(b"\r\n");
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

fn check_field(name: &str, value: &[u8]) -> Result<(), WriteErrorKind> {
    if !chars::is_token(name.as_bytes()) {
        return Err(WriteErrorKind::FieldNameInvalid);
    }
    if name.eq_ignore_ascii_case("content-length") || name.eq_ignore_ascii_case("transfer-encoding")
    {
        return Err(WriteErrorKind::FramingFieldReserved);
    }
    let padded =
        matches!(value.first(), Some(b' ' | b'\t')) || matches!(value.last(), Some(b' ' | b'\t'));
    if padded || chars::field_value_run(value) != value.len() {
        return Err(WriteErrorKind::FieldValueInvalid);
    }
    Ok(())
}
