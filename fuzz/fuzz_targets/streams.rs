//! Fuzzes the streams of a session and the streams that stay open, in two parts per input.
//!
//! **A session's event log** (`mcp::stream::EventLog`), against what a client that always
//! resumes from its last event id must see. The input picks small budgets and a sequence of
//! operations: notifications queued on the GET stream, POST streams opened with their messages
//! (some closed after their priming event), live POST streams (a slow call's: opened empty, their
//! messages appended as the work produces them, then finished), the open response of a live
//! stream written further as messages come (`deliver_more`) or cut, responses cut short at any
//! event, resumptions by the stream's client from its last id or from any earlier id it was
//! given, and hostile `Last-Event-ID` values. A plain model of the kept budget (oldest dropped
//! first) says which messages are still kept. Checked on every delivery: a priming event first
//! (none when an open response is written further); every id new in the whole run, on the
//! stream the delivery is for, at the stream's next position. Checked per stream, for its client:
//! its first response brings the stream's kept messages in order; each resumption, and each
//! further write of an open response, brings exactly the next messages of that stream in the
//! order they were queued (none skipped, none twice), or a resumption is refused as `Evicted`
//! exactly when one of them was dropped (or, for a POST stream whose work is over, when nothing
//! of it is kept and a later one was opened: it is forgotten); a live stream is never forgotten,
//! says it is live exactly until it is finished, and is never `Complete` before; a POST stream is
//! `Complete` exactly when its work is over and its client has every message, and an open
//! response of a finished stream ends. An open response ends early (`deliver_more` gives `None`)
//! only when a message it owes was dropped or the log may have forgotten its stream, and then
//! writes nothing. Hostile cursors never panic and never change anything.
//!
//! **Streams that stay open** (`endpoint::live::OpenStream`), under a fake host and a fake
//! clock: slow calls of both eras (with and without progress, either scale), listens, and
//! 2025-11-25 resumptions (tails) of slow calls that still run, each of one of three principals
//! (two of them in one tenant), stepped in any order at any time, with arbitrary time advances,
//! departures at any step, token revocation, the server stopping and tool-list changes for
//! everyone or for one tenant. Every step is checked exactly against a model of the
//! stream: what it writes (events parsed back and compared message by message), when it waits
//! (exactly the time the model says), when it ends. In particular: a 2026-07-28 call whose peer
//! departs stops (`Stop`), is never stepped again, and `calls_cancelled` moves by exactly one;
//! a 2025-11-25 call whose peer departs goes on (`Continue`), writes nothing more, sends no
//! keep-alive, finishes, and its messages, the result last, come back through a resumption
//! exactly once and in order; a slow call whose token stopped being valid ends at its next step
//! with the `token_revoked` error and no result (through the log, in 2025-11-25), is counted
//! cancelled, and closes its connection (`Ending::Revoked`); a tail whose token stopped being
//! valid ends with nothing, and closes its connection; a keep-alive comment is sent only after at least
//! `stream_keepalive` of quiet, so never more often, and a quiet stream never waits past it; a
//! listen starts with its acknowledgement (even when its token is already revoked), tags every
//! later message with its subscription id, reports a tool-list change exactly when it opted in
//! and the list its tenant sees changed since, ends on revocation with `notifications/cancelled`
//! (`token_revoked`) and no result, and at its lifetime or the server's stop with
//! `notifications/cancelled` then the completion result. Each principal's listens, then its part
//! of the share, then the share (never the last worker) refuse exactly past their budgets, in
//! that order, and the counters (`stats`) agree with the model after every operation; once every stream has ended and been dropped, the open
//! streams and listens are back to zero and every slow call was counted exactly once, finished
//! or cancelled.
#![no_main]

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::endpoint::live::{
    Ending, Filter, Host, KEEPALIVE, Live, NoStream, OpenStream, Opening, PrincipalKey,
    SUBSCRIPTION_ID_KEY, Scale, Slot, SlowRequest, Stats, Step, StreamKind as Place, TOKEN_REVOKED,
};
use loopback_mcp_http::http::connection::Departure;
use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::jsonrpc::{self, Id};
use loopback_mcp_http::mcp::session::{OwnerRef, Session, SessionBudget, SessionTable};
use loopback_mcp_http::mcp::stream::{
    CursorError, Delivered, EventLog, KeptBudget, Start, StreamRef, StreamWriter, parse_event_id,
};
use loopback_mcp_http::mcp::tag::EventTag;
use loopback_mcp_http::sse;

fuzz_target!(|data: &[u8]| {
    let mut input = Unstructured::new(data);
    let (Ok(messages_max), Ok(bytes_max)) =
        (input.int_in_range(1..=8), input.int_in_range(1..=160))
    else {
        return;
    };
    let Ok(ops) = Vec::<Op>::arbitrary(&mut input) else {
        return;
    };
    follow_the_log(KeptBudget { messages_max, bytes_max }, ops);
    let (Ok(setup), Ok(ops)) = (Setup::arbitrary(&mut input), Vec::<LiveOp>::arbitrary(&mut input))
    else {
        return;
    };
    run_open_streams(&setup, ops);
});

// ---------------------------------------------------------------------------------------------
// A session's event log.
// ---------------------------------------------------------------------------------------------

#[derive(Arbitrary, Debug)]
enum Op {
    /// A notification of `size` bytes on the GET stream.
    Notify { size: u8 },
    /// A POST stream with 1 to 3 messages; its first response takes at most `room` of them.
    Open { messages: u8, size: u8, room: u8 },
    /// The client of a stream resumes it from its last id, taking at most `room` messages.
    Follow { stream: u8, room: u8 },
    /// A `Last-Event-ID` from anywhere.
    Hostile { bytes: Vec<u8> },
    /// A live POST stream (a slow call's): opened with no message, its first response (a
    /// priming event) stays open.
    OpenLive,
    /// The work of a live stream queues a message of `size` bytes.
    Append { stream: u8, size: u8 },
    /// The work of a live stream queues its response: nothing more will come.
    Finish { stream: u8 },
    /// The open response of a stream is written further (`deliver_more`), at most `room`
    /// messages.
    More { stream: u8, room: u8 },
    /// The open response of a stream is cut: its client will resume.
    Cut { stream: u8 },
    /// The client of a stream resumes it from an id it was given `back` ids before its last,
    /// taking at most `room` messages (what came after that id is written again).
    Rewind { stream: u8, back: u8, room: u8 },
}

/// Takes at most `room` messages and records everything written.
struct Recorder {
    room: usize,
    primes: Vec<String>,
    messages: Vec<(String, String)>,
}

impl Recorder {
    fn taking(room: usize) -> Recorder {
        Recorder { room, primes: Vec::new(), messages: Vec::new() }
    }
}

impl StreamWriter for Recorder {
    fn prime(&mut self, id: &str) {
        assert!(self.messages.is_empty(), "the priming event comes first");
        self.primes.push(id.to_owned());
    }

    fn message(&mut self, id: &str, data: &str) -> bool {
        if self.messages.len() >= self.room {
            return false;
        }
        self.messages.push((id.to_owned(), data.to_owned()));
        true
    }
}

