//! One exchange on a fresh connection to the server under probe: the request written (a large
//! body in pieces, stopping when an answer arrives early), the answer read as `answer` reads it,
//! and then whether the server closed the connection. Every wait has a deadline.
//!
//! Not here: what the bytes mean (`answer`, `judge`).

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use super::answer::{self, Framing, Head};

/// Pieces a large body is written in, checking for an early answer between them.
const PIECE: usize = 64 * 1024;

/// How long a stream may stay quiet before the read stops (it is left open).
const STREAM_QUIET: Duration = Duration::from_millis(600);

/// How long the connection is watched for its close after an answer, when the rule is about
/// the close, and when it is not (the grid still says what was seen).
pub const CLOSE_WATCH: Duration = Duration::from_millis(500);
pub const CLOSE_GLANCE: Duration = Duration::from_millis(50);

/// The most bytes read for one answer.
const ANSWER_BYTES_MAX: usize = 1024 * 1024;

/// What one exchange saw.
#[derive(Clone, Debug, Default)]
pub struct Exchange {
    /// The final answer's head.
    pub head: Option<Head>,
    /// Its body, decoded from chunks, at most [`answer::BODY_BYTES_KEPT`] bytes.
    pub body: Vec<u8>,
    /// The server closed the connection after the answer, or instead of one.
    pub closed: bool,
    /// An event stream that was still open when the read stopped.
    pub stream_open: bool,
    /// Why no complete answer was read.
    pub failure: Option<Failure>,
    /// The answer as it arrived (for the trace).
    pub raw: Vec<u8>,
}

/// Why an exchange has no complete answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// No connection.
    Connect,
    /// Nothing (or not all of it) within the deadline.
    Timeout,
    /// The server closed or reset the connection first.
    Closed,
    /// Bytes that are not an HTTP answer.
    Malformed(&'static str),
}

impl Failure {
    pub const fn describe(self) -> &'static str {
        match self {
            Failure::Connect => "no connection",
            Failure::Timeout => "no answer within the deadline",
            Failure::Closed => "closed without an answer",
            Failure::Malformed(why) => why,
        }
    }
}

/// Sends `request` on a new connection to `address` and reads the answer by `deadline`, then
/// watches the connection for its close as long as `watch`; `to_head` says the request was a
/// HEAD.
pub fn exchange(
    address: SocketAddr,
    request: &[u8],
    (deadline, watch): (Instant, Duration),
    to_head: bool,
) -> Exchange {
    let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
    let Ok(mut stream) = TcpStream::connect_timeout(&address, left) else {
        return Exchange { failure: Some(Failure::Connect), ..Exchange::default() };
    };
    let _ = stream.set_nodelay(true);
    let mut buf = Vec::new();
    let early = send(&mut stream, request, &mut buf, deadline);
    let mut exchange = read_answer(&mut stream, buf, (deadline, watch), to_head);
    if early && exchange.head.is_none() && exchange.failure == Some(Failure::Closed) {
        exchange.closed = true;
    }
    exchange
}

/// Writes the request; a body over one piece goes out piece by piece, stopping as soon as the
/// server has answered (or closed). Returns whether it stopped early.
fn send(stream: &mut TcpStream, request: &[u8], buf: &mut Vec<u8>, deadline: Instant) -> bool {
    let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
    let _ = stream.set_write_timeout(Some(left));
    let head_end =
        request.windows(4).position(|w| w == b"\r\n\r\n").map_or(request.len(), |i| i + 4);
    if request.len() <= PIECE {
        return stream.write_all(request).is_err();
    }
    if stream.write_all(&request[..head_end]).is_err() {
        return true;
    }
    for piece in request[head_end..].chunks(PIECE) {
        if answered(stream, buf) || stream.write_all(piece).is_err() || Instant::now() >= deadline {
            return true;
        }
    }
    false
}

/// Whether bytes (or the close) have arrived, without waiting; the bytes go into `buf`.
fn answered(stream: &mut TcpStream, buf: &mut Vec<u8>) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return false;
    }
    let mut chunk = [0u8; 4096];
    let seen = match stream.read(&mut chunk) {
        Ok(0) => true,
        Ok(n) => {
            buf.extend_from_slice(&chunk[..n]);
            true
        }
        Err(_) => false,
    };
    let _ = stream.set_nonblocking(false);
    seen
}

