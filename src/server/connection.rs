//! One connection, from its first byte to its close: the only place the server reads and writes
//! a client socket.
//!
//! For each request: read the head under a total deadline (idle time before its first byte, then
//! the head deadline from that byte, each socket read also bounded), let the endpoint admit it,
//! send `100 Continue` if asked and admitted, read exactly `Content-Length` body bytes under the
//! body deadline, let the endpoint respond, and write the response in one write call (more only
//! when the socket takes part of it) under the response write deadline. Bytes after the body are
//! the next request. The connection closes after any error response, after a request that asks
//! to close, after the per-connection request budget, and whenever a deadline passes (then
//! without a response: a partial request is never dispatched, and a response the peer does not
//! read is abandoned).
//!
//! Closing after an error is done politely: `Connection: close`, a shutdown of the write half, and
//! a short bounded drain of whatever the client still sends, so the client reads the response
//! rather than a reset.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::panic::{self, AssertUnwindSafe};
use std::time::{Duration, Instant, SystemTime};

use crate::endpoint::{Clock, Endpoint, Rejection, Reply, Route};
use crate::http::writer::{ResponseWriter, WriteError};
use crate::http::{Parsed, RequestHead, RequestParser, Status};
use crate::limits::Limits;
use crate::random::FillRandom;

/// What the head of an admitted request says about the rest of the exchange.
struct Admitted {
    route: Route,
    body_len: usize,
    expect_continue: bool,
    /// The head allows another request and the per-connection budget is not spent.
    keep_alive: bool,
}

/// Why reading stopped without a complete request.
enum Stop {
    /// End of stream, a deadline, or an I/O error: close without answering.
    Silent,
    /// The request is refused: answer, then close.
    Refuse(Rejection),
}

/// Serves every request of one connection. Returns the stream when it still needs a polite close
/// (after a response that ended the connection); `None` when it was simply dropped (the peer
/// left, a deadline passed). `release` is called once, just before the response that ends the
/// connection is written: from then on the worker no longer needs its place in the pool.
pub fn serve(
    mut stream: TcpStream,
    endpoint: &Endpoint,
    fill_random: &mut FillRandom<'_>,
    release: &mut dyn FnMut(),
) -> Option<TcpStream> {
    let limits = *endpoint.limits();
    // Small responses must not wait for the peer's delayed ACK (Nagle).
    let _ = stream.set_nodelay(true);
    let mut input = Input {
        buf: ReadBuffer::new(limits.request_head_bytes_max() + limits.request_body_bytes_max),
        parser: RequestParser::new(&limits),
        limits,
        read_timeout: None,
    };
    let mut output =
        Output { out: Vec::new(), limits, write_timeout: None, release: Some(release) };
    for served in 1..=limits.requests_per_connection_max {
        let last = served == limits.requests_per_connection_max;
        match exchange(&mut input, &mut output, &mut stream, endpoint, fill_random, last) {
            Ok(true) => continue,
            Ok(false) => break,
            Err(Stop::Silent) => return None,
            Err(Stop::Refuse(rejection)) => {
                let reply = rejection.reply(endpoint.metadata_url());
                if output.send(&mut stream, &reply, true).is_err() {
                    return None;
                }
                break;
            }
        }
    }
    Some(stream)
}

/// The receiving side of a connection.
struct Input {
    /// Received bytes not yet consumed: the current request, then possibly the next.
    buf: ReadBuffer,
    parser: RequestParser,
    limits: Limits,
    /// The read timeout the socket has now, so it is set again only when it must change.
    read_timeout: Option<Duration>,
}

/// The sending side of a connection.
struct Output<'r> {
    /// The serialized response, reused from one response to the next.
    out: Vec<u8>,
    limits: Limits,
    /// The write timeout the socket has now, so it is set again only when it must change.
    write_timeout: Option<Duration>,
    /// Called before the last response is written (see [`serve`]); taken when called.
    release: Option<&'r mut dyn FnMut()>,
}

/// One request and its response. `Ok(true)` when the connection may carry another.
fn exchange(
    input: &mut Input,
    output: &mut Output<'_>,
    stream: &mut TcpStream,
    endpoint: &Endpoint,
    fill_random: &mut FillRandom<'_>,
    last: bool,
) -> Result<bool, Stop> {
    input.parser.reset();
    let head_len = input.read_head(stream)?;
    // The head is built once; when the body came with it (the usual case) it serves both stages.
    let (admitted, request_len) = {
        let head = built_head(&mut input.parser, input.buf.data())?;
        let admitted = admit(endpoint, &head, last)?;
        let request_len = head_len + admitted.body_len;
        if input.buf.len() >= request_len {
            let body = &input.buf.data()[head_len..request_len];
            let keep_alive = answer(endpoint, output, stream, &admitted, &head, body, fill_random)?;
            input.buf.consume(request_len);
            return Ok(keep_alive);
        }
        (admitted, request_len)
    };
    if admitted.expect_continue {
        output.send(stream, &Reply::empty(Status::Continue), false)?;
    }
    input.read_body(stream, request_len)?;
    let head = built_head(&mut input.parser, input.buf.data())?;
    let body = &input.buf.data()[head_len..request_len];
    let keep_alive = answer(endpoint, output, stream, &admitted, &head, body, fill_random)?;
    input.buf.consume(request_len);
    Ok(keep_alive)
}

