//! Sessions: who owns each one, when it ends, and the notifications waiting for its GET stream.
//!
//! A session is created by a successful `initialize` and bound to the principal that made it
//! (subject, tenant and authorization revision). Every later request must present both a valid
//! token and the session id, and the session is found only when the token's principal is the
//! owner: an id alone authenticates nothing, and another principal's session looks exactly like
//! one that does not exist. Lifetime is fixed at creation (never extended by use); the table holds
//! at most `capacity` live sessions and refuses a new one rather than evicting.
//!
//! Each session keeps the last few `notifications/message` events for its GET stream, numbered in
//! one sequence. Event ids carry a random per-session tag and name their stream (`<tag>-g<n>` for
//! the GET stream, `<tag>-p<stream>-<n>` for POST streams), so they are unique across every stream
//! of the session, and a `Last-Event-ID` from another session or from a POST stream is recognised
//! and refused instead of replaying anything.
//!
//! Pure data: time is an [`Instant`] argument and ids and tags come from the caller's randomness.
//! The table stores sessions under the SHA-256 of their id, so it never holds a raw id.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::auth::policy::Principal;
use crate::json::Value;

/// The principal a session is bound to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub subject: String,
    pub tenant: String,
    pub authorization_revision: u64,
}

/// A principal to compare with a session's owner, without copying it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnerRef<'a> {
    pub subject: &'a str,
    pub tenant: &'a str,
    pub authorization_revision: u64,
}

impl<'a> From<&'a Principal> for OwnerRef<'a> {
    fn from(p: &'a Principal) -> Self {
        OwnerRef {
            subject: &p.subject,
            tenant: &p.tenant,
            authorization_revision: p.authorization_revision,
        }
    }
}

impl Owner {
    /// This owner, borrowed.
    pub fn as_ref(&self) -> OwnerRef<'_> {
        OwnerRef {
            subject: &self.subject,
            tenant: &self.tenant,
            authorization_revision: self.authorization_revision,
        }
    }
}

impl From<OwnerRef<'_>> for Owner {
    fn from(o: OwnerRef<'_>) -> Self {
        Owner {
            subject: o.subject.to_owned(),
            tenant: o.tenant.to_owned(),
            authorization_revision: o.authorization_revision,
        }
    }
}

/// The budgets of a session table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionBudget {
    pub capacity: usize,
    pub ttl: Duration,
    pub events_kept: usize,
}

/// RFC 5424 severities, as MCP logging uses them, least severe first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    pub fn from_name(name: &str) -> Option<LogLevel> {
        LogLevel::ALL.into_iter().find(|l| l.name() == name)
    }
}

/// Why a `Last-Event-ID` cannot resume this session's GET stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CursorError {
    /// Not an event id this server writes.
    Malformed,
    /// An event id of another session.
    OtherSession,
    /// An event id of one of this session's POST streams, which are never replayed on GET.
    PostStream,
    /// A GET event id this session has not issued.
    NotIssued,
}

impl CursorError {
    /// The stable public code.
    pub const fn code(self) -> &'static str {
        match self {
            CursorError::Malformed => "last_event_id_malformed",
            CursorError::OtherSession => "last_event_id_other_session",
            CursorError::PostStream => "last_event_id_post_stream",
            CursorError::NotIssued => "last_event_id_not_issued",
        }
    }
}

/// One event ready to be written: its id and the JSON-RPC notification it carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamEvent {
    pub id: String,
    pub message: Value,
}

/// One live session.
#[derive(Clone, Debug)]
pub struct Session {
    owner: Owner,
    expires_at: Instant,
    initialized: bool,
    tag: String,
    /// GET-stream notifications still kept, oldest first, with their sequence numbers.
    queue: VecDeque<(u64, Value)>,
    events_kept: usize,
    /// The last GET sequence number issued (0: none yet).
    last_seq: u64,
    /// The last GET sequence number delivered by a cursorless poll or a replay.
    delivered_seq: u64,
    post_streams: u64,
    log_level: LogLevel,
}

impl Session {
    /// True once `notifications/initialized` has arrived.
    pub fn is_initialized(&self) -> bool {
        self.initialized
    }

    pub fn mark_initialized(&mut self) {
        self.initialized = true;
    }

    pub fn set_log_level(&mut self, level: LogLevel) {
        self.log_level = level;
    }

    /// Queues a `notifications/message` for the GET stream if `level` passes the session's
    /// logging level, dropping the oldest kept event when the queue is full.
    pub fn notify(&mut self, level: LogLevel, message: Value) {
        if level < self.log_level {
            return;
        }
        self.last_seq += 1;
        if self.queue.len() >= self.events_kept {
            self.queue.pop_front();
        }
        self.queue.push_back((self.last_seq, message));
    }

    fn get_event_id(&self, seq: u64) -> String {
        format!("{}-g{seq}", self.tag)
    }

    /// The next event no GET has delivered yet; delivered from now on (at most once).
    pub fn poll(&mut self) -> Option<StreamEvent> {
        let (seq, message) = self.queue.iter().find(|(seq, _)| *seq > self.delivered_seq)?;
        let event = StreamEvent { id: self.get_event_id(*seq), message: message.clone() };
        self.delivered_seq = *seq;
        Some(event)
    }

