//! One declarative case type behind `attack` and `lab`: who sends which request, and what must
//! come back.
//!
//! A case is a row of data, never a closure: a [`Sender`] (a client holding a live session of one
//! fixture role), a [`Request`] described as a base plus changes, and an [`Expect`] (a status
//! with a public code, a header that must contain some text, or a fact about the body). Steps
//! between cases ([`Action`]) change the server's state (a revocation, a new authorization
//! revision) or remember a value later cases use (an event id). [`Scene`] runs a list of
//! [`Step`]s against a fresh in-process server, and [`judge`] is the one place a response is
//! compared with its expectation.
//!
//! Deliberately malformed bodies (a duplicate key, a batch) are byte literals in the tables;
//! every well-formed message is built as a value by `mcp::requests` and encoded.

use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::mcp::{McpClient, RequestSpec, error_code, is_priming};
use loopback_mcp_http::client::modern::Opened;
use loopback_mcp_http::client::trace::TraceMode;
use loopback_mcp_http::client::{ClientResponse, HttpConnection};
use loopback_mcp_http::http::TransferCodings;
use loopback_mcp_http::json::{self, Object, Value, members};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::jsonrpc::{self, Id};
use loopback_mcp_http::mcp::requests::{self, ClientInfo};
use loopback_mcp_http::mcp::revision::{Era, Revision, Versions};
use loopback_mcp_http::sse;

use super::local::LocalServer;
use super::watch::{Predicted, Seen, StreamCheck};

/// Who sends a request: a client with an initialized session of one fixture role, opened when
/// the scene starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Sender {
    /// `full`: alice of acme, both scopes.
    Alice,
    /// A second session of `full`, for what must not cross between sessions.
    AliceSecond,
    /// `other_subject`: mallory of acme.
    Mallory,
    /// `connect_only`: alice of acme without `resources:read`.
    Narrow,
    /// `tenant_denied`: carol of globex, a tenant outside the ACL.
    Carol,
}

impl Sender {
    const fn role(self) -> Role {
        match self {
            Sender::Alice | Sender::AliceSecond => Role::Full,
            Sender::Mallory => Role::OtherSubject,
            Sender::Narrow => Role::ConnectOnly,
            Sender::Carol => Role::TenantDenied,
        }
    }
}

