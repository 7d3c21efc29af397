//! The MCP endpoint and the discovery document: a parsed request in, a [`Reply`] out, in the strict
//! receive order.
//!
//! The order never changes, and an early failure never reaches a later stage. This list is the
//! one home of the receive order.
//!
//! <!-- receive-order: start -->
//! 1. The head's own rules and budgets, byte by byte (`http::RequestParser`): 400, 413, 414,
//!    417, 431, 501, 505.
//! 2. `Host` must be the server's canonical authority `127.0.0.1:<port>`, or on `/mcp` a
//!    loopback proxy's (`--allow-host`); its `localhost` alias, and discovery through a proxy,
//!    get 421 `host_not_canonical`, any other name 421 `host_not_allowed` (a DNS-rebinding
//!    guard). A present `Origin` must be in the exact allowlist (403, never an OAuth challenge).
//! 3. The route and method (404, 405 with `Allow`; HEAD is answered like GET, without content,
//!    on the discovery paths; `OPTIONS *` gets 204 with `Allow`), credentials sent to discovery
//!    (400), `Accept` (406), `Content-Type` (415), a body where none belongs (400), and a
//!    present `MCP-Protocol-Version` naming anything but 2025-11-25 (400) (`Endpoint::admit`).
//!    Only now is the body read, and only now does a client that sent `Expect: 100-continue`
//!    get its `100 Continue`.
//! 4. The body, within its budget and deadline (under `--chunked`, a chunked body is decoded
//!    first, strictly: 400, 413, 431, the connection closed): strict JSON, then exactly one
//!    JSON-RPC message (400).
//! 5. The bearer token, identity only (`OfflineTokenPolicy::authenticate`): 400, 401.
//! 6. The version header's presence (required after initialize), the session id, the session
//!    itself and the lifecycle (only `ping` before `notifications/initialized`): 400, 404; on
//!    initialize, 503 when no session slot is free and 429 when this principal holds its quota,
//!    both with `Retry-After`.
//! 7. Scopes and tenant data (`OfflineTokenPolicy::authorize`): 403.
//! 8. The method itself, answered as JSON or as an event stream.
//! <!-- receive-order: end -->
//!
//! This is the order of the 2025-11-25 era, the default server's only one: there a request
//! announcing another protocol version is a plain 400 at stage 3, before its body is read or its
//! credentials are looked at, earlier than the rest of the version and session checks on purpose
//! ([`crate::mcp`] says why). A server started with 2026-07-28 among its versions decides each
//! request's era ([`crate::mcp::era`]) instead: a GET or a DELETE at stage 3, a POST once stage 4
//! has read the method; a request of the modern era then follows the order of `modern`, with no
//! session stage.
//!
//! Pure apart from the shared state, under no lock during I/O: the policy and the session
//! table. The policy is written by the control plane under a write lock (see `published`), and a
//! request runs stages 5 to 8 under the read lock, so an edit is in force from the very next
//! request on every connection and never changes a state under a request already running. The
//! session table is locked only while a session is looked up or changed; a connection that keeps
//! its session skips it (see [`LastSession`]). Time and randomness come from the caller.
//!
//! # Error bodies
//!
//! Every error body is a JSON-RPC error without an `id` whose `message` is a stable public code
//! (`{"error":{"code":-32000,"message":"session_not_found"},"jsonrpc":"2.0"}`; [`rejection`] has
//! every status and code), every error closes
//! the connection, and no status line, header or body ever contains a bearer token, a session id
//! (except the `MCP-Session-Id` that a successful initialize hands out), a claim or an internal
//! message; the socket tests scan every response they receive for the tokens and session ids they
//! know, and allow a session id only in that one place.

pub mod live;
mod methods;
pub mod modern;
mod open;
mod published;
pub mod rejection;
pub mod reply;
mod share;
pub mod stage;
mod stream;
pub mod tools;

use std::time::{Instant, SystemTime};

use crate::auth::metadata;
use std::sync::Arc;

use crate::auth::policy::{OfflineTokenPolicy, Principal};
use crate::auth::scope::{self, Requirement};
use crate::http::chars;
use crate::http::media::{Accept, MediaType};
use crate::http::{self, BodyFraming, Occurrence, RequestHead, Status, TransferCodings};
use crate::json::{self, Object, ObjectWriter};
use crate::limits::Limits;
use crate::mcp::era::{CallKind, VersionHeader, era};
use crate::mcp::jsonrpc::{self, Id, Message, code};
use crate::mcp::method::{self, Access, Lifecycle, McpMethod, MethodName};
use crate::mcp::revision::{Era, Eras, Revision, Versions};
use crate::mcp::session::{
    self, LogLevel, OwnerRef, Session, SessionBudget, SessionKey, SessionTable,
};
use crate::mcp::stream::{CursorError, Delivered, KeptBudget, Start};
use crate::mcp::{self, MCP_PATH};
use crate::random::{self, FillRandom};
use live::{Live, OpenStream, Opener, Scale, SlowRequest};
use stream::{PrimeOnly, SseBody};
use tools::Tool;

pub use crate::mcp::session::LastSession;
pub use published::PolicyEdit;
use published::PublishedPolicy;
pub use rejection::Rejection;
pub use reply::{Delivery, Reply};
pub use stage::{Decided, ReceiveStage};

