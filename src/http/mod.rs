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
//! | `chunked` | the chunked coding: a request body decoded in place (under `--chunked`), a response body read chunk by chunk |
//! | `media` | media types for `Content-Type`, media ranges and weights for `Accept` |
//! | `mirror` | a mirrored request header (MCP 2026-07-28) against the body value it repeats |
//! | `writer` | response serialization with framing the caller cannot get wrong |
//! | `response` | the client's strict response parser |
//! | `authenticate` | the client's reading of `WWW-Authenticate`: a list of challenges |
//! | `connection` | one connection's lifecycle as a state machine: requests, deadlines, closes |
//! | `date` | the `Date` field in IMF-fixdate form, formatted by hand |
//! | `status`, `error` | the statuses sent, the errors and their one status mapping |
//!
//! Deliberately absent: transfer codings other than chunked, kept trailers, HTTP/2, absolute-form
//! targets, queries, and any decoding of percent-escapes or non-ASCII bytes.
//!
//! # How a request head is judged
//!
//! The grammar is [RFC 9112][rfc9112] (message syntax) and [RFC 9110][rfc9110] (fields, methods,
//! status codes).
//!
//! [`RequestParser`] is handed everything received so far for one request and remembers where it
//! stopped, so a head trickling in one byte per read costs linear time. It stops on the **first
//! byte that proves the request bad**; checks that need a whole element run when the element ends,
//! in a fixed order:
//!
//! 1. while bytes arrive: a first byte that is not a token character, bare CR or LF anywhere, a
//!    control, DEL or non-ASCII byte in the request line, a byte outside a field line's grammar
//!    (400); a method, target, field value, field count or header section over budget (501, 414,
//!    431);
//! 2. at the end of the request line: the version (`HTTP/1.1` and `HTTP/1.0` only; any other
//!    well-formed version is 505), then the target form (400), then the method (a visible byte that
//!    is not a token character: 400; a token the server does not know: 501);
//! 3. at the end of the head: Host (exactly one in HTTP/1.1, valid syntax), Transfer-Encoding
//!    (refused by default: 501 for a valid chunked coding, 400 otherwise, including next to
//!    Content-Length or on HTTP/1.0; under `--chunked`, `chunked` alone is accepted and decoded by
//!    [`chunked`]), Content-Length (one line of plain digits, else 400; over budget 413), Expect
//!    (only `100-continue`, else 417; ignored on HTTP/1.0), Connection (a list of tokens).
//!
//! Because the verdict depends only on the bytes, feeding a request whole, split anywhere, or one
//! byte at a time gives the same answer; every row of `tests/http_request.rs` is checked all three
//! ways. That table holds a hostile corpus of 81 rows (request-smuggling shapes, line-ending
//! tricks, malformed versions, targets and fields, and budget rows set at this project's sizes) and
//! 75 cases of the project's own; the test pins both counts. The corpus is also run through a
//! parser under `--chunked`: exactly two rows change, FR01 and FR15 (`Transfer-Encoding: chunked`,
//! in either case, with the empty body `0\r\n\r\n`), from 501 to a complete head whose body is then
//! decoded; `tests/server_chunked.rs` takes them and the Http11Probe chunked cases to a real `serve
//! --chunked`.
//!
//! Where this profile is stricter than RFC 9112 allows a server to be, on purpose:
//!
//! | input | here | why |
//! |---|---|---|
//! | `GET /path?query` | 400 | a token can never ride in a URL, and there is no query parser to disagree with anyone else's |
//! | absolute-form `GET http://a/` | 400 | the RFC says a server must accept it; a loopback origin server never needs it |
//! | `HTTP/1.2` | 505 | the RFC lets a server treat it as 1.1; pinning the two known versions keeps the contract exact |
//! | `/a/../b`, `/%2e%2e/`, `%2F`, `%5C`, `%00` | 400 | no component ever has to normalize or decode a path |
//! | empty `Host:` | 400 | the server only answers for named loopback authorities |
//! | `Content-Length: 5` twice | 400 | the RFC allows collapsing identical values; refusing is simpler to reason about |
//! | `Content-Length` too large for 64 bits | 413 | it is valid syntax for a length larger than every budget; never wraps |
//! | any `Transfer-Encoding` (by default) | 400 / 501 | with one framing there is no TE/CL disagreement at all; `--chunked` decodes `chunked` alone, strictly |
//! | `/a/..;x/b` | 400 | a dot segment with `;` parameters, which some servers strip before resolving `..` |
//!
//! And where it follows the RFC where a stricter profile might not:
//!
//! | input | here | why |
//! |---|---|---|
//! | `OPTIONS * HTTP/1.1` | 204 with `Allow: GET, HEAD, POST, DELETE` | asterisk-form is a valid target for OPTIONS only (RFC 9112 §3.2.4) and asks about the server as a whole (RFC 9110 §9.3.7); the answer lists every method some route implements, and carries no content. `*` with any other method is 400 |
//! | `HEAD` on any path | the response ends after its head | RFC 9110 §9.3.2: a response to HEAD carries no content. The discovery paths answer HEAD like GET, `Content-Length` included (the length GET would get, §8.6); an error answer to HEAD carries no `Content-Length`; `/mcp` keeps 405 |
//!
//! One refinement of the usual precedence, which answers a request line over budget with 414 first:
//! here too the budgets of the request line are checked first, as the bytes arrive, but a
//! **method** over its budget is answered 501, because RFC 9112 §3 names 501 for a method longer
//! than any the server implements, and 414 (URI Too Long) would describe the wrong part of the
//! line. So `AAAA…(33 bytes) / HTTP/2.0` is 501, while a short unknown method with `HTTP/2.0` is
//! 505.
//!
//! [rfc9110]: https://www.rfc-editor.org/rfc/rfc9110
//! [rfc9112]: https://www.rfc-editor.org/rfc/rfc9112

pub mod authenticate;
pub mod chars;
pub mod chunked;
pub mod connection;
pub mod date;
pub mod error;
mod fields;
mod framing;
mod known;
pub mod media;
pub mod mirror;
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
pub use known::is_looked_up;
pub use request::{RequestHead, RequestParser};
pub use response::{Response, ResponseFraming, ResponseParser};
pub use status::Status;
pub use vocab::{Method, Parsed, Version};
