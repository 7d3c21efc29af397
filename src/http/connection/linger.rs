//! The polite end of a connection: after its last response the write half is shut, and what
//! the peer still sends is read and dropped, within the drain budgets, until the peer closes.
//!
//! A small machine of its own, driven by the server's sweeper over every lingering socket with
//! non-blocking reads: it decides when a socket is done (the peer closed, the drain deadline
//! passed, or the drain byte budget was read). It never touches the socket.

use std::time::Instant;

use crate::limits::Limits;

/// One lingering connection's drain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Linger {
    deadline: Instant,
    drained: usize,
    drain_bytes_max: usize,
    closed: bool,
}

/// What to do with a lingering connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LingerAction {
    /// Read (and drop) at most `max` bytes, no later than `deadline`.
    Drain { max: usize, deadline: Instant },
    /// Close it now.
    Close,
}

impl Linger {
    /// A connection whose write half was shut at `now`.
    pub fn new(limits: &Limits, now: Instant) -> Linger {
        Linger {
            deadline: now + limits.drain_timeout,
            drained: 0,
            drain_bytes_max: limits.drain_bytes_max,
            closed: false,
        }
    }

    /// What to do now.
    pub fn action(&self) -> LingerAction {
        if self.closed {
            return LingerAction::Close;
        }
        LingerAction::Drain { max: self.drain_bytes_max - self.drained, deadline: self.deadline }
    }

    /// A read at `now` took `n` bytes (dropped); the byte budget or the deadline may end it.
    pub fn drained(&mut self, now: Instant, n: usize) -> LingerAction {
        self.drained = self.drained.saturating_add(n).min(self.drain_bytes_max);
        self.closed |= self.drained >= self.drain_bytes_max;
        self.waited(now)
    }

    /// Nothing was waiting at `now`; the deadline may end it.
    pub fn waited(&mut self, now: Instant) -> LingerAction {
        self.closed |= now >= self.deadline;
        self.action()
    }

    /// The peer closed (a read returned nothing), or the connection broke.
    pub fn peer_closed(&mut self) -> LingerAction {
        self.closed = true;
        self.action()
    }
}
