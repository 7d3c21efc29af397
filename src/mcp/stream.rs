//! The event streams of one session: the id of every event the server writes, the messages kept
//! for resumption, and what a `Last-Event-ID` resumes.
//!
//! A session has one GET stream, which carries the server's own notifications, and one POST
//! stream per request answered as an event stream, which carries that request's response and
//! the notifications that belong to it.
//!
//! Pure data: no clock, no randomness, no I/O, no SSE encoding. The caller hands in a
//! [`StreamWriter`] that turns events into bytes and says when the response is full.
//!
//! **An id is a position.** Every event written on a stream takes that stream's next position, and
//! its id names the session (a random tag), the stream and the position: `<tag>-g<n>` on the GET
//! stream, `<tag>-p<k>-<n>` on the k-th POST stream, so `<tag>-p1-3` is the third event ever
//! written on the session's first POST stream. Ids are therefore unique across all streams of a
//! session (MCP's MUST), they grow along one stream in the order the events were written, and the
//! server reads them without a lookup.
//!
//! Every response that carries a stream starts with a priming event: an id and empty data. It takes
//! a position like any event, so it can be a cursor, and a client that got nothing else (an empty
//! poll of the GET stream, say) still holds one. Resuming from an id means exactly "everything this
//! stream owes after that point": every kept message of it whose last write came after the cursor,
//! and every message of it not written yet. A resumption writes those again, after its own priming
//! event, at new positions, so the last id a client holds always marks what it has, whichever
//! response it came from. A message that does not fit one response
//! (64 KiB<!-- limit: response_bytes_max -->) stays owed, to whoever resumes next.
//!
//! **What a `Last-Event-ID` gets** (`tests/server_streams.rs` and the `streams` fuzz target check
//! these rules):
//!
//! | cursor | answer |
//! |---|---|
//! | an id of this session's GET stream | 200: a priming event, then every notification kept and written after it, and those never written |
//! | an id of one of its POST streams, which still owes something | 200: a priming event, then what it owes (the call's notifications, its response); nothing of the GET stream or another POST stream |
//! | an id of one of its POST streams whose work still runs (a slow call) | 200: a priming event, what it owes, and then, as the work queues them, its later messages up to its response ([`EventLog::deliver_more`]) |
//! | an id of one of its POST streams at or after its response | 204, no body |
//! | an id of another session (of any of its streams) | 400 `last_event_id_other_session` |
//! | an id on a stream or at a position this session never issued | 400 `last_event_id_not_issued` |
//! | not in the form the server writes (`<tag>-g01`, a sign, no tag) | 400 `last_event_id_malformed` |
//! | an id after which a kept message was dropped | 400 `last_event_id_evicted`: resuming would skip it |
//!
//! **A POST stream whose work runs on.** Most POST streams are opened with all their messages
//! ([`EventLog::open_post`]). A slow call opens a live one ([`EventLog::open_live_post`]) and
//! queues each message as its work produces it ([`EventLog::append`]), its response last
//! ([`EventLog::finish`]); its open response writes each as it comes. Until the response is
//! queued, a cursor of it that is owed nothing is not complete: more will come. When the client
//! leaves, the work goes on (a disconnect is no cancellation in 2025-11-25) and its messages stay
//! owed, for a resumption.
//!
//! **What is kept, for how long.** The messages of every stream of a session (notifications and
//! POST streams' responses; not priming events, which are only positions) share one budget, in
//! messages and in bytes: at most 32<!-- limit: sse_events_kept_per_session_max --> messages and
//! 64 KiB<!-- limit: sse_bytes_kept_per_session_max --> of them
//! (`sse_events_kept_per_session_max`, `sse_bytes_kept_per_session_max`; `Limits::validate`
//! refuses a byte budget smaller than one event of the largest size). The oldest is dropped first.
//! A cursor after which a dropped message stood is refused ([`CursorError::Evicted`]), so a client
//! learns that something is lost instead of receiving a stream with a hole in it; a cursor whose
//! later messages are all kept resumes normally. A POST stream none of whose messages is kept any
//! more is forgotten (the newest one once the next one opens), and every cursor of it is evicted.
//! Nothing outlives its session: once it ends (DELETE) or expires, every request naming it gets 404
//! before any cursor is read, and its kept messages are freed with it.
//!
//! **The client follows.** `McpClient::request` skips priming events, records the last id of each
//! stream, and when a stream ends without the response, waits the `retry` and resumes with a GET
//! and `Last-Event-ID`; it never sends the request again. It resumes at most
//! `client_resumptions_max` (3<!-- limit: client_resumptions_max -->) times within
//! `client_request_deadline` (30 s<!-- limit: client_request_deadline -->), and a refused
//! resumption is a typed error (`resume_refused` with the status and code;
//! `stream_complete_without_response` for a 204).
//!
//! **Why every stream is primed and resumable.** Resumption is the part of the transport that
//! changed most in 2025-11-25: with it, a stream can be cut anywhere, before its response
//! included, and resumed exactly, and a client whose last poll was empty still holds a cursor. The
//! official SDK servers prime and resume only when an event store is configured; here it is the
//! default, because it is the behaviour to study. One thing is at-least-once: a second reader
//! resuming the same stream from an older cursor makes the server write those messages again, so
//! a client that then resumes from its own later cursor receives them twice. One client per
//! session never sees that.

