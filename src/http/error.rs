//! The errors of the HTTP codecs, and the one place where a request error becomes a status.
//!
//! Every error is a small `Copy` value: a kind (with the budget that was crossed, where there is
//! one) and the byte offset where the parser stopped. No error ever holds a byte of the input, so
//! an error can be logged or sent back without echoing a token, a session id or anything else the
//! peer wrote. Each kind has a stable public code (`snake_case`) that tests and clients match on.

use std::fmt;

use super::status::Status;

/// What is wrong with a head's line endings or field lines; shared by requests and responses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HeadErrorKind {
    /// A LF not preceded by CR (RFC 9112 §2.2: only CRLF ends a line here).
    BareLf,
    /// A CR not followed by LF.
    BareCr,
    /// A field line starting with SP or HTAB: obsolete line folding, or whitespace between the
    /// start line and the first field (RFC 9112 §2.2, §5.2).
    FieldLineStartsWithWhitespace,
    /// A field line starting with `:`.
    FieldNameEmpty,
    /// A byte that is not a `tchar` in a field name.
    FieldNameByte,
    /// SP or HTAB between a field name and its colon (RFC 9112 §5.1: must be rejected).
    WhitespaceBeforeColon,
    /// A field line that ends without a colon.
    ColonMissing,
    /// A control byte or DEL in a field value.
    FieldValueByte,
    /// A field value longer than the budget.
    FieldValueTooLarge { limit: usize },
    /// More field lines than the budget.
    FieldsTooMany { limit: usize },
    /// A header section larger than the budget.
    FieldSectionTooLarge { limit: usize },
}

impl HeadErrorKind {
    /// The stable public code.
    pub const fn code(self) -> &'static str {
        match self {
            HeadErrorKind::BareLf => "bare_lf",
            HeadErrorKind::BareCr => "bare_cr",
            HeadErrorKind::FieldLineStartsWithWhitespace => "field_line_starts_with_whitespace",
            HeadErrorKind::FieldNameEmpty => "field_name_empty",
            HeadErrorKind::FieldNameByte => "field_name_byte",
            HeadErrorKind::WhitespaceBeforeColon => "whitespace_before_colon",
            HeadErrorKind::ColonMissing => "colon_missing",
            HeadErrorKind::FieldValueByte => "field_value_byte",
            HeadErrorKind::FieldValueTooLarge { .. } => "field_value_too_large",
            HeadErrorKind::FieldsTooMany { .. } => "fields_too_many",
            HeadErrorKind::FieldSectionTooLarge { .. } => "field_section_too_large",
        }
    }

    const fn status(self) -> Status {
        match self {
            HeadErrorKind::FieldValueTooLarge { .. }
            | HeadErrorKind::FieldsTooMany { .. }
            | HeadErrorKind::FieldSectionTooLarge { .. } => Status::RequestHeaderFieldsTooLarge,
            HeadErrorKind::BareLf
            | HeadErrorKind::BareCr
            | HeadErrorKind::FieldLineStartsWithWhitespace
            | HeadErrorKind::FieldNameEmpty
            | HeadErrorKind::FieldNameByte
            | HeadErrorKind::WhitespaceBeforeColon
            | HeadErrorKind::ColonMissing
            | HeadErrorKind::FieldValueByte => Status::BadRequest,
        }
    }
}

