//! Every reason the endpoint refuses a request, and the one table that turns each into a status,
//! a stable public code and a reply.
//!
//! Error bodies on every path are a JSON-RPC error without an `id`:
//! `{"error":{"code":<JSON-RPC code>,"message":"<public code>"},"jsonrpc":"2.0"}`. The message is
//! always one of the fixed codes below, never text derived from the request, so no reply can echo
//! a bearer token, a session id or anything else the client sent. Authorization refusals add the
//! exact `WWW-Authenticate` challenge; 405 adds `Allow`; 503 and 429 add `Retry-After`.
//!
//! # Every status the server answers, and why
//!
//! | status | when | challenge |
//! |---|---|---|
//! | 200 | JSON or event-stream replies; JSON-RPC errors for a known request (`-32601` unknown method, `-32602` bad params) | |
//! | 202 | a notification | |
//! | 204 | DELETE ended the session; `OPTIONS *` (with `Allow`); a `Last-Event-ID` of a POST stream that owes nothing more | |
//! | 400 | HTTP syntax; a malformed chunked body under `--chunked` (a code per kind of mistake); malformed `Authorization` or two of them (`invalid_request`); strict JSON or JSON-RPC shape; a body on GET or DELETE; a missing, repeated or unsupported `MCP-Protocol-Version`; a missing or malformed `MCP-Session-Id`, or one on initialize; a request before `initialized`; a client JSON-RPC response; an unusable `Last-Event-ID`; credentials (`Authorization`, `Proxy-Authorization`, `Cookie`) sent to the discovery document | only for `invalid_request` |
//! | 401 | no bearer token (no `error`), or a token that is not valid here for any reason (`invalid_token`, the same bytes for every reason) | `Bearer [error="invalid_token", ]resource_metadata="…", scope="…"` |
//! | 403 | a foreign `Origin` (no challenge); a valid token missing a scope (`insufficient_scope`); a tenant the ACL refuses (`forbidden`, no challenge) | only for `insufficient_scope`, listing held + required scopes |
//! | 404 | an unknown path; a session that is unknown, expired, ended or someone else's | |
//! | 405 | a method the path does not take, with `Allow` | |
//! | 406 | `Accept` does not list the needed types | |
//! | 413, 414, 417, 431 | body (a decoded chunked one included), target, expectation and header (and trailer) budgets | |
//! | 415 | a POST body not declared `application/json` (this project's rule) | |
//! | 421 | the `localhost` alias, or discovery through a proxy (`host_not_canonical`); any other `Host` that is not this server's (`host_not_allowed`) | |
//! | 429 | `initialize` by a principal that holds its quota of sessions (`session_quota`), with `Retry-After` | |
//! | 500 | a bug: a panic in the handler (the worker survives), a reply that would not fit its budget; or no randomness for a new session id (nothing is created) | |
//! | 501, 505 | an unknown method, a chunked transfer coding (by default; under `--chunked`, one with other codings before it); an HTTP version other than 1.0 or 1.1 | |
//! | 503 | no free worker (from the acceptor, at once, `Retry-After: 1`), or no free session slot (`session_capacity`, `Retry-After` until the earliest session expires) | |
//!
//! Every final response carries `Date` in IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`),
//! formatted by hand from the shell's wall clock at most once a second for each connection (and for
//! the acceptor's 503s), as RFC 9110 §6.6.1 asks of an origin server with a clock; the interim
//! `100 Continue` is the connection machine's own fixed bytes and carries none, as §6.6.1 allows
//! for 1xx. A response to HEAD carries no content.

use super::reply::Reply;
use crate::auth::policy::Denial;
use crate::auth::scope::Requirement;
use crate::http::{RequestError, Status};
use crate::json::JsonErrorKind;
use crate::mcp::jsonrpc::{self, MessageError, code};
use crate::mcp::stream::CursorError;
use crate::random::RandomUnavailable;