use std::collections::VecDeque;

use super::tag::EventTag;

use crate::decimal;

/// Which stream of the session an event belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamRef {
    /// The session's GET stream.
    Get,
    /// The k-th POST stream of the session (k from 1).
    Post(u64),
}

/// A position on a stream: what an event id names, without the session's tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EventId {
    pub stream: StreamRef,
    /// From 1; every event written on the stream takes the next one.
    pub position: u64,
}

/// Why a `Last-Event-ID` cannot resume a stream of this session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CursorError {
    /// Not an event id in the form this server writes.
    Malformed,
    /// An event id of another session.
    OtherSession,
    /// An id on a stream, or at a position, this session has not issued.
    NotIssued,
    /// A message that stood after the cursor was dropped from the kept budget (or its stream was
    /// forgotten): resuming would skip it.
    Evicted,
}

impl CursorError {
    /// The stable public code.
    pub const fn code(self) -> &'static str {
        match self {
            CursorError::Malformed => "last_event_id_malformed",
            CursorError::OtherSession => "last_event_id_other_session",
            CursorError::NotIssued => "last_event_id_not_issued",
            CursorError::Evicted => "last_event_id_evicted",
        }
    }
}

/// The budget of the messages one session keeps for resumption.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeptBudget {
    pub messages_max: usize,
    pub bytes_max: usize,
}

/// Where a response starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// A GET without `Last-Event-ID`: the GET stream's messages not written yet.
    Fresh,
    /// The first response of a POST stream just opened: all of its messages.
    Opened(u64),
    /// A GET with `Last-Event-ID`: what the cursor's stream owes after it.
    Resume(EventId),
}

/// What a delivery wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivered {
    /// A priming event and this many messages; `live` when the stream is a POST stream whose
    /// work still runs, so more of it will come ([`EventLog::deliver_more`]).
    Stream { messages: usize, live: bool },
    /// Nothing at all: the cursor names a POST stream that owes nothing more and never will
    /// (its response was written at or before the cursor).
    Complete,
}

/// Turns events into a response body. The id is the event's full text.
pub trait StreamWriter {
    /// The priming event, first in every response (the caller's budgets leave room for it).
    fn prime(&mut self, id: &str);
    /// One message (a JSON-RPC message, encoded); false when it does not fit, which ends the
    /// response before it.
    fn message(&mut self, id: &str, data: &str) -> bool;
}

/// One stream's numbering.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Numbering {
    /// The last position issued (0: none yet).
    positions: u64,
    /// A cursor below this missed a message that was dropped (0: none dropped).
    lost_below: u64,
}

/// A POST stream the session still keeps messages of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PostStream {
    number: u64,
    numbering: Numbering,
    /// Its messages still kept.
    kept: usize,
    /// Its work still runs: more messages will come, its response last.
    live: bool,
}

/// A message kept for resumption.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Kept {
    stream: StreamRef,
    /// The position of its last write, `None` while it is owed to whoever reads next.
    written_at: Option<u64>,
    message: String,
}