/// What is wrong with a chunked body (RFC 9112 §7.1): a request's, decoded by
/// [`ChunkedDecoder`](super::chunked::request::ChunkedDecoder), or a response's, read by
/// [`ChunkReader`](super::chunked::response::ChunkReader). Every kind is one class of mistake with its own
/// public code; the byte offsets are counted from the body's first byte, and from the message's
/// first byte once wrapped into a request or response error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ChunkedErrorKind {
    /// A chunk-size line that does not start with a hex digit: leading whitespace, a sign, an
    /// empty line, an extension with no size.
    SizeMissing,
    /// A byte inside the size that is neither a hex digit nor what may end it (whitespace before
    /// an extension, `;`, CR): `0x5`, `1_0`.
    SizeByte,
    /// More hex digits than the budget, leading zeros included. The budget is at most 16, so a
    /// size that would overflow 64 bits is refused before any arithmetic could wrap.
    SizeTooLong { limit: usize },
    /// Whitespace after the size that no extension follows (`5 \r\n`).
    SizeWhitespace,
    /// A `;` with no extension name after it (`5;\r\n`), or an `=` where a name belongs.
    ExtensionNameMissing,
    /// An `=` with no value after it.
    ExtensionValueMissing,
    /// A byte that may not stand where it is in an extension: not a `tchar` in a name or a
    /// token value, a control byte, or anything but `;`, whitespace or CR after a value.
    ExtensionByte,
    /// Whitespace inside an extension that neither `;` nor (after a name) `=` follows.
    ExtensionWhitespace,
    /// A control byte (CR and LF included) or DEL inside a quoted extension value.
    ExtensionQuotedByte,
    /// One chunk's extensions longer than the budget.
    ExtensionTooLarge { limit: usize },
    /// A LF not preceded by CR, in a chunk-size line or after a chunk's data.
    BareLf,
    /// A CR not followed by LF.
    BareCr,
    /// A chunk's data not followed by CRLF: more bytes than its size said, or none of the CRLF.
    DataUnterminated,
    /// More chunks than the budget, the last (zero-size) one included.
    TooManyChunks { limit: usize },
    /// The decoded body would exceed the body budget; decided when a size is complete, before
    /// any of its data is read.
    BodyTooLarge { limit: usize },
    /// One chunk of a response read chunk by chunk larger than the budget; decided when its
    /// size is complete, before any of its data is read. (Response side only.)
    ChunkTooLarge { limit: usize },
    /// Anything but the empty line after a response's last chunk: this client accepts no
    /// trailer fields. Decided at the trailer section's first byte. (Response side only.)
    TrailerSectionNotEmpty,
    /// A trailer field line that breaks the field rules or the trailer budgets.
    Trailer(HeadErrorKind),
    /// A trailer naming a field the server reads from the head (framing, routing, credentials,
    /// MCP fields): RFC 9110 §6.5.1 forbids sending those as trailers. Like the head's framing
    /// checks, its offset points at the line's first byte; the line's LF decides it.
    TrailerFieldForbidden,
}

impl ChunkedErrorKind {
    /// The stable public code.
    pub const fn code(self) -> &'static str {
        match self {
            ChunkedErrorKind::SizeMissing => "chunk_size_missing",
            ChunkedErrorKind::SizeByte => "chunk_size_byte",
            ChunkedErrorKind::SizeTooLong { .. } => "chunk_size_too_long",
            ChunkedErrorKind::SizeWhitespace => "chunk_size_whitespace",
            ChunkedErrorKind::ExtensionNameMissing => "chunk_extension_name_missing",
            ChunkedErrorKind::ExtensionValueMissing => "chunk_extension_value_missing",
            ChunkedErrorKind::ExtensionByte => "chunk_extension_byte",
            ChunkedErrorKind::ExtensionWhitespace => "chunk_extension_whitespace",
            ChunkedErrorKind::ExtensionQuotedByte => "chunk_extension_quoted_byte",
            ChunkedErrorKind::ExtensionTooLarge { .. } => "chunk_extension_too_large",
            ChunkedErrorKind::BareLf => "chunk_bare_lf",
            ChunkedErrorKind::BareCr => "chunk_bare_cr",
            ChunkedErrorKind::DataUnterminated => "chunk_data_unterminated",
            ChunkedErrorKind::TooManyChunks { .. } => "chunks_too_many",
            ChunkedErrorKind::BodyTooLarge { .. } => "chunked_body_too_large",
            ChunkedErrorKind::ChunkTooLarge { .. } => "chunk_too_large",
            ChunkedErrorKind::TrailerSectionNotEmpty => "trailer_section_not_empty",
            ChunkedErrorKind::Trailer(kind) => trailer_code(kind),
            ChunkedErrorKind::TrailerFieldForbidden => "trailer_field_forbidden",
        }
    }

    /// 413 for a body over its budget, the field rules' statuses for trailers (431 for their
    /// budgets), 400 for everything else. (The two response-side kinds never come from a
    /// request; they are mapped like their request-side neighbours.)
    const fn status(self) -> Status {
        match self {
            ChunkedErrorKind::BodyTooLarge { .. } | ChunkedErrorKind::ChunkTooLarge { .. } => {
                Status::ContentTooLarge
            }
            ChunkedErrorKind::Trailer(kind) => kind.status(),
            ChunkedErrorKind::SizeMissing
            | ChunkedErrorKind::SizeByte
            | ChunkedErrorKind::SizeTooLong { .. }
            | ChunkedErrorKind::SizeWhitespace
            | ChunkedErrorKind::ExtensionNameMissing
            | ChunkedErrorKind::ExtensionValueMissing
            | ChunkedErrorKind::ExtensionByte
            | ChunkedErrorKind::ExtensionWhitespace
            | ChunkedErrorKind::ExtensionQuotedByte
            | ChunkedErrorKind::ExtensionTooLarge { .. }
            | ChunkedErrorKind::BareLf
            | ChunkedErrorKind::BareCr
            | ChunkedErrorKind::DataUnterminated
            | ChunkedErrorKind::TooManyChunks { .. }
            | ChunkedErrorKind::TrailerFieldForbidden
            | ChunkedErrorKind::TrailerSectionNotEmpty => Status::BadRequest,
        }
    }
}

