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
//! | `vocab` | the shared words: methods, versions, the version grammar, [`Parsed`] |
//! | `chars` | byte classes of the grammar (`tchar`, field-value bytes, path bytes) |
//! | `fields` | the header-section scanner shared by requests and responses, and the field list |
//! | `request` | the request head parser: request line, fields, verdict order |
//! | `target` | the origin-form path rule |
//! | `framing` | Host, Transfer-Encoding, Content-Length, Expect, Connection |
//! | `chunked` | the chunked coding of a request body, decoded in place (under `--chunked`) |
//! | `media` | media types for `Content-Type`, media ranges and weights for `Accept` |
//! | `writer` | response serialization with framing the caller cannot get wrong |
//! | `response` | the client's strict response parser |
//! | `connection` | one connection's lifecycle as a state machine: requests, deadlines, closes |
//! | `date` | the `Date` field in IMF-fixdate form, formatted by hand |
//! | `status`, `error` | the statuses sent, the errors and their one status mapping |
//!
//! Deliberately absent: transfer codings other than chunked, chunked responses, kept trailers,
//! HTTP/2, absolute-form targets, queries, and any decoding of percent-escapes or non-ASCII
//! bytes.

pub mod chars;
pub mod chunked;
pub mod connection;
pub mod date;
pub mod error;
mod fields;
mod framing;
pub mod media;
pub mod request;
pub mod response;
pub mod status;
mod target;
pub mod vocab;
pub mod writer;

pub use error::{
    ChunkedError, ChunkedErrorKind, HeadErrorKind, RequestError, RequestErrorKind, ResponseError,
    ResponseErrorKind,
};
pub use fields::{CREDENTIAL_FIELDS, Field, FieldList, Occurrence};
pub use framing::{BodyFraming, TransferCodings, is_valid_host};
pub use request::{RequestHead, RequestParser};
pub use response::{Response, ResponseParser};
pub use status::Status;
pub use vocab::{Method, Parsed, Version};
