//! The places open streams take: the share of the workers they may hold, each principal's part
//! of it, and the counters `control … stats` reads.
//!
//! Every stream that stays open holds a worker for as long as it runs: a listen, a slow call
//! while it streams and, in 2025-11-25, while its work goes on after its client left, and a
//! resumption's tail. So every one of them takes a [`Slot`] before it opens, and gives it back
//! when it is dropped, however it ended. A slot is refused, in this order:
//!
//! 1. a listen past `listens_per_principal_max` of its principal's own: 429 `listen_quota`;
//! 2. any stream past its principal's part of the share: 429 `stream_quota`. The part is
//!    `open_streams_per_principal_max`, and never more than a quarter of the share
//!    ([`PRINCIPAL_PART_OF_SHARE`]; at least one stream), so that however few workers a server
//!    has, one principal leaves room for three others;
//! 3. any stream past the share: 503 `stream_share_taken`. The share is `stream_share_percent`
//!    of the workers (at least one), and never the last worker: plain requests always find one.
//!    A server of one worker opens no stream at all.
//!
//! A principal is a subject within a tenant ([`PrincipalKey`]): the same subject in two tenants
//! is two principals, and two subjects of one tenant are two principals. Every key here, for
//! listens and for streams, is one.
//!
//! The fixture's tool list changes in two ways: for everyone (`control … change-tools`), or for
//! one tenant (the `test_trigger_tool_change` tool, which a request runs for its own tenant). A
//! tenant sees the sum of both ([`Live::tools_generation_for`]), so a request never changes what
//! another tenant sees.
//!
//! Not here: what a stream does (`live`), or which request opens one (the endpoint's).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::limits::Limits;

/// A principal's part of the stream share is at most the share divided by this (at least one).
pub const PRINCIPAL_PART_OF_SHARE: usize = 4;

/// Who holds a place: a subject within a tenant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PrincipalKey {
    pub subject: String,
    pub tenant: String,
}

impl PrincipalKey {
    /// The key of `subject` in `tenant`.
    pub fn of(subject: &str, tenant: &str) -> PrincipalKey {
        PrincipalKey { subject: subject.to_owned(), tenant: tenant.to_owned() }
    }
}

/// What kind of place a stream takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamKind {
    /// A `subscriptions/listen` stream: it counts among its principal's listens too.
    Listen,
    /// A slow call or a resumption's tail.
    Work,
}

/// Why a stream could not open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoStream {
    /// The principal holds as many listens as it may.
    ListenQuota,
    /// The principal holds its part of the share.
    StreamQuota,
    /// The share of the workers open streams may hold is taken.
    ShareTaken,
}

/// What one principal holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Held {
    streams: usize,
    listens: usize,
}

/// The places taken, under one lock so that the three checks and the taking are one step.
#[derive(Debug, Default)]
struct Places {
    open: usize,
    by_principal: HashMap<PrincipalKey, Held>,
    /// The tool list's changes made for one tenant alone.
    tenant_changes: HashMap<String, u64>,
}

/// The shared state of the open streams: their places, their counters, what has changed, and
/// whether the server is stopping.
#[derive(Debug)]
pub struct Live {
    pub(super) calls_finished: AtomicU64,
    pub(super) calls_cancelled: AtomicU64,
    /// The most streams open at once.
    share: usize,
    /// The most one principal may hold.
    per_principal: usize,
    listens_max: usize,
    places: Mutex<Places>,
    /// The tool list's changes made for everyone.
    tools_generation: AtomicU64,
    stopping: AtomicBool,
}

/// What the counters say, for `control … stats`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stats {
    pub calls_finished: u64,
    pub calls_cancelled: u64,
    pub streams_open: usize,
    pub listens_open: usize,
    /// How many times the tool list changed, for everyone or for one tenant.
    pub tools_changed: u64,
}