    /// Every kept GET event after `last_event_id`, which must be an id of this session's GET
    /// stream.
    pub fn replay_after(&mut self, last_event_id: &str) -> Result<Vec<StreamEvent>, CursorError> {
        let cursor = self.parse_cursor(last_event_id)?;
        let events: Vec<StreamEvent> = self
            .queue
            .iter()
            .filter(|(seq, _)| *seq > cursor)
            .map(|(seq, message)| StreamEvent {
                id: self.get_event_id(*seq),
                message: message.clone(),
            })
            .collect();
        let last = self.queue.back().map_or(cursor, |(seq, _)| *seq);
        self.delivered_seq = self.delivered_seq.max(last);
        Ok(events)
    }

    fn parse_cursor(&self, id: &str) -> Result<u64, CursorError> {
        let (tag, stream) = id.split_once('-').ok_or(CursorError::Malformed)?;
        if tag.is_empty() || !tag.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(CursorError::Malformed);
        }
        let stream = StreamRef::parse(stream).ok_or(CursorError::Malformed)?;
        if tag != self.tag {
            return Err(CursorError::OtherSession);
        }
        match stream {
            StreamRef::Get(seq) if (1..=self.last_seq).contains(&seq) => Ok(seq),
            StreamRef::Get(_) => Err(CursorError::NotIssued),
            StreamRef::Post => Err(CursorError::PostStream),
        }
    }

    /// Opens a new POST stream, whose event ids never collide with any other stream's.
    pub fn open_post_stream(&mut self) -> PostStream {
        self.post_streams += 1;
        PostStream { tag: self.tag.clone(), stream: self.post_streams }
    }
}

/// The stream part of an event id: `g<seq>` or `p<stream>-<n>`.
enum StreamRef {
    Get(u64),
    Post,
}

impl StreamRef {
    fn parse(stream: &str) -> Option<StreamRef> {
        let number = |s: &str| crate::decimal::parse_u64(s.as_bytes());
        if let Some(seq) = stream.strip_prefix('g') {
            return number(seq).map(StreamRef::Get);
        }
        let (n, k) = stream.strip_prefix('p')?.split_once('-')?;
        (number(n).is_some() && number(k).is_some()).then_some(StreamRef::Post)
    }
}

/// A POST stream's event-id scheme.
#[derive(Clone, Debug)]
pub struct PostStream {
    tag: String,
    stream: u64,
}

impl PostStream {
    /// The id of this stream's `n`-th event.
    pub fn event_id(&self, n: u64) -> String {
        format!("{}-p{}-{n}", self.tag, self.stream)
    }
}

/// The live sessions.
#[derive(Debug)]
pub struct SessionTable {
    budget: SessionBudget,
    sessions: HashMap<[u8; 32], Session>,
}

/// The table is full of live sessions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapacityFull;

fn key(id: &str) -> [u8; 32] {
    Sha256::digest(id.as_bytes()).into()
}

/// True for a session id as MCP allows them: 1 to 128 visible ASCII characters.
pub fn is_well_formed_id(id: &[u8]) -> bool {
    (1..=128).contains(&id.len()) && id.iter().all(|b| (0x21..=0x7e).contains(b))
}

impl SessionTable {
    pub fn new(budget: SessionBudget) -> Self {
        SessionTable { budget, sessions: HashMap::with_capacity(budget.capacity) }
    }

    /// How many sessions are alive at `now`.
    pub fn live(&self, now: Instant) -> usize {
        self.sessions.values().filter(|s| now < s.expires_at).count()
    }

    /// Creates a session for `owner` with a caller-drawn id and event tag. Expired sessions are
    /// dropped first; if the table is still full, nothing is created.
    pub fn create(
        &mut self,
        id: &str,
        tag: String,
        owner: OwnerRef<'_>,
        now: Instant,
    ) -> Result<&mut Session, CapacityFull> {
        self.sessions.retain(|_, s| now < s.expires_at);
        if self.sessions.len() >= self.budget.capacity {
            return Err(CapacityFull);
        }
        let session = Session {
            owner: Owner::from(owner),
            expires_at: now + self.budget.ttl,
            initialized: false,
            tag,
            queue: VecDeque::with_capacity(self.budget.events_kept),
            events_kept: self.budget.events_kept,
            last_seq: 0,
            delivered_seq: 0,
            post_streams: 0,
            log_level: LogLevel::Info,
        };
        Ok(self.sessions.entry(key(id)).insert_entry(session).into_mut())
    }

    /// The session `id` if it is alive and owned by `owner`. An expired session is removed; one
    /// owned by someone else is indistinguishable from a missing one.
    pub fn find(&mut self, id: &str, owner: OwnerRef<'_>, now: Instant) -> Option<&mut Session> {
        let k = key(id);
        if self.sessions.get(&k).is_some_and(|s| now >= s.expires_at) {
            self.sessions.remove(&k);
            return None;
        }
        self.sessions.get_mut(&k).filter(|s| s.owner.as_ref() == owner)
    }

