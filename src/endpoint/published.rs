//! The token policy as the control plane last left it, handed to the connections without a write
//! to shared memory per request.
//!
//! The control plane edits the one published policy under a mutex and, before letting go of it,
//! counts the edit in a version number. A connection keeps the policy it read last with the
//! version it was read at ([`PolicyView`]): read under the mutex when the connection starts, and
//! again only when a request finds that the number moved. Each request reads the version (a
//! load, never a write, so the cache line it sits on stays shared by every core). An edit never
//! changes a state a connection holds: `Arc::make_mut` copies it first when anyone still holds
//! it, so a request sees one state from stage 5 to stage 8.
//!
//! What an edit means for requests: every request that reads the version after the edit has
//! returned runs under the new state (the very next request, on any connection); a request that
//! read it before finishes under the state it read. This is the order of the edit and the
//! request, not a cache: nothing the policy decides is kept, only the state it decides from.
//!
//! What it does not do: decide anything (that is [`OfflineTokenPolicy`]'s), hold a lock across
//! I/O, or bound how long an idle connection keeps an old state alive (until its next request or
//! its end; a state is fixture-sized).

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::auth::policy::OfflineTokenPolicy;

/// The policy in force and the count of edits made to it.
#[derive(Debug)]
pub(crate) struct PublishedPolicy {
    /// How many edits have been made. Written only under `current`'s lock, after the edit; read
    /// by every request. On cache lines of its own, so that the reads every request makes near
    /// it are not evicted by the rare write.
    version: OwnLines<AtomicU64>,
    current: Mutex<Arc<OwnLines<OfflineTokenPolicy>>>,
}

/// A value on cache lines of its own: 128 bytes, the pair an adjacent-line prefetcher fetches
/// together, so that writing it never evicts what other threads read nearby. Around the policy's
/// state it keeps the `Arc`'s counts (written when a connection starts, refreshes or ends) off
/// the lines every request reads.
#[derive(Clone, Debug)]
#[repr(align(128))]
struct OwnLines<T>(T);

/// The state of the policy one connection read last, and the version it was read at: the
/// published one when the connection starts ([`PublishedPolicy::view`]), replaced by
/// [`PublishedPolicy::current`] when an edit moved the version.
#[derive(Debug)]
pub struct PolicyView {
    version: u64,
    state: Arc<OwnLines<OfflineTokenPolicy>>,
}

/// An edit in progress: the policy, with the mutex held. Dropping it publishes the edit (the
/// version moves on, then the mutex is released) when the policy was borrowed to be written; an
/// edit that only read it moves nothing.
#[derive(Debug)]
pub struct PolicyEdit<'p> {
    current: MutexGuard<'p, Arc<OwnLines<OfflineTokenPolicy>>>,
    version: &'p AtomicU64,
    written: bool,
}

impl PublishedPolicy {
    pub(crate) fn new(policy: OfflineTokenPolicy) -> PublishedPolicy {
        PublishedPolicy {
            version: OwnLines(AtomicU64::new(0)),
            current: Mutex::new(Arc::new(OwnLines(policy))),
        }
    }

    /// The published state and its version, read together under the mutex (an edit moves the
    /// version before it lets go of the mutex): a new connection's view.
    pub(crate) fn view(&self) -> PolicyView {
        let current = self.lock();
        PolicyView { version: self.version.0.load(Ordering::Relaxed), state: Arc::clone(&current) }
    }

    /// The state in force for a request on the connection that holds `view`: the one in `view`
    /// when no edit was made since it was read, the published one otherwise (then kept there).
    pub(crate) fn current<'v>(&self, view: &'v mut PolicyView) -> &'v OfflineTokenPolicy {
        if view.version != self.version.0.load(Ordering::Acquire) {
            *view = self.view();
        }
        &view.state.0
    }

    /// An edit of the published state, seen by every request that starts after it is dropped.
    pub(crate) fn edit(&self) -> PolicyEdit<'_> {
        PolicyEdit { current: self.lock(), version: &self.version.0, written: false }
    }

    fn lock(&self) -> MutexGuard<'_, Arc<OwnLines<OfflineTokenPolicy>>> {
        self.current.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Deref for PolicyEdit<'_> {
    type Target = OfflineTokenPolicy;

    fn deref(&self) -> &OfflineTokenPolicy {
        &self.current.0
    }
}

impl DerefMut for PolicyEdit<'_> {
    /// The published state, copied first when a connection still holds it, so that no request
    /// ever sees a state change under it.
    fn deref_mut(&mut self) -> &mut OfflineTokenPolicy {
        self.written = true;
        &mut Arc::make_mut(&mut self.current).0
    }
}