impl Live {
    /// The shared state for a server of `limits`.
    pub fn new(limits: &Limits) -> Live {
        let (share, per_principal) = Live::shares(limits);
        Live {
            calls_finished: AtomicU64::new(0),
            calls_cancelled: AtomicU64::new(0),
            share,
            per_principal,
            listens_max: limits.listens_per_principal_max,
            places: Mutex::new(Places::default()),
            tools_generation: AtomicU64::new(0),
            stopping: AtomicBool::new(false),
        }
    }

    /// The most streams open at once under `limits`, and the most one principal may hold (the
    /// module docs).
    pub fn shares(limits: &Limits) -> (usize, usize) {
        let workers = limits.requests_in_processing_max;
        let share = (workers * limits.stream_share_percent / 100).max(1).min(workers - 1);
        let part = (share / PRINCIPAL_PART_OF_SHARE).max(1);
        (share, limits.open_streams_per_principal_max.min(part))
    }

    fn places(&self) -> MutexGuard<'_, Places> {
        self.places.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The counters now.
    pub fn stats(&self) -> Stats {
        let places = self.places();
        let tenants: u64 = places.tenant_changes.values().sum();
        Stats {
            calls_finished: self.calls_finished.load(Ordering::Relaxed),
            calls_cancelled: self.calls_cancelled.load(Ordering::Relaxed),
            streams_open: places.open,
            listens_open: places.by_principal.values().map(|held| held.listens).sum(),
            tools_changed: self.tools_generation.load(Ordering::Relaxed) + tenants,
        }
    }

    /// The tool list changes for everyone (`control … change-tools`): every listen that opted
    /// in is told. How many times it changed for everyone.
    pub fn change_tools(&self) -> u64 {
        self.tools_generation.fetch_add(1, Ordering::AcqRel) + 1
    }

    /// The tool list changes for `tenant` alone: its listens that opted in are told. The
    /// tenant's generation after it.
    pub fn change_tools_for(&self, tenant: &str) -> u64 {
        let mut places = self.places();
        let changes = places.tenant_changes.entry(tenant.to_owned()).or_insert(0);
        *changes += 1;
        let own = *changes;
        drop(places);
        self.tools_generation.load(Ordering::Acquire) + own
    }

    /// How many times the tool list changed as `tenant` sees it: odd while its spare tool is
    /// listed.
    pub fn tools_generation_for(&self, tenant: &str) -> u64 {
        let own = self.places().tenant_changes.get(tenant).copied().unwrap_or(0);
        self.tools_generation.load(Ordering::Acquire) + own
    }

    /// The server stops: open listens end gracefully, slow calls at their next step.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
    }

    pub(super) fn stopping(&self) -> bool {
        self.stopping.load(Ordering::Acquire)
    }

    /// A place for one more open stream of `kind`, held by `principal`.
    pub fn open_slot(
        self: &Arc<Live>,
        principal: &PrincipalKey,
        kind: StreamKind,
    ) -> Result<Slot, NoStream> {
        let mut places = self.places();
        let held = places.by_principal.get(principal).copied().unwrap_or_default();
        match kind {
            StreamKind::Listen if held.listens >= self.listens_max => {
                return Err(NoStream::ListenQuota);
            }
            StreamKind::Listen | StreamKind::Work => {}
        }
        if held.streams >= self.per_principal {
            return Err(NoStream::StreamQuota);
        }
        if places.open >= self.share {
            return Err(NoStream::ShareTaken);
        }
        places.open += 1;
        let entry = places.by_principal.entry(principal.clone()).or_default();
        entry.streams += 1;
        entry.listens += usize::from(kind == StreamKind::Listen);
        drop(places);
        Ok(Slot { live: Arc::clone(self), principal: principal.clone(), kind })
    }
}

/// One open stream's place in the share and in its principal's part: given back on drop.
#[derive(Debug)]
pub struct Slot {
    live: Arc<Live>,
    principal: PrincipalKey,
    kind: StreamKind,
}

