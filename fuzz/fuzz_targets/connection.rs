//! Fuzzes the connection state machine, through its one driver, with whole conversations: bytes
//! split into arrivals anywhere, peer closes, admissions and refusals, partial writes and clock
//! steps, all taken from the input (the input is both the driver's transport and its handler).
//! The handler may answer a request with a stream that stays open, and then decides each of its
//! steps (a chunk, a wait, the end, closing or not) and what a departure means (the work stops,
//! or goes on without a reader), all from the input, under a fake clock. Whatever happens:
//!
//! - a request is dispatched only when it is complete: its head parses on its own to the same
//!   method, target and length, and exactly its body is handed over;
//! - once the machine says close, it asks for nothing more;
//! - a refused head's reply is followed by a close, with nothing dispatched in between, and the
//!   refusal is the one a parser (and decoder) alone gives from where the previous request ended;
//! - no deadline the machine names lies further ahead than its budget allows;
//! - a read never asks for more than the head and body budgets, and the buffer never holds more
//!   (checked at the end: it is one fixed allocation of exactly those budgets);
//! - under `--chunked` (chosen by the input), a chunked body is dispatched only when the decoder
//!   alone, over the same conversation, completes it with exactly those bytes, and the next
//!   request starts where the coding ended;
//! - every byte the handler lends (a reply, a stream's head, each chunk, its last bytes) is
//!   written exactly as lent and in order, a write asking for exactly what is still owed of it,
//!   and the whole of it is out before the handler is asked for its next step; nothing is written
//!   after the end of a stream but its last bytes, nothing at all once its peer is gone, and the
//!   handler is asked nothing more of a stream after its end;
//! - a peer that leaves an open stream (a close read while it is quiet, a chunk write that
//!   fails or does not go out by its deadline), or fills the read buffer while it is open, is
//!   reported to the handler at once, and only then, with the reason; the transport is then hung
//!   up, and nothing more is read or written; after `Stop` the connection closes at once and no
//!   further step is asked; after `Continue` every step is asked detached, waits are pauses, and
//!   the end closes the connection at once;
//! - time never goes backwards: the time handed to the handler only grows, a wait cut short is
//!   asked again with exactly the same deadline, a write that progressed gets a deadline no
//!   earlier than before, a quiet stream is watched (or, its buffer full or its peer gone,
//!   paused) until exactly the handler's time, and the handler is asked again before that time
//!   only when bytes arrived or a pause ended;
//! - once a stream opens its request's bytes leave the buffer; while it is quiet, a read takes
//!   at most the rest of the buffer (one request of the largest size and a byte), and with
//!   `Content-Length` framing exactly that; the read that fills it is over budget;
//! - a stream's end is followed by a polite close exactly when it said close or its request
//!   could not keep the connection, and otherwise by the next request, read from where the
//!   streamed request ended (bytes that arrived during the stream included);
//! - the conversation ends: every stage takes an item of the input (a step or a decision), and
//!   once both are spent, at most a few more stages follow.
#![no_main]

use std::cell::RefCell;
use std::time::{Duration, Instant};

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::http::chunked::request::{ChunkedDecoder, Decoded};
use loopback_mcp_http::http::connection::{
    Answered, Close, Connection, Departure, Handler, Happened, Io, Next, Refused, Request, Stage,
    Transport, Why, drive,
};
use loopback_mcp_http::http::{BodyFraming, Parsed, RequestHead, RequestParser, TransferCodings};
use loopback_mcp_http::limits::Limits;

const TINY: Limits = Limits {
    header_value_bytes_max: 16,
    header_fields_max: 4,
    header_section_bytes_max: 64,
    request_target_bytes_max: 16,
    request_body_bytes_max: 8,
    requests_per_connection_max: 3,
    chunks_per_body_max: 4,
    chunk_extension_bytes_max: 8,
    trailer_fields_max: 2,
    trailer_section_bytes_max: 16,
    ..Limits::DEFAULT
};
const _: () = assert!(TINY.validate().is_ok());

