//! Where a connection is, two ways: a [`Stage`] to look at, and a [`Turn`] to act on.
//!
//! [`Connection::stage`] takes `&self` and changes nothing: it answers with a view of the stage
//! the state names (a read and its deadline, a head to judge, bytes to write, ...), which a
//! handler's `observe` and the driver read. [`Connection::turn`] lends the same stage as a
//! handle offering exactly the transitions that can happen there, each taking the handle by
//! value: an event that does not fit the state cannot be reported, because no handle offers it.
//! Both are made from one state by one exhaustive `match` each, so they always agree.
//!
//! Not here: the states and what each transition decides (`machine`), or the loop (`driver`).

use std::time::Instant;

use super::machine::{
    Admitted, Close, Connection, Departure, Next, ReadBudget, Refused, Request, State, Streamed,
    Why,
};
use crate::http::request::{Accepted, RequestHead};

/// Where a connection is, to look at: what it asks for next.
#[derive(Debug)]
pub enum Stage<'c, R> {
    /// Read into the machine's buffer.
    Read(Read<'c, R>),
    /// Judge a parsed head.
    Admit(Admit<'c, R>),
    /// Write the reply to a head the parser refused.
    Refuse(Refuse<'c, R>),
    /// Answer a complete request.
    Dispatch(Dispatch<'c, R>),
    /// Write (a first part of) the pending bytes.
    Write(Write<'c, R>),
    /// Produce the next chunk of an open stream.
    Stream(Produce),
    /// Wait, without reading, until a time.
    Pause(Pause),
    /// The peer of an open stream is gone: stop, or let the work go on.
    Gone(Departed),
    /// The connection is over.
    Closed(Close),
}

/// Where a connection is, to act on: the same stage, lending the machine's buffers, each
/// offering the transitions that can happen there.
#[derive(Debug)]
pub enum Turn<'c, R> {
    Read(ReadTurn<'c, R>),
    Admit(AdmitTurn<'c, R>),
    Refuse(RefuseTurn<'c, R>),
    Dispatch(DispatchTurn<'c, R>),
    Write(WriteTurn<'c, R>),
    Stream(ProduceTurn<'c, R>),
    Pause(PauseTurn<'c, R>),
    Gone(DepartedTurn<'c, R>),
    Closed(Close),
}

impl<R: Copy> Connection<R> {
    /// Where the connection is now, to look at. Asking changes nothing.
    pub(super) fn stage(&self) -> Stage<'_, R> {
        match self.state {
            State::AwaitHead { read_deadline, .. } | State::AwaitBody { read_deadline, .. } => {
                Stage::Read(Read { connection: self, deadline: read_deadline })
            }
            State::Watching { until, .. } => {
                Stage::Read(Read { connection: self, deadline: until })
            }
            State::Pausing { stream, until } => Stage::Pause(Pause { stream, until }),
            State::Streaming(stream) => Stage::Stream(Produce { stream }),
            State::Gone(stream, why) => Stage::Gone(Departed { stream, why }),
            State::Admitting(accepted) => Stage::Admit(Admit { connection: self, accepted }),
            State::Refusing(refused) => Stage::Refuse(Refuse { connection: self, refused }),
            State::Dispatching(request) => Stage::Dispatch(Dispatch { connection: self, request }),
            State::Writing { write_deadline, then, .. } => {
                let closes = then.closes();
                Stage::Write(Write { connection: self, deadline: write_deadline, closes })
            }
            State::Closed(how) => Stage::Closed(how),
        }
    }

    /// Where the connection is now, to act on: the handle of its stage.
    pub(super) fn turn(&mut self) -> Turn<'_, R> {
        match self.state {
            State::AwaitHead { read_deadline, .. } | State::AwaitBody { read_deadline, .. } => {
                Turn::Read(ReadTurn { connection: self, deadline: read_deadline })
            }
            State::Watching { until, .. } => {
                Turn::Read(ReadTurn { connection: self, deadline: until })
            }
            State::Pausing { stream, until } => {
                Turn::Pause(PauseTurn { connection: self, view: Pause { stream, until } })
            }
            State::Streaming(stream) => {
                Turn::Stream(ProduceTurn { connection: self, view: Produce { stream } })
            }
            State::Gone(stream, why) => {
                Turn::Gone(DepartedTurn { connection: self, view: Departed { stream, why } })
            }
            State::Admitting(accepted) => Turn::Admit(AdmitTurn { connection: self, accepted }),
            State::Refusing(refused) => Turn::Refuse(RefuseTurn { connection: self, refused }),
            State::Dispatching(request) => {
                Turn::Dispatch(DispatchTurn { connection: self, request })
            }
            State::Writing { write_deadline, then, .. } => {
                let closes = then.closes();
                Turn::Write(WriteTurn { connection: self, deadline: write_deadline, closes })
            }
            State::Closed(how) => Turn::Closed(how),
        }
    }
}

/// A read: the bytes go straight into the machine's buffer.
#[derive(Debug)]
pub struct Read<'c, R> {
    connection: &'c Connection<R>,
    deadline: Instant,
}

impl<R: Copy> Read<'_, R> {
    /// Wait no later than this.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// The most bytes this read may take.
    pub fn room(&self) -> usize {
        self.connection.room()
    }

    /// The time budget this read waits under (`None` while an open stream waits for its peer).
    pub fn budget(&self) -> Option<ReadBudget> {
        self.connection.read_budget()
    }

    /// Bytes received so far and not yet consumed by a request.
    pub fn buffered(&self) -> usize {
        self.connection.buffered()
    }
}

/// A read, to act on.
#[derive(Debug)]
pub struct ReadTurn<'c, R> {
    connection: &'c mut Connection<R>,
    deadline: Instant,
}

impl<R: Copy> ReadTurn<'_, R> {
    /// The read, to look at.
    pub fn view(&self) -> Read<'_, R> {
        Read { connection: self.connection, deadline: self.deadline }
    }

    /// Where to read: the machine's buffer, right after the bytes it holds.
    pub fn buffer(&mut self) -> &mut [u8] {
        self.connection.read_buffer()
    }

    /// The first `n` bytes of [`ReadTurn::buffer`] arrived at `now`.
    pub fn received(self, now: Instant, n: usize) {
        self.connection.received(now, n);
    }

    /// The read waited until `now` and nothing came.
    pub fn waited(self, now: Instant) {
        self.connection.waited(now, self.deadline);
    }

    /// The peer closed its side (a read returned nothing), or the connection broke.
    pub fn peer_closed(self) {
        self.connection.peer_closed();
    }
}

/// A parsed head to judge.
#[derive(Debug)]
pub struct Admit<'c, R> {
    connection: &'c Connection<R>,
    accepted: Accepted,
}

impl<R: Copy> Admit<'_, R> {
    /// The head's bytes, as received.
    pub fn received(&self) -> &[u8] {
        self.connection.head_bytes(&self.accepted)
    }

    /// The head.
    pub fn head(&self) -> RequestHead<'_> {
        self.connection.head_view(&self.accepted)
    }
}

/// A parsed head to judge, to act on.
#[derive(Debug)]
pub struct AdmitTurn<'c, R> {
    connection: &'c mut Connection<R>,
    accepted: Accepted,
}

