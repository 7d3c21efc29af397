//! The server under probe as a `render::World`: where requests go, which era they speak, the
//! sessions and tokens they carry. Opening a peer finds what the server speaks (a
//! `server/discover`, an `initialize`), opens the sessions the rows need and lists the tools;
//! closing it deletes every session the probe caused, its own and any a hostile request made.
//!
//! Not here: the rows (`catalogue`) or their verdicts (`judge`).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::mcp::RequestSpec;
use loopback_mcp_http::client::mirroring::{self, ToolHeaders};
use loopback_mcp_http::client::trace::Trace;
use loopback_mcp_http::json::{self, Object, Value};
use loopback_mcp_http::mcp::jsonrpc::{self, Id};
use loopback_mcp_http::mcp::requests;
use loopback_mcp_http::mcp::revision::{Era, Revision, Versions};

use super::judge;
use super::wire::{self, Exchange};
use crate::cli::case::{Base, Body, Message, Modern, Sender, Text};
use crate::cli::render::{self, CLIENT, Callable, MirroredArgument, World};

/// The most requests one probe sends.
pub const REQUESTS_MAX: usize = 300;

/// How long one exchange may take.
pub const EXCHANGE_DEADLINE: Duration = Duration::from_secs(5);

/// How long after a slow call starts the cancellation naming it is sent.
const CANCEL_AFTER: Duration = Duration::from_millis(50);

/// A field value past the budgets servers commonly have (16 KiB in Node, 64 KiB in h11).
const VALUE_OVER_TYPICAL: usize = 64 * 1024 + 1;
/// A body past the common 4 MiB.
const BODY_OVER_TYPICAL: usize = 4 * 1024 * 1024 + 1;
/// Field lines past what any common server takes.
const FIELDS_OVER_TYPICAL: usize = 1000;
/// Nesting past what a recursive parser's stack holds (Python's default recursion limit is
/// 1000), in a body under the common size budgets.
const DEPTH_OVER_TYPICAL: usize = 4_000;

/// Where the server is.
#[derive(Clone, Debug)]
pub struct Target {
    pub address: SocketAddr,
    /// The URL's authority, as `Host` names it.
    pub authority: String,
    pub path: String,
}

/// What the probe was given.
#[derive(Debug, Default)]
pub struct Credentials {
    pub token: Option<String>,
    pub other_token: Option<String>,
    /// Extra field lines for every request (`--header`).
    pub headers: Vec<(String, String)>,
}

/// The server under probe, as far as the probe knows it.
pub struct Peer {
    pub target: Target,
    credentials: Credentials,
    pub trace: Trace,
    /// It answers `initialize` with 2025-11-25.
    pub legacy: bool,
    /// The 2026-era revision it answers `server/discover` with.
    pub modern: Option<Revision>,
    /// The sessions of the first principal, the second, and one ended by DELETE.
    sessions: [Option<String>; 3],
    tools: Vec<ToolHeaders>,
    callable: Callable,
    /// The first principal's session lists `test_tool_slow`, the call a cancellation names.
    slow_tool: bool,
    /// Sessions a hostile request made, with the principal that made them.
    strays: Vec<(String, Sender)>,
    pub sent: usize,
    /// The baseline's method (see [`Peer::baseline_methods`]).
    ordinary: &'static str,
    /// How many exchanges brought an answer.
    pub answered: usize,
    pub deadline: Instant,
}

impl Peer {
    /// Finds what the server speaks within `versions`, and opens what the rows need.
    pub fn open(
        target: Target,
        credentials: Credentials,
        trace: Trace,
        versions: Versions,
        deadline: Instant,
    ) -> Peer {
        let mut trace = trace;
        for token in [&credentials.token, &credentials.other_token].into_iter().flatten() {
            trace.secret(token);
        }
        let mut peer = Peer {
            target,
            credentials,
            trace,
            legacy: false,
            modern: None,
            sessions: [None, None, None],
            tools: Vec::new(),
            callable: Callable::default(),
            slow_tool: false,
            strays: Vec::new(),
            sent: 0,
            ordinary: "ping",
            answered: 0,
            deadline,
        };
        if let Some(newest) = versions.newest_in(Era::Modern) {
            peer.modern = peer.discover(newest, versions);
        }
        if versions.speaks(Revision::newest(Era::Legacy)) {
            peer.open_legacy();
        }
        if peer.modern.is_some() {
            peer.list_tools();
        }
        peer.ordinary = peer.baseline_methods()[0];
        peer
    }