/// Stages 4 to 8 with the time of this request, then the response; `Ok(true)` when the
/// connection may carry another request.
fn answer(
    endpoint: &Endpoint,
    output: &mut Output<'_>,
    stream: &mut TcpStream,
    admitted: &Admitted,
    head: &RequestHead<'_>,
    body: &[u8],
    fill_random: &mut FillRandom<'_>,
) -> Result<bool, Stop> {
    let clock = Clock { now: Instant::now(), wall: SystemTime::now() };
    let reply = guarded(|| endpoint.respond(admitted.route, head, body, clock, fill_random))
        .map_err(Stop::Refuse)?;
    let closing = output.send(stream, &reply, !admitted.keep_alive || reply.close)?;
    Ok(!closing)
}

/// The complete head in `buf`, with the checks that need it whole; a framing error refuses it.
fn built_head<'b>(parser: &'b mut RequestParser, buf: &'b [u8]) -> Result<RequestHead<'b>, Stop> {
    match parser.parse(buf) {
        Ok(Parsed::Complete { value, .. }) => Ok(value),
        Ok(Parsed::Partial) => {
            debug_assert!(false, "a complete head parsed as partial");
            Err(Stop::Silent)
        }
        Err(e) => Err(Stop::Refuse(Rejection::Request(e))),
    }
}

/// Stages 2 and 3 of the receive order, on the head alone. `last`: the connection's request
/// budget ends with this request, whatever the head asks.
fn admit(endpoint: &Endpoint, head: &RequestHead<'_>, last: bool) -> Result<Admitted, Stop> {
    let route = guarded(|| endpoint.admit(head)).and_then(|r| r).map_err(Stop::Refuse)?;
    Ok(Admitted {
        route,
        // The parser bounded Content-Length by the body budget, which is a usize.
        body_len: usize::try_from(head.content_length).map_err(|_| Stop::Silent)?,
        expect_continue: head.expect_continue,
        keep_alive: head.keep_alive && !last,
    })
}

impl Input {
    /// Reads until the head is complete; returns its length.
    fn read_head(&mut self, stream: &mut TcpStream) -> Result<usize, Stop> {
        let idle_deadline = Instant::now() + self.limits.connection_idle_timeout;
        let mut head_deadline = None;
        let cap = self.limits.request_head_bytes_max();
        loop {
            match self.parser.feed(self.buf.data()) {
                Ok(Some(len)) => return Ok(len),
                Ok(None) => {}
                Err(e) => return Err(Stop::Refuse(Rejection::Request(e))),
            }
            if !self.buf.is_empty() && head_deadline.is_none() {
                head_deadline = Some(Instant::now() + self.limits.request_head_deadline);
            }
            let deadline = head_deadline.unwrap_or(idle_deadline);
            let room = cap.saturating_sub(self.buf.len());
            if room == 0 {
                debug_assert!(false, "the head buffer filled without a parser verdict");
                return Err(Stop::Silent);
            }
            self.read_some(stream, room, deadline)?;
        }
    }

    /// Reads until `request_len` bytes (head and body) are buffered, within the body deadline.
    fn read_body(&mut self, stream: &mut TcpStream, request_len: usize) -> Result<(), Stop> {
        let deadline = Instant::now() + self.limits.request_body_deadline;
        while self.buf.len() < request_len {
            self.read_some(stream, request_len - self.buf.len(), deadline)?;
        }
        Ok(())
    }

    /// One read of at most `room` bytes before `deadline`.
    fn read_some(
        &mut self,
        stream: &mut TcpStream,
        room: usize,
        deadline: Instant,
    ) -> Result<(), Stop> {
        loop {
            // The socket keeps its setting between reads, so the system call is made only when
            // the value changes.
            let timeout =
                call_timeout(deadline, self.limits.socket_read_timeout).ok_or(Stop::Silent)?;
            if self.read_timeout != Some(timeout) {
                stream.set_read_timeout(Some(timeout)).map_err(|_| Stop::Silent)?;
                self.read_timeout = Some(timeout);
            }
            match self.buf.read_from(stream, room) {
                Ok(0) => return Err(Stop::Silent),
                Ok(_) => return Ok(()),
                Err(e) if is_retryable(&e) => continue,
                Err(_) => return Err(Stop::Silent),
            }
        }
    }
}