const REFUSAL: &[u8] =
    b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
const OK: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
const OK_CLOSE: &[u8] = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}";
const STREAM_HEAD: &[u8] = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
const STREAM_HEAD_CLOSE: &[u8] =
    b"HTTP/1.1 200 OK\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n";
const LAST_CHUNK: &[u8] = b"0\r\n\r\n";
/// The machine's own interim response, the one write the handler does not lend.
const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";
/// How late a socket may return after its deadline (the server's tolerance).
const LATE: Duration = Duration::from_millis(5);
/// Items asked for once both lists of the input are spent, at most, before the conversation is
/// over.
const PAST_END_MAX: usize = 8;

/// One step of the conversation, read according to what the machine asked for.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Step {
    /// The peer sends the next `n` bytes of the conversation (a read takes what it may).
    Send(u8),
    /// The peer goes away.
    Leave,
    /// The wait ends after this many milliseconds (times 8) without anything happening, or at
    /// its deadline (a few milliseconds late at most), whichever comes first.
    Wait(u16),
    /// The endpoint admits (true) or refuses the head.
    Judge(bool),
    /// The reply asks to close (true) or not.
    Reply(bool),
    /// The peer takes this many bytes of a write.
    Take(u8),
}

/// What the handler decides about streams, read according to what it is asked.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Decision {
    /// A request is answered whole (as every request is once the decisions run out).
    Whole,
    /// A request is answered with the head of a stream that stays open, and `first % 3` chunks.
    Open { first: u8 },
    /// The stream's next step: a chunk of `size % 48` bytes of data (with none, a step that
    /// writes nothing).
    Chunk { size: u8 },
    /// The stream's next step: nothing for `ms` milliseconds.
    Wait { ms: u16 },
    /// The stream ends: `size % 4` chunks and the last chunk (for 3, nothing at all, as after a
    /// producer's panic); `close` when the connection must close after it.
    End { close: bool, size: u8 },
    /// The peer is gone: the work stops.
    Stop,
    /// The peer is gone: the work goes on without a reader.
    Continue,
}

fuzz_target!(|data: &[u8]| {
    let mut input = Unstructured::new(data);
    let tiny = input.arbitrary::<bool>().unwrap_or(false);
    let limits = if tiny { TINY } else { Limits::DEFAULT };
    let chunked = input.arbitrary::<bool>().unwrap_or(false);
    let codings = if chunked { TransferCodings::Chunked } else { TransferCodings::LengthOnly };
    let conversation: Vec<u8> = input.arbitrary().unwrap_or_default();
    let steps: Vec<Step> = input.arbitrary().unwrap_or_default();
    let decisions: Vec<Decision> = input.arbitrary().unwrap_or_default();
    converse(&limits, codings, &conversation, &steps, &decisions);
});

/// A stream that stays open, as its handler knows it.
#[derive(Debug)]
struct Open {
    /// Its request could keep the connection.
    keep_alive: bool,
    /// The handler's last `Next::Wait`.
    until: Option<Instant>,
    departed: Option<Departure>,
    /// Its end was produced: `Some(true)` when the connection must close after it.
    ended: Option<bool>,
    /// Chunks produced, numbering their data.
    chunks: usize,
    /// Where its request ends in the conversation: what the peer sent after it waits in the
    /// buffer.
    start: usize,
}

/// A read or write the machine asked for, to compare the next one with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    Read,
    Write,
}