    /// The judge's context.
    pub fn context(&self) -> judge::Context {
        let endpoint = format!("http://{}{}", self.target.authority, self.target.path);
        judge::Context { endpoint, modern: self.modern.is_some() }
    }

    /// Whether the first principal holds a session, the second one, and an ended one.
    pub fn has_session(&self, sender: Sender) -> bool {
        self.session(sender).is_some()
    }

    /// The tokens no answer may carry.
    pub fn tokens(&self) -> Vec<&str> {
        [&self.credentials.token, &self.credentials.other_token]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect()
    }

    /// The session ids no refusal may repeat.
    pub fn session_ids(&self) -> Vec<&str> {
        self.sessions.iter().flatten().map(String::as_str).collect()
    }

    pub fn has_token(&self) -> bool {
        self.credentials.token.is_some()
    }

    pub fn has_mirrored_tool(&self) -> bool {
        self.callable.mirrored.is_some()
    }

    /// Sends `bytes` and reads the answer, within the request and time budgets; a session id a
    /// hostile request was given is kept for deleting.
    pub fn send(&mut self, sender: Sender, bytes: &[u8]) -> Exchange {
        self.send_watching(sender, bytes, wire::CLOSE_GLANCE)
    }

    /// [`Peer::send`], watching the connection for its close as long as `watch`.
    pub fn send_watching(&mut self, sender: Sender, bytes: &[u8], watch: Duration) -> Exchange {
        if self.sent >= REQUESTS_MAX || Instant::now() >= self.deadline {
            return Exchange { failure: Some(wire::Failure::Timeout), ..Exchange::default() };
        }
        self.sent += 1;
        self.trace.wire('>', bytes);
        let deadline = (Instant::now() + EXCHANGE_DEADLINE).min(self.deadline);
        let to_head = bytes.starts_with(b"HEAD ");
        let exchange = wire::exchange(self.target.address, bytes, (deadline, watch), to_head);
        self.received(sender, exchange)
    }

    /// What every answer goes through: a session id it mints that is none of the probe's own
    /// is redacted from here on and kept for deleting; the answer is traced and counted.
    fn received(&mut self, sender: Sender, exchange: Exchange) -> Exchange {
        let minted =
            exchange.head.as_ref().and_then(|h| h.field("mcp-session-id")).map(str::to_owned);
        if let Some(id) = minted.filter(|id| !self.sessions.iter().flatten().any(|s| s == id)) {
            self.trace.secret(&id);
            if !self.strays.iter().any(|(s, _)| *s == id) {
                self.strays.push((id, sender));
            }
        }
        self.trace.wire('<', &exchange.raw);
        self.answered += usize::from(exchange.head.is_some());
        exchange
    }

    /// Deletes every session the probe opened or caused.
    pub fn close(&mut self) {
        let mine = [(0, Sender::Alice), (1, Sender::Mallory)];
        let mut ids: Vec<(String, Sender)> =
            mine.iter().filter_map(|&(i, s)| self.sessions[i].clone().map(|id| (id, s))).collect();
        ids.append(&mut self.strays);
        for (id, sender) in ids {
            self.delete(sender, &id);
        }
    }

    fn delete(&mut self, sender: Sender, id: &str) -> bool {
        let spec = self
            .bare("DELETE", sender)
            .with("MCP-Session-Id", id)
            .with("MCP-Protocol-Version", Revision::newest(Era::Legacy).name());
        let exchange = self.send(sender, &spec.bytes());
        exchange.head.is_some_and(|h| (200..300).contains(&h.status))
    }

