//! The MCP 2025-11-25 client over the loopback HTTP layer.
//!
//! [`McpClient`] keeps one keep-alive connection (a new one after the server closes it), the
//! bearer token, and the session once `initialize` hands one out. Every request is built as a
//! [`RequestSpec`] the caller may alter before it is sent, which is how `attack` and `lab` change
//! exactly one thing at a time. Every reply is checked before it is believed: the status, the
//! content type, the JSON-RPC id, the session id's characters, the event-stream framing.
//!
//! The token goes only into the `Authorization` field, never into a URL or a body, and never to
//! the discovery document. If `initialize` answers a protocol version this client does not speak,
//! the handshake stops there: `notifications/initialized` is not sent.

use std::net::SocketAddr;
use std::{fmt, str};

use super::http::{ClientError, ClientResponse, HttpConnection};
use super::trace::Trace;
use crate::auth::metadata;
use crate::json::{self, Value};
use crate::limits::Limits;
use crate::mcp::jsonrpc::Id;
use crate::mcp::requests::{self, ClientInfo};
use crate::mcp::{MCP_PATH, PROTOCOL_VERSION, is_valid_session_id};
use crate::sse::{self, Event};

/// The client's budgets: the project's defaults, the same the server enforces.
const LIMITS: Limits = Limits::DEFAULT;

/// The protocol versions this client speaks.
pub const SUPPORTED_VERSIONS: [&str; 1] = [PROTOCOL_VERSION];

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
    /// A `resources/list` stream that does not carry exactly one event.
    EventCount,
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
            ReplyRule::EventCount => "event_count",
            ReplyRule::EventWithoutData => "event_without_data",
            ReplyRule::EventDataNotJson => "event_data_not_json",
            ReplyRule::GetStreamCarriedResponse => "get_stream_carried_response",
            ReplyRule::NotJsonRpc => "not_jsonrpc",
            ReplyRule::IdMismatch => "id_mismatch",
            ReplyRule::JsonRpcError => "jsonrpc_error",
            ReplyRule::ResultOrErrorMissing => "result_or_error_missing",
            ReplyRule::ResourcesMissing => "resources_missing",
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
            ReplyRule::EventCount => "the stream must carry exactly one event",
            ReplyRule::EventWithoutData => "an event without data",
            ReplyRule::EventDataNotJson => "event data is not strict JSON",
            ReplyRule::GetStreamCarriedResponse => "a GET stream carried a JSON-RPC response",
            ReplyRule::NotJsonRpc => "not a JSON-RPC 2.0 message",
            ReplyRule::IdMismatch => "the response id does not match the request",
            ReplyRule::JsonRpcError => "the server answered with a JSON-RPC error",
            ReplyRule::ResultOrErrorMissing => "a response needs exactly one of result and error",
            ReplyRule::ResourcesMissing => "no resources array",
        }
    }
}

impl fmt::Display for ReplyRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.describe(), self.code())
    }
}