/// A session's streams and kept messages. See the module docs.
///
/// Invariant, per stream, over its kept messages in the order they were queued: the written
/// ones come first, with growing positions, and the owed ones after them. So what a stream owes
/// after a cursor is always a suffix of its kept messages, found without sorting.
#[derive(Debug)]
pub struct EventLog {
    tag: EventTag,
    budget: KeptBudget,
    get: Numbering,
    /// POST streams opened so far.
    posts_opened: u64,
    /// The POST streams with kept messages, oldest first.
    posts: VecDeque<PostStream>,
    /// Every kept message of every stream, oldest first.
    kept: VecDeque<Kept>,
    kept_bytes: usize,
    /// The id of the event being written, reused.
    id_text: String,
}

impl EventLog {
    /// The streams of a session whose event ids carry `tag`.
    pub fn new(tag: EventTag, budget: KeptBudget) -> EventLog {
        EventLog {
            tag,
            budget,
            get: Numbering::default(),
            posts_opened: 0,
            posts: VecDeque::new(),
            kept: VecDeque::with_capacity(budget.messages_max.min(64)),
            kept_bytes: 0,
            id_text: String::new(),
        }
    }

    /// Messages kept, and their bytes.
    pub fn kept(&self) -> (usize, usize) {
        (self.kept.len(), self.kept_bytes)
    }

    /// Drops every kept message and every POST stream, for a session that has left its table:
    /// whoever still holds the session (a connection that found it last) holds no messages.
    pub fn forget_kept(&mut self) {
        self.posts = VecDeque::new();
        self.kept = VecDeque::new();
        self.kept_bytes = 0;
    }

    /// Queues a message (an encoded notification) on the GET stream.
    pub fn notify(&mut self, message: String) {
        self.keep(StreamRef::Get, message);
    }

    /// Opens the next POST stream with its messages (its notifications, then its response), all
    /// owed; the caller delivers [`Start::Opened`] with the number returned.
    pub fn open_post(&mut self, messages: impl IntoIterator<Item = String>) -> u64 {
        // The previous stream, if nothing of it is kept any more, is forgotten now (it was kept
        // while it might still have been opening).
        self.posts.retain(|p| p.kept > 0 || p.live);
        self.posts_opened += 1;
        let number = self.posts_opened;
        let numbering = Numbering::default();
        self.posts.push_back(PostStream { number, numbering, kept: 0, live: false });
        for message in messages {
            self.keep(StreamRef::Post(number), message);
        }
        number
    }

    /// Opens the next POST stream for work that produces its messages as it runs: it has none
    /// yet, [`EventLog::append`] adds them, and [`EventLog::finish`] marks the response queued.
    /// Until then a cursor of it that is owed nothing is not complete: more will come.
    pub fn open_live_post(&mut self) -> u64 {
        let number = self.open_post([]);
        if let Some(post) = self.posts.back_mut() {
            post.live = true;
        }
        number
    }

    /// Queues one more message of the live POST stream `number`, owed.
    pub fn append(&mut self, number: u64, message: String) {
        if self.posts.iter().any(|p| p.number == number) {
            self.keep(StreamRef::Post(number), message);
        }
    }

    /// The live POST stream `number` has queued its response: nothing more will come.
    pub fn finish(&mut self, number: u64) {
        if let Some(post) = self.posts.iter_mut().find(|p| p.number == number) {
            post.live = false;
        }
    }

    /// Whether the POST stream of `id` still runs.
    pub fn is_live(&self, stream: StreamRef) -> bool {
        match stream {
            StreamRef::Get => false,
            StreamRef::Post(number) => self.posts.iter().any(|p| p.number == number && p.live),
        }
    }