    /// `server/discover` at `revision`: the revision the server speaks, when it answers as a
    /// 2026-era server (at another revision it names, when one is in `versions`).
    fn discover(&mut self, revision: Revision, versions: Versions) -> Option<Revision> {
        let message =
            render::modern_message(Modern::Discover, &Callable::default(), revision).ok()?;
        let exchange = self.send(Sender::Alice, &self.modern_spec(Sender::Alice, &message).bytes());
        if !judge::tells_modern(&exchange) {
            return None;
        }
        let named = judge::supported_versions(&exchange).unwrap_or_default();
        let known = named
            .iter()
            .filter_map(|name| Revision::from_name(name.as_bytes()))
            .filter(|r| r.era() == Era::Modern && versions.speaks(*r))
            .max();
        // A result answers at the revision asked; an error names the ones it would answer.
        match judge::rpc_code(&exchange) {
            None => Some(revision),
            Some(_) => known,
        }
    }

    /// `initialize` for the first principal (then `initialized`), a session for the second, and
    /// one more ended at once by DELETE.
    fn open_legacy(&mut self) {
        let Some(first) = self.initialize(Sender::Alice) else { return };
        self.legacy = true;
        self.sessions[0] = first;
        if self.sessions[0].is_none() {
            return;
        }
        if self.credentials.other_token.is_some() {
            self.sessions[1] = self.initialize(Sender::Mallory).flatten();
        }
        self.slow_tool = self.lists_slow_tool();
        if let Some(Some(ended)) = self.initialize(Sender::Ended) {
            self.sessions[2] = Some(ended.clone());
            if !self.delete(Sender::Ended, &ended) {
                self.sessions[2] = None;
            }
        }
    }

    /// One `initialize` and its `initialized`: `None` when the server did not answer it with
    /// 2025-11-25, `Some(None)` when it did without a session.
    fn initialize(&mut self, sender: Sender) -> Option<Option<String>> {
        let message =
            requests::initialize(&Id::from(1), Revision::newest(Era::Legacy).name(), CLIENT);
        let spec = self.legacy_spec(sender, &json::encode(&message).into_bytes(), None);
        let exchange = self.send(sender, &spec.bytes());
        let version = judge::message(&exchange)
            .and_then(|m| m.get("result")?.get("protocolVersion")?.as_str().map(str::to_owned));
        if exchange.head.as_ref().map(|h| h.status) != Some(200)
            || version.as_deref() != Some(Revision::newest(Era::Legacy).name())
        {
            return None;
        }
        let session =
            exchange.head.as_ref().and_then(|h| h.field("mcp-session-id")).map(str::to_owned);
        self.strays.retain(|(id, _)| Some(id) != session.as_ref());
        let note = json::encode(&requests::initialized()).into_bytes();
        let spec = self.legacy_spec(sender, &note, session.as_deref());
        self.send(sender, &spec.bytes());
        Some(session)
    }

    /// Whether a 2025-11-25 `tools/list` in the first principal's session names `test_tool_slow`.
    fn lists_slow_tool(&mut self) -> bool {
        let body = json::encode(&render::message_value(Message::ListTools)).into_bytes();
        let spec = self.legacy_spec(Sender::Alice, &body, self.session(Sender::Alice));
        let exchange = self.send(Sender::Alice, &spec.bytes());
        let listed = judge::message(&exchange);
        let tools = listed.as_ref().and_then(|m| m.get("result")?.get("tools")?.as_array());
        let named = |t: &Value| t.get("name").and_then(Value::as_str) == Some("test_tool_slow");
        tools.is_some_and(|tools| tools.iter().any(named))
    }

