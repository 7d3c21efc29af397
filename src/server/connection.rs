//! One connection's loop: the only place the server reads and writes a client socket.
//!
//! Every decision about the connection is [`Connection`]'s (`http::connection`): this loop asks
//! it what to do, does it on the socket, and reports back what happened and when. A read or a
//! write is given the deadline the machine named (the socket's timeout is set to the time left,
//! and changed only when that differs by more than a few milliseconds from what it already is,
//! so a keep-alive connection costs no extra system call per request). Admission and replies come
//! from the [`Endpoint`], whose panics become a 500 for that request. A connection that ends
//! politely is handed to the [`LingerSet`] with its write half shut; one that ends at once is
//! dropped.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::panic::{self, AssertUnwindSafe};
use std::time::{Duration, Instant, SystemTime};

use super::linger::LingerSet;
use crate::endpoint::{Clock, Delivery, Endpoint, Rejection, Reply};
use crate::http::connection::{Action, Close, Connection, Event};
use crate::http::date::DateCache;
use crate::http::{Method, Status};
use crate::limits::Limits;
use crate::random::FillRandom;

/// How many bytes one read takes at most (a machine may allow more: a head and a body).
const READ_CHUNK_BYTES: usize = 16 * 1024;

/// How far a socket's timeout may be from the time left before a deadline before it is set
/// again: a read may end this much after its deadline, never more.
const TIMEOUT_TOLERANCE: Duration = Duration::from_millis(5);

/// Serves every request of one connection, then closes it or hands it to `lingering`.
/// `release` is called once, just before a response that ends the connection is written: from
/// then on the worker no longer needs its place in the pool.
pub fn serve(
    stream: TcpStream,
    endpoint: &Endpoint,
    fill_random: &mut FillRandom<'_>,
    release: &mut dyn FnMut(),
    lingering: &LingerSet,
) {
    let limits = *endpoint.limits();
    // Small responses must not wait for the peer's delayed ACK (Nagle).
    let _ = stream.set_nodelay(true);
    let mut socket = Socket { stream, read_timeout: None, write_timeout: None };
    let mut connection = Connection::new(&limits, Instant::now());
    let mut chunk = vec![0u8; READ_CHUNK_BYTES];
    let mut out = Outgoing { bytes: Vec::new(), dates: DateCache::new(), limits };
    let mut route = None;
    // The time of the last socket operation. Steps that follow only computation (admitting a
    // head, which takes microseconds) reuse it instead of reading the clock again.
    let mut now = Instant::now();
    loop {
        let to_head = |c: &Connection| c.method() == Some(Method::Head);
        let event = match connection.action() {
            Action::Read { max, deadline } => {
                let room = max.min(chunk.len());
                let event = socket.read(&mut chunk[..room], deadline);
                now = Instant::now();
                event
            }
            Action::Write { bytes, deadline } => {
                let event = socket.write(bytes, deadline);
                now = Instant::now();
                event
            }
            Action::Admit => {
                let Some(verdict) = connection.head() else {
                    return; // the machine's own bug, asserted there: drop the connection
                };
                let admitted = verdict
                    .map_err(Rejection::Request)
                    .and_then(|head| guarded(|| endpoint.admit(&head))?);
                match admitted {
                    Ok(admitted) => {
                        route = Some(admitted);
                        Event::Admitted
                    }
                    Err(rejection) => {
                        release();
                        let refusal = rejection.reply(endpoint.metadata_url());
                        out.serialize(&refusal, true, to_head(&connection), SystemTime::now());
                        Event::Refused(&out.bytes)
                    }
                }
            }
            Action::Continue => {
                out.serialize(&Reply::empty(Status::Continue), false, false, SystemTime::now());
                Event::Interim(&out.bytes)
            }
            Action::Dispatch { keep_alive } => {
                let (Some(route), Some((head, body))) = (route, connection.request()) else {
                    return;
                };
                // One reading of the wall clock serves the token checks and the `Date` field.
                let clock = Clock { now, wall: SystemTime::now() };
                let answered = guarded(|| endpoint.respond(route, &head, body, clock, fill_random))
                    .unwrap_or_else(|rejection| rejection.reply(endpoint.metadata_url()));
                let close = !keep_alive || answered.close;
                let close = out.serialize(&answered, close, to_head(&connection), clock.wall);
                if close {
                    release();
                }
                // Answering may take a while (an event stream, a large list): read the clock anew.
                now = Instant::now();
                Event::Replied { bytes: &out.bytes, close }
            }
            Action::Close(Close::Polite) => {
                release();
                lingering.add(socket.stream, Instant::now());
                return;
            }
            Action::Close(Close::Now) => return,
        };
        connection.step(now, event);
    }
}

