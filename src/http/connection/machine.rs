//! The machine itself: its states, and the stage handles through which it is driven.

use std::time::{Duration, Instant};

use crate::http::chunked::request::{ChunkedDecoder, Decoded};
use crate::http::error::RequestError;
use crate::http::framing::{BodyFraming, TransferCodings};
use crate::http::request::{Accepted, RequestHead, RequestParser};
use crate::http::vocab::{Method, Parsed};
use crate::limits::Limits;

/// The interim response to `Expect: 100-continue`, written by the machine itself.
const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";
/// The byte past one request of the largest size that the buffer also holds. Only a read while a
/// stream is open can reach it (every other read is bounded by the head or the body budget), and a
/// peer that does has sent more than any one request can be: the stream's read budget is spent.
const OVERFLOW_BYTE: usize = 1;

/// How a connection ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Close {
    /// After a response: shut the write half, then drain under a [`Linger`](super::Linger).
    Polite,
    /// Nothing more is owed to the peer: a deadline passed, the peer left, a write failed.
    Now,
}

/// The time budget a read waits under, each a row of `Limits`: what a peer that sends too slowly
/// runs out of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadBudget {
    /// No byte of a next request yet: `connection_idle_timeout`.
    ConnectionIdle,
    /// One read within a head or a body: `socket_read_timeout`.
    SocketRead,
    /// The whole head, from its first byte: `request_head_deadline`.
    Head,
    /// The whole body, from the end of its head: `request_body_deadline`.
    Body,
}

impl ReadBudget {
    /// Its name in `Limits`.
    pub const fn name(self) -> &'static str {
        match self {
            ReadBudget::ConnectionIdle => "connection_idle_timeout",
            ReadBudget::SocketRead => "socket_read_timeout",
            ReadBudget::Head => "request_head_deadline",
            ReadBudget::Body => "request_body_deadline",
        }
    }
}

/// A head the parser refused, and the method it named (a response to HEAD carries no content,
/// a refusal included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused {
    pub error: RequestError,
    pub method: Option<Method>,
}

/// A complete request: its head and exactly its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request<'b> {
    pub head: RequestHead<'b>,
    pub body: &'b [u8],
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

/// An admitted request: its head, where its body ends and where it ends in the buffer, whether
/// the connection may carry another, and what the handler decided at admission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Admitted<R> {
    accepted: Accepted,
    /// The body is `buf[head_len..body_end]`. For a chunked body, known once it is decoded.
    body_end: usize,
    /// The next request starts at `buf[len]`: after the body, or after the chunked coding.
    pub(super) len: usize,
    pub(super) keep_alive: bool,
    pub(super) route: R,
}

/// Where the connection is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum State<R> {
    /// Waiting for a head. `head_deadline` is set when its first byte arrives; before that, the
    /// idle deadline governs.
    AwaitHead {
        idle_deadline: Instant,
        head_deadline: Option<Instant>,
        read_deadline: Instant,
    },
    /// A complete head passed the parser; the handler judges it.
    Admitting(Accepted),
    /// The parser refused the head; the handler writes the refusal.
    Refusing(Refused),
    /// Reading the rest of an admitted request's body.
    AwaitBody {
        request: Admitted<R>,
        body_deadline: Instant,
        read_deadline: Instant,
    },
    /// The request is complete; the handler answers it.
    Dispatching(Admitted<R>),
    /// Writing `out[written..]`, then `then`.
    Writing {
        then: Then<R>,
        total_deadline: Instant,
        write_deadline: Instant,
    },
    /// A streamed response is open: the handler produces its next chunk (or says how long to
    /// wait for one, or ends it).
    Streaming(Streamed),
    /// Nothing to write until `until`: a read waits that long, so that the peer's close is seen
    /// the moment it happens (bytes it sends meanwhile are kept for the next request).
    Watching {
        stream: Streamed,
        until: Instant,
    },
    /// Nothing to write until `until`, and nothing to read: the peer is gone. The driver pauses.
    Pausing {
        stream: Streamed,
        until: Instant,
    },
    /// The peer of an open stream went away (its close was read, or a write failed or stalled),
    /// or it filled the read buffer: the handler decides whether the work goes on.
    Gone(Streamed, Why),
    Closed(Close),
}

