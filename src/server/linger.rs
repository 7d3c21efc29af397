//! The lingering connections: every connection the server lets go of politely, and every one it
//! refused with its 503, waits here with its write half shut while what the peer still sends is
//! drained, so that the peer reads the last response instead of a reset.
//!
//! One thread sweeps the set on a short tick with non-blocking reads, so one silent peer never
//! delays another: each socket's [`Linger`] decides when it is done (the peer closed, the drain
//! deadline passed, or the drain byte budget was read). The set is bounded by
//! `connections_lingering_max`; when it is full, the oldest lingering socket is closed at once to
//! make room (its response was written long ago; only the courtesy of draining is cut short).
//! A thread is never started per connection, and nothing waits in an unbounded queue.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::net::{Shutdown, TcpStream};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use crate::http::connection::{Linger, LingerAction};
use crate::limits::Limits;

/// How many bytes one draining read takes.
const DRAIN_CHUNK_BYTES: usize = 4096;

/// A socket and its linger.
#[derive(Debug)]
struct Lingering {
    stream: TcpStream,
    linger: Linger,
}

#[derive(Debug)]
struct State {
    lingering: VecDeque<Lingering>,
    stopped: bool,
}

/// The bounded set of lingering connections.
#[derive(Debug)]
pub struct LingerSet {
    state: Mutex<State>,
    /// Wakes the sweeper when the set stops being empty, or when the server stops.
    wake: Condvar,
    limits: Limits,
}

impl LingerSet {
    pub fn new(limits: &Limits) -> LingerSet {
        let state = State {
            lingering: VecDeque::with_capacity(limits.connections_lingering_max),
            stopped: false,
        };
        LingerSet { state: Mutex::new(state), wake: Condvar::new(), limits: *limits }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Shuts the write half of `stream` (its last response is written) and lets it linger. When
    /// the set is full, the oldest lingering socket is closed first.
    pub fn add(&self, stream: TcpStream, now: Instant) {
        if stream.shutdown(Shutdown::Write).is_err() || stream.set_nonblocking(true).is_err() {
            return; // the connection is already gone: nothing to drain
        }
        let lingering = Lingering { stream, linger: Linger::new(&self.limits, now) };
        let mut state = self.lock();
        if state.stopped {
            return;
        }
        if state.lingering.len() >= self.limits.connections_lingering_max {
            state.lingering.pop_front();
        }
        state.lingering.push_back(lingering);
        drop(state);
        self.wake.notify_one();
    }

    /// Sweeps until [`LingerSet::stop`]: every tick while anything lingers, asleep otherwise.
    pub fn run_sweeper(&self) {
        let mut chunk = [0u8; DRAIN_CHUNK_BYTES];
        let tick = self.limits.linger_sweep_interval;
        let mut state = self.lock();
        loop {
            if state.stopped {
                return;
            }
            if state.lingering.is_empty() {
                state = self.wake.wait(state).unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            let now = Instant::now();
            state.lingering.retain_mut(|l| drain(l, now, &mut chunk));
            // Sleep without the lock, so refusals and polite closes are never held up.
            drop(state);
            std::thread::sleep(tick);
            state = self.lock();
        }
    }

    /// Closes every lingering socket and ends the sweeper.
    pub fn stop(&self) {
        let mut state = self.lock();
        state.stopped = true;
        state.lingering.clear();
        drop(state);
        self.wake.notify_all();
    }
}

/// Reads what is there without waiting; true while the socket should go on lingering.
fn drain(lingering: &mut Lingering, now: Instant, chunk: &mut [u8]) -> bool {
    loop {
        let LingerAction::Drain { max, .. } = lingering.linger.action() else {
            return false;
        };
        let room = max.min(chunk.len());
        let linger = &mut lingering.linger;
        let next = match lingering.stream.read(&mut chunk[..room]) {
            Ok(0) => linger.peer_closed(),
            Ok(n) => linger.drained(now, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                return linger.waited(now) != LingerAction::Close;
            }
            Err(_) => linger.peer_closed(),
        };
        if next == LingerAction::Close {
            return false;
        }
    }
}

/// The answer of a connection turned away (every worker busy), written at once: a fresh socket's send buffer always takes a
/// few hundred bytes, so one non-blocking write is all it takes (and a socket that would not
/// take it is closed rather than waited for). Then it lingers like any other.
pub fn turn_away(mut stream: TcpStream, response: &[u8], lingering: &LingerSet, now: Instant) {
    use std::io::Write;
    if stream.set_nonblocking(true).is_err() {
        return;
    }
    match stream.write(response) {
        Ok(n) if n == response.len() => lingering.add(stream, now),
        _ => {} // dropped: closed at once
    }
}
