//! Streams that stay open: responses whose events are written as they happen.
//!
//! An [`OpenStream`] is produced step by step ([`OpenStream::next`], time passed in): an event to
//! write now, a time to come back, or the end. Three kinds exist:
//!
//! - a slow call (`count_slowly`, and `test_tool_with_progress` for the conformance suite): one
//!   step per pause, a `notifications/progress` per step when the request carried a
//!   `progressToken`, then the result. In 2025-11-25 its messages go through the session's event
//!   log, under event ids, as they are produced, so a client that lost the stream resumes it with
//!   `Last-Event-ID`; in 2026-07-28 they are plain events and nothing is kept;
//! - a tail: a 2025-11-25 resumption (`GET` with `Last-Event-ID`) of a POST stream whose work
//!   still runs, which writes the stream's messages as the work queues them, until its response;
//! - a listen (`subscriptions/listen`, 2026-07-28): the acknowledgement first, then the
//!   notifications the client opted in to (here `notifications/tools/list_changed`), each tagged
//!   with the subscription id (the listen request's id).
//!
//! **A disconnect means what the era says** ([`OpenStream::depart`]). In 2025-11-25 a
//! disconnect is not a cancellation: the slow call goes on, without a reader, its messages kept
//! for a resumption, and is counted finished when its result is queued. In 2026-07-28 closing
//! the stream cancels the request: the call stops at once, nothing more is produced or kept for
//! it, and it is counted cancelled. A tail or a listen just ends.
//!
//! **In 2025-11-25 the client cancels with `notifications/cancelled`** in the same session. A
//! slow call is listed in its session as in progress while it runs
//! ([`crate::mcp::session::InProgress`]); a cancellation naming its id sets its flag, and at its
//! next step (or the stream's next wake) it stops: what it had written stays, no result is
//! written or kept, its POST stream ends (a resumption then owes nothing: 204), and it is counted
//! cancelled. The rule of which requests a cancellation reaches is the session's.
//!
//! **A quiet stream sends a keep-alive.** When nothing was written for `stream_keepalive`, the
//! next step is an SSE comment line (`: keep-alive`), which every SSE reader skips, so that an
//! idle timer on the way does not cut the stream. Between its own events a stream comes back
//! every `stream_poll_interval` to look for news (a list change, a revocation, the server
//! stopping).
//!
//! **A listen ends** at `listen_lifetime`, or when the server stops: `notifications/cancelled`
//! referencing the listen request (the cancellation page's MUST for a server that tears a
//! subscription down), then the completion result (the subscriptions page's SHOULD, which tells
//! the client the end was graceful and it may listen again), then the end of the stream. When its
//! token stops being valid (revoked, or its subject moved to a new authorization revision), it
//! ends after a `notifications/cancelled` whose reason is the public code `token_revoked`,
//! without a result: the client must not simply listen again with the same token.
//!
//! **Every stream re-checks its token at each step** ([`Host::token_still_valid`]). A slow call or
//! a tail whose token stopped being valid (revoked, or its subject moved to a new authorization
//! revision) stops there: a slow call writes no result but an in-band error whose message is the
//! public code `token_revoked` (in 2025-11-25 through the event log, as the call's response), is
//! counted cancelled, and its connection closes ([`Ending::Revoked`]); a tail just ends, and its
//! connection closes. A listen keeps its own teardown (above).
//!
//! **Bounded by the pool** ([`Live`], in `share`): each stream holds a place for as long as it
//! runs, and gives it back when it is dropped, however it ended.
//!
//! Not here: opening a stream (the endpoint's, which refuses one past the budgets), the framing
//! of the events (the server's, by the request's HTTP version), or any clock or sleep: a stream
//! reads its server through [`Host`], and the time is handed in.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime};

pub use super::share::{Live, NoStream, PrincipalKey, Slot, Stats, StreamKind};
use super::stream::SseBody;
use crate::auth::policy::Principal;
use crate::http::RequestHead;
use crate::http::connection::Departure;
use crate::json::{ObjectWriter, Value};
use crate::limits::Limits;
use crate::mcp::jsonrpc::{self, Id, code};
use crate::mcp::method::{
    McpMethod, NOTIFICATIONS_PROGRESS, NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED,
    NOTIFICATIONS_TOOLS_LIST_CHANGED,
};
use crate::mcp::session::{InProgress, Session};
use crate::mcp::stream::StreamRef;
use crate::sse::{self, EventRef};