/// Reads until the final answer is whole (or the stream goes quiet), then watches for the close.
fn read_answer(
    stream: &mut TcpStream,
    buf: Vec<u8>,
    (deadline, watch): (Instant, Duration),
    to_head: bool,
) -> Exchange {
    let (head, mut buf, mut eof) = match read_head(stream, buf, deadline) {
        Ok(read) => read,
        Err(exchange) => return exchange,
    };
    let mut exchange = Exchange::default();
    let is_stream = head.field("content-type").is_some_and(|t| t.starts_with("text/event-stream"));
    let framing = head.framing(to_head);
    let quiet = (is_stream || framing == Framing::UntilClose).then_some(STREAM_QUIET);
    loop {
        let body = &buf[head.len..];
        let (data, complete) = match framing {
            Framing::Empty => (Vec::new(), true),
            Framing::Length(n) => (body[..n.min(body.len())].to_vec(), body.len() >= n),
            Framing::Chunked => answer::chunks(body),
            Framing::UntilClose => (body.to_vec(), eof),
        };
        exchange.body = data;
        if complete || buf.len() >= ANSWER_BYTES_MAX {
            break;
        }
        if eof {
            exchange.failure = Some(Failure::Malformed("an answer cut short"));
            break;
        }
        match fill(stream, &mut buf, deadline, quiet) {
            Filled::Bytes => {}
            Filled::Eof => eof = true,
            Filled::Quiet | Filled::Late => {
                exchange.stream_open = is_stream;
                break;
            }
        }
    }
    exchange.body.truncate(answer::BODY_BYTES_KEPT);
    exchange.closed = eof || (!exchange.stream_open && closes(stream, deadline, watch));
    exchange.head = Some(head);
    exchange.raw = buf;
    exchange
}

/// Reads the final answer's head, after any interim answers: the head, every byte so far, and
/// whether the server closed; or the exchange that ended without one.
fn read_head(
    stream: &mut TcpStream,
    mut buf: Vec<u8>,
    deadline: Instant,
) -> Result<(Head, Vec<u8>, bool), Exchange> {
    let mut eof = false;
    let ended = |failure: Failure, raw: Vec<u8>, closed: bool| Exchange {
        failure: Some(failure),
        raw,
        closed,
        ..Exchange::default()
    };
    loop {
        match answer::head(&buf) {
            Ok(Some(head)) if head.status < 200 => {
                buf.drain(..head.len);
            }
            Ok(Some(head)) => return Ok((head, buf, eof)),
            Ok(None) if eof => {
                let failure = if buf.is_empty() {
                    Failure::Closed
                } else {
                    Failure::Malformed("an answer cut short")
                };
                return Err(ended(failure, buf, true));
            }
            Ok(None) => match fill(stream, &mut buf, deadline, None) {
                Filled::Bytes => {}
                Filled::Eof => eof = true,
                Filled::Quiet | Filled::Late => return Err(ended(Failure::Timeout, buf, false)),
            },
            Err(why) => return Err(ended(Failure::Malformed(why), buf, false)),
        }
    }
}

/// What one read brought.
enum Filled {
    Bytes,
    Eof,
    /// Nothing for the quiet time.
    Quiet,
    /// Nothing by the deadline.
    Late,
}

fn fill(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    deadline: Instant,
    quiet: Option<Duration>,
) -> Filled {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Filled::Late;
    }
    let wait = quiet.map_or(left, |q| q.min(left));
    let _ = stream.set_read_timeout(Some(wait));
    let mut chunk = [0u8; 16 * 1024];
    match stream.read(&mut chunk) {
        Ok(0) => Filled::Eof,
        Ok(n) => {
            buf.extend_from_slice(&chunk[..n]);
            Filled::Bytes
        }
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
            if wait < left { Filled::Quiet } else { Filled::Late }
        }
        Err(_) => Filled::Eof,
    }
}

/// Whether the server closes the connection within a short watch after its answer.
fn closes(stream: &mut TcpStream, deadline: Instant, watch: Duration) -> bool {
    let left = deadline.saturating_duration_since(Instant::now());
    let _ = stream.set_read_timeout(Some(watch.min(left).max(Duration::from_millis(1))));
    let mut byte = [0u8; 1];
    match stream.read(&mut byte) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
    }
}