/// What `/mcp` takes on a server that speaks 2025-11-25 (alone or beside 2026-07-28).
const MCP_ALLOW: &str = "GET, POST, DELETE";
/// What `/mcp` takes in the 2026-07-28 era, which has no GET stream and no session to DELETE:
/// on a server of that era alone, and for a request the era decision sends there.
const MODERN_ALLOW: &str = "POST";
const METADATA_ALLOW: &str = "GET, HEAD";
/// What `OPTIONS *` answers: every method some route of the server implements.
const SERVER_ALLOW: &str = "GET, HEAD, POST, DELETE";
/// The same, on a server of 2026-07-28 alone.
const MODERN_SERVER_ALLOW: &str = "GET, HEAD, POST";
/// Fields the discovery document refuses: it is public, and a client that sends credentials to
/// it is about to leak them wherever discovery leads.
const DISCOVERY_REFUSES: [&str; 3] = ["authorization", "proxy-authorization", "cookie"];
/// Random bytes in a session id (48 hex digits: 192 bits, never guessable).
const SESSION_ID_RANDOM_BYTES: usize = 24;
/// Random bytes in a session's event-id tag (16 hex digits), so ids differ across sessions.
const EVENT_TAG_RANDOM_BYTES: usize = 8;
/// Room reserved for the text of a small result (`ping`, `tools/list`), so that writing it takes
/// one allocation.
const SMALL_RESULT_BYTES: usize = 256;
/// Room reserved for the `initialize` result.
const INITIALIZE_RESULT_BYTES: usize = 256;
/// Room reserved for a `resources/list` or `test_reconnection` result.
const RESOURCES_RESULT_BYTES: usize = 512;

/// What the endpoint is configured with. `Host` values are compared case-insensitively,
/// `Origin` values exactly.
#[derive(Clone, Debug)]
pub struct EndpointConfig {
    /// Every `Origin` value allowed, exactly as a browser would send it.
    pub allowed_origins: Vec<String>,
    /// The one authority the server answers as (`127.0.0.1:<port>`): the resource identifier,
    /// the discovery document and every challenge name it.
    pub canonical_host: String,
    /// Other names of this server (`localhost:<port>`): refused with 421 `host_not_canonical`,
    /// so that no response pairs them with a document naming another resource.
    pub alias_hosts: Vec<String>,
    /// Authorities of loopback proxies in front (`serve --allow-host`), which keep the client's
    /// `Host`: accepted on `/mcp`, which they forward for the canonical resource; discovery is
    /// not served under them (421 `host_not_canonical`), since its document names the canonical
    /// resource.
    pub proxy_hosts: Vec<String>,
    pub limits: Limits,
    /// The transfer codings request bodies may use: none by default, chunked under
    /// `serve --chunked`.
    pub request_codings: TransferCodings,
    /// The protocol revisions spoken: 2025-11-25 alone by default, `serve --protocol-versions`
    /// otherwise.
    pub versions: Versions,
}

impl EndpointConfig {
    /// The configuration of a server on `127.0.0.1:<port>`: that canonical authority, its
    /// `localhost` alias, no proxy, and the server's own two loopback origins.
    pub fn loopback(port: u16, limits: Limits) -> EndpointConfig {
        EndpointConfig {
            allowed_origins: vec![
                format!("http://127.0.0.1:{port}"),
                format!("http://localhost:{port}"),
            ],
            canonical_host: format!("127.0.0.1:{port}"),
            alias_hosts: vec![format!("localhost:{port}")],
            proxy_hosts: Vec::new(),
            limits,
            request_codings: TransferCodings::LengthOnly,
            versions: Versions::LEGACY,
        }
    }
}

/// The time of one request, read once by the shell.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    /// For session lifetimes.
    pub now: Instant,
    /// For token expiry.
    pub wall: SystemTime,
}

/// Where an admitted request goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    McpPost,
    McpGet,
    McpDelete,
    Metadata,
    /// `OPTIONS *`.
    ServerOptions,
}

/// What a connection keeps from one request for the next: the session it found last
/// ([`LastSession`]), so that a request in the same session does not take the table's lock.
/// Dropped with the connection.
#[derive(Debug)]
pub(crate) struct KeptByConnection {
    session: LastSession,
}

/// The endpoint's state: the policy and the sessions.
#[derive(Debug)]
pub struct Endpoint {
    config: EndpointConfig,
    metadata_url: String,
    /// The protected-resource metadata, encoded once: nothing in it changes while serving.
    metadata_document: String,
    policy: PublishedPolicy,
    sessions: SessionTable,
    /// The open streams' shared state: counters, the share, what changed, stopping.
    live: Arc<Live>,
}

/// What the endpoint answers a request with.
#[derive(Debug)]
pub enum Answer {
    /// One reply, whole.
    Whole(Reply),
    /// A stream that stays open: `head` is its status, its fields and its first events (as its
    /// body); `stream` produces the rest.
    Open { head: Reply, stream: Box<OpenStream> },
}

impl From<Reply> for Answer {
    fn from(reply: Reply) -> Answer {
        Answer::Whole(reply)
    }
}

impl Endpoint {
    /// An endpoint for `config`, deciding tokens with `policy`.
    pub fn new(config: EndpointConfig, policy: OfflineTokenPolicy) -> Endpoint {
        let limits = config.limits;
        let budget = SessionBudget {
            capacity: limits.sessions_active_max,
            per_principal: limits.sessions_per_principal_max,
            ttl: limits.session_ttl,
            kept: KeptBudget {
                messages_max: limits.sse_events_kept_per_session_max,
                bytes_max: limits.sse_bytes_kept_per_session_max,
            },
        };
        Endpoint {
            metadata_url: policy.metadata_url().to_owned(),
            metadata_document: json::encode(&policy.metadata()),
            config,
            policy: PublishedPolicy::new(policy),
            sessions: SessionTable::new(budget),
            live: Arc::new(Live::new(&limits)),
        }
    }

