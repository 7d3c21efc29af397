//! Why an MCP step of the client failed: one typed error, [`McpError`], and the rules a reply can
//! break, [`ReplyRule`], each with a stable code.
//!
//! Not here: the checks themselves (`mcp`, `modern`, `stream`).

use std::fmt;

use super::http::ClientError;
use super::mirroring::Unmirrorable;

/// Why an MCP step failed.
#[derive(Debug)]
pub enum McpError {
    /// The exchange itself failed.
    Http(ClientError),
    /// The server answered an unexpected status; `code` is the public code from its body.
    Status { status: u16, code: String },
    /// The reply broke a rule the client checks.
    Reply(ReplyRule),
    /// The server's protocol version is not one this client speaks; the handshake stopped.
    VersionUnsupported(String),
    /// A step that needs a session was called without one.
    NoSession,
    /// A resumption (GET with `Last-Event-ID`) was answered with this status and public code
    /// instead of the rest of the stream.
    ResumeRefused { status: u16, code: String },
    /// The stream ended without its response this many times in a row: the client stopped.
    ResumptionsExhausted { limit: usize },
    /// Waiting the server's `retry` would pass the request's deadline.
    DeadlinePassed,
    /// `-32020`: a mirrored header and the body disagree, by the server's reading (the header
    /// and the reason, as the server named them).
    HeaderMismatch { header: String, reason: String },
    /// `-32021`: the request needs client capabilities it did not declare (their names).
    CapabilityMissing { required: Vec<String> },
    /// `-32022`: the server does not speak the request's revision (the ones it does).
    UnsupportedVersion { supported: Vec<String> },
    /// `-32601` with 404: the revision has no such method.
    MethodNotFound,
    /// An argument a header must mirror cannot be written into one: nothing was sent.
    Unmirrorable(Unmirrorable),
}

impl McpError {
    /// A stable code for the failure, for tests and scripts (the message is for people).
    pub fn code(&self) -> &'static str {
        match self {
            McpError::Http(e) => e.code(),
            McpError::Status { .. } => "unexpected_status",
            McpError::Reply(rule) => rule.code(),
            McpError::VersionUnsupported(_) => "version_unsupported",
            McpError::NoSession => "no_session",
            McpError::ResumeRefused { .. } => "resume_refused",
            McpError::ResumptionsExhausted { .. } => "resumptions_exhausted",
            McpError::DeadlinePassed => "request_deadline_passed",
            McpError::HeaderMismatch { .. } => "header_mismatch",
            McpError::CapabilityMissing { .. } => "client_capability_missing",
            McpError::UnsupportedVersion { .. } => "unsupported_protocol_version",
            McpError::MethodNotFound => "method_not_found",
            McpError::Unmirrorable(why) => why.code(),
        }
    }
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McpError::Http(e) => write!(f, "{e}"),
            McpError::Status { status, code } => write!(f, "unexpected status {status} ({code})"),
            McpError::Reply(rule) => write!(f, "reply refused: {rule}"),
            McpError::VersionUnsupported(v) => write!(f, "server speaks protocol {v:?}; stopped"),
            McpError::NoSession => f.write_str("no session"),
            McpError::ResumeRefused { status, code } => {
                write!(f, "resumption refused with status {status} ({code})")
            }
            McpError::ResumptionsExhausted { limit } => {
                write!(f, "the stream ended without its response after {limit} resumptions")
            }
            McpError::DeadlinePassed => {
                f.write_str("waiting to resume would pass the request's deadline")
            }
            McpError::HeaderMismatch { header, reason } => {
                write!(
                    f,
                    "-32020: the server read {header} as disagreeing with the body ({reason})"
                )
            }
            McpError::CapabilityMissing { required } => {
                write!(f, "-32021: the request needs client capabilities: {}", required.join(", "))
            }
            McpError::UnsupportedVersion { supported } => {
                write!(f, "-32022: the server speaks only {}", supported.join(", "))
            }
            McpError::MethodNotFound => f.write_str("-32601: no such method in this revision"),
            McpError::Unmirrorable(why) => {
                let (Unmirrorable::Number { header } | Unmirrorable::NotPrimitive { header }) = why;
                write!(f, "the argument of {header} cannot be mirrored ({})", why.code())
            }
        }
    }
}

impl std::error::Error for McpError {}

impl From<ClientError> for McpError {
    fn from(e: ClientError) -> Self {
        McpError::Http(e)
    }
}