/// An open streamed response. Its request's bytes were dropped from the buffer when it opened
/// (the handler copied what the stream needs), so the whole buffer is left for what the peer
/// sends next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Streamed {
    /// The connection may carry another request after the stream.
    pub(super) keep_alive: bool,
    /// The peer is gone: what the handler produces is dropped, and the stream ends at once when
    /// the handler ends it.
    pub(super) detached: bool,
}

/// Why an open stream lost its peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Its close was read, or a chunk's write failed or did not go out by its deadline.
    PeerLeft,
    /// It filled the read buffer while the stream was open: more than one request of the
    /// largest size, which is over budget. The connection is dropped.
    OverBudget,
}

/// What follows a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Then<R> {
    /// `100 Continue` is out: read the body.
    AwaitBody {
        request: Admitted<R>,
        body_deadline: Instant,
    },
    /// The reply is out: the next request, after dropping this one's `len` bytes.
    NextRequest {
        len: usize,
    },
    /// A chunk of an open stream is out: the handler produces the next one.
    Stream(Streamed),
    Close(Close),
}

impl<R> Then<R> {
    /// The connection ends after this write.
    pub(super) fn closes(&self) -> bool {
        match self {
            Then::Close(_) => true,
            Then::AwaitBody { .. } | Then::NextRequest { .. } | Then::Stream(_) => false,
        }
    }
}

/// One connection's lifecycle. See the module docs. `R` is what the handler decides when it
/// admits a head (the server's route), handed back with the request it admitted.
#[derive(Debug)]
pub struct Connection<R = ()> {
    budget: Budget,
    parser: RequestParser,
    /// The decoder of chunked bodies. Every connection has one, so a chunked body the parser
    /// admitted always finds it; whether one is admitted at all is the parser's decision, from
    /// its codings.
    chunked: ChunkedDecoder,
    /// Received bytes: `buf[..len]` are not yet consumed by a request (the current request, then
    /// possibly the next ones). Its size is fixed by the budgets: a head and a body at most (for
    /// a chunked body, the decoder's kept bytes and one more, so a read always has room), and
    /// one byte more ([`OVERFLOW_BYTE`]).
    buf: Box<[u8]>,
    len: usize,
    /// The bytes being written, and how many of them are out.
    out: Vec<u8>,
    written: usize,
    /// Requests admitted on this connection; the one that reaches the budget is its last.
    admitted: usize,
    pub(super) state: State<R>,
}

impl<R: Copy> Connection<R> {
    /// A connection accepted at `now`, under `limits`, for `Content-Length` bodies only.
    pub fn new(limits: &Limits, now: Instant) -> Connection<R> {
        Connection::with_codings(limits, TransferCodings::LengthOnly, now)
    }

    /// A connection accepted at `now`, under `limits`, that also decodes the transfer codings
    /// `codings` allows.
    pub fn with_codings(limits: &Limits, codings: TransferCodings, now: Instant) -> Connection<R> {
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
        let idle_deadline = now + budget.idle;
        let body_room = match codings {
            TransferCodings::LengthOnly => limits.request_body_bytes_max,
            TransferCodings::Chunked => ChunkedDecoder::kept_bytes_max(limits) + 1,
        };
        Connection {
            budget,
            parser: RequestParser::with_codings(limits, codings),
            chunked: ChunkedDecoder::new(limits),
            buf: vec![0; budget.head_bytes_max + body_room + OVERFLOW_BYTE].into_boxed_slice(),
            len: 0,
            out: Vec::new(),
            written: 0,
            admitted: 0,
            state: State::AwaitHead {
                idle_deadline,
                head_deadline: None,
                read_deadline: idle_deadline,
            },
        }
    }

    /// Makes this finished connection's allocations serve a new one accepted at `now`, under the
    /// same budgets and codings: every state, count and deadline starts over as in
    /// [`Connection::with_codings`]; only the buffers are kept, with nothing in them. Their old
    /// bytes are never read again: the machine reads its buffer only as `buf[..len]`, and `len`
    /// starts at 0.
    pub fn renew(&mut self, now: Instant) {
        let idle_deadline = now + self.budget.idle;
        self.parser.reset();
        self.chunked.reset();
        self.len = 0;
        self.out.clear();
        self.written = 0;
        self.admitted = 0;
        self.state =
            State::AwaitHead { idle_deadline, head_deadline: None, read_deadline: idle_deadline };
    }

    /// Bytes received and not yet consumed by a request.
    pub fn buffered(&self) -> usize {
        self.len
    }