    /// The open streams' shared state: the counters `control … stats` reads, the tool list's
    /// changes, and the stop that ends every listen.
    pub fn live(&self) -> &Arc<Live> {
        &self.live
    }

    /// The budgets in force.
    pub fn limits(&self) -> &Limits {
        &self.config.limits
    }

    /// The protocol revisions spoken.
    pub fn versions(&self) -> Versions {
        self.config.versions
    }

    /// The revision a session of this server speaks: the newest of the legacy era it speaks.
    fn legacy_revision(&self) -> Revision {
        self.config.versions.newest_in(Era::Legacy).unwrap_or(Revision::newest(Era::Legacy))
    }

    /// The transfer codings request bodies may use.
    pub fn request_codings(&self) -> TransferCodings {
        self.config.request_codings
    }

    /// Every `Origin` value allowed, exactly as compared.
    pub fn allowed_origins(&self) -> &[String] {
        &self.config.allowed_origins
    }

    /// The one authority the server answers as (`127.0.0.1:<port>`).
    pub fn canonical_host(&self) -> &str {
        &self.config.canonical_host
    }

    /// The URL challenges point to.
    pub fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    /// What a new connection starts with: no session yet.
    pub(crate) fn kept_for_new_connection(&self) -> KeptByConnection {
        KeptByConnection { session: LastSession::default() }
    }

