//! The MCP client over the loopback HTTP layer, and its 2025-11-25 exchanges.
//!
//! [`McpClient`] keeps one keep-alive connection (a new one after the server closes it), the
//! bearer token, and the session once `initialize` hands one out. Its 2026-07-28 requests and
//! the choice between the eras are in [`super::modern`]. Every request is built as a
//! [`RequestSpec`] the caller may alter before it is sent, which is how `attack` and `lab` change
//! exactly one thing at a time. Every reply is checked before it is believed: the status, the
//! content type, the JSON-RPC id, the session id's characters, the event-stream framing.
//!
//! The token goes only into the `Authorization` field, never into a URL or a body, and never to
//! the discovery document. If `initialize` answers a protocol version this client does not speak,
//! the handshake stops there: `notifications/initialized` is not sent.
//!
//! A request answered as an event stream is followed to its response ([`McpClient::request`]):
//! priming events (an id and empty data) are skipped, the last id of the stream is recorded, and
//! a stream that ends without the response is resumed, after the `retry` the server asked for,
//! with a GET carrying `Last-Event-ID`, never by sending the request again. It resumes at most
//! `client_resumptions_max` times, all within `client_request_deadline`; a refused resumption is
//! a typed error ([`McpError::ResumeRefused`]).

use std::net::SocketAddr;
use std::time::{Duration, Instant};
use std::{str, thread};

pub use super::error::{McpError, ReplyRule};
use super::http::{ClientError, ClientResponse, HttpConnection};
use super::mirroring::ToolHeaders;
use super::trace::Trace;
use crate::auth::metadata;
use crate::json::{self, Value};
use crate::limits::Limits;
use crate::mcp::jsonrpc::Id;
use crate::mcp::meta::ClientCapability;
use crate::mcp::requests::{self, ClientInfo};
use crate::mcp::revision::{Era, Revision};
use crate::mcp::{MCP_PATH, PROTOCOL_VERSION, is_valid_session_id};
use crate::sse::{self, Event};

/// The client's budgets: the project's defaults, the same the server enforces.
const LIMITS: Limits = Limits::DEFAULT;

/// The protocol versions this client speaks.
pub const SUPPORTED_VERSIONS: [&str; 1] = [PROTOCOL_VERSION];

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

    /// The request's bytes with its body in the chunked coding, in chunks of at most `piece`
    /// bytes (for a server started with `--chunked`).
    pub fn chunked_bytes(&self, piece: usize) -> Vec<u8> {
        let fields: Vec<(&str, &str)> =
            self.fields.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        let chunks: Vec<&[u8]> = self.body.chunks(piece.max(1)).collect();
        super::http::chunked_request(&self.method, &self.target, &fields, &chunks)
    }
}

/// A request's answer, as the client followed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Streamed {
    /// The JSON-RPC response to the request.
    pub response: Value,
    /// The messages that arrived on its stream before the response (notifications), in order.
    pub notifications: Vec<Value>,
    /// Every event of its stream, priming events included, across every response.
    pub events: Vec<Event>,
    /// The id of the event that carried the response (`None` for a JSON reply).
    pub response_event_id: Option<String>,
    /// The last event id received: the stream's cursor.
    pub last_event_id: Option<String>,
    /// How many resumptions it took.
    pub resumptions: usize,
}

impl Default for Streamed {
    fn default() -> Streamed {
        Streamed {
            response: Value::Null,
            notifications: Vec::new(),
            events: Vec::new(),
            response_event_id: None,
            last_event_id: None,
            resumptions: 0,
        }
    }
}

impl Streamed {
    /// Takes in one response's events: records ids and the `retry`, skips priming events, keeps
    /// notifications, and stops at the response to `id`. True once the response is here.
    pub(super) fn follow(
        &mut self,
        events: &[Event],
        id: &Id,
        retry: &mut Option<u64>,
    ) -> Result<bool, McpError> {
        for event in events {
            self.events.push(event.clone());
            if let Some(event_id) = &event.id {
                self.last_event_id = Some(event_id.clone());
            }
            if event.retry.is_some() {
                *retry = event.retry;
            }
            let Some(data) = event.data.as_deref().filter(|d| !d.is_empty()) else {
                continue; // a priming event (or an event with no data): nothing to read
            };
            let message = json::decode(data.as_bytes(), LIMITS.json_depth_max)
                .map_err(|_| McpError::Reply(ReplyRule::EventDataNotJson))?;
            let is_response = message.get("result").is_some() || message.get("error").is_some();
            if !is_response {
                self.notifications.push(message);
                continue;
            }
            if message.get("id") != Some(&id.to_value()) {
                return Err(McpError::Reply(ReplyRule::IdMismatch));
            }
            self.response = message;
            self.response_event_id = event.id.clone();
            return Ok(true);
        }
        Ok(false)
    }
}