/// Everything the input decides, and what the checks remember.
struct Run<'i> {
    limits: Limits,
    codings: TransferCodings,
    conversation: &'i [u8],
    steps: std::slice::Iter<'i, Step>,
    decisions: std::slice::Iter<'i, Decision>,
    now: Instant,
    sent: usize,
    /// Where the next request starts in the conversation.
    next_request: usize,
    closed: bool,
    refused: bool,
    /// The peer left or a wait ran out after a refusal: its reply may then end with a close at
    /// once.
    cut_short: bool,
    /// The peer left, or a wait ran out at its deadline: a close at once is owed nothing more.
    gone: bool,
    /// The peer left an open stream (its close read while watching, or a chunk's write failed
    /// or ran out): the handler is told next.
    left_stream: bool,
    /// The peer filled the read buffer while a stream was open: the handler is told next.
    over_budget: bool,
    /// The transport was hung up: nothing more is read or written.
    hung_up: bool,
    /// The state the machine was in at the last stage.
    state: &'static str,
    /// The bytes lent to the machine and not written yet.
    owed: Vec<u8>,
    /// The driver said the connection's last bytes are being written: nothing is read after.
    closing: bool,
    stream: Option<Open>,
    /// The last read or write asked: which, in what state, by when.
    last_wait: Option<(Wait, &'static str, Instant)>,
    /// The latest time the driver handed to the handler.
    handler_now: Instant,
    /// Stages asked, items taken from the input (past its end included), and past its end.
    stages: usize,
    taken: usize,
    past_end: usize,
}

