//! One connection's life, from its first byte to its close, as a sans-IO state machine.
//!
//! [`Connection`] decides where each request begins and ends on a connection: when a head is
//! complete, when to ask for admission, whether to send `100 Continue`, how many body bytes
//! belong to the request, what follows a response (the next request, possibly already buffered,
//! or the close), and how long each wait may last. It never touches a socket, a clock or a
//! thread: the caller reports what happened ([`Event`], with the time it happened) and carries
//! out what the machine answers ([`Action`]):
//!
//! ```text
//!            bytes          head complete       admitted, body incomplete
//!  ┌──▶ await head ──────────▶ admit ──────────────────────────┐ (100 Continue first,
//!  │       │  ▲                 │ admitted, body here          ▼  when it was asked for)
//!  │       │  └─ more bytes     │                          await body
//!  │       │                    ▼                              │
//!  │       │                 dispatch ◀────────────────────────┘ body complete
//!  │       │                    │ reply ready
//!  │       │                    ▼
//!  └───────┼───────────────── write ── the reply closes ──▶ close politely (linger)
//!   next   │  keep-alive        │
//!  request │                    └── refused head: its reply, then close politely
//!          └── peer closed, or a deadline passed ──▶ close at once, nothing dispatched
//! ```
//!
//! Every lifecycle budget of [`Limits`] is enforced here: the idle time before a request's first
//! byte, the head and body deadlines (totals), one read's wait once a request has begun, one
//! write's wait without progress, the whole response's write deadline, and the requests a
//! connection may carry (the last one is dispatched as not keep-alive). A polite close hands over
//! to a [`Linger`], a small machine of its own: it drains what the peer still sends, within the
//! drain budgets, so that the peer reads its last response rather than a reset. The server's
//! refused connections (its 503) linger the same way without ever having had a request.
//!
//! The machine parses each head itself (with [`RequestParser`]), so it knows the body length and
//! whether the head asks to keep the connection; the caller only judges the parsed head (the
//! receive order's stages 2 and 3), answers each dispatched request, and serializes every
//! response the machine asks for (the interim `100 Continue` included), so that one serializer
//! writes all framing and the `Date` field from the shell's clock. A head is parsed once;
//! [`Connection::head`] and [`Connection::request`] are views over the machine's buffer. Bytes
//! that follow a refused request are never parsed: the connection closes with them unread.

use std::time::{Duration, Instant};

use super::error::RequestError;
use super::request::{RequestHead, RequestParser};
use super::vocab::{Method, Parsed};
use crate::limits::Limits;

