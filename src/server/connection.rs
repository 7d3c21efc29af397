//! One connection, from its first byte to its close: the only place the server reads and writes
//! a client socket.
//!
//! For each request: read the head under a total deadline (idle time before its first byte, then
//! the head deadline from that byte, each socket read also bounded), let the endpoint admit it,
//! send `100 Continue` if asked and admitted, read exactly `Content-Length` body bytes under the
//! body deadline, let the endpoint respond, and write the response in one write. Bytes after the
//! body are the next request. The connection closes after any error response, after a request
//! that asks to close, after the per-connection request budget, and whenever a deadline passes
//! (then without a response: a partial request is never dispatched).
//!
//! Closing after an error is done politely: `Connection: close`, a shutdown of the write half, and
//! a short bounded drain of whatever the client still sends, so the client reads the response
//! rather than a reset.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::panic::{self, AssertUnwindSafe};
use std::time::{Duration, Instant, SystemTime};

use crate::endpoint::{Clock, Endpoint, Rejection, Reply, Route};
use crate::http::writer::ResponseWriter;
use crate::http::{Parsed, RequestParser, Status};
use crate::limits::Limits;

/// How many bytes one socket read asks for.
const READ_CHUNK_BYTES: usize = 4096;

/// What the head of an admitted request says about the rest of the exchange.
struct Admitted {
    route: Route,
    body_len: usize,
    expect_continue: bool,
    keep_alive: bool,
}

/// Why reading stopped without a complete request.
enum Stop {
    /// End of stream, a deadline, or an I/O error: close without answering.
    Silent,
    /// The request is refused: answer, then close.
    Refuse(Rejection),
}

/// Serves every request of one connection, then closes it.
pub fn serve(mut stream: TcpStream, endpoint: &Endpoint, fill_random: &mut dyn FnMut(&mut [u8])) {
    let limits = *endpoint.limits();
    // Small responses must not wait for the peer's delayed ACK (Nagle).
    let _ = stream.set_nodelay(true);
    if stream.set_write_timeout(Some(limits.socket_write_timeout)).is_err() {
        return;
    }
    let mut conn = Connection {
        buf: Vec::with_capacity(limits.request_head_bytes_max() + limits.request_body_bytes_max),
        out: Vec::new(),
        parser: RequestParser::new(&limits),
        limits,
    };
    for served in 1..=limits.requests_per_connection_max {
        let last = served == limits.requests_per_connection_max;
        match conn.exchange(&mut stream, endpoint, fill_random, last) {
            Ok(true) => continue,
            Ok(false) => break,
            Err(Stop::Silent) => return,
            Err(Stop::Refuse(rejection)) => {
                let reply = rejection.reply(endpoint.metadata_url());
                conn.send(&mut stream, &reply, true);
                break;
            }
        }
    }
    close_politely(stream, &limits);
}

struct Connection {
    /// Received bytes not yet consumed: the current request, then possibly the next.
    buf: Vec<u8>,
    /// The serialized response.
    out: Vec<u8>,
    parser: RequestParser,
    limits: Limits,
}

impl Connection {
    /// One request and its response. `Ok(true)` when the connection may carry another.
    fn exchange(
        &mut self,
        stream: &mut TcpStream,
        endpoint: &Endpoint,
        fill_random: &mut dyn FnMut(&mut [u8]),
        last: bool,
    ) -> Result<bool, Stop> {
        self.parser.reset();
        let head_len = self.read_head(stream)?;
        let admitted = self.admit(endpoint)?;
        let request_len = head_len + admitted.body_len;
        if admitted.expect_continue && self.buf.len() < request_len {
            self.send(stream, &Reply::empty(Status::Continue), false);
        }
        self.read_body(stream, request_len)?;
        let Ok(Parsed::Complete { value: head, .. }) = self.parser.parse(&self.buf) else {
            return Err(Stop::Silent);
        };
        let clock = Clock { now: Instant::now(), wall: SystemTime::now() };
        let body = &self.buf[head_len..request_len];
        let reply = guarded(|| endpoint.respond(admitted.route, &head, body, clock, fill_random))
            .map_err(Stop::Refuse)?;
        let keep_alive = admitted.keep_alive && !reply.close && !last;
        self.send(stream, &reply, !keep_alive);
        self.buf.drain(..request_len);
        Ok(keep_alive)
    }