    /// The time budget whose deadline the next read waits under; `None` in a state that reads
    /// only to notice its peer leave (an open stream between events).
    pub(super) fn read_budget(&self) -> Option<ReadBudget> {
        match self.state {
            State::AwaitHead { head_deadline: None, .. } => Some(ReadBudget::ConnectionIdle),
            State::AwaitHead { head_deadline: Some(head), read_deadline, .. } => {
                Some(if read_deadline < head { ReadBudget::SocketRead } else { ReadBudget::Head })
            }
            State::AwaitBody { body_deadline, read_deadline, .. } => {
                Some(if read_deadline < body_deadline {
                    ReadBudget::SocketRead
                } else {
                    ReadBudget::Body
                })
            }
            State::Watching { .. }
            | State::Pausing { .. }
            | State::Streaming(_)
            | State::Gone(..)
            | State::Admitting(_)
            | State::Refusing(_)
            | State::Dispatching(_)
            | State::Writing { .. }
            | State::Closed(_) => None,
        }
    }

    /// The state's name, for traces and `inspect connection`.
    #[inline]
    pub fn state_name(&self) -> &'static str {
        match self.state {
            State::AwaitHead { .. } => "await_head",
            State::Admitting(_) | State::Refusing(_) => "admitting",
            State::AwaitBody { .. } => "await_body",
            State::Dispatching(_) => "dispatching",
            State::Writing { then: Then::AwaitBody { .. }, .. } => "writing_continue",
            State::Writing { then: Then::Stream(_), .. } => "writing_stream",
            State::Writing { .. } => "writing",
            State::Streaming(_) => "streaming",
            State::Watching { .. } => "watching",
            State::Pausing { .. } => "pausing",
            State::Gone(_, Why::PeerLeft) => "peer_gone",
            State::Gone(_, Why::OverBudget) => "over_budget",
            State::Closed(Close::Polite) => "closed_politely",
            State::Closed(Close::Now) => "closed",
        }
    }

    /// How many bytes the next read may take: up to the head budget while a head is awaited,
    /// exactly the rest of a body of known length, the rest of the buffer for a chunked body
    /// (whose end only its bytes tell; what follows it stays for the next request). The parser
    /// refuses a head before it reaches its budget, and the decoder keeps less than the buffer
    /// past the head, so a head or a chunked body that is still partial always leaves room.
    pub(super) fn room(&self) -> usize {
        match self.state {
            State::AwaitHead { .. } => self.budget.head_bytes_max.saturating_sub(self.len),
            State::AwaitBody { request, .. } => match request.accepted.body() {
                BodyFraming::Length(_) => request.len.saturating_sub(self.len),
                BodyFraming::Chunked => (self.buf.len() - OVERFLOW_BYTE).saturating_sub(self.len),
            },
            // While a stream is open, what the peer sends is the next request, kept as it comes,
            // up to the byte past the largest request.
            State::Watching { .. } => self.buf.len() - self.len,
            State::Admitting(_)
            | State::Refusing(_)
            | State::Dispatching(_)
            | State::Writing { .. }
            | State::Streaming(_)
            | State::Pausing { .. }
            | State::Gone(..)
            | State::Closed(_) => 0,
        }
    }

    /// `n` bytes arrived in the read buffer at `now`.
    pub(super) fn received(&mut self, now: Instant, n: usize) {
        self.len = (self.len + n.min(self.room())).min(self.buf.len());
        self.state = match self.state {
            State::AwaitHead { idle_deadline, head_deadline, .. } => {
                // The head deadline starts with the head's first byte.
                let head_deadline = head_deadline.or(Some(now + self.budget.head));
                self.after_head_bytes(now, idle_deadline, head_deadline)
            }
            State::AwaitBody { request, body_deadline, .. } => {
                self.await_body(now, request, body_deadline)
            }
            // The buffer is full: the peer sent more than one request can be while the stream
            // was open. Otherwise the handler looks again (the bytes wait for the stream's end).
            State::Watching { stream, .. } if self.len == self.buf.len() => {
                State::Gone(stream, Why::OverBudget)
            }
            State::Watching { stream, .. } => State::Streaming(stream),
            // No other state reads.
            state @ (State::Admitting(_)
            | State::Refusing(_)
            | State::Dispatching(_)
            | State::Writing { .. }
            | State::Streaming(_)
            | State::Pausing { .. }
            | State::Gone(..)
            | State::Closed(_)) => state,
        };
    }

    /// A read or write waited until `now` without completing: at or past its deadline the peer
    /// had its time, and nothing more is owed; before it (a signal, a short timer), wait on.
    pub(super) fn waited(&mut self, now: Instant, deadline: Instant) {
        let passed = now >= deadline;
        self.state = match self.state {
            // A watch that ends is the time to produce the next chunk.
            State::Watching { stream, until } if now >= until => State::Streaming(stream),
            // A chunk the peer does not take in time: the peer is gone for the stream.
            State::Writing { then: Then::Stream(stream), .. } if passed => {
                State::Gone(stream, Why::PeerLeft)
            }
            State::AwaitHead { .. } | State::AwaitBody { .. } | State::Writing { .. } if passed => {
                State::Closed(Close::Now)
            }
            // Cut short before its deadline (a signal, a short timer): wait on. No other state
            // waits.
            state @ (State::AwaitHead { .. }
            | State::AwaitBody { .. }
            | State::Writing { .. }
            | State::Watching { .. }
            | State::Admitting(_)
            | State::Refusing(_)
            | State::Dispatching(_)
            | State::Streaming(_)
            | State::Pausing { .. }
            | State::Gone(..)
            | State::Closed(_)) => state,
        };
    }

    /// The peer closed its side, or a read or write failed: an open stream's handler decides
    /// what follows; any other connection is over.
    pub(super) fn peer_closed(&mut self) {
        self.state = match self.state {
            State::Watching { stream, .. } | State::Writing { then: Then::Stream(stream), .. } => {
                State::Gone(stream, Why::PeerLeft)
            }
            State::AwaitHead { .. }
            | State::AwaitBody { .. }
            | State::Writing { .. }
            | State::Admitting(_)
            | State::Refusing(_)
            | State::Dispatching(_)
            | State::Streaming(_)
            | State::Pausing { .. }
            | State::Gone(..)
            | State::Closed(_) => State::Closed(Close::Now),
        };
    }

    /// A quiet stream's wait until `until`: a read, so that the peer's close is seen at once.
    /// A buffer already full is over budget (the peer sent more than one request can be).
    fn watch(&self, stream: Streamed, until: Instant) -> State<R> {
        if self.len == self.buf.len() {
            return State::Gone(stream, Why::OverBudget);
        }
        State::Watching { stream, until }
    }

    /// Where a head stands after its bytes changed: admission when the parser has a verdict,
    /// otherwise the next read, bounded by the head deadline and one read timeout (or, before
    /// the first byte, by the idle deadline).
    fn after_head_bytes(
        &mut self,
        now: Instant,
        idle_deadline: Instant,
        head_deadline: Option<Instant>,
    ) -> State<R> {
        // `judge` scans only the new bytes and, once the head is complete, runs the whole-head
        // checks (once): a verdict either way is the handler's to judge or to answer.
        let buf = &self.buf[..self.len];
        match self.parser.judge(buf) {
            Ok(Parsed::Complete { value: accepted, .. }) => State::Admitting(accepted),
            Err(error) => State::Refusing(Refused { error, method: self.parser.method(buf) }),
            Ok(Parsed::Partial) => {
                let read_deadline = match head_deadline {
                    Some(deadline) => deadline.min(now + self.budget.read),
                    None => idle_deadline,
                };
                State::AwaitHead { idle_deadline, head_deadline, read_deadline }
            }
        }
    }

    /// The head was admitted with `route`: dispatch at once when the body is here, else read it
    /// (after `100 Continue` when the client waits for one).
    pub(super) fn admitted(&mut self, now: Instant, accepted: Accepted, route: R) {
        // The parser bounded a body's length by its budget, which the buffer holds beside the
        // largest head, so the whole request fits. A chunked body's end is found as it decodes.
        let len = match accepted.body() {
            BodyFraming::Length(body_len) => accepted.head_len() + body_len,
            BodyFraming::Chunked => {
                self.chunked.reset();
                accepted.head_len()
            }
        };
        self.admitted += 1;
        let last = self.admitted >= self.budget.requests_max;
        let keep_alive = accepted.keep_alive() && !last;
        let request = Admitted { accepted, body_end: len, len, keep_alive, route };
        let body_deadline = now + self.budget.body;
        self.state = match self.await_body(now, request, body_deadline) {
            State::AwaitBody { request, body_deadline, .. } if accepted.expect_continue() => {
                self.out.clear();
                self.out.extend_from_slice(CONTINUE);
                self.write(now, Then::AwaitBody { request, body_deadline }, self.budget.body)
            }
            state @ (State::AwaitBody { .. }
            | State::AwaitHead { .. }
            | State::Admitting(_)
            | State::Refusing(_)
            | State::Dispatching(_)
            | State::Writing { .. }
            | State::Streaming(_)
            | State::Watching { .. }
            | State::Pausing { .. }
            | State::Gone(..)
            | State::Closed(_)) => state,
        };
    }

    /// Dispatch when the whole request is here (a chunked body decoded to its end), refuse a
    /// chunked body the decoder refused, else read more of the body.
    fn await_body(
        &mut self,
        now: Instant,
        mut request: Admitted<R>,
        body_deadline: Instant,
    ) -> State<R> {
        let complete = match request.accepted.body() {
            BodyFraming::Length(_) => self.len >= request.len,
            BodyFraming::Chunked => match self.decode_chunks(request.accepted) {
                Ok(Some((body_end, len))) => {
                    (request.body_end, request.len) = (body_end, len);
                    true
                }
                Ok(None) => false,
                Err(error) => {
                    let method = Some(request.accepted.method());
                    return State::Refusing(Refused { error, method });
                }
            },
        };
        if complete {
            return State::Dispatching(request);
        }
        let read_deadline = body_deadline.min(now + self.budget.read);
        State::AwaitBody { request, body_deadline, read_deadline }
    }

    /// Decodes the chunked body's new bytes in place; once it is complete, where the body ends
    /// and where the next request starts.
    fn decode_chunks(
        &mut self,
        accepted: Accepted,
    ) -> Result<Option<(usize, usize)>, RequestError> {
        let head_len = accepted.head_len();
        let region = &mut self.buf[head_len..self.len];
        match self.chunked.decode(region).map_err(|e| e.in_request(head_len))? {
            Decoded::Partial { kept } => {
                self.len = head_len + kept;
                Ok(None)
            }
            Decoded::Complete { body_len, next, kept } => {
                self.len = head_len + kept;
                Ok(Some((head_len + body_len, head_len + next)))
            }
        }
    }

    /// Starts writing `out` (filled by the caller) within `total` (and one write timeout per
    /// write), then `then`.
    fn write(&mut self, now: Instant, then: Then<R>, total: Duration) -> State<R> {
        self.written = 0;
        let total_deadline = now + total;
        let write_deadline = total_deadline.min(now + self.budget.write);
        if self.out.is_empty() {
            return self.after_write(now, then);
        }
        State::Writing { then, total_deadline, write_deadline }
    }

    /// `n` more bytes of `out` went out at `now`.
    pub(super) fn wrote(&mut self, now: Instant, n: usize) {
        let State::Writing { then, total_deadline, .. } = self.state else {
            return;
        };
        self.written += n.min(self.out.len() - self.written);
        self.state = if self.written < self.out.len() {
            // Progress: the next write again waits at most one write timeout.
            let write_deadline = total_deadline.min(now + self.budget.write);
            State::Writing { then, total_deadline, write_deadline }
        } else {
            self.after_write(now, then)
        };
    }

    fn after_write(&mut self, now: Instant, then: Then<R>) -> State<R> {
        match then {
            Then::AwaitBody { request, body_deadline } => {
                self.await_body(now, request, body_deadline)
            }
            Then::Close(how) => State::Closed(how),
            Then::Stream(stream) => State::Streaming(stream),
            Then::NextRequest { len } => {
                self.buf.copy_within(len..self.len, 0);
                self.len -= len;
                self.parser.reset();
                // Pipelined bytes already here start the next head (and its deadline) at once.
                let idle_deadline = now + self.budget.idle;
                let head_deadline = (self.len > 0).then(|| now + self.budget.head);
                self.after_head_bytes(now, idle_deadline, head_deadline)
            }
        }
    }
}

