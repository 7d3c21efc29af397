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

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use crate::digest::{Digest, DigestMap};

use crate::json::Value;

/// The principal a session is bound to. The endpoint builds it from the token policy's principal;
/// this module needs only these three values, so it does not depend on the policy.
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
    /// Live sessions one principal (subject and tenant, at its current authorization revision)
    /// may hold at once.
    pub per_principal: usize,
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
    /// Its place in the GET stream's sequence.
    pub seq: u64,
    pub id: String,
    pub message: Value,
}

/// What a `Last-Event-ID` resumes: the sequence number it names and every kept event after it.
/// Nothing is marked delivered until the caller says how far it wrote
/// ([`Session::delivered_through`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    pub cursor: u64,
    pub events: Vec<StreamEvent>,
}

/// One live session. Its identity (owner, lifetime, tag) never changes; what does is behind
/// its own lock or an atomic, so requests in different sessions never wait for each other and
/// requests in the same session wait only for a few instructions.
#[derive(Debug)]
pub struct Session {
    owner: Owner,
    expires_at: Instant,
    tag: String,
    initialized: AtomicBool,
    post_streams: AtomicU64,
    stream: Mutex<StreamState>,
}

/// The GET stream's state.
#[derive(Debug)]
struct StreamState {
    /// Notifications still kept, oldest first, with their sequence numbers.
    queue: VecDeque<(u64, Value)>,
    events_kept: usize,
    /// The last sequence number issued (0: none yet).
    last_seq: u64,
    /// The last sequence number delivered by a cursorless poll or a replay.
    delivered_seq: u64,
    log_level: LogLevel,
}

impl Session {
    fn stream(&self) -> MutexGuard<'_, StreamState> {
        self.stream.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// True once `notifications/initialized` has arrived.
    pub fn is_initialized(&self) -> bool {
        self.initialized.load(Ordering::Acquire)
    }

    pub fn mark_initialized(&self) {
        self.initialized.store(true, Ordering::Release);
    }

    pub fn set_log_level(&self, level: LogLevel) {
        self.stream().log_level = level;
    }

    /// Queues a `notifications/message` for the GET stream if `level` passes the session's
    /// logging level, dropping the oldest kept event when the queue is full.
    pub fn notify(&self, level: LogLevel, message: Value) {
        let mut stream = self.stream();
        if level < stream.log_level {
            return;
        }
        stream.last_seq += 1;
        if stream.queue.len() >= stream.events_kept {
            stream.queue.pop_front();
        }
        let seq = stream.last_seq;
        stream.queue.push_back((seq, message));
    }

    fn get_event_id(&self, seq: u64) -> String {
        format!("{}-g{seq}", self.tag)
    }

    /// The next event no GET has delivered yet; delivered from now on (at most once).
    pub fn poll(&self) -> Option<StreamEvent> {
        let mut stream = self.stream();
        let delivered = stream.delivered_seq;
        let (seq, message) = stream.queue.iter().find(|(seq, _)| *seq > delivered)?.clone();
        stream.delivered_seq = seq;
        drop(stream);
        Some(StreamEvent { seq, id: self.get_event_id(seq), message })
    }

    /// Every kept GET event after `last_event_id`, which must be an id of this session's GET
    /// stream. The caller then says how far it wrote ([`Session::delivered_through`]).
    pub fn replay_after(&self, last_event_id: &str) -> Result<Replay, CursorError> {
        let stream = self.stream();
        let cursor = self.parse_cursor(last_event_id, stream.last_seq)?;
        let later: Vec<(u64, Value)> =
            stream.queue.iter().filter(|(seq, _)| *seq > cursor).cloned().collect();
        drop(stream);
        let events = later
            .into_iter()
            .map(|(seq, message)| StreamEvent { seq, id: self.get_event_id(seq), message })
            .collect();
        Ok(Replay { cursor, events })
    }

    /// Every event up to `seq` has reached the client: a cursorless poll starts after it.
    pub fn delivered_through(&self, seq: u64) {
        let mut stream = self.stream();
        stream.delivered_seq = stream.delivered_seq.max(seq);
    }

