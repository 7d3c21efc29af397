//! Running the steps of `attack` and `lab` (`case`'s rows) against a fresh in-process server: a
//! [`Scene`] opens the sessions the steps need, sends each request as its row describes it, and
//! turns each response into an [`Observation`] with [`judge`].
//!
//! Not here: the rows themselves (`case`, `attack`, `lab`), or what a stream watch does (`watch`).

use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::mcp::{McpClient, RequestSpec};
use loopback_mcp_http::client::modern::Opened;
use loopback_mcp_http::client::trace::TraceMode;
use loopback_mcp_http::client::{ClientError, ClientResponse, HttpConnection};
use loopback_mcp_http::http::TransferCodings;
use loopback_mcp_http::json;
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::MCP_PATH;
use loopback_mcp_http::mcp::revision::Versions;
use loopback_mcp_http::server::ServerConfig;
use loopback_mcp_http::sse;
use std::time::{Duration, Instant};

use super::local::LocalServer;
use super::render::{self, Callable, MirroredArgument, World};

use super::case::{
    Action, Base, Body, BrowserProbe, Case, Change, Expect, Key, Message, Observation, Request,
    Sender, Smuggling, Step, Text, judge,
};

/// How long a slow call a case cancels may take to end, from its cancellation.
const SLOW_CALL_DEADLINE: Duration = Duration::from_secs(3);

/// A fresh server and the sessions a list of steps needs.
pub struct Scene {
    local: LocalServer,
    clients: Vec<(Sender, McpClient)>,
    remembered: Vec<(Remembered, String)>,
    /// The last exchange, byte for byte, for a [`Step::Wire`].
    last_wire: Option<String>,
    /// Called with each case's text and its request (redacted) before it is sent.
    before_send: Option<BeforeSend>,
}

/// What [`Scene::before_send`] calls: the case's text, its request as a trace shows it.
pub type BeforeSend = Box<dyn FnMut(&str, &str)>;

/// A value an action remembered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Remembered {
    GetEvent(Sender),
    LastEvent(Sender),
}

impl Scene {
    /// Starts a server and opens a session for every sender `steps` name, in sender order. Every
    /// client's trace knows every token and session id, so no trace shows another's.
    pub fn open(trace: TraceMode, steps: &[Step]) -> Result<Scene, String> {
        Scene::open_on(LocalServer::start(trace)?, steps)
    }

    /// [`Scene::open`] on a server already started.
    pub fn open_on(local: LocalServer, steps: &[Step]) -> Result<Scene, String> {
        let mut senders: Vec<Sender> = steps.iter().flat_map(senders_of).collect();
        senders.sort();
        senders.dedup();
        let clients = open_sessions(&local, senders)?;
        Ok(Scene { local, clients, remembered: Vec::new(), last_wire: None, before_send: None })
    }

    /// Calls `hook` before each case's request is sent, with the case's text and the request.
    pub fn before_send(&mut self, hook: BeforeSend) {
        self.before_send = Some(hook);
    }