    /// The control plane: revocations and revision changes, in force for every request that
    /// starts after the returned edit is dropped. The edit waits for the requests already past
    /// stage 5 to finish under the state they read.
    pub fn policy_mut(&self) -> PolicyEdit<'_> {
        self.policy.edit()
    }

    /// Sessions alive at `now`.
    pub fn live_sessions(&self, now: Instant) -> usize {
        self.sessions.live(now)
    }

    /// Stages 2 and 3, which need only the head: the server calls this before reading a body.
    pub fn admit(&self, head: &RequestHead<'_>) -> Result<Route, Rejection> {
        self.check_host_and_origin(head)?;
        let route = route(head, self.config.versions)?;
        self.check_version_on_admission(head, route)?;
        match route {
            Route::McpPost => {
                check_accept(
                    head,
                    [("application", "json"), ("text", "event-stream")],
                    self.limits(),
                )?;
                check_json_content_type(head)?;
            }
            Route::McpGet => {
                check_accept(head, [("text", "event-stream")], self.limits())?;
                check_no_body(head)?;
            }
            Route::McpDelete => check_no_body(head)?,
            Route::Metadata => {
                let credential = |name| head.fields.get(name).is_some();
                if DISCOVERY_REFUSES.into_iter().any(credential) {
                    return Err(Rejection::CredentialsNotAccepted);
                }
                check_no_body(head)?;
            }
            Route::ServerOptions => check_no_body(head)?,
        }
        Ok(route)
    }

    /// Stages 4 to 8 for an admitted request and its complete body, on a connection that kept
    /// `kept` from its earlier requests (and keeps it for its next one). Crate-private: `kept`
    /// must come from this endpoint, which only the server's connections guarantee.
    pub(crate) fn respond(
        &self,
        route: Route,
        head: &RequestHead<'_>,
        body: &[u8],
        clock: Clock,
        random: &mut FillRandom<'_>,
        kept: &mut KeptByConnection,
    ) -> Answer {
        let (policy, last) = (&*self.policy.read(), &mut kept.session);
        let result = match route {
            Route::Metadata => Ok(Reply::json_text(self.metadata_document.clone()).into()),
            Route::ServerOptions => {
                let versions = self.config.versions;
                let allow =
                    if sessions_spoken(versions) { SERVER_ALLOW } else { MODERN_SERVER_ALLOW };
                Ok(Reply::empty(Status::NoContent).with("Allow", allow).into())
            }
            Route::McpPost => self.post(policy, head, body, clock, random, last),
            Route::McpGet => self.get(policy, head, clock, last),
            Route::McpDelete => self.delete(policy, head, clock, last).map(Answer::from),
        };
        result.unwrap_or_else(|rejection| rejection.reply(&self.metadata_url).into())
    }

    /// [`Endpoint::admit`] then stages 4 to 8, for callers that already hold the body,
    /// as the only request of its connection.
    pub fn handle(
        &self,
        head: &RequestHead<'_>,
        body: &[u8],
        clock: Clock,
        random: &mut FillRandom<'_>,
    ) -> Reply {
        match self.admit(head) {
            Ok(route) => {
                let kept = &mut self.kept_for_new_connection();
                match self.respond(route, head, body, clock, random, kept) {
                    Answer::Whole(reply) => reply,
                    // Answered whole: the stream runs to its end at once, time jumping ahead.
                    Answer::Open { mut head, stream } => {
                        head.body.extend_from_slice(&stream.collect(self, clock.now, clock.wall));
                        head
                    }
                }
            }
            Err(rejection) => rejection.reply(&self.metadata_url),
        }
    }

    /// Stage 3's version rule. A server of 2025-11-25 alone refuses a present version header
    /// that names anything else, before the body is read and before the credentials are looked
    /// at. A server that speaks 2026-07-28 decides a POST's era once the body names its method
    /// (the modern checks need the body), and a GET's or a DELETE's now: the modern era has
    /// neither (405).
    fn check_version_on_admission(
        &self,
        head: &RequestHead<'_>,
        route: Route,
    ) -> Result<(), Rejection> {
        let versions = self.config.versions;
        match (route, versions.eras()) {
            (Route::McpPost | Route::McpGet | Route::McpDelete, Eras::One(Era::Legacy)) => {
                check_protocol_version(head, versions)
            }
            (Route::McpGet | Route::McpDelete, Eras::One(Era::Modern) | Eras::Both) => {
                match era(versions, version_header(head), CallKind::Other) {
                    Era::Legacy => check_protocol_version(head, versions),
                    Era::Modern => Err(Rejection::MethodNotAllowed { allow: MODERN_ALLOW }),
                }
            }
            (Route::McpPost, Eras::One(Era::Modern) | Eras::Both)
            | (Route::Metadata | Route::ServerOptions, _) => Ok(()),
        }
    }

    /// Stage 2: the canonical authority (or a proxy's, on `/mcp`), then the Origin allowlist.
    fn check_host_and_origin(&self, head: &RequestHead<'_>) -> Result<(), Rejection> {
        let host = head.fields.get("host").unwrap_or_default();
        let is = |name: &String| chars::same_ignoring_case(host, name.as_bytes());
        let config = &self.config;
        let discovery = matches!(head.target, metadata::PATH_FOR_MCP | metadata::PATH_ROOT);
        if is(&config.canonical_host) {
            // The canonical authority: every route.
        } else if config.proxy_hosts.iter().any(is) && !discovery {
            // A proxy in front, forwarding `/mcp` for the canonical resource.
        } else if config.proxy_hosts.iter().any(is) || config.alias_hosts.iter().any(is) {
            return Err(Rejection::HostNotCanonical);
        } else {
            return Err(Rejection::HostNotAllowed);
        }
        match head.fields.single("origin") {
            Occurrence::Absent => Ok(()),
            Occurrence::Once(origin)
                if self.config.allowed_origins.iter().any(|o| o.as_bytes() == origin) =>
            {
                Ok(())
            }
            _ => Err(Rejection::OriginNotAllowed),
        }
    }

    /// Stage 5: who is asking. `requirement` only shapes the challenge of a refusal.
    fn authenticate<'p>(
        policy: &'p OfflineTokenPolicy,
        head: &RequestHead<'_>,
        clock: Clock,
        requirement: Requirement,
    ) -> Result<&'p Principal, Rejection> {
        policy
            .identify(head.fields.all("authorization"), clock.wall)
            .map_err(|denial| Rejection::Auth { denial, requirement })
    }

    /// Stage 6 outside initialize: the version header is there, and the one well-formed session
    /// id names a live session of this principal (anything else looks like no session at all).
    fn session_for<'l>(
        &self,
        head: &RequestHead<'_>,
        principal: &Principal,
        clock: Clock,
        last: &'l mut LastSession,
    ) -> Result<(SessionKey, &'l Arc<Session>), Rejection> {
        require_protocol_version(head)?;
        let key = session_id(head)?;
        let session = self
            .sessions
            .find_for(last, key, owner_of(principal), clock.now)
            .ok_or(Rejection::SessionNotFound)?;
        Ok((key, session))
    }

    /// Stage 7: may they do it.
    fn authorize(
        policy: &OfflineTokenPolicy,
        principal: &Principal,
        requirement: Requirement,
    ) -> Result<(), Rejection> {
        policy
            .authorize(principal, &requirement)
            .map_err(|denial| Rejection::Auth { denial, requirement })
    }

    /// Stages 5 to 7 of a GET or a DELETE, which need only the connect scope: who is asking, their
    /// live session, and the scope.
    fn connected_session<'l, 'p>(
        &self,
        policy: &'p OfflineTokenPolicy,
        head: &RequestHead<'_>,
        clock: Clock,
        last: &'l mut LastSession,
    ) -> Result<(&'p Principal, (SessionKey, &'l Arc<Session>)), Rejection> {
        let principal = Endpoint::authenticate(policy, head, clock, scope::CONNECT)?;
        let found = self.session_for(head, principal, clock, last)?;
        Endpoint::authorize(policy, principal, scope::CONNECT)?;
        Ok((principal, found))
    }

    /// A POST, under `policy` (one state of it for the whole request: stages 5 to 8 see the
    /// same tokens, revocations and revisions). Stage 4 reads the body, then the era decides
    /// which contract the rest follows.
    fn post(
        &self,
        policy: &OfflineTokenPolicy,
        head: &RequestHead<'_>,
        body: &[u8],
        clock: Clock,
        random: &mut FillRandom<'_>,
        last: &mut LastSession,
    ) -> Result<Answer, Rejection> {
        let value = json::decode_sharing(body, self.limits().json_depth_max, shared_word)
            .map_err(|e| Rejection::Json(e.kind))?;
        let message = Message::from_value(value).map_err(Rejection::Message)?;
        match self.era_of_post(head, &message) {
            Era::Legacy => self.legacy_post(policy, head, message, clock, random, last),
            Era::Modern => Ok(modern::post(self, policy, head, message, clock)),
        }
    }

    /// The era of a POST: 2025-11-25 on a server of that revision alone, else the decision table
    /// of [`crate::mcp::era`], from the version header and the method.
    fn era_of_post(&self, head: &RequestHead<'_>, message: &Message) -> Era {
        let versions = self.config.versions;
        if let Eras::One(era) = versions.eras() {
            return era;
        }
        let called = match message {
            Message::Request { method, .. } | Message::Notification { method, .. } => {
                CallKind::of_method(method)
            }
            Message::Response { .. } => CallKind::Other,
        };
        era(versions, version_header(head), called)
    }

    /// Stages 5 to 8 of a 2025-11-25 POST.
    fn legacy_post(
        &self,
        policy: &OfflineTokenPolicy,
        head: &RequestHead<'_>,
        message: Message,
        clock: Clock,
        random: &mut FillRandom<'_>,
        last: &mut LastSession,
    ) -> Result<Answer, Rejection> {
        let legacy = self.legacy_revision();
        let named = match &message {
            Message::Request { method, .. } => MethodName::of_request(method, legacy),
            Message::Notification { method, .. } => MethodName::of_notification(method, legacy),
            Message::Response { .. } => MethodName::Unknown,
        };
        let requirement = requirement_of(named.access());
        let principal = Endpoint::authenticate(policy, head, clock, requirement)?;
        if let (Message::Request { id, params, .. }, Lifecycle::Opens) =
            (&message, lifecycle(named))
        {
            // Stages 6 and 7 of initialize: no session yet, and the scope to open one.
            if head.fields.get("mcp-session-id").is_some() {
                return Err(Rejection::SessionOnInitialize);
            }
            Endpoint::authorize(policy, principal, requirement)?;
            return self.initialize(id, params, principal, clock, random).map(Answer::from);
        }
        let (_, session) = self.session_for(head, principal, clock, last)?;
        match message {
            Message::Response { .. } => Err(Rejection::UnsolicitedResponse),
            Message::Notification { .. } => {
                Endpoint::authorize(policy, principal, requirement)?;
                notified(session, named);
                Ok(Reply::empty(Status::Accepted).into())
            }
            Message::Request { .. }
                if lifecycle(named) == Lifecycle::Initialized && !session.is_initialized() =>
            {
                Err(Rejection::NotInitialized)
            }
            Message::Request { id, params, .. } => {
                Endpoint::authorize(policy, principal, requirement)?;
                match named {
                    MethodName::Request(method, answer) => {
                        let called = LegacyCall { session, id: &id, principal, head, clock };
                        self.call(&called, (method, answer), &params)
                    }
                    MethodName::Notification(_) | MethodName::Unknown => {
                        Ok(method_not_found(&id).into())
                    }
                }
            }
        }
    }

    /// `initialize`, the one request without a session, once it carries no session id and its
    /// principal may connect. A rejected initialize leaves nothing behind.
    fn initialize(
        &self,
        id: &Id,
        params: &Object,
        principal: &Principal,
        clock: Clock,
        random: &mut FillRandom<'_>,
    ) -> Result<Reply, Rejection> {
        if !methods::initialize_params_valid(params) {
            let error =
                jsonrpc::error_text(Some(id), code::INVALID_PARAMS, "initialize_params_invalid");
            return Ok(Reply::json_text(error));
        }
        // Capacity and quota first, so that a session without room draws and builds nothing; creation checks
        // again, atomically.
        let owner = owner_of(principal);
        self.sessions.admits(owner, clock.now).map_err(no_room)?;
        let session_id = random::hex(random, SESSION_ID_RANDOM_BYTES)?;
        let tag = random::hex(random, EVENT_TAG_RANDOM_BYTES)?;
        let session = self.sessions.create(&session_id, tag, owner, clock.now).map_err(no_room)?;
        session.notify(LogLevel::Info, || methods::log_message(LogLevel::Info, "session_started"));
        let revision = self.legacy_revision();
        let result = jsonrpc::result_text(id, INITIALIZE_RESULT_BYTES, |result| {
            methods::initialize_result(revision, result);
        });
        Ok(Reply::json_text(result).with("MCP-Session-Id", session_id))
    }

    /// Stage 8 for a request in a live session that its lifecycle rule admits.
    fn call(
        &self,
        called: &LegacyCall<'_>,
        (method, answer): (McpMethod, method::ReplyForm),
        params: &Object,
    ) -> Result<Answer, Rejection> {
        let LegacyCall { session, id, principal, .. } = *called;
        let result = |capacity, write: &dyn Fn(&mut ObjectWriter<'_>)| {
            Ok(jsonrpc::result_text(id, capacity, |result| write(result)))
        };
        let answered = match method {
            McpMethod::Ping => result(SMALL_RESULT_BYTES, &methods::empty_result),
            McpMethod::LoggingSetLevel => match methods::log_level(params) {
                Some(level) => {
                    session.set_log_level(level);
                    result(SMALL_RESULT_BYTES, &methods::empty_result)
                }
                None => Err((code::INVALID_PARAMS, "log_level_invalid")),
            },
            McpMethod::ResourcesList => {
                let response = jsonrpc::result_text(id, RESOURCES_RESULT_BYTES, |result| {
                    methods::resources_list_result(&principal.tenant, result);
                });
                session.notify(LogLevel::Info, || {
                    methods::log_message(LogLevel::Info, "resources_listed")
                });
                Ok(response)
            }
            McpMethod::ToolsList => result(SMALL_RESULT_BYTES, &|r| {
                tools::write_tools(self.legacy_revision(), false, r)
            }),
            McpMethod::ToolsCall => match tools::tool_called(params, self.legacy_revision()) {
                Ok(Tool::TestReconnection) => return self.test_reconnection(session, id),
                Ok(tool @ (Tool::CountSlowly | Tool::TestToolWithProgress)) => {
                    return self.slow_call(called, tool, params);
                }
                // Tools of 2026-07-28 alone: `tool_called` finds none of them here.
                Ok(
                    Tool::Whoami
                    | Tool::TenantDocuments
                    | Tool::TestMissingCapability
                    | Tool::TestLogging
                    | Tool::TestTriggerToolChange
                    | Tool::SpareTool,
                ) => Err((code::INVALID_PARAMS, "tool_unknown")),
                Err(message) => Err((code::INVALID_PARAMS, message)),
            },
            // Never called: initialize opens its session before any call, and the notifications
            // are no request's method; `server/discover` and `subscriptions/listen` are no
            // method of this revision. Answered as a method this server does not implement.
            McpMethod::Initialize
            | McpMethod::NotificationsInitialized
            | McpMethod::NotificationsCancelled
            | McpMethod::ServerDiscover
            | McpMethod::SubscriptionsListen => return Ok(method_not_found(id).into()),
        };
        match (answered, answer) {
            (Err((code, message)), _) => {
                Ok(Reply::json_text(jsonrpc::error_text(Some(id), code, message)).into())
            }
            (Ok(response), method::ReplyForm::Json) => Ok(Reply::json_text(response).into()),
            (Ok(response), method::ReplyForm::EventStream) => {
                self.post_stream(session, [response], FirstEnd::AfterResponse).map(Answer::from)
            }
        }
    }

    /// A slow call of `tool` in a session: a live POST stream, its priming event first, its
    /// messages written as they come and kept for a resumption; or the `-32602` of arguments
    /// out of bounds.
    fn slow_call(
        &self,
        called: &LegacyCall<'_>,
        tool: Tool,
        params: &Object,
    ) -> Result<Answer, Rejection> {
        let LegacyCall { session, id, principal, head, clock } = *called;
        let request = match slow_request(id, tool, params, self.limits()) {
            Ok(request) => request,
            Err(message) => {
                let error = jsonrpc::error_text(Some(id), code::INVALID_PARAMS, message);
                return Ok(Reply::json_text(error).into());
            }
        };
        let opener = Opener { principal, head, now: clock.now };
        let (first, stream) = self.open_slow_legacy(session, request, opener)?;
        Ok(Answer::Open { head: Reply::event_stream_body(first), stream: Box::new(stream) })
    }

    /// `test_reconnection`: a POST stream the server closes right after its priming event. Its
    /// notification and its result are kept, owed to the client's resumption (a GET with the
    /// priming event's id as `Last-Event-ID`).
    fn test_reconnection(&self, session: &Session, id: &Id) -> Result<Answer, Rejection> {
        let called = session
            .receives(LogLevel::Info)
            .then(|| methods::log_message(LogLevel::Info, "test_reconnection_called"));
        let result =
            jsonrpc::result_text(id, RESOURCES_RESULT_BYTES, methods::test_reconnection_result);
        self.post_stream(session, called.into_iter().chain([result]), FirstEnd::AfterPrime)
            .map(Answer::from)
    }

    /// Opens a POST stream with `messages` (notifications, then the response) and writes its
    /// first response: the priming event, then the messages unless it ends after the prime.
    fn post_stream(
        &self,
        session: &Session,
        messages: impl IntoIterator<Item = String>,
        ending: FirstEnd,
    ) -> Result<Reply, Rejection> {
        let mut body = SseBody::new(self.limits());
        let mut events = session.events();
        let stream = Start::Opened(events.open_post(messages));
        let delivered = match ending {
            FirstEnd::AfterResponse => events.deliver(stream, &mut body),
            FirstEnd::AfterPrime => events.deliver(stream, &mut PrimeOnly(&mut body)),
        };
        drop(events);
        // Only a stream whose messages could not even be kept fails here: a server bug.
        delivered.map_err(|_| Rejection::Internal)?;
        body.finish().map(Reply::event_stream_body).ok_or(Rejection::Internal)
    }

    /// The GET stream, or a resumption: without `Last-Event-ID`, a priming event and what the
    /// GET stream has not written yet; with one, a priming event and what that id's stream (the
    /// GET stream or a POST stream) owes after it. A POST stream that owes nothing more: 204.
    fn get(
        &self,
        policy: &OfflineTokenPolicy,
        head: &RequestHead<'_>,
        clock: Clock,
        last: &mut LastSession,
    ) -> Result<Answer, Rejection> {
        let (principal, (_, session)) = self.connected_session(policy, head, clock, last)?;
        let mut body = SseBody::new(self.limits());
        let mut events = session.events();
        let start = match head.fields.single("last-event-id") {
            Occurrence::Absent => Start::Fresh,
            Occurrence::Once(value) => Start::Resume(events.cursor(value)?),
            Occurrence::Repeated => return Err(Rejection::Cursor(CursorError::Malformed)),
        };
        let delivered = events.deliver(start, &mut body)?;
        drop(events);
        let first = match delivered {
            Delivered::Complete => return Ok(Reply::empty(Status::NoContent).into()),
            Delivered::Stream { live, .. } => (body.finish().ok_or(Rejection::Internal)?, live),
        };
        match (first, start) {
            // A POST stream whose work still runs: the rest is written as the work queues it.
            ((first, true), Start::Resume(id)) => {
                let opener = Opener { principal, head, now: clock.now };
                let stream = self.open_tail(session, id.stream, opener)?;
                Ok(Answer::Open { head: Reply::event_stream_body(first), stream: Box::new(stream) })
            }
            ((first, _), _) => Ok(Reply::event_stream_body(first).into()),
        }
    }

    /// DELETE ends the session: 204, and 404 for that id from then on.
    fn delete(
        &self,
        policy: &OfflineTokenPolicy,
        head: &RequestHead<'_>,
        clock: Clock,
        last: &mut LastSession,
    ) -> Result<Reply, Rejection> {
        let (_, (session_id, session)) = self.connected_session(policy, head, clock, last)?;
        // Ended by a concurrent DELETE in between: this one ended nothing, so it gets the same
        // 404 as any later request for the id.
        if !self.sessions.end(session_id, session) {
            return Err(Rejection::SessionNotFound);
        }
        *last = LastSession::default();
        Ok(Reply::empty(Status::NoContent))
    }
}