impl<R: Copy> AdmitTurn<'_, R> {
    /// The head, and the (empty) buffer a refusal's reply is serialized into.
    pub fn parts(&mut self) -> (RequestHead<'_>, &mut Vec<u8>) {
        self.connection.head_and_out(&self.accepted)
    }

    /// The head is admitted at `now`, with what the handler decided.
    pub fn admitted(self, now: Instant, route: R) {
        self.connection.admitted(now, self.accepted, route);
    }

    /// The head is refused at `now`: the reply in the buffer is written, then the connection
    /// closes.
    pub fn refused(self, now: Instant) {
        self.connection.reply_then_close(now);
    }
}

/// A head the parser refused, whose reply is to be written.
#[derive(Debug)]
pub struct Refuse<'c, R> {
    connection: &'c Connection<R>,
    refused: Refused,
}

impl<R: Copy> Refuse<'_, R> {
    /// Why, and the method the head named.
    pub fn refused_head(&self) -> Refused {
        self.refused
    }

    /// Every byte received and not yet consumed by an earlier request: the refused head (and
    /// whatever came after it).
    pub fn received(&self) -> &[u8] {
        self.connection.unconsumed()
    }
}

/// A refused head, to act on.
#[derive(Debug)]
pub struct RefuseTurn<'c, R> {
    connection: &'c mut Connection<R>,
    refused: Refused,
}

impl<R: Copy> RefuseTurn<'_, R> {
    /// Why, and the (empty) buffer the reply is serialized into.
    pub fn parts(&mut self) -> (Refused, &mut Vec<u8>) {
        (self.refused, self.connection.empty_out())
    }

    /// The reply is in the buffer at `now`: it is written, then the connection closes.
    pub fn replied(self, now: Instant) {
        self.connection.reply_then_close(now);
    }
}

/// A complete request to answer.
#[derive(Debug)]
pub struct Dispatch<'c, R> {
    connection: &'c Connection<R>,
    request: Admitted<R>,
}

impl<R: Copy> Dispatch<'_, R> {
    /// What the handler decided when it admitted the head.
    pub fn route(&self) -> R {
        self.request.route
    }

    /// False when the reply must say `Connection: close` (the head asked for it, or this is the
    /// last request the connection may carry).
    pub fn keep_alive(&self) -> bool {
        self.request.keep_alive
    }

    /// How many bytes the request took on the wire: its head and its body as sent (a chunked
    /// body with its coding).
    pub fn received_len(&self) -> usize {
        self.request.len
    }

    /// The request: its head and exactly its body.
    pub fn request(&self) -> Request<'_> {
        self.connection.request_view(&self.request)
    }
}