/// Received bytes: a buffer zeroed once at its full size (the budgets fix it), whose first
/// `filled` bytes hold data. Reads land directly in it; consumed requests are shifted out.
struct ReadBuffer {
    bytes: Vec<u8>,
    filled: usize,
}

impl ReadBuffer {
    fn new(size: usize) -> ReadBuffer {
        ReadBuffer { bytes: vec![0; size], filled: 0 }
    }

    fn data(&self) -> &[u8] {
        &self.bytes[..self.filled]
    }

    fn len(&self) -> usize {
        self.filled
    }

    fn is_empty(&self) -> bool {
        self.filled == 0
    }

    /// One read of at most `room` bytes (and never past the buffer's end) into the free space.
    fn read_from(&mut self, stream: &mut TcpStream, room: usize) -> io::Result<usize> {
        let end = self.bytes.len().min(self.filled + room);
        let n = stream.read(&mut self.bytes[self.filled..end])?;
        self.filled += n;
        Ok(n)
    }

    /// Drops the first `n` bytes (one whole request), keeping what follows.
    fn consume(&mut self, n: usize) {
        self.bytes.copy_within(n..self.filled, 0);
        self.filled -= n;
    }
}

impl Output<'_> {
    /// Serializes and writes one reply in a single write, within the response write deadline.
    /// Returns whether the connection closes after it: when asked, or when the reply could not
    /// be serialized and a closing 500 went out instead. A failed write ends the connection
    /// silently: the peer is not reading, and a partial response cannot be followed by another.
    fn send(&mut self, stream: &mut TcpStream, reply: &Reply, close: bool) -> Result<bool, Stop> {
        let max = self.limits.response_bytes_max;
        let close = match serialize(&mut self.out, reply, close, max) {
            Ok(_) => close,
            Err(_) => {
                // The reply itself was invalid or too large: a bug here, never the client's doing.
                let fallback = Rejection::Internal.reply("");
                serialize(&mut self.out, &fallback, true, max).map_err(|_| Stop::Silent)?;
                true
            }
        };
        if close && let Some(release) = self.release.take() {
            release();
        }
        self.write_all(stream).map_err(|_| Stop::Silent)?;
        Ok(close)
    }

    /// Writes `out` whole before the response write deadline, each write also bounded by the
    /// socket write timeout (set again only when the remaining time is shorter).
    fn write_all(&mut self, stream: &mut TcpStream) -> io::Result<()> {
        let deadline = Instant::now() + self.limits.response_write_deadline;
        let mut written = 0;
        while written < self.out.len() {
            let timeout = call_timeout(deadline, self.limits.socket_write_timeout)
                .ok_or(io::ErrorKind::TimedOut)?;
            if self.write_timeout != Some(timeout) {
                stream.set_write_timeout(Some(timeout))?;
                self.write_timeout = Some(timeout);
            }
            match stream.write(&self.out[written..]) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => written += n,
                Err(e) if is_retryable(&e) => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// `reply` as bytes in `out` (cleared first), with `Connection: close` when `close`.
pub fn serialize(
    out: &mut Vec<u8>,
    reply: &Reply,
    close: bool,
    max: usize,
) -> Result<usize, WriteError> {
    out.clear();
    let mut writer = ResponseWriter::new(out, reply.status);
    for (name, value) in &reply.fields {
        writer.field(name, value.as_bytes());
    }
    if close {
        writer.field("Connection", b"close");
    }
    writer.finish(&reply.body, max)
}

/// The timeout for one socket call toward `deadline`: a whole `per_call` timeout, or the
/// deadline's remainder when that is shorter (never zero, which would mean no timeout at all).
/// `None` once the deadline has passed.
fn call_timeout(deadline: Instant, per_call: Duration) -> Option<Duration> {
    let remaining = deadline.saturating_duration_since(Instant::now());
    (!remaining.is_zero()).then(|| remaining.min(per_call).max(Duration::from_millis(1)))
}

fn is_retryable(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// Runs endpoint code so that a panic becomes a 500 for this request instead of ending the worker.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, Rejection> {
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|_| Rejection::Internal)
}

/// How many bytes one draining read takes.
const DRAIN_CHUNK_BYTES: usize = 4096;

/// Shuts down the write half, then discards what the client still sends (bounded in bytes and
/// time) so that closing does not reset the connection under the client's unread response.
pub fn close_politely(mut stream: TcpStream, limits: &Limits) {
    let _ = stream.flush();
    if stream.shutdown(Shutdown::Write).is_err() {
        return;
    }
    let deadline = Instant::now() + limits.drain_timeout;
    let mut drained = 0;
    let mut chunk = [0u8; DRAIN_CHUNK_BYTES];
    while drained < limits.drain_bytes_max {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() || stream.set_read_timeout(Some(remaining)).is_err() {
            return;
        }
        match stream.read(&mut chunk) {
            Ok(0) => return,
            Ok(n) => drained += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        }
    }
}
