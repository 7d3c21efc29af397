//! The bounded hand-off between the acceptor and the threads that take connections from it.
//!
//! The hand-off accepts a connection only when a worker is free for it: the connections waiting
//! plus those being served never exceed the number of workers, counted exactly under one lock. A
//! connection counts as served from its `take` to its worker's `finished`, which the worker calls
//! only once it is done with the connection: its last response written, and the socket handed to
//! the lingering set or closed. So there is never a queue of connections behind busy workers
//! (writing workers included) and never a thread per connection, and a worker that has not yet
//! reached its first `take` (just after start) still counts as free.
//!
//! One wait is allowed, and it is bounded. A worker tells the hand-off when it starts writing its
//! connection's last response (`closing`): from then on the client may read that response, close
//! and connect again, before the worker is scheduled again to call `finished`. A connection that
//! arrives while every worker is busy and one of them is closing waits for a place, at most
//! `closing_worker_wait` after the latest such start, and only then is refused. A pool busy with
//! anything else (requests in progress, idle kept-alive connections, answers that are not the
//! last) refuses at once, and so does one whose closing workers are stalled past the wait.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// A queue of items (connections), each one promised to a taker.
#[derive(Debug)]
pub struct Handoff<T> {
    state: Mutex<HandoffState<T>>,
    /// Signalled when an item is pending (for takers).
    ready: Condvar,
    /// Signalled when a place is given back (for an offer that waits).
    freed: Condvar,
    /// The most connections waiting or being served at once.
    capacity: usize,
    /// How long after a taker starts its last write an offer may wait for its place.
    closing_wait: Duration,
}

#[derive(Debug)]
struct HandoffState<T> {
    /// Items taken and not yet finished.
    busy: usize,
    /// Of those, the ones whose taker is writing (or has written) its last response.
    closing: usize,
    /// While `closing` is not zero: the latest start of such a write plus the wait.
    closing_until: Option<Instant>,
    /// Offers waiting for a place: `finished` wakes one (and signals only when there is one).
    offers_waiting: usize,
    pending: VecDeque<T>,
    closed: bool,
}

/// What an offer does, from the counts under the lock and the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Decision {
    /// A place is free: the item is queued for a taker.
    Take,
    /// Every place is held, one by a closing taker: wait for it, no later than this.
    WaitUntil(Instant),
    /// Closed, or every place held and none about to be given back.
    Refuse,
}

impl<T> HandoffState<T> {
    fn decide(&self, capacity: usize, now: Instant) -> Decision {
        if self.closed {
            return Decision::Refuse;
        }
        if self.pending.len() + self.busy < capacity {
            return Decision::Take;
        }
        match self.closing_until {
            Some(until) if self.closing > 0 && now < until => Decision::WaitUntil(until),
            Some(_) | None => Decision::Refuse,
        }
    }
}

impl<T> Handoff<T> {
    /// A hand-off for `capacity` takers: a connection is accepted only while fewer than
    /// `capacity` are waiting or being served, or (waiting at most `closing_wait`) once a closing
    /// taker gives its place back.
    pub fn new(capacity: usize, closing_wait: Duration) -> Handoff<T> {
        let state = HandoffState {
            busy: 0,
            closing: 0,
            closing_until: None,
            offers_waiting: 0,
            pending: VecDeque::new(),
            closed: false,
        };
        let (ready, freed) = (Condvar::new(), Condvar::new());
        Handoff { state: Mutex::new(state), ready, freed, capacity, closing_wait }
    }

    fn lock(&self) -> MutexGuard<'_, HandoffState<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Gives `stream` to a taker, or returns it when every taker is spoken for and none is
    /// about to be free.
    pub fn offer(&self, stream: T) -> Result<(), T> {
        let mut state = self.lock();
        loop {
            let now = Instant::now();
            match state.decide(self.capacity, now) {
                Decision::Take => break,
                Decision::Refuse => return Err(stream),
                Decision::WaitUntil(until) => {
                    state.offers_waiting += 1;
                    let waited = self.freed.wait_timeout(state, until.duration_since(now));
                    state = waited.unwrap_or_else(PoisonError::into_inner).0;
                    state.offers_waiting -= 1;
                }
            }
        }
        state.pending.push_back(stream);
        drop(state);
        self.ready.notify_one();
        Ok(())
    }