/// The public code of a trailer field-line error: the head's code, marked as a trailer's.
const fn trailer_code(kind: HeadErrorKind) -> &'static str {
    match kind {
        HeadErrorKind::BareLf => "trailer_bare_lf",
        HeadErrorKind::BareCr => "trailer_bare_cr",
        HeadErrorKind::FieldLineStartsWithWhitespace => "trailer_line_starts_with_whitespace",
        HeadErrorKind::FieldNameEmpty => "trailer_name_empty",
        HeadErrorKind::FieldNameByte => "trailer_name_byte",
        HeadErrorKind::WhitespaceBeforeColon => "trailer_whitespace_before_colon",
        HeadErrorKind::ColonMissing => "trailer_colon_missing",
        HeadErrorKind::FieldValueByte => "trailer_value_byte",
        HeadErrorKind::FieldValueTooLarge { .. } => "trailer_value_too_large",
        HeadErrorKind::FieldsTooMany { .. } => "trailer_fields_too_many",
        HeadErrorKind::FieldSectionTooLarge { .. } => "trailer_section_too_large",
    }
}

/// A refused chunked body: what was wrong and the offset, from the body's first byte, of the
/// byte that decided it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChunkedError {
    pub kind: ChunkedErrorKind,
    pub offset: usize,
}

impl ChunkedError {
    /// The same error as a request's, its offset counted from the request's first byte (the
    /// body starts `head_len` bytes in).
    pub const fn in_request(self, head_len: usize) -> RequestError {
        RequestError::new(RequestErrorKind::Chunked(self.kind), head_len + self.offset)
    }

    /// The same error as a response's, its offset counted from the response's first byte (the
    /// body starts `head_len` bytes in).
    pub const fn in_response(self, head_len: usize) -> ResponseError {
        ResponseError::new(ResponseErrorKind::Chunked(self.kind), head_len + self.offset)
    }
}

impl fmt::Display for ChunkedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "chunked body refused: {} at byte {}", self.kind.code(), self.offset)
    }
}

impl std::error::Error for ChunkedError {}

