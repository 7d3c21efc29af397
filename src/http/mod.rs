//! HTTP/1.1 as bytes: request heads in, responses out, and the client's view of responses.
//!
//! Every function here is a pure function of byte slices and a [`Limits`](crate::limits::Limits)
//! value. The module knows nothing about sockets, threads or clocks: the server and the client
//! read bytes, hand them to a parser here, and act on its answer, which is always one of
//! "need more bytes", "complete, it ends at offset N", or a typed error that already knows its
//! HTTP status.
//!
//! | file | what it does |
//! |---|---|
//! | `chars` | byte classes of the grammar (`tchar`, field-value bytes, path bytes) |
//! | `fields` | the header-section scanner shared by requests and responses |
//! | `request` | the request head parser: request line, fields, verdict order |
//! | `target` | the origin-form path rule |
//! | `framing` | Host, Transfer-Encoding, Content-Length, Expect, Connection |
//! | `media` | media types for `Content-Type`, media ranges and weights for `Accept` |
//! | `writer` | response serialization with framing the caller cannot get wrong |
//! | `response` | the client's strict response parser |
//! | `status`, `error` | the statuses sent, the errors and their one status mapping |
//!
//! Deliberately absent: chunked transfer coding, trailers, HTTP/2, absolute-form targets,
//! queries, and any decoding of percent-escapes or non-ASCII bytes.

pub mod chars;
pub mod error;
mod fields;
mod framing;
pub mod media;
pub mod request;
pub mod response;
pub mod status;
mod target;
pub mod writer;

pub use error::{HeadErrorKind, RequestError, RequestErrorKind, ResponseError, ResponseErrorKind};
pub use framing::is_valid_host;
pub use request::{Method, RequestHead, RequestParser, Version};
pub use response::{Response, ResponseParser};
pub use status::Status;

/// The answer of an incremental parser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed<T> {
    /// The input ends before the element does; call again with more bytes.
    Partial,
    /// The element is complete; it occupies the first `len` bytes of the input.
    Complete { value: T, len: usize },
}

/// One field line of a parsed head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field<'b> {
    /// The name as sent; compare it case-insensitively.
    pub name: &'b str,
    /// The value without its surrounding whitespace. It may hold non-ASCII bytes, which this
    /// crate never decodes.
    pub value: &'b [u8],
}

impl<'b> Field<'b> {
    fn from_span(buf: &'b [u8], span: &fields::FieldSpan) -> Self {
        Field { name: request::ascii_str(&buf[span.name.clone()]), value: &buf[span.value.clone()] }
    }
}

/// Field names whose values are credentials, whatever they hold: `inspect` and the client's wire
/// trace never show them.
pub const CREDENTIAL_FIELDS: [&str; 5] =
    ["authorization", "proxy-authorization", "cookie", "set-cookie", "mcp-session-id"];

/// How often a field name occurs in a head, for fields that may occur at most once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Occurrence<'b> {
    Absent,
    /// Exactly one field line, with this value.
    Once(&'b [u8]),
    /// Two or more field lines.
    Repeated,
}

/// The field lines of a head, in the order they arrived.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FieldList<'b> {
    fields: Vec<Field<'b>>,
}

impl<'b> FieldList<'b> {
    fn from_spans(buf: &'b [u8], spans: &[fields::FieldSpan]) -> Self {
        FieldList { fields: spans.iter().map(|s| Field::from_span(buf, s)).collect() }
    }

    /// Every field line, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Field<'b>> {
        self.fields.iter()
    }

    /// How many field lines there are.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The value of the first field line with this name (case-insensitive).
    pub fn get(&self, name: &str) -> Option<&'b [u8]> {
        self.all(name).next()
    }

    /// The values of every field line with this name (case-insensitive), in order.
    pub fn all<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'b [u8]> + 's {
        self.fields.iter().filter(move |f| f.name.eq_ignore_ascii_case(name)).map(|f| f.value)
    }

    /// Whether this name (case-insensitive) is absent, present once (with its value) or repeated.
    pub fn single(&self, name: &str) -> Occurrence<'b> {
        let mut values = self.all(name);
        match (values.next(), values.next()) {
            (None, _) => Occurrence::Absent,
            (Some(value), None) => Occurrence::Once(value),
            (Some(_), Some(_)) => Occurrence::Repeated,
        }
    }

    /// How many field lines carry this name (case-insensitive).
    pub fn count(&self, name: &str) -> usize {
        self.all(name).count()
    }
}