    /// Writes what `stream` owes and has never written, after the events already written on it
    /// (no priming event: this continues a response that has one). The number of messages
    /// written; a message the writer refused stays owed. `None`, with nothing written, when a
    /// message this response owed was dropped from the kept budget, or when the log has
    /// forgotten the stream (its work is over and nothing of it is kept): writing on would
    /// leave a hole the client could not see, so the response must end, and the client's
    /// resumption is refused as evicted.
    pub fn deliver_more(
        &mut self,
        stream: StreamRef,
        writer: &mut dyn StreamWriter,
    ) -> Option<usize> {
        let numbering = self.numbering(stream)?;
        if numbering.lost_below > numbering.positions {
            return None;
        }
        let base = numbering.positions;
        let mut written = 0u64;
        for kept in self.kept.iter().filter(|k| k.stream == stream && k.written_at.is_none()) {
            let id =
                event_id_text(self.tag.as_str(), stream, base + 1 + written, &mut self.id_text);
            if !writer.message(id, &kept.message) {
                break;
            }
            written += 1;
        }
        let owed = self.kept.iter_mut().filter(|k| k.stream == stream && k.written_at.is_none());
        for (i, kept) in (0u64..).zip(owed).take(written as usize) {
            kept.written_at = Some(base + 1 + i);
        }
        if let Some(numbering) = self.numbering_mut(stream) {
            numbering.positions = base + written;
        }
        Some(written as usize)
    }

    /// Reads a `Last-Event-ID` value: one of this session's ids, issued and resumable.
    pub fn cursor(&self, value: &[u8]) -> Result<EventId, CursorError> {
        let (tag, id) = parse_event_id(value)?;
        if tag != self.tag.as_str().as_bytes() {
            return Err(CursorError::OtherSession);
        }
        self.check(id)?;
        Ok(id)
    }

    /// Writes one response of a stream: its priming event, then what the stream owes, as long
    /// as `writer` takes it. Positions are issued for everything written, and a message the
    /// writer refused stays owed.
    pub fn deliver(
        &mut self,
        start: Start,
        writer: &mut dyn StreamWriter,
    ) -> Result<Delivered, CursorError> {
        let (stream, after) = match start {
            Start::Fresh => (StreamRef::Get, None),
            Start::Opened(number) => (StreamRef::Post(number), None),
            Start::Resume(id) => {
                self.check(id)?;
                (id.stream, Some(id.position))
            }
        };
        let Some(numbering) = self.numbering(stream) else {
            return Err(CursorError::Evicted);
        };
        let owes = |k: &Kept| k.stream == stream && owed_after(k, after);
        let owed = self.kept.iter().filter(|k| owes(k)).count();
        let live = self.is_live(stream);
        match (stream, after) {
            (StreamRef::Post(_), Some(_)) if owed == 0 && !live => return Ok(Delivered::Complete),
            // A POST stream just opened whose messages were all dropped at once (each larger
            // than the whole kept budget): nothing can be delivered, not even a prime.
            (StreamRef::Post(_), None) if owed == 0 && !live => return Err(CursorError::Evicted),
            _ => {}
        }
        let base = numbering.positions;
        self.write_id(stream, base + 1);
        writer.prime(&self.id_text);
        let mut written = 0u64;
        for kept in self.kept.iter().filter(|k| owes(k)) {
            let id =
                event_id_text(self.tag.as_str(), stream, base + 2 + written, &mut self.id_text);
            if !writer.message(id, &kept.message) {
                break;
            }
            written += 1;
        }
        self.commit(stream, after, base, written);
        Ok(Delivered::Stream { messages: written as usize, live })
    }

    /// Issues the positions of a delivery: the prime at `base + 1`, the first `written` owed
    /// messages after it; the other owed messages are owed again.
    fn commit(&mut self, stream: StreamRef, after: Option<u64>, base: u64, written: u64) {
        let owed = self.kept.iter_mut().filter(|k| k.stream == stream && owed_after(k, after));
        for (i, kept) in (0u64..).zip(owed) {
            kept.written_at = (i < written).then_some(base + 2 + i);
        }
        if let Some(numbering) = self.numbering_mut(stream) {
            numbering.positions = base + 1 + written;
        }
    }

    /// `id` is on a stream this session opened, at a position it issued, and nothing after it
    /// was dropped.
    fn check(&self, id: EventId) -> Result<(), CursorError> {
        if let StreamRef::Post(number) = id.stream
            && (number == 0 || number > self.posts_opened)
        {
            return Err(CursorError::NotIssued);
        }
        let numbering = self.numbering(id.stream).ok_or(CursorError::Evicted)?;
        if id.position == 0 || id.position > numbering.positions {
            return Err(CursorError::NotIssued);
        }
        if id.position < numbering.lost_below {
            return Err(CursorError::Evicted);
        }
        Ok(())
    }