/// A complete request, to act on.
#[derive(Debug)]
pub struct DispatchTurn<'c, R> {
    connection: &'c mut Connection<R>,
    request: Admitted<R>,
}

impl<R: Copy> DispatchTurn<'_, R> {
    /// The request, to look at.
    pub fn view(&self) -> Dispatch<'_, R> {
        Dispatch { connection: self.connection, request: self.request }
    }

    /// The request, and the (empty) buffer its reply is serialized into.
    pub fn parts(&mut self) -> (Request<'_>, &mut Vec<u8>) {
        self.connection.request_and_out(&self.request)
    }

    /// The reply is in the buffer at `now`; `close` when it says `Connection: close`. The
    /// connection closes after it when either side says so.
    pub fn replied(self, now: Instant, close: bool) {
        self.connection.replied(now, self.request, close);
    }

    /// The reply in the buffer at `now` is the head (and perhaps the first chunks) of a stream
    /// that stays open: once it is written, the handler produces the rest, chunk by chunk.
    pub fn streaming(self, now: Instant) {
        self.connection.streaming(now, self.request);
    }
}

/// Bytes to write.
#[derive(Debug)]
pub struct Write<'c, R> {
    connection: &'c Connection<R>,
    deadline: Instant,
    closes: bool,
}

impl<R: Copy> Write<'_, R> {
    /// Wait no later than this.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// These are the connection's last bytes: once they are out, it ends.
    pub fn closes(&self) -> bool {
        self.closes
    }

    /// What is still to be written.
    pub fn bytes(&self) -> &[u8] {
        self.connection.unwritten()
    }
}

/// Bytes to write, to act on.
#[derive(Debug)]
pub struct WriteTurn<'c, R> {
    connection: &'c mut Connection<R>,
    deadline: Instant,
    closes: bool,
}

impl<R: Copy> WriteTurn<'_, R> {
    /// The write, to look at.
    pub fn view(&self) -> Write<'_, R> {
        Write { connection: self.connection, deadline: self.deadline, closes: self.closes }
    }

    /// The first `n` bytes of what is still to be written went out at `now`.
    pub fn wrote(self, now: Instant, n: usize) {
        self.connection.wrote(now, n);
    }

    /// The write waited until `now` and took nothing.
    pub fn waited(self, now: Instant) {
        self.connection.waited(now, self.deadline);
    }

    /// The peer is gone: the write failed.
    pub fn peer_closed(self) {
        self.connection.peer_closed();
    }
}

/// An open stream's next step, produced by the handler.
#[derive(Clone, Copy, Debug)]
pub struct Produce {
    stream: Streamed,
}

impl Produce {
    /// True when the peer is gone and what is produced goes nowhere.
    pub fn detached(&self) -> bool {
        self.stream.detached
    }
}

/// An open stream's next step, to act on.
#[derive(Debug)]
pub struct ProduceTurn<'c, R> {
    connection: &'c mut Connection<R>,
    view: Produce,
}

impl<R: Copy> ProduceTurn<'_, R> {
    /// The (empty) buffer the next chunk is written into.
    pub fn buffer(&mut self) -> &mut Vec<u8> {
        self.connection.empty_out()
    }

    /// What the handler produced at `now`.
    pub fn produced(self, now: Instant, next: Next) {
        self.connection.produced(now, self.view.stream, next);
    }
}

/// A wait without a read.
#[derive(Clone, Copy, Debug)]
pub struct Pause {
    stream: Streamed,
    until: Instant,
}

impl Pause {
    /// Wait until this.
    pub fn until(&self) -> Instant {
        self.until
    }
}

/// A wait without a read, to act on.
#[derive(Debug)]
pub struct PauseTurn<'c, R> {
    connection: &'c mut Connection<R>,
    view: Pause,
}

impl<R: Copy> PauseTurn<'_, R> {
    /// The pause, to look at.
    pub fn view(&self) -> Pause {
        self.view
    }

    /// The wait ended at `now` (at its time, or earlier: the stream is produced again, which
    /// waits again when it is not time yet).
    pub fn paused(self, _now: Instant) {
        self.connection.state = State::Streaming(self.view.stream);
    }
}

/// The peer of an open stream is gone.
#[derive(Clone, Copy, Debug)]
pub struct Departed {
    stream: Streamed,
    why: Why,
}

impl Departed {
    /// Why the stream lost its peer.
    pub fn why(&self) -> Why {
        self.why
    }
}

/// The peer of an open stream is gone, to act on.
#[derive(Debug)]
pub struct DepartedTurn<'c, R> {
    connection: &'c mut Connection<R>,
    view: Departed,
}

impl<R: Copy> DepartedTurn<'_, R> {
    /// The departure, to look at.
    pub fn view(&self) -> Departed {
        self.view
    }

    /// What the handler decided.
    pub fn decided(self, departure: Departure) {
        let stream = self.view.stream;
        self.connection.state = match departure {
            Departure::Stop => State::Closed(Close::Now),
            Departure::Continue => State::Streaming(Streamed { detached: true, ..stream }),
        };
    }
}