/// Why a request head was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RequestErrorKind {
    /// A line ending or field line problem.
    Head(HeadErrorKind),
    /// More empty lines before the request line than the budget.
    LeadingEmptyLines { limit: usize },
    /// The first byte of the request line is not a `tchar`.
    RequestLineStart,
    /// A control byte, DEL or non-ASCII byte inside the method.
    MethodByte,
    /// A visible byte inside the method that is not a `tchar`; judged after the version and target.
    MethodNotToken,
    /// A method longer than the budget; no implemented method is that long (RFC 9112 §3).
    MethodTooLong { limit: usize },
    /// No target between the method and the version (two spaces, or the line ends early).
    TargetMissing,
    /// A byte in the target outside visible ASCII.
    TargetByte,
    /// A target longer than the budget (RFC 9112 §3: 414).
    TargetTooLong { limit: usize },
    /// The version is not `HTTP/` DIGIT `.` DIGIT followed by CRLF.
    VersionSyntax,
    /// A well-formed version other than HTTP/1.0 and HTTP/1.1.
    VersionUnsupported,
    /// The target is not in origin-form (absolute-form, authority-form, asterisk-form).
    TargetNotOriginForm,
    /// The target has a query; this project refuses every query, which also keeps tokens out of
    /// URLs.
    QueryForbidden,
    /// The target has a fragment, which is never part of a request target.
    FragmentForbidden,
    /// A visible ASCII byte that a path may not carry literally, such as `\`.
    TargetByteForbidden,
    /// A `%` not followed by two hexadecimal digits.
    PercentEncodingInvalid,
    /// A percent-encoded control byte, `/` or `\`.
    EncodedByteForbidden,
    /// A `.` or `..` path segment, literal or percent-encoded.
    DotSegment,
    /// A well-formed method this server does not know.
    MethodUnknown,
    /// An HTTP/1.1 request without Host.
    HostMissing,
    /// More than one Host field line.
    HostDuplicate,
    /// A Host value that is not `host[:port]`.
    HostInvalid,
    /// Transfer-Encoding on an HTTP/1.0 request (RFC 9112 §6.1: faulty framing).
    TransferEncodingOnHttp10,
    /// Transfer-Encoding together with Content-Length: a request-smuggling shape.
    TransferEncodingWithContentLength,
    /// More than one Transfer-Encoding field line.
    TransferEncodingDuplicate,
    /// A Transfer-Encoding list that is malformed, or applies chunked before the final coding.
    TransferEncodingInvalid,
    /// A valid Transfer-Encoding ending in chunked that this server does not decode: any such
    /// list by default; under `--chunked`, one with another coding before `chunked`.
    TransferEncodingChunked,
    /// A Transfer-Encoding that does not end in chunked, so the body length is unknowable.
    TransferEncodingUnsupported,
    /// More than one Content-Length field line.
    ContentLengthDuplicate,
    /// A Content-Length that is not one or more ASCII digits.
    ContentLengthInvalid,
    /// A Content-Length over the body budget, refused before any body byte is read.
    ContentLengthTooLarge { limit: usize },
    /// An Expect other than `100-continue`.
    ExpectationUnsupported,
    /// A Connection value that is not a list of tokens.
    ConnectionInvalid,
    /// A chunked body (accepted only under `--chunked`) that breaks the coding or its budgets.
    Chunked(ChunkedErrorKind),
}