/// A stream, as its client knows it.
struct Followed {
    stream: StreamRef,
    /// Every message queued on it, in order.
    queued: Vec<String>,
    /// How many of them the client has.
    received: usize,
    /// Every id the client was given since it last went back, with how many messages it had
    /// then: its cursor is the last. Empty before its first delivery (the GET stream only).
    history: Vec<(String, usize)>,
    /// The last position issued on the stream.
    position: u64,
    /// Refused as `Evicted`: the client stopped following it.
    lost: bool,
    /// A live POST stream whose work still runs (not finished).
    live: bool,
    /// The client's response is still open: more of it is written as it comes.
    open: bool,
}

struct Run {
    log: EventLog,
    budget: KeptBudget,
    /// The model of what the log keeps: (stream, message), oldest first.
    kept: VecDeque<(StreamRef, String)>,
    seen: HashSet<String>,
    streams: Vec<Followed>,
    next_message: usize,
}

impl Run {
    /// The model of `EventLog::keep`: the oldest go until both budgets hold; a message larger
    /// than the byte budget is never kept.
    fn keep(&mut self, stream: StreamRef, message: &str) {
        if message.len() > self.budget.bytes_max {
            return;
        }
        let bytes =
            |kept: &VecDeque<(StreamRef, String)>| kept.iter().map(|(_, m)| m.len()).sum::<usize>();
        while self.kept.len() >= self.budget.messages_max
            || bytes(&self.kept) + message.len() > self.budget.bytes_max
        {
            self.kept.pop_front();
        }
        self.kept.push_back((stream, message.to_owned()));
    }

    fn is_kept(&self, message: &str) -> bool {
        self.kept.iter().any(|(_, m)| m == message)
    }

    /// A POST stream whose work is over, with nothing kept, and a later one opened: the log may
    /// have forgotten it (it does when the next one opens, or when its last message is dropped).
    fn forgotten(&self, index: usize) -> bool {
        let followed = &self.streams[index];
        let StreamRef::Post(number) = followed.stream else {
            return false;
        };
        let newest = self.streams.iter().filter_map(|f| match f.stream {
            StreamRef::Post(n) => Some(n),
            StreamRef::Get => None,
        });
        !followed.live
            && newest.max() != Some(number)
            && !self.kept.iter().any(|(s, _)| *s == followed.stream)
    }

    fn message(&mut self, size: u8) -> String {
        self.next_message += 1;
        let text = format!("m{}", self.next_message);
        let pad = usize::from(size).saturating_sub(text.len());
        format!("{text}{}", "x".repeat(pad))
    }

    /// The ids written for stream `index`, in order: each new in the run, on the stream, at its
    /// next position. The client's history records them.
    fn check_ids(&mut self, index: usize, primes: &[String], messages: &[(String, String)]) {
        let mut received = self.streams[index].received;
        let ids = primes.iter().map(|id| (id, 0)).chain(messages.iter().map(|(id, _)| (id, 1)));
        for (id, count) in ids {
            let (_, parsed) = parse_event_id(id.as_bytes()).expect("an id the server can read");
            let followed = &mut self.streams[index];
            assert_eq!(parsed.stream, followed.stream, "an event of another stream");
            assert_eq!(parsed.position, followed.position + 1, "an id not at the next position");
            followed.position += 1;
            received += count;
            followed.history.push((id.clone(), received));
            assert!(self.seen.insert(id.clone()), "id {id} written twice");
        }
    }

    /// One delivery for stream `index`: checks the events and the client's view. `outcome` is
    /// what reading the cursor gave, for a resumption.
    fn deliver(&mut self, index: usize, start: Result<Start, CursorError>, room: usize) {
        let first = !matches!(start, Ok(Start::Resume(_)) | Err(_));
        if first {
            // What was dropped before a stream's first response was never promised to anyone:
            // a first response has no cursor to refuse.
            let kept: Vec<String> =
                self.streams[index].queued.iter().filter(|m| self.is_kept(m)).cloned().collect();
            self.streams[index].queued = kept;
        }
        let followed = &self.streams[index];
        let live = followed.live;
        let expected: Vec<String> = followed.queued[followed.received..].to_vec();
        let must_evict = !first && expected.iter().any(|m| !self.is_kept(m));
        let may_evict = must_evict || self.forgotten(index) || (first && expected.is_empty());
        let may_evict = may_evict && !(live && !must_evict);
        let mut recorder = Recorder::taking(room);
        let outcome = start.and_then(|start| self.log.deliver(start, &mut recorder));
        let is_post = matches!(followed.stream, StreamRef::Post(_));
        match outcome {
            Err(CursorError::Evicted) => {
                assert!(may_evict, "evicted, yet every owed message is kept");
                assert!(recorder.primes.is_empty() && recorder.messages.is_empty());
                self.streams[index].lost = true;
                return;
            }
            Err(other) => panic!("a client's own cursor refused: {other:?}"),
            Ok(_) if must_evict => panic!("an owed message was dropped, yet no Evicted"),
            Ok(Delivered::Complete) => {
                assert!(is_post && !first, "complete on a first response or the GET stream");
                assert!(!live, "complete while the work still runs");
                assert!(expected.is_empty(), "complete while the client still misses messages");
                return;
            }
            Ok(Delivered::Stream { messages, live: still }) => {
                assert_eq!(messages, recorder.messages.len());
                assert_eq!(still, live, "a stream that says it is live, or not, wrongly");
            }
        }
        assert!(
            !(is_post && !first && expected.is_empty() && !live),
            "a POST stream owing nothing streamed"
        );
        assert_eq!(recorder.primes.len(), 1, "exactly one priming event");
        self.check_ids(index, &recorder.primes, &recorder.messages);
        let got: Vec<&str> = recorder.messages.iter().map(|(_, m)| m.as_str()).collect();
        assert!(got.len() <= expected.len(), "more messages than the stream has");
        assert_eq!(got, expected[..got.len()], "not the next messages in order");
        assert!(got.len() == expected.len() || got.len() == room, "left out with room to spare");
        let followed = &mut self.streams[index];
        followed.received += got.len();
        // The response of a stream whose work runs stays open: the rest follows as it comes.
        followed.open = live;
    }

    /// The client resumes from the id `back` ids before its last (or starts the GET stream).
    fn follow(&mut self, index: usize, back: usize, room: usize) {
        let followed = &mut self.streams[index];
        if followed.lost {
            return;
        }
        followed.open = false;
        if followed.history.is_empty() {
            return self.deliver(index, Ok(Start::Fresh), room);
        }
        // What came after that id will be written again: the later ids are forgotten.
        let at = followed.history.len() - 1 - back % followed.history.len();
        followed.history.truncate(at + 1);
        let (cursor, received) = followed.history[at].clone();
        followed.received = received;
        let start = self.log.cursor(cursor.as_bytes()).map(Start::Resume);
        self.deliver(index, start, room);
    }

