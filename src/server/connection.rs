//! One connection's socket side: the only place the server reads and writes a client socket.
//!
//! Every decision about the connection is [`Connection`]'s, and the loop is
//! `http::connection::drive`'s. This file supplies its two sides: the socket as a [`Transport`]
//! (a read or a write with the deadline the machine named: the socket's timeout is set to the
//! time left, reckoned from the driver's latest reading of the clock, and changed only when that
//! differs by more than a few milliseconds from what it already is, so a keep-alive connection
//! costs no extra system call and no extra clock reading per request) and the
//! [`Endpoint`] as a [`Handler`] (admission and replies, whose panics become a 500 for that
//! request, serialized straight into the machine's buffer with the `Date` of the shell's clock).
//! [`serve`] returns a connection that ends politely, its last response written, for the worker
//! to hand to the lingering set once it has given back its place in the pool; one that ends at
//! once is dropped here.
//!
//! A stream that stays open ([`OpenStream`]) is framed by its request's version
//! ([`OpenFraming`]): to HTTP/1.1 as the chunked transfer coding, one SSE event (or keep-alive
//! comment) per chunk, ended by the last chunk; to HTTP/1.0 as the events themselves, ended by
//! closing the connection. Either way each event goes out in its own write, under the per-write
//! deadline, the moment it is produced. Chunked where the request allows it, rather than
//! delimited by closing: the last chunk tells the client the stream is complete, which a close
//! cannot tell apart from a cut connection, and the connection stays usable for the next
//! request. A stream whose producer panics is cut without its end (the last chunk, or a polite
//! close), so the client sees it as incomplete. A stream whose peer left, or filled the read
//! buffer, is hung up at once, even when its work goes on (a 2025-11-25 call).

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::panic::{self, AssertUnwindSafe};
use std::time::{Duration, Instant, SystemTime};

use super::watch::{StreamEnd, Watch, Watcher};
use crate::endpoint::live::{Ending, OpenStream, Step};
use crate::endpoint::{
    Answer, Clock, Decided, Delivery, Endpoint, KeptByConnection, Rejection, Reply, Route,
};
use crate::http::connection::{
    Answered, Close, Connection, Departure, Handler, Happened, Io, Next, Refused, Request, Stage,
    Transport, Why, drive,
};
use crate::http::date::DateCache;
use crate::http::writer::OpenFraming;
use crate::http::{Method, RequestHead};
use crate::limits::Limits;
use crate::random::FillRandom;

/// How far a socket's timeout may be from the time left before a deadline before it is set
/// again: a read may end this much after its deadline, and the time since the clock was last
/// read (one step of computation: microseconds, or longer once after a handler's panic, whose
/// report to stderr takes what it takes), never more.
const TIMEOUT_TOLERANCE: Duration = Duration::from_millis(5);

/// A finished connection whose buffers the worker keeps for its next one.
pub struct SpareConnection {
    machine: Connection<Route>,
    kept: KeptByConnection,
}

/// Serves every request of one connection, then closes it, or returns it when it ends politely
/// (its last response written) so that it can linger. The connection runs in `spare`'s buffers
/// when there are some (renewed: nothing of the previous connection is read again), and leaves
/// its own there for the next one. `closing` is called before each write of the last response.
pub fn serve(
    stream: TcpStream,
    endpoint: &Endpoint,
    fill_random: &mut FillRandom<'_>,
    spare: &mut Option<SpareConnection>,
    watch: Option<&Watch>,
    closing: &mut dyn FnMut(),
) -> Option<TcpStream> {
    // Small responses must not wait for the peer's delayed ACK (Nagle).
    let _ = stream.set_nodelay(true);
    let limits = *endpoint.limits();
    let accepted = Instant::now();
    let (read_timeout, write_timeout) = (None, None);
    let mut socket = Socket { stream, read_timeout, write_timeout, clock: accepted, closing };
    let codings = endpoint.request_codings();
    let (mut connection, kept) = match spare.take() {
        Some(SpareConnection { mut machine, kept }) => {
            machine.renew(accepted);
            (machine, kept)
        }
        None => {
            let machine = Connection::with_codings(&limits, codings, accepted);
            (machine, endpoint.kept_for_new_connection())
        }
    };
    let dates = DateCache::new();
    let watcher = watch.map(|watch| Watcher::new(watch, endpoint.canonical_host()));
    let mut handler = Answers {
        endpoint,
        fill_random,
        dates,
        limits,
        kept,
        stream: None,
        framing: OpenFraming::Chunked,
        stream_closes: false,
        watcher,
    };
    let close = drive(&mut connection, &mut socket, &mut handler);
    // What the connection presented (its session, its token and session id) is forgotten as it
    // ends, not when the worker's next connection comes.
    let mut kept = handler.kept;
    kept.renew();
    *spare = Some(SpareConnection { machine: connection, kept });
    (close == Close::Polite).then_some(socket.stream)
}

