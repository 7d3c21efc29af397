//! The 2025-11-25 era: a POST the era decision sent here, from its decoded message to its reply,
//! and the GET and DELETE of a session. Stages 5 to 8 of the receive order (`super`'s docs):
//! who is asking, their session and its lifecycle, the scope, and the method.
//!
//! Not here: admission and the era switch (`admission`), the stages both eras call (`access`),
//! or what a stream that stays open does (`live`).

use std::cell::Cell;
use std::sync::Arc;

use super::access::{self, requirement_of};
use super::dispatch::{Methods, dispatch};
use super::live::Opener;
use super::methods;
use super::rejection::Rejection;
use super::reply::{Lent, Reply};
use super::state::{Answer, Clock, Endpoint, KeptByConnection, SMALL_RESULT_BYTES};
use super::stream::{PrimeOnly, SseBody};
use super::tools::{self, Tool, slow_request};
use crate::auth::policy::{OfflineTokenPolicy, Principal};
use crate::auth::scope;
use crate::digest::LastDigest;
use crate::http::{Occurrence, RequestHead, Status};
use crate::json::Object;
use crate::mcp;
use crate::mcp::jsonrpc::{self, Id, Message, code};
use crate::mcp::method::{Lifecycle, McpMethod, MethodName, ReplyForm};
use crate::mcp::session::{self, LastSession, LogLevel, OwnerRef, Session, SessionKey};
use crate::mcp::stream::{CursorError, Delivered, Start};
use crate::mcp::tag::EventTag;
use crate::random::{self, FillRandom};

/// Random bytes in a session id (48 hex digits: 192 bits, never guessable).
const SESSION_ID_RANDOM_BYTES: usize = 24;
/// Random bytes in a session's event-id tag (16 hex digits), so ids differ across sessions.
const EVENT_TAG_RANDOM_BYTES: usize = 8;
/// Room reserved for the `initialize` result.
const INITIALIZE_RESULT_BYTES: usize = 256;
/// Room reserved for a `resources/list` or `test_reconnection` result.
const RESOURCES_RESULT_BYTES: usize = 512;

impl Endpoint {
    /// Stage 6 outside initialize: the version header is there, and the one well-formed session
    /// id names a live session of this principal (anything else looks like no session at all).
    pub(super) fn session_for<'l>(
        &self,
        head: &RequestHead<'_>,
        principal: &Principal,
        clock: Clock,
        (last, last_id): (&'l mut LastSession, &mut LastDigest),
    ) -> Result<(SessionKey, &'l Arc<Session>), Rejection> {
        require_protocol_version(head)?;
        let key = session_id(head, last_id)?;
        let session = self
            .sessions
            .find_for(last, key, owner_of(principal), clock.now)
            .ok_or(Rejection::SessionNotFound)?;
        Ok((key, session))
    }