    /// Stages 2 and 3 of the receive order, on the complete head in the buffer.
    fn admit(&mut self, endpoint: &Endpoint) -> Result<Admitted, Stop> {
        let Ok(Parsed::Complete { value: head, .. }) = self.parser.parse(&self.buf) else {
            return Err(Stop::Silent);
        };
        let route = guarded(|| endpoint.admit(&head)).and_then(|r| r).map_err(Stop::Refuse)?;
        Ok(Admitted {
            route,
            // The parser bounded Content-Length by the body budget, which is a usize.
            body_len: usize::try_from(head.content_length).map_err(|_| Stop::Silent)?,
            expect_continue: head.expect_continue,
            keep_alive: head.keep_alive,
        })
    }

    /// Reads until the head is complete; returns its length.
    fn read_head(&mut self, stream: &mut TcpStream) -> Result<usize, Stop> {
        let idle_deadline = Instant::now() + self.limits.connection_idle_timeout;
        let mut head_deadline = None;
        let cap = self.limits.request_head_bytes_max();
        loop {
            match self.parser.parse(&self.buf) {
                Ok(Parsed::Complete { len, .. }) => return Ok(len),
                Ok(Parsed::Partial) => {}
                Err(e) => return Err(Stop::Refuse(Rejection::Request(e))),
            }
            if !self.buf.is_empty() && head_deadline.is_none() {
                head_deadline = Some(Instant::now() + self.limits.request_head_deadline);
            }
            let deadline = head_deadline.unwrap_or(idle_deadline);
            let room = cap.saturating_sub(self.buf.len());
            if room == 0 {
                return Err(Stop::Silent); // cannot happen: the parser refuses before the cap
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
        let mut chunk = [0u8; READ_CHUNK_BYTES];
        let want = room.min(chunk.len());
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(Stop::Silent);
            }
            // `set_read_timeout` is per call, so it is recomputed before every read; never zero.
            let timeout =
                remaining.min(self.limits.socket_read_timeout).max(Duration::from_millis(1));
            stream.set_read_timeout(Some(timeout)).map_err(|_| Stop::Silent)?;
            match stream.read(&mut chunk[..want]) {
                Ok(0) => return Err(Stop::Silent),
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    return Ok(());
                }
                Err(e) if is_retryable(&e) => continue,
                Err(_) => return Err(Stop::Silent),
            }
        }
    }

    /// Serializes and writes one reply in a single write.
    fn send(&mut self, stream: &mut TcpStream, reply: &Reply, close: bool) {
        self.out.clear();
        let mut writer = ResponseWriter::new(&mut self.out, reply.status);
        for (name, value) in &reply.fields {
            writer.field(name, value.as_bytes());
        }
        if close {
            writer.field("Connection", b"close");
        }
        if writer.finish(&reply.body, self.limits.response_bytes_max).is_err() {
            // The reply itself was invalid or too large: a bug here, never the client's doing.
            self.out.clear();
            let fallback = Rejection::Internal.reply("");
            let mut writer = ResponseWriter::new(&mut self.out, fallback.status);
            for (name, value) in &fallback.fields {
                writer.field(name, value.as_bytes());
            }
            writer.field("Connection", b"close");
            if writer.finish(&fallback.body, self.limits.response_bytes_max).is_err() {
                return;
            }
        }
        let _ = stream.write_all(&self.out);
    }
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

/// Shuts down the write half, then discards what the client still sends (bounded in bytes and
/// time) so that closing does not reset the connection under the client's unread response.
pub fn close_politely(mut stream: TcpStream, limits: &Limits) {
    let _ = stream.flush();
    if stream.shutdown(Shutdown::Write).is_err() {
        return;
    }
    let deadline = Instant::now() + limits.drain_timeout;
    let mut drained = 0;
    let mut chunk = [0u8; READ_CHUNK_BYTES];
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