    /// Ends the session `id` if `owner` may see it. False when there was nothing to end.
    pub fn terminate(&mut self, id: &str, owner: OwnerRef<'_>, now: Instant) -> bool {
        if self.find(id, owner, now).is_none() {
            return false;
        }
        self.sessions.remove(&key(id)).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: SessionBudget =
        SessionBudget { capacity: 2, ttl: Duration::from_secs(60), events_kept: 3 };

    fn owner(subject: &str) -> Owner {
        Owner { subject: subject.into(), tenant: "acme".into(), authorization_revision: 1 }
    }

    fn note(n: u64) -> Value {
        Value::from(n)
    }

    #[test]
    fn sessions_are_found_only_by_their_owner_until_they_expire() {
        let t0 = Instant::now();
        let mut table = SessionTable::new(BUDGET);
        table.create("s1", "aa".into(), owner("alice").as_ref(), t0).unwrap();
        assert!(table.find("s1", owner("alice").as_ref(), t0 + Duration::from_secs(59)).is_some());
        assert!(table.find("s1", owner("mallory").as_ref(), t0).is_none());
        let mut stale = owner("alice");
        stale.authorization_revision = 2;
        assert!(table.find("s1", stale.as_ref(), t0).is_none());
        assert!(table.find("s2", owner("alice").as_ref(), t0).is_none());
        assert!(table.find("s1", owner("alice").as_ref(), t0 + Duration::from_secs(60)).is_none());
        assert_eq!(table.live(t0), 0, "the expired session was removed");
    }

    #[test]
    fn capacity_is_never_exceeded_and_expired_sessions_free_their_place() {
        let t0 = Instant::now();
        let mut table = SessionTable::new(BUDGET);
        table.create("a", "aa".into(), owner("alice").as_ref(), t0).unwrap();
        table.create("b", "bb".into(), owner("alice").as_ref(), t0).unwrap();
        assert_eq!(
            table.create("c", "cc".into(), owner("alice").as_ref(), t0).err(),
            Some(CapacityFull)
        );
        assert!(table.terminate("a", owner("alice").as_ref(), t0));
        assert!(!table.terminate("a", owner("alice").as_ref(), t0));
        table.create("c", "cc".into(), owner("alice").as_ref(), t0).unwrap();
        let later = t0 + Duration::from_secs(60);
        table.create("d", "dd".into(), owner("alice").as_ref(), later).unwrap();
        assert_eq!(table.live(later), 1);
    }

    #[test]
    fn polls_deliver_each_event_at_most_once_and_keep_only_the_newest() {
        let t0 = Instant::now();
        let mut table = SessionTable::new(BUDGET);
        let s = table.create("s", "ab12".into(), owner("alice").as_ref(), t0).unwrap();
        s.notify(LogLevel::Info, note(1));
        assert_eq!(s.poll().map(|e| e.id), Some("ab12-g1".into()));
        assert_eq!(s.poll(), None);
        for n in 2..=6 {
            s.notify(LogLevel::Info, note(n));
        }
        // 4, 5, 6 are kept; 2 and 3 were dropped.
        assert_eq!(s.poll().map(|e| e.message), Some(note(4)));
        s.set_log_level(LogLevel::Warning);
        s.notify(LogLevel::Info, note(7));
        assert_eq!(s.poll().map(|e| e.message), Some(note(5)));
        assert_eq!(s.poll().map(|e| e.message), Some(note(6)));
        assert_eq!(s.poll(), None);
    }

    #[test]
    fn cursors() {
        let t0 = Instant::now();
        let mut table = SessionTable::new(BUDGET);
        let s = table.create("s", "ab12".into(), owner("alice").as_ref(), t0).unwrap();
        for n in 1..=3 {
            s.notify(LogLevel::Info, note(n));
        }
        let ids = |r: Result<Vec<StreamEvent>, CursorError>| {
            r.map(|v| v.into_iter().map(|e| e.id).collect::<Vec<_>>())
        };
        assert_eq!(ids(s.replay_after("ab12-g1")), Ok(vec!["ab12-g2".into(), "ab12-g3".into()]));
        assert_eq!(ids(s.replay_after("ab12-g3")), Ok(vec![]));
        assert_eq!(s.poll(), None, "a replay counts as delivery");
        let cases: [(&str, CursorError); 9] = [
            ("ab12-g4", CursorError::NotIssued),
            ("cd34-g1", CursorError::OtherSession),
            ("cd34-p1-1", CursorError::OtherSession),
            ("ab12-p1-1", CursorError::PostStream),
            ("ab12-g", CursorError::Malformed),
            ("ab12-x1", CursorError::Malformed),
            ("g1", CursorError::Malformed),
            ("-g1", CursorError::Malformed),
            ("ab12-g+1", CursorError::Malformed),
        ];
        for (cursor, expected) in cases {
            assert_eq!(ids(s.replay_after(cursor)), Err(expected), "{cursor}");
        }
        let post = s.open_post_stream();
        assert_eq!(post.event_id(1), "ab12-p1-1");
    }
}