/// The endpoint as the connection's handler: the receive order's checks and answers, each reply
/// serialized with its framing (`Connection: close`, no content for HEAD, `Date`).
struct Answers<'e, 'r> {
    endpoint: &'e Endpoint,
    fill_random: &'e mut FillRandom<'r>,
    dates: DateCache,
    limits: Limits,
    /// The session and the secrets this connection presented last, forgotten when it ends, and
    /// the worker's reusable buffers.
    kept: KeptByConnection,
    /// The stream the last request opened, while it is open.
    stream: Option<Box<OpenStream>>,
    /// How its body is delimited (by its request's version).
    framing: OpenFraming,
    /// Its head said `Connection: close`.
    stream_closes: bool,
    /// What `serve --watch` is told, when it watches.
    watcher: Option<Watcher<'e>>,
}

impl Handler for Answers<'_, '_> {
    type Route = Route;

    fn admit(&mut self, head: &RequestHead<'_>, reply: &mut Vec<u8>) -> Option<Route> {
        match guarded(|| self.endpoint.admit(head)).and_then(|admitted| admitted) {
            Ok(route) => Some(route),
            Err(rejection) => {
                self.rejection(&rejection, head.method == Method::Head, reply);
                if let Some(watcher) = self.watcher.as_mut() {
                    watcher.decided(rejection.status().code(), Some(decided_of(&rejection)));
                }
                None
            }
        }
    }

    fn refuse(&mut self, refused: Refused, reply: &mut Vec<u8>) {
        let head = refused.method == Some(Method::Head);
        let rejection = Rejection::Request(refused.error);
        self.rejection(&rejection, head, reply);
        if let Some(watcher) = self.watcher.as_mut() {
            watcher.decided(rejection.status().code(), Some(decided_of(&rejection)));
        }
    }

    fn respond(
        &mut self,
        route: Route,
        request: &Request<'_>,
        keep_alive: bool,
        now: Instant,
        reply: &mut Vec<u8>,
    ) -> Answered {
        // One reading of the wall clock serves the token checks and the `Date` field.
        let clock = Clock { now, wall: SystemTime::now() };
        let (endpoint, head, body) = (self.endpoint, &request.head, request.body);
        let (random, kept) = (&mut *self.fill_random, &mut self.kept);
        let answered = guarded(|| endpoint.respond(route, head, body, clock, random, kept))
            .unwrap_or_else(|rejection| rejection.reply(endpoint.metadata_url()).into());
        let is_head = head.method == Method::Head;
        if let Some(watcher) = self.watcher.as_mut() {
            watcher.answered(&answered);
        }
        match answered {
            Answer::Whole(mut answered) => {
                let close = !keep_alive || answered.close;
                let close = self.serialize(&answered, close, is_head, clock.wall, reply);
                self.kept.recycle(&mut answered);
                Answered::Whole { close }
            }
            Answer::Open { head: opened, stream } => {
                let date = self.dates.at(unix_seconds(clock.wall));
                let delivery = Delivery { close: !keep_alive, head: false, date: Some(date) };
                let framing = OpenFraming::of(head.version);
                let max = self.limits.response_bytes_max;
                if opened.serialize_open(reply, (delivery, framing), max).is_err() {
                    let close = self.serialize(
                        &Rejection::Internal.reply(""),
                        true,
                        is_head,
                        clock.wall,
                        reply,
                    );
                    return Answered::Whole { close };
                }
                self.stream = Some(stream);
                (self.framing, self.stream_closes) = (framing, !keep_alive || framing.closes());
                Answered::Streaming
            }
        }
    }