/// The three values of a principal a session is bound to.
fn owner_of(principal: &Principal) -> OwnerRef<'_> {
    OwnerRef {
        subject: &principal.subject,
        tenant: &principal.tenant,
        authorization_revision: principal.authorization_revision,
    }
}

/// What one legacy call carries into its method.
#[derive(Clone, Copy)]
struct LegacyCall<'c> {
    session: &'c Arc<Session>,
    id: &'c Id,
    principal: &'c Principal,
    head: &'c RequestHead<'c>,
    clock: Clock,
}

/// The slow call `tool` asks for with `params`, or the public code of why its arguments are
/// refused.
fn slow_request(
    id: &Id,
    tool: Tool,
    params: &Object,
    limits: &Limits,
) -> Result<SlowRequest, &'static str> {
    let empty = Object::new();
    let arguments = params.get("arguments").and_then(json::Value::as_object).unwrap_or(&empty);
    let (steps, pause, scale) = match tool {
        Tool::TestToolWithProgress => (3, std::time::Duration::from_millis(50), Scale::Percent),
        Tool::CountSlowly
        | Tool::TestReconnection
        | Tool::Whoami
        | Tool::TenantDocuments
        | Tool::TestMissingCapability
        | Tool::TestLogging
        | Tool::TestTriggerToolChange
        | Tool::SpareTool => {
            let (steps, pause) = tools::slow_arguments(arguments, limits)?;
            (steps, pause, Scale::Steps)
        }
    };
    Ok(SlowRequest { id: id.clone(), steps, pause, scale, progress_token: progress_token(params) })
}