    fn parse_cursor(&self, id: &str, last_seq: u64) -> Result<u64, CursorError> {
        let (tag, stream) = id.split_once('-').ok_or(CursorError::Malformed)?;
        if tag.is_empty() || !tag.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(CursorError::Malformed);
        }
        let stream = StreamRef::parse(stream).ok_or(CursorError::Malformed)?;
        if tag != self.tag {
            return Err(CursorError::OtherSession);
        }
        match stream {
            StreamRef::Get(seq) if (1..=last_seq).contains(&seq) => Ok(seq),
            StreamRef::Get(_) => Err(CursorError::NotIssued),
            StreamRef::Post => Err(CursorError::PostStream),
        }
    }

    /// Opens a new POST stream, whose event ids never collide with any other stream's.
    pub fn open_post_stream(&self) -> PostStream {
        let stream = self.post_streams.fetch_add(1, Ordering::AcqRel) + 1;
        PostStream { tag: self.tag.clone(), stream }
    }
}

/// The stream part of an event id: `g<seq>` or `p<stream>-<n>`.
enum StreamRef {
    Get(u64),
    Post,
}

impl StreamRef {
    /// Only the forms this server writes: numbers without a sign and without leading zeros.
    fn parse(stream: &str) -> Option<StreamRef> {
        let number = |s: &str| {
            let canonical = !s.starts_with('0') || s == "0";
            crate::decimal::parse_u64(s.as_bytes()).filter(|_| canonical)
        };
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

/// The live sessions. Lookups share a read lock; only creating, ending and expiring sessions
/// take the write lock, and neither is ever held across I/O.
#[derive(Debug)]
pub struct SessionTable {
    budget: SessionBudget,
    sessions: RwLock<DigestMap<Arc<Session>>>,
}

/// Why no session was created. Each says how long until the earliest session that stands in
/// the way expires: the time after which asking again can succeed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Every slot of the table holds a live session.
    Full { retry_after: Duration },
    /// This principal holds its quota of live sessions; other principals are not affected.
    Quota { retry_after: Duration },
}

/// A session id as the table stores it: its SHA-256 (computed outside any lock).
pub type SessionKey = Digest;

impl SessionBudget {
    /// The capacity, then the quota, over the sessions in a table at `now`. A session bound to
    /// an older authorization revision does not count against the quota: it can never be used
    /// again (it still takes a slot until it expires).
    fn admits<'s>(
        &self,
        sessions: impl Iterator<Item = &'s Arc<Session>> + Clone,
        owner: OwnerRef<'_>,
        now: Instant,
    ) -> Result<(), Refusal> {
        let live = sessions.filter(|s| now < s.expires_at);
        if live.clone().count() >= self.capacity {
            return Err(Refusal::Full { retry_after: earliest_expiry(live, now) });
        }
        let own = live.filter(|s| s.owner.as_ref() == owner);
        if own.clone().count() >= self.per_principal {
            return Err(Refusal::Quota { retry_after: earliest_expiry(own, now) });
        }
        Ok(())
    }
}

/// How long until the first of `sessions` expires.
fn earliest_expiry<'s>(sessions: impl Iterator<Item = &'s Arc<Session>>, now: Instant) -> Duration {
    sessions.map(|s| s.expires_at.saturating_duration_since(now)).min().unwrap_or_default()
}

impl SessionTable {
    pub fn new(budget: SessionBudget) -> Self {
        let sessions = DigestMap::with_capacity_and_hasher(budget.capacity, Default::default());
        SessionTable { budget, sessions: RwLock::new(sessions) }
    }