    /// Closes every client's kept connection, so that what is sent next opens a fresh one.
    pub fn disconnect_all(&mut self) {
        for (_, client) in &mut self.clients {
            client.disconnect();
        }
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
        let fill = |template: &str| render::fill(self, Sender::Alice, template);
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
                let body = json::encode(&render::message_value(Message::Initialize(
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
        let bytes = render::build(self, case.sender, &case.request, role)?;
        // A cancellation is judged by the answer of the call it cancels: that call is what the
        // hook shows.
        let during = match case.request.base.during() {
            Some(owner) => {
                let call = Request::post(Message::SlowCall, &[]);
                Some((owner, render::build(self, owner, &call, None)?))
            }
            None => None,
        };
        if self.before_send.is_some() {
            // Shown as the wire of a Step::Wire is: every token and session id redacted.
            let (shown, what) = match &during {
                Some((owner, call)) => (
                    self.client_mut(*owner)?.trace.render_bytes(call),
                    format!("{}: the slow call it cancels, and its answer", case.what),
                ),
                None => {
                    (self.client_mut(case.sender)?.trace.render_bytes(&bytes), case.what.into())
                }
            };
            if let Some(hook) = self.before_send.as_mut() {
                hook(&what, &shown);
            }
            // The hook waited on a person: the request goes out on a fresh connection.
            self.disconnect_all();
        }
        let response = match &during {
            Some((owner, call)) => self.cancel_during((*owner, call), case.sender, &bytes)?,
            None => self.client_mut(case.sender)?.send(&bytes).ok(),
        };
        let client = self.client_mut(case.sender)?;
        let (status, key_seen, matched) = judge(&case.expect, response.as_ref());
        // Observations never print a token or a session id: the trace knows every one.
        let key_seen = client.trace.redact(&key_seen);
        let wire = response.as_ref().map(|r| {
            let request = client.trace.render_bytes(&bytes);
            format!("{request}{}", client.trace.render_bytes(&r.raw))
        });
        self.last_wire = wire;
        // A stream is its receiver's to resume: a cancelled call's is its owner's.
        let receiver = case.request.base.during().unwrap_or(case.sender);
        if let Some(last) = response.as_ref().and_then(last_event_id) {
            self.remembered.push((Remembered::LastEvent(receiver), last));
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

    /// Starts `owner`'s slow `call` on a connection of its own, sends `cancel` from `sender`
    /// once the call's head has come, and reads the call to its end: the call's answer, or the
    /// cancellation's when that was not answered 202 (see [`Base::CancelDuring`]).
    fn cancel_during(
        &mut self,
        (owner, call): (Sender, &[u8]),
        sender: Sender,
        cancel: &[u8],
    ) -> Result<Option<ClientResponse>, String> {
        let address = self.local.server.address();
        let mut conn = HttpConnection::connect(address, &Limits::DEFAULT)
            .map_err(|e| format!("connect: {e}"))?;
        self.client_mut(owner)?.trace.wire('>', call);
        let head =
            conn.send(call).map_err(ClientError::from).and_then(|()| conn.receive_stream_head());
        let mut head = head.map_err(|e| format!("{owner:?}: the slow call: {e}"))?;
        let answered = self.client_mut(sender)?.send(cancel).ok();
        if answered.as_ref().is_none_or(|r| r.status != 202) {
            return Ok(answered);
        }
        let deadline = Instant::now() + SLOW_CALL_DEADLINE;
        while let Some(chunk) =
            conn.next_chunk(deadline).map_err(|e| format!("the slow call: {e}"))?
        {
            head.body.extend_from_slice(&chunk);
        }
        let client = self.client_mut(owner)?;
        client.trace.wire('<', &head.raw);
        client.trace.wire('<', &head.body);
        Ok(Some(head))
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
                let spec =
                    client.message_spec(&render::message_value(Message::CallReconnectionTool));
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
            Action::ServeChunked => self.restart(|base| ServerConfig {
                request_codings: TransferCodings::Chunked,
                versions: Versions::LEGACY,
                ..base
            })?,
            Action::ServeVersions(versions) => self.restart(|base| ServerConfig {
                request_codings: TransferCodings::LengthOnly,
                versions,
                ..base
            })?,
            Action::ServeConformance => self.restart(|base| ServerConfig {
                versions: Versions::ALL,
                conformance_fixtures: true,
                ..base
            })?,
            Action::ListToolsModern(sender) => {
                self.client_mut(sender)?
                    .list_tools_modern()
                    .map_err(|e| format!("{sender:?}: tools/list: {e}"))?;
            }
        }
        Ok(())
    }

    /// Replaces the server with one of its starting configuration as `vary` changes it, and
    /// opens every sender's session again there.
    fn restart(&mut self, vary: impl FnOnce(ServerConfig) -> ServerConfig) -> Result<(), String> {
        self.local = self.local.restarted(vary)?;
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

    fn remembered(&self, what: Remembered) -> Result<String, String> {
        self.remembered
            .iter()
            .rev()
            .find(|(w, _)| *w == what)
            .map(|(_, value)| value.clone())
            .ok_or(format!("{what:?} was not remembered by an earlier step"))
    }
}

impl World for Scene {
    fn spec(&self, sender: Sender, base: Base) -> Result<RequestSpec, String> {
        let client = self.client(sender)?;
        Ok(match base {
            Base::Post(body) => client.post_spec(&self.body(body)),
            Base::Modern(modern) => {
                let tools = self.callable(sender)?;
                let message = render::modern_message(modern, &tools, client.modern_revision())?;
                client
                    .modern_spec(&message)
                    .map_err(|e| format!("{sender:?}: {}", client.trace.redact(&e.to_string())))?
            }
            Base::Get => client.session_spec("GET"),
            Base::Bodiless(method) => client.session_spec(method),
            Base::Discovery => client.discovery_spec(),
            Base::Raw(_) => return Err("a raw template has no spec".into()),
            Base::CancelDuring(_) => {
                client.post_spec(&self.body(Body::Message(Message::CancelSlowCall)))
            }
        })
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
            Text::Host => self.local.server.address().to_string(),
            Text::Path => MCP_PATH.to_owned(),
            Text::Join(parts) => {
                parts.iter().map(|&part| self.resolve(part)).collect::<Result<String, String>>()?
            }
        })
    }

    fn token_of(&self, role: Role) -> Result<String, String> {
        Ok(self.local.fixture.token(role).to_owned())
    }

    fn sender_token(&self, sender: Sender) -> Option<String> {
        Some(self.local.fixture.token(sender.role()).to_owned())
    }

    /// This server's tools; its mirrored string argument is `tenant_documents`' tenant.
    fn callable(&self, sender: Sender) -> Result<Callable, String> {
        let tools = self.client(sender)?.tool_headers();
        let mirrored = tools.iter().find_map(|t| {
            let param = t.params.iter().find(|p| p.name == "Tenant")?;
            let header = format!("Mcp-Param-{}", param.name);
            Some(MirroredArgument { tool: t.tool.clone(), path: param.path.clone(), header })
        });
        Ok(Callable { first: tools.first().map(|t| t.tool.clone()), mirrored })
    }

    fn fields_over_budget(&self) -> usize {
        self.limits().header_fields_max + 1
    }
}

impl Scene {
    fn body(&self, body: Body) -> Vec<u8> {
        match body {
            Body::Message(message) => json::encode(&render::message_value(message)).into_bytes(),
            Body::Bytes(bytes) => render::with_method(bytes, "ping"),
            Body::OverBudget => vec![b' '; self.limits().request_body_bytes_max + 1],
            Body::TooDeep => render::nested(self.limits().json_depth_max + 1, "ping"),
        }
    }

    fn limits(&self) -> &Limits {
        self.local.server.endpoint().limits()
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
        let mut client = local.session(sender.role())?;
        if sender == Sender::Ended {
            let ended = client.session().unwrap_or_default().to_owned();
            client.delete().map_err(|e| format!("{sender:?}: DELETE: {e}"))?;
            // It keeps the ended id, which is what its cases send.
            client.use_session(&ended);
        }
        clients.push((sender, client));
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
        | Step::CheckEachRole(_, case) => case_senders(case, &mut senders),
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
            | Action::ServeVersions(_)
            | Action::ServeConformance,
        )
        | Step::Browser(_)
        | Step::Open(..)
        | Step::Watch(_) => {}
    }
    senders
}

/// The senders a case needs: its own, and every one a change names.
fn case_senders(case: &Case, senders: &mut Vec<Sender>) {
    senders.push(case.sender);
    senders.extend(case.request.base.during());
    for change in case.request.changes {
        match change {
            Change::Set(_, text)
            | Change::With(_, text)
            | Change::Target(text)
            | Change::SetMirrored(text) => text_senders(*text, senders),
            Change::Without(_)
            | Change::Bearer(_)
            | Change::OutsideSession
            | Change::Chunked(_)
            | Change::BareLf
            | Change::OverFieldCount
            | Change::WithoutMirrored => {}
        }
    }
}

/// The senders a text names (a join is as deep as the tables write it, never input-driven).
fn text_senders(text: Text, senders: &mut Vec<Sender>) {
    match text {
        Text::SessionOf(s) | Text::GetEventOf(s) | Text::LastEventOf(s) => senders.push(s),
        Text::Join(parts) => parts.iter().for_each(|&part| text_senders(part, senders)),
        Text::Lit(_)
        | Text::TokenOf(_)
        | Text::OverValueBudget
        | Text::Port
        | Text::Host
        | Text::Path => {}
    }
}