/// True for a priming event: an id to resume from and empty data.
pub fn is_priming(event: &Event) -> bool {
    event.id.is_some() && event.data.as_deref() == Some("")
}

/// Who this client says it is in `initialize`.
pub(super) const CLIENT_INFO: ClientInfo<'static> =
    ClientInfo { name: "loopback-mcp-http-client", version: env!("CARGO_PKG_VERSION") };

/// An MCP client bound to one server and one token.
#[derive(Debug)]
pub struct McpClient {
    pub(super) address: SocketAddr,
    pub(super) token: String,
    session: Option<String>,
    conn: Option<HttpConnection>,
    pub trace: Trace,
    pub(super) round_trips: usize,
    next_id: i64,
    /// The era the client settled in, once [`McpClient::open`] has run.
    pub(super) era: Option<Era>,
    /// The revision its modern requests name: the newest the table knows, until
    /// [`McpClient::open`] settles one the server speaks.
    pub(super) modern: Revision,
    /// The 2026-07-28 tools it may call, and what each mirrors (from its latest `tools/list`).
    pub(super) tools: Vec<ToolHeaders>,
    /// The capabilities its 2026-07-28 requests declare.
    pub(super) capabilities: Vec<ClientCapability>,
    /// Tools left out of a list, with the reason: the warnings the specification asks for.
    pub(super) warnings: Vec<String>,
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
            era: None,
            modern: Revision::newest(Era::Modern),
            tools: Vec::new(),
            capabilities: Vec::new(),
            warnings: Vec::new(),
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