    /// The open response of stream `index` is written further.
    fn more(&mut self, index: usize, room: usize) {
        let followed = &self.streams[index];
        if !followed.open || followed.lost {
            return;
        }
        let expected: Vec<String> = followed.queued[followed.received..].to_vec();
        let must_end = expected.iter().any(|m| !self.is_kept(m));
        let mut recorder = Recorder::taking(room);
        let written = self.log.deliver_more(followed.stream, &mut recorder);
        // A stream the log may have forgotten (over, nothing kept, a later one opened) may end.
        let forgotten = self.forgotten(index);
        let Some(written) = written else {
            assert!(must_end || forgotten, "an open response ended, yet it owes what is kept");
            assert!(recorder.messages.is_empty(), "an ended response wrote messages");
            self.streams[index].open = false;
            return;
        };
        assert!(recorder.primes.is_empty(), "a priming event in the middle of a response");
        assert_eq!(written, recorder.messages.len());
        self.check_ids(index, &[], &recorder.messages);
        let got: Vec<&str> = recorder.messages.iter().map(|(_, m)| m.as_str()).collect();
        assert!(got.len() <= expected.len(), "more messages than the stream has");
        assert_eq!(got, expected[..got.len()], "an open response skipped or repeated a message");
        assert!(got.len() == expected.len() || got.len() == room, "left out with room to spare");
        let followed = &mut self.streams[index];
        followed.received += got.len();
        // A finished stream's open response ends with what it still owed.
        followed.open = followed.live;
    }

    /// The index of a live POST stream, picked by `pick`.
    fn live_stream(&self, pick: u8) -> Option<usize> {
        let live: Vec<usize> = (0..self.streams.len()).filter(|&i| self.streams[i].live).collect();
        (!live.is_empty()).then(|| live[usize::from(pick) % live.len()])
    }

    /// Every POST stream says it is live exactly while its work runs.
    fn check_live(&self) {
        for followed in &self.streams {
            assert_eq!(self.log.is_live(followed.stream), followed.live, "{:?}", followed.stream);
        }
    }
}

fn follow_the_log(budget: KeptBudget, ops: Vec<Op>) {
    let mut run = Run {
        log: EventLog::new(EventTag::new("ab").expect("a hex tag"), budget),
        budget,
        kept: VecDeque::new(),
        seen: HashSet::new(),
        streams: vec![Followed {
            stream: StreamRef::Get,
            queued: Vec::new(),
            received: 0,
            history: Vec::new(),
            position: 0,
            lost: false,
            live: false,
            open: false,
        }],
        next_message: 0,
    };
    for op in ops.into_iter().take(64) {
        match op {
            Op::Notify { size } => {
                let message = run.message(size % 48);
                run.log.notify(message.clone());
                run.keep(StreamRef::Get, &message);
                run.streams[0].queued.push(message);
            }
            Op::Open { messages, size, room } => {
                let queued: Vec<String> =
                    (0..1 + messages % 3).map(|_| run.message(size % 48)).collect();
                let number = run.log.open_post(queued.clone());
                for message in &queued {
                    run.keep(StreamRef::Post(number), message);
                }
                run.streams.push(Followed {
                    stream: StreamRef::Post(number),
                    queued,
                    received: 0,
                    history: Vec::new(),
                    position: 0,
                    lost: false,
                    live: false,
                    open: false,
                });
                let index = run.streams.len() - 1;
                run.deliver(index, Ok(Start::Opened(number)), usize::from(room % 4));
            }
            Op::OpenLive => {
                let number = run.log.open_live_post();
                run.streams.push(Followed {
                    stream: StreamRef::Post(number),
                    queued: Vec::new(),
                    received: 0,
                    history: Vec::new(),
                    position: 0,
                    lost: false,
                    live: true,
                    open: false,
                });
                let index = run.streams.len() - 1;
                run.deliver(index, Ok(Start::Opened(number)), 0);
                assert!(run.streams[index].open, "a live stream's first response ended");
            }
            Op::Append { stream, size } => {
                if let Some(index) = run.live_stream(stream) {
                    let message = run.message(size % 48);
                    let stream = run.streams[index].stream;
                    let StreamRef::Post(number) = stream else { unreachable!() };
                    run.log.append(number, message.clone());
                    run.keep(stream, &message);
                    run.streams[index].queued.push(message);
                }
            }
            Op::Finish { stream } => {
                if let Some(index) = run.live_stream(stream) {
                    let StreamRef::Post(number) = run.streams[index].stream else { unreachable!() };
                    run.log.finish(number);
                    run.streams[index].live = false;
                }
            }
            Op::More { stream, room } => {
                let index = usize::from(stream) % run.streams.len();
                run.more(index, usize::from(room % 4));
            }
            Op::Cut { stream } => {
                let index = usize::from(stream) % run.streams.len();
                run.streams[index].open = false;
            }
            Op::Follow { stream, room } => {
                let index = usize::from(stream) % run.streams.len();
                run.follow(index, 0, usize::from(room % 4));
            }
            Op::Rewind { stream, back, room } => {
                let index = usize::from(stream) % run.streams.len();
                run.follow(index, usize::from(back), usize::from(room % 4));
            }
            Op::Hostile { bytes } => {
                if let Ok(id) = run.log.cursor(&bytes) {
                    // Only a well-formed id of this session, on an issued stream, gets here.
                    assert!(bytes.starts_with(b"ab-"), "{id:?}");
                }
            }
        }
        run.check_live();
    }
}

// ---------------------------------------------------------------------------------------------
// Streams that stay open.
// ---------------------------------------------------------------------------------------------

/// The budgets of the open streams.
#[derive(Arbitrary, Debug)]
struct Setup {
    /// Workers, 1 to 8.
    workers: u8,
    /// The share open streams may hold, 1 to 100 percent.
    share: u8,
    /// Listens per principal, 1 to 4.
    listens: u8,
    /// Open streams per principal, 1 to 8 (and a quarter of the share at most).
    per_principal: u8,
    /// The keep-alive interval, 5 to 3000 ms.
    keepalive: u16,
    /// The poll interval, 1 to 100 ms.
    poll: u8,
    /// A listen's lifetime, 1 to 2000 ms.
    lifetime: u16,
    /// At the end, the server stops before every stream is run to its end.
    stop_at_end: bool,
}

#[derive(Arbitrary, Debug)]
enum LiveOp {
    /// A slow call of principal `principal % 3`, of `1 + steps % 20` steps, `pause % 1001` ms
    /// apart, in 2026-07-28 (`modern`) or 2025-11-25, with a progress token or not, counting
    /// steps or percent.
    Slow { principal: u8, modern: bool, steps: u8, pause: u16, progress: bool, percent: bool },
    /// A listen of principal `principal % 3`, opted in to tool-list changes or not.
    Listen { principal: u8, tools: bool },
    /// The client of a 2025-11-25 call resumes it from its last id.
    Resume { call: u8 },
    /// A `notifications/cancelled` naming the id of 2025-11-25 call `call`, sent in the session
    /// of call `session` (each call has a session of its own).
    Cancel { call: u8, session: u8 },
    /// Time passes.
    Advance { ms: u16 },
    /// The clock goes to the time a stream said to come back.
    Catch { stream: u8 },
    /// A stream's next step.
    Next { stream: u8 },
    /// A stream's peer goes away.
    Depart { stream: u8 },
    /// A principal's token stops being valid.
    Revoke { principal: u8 },
    /// The server stops.
    Stop,
    /// The fixture's tool list changes for everyone.
    ChangeTools,
    /// The fixture's tool list changes for the tenant of principal `principal % 3`.
    ChangeToolsFor { principal: u8 },
}