/// One request before it is sent: every field in order, editable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestSpec {
    pub method: String,
    pub target: String,
    pub fields: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RequestSpec {
    /// A POST of `body` to /mcp as an MCP client sends it to `host` with `token`: both media
    /// types in `Accept`, a JSON body, and the session headers when there is a `session`.
    pub fn mcp_post(host: &str, token: &str, session: Option<&str>, body: &[u8]) -> RequestSpec {
        let spec = RequestSpec {
            method: "POST".into(),
            target: MCP_PATH.into(),
            fields: vec![
                ("Host".into(), host.to_owned()),
                ("Accept".into(), "application/json, text/event-stream".into()),
                ("Content-Type".into(), "application/json".into()),
                ("Authorization".into(), format!("Bearer {token}")),
            ],
            body: body.to_vec(),
        };
        spec.in_session(session)
    }

    /// A GET (the notification stream, asking for `text/event-stream`) or DELETE on /mcp.
    pub fn mcp_session(
        method: &str,
        host: &str,
        token: &str,
        session: Option<&str>,
    ) -> RequestSpec {
        let mut spec = RequestSpec {
            method: method.into(),
            target: MCP_PATH.into(),
            fields: vec![
                ("Host".into(), host.to_owned()),
                ("Authorization".into(), format!("Bearer {token}")),
            ],
            body: Vec::new(),
        };
        if method == "GET" {
            spec = spec.with("Accept", "text/event-stream");
        }
        spec.in_session(session)
    }

    /// Adds `MCP-Session-Id` and `MCP-Protocol-Version` when there is a session.
    fn in_session(self, session: Option<&str>) -> RequestSpec {
        match session {
            Some(id) => {
                self.with("MCP-Session-Id", id).with("MCP-Protocol-Version", PROTOCOL_VERSION)
            }
            None => self,
        }
    }

    /// Adds a field at the end.
    pub fn with(mut self, name: &str, value: &str) -> Self {
        self.fields.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Removes every field with this name (case-insensitive).
    pub fn without(mut self, name: &str) -> Self {
        self.fields.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    /// Replaces the value of every field with this name, or adds it.
    pub fn set(self, name: &str, value: &str) -> Self {
        self.without(name).with(name, value)
    }

    /// Sends `token` as the bearer token instead.
    pub fn bearer(self, token: &str) -> Self {
        self.set("Authorization", &format!("Bearer {token}"))
    }

    /// The exact bytes: request line, fields, `Content-Length` when there is a body, body.
    pub fn bytes(&self) -> Vec<u8> {
        let fields: Vec<(&str, &str)> =
            self.fields.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        super::http::request(&self.method, &self.target, &fields, &self.body)
    }
}

/// Who this client says it is in `initialize`.
const CLIENT_INFO: ClientInfo<'static> =
    ClientInfo { name: "loopback-mcp-http-client", version: env!("CARGO_PKG_VERSION") };

/// An MCP client bound to one server and one token.
#[derive(Debug)]
pub struct McpClient {
    address: SocketAddr,
    token: String,
    session: Option<String>,
    conn: Option<HttpConnection>,
    pub trace: Trace,
    round_trips: usize,
    next_id: i64,
}

impl McpClient {
    /// A client for the server at `address` (127.0.0.1) using `token`.
    pub fn new(address: SocketAddr, token: &str, trace: Trace) -> McpClient {
        let mut trace = trace;
        trace.secret(token);
        McpClient {
            address,
            token: token.to_owned(),
            session: None,
            conn: None,
            trace,
            round_trips: 0,
            next_id: 1,
        }
    }

    /// How many request/response exchanges went over the wire.
    pub fn round_trips(&self) -> usize {
        self.round_trips
    }

    /// The current session id, if any.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// Adopts a session id (for experiments that borrow another client's session).
    pub fn use_session(&mut self, id: &str) {
        self.trace.secret(id);
        self.session = Some(id.to_owned());
    }

    /// The `Host` this client sends: the server's address.
    pub fn host(&self) -> String {
        self.address.to_string()
    }

    fn next_id(&mut self) -> Id {
        let id = self.next_id;
        self.next_id += 1;
        Id::from(id)
    }

    /// A POST of `body` to /mcp with this client's headers (and session headers when it has one).
    pub fn post_spec(&self, body: &[u8]) -> RequestSpec {
        RequestSpec::mcp_post(&self.host(), &self.token, self.session(), body)
    }

    /// A POST of `message`, encoded, like [`McpClient::post_spec`].
    pub fn message_spec(&self, message: &Value) -> RequestSpec {
        self.post_spec(json::encode(message).as_bytes())
    }

    /// A GET (the event stream) or DELETE on /mcp in the current session.
    pub fn session_spec(&self, method: &str) -> RequestSpec {
        RequestSpec::mcp_session(method, &self.host(), &self.token, self.session())
    }

    /// Sends exact bytes and reads the final response, reconnecting when the previous response
    /// closed the connection. Traced.
    pub fn send(&mut self, bytes: &[u8]) -> Result<ClientResponse, ClientError> {
        let mut conn = match self.conn.take() {
            Some(conn) => conn,
            None => HttpConnection::connect(self.address, &LIMITS)?,
        };
        self.trace.wire('>', bytes);
        self.round_trips += 1;
        let response = conn.exchange(bytes)?;
        if let Some(session) = response.field_str("mcp-session-id") {
            self.trace.secret(session);
        }
        self.trace.wire('<', &response.raw);
        if response.keep_alive {
            self.conn = Some(conn);
        }
        Ok(response)
    }

    /// Sends a spec.
    pub fn send_spec(&mut self, spec: &RequestSpec) -> Result<ClientResponse, ClientError> {
        self.send(&spec.bytes())
    }

    /// A GET of the protected-resource metadata: the `Host` field and nothing else (no
    /// credentials ever go to discovery).
    pub fn discovery_spec(&self) -> RequestSpec {
        RequestSpec {
            method: "GET".into(),
            target: metadata::PATH_FOR_MCP.into(),
            fields: vec![("Host".into(), self.host())],
            body: Vec::new(),
        }
    }

    /// Reads the protected-resource metadata, without credentials, and checks that it describes
    /// the resource this client talks to.
    pub fn discover(&mut self) -> Result<Value, McpError> {
        let response = self.send_spec(&self.discovery_spec())?;
        let doc = json_reply(&response, 200)?;
        let expected = format!("http://{}{MCP_PATH}", self.host());
        if doc.get("resource").and_then(Value::as_str) != Some(expected.as_str()) {
            return Err(McpError::Reply(ReplyRule::MetadataNamesAnotherResource));
        }
        Ok(doc)
    }

    /// `initialize`: stores the session and returns the server's protocol version, or stops when
    /// that version is not one this client speaks.
    pub fn initialize(&mut self, proposed_version: &str) -> Result<String, McpError> {
        let id = self.next_id();
        let message = requests::initialize(&id, proposed_version, CLIENT_INFO);
        self.session = None;
        let response = self.send_spec(&self.message_spec(&message))?;
        let reply = json_reply(&response, 200)?;
        let result = result_of(&reply, &id)?;
        let session =
            response.field("mcp-session-id").ok_or(McpError::Reply(ReplyRule::SessionIdMissing))?;
        let session = Some(session)
            .filter(|s| is_valid_session_id(s))
            .and_then(|s| str::from_utf8(s).ok())
            .ok_or(McpError::Reply(ReplyRule::SessionIdInvalid))?
            .to_owned();
        self.trace.secret(&session);
        let version =
            result.get("protocolVersion").and_then(Value::as_str).unwrap_or("").to_owned();
        if !SUPPORTED_VERSIONS.contains(&version.as_str()) {
            return Err(McpError::VersionUnsupported(version));
        }
        self.session = Some(session);
        Ok(version)
    }

    /// `notifications/initialized`: 202 with no body.
    pub fn initialized(&mut self) -> Result<(), McpError> {
        self.require_session()?;
        let response = self.send_spec(&self.message_spec(&requests::initialized()))?;
        expect_status(&response, 202)?;
        if !response.body.is_empty() {
            return Err(McpError::Reply(ReplyRule::AcceptedWithBody));
        }
        Ok(())
    }

    /// `ping`: a JSON reply with the same id.
    pub fn ping(&mut self) -> Result<(), McpError> {
        self.require_session()?;
        let id = self.next_id();
        let response = self.send_spec(&self.message_spec(&requests::ping(&id)))?;
        result_of(&json_reply(&response, 200)?, &id).map(|_| ())
    }

    /// `resources/list`: an event stream whose one event carries the response with the same id.
    /// Returns the resource URIs and the event's id.
    pub fn list_resources(&mut self) -> Result<(Vec<String>, String), McpError> {
        self.require_session()?;
        let id = self.next_id();
        let response = self.send_spec(&self.message_spec(&requests::list_resources(&id)))?;
        let events = event_stream(&response)?;
        let [event] = events.as_slice() else {
            return Err(McpError::Reply(ReplyRule::EventCount));
        };
        let data = event.data.as_deref().ok_or(McpError::Reply(ReplyRule::EventWithoutData))?;
        let message = json::decode(data.as_bytes(), LIMITS.json_depth_max)
            .map_err(|_| McpError::Reply(ReplyRule::EventDataNotJson))?;
        let result = result_of(&message, &id)?;
        let uris = result
            .get("resources")
            .and_then(Value::as_array)
            .ok_or(McpError::Reply(ReplyRule::ResourcesMissing))?
            .iter()
            .filter_map(|r| r.get("uri").and_then(Value::as_str).map(str::to_owned))
            .collect();
        Ok((uris, event.id.clone().unwrap_or_default()))
    }

    /// `logging/setLevel`: an empty JSON result with the same id.
    pub fn set_log_level(&mut self, level: &str) -> Result<(), McpError> {
        self.require_session()?;
        let id = self.next_id();
        let response = self.send_spec(&self.message_spec(&requests::set_log_level(&id, level)))?;
        result_of(&json_reply(&response, 200)?, &id).map(|_| ())
    }

    /// One GET on the notification stream (from `last_event_id` when given); its events.
    pub fn poll_stream(&mut self, last_event_id: Option<&str>) -> Result<Vec<Event>, McpError> {
        self.require_session()?;
        let mut spec = self.session_spec("GET");
        if let Some(cursor) = last_event_id {
            spec = spec.with("Last-Event-ID", cursor);
        }
        let response = self.send_spec(&spec)?;
        let events = event_stream(&response)?;
        for event in &events {
            if let Some(data) = &event.data {
                let message = json::decode(data.as_bytes(), LIMITS.json_depth_max)
                    .map_err(|_| McpError::Reply(ReplyRule::EventDataNotJson))?;
                if message.get("id").is_some() {
                    return Err(McpError::Reply(ReplyRule::GetStreamCarriedResponse));
                }
            }
        }
        Ok(events)
    }

    /// DELETE: ends the session (204).
    pub fn delete(&mut self) -> Result<(), McpError> {
        self.require_session()?;
        let response = self.send_spec(&self.session_spec("DELETE"))?;
        expect_status(&response, 204)?;
        self.session = None;
        Ok(())
    }

    fn require_session(&self) -> Result<(), McpError> {
        self.session.as_ref().map(|_| ()).ok_or(McpError::NoSession)
    }
}

/// The public code in an error body, or an empty string.
pub fn error_code(response: &ClientResponse) -> String {
    json::decode(&response.body, LIMITS.json_depth_max)
        .ok()
        .and_then(|v| {
            v.get("error").and_then(|e| e.get("message")).and_then(Value::as_str).map(str::to_owned)
        })
        .unwrap_or_default()
}

fn expect_status(response: &ClientResponse, status: u16) -> Result<(), McpError> {
    if response.status == status {
        Ok(())
    } else {
        Err(McpError::Status { status: response.status, code: error_code(response) })
    }
}

fn media_type_is(response: &ClientResponse, type_: &str, subtype: &str) -> bool {
    response
        .field("content-type")
        .and_then(|v| crate::http::media::MediaType::parse(v).ok())
        .is_some_and(|m| m.is(type_, subtype))
}

/// The JSON body of a response with this status and an `application/json` content type.
fn json_reply(response: &ClientResponse, status: u16) -> Result<Value, McpError> {
    expect_status(response, status)?;
    if !media_type_is(response, "application", "json") {
        return Err(McpError::Reply(ReplyRule::ContentTypeNotJson));
    }
    json::decode(&response.body, LIMITS.json_depth_max)
        .map_err(|_| McpError::Reply(ReplyRule::BodyNotJson))
}

/// The events of a 200 `text/event-stream` response.
fn event_stream(response: &ClientResponse) -> Result<Vec<Event>, McpError> {
    expect_status(response, 200)?;
    if !media_type_is(response, "text", "event-stream") {
        return Err(McpError::Reply(ReplyRule::ContentTypeNotEventStream));
    }
    sse::parse_stream(&response.body, &LIMITS)
        .map_err(|_| McpError::Reply(ReplyRule::EventStreamInvalid))
}

/// The `result` of a JSON-RPC response whose id is `id`.
fn result_of<'m>(message: &'m Value, id: &Id) -> Result<&'m Value, McpError> {
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(McpError::Reply(ReplyRule::NotJsonRpc));
    }
    if message.get("id") != Some(&id.to_value()) {
        return Err(McpError::Reply(ReplyRule::IdMismatch));
    }
    match (message.get("result"), message.get("error")) {
        (Some(result), None) => Ok(result),
        (None, Some(_)) => Err(McpError::Reply(ReplyRule::JsonRpcError)),
        _ => Err(McpError::Reply(ReplyRule::ResultOrErrorMissing)),
    }
}