/// A refused request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The request head broke the HTTP rules or a head budget.
    Request(RequestError),
    /// Host is not one of this server's loopback authorities (a DNS-rebinding guard).
    HostNotAllowed,
    /// Host names this server, but not by its canonical authority (`localhost` for 127.0.0.1),
    /// or a proxy's authority asks for the discovery document, which names the canonical resource.
    HostNotCanonical,
    /// Origin is present and not in the allowlist.
    OriginNotAllowed,
    NotFound,
    /// The path exists but not for this method.
    MethodNotAllowed {
        allow: &'static str,
    },
    /// Accept is malformed.
    AcceptInvalid,
    /// Accept does not list what the method needs.
    NotAcceptable,
    /// A POST body that is not `application/json`.
    UnsupportedMediaType,
    /// A GET or DELETE with a body.
    BodyNotAllowed,
    /// Credentials (`Authorization`, `Proxy-Authorization`, `Cookie`) sent to the discovery
    /// document, which must never receive them.
    CredentialsNotAccepted,
    /// The body is not strict JSON.
    Json(JsonErrorKind),
    /// The body is JSON but not one JSON-RPC message.
    Message(MessageError),
    /// The token policy refused; `requirement` is what the request needed.
    Auth {
        denial: Denial,
        requirement: Requirement,
    },
    /// `MCP-Protocol-Version` names a revision other than 2025-11-25.
    ProtocolVersionUnsupported,
    /// `MCP-Protocol-Version` is missing on a request after initialize.
    ProtocolVersionMissing,
    /// More than one `MCP-Protocol-Version` field line (whatever they say).
    ProtocolVersionRepeated,
    /// No `MCP-Session-Id` on a request that needs one.
    SessionMissing,
    /// A session id that is not 1–128 visible ASCII characters, or more than one.
    SessionMalformed,
    /// A session id on `initialize`, which creates sessions.
    SessionOnInitialize,
    /// No live session with this id for this principal (unknown, expired, ended, or another's).
    SessionNotFound,
    /// Every session slot is taken; nothing was created. The earliest slot frees up in this
    /// many seconds.
    SessionCapacity {
        retry_after_secs: u64,
    },
    /// This principal holds its quota of sessions; nothing was created. Its earliest session
    /// expires in this many seconds.
    SessionQuota {
        retry_after_secs: u64,
    },
    /// A request other than ping before `notifications/initialized`.
    NotInitialized,
    /// A JSON-RPC response, when the server has asked the client nothing.
    UnsolicitedResponse,
    /// A `Last-Event-ID` that cannot resume a stream of this session.
    Cursor(CursorError),
    /// Every worker is busy.
    Overloaded,
    /// A failure on the server's side: a panic, an event that would not encode, or a random
    /// source that could not deliver a session id.
    Internal,
}

impl From<CursorError> for Rejection {
    fn from(e: CursorError) -> Rejection {
        Rejection::Cursor(e)
    }
}

/// Without randomness no session id can be drawn: the request fails whole, nothing is created.
impl From<RandomUnavailable> for Rejection {
    fn from(_: RandomUnavailable) -> Rejection {
        Rejection::Internal
    }
}

impl Rejection {
    /// The status. With [`crate::http::RequestErrorKind::status`] and [`Denial::status`], which it
    /// delegates to, this is where every refusal gets its status.
    pub fn status(&self) -> Status {
        match self {
            Rejection::Request(e) => e.status(),
            Rejection::Auth { denial, .. } => denial.status(),
            Rejection::HostNotAllowed | Rejection::HostNotCanonical => Status::MisdirectedRequest,
            Rejection::OriginNotAllowed => Status::Forbidden,
            Rejection::NotFound | Rejection::SessionNotFound => Status::NotFound,
            Rejection::MethodNotAllowed { .. } => Status::MethodNotAllowed,
            Rejection::NotAcceptable => Status::NotAcceptable,
            Rejection::UnsupportedMediaType => Status::UnsupportedMediaType,
            Rejection::SessionCapacity { .. } | Rejection::Overloaded => Status::ServiceUnavailable,
            Rejection::SessionQuota { .. } => Status::TooManyRequests,
            Rejection::Internal => Status::InternalServerError,
            Rejection::AcceptInvalid
            | Rejection::BodyNotAllowed
            | Rejection::CredentialsNotAccepted
            | Rejection::Json(_)
            | Rejection::Message(_)
            | Rejection::ProtocolVersionUnsupported
            | Rejection::ProtocolVersionMissing
            | Rejection::ProtocolVersionRepeated
            | Rejection::SessionMissing
            | Rejection::SessionMalformed
            | Rejection::SessionOnInitialize
            | Rejection::NotInitialized
            | Rejection::UnsolicitedResponse
            | Rejection::Cursor(_) => Status::BadRequest,
        }
    }