    /// Whether the server's 2026-07-28 `tools/list` names `tool`.
    pub fn has_tool(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t.tool == tool)
    }

    /// Whether the first principal may start a slow call for a cancellation to name.
    pub fn has_slow_tool(&self) -> bool {
        self.slow_tool
    }

    /// Sends `call` for `owner` on a connection of its own and, once it is under way, `bytes`
    /// for `sender`; the call's exchange, read to its end, and the other's.
    pub fn send_during(
        &mut self,
        (owner, call): (Sender, &[u8]),
        sender: Sender,
        bytes: &[u8],
    ) -> (Exchange, Exchange) {
        if self.sent + 2 > REQUESTS_MAX || Instant::now() >= self.deadline {
            let late = Exchange { failure: Some(wire::Failure::Timeout), ..Exchange::default() };
            return (late.clone(), late);
        }
        self.sent += 1;
        self.trace.wire('>', call);
        let deadline = (Instant::now() + EXCHANGE_DEADLINE).min(self.deadline);
        let address = self.target.address;
        let (called, answered) = std::thread::scope(|scope| {
            let called = scope
                .spawn(|| wire::exchange(address, call, (deadline, wire::CLOSE_GLANCE), false));
            // Long enough for the call to be under way, well short of its end.
            std::thread::sleep(CANCEL_AFTER);
            let answered = self.send(sender, bytes);
            (called.join().unwrap_or_default(), answered)
        });
        (self.received(owner, called), answered)
    }

    /// A 2026-07-28 `tools/list`: the first tool, and the first that mirrors a string argument.
    fn list_tools(&mut self) {
        let Some(revision) = self.modern else { return };
        let Ok(message) = render::modern_message(Modern::ToolsList, &Callable::default(), revision)
        else {
            return;
        };
        let exchange = self.send(Sender::Alice, &self.modern_spec(Sender::Alice, &message).bytes());
        let listed = judge::message(&exchange);
        let tools = listed
            .as_ref()
            .and_then(|m| m.get("result")?.get("tools")?.as_array().map(<[Value]>::to_vec))
            .unwrap_or_default();
        for tool in &tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else { continue };
            let schema = tool.get("inputSchema");
            let Ok(headers) = mirroring::tool_headers(name, schema) else { continue };
            self.callable.first.get_or_insert_with(|| name.to_owned());
            if self.callable.mirrored.is_none() {
                self.callable.mirrored =
                    headers.params.iter().find(|p| is_string(schema, &p.path)).map(|p| {
                        MirroredArgument {
                            tool: name.to_owned(),
                            path: p.path.clone(),
                            header: format!("Mcp-Param-{}", p.name),
                        }
                    });
            }
            self.tools.push(headers);
        }
    }

    fn token(&self, sender: Sender) -> Option<&str> {
        match sender {
            Sender::Mallory => self.credentials.other_token.as_deref(),
            Sender::Alice
            | Sender::AliceSecond
            | Sender::Narrow
            | Sender::Carol
            | Sender::Ended => self.credentials.token.as_deref(),
        }
    }

    fn session(&self, sender: Sender) -> Option<&str> {
        let at = match sender {
            Sender::Alice => 0,
            Sender::Mallory => 1,
            Sender::Ended => 2,
            Sender::AliceSecond | Sender::Narrow | Sender::Carol => return None,
        };
        self.sessions[at].as_deref()
    }

    /// A request of `method` with `Host`, the sender's token and the extra fields, no body.
    fn bare(&self, method: &str, sender: Sender) -> RequestSpec {
        let mut spec = RequestSpec {
            method: method.into(),
            target: self.target.path.clone(),
            fields: vec![("Host".into(), self.target.authority.clone())],
            body: Vec::new(),
        };
        let accept = if method == "GET" {
            "text/event-stream"
        } else {
            "application/json, text/event-stream"
        };
        spec = spec.with("Accept", accept);
        if let Some(token) = self.token(sender) {
            spec = spec.with("Authorization", &format!("Bearer {token}"));
        }
        self.credentials.headers.iter().fold(spec, |spec, (n, v)| spec.with(n, v))
    }

    /// A 2025-11-25 POST of `body`, in `session` when there is one.
    fn legacy_spec(&self, sender: Sender, body: &[u8], session: Option<&str>) -> RequestSpec {
        let mut spec = self.bare("POST", sender).with("Content-Type", "application/json");
        if let Some(id) = session {
            spec = spec
                .with("MCP-Session-Id", id)
                .with("MCP-Protocol-Version", Revision::newest(Era::Legacy).name());
        }
        RequestSpec { body: body.to_vec(), ..spec }
    }

    /// A 2026-era POST of `message`, with the headers it mirrors.
    fn modern_spec(&self, sender: Sender, message: &Value) -> RequestSpec {
        let spec = RequestSpec {
            body: json::encode(message).into_bytes(),
            ..self.bare("POST", sender).with("Content-Type", "application/json")
        };
        let headers = mirroring::request_headers(message, &self.tools).unwrap_or_default();
        headers.iter().fold(spec, |spec, (name, value)| spec.with(name, value))
    }

    /// The methods the baseline may be, in the order they are tried: a ping in 2025-11-25
    /// (`tools/list` for a server that lacks it), `server/discover` where 2026-07-28 is all the
    /// server speaks.
    pub fn baseline_methods(&self) -> [&'static str; 2] {
        if self.modern.is_some() && !self.legacy {
            ["server/discover", "tools/list"]
        } else {
            ["ping", "tools/list"]
        }
    }

    /// Makes `method` the one the baseline and the bodies of the table name.
    pub fn use_baseline(&mut self, method: &'static str) {
        self.ordinary = method;
    }

    /// The method of the baseline.
    fn ordinary_method(&self) -> &'static str {
        self.ordinary
    }

    /// The sender's ordinary POST of `body` in the server's first era: 2025-11-25 in its session
    /// when it speaks that, else 2026-07-28 with `_meta` put into the body.
    fn ordinary(&self, sender: Sender, body: Vec<u8>) -> RequestSpec {
        match self.modern.filter(|_| !self.legacy) {
            None => self.legacy_spec(sender, &body, self.session(sender)),
            Some(revision) => {
                let (body, method) = with_meta(&body, revision);
                let spec = RequestSpec {
                    body,
                    ..self.bare("POST", sender).with("Content-Type", "application/json")
                };
                let spec = spec.with("MCP-Protocol-Version", revision.name());
                match method {
                    Some(method) => spec.with("Mcp-Method", &method),
                    None => spec,
                }
            }
        }
    }
}