impl RequestErrorKind {
    /// The stable public code.
    pub const fn code(self) -> &'static str {
        match self {
            RequestErrorKind::Head(kind) => kind.code(),
            RequestErrorKind::LeadingEmptyLines { .. } => "leading_empty_lines",
            RequestErrorKind::RequestLineStart => "request_line_start",
            RequestErrorKind::MethodByte => "method_byte",
            RequestErrorKind::MethodNotToken => "method_not_token",
            RequestErrorKind::MethodTooLong { .. } => "method_too_long",
            RequestErrorKind::TargetMissing => "target_missing",
            RequestErrorKind::TargetByte => "target_byte",
            RequestErrorKind::TargetTooLong { .. } => "target_too_long",
            RequestErrorKind::VersionSyntax => "version_syntax",
            RequestErrorKind::VersionUnsupported => "version_unsupported",
            RequestErrorKind::TargetNotOriginForm => "target_not_origin_form",
            RequestErrorKind::QueryForbidden => "query_forbidden",
            RequestErrorKind::FragmentForbidden => "fragment_forbidden",
            RequestErrorKind::TargetByteForbidden => "target_byte_forbidden",
            RequestErrorKind::PercentEncodingInvalid => "percent_encoding_invalid",
            RequestErrorKind::EncodedByteForbidden => "encoded_byte_forbidden",
            RequestErrorKind::DotSegment => "dot_segment",
            RequestErrorKind::MethodUnknown => "method_unknown",
            RequestErrorKind::HostMissing => "host_missing",
            RequestErrorKind::HostDuplicate => "host_duplicate",
            RequestErrorKind::HostInvalid => "host_invalid",
            RequestErrorKind::TransferEncodingOnHttp10 => "transfer_encoding_on_http10",
            RequestErrorKind::TransferEncodingWithContentLength => {
                "transfer_encoding_with_content_length"
            }
            RequestErrorKind::TransferEncodingDuplicate => "transfer_encoding_duplicate",
            RequestErrorKind::TransferEncodingInvalid => "transfer_encoding_invalid",
            RequestErrorKind::TransferEncodingChunked => "transfer_encoding_chunked",
            RequestErrorKind::TransferEncodingUnsupported => "transfer_encoding_unsupported",
            RequestErrorKind::ContentLengthDuplicate => "content_length_duplicate",
            RequestErrorKind::ContentLengthInvalid => "content_length_invalid",
            RequestErrorKind::ContentLengthTooLarge { .. } => "content_length_too_large",
            RequestErrorKind::ExpectationUnsupported => "expectation_unsupported",
            RequestErrorKind::ConnectionInvalid => "connection_invalid",
            RequestErrorKind::Chunked(kind) => kind.code(),
        }
    }

    /// The status a server answers with. This is the only mapping from request errors to
    /// statuses in the crate.
    pub const fn status(self) -> Status {
        match self {
            RequestErrorKind::Head(kind) => kind.status(),
            RequestErrorKind::Chunked(kind) => kind.status(),
            RequestErrorKind::MethodTooLong { .. }
            | RequestErrorKind::MethodUnknown
            | RequestErrorKind::TransferEncodingChunked => Status::NotImplemented,
            RequestErrorKind::TargetTooLong { .. } => Status::UriTooLong,
            RequestErrorKind::VersionUnsupported => Status::HttpVersionNotSupported,
            RequestErrorKind::ContentLengthTooLarge { .. } => Status::ContentTooLarge,
            RequestErrorKind::ExpectationUnsupported => Status::ExpectationFailed,
            RequestErrorKind::LeadingEmptyLines { .. }
            | RequestErrorKind::RequestLineStart
            | RequestErrorKind::MethodByte
            | RequestErrorKind::MethodNotToken
            | RequestErrorKind::TargetMissing
            | RequestErrorKind::TargetByte
            | RequestErrorKind::VersionSyntax
            | RequestErrorKind::TargetNotOriginForm
            | RequestErrorKind::QueryForbidden
            | RequestErrorKind::FragmentForbidden
            | RequestErrorKind::TargetByteForbidden
            | RequestErrorKind::PercentEncodingInvalid
            | RequestErrorKind::EncodedByteForbidden
            | RequestErrorKind::DotSegment
            | RequestErrorKind::HostMissing
            | RequestErrorKind::HostDuplicate
            | RequestErrorKind::HostInvalid
            | RequestErrorKind::TransferEncodingOnHttp10
            | RequestErrorKind::TransferEncodingWithContentLength
            | RequestErrorKind::TransferEncodingDuplicate
            | RequestErrorKind::TransferEncodingInvalid
            | RequestErrorKind::TransferEncodingUnsupported
            | RequestErrorKind::ContentLengthDuplicate
            | RequestErrorKind::ContentLengthInvalid
            | RequestErrorKind::ConnectionInvalid => Status::BadRequest,
        }
    }
}

/// A refused request head: what was wrong and the offset of the byte where it was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RequestError {
    kind: RequestErrorKind,
    offset: usize,
}

impl RequestError {
    pub(crate) const fn new(kind: RequestErrorKind, offset: usize) -> Self {
        RequestError { kind, offset }
    }

    /// What was wrong.
    pub const fn kind(&self) -> RequestErrorKind {
        self.kind
    }

    /// Offset, from the start of the request, of the byte that decided the error (for checks
    /// made after the head ended: the start of the field line concerned).
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// The status to answer with.
    pub const fn status(&self) -> Status {
        self.kind.status()
    }

    /// The stable public code.
    pub const fn code(&self) -> &'static str {
        self.kind.code()
    }
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "request refused: {} at byte {}", self.kind.code(), self.offset)
    }
}

impl std::error::Error for RequestError {}