    pub(super) fn next_id(&mut self) -> Id {
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

    /// Closes the kept connection, if any: the next request opens a fresh one. For a request
    /// that waits on a person, so that no idle deadline of the server runs meanwhile.
    pub fn disconnect(&mut self) {
        self.conn = None;
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

    /// `resources/list`, answered as an event stream: the resource URIs and the id of the event
    /// that carried the response.
    pub fn list_resources(&mut self) -> Result<(Vec<String>, String), McpError> {
        let id = self.next_id();
        let streamed = self.request(&requests::list_resources(&id), &id)?;
        let uris = result_of(&streamed.response, &id)?
            .get("resources")
            .and_then(Value::as_array)
            .ok_or(McpError::Reply(ReplyRule::ResourcesMissing))?
            .iter()
            .filter_map(|r| r.get("uri").and_then(Value::as_str).map(str::to_owned))
            .collect();
        Ok((uris, streamed.response_event_id.unwrap_or_default()))
    }

    /// `tools/list`: the names of the tools.
    pub fn list_tools(&mut self) -> Result<Vec<String>, McpError> {
        let id = self.next_id();
        let streamed = self.request(&requests::list_tools(&id), &id)?;
        let tools = result_of(&streamed.response, &id)?
            .get("tools")
            .and_then(Value::as_array)
            .ok_or(McpError::Reply(ReplyRule::ToolsMissing))?;
        tools
            .iter()
            .map(|t| t.get("name").and_then(Value::as_str).map(str::to_owned))
            .collect::<Option<Vec<String>>>()
            .ok_or(McpError::Reply(ReplyRule::ToolsMissing))
    }

    /// `tools/call` of `name` without arguments, followed through every resumption its stream
    /// needs. The response is a result (checked), not an error.
    pub fn call_tool(&mut self, name: &str) -> Result<Streamed, McpError> {
        let id = self.next_id();
        let streamed = self.request(&requests::call_tool(&id, name), &id)?;
        result_of(&streamed.response, &id)?;
        Ok(streamed)
    }

    /// Sends the request `message` (whose id is `id`) and reads its response: from a JSON reply,
    /// or from an event stream followed as the module docs say, resumed when it ends early.
    pub fn request(&mut self, message: &Value, id: &Id) -> Result<Streamed, McpError> {
        self.require_session()?;
        let deadline = Instant::now() + LIMITS.client_request_deadline;
        let response = self.send_spec(&self.message_spec(message))?;
        expect_status(&response, 200)?;
        if media_type_is(&response, "application", "json") {
            let reply = json_reply(&response, 200)?;
            return Ok(Streamed { response: reply, ..Streamed::default() });
        }
        let mut streamed = Streamed::default();
        let mut retry = None;
        if streamed.follow(&event_stream(&response)?, id, &mut retry)? {
            return Ok(streamed);
        }
        self.follow_resumptions(streamed, id, retry, deadline)
    }

    /// Resumes `streamed` from its cursor until the response to `id` arrives, each time after
    /// the server's `retry`, within the budget of resumptions and before `deadline`.
    pub(super) fn follow_resumptions(
        &mut self,
        mut streamed: Streamed,
        id: &Id,
        mut retry: Option<u64>,
        deadline: Instant,
    ) -> Result<Streamed, McpError> {
        loop {
            let Some(cursor) = streamed.last_event_id.clone() else {
                return Err(McpError::Reply(ReplyRule::StreamEndedWithoutResponse));
            };
            if streamed.resumptions >= LIMITS.client_resumptions_max {
                let limit = LIMITS.client_resumptions_max;
                return Err(McpError::ResumptionsExhausted { limit });
            }
            let wait = retry.map_or(LIMITS.stream_retry, Duration::from_millis);
            if Instant::now().checked_add(wait).is_none_or(|resume_at| resume_at >= deadline) {
                return Err(McpError::DeadlinePassed);
            }
            thread::sleep(wait);
            streamed.resumptions += 1;
            let resumed =
                self.send_spec(&self.session_spec("GET").with("Last-Event-ID", &cursor))?;
            match resumed.status {
                200 => {}
                204 => return Err(McpError::Reply(ReplyRule::StreamCompleteWithoutResponse)),
                status => {
                    return Err(McpError::ResumeRefused { status, code: error_code(&resumed) });
                }
            }
            if streamed.follow(&event_stream(&resumed)?, id, &mut retry)? {
                return Ok(streamed);
            }
        }
    }

    /// `logging/setLevel`: an empty JSON result with the same id.
    pub fn set_log_level(&mut self, level: &str) -> Result<(), McpError> {
        self.require_session()?;
        let id = self.next_id();
        let response = self.send_spec(&self.message_spec(&requests::set_log_level(&id, level)))?;
        result_of(&json_reply(&response, 200)?, &id).map(|_| ())
    }

    /// One GET on the notification stream (from `last_event_id` when given); its events, the
    /// priming event first.
    pub fn poll_stream(&mut self, last_event_id: Option<&str>) -> Result<Vec<Event>, McpError> {
        self.require_session()?;
        let mut spec = self.session_spec("GET");
        if let Some(cursor) = last_event_id {
            spec = spec.with("Last-Event-ID", cursor);
        }
        let response = self.send_spec(&spec)?;
        let events = event_stream(&response)?;
        for event in &events {
            if let Some(data) = event.data.as_deref().filter(|d| !d.is_empty()) {
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

pub(super) fn expect_status(response: &ClientResponse, status: u16) -> Result<(), McpError> {
    if response.status == status {
        Ok(())
    } else {
        Err(McpError::Status { status: response.status, code: error_code(response) })
    }
}

pub(super) fn media_type_is(response: &ClientResponse, type_: &str, subtype: &str) -> bool {
    response
        .field("content-type")
        .and_then(|v| crate::http::media::MediaType::parse(v).ok())
        .is_some_and(|m| m.is(type_, subtype))
}

/// The JSON body of a response with this status and an `application/json` content type.
pub(super) fn json_reply(response: &ClientResponse, status: u16) -> Result<Value, McpError> {
    expect_status(response, status)?;
    if !media_type_is(response, "application", "json") {
        return Err(McpError::Reply(ReplyRule::ContentTypeNotJson));
    }
    json::decode(&response.body, LIMITS.json_depth_max)
        .map_err(|_| McpError::Reply(ReplyRule::BodyNotJson))
}

/// The events of a 200 `text/event-stream` response.
pub(super) fn event_stream(response: &ClientResponse) -> Result<Vec<Event>, McpError> {
    expect_status(response, 200)?;
    if !media_type_is(response, "text", "event-stream") {
        return Err(McpError::Reply(ReplyRule::ContentTypeNotEventStream));
    }
    sse::parse_stream(&response.body, &LIMITS)
        .map_err(|_| McpError::Reply(ReplyRule::EventStreamInvalid))
}

/// The `result` of a JSON-RPC response whose id is `id`.
pub(super) fn result_of<'m>(message: &'m Value, id: &Id) -> Result<&'m Value, McpError> {
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
