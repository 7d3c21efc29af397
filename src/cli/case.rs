//! One declarative case type behind `attack` and `lab`: who sends which request, and what must
//! come back.
//!
//! A case is a row of data, never a closure: a [`Sender`] (a client holding a live session of one
//! fixture role), a [`Request`] described as a base plus changes, and an [`Expect`] (a status
//! with a public code, a header that must contain some text, or a fact about the body). Steps
//! between cases ([`Action`]) change the server's state (a revocation, a new authorization
//! revision) or remember a value later cases use (an event id). `scene` runs a list of
//! [`Step`]s against a fresh in-process server, and [`judge`] is the one place a response is
//! compared with its expectation.
//!
//! Deliberately malformed bodies (a duplicate key, a batch) are byte literals in the tables;
//! every well-formed message is built as a value by `mcp::requests` and encoded.

use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::ClientResponse;
use loopback_mcp_http::client::mcp::{error_code, is_priming};
use loopback_mcp_http::client::modern::Opened;
use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::revision::Versions;
use loopback_mcp_http::sse;

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
    /// `full` again, whose session is ended with DELETE as soon as it is opened: what a
    /// request with an ended session's id meets.
    Ended,
}

impl Sender {
    pub const fn role(self) -> Role {
        match self {
            Sender::Alice | Sender::AliceSecond | Sender::Ended => Role::Full,
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
    /// One byte more than a header field value may hold (the server's own budget, or a typical
    /// one for a server that announces none).
    OverValueBudget,
    /// The server's port.
    Port,
    /// The server's authority, as `Host` names it.
    Host,
    /// The path of the MCP endpoint.
    Path,
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
    /// `tools/call` of `test_tool_slow`, long enough for a cancellation to reach it
    /// (`render::SLOW_CALL_MS`), under the id a [`Message::CancelSlowCall`] names.
    SlowCall,
    /// `notifications/cancelled` naming the id of a [`Message::SlowCall`].
    CancelSlowCall,
    /// `notifications/initialized`, as a client sends it once `initialize` is answered.
    Initialized,
}

/// A 2026-07-28 request, built as the sender's client builds it: `_meta` in the body, and every
/// mirrored header the body calls for (the `Mcp-Param` ones from the client's latest modern
/// `tools/list`, see [`Action::ListToolsModern`]).
#[derive(Clone, Copy, Debug)]
pub enum Modern {
    Discover,
    /// `server/discover` whose `_meta` lacks the required `clientCapabilities`.
    DiscoverWithoutCapabilities,
    /// `server/discover` naming this revision, in `_meta` and in `MCP-Protocol-Version`.
    DiscoverAs(&'static str),
    ToolsList,
    /// `tools/call` of the first tool the server lists, without arguments.
    FirstTool,
    /// `tools/call` of the first tool that mirrors an argument into a header (`x-mcp-header`),
    /// with this value for it: `tenant_documents` and its tenant on this server.
    Mirrored(&'static str),
    /// `tools/call` of this tool, without arguments.
    CallTool(&'static str),
    /// `resources/read` of this URI.
    ReadResource(&'static str),
}

/// A request body.
#[derive(Clone, Copy, Debug)]
pub enum Body {
    Message(Message),
    /// Exact bytes: for deliberately malformed bodies, visible in the table. `{method}` stands
    /// for the method of the sender's ordinary request: `ping` in 2025-11-25,
    /// `server/discover` in 2026-07-28.
    Bytes(&'static [u8]),
    /// One byte more than the body budget (spaces).
    OverBudget,
    /// A ping whose params nest one array deeper than the JSON depth budget.
    TooDeep,
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
    /// A request without a body of this method, with the sender's fields and session.
    Bodiless(&'static str),
    /// Exact request bytes from a template; changes do not apply. Filled in: `{path}` (the MCP
    /// endpoint's), `{host}` (the server's authority), `{token}` (the sender's token),
    /// `{auth}` (its `Authorization` line, or nothing when it has no token), and from the
    /// sender's ordinary ping: `{fields}` (its field lines, without framing), `{body}`,
    /// `{length}` (the body's length), `{other_length}` (one more) and `{chunked}` (the body in
    /// the chunked coding).
    Raw(&'static str),
    /// The sender's [`Message::CancelSlowCall`] in its session, sent while this sender's
    /// [`Message::SlowCall`], started just before on a connection of its own, is in progress.
    /// What is judged is that call's answer, read to its end: whether the cancellation reached
    /// it shows in its events.
    CancelDuring(Sender),
}

impl Base {
    /// The sender whose slow call the request is sent during ([`Base::CancelDuring`]), and
    /// whose answer is judged; `None` for a request judged by its own answer.
    pub const fn during(self) -> Option<Sender> {
        match self {
            Base::CancelDuring(owner) => Some(owner),
            Base::Post(_)
            | Base::Modern(_)
            | Base::Get
            | Base::Discovery
            | Base::Bodiless(_)
            | Base::Raw(_) => None,
        }
    }
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
    /// End the request line with a bare LF instead of CRLF.
    BareLf,
    /// Add one more field line than the server's field-count budget (or a typical one), each
    /// `X-Probe-N: 1`.
    OverFieldCount,
    /// Replace the value of the header the [`Modern::Mirrored`] argument goes into.
    SetMirrored(Text),
    /// Remove that header.
    WithoutMirrored,
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
    /// One `Bearer` challenge among the `WWW-Authenticate` challenges, each of these
    /// parameters holding its text (read through `http::authenticate`).
    Challenge(&'static [(&'static str, &'static str)]),
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

    /// A `Bearer` challenge whose parameters hold these texts (see [`Key::Challenge`]).
    pub const fn challenge(status: u16, params: &'static [(&'static str, &'static str)]) -> Expect {
        Expect { status, key: Key::Challenge(params) }
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
            Key::Challenge(params) => format!(" Bearer {}", shown_params(params.iter().copied())),
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
    /// Replaces the server with a fresh one that speaks every version and serves the
    /// conformance suite's step-up fixtures, as `serve --conformance-fixtures` does.
    ServeConformance,
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
        Key::Challenge(params) => bearer_holds(response, params),
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

/// What the response's one `Bearer` challenge holds, and whether each of `params` holds its
/// text there.
fn bearer_holds(response: &ClientResponse, params: &[(&str, &str)]) -> (String, bool) {
    let challenges = match response.challenges() {
        Ok(challenges) => challenges,
        Err(malformed) => return (format!("challenge: {}", malformed.why.code()), false),
    };
    let bearers: Vec<_> = challenges.iter().filter(|c| c.is("Bearer")).collect();
    let [bearer] = bearers[..] else {
        return (format!("challenge: {} Bearer challenges", bearers.len()), false);
    };
    let held = |(name, want): &(&str, &str)| bearer.param(name).is_some_and(|v| v.contains(want));
    let shown = shown_params(bearer.params.iter().map(|(n, v)| (n.as_str(), v.as_str())));
    (format!("challenge: Bearer {shown}"), params.iter().all(held))
}

/// Parameters as `name="value", ...`.
fn shown_params<'p>(params: impl Iterator<Item = (&'p str, &'p str)>) -> String {
    params.map(|(n, v)| format!("{n}=\"{v}\"")).collect::<Vec<_>>().join(", ")
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