/// `params._meta.progressToken`, when it is a string or an integer (anything else asks for no
/// progress).
fn progress_token(params: &Object) -> Option<json::Value> {
    let token = params.get("_meta").and_then(|m| m.get("progressToken"))?;
    let usable = match token {
        json::Value::String(_) => true,
        json::Value::Number(n) => n.as_i64().is_some(),
        json::Value::Null
        | json::Value::Bool(_)
        | json::Value::Array(_)
        | json::Value::Object(_) => false,
    };
    usable.then(|| token.clone())
}

/// How a POST stream's first response ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FirstEnd {
    /// After its messages, the response last: the normal end.
    AfterResponse,
    /// Right after the priming event, everything owed to a resumption.
    AfterPrime,
}

/// The session table's lack of room as the client sees it, with the whole seconds (at least one)
/// after which asking again can succeed.
fn no_room(refused: session::NoRoom) -> Rejection {
    let seconds = |wait: std::time::Duration| wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    match refused {
        session::NoRoom::Full { retry_after } => {
            Rejection::SessionCapacity { retry_after_secs: seconds(retry_after).max(1) }
        }
        session::NoRoom::Quota { retry_after } => {
            Rejection::SessionQuota { retry_after_secs: seconds(retry_after).max(1) }
        }
    }
}