const PRINCIPALS: usize = 3;
/// The principals' tenants: the first two share one.
const TENANTS: [usize; PRINCIPALS] = [0, 0, 1];

/// A principal's key, as the endpoint builds it.
fn key_of(principal: usize) -> PrincipalKey {
    PrincipalKey::of(&format!("p{principal}"), &format!("t{}", TENANTS[principal]))
}

/// The server as an open stream sees it.
struct Fake {
    live: Arc<Live>,
    limits: Limits,
    revoked: [bool; PRINCIPALS],
}

impl Host for Fake {
    fn live(&self) -> &Live {
        &self.live
    }
    fn limits(&self) -> &Limits {
        &self.limits
    }
    fn token_still_valid(&self, authorization: &[u8], _wall: SystemTime) -> bool {
        let principal = (0..PRINCIPALS).find(|&p| authorization == authorization_of(p).as_bytes());
        !self.revoked[principal.expect("a stream's own authorization")]
    }
}

fn authorization_of(principal: usize) -> String {
    format!("Bearer p{principal}")
}

/// A message of a slow call, as parsed back.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Msg {
    Progress {
        progress: i64,
        total: i64,
    },
    Result {
        text: String,
        error: bool,
    },
    /// The `token_revoked` error that ends a call whose token stopped being valid.
    Revoked,
}

/// A slow call, as the model follows it.
#[derive(Debug)]
struct Slow {
    id: Id,
    principal: usize,
    modern: bool,
    steps: u64,
    pause: Duration,
    progress: bool,
    percent: bool,
    started: Instant,
    done: u64,
    /// 2025-11-25, its peer gone: it goes on without a reader.
    detached: bool,
    /// The 2025-11-25 call's index in `calls`.
    call: Option<usize>,
    /// Its client cancelled it (2025-11-25).
    cancelled: bool,
}

/// A 2025-11-25 call's POST stream and its client.
struct Call {
    /// The call's request id.
    id: Id,
    principal: usize,
    session: Arc<Session>,
    post: u64,
    /// Every message the call queued, in order.
    produced: Vec<Msg>,
    /// What the client received, in order.
    received: Vec<Msg>,
    /// The client's last id, and its position.
    cursor: String,
    position: u64,
    /// An open stream writes the call's messages to the client: the call itself or a tail.
    reader: bool,
    /// The call queued its result, or stopped for good.
    finished: bool,
    /// It stopped on its client's cancellation, without a result.
    cancelled: bool,
}

/// A listen, as the model follows it.
#[derive(Debug)]
struct Listening {
    id: Id,
    principal: usize,
    tools: bool,
    acknowledged: bool,
    ends_at: Instant,
    seen_generation: u64,
}

#[derive(Debug)]
enum Kind {
    Slow(Slow),
    Listen(Listening),
    /// A resumption of `calls[call]`.
    Tail {
        call: usize,
    },
}

impl Kind {
    /// Whose stream it is.
    fn principal(&self, calls: &[Call]) -> usize {
        match self {
            Kind::Slow(slow) => slow.principal,
            Kind::Listen(listen) => listen.principal,
            Kind::Tail { call } => calls[*call].principal,
        }
    }
}

struct Watched {
    stream: OpenStream,
    kind: Kind,
    /// When it last wrote something (or opened).
    last_written: Instant,
    /// The time its last wait named.
    until: Option<Instant>,
}

/// What the model expects of a step.
#[derive(Debug)]
enum Expect<T> {
    Wait(Instant),
    /// A keep-alive comment.
    KeepAlive,
    /// These messages (none: nothing at all).
    Write(Vec<T>),
    End(Vec<T>, Ending),
}

/// The open streams and their model.
struct Streams {
    host: Fake,
    t0: Instant,
    now: Instant,
    sessions: SessionTable,
    streams: Vec<Watched>,
    calls: Vec<Call>,
    share: usize,
    per_principal: usize,
    /// The model's counters.
    stats: Stats,
    listens: [usize; PRINCIPALS],
    /// The tool list's changes for everyone, and for each tenant.
    changes: u64,
    tenant_changes: [u64; 2],
    stopping: bool,
    ids: i64,
    slow_calls: u64,
}