/// The bytes of the response being sent, and the `Date` the responses carry.
struct Outgoing {
    bytes: Vec<u8>,
    dates: DateCache,
    limits: Limits,
}

impl Outgoing {
    /// `reply` as bytes, with `Connection: close` when `close`, without content for a HEAD
    /// request, and with the `Date` of `wall`; true when the connection closes after it. A reply
    /// that does not serialize (too large: a bug here, never the client's doing) becomes a
    /// closing 500.
    fn serialize(&mut self, reply: &Reply, close: bool, head: bool, wall: SystemTime) -> bool {
        let date = self.dates.at(unix_seconds(wall));
        let max = self.limits.response_bytes_max;
        let delivery = Delivery { close, head, date: Some(date) };
        if reply.serialize(&mut self.bytes, delivery, max).is_ok() {
            return close;
        }
        let fallback = Rejection::Internal.reply("");
        let written =
            fallback.serialize(&mut self.bytes, Delivery { close: true, ..delivery }, max);
        // `bind` checked that the fixed error replies fit the response budget.
        debug_assert!(written.is_ok(), "the 500 fallback does not fit the response budget");
        true
    }
}

/// Seconds since the Unix epoch (0 for a clock set before it).
pub fn unix_seconds(wall: SystemTime) -> u64 {
    wall.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Runs endpoint code so that a panic becomes a 500 for this request instead of ending the worker.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, Rejection> {
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|_| Rejection::Internal)
}

/// The client socket, with the timeouts it has now.
struct Socket {
    stream: TcpStream,
    read_timeout: Option<Duration>,
    write_timeout: Option<Duration>,
}

impl Socket {
    /// One read into `buf`, waiting no later than `deadline`.
    fn read<'b>(&mut self, buf: &'b mut [u8], deadline: Instant) -> Event<'b> {
        loop {
            let Some(timeout) = timeout_for(deadline, self.read_timeout) else {
                return Event::TimePassed;
            };
            if Some(timeout) != self.read_timeout {
                if self.stream.set_read_timeout(Some(timeout)).is_err() {
                    return Event::PeerClosed;
                }
                self.read_timeout = Some(timeout);
            }
            match self.stream.read(buf) {
                Ok(0) => return Event::PeerClosed,
                Ok(n) => return Event::Received(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if timed_out(&e) => return Event::TimePassed,
                Err(_) => return Event::PeerClosed,
            }
        }
    }

    /// One write of (a first part of) `bytes`, waiting no later than `deadline`.
    fn write(&mut self, bytes: &[u8], deadline: Instant) -> Event<'static> {
        loop {
            let Some(timeout) = timeout_for(deadline, self.write_timeout) else {
                return Event::TimePassed;
            };
            if Some(timeout) != self.write_timeout {
                if self.stream.set_write_timeout(Some(timeout)).is_err() {
                    return Event::PeerClosed;
                }
                self.write_timeout = Some(timeout);
            }
            match self.stream.write(bytes) {
                Ok(0) => return Event::PeerClosed,
                Ok(n) => return Event::Wrote(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if timed_out(&e) => return Event::TimePassed,
                Err(_) => return Event::PeerClosed,
            }
        }
    }
}

/// The socket timeout for a wait until `deadline`: the one it has when that is within the
/// tolerance of the time left, else the time left (never zero, which would mean no timeout).
/// `None` once the deadline has passed.
fn timeout_for(deadline: Instant, current: Option<Duration>) -> Option<Duration> {
    let left = deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero())?;
    let close_enough = current.is_some_and(|c| c.abs_diff(left) <= TIMEOUT_TOLERANCE);
    Some(match current {
        Some(current) if close_enough => current,
        _ => left.max(Duration::from_millis(1)),
    })
}

fn timed_out(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)
}