/// The `_meta` key that tags every message of a listen stream.
pub const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";
/// What a keep-alive writes: one comment line, then the empty line.
pub const KEEPALIVE: &[u8] = b": keep-alive\n\n";
/// The public code a stream names when its token stopped being valid.
pub const TOKEN_REVOKED: &str = "token_revoked";
/// Room reserved for one message of a stream.
const MESSAGE_BYTES: usize = 256;

/// What an open stream reads of the server at each step.
pub trait Host {
    /// The open streams' shared state.
    fn live(&self) -> &Live;
    /// The budgets in force.
    fn limits(&self) -> &Limits;
    /// Whether the `Authorization` field `authorization` still names a valid token at `wall`.
    fn token_still_valid(&self, authorization: &[u8], wall: SystemTime) -> bool;
}

/// What an open stream does next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Write these bytes: whole SSE events, or a comment line.
    Write(Vec<u8>),
    /// Nothing before this time.
    Wait(Instant),
    /// The stream is over; these bytes (perhaps none) are its last.
    End(Vec<u8>, Ending),
}

/// How a stream ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// By itself (its result, a listen's teardown): the connection may carry the next request.
    Done,
    /// Its token stopped being valid: the connection closes after its last bytes.
    Revoked,
}

/// Who opens a stream, and with which request: whose place it takes, and the `Authorization`
/// field whose token it re-checks at each step.
#[derive(Clone, Copy)]
pub(super) struct Opener<'o> {
    pub principal: &'o Principal,
    pub head: &'o RequestHead<'o>,
    pub now: Instant,
}

/// What every stream is opened with: its place, the request's `Authorization` field (to tell
/// when its token stops being valid), and the time it opened.
#[derive(Debug)]
pub struct Opening {
    pub slot: Slot,
    pub authorization: Vec<u8>,
    pub now: Instant,
}

/// A response whose events are written as they happen. See the module docs.
#[derive(Debug)]
pub struct OpenStream {
    source: Source,
    _slot: Slot,
    authorization: Vec<u8>,
    keepalive: Duration,
    poll: Duration,
    /// When something was last written (or the stream opened).
    last_written: Instant,
}

#[derive(Debug)]
enum Source {
    Slow(SlowCall),
    Tail(Tail),
    Listen(Listen),
}

impl OpenStream {
    /// A slow call in 2025-11-25: its messages go through `session`'s event log, on its live
    /// POST stream `post` (already opened, its priming event written), and the session lists it
    /// as in progress, for a `notifications/cancelled` to reach.
    pub fn slow_legacy(
        request: SlowRequest,
        (session, post): (Arc<Session>, u64),
        opening: Opening,
        limits: &Limits,
    ) -> OpenStream {
        let in_progress = session.begin(&request.id);
        OpenStream::slow(request, Outlet::Log { session, post, in_progress }, opening, limits)
    }