fn run_open_streams(setup: &Setup, ops: Vec<LiveOp>) {
    let limits = Limits {
        requests_in_processing_max: 1 + usize::from(setup.workers % 8),
        stream_share_percent: 1 + usize::from(setup.share % 100),
        listens_per_principal_max: 1 + usize::from(setup.listens % 4),
        open_streams_per_principal_max: 1 + usize::from(setup.per_principal % 8),
        stream_keepalive: Duration::from_millis(5 + u64::from(setup.keepalive % 2996)),
        stream_poll_interval: Duration::from_millis(1 + u64::from(setup.poll % 100)),
        listen_lifetime: Duration::from_millis(1 + u64::from(setup.lifetime % 2000)),
        ..Limits::DEFAULT
    };
    // Never the last worker; a principal's part a quarter of that, at least one.
    let workers = limits.requests_in_processing_max;
    let share = (workers * limits.stream_share_percent / 100).max(1).min(workers - 1);
    let per_principal = limits.open_streams_per_principal_max.min((share / 4).max(1));
    let t0 = Instant::now();
    let kept = KeptBudget { messages_max: 64, bytes_max: 1 << 16 };
    let budget =
        SessionBudget { capacity: 80, per_principal: 80, ttl: Duration::from_secs(3600), kept };
    let mut s = Streams {
        host: Fake { live: Arc::new(Live::new(&limits)), limits, revoked: [false; PRINCIPALS] },
        t0,
        now: t0,
        sessions: SessionTable::new(budget),
        streams: Vec::new(),
        calls: Vec::new(),
        share,
        per_principal,
        stats: Stats {
            calls_finished: 0,
            calls_cancelled: 0,
            streams_open: 0,
            listens_open: 0,
            tools_changed: 0,
        },
        listens: [0; PRINCIPALS],
        changes: 0,
        tenant_changes: [0; 2],
        stopping: false,
        ids: 0,
        slow_calls: 0,
    };
    for op in ops.into_iter().take(64) {
        match op {
            LiveOp::Slow { principal, modern, steps, pause, progress, percent } => {
                let pause = Duration::from_millis(u64::from(pause % 1001));
                let asked = (1 + u64::from(steps % 20), pause, progress, percent);
                s.open_slow(usize::from(principal) % 3, modern, asked);
            }
            LiveOp::Listen { principal, tools } => s.open_listen(usize::from(principal) % 3, tools),
            LiveOp::Resume { call } => {
                if !s.calls.is_empty() {
                    s.resume(usize::from(call) % s.calls.len());
                }
            }
            LiveOp::Cancel { call, session } => {
                if !s.calls.is_empty() {
                    let n = s.calls.len();
                    s.cancel(usize::from(call) % n, usize::from(session) % n);
                }
            }
            LiveOp::Advance { ms } => s.now += Duration::from_millis(u64::from(ms)),
            LiveOp::Catch { stream } => {
                if let Some(index) = s.pick(stream) {
                    s.now = s.now.max(s.streams[index].until.unwrap_or(s.now));
                }
            }
            LiveOp::Next { stream } => {
                if let Some(index) = s.pick(stream) {
                    s.next(index);
                }
            }
            LiveOp::Depart { stream } => {
                if let Some(index) = s.pick(stream) {
                    s.depart(index);
                }
            }
            LiveOp::Revoke { principal } => s.host.revoked[usize::from(principal) % 3] = true,
            LiveOp::Stop => {
                s.host.live.stop();
                s.stopping = true;
            }
            LiveOp::ChangeTools => {
                s.stats.tools_changed += 1;
                s.changes += 1;
                assert_eq!(s.host.live.change_tools(), s.changes);
            }
            LiveOp::ChangeToolsFor { principal } => {
                let tenant = TENANTS[usize::from(principal) % 3];
                s.stats.tools_changed += 1;
                s.tenant_changes[tenant] += 1;
                let seen = s.host.live.change_tools_for(&format!("t{tenant}"));
                assert_eq!(seen, s.changes + s.tenant_changes[tenant]);
            }
        }
        s.check_stats();
    }
    if setup.stop_at_end {
        s.host.live.stop();
        s.stopping = true;
    }
    // Every stream runs to its end, time jumping to each wait: the slow calls first, so that a
    // tail finds its call finished.
    let rank = |watched: &Watched| match watched.kind {
        Kind::Slow(_) => 0,
        Kind::Listen(_) => 1,
        Kind::Tail { .. } => 2,
    };
    while let Some(index) = (0..s.streams.len()).min_by_key(|&i| rank(&s.streams[i])) {
        let mut steps = 0;
        let count = s.streams.len();
        while s.streams.len() == count {
            steps += 1;
            assert!(steps < 20_000, "a stream that does not end");
            if let Some(until) = s.streams[index].until {
                s.now = s.now.max(until);
            }
            s.next(index);
        }
    }
    assert_eq!(s.host.live.stats().streams_open, 0, "open streams left once all are dropped");
    assert_eq!(s.host.live.stats().listens_open, 0, "listens left once all are dropped");
    assert_eq!(s.stats.calls_finished + s.stats.calls_cancelled, s.slow_calls);
    // Every 2025-11-25 call's messages reach its client exactly once, in order, its result
    // last: what it has, and what a resumption from its last id brings.
    for index in 0..s.calls.len() {
        s.resume(index);
        let call = &s.calls[index];
        assert!(call.finished && !call.reader);
        assert_eq!(call.received, call.produced, "a call's messages, as its client has them");
        let last = call.received.last();
        let ended = matches!(last, Some(Msg::Result { .. } | Msg::Revoked));
        assert!(ended != call.cancelled, "a result after a cancellation, or none without one");
    }
}