    fn next(&mut self, now: Instant, out: &mut Vec<u8>) -> Next {
        let endpoint = self.endpoint;
        let Some(stream) = self.stream.as_mut() else {
            return Next::End { close: true };
        };
        let (framing, mut events) = (self.framing, 0);
        let next = match guarded(|| stream.next(endpoint, now, SystemTime::now())) {
            Ok(Step::Write(bytes)) => {
                events = frame_events(framing, &bytes, out);
                Next::Chunk
            }
            Ok(Step::Wait(until)) => Next::Wait(until),
            Ok(Step::End(bytes, ending)) => {
                events = frame_events(framing, &bytes, out);
                out.extend_from_slice(framing.end());
                self.stream = None;
                let close = match ending {
                    Ending::Done => self.stream_closes,
                    Ending::Revoked => true,
                };
                Next::End { close }
            }
            // A panic mid-stream: the body is left unterminated, which a reader sees as a cut,
            // and the connection closes at once (a close-delimited body too: not politely).
            Err(_) => {
                self.stream = None;
                if let Some(watcher) = self.watcher.as_mut() {
                    watcher.stream_ended(StreamEnd::Cut);
                }
                return Next::End { close: true };
            }
        };
        if let Some(watcher) = self.watcher.as_mut() {
            watcher.produced(next, events, out.len());
        }
        next
    }

    fn depart(&mut self, _now: Instant, why: Why) -> Departure {
        let endpoint = self.endpoint;
        let departure = match self.stream.as_mut() {
            Some(stream) => guarded(|| stream.depart(endpoint)).unwrap_or(Departure::Stop),
            None => Departure::Stop,
        };
        if departure == Departure::Stop {
            self.stream = None;
        }
        if let Some(watcher) = self.watcher.as_mut() {
            watcher.stream_ended(StreamEnd::Departed(why, departure));
        }
        departure
    }

    fn observe(
        &mut self,
        happened: Option<Happened>,
        _state: &'static str,
        next: &Stage<'_, Route>,
    ) {
        if let Some(watcher) = self.watcher.as_mut() {
            watcher.observe(happened, next);
        }
    }
}

impl Answers<'_, '_> {
    fn rejection(&mut self, rejection: &Rejection, head: bool, reply: &mut Vec<u8>) {
        let answer = rejection.reply(self.endpoint.metadata_url());
        self.serialize(&answer, true, head, SystemTime::now(), reply);
    }

    /// `reply` as bytes into `out`, with `Connection: close` when `close`, without content for a
    /// HEAD request, and with the `Date` of `wall`; true when the connection closes after it. A
    /// reply that does not serialize (too large: a bug here, never the client's doing) becomes a
    /// closing 500.
    fn serialize(
        &mut self,
        reply: &Reply,
        close: bool,
        head: bool,
        wall: SystemTime,
        out: &mut Vec<u8>,
    ) -> bool {
        let date = self.dates.at(unix_seconds(wall));
        let max = self.limits.response_bytes_max;
        let delivery = Delivery { close, head, date: Some(date) };
        if reply.serialize(out, delivery, max).is_ok() {
            return close;
        }
        let fallback = Rejection::Internal.reply("");
        if fallback.serialize(out, Delivery { close: true, ..delivery }, max).is_err() {
            // `bind` checked that the fixed error replies fit the response budget; were that
            // ever broken, the buffer stays empty and the connection closes without a response.
            super::report::internal_error("the 500 reply does not fit the response budget");
        }
        true
    }
}

/// Where and why a refusal was decided.
fn decided_of(rejection: &Rejection) -> Decided {
    Decided { stage: rejection.stage(), code: rejection.code() }
}

/// `events` (whole SSE events, each ending with its empty line) framed as `framing` says, one
/// event per piece (per chunk, when chunked): a reader gets each event as one piece, as it was
/// produced. SSE data never holds an empty line (the encoder writes every line of it as a
/// field), so an event ends at the first. How many events.
fn frame_events(framing: OpenFraming, events: &[u8], out: &mut Vec<u8>) -> usize {
    let (mut rest, mut count) = (events, 0);
    while !rest.is_empty() {
        let end = rest.windows(2).position(|w| w == b"\n\n").map_or(rest.len(), |at| at + 2);
        framing.piece(&rest[..end], out);
        rest = &rest[end..];
        count += 1;
    }
    count
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
struct Socket<'c> {
    stream: TcpStream,
    read_timeout: Option<Duration>,
    write_timeout: Option<Duration>,
    /// The latest reading of the clock: the driver's, taken after every read, write and answer
    /// (the time left before a deadline is reckoned from it, so it is at most one step of pure
    /// computation old), or this socket's own, after a wait a signal interrupted.
    clock: Instant,
    /// Called before each write of the connection's last response (the worker tells its pool).
    closing: &'c mut dyn FnMut(),
}