impl Drop for PolicyEdit<'_> {
    fn drop(&mut self) {
        // Runs before the guard is released, so a reader that takes the mutex next reads the
        // new version beside the new state.
        if self.written {
            self.version.fetch_add(1, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use super::*;
    use crate::auth::fixtures::{Fixture, Role};
    use crate::server::fill_os_random;

    /// A published fixture policy and the token of [`Role::Full`].
    fn published() -> (PublishedPolicy, String) {
        let fixture = Fixture::build(8765, SystemTime::now(), &mut fill_os_random).unwrap();
        let token = format!("Bearer {}", fixture.token(Role::Full));
        (PublishedPolicy::new(fixture.policy), token)
    }

    /// True when `policy` lets `authorization` in.
    fn admits(policy: &OfflineTokenPolicy, authorization: &str) -> bool {
        policy.identify([authorization.as_bytes()], SystemTime::now()).is_ok()
    }

    /// The address of the state a view reads (compared, never dereferenced).
    fn address(published: &PublishedPolicy, view: &mut PolicyView) -> *const OfflineTokenPolicy {
        published.current(view)
    }

    #[test]
    fn a_request_under_an_unchanged_policy_never_takes_the_mutex() {
        let (published, token) = published();
        let mut view = published.view();
        let first = address(&published, &mut view) as usize;
        let held = published.lock();
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                for _ in 0..3 {
                    let same = address(&published, &mut view) as usize == first;
                    let admitted = admits(published.current(&mut view), &token);
                    // A send fails only when the test already stopped listening.
                    let _ = done.send(same && admitted);
                }
            });
            let wait = std::time::Duration::from_secs(5);
            let answers: Vec<_> = (0..3).map(|_| finished.recv_timeout(wait)).collect();
            // Released before judging, so that a request stuck on it can finish.
            drop(held);
            let kept = answers.iter().all(|answer| *answer == Ok(true));
            assert!(kept, "a request waited for the mutex or changed state: {answers:?}");
        });
        assert_eq!(Arc::strong_count(&published.lock()), 2, "the published state and one view");
    }

    #[test]
    fn every_view_reads_an_edit_on_its_next_request() {
        let (published, token) = published();
        let (mut used, mut idle) = (published.view(), published.view());
        assert!(admits(published.current(&mut used), &token));
        assert!(Role::Full.revoke_in(&mut published.edit()));
        // The next request, on a connection that served before the edit, on one that started
        // before it and served nothing yet, and on one that starts after it.
        assert!(!admits(published.current(&mut used), &token));
        assert!(!admits(published.current(&mut idle), &token));
        assert!(!admits(published.current(&mut published.view()), &token));
    }

    #[test]
    fn an_edit_no_connection_holds_is_made_in_place_and_still_published() {
        let (published, token) = published();
        let before = address(&published, &mut published.view());
        assert!(Role::Full.revoke_in(&mut published.edit()));
        let mut view = published.view();
        assert_eq!(address(&published, &mut view), before, "nobody held it: no copy");
        assert!(!admits(published.current(&mut view), &token));
        assert_eq!(published.version.0.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn each_written_edit_moves_the_version_once_and_a_read_only_one_not_at_all() {
        let (published, _) = published();
        let mut view = published.view();
        for edits in 1..=3u64 {
            assert!(Role::Full.bump_revision_in(&mut published.edit()).is_some());
            let _ = published.edit().resource().len();
            let _ = published.current(&mut view);
            assert_eq!(view.version, edits);
        }
    }

    #[test]
    fn a_revocation_holds_for_every_thread_reading_after_it_returns() {
        let (published, token) = published();
        let revoked = std::sync::atomic::AtomicBool::new(false);
        let readers = 4;
        let all_admitted = std::sync::Barrier::new(readers + 1);
        std::thread::scope(|scope| {
            for _ in 0..readers {
                scope.spawn(|| {
                    let mut view = published.view();
                    assert!(admits(published.current(&mut view), &token), "admitted before");
                    all_admitted.wait();
                    loop {
                        // Read the flag first: once it is set, the edit has returned.
                        let after = revoked.load(Ordering::Acquire);
                        let allowed = admits(published.current(&mut view), &token);
                        assert!(!(after && allowed), "a request after the edit was let in");
                        if after {
                            return;
                        }
                    }
                });
            }
            // Every reader has been let in once and is reading while the edit is made.
            all_admitted.wait();
            assert!(Role::Full.revoke_in(&mut published.edit()));
            revoked.store(true, Ordering::Release);
        });
    }
}
