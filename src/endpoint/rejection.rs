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
//! | 429 | `initialize` by a principal that holds its quota of sessions (`session_quota`), a listen past its principal's listens (`listen_quota`), a stream past its principal's part of the stream share (`stream_quota`); each with `Retry-After` | |
//! | 500 | a bug: a panic in the handler (the worker survives), a reply that would not fit its budget; or no randomness for a new session id (nothing is created) | |
//! | 501, 505 | an unknown method, a chunked transfer coding (by default; under `--chunked`, one with other codings before it); an HTTP version other than 1.0 or 1.1 | |
//! | 503 | no free worker (from the acceptor, at once, `Retry-After: 1`), no free session slot (`session_capacity`, `Retry-After` until the earliest session expires), or the stream share taken (`stream_share_taken`, `Retry-After: 1`) | |
//!
//! Every final response carries `Date` in IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`),
//! formatted by hand from the shell's wall clock at most once a second for each connection (and for
//! the acceptor's 503s), as RFC 9110 §6.6.1 asks of an origin server with a clock; the interim
//! `100 Continue` is the connection machine's own fixed bytes and carries none, as §6.6.1 allows
//! for 1xx. A response to HEAD carries no content.

use super::reply::{Lent, Reply};
use super::stage::{Decided, ReceiveStage};
use crate::auth::policy::Denial;
use crate::auth::scope::Requirement;
use crate::http::mirror::MirrorError;
use crate::http::{RequestError, Status};
use crate::json::JsonErrorKind;
use crate::json::ObjectWriter;
use crate::mcp::jsonrpc::{self, Id, MessageError, code};
use crate::mcp::meta::{ClientCapability, MetaError};
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
    /// The share of the workers open streams may hold is taken: the stream did not open.
    StreamShareTaken,
    /// This principal holds its quota of open listens: the listen did not open.
    ListenQuota,
    /// This principal holds its part of the stream share: the stream did not open.
    StreamQuota,
    /// A failure on the server's side: a panic, an event that would not encode, or a random
    /// source that could not deliver a session id.
    Internal,
    /// 2026-07-28: the request's `_meta` is missing or lacks a required field (`-32602`).
    MetaInvalid(MetaError),
    /// 2026-07-28: a mirrored header disagrees with the body (`-32020`). The header's name is
    /// the server's own text (a standard name, or one of its tools' `x-mcp-header`), never the
    /// client's.
    HeaderMismatch {
        header: MirroredHeader,
        error: MirrorError,
    },
    /// 2026-07-28: the `_meta` version is not one the server speaks (`-32022`), with the ones it
    /// does and, when it is shaped like a version, the one asked for.
    VersionNotSpoken {
        requested: Option<String>,
        supported: Vec<&'static str>,
    },
    /// 2026-07-28: the request needs a capability the client did not declare (`-32021`).
    CapabilityMissing(ClientCapability),
    /// 2026-07-28: a method this revision does not have (404, `-32601`).
    MethodNotFound,
}

/// The `data` of an error that carries one.
enum ErrorData<'r> {
    Header(MirroredHeader, MirrorError),
    Versions { requested: Option<&'r str>, supported: &'r [&'static str] },
    Capability(ClientCapability),
}

impl ErrorData<'_> {
    fn write(&self, data: &mut ObjectWriter<'_>) {
        match self {
            ErrorData::Header(header, error) => {
                data.string("header", &header.name()).string("reason", error.code());
            }
            ErrorData::Versions { requested, supported } => {
                if let Some(requested) = requested {
                    data.string("requested", requested);
                }
                data.strings("supported", supported.iter().copied());
            }
            ErrorData::Capability(capability) => {
                data.object("requiredCapabilities", |required| {
                    required.object(capability.name(), |_| {});
                });
            }
        }
    }
}

/// A header that mirrors a body value (MCP 2026-07-28).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MirroredHeader {
    ProtocolVersion,
    Method,
    Name,
    /// `Mcp-Param-{Name}`, with the name a tool's schema gives.
    Param(&'static str),
}

