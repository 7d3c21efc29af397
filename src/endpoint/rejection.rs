//! Every reason the endpoint refuses a request, and the one table that turns each into a status,
//! a stable public code and a reply.
//!
//! Error bodies on every path are a JSON-RPC error without an `id`:
//! `{"error":{"code":<JSON-RPC code>,"message":"<public code>"},"jsonrpc":"2.0"}`. The message is
//! always one of the fixed codes below, never text derived from the request, so no reply can echo
//! a bearer token, a session id or anything else the client sent. Authorization refusals add the
//! exact `WWW-Authenticate` challenge; 405 adds `Allow`; 503 and 429 add `Retry-After`.

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
        let body = jsonrpc::error(None, self.jsonrpc_code(), self.code());
        let mut reply = Reply::json(self.status(), &body);
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