impl World for Peer {
    fn spec(&self, sender: Sender, base: Base) -> Result<RequestSpec, String> {
        Ok(match base {
            Base::Post(Body::Message(message)) => match self.modern.filter(|_| !self.legacy) {
                // The 2026-era baseline, built whole with its `_meta`.
                Some(revision) if matches!(message, Message::Ping) => {
                    let id = Id::from(render::MODERN_ID);
                    let method = (&id, self.ordinary, revision);
                    self.modern_spec(sender, &requests::modern(method, Object::new(), &[], CLIENT))
                }
                None if matches!(message, Message::Ping) && self.ordinary != "ping" => {
                    let message = jsonrpc::request(&Id::from(90), self.ordinary, Object::new());
                    self.ordinary(sender, json::encode(&message).into_bytes())
                }
                Some(_) | None => self
                    .ordinary(sender, json::encode(&render::message_value(message)).into_bytes()),
            },
            Base::Post(body) => self.ordinary(
                sender,
                match body {
                    Body::Message(message) => {
                        json::encode(&render::message_value(message)).into_bytes()
                    }
                    Body::Bytes(bytes) => render::with_method(bytes, self.ordinary_method()),
                    Body::OverBudget => vec![b' '; BODY_OVER_TYPICAL],
                    Body::TooDeep => render::nested(DEPTH_OVER_TYPICAL, self.ordinary_method()),
                },
            ),
            Base::Modern(modern) => {
                // The newest when the server speaks none: what a dual-era client probes with.
                let revision = self.modern.unwrap_or(Revision::newest(Era::Modern));
                let message = render::modern_message(modern, &self.callable, revision)?;
                self.modern_spec(sender, &message)
            }
            Base::Get | Base::Bodiless(_) if self.legacy => {
                let method = match base {
                    Base::Bodiless(m) => m,
                    _ => "GET",
                };
                let spec = self.bare(method, sender);
                match self.session(sender) {
                    Some(id) => spec
                        .with("MCP-Session-Id", id)
                        .with("MCP-Protocol-Version", Revision::newest(Era::Legacy).name()),
                    None => spec,
                }
            }
            Base::Get | Base::Bodiless(_) => {
                let method = match base {
                    Base::Bodiless(m) => m,
                    _ => "GET",
                };
                let revision = self.modern.map_or("2026-07-28", Revision::name);
                self.bare(method, sender).with("MCP-Protocol-Version", revision)
            }
            Base::Discovery => RequestSpec {
                method: "GET".into(),
                target: format!("/.well-known/oauth-protected-resource{}", self.target.path),
                fields: vec![("Host".into(), self.target.authority.clone())],
                body: Vec::new(),
            },
            Base::Raw(_) => return Err("a raw template has no spec".into()),
            Base::CancelDuring(_) => {
                let body = json::encode(&render::message_value(Message::CancelSlowCall));
                self.legacy_spec(sender, body.as_bytes(), self.session(sender))
            }
        })
    }