impl MirroredHeader {
    /// The header's name, as the server writes it.
    pub fn name(self) -> std::borrow::Cow<'static, str> {
        match self {
            MirroredHeader::ProtocolVersion => "MCP-Protocol-Version".into(),
            MirroredHeader::Method => "Mcp-Method".into(),
            MirroredHeader::Name => "Mcp-Name".into(),
            MirroredHeader::Param(name) => format!("Mcp-Param-{name}").into(),
        }
    }
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
    /// Every decision about this refusal's head: its status, public code, stage and extra field,
    /// one row per variant in one `match` with no default arm. With
    /// [`crate::http::RequestErrorKind::status`] and [`Denial::status`], which it delegates to,
    /// this is where every refusal gets its status. The other decision, the body's, is
    /// [`Rejection::body`]: a new variant fails to compile in those two places.
    fn row(&self) -> Row<'_> {
        use Field::{Allow, Challenge, Nothing, RetryAfter};
        use ReceiveStage::{Body, Head, Host, Method, Pool, Route, Server, Session};
        use ReceiveStage::{ModernMeta, ModernMethod, ModernTool, ModernVersion};
        use Rejection as R;
        use Status::{BadRequest as Bad, Forbidden, NotAcceptable, NotFound};
        use Status::{InternalServerError as Failed, MisdirectedRequest as Misdirected};
        use Status::{MethodNotAllowed as NotAllowed, UnsupportedMediaType as Media};
        use Status::{ServiceUnavailable as Unavailable, TooManyRequests as Many};
        let row = |status, code, stage, field| Row { status, code, stage, field };
        match self {
            R::Request(e) => row(e.status(), e.code(), Head, Nothing),
            R::HostNotAllowed => row(Misdirected, "host_not_allowed", Host, Nothing),
            R::HostNotCanonical => row(Misdirected, "host_not_canonical", Host, Nothing),
            R::OriginNotAllowed => row(Forbidden, "origin_not_allowed", Host, Nothing),
            R::NotFound => row(NotFound, "not_found", Route, Nothing),
            R::MethodNotAllowed { allow } => {
                row(NotAllowed, "method_not_allowed", Route, Allow(allow))
            }
            R::AcceptInvalid => row(Bad, "accept_invalid", Route, Nothing),
            R::NotAcceptable => row(NotAcceptable, "not_acceptable", Route, Nothing),
            R::UnsupportedMediaType => row(Media, "unsupported_media_type", Route, Nothing),
            R::BodyNotAllowed => row(Bad, "body_not_allowed", Route, Nothing),
            R::CredentialsNotAccepted => row(Bad, "credentials_not_accepted", Route, Nothing),
            R::Json(kind) => row(Bad, kind.code(), Body, Nothing),
            R::Message(e) => row(Bad, e.code(), Body, Nothing),
            R::Auth { denial, requirement } => {
                let challenge = Challenge(denial, requirement);
                row(denial.status(), denial.code(), denial_stage(denial), challenge)
            }
            R::ProtocolVersionUnsupported => {
                row(Bad, "protocol_version_unsupported", Route, Nothing)
            }
            R::ProtocolVersionMissing => row(Bad, "protocol_version_missing", Session, Nothing),
            R::ProtocolVersionRepeated => row(Bad, "protocol_version_repeated", Route, Nothing),
            R::SessionMissing => row(Bad, "session_missing", Session, Nothing),
            R::SessionMalformed => row(Bad, "session_malformed", Session, Nothing),
            R::SessionOnInitialize => row(Bad, "session_on_initialize", Session, Nothing),
            R::SessionNotFound => row(NotFound, "session_not_found", Session, Nothing),
            R::SessionCapacity { retry_after_secs: wait } => {
                row(Unavailable, "session_capacity", Session, RetryAfter(*wait))
            }
            R::SessionQuota { retry_after_secs: wait } => {
                row(Many, "session_quota", Session, RetryAfter(*wait))
            }
            R::NotInitialized => row(Bad, "not_initialized", Session, Nothing),
            R::UnsolicitedResponse => row(Bad, "unsolicited_response", Method, Nothing),
            R::Cursor(e) => row(Bad, e.code(), Session, Nothing),
            // Workers free up within a request or two, and a stream's place when it ends (a
            // listen's when its client closes it): a second is a fair wait.
            R::Overloaded => row(Unavailable, "overloaded", Pool, RetryAfter(1)),
            R::StreamShareTaken => row(Unavailable, "stream_share_taken", Method, RetryAfter(1)),
            R::ListenQuota => row(Many, "listen_quota", Method, RetryAfter(1)),
            R::StreamQuota => row(Many, "stream_quota", Method, RetryAfter(1)),
            R::Internal => row(Failed, "internal_error", Server, Nothing),
            R::MetaInvalid(e) => row(Bad, e.code(), ModernMeta, Nothing),
            R::HeaderMismatch { header, .. } => {
                row(Bad, "header_mismatch", mirror_stage(*header), Nothing)
            }
            R::VersionNotSpoken { .. } => {
                row(Bad, "protocol_version_unsupported", ModernVersion, Nothing)
            }
            R::CapabilityMissing(_) => row(Bad, "client_capability_missing", ModernTool, Nothing),
            R::MethodNotFound => row(NotFound, "method_not_found", ModernMethod, Nothing),
        }
    }

    /// The body's JSON-RPC error code, and its `data` for the 2026-07-28 errors that name a
    /// header, versions or a capability.
    fn body(&self) -> (i64, Option<ErrorData<'_>>) {
        match self {
            Rejection::Json(_) => (code::PARSE_ERROR, None),
            Rejection::Message(_) | Rejection::UnsolicitedResponse => (code::INVALID_REQUEST, None),
            Rejection::Internal => (code::INTERNAL_ERROR, None),
            Rejection::MetaInvalid(_) => (code::INVALID_PARAMS, None),
            Rejection::HeaderMismatch { header, error } => {
                (code::HEADER_MISMATCH, Some(ErrorData::Header(*header, *error)))
            }
            Rejection::VersionNotSpoken { requested, supported } => {
                let requested = requested.as_deref();
                let data = ErrorData::Versions { requested, supported };
                (code::UNSUPPORTED_PROTOCOL_VERSION, Some(data))
            }
            Rejection::CapabilityMissing(capability) => {
                let data = ErrorData::Capability(*capability);
                (code::MISSING_REQUIRED_CLIENT_CAPABILITY, Some(data))
            }
            Rejection::MethodNotFound => (code::METHOD_NOT_FOUND, None),
            Rejection::Request(_)
            | Rejection::HostNotAllowed
            | Rejection::HostNotCanonical
            | Rejection::OriginNotAllowed
            | Rejection::NotFound
            | Rejection::MethodNotAllowed { .. }
            | Rejection::AcceptInvalid
            | Rejection::NotAcceptable
            | Rejection::UnsupportedMediaType
            | Rejection::BodyNotAllowed
            | Rejection::CredentialsNotAccepted
            | Rejection::Auth { .. }
            | Rejection::ProtocolVersionUnsupported
            | Rejection::ProtocolVersionMissing
            | Rejection::ProtocolVersionRepeated
            | Rejection::SessionMissing
            | Rejection::SessionMalformed
            | Rejection::SessionOnInitialize
            | Rejection::SessionNotFound
            | Rejection::SessionCapacity { .. }
            | Rejection::SessionQuota { .. }
            | Rejection::NotInitialized
            | Rejection::Cursor(_)
            | Rejection::Overloaded
            | Rejection::StreamShareTaken
            | Rejection::ListenQuota
            | Rejection::StreamQuota => (code::SERVER_ERROR, None),
        }
    }

    /// Where in the receive order this refusal is decided.
    pub fn stage(&self) -> ReceiveStage {
        self.row().stage
    }

    /// The status.
    pub fn status(&self) -> Status {
        self.row().status
    }

    /// The stable public code.
    pub fn code(&self) -> &'static str {
        self.row().code
    }

    /// The reply, with no request id (the body was not read, or the request is of the
    /// 2025-11-25 era, whose errors carry none). `metadata_url` goes into authorization
    /// challenges.
    pub fn reply(&self, metadata_url: &str) -> Reply {
        self.reply_to(None, metadata_url)
    }

    /// The reply to the request with `id` (every 2026-07-28 error after the body is read carries
    /// it).
    pub fn reply_to(&self, id: Option<&Id>, metadata_url: &str) -> Reply {
        self.reply_in(Lent::default(), id, metadata_url)
    }

    /// [`Rejection::reply_to`], its body and its field's text written into the buffers `lent`
    /// (cleared first), whose room is kept.
    pub(crate) fn reply_in(&self, lent: Lent, id: Option<&Id>, metadata_url: &str) -> Reply {
        let row = self.row();
        let body = match self.body() {
            (rpc, Some(data)) => {
                jsonrpc::error_text_with_in(lent.body, id, rpc, row.code, |w| data.write(w))
            }
            (rpc, None) => jsonrpc::error_text_in(lent.body, id, rpc, row.code),
        };
        let mut reply = Reply::json_text(body).with_status(row.status);
        reply.close = true;
        reply.decided = Some(Decided { stage: row.stage, code: row.code });
        match row.field {
            Field::Allow(allow) => reply.with("Allow", allow),
            Field::RetryAfter(seconds) => reply.with("Retry-After", seconds.to_string()),
            Field::Challenge(denial, requirement) => {
                match denial.challenge_in(lent.field, metadata_url, requirement) {
                    Some(challenge) => reply.with("WWW-Authenticate", challenge),
                    None => reply,
                }
            }
            Field::Nothing => reply,
        }
    }
}

