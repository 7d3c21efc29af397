//! Fuzzes a session's event streams (`mcp::stream::EventLog`) against what a client that always
//! resumes from its last event id must see.
//!
//! The input picks small budgets and a sequence of operations: notifications queued on the GET
//! stream, POST streams opened (some closed after their priming event), responses cut short at
//! any event, resumptions by the stream's client, and hostile `Last-Event-ID` values. A plain
//! model of the kept budget (oldest dropped first) says which messages are still kept. Checked on
//! every delivery: a priming event first; every id new in the whole run and on the stream the
//! delivery is for. Checked per stream, for its client: its first response brings the stream's
//! kept messages in order; each resumption brings exactly the next messages of that stream in the
//! order they were queued (none skipped, none twice), or is refused as `Evicted` exactly when one
//! of them was dropped (or, for a POST stream, when nothing of it is kept and a later one was
//! opened: it is forgotten); a POST stream is `Complete` exactly when its client has every
//! message. Hostile cursors never panic and never change anything.
#![no_main]

use std::collections::{HashSet, VecDeque};

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::mcp::stream::{
    CursorError, Delivered, EventLog, KeptBudget, Start, StreamRef, StreamWriter, parse_event_id,
};

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
}

/// Takes at most `room` messages and records everything written.
struct Recorder {
    room: usize,
    primes: Vec<String>,
    messages: Vec<(String, String)>,
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
    /// The client's cursor; `None` before its first delivery (the GET stream only).
    cursor: Option<String>,
    /// Refused as `Evicted`: the client stopped following it.
    lost: bool,
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

    /// A POST stream with nothing kept, and a later one opened: the log has forgotten it.
    fn forgotten(&self, stream: StreamRef) -> bool {
        let StreamRef::Post(number) = stream else {
            return false;
        };
        let newest = self.streams.iter().filter_map(|f| match f.stream {
            StreamRef::Post(n) => Some(n),
            StreamRef::Get => None,
        });
        newest.max() != Some(number) && !self.kept.iter().any(|(s, _)| *s == stream)
    }

    fn message(&mut self, size: u8) -> String {
        self.next_message += 1;
        let text = format!("m{}", self.next_message);
        let pad = usize::from(size).saturating_sub(text.len());
        format!("{text}{}", "x".repeat(pad))
    }

    /// One delivery for stream `index`: checks the events and the client's view.
    fn deliver(&mut self, index: usize, start: Start, room: usize) {
        let first = !matches!(start, Start::Resume(_));
        if first {
            // What was dropped before a stream's first response was never promised to anyone:
            // a first response has no cursor to refuse.
            let kept: Vec<String> =
                self.streams[index].queued.iter().filter(|m| self.is_kept(m)).cloned().collect();
            self.streams[index].queued = kept;
        }
        let followed = &self.streams[index];
        let expected: Vec<String> = followed.queued[followed.received..].to_vec();
        let must_evict = !first && expected.iter().any(|m| !self.is_kept(m));
        let may_evict =
            must_evict || self.forgotten(followed.stream) || (first && expected.is_empty());
        let mut recorder = Recorder { room, primes: Vec::new(), messages: Vec::new() };
        let outcome = self.log.deliver(start, &mut recorder);
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
                assert!(expected.is_empty(), "complete while the client still misses messages");
                return;
            }
            Ok(Delivered::Stream { messages, .. }) => assert_eq!(messages, recorder.messages.len()),
        }
        assert!(
            !(is_post && !first && expected.is_empty()),
            "a POST stream owing nothing streamed"
        );
        assert_eq!(recorder.primes.len(), 1, "exactly one priming event");
        let ids = recorder.primes.iter().chain(recorder.messages.iter().map(|(id, _)| id));
        for id in ids {
            let (_, parsed) = parse_event_id(id.as_bytes()).expect("an id the server can read");
            assert_eq!(parsed.stream, self.streams[index].stream, "an event of another stream");
            assert!(self.seen.insert(id.clone()), "id {id} written twice");
        }
        let got: Vec<&str> = recorder.messages.iter().map(|(_, m)| m.as_str()).collect();
        assert!(got.len() <= expected.len(), "more messages than the stream has");
        assert_eq!(got, expected[..got.len()], "not the next messages in order");
        assert!(got.len() == expected.len() || got.len() == room, "left out with room to spare");
        let followed = &mut self.streams[index];
        followed.received += got.len();
        followed.cursor = Some(match recorder.messages.last() {
            Some((id, _)) => id.clone(),
            None => recorder.primes[0].clone(),
        });
    }

    fn follow(&mut self, index: usize, room: usize) {
        if self.streams[index].lost {
            return;
        }
        let start = match &self.streams[index].cursor {
            None => Start::Fresh,
            Some(cursor) => match self.log.cursor(cursor.as_bytes()) {
                Ok(id) => Start::Resume(id),
                Err(CursorError::Evicted) => {
                    self.streams[index].lost = true;
                    return;
                }
                Err(other) => panic!("a client's own cursor refused: {other:?}"),
            },
        };
        self.deliver(index, start, room);
    }
}

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
    let budget = KeptBudget { messages_max, bytes_max };
    let mut run = Run {
        log: EventLog::new("ab".into(), budget),
        budget,
        kept: VecDeque::new(),
        seen: HashSet::new(),
        streams: vec![Followed {
            stream: StreamRef::Get,
            queued: Vec::new(),
            received: 0,
            cursor: None,
            lost: false,
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
                    cursor: None,
                    lost: false,
                });
                let index = run.streams.len() - 1;
                run.deliver(index, Start::Opened(number), usize::from(room % 4));
            }
            Op::Follow { stream, room } => {
                let index = usize::from(stream) % run.streams.len();
                run.follow(index, usize::from(room % 4));
            }
            Op::Hostile { bytes } => {
                if let Ok(id) = run.log.cursor(&bytes) {
                    // Only a well-formed id of this session, on an issued stream, gets here.
                    assert!(bytes.starts_with(b"ab-"), "{id:?}");
                }
            }
        }
    }
});