    /// A slow call in 2026-07-28, its result written by `result`.
    pub fn slow_modern(
        request: SlowRequest,
        result: fn(&Id, Result<String, &'static str>) -> String,
        opening: Opening,
        limits: &Limits,
    ) -> OpenStream {
        OpenStream::slow(request, Outlet::Plain { result }, opening, limits)
    }

    fn slow(request: SlowRequest, outlet: Outlet, opening: Opening, limits: &Limits) -> Self {
        let event_bytes_max = limits.sse_event_bytes_max;
        let started = opening.now;
        let keepalive = request.keepalive;
        let call = SlowCall { request, outlet, started, done: 0, detached: false, event_bytes_max };
        let mut stream = OpenStream::new(Source::Slow(call), opening, limits);
        stream.keepalive = keepalive.map_or(stream.keepalive, |own| own.min(stream.keepalive));
        stream
    }

    /// A 2025-11-25 resumption of `stream`, a POST stream of `session` whose work still runs.
    pub fn tail(
        session: Arc<Session>,
        stream: StreamRef,
        opening: Opening,
        limits: &Limits,
    ) -> Self {
        OpenStream::new(Source::Tail(Tail { session, stream }), opening, limits)
    }

    /// A listen for the request `id`, with `filter` as acknowledged, which has seen its tenant's
    /// tool list change up to `generation`.
    pub fn listen(
        (id, filter): (&Id, Filter),
        generation: u64,
        opening: Opening,
        limits: &Limits,
    ) -> OpenStream {
        let listen = Listen {
            id: id.clone(),
            filter,
            tenant: opening.slot.principal().tenant.clone(),
            ends_at: opening.now + limits.listen_lifetime,
            seen_generation: generation,
            acknowledged: false,
            event_bytes_max: limits.sse_event_bytes_max,
        };
        OpenStream::new(Source::Listen(listen), opening, limits)
    }

    fn new(source: Source, opening: Opening, limits: &Limits) -> OpenStream {
        OpenStream {
            source,
            _slot: opening.slot,
            authorization: opening.authorization,
            keepalive: limits.stream_keepalive,
            poll: limits.stream_poll_interval,
            last_written: opening.now,
        }
    }

    /// The next step at `now` (`wall` on the wall clock).
    pub fn next(&mut self, host: &dyn Host, now: Instant, wall: SystemTime) -> Step {
        let valid = || host.token_still_valid(&self.authorization, wall);
        let step = match &mut self.source {
            Source::Slow(call) if !valid() => call.revoked(host),
            Source::Slow(call) => call.next(host, now),
            Source::Tail(_) if !valid() => Step::End(Vec::new(), Ending::Revoked),
            Source::Tail(tail) => tail.next(host, now, self.poll),
            Source::Listen(listen) => listen.next(host, (now, valid), self.poll),
        };
        let Step::Wait(until) = step else {
            // A step that wrote nothing (a slow call's step without a progress token) leaves
            // the stream as quiet as it was.
            if !matches!(&step, Step::Write(bytes) if bytes.is_empty()) {
                self.last_written = now;
            }
            return step;
        };
        if self.detached() {
            return Step::Wait(until);
        }
        let keepalive_at = self.last_written + self.keepalive;
        if now >= keepalive_at {
            self.last_written = now;
            return Step::Write(KEEPALIVE.to_vec());
        }
        Step::Wait(until.min(keepalive_at))
    }

    /// The peer went away: whether the work goes on (module docs).
    pub fn depart(&mut self, host: &dyn Host) -> Departure {
        match &mut self.source {
            Source::Slow(call) => call.depart(host),
            Source::Tail(_) | Source::Listen(_) => Departure::Stop,
        }
    }

    fn detached(&self) -> bool {
        match &self.source {
            Source::Slow(call) => call.detached,
            Source::Tail(_) | Source::Listen(_) => false,
        }
    }

    /// Runs the stream to its end without a reader, time jumping to each wait: every byte it
    /// would write, in order. For callers that answer a request whole (tests, `handle`).
    pub fn collect(mut self, host: &dyn Host, mut now: Instant, mut wall: SystemTime) -> Vec<u8> {
        let mut body = Vec::new();
        loop {
            match self.next(host, now, wall) {
                Step::Write(bytes) => body.extend_from_slice(&bytes),
                Step::Wait(until) => {
                    wall += until.saturating_duration_since(now);
                    now = until.max(now);
                }
                Step::End(bytes, _) => {
                    body.extend_from_slice(&bytes);
                    return body;
                }
            }
        }
    }
}

/// How a slow call's progress is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Step k of `steps`.
    Steps,
    /// Percent: the first step 0, the last 100, evenly between (the conformance suite's tool).
    Percent,
}

/// What a slow call was asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct SlowRequest {
    pub id: Id,
    pub steps: u64,
    pub pause: Duration,
    pub scale: Scale,
    /// `params._meta.progressToken`, when it is a string or an integer.
    pub progress_token: Option<Value>,
    /// A keep-alive interval of its own, shorter than the stream's (`test_tool_slow` writes at
    /// every step).
    pub keepalive: Option<Duration>,
}

