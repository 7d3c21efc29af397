//! One exchange on a fresh connection to the server under probe: the request written (a large
//! body in pieces, stopping when an answer arrives early), the answer read as `answer` reads it,
//! and then what the connection does after it: whether the server closes it, and whether more
//! bytes come, a second answer above all. Every wait has a deadline.
//!
//! A second answer to one request is the smuggling signature: the server read part of the
//! request's bytes as a request of its own. Whatever comes after the first answer is kept apart
//! from it, from the same read or a later one.
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

/// How long the connection is watched after an answer: a glance for most rows (the grid still
/// says what was seen), and a read until the close for the rows whose bytes another reader could
/// split into two requests.
const GLANCE: Duration = Duration::from_millis(50);
const READ_ON: Duration = Duration::from_millis(500);

/// The most bytes read for one answer.
const ANSWER_BYTES_MAX: usize = 1024 * 1024;

/// The most bytes kept of what follows an answer.
const AFTER_BYTES_KEPT: usize = 64 * 1024;

/// How long to watch the connection once the answer is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum After {
    /// A glance: the close, or a byte, if one comes at once.
    Glance,
    /// Until the close or a short deadline, keeping every byte.
    ReadOn,
}

impl After {
    const fn watch(self) -> Duration {
        match self {
            After::Glance => GLANCE,
            After::ReadOn => READ_ON,
        }
    }
}

/// What one exchange saw.
#[derive(Clone, Debug, Default)]
pub struct Exchange {
    /// The final answer's head.
    pub head: Option<Head>,
    /// Its body, decoded from chunks, at most [`answer::BODY_BYTES_KEPT`] bytes.
    pub body: Vec<u8>,
    /// The server closed the connection after the answer, or instead of one.
    pub closed: bool,
    /// An answer that was still open when the read stopped: an event stream, or a body of no
    /// declared type that kept coming.
    pub stream_open: bool,
    /// Why no complete answer was read.
    pub failure: Option<Failure>,
    /// The status of a second answer that came after the first on the same connection.
    pub second: Option<u16>,
    /// How many bytes came after the answer.
    pub after: usize,
    /// The status of the request the row sends after this one to see what it left (a session
    /// that should still answer), when it sends one.
    pub later: Option<u16>,
    /// The answer as it arrived, and what came after it (for the trace).
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
/// watches the connection as `after` says; `to_head` says the request was a HEAD.
pub fn exchange(
    address: SocketAddr,
    request: &[u8],
    (deadline, after): (Instant, After),
    to_head: bool,
) -> Exchange {
    let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
    let Ok(mut stream) = TcpStream::connect_timeout(&address, left) else {
        return Exchange { failure: Some(Failure::Connect), ..Exchange::default() };
    };
    let _ = stream.set_nodelay(true);
    let mut buf = Vec::new();
    let early = send(&mut stream, request, &mut buf, deadline);
    let mut exchange = read_answer(&mut stream, buf, (deadline, after), to_head);
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

/// Reads until the final answer is whole (or it goes quiet), then watches the connection.
fn read_answer(
    stream: &mut TcpStream,
    buf: Vec<u8>,
    (deadline, after): (Instant, After),
    to_head: bool,
) -> Exchange {
    let (head, mut buf, mut eof) = match read_head(stream, buf, deadline) {
        Ok(read) => read,
        Err(exchange) => return *exchange,
    };
    let mut exchange = Exchange::default();
    let (ended, read_eof) =
        read_body(stream, (&head, to_head), &mut buf, (&mut exchange, eof), deadline);
    eof = read_eof;
    exchange.body.truncate(answer::BODY_BYTES_KEPT);
    let mut rest = ended.map(|end| buf[end.min(buf.len())..].to_vec()).unwrap_or_default();
    if !exchange.stream_open && !eof {
        eof = watch(stream, &mut rest, deadline, after);
    }
    exchange.closed = eof;
    exchange.second = answer::status_line(&rest);
    exchange.after = rest.len();
    rest.truncate(AFTER_BYTES_KEPT);
    buf.truncate(ended.unwrap_or(buf.len()).min(buf.len()));
    buf.extend_from_slice(&rest);
    exchange.head = Some(head);
    exchange.raw = buf;
    exchange
}

/// Reads the body after `head` into `exchange`: where the answer ends in `buf` when it ended
/// (`None` when the read stopped first), and whether the server closed.
fn read_body(
    stream: &mut TcpStream,
    (head, to_head): (&Head, bool),
    buf: &mut Vec<u8>,
    (exchange, mut eof): (&mut Exchange, bool),
    deadline: Instant,
) -> (Option<usize>, bool) {
    let framing = head.framing(to_head);
    // A body that says it is JSON ends by its framing; any other may be a stream that stays open.
    let json = head.field("content-type").is_some_and(|t| t.starts_with("application/json"));
    let quiet = (!json || framing == Framing::UntilClose).then_some(STREAM_QUIET);
    loop {
        let body = &buf[head.len..];
        let (data, end) = match framing {
            Framing::Empty => (Vec::new(), Some(0)),
            Framing::Length(n) => {
                (body[..n.min(body.len())].to_vec(), (body.len() >= n).then_some(n))
            }
            Framing::Chunked => {
                let chunks = answer::chunks(body);
                (chunks.data, chunks.complete)
            }
            Framing::UntilClose => (body.to_vec(), eof.then_some(body.len())),
        };
        exchange.body = data;
        if let Some(end) = end {
            return (Some(head.len + end), eof);
        }
        if buf.len() >= ANSWER_BYTES_MAX {
            return (None, eof);
        }
        if eof {
            exchange.failure = Some(Failure::Malformed("an answer cut short"));
            return (None, eof);
        }
        match fill(stream, buf, deadline, quiet) {
            Filled::Bytes => {}
            Filled::Eof => eof = true,
            Filled::Quiet => {
                exchange.stream_open = true;
                return (None, eof);
            }
            Filled::Late => {
                exchange.stream_open = !json;
                exchange.failure = json.then_some(Failure::Timeout);
                return (None, eof);
            }
        }
    }
}

/// Reads the final answer's head, after any interim answers: the head, every byte so far, and
/// whether the server closed; or the exchange that ended without one.
fn read_head(
    stream: &mut TcpStream,
    mut buf: Vec<u8>,
    deadline: Instant,
) -> Result<(Head, Vec<u8>, bool), Box<Exchange>> {
    let mut eof = false;
    let ended = |failure: Failure, raw: Vec<u8>, closed: bool| {
        Box::new(Exchange { failure: Some(failure), raw, closed, ..Exchange::default() })
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

fn remaining(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1))
}

/// One read into `buf`, waiting at most until `deadline` and, with `quiet`, no longer than that.
fn fill(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    deadline: Instant,
    quiet: Option<Duration>,
) -> Filled {
    if Instant::now() >= deadline {
        return Filled::Late;
    }
    let left = remaining(deadline);
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

/// Watches the connection after the answer as `after` says, keeping what comes in `rest`;
/// whether the server closed it.
fn watch(stream: &mut TcpStream, rest: &mut Vec<u8>, deadline: Instant, after: After) -> bool {
    let until = (Instant::now() + after.watch()).min(deadline);
    loop {
        match fill(stream, rest, until, None) {
            Filled::Eof => return true,
            Filled::Quiet | Filled::Late => return false,
            Filled::Bytes if after == After::Glance || rest.len() >= AFTER_BYTES_KEPT => {
                return false;
            }
            Filled::Bytes => {}
        }
    }
}