impl Slot {
    /// Who holds the place.
    pub fn principal(&self) -> &PrincipalKey {
        &self.principal
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut places = self.live.places();
        places.open = places.open.saturating_sub(1);
        if let Some(held) = places.by_principal.get_mut(&self.principal) {
            held.streams = held.streams.saturating_sub(1);
            if self.kind == StreamKind::Listen {
                held.listens = held.listens.saturating_sub(1);
            }
            if held.streams == 0 {
                places.by_principal.remove(&self.principal);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_never_takes_the_last_worker_and_a_principal_gets_a_quarter_of_it() {
        /// (workers, share percent, per principal budget) and (share, per principal).
        type Case = ((usize, usize, usize), (usize, usize));
        let cases: [Case; 8] = [
            ((64, 50, 8), (32, 8)),
            ((64, 50, 9), (32, 8)),
            ((64, 50, 2), (32, 2)),
            ((8, 50, 8), (4, 1)),
            ((2, 50, 8), (1, 1)),
            ((2, 100, 8), (1, 1)),
            ((1, 100, 8), (0, 1)),
            ((64, 100, 64), (63, 15)),
        ];
        for ((workers, percent, per_principal), expected) in cases {
            let limits = Limits {
                requests_in_processing_max: workers,
                stream_share_percent: percent,
                open_streams_per_principal_max: per_principal,
                ..Limits::DEFAULT
            };
            assert_eq!(Live::shares(&limits), expected, "{workers} {percent} {per_principal}");
        }
    }

    #[test]
    fn places_are_refused_in_order_and_given_back_on_drop() {
        // A share of 4, one stream each; then a share of 8, two each, one of them a listen.
        let limits = Limits { requests_in_processing_max: 8, ..Limits::DEFAULT };
        let live = Arc::new(Live::new(&limits));
        let key = |subject: &str, tenant: &str| PrincipalKey::of(subject, tenant);
        let alice = live.open_slot(&key("alice", "acme"), StreamKind::Work).unwrap();
        let refused = live.open_slot(&key("alice", "acme"), StreamKind::Listen).unwrap_err();
        assert_eq!(refused, NoStream::StreamQuota);
        let held: Vec<Slot> = [key("bob", "acme"), key("alice", "globex"), key("carol", "acme")]
            .iter()
            .map(|principal| live.open_slot(principal, StreamKind::Listen).unwrap())
            .collect();
        assert_eq!(
            live.open_slot(&key("dave", "acme"), StreamKind::Work).unwrap_err(),
            NoStream::ShareTaken
        );
        assert_eq!((live.stats().streams_open, live.stats().listens_open), (4, 3));
        drop((alice, held));
        assert_eq!((live.stats().streams_open, live.stats().listens_open), (0, 0));
        let limits =
            Limits { requests_in_processing_max: 16, listens_per_principal_max: 1, ..limits };
        let live = Arc::new(Live::new(&limits));
        let _listen = live.open_slot(&key("alice", "acme"), StreamKind::Listen).unwrap();
        let refused = live.open_slot(&key("alice", "acme"), StreamKind::Listen).unwrap_err();
        assert_eq!(refused, NoStream::ListenQuota);
        let _work = live.open_slot(&key("alice", "acme"), StreamKind::Work).unwrap();
        let refused = live.open_slot(&key("alice", "acme"), StreamKind::Work).unwrap_err();
        assert_eq!(refused, NoStream::StreamQuota);
    }

    #[test]
    fn a_tenants_change_is_seen_by_that_tenant_alone() {
        let live = Live::new(&Limits::DEFAULT);
        assert_eq!(live.change_tools_for("acme"), 1);
        assert_eq!(live.tools_generation_for("acme"), 1);
        assert_eq!(live.tools_generation_for("globex"), 0);
        assert_eq!(live.change_tools(), 1);
        assert_eq!(live.tools_generation_for("acme"), 2);
        assert_eq!(live.tools_generation_for("globex"), 1);
        assert_eq!(live.stats().tools_changed, 2);
    }
}