    /// Waits for the next connection; `None` once the hand-off is closed. The caller must call
    /// [`Handoff::finished`] when done with it.
    pub fn take(&self) -> Option<T> {
        let mut state = self.lock();
        loop {
            if let Some(stream) = state.pending.pop_front() {
                state.busy += 1;
                return Some(stream);
            }
            if state.closed {
                return None;
            }
            state = self.ready.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// A taker starts writing its connection's last response at `now`; it calls this once per
    /// connection, and says so to [`Handoff::finished`].
    pub fn closing(&self, now: Instant) {
        let mut state = self.lock();
        state.closing += 1;
        // `closing_wait` is at most a day (its budget's ceiling): the sum fits the clock.
        let until = now + self.closing_wait;
        state.closing_until = Some(state.closing_until.map_or(until, |u| u.max(until)));
    }

    /// Frees the place of a connection returned by [`Handoff::take`]; `closing` when its taker
    /// called [`Handoff::closing`] for it.
    pub fn finished(&self, closing: bool) {
        let mut state = self.lock();
        // Every `finished` follows a `take`; a release build never lets a stray call wrap the
        // count (which would admit connections past the pool).
        debug_assert!(state.busy > 0, "Handoff::finished without a matching take");
        state.busy = state.busy.saturating_sub(1);
        if closing {
            state.closing = state.closing.saturating_sub(1);
            if state.closing == 0 {
                state.closing_until = None;
            }
        }
        // A signal is a system call: a connection's end pays for one only when an offer waits.
        let wake = state.offers_waiting > 0;
        drop(state);
        if wake {
            self.freed.notify_one();
        }
    }

    /// The places held, and of those the closing ones.
    #[cfg(test)]
    pub fn counts(&self) -> (usize, usize) {
        let state = self.lock();
        (state.busy, state.closing)
    }

    /// Refuses every later offer and wakes every taker; connections still pending are dropped.
    pub fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        state.pending.clear();
        drop(state);
        self.ready.notify_all();
        self.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offer_waits_only_for_a_closing_taker_and_only_until_the_wait_ends() {
        let t0 = Instant::now();
        let until = t0 + Duration::from_millis(100);
        let ns = Duration::from_nanos(1);
        // (capacity, pending, busy, closing, closing_until, closed, now, decision)
        let cases = [
            (2, 0, 1, 0, None, false, t0, Decision::Take),
            (2, 1, 0, 0, None, false, t0, Decision::Take),
            (2, 1, 1, 0, None, false, t0, Decision::Refuse),
            (2, 0, 2, 0, None, false, t0, Decision::Refuse),
            (2, 0, 2, 1, Some(until), false, t0, Decision::WaitUntil(until)),
            (2, 0, 2, 1, Some(until), false, until - ns, Decision::WaitUntil(until)),
            (2, 0, 2, 1, Some(until), false, until, Decision::Refuse),
            (2, 0, 2, 0, Some(until), false, t0, Decision::Refuse),
            (2, 0, 1, 1, Some(until), false, t0, Decision::Take),
            (2, 0, 0, 0, None, true, t0, Decision::Refuse),
            (2, 0, 2, 1, Some(until), true, t0, Decision::Refuse),
        ];
        for (row, (capacity, pending, busy, closing, closing_until, closed, now, decision)) in
            cases.into_iter().enumerate()
        {
            let state = HandoffState {
                busy,
                closing,
                closing_until,
                offers_waiting: 0,
                pending: (0..pending).collect(),
                closed,
            };
            assert_eq!(state.decide(capacity, now), decision, "row {row}");
        }
    }

    #[test]
    fn the_wait_runs_from_the_latest_closing_start_and_ends_with_the_last_closing_taker() {
        let handoff = Handoff::<u8>::new(2, Duration::from_millis(100));
        let t0 = Instant::now();
        handoff.closing(t0 + Duration::from_millis(30));
        handoff.closing(t0);
        let until = |h: &Handoff<u8>| h.lock().closing_until;
        assert_eq!(until(&handoff), Some(t0 + Duration::from_millis(130)));
        handoff.lock().busy = 2;
        handoff.finished(true);
        assert_eq!(until(&handoff), Some(t0 + Duration::from_millis(130)));
        handoff.finished(true);
        assert_eq!(until(&handoff), None);
        assert_eq!(handoff.counts(), (0, 0));
    }

    #[test]
    fn offers_behind_stalled_last_writes_wait_once_for_the_wait_and_then_are_refused_at_once() {
        let wait = Duration::from_millis(100);
        let handoff = Handoff::new(4, wait);
        for n in 0..4 {
            assert_eq!(handoff.offer(n), Ok(()));
            assert_eq!(handoff.take(), Some(n));
        }
        // Every taker starts its last write and stalls in it: the peers never read.
        let started = Instant::now();
        (0..4).for_each(|_| handoff.closing(started));
        let first = handoff.offer(4);
        let waited = started.elapsed();
        assert_eq!(first, Err(4));
        assert!(waited >= wait, "refused after {waited:?}, before the wait ended");
        for n in 5..10 {
            assert_eq!(handoff.offer(n), Err(n));
        }
        let all = started.elapsed();
        assert!(all < Duration::from_secs(1), "six offers took {all:?}");
    }
}