/// Which way a socket operation goes, and so which of its timeouts bounds the wait.
#[derive(Clone, Copy)]
enum Way {
    Read,
    Write,
}

impl Socket<'_> {
    /// One read or write (`operation`) that waits until `deadline` at most: the socket's timeout
    /// for that way is set to the time left when it is not close enough already, and a wait a
    /// signal interrupted is tried again.
    fn within(
        &mut self,
        way: Way,
        deadline: Instant,
        mut operation: impl FnMut(&mut TcpStream) -> io::Result<usize>,
    ) -> Io {
        loop {
            let current = match way {
                Way::Read => &mut self.read_timeout,
                Way::Write => &mut self.write_timeout,
            };
            let Some(timeout) = timeout_for(deadline, self.clock, *current) else {
                return Io::TimedOut;
            };
            if Some(timeout) != *current {
                let set = match way {
                    Way::Read => self.stream.set_read_timeout(Some(timeout)),
                    Way::Write => self.stream.set_write_timeout(Some(timeout)),
                };
                if set.is_err() {
                    return Io::Closed;
                }
                *current = Some(timeout);
            }
            match operation(&mut self.stream) {
                Ok(n) => return Io::Done(n),
                Err(e) => match io_outcome(&e) {
                    Some(outcome) => return outcome,
                    None => self.clock = Instant::now(),
                },
            }
        }
    }
}

impl Transport for Socket<'_> {
    fn now(&mut self) -> Instant {
        self.clock = Instant::now();
        self.clock
    }

    fn read(&mut self, buf: &mut [u8], deadline: Instant) -> Io {
        self.within(Way::Read, deadline, |stream| stream.read(buf))
    }

    fn write(&mut self, bytes: &[u8], deadline: Instant) -> Io {
        self.within(Way::Write, deadline, |stream| stream.write(bytes))
    }

    fn closing(&mut self) {
        (self.closing)();
    }

    fn hang_up(&mut self) {
        // Already closed by the peer, or not: either way nothing more goes through it.
        let _ = self.stream.shutdown(Shutdown::Both);
    }

    fn pause(&mut self, until: Instant) {
        if let Some(left) = until.checked_duration_since(Instant::now()) {
            std::thread::sleep(left);
        }
    }
}

/// What a failed socket operation means; `None` to try it again (a signal interrupted it).
fn io_outcome(e: &io::Error) -> Option<Io> {
    match e.kind() {
        io::ErrorKind::Interrupted => None,
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Some(Io::TimedOut),
        _ => Some(Io::Closed),
    }
}

/// The socket timeout for a wait until `deadline`, seen at `now`: the one it has when that is
/// within the tolerance of the time left, else the time left (never zero, which would mean no
/// timeout). `None` once the deadline has passed.
fn timeout_for(deadline: Instant, now: Instant, current: Option<Duration>) -> Option<Duration> {
    let left = deadline.checked_duration_since(now).filter(|d| !d.is_zero())?;
    let close_enough = current.is_some_and(|c| c.abs_diff(left) <= TIMEOUT_TOLERANCE);
    Some(match current {
        Some(current) if close_enough => current,
        _ => left.max(Duration::from_millis(1)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn socket_timeouts_are_the_time_left_unless_the_current_one_is_close_enough() {
        let now = Instant::now();
        let ms = Duration::from_millis;
        let cases: [(Duration, Option<Duration>, Option<Duration>); 7] = [
            // (time left at `now`, the socket's timeout, the timeout to wait with)
            (ms(0), None, None),
            (ms(0), Some(ms(30_000)), None),
            (ms(30_000), None, Some(ms(30_000))),
            (ms(30_000), Some(ms(30_005)), Some(ms(30_005))),
            (ms(30_000), Some(ms(30_006)), Some(ms(30_000))),
            (ms(29_995), Some(ms(30_000)), Some(ms(30_000))),
            (Duration::from_micros(300), None, Some(ms(1))),
        ];
        for (left, current, expected) in cases {
            assert_eq!(timeout_for(now + left, now, current), expected, "{left:?} {current:?}");
        }
    }

    #[test]
    fn a_deadline_already_behind_the_clock_reading_waits_for_nothing() {
        let now = Instant::now() + Duration::from_secs(1);
        assert_eq!(timeout_for(now - Duration::from_millis(1), now, None), None);
    }
}