/// A rule a reply broke. Each has a stable [`ReplyRule::code`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReplyRule {
    /// The protected-resource metadata names a resource other than the server's `/mcp`.
    MetadataNamesAnotherResource,
    /// A successful `initialize` without `MCP-Session-Id`.
    SessionIdMissing,
    /// A session id that is not 1 to 128 visible ASCII characters.
    SessionIdInvalid,
    /// A 202 to a notification that carries a body.
    AcceptedWithBody,
    /// A JSON reply without `Content-Type: application/json`.
    ContentTypeNotJson,
    /// A stream reply without `Content-Type: text/event-stream`.
    ContentTypeNotEventStream,
    /// A body that is not strict JSON.
    BodyNotJson,
    /// An event stream that breaks the SSE rules.
    EventStreamInvalid,
    /// A stream ended without the response and without an event id to resume from.
    StreamEndedWithoutResponse,
    /// A resumption answered 204: the stream owes nothing more, yet its response never came.
    StreamCompleteWithoutResponse,
    /// An event without data.
    EventWithoutData,
    /// Event data that is not strict JSON.
    EventDataNotJson,
    /// A GET stream carried a JSON-RPC response (MCP forbids it there).
    GetStreamCarriedResponse,
    /// Not a JSON-RPC 2.0 message.
    NotJsonRpc,
    /// A response whose id is not the request's.
    IdMismatch,
    /// A JSON-RPC error where a result was expected.
    JsonRpcError,
    /// A response with both or neither of `result` and `error`.
    ResultOrErrorMissing,
    /// A `resources/list` result without a `resources` array.
    ResourcesMissing,
    /// A `tools/list` result without a `tools` array of named tools.
    ToolsMissing,
    /// A `server/discover` result without a `supportedVersions` array.
    SupportedVersionsMissing,
}

impl ReplyRule {
    /// The stable code.
    pub const fn code(self) -> &'static str {
        match self {
            ReplyRule::MetadataNamesAnotherResource => "metadata_names_another_resource",
            ReplyRule::SessionIdMissing => "session_id_missing",
            ReplyRule::SessionIdInvalid => "session_id_invalid",
            ReplyRule::AcceptedWithBody => "accepted_with_body",
            ReplyRule::ContentTypeNotJson => "content_type_not_json",
            ReplyRule::ContentTypeNotEventStream => "content_type_not_event_stream",
            ReplyRule::BodyNotJson => "body_not_json",
            ReplyRule::EventStreamInvalid => "event_stream_invalid",
            ReplyRule::StreamEndedWithoutResponse => "stream_ended_without_response",
            ReplyRule::StreamCompleteWithoutResponse => "stream_complete_without_response",
            ReplyRule::EventWithoutData => "event_without_data",
            ReplyRule::EventDataNotJson => "event_data_not_json",
            ReplyRule::GetStreamCarriedResponse => "get_stream_carried_response",
            ReplyRule::NotJsonRpc => "not_jsonrpc",
            ReplyRule::IdMismatch => "id_mismatch",
            ReplyRule::JsonRpcError => "jsonrpc_error",
            ReplyRule::ResultOrErrorMissing => "result_or_error_missing",
            ReplyRule::ResourcesMissing => "resources_missing",
            ReplyRule::ToolsMissing => "tools_missing",
            ReplyRule::SupportedVersionsMissing => "supported_versions_missing",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            ReplyRule::MetadataNamesAnotherResource => "the metadata names another resource",
            ReplyRule::SessionIdMissing => "no MCP-Session-Id",
            ReplyRule::SessionIdInvalid => "the session id is not 1-128 visible ASCII characters",
            ReplyRule::AcceptedWithBody => "a 202 with a body",
            ReplyRule::ContentTypeNotJson => "expected Content-Type application/json",
            ReplyRule::ContentTypeNotEventStream => "expected Content-Type text/event-stream",
            ReplyRule::BodyNotJson => "the body is not strict JSON",
            ReplyRule::EventStreamInvalid => "the event stream breaks the SSE rules",
            ReplyRule::StreamEndedWithoutResponse => {
                "the stream ended without its response and without an id to resume from"
            }
            ReplyRule::StreamCompleteWithoutResponse => {
                "the resumed stream owes nothing more, but its response never came"
            }
            ReplyRule::EventWithoutData => "an event without data",
            ReplyRule::EventDataNotJson => "event data is not strict JSON",
            ReplyRule::GetStreamCarriedResponse => "a GET stream carried a JSON-RPC response",
            ReplyRule::NotJsonRpc => "not a JSON-RPC 2.0 message",
            ReplyRule::IdMismatch => "the response id does not match the request",
            ReplyRule::JsonRpcError => "the server answered with a JSON-RPC error",
            ReplyRule::ResultOrErrorMissing => "a response needs exactly one of result and error",
            ReplyRule::ResourcesMissing => "no resources array",
            ReplyRule::ToolsMissing => "no tools array of named tools",
            ReplyRule::SupportedVersionsMissing => "no supportedVersions array",
        }
    }
}

impl fmt::Display for ReplyRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.describe(), self.code())
    }
}