    fn numbering(&self, stream: StreamRef) -> Option<Numbering> {
        match stream {
            StreamRef::Get => Some(self.get),
            StreamRef::Post(number) => {
                self.posts.iter().find(|p| p.number == number).map(|p| p.numbering)
            }
        }
    }

    fn numbering_mut(&mut self, stream: StreamRef) -> Option<&mut Numbering> {
        match stream {
            StreamRef::Get => Some(&mut self.get),
            StreamRef::Post(number) => {
                self.posts.iter_mut().find(|p| p.number == number).map(|p| &mut p.numbering)
            }
        }
    }

    /// Keeps `message` on `stream`, dropping the oldest kept messages until both budgets hold.
    /// A message larger than the whole byte budget is lost at once.
    fn keep(&mut self, stream: StreamRef, message: String) {
        if message.len() > self.budget.bytes_max {
            self.lost(stream, None);
            return;
        }
        while self.kept.len() >= self.budget.messages_max
            || self.kept_bytes + message.len() > self.budget.bytes_max
        {
            self.drop_oldest();
        }
        if let StreamRef::Post(number) = stream {
            // The stream being opened is the newest, whose record `drop_oldest` never removes.
            let Some(post) = self.posts.iter_mut().find(|p| p.number == number) else {
                return;
            };
            post.kept += 1;
        }
        self.kept_bytes += message.len();
        self.kept.push_back(Kept { stream, written_at: None, message });
    }

    fn drop_oldest(&mut self) {
        let Some(dropped) = self.kept.pop_front() else {
            return;
        };
        self.kept_bytes -= dropped.message.len();
        self.lost(dropped.stream, dropped.written_at);
        if let StreamRef::Post(number) = dropped.stream
            && let Some(index) = self.posts.iter().position(|p| p.number == number)
        {
            self.posts[index].kept -= 1;
            // Nothing of it is kept: the stream is forgotten, and its cursors are `Evicted`. The
            // newest stream may still be opening; `open_post` forgets it when the next one opens.
            let post = self.posts[index];
            if post.kept == 0 && number != self.posts_opened && !post.live {
                self.posts.remove(index);
            }
        }
    }

    /// A message of `stream` is gone: last written at `written_at`, or owed. Cursors before its
    /// write (or every cursor issued so far, for an owed one) missed it.
    fn lost(&mut self, stream: StreamRef, written_at: Option<u64>) {
        if let Some(numbering) = self.numbering_mut(stream) {
            let below = written_at.unwrap_or(numbering.positions + 1);
            numbering.lost_below = numbering.lost_below.max(below);
        }
    }

    fn write_id(&mut self, stream: StreamRef, position: u64) {
        event_id_text(self.tag.as_str(), stream, position, &mut self.id_text);
    }
}

/// True when `kept` is owed to a reader after `after`: never written since, or (for a cursor)
/// last written after it.
fn owed_after(kept: &Kept, after: Option<u64>) -> bool {
    match (kept.written_at, after) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(written), Some(cursor)) => written > cursor,
    }
}

/// `<tag>-g<n>` or `<tag>-p<k>-<n>`, into `out` (cleared first).
fn event_id_text<'o>(tag: &str, stream: StreamRef, position: u64, out: &'o mut String) -> &'o str {
    out.clear();
    out.push_str(tag);
    match stream {
        StreamRef::Get => out.push_str("-g"),
        StreamRef::Post(number) => {
            out.push_str("-p");
            decimal::push_str(out, number);
            out.push('-');
        }
    }
    decimal::push_str(out, position);
    out
}

/// The text of an event id of `tag`, for tests and tools.
pub fn event_id(tag: &str, id: EventId) -> String {
    let mut out = String::new();
    event_id_text(tag, id.stream, id.position, &mut out);
    out
}