/// Where a slow call's messages go: the era decides.
#[derive(Debug)]
enum Outlet {
    /// 2025-11-25: through the session's event log, on POST stream `post`; listed in the session
    /// as in progress while it runs.
    Log { session: Arc<Session>, post: u64, in_progress: InProgress },
    /// 2026-07-28: straight out, as plain events; the result is written by `result`.
    Plain { result: fn(&Id, Result<String, &'static str>) -> String },
}

#[derive(Debug)]
struct SlowCall {
    request: SlowRequest,
    outlet: Outlet,
    started: Instant,
    done: u64,
    /// The peer is gone (2025-11-25): what is produced stays in the log.
    detached: bool,
    event_bytes_max: usize,
}

impl SlowCall {
    fn next(&mut self, host: &dyn Host, now: Instant) -> Step {
        if self.cancelled() {
            return self.cancel(host);
        }
        let stopping = host.live().stopping();
        let due = self.started + self.request.pause.saturating_mul(self.done as u32 + 1);
        if now < due && !stopping {
            return Step::Wait(due);
        }
        self.done += 1;
        let last = self.done >= self.request.steps || stopping;
        let mut messages: Vec<String> = self.progress().into_iter().collect();
        if last {
            let outcome = if stopping && self.done < self.request.steps {
                Err("server_stopping")
            } else {
                Ok(format!("counted to {}", self.done))
            };
            messages.push(self.result(outcome));
            host.live().calls_finished.fetch_add(1, Ordering::Relaxed);
        }
        let bytes = self.emit(host, messages, last);
        if last { Step::End(bytes, Ending::Done) } else { Step::Write(bytes) }
    }

    /// Whether its client cancelled it with a `notifications/cancelled` (2025-11-25).
    fn cancelled(&self) -> bool {
        match &self.outlet {
            Outlet::Log { in_progress, .. } => in_progress.cancelled(),
            Outlet::Plain { .. } => false,
        }
    }

    /// Its client cancelled it: the work stops here, its stream ends with what it had written
    /// and no result, and the log keeps none for a resumption; it counts as cancelled.
    fn cancel(&mut self, host: &dyn Host) -> Step {
        host.live().calls_cancelled.fetch_add(1, Ordering::Relaxed);
        Step::End(self.emit(host, Vec::new(), true), Ending::Done)
    }

    /// Its token stopped being valid: no result, but an in-band error naming why, and the call
    /// counts as cancelled.
    fn revoked(&mut self, host: &dyn Host) -> Step {
        host.live().calls_cancelled.fetch_add(1, Ordering::Relaxed);
        let error = jsonrpc::error_text(Some(&self.request.id), code::SERVER_ERROR, TOKEN_REVOKED);
        Step::End(self.emit(host, vec![error], true), Ending::Revoked)
    }

    /// The progress notification of the step just done, when progress was asked for.
    fn progress(&self) -> Option<String> {
        let token = self.request.progress_token.as_ref()?;
        let (progress, total) = match self.request.scale {
            Scale::Steps => (self.done, self.request.steps),
            Scale::Percent => {
                let span = self.request.steps.saturating_sub(1).max(1);
                ((self.done - 1).min(span) * 100 / span, 100)
            }
        };
        Some(jsonrpc::notification_text(NOTIFICATIONS_PROGRESS, MESSAGE_BYTES, |params| {
            params
                .integer("progress", i64::try_from(progress).unwrap_or(i64::MAX))
                .value("progressToken", token)
                .integer("total", i64::try_from(total).unwrap_or(i64::MAX));
        }))
    }

    fn result(&self, outcome: Result<String, &'static str>) -> String {
        match &self.outlet {
            Outlet::Log { .. } => legacy_tool_result(&self.request.id, outcome),
            Outlet::Plain { result } => result(&self.request.id, outcome),
        }
    }

    /// The bytes of `messages`: in 2025-11-25 queued in the log, and written from it unless the
    /// peer is gone; in 2026-07-28 plain events.
    fn emit(&mut self, host: &dyn Host, messages: Vec<String>, last: bool) -> Vec<u8> {
        match &self.outlet {
            Outlet::Log { session, post, .. } => {
                let mut events = session.events();
                for message in messages {
                    events.append(*post, message);
                }
                if last {
                    events.finish(*post);
                }
                if self.detached {
                    return Vec::new();
                }
                let mut body = SseBody::new(host.limits());
                if events.deliver_more(StreamRef::Post(*post), &mut body).is_none() {
                    // A message this response owed was dropped, or the log forgot the stream:
                    // it writes nothing more, and the client's resumption is refused as
                    // evicted. The work goes on.
                    self.detached = true;
                }
                drop(events);
                body.finish().unwrap_or_default()
            }
            Outlet::Plain { .. } => plain_events(&messages, self.event_bytes_max),
        }
    }

    fn depart(&mut self, host: &dyn Host) -> Departure {
        match self.outlet {
            Outlet::Log { .. } => {
                self.detached = true;
                Departure::Continue
            }
            Outlet::Plain { .. } => {
                host.live().calls_cancelled.fetch_add(1, Ordering::Relaxed);
                Departure::Stop
            }
        }
    }
}

/// Messages as plain events (no id: nothing resumes in 2026-07-28).
fn plain_events(messages: &[String], event_bytes_max: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for message in messages {
        let event = EventRef { data: Some(message), ..EventRef::default() };
        // The server's own messages fit an event; one that did not would be dropped, not sent
        // broken.
        let _ = sse::encode(event, event_bytes_max, &mut out);
    }
    out
}

/// A 2025-11-25 tool result: its text, or the public code of a tool error.
pub(super) fn legacy_tool_result(id: &Id, outcome: Result<String, &'static str>) -> String {
    let (text, is_error) = match &outcome {
        Ok(text) => (text.as_str(), false),
        Err(code) => (*code, true),
    };
    jsonrpc::result_text(id, MESSAGE_BYTES, |result| {
        result
            .objects("content", [text], |content, text| {
                content.string("text", text).string("type", "text");
            })
            .boolean("isError", is_error);
    })
}

/// A 2025-11-25 resumption of a POST stream whose work still runs.
#[derive(Debug)]
struct Tail {
    session: Arc<Session>,
    stream: StreamRef,
}

impl Tail {
    fn next(&mut self, host: &dyn Host, now: Instant, poll: Duration) -> Step {
        let mut body = SseBody::new(host.limits());
        let mut events = self.session.events();
        let written = events.deliver_more(self.stream, &mut body);
        let live = events.is_live(self.stream);
        drop(events);
        let bytes = body.finish().unwrap_or_default();
        // A message it owed was dropped, or the log forgot the stream: it ends here, and a
        // resumption is refused as evicted.
        let Some(written) = written else {
            return Step::End(bytes, Ending::Done);
        };
        match (written, live) {
            (_, false) => Step::End(bytes, Ending::Done),
            (0, true) if host.live().stopping() => Step::End(bytes, Ending::Done),
            (0, true) => Step::Wait(now + poll),
            (_, true) => Step::Write(bytes),
        }
    }
}

/// The notification types a listen may opt in to, as acknowledged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filter {
    pub tools_list_changed: bool,
}

/// A `subscriptions/listen` stream.
#[derive(Debug)]
struct Listen {
    id: Id,
    filter: Filter,
    /// Its principal's tenant: the tool list it hears about is that tenant's.
    tenant: String,
    ends_at: Instant,
    seen_generation: u64,
    acknowledged: bool,
    event_bytes_max: usize,
}

impl Listen {
    /// The next step at `now`; `valid` tells whether its token still is.
    fn next(
        &mut self,
        host: &dyn Host,
        (now, valid): (Instant, impl Fn() -> bool),
        poll: Duration,
    ) -> Step {
        if !self.acknowledged {
            self.acknowledged = true;
            return Step::Write(self.events(&[self.acknowledgement()]));
        }
        if !valid() {
            return Step::End(self.events(&[self.cancelled(TOKEN_REVOKED)]), Ending::Done);
        }
        if now >= self.ends_at || host.live().stopping() {
            let reason = if now >= self.ends_at { "listen_lifetime" } else { "server_stopping" };
            let teardown = self.events(&[self.cancelled(reason), self.completion()]);
            return Step::End(teardown, Ending::Done);
        }
        let generation = host.live().tools_generation_for(&self.tenant);
        if generation > self.seen_generation {
            self.seen_generation = generation;
            if self.filter.tools_list_changed {
                let changed = self.tagged(NOTIFICATIONS_TOOLS_LIST_CHANGED, |_| {});
                return Step::Write(self.events(&[changed]));
            }
        }
        Step::Wait((now + poll).min(self.ends_at))
    }