impl Streams {
    fn wall(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000) + (self.now - self.t0)
    }

    fn pick(&self, pick: u8) -> Option<usize> {
        (!self.streams.is_empty()).then(|| usize::from(pick) % self.streams.len())
    }

    fn next_id(&mut self) -> Id {
        self.ids += 1;
        if self.ids % 2 == 0 { Id::from(self.ids) } else { Id::String(format!("r{}", self.ids)) }
    }

    /// The counters agree with the model.
    fn check_stats(&self) {
        let mut expected = self.stats;
        expected.streams_open = self.streams.len();
        expected.listens_open = self.listens.iter().sum();
        assert_eq!(self.host.live.stats(), expected, "the counters");
    }

    /// A place for a stream of `principal`, as `Live::open_slot` must give it or refuse it: its
    /// listens, its part, then the share.
    fn slot(&mut self, principal: usize, place: Place) -> Option<Slot> {
        let slot = self.host.live.open_slot(&key_of(principal), place);
        let held = (0..self.streams.len())
            .filter(|&i| self.streams[i].kind.principal(&self.calls) == principal)
            .count();
        let listens = self.listens[principal] >= self.host.limits.listens_per_principal_max;
        let expected = match place {
            Place::Listen if listens => Err(NoStream::ListenQuota),
            Place::Listen | Place::Work if held >= self.per_principal => Err(NoStream::StreamQuota),
            Place::Listen | Place::Work if self.streams.len() >= self.share => {
                Err(NoStream::ShareTaken)
            }
            Place::Listen | Place::Work => Ok(()),
        };
        assert_eq!(slot.as_ref().map(drop).map_err(|e| *e), expected, "a place for {principal}");
        if slot.is_ok() && place == Place::Listen {
            self.listens[principal] += 1;
        }
        self.check_stats_with(slot.is_ok());
        slot.ok()
    }

    /// What a stream of `principal` opens with, its place taken.
    fn opening(&self, slot: Slot, principal: usize) -> Opening {
        Opening { slot, authorization: authorization_of(principal).into_bytes(), now: self.now }
    }

    /// The counters, with one more stream open (its slot taken, its stream not built yet).
    fn check_stats_with(&self, one_more: bool) {
        let stats = self.host.live.stats();
        assert_eq!(stats.streams_open, self.streams.len() + usize::from(one_more));
        assert_eq!(stats.listens_open, self.listens.iter().sum::<usize>());
    }

    fn open_slow(
        &mut self,
        principal: usize,
        modern: bool,
        (steps, pause, progress, percent): (u64, Duration, bool, bool),
    ) {
        let Some(slot) = self.slot(principal, Place::Work) else {
            return;
        };
        let opening = self.opening(slot, principal);
        let id = self.next_id();
        let request = SlowRequest {
            id: id.clone(),
            steps,
            pause,
            scale: if percent { Scale::Percent } else { Scale::Steps },
            progress_token: progress.then(|| Value::from("tok")),
            keepalive: None,
        };
        let limits = self.host.limits;
        let (stream, call) = if modern {
            (OpenStream::slow_modern(request, modern_result, opening, &limits), None)
        } else {
            let n = self.calls.len();
            let (subject, tenant) = (Arc::from("s"), Arc::from("t"));
            let owner = OwnerRef { subject: &subject, tenant: &tenant, authorization_revision: 0 };
            let tag = EventTag::new(&format!("{:x}", 160 + n)).expect("a hex tag");
            let session = self
                .sessions
                .create(&format!("session-{n}"), tag, owner, self.now)
                .expect("room for a session per call");
            let mut events = session.events();
            let post = events.open_live_post();
            let mut recorder = Recorder::taking(usize::MAX);
            let delivered = events.deliver(Start::Opened(post), &mut recorder);
            assert_eq!(delivered, Ok(Delivered::Stream { messages: 0, live: true }));
            drop(events);
            let cursor = recorder.primes[0].clone();
            let position = position_of(&cursor, post);
            self.calls.push(Call {
                id: id.clone(),
                principal,
                session: Arc::clone(&session),
                post,
                produced: Vec::new(),
                received: Vec::new(),
                cursor,
                position,
                reader: true,
                finished: false,
                cancelled: false,
            });
            let stream = OpenStream::slow_legacy(request, (session, post), opening, &limits);
            (stream, Some(n))
        };
        self.slow_calls += 1;
        let slow = Slow {
            id,
            principal,
            modern,
            steps,
            pause,
            progress,
            percent,
            started: self.now,
            done: 0,
            detached: false,
            call,
            cancelled: false,
        };
        let watched =
            Watched { stream, kind: Kind::Slow(slow), last_written: self.now, until: None };
        self.streams.push(watched);
    }

    /// How many times the tool list changed as `principal`'s tenant sees it.
    fn generation_of(&self, principal: usize) -> u64 {
        self.changes + self.tenant_changes[TENANTS[principal]]
    }

    fn open_listen(&mut self, principal: usize, tools: bool) {
        let Some(slot) = self.slot(principal, Place::Listen) else {
            return;
        };
        let opening = self.opening(slot, principal);
        let id = self.next_id();
        let filter = Filter { tools_list_changed: tools };
        let generation = self.generation_of(principal);
        let tenant = format!("t{}", TENANTS[principal]);
        assert_eq!(self.host.live.tools_generation_for(&tenant), generation);
        let limits = self.host.limits;
        let stream = OpenStream::listen((&id, filter), generation, opening, &limits);
        let listening = Listening {
            id,
            principal,
            tools,
            acknowledged: false,
            ends_at: self.now + limits.listen_lifetime,
            seen_generation: generation,
        };
        let kind = Kind::Listen(listening);
        self.streams.push(Watched { stream, kind, last_written: self.now, until: None });
    }

    /// The client of `calls[index]` resumes it from its last id, when nothing writes to it: as
    /// the endpoint does, what the stream owes is written first, then a tail opens when the call
    /// still runs (or the share is taken, and the response, 503, is lost to the client).
    fn resume(&mut self, index: usize) {
        let call = &self.calls[index];
        if call.reader {
            return;
        }
        let mut events = call.session.events();
        let cursor = events.cursor(call.cursor.as_bytes()).expect("a client's own cursor");
        let mut recorder = Recorder::taking(usize::MAX);
        let delivered = events.deliver(Start::Resume(cursor), &mut recorder);
        drop(events);
        let owed = call.produced[call.received.len()..].to_vec();
        let live = !call.finished;
        if owed.is_empty() && !live {
            assert_eq!(delivered, Ok(Delivered::Complete), "a call with nothing owed");
            return;
        }
        assert_eq!(delivered, Ok(Delivered::Stream { messages: owed.len(), live }));
        let (post, position, principal) = (call.post, call.position, call.principal);
        let mut slot = None;
        if live {
            slot = self.slot(principal, Place::Work);
            if slot.is_none() {
                return;
            }
        }
        let call = &mut self.calls[index];
        assert_eq!(recorder.primes.len(), 1, "a resumption's priming event");
        let mut last = position;
        let ids = recorder.primes.iter().chain(recorder.messages.iter().map(|(id, _)| id));
        for id in ids {
            let position = position_of(id, post);
            assert!(position > last, "an id that does not follow the client's");
            last = position;
            call.cursor = id.clone();
        }
        call.position = last;
        let got: Vec<Msg> =
            recorder.messages.iter().map(|(_, data)| slow_message(data, &call.id)).collect();
        assert_eq!(got, owed, "a resumption that does not bring what the call owes");
        call.received.extend(got);
        if let Some(slot) = slot {
            call.reader = true;
            let limits = self.host.limits;
            let session = Arc::clone(&call.session);
            let opening = Opening {
                slot,
                authorization: authorization_of(principal).into_bytes(),
                now: self.now,
            };
            let stream = OpenStream::tail(session, StreamRef::Post(post), opening, &limits);
            let kind = Kind::Tail { call: index };
            self.streams.push(Watched { stream, kind, last_written: self.now, until: None });
        }
    }

    /// A cancellation naming call `call`'s id in call `session`'s session: it reaches the call
    /// exactly when that is its own session and its work is still in progress.
    fn cancel(&mut self, call: usize, session: usize) {
        let id = self.calls[call].id.clone();
        let reached = self.calls[session].session.cancel(&id);
        let running = self.streams.iter_mut().find_map(|w| match &mut w.kind {
            Kind::Slow(slow) if slow.call == Some(call) => Some(slow),
            Kind::Slow(_) | Kind::Listen(_) | Kind::Tail { .. } => None,
        });
        let in_progress = call == session && running.is_some();
        assert_eq!(reached, in_progress, "a cancellation that reached what it should not");
        if let Some(slow) = running.filter(|_| in_progress) {
            slow.cancelled = true;
        }
    }

    /// The next step of stream `index`, against the model.
    fn next(&mut self, index: usize) {
        let (now, wall) = (self.now, self.wall());
        let step = self.streams[index].stream.next(&self.host, now, wall);
        let keepalive = self.host.limits.stream_keepalive;
        let poll = self.host.limits.stream_poll_interval;
        let stopping = self.stopping;
        let watched = &mut self.streams[index];
        let quiet_until = watched.last_written + keepalive;
        // A source that waits until `until`: a keep-alive when the stream has been quiet long
        // enough (never for a call whose peer is gone), else a wait until then at the latest.
        fn quiet<T>(
            until: Instant,
            detached: bool,
            now: Instant,
            quiet_until: Instant,
        ) -> Expect<T> {
            if detached {
                Expect::Wait(until)
            } else if now >= quiet_until {
                Expect::KeepAlive
            } else {
                Expect::Wait(until.min(quiet_until))
            }
        }
        let ended;
        match &mut watched.kind {
            Kind::Slow(slow) if self.host.revoked[slow.principal] => {
                // No result: the error that names why, through the log in 2025-11-25.
                self.stats.calls_cancelled += 1;
                let mut messages = vec![Msg::Revoked];
                if let Some(call) = slow.call {
                    let call = &mut self.calls[call];
                    call.produced.push(Msg::Revoked);
                    call.finished = true;
                    if slow.detached {
                        messages.clear();
                    }
                }
                let expected = Expect::End(messages, Ending::Revoked);
                let (id, call) = (slow.id.clone(), slow.call);
                ended = check_step(&step, &expected, |bytes| {
                    slow_events(bytes, &self.host.limits, call, &mut self.calls, &id)
                });
            }
            Kind::Slow(slow) if slow.cancelled => {
                // What it wrote stays; no result is written or kept.
                self.stats.calls_cancelled += 1;
                if let Some(call) = slow.call {
                    let call = &mut self.calls[call];
                    call.finished = true;
                    call.cancelled = true;
                }
                let expected = Expect::End(Vec::new(), Ending::Done);
                let (id, call) = (slow.id.clone(), slow.call);
                ended = check_step(&step, &expected, |bytes| {
                    slow_events(bytes, &self.host.limits, call, &mut self.calls, &id)
                });
            }
            Kind::Slow(slow) => {
                let due = slow.started + slow.pause.saturating_mul(slow.done as u32 + 1);
                let expected = if now < due && !stopping {
                    quiet(due, slow.detached, now, quiet_until)
                } else {
                    slow.done += 1;
                    let last = slow.done >= slow.steps || stopping;
                    let mut messages: Vec<Msg> = Vec::new();
                    if slow.progress {
                        messages.push(progress_of(slow));
                    }
                    if last {
                        let (text, error) = if stopping && slow.done < slow.steps {
                            ("server_stopping".to_owned(), true)
                        } else {
                            (format!("counted to {}", slow.done), false)
                        };
                        messages.push(Msg::Result { text, error });
                        self.stats.calls_finished += 1;
                    }
                    if let Some(call) = slow.call {
                        let call = &mut self.calls[call];
                        call.produced.extend(messages.iter().cloned());
                        call.finished |= last;
                        if slow.detached {
                            messages.clear();
                        }
                    }
                    if last { Expect::End(messages, Ending::Done) } else { Expect::Write(messages) }
                };
                let (id, call) = (slow.id.clone(), slow.call);
                ended = check_step(&step, &expected, |bytes| {
                    slow_events(bytes, &self.host.limits, call, &mut self.calls, &id)
                });
            }
            Kind::Listen(listen) => {
                let expected = if !listen.acknowledged {
                    listen.acknowledged = true;
                    Expect::Write(vec![Note::Acknowledged { tools: listen.tools }])
                } else if self.host.revoked[listen.principal] {
                    Expect::End(vec![Note::Cancelled(TOKEN_REVOKED.into())], Ending::Done)
                } else if now >= listen.ends_at || stopping {
                    let reason =
                        if now >= listen.ends_at { "listen_lifetime" } else { "server_stopping" };
                    Expect::End(vec![Note::Cancelled(reason.into()), Note::Complete], Ending::Done)
                } else {
                    let generation = self.changes + self.tenant_changes[TENANTS[listen.principal]];
                    let changed = generation > listen.seen_generation;
                    listen.seen_generation = generation;
                    if changed && listen.tools {
                        Expect::Write(vec![Note::Changed])
                    } else {
                        quiet((now + poll).min(listen.ends_at), false, now, quiet_until)
                    }
                };
                let id = listen.id.clone();
                ended = check_step(&step, &expected, |bytes| {
                    let events = parse_events(bytes, &self.host.limits);
                    events.iter().map(|e| note(e, &id)).collect()
                });
            }
            Kind::Tail { call } => {
                let index = *call;
                let call = &self.calls[index];
                let owed = call.produced[call.received.len()..].to_vec();
                let live = !call.finished;
                let expected = match (owed.is_empty(), live) {
                    _ if self.host.revoked[call.principal] => {
                        Expect::End(Vec::new(), Ending::Revoked)
                    }
                    (_, false) => Expect::End(owed, Ending::Done),
                    (true, true) if stopping => Expect::End(Vec::new(), Ending::Done),
                    (true, true) => quiet(now + poll, false, now, quiet_until),
                    (false, true) => Expect::Write(owed),
                };
                ended = check_step(&step, &expected, |bytes| {
                    let events = parse_events(bytes, &self.host.limits);
                    legacy_events(&mut self.calls[index], &events)
                });
                if ended {
                    self.calls[index].reader = false;
                }
            }
        }
        let watched = &mut self.streams[index];
        match &step {
            Step::Wait(until) => {
                assert!(*until > now, "a wait for a time already past");
                watched.until = Some(*until);
            }
            Step::Write(bytes) if bytes.is_empty() => {}
            Step::Write(_) | Step::End(..) => watched.last_written = now,
        }
        if ended {
            if let Kind::Slow(Slow { call: Some(call), detached: false, .. }) = &watched.kind {
                self.calls[*call].reader = false;
            }
            self.remove(index);
        }
    }

    /// The peer of stream `index` goes away.
    fn depart(&mut self, index: usize) {
        if let Kind::Slow(Slow { detached: true, .. }) = self.streams[index].kind {
            // The machine reports a departure once.
            return;
        }
        let before = self.host.live.stats();
        let departure = self.streams[index].stream.depart(&self.host);
        match &mut self.streams[index].kind {
            Kind::Slow(slow) if slow.modern => {
                assert_eq!(
                    departure,
                    Departure::Stop,
                    "a 2026-07-28 call goes on without a reader"
                );
                self.stats.calls_cancelled += 1;
            }
            Kind::Slow(slow) => {
                assert_eq!(departure, Departure::Continue, "a 2025-11-25 call stopped");
                slow.detached = true;
                self.calls[slow.call.expect("a 2025-11-25 call")].reader = false;
            }
            Kind::Tail { call } => {
                assert_eq!(departure, Departure::Stop, "a resumption goes on without a reader");
                self.calls[*call].reader = false;
            }
            Kind::Listen(_) => assert_eq!(departure, Departure::Stop, "a listen goes on"),
        }
        let after = self.host.live.stats();
        assert_eq!(after.calls_finished, before.calls_finished, "a departure finished a call");
        assert_eq!(after.calls_cancelled, self.stats.calls_cancelled, "cancelled, counted");
        if departure == Departure::Stop {
            // As the server does: the stream is dropped, and never stepped again.
            self.remove(index);
        }
    }

    fn remove(&mut self, index: usize) {
        let watched = self.streams.remove(index);
        if let Kind::Listen(listen) = &watched.kind {
            self.listens[listen.principal] -= 1;
        }
        drop(watched);
        self.check_stats();
    }
}