    /// The stable public code.
    pub fn code(&self) -> &'static str {
        match self {
            Rejection::Request(e) => e.code(),
            Rejection::Auth { denial, .. } => denial.code(),
            Rejection::Json(kind) => kind.code(),
            Rejection::Message(e) => e.code(),
            Rejection::Cursor(e) => e.code(),
            Rejection::HostNotAllowed => "host_not_allowed",
            Rejection::HostNotCanonical => "host_not_canonical",
            Rejection::OriginNotAllowed => "origin_not_allowed",
            Rejection::NotFound => "not_found",
            Rejection::MethodNotAllowed { .. } => "method_not_allowed",
            Rejection::AcceptInvalid => "accept_invalid",
            Rejection::NotAcceptable => "not_acceptable",
            Rejection::UnsupportedMediaType => "unsupported_media_type",
            Rejection::BodyNotAllowed => "body_not_allowed",
            Rejection::CredentialsNotAccepted => "credentials_not_accepted",
            Rejection::ProtocolVersionUnsupported => "protocol_version_unsupported",
            Rejection::ProtocolVersionMissing => "protocol_version_missing",
            Rejection::ProtocolVersionRepeated => "protocol_version_repeated",
            Rejection::SessionMissing => "session_missing",
            Rejection::SessionMalformed => "session_malformed",
            Rejection::SessionOnInitialize => "session_on_initialize",
            Rejection::SessionNotFound => "session_not_found",
            Rejection::SessionCapacity { .. } => "session_capacity",
            Rejection::SessionQuota { .. } => "session_quota",
            Rejection::NotInitialized => "not_initialized",
            Rejection::UnsolicitedResponse => "unsolicited_response",
            Rejection::Overloaded => "overloaded",
            Rejection::Internal => "internal_error",
        }
    }

    /// The JSON-RPC error code the body carries.
    fn jsonrpc_code(&self) -> i64 {
        match self {
            Rejection::Json(_) => code::PARSE_ERROR,
            Rejection::Message(_) | Rejection::UnsolicitedResponse => code::INVALID_REQUEST,
            Rejection::Internal => code::INTERNAL_ERROR,
            _ => code::SERVER_ERROR,
        }
    }

    /// The reply. `metadata_url` goes into authorization challenges.
    pub fn reply(&self, metadata_url: &str) -> Reply {
        let body = jsonrpc::error_text(None, self.jsonrpc_code(), self.code());
        let mut reply = Reply::json_text(body).with_status(self.status());
        reply.close = true;
        match self {
            Rejection::MethodNotAllowed { allow } => reply.with("Allow", *allow),
            Rejection::SessionCapacity { retry_after_secs }
            | Rejection::SessionQuota { retry_after_secs } => {
                reply.with("Retry-After", retry_after_secs.to_string())
            }
            // Workers free up within a request or two: a second is a fair wait.
            Rejection::Overloaded => reply.with("Retry-After", "1"),
            Rejection::Auth { denial, requirement } => {
                match denial.challenge(metadata_url, requirement) {
                    Some(challenge) => reply.with("WWW-Authenticate", challenge),
                    None => reply,
                }
            }
            _ => reply,
        }
    }
}
