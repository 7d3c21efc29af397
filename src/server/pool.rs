//! A fixed set of worker threads fed through a bounded hand-off, and a single thread that answers
//! 503 to connections no worker is free to take.
//!
//! The hand-off accepts a connection only when a worker is free for it: the connections waiting
//! plus those being served never exceed the number of workers, counted exactly under one lock. So
//! there is never a queue of connections behind busy workers and never a thread per connection,
//! and a worker that has not yet reached its first `take` (just after start) still counts as free.
//! A refused connection goes to the rejecter, whose own queue is bounded; when even that is full
//! the connection is simply closed.

use std::collections::VecDeque;
use std::net::TcpStream;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// A queue of connections, each one promised to a taker.
#[derive(Debug)]
pub struct Handoff {
    state: Mutex<HandoffState>,
    ready: Condvar,
    /// The most connections waiting or being served at once.
    capacity: usize,
}

#[derive(Debug, Default)]
struct HandoffState {
    /// Connections taken and not yet finished.
    busy: usize,
    pending: VecDeque<TcpStream>,
    closed: bool,
}

impl Handoff {
    /// A hand-off for `capacity` takers: a connection is accepted only while fewer than
    /// `capacity` are waiting or being served.
    pub fn new(capacity: usize) -> Handoff {
        Handoff { state: Mutex::default(), ready: Condvar::new(), capacity }
    }

    fn lock(&self) -> MutexGuard<'_, HandoffState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Gives `stream` to a taker, or returns it when every taker is spoken for.
    pub fn offer(&self, stream: TcpStream) -> Result<(), TcpStream> {
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
    pub fn take(&self) -> Option<TcpStream> {
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