/// What happened, as the caller reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// A read returned these bytes (at most the `max` the read asked for).
    Received(&'a [u8]),
    /// The peer closed its side (a read returned nothing), or the connection broke.
    PeerClosed,
    /// A write took this many bytes.
    Wrote(usize),
    /// A read or write waited until its deadline without completing.
    TimePassed,
    /// The head passed the endpoint's checks on the head alone.
    Admitted,
    /// The head (or the parser) refused the request; this reply is written, then the
    /// connection closes.
    Refused(&'a [u8]),
    /// The dispatched request's reply, serialized; `close` when it says `Connection: close`.
    Replied { bytes: &'a [u8], close: bool },
    /// The interim `100 Continue` response, serialized.
    Interim(&'a [u8]),
}

/// What the caller does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action<'c> {
    /// Read at most `max` bytes, waiting no later than `deadline`.
    Read { max: usize, deadline: Instant },
    /// Judge the head [`Connection::head`] holds (or its parse error): answer
    /// [`Event::Admitted`] or [`Event::Refused`].
    Admit,
    /// The admitted client waits for `100 Continue` before it sends the body: answer
    /// [`Event::Interim`] with that response.
    Continue,
    /// The request [`Connection::request`] holds is complete: answer [`Event::Replied`], saying
    /// `Connection: close` unless `keep_alive`.
    Dispatch { keep_alive: bool },
    /// Write `bytes` (or a first part of them), waiting no later than `deadline`.
    Write { bytes: &'c [u8], deadline: Instant },
    /// Close the connection: it is over.
    Close(Close),
}

/// How a connection ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Close {
    /// After a response: shut the write half, then drain under a [`Linger`].
    Polite,
    /// Nothing more is owed to the peer: a deadline passed, the peer left, a write failed.
    Now,
}

/// The lifecycle budgets, read once from [`Limits`].
#[derive(Clone, Copy, Debug)]
struct Budget {
    idle: Duration,
    head: Duration,
    body: Duration,
    read: Duration,
    write: Duration,
    response: Duration,
    head_bytes_max: usize,
    requests_max: usize,
}

/// Where the connection is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Waiting for a head. `started` is the head deadline, set when its first byte arrived;
    /// before that, the idle deadline governs.
    AwaitHead {
        idle_deadline: Instant,
        head_deadline: Option<Instant>,
        read_deadline: Instant,
    },
    /// A head is complete or refused; the caller judges it.
    Admitting,
    /// An admitted head asked for `100 Continue`; the caller provides it.
    AwaitInterim {
        request_len: usize,
        keep_alive: bool,
        body_deadline: Instant,
    },
    /// Reading the rest of an admitted request's body.
    AwaitBody {
        request_len: usize,
        keep_alive: bool,
        body_deadline: Instant,
        read_deadline: Instant,
    },
    /// The request is complete; the caller answers it.
    Dispatching {
        request_len: usize,
        keep_alive: bool,
    },
    /// Writing `out[written..]`, then `then`.
    Writing {
        then: Then,
        total_deadline: Instant,
        write_deadline: Instant,
    },
    Closed(Close),
}

/// What follows a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Then {
    /// `100 Continue` is out: read the body.
    Body {
        request_len: usize,
        keep_alive: bool,
        body_deadline: Instant,
    },
    /// The reply is out: the next request, after dropping this one's bytes.
    NextRequest {
        request_len: usize,
    },
    Close(Close),
}

/// One connection's lifecycle. See the module docs.
#[derive(Debug)]
pub struct Connection {
    budget: Budget,
    parser: RequestParser,
    /// Received bytes not yet consumed: the current request, then possibly the next ones.
    /// Its capacity is fixed by the budgets: a head and a body at most.
    received: Vec<u8>,
    /// The bytes being written, and how many of them are out.
    out: Vec<u8>,
    written: usize,
    /// Requests dispatched on this connection.
    served: usize,
    state: State,
}

impl Connection {
    /// A connection accepted at `now`, under `limits`.
    pub fn new(limits: &Limits, now: Instant) -> Connection {
        let budget = Budget {
            idle: limits.connection_idle_timeout,
            head: limits.request_head_deadline,
            body: limits.request_body_deadline,
            read: limits.socket_read_timeout,
            write: limits.socket_write_timeout,
            response: limits.response_write_deadline,
            head_bytes_max: limits.request_head_bytes_max(),
            requests_max: limits.requests_per_connection_max,
        };
        Connection {
            budget,
            parser: RequestParser::new(limits),
            received: Vec::with_capacity(budget.head_bytes_max + limits.request_body_bytes_max),
            out: Vec::new(),
            written: 0,
            served: 0,
            state: State::AwaitHead {
                idle_deadline: now + budget.idle,
                head_deadline: None,
                read_deadline: now + budget.idle,
            },
        }
    }