    fn read(&self) -> RwLockReadGuard<'_, DigestMap<Arc<Session>>> {
        self.sessions.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, DigestMap<Arc<Session>>> {
        self.sessions.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many sessions are alive at `now`.
    pub fn live(&self, now: Instant) -> usize {
        self.read().values().filter(|s| now < s.expires_at).count()
    }

    /// Whether a session for `owner` could be created at `now`: checked before anything is
    /// drawn or built. [`SessionTable::create`] checks again, atomically.
    pub fn admits(&self, owner: OwnerRef<'_>, now: Instant) -> Result<(), Refusal> {
        self.budget.admits(self.read().values(), owner, now)
    }

    /// Creates a session for `owner` with a caller-drawn id and event tag. Expired sessions are
    /// dropped first; if the table is still full, or `owner` holds its quota, nothing is built
    /// or stored.
    pub fn create(
        &self,
        id: &str,
        tag: String,
        owner: OwnerRef<'_>,
        now: Instant,
    ) -> Result<Arc<Session>, Refusal> {
        let key = SessionKey::of(id.as_bytes());
        let mut sessions = self.write();
        sessions.retain(|_, s| now < s.expires_at);
        self.budget.admits(sessions.values(), owner, now)?;
        let session = Arc::new(Session {
            owner: Owner::from(owner),
            expires_at: now + self.budget.ttl,
            tag,
            initialized: AtomicBool::new(false),
            post_streams: AtomicU64::new(0),
            stream: Mutex::new(StreamState {
                queue: VecDeque::with_capacity(self.budget.events_kept),
                events_kept: self.budget.events_kept,
                last_seq: 0,
                delivered_seq: 0,
                log_level: LogLevel::Info,
            }),
        });
        sessions.insert(key, Arc::clone(&session));
        Ok(session)
    }

    /// The session under `key` if it is alive and owned by `owner`. An expired session is
    /// removed; one owned by someone else is indistinguishable from a missing one.
    pub fn find(&self, key: SessionKey, owner: OwnerRef<'_>, now: Instant) -> Option<Arc<Session>> {
        let session = self.read().get(&key).cloned()?;
        if now >= session.expires_at {
            self.write().remove(&key);
            return None;
        }
        (session.owner.as_ref() == owner).then_some(session)
    }

    /// Ends `session`, found under `key` by [`SessionTable::find`]. False when it had already
    /// ended (another request ended it, or it expired and was dropped, in between).
    pub fn end(&self, key: SessionKey, session: &Arc<Session>) -> bool {
        let mut sessions = self.write();
        match sessions.get(&key) {
            Some(stored) if Arc::ptr_eq(stored, session) => sessions.remove(&key).is_some(),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: SessionBudget = SessionBudget {
        capacity: 2,
        per_principal: 2,
        ttl: Duration::from_secs(60),
        events_kept: 3,
    };

    fn owner(subject: &str) -> Owner {
        Owner { subject: subject.into(), tenant: "acme".into(), authorization_revision: 1 }
    }

    fn note(n: u64) -> Value {
        Value::from(n)
    }

    #[test]
    fn sessions_are_found_only_by_their_owner_until_they_expire() {
        let t0 = Instant::now();
        let table = SessionTable::new(BUDGET);
        table.create("s1", "aa".into(), owner("alice").as_ref(), t0).unwrap();
        assert!(
            table
                .find(SessionKey::of(b"s1"), owner("alice").as_ref(), t0 + Duration::from_secs(59))
                .is_some()
        );
        assert!(table.find(SessionKey::of(b"s1"), owner("mallory").as_ref(), t0).is_none());
        let mut stale = owner("alice");
        stale.authorization_revision = 2;
        assert!(table.find(SessionKey::of(b"s1"), stale.as_ref(), t0).is_none());
        assert!(table.find(SessionKey::of(b"s2"), owner("alice").as_ref(), t0).is_none());
        assert!(
            table
                .find(SessionKey::of(b"s1"), owner("alice").as_ref(), t0 + Duration::from_secs(60))
                .is_none()
        );
        assert_eq!(table.live(t0), 0, "the expired session was removed");
    }

    #[test]
    fn capacity_is_never_exceeded_and_expired_sessions_free_their_place() {
        let t0 = Instant::now();
        let table = SessionTable::new(BUDGET);
        table.create("a", "aa".into(), owner("alice").as_ref(), t0).unwrap();
        table.create("b", "bb".into(), owner("alice").as_ref(), t0).unwrap();
        assert_eq!(
            table.create("c", "cc".into(), owner("bob").as_ref(), t0).err(),
            Some(Refusal::Full { retry_after: Duration::from_secs(60) })
        );
        let a = table.find(SessionKey::of(b"a"), owner("alice").as_ref(), t0).unwrap();
        assert!(table.end(SessionKey::of(b"a"), &a));
        assert!(!table.end(SessionKey::of(b"a"), &a), "ended once only");
        table.create("c", "cc".into(), owner("alice").as_ref(), t0).unwrap();
        let later = t0 + Duration::from_secs(60);
        table.create("d", "dd".into(), owner("alice").as_ref(), later).unwrap();
        assert_eq!(table.live(later), 1);
    }

    #[test]
    fn a_principal_holds_at_most_its_quota_and_stale_revisions_do_not_count() {
        let t0 = Instant::now();
        let budget = SessionBudget { capacity: 4, per_principal: 2, ..BUDGET };
        let table = SessionTable::new(budget);
        let at = |s: u64| t0 + Duration::from_secs(s);
        table.create("a1", "a1".into(), owner("alice").as_ref(), at(0)).unwrap();
        table.create("a2", "a2".into(), owner("alice").as_ref(), at(10)).unwrap();
        // At its quota, alice waits for her oldest session (created at 0, expiring at 60).
        let quota = Refusal::Quota { retry_after: Duration::from_secs(45) };
        assert_eq!(table.admits(owner("alice").as_ref(), at(15)), Err(quota));
        assert_eq!(
            table.create("a3", "a3".into(), owner("alice").as_ref(), at(15)).err(),
            Some(quota)
        );
        // Others keep their slots.
        table.create("b1", "b1".into(), owner("bob").as_ref(), at(15)).unwrap();
        // Alice at a new authorization revision: her old sessions are dead and do not count.
        let mut renewed = owner("alice");
        renewed.authorization_revision = 2;
        table.create("a4", "a4".into(), renewed.as_ref(), at(20)).unwrap();
        // The table is full now: the earliest of all expires at 60.
        let full = Refusal::Full { retry_after: Duration::from_secs(30) };
        assert_eq!(
            table.create("c1", "c1".into(), owner("carol").as_ref(), at(30)).err(),
            Some(full)
        );
        // Once alice's first session expires, she may open one again.
        table.create("a5", "a5".into(), owner("alice").as_ref(), at(60)).unwrap();
    }

    #[test]
    fn polls_deliver_each_event_at_most_once_and_keep_only_the_newest() {
        let t0 = Instant::now();
        let table = SessionTable::new(BUDGET);
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
        let table = SessionTable::new(BUDGET);
        let s = table.create("s", "ab12".into(), owner("alice").as_ref(), t0).unwrap();
        for n in 1..=3 {
            s.notify(LogLevel::Info, note(n));
        }
        let ids = |r: Result<Replay, CursorError>| {
            r.map(|replay| replay.events.into_iter().map(|e| e.id).collect::<Vec<_>>())
        };
        assert_eq!(ids(s.replay_after("ab12-g1")), Ok(vec!["ab12-g2".into(), "ab12-g3".into()]));
        assert_eq!(ids(s.replay_after("ab12-g3")), Ok(vec![]));
        assert_eq!(s.poll().map(|e| e.seq), Some(1), "a replay delivers only what was written");
        s.delivered_through(3);
        assert_eq!(s.poll(), None, "everything up to the last written event is delivered");
        let cases: [(&str, CursorError); 15] = [
            ("ab12-g4", CursorError::NotIssued),
            ("cd34-g1", CursorError::OtherSession),
            ("cd34-p1-1", CursorError::OtherSession),
            ("ab12-p1-1", CursorError::PostStream),
            ("ab12-g", CursorError::Malformed),
            ("ab12-x1", CursorError::Malformed),
            ("g1", CursorError::Malformed),
            ("-g1", CursorError::Malformed),
            ("ab12-g+1", CursorError::Malformed),
            // Only the forms the server writes: no leading zeros, no sign.
            ("ab12-g01", CursorError::Malformed),
            ("ab12-g0001", CursorError::Malformed),
            ("ab12-g-1", CursorError::Malformed),
            ("ab12-p01-1", CursorError::Malformed),
            ("ab12-p1-01", CursorError::Malformed),
            ("ab12-g0", CursorError::NotIssued),
        ];
        for (cursor, expected) in cases {
            assert_eq!(ids(s.replay_after(cursor)), Err(expected), "{cursor}");
        }
        let post = s.open_post_stream();
        assert_eq!(post.event_id(1), "ab12-p1-1");
    }
}