/// The position of a 2025-11-25 call's event id, on its POST stream.
fn position_of(id: &str, post: u64) -> u64 {
    let (_, parsed) = parse_event_id(id.as_bytes()).expect("an id the server can read");
    assert_eq!(parsed.stream, StreamRef::Post(post), "an id of another stream");
    parsed.position
}

/// Checks `step` against `expected`; `messages` reads the messages of written bytes. True when
/// the stream ended.
fn check_step<T: PartialEq + std::fmt::Debug>(
    step: &Step,
    expected: &Expect<T>,
    mut messages: impl FnMut(&[u8]) -> Vec<T>,
) -> bool {
    match (step, expected) {
        (Step::Wait(until), Expect::Wait(wanted)) => {
            assert_eq!(until, wanted, "a wait until another time");
            false
        }
        (Step::Write(bytes), Expect::KeepAlive) => {
            assert_eq!(&bytes[..], KEEPALIVE, "a quiet stream without its keep-alive");
            false
        }
        (Step::Write(bytes), Expect::Write(wanted)) => {
            assert_ne!(
                &bytes[..],
                KEEPALIVE,
                "a keep-alive before the stream was quiet long enough"
            );
            assert_eq!(&messages(bytes), wanted, "a step that writes other messages");
            false
        }
        (Step::End(bytes, ending), Expect::End(wanted, expected)) => {
            assert_eq!(ending, expected, "an end of another kind");
            assert_eq!(&messages(bytes), wanted, "an end with other messages");
            true
        }
        (step, expected) => panic!("a step {}, where the model expects {expected:?}", shown(step)),
    }
}

