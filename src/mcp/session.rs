//! Sessions: who owns each one, when it ends, and its event streams.
//!
//! A session is created by a successful `initialize` and bound to the principal that made it
//! (subject, tenant and authorization revision). Every later request must present both a valid
//! token and the session id, and the session is found only when the token's principal is the
//! owner: an id alone authenticates nothing, and another principal's session looks exactly like
//! one that does not exist. Lifetime is fixed at creation (never extended by use); the table holds
//! at most `capacity` live sessions and refuses a new one rather than evicting.
//!
//! Each session owns its event streams ([`super::stream::EventLog`]): the GET stream, its POST
//! streams, and the messages kept for resuming them, under the session's kept budget. They live
//! exactly as long as the session: once it ends or expires, every request naming it is refused
//! before any cursor is read, and its kept messages are freed as it leaves the table (a connection
//! that found it last may hold the session itself a little longer, never its messages).
//!
//! A connection keeps the session it found last ([`LastSession`]): every request of a
//! keep-alive connection in one session would otherwise take the table's lock and a reference
//! count, two writes to memory every worker shares. Kept or not, a session is used only after the
//! same three checks: the id's digest is the one stored, the session has not ended or expired,
//! and the asking principal owns it.
//!
//! **Requests in progress.** A session lists its requests whose work is still running
//! ([`Session::begin`]), each with a flag that a `notifications/cancelled` naming its id sets
//! ([`Session::cancel`]). Request ids are chosen by clients, so two sessions (of one principal or
//! of two) use the same ids all the time: an id means something only in the session that sent
//! it. A cancellation therefore reaches the requests in progress of its own session under that
//! id, and nothing else: an unknown id, a finished request's, or another session's changes
//! nothing, and no principal can stop another's work by guessing ids. Every cancellation is
//! answered 202 alike, so none tells which ids are in progress.
//!
//! Pure data: time is an [`Instant`] argument and ids and tags come from the caller's randomness.
//! The table stores sessions under the SHA-256 of their id, so it never holds a raw id.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

pub use super::stream::CursorError;
use super::stream::{EventLog, KeptBudget};
use super::tag::EventTag;
use crate::digest::{Digest, DigestMap};
use crate::mcp::jsonrpc::Id;

/// The principal a session is bound to. The endpoint builds it from the token policy's principal;
/// this module needs only these three values, so it does not depend on the policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub subject: Arc<str>,
    pub tenant: Arc<str>,
    pub authorization_revision: u64,
}

/// A principal to compare with a session's owner, without copying it: a session made for it
/// shares its texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnerRef<'a> {
    pub subject: &'a Arc<str>,
    pub tenant: &'a Arc<str>,
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
            subject: Arc::clone(o.subject),
            tenant: Arc::clone(o.tenant),
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
    /// What each session keeps for resuming its streams.
    pub kept: KeptBudget,
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

    /// The level at `index` of [`LogLevel::ALL`] (the least severe past its end).
    fn from_index(index: u8) -> LogLevel {
        LogLevel::ALL.get(usize::from(index)).copied().unwrap_or(LogLevel::Debug)
    }
}

/// One live session. Its identity (owner, lifetime) never changes; what does is behind its own
/// lock or an atomic, so requests in different sessions never wait for each other and requests in
/// the same session wait only while an event stream is written.
#[derive(Debug)]
pub struct Session {
    owner: Owner,
    expires_at: Instant,
    /// Set (under the table's write lock) when it leaves the table, so that a connection that
    /// kept it sees that it is gone without asking the table.
    ended: AtomicBool,
    initialized: AtomicBool,
    /// The least severe level of `notifications/message` it receives, as an index of
    /// [`LogLevel::ALL`].
    log_level: AtomicU8,
    events: Mutex<EventLog>,
    /// Its requests whose work is in progress, each with its cancellation flag: what a
    /// `notifications/cancelled` in this session can reach.
    in_progress: Mutex<Vec<(Id, Arc<AtomicBool>)>>,
}

/// A request of a session whose work is in progress, listed in the session until this is
/// dropped (however the work ended). A `notifications/cancelled` of the same session naming its
/// id sets its flag.
#[derive(Debug)]
pub struct InProgress {
    session: Arc<Session>,
    flag: Arc<AtomicBool>,
}

