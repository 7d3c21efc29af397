//! The MCP 2026-07-28 client, and the choice of era.
//!
//! A modern request is a POST with no session: its body carries `_meta` (the revision, the
//! capabilities the client declares, who it is), and its head the mirrored headers
//! [`crate::client::mirroring::request_headers`] writes from that body. The `Mcp-Param-{Name}`
//! headers come from the annotations of the latest `tools/list`, whose tools with broken
//! annotations are left out, each with a warning ([`McpClient::warnings`]). A `tools/call`
//! refused with `-32020` is sent once more after a fresh `tools/list`, as the specification
//! advises, in case the tool's schema changed.
//!
//! An answer is a JSON reply or an event stream (notifications, then the response; nothing
//! resumes in this revision). A refusal whose body is a modern JSON-RPC error becomes a typed
//! error: `-32020` [`McpError::HeaderMismatch`], `-32021` [`McpError::CapabilityMissing`],
//! `-32022` [`McpError::UnsupportedVersion`] (all with 400), `-32601`
//! [`McpError::MethodNotFound`] (with 404). Text the server put in those errors is kept only as
//! printable ASCII, at most [`SERVER_TEXT_MAX`] characters each, so an error message cannot
//! carry control bytes to a terminal.
//!
//! [`McpClient::open`] settles the era for the revisions the client is asked to speak:
//! revisions of the legacy era alone open a session (`initialize`, `notifications/initialized`);
//! of the modern era alone, the client asks `server/discover` in the newest of them; of both, it
//! probes with `server/discover` and falls back to a session only when the answer is a 400 whose
//! body is not a modern error (the default server's answer). A modern error means a modern
//! server: the client stays modern and reports the error, except a `-32022` naming versions the
//! client speaks too, which is a negotiation: the newest of them of the modern era, asked once
//! more, or else a session.
//!
//! Not here: the bytes of the legacy exchanges and of replies in general (see [`super::mcp`]).

use super::http::ClientResponse;
use super::mcp::{
    CLIENT_INFO, McpClient, McpError, ReplyRule, RequestSpec, Streamed, event_stream,
    expect_status, media_type_is, result_of,
};
use super::mirroring::{self, ToolHeaders};
use crate::json::{self, Object, Value, members};
use crate::limits::Limits;
use crate::mcp::PROTOCOL_VERSION;
use crate::mcp::jsonrpc::{Id, code};
use crate::mcp::meta::ClientCapability;
use crate::mcp::requests;
use crate::mcp::revision::{Era, Eras, Revision, Versions};

/// The longest piece of server text an error keeps.
pub const SERVER_TEXT_MAX: usize = 64;

/// How the client settled its era.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opened {
    /// A session of 2025-11-25, opened straight away (the client speaks no other revision).
    Legacy,
    /// 2026-07-28: the server answered `server/discover`.
    Modern,
    /// A session of 2025-11-25, after a modern probe answered with a 400 that is not a modern
    /// error.
    FellBack,
    /// A session of 2025-11-25, after the server named it among the versions it supports.
    Negotiated,
}

impl Opened {
    /// The era this leaves the client in.
    pub const fn era(self) -> Era {
        match self {
            Opened::Modern => Era::Modern,
            Opened::Legacy | Opened::FellBack | Opened::Negotiated => Era::Legacy,
        }
    }

    /// How it settled, in words.
    pub const fn describe(self) -> &'static str {
        match self {
            Opened::Legacy => "a 2025-11-25 session",
            Opened::Modern => "2026-07-28, no session",
            Opened::FellBack => "fell back to a 2025-11-25 session",
            Opened::Negotiated => "a 2025-11-25 session, the version the server named",
        }
    }
}

impl McpClient {
    /// Settles the era for `versions` (the module docs say how), and remembers it.
    pub fn open(&mut self, versions: Versions) -> Result<Opened, McpError> {
        if let Some(newest) = versions.newest_in(Era::Modern) {
            self.modern = newest;
        }
        let opened = match versions.eras() {
            Eras::One(Era::Legacy) => {
                self.open_session()?;
                Opened::Legacy
            }
            Eras::One(Era::Modern) => {
                self.discover_as(versions)?;
                Opened::Modern
            }
            Eras::Both => self.probe(versions)?,
        };
        self.era = Some(opened.era());
        Ok(opened)
    }

    /// The revision of the modern era the client's requests name.
    pub fn modern_revision(&self) -> Revision {
        self.modern
    }