/// The scopes an access needs. `tools/call` needs only `mcp:connect`: the one tool,
/// `test_reconnection`, reads no tenant data and reaches no resource (it only shows how a stream
/// resumes), so the tenant ACL does not apply. A tool that reached data would get an access of
/// its own, and its 403 would name the scope for a step-up.
const fn requirement_of(access: Access) -> Requirement {
    match access {
        Access::Connect => scope::CONNECT,
        Access::ReadResources => scope::READ_RESOURCES,
    }
}

/// When in a session's life a request may come: its method's rule, and for a name that is no
/// request here the strictest (its -32601 comes only in an initialized session). Notifications
/// are accepted at any time in a live session.
fn lifecycle(named: MethodName) -> Lifecycle {
    match named {
        MethodName::Request(method, _) | MethodName::Notification(method) => method.row().lifecycle,
        MethodName::Unknown => Lifecycle::Initialized,
    }
}

/// What a notification does in its session: `notifications/initialized` ends the handshake; any
/// other is accepted and does nothing.
fn notified(session: &Session, named: MethodName) {
    match named {
        MethodName::Notification(McpMethod::NotificationsInitialized) => session.mark_initialized(),
        MethodName::Notification(
            McpMethod::Initialize
            | McpMethod::Ping
            | McpMethod::NotificationsCancelled
            | McpMethod::ResourcesList
            | McpMethod::ToolsList
            | McpMethod::ToolsCall
            | McpMethod::LoggingSetLevel
            | McpMethod::ServerDiscover
            | McpMethod::SubscriptionsListen,
        )
        | MethodName::Request(..)
        | MethodName::Unknown => {}
    }
}

/// The -32601 of a request whose method this server does not implement.
fn method_not_found(id: &Id) -> Reply {
    Reply::json_text(jsonrpc::error_text(Some(id), code::METHOD_NOT_FOUND, "method_not_found"))
}