impl InProgress {
    /// Whether the client cancelled the request.
    pub fn cancelled(&self) -> bool {
        self.flag.load(Ordering::Acquire)
    }
}

impl Drop for InProgress {
    fn drop(&mut self) {
        let mut calls = self.session.in_progress();
        calls.retain(|(_, flag)| !Arc::ptr_eq(flag, &self.flag));
    }
}

impl Session {
    /// Lists the request `id` as in progress until the returned guard is dropped.
    pub fn begin(self: &Arc<Session>, id: &Id) -> InProgress {
        let flag = Arc::new(AtomicBool::new(false));
        self.in_progress().push((id.clone(), Arc::clone(&flag)));
        InProgress { session: Arc::clone(self), flag }
    }

    /// Cancels every request of this session in progress under `id`: whether one was. An id
    /// that names nothing in progress here (unknown, finished, another session's) changes
    /// nothing: request ids are chosen by clients, so they mean something only within the
    /// session that sent them.
    pub fn cancel(&self, id: &Id) -> bool {
        let calls = self.in_progress();
        let mut found = false;
        for (_, flag) in calls.iter().filter(|(listed, _)| listed.same_as(id)) {
            flag.store(true, Ordering::Release);
            found = true;
        }
        found
    }

    fn in_progress(&self) -> MutexGuard<'_, Vec<(Id, Arc<AtomicBool>)>> {
        self.in_progress.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// True when it is still in the table at `now` and `owner` owns it: what
    /// the table's lookup checks, without the table.
    fn is_live_for(&self, owner: OwnerRef<'_>, now: Instant) -> bool {
        !self.ended.load(Ordering::Acquire) && now < self.expires_at && self.owner.as_ref() == owner
    }

    /// Marks it ended and frees its kept messages, as it leaves the table (under the table's
    /// write lock): a connection that kept it sees it gone, and holds no messages.
    fn leave(&self) {
        self.ended.store(true, Ordering::Release);
        self.events().forget_kept();
    }

    /// True once `notifications/initialized` has arrived.
    pub fn is_initialized(&self) -> bool {
        self.initialized.load(Ordering::Acquire)
    }

    pub fn mark_initialized(&self) {
        self.initialized.store(true, Ordering::Release);
    }

    pub fn set_log_level(&self, level: LogLevel) {
        self.log_level.store(level as u8, Ordering::Release);
    }

    /// True when a `notifications/message` at `level` passes the session's logging level.
    pub fn receives(&self, level: LogLevel) -> bool {
        level >= LogLevel::from_index(self.log_level.load(Ordering::Acquire))
    }

    /// Queues a `notifications/message` for the GET stream if `level` passes the session's
    /// logging level; `message` writes its text, and is called only then.
    pub fn notify(&self, level: LogLevel, message: impl FnOnce() -> String) {
        if self.receives(level) {
            self.events().notify(message());
        }
    }