    /// `server/discover` in the client's newest modern revision, and once more in the newest one
    /// both sides speak when the server names others (`-32022`).
    fn discover_as(&mut self, versions: Versions) -> Result<Vec<String>, McpError> {
        match self.server_discover() {
            Err(McpError::UnsupportedVersion { supported }) => {
                match shared(versions, &supported, Era::Modern).filter(|r| *r != self.modern) {
                    Some(revision) => {
                        self.modern = revision;
                        self.server_discover()
                    }
                    None => Err(McpError::UnsupportedVersion { supported }),
                }
            }
            answered => answered,
        }
    }

    /// The era [`McpClient::open`] settled, if it ran.
    pub fn era(&self) -> Option<Era> {
        self.era
    }

    /// The dual-era probe: `server/discover`, and what its answer means.
    fn probe(&mut self, versions: Versions) -> Result<Opened, McpError> {
        match self.discover_as(versions) {
            Ok(_) => Ok(Opened::Modern),
            Err(McpError::UnsupportedVersion { supported })
                if shared(versions, &supported, Era::Legacy).is_some() =>
            {
                self.open_session()?;
                Ok(Opened::Negotiated)
            }
            Err(McpError::Status { status: 400, .. }) => {
                self.open_session()?;
                Ok(Opened::FellBack)
            }
            Err(other) => Err(other),
        }
    }

    /// `initialize` with 2025-11-25, then `notifications/initialized`.
    fn open_session(&mut self) -> Result<(), McpError> {
        self.initialize(PROTOCOL_VERSION)?;
        self.initialized()
    }

    /// Declares `capability` in every later modern request.
    pub fn declare(&mut self, capability: ClientCapability) {
        if !self.capabilities.contains(&capability) {
            self.capabilities.push(capability);
        }
    }

    /// The tools of its latest modern `tools/list`, and what each mirrors.
    pub fn tool_headers(&self) -> &[ToolHeaders] {
        &self.tools
    }

    /// The warnings of tools left out of a list, oldest first.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The modern request `method` with `params`, its id the next one: the message and its id.
    pub fn modern_message(&mut self, method: &str, params: Object) -> (Value, Id) {
        let id = self.next_id();
        let message =
            requests::modern((&id, method, self.modern), params, &self.capabilities, CLIENT_INFO);
        (message, id)
    }

    /// The POST of `message` with every mirrored header its body calls for.
    pub fn modern_spec(&self, message: &Value) -> Result<RequestSpec, McpError> {
        let headers =
            mirroring::request_headers(message, &self.tools).map_err(McpError::Unmirrorable)?;
        let body = json::encode(message);
        let spec = RequestSpec::mcp_post(&self.host(), &self.token, None, body.as_bytes());
        Ok(headers.iter().fold(spec, |spec, (name, value)| spec.with(name, value)))
    }

    /// Sends the modern request `method` with `params` and reads its response.
    pub fn modern_request(&mut self, method: &str, params: Object) -> Result<Streamed, McpError> {
        let (message, id) = self.modern_message(method, params);
        let response = self.send_spec(&self.modern_spec(&message)?)?;
        modern_reply(&response, &id)
    }

    /// `server/discover`: the versions the server supports.
    pub fn server_discover(&mut self) -> Result<Vec<String>, McpError> {
        let streamed = self.modern_request("server/discover", Object::new())?;
        let id = streamed.response.get("id").cloned().unwrap_or(Value::Null);
        let result = streamed.response.get("result").filter(|_| id != Value::Null);
        let versions = result
            .and_then(|r| r.get("supportedVersions"))
            .and_then(Value::as_array)
            .ok_or(McpError::Reply(ReplyRule::SupportedVersionsMissing))?;
        Ok(versions.iter().filter_map(Value::as_str).map(printable).collect())
    }

    /// Modern `tools/list`: the names of the tools the client may call. A tool whose
    /// `x-mcp-header` annotations break the specification's constraints is left out, and a
    /// warning says which and why.
    pub fn list_tools_modern(&mut self) -> Result<Vec<String>, McpError> {
        let streamed = self.modern_request("tools/list", Object::new())?;
        let id = streamed.response.get("id").cloned().unwrap_or(Value::Null);
        let tools = streamed
            .response
            .get("result")
            .filter(|_| id != Value::Null)
            .and_then(|r| r.get("tools"))
            .and_then(Value::as_array)
            .ok_or(McpError::Reply(ReplyRule::ToolsMissing))?;
        let mut kept = Vec::new();
        for tool in tools {
            let name = tool.get("name").and_then(Value::as_str);
            let name = name.ok_or(McpError::Reply(ReplyRule::ToolsMissing))?;
            match mirroring::tool_headers(name, tool.get("inputSchema")) {
                Ok(headers) => kept.push(headers),
                Err(why) => {
                    self.warnings.push(format!("tool {:?} left out: {why}", printable(name)))
                }
            }
        }
        self.tools = kept;
        Ok(self.tools.iter().map(|t| t.tool.clone()).collect())
    }