    /// What to do now.
    pub fn action(&self) -> Action<'_> {
        match self.state {
            State::AwaitHead { read_deadline, .. } => {
                let max = self.budget.head_bytes_max.saturating_sub(self.received.len());
                // The parser refuses a head before it reaches the budget, so room remains.
                debug_assert!(max > 0, "waiting for a head with a full head buffer");
                Action::Read { max, deadline: read_deadline }
            }
            State::Admitting => Action::Admit,
            State::AwaitInterim { .. } => Action::Continue,
            State::AwaitBody { request_len, read_deadline, .. } => {
                Action::Read { max: request_len - self.received.len(), deadline: read_deadline }
            }
            State::Dispatching { keep_alive, .. } => Action::Dispatch { keep_alive },
            State::Writing { write_deadline, .. } => {
                Action::Write { bytes: &self.out[self.written..], deadline: write_deadline }
            }
            State::Closed(how) => Action::Close(how),
        }
    }

    /// Takes in what happened at `now` and answers what to do next.
    pub fn step(&mut self, now: Instant, event: Event<'_>) -> Action<'_> {
        self.state = match (self.state, event) {
            (State::Closed(how), _) => State::Closed(how),
            (_, Event::PeerClosed) => State::Closed(Close::Now),
            (State::AwaitHead { .. }, Event::Received(bytes)) => self.head_bytes(now, bytes),
            (State::AwaitBody { .. }, Event::Received(bytes)) => self.body_bytes(now, bytes),
            (State::Admitting, Event::Admitted) => self.admitted(now),
            (State::Admitting, Event::Refused(reply)) => {
                self.write(now, reply, Then::Close(Close::Polite), self.budget.response)
            }
            (
                State::AwaitInterim { request_len, keep_alive, body_deadline },
                Event::Interim(bytes),
            ) => {
                let then = Then::Body { request_len, keep_alive, body_deadline };
                self.write(now, bytes, then, self.budget.body)
            }
            (State::Dispatching { request_len, keep_alive }, Event::Replied { bytes, close }) => {
                // The caller was told to say `Connection: close` unless keep-alive; the machine
                // closes whenever either side says so.
                debug_assert!(close || keep_alive, "a reply kept alive against the machine");
                let then = if close || !keep_alive {
                    Then::Close(Close::Polite)
                } else {
                    Then::NextRequest { request_len }
                };
                self.write(now, bytes, then, self.budget.response)
            }
            (State::Writing { then, total_deadline, .. }, Event::Wrote(n)) => {
                self.wrote(now, n, then, total_deadline)
            }
            (
                State::AwaitHead { read_deadline: deadline, .. }
                | State::AwaitBody { read_deadline: deadline, .. }
                | State::Writing { write_deadline: deadline, .. },
                Event::TimePassed,
            ) => {
                // Woken before the deadline (a signal, a short timer): wait on. At or past it:
                // the peer had its time; nothing is dispatched and nothing more is owed.
                if now < deadline { self.state } else { State::Closed(Close::Now) }
            }
            (state, event) => {
                debug_assert!(false, "event {event:?} does not fit state {state:?}");
                State::Closed(Close::Now)
            }
        };
        self.action()
    }

    /// The head awaiting admission, or the parser's refusal; `None` in any other state.
    ///
    /// In the admitting state the parser always has a verdict (the machine moves there only
    /// once it has one), so `None` there would be a bug of this module.
    pub fn head(&self) -> Option<Result<RequestHead<'_>, RequestError>> {
        if self.state != State::Admitting {
            return None;
        }
        match self.parser.verdict()? {
            Err(error) => Some(Err(error)),
            Ok(_) => self.parser.head(&self.received).map(Ok),
        }
    }

    /// The complete request being dispatched: its head and exactly its body.
    pub fn request(&self) -> Option<(RequestHead<'_>, &[u8])> {
        let State::Dispatching { request_len, .. } = self.state else {
            return None;
        };
        let head = self.parser.head(&self.received)?;
        let head_len = self.parser.head_len()?;
        Some((head, &self.received[head_len..request_len]))
    }

    /// The method of the request being read, admitted or answered, once its token has ended
    /// (also for a request refused later in its head): the response to HEAD carries no content.
    pub fn method(&self) -> Option<Method> {
        self.parser.method(&self.received)
    }

    /// Requests dispatched so far.
    pub fn served(&self) -> usize {
        self.served
    }

    /// Bytes received and not yet consumed by a request.
    pub fn buffered(&self) -> usize {
        self.received.len()
    }

    /// The state's name, for traces and `inspect connection`.
    pub fn state_name(&self) -> &'static str {
        match self.state {
            State::AwaitHead { .. } => "await_head",
            State::Admitting => "admitting",
            State::AwaitInterim { .. } => "continuing",
            State::AwaitBody { .. } => "await_body",
            State::Dispatching { .. } => "dispatching",
            State::Writing { then: Then::Body { .. }, .. } => "writing_continue",
            State::Writing { .. } => "writing",
            State::Closed(Close::Polite) => "closed_politely",
            State::Closed(Close::Now) => "closed",
        }
    }

    /// Bytes of a head arrived: the head deadline starts with the first of them, every read
    /// from then on waits at most one read timeout, and a verdict moves to admission.
    fn head_bytes(&mut self, now: Instant, bytes: &[u8]) -> State {
        let State::AwaitHead { idle_deadline, head_deadline, .. } = self.state else {
            return self.state;
        };
        let room = self.budget.head_bytes_max.saturating_sub(self.received.len());
        self.take(bytes, room);
        let head_deadline =
            head_deadline.or((!self.received.is_empty()).then(|| now + self.budget.head));
        self.after_head_bytes(now, idle_deadline, head_deadline)
    }

    /// Where a head stands after its bytes changed: admission when the parser has a verdict,
    /// otherwise the next read, bounded by the head deadline and one read timeout (or, before
    /// the first byte, by the idle deadline).
    fn after_head_bytes(
        &mut self,
        now: Instant,
        idle_deadline: Instant,
        head_deadline: Option<Instant>,
    ) -> State {
        // `parse` scans only the new bytes and, once the head is complete, runs the whole-head
        // checks (once): a verdict either way is the caller's to judge.
        if !matches!(self.parser.parse(&self.received), Ok(Parsed::Partial)) {
            return State::Admitting;
        }
        let read_deadline = match head_deadline {
            Some(deadline) => deadline.min(now + self.budget.read),
            None => idle_deadline,
        };
        State::AwaitHead { idle_deadline, head_deadline, read_deadline }
    }

    /// The head was admitted: dispatch at once when the body is here, else read it (after
    /// `100 Continue` when the client waits for one).
    fn admitted(&mut self, now: Instant) -> State {
        let Some(head) = self.parser.head(&self.received) else {
            debug_assert!(false, "admitted without an accepted head");
            return State::Closed(Close::Now);
        };
        let (expect_continue, head_keep_alive) = (head.expect_continue, head.keep_alive);
        // The parser bounded Content-Length by the body budget, which is a usize.
        let body_len = usize::try_from(head.content_length).unwrap_or(usize::MAX);
        let request_len = self.parser.head_len().unwrap_or(0).saturating_add(body_len);
        debug_assert!(request_len <= self.received.capacity(), "a request past the buffer");
        let last = self.served + 1 >= self.budget.requests_max;
        let keep_alive = head_keep_alive && !last;
        self.served += 1;
        if self.received.len() >= request_len {
            return State::Dispatching { request_len, keep_alive };
        }
        let body_deadline = now + self.budget.body;
        if expect_continue {
            return State::AwaitInterim { request_len, keep_alive, body_deadline };
        }
        self.await_body(now, request_len, keep_alive, body_deadline)
    }

    fn await_body(
        &self,
        now: Instant,
        request_len: usize,
        keep_alive: bool,
        body_deadline: Instant,
    ) -> State {
        if self.received.len() >= request_len {
            return State::Dispatching { request_len, keep_alive };
        }
        let read_deadline = body_deadline.min(now + self.budget.read);
        State::AwaitBody { request_len, keep_alive, body_deadline, read_deadline }
    }

    fn body_bytes(&mut self, now: Instant, bytes: &[u8]) -> State {
        let State::AwaitBody { request_len, keep_alive, body_deadline, .. } = self.state else {
            return self.state;
        };
        self.take(bytes, request_len - self.received.len());
        self.await_body(now, request_len, keep_alive, body_deadline)
    }

    /// Starts writing `bytes` within `total` (and one write timeout per write), then `then`.
    fn write(&mut self, now: Instant, bytes: &[u8], then: Then, total: Duration) -> State {
        self.out.clear();
        self.out.extend_from_slice(bytes);
        self.written = 0;
        let total_deadline = now + total;
        let write_deadline = total_deadline.min(now + self.budget.write);
        if bytes.is_empty() {
            return self.after_write(now, then);
        }
        State::Writing { then, total_deadline, write_deadline }
    }

    fn wrote(&mut self, now: Instant, n: usize, then: Then, total_deadline: Instant) -> State {
        let left = self.out.len() - self.written;
        debug_assert!(n <= left, "wrote more than was asked");
        self.written += n.min(left);
        if self.written < self.out.len() {
            // Progress: the next write again waits at most one write timeout.
            let write_deadline = total_deadline.min(now + self.budget.write);
            return State::Writing { then, total_deadline, write_deadline };
        }
        self.after_write(now, then)
    }

    fn after_write(&mut self, now: Instant, then: Then) -> State {
        match then {
            Then::Body { request_len, keep_alive, body_deadline } => {
                self.await_body(now, request_len, keep_alive, body_deadline)
            }
            Then::Close(how) => State::Closed(how),
            Then::NextRequest { request_len } => {
                self.received.drain(..request_len);
                self.parser.reset();
                // Pipelined bytes already here start the next head (and its deadline) at once.
                let idle_deadline = now + self.budget.idle;
                let head_deadline = (!self.received.is_empty()).then(|| now + self.budget.head);
                self.after_head_bytes(now, idle_deadline, head_deadline)
            }
        }
    }

    /// Appends at most `room` of `bytes`: a read never returns more than it asked for, so more
    /// would be the caller's bug, and the buffer never grows past its budgets.
    fn take(&mut self, bytes: &[u8], room: usize) {
        debug_assert!(bytes.len() <= room, "received more than the read asked for");
        self.received.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }
}