    fn resolve(&self, text: Text) -> Result<String, String> {
        Ok(match text {
            Text::Lit(text) => text.to_owned(),
            Text::TokenOf(Role::Full) => self.credentials.token.clone().ok_or("no --token")?,
            Text::TokenOf(role) => return Err(format!("no token of {}", role.describe())),
            Text::SessionOf(sender) => self
                .session(sender)
                .map(str::to_owned)
                .ok_or(format!("no session of {sender:?}"))?,
            Text::GetEventOf(_) | Text::LastEventOf(_) => {
                return Err("no event ids are kept".into());
            }
            Text::OverValueBudget => "x".repeat(VALUE_OVER_TYPICAL),
            Text::Port => self.target.address.port().to_string(),
            Text::Host => self.target.authority.clone(),
            Text::Path => self.target.path.clone(),
            Text::Join(parts) => {
                parts.iter().map(|&part| self.resolve(part)).collect::<Result<String, String>>()?
            }
        })
    }

    fn token_of(&self, role: Role) -> Result<String, String> {
        self.resolve(Text::TokenOf(role))
    }

    fn sender_token(&self, sender: Sender) -> Option<String> {
        self.token(sender).map(str::to_owned)
    }

    fn callable(&self, _: Sender) -> Result<Callable, String> {
        Ok(self.callable.clone())
    }

    fn fields_over_budget(&self) -> usize {
        FIELDS_OVER_TYPICAL
    }
}

/// The body with `_meta` for `revision` put into its first `"params":{`, and the method the
/// body names last (what a reader keeping the last duplicate sees).
fn with_meta(body: &[u8], revision: Revision) -> (Vec<u8>, Option<String>) {
    let text = String::from_utf8_lossy(body);
    let meta = format!(
        r#""params":{{"_meta":{{"io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/protocolVersion":"{}"}},"#,
        revision.name()
    );
    let method = text
        .rsplit(r#""method":""#)
        .next()
        .filter(|_| text.contains(r#""method":""#))
        .and_then(|rest| rest.split('"').next())
        .map(str::to_owned);
    let with = match text.find(r#""params":{"#) {
        Some(at) if body.is_ascii() || text.is_char_boundary(at) => {
            let rest = &body[at + r#""params":{"#.len()..];
            let comma = if rest.first() == Some(&b'}') {
                meta.trim_end_matches(',').to_owned()
            } else {
                meta
            };
            [&body[..at], comma.as_bytes(), rest].concat()
        }
        _ => body.to_vec(),
    };
    (with, method)
}

/// Whether the property at `path` of `schema` is a string.
fn is_string(schema: Option<&Value>, path: &[String]) -> bool {
    let node = path.iter().try_fold(schema, |node, key| Some(node?.get("properties")?.get(key)));
    node.flatten().and_then(|n| n.get("type")).and_then(Value::as_str) == Some("string")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_goes_into_the_first_params_and_the_last_method_names_the_header() {
        let cases: [(&str, &str, Option<&str>); 3] = [
            (
                r#"{"id":1,"method":"tools/list","method":"ping","params":{}}"#,
                r#"{"id":1,"method":"tools/list","method":"ping","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
                Some("ping"),
            ),
            (
                r#"[{"method":"ping","params":{"n":1}}]"#,
                r#"[{"method":"ping","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"n":1}}]"#,
                Some("ping"),
            ),
            (r#"{"id":7,"result":{}}"#, r#"{"id":7,"result":{}}"#, None),
        ];
        for (body, expected, method) in cases {
            let (with, named) = with_meta(body.as_bytes(), Revision::V2026_07_28);
            assert_eq!(
                (String::from_utf8(with).unwrap(), named.as_deref()),
                (expected.to_owned(), method)
            );
        }
    }
}