impl Run<'_> {
    /// The next step; its time passes.
    fn step(&mut self) -> Option<Step> {
        self.now += Duration::from_millis(1);
        let step = self.steps.next().copied();
        self.took(step.is_some());
        step
    }

    /// The handler's next decision.
    fn decide(&mut self) -> Option<Decision> {
        let decision = self.decisions.next().copied();
        self.took(decision.is_some());
        decision
    }

    fn took(&mut self, some: bool) {
        self.taken += 1;
        if !some && self.steps.len() == 0 && self.decisions.len() == 0 {
            self.past_end += 1;
            assert!(self.past_end <= PAST_END_MAX, "the conversation goes on past its input");
        }
    }

    /// The peer is gone: a read returned nothing, or a write failed.
    fn leave(&mut self) {
        self.cut_short |= self.refused;
        self.gone = true;
        self.left_stream |= matches!(self.state, "watching" | "writing_stream");
    }

    /// A wait of `ms` (times 8) that ends at `deadline` at the latest, a little late at most;
    /// true when it reached the deadline.
    fn wait(&mut self, ms: u16, deadline: Instant) -> bool {
        self.cut_short |= self.refused;
        let latest = deadline.max(self.now) + LATE;
        self.now = (self.now + Duration::from_millis(u64::from(ms) * 8)).min(latest);
        self.now >= deadline
    }

    fn read(&mut self, buf: &mut [u8], deadline: Instant) -> Io {
        assert!(!self.closing, "a read after the connection's last write was announced");
        assert!(!self.hung_up, "a read after the connection was hung up");
        let left = self.conversation.len() - self.sent;
        let n = match self.step() {
            None | Some(Step::Leave) => {
                self.leave();
                return Io::Closed;
            }
            Some(Step::Wait(ms)) => {
                // A watch that runs out is no departure: it is time for the stream's next step.
                self.gone |= self.wait(ms, deadline) && self.state != "watching";
                return Io::TimedOut;
            }
            Some(Step::Send(n)) => usize::from(n),
            // Any other step: the next byte arrives, if there is one.
            Some(_) => 1,
        };
        let n = n.min(buf.len()).min(left);
        if n == 0 {
            // A read of nothing is the peer's close.
            self.leave();
        }
        buf[..n].copy_from_slice(&self.conversation[self.sent..self.sent + n]);
        self.sent += n;
        // A watch's read that fills the buffer: more than one request can be is over budget.
        if let Some(open) = self.stream.as_ref()
            && self.state == "watching"
            && n > 0
            && self.sent - open.start == buffer_bytes(&self.limits, self.codings)
        {
            self.over_budget = true;
        }
        Io::Done(n)
    }

    fn write(&mut self, bytes: &[u8], deadline: Instant) -> Io {
        assert!(!self.hung_up, "a write after the connection was hung up");
        if self.state == "writing_continue" {
            assert!(CONTINUE.ends_with(bytes), "a 100 Continue that is not the machine's");
        } else {
            assert_eq!(bytes, &self.owed[..], "a write that is not what is owed of the lent bytes");
        }
        let io = match self.step() {
            None | Some(Step::Leave) => {
                self.leave();
                Io::Closed
            }
            Some(Step::Wait(ms)) => {
                if self.wait(ms, deadline) {
                    self.gone = true;
                    // A chunk the peer does not take by its deadline: it is gone for the stream.
                    self.left_stream |= self.state == "writing_stream";
                }
                Io::TimedOut
            }
            // A write that takes nothing is the peer's close to the driver, as to a socket.
            Some(Step::Take(0)) => {
                self.leave();
                Io::Done(0)
            }
            Some(Step::Take(n)) => Io::Done(usize::from(n).min(bytes.len())),
            Some(_) => Io::Done(bytes.len()),
        };
        if let Io::Done(n) = io
            && self.state != "writing_continue"
        {
            self.owed.drain(..n);
        }
        io
    }

    fn pause(&mut self, until: Instant) {
        // A pause may end early (a signal): the handler is asked again, and waits again.
        self.now = match self.step() {
            Some(Step::Wait(ms)) => {
                (self.now + Duration::from_millis(u64::from(ms) * 8)).min(until.max(self.now))
            }
            _ => self.now.max(until),
        };
    }

    /// The handler lends `bytes` to the machine: whatever it lent before is out.
    fn lend(&mut self, bytes: &[u8]) {
        assert!(self.owed.is_empty(), "new bytes lent before the last ones were written");
        self.owed = bytes.to_vec();
    }

    /// The driver hands the handler the time `now`.
    fn handler_at(&mut self, now: Instant) {
        assert!(now >= self.handler_now, "the handler's time went backwards");
        assert!(now <= self.now, "the handler is handed a time that has not come yet");
        self.handler_now = now;
    }

    fn admit(&mut self, reply: &mut Vec<u8>) -> Option<()> {
        if let Some(Step::Judge(true)) = self.step() {
            return Some(());
        }
        self.refused = true;
        reply.extend_from_slice(REFUSAL);
        self.lend(reply);
        None
    }

    fn refuse(&mut self, refused: &Refused, reply: &mut Vec<u8>) {
        check_refusal(&self.limits, self.codings, refused, self.conversation, self.next_request);
        self.step();
        self.refused = true;
        reply.extend_from_slice(REFUSAL);
        self.lend(reply);
    }

    fn respond(
        &mut self,
        request: &Request<'_>,
        keep_alive: bool,
        now: Instant,
        reply: &mut Vec<u8>,
    ) -> Answered {
        self.handler_at(now);
        assert!(self.stream.is_none(), "a request dispatched while a stream is open");
        self.next_request = check_request(
            &self.limits,
            self.codings,
            request,
            self.conversation,
            self.next_request,
        );
        let start = self.next_request;
        let close = !keep_alive || matches!(self.step(), None | Some(Step::Reply(true)));
        if let Some(Decision::Open { first }) = self.decide() {
            reply.extend_from_slice(if keep_alive { STREAM_HEAD } else { STREAM_HEAD_CLOSE });
            let mut open =
                Open { keep_alive, until: None, departed: None, ended: None, chunks: 0, start };
            for _ in 0..first % 3 {
                chunk(&mut open, 1 + usize::from(first) % 47, reply);
            }
            self.lend(reply);
            self.stream = Some(open);
            return Answered::Streaming;
        }
        reply.extend_from_slice(if close { OK_CLOSE } else { OK });
        self.lend(reply);
        Answered::Whole { close }
    }

    /// The open stream's next step.
    fn next(&mut self, now: Instant, out: &mut Vec<u8>) -> Next {
        self.handler_at(now);
        let decision = self.decide();
        let Some(open) = self.stream.as_mut() else {
            panic!("a step asked of no open stream");
        };
        assert!(open.ended.is_none(), "a step asked after the stream's end");
        assert_ne!(open.departed, Some(Departure::Stop), "a step asked after the work stopped");
        assert!(out.is_empty(), "the buffer a step is written into is not empty");
        let detached = open.departed == Some(Departure::Continue);
        let next = match decision {
            Some(Decision::Wait { ms }) => {
                let until = now + Duration::from_millis(u64::from(ms));
                open.until = Some(until);
                return Next::Wait(until);
            }
            None => Next::End { close: true },
            Some(Decision::End { close, size }) => {
                if size % 4 != 3 {
                    for _ in 0..size % 4 {
                        chunk(open, 1 + usize::from(size) % 47, out);
                    }
                    out.extend_from_slice(LAST_CHUNK);
                }
                Next::End { close }
            }
            Some(Decision::Chunk { size }) => {
                chunk(open, usize::from(size) % 48, out);
                Next::Chunk
            }
            // Any other decision: a step that writes nothing.
            Some(_) => Next::Chunk,
        };
        if let Next::End { close } = next {
            open.ended = Some(close || !open.keep_alive);
        }
        // What a detached stream produces goes nowhere.
        if !detached {
            self.lend(out);
        }
        next
    }

    /// The open stream's peer is gone, or over budget.
    fn depart(&mut self, now: Instant, why: Why) -> Departure {
        self.handler_at(now);
        let departure = match self.decide() {
            Some(Decision::Continue) => Departure::Continue,
            _ => Departure::Stop,
        };
        let Some(open) = self.stream.as_mut() else {
            panic!("a departure from no open stream");
        };
        assert!(open.ended.is_none(), "a departure after the stream's end");
        assert!(open.departed.is_none(), "a second departure");
        match why {
            Why::PeerLeft => assert!(self.left_stream, "a departure while the peer is still there"),
            Why::OverBudget => assert!(self.over_budget, "over budget with room in the buffer"),
        }
        open.departed = Some(departure);
        // What was being written is abandoned.
        self.owed.clear();
        departure
    }

    /// A stage of the next request after a stream: it ended, without closing, all written.
    fn after_stream(&mut self) {
        if let Some(open) = self.stream.take() {
            assert_eq!(open.ended, Some(false), "a next request after a stream that {open:?}");
            assert!(open.departed.is_none(), "a next request after the peer left");
            assert!(self.owed.is_empty(), "a next request before the stream's end was written");
        }
    }

    /// Every stage the machine asks for is within its budgets and follows the rules.
    fn observe(&mut self, happened: Option<Happened>, state: &'static str, next: &Stage<'_, ()>) {
        let limits = self.limits;
        let limits = &limits;
        assert!(!self.closed, "the machine asked for more after saying close");
        self.stages += 1;
        assert!(self.stages <= self.taken + 1, "a stage that took nothing from the input");
        let previous = std::mem::replace(&mut self.state, state);
        if self.refused {
            let (write, close) =
                (matches!(next, Stage::Write(_)), matches!(next, Stage::Closed(_)));
            assert!(write || close, "{} after a refusal", name(next));
        }
        let departed = self.stream.as_ref().and_then(|open| open.departed);
        if (self.left_stream || self.over_budget) && departed.is_none() {
            assert!(matches!(next, Stage::Gone(_)), "the peer left a stream, then {}", name(next));
        }
        if let Stage::Gone(gone) = next {
            assert_eq!(gone.why() == Why::OverBudget, self.over_budget && !self.left_stream);
        }
        assert_eq!(self.hung_up, departed.is_some(), "hung up exactly when a stream departed");
        if departed.is_some() {
            assert!(
                matches!(next, Stage::Stream(_) | Stage::Pause(_) | Stage::Closed(Close::Now)),
                "{} after the peer left the stream",
                name(next)
            );
        }
        let now = self.now;
        let furthest = |budget: Duration| now + budget + Duration::from_millis(1);
        match next {
            Stage::Read(read) => {
                assert!(read.room() > 0);
                assert!(read.room() <= buffer_bytes(limits, self.codings));
                let deadline = read.deadline();
                self.same_wait(happened, Wait::Read, deadline);
                if state == "watching" {
                    let open = self.stream.as_ref().expect("a watch without a stream");
                    assert!(open.ended.is_none());
                    assert_eq!(Some(deadline), open.until, "a watch until another time");
                    if self.codings == TransferCodings::LengthOnly {
                        let held = self.sent - open.start;
                        let room = buffer_bytes(limits, self.codings) - held;
                        assert_eq!(read.room(), room, "a watch that does not take the rest");
                    }
                    return;
                }
                self.after_stream();
                if self.codings == TransferCodings::LengthOnly {
                    let largest =
                        limits.request_head_bytes_max().max(limits.request_body_bytes_max);
                    assert!(read.room() <= largest);
                }
                let wait = limits.connection_idle_timeout.max(limits.socket_read_timeout);
                assert!(deadline <= furthest(wait), "a read deadline beyond its budget");
            }
            Stage::Write(write) => {
                let bytes = write.bytes();
                assert!(!bytes.is_empty() && bytes.len() <= limits.response_bytes_max);
                let deadline = write.deadline();
                self.same_wait(happened, Wait::Write, deadline);
                assert!(
                    deadline <= furthest(limits.socket_write_timeout),
                    "a write deadline too far"
                );
            }
            Stage::Stream(produce) => {
                let open = self.stream.as_ref().expect("a step asked of no stream");
                assert_eq!(produce.detached(), departed == Some(Departure::Continue));
                assert!(self.owed.is_empty(), "a step asked before the last chunk was written");
                // Asked again before the time it gave only when something happened.
                if previous == "watching" {
                    match happened {
                        Some(Happened::Received(_)) => {}
                        Some(Happened::TimePassed) => {
                            assert!(self.now >= open.until.expect("a watch without a time"));
                        }
                        other => panic!("a watch ended by {other:?}"),
                    }
                }
                self.last_wait = None;
            }
            Stage::Pause(pause) => {
                // Only a stream whose peer is gone pauses.
                let open = self.stream.as_ref().expect("a pause without a stream");
                assert!(open.ended.is_none());
                assert_eq!(Some(pause.until()), open.until, "a pause until another time");
                assert_eq!(departed, Some(Departure::Continue), "a pause of a stream with a peer");
                self.last_wait = None;
            }
            Stage::Gone(_) => {
                let open = self.stream.as_ref().expect("a departure without a stream");
                assert!(open.ended.is_none() && open.departed.is_none());
                assert!(self.left_stream || self.over_budget, "a departure with the peer there");
                self.last_wait = None;
            }
            Stage::Closed(how) => {
                self.closed = true;
                if self.refused && !self.cut_short {
                    assert_eq!(*how, Close::Polite, "a refusal that was written closes politely");
                }
                let open = self.stream.as_ref();
                match how {
                    Close::Polite => {
                        assert!(self.owed.is_empty(), "a polite close before everything was out");
                        if let Some(open) = open {
                            assert_eq!(open.ended, Some(true), "a polite close after {open:?}");
                        }
                    }
                    Close::Now => {
                        if let Some(open) = open {
                            let stopped = open.departed == Some(Departure::Stop);
                            let detached_end = departed.is_some() && open.ended.is_some();
                            let cut = open.ended.is_some() && self.gone;
                            assert!(stopped || detached_end || cut, "closed at once: {open:?}");
                        }
                    }
                }
            }
            Stage::Admit(_) | Stage::Refuse(_) | Stage::Dispatch(_) => {
                self.after_stream();
                self.last_wait = None;
            }
        }
    }

    /// A read or write asked again after nothing happened waits until exactly the same time; a
    /// write that progressed, no earlier.
    fn same_wait(&mut self, happened: Option<Happened>, wait: Wait, deadline: Instant) {
        if let Some((last, state, before)) = self.last_wait
            && last == wait
            && state == self.state
        {
            match happened {
                Some(Happened::TimePassed) => {
                    assert_eq!(deadline, before, "a wait cut short moved its deadline")
                }
                Some(Happened::Wrote(_)) => {
                    assert!(deadline >= before, "a write's deadline went backwards")
                }
                _ => {}
            }
        }
        self.last_wait = Some((wait, self.state, deadline));
    }
}