    /// Stages 5 to 7 of a GET or a DELETE, which need only the connect scope: who is asking, their
    /// live session, and the scope.
    pub(super) fn connected_session<'l, 'p>(
        &self,
        policy: &'p OfflineTokenPolicy,
        head: &RequestHead<'_>,
        clock: Clock,
        kept: &'l mut KeptByConnection,
    ) -> Result<(&'p Principal, (SessionKey, &'l Arc<Session>)), Rejection> {
        let principal =
            access::authenticate(policy, head, (clock, &mut kept.token), scope::CONNECT)?;
        let found =
            self.session_for(head, principal, clock, (&mut kept.session, &mut kept.session_id))?;
        access::authorize(policy, principal, scope::CONNECT)?;
        Ok((principal, found))
    }

    /// Stages 5 to 8 of a 2025-11-25 POST.
    pub(super) fn legacy_post(
        &self,
        policy: &OfflineTokenPolicy,
        head: &RequestHead<'_>,
        message: Message,
        clock: Clock,
        random: &mut FillRandom<'_>,
        kept: &mut KeptByConnection,
    ) -> Result<Answer, Rejection> {
        let legacy = self.offer(self.legacy_revision());
        let named = match &message {
            Message::Request { method, .. } => MethodName::of_request(method, legacy),
            Message::Notification { method, .. } => MethodName::of_notification(method, legacy),
            Message::Response { .. } => MethodName::Unknown,
        };
        let access = match &message {
            Message::Request { params, .. } => access::access_of(named, params, legacy),
            Message::Notification { .. } | Message::Response { .. } => named.access(),
        };
        let requirement = requirement_of(access);
        let principal = access::authenticate(policy, head, (clock, &mut kept.token), requirement)?;
        if let (Message::Request { id, params, .. }, Lifecycle::Opens) =
            (&message, lifecycle(named))
        {
            // Stages 6 and 7 of initialize: no session yet, and the scope to open one.
            if head.fields.get("mcp-session-id").is_some() {
                return Err(Rejection::SessionOnInitialize);
            }
            access::authorize(policy, principal, requirement)?;
            let lent = kept.lend_texts();
            return self.initialize(id, params, principal, (clock, lent), random).map(Answer::from);
        }
        let (_, session) =
            self.session_for(head, principal, clock, (&mut kept.session, &mut kept.session_id))?;
        match message {
            Message::Response { .. } => Err(Rejection::UnsolicitedResponse),
            Message::Notification { params, .. } => {
                access::authorize(policy, principal, requirement)?;
                notified(session, named, &params);
                Ok(Reply::empty(Status::Accepted).into())
            }
            Message::Request { .. }
                if lifecycle(named) == Lifecycle::Initialized && !session.is_initialized() =>
            {
                Err(Rejection::NotInitialized)
            }
            Message::Request { id, params, .. } => {
                access::authorize_access(policy, principal, access, &params)?;
                match named {
                    MethodName::Request(method, form) => {
                        let called = LegacyCall { session, id: &id, principal, head, clock };
                        let text = Cell::new(KeptByConnection::lend(&mut kept.text));
                        dispatch(
                            &LegacyMethods { endpoint: self, called, form, text },
                            method,
                            &params,
                        )
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
        (clock, lent): (Clock, Lent),
        random: &mut FillRandom<'_>,
    ) -> Result<Reply, Rejection> {
        if !methods::initialize_params_valid(params) {
            let (code, message) = (code::INVALID_PARAMS, "initialize_params_invalid");
            return Ok(Reply::json_text(jsonrpc::error_text_in(
                lent.body,
                Some(id),
                code,
                message,
            )));
        }
        // Capacity and quota first, so that a session without room draws and builds nothing; creation checks
        // again, atomically.
        let owner = owner_of(principal);
        self.sessions.admits(owner, clock.now).map_err(no_room)?;
        let session_id = random::hex_in::<SESSION_ID_RANDOM_BYTES>(lent.field, random)?;
        let tag = EventTag::of_random(random::bytes::<EVENT_TAG_RANDOM_BYTES>(random)?);
        let session = self.sessions.create(&session_id, tag, owner, clock.now).map_err(no_room)?;
        session.notify(LogLevel::Info, || methods::log_message(LogLevel::Info, "session_started"));
        let offer = self.offer(self.legacy_revision());
        let result = jsonrpc::result_text_in(lent.body, id, INITIALIZE_RESULT_BYTES, |result| {
            methods::initialize_result(offer, result);
        });
        Ok(Reply::json_text(result).with("MCP-Session-Id", session_id))
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
        let messages = called.into_iter().chain([result]);
        self.post_stream(session, messages, FirstEnd::AfterPrime, Vec::new()).map(Answer::from)
    }

    /// Opens a POST stream with `messages` (notifications, then the response) and writes its
    /// first response into `lent` (cleared first): the priming event, then the messages unless
    /// it ends after the prime.
    fn post_stream(
        &self,
        session: &Session,
        messages: impl IntoIterator<Item = String>,
        ending: FirstEnd,
        lent: Vec<u8>,
    ) -> Result<Reply, Rejection> {
        let mut body = SseBody::in_buffer(lent, self.limits());
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
    pub(super) fn get(
        &self,
        policy: &OfflineTokenPolicy,
        head: &RequestHead<'_>,
        clock: Clock,
        kept: &mut KeptByConnection,
    ) -> Result<Answer, Rejection> {
        let (principal, (_, session)) = self.connected_session(policy, head, clock, kept)?;
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
    pub(super) fn delete(
        &self,
        policy: &OfflineTokenPolicy,
        head: &RequestHead<'_>,
        clock: Clock,
        kept: &mut KeptByConnection,
    ) -> Result<Reply, Rejection> {
        let (_, (session_id, session)) = self.connected_session(policy, head, clock, kept)?;
        // Ended by a concurrent DELETE in between: this one ended nothing, so it gets the same
        // 404 as any later request for the id.
        if !self.sessions.end(session_id, session) {
            return Err(Rejection::SessionNotFound);
        }
        kept.session = LastSession::default();
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

/// A legacy request on its way to its method: the endpoint, the call, and how the method answers.
struct LegacyMethods<'c> {
    endpoint: &'c Endpoint,
    called: LegacyCall<'c>,
    form: ReplyForm,
    /// The connection's text buffer, lent for the reply's body: a small result, an error, or
    /// the first response of a POST stream (see [`KeptByConnection`]).
    text: Cell<String>,
}

impl LegacyMethods<'_> {
    /// A method's answer: its JSON-RPC error, or its response as the method's form says (one
    /// JSON object, or a POST stream whose first response carries it).
    fn answer(&self, answered: Result<String, (i64, &'static str)>) -> Result<Answer, Rejection> {
        let (session, id) = (self.called.session, self.called.id);
        match (answered, self.form) {
            (Err((code, message)), _) => {
                let lent = self.text.take();
                Ok(Reply::json_text(jsonrpc::error_text_in(lent, Some(id), code, message)).into())
            }
            (Ok(response), ReplyForm::Json) => Ok(Reply::json_text(response).into()),
            (Ok(response), ReplyForm::EventStream) => {
                let ending = FirstEnd::AfterResponse;
                let lent = self.text.take().into_bytes();
                self.endpoint.post_stream(session, [response], ending, lent).map(Answer::from)
            }
        }
    }

    /// An empty result.
    fn empty(&self) -> Result<Answer, Rejection> {
        let (lent, id) = (self.text.take(), self.called.id);
        let result = jsonrpc::result_text_in(lent, id, SMALL_RESULT_BYTES, methods::empty_result);
        self.answer(Ok(result))
    }
}

impl Methods for LegacyMethods<'_> {
    // Answered as a method this server does not implement: `server/discover` and
    // `subscriptions/listen` are no method of this era.
    fn not_offered(&self) -> Result<Answer, Rejection> {
        Ok(method_not_found(self.called.id).into())
    }

    fn ping(&self) -> Result<Answer, Rejection> {
        self.empty()
    }

    fn set_log_level(&self, params: &Object) -> Result<Answer, Rejection> {
        match methods::log_level(params) {
            Some(level) => {
                self.called.session.set_log_level(level);
                self.empty()
            }
            None => self.answer(Err((code::INVALID_PARAMS, "log_level_invalid"))),
        }
    }

    fn resources_list(&self) -> Result<Answer, Rejection> {
        let LegacyCall { session, id, principal, .. } = self.called;
        let response = jsonrpc::result_text(id, RESOURCES_RESULT_BYTES, |result| {
            methods::resources_list_result(&principal.tenant, result);
        });
        session.notify(LogLevel::Info, || methods::log_message(LogLevel::Info, "resources_listed"));
        self.answer(Ok(response))
    }

    fn tools_list(&self) -> Result<Answer, Rejection> {
        let offer = self.endpoint.offer(self.endpoint.legacy_revision());
        let (lent, id) = (self.text.take(), self.called.id);
        let result = jsonrpc::result_text_in(lent, id, SMALL_RESULT_BYTES, |result| {
            tools::write_tools(offer, false, result);
        });
        self.answer(Ok(result))
    }

    fn tools_call(&self, params: &Object) -> Result<Answer, Rejection> {
        let (endpoint, called) = (self.endpoint, &self.called);
        match tools::tool_called(params, endpoint.offer(endpoint.legacy_revision())) {
            Ok(Tool::TestReconnection) => endpoint.test_reconnection(called.session, called.id),
            Ok(tool @ (Tool::CountSlowly | Tool::TestToolWithProgress | Tool::TestToolSlow)) => {
                endpoint.slow_call(called, tool, params)
            }
            Ok(Tool::TestToolFast) => {
                let outcome = Ok(tools::FAST_TEXT.to_owned());
                self.answer(Ok(super::live::legacy_tool_result(called.id, outcome)))
            }
            // Tools of 2026-07-28 alone: `tool_called` finds none of them here.
            Ok(
                Tool::TestSimpleText
                | Tool::Whoami
                | Tool::TenantDocuments
                | Tool::TestMissingCapability
                | Tool::TestLogging
                | Tool::TestTriggerToolChange
                | Tool::SpareTool,
            ) => self.answer(Err((code::INVALID_PARAMS, "tool_unknown"))),
            Err(message) => self.answer(Err((code::INVALID_PARAMS, message))),
        }
    }

    fn discover(&self) -> Result<Answer, Rejection> {
        self.not_offered()
    }

    fn listen(&self, _params: &Object) -> Result<Answer, Rejection> {
        self.not_offered()
    }

    fn resources_read(&self, _params: &Object) -> Result<Answer, Rejection> {
        self.not_offered()
    }

    fn prompts_get(&self, _params: &Object) -> Result<Answer, Rejection> {
        self.not_offered()
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

/// When in a session's life a request may come: its method's rule, and for a name that is no
/// request here the strictest (its -32601 comes only in an initialized session). Notifications
/// are accepted at any time in a live session.
fn lifecycle(named: MethodName) -> Lifecycle {
    match named {
        MethodName::Request(method, _) | MethodName::Notification(method) => method.row().lifecycle,
        MethodName::Unknown => Lifecycle::Initialized,
    }
}

/// What a notification does in its session: `notifications/initialized` ends the handshake;
/// `notifications/cancelled` cancels the session's own request in progress under its
/// `requestId` (anything else it names, it leaves alone: see [`Session::cancel`]); any other is
/// accepted and does nothing. Each is answered 202 whatever it changed, so that a cancellation
/// tells no one which ids are in progress.
fn notified(session: &Session, named: MethodName, params: &Object) {
    match named {
        MethodName::Notification(McpMethod::NotificationsInitialized) => session.mark_initialized(),
        MethodName::Notification(McpMethod::NotificationsCancelled) => {
            if let Some(id) = params.get("requestId").and_then(Id::of) {
                session.cancel(&id);
            }
        }
        MethodName::Notification(
            McpMethod::Initialize
            | McpMethod::Ping
            | McpMethod::ResourcesList
            | McpMethod::ToolsList
            | McpMethod::ToolsCall
            | McpMethod::LoggingSetLevel
            | McpMethod::ServerDiscover
            | McpMethod::SubscriptionsListen
            | McpMethod::ResourcesRead
            | McpMethod::PromptsGet,
        )
        | MethodName::Request(..)
        | MethodName::Unknown => {}
    }
}

/// The -32601 of a request whose method this server does not implement.
fn method_not_found(id: &Id) -> Reply {
    Reply::json_text(jsonrpc::error_text(Some(id), code::METHOD_NOT_FOUND, "method_not_found"))
}

/// Stage 6: after initialize the header must be there (its value was judged at stage 3).
fn require_protocol_version(head: &RequestHead<'_>) -> Result<(), Rejection> {
    match head.fields.get("mcp-protocol-version") {
        Some(_) => Ok(()),
        None => Err(Rejection::ProtocolVersionMissing),
    }
}

/// The table key of the one well-formed `MCP-Session-Id` of a request (hashed here, before any
/// lock is taken, unless it is the id the connection presented last).
fn session_id(head: &RequestHead<'_>, last: &mut LastDigest) -> Result<SessionKey, Rejection> {
    match head.fields.single("mcp-session-id") {
        Occurrence::Absent => Err(Rejection::SessionMissing),
        Occurrence::Once(id) if mcp::is_valid_session_id(id) => Ok(last.of(id)),
        _ => Err(Rejection::SessionMalformed),
    }
}
