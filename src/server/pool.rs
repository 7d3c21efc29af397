//! The bounded hand-off between the acceptor and the threads that take connections from it.
//!
//! The hand-off accepts a connection only when a worker is free for it: the connections waiting
//! plus those being served never exceed the number of workers, counted exactly under one lock. A
//! connection counts as served from its `take` to its worker's `finished`, which the worker calls
//! only once it is done with the connection: its last response written, and the socket handed to
//! the lingering set or closed. So there is never a queue of connections behind busy workers
//! (writing workers included) and never a thread per connection, and a worker that has not yet
//! reached its first `take` (just after start) still counts as free.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// A queue of items (connections), each one promised to a taker.
#[derive(Debug)]
pub struct Handoff<T> {
    state: Mutex<HandoffState<T>>,
    ready: Condvar,
    /// The most connections waiting or being served at once.
    capacity: usize,
}

#[derive(Debug)]
struct HandoffState<T> {
    /// Items taken and not yet finished.
    busy: usize,
    pending: VecDeque<T>,
    closed: bool,
}

impl<T> Handoff<T> {
    /// A hand-off for `capacity` takers: a connection is accepted only while fewer than
    /// `capacity` are waiting or being served.
    pub fn new(capacity: usize) -> Handoff<T> {
        let state = HandoffState { busy: 0, pending: VecDeque::new(), closed: false };
        Handoff { state: Mutex::new(state), ready: Condvar::new(), capacity }
    }

    fn lock(&self) -> MutexGuard<'_, HandoffState<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Gives `stream` to a taker, or returns it when every taker is spoken for.
    pub fn offer(&self, stream: T) -> Result<(), T> {
        let mut state = self.lock();
        if state.closed || state.pending.len() + state.busy >= self.capacity {
            return Err(stream);
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

    /// Frees the place of a connection returned by [`Handoff::take`].
    pub fn finished(&self) {
        let mut state = self.lock();
        // Every `finished` follows a `take`; a release build never lets a stray call wrap the
        // count (which would admit connections past the pool).
        debug_assert!(state.busy > 0, "Handoff::finished without a matching take");
        state.busy = state.busy.saturating_sub(1);
    }

    /// Refuses every later offer and wakes every taker; connections still pending are dropped.
    pub fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        state.pending.clear();
        drop(state);
        self.ready.notify_all();
    }
}