    /// The session's event streams, locked: held while one response's stream is written, never
    /// across I/O.
    pub fn events(&self) -> MutexGuard<'_, EventLog> {
        self.events.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The live sessions. Lookups share a read lock; only creating, ending and expiring sessions
/// take the write lock, and neither is ever held across I/O. The one nesting: a session leaving
/// the table has its events lock taken under the table's write lock (to free its messages);
/// nothing takes the table's lock while holding a session's.
#[derive(Debug)]
pub struct SessionTable {
    budget: SessionBudget,
    sessions: RwLock<DigestMap<Arc<Session>>>,
}

/// Why no session was created. Each says how long until the earliest session that stands in
/// the way expires: the time after which asking again can succeed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoRoom {
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
    ) -> Result<(), NoRoom> {
        let live = sessions.filter(|s| now < s.expires_at);
        if live.clone().count() >= self.capacity {
            return Err(NoRoom::Full { retry_after: earliest_expiry(live, now) });
        }
        let own = live.filter(|s| s.owner.as_ref() == owner);
        if own.clone().count() >= self.per_principal {
            return Err(NoRoom::Quota { retry_after: earliest_expiry(own, now) });
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
    pub fn admits(&self, owner: OwnerRef<'_>, now: Instant) -> Result<(), NoRoom> {
        self.budget.admits(self.read().values(), owner, now)
    }

    /// Creates a session for `owner` with a caller-drawn id and event tag. Expired sessions are
    /// dropped first; if the table is still full, or `owner` holds its quota, nothing is built
    /// or stored.
    pub fn create(
        &self,
        id: &str,
        tag: EventTag,
        owner: OwnerRef<'_>,
        now: Instant,
    ) -> Result<Arc<Session>, NoRoom> {
        let key = SessionKey::of(id.as_bytes());
        let mut sessions = self.write();
        sessions.retain(|_, s| {
            let live = now < s.expires_at;
            if !live {
                s.leave();
            }
            live
        });
        self.budget.admits(sessions.values(), owner, now)?;
        let session = Arc::new(Session {
            owner: Owner::from(owner),
            expires_at: now + self.budget.ttl,
            ended: AtomicBool::new(false),
            initialized: AtomicBool::new(false),
            log_level: AtomicU8::new(LogLevel::Info as u8),
            events: Mutex::new(EventLog::new(tag, self.budget.kept)),
            in_progress: Mutex::new(Vec::new()),
        });
        sessions.insert(key, Arc::clone(&session));
        Ok(session)
    }

    /// The session under `key` if it is alive and owned by `owner`. An expired session is
    /// removed; one owned by someone else is indistinguishable from a missing one.
    fn find(&self, key: SessionKey, owner: OwnerRef<'_>, now: Instant) -> Option<Arc<Session>> {
        let session = self.read().get(&key).cloned()?;
        if now >= session.expires_at {
            let mut sessions = self.write();
            if sessions.get(&key).is_some_and(|stored| Arc::ptr_eq(stored, &session)) {
                Self::remove(&mut sessions, key);
            }
            return None;
        }
        (session.owner.as_ref() == owner).then_some(session)
    }

    /// The session under `key` if it is alive and owned by `owner`, for a connection that keeps
    /// the session it found last in `last`: that one when `key` is its key and it passes the same
    /// checks, else the table's answer, which `last` then keeps (or forgets, when there is none).
    /// An expired session is removed; one owned by someone else is indistinguishable from a
    /// missing one.
    pub fn find_for<'l>(
        &self,
        last: &'l mut LastSession,
        key: SessionKey,
        owner: OwnerRef<'_>,
        now: Instant,
    ) -> Option<&'l Arc<Session>> {
        let kept = last.0.as_ref().is_some_and(|(k, s)| *k == key && s.is_live_for(owner, now));
        if !kept {
            // Let go of the old one first: it stays forgotten when the table has nothing.
            last.0 = None;
            last.0 = Some((key, self.find(key, owner, now)?));
        }
        last.0.as_ref().map(|(_, session)| session)
    }

    /// Ends `session`, found under `key` by [`SessionTable::find_for`]. False when it had already
    /// ended (another request ended it, or it expired and was dropped, in between).
    pub fn end(&self, key: SessionKey, session: &Arc<Session>) -> bool {
        let mut sessions = self.write();
        match sessions.get(&key) {
            Some(stored) if Arc::ptr_eq(stored, session) => Self::remove(&mut sessions, key),
            _ => false,
        }
    }

    /// Takes the session under `key` out of `sessions` and marks it ended; false when none was
    /// there. Every removal goes through here or through [`Session::leave`] (`create`'s sweep).
    fn remove(sessions: &mut DigestMap<Arc<Session>>, key: SessionKey) -> bool {
        let removed = sessions.remove(&key);
        if let Some(session) = &removed {
            session.leave();
        }
        removed.is_some()
    }
}