/// Why the client refused a response.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResponseErrorKind {
    /// A line ending or field line problem.
    Head(HeadErrorKind),
    /// The status line is not `HTTP/1.x SP 3DIGIT SP reason CRLF`.
    StatusLineSyntax,
    /// A version other than HTTP/1.1 or HTTP/1.0.
    VersionUnsupported,
    /// A status code outside 100–599.
    StatusCodeInvalid,
    /// A reason phrase longer than one field value may be.
    ReasonTooLong { limit: usize },
    /// A Transfer-Encoding on an HTTP/1.0 response (RFC 9112 §6.1: faulty framing).
    TransferEncodingOnHttp10,
    /// Transfer-Encoding together with Content-Length (RFC 9112 §6.1: a server must not send
    /// both).
    TransferEncodingWithContentLength,
    /// More than one Transfer-Encoding field line.
    TransferEncodingDuplicate,
    /// A Transfer-Encoding on a response that carries no content: 1xx, 204, 304, or the answer
    /// to HEAD.
    TransferEncodingWithoutContent,
    /// A Transfer-Encoding list that is malformed (an empty or non-token element), or applies
    /// chunked before the final coding or twice (`chunked, gzip`, `chunked, chunked`).
    TransferEncodingInvalid,
    /// A valid list ending in chunked after other codings (`gzip, chunked`): this client decodes
    /// no coding besides chunked.
    TransferEncodingLayered,
    /// A Transfer-Encoding without chunked (`gzip`): a coding this client does not decode, and a
    /// body whose end only a close could mark.
    TransferEncodingUnsupported,
    /// A response that may carry content but has no Content-Length.
    ContentLengthMissing,
    /// More than one Content-Length field line.
    ContentLengthDuplicate,
    /// A Content-Length that is not one or more ASCII digits.
    ContentLengthInvalid,
    /// A Content-Length on a 1xx, 204 or 304 response, which never carry content.
    ContentForbidden,
    /// Head plus announced body larger than the response budget; refused before reading the body.
    ResponseTooLarge { limit: usize },
    /// A chunked body that breaks the coding or its budgets, read after an accepted head.
    Chunked(ChunkedErrorKind),
}

impl ResponseErrorKind {
    /// The stable public code.
    pub const fn code(self) -> &'static str {
        match self {
            ResponseErrorKind::Head(kind) => kind.code(),
            ResponseErrorKind::StatusLineSyntax => "status_line_syntax",
            ResponseErrorKind::VersionUnsupported => "version_unsupported",
            ResponseErrorKind::StatusCodeInvalid => "status_code_invalid",
            ResponseErrorKind::ReasonTooLong { .. } => "reason_too_long",
            ResponseErrorKind::TransferEncodingOnHttp10 => "transfer_encoding_on_http10",
            ResponseErrorKind::TransferEncodingWithContentLength => {
                "transfer_encoding_with_content_length"
            }
            ResponseErrorKind::TransferEncodingDuplicate => "transfer_encoding_duplicate",
            ResponseErrorKind::TransferEncodingWithoutContent => {
                "transfer_encoding_without_content"
            }
            ResponseErrorKind::TransferEncodingInvalid => "transfer_encoding_invalid",
            ResponseErrorKind::TransferEncodingLayered => "transfer_encoding_layered",
            ResponseErrorKind::TransferEncodingUnsupported => "transfer_encoding_unsupported",
            ResponseErrorKind::ContentLengthMissing => "content_length_missing",
            ResponseErrorKind::ContentLengthDuplicate => "content_length_duplicate",
            ResponseErrorKind::ContentLengthInvalid => "content_length_invalid",
            ResponseErrorKind::ContentForbidden => "content_forbidden",
            ResponseErrorKind::ResponseTooLarge { .. } => "response_too_large",
            ResponseErrorKind::Chunked(kind) => kind.code(),
        }
    }
}

/// A refused response: what was wrong and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ResponseError {
    kind: ResponseErrorKind,
    offset: usize,
}

impl ResponseError {
    pub(crate) const fn new(kind: ResponseErrorKind, offset: usize) -> Self {
        ResponseError { kind, offset }
    }

    /// What was wrong.
    pub const fn kind(&self) -> ResponseErrorKind {
        self.kind
    }

    /// Offset of the byte that decided the error.
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// The stable public code.
    pub const fn code(&self) -> &'static str {
        self.kind.code()
    }
}

impl fmt::Display for ResponseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "response refused: {} at byte {}", self.kind.code(), self.offset)
    }
}

impl std::error::Error for ResponseError {}

/// A line ending or field-line error with its offset, before it is wrapped into a request or
/// response error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HeadError {
    pub kind: HeadErrorKind,
    pub offset: usize,
}

impl From<HeadError> for RequestError {
    fn from(e: HeadError) -> Self {
        RequestError::new(RequestErrorKind::Head(e.kind), e.offset)
    }
}

impl From<HeadError> for ResponseError {
    fn from(e: HeadError) -> Self {
        ResponseError::new(ResponseErrorKind::Head(e.kind), e.offset)
    }
}
