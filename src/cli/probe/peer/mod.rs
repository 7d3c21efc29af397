//! The server under probe as a `render::World`: where requests go, which era they speak, the
//! sessions and tokens they carry. Opening a peer finds what the server speaks (a
//! `server/discover`, an `initialize`), opens the sessions the rows need and lists the tools.
//! Every answer passes [`Peer::received`]: a session id it mints becomes a secret, and one the
//! probe did not ask for is ended before the next row ([`Peer::end_strays`]); so the probe holds
//! at most two sessions of one principal at a time. Closing the peer ends the rest.
//!
//! Not here: the rows (`catalogue`), their verdicts (`judge`), or how a request is built from a
//! row (`world`).

mod world;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use loopback_mcp_http::client::mcp::RequestSpec;
use loopback_mcp_http::client::mirroring::{self, ToolHeaders};
use loopback_mcp_http::client::trace::Trace;
use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::mcp::jsonrpc::Id;
use loopback_mcp_http::mcp::requests;
use loopback_mcp_http::mcp::revision::{Era, Revision, Versions};

use super::judge;
use super::secrets::Secrets;
use super::wire::{self, After, Exchange};
use crate::cli::case::{Message, Modern, Sender};
use crate::cli::render::{self, CLIENT, Callable, MirroredArgument};

/// The most requests one probe sends.
pub const REQUESTS_MAX: usize = 300;

/// How long one exchange may take.
pub const EXCHANGE_DEADLINE: Duration = Duration::from_secs(5);

/// How long after a slow call starts the cancellation naming it is sent.
const CANCEL_AFTER: Duration = Duration::from_millis(50);

/// Where the server is.
#[derive(Clone, Debug)]
pub struct Target {
    pub address: SocketAddr,
    /// The URL's authority, written canonically, as `Host` names it.
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

/// How the answer to an era's opening request (`initialize`, `server/discover`) went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Opening {
    /// Never answered 200.
    #[default]
    NotAnswered,
    /// Answered 200, and read.
    Read,
    /// Answered 200 with a body that is no JSON-RPC message.
    Unreadable,
}

/// What DELETE does here, as the session opened to be ended showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delete {
    /// Not tried: no session.
    Untried,
    /// It ended the session (2xx).
    Ends,
    /// 405: the server offers none; its session is kept as the spare.
    Unsupported,
    /// Any other answer.
    Refused,
}