    fn events(&self, messages: &[String]) -> Vec<u8> {
        plain_events(messages, self.event_bytes_max)
    }

    /// A notification of `method` whose params `write` fills, tagged with the subscription id.
    fn tagged(&self, method: &str, write: impl FnOnce(&mut ObjectWriter<'_>)) -> String {
        jsonrpc::notification_text(method, MESSAGE_BYTES, |params| {
            params.object("_meta", |meta| {
                meta.value(SUBSCRIPTION_ID_KEY, &self.id.to_value());
            });
            write(params);
        })
    }

    fn acknowledgement(&self) -> String {
        let filter = self.filter;
        self.tagged(NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED, |params| {
            params.object("notifications", |notifications| {
                if filter.tools_list_changed {
                    notifications.boolean("toolsListChanged", true);
                }
            });
        })
    }

    fn cancelled(&self, reason: &str) -> String {
        let id = self.id.to_value();
        self.tagged(McpMethod::NotificationsCancelled.name(), |params| {
            params.string("reason", reason).value("requestId", &id);
        })
    }

    fn completion(&self) -> String {
        jsonrpc::result_text(&self.id, MESSAGE_BYTES, |result| {
            result.object("_meta", |meta| {
                meta.value(SUBSCRIPTION_ID_KEY, &self.id.to_value());
            });
            result.string("resultType", "complete");
        })
    }
}
