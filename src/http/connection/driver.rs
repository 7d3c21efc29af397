//! The one loop that drives a [`Connection`], over two small traits: a [`Transport`] (a read
//! and a write, each with a deadline, a pause, and the clock) and a [`Handler`] (admit a head,
//! answer a request, produce the chunks of a stream that stays open).
//!
//! The loop asks the machine for its stage, carries it out, and reports what happened, until the
//! machine says the connection is over. It owns no buffer (the machine lends its own), decides
//! nothing (every rule is the machine's or the handler's), and reads the clock only through the
//! transport: after each read or write, and after each answer (answering may take a while);
//! judging a head takes microseconds and reuses the time of the read that completed it. The
//! server's socket loop, `inspect connection`, the `connection` fuzz target and the fake-clock
//! tests each implement the two traits; none of them steps the machine itself.

use std::time::Instant;

use super::machine::{Close, Connection, Departure, Next, Refused, Request, Why};
use super::stage::{AdmitTurn, DispatchTurn, Stage, Turn};
use crate::http::RequestHead;

/// What one read or write did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Io {
    /// It moved this many bytes (a read of 0 is the peer's close).
    Done(usize),
    /// The peer is gone, or the connection broke.
    Closed,
    /// It waited until its deadline (or was woken before it) and moved nothing.
    TimedOut,
}

/// The connection's side that moves bytes, and its clock.
pub trait Transport {
    /// The current time.
    fn now(&mut self) -> Instant;
    /// Reads into `buf` (at most its length), waiting no later than `deadline`.
    fn read(&mut self, buf: &mut [u8], deadline: Instant) -> Io;
    /// Writes (a first part of) `bytes`, waiting no later than `deadline`.
    fn write(&mut self, bytes: &[u8], deadline: Instant) -> Io;
    /// Waits until `until` (or less), reading and writing nothing.
    fn pause(&mut self, until: Instant);
    /// The write that follows is of the connection's last bytes: once they are out, the
    /// connection ends. Said before every write of them (a server's pool may count the worker as
    /// about to be free from here on).
    fn closing(&mut self);
    /// The peer of an open stream is gone, or was dropped for filling the read buffer: nothing
    /// more is read from it or written to it, so the connection is closed both ways now, even
    /// when the handler's work goes on without a reader.
    fn hang_up(&mut self);
}

/// How a request was answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answered {
    /// The whole reply is in the buffer; `close` when it says `Connection: close`.
    Whole { close: bool },
    /// The buffer holds the head of a stream that stays open (and perhaps its first chunks):
    /// [`Handler::next`] produces the rest.
    Streaming,
}

/// The connection's side that judges and answers requests.
pub trait Handler {
    /// What an admission decides (the server's route), handed back with the request.
    type Route: Copy;

    /// Judges a head the parser accepted: the route, or `None` after writing the refusal's
    /// reply into `reply`.
    fn admit(&mut self, head: &RequestHead<'_>, reply: &mut Vec<u8>) -> Option<Self::Route>;

    /// Writes into `reply` the answer to a head the parser refused.
    fn refuse(&mut self, refused: Refused, reply: &mut Vec<u8>);

    /// Answers a complete request at `now` into `reply`: whole (saying `Connection: close` when
    /// `keep_alive` is false), or as the head of a stream that stays open, whose last chunk
    /// must then say so.
    fn respond(
        &mut self,
        route: Self::Route,
        request: &Request<'_>,
        keep_alive: bool,
        now: Instant,
        reply: &mut Vec<u8>,
    ) -> Answered;

    /// The next step at `now` of the stream the last [`Handler::respond`] opened: a chunk in
    /// `out`, a time to come back, or its end (its last bytes in `out`). A handler that never
    /// answers [`Answered::Streaming`] is never asked.
    fn next(&mut self, _now: Instant, _out: &mut Vec<u8>) -> Next {
        Next::End { close: true }
    }

    /// The peer of the open stream went away at `now` (or was dropped for `why`): whether its
    /// work goes on.
    fn depart(&mut self, _now: Instant, _why: Why) -> Departure {
        Departure::Stop
    }

    /// Sees every step: what just happened (nothing, before the first), the state the machine is
    /// in, and the stage it asks for next. For traces and checks; the server ignores it.
    fn observe(
        &mut self,
        _happened: Option<Happened>,
        _state: &'static str,
        _next: &Stage<'_, Self::Route>,
    ) {
    }
}

/// What one step of the loop did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Happened {
    Received(usize),
    PeerClosed,
    TimePassed,
    Wrote(usize),
    Admitted,
    /// A head was refused, by the handler or by the parser, and its reply is to be written.
    Refused,
    /// A reply of this many bytes is to be written.
    Replied(usize),
    /// An open stream's handler produced its next step.
    Produced(Next),
    /// A pause ended.
    Paused,
    /// An open stream's peer went away, and its handler decided.
    Departed(Departure),
}