    /// Modern `tools/call` of `name` with `arguments`, its mirrored headers from the latest list.
    /// Refused with `-32020`, it is sent once more after a fresh `tools/list`.
    pub fn call_tool_modern(
        &mut self,
        name: &str,
        arguments: Object,
    ) -> Result<Streamed, McpError> {
        let params = members([("name", name.into()), ("arguments", Value::Object(arguments))]);
        match self.modern_request("tools/call", params.clone()) {
            Err(McpError::HeaderMismatch { .. }) => {
                self.list_tools_modern()?;
                self.modern_request("tools/call", params)
            }
            other => other,
        }
    }
}

/// The answer to a modern request whose id is `id`: its response from a JSON reply or an event
/// stream, or the typed refusal.
pub fn modern_reply(response: &ClientResponse, id: &Id) -> Result<Streamed, McpError> {
    if let Some(refusal) = modern_error(response) {
        return Err(refusal);
    }
    expect_status(response, 200)?;
    let streamed = if media_type_is(response, "application", "json") {
        let reply = json::decode(&response.body, Limits::DEFAULT.json_depth_max)
            .map_err(|_| McpError::Reply(ReplyRule::BodyNotJson))?;
        Streamed { response: reply, ..Streamed::default() }
    } else {
        let mut streamed = Streamed::default();
        let mut retry = None;
        if !streamed.follow(&event_stream(response)?, id, &mut retry)? {
            return Err(McpError::Reply(ReplyRule::StreamEndedWithoutResponse));
        }
        streamed
    };
    result_of(&streamed.response, id)?;
    Ok(streamed)
}

/// The typed error a modern refusal carries: a JSON-RPC error of this revision's codes, with the
/// status the specification pairs with it. `None` for anything else (a 200, a legacy 400, an
/// empty body), which is what a dual-era client falls back on.
pub fn modern_error(response: &ClientResponse) -> Option<McpError> {
    if !media_type_is(response, "application", "json") {
        return None;
    }
    let message = json::decode(&response.body, Limits::DEFAULT.json_depth_max).ok()?;
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return None;
    }
    let error = message.get("error")?;
    let data = error.get("data");
    let text = |key: &str| data.and_then(|d| d.get(key)).and_then(Value::as_str).map(printable);
    match (response.status, error.get("code")?.as_number()?.as_i64()?) {
        (400, code::HEADER_MISMATCH) => Some(McpError::HeaderMismatch {
            header: text("header").unwrap_or_default(),
            reason: text("reason").unwrap_or_default(),
        }),
        (400, code::MISSING_REQUIRED_CLIENT_CAPABILITY) => {
            let required = data.and_then(|d| d.get("requiredCapabilities"));
            let names = required
                .and_then(Value::as_object)
                .map(|o| o.keys().map(|k| printable(k)).collect());
            Some(McpError::CapabilityMissing { required: names.unwrap_or_default() })
        }
        (400, code::UNSUPPORTED_PROTOCOL_VERSION) => {
            let supported = data.and_then(|d| d.get("supported")).and_then(Value::as_array);
            let names =
                supported.map(|s| s.iter().filter_map(Value::as_str).map(printable).collect());
            Some(McpError::UnsupportedVersion { supported: names.unwrap_or_default() })
        }
        (404, code::METHOD_NOT_FOUND) => Some(McpError::MethodNotFound),
        _ => None,
    }
}

/// Server text as an error keeps it: printable ASCII only (anything else becomes `?`), at most
/// [`SERVER_TEXT_MAX`] characters.
pub fn printable(text: &str) -> String {
    text.chars()
        .take(SERVER_TEXT_MAX)
        .map(|c| if c.is_ascii_graphic() || c == ' ' { c } else { '?' })
        .collect()
}

/// The newest revision of `era` that the client speaks (`versions`) and the server named
/// (`supported`).
fn shared(versions: Versions, supported: &[String], era: Era) -> Option<Revision> {
    let named = |r: &Revision| supported.iter().any(|name| name == r.name());
    versions.newest_first().filter(|r| r.era() == era).find(named)
}
