//! A fixed set of worker threads fed through a bounded hand-off, and a single thread that answers
//! 503 to connections no worker is free to take.
//!
//! The hand-off accepts a connection only when a worker is idle to take it, counted exactly under
//! one lock, so there is never a queue of connections waiting behind busy workers and never a
//! thread per connection. A refused connection goes to the rejecter, whose own queue is bounded;
//! when even that is full the connection is simply closed.

use std::collections::VecDeque;
use std::net::TcpStream;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// A queue of connections, each one promised to a waiting taker.
#[derive(Debug)]
pub struct Handoff {
    state: Mutex<HandoffState>,
    ready: Condvar,
    /// For a bounded queue without waiting takers (the rejecter): the most it holds.
    capacity: Option<usize>,
}

#[derive(Debug, Default)]
struct HandoffState {
    idle_takers: usize,
    pending: VecDeque<TcpStream>,
    closed: bool,
}

impl Handoff {
    /// A hand-off that accepts a connection only when a taker is idle.
    pub fn to_idle_takers() -> Handoff {
        Handoff { state: Mutex::default(), ready: Condvar::new(), capacity: None }
    }

    /// A hand-off that accepts up to `capacity` waiting connections, taken or not.
    pub fn bounded(capacity: usize) -> Handoff {
        Handoff { state: Mutex::default(), ready: Condvar::new(), capacity: Some(capacity) }
    }

    fn lock(&self) -> MutexGuard<'_, HandoffState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Gives `stream` to a taker, or returns it when none can take it now.
    pub fn offer(&self, stream: TcpStream) -> Result<(), TcpStream> {
        let mut state = self.lock();
        let room = match self.capacity {
            None => state.pending.len() < state.idle_takers,
            Some(capacity) => state.pending.len() < capacity,
        };
        if state.closed || !room {
            return Err(stream);
        }
        state.pending.push_back(stream);
        drop(state);
        self.ready.notify_one();
        Ok(())
    }

    /// Waits for the next connection; `None` once the hand-off is closed.
    pub fn take(&self) -> Option<TcpStream> {
        let mut state = self.lock();
        state.idle_takers += 1;
        let stream = loop {
            if let Some(stream) = state.pending.pop_front() {
                break Some(stream);
            }
            if state.closed {
                break None;
            }
            state = self.ready.wait(state).unwrap_or_else(PoisonError::into_inner);
        };
        state.idle_takers -= 1;
        stream
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