/// Drives `connection` to its end; how it ended.
pub fn drive<H: Handler>(
    connection: &mut Connection<H::Route>,
    transport: &mut impl Transport,
    handler: &mut H,
) -> Close {
    let mut now = transport.now();
    let mut happened = None;
    loop {
        handler.observe(happened, connection.state_name(), &connection.stage());
        happened = Some(match connection.turn() {
            Turn::Read(mut read) => {
                let deadline = read.view().deadline();
                let io = transport.read(read.buffer(), deadline);
                now = transport.now();
                match io {
                    Io::Done(0) | Io::Closed => read.peer_closed(),
                    Io::Done(n) => read.received(now, n),
                    Io::TimedOut => read.waited(now),
                }
                moved(io, Happened::Received)
            }
            Turn::Write(write) => {
                let view = write.view();
                if view.closes() {
                    transport.closing();
                }
                let io = transport.write(view.bytes(), view.deadline());
                now = transport.now();
                match io {
                    Io::Done(0) | Io::Closed => write.peer_closed(),
                    Io::Done(n) => write.wrote(now, n),
                    Io::TimedOut => write.waited(now),
                }
                moved(io, Happened::Wrote)
            }
            Turn::Admit(admit) => admit_step(admit, handler, now),
            Turn::Refuse(mut refuse) => {
                let (refused, reply) = refuse.parts();
                handler.refuse(refused, reply);
                refuse.replied(now);
                Happened::Refused
            }
            Turn::Dispatch(dispatch) => dispatch_step(dispatch, transport, handler, &mut now),
            Turn::Stream(mut produce) => {
                let next = handler.next(now, produce.buffer());
                now = transport.now();
                produce.produced(now, next);
                Happened::Produced(next)
            }
            Turn::Pause(pause) => {
                transport.pause(pause.view().until());
                now = transport.now();
                pause.paused(now);
                Happened::Paused
            }
            Turn::Gone(departed) => {
                let departure = handler.depart(now, departed.view().why());
                transport.hang_up();
                departed.decided(departure);
                Happened::Departed(departure)
            }
            Turn::Closed(how) => return how,
        });
    }
}

/// A parsed head, judged by the handler.
fn admit_step<H: Handler>(
    mut admit: AdmitTurn<'_, H::Route>,
    handler: &mut H,
    now: Instant,
) -> Happened {
    let (head, reply) = admit.parts();
    match handler.admit(&head, reply) {
        Some(route) => {
            admit.admitted(now, route);
            Happened::Admitted
        }
        None => {
            admit.refused(now);
            Happened::Refused
        }
    }
}

/// A complete request, answered by the handler: whole, or as a stream that stays open.
fn dispatch_step<H: Handler>(
    mut dispatch: DispatchTurn<'_, H::Route>,
    transport: &mut impl Transport,
    handler: &mut H,
    now: &mut Instant,
) -> Happened {
    let (route, keep_alive) = (dispatch.view().route(), dispatch.view().keep_alive());
    let (request, reply) = dispatch.parts();
    let answered = handler.respond(route, &request, keep_alive, *now, reply);
    let bytes = reply.len();
    *now = transport.now();
    match answered {
        Answered::Whole { close } => dispatch.replied(*now, close),
        Answered::Streaming => dispatch.streaming(*now),
    }
    Happened::Replied(bytes)
}

/// What a read or write that did `io` happened to be.
fn moved(io: Io, done: fn(usize) -> Happened) -> Happened {
    match io {
        Io::Done(0) | Io::Closed => Happened::PeerClosed,
        Io::Done(n) => done(n),
        Io::TimedOut => Happened::TimePassed,
    }
}