/// The session one connection found last, under its key: see the module's note. Empty at first;
/// [`SessionTable::find_for`] fills and replaces it.
#[derive(Debug, Default)]
pub struct LastSession(Option<(SessionKey, Arc<Session>)>);

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(text: &str) -> EventTag {
        EventTag::new(text).unwrap()
    }

    const BUDGET: SessionBudget = SessionBudget {
        capacity: 2,
        per_principal: 2,
        ttl: Duration::from_secs(60),
        kept: KeptBudget { messages_max: 3, bytes_max: 100 },
    };

    fn owner(subject: &str) -> Owner {
        Owner { subject: subject.into(), tenant: "acme".into(), authorization_revision: 1 }
    }

    fn note(n: u64) -> impl FnOnce() -> String {
        move || n.to_string()
    }

    #[test]
    fn sessions_are_found_only_by_their_owner_until_they_expire() {
        let t0 = Instant::now();
        let table = SessionTable::new(BUDGET);
        table.create("s1", tag("aa"), owner("alice").as_ref(), t0).unwrap();
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
        table.create("a", tag("aa"), owner("alice").as_ref(), t0).unwrap();
        table.create("b", tag("bb"), owner("alice").as_ref(), t0).unwrap();
        assert_eq!(
            table.create("c", tag("cc"), owner("bob").as_ref(), t0).err(),
            Some(NoRoom::Full { retry_after: Duration::from_secs(60) })
        );
        let a = table.find(SessionKey::of(b"a"), owner("alice").as_ref(), t0).unwrap();
        assert!(table.end(SessionKey::of(b"a"), &a));
        assert!(!table.end(SessionKey::of(b"a"), &a), "ended once only");
        table.create("c", tag("cc"), owner("alice").as_ref(), t0).unwrap();
        let later = t0 + Duration::from_secs(60);
        table.create("d", tag("dd"), owner("alice").as_ref(), later).unwrap();
        assert_eq!(table.live(later), 1);
    }

    #[test]
    fn a_principal_holds_at_most_its_quota_and_stale_revisions_do_not_count() {
        let t0 = Instant::now();
        let budget = SessionBudget { capacity: 4, per_principal: 2, ..BUDGET };
        let table = SessionTable::new(budget);
        let at = |s: u64| t0 + Duration::from_secs(s);
        table.create("a1", tag("a1"), owner("alice").as_ref(), at(0)).unwrap();
        table.create("a2", tag("a2"), owner("alice").as_ref(), at(10)).unwrap();
        // At its quota, alice waits for her oldest session (created at 0, expiring at 60).
        let quota = NoRoom::Quota { retry_after: Duration::from_secs(45) };
        assert_eq!(table.admits(owner("alice").as_ref(), at(15)), Err(quota));
        assert_eq!(
            table.create("a3", tag("a3"), owner("alice").as_ref(), at(15)).err(),
            Some(quota)
        );
        // Others keep their slots.
        table.create("b1", tag("b1"), owner("bob").as_ref(), at(15)).unwrap();
        // Alice at a new authorization revision: her old sessions are dead and do not count.
        let mut renewed = owner("alice");
        renewed.authorization_revision = 2;
        table.create("a4", tag("a4"), renewed.as_ref(), at(20)).unwrap();
        // The table is full now: the earliest of all expires at 60.
        let full = NoRoom::Full { retry_after: Duration::from_secs(30) };
        assert_eq!(
            table.create("c1", tag("c1"), owner("carol").as_ref(), at(30)).err(),
            Some(full)
        );
        // Once alice's first session expires, she may open one again.
        table.create("a5", tag("a5"), owner("alice").as_ref(), at(60)).unwrap();
    }

    #[test]
    fn a_kept_session_is_used_only_where_the_table_would_find_it() {
        let t0 = Instant::now();
        let later = |s: u64| t0 + Duration::from_secs(s);
        let mut stale = owner("alice");
        stale.authorization_revision = 2;
        let (s1, s2) = (SessionKey::of(b"s1"), SessionKey::of(b"s2"));
        // (what happens after alice's connection found s1, then its next lookup, and the session
        // found then: by name, or none)
        type Case =
            (&'static str, fn(&SessionTable), SessionKey, Owner, Instant, Option<&'static str>);
        let cases: [Case; 9] = [
            ("nothing", |_| {}, s1, owner("alice"), later(59), Some("s1")),
            ("someone else asks", |_| {}, s1, owner("mallory"), t0, None),
            ("a stale revision asks", |_| {}, s1, stale.clone(), t0, None),
            ("it expires", |_| {}, s1, owner("alice"), later(60), None),
            ("another connection ends it", end_s1, s1, owner("alice"), t0, None),
            (
                "it expires and another lookup drops it",
                expire_s1,
                s1,
                owner("alice"),
                later(61),
                None,
            ),
            ("another lookup's create sweeps it", sweep, s1, owner("alice"), later(59), None),
            ("the next request names s2", |_| {}, s2, owner("alice"), t0, Some("s2")),
            ("another connection ends s2", end_s2, s1, owner("alice"), t0, Some("s1")),
        ];
        fn end_s1(table: &SessionTable) {
            let s = table.find(SessionKey::of(b"s1"), owner("alice").as_ref(), Instant::now());
            assert!(table.end(SessionKey::of(b"s1"), &s.unwrap()));
        }
        fn end_s2(table: &SessionTable) {
            let s = table.find(SessionKey::of(b"s2"), owner("alice").as_ref(), Instant::now());
            assert!(table.end(SessionKey::of(b"s2"), &s.unwrap()));
        }
        fn sweep(table: &SessionTable) {
            let gone = Instant::now() + Duration::from_secs(61);
            table.create("s3", tag("a3"), owner("bob").as_ref(), gone).unwrap();
        }
        fn expire_s1(table: &SessionTable) {
            let gone = Instant::now() + Duration::from_secs(120);
            assert!(table.find(SessionKey::of(b"s1"), owner("alice").as_ref(), gone).is_none());
        }
        for (event, happen, key, asker, at, expected) in cases {
            let table = SessionTable::new(BUDGET);
            let created = [
                ("s1", table.create("s1", tag("a1"), owner("alice").as_ref(), t0).unwrap()),
                ("s2", table.create("s2", tag("a2"), owner("alice").as_ref(), t0).unwrap()),
            ];
            let mut last = LastSession::default();
            assert!(table.find_for(&mut last, s1, owner("alice").as_ref(), t0).is_some());
            happen(&table);
            let found = table.find_for(&mut last, key, asker.as_ref(), at).cloned();
            let name = found.as_ref().and_then(|found| {
                created.iter().find(|(_, s)| Arc::ptr_eq(s, found)).map(|(name, _)| *name)
            });
            assert_eq!(name, expected, "after: {event}");
            let kept = last.0.as_ref().map(|(k, s)| (*k, Arc::as_ptr(s)));
            assert_eq!(kept, found.as_ref().map(|s| (key, Arc::as_ptr(s))), "kept after: {event}");
        }
    }

    #[test]
    fn a_session_leaving_the_table_frees_its_kept_messages_whoever_holds_it() {
        let t0 = Instant::now();
        let table = SessionTable::new(BUDGET);
        let later = t0 + Duration::from_secs(60);
        // Ended, expired and dropped by a lookup, expired and swept by a create.
        for how in ["end", "lookup", "create"] {
            let s = table.create("s", tag("ab"), owner("alice").as_ref(), t0).unwrap();
            s.notify(LogLevel::Info, note(1));
            s.notify(LogLevel::Info, note(2));
            assert_eq!(s.events().kept(), (2, 2));
            match how {
                "end" => assert!(table.end(SessionKey::of(b"s"), &s)),
                "lookup" => assert!(
                    table.find(SessionKey::of(b"s"), owner("alice").as_ref(), later).is_none()
                ),
                _ => drop(table.create("t", tag("cd"), owner("bob").as_ref(), later).unwrap()),
            }
            assert_eq!(s.events().kept(), (0, 0), "{how}");
            assert!(!s.is_live_for(owner("alice").as_ref(), t0), "{how}");
            if how == "create" {
                let t = table.find(SessionKey::of(b"t"), owner("bob").as_ref(), later).unwrap();
                assert!(table.end(SessionKey::of(b"t"), &t));
            }
        }
    }

    #[test]
    fn the_logging_level_filters_what_the_get_stream_receives() {
        let t0 = Instant::now();
        let table = SessionTable::new(BUDGET);
        let s = table.create("s", tag("ab12"), owner("alice").as_ref(), t0).unwrap();
        assert!(s.receives(LogLevel::Info) && !s.receives(LogLevel::Debug));
        s.notify(LogLevel::Info, note(1));
        s.set_log_level(LogLevel::Warning);
        s.notify(LogLevel::Info, note(2));
        s.notify(LogLevel::Error, note(3));
        assert_eq!(s.events().kept(), (2, 2));
    }
}