/// The polite end of a connection: after its last response the write half is shut, and what
/// the peer still sends is read and dropped, within the drain budgets, until the peer closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Linger {
    deadline: Instant,
    drained: usize,
    drain_bytes_max: usize,
    closed: bool,
}

/// What to do with a lingering connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LingerAction {
    /// Read (and drop) at most `max` bytes, no later than `deadline`.
    Drain { max: usize, deadline: Instant },
    /// Close it now.
    Close,
}

impl Linger {
    /// A connection whose write half was shut at `now`.
    pub fn new(limits: &Limits, now: Instant) -> Linger {
        Linger {
            deadline: now + limits.drain_timeout,
            drained: 0,
            drain_bytes_max: limits.drain_bytes_max,
            closed: false,
        }
    }

    /// What to do now.
    pub fn action(&self) -> LingerAction {
        if self.closed {
            return LingerAction::Close;
        }
        LingerAction::Drain { max: self.drain_bytes_max - self.drained, deadline: self.deadline }
    }

    /// Takes in a read's outcome at `now`: bytes are counted and dropped; the peer's close, the
    /// drain deadline or the drain byte budget end the linger.
    pub fn step(&mut self, now: Instant, event: Event<'_>) -> LingerAction {
        match event {
            Event::Received(bytes) => {
                self.drained = self.drained.saturating_add(bytes.len()).min(self.drain_bytes_max);
                self.closed |= self.drained >= self.drain_bytes_max;
            }
            Event::TimePassed => {}
            _ => self.closed = true,
        }
        self.closed |= now >= self.deadline;
        self.action()
    }
}