/// Splits an event id into its tag and its stream position: only the forms this server writes,
/// a non-empty lowercase-hex tag and numbers without a sign or a leading zero.
pub fn parse_event_id(value: &[u8]) -> Result<(&[u8], EventId), CursorError> {
    let malformed = CursorError::Malformed;
    let dash = value.iter().position(|&b| b == b'-').ok_or(malformed)?;
    let (tag, rest) = (&value[..dash], &value[dash + 1..]);
    if tag.is_empty() || !crate::decimal::is_lower_hex(tag) {
        return Err(malformed);
    }
    let id = match rest.split_first() {
        Some((b'g', position)) => {
            EventId { stream: StreamRef::Get, position: number(position).ok_or(malformed)? }
        }
        Some((b'p', rest)) => {
            let dash = rest.iter().position(|&b| b == b'-').ok_or(malformed)?;
            let stream = number(&rest[..dash]).ok_or(malformed)?;
            let position = number(&rest[dash + 1..]).ok_or(malformed)?;
            EventId { stream: StreamRef::Post(stream), position }
        }
        _ => return Err(malformed),
    };
    Ok((tag, id))
}

/// `1*DIGIT` without a leading zero (except `0` itself), fitting a `u64`.
fn number(digits: &[u8]) -> Option<u64> {
    let canonical = digits.first() != Some(&b'0') || digits == b"0";
    decimal::parse_u64(digits).filter(|_| canonical)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records what a delivery wrote; takes at most `room` messages.
    struct Recorder {
        room: usize,
        events: Vec<(String, Option<String>)>,
    }

    impl Recorder {
        fn taking(room: usize) -> Recorder {
            Recorder { room, events: Vec::new() }
        }
    }

    impl StreamWriter for Recorder {
        fn prime(&mut self, id: &str) {
            self.events.push((id.to_owned(), None));
        }
        fn message(&mut self, id: &str, data: &str) -> bool {
            if self.room == 0 {
                return false;
            }
            self.room -= 1;
            self.events.push((id.to_owned(), Some(data.to_owned())));
            true
        }
    }

    const BUDGET: KeptBudget = KeptBudget { messages_max: 4, bytes_max: 64 };

    fn log() -> EventLog {
        EventLog::new(EventTag::new("ab").unwrap(), BUDGET)
    }

    /// Delivers and returns the events as `id=data` (`id` alone for a prime).
    fn deliver(log: &mut EventLog, start: Start, room: usize) -> Result<Vec<String>, CursorError> {
        let mut recorder = Recorder::taking(room);
        match log.deliver(start, &mut recorder)? {
            Delivered::Complete => Ok(vec!["complete".into()]),
            Delivered::Stream { .. } => Ok(recorder
                .events
                .into_iter()
                .map(|(id, data)| match data {
                    Some(data) => format!("{id}={data}"),
                    None => id,
                })
                .collect()),
        }
    }

    fn resume(log: &mut EventLog, cursor: &str, room: usize) -> Result<Vec<String>, CursorError> {
        let id = log.cursor(cursor.as_bytes())?;
        deliver(log, Start::Resume(id), room)
    }

    #[test]
    fn every_response_opens_with_a_prime_and_positions_follow_the_writes() {
        let mut log = log();
        log.notify("a".into());
        assert_eq!(deliver(&mut log, Start::Fresh, 9), Ok(vec!["ab-g1".into(), "ab-g2=a".into()]));
        // Nothing new: the prime alone, at the next position.
        assert_eq!(deliver(&mut log, Start::Fresh, 9), Ok(vec!["ab-g3".into()]));
        let post = log.open_post(["n".into(), "r".into()]);
        assert_eq!(
            deliver(&mut log, Start::Opened(post), 9),
            Ok(vec!["ab-p1-1".into(), "ab-p1-2=n".into(), "ab-p1-3=r".into()])
        );
    }

    #[test]
    fn a_cursor_resumes_only_its_own_stream_after_its_position() {
        let mut log = log();
        log.notify("a".into());
        deliver(&mut log, Start::Fresh, 9).unwrap();
        let post = log.open_post(["r1".into()]);
        deliver(&mut log, Start::Opened(post), 0).unwrap(); // closed after its prime
        log.notify("b".into());
        // The POST stream's prime: its response, nothing of the GET stream.
        assert_eq!(resume(&mut log, "ab-p1-1", 9), Ok(vec!["ab-p1-2".into(), "ab-p1-3=r1".into()]));
        // After the response: that stream owes nothing more.
        assert_eq!(resume(&mut log, "ab-p1-3", 9), Ok(vec!["complete".into()]));
        // The GET stream after its first message: only what came later on it.
        assert_eq!(resume(&mut log, "ab-g2", 9), Ok(vec!["ab-g3".into(), "ab-g4=b".into()]));
        // From its first prime: everything after it, written again at new positions.
        assert_eq!(
            resume(&mut log, "ab-g1", 9),
            Ok(vec!["ab-g5".into(), "ab-g6=a".into(), "ab-g7=b".into()])
        );
    }

    #[test]
    fn what_does_not_fit_stays_owed_to_the_next_reader() {
        let mut log = log();
        for m in ["a", "b", "c"] {
            log.notify(m.into());
        }
        assert_eq!(deliver(&mut log, Start::Fresh, 1), Ok(vec!["ab-g1".into(), "ab-g2=a".into()]));
        // b and c are still owed: to the cursor, and to a fresh reader alike.
        assert_eq!(resume(&mut log, "ab-g2", 1), Ok(vec!["ab-g3".into(), "ab-g4=b".into()]));
        assert_eq!(deliver(&mut log, Start::Fresh, 9), Ok(vec!["ab-g5".into(), "ab-g6=c".into()]));
        // A cursor that only saw a prime gets what came after that prime.
        assert_eq!(
            resume(&mut log, "ab-g3", 9),
            Ok(vec!["ab-g7".into(), "ab-g8=b".into(), "ab-g9=c".into()])
        );
    }

    #[test]
    fn cursors_are_checked_against_what_this_session_issued() {
        let mut log = log();
        log.notify("a".into());
        deliver(&mut log, Start::Fresh, 9).unwrap();
        let post = log.open_post(["r".into()]);
        deliver(&mut log, Start::Opened(post), 9).unwrap();
        let cases: [(&str, CursorError); 14] = [
            ("ab-g3", CursorError::NotIssued),
            ("ab-g0", CursorError::NotIssued),
            ("ab-p1-3", CursorError::NotIssued),
            ("ab-p2-1", CursorError::NotIssued),
            ("ab-p0-1", CursorError::NotIssued),
            ("cd-g1", CursorError::OtherSession),
            ("cd-p1-1", CursorError::OtherSession),
            ("ab-g01", CursorError::Malformed),
            ("ab-g+1", CursorError::Malformed),
            ("ab-g", CursorError::Malformed),
            ("AB-g1", CursorError::Malformed),
            ("-g1", CursorError::Malformed),
            ("ab-p1", CursorError::Malformed),
            ("ab-x1", CursorError::Malformed),
        ];
        for (cursor, expected) in cases {
            assert_eq!(log.cursor(cursor.as_bytes()), Err(expected), "{cursor}");
        }
        assert_eq!(log.cursor(b"ab-p1-2"), Ok(EventId { stream: StreamRef::Post(1), position: 2 }));
    }

    #[test]
    fn the_oldest_message_is_dropped_first_and_cursors_before_it_are_evicted() {
        let mut log = log();
        log.notify("a".into());
        deliver(&mut log, Start::Fresh, 9).unwrap(); // g1 prime, g2 = a
        for m in ["b", "c", "d"] {
            log.notify(m.into());
        }
        deliver(&mut log, Start::Fresh, 9).unwrap(); // g3 prime, g4..g6 = b c d
        assert_eq!(log.kept(), (4, 4), "at the message budget: nothing dropped");
        assert!(log.cursor(b"ab-g1").is_ok());
        log.notify("e".into()); // one past it: a (written at g2) is dropped
        assert_eq!(log.kept(), (4, 4));
        assert_eq!(log.cursor(b"ab-g1"), Err(CursorError::Evicted));
        // A cursor at or after the dropped message's write misses nothing.
        assert_eq!(
            resume(&mut log, "ab-g2", 9).map(|e| e.len()),
            Ok(5),
            "a prime, then b, c, d and e: all kept"
        );
        // A message owed again (it did not fit) and then dropped is missed by every cursor.
        assert_eq!(resume(&mut log, "ab-g7", 0).map(|e| e.len()), Ok(1));
        log.notify("f".into());
        assert_eq!(log.cursor(b"ab-g12"), Err(CursorError::Evicted));
    }

    #[test]
    fn the_byte_budget_drops_the_oldest_too() {
        let mut log = log();
        log.notify("x".repeat(40));
        log.notify("y".repeat(24));
        assert_eq!(log.kept(), (2, 64), "exactly the byte budget");
        log.notify("z".into());
        assert_eq!(log.kept(), (2, 25), "one byte past it drops the oldest");
        // The dropped message was never written: every cursor issued before it is evicted.
        assert_eq!(deliver(&mut log, Start::Fresh, 9).map(|e| e.len()), Ok(3));
        log.notify("w".repeat(65)); // larger than the whole budget: lost at once
        assert_eq!(log.cursor(b"ab-g1"), Err(CursorError::Evicted));
        assert_eq!(log.kept(), (2, 25));
    }

    #[test]
    fn a_post_stream_whose_messages_are_all_dropped_is_forgotten() {
        let mut log = log();
        let post = log.open_post(["r".into()]);
        deliver(&mut log, Start::Opened(post), 9).unwrap(); // p1-1 prime, p1-2 = r
        assert_eq!(resume(&mut log, "ab-p1-2", 9), Ok(vec!["complete".into()]));
        for m in ["a", "b", "c", "d"] {
            log.notify(m.into());
        }
        // r is dropped. The newest stream is still known: after r, nothing was missed.
        assert_eq!(resume(&mut log, "ab-p1-2", 9), Ok(vec!["complete".into()]));
        assert_eq!(log.cursor(b"ab-p1-1"), Err(CursorError::Evicted));
        // Once another stream opens, the one with nothing kept is forgotten.
        let next = log.open_post(["s".into()]);
        assert_eq!(next, 2);
        assert_eq!(log.cursor(b"ab-p1-2"), Err(CursorError::Evicted));
        assert_eq!(log.cursor(b"ab-p3-1"), Err(CursorError::NotIssued));
    }

    #[test]
    fn an_open_response_ends_when_what_it_owes_is_dropped_or_forgotten() {
        let mut log = log();
        let post = log.open_live_post();
        deliver(&mut log, Start::Opened(post), 0).unwrap(); // p1-1 prime, stays open
        log.append(post, "r".into());
        let mut recorder = Recorder::taking(9);
        assert_eq!(log.deliver_more(StreamRef::Post(post), &mut recorder), Some(1));
        assert_eq!(recorder.events, [("ab-p1-2".to_owned(), Some("r".to_owned()))]);
        log.append(post, "s".into());
        for m in ["a", "b", "c", "d"] {
            log.notify(m.into()); // s, owed to the open response, is dropped
        }
        let mut recorder = Recorder::taking(9);
        assert_eq!(log.deliver_more(StreamRef::Post(post), &mut recorder), None);
        log.finish(post);
        assert_eq!(log.open_post(["t".into()]), 2); // p1: over, nothing kept, forgotten
        assert_eq!(log.deliver_more(StreamRef::Post(post), &mut recorder), None);
        assert!(recorder.events.is_empty(), "an ended response writes nothing");
    }

    #[test]
    fn a_post_stream_that_could_keep_nothing_delivers_nothing() {
        let mut log = log();
        let post = log.open_post(["x".repeat(65)]);
        let mut recorder = Recorder::taking(9);
        assert_eq!(log.deliver(Start::Opened(post), &mut recorder), Err(CursorError::Evicted));
        assert!(recorder.events.is_empty(), "not even a prime");
    }

    #[test]
    fn ids_parse_back_to_what_was_written() {
        for id in [
            EventId { stream: StreamRef::Get, position: 1 },
            EventId { stream: StreamRef::Post(7), position: u64::MAX },
        ] {
            let text = event_id("0f", id);
            assert_eq!(parse_event_id(text.as_bytes()), Ok((&b"0f"[..], id)));
        }
    }
}