/// A value resolved when the case runs.
#[derive(Clone, Copy, Debug)]
pub enum Text {
    Lit(&'static str),
    /// The bearer token of a role.
    TokenOf(Role),
    /// The session id of a sender.
    SessionOf(Sender),
    /// The cursor a sender's GET stream left it with: the last event id of its latest poll
    /// ([`Action::PollStream`]).
    GetEventOf(Sender),
    /// The last event id of the latest event-stream response a sender received, by any step:
    /// the cursor a client would resume that stream from.
    LastEventOf(Sender),
    /// One byte more than a header field value may hold.
    OverValueBudget,
    /// The server's port.
    Port,
    /// The parts, one after the other.
    Join(&'static [Text]),
}

/// A well-formed JSON-RPC message, built as a value when the case runs.
#[derive(Clone, Copy, Debug)]
pub enum Message {
    Ping,
    ListResources,
    /// `initialize` proposing this protocol version.
    Initialize(&'static str),
    /// A JSON-RPC result, as if answering a request the server never made.
    Response,
    /// `tools/call` of `test_reconnection`, whose stream the server closes after its prime.
    CallReconnectionTool,
    ListTools,
}

/// A 2026-07-28 request, built as the sender's client builds it: `_meta` in the body, and every
/// mirrored header the body calls for (the `Mcp-Param` ones from the client's latest modern
/// `tools/list`, see [`Action::ListToolsModern`]).
#[derive(Clone, Copy, Debug)]
pub enum Modern {
    Discover,
    ToolsList,
    /// `tools/call` of `tenant_documents` for this tenant.
    TenantDocuments(&'static str),
}

/// A request body.
#[derive(Clone, Copy, Debug)]
pub enum Body {
    Message(Message),
    /// Exact bytes: for deliberately malformed bodies, visible in the table.
    Bytes(&'static [u8]),
    /// One byte more than the body budget (spaces).
    OverBudget,
}

/// What the request starts from, before its changes.
#[derive(Clone, Copy, Debug)]
pub enum Base {
    /// A POST to /mcp with the sender's headers, token and session.
    Post(Body),
    /// A 2026-07-28 POST with the sender's token and no session.
    Modern(Modern),
    /// The GET stream in the sender's session.
    Get,
    /// A GET of the protected-resource metadata, with the server's `Host` and nothing else.
    Discovery,
    /// Exact request bytes, with `{host}` replaced by the server's authority and `{token}` by the
    /// `full` role's token; changes do not apply.
    Raw(&'static str),
}

/// One change to the base request.
#[derive(Clone, Copy, Debug)]
pub enum Change {
    /// Replace every field with this name, or add it.
    Set(&'static str, Text),
    /// Add a field at the end.
    With(&'static str, Text),
    /// Remove every field with this name.
    Without(&'static str),
    /// Send this role's token instead of the sender's.
    Bearer(Role),
    /// Leave the session: no `MCP-Session-Id`, no `MCP-Protocol-Version` (as for `initialize`).
    OutsideSession,
    /// Replace the request target.
    Target(Text),
    /// Send the body in the chunked coding, in chunks of at most this many bytes (for a server
    /// under `--chunked`; one without it answers 501).
    Chunked(usize),
}

/// A request described as data.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    pub base: Base,
    pub changes: &'static [Change],
}

impl Request {
    pub const fn post(message: Message, changes: &'static [Change]) -> Request {
        Request { base: Base::Post(Body::Message(message)), changes }
    }

    pub const fn post_bytes(body: &'static [u8]) -> Request {
        Request::post_body(Body::Bytes(body))
    }

    pub const fn post_body(body: Body) -> Request {
        Request { base: Base::Post(body), changes: &[] }
    }

    pub const fn modern(modern: Modern, changes: &'static [Change]) -> Request {
        Request { base: Base::Modern(modern), changes }
    }

    pub const fn get(changes: &'static [Change]) -> Request {
        Request { base: Base::Get, changes }
    }

    pub const fn discovery(changes: &'static [Change]) -> Request {
        Request { base: Base::Discovery, changes }
    }

    pub const fn raw(template: &'static str) -> Request {
        Request { base: Base::Raw(template), changes: &[] }
    }

    /// A fresh `initialize` of the current revision, outside any session, with `changes` after.
    pub const fn initialize(changes: &'static [Change]) -> Request {
        Request::post(Message::Initialize(loopback_mcp_http::mcp::PROTOCOL_VERSION), changes)
    }
}

/// What, besides the status, a response is judged on.
#[derive(Clone, Copy, Debug)]
pub enum Key {
    Nothing,
    /// The public error code in the body.
    Code(&'static str),
    /// A header whose value contains this text.
    Header(&'static str, &'static str),
    /// The body contains this text.
    Body(&'static str),
    /// The body is an event stream whose events are, in order, these kinds, separated by a
    /// space: `prime` (an id and empty data), `notification`, `response`.
    Events(&'static str),
    /// A `-32020` naming this header and this reason.
    Mirror(&'static str, &'static str),
    /// How a client settles its era ([`Step::Open`]).
    Opened(Opened),
    /// A line of facts a [`Step::Watch`] reports, exactly.
    Facts(&'static str),
}

/// The expected status, and what else must hold.
#[derive(Clone, Copy, Debug)]
pub struct Expect {
    pub status: u16,
    pub key: Key,
}

impl Expect {
    pub const fn status(status: u16) -> Expect {
        Expect { status, key: Key::Nothing }
    }

    pub const fn code(status: u16, code: &'static str) -> Expect {
        Expect { status, key: Key::Code(code) }
    }

    /// A `WWW-Authenticate` challenge containing `text`.
    pub const fn challenge(status: u16, text: &'static str) -> Expect {
        Expect { status, key: Key::Header("www-authenticate", text) }
    }

    pub const fn body(status: u16, text: &'static str) -> Expect {
        Expect { status, key: Key::Body(text) }
    }

    /// A 200 event stream of exactly these kinds of events (see [`Key::Events`]).
    pub const fn events(kinds: &'static str) -> Expect {
        Expect { status: 200, key: Key::Events(kinds) }
    }

    /// A 400 with `-32020` naming `header` and `reason`.
    pub const fn mismatch(header: &'static str, reason: &'static str) -> Expect {
        Expect { status: 400, key: Key::Mirror(header, reason) }
    }

    /// What the prediction says besides the status, for printing.
    pub fn key_text(&self) -> String {
        match self.key {
            Key::Nothing => String::new(),
            Key::Code(code) => format!(" {code}"),
            Key::Header(name, want) => format!(" {name} has {want}"),
            Key::Body(want) => format!(" body has {want}"),
            Key::Events(kinds) => format!(" events: {kinds}"),
            Key::Mirror(header, reason) => format!(" -32020 {header} {reason}"),
            Key::Opened(opened) => format!(" era: {}", opened.describe()),
            Key::Facts(facts) => format!(" {facts}"),
        }
    }
}

/// One request and its expectation.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// What the case tries, as printed.
    pub what: &'static str,
    pub sender: Sender,
    pub request: Request,
    pub expect: Expect,
}

/// Something done between cases.
#[derive(Clone, Copy, Debug)]
pub enum Action {
    /// Revoke this role's token.
    Revoke(Role),
    /// Move this role's subject to a new authorization revision.
    BumpRevision(Role),
    /// One GET on the sender's stream; the cursor it leaves (its last event id) is remembered.
    PollStream(Sender),
    /// `tools/call test_reconnection` by the sender, its stream's last id remembered as the
    /// sender's [`Text::LastEventOf`]; the stream is left unresumed.
    CallReconnectionTool(Sender),
    /// `resources/list` by the sender; the id of the event that carried the response is
    /// remembered as the sender's [`Text::LastEventOf`].
    ListResources(Sender),
    /// Opens this many more sessions (initialize, then initialized) with this role's token.
    OpenSessions(Role, usize),
    /// Replaces the server with a fresh one started as `serve --chunked` does, every sender's
    /// session opened again there: the steps after it run against that server.
    ServeChunked,
    /// The same, for a server that speaks these versions (2025-11-25 among them, for the
    /// sessions).
    ServeVersions(Versions),
    /// A 2026-07-28 `tools/list` by the sender: its client learns what each tool mirrors.
    ListToolsModern(Sender),
}

/// A smuggling attempt on a fresh connection, sent in two writes: the bytes up to the one that
/// must decide the refusal, and the rest (the remaining body and a pipelined request). It is
/// blocked when the refusal arrives after the first write alone, says `Connection: close`, and
/// nothing ever answers the pipelined request.
#[derive(Clone, Copy, Debug)]
pub struct Smuggling {
    pub what: &'static str,
    /// Through the deciding byte; `{host}` and `{token}` are filled in as for [`Base::Raw`].
    pub decided: &'static str,
    /// Everything after it, never interpreted.
    pub rest: &'static str,
    pub expect: Expect,
}

/// One step of an attack run or an experiment.
#[derive(Clone, Copy, Debug)]
pub enum Step {
    /// The correct request an experiment starts from.
    Baseline(Case),
    /// A case to judge.
    Check(Case),
    /// A case to judge whose request and response are also shown byte for byte (redacted).
    Wire(Case),
    /// The same case once per role, each sending that role's token: one observation per role,
    /// named after it.
    CheckEachRole(&'static [Role], Case),
    Do(Action),
    /// What a real browser gets (see `browser`): a step only for experiments that need one.
    Browser(BrowserProbe),
    /// A request-smuggling shape, judged on the wire (see [`Smuggling`]).
    Smuggle(Smuggling),
    /// A fresh client of the `full` role that speaks both revisions opens against the server,
    /// and must settle as predicted; its exchanges are shown.
    Open(&'static str, Opened),
    /// A stream that stays open, watched on a server of its own (see `watch`).
    Watch(StreamCheck),
}

/// A request a real browser makes, and what it must get.
#[derive(Clone, Copy, Debug)]
pub enum BrowserProbe {
    /// The discovery document loaded under a foreign name resolved to 127.0.0.1.
    Rebinding,
    /// A page from another loopback origin POSTs an initialize to `/mcp`.
    ForeignOrigin,
}

/// What one case predicted and what it got.
#[derive(Clone, Debug)]
pub struct Observation {
    pub baseline: bool,
    /// What was tried (the case's text, with the role for [`Step::CheckEachRole`]).
    pub what: String,
    pub expect: Expect,
    /// The status seen; `None` when no response arrived.
    pub status: Option<u16>,
    /// What was seen of the key (redacted), for printing.
    pub key_seen: String,
    pub matched: bool,
    /// The request and the response byte for byte, redacted, for a [`Step::Wire`].
    pub wire: Option<String>,
}

impl From<Seen> for Observation {
    fn from(seen: Seen) -> Observation {
        let key = match seen.predicted {
            Predicted::Code(code) => Key::Code(code),
            Predicted::Facts(facts) => Key::Facts(facts),
        };
        Observation {
            baseline: false,
            what: seen.what,
            expect: Expect { status: seen.status, key },
            status: seen.observed_status,
            key_seen: seen.observed,
            matched: seen.matched,
            wire: seen.wire,
        }
    }
}

/// Compares a response with an expectation: the status, and the code, header or body fact.
pub fn judge(expect: &Expect, response: Option<&ClientResponse>) -> (Option<u16>, String, bool) {
    let Some(response) = response else {
        return (None, "no response".into(), false);
    };
    let (key_seen, key_ok) = match expect.key {
        Key::Nothing => (String::new(), true),
        Key::Code(code) => {
            let seen = error_code(response);
            let ok = seen == code;
            (seen, ok)
        }
        Key::Header(name, want) => {
            let seen = response.field_str(name).unwrap_or("").to_owned();
            let ok = seen.contains(want);
            (format!("{name}: {seen}"), ok)
        }
        Key::Body(want) => {
            let ok = String::from_utf8_lossy(&response.body).contains(want);
            (if ok { format!("body has {want}") } else { "body lacks it".into() }, ok)
        }
        Key::Events(kinds) => {
            let seen = event_kinds(response);
            let ok = seen == kinds;
            (format!("events: {seen}"), ok)
        }
        Key::Mirror(header, reason) => {
            let seen = mirror_error(response);
            let ok = seen == format!("-32020 {header} {reason}");
            (seen, ok)
        }
        // Judged by the step that opens a client, never from one response.
        Key::Opened(_) | Key::Facts(_) => ("a response".into(), false),
    };
    (Some(response.status), key_seen, response.status == expect.status && key_ok)
}

/// A JSON-RPC error's code and, when it has them, the header and reason of its `data`:
/// `-32020 Mcp-Method header_body_mismatch`.
fn mirror_error(response: &ClientResponse) -> String {
    let message = json::decode(&response.body, Limits::DEFAULT.json_depth_max).ok();
    let error = message.as_ref().and_then(|m| m.get("error"));
    let code = error.and_then(|e| e.get("code")).map(json::encode).unwrap_or_default();
    let data = error.and_then(|e| e.get("data"));
    let text = |key| data.and_then(|d| d.get(key)).and_then(Value::as_str).unwrap_or_default();
    format!("{code} {} {}", text("header"), text("reason")).trim_end().to_owned()
}

/// The kinds of the events of an event-stream response, space-separated (see [`Key::Events`]);
/// `not an event stream` otherwise.
fn event_kinds(response: &ClientResponse) -> String {
    let is_stream = response.field_str("content-type") == Some("text/event-stream");
    let events = sse::parse_stream(&response.body, &Limits::DEFAULT);
    let Some(events) = events.ok().filter(|_| is_stream) else {
        return "not an event stream".into();
    };
    let kind = |event: &sse::Event| {
        if is_priming(event) {
            return "prime";
        }
        let message = event.data.as_deref().and_then(|d| json::decode(d.as_bytes(), 64).ok());
        match message {
            Some(m) if m.get("result").is_some() || m.get("error").is_some() => "response",
            Some(m) if m.get("method").is_some() => "notification",
            _ => "other",
        }
    };
    events.iter().map(kind).collect::<Vec<_>>().join(" ")
}

/// A fresh server and the sessions a list of steps needs.
pub struct Scene {
    local: LocalServer,
    clients: Vec<(Sender, McpClient)>,
    remembered: Vec<(Remembered, String)>,
    /// The last exchange, byte for byte, for a [`Step::Wire`].
    last_wire: Option<String>,
}

/// A value an action remembered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Remembered {
    GetEvent(Sender),
    LastEvent(Sender),
}

/// Who `initialize` says the command is.
const CLIENT: ClientInfo<'static> = ClientInfo { name: "loopback-mcp-http-lab", version: "1" };

impl Scene {
    /// Starts a server and opens a session for every sender `steps` name, in sender order. Every
    /// client's trace knows every token and session id, so no trace shows another's.
    pub fn open(trace: TraceMode, steps: &[Step]) -> Result<Scene, String> {
        let local = LocalServer::start(trace)?;
        let mut senders: Vec<Sender> = steps.iter().flat_map(senders_of).collect();
        senders.sort();
        senders.dedup();
        let clients = open_sessions(&local, senders)?;
        Ok(Scene { local, clients, remembered: Vec::new(), last_wire: None })
    }

    /// Runs one step; the observations it made (none for an action).
    pub fn run(&mut self, step: &Step) -> Result<Vec<Observation>, String> {
        match step {
            Step::Baseline(case) => Ok(vec![self.observe(case, None, true)?]),
            Step::Check(case) => Ok(vec![self.observe(case, None, false)?]),
            Step::Wire(case) => {
                let mut observation = self.observe(case, None, false)?;
                observation.wire = self.last_wire.take();
                Ok(vec![observation])
            }
            Step::CheckEachRole(roles, case) => {
                roles.iter().map(|&role| self.observe(case, Some(role), false)).collect()
            }
            Step::Do(action) => self.act(*action).map(|()| Vec::new()),
            Step::Browser(probe) => Ok(vec![self.browse(*probe)?]),
            Step::Smuggle(smuggling) => Ok(vec![self.smuggle(smuggling)?]),
            Step::Open(what, expected) => Ok(vec![self.open_both(what, *expected)]),
            Step::Watch(watch) => {
                let seen = super::watch::observe(self.local.trace(), *watch)?;
                Ok(seen.into_iter().map(Observation::from).collect())
            }
        }
    }

    /// A fresh client of the `full` role that speaks both revisions opens (see [`Step::Open`]).
    fn open_both(&self, what: &str, expected: Opened) -> Observation {
        let mut client = self.local.client(Role::Full);
        let opened = client.open(Versions::ALL);
        let round_trips = client.round_trips();
        let (status, key_seen, matched) = match &opened {
            Ok(opened) => (
                Some(200),
                format!("era: {} (round trips: {round_trips})", opened.describe()),
                *opened == expected,
            ),
            Err(e) => (None, client.trace.redact(&e.to_string()), false),
        };
        Observation {
            baseline: false,
            what: what.to_owned(),
            expect: Expect { status: 200, key: Key::Opened(expected) },
            status,
            key_seen,
            matched,
            wire: None,
        }
    }

    /// Sends a smuggling attempt in its two writes and judges what came back (see
    /// [`Smuggling`]).
    fn smuggle(&mut self, smuggling: &Smuggling) -> Result<Observation, String> {
        let fill = |template: &str| self.fill(template);
        let (decided, rest) = (fill(smuggling.decided)?, fill(smuggling.rest)?);
        let address = self.local.server.address();
        let client = self.client_mut(Sender::Alice)?;
        let mut conn = HttpConnection::connect(address, &Limits::DEFAULT)
            .map_err(|e| format!("connect: {e}"))?;
        client.trace.wire('>', &decided);
        let response = conn.send(&decided).ok().and_then(|()| conn.receive().ok());
        if let Some(response) = &response {
            client.trace.wire('<', &response.raw);
        }
        client.trace.wire('>', &rest);
        // The server may have closed already: a failed write is part of being refused.
        let _ = conn.send(&rest);
        let closed = conn.is_closed_by_peer();
        let (status, key_seen, matched) = judge(&smuggling.expect, response.as_ref());
        let closing = response.as_ref().is_some_and(|r| r.field_str("connection") == Some("close"));
        let key_seen = match (closing && closed, response.is_some()) {
            (false, true) => format!("{key_seen}, BUT the connection went on"),
            _ => key_seen,
        };
        Ok(Observation {
            baseline: false,
            what: smuggling.what.to_owned(),
            expect: smuggling.expect,
            status,
            key_seen: client.trace.redact(&key_seen),
            matched: matched && closing && closed,
            wire: None,
        })
    }

    /// A raw template with `{host}` (the server's authority) and `{token}` (the `full` role's)
    /// filled in.
    fn fill(&self, template: &str) -> Result<Vec<u8>, String> {
        let host = self.client(Sender::Alice).map(McpClient::host)?;
        let token = self.local.fixture.token(Role::Full);
        Ok(template.replace("{host}", &host).replace("{token}", token).into_bytes())
    }

    /// Runs a browser probe against the server; the caller checked that Chromium is there.
    fn browse(&mut self, probe: BrowserProbe) -> Result<Observation, String> {
        let chromium = super::browser::chromium().ok_or(super::browser::INSTALL_HINT)?;
        let port = self.local.server.port();
        let (what, expect, seen) = match probe {
            BrowserProbe::Rebinding => (
                "Chromium loads the metadata at rebind.test:<port>, a name resolved to 127.0.0.1",
                Expect::code(421, "host_not_allowed"),
                super::browser::rebinding(
                    &chromium,
                    port,
                    loopback_mcp_http::auth::metadata::PATH_FOR_MCP,
                )?,
            ),
            BrowserProbe::ForeignOrigin => {
                let body = json::encode(&message_value(Message::Initialize(
                    loopback_mcp_http::mcp::PROTOCOL_VERSION,
                )));
                let seen = super::browser::foreign_origin_post(&chromium, port, &body)?;
                let sessions =
                    self.local.server.endpoint().live_sessions(std::time::Instant::now());
                let expect = Expect::code(403, "origin_not_allowed");
                let what =
                    "a page at another loopback port POSTs an initialize (no-cors, text/plain)";
                let seen = super::browser::Seen {
                    code: format!(
                        "{} (Origin {}; live sessions: {sessions})",
                        seen.code,
                        seen.origin.as_deref().unwrap_or("none")
                    ),
                    ..seen
                };
                (what, expect, seen)
            }
        };
        let code_only = seen.code.split(' ').next().unwrap_or_default().to_owned();
        let matched = seen.status == Some(expect.status)
            && matches!(expect.key, Key::Code(c) if c == code_only);
        let key_seen =
            self.clients.first().map_or(seen.code.clone(), |(_, c)| c.trace.redact(&seen.code));
        Ok(Observation {
            baseline: false,
            what: what.to_owned(),
            expect,
            status: seen.status,
            key_seen,
            matched,
            wire: None,
        })
    }

    fn observe(
        &mut self,
        case: &Case,
        role: Option<Role>,
        baseline: bool,
    ) -> Result<Observation, String> {
        let bytes = self.build(case.sender, &case.request, role)?;
        let client = self.client_mut(case.sender)?;
        let response = client.send(&bytes).ok();
        let (status, key_seen, matched) = judge(&case.expect, response.as_ref());
        // Observations never print a token or a session id: the trace knows every one.
        let key_seen = client.trace.redact(&key_seen);
        let wire = response.as_ref().map(|r| {
            let request = client.trace.render_bytes(&bytes);
            format!("{request}{}", client.trace.render_bytes(&r.raw))
        });
        self.last_wire = wire;
        if let Some(last) = response.as_ref().and_then(last_event_id) {
            self.remembered.push((Remembered::LastEvent(case.sender), last));
        }
        let what = match role {
            Some(role) => format!("{}: {}", case.what, role.describe()),
            None => case.what.to_owned(),
        };
        Ok(Observation {
            baseline,
            what,
            expect: case.expect,
            status,
            key_seen,
            matched,
            wire: None,
        })
    }

    fn act(&mut self, action: Action) -> Result<(), String> {
        let endpoint = self.local.server.endpoint();
        match action {
            Action::Revoke(role) => {
                role.revoke_in(&mut endpoint.policy_mut());
            }
            Action::BumpRevision(role) => {
                role.bump_revision_in(&mut endpoint.policy_mut());
            }
            Action::PollStream(sender) => {
                let events = self
                    .client_mut(sender)?
                    .poll_stream(None)
                    .map_err(|e| format!("{sender:?}: GET stream: {e}"))?;
                let id = events.into_iter().filter_map(|e| e.id).next_back();
                let id = id.ok_or(format!("{sender:?}: the GET stream carried no event id"))?;
                self.remembered.push((Remembered::GetEvent(sender), id));
            }
            Action::CallReconnectionTool(sender) => {
                let client = self.client_mut(sender)?;
                let spec = client.message_spec(&message_value(Message::CallReconnectionTool));
                let response =
                    client.send_spec(&spec).map_err(|e| format!("{sender:?}: tools/call: {e}"))?;
                let id = last_event_id(&response)
                    .ok_or(format!("{sender:?}: the tool's stream carried no event id"))?;
                self.remembered.push((Remembered::LastEvent(sender), id));
            }
            Action::ListResources(sender) => {
                let (_, id) = self
                    .client_mut(sender)?
                    .list_resources()
                    .map_err(|e| format!("{sender:?}: resources/list: {e}"))?;
                self.remembered.push((Remembered::LastEvent(sender), id));
            }
            Action::OpenSessions(role, count) => {
                for _ in 0..count {
                    self.local.session(role)?;
                }
            }
            Action::ServeChunked => {
                self.restart(TransferCodings::Chunked, Versions::LEGACY)?;
            }
            Action::ServeVersions(versions) => {
                self.restart(TransferCodings::LengthOnly, versions)?;
            }
            Action::ListToolsModern(sender) => {
                self.client_mut(sender)?
                    .list_tools_modern()
                    .map_err(|e| format!("{sender:?}: tools/list: {e}"))?;
            }
        }
        Ok(())
    }

    /// Replaces the server with a fresh one that decodes `codings` and speaks `versions`, and
    /// opens every sender's session again there.
    fn restart(&mut self, codings: TransferCodings, versions: Versions) -> Result<(), String> {
        let trace = self.local.trace();
        self.local = LocalServer::start_speaking(trace, codings, versions)?;
        let senders: Vec<Sender> = self.clients.iter().map(|(s, _)| *s).collect();
        self.clients = open_sessions(&self.local, senders)?;
        self.remembered.clear();
        Ok(())
    }

    fn client(&self, sender: Sender) -> Result<&McpClient, String> {
        self.clients
            .iter()
            .find(|(s, _)| *s == sender)
            .map(|(_, c)| c)
            .ok_or(format!("{sender:?} has no session in this scene"))
    }

    fn client_mut(&mut self, sender: Sender) -> Result<&mut McpClient, String> {
        self.clients
            .iter_mut()
            .find(|(s, _)| *s == sender)
            .map(|(_, c)| c)
            .ok_or(format!("{sender:?} has no session in this scene"))
    }

    /// The request's bytes; `role`, when given, sends that role's token.
    fn build(
        &self,
        sender: Sender,
        request: &Request,
        role: Option<Role>,
    ) -> Result<Vec<u8>, String> {
        let client = self.client(sender)?;
        let mut spec = match request.base {
            Base::Post(body) => client.post_spec(&self.body(body)),
            Base::Modern(modern) => client
                .modern_spec(&modern_value(modern))
                .map_err(|e| format!("{sender:?}: {}", client.trace.redact(&e.to_string())))?,
            Base::Get => client.session_spec("GET"),
            Base::Discovery => client.discovery_spec(),
            Base::Raw(template) => {
                let token = self.local.fixture.token(Role::Full);
                let text = template.replace("{host}", &client.host()).replace("{token}", token);
                return Ok(text.into_bytes());
            }
        };
        let mut chunks = None;
        for change in request.changes {
            if let Change::Chunked(piece) = change {
                chunks = Some(*piece);
            }
            spec = self.apply(spec, change)?;
        }
        if let Some(role) = role {
            spec = spec.bearer(self.local.fixture.token(role));
        }
        Ok(chunks.map_or_else(|| spec.bytes(), |piece| spec.chunked_bytes(piece)))
    }

    fn apply(&self, spec: RequestSpec, change: &Change) -> Result<RequestSpec, String> {
        Ok(match *change {
            Change::Set(name, value) => spec.set(name, &self.resolve(value)?),
            Change::With(name, value) => spec.with(name, &self.resolve(value)?),
            Change::Without(name) => spec.without(name),
            Change::Bearer(role) => spec.bearer(self.local.fixture.token(role)),
            Change::OutsideSession => {
                spec.without("MCP-Session-Id").without("MCP-Protocol-Version")
            }
            Change::Target(target) => RequestSpec { target: self.resolve(target)?, ..spec },
            // How the body is framed is decided when the bytes are made (see `build`).
            Change::Chunked(_) => spec,
        })
    }

    fn body(&self, body: Body) -> Vec<u8> {
        match body {
            Body::Message(message) => json::encode(&message_value(message)).into_bytes(),
            Body::Bytes(bytes) => bytes.to_vec(),
            Body::OverBudget => vec![b' '; self.limits().request_body_bytes_max + 1],
        }
    }

    fn limits(&self) -> &loopback_mcp_http::limits::Limits {
        self.local.server.endpoint().limits()
    }

    fn resolve(&self, text: Text) -> Result<String, String> {
        Ok(match text {
            Text::Lit(text) => text.to_owned(),
            Text::TokenOf(role) => self.local.fixture.token(role).to_owned(),
            Text::SessionOf(sender) => {
                self.client(sender)?.session().unwrap_or_default().to_owned()
            }
            Text::GetEventOf(sender) => self.remembered(Remembered::GetEvent(sender))?,
            Text::LastEventOf(sender) => self.remembered(Remembered::LastEvent(sender))?,
            Text::OverValueBudget => "x".repeat(self.limits().header_value_bytes_max + 1),
            Text::Port => self.local.server.port().to_string(),
            Text::Join(parts) => {
                parts.iter().map(|&part| self.resolve(part)).collect::<Result<String, String>>()?
            }
        })
    }

    fn remembered(&self, what: Remembered) -> Result<String, String> {
        self.remembered
            .iter()
            .rev()
            .find(|(w, _)| *w == what)
            .map(|(_, value)| value.clone())
            .ok_or(format!("{what:?} was not remembered by an earlier step"))
    }
}

/// A client with an initialized session on `local` for each sender, in order. Every client's
/// trace knows every session id, so no trace shows another's.
fn open_sessions(
    local: &LocalServer,
    senders: Vec<Sender>,
) -> Result<Vec<(Sender, McpClient)>, String> {
    let mut clients = Vec::with_capacity(senders.len());
    for sender in senders {
        clients.push((sender, local.session(sender.role())?));
    }
    let sessions: Vec<String> =
        clients.iter().filter_map(|(_, c)| c.session().map(str::to_owned)).collect();
    for (_, client) in &mut clients {
        for session in &sessions {
            client.trace.secret(session);
        }
    }
    Ok(clients)
}

/// Ids of the messages cases send (the values do not matter; they are checked where they do).
const PING_ID: i64 = 90;
const LIST_ID: i64 = 91;
const INITIALIZE_ID: i64 = 92;
const RESPONSE_ID: i64 = 7;
const TOOL_ID: i64 = 93;
const MODERN_ID: i64 = 94;

fn message_value(message: Message) -> Value {
    match message {
        Message::Ping => requests::ping(&Id::from(PING_ID)),
        Message::ListResources => requests::list_resources(&Id::from(LIST_ID)),
        Message::Initialize(version) => {
            requests::initialize(&Id::from(INITIALIZE_ID), version, CLIENT)
        }
        Message::Response => jsonrpc::result(&Id::from(RESPONSE_ID), json::object([])),
        Message::CallReconnectionTool => {
            requests::call_tool(&Id::from(TOOL_ID), "test_reconnection")
        }
        Message::ListTools => requests::list_tools(&Id::from(LIST_ID)),
    }
}

fn modern_value(modern: Modern) -> Value {
    let (method, params) = match modern {
        Modern::Discover => ("server/discover", Object::new()),
        Modern::ToolsList => ("tools/list", Object::new()),
        Modern::TenantDocuments(tenant) => {
            let arguments = json::object([("tenant", tenant.into())]);
            ("tools/call", members([("name", "tenant_documents".into()), ("arguments", arguments)]))
        }
    };
    let revision = Revision::newest(Era::Modern);
    requests::modern((&Id::from(MODERN_ID), method, revision), params, &[], CLIENT)
}

/// The last event id of an event-stream response.
fn last_event_id(response: &ClientResponse) -> Option<String> {
    let events = sse::parse_stream(&response.body, &Limits::DEFAULT).ok()?;
    events.into_iter().filter_map(|e| e.id).next_back()
}

/// Every sender a step needs a session for.
fn senders_of(step: &Step) -> Vec<Sender> {
    let mut senders = Vec::new();
    match step {
        Step::Baseline(case)
        | Step::Check(case)
        | Step::Wire(case)
        | Step::CheckEachRole(_, case) => {
            senders.push(case.sender);
            for change in case.request.changes {
                if let Change::Set(_, text) | Change::With(_, text) | Change::Target(text) = change
                {
                    text_senders(*text, &mut senders);
                }
            }
        }
        Step::Do(
            Action::PollStream(sender)
            | Action::ListResources(sender)
            | Action::CallReconnectionTool(sender)
            | Action::ListToolsModern(sender),
        ) => {
            senders.push(*sender);
        }
        Step::Smuggle(_) => senders.push(Sender::Alice),
        Step::Do(
            Action::Revoke(_)
            | Action::BumpRevision(_)
            | Action::OpenSessions(..)
            | Action::ServeChunked
            | Action::ServeVersions(_),
        )
        | Step::Browser(_)
        | Step::Open(..)
        | Step::Watch(_) => {}
    }
    senders
}

/// The senders a text names (a join is as deep as the tables write it, never input-driven).
fn text_senders(text: Text, senders: &mut Vec<Sender>) {
    match text {
        Text::SessionOf(s) | Text::GetEventOf(s) | Text::LastEventOf(s) => senders.push(s),
        Text::Join(parts) => parts.iter().for_each(|&part| text_senders(part, senders)),
        Text::Lit(_) | Text::TokenOf(_) | Text::OverValueBudget | Text::Port => {}
    }
}