/// What the stage handles read and lend: views of the buffers, and the transitions that answer a
/// request or step a stream.
impl<R: Copy> Connection<R> {
    /// Where the next read goes: the buffer right after the bytes it holds.
    pub(super) fn read_buffer(&mut self) -> &mut [u8] {
        let (start, room) = (self.len, self.room());
        &mut self.buf[start..start + room]
    }

    /// The bytes of the head `accepted`, as received.
    pub(super) fn head_bytes(&self, accepted: &Accepted) -> &[u8] {
        &self.buf[..accepted.head_len()]
    }

    /// The head `accepted`, parsed.
    pub(super) fn head_view(&self, accepted: &Accepted) -> RequestHead<'_> {
        self.parser.view(&self.buf[..self.len], accepted)
    }

    /// The head `accepted`, and the (emptied) buffer a reply is serialized into.
    pub(super) fn head_and_out(&mut self, accepted: &Accepted) -> (RequestHead<'_>, &mut Vec<u8>) {
        self.out.clear();
        (self.parser.view(&self.buf[..self.len], accepted), &mut self.out)
    }

    /// Every byte received and not yet consumed by a request.
    pub(super) fn unconsumed(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The (emptied) buffer a reply or a chunk is written into.
    pub(super) fn empty_out(&mut self) -> &mut Vec<u8> {
        self.out.clear();
        &mut self.out
    }

    /// What is still to be written.
    pub(super) fn unwritten(&self) -> &[u8] {
        &self.out[self.written..]
    }

    /// The request `request`: its head and exactly its body.
    pub(super) fn request_view(&self, request: &Admitted<R>) -> Request<'_> {
        let accepted = &request.accepted;
        let head = self.parser.view(&self.buf[..self.len], accepted);
        Request { head, body: &self.buf[accepted.head_len()..request.body_end] }
    }

    /// The request `request`, and the (emptied) buffer its reply is serialized into.
    pub(super) fn request_and_out(&mut self, request: &Admitted<R>) -> (Request<'_>, &mut Vec<u8>) {
        self.out.clear();
        let accepted = &request.accepted;
        let head = self.parser.view(&self.buf[..self.len], accepted);
        let body = &self.buf[accepted.head_len()..request.body_end];
        (Request { head, body }, &mut self.out)
    }

    /// A refusal's reply is in the buffer at `now`: it is written, then the connection closes.
    pub(super) fn reply_then_close(&mut self, now: Instant) {
        self.state = self.write(now, Then::Close(Close::Polite), self.budget.response);
    }

    /// The reply to `request` is in the buffer at `now`; `close` when it says `Connection:
    /// close`. The connection closes after it when either side says so.
    pub(super) fn replied(&mut self, now: Instant, request: Admitted<R>, close: bool) {
        let then = if close || !request.keep_alive {
            Then::Close(Close::Polite)
        } else {
            Then::NextRequest { len: request.len }
        };
        self.state = self.write(now, then, self.budget.response);
    }

    /// The reply in the buffer at `now` is the head (and perhaps the first chunks) of a stream
    /// that stays open. The request's bytes are dropped now (the handler took what it needs), so
    /// what the peer sends meanwhile has the whole buffer.
    pub(super) fn streaming(&mut self, now: Instant, request: Admitted<R>) {
        self.buf.copy_within(request.len..self.len, 0);
        self.len -= request.len;
        let stream = Streamed { keep_alive: request.keep_alive, detached: false };
        self.state = self.write(now, Then::Stream(stream), self.budget.response);
    }

    /// What the handler produced at `now` for `stream`.
    pub(super) fn produced(&mut self, now: Instant, stream: Streamed, next: Next) {
        self.state = match (next, stream.detached) {
            (Next::Chunk, false) => self.write(now, Then::Stream(stream), self.budget.response),
            (Next::Chunk, true) => State::Streaming(stream),
            (Next::Wait(until), false) => self.watch(stream, until),
            (Next::Wait(until), true) => State::Pausing { stream, until },
            (Next::End { .. }, true) => State::Closed(Close::Now),
            (Next::End { close }, false) => {
                let then = if close || !stream.keep_alive {
                    Then::Close(Close::Polite)
                } else {
                    // The stream's request left the buffer when the stream opened.
                    Then::NextRequest { len: 0 }
                };
                self.write(now, then, self.budget.response)
            }
        };
    }
}

/// What the handler made of an open stream's next step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// A chunk is in the buffer: write it.
    Chunk,
    /// Nothing to write before this time.
    Wait(Instant),
    /// The stream is over: the buffer holds its last bytes (the last chunk); `close` when the
    /// connection must close after them.
    End { close: bool },
}

/// What an open stream does when its peer goes away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Departure {
    /// The request is cancelled: nothing more is produced.
    Stop,
    /// The work goes on without a reader until the handler ends the stream.
    Continue,
}