/// Every decision about one refusal's head.
struct Row<'r> {
    status: Status,
    code: &'static str,
    stage: ReceiveStage,
    field: Field<'r>,
}

/// The field a refusal's reply carries besides its framing, if any.
enum Field<'r> {
    Nothing,
    /// `Allow`, on a 405.
    Allow(&'static str),
    /// `Retry-After`, in seconds.
    RetryAfter(u64),
    /// `WWW-Authenticate`, when the denial has a challenge.
    Challenge(&'r Denial, &'r Requirement),
}

/// The stage a token denial is decided at: who is asking (5), or what they may do (7).
fn denial_stage(denial: &Denial) -> ReceiveStage {
    match denial {
        Denial::InvalidRequest | Denial::MissingCredentials | Denial::InvalidToken(_) => {
            ReceiveStage::Token
        }
        Denial::InsufficientScope { .. } | Denial::TenantForbidden => ReceiveStage::Scope,
    }
}

/// The stage a mirrored header is compared at: the standard ones before the token, a tool's
/// parameters after it.
fn mirror_stage(header: MirroredHeader) -> ReceiveStage {
    match header {
        MirroredHeader::ProtocolVersion | MirroredHeader::Method | MirroredHeader::Name => {
            ReceiveStage::ModernMirroring
        }
        MirroredHeader::Param(_) => ReceiveStage::ModernTool,
    }
}