/// The server under probe, as far as the probe knows it.
pub struct Peer {
    pub target: Target,
    credentials: Credentials,
    pub trace: Trace,
    /// Every value no output may print.
    pub secrets: Secrets,
    /// It answers `initialize` with 2025-11-25.
    pub legacy: bool,
    /// The 2026-era revision it answers `server/discover` with.
    pub modern: Option<Revision>,
    /// How `initialize` and `server/discover` were answered.
    pub opened: [Opening; 2],
    pub delete: Delete,
    /// The sessions of the first principal, the second, one ended by DELETE, and one of the
    /// first opened for a row alone ([`Sender::AliceSecond`]).
    sessions: [Option<String>; 4],
    /// Every session id the server issued, for the rule on their bytes.
    pub issued: Vec<String>,
    /// Sessions a request made that the probe did not ask for, with the principal that made them.
    strays: Vec<(String, Sender)>,
    tools: Vec<ToolHeaders>,
    callable: Callable,
    /// The first principal's session lists `test_tool_slow`, the call a cancellation names.
    slow_tool: bool,
    /// 2xx answers to POSTed requests whose type is neither MCP's JSON nor an event stream.
    pub untyped: Vec<String>,
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
        let given = [&credentials.token, &credentials.other_token].into_iter().flatten();
        let given: Vec<String> =
            given.chain(credentials.headers.iter().map(|(_, v)| v)).cloned().collect();
        let mut peer = Peer {
            target,
            credentials,
            trace,
            secrets: Secrets::default(),
            legacy: false,
            modern: None,
            opened: [Opening::NotAnswered; 2],
            delete: Delete::Untried,
            sessions: [None, None, None, None],
            issued: Vec::new(),
            strays: Vec::new(),
            tools: Vec::new(),
            callable: Callable::default(),
            slow_tool: false,
            untyped: Vec::new(),
            sent: 0,
            ordinary: "ping",
            answered: 0,
            deadline,
        };
        for value in &given {
            peer.secret(value);
        }
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
        peer.end_strays();
        peer
    }

    /// The judge's context.
    pub fn context(&self) -> judge::Context {
        let endpoint = format!("http://{}{}", self.target.authority, self.target.path);
        judge::Context { endpoint, modern: self.modern.is_some() }
    }

    /// Whether `sender` holds a session.
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

    /// Sends `bytes` and reads the answer with a glance after it.
    pub fn send(&mut self, sender: Sender, bytes: &[u8]) -> Exchange {
        self.send_watching(sender, bytes, After::Glance)
    }

    /// Sends `bytes` and reads the answer, watching the connection after it as `after` says,
    /// within the request and time budgets.
    pub fn send_watching(&mut self, sender: Sender, bytes: &[u8], after: After) -> Exchange {
        if self.sent >= REQUESTS_MAX || Instant::now() >= self.deadline {
            return Exchange { failure: Some(wire::Failure::Timeout), ..Exchange::default() };
        }
        self.sent += 1;
        self.trace.wire('>', bytes);
        let deadline = (Instant::now() + EXCHANGE_DEADLINE).min(self.deadline);
        let to_head = bytes.starts_with(b"HEAD ");
        let exchange = wire::exchange(self.target.address, bytes, (deadline, after), to_head);
        self.received(sender, bytes, exchange)
    }

    /// A value no output may print: kept by the redaction of every report and by the trace.
    fn secret(&mut self, value: &str) {
        self.secrets.given(value);
        self.trace.secret(value);
    }

    /// What every answer goes through: a session id it mints becomes a secret (when it is long
    /// enough to be one) and, until the probe claims it as its own, a stray to be ended; a 2xx
    /// to a POSTed request is checked for its type; the answer is traced and counted.
    fn received(&mut self, sender: Sender, request: &[u8], exchange: Exchange) -> Exchange {
        let minted =
            exchange.head.as_ref().and_then(|h| h.field("mcp-session-id")).map(str::to_owned);
        // Only an id seen for the first time is new: servers repeat a session's id on every
        // answer in it, DELETE's included.
        if let Some(id) = minted.filter(|id| !self.issued.contains(id)) {
            if Secrets::is_secret_id(&id) {
                self.secret(&id);
            }
            self.issued.push(id.clone());
            self.strays.push((id, sender));
        }
        if let Some(finding) = untyped(request, &exchange) {
            self.untyped.push(finding);
        }
        self.trace.wire('<', &exchange.raw);
        self.answered += usize::from(exchange.head.is_some());
        exchange
    }

    /// Ends every session a request made that the probe did not ask for.
    pub fn end_strays(&mut self) {
        for (id, sender) in std::mem::take(&mut self.strays) {
            self.delete(sender, &id);
        }
    }

    /// Ends every session the probe opened or caused.
    pub fn close(&mut self) {
        self.end_temporary();
        for (at, sender) in [(0, Sender::Alice), (1, Sender::Mallory)] {
            if let Some(id) = self.sessions[at].take() {
                self.delete(sender, &id);
            }
        }
        self.end_strays();
    }

    /// DELETE of the session `id` for `sender`; its status.
    fn delete(&mut self, sender: Sender, id: &str) -> Option<u16> {
        let spec = self.legacy_spec("DELETE", sender, Some(id));
        let exchange = self.send(sender, &spec.bytes());
        exchange.head.map(|h| h.status)
    }

    /// Opens a session of the first principal for one row ([`Sender::AliceSecond`]): a fresh
    /// one, or the spare a server without DELETE left; whether there is one.
    pub fn open_temporary(&mut self) -> bool {
        if self.sessions[3].is_none() {
            self.sessions[3] = self.initialize(Sender::AliceSecond).flatten();
        }
        self.sessions[3].is_some()
    }

    /// Ends the session [`Peer::open_temporary`] opened, unless it is the spare.
    pub fn end_temporary(&mut self) {
        if self.delete == Delete::Unsupported {
            return;
        }
        if let Some(id) = self.sessions[3].take() {
            self.delete(Sender::AliceSecond, &id);
        }
    }

    /// `server/discover` at `revision`: the revision the server speaks, when it answers as a
    /// 2026-era server (at another revision it names, when one is in `versions`).
    fn discover(&mut self, revision: Revision, versions: Versions) -> Option<Revision> {
        let message =
            render::modern_message(Modern::Discover, &Callable::default(), revision).ok()?;
        let exchange = self.send(Sender::Alice, &self.modern_spec(Sender::Alice, &message).bytes());
        if exchange.head.as_ref().is_some_and(|h| h.status == 200) {
            self.opened[1] = match judge::message(&exchange) {
                Some(_) => Opening::Read,
                None => Opening::Unreadable,
            };
        }
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

    /// `initialize` for the first principal (then `initialized`) and its `tools/list`; where that
    /// opened a session, a session for the second principal and one more ended at once by DELETE.
    fn open_legacy(&mut self) {
        let Some(first) = self.initialize(Sender::Alice) else { return };
        self.legacy = true;
        self.sessions[0] = first;
        self.slow_tool = self.lists_slow_tool();
        if self.sessions[0].is_none() {
            return;
        }
        if self.credentials.other_token.is_some() {
            self.sessions[1] = self.initialize(Sender::Mallory).flatten();
        }
        let Some(Some(ended)) = self.initialize(Sender::Ended) else { return };
        let status = self.delete(Sender::Ended, &ended);
        self.delete = match status {
            Some(200..=299) => Delete::Ends,
            Some(405) => Delete::Unsupported,
            _ => Delete::Refused,
        };
        match self.delete {
            Delete::Ends => self.sessions[2] = Some(ended),
            Delete::Unsupported => self.sessions[3] = Some(ended),
            Delete::Refused | Delete::Untried => {}
        }
    }

    /// One `initialize` and its `initialized`: `None` when the server did not answer it with
    /// 2025-11-25, `Some(None)` when it did without a session.
    fn initialize(&mut self, sender: Sender) -> Option<Option<String>> {
        let legacy = Revision::newest(Era::Legacy).name();
        let message = requests::initialize(&Id::from(1), legacy, CLIENT);
        let spec = RequestSpec {
            body: json::encode(&message).into_bytes(),
            ..self.bare("POST", sender).with("Content-Type", "application/json")
        };
        let exchange = self.send(sender, &spec.bytes());
        if exchange.head.as_ref().map(|h| h.status) != Some(200) {
            return None;
        }
        let read = judge::message(&exchange);
        if sender == Sender::Alice {
            self.opened[0] = if read.is_some() { Opening::Read } else { Opening::Unreadable };
        }
        let version =
            read.and_then(|m| m.get("result")?.get("protocolVersion")?.as_str().map(str::to_owned));
        if version.as_deref() != Some(legacy) {
            return None;
        }
        let session =
            exchange.head.as_ref().and_then(|h| h.field("mcp-session-id")).map(str::to_owned);
        self.strays.retain(|(id, _)| Some(id) != session.as_ref());
        let note = json::encode(&requests::initialized()).into_bytes();
        let spec =
            RequestSpec { body: note, ..self.legacy_spec("POST", sender, session.as_deref()) };
        self.send(sender, &spec.with("Content-Type", "application/json").bytes());
        Some(session)
    }

    /// Whether a 2025-11-25 `tools/list` of the first principal (in its session, when it has one)
    /// names `test_tool_slow`.
    fn lists_slow_tool(&mut self) -> bool {
        let body = json::encode(&render::message_value(Message::ListTools)).into_bytes();
        let spec = self.legacy_post(Sender::Alice, &body, self.session(Sender::Alice));
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
            let called =
                scope.spawn(|| wire::exchange(address, call, (deadline, After::Glance), false));
            // Long enough for the call to be under way, well short of its end.
            std::thread::sleep(CANCEL_AFTER);
            let answered = self.send(sender, bytes);
            (called.join().unwrap_or_default(), answered)
        });
        (self.received(owner, call, called), answered)
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
                    headers.params.iter().find(|p| world::is_string(schema, &p.path)).map(|p| {
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

    /// The session `sender` holds.
    pub fn session(&self, sender: Sender) -> Option<&str> {
        let at = match sender {
            Sender::Alice => 0,
            Sender::Mallory => 1,
            Sender::Ended => 2,
            Sender::AliceSecond => 3,
            Sender::Narrow | Sender::Carol => return None,
        };
        self.sessions[at].as_deref()
    }
}

/// What a 2xx answer to a POSTed JSON-RPC request says about its type, when it is neither of
/// MCP's two: "a 200 to ping without Content-Type". The method is the probe's own.
fn untyped(request: &[u8], exchange: &Exchange) -> Option<String> {
    let head = exchange.head.as_ref().filter(|h| (200..300).contains(&h.status))?;
    if judge::typed(exchange) || !request.starts_with(b"POST ") {
        return None;
    }
    let body_at = request.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let message = json::decode(&request[body_at..], 64).ok()?;
    let method = message.get("method")?.as_str()?;
    message.get("id").filter(|id| !matches!(id, Value::Null))?;
    let how = match head.field("content-type") {
        None => "without Content-Type",
        Some(_) => "of another type",
    };
    Some(format!("a {} to {method} {how}", head.status))
}