/// The static copy of a word of an MCP message: the protocol's words, and the fixture's tool
/// names.
fn shared_word(text: &str) -> Option<&'static str> {
    method::shared_word(text).or_else(|| Tool::from_name(text).map(Tool::name))
}

/// Whether the server speaks the era of sessions, whose GET stream and DELETE `/mcp` takes.
fn sessions_spoken(versions: Versions) -> bool {
    versions.newest_in(Era::Legacy).is_some()
}

/// The route of a head on a server that speaks `versions`: `Allow` names what the resource
/// takes in those eras.
fn route(head: &RequestHead<'_>, versions: Versions) -> Result<Route, Rejection> {
    let mcp_allow = if sessions_spoken(versions) { MCP_ALLOW } else { MODERN_ALLOW };
    match head.target {
        MCP_PATH => match head.method {
            http::Method::Post => Ok(Route::McpPost),
            http::Method::Get if sessions_spoken(versions) => Ok(Route::McpGet),
            http::Method::Delete if sessions_spoken(versions) => Ok(Route::McpDelete),
            http::Method::Get
            | http::Method::Delete
            | http::Method::Head
            | http::Method::Put
            | http::Method::Connect
            | http::Method::Options
            | http::Method::Trace
            | http::Method::Patch => Err(Rejection::MethodNotAllowed { allow: mcp_allow }),
        },
        metadata::PATH_FOR_MCP | metadata::PATH_ROOT => match head.method {
            // HEAD is answered like GET, without content (the shell frames it).
            http::Method::Get | http::Method::Head => Ok(Route::Metadata),
            http::Method::Post
            | http::Method::Put
            | http::Method::Delete
            | http::Method::Connect
            | http::Method::Options
            | http::Method::Trace
            | http::Method::Patch => Err(Rejection::MethodNotAllowed { allow: METADATA_ALLOW }),
        },
        // Asterisk-form: the server as a whole (RFC 9110 §9.3.7), which the parser admits for
        // OPTIONS only.
        "*" => Ok(Route::ServerOptions),
        _ => Err(Rejection::NotFound),
    }
}

/// Every media type in `needed` must be listed explicitly (see `http::media` on `*/*`).
fn check_accept<const N: usize>(
    head: &RequestHead<'_>,
    needed: [(&str, &str); N],
    limits: &Limits,
) -> Result<(), Rejection> {
    let listed = Accept::lists_each(head.fields.all("accept"), limits.accept_ranges_max, needed)
        .map_err(|_| Rejection::AcceptInvalid)?;
    if listed.into_iter().all(|listed| listed) { Ok(()) } else { Err(Rejection::NotAcceptable) }
}

/// A POST body must be declared `application/json` (UTF-8): this project's hardening rule, not a
/// MUST of the transport specification.
fn check_json_content_type(head: &RequestHead<'_>) -> Result<(), Rejection> {
    match head.fields.single("content-type") {
        Occurrence::Once(value) if MediaType::parse(value).is_ok_and(|m| m.is_json_utf8()) => {
            Ok(())
        }
        _ => Err(Rejection::UnsupportedMediaType),
    }
}

/// GET and DELETE carry no body; a `Content-Type` without one is ignored (the Python SDK client
/// sends one on every request). A chunked body is refused even when it would decode to nothing:
/// the head announces content, and it is refused before any of it is read.
fn check_no_body(head: &RequestHead<'_>) -> Result<(), Rejection> {
    if head.body == BodyFraming::Length(0) { Ok(()) } else { Err(Rejection::BodyNotAllowed) }
}

/// Stage 3: a present `MCP-Protocol-Version` is one field naming 2025-11-25.
fn version_header(head: &RequestHead<'_>) -> VersionHeader {
    match head.fields.single("mcp-protocol-version") {
        Occurrence::Absent => VersionHeader::of(None, false),
        Occurrence::Once(value) => VersionHeader::of(Some(value), false),
        Occurrence::Repeated => VersionHeader::of(None, true),
    }
}

/// A present version header names a revision of the legacy era that the server speaks.
fn check_protocol_version(head: &RequestHead<'_>, versions: Versions) -> Result<(), Rejection> {
    let spoken = |r: Revision| r.era() == Era::Legacy && versions.speaks(r);
    match head.fields.single("mcp-protocol-version") {
        Occurrence::Absent => Ok(()),
        Occurrence::Once(version) if Revision::from_name(version).is_some_and(spoken) => Ok(()),
        Occurrence::Once(_) => Err(Rejection::ProtocolVersionUnsupported),
        Occurrence::Repeated => Err(Rejection::ProtocolVersionRepeated),
    }
}

/// Stage 6: after initialize the header must be there (its value was judged at stage 3).
fn require_protocol_version(head: &RequestHead<'_>) -> Result<(), Rejection> {
    match head.fields.get("mcp-protocol-version") {
        Some(_) => Ok(()),
        None => Err(Rejection::ProtocolVersionMissing),
    }
}

/// The table key of the one well-formed `MCP-Session-Id` of a request (hashed here, before any
/// lock is taken).
fn session_id(head: &RequestHead<'_>) -> Result<SessionKey, Rejection> {
    match head.fields.single("mcp-session-id") {
        Occurrence::Absent => Err(Rejection::SessionMissing),
        Occurrence::Once(id) if mcp::is_valid_session_id(id) => Ok(SessionKey::of(id)),
        _ => Err(Rejection::SessionMalformed),
    }
}