/// A stage's name, for messages (its debug form holds the whole buffer).
fn name(stage: &Stage<'_, ()>) -> &'static str {
    match stage {
        Stage::Read(_) => "a read",
        Stage::Admit(_) => "an admission",
        Stage::Refuse(_) => "a refusal",
        Stage::Dispatch(_) => "a dispatch",
        Stage::Write(_) => "a write",
        Stage::Stream(_) => "a step of the stream",
        Stage::Pause(_) => "a pause",
        Stage::Gone(_) => "a departure",
        Stage::Closed(_) => "the close",
    }
}

/// A chunk of `size` bytes of data (none: nothing at all) into `out`, its data numbered.
fn chunk(open: &mut Open, size: usize, out: &mut Vec<u8>) {
    if size == 0 {
        return;
    }
    open.chunks += 1;
    let mut data = format!("c{}.", open.chunks).into_bytes();
    data.resize(size.max(data.len()), b'x');
    out.extend_from_slice(format!("{:x}\r\n", data.len()).as_bytes());
    out.extend_from_slice(&data);
    out.extend_from_slice(b"\r\n");
}

struct Peer<'r, 'i>(&'r RefCell<Run<'i>>);
struct Side<'r, 'i>(&'r RefCell<Run<'i>>);

impl Transport for Peer<'_, '_> {
    fn now(&mut self) -> Instant {
        self.0.borrow().now
    }
    fn read(&mut self, buf: &mut [u8], deadline: Instant) -> Io {
        self.0.borrow_mut().read(buf, deadline)
    }
    fn write(&mut self, bytes: &[u8], deadline: Instant) -> Io {
        self.0.borrow_mut().write(bytes, deadline)
    }
    fn pause(&mut self, until: Instant) {
        self.0.borrow_mut().pause(until);
    }
    fn closing(&mut self) {
        let mut run = self.0.borrow_mut();
        assert!(run.state.starts_with("writing"), "a last write announced while {}", run.state);
        run.closing = true;
    }
    fn hang_up(&mut self) {
        let mut run = self.0.borrow_mut();
        assert!(!run.hung_up, "hung up twice");
        assert!(matches!(run.state, "peer_gone" | "over_budget"), "hung up while {}", run.state);
        run.hung_up = true;
    }
}

impl Handler for Side<'_, '_> {
    type Route = ();
    fn admit(&mut self, _head: &RequestHead<'_>, reply: &mut Vec<u8>) -> Option<()> {
        self.0.borrow_mut().admit(reply)
    }
    fn refuse(&mut self, refused: Refused, reply: &mut Vec<u8>) {
        self.0.borrow_mut().refuse(&refused, reply);
    }
    fn respond(
        &mut self,
        _: (),
        request: &Request<'_>,
        keep_alive: bool,
        now: Instant,
        reply: &mut Vec<u8>,
    ) -> Answered {
        self.0.borrow_mut().respond(request, keep_alive, now, reply)
    }
    fn next(&mut self, now: Instant, out: &mut Vec<u8>) -> Next {
        self.0.borrow_mut().next(now, out)
    }
    fn depart(&mut self, now: Instant, why: Why) -> Departure {
        self.0.borrow_mut().depart(now, why)
    }
    fn observe(&mut self, happened: Option<Happened>, state: &'static str, next: &Stage<'_, ()>) {
        self.0.borrow_mut().observe(happened, state, next);
    }
}

/// The machine's buffer: a head and a body, or a head and what the chunked decoder may keep,
/// and one byte more.
fn buffer_bytes(limits: &Limits, codings: TransferCodings) -> usize {
    let body = match codings {
        TransferCodings::LengthOnly => limits.request_body_bytes_max,
        TransferCodings::Chunked => ChunkedDecoder::kept_bytes_max(limits) + 1,
    };
    limits.request_head_bytes_max() + body + 1
}

fn converse(
    limits: &Limits,
    codings: TransferCodings,
    conversation: &[u8],
    steps: &[Step],
    decisions: &[Decision],
) {
    let t0 = Instant::now();
    let run = RefCell::new(Run {
        limits: *limits,
        codings,
        conversation,
        steps: steps.iter(),
        decisions: decisions.iter(),
        now: t0,
        sent: 0,
        next_request: 0,
        closed: false,
        refused: false,
        cut_short: false,
        gone: false,
        left_stream: false,
        over_budget: false,
        hung_up: false,
        state: "",
        owed: Vec::new(),
        closing: false,
        stream: None,
        last_wait: None,
        handler_now: t0,
        stages: 0,
        taken: 0,
        past_end: 0,
    });
    let mut connection: Connection = Connection::with_codings(limits, codings, t0);
    drive(&mut connection, &mut Peer(&run), &mut Side(&run));
    assert!(run.borrow().closed, "the driver returned before the machine said close");
    assert!(connection.buffered() <= buffer_bytes(limits, codings));
}

/// A refusal is what a parser (and, for a chunked body, a decoder) alone makes of the
/// conversation from where the previous request ended: the same kind at the same offset.
fn check_refusal(
    limits: &Limits,
    codings: TransferCodings,
    refused: &Refused,
    conversation: &[u8],
    start: usize,
) {
    let rest = &conversation[start..];
    let mut parser = RequestParser::with_codings(limits, codings);
    let alone = match parser.judge(rest) {
        Err(error) => error,
        Ok(Parsed::Complete { value: accepted, .. }) => {
            assert_eq!(accepted.body(), BodyFraming::Chunked, "refused a head a parser accepts");
            let mut region = rest[accepted.head_len()..].to_vec();
            match ChunkedDecoder::new(limits).decode(&mut region) {
                Err(error) => error.in_request(accepted.head_len()),
                Ok(decoded) => panic!("refused a chunked body a decoder alone takes: {decoded:?}"),
            }
        }
        Ok(Parsed::Partial) => panic!("refused a request a parser alone still waits for"),
    };
    assert_eq!(alone, refused.error, "a refusal that a parser alone does not give");
}

/// The dispatched request is complete, and it is what a parser alone makes of the conversation
/// from where the previous request ended: the same method, target and framing, and exactly the
/// body that follows its head (for a chunked one, what a decoder alone makes of the bytes after
/// the head). Returns where the next request starts.
fn check_request(
    limits: &Limits,
    codings: TransferCodings,
    request: &Request<'_>,
    conversation: &[u8],
    start: usize,
) -> usize {
    let (head, body) = (&request.head, request.body);
    let mut parser = RequestParser::with_codings(limits, codings);
    let Ok(Parsed::Complete { value: alone, len }) = parser.parse(&conversation[start..]) else {
        panic!("dispatched a request a parser alone does not accept");
    };
    assert_eq!((alone.method, alone.target), (head.method, head.target));
    assert_eq!(alone.body, head.body);
    let body_start = start + len;
    match head.body {
        BodyFraming::Length(length) => {
            assert_eq!(body.len(), length);
            assert_eq!(&conversation[body_start..body_start + body.len()], body);
            body_start + body.len()
        }
        BodyFraming::Chunked => {
            let mut region = conversation[body_start..].to_vec();
            let mut decoder = ChunkedDecoder::new(limits);
            let Ok(Decoded::Complete { body_len, .. }) = decoder.decode(&mut region) else {
                panic!("dispatched a chunked body a decoder alone does not complete");
            };
            assert_eq!(&region[..body_len], body);
            body_start + decoder.raw_len()
        }
    }
}