/// A step, its bytes as text.
fn shown(step: &Step) -> String {
    match step {
        Step::Wait(until) => format!("Wait({until:?})"),
        Step::Write(bytes) => format!("Write({:?})", String::from_utf8_lossy(bytes)),
        Step::End(bytes, ending) => {
            format!("End({:?}, {ending:?})", String::from_utf8_lossy(bytes))
        }
    }
}

fn parse_events(bytes: &[u8], limits: &Limits) -> Vec<sse::Event> {
    let events = sse::parse_stream(bytes, limits).expect("whole SSE events");
    assert!(bytes.is_empty() || bytes.ends_with(b"\n\n"), "events that do not end");
    events
}

/// The messages a slow call's step wrote: plain events in 2026-07-28, the events of its
/// 2025-11-25 call `call` otherwise.
fn slow_events(
    bytes: &[u8],
    limits: &Limits,
    call: Option<usize>,
    calls: &mut [Call],
    id: &Id,
) -> Vec<Msg> {
    let events = parse_events(bytes, limits);
    match call {
        None => events
            .iter()
            .map(|event| {
                assert_eq!(event.id, None, "a 2026-07-28 event with an id");
                modern_message(event.data.as_deref().unwrap_or_default(), id)
            })
            .collect(),
        Some(call) => legacy_events(&mut calls[call], &events),
    }
}

/// The messages of `events` on a 2025-11-25 call's stream, read by its client: each with an id
/// past the client's last.
fn legacy_events(call: &mut Call, events: &[sse::Event]) -> Vec<Msg> {
    let mut messages = Vec::new();
    for event in events {
        let id = event.id.as_deref().expect("a 2025-11-25 event without an id");
        let position = position_of(id, call.post);
        assert!(position > call.position, "an id that does not follow the client's");
        call.position = position;
        call.cursor = id.to_owned();
        let data = event.data.as_deref().expect("an event without data");
        let message = slow_message(data, &call.id);
        call.received.push(message.clone());
        messages.push(message);
    }
    messages
}

/// The result of a 2026-07-28 slow call, as the fake writes it.
fn modern_result(id: &Id, outcome: Result<String, &'static str>) -> String {
    let (text, ok) = match &outcome {
        Ok(text) => (text.as_str(), true),
        Err(code) => (*code, false),
    };
    jsonrpc::result_text(id, 128, |result| {
        result.string("text", text).boolean("ok", ok);
    })
}

fn decode(data: &str) -> Value {
    json::decode(data.as_bytes(), 16).expect("a message is JSON")
}

fn same_id(value: Option<&Value>, id: &Id) -> bool {
    value == Some(&id.to_value())
}

/// The expected progress notification of the step `slow` just did.
fn progress_of(slow: &Slow) -> Msg {
    let (progress, total) = if slow.percent {
        let span = slow.steps.saturating_sub(1).max(1);
        ((slow.done - 1).min(span) * 100 / span, 100)
    } else {
        (slow.done, slow.steps)
    };
    Msg::Progress { progress: progress as i64, total: total as i64 }
}

/// A progress notification of a 2025-11-25 slow call (with its token), or its result for `id`.
fn slow_message(data: &str, id: &Id) -> Msg {
    let value = decode(data);
    if let Some(params) = value.get("params") {
        assert_eq!(value.get("method").and_then(Value::as_str), Some("notifications/progress"));
        assert_eq!(params.get("progressToken").and_then(Value::as_str), Some("tok"));
        let number = |key| params.get(key).and_then(Value::as_number).and_then(|n| n.as_i64());
        return Msg::Progress {
            progress: number("progress").expect("progress"),
            total: number("total").expect("total"),
        };
    }
    assert!(same_id(value.get("id"), id), "a result for another request");
    if let Some(error) = revoked(&value) {
        return error;
    }
    let result = value.get("result").expect("a result");
    let content = result.get("content").and_then(Value::as_array).expect("content");
    assert_eq!(content.len(), 1);
    let text = content[0].get("text").and_then(Value::as_str).expect("text");
    let error = result.get("isError") == Some(&Value::Bool(true));
    Msg::Result { text: text.to_owned(), error }
}

/// A 2026-07-28 slow call's message: its result answers `id`.
fn modern_message(data: &str, id: &Id) -> Msg {
    let value = decode(data);
    if value.get("params").is_some() {
        return slow_message(data, id);
    }
    assert!(same_id(value.get("id"), id), "a result for another request");
    if let Some(error) = revoked(&value) {
        return error;
    }
    let result = value.get("result").expect("a result");
    let text = result.get("text").and_then(Value::as_str).expect("text");
    let ok = result.get("ok") == Some(&Value::Bool(true));
    Msg::Result { text: text.to_owned(), error: !ok }
}

/// The error that ends a call whose token stopped being valid, when `value` is one: no result,
/// the public code, the server-error code.
fn revoked(value: &Value) -> Option<Msg> {
    let error = value.get("error")?;
    assert!(value.get("result").is_none(), "an error with a result");
    assert_eq!(error.get("message").and_then(Value::as_str), Some(TOKEN_REVOKED));
    let code = error.get("code").and_then(Value::as_number).and_then(|n| n.as_i64());
    assert_eq!(code, Some(jsonrpc::code::SERVER_ERROR));
    Some(Msg::Revoked)
}

/// A message of a listen, as parsed back.
#[derive(Debug, PartialEq, Eq)]
enum Note {
    Acknowledged { tools: bool },
    Changed,
    Cancelled(String),
    Complete,
}

/// A listen's message: every notification tagged with the subscription id `id`.
fn note(event: &sse::Event, id: &Id) -> Note {
    assert_eq!(event.id, None, "a listen's event with an id");
    let value = decode(event.data.as_deref().expect("an event without data"));
    let Some(params) = value.get("params") else {
        assert!(same_id(value.get("id"), id), "a completion for another request");
        let result = value.get("result").expect("a result");
        let meta = result.get("_meta");
        assert!(same_id(meta.and_then(|m| m.get(SUBSCRIPTION_ID_KEY)), id), "an untagged result");
        assert_eq!(result.get("resultType").and_then(Value::as_str), Some("complete"));
        return Note::Complete;
    };
    let meta = params.get("_meta");
    assert!(same_id(meta.and_then(|m| m.get(SUBSCRIPTION_ID_KEY)), id), "an untagged message");
    match value.get("method").and_then(Value::as_str).expect("a method") {
        "notifications/subscriptions/acknowledged" => {
            let notifications = params.get("notifications").expect("what is acknowledged");
            let tools = notifications.get("toolsListChanged") == Some(&Value::Bool(true));
            assert_eq!(notifications.as_object().map(|o| o.len()), Some(usize::from(tools)));
            Note::Acknowledged { tools }
        }
        "notifications/tools/list_changed" => Note::Changed,
        "notifications/cancelled" => {
            assert!(same_id(params.get("requestId"), id), "a cancellation of another request");
            Note::Cancelled(params.get("reason").and_then(Value::as_str).expect("a reason").into())
        }
        other => panic!("a listen wrote {other}"),
    }
}
