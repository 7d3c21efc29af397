//! The I/O shell of the server: a loopback listener, a fixed worker pool, and the threads that
//! feed it. Everything it does with a request is delegated to [`crate::endpoint`].
//!
//! Threads: one acceptor, a fixed pool of workers (`requests_in_processing_max`,
//! 64<!-- limit: requests_in_processing_max --> by default; `serve --workers N` sets it), and one
//! sweeper. No thread is ever started per connection, and no queue is unbounded. A worker serves
//! one connection at a time, kept alive between requests, by driving its
//! [`crate::http::connection::Connection`].
//!
//! The acceptor hands each new connection to a free worker. When none is free, it answers the
//! connection itself, at once: its `503` with `Connection: close` and `Retry-After: 1` goes out in
//! one non-blocking write (a fresh socket's send buffer always takes a few hundred bytes), and the
//! connection joins the lingering set. So does every connection a worker ends politely (an error, a
//! request that asked to close, the last request of the per-connection budget). A worker holds its
//! place in the pool until its connection's last response is written (or the connection is
//! dropped); only then does the acceptor count it free, and only then does the worker hand the
//! connection to the lingering set. So a connection that arrives while every worker is busy, one of
//! them still writing answers to a peer that does not read, gets its 503 instead of waiting
//! behind those writes: at once, or after the bounded wait below when a worker is at its last
//! response. A client that reconnects as soon as it has read a last response
//! is never refused for the worker that wrote it: the worker tells the pool before it writes its
//! connection's last bytes, and a connection that finds every place held waits for such a worker
//! (at most 100 ms<!-- limit: closing_worker_wait --> after the latest last write began; see
//! `server::pool`) instead of being refused. Only then is a 503 written.
//!
//! A lingering connection has its write half shut, and the sweeper drains what the peer still
//! sends, with non-blocking reads on every lingering socket every
//! 10 ms<!-- limit: linger_sweep_interval -->, at most 64 KiB<!-- limit: drain_bytes_max --> and
//! 250 ms<!-- limit: drain_timeout --> per connection, so that the client reads its last response
//! rather than a reset and one silent peer never delays another's answer. The set holds at most
//! 64<!-- limit: connections_lingering_max --> sockets; when it is full, the oldest lingering
//! socket is closed at once, and a newly refused connection still gets its 503 first.
//!
//! A worker keeps the buffers of its last connection (the receive buffer the head and body budgets
//! size, the response buffer, the field list) and serves its next connection in them, renewed
//! (`Connection::renew`: every state and count starts over, nothing of the old bytes is read
//! again). So a new connection allocates nothing and zeroes no buffer, and memory stays bounded by
//! the pool: one connection's buffers per worker that has served, whether it is busy or idle. A
//! panic while handling a request becomes a 500 for that request, and the connection closes; the
//! worker carries on. A panic outside the endpoint drops the kept buffers, and the next connection
//! starts with fresh ones. If `accept` fails (no file descriptors left), the acceptor pauses
//! 50 ms<!-- limit: accept_error_pause --> before the next try rather than spin.
//!
//! The listener binds 127.0.0.1 only: asking for any other address is an error at startup, not a
//! warning. Time and randomness for the endpoint are read here (the clock per request, the
//! operating system's generator for session ids). With `ServerConfig::watch` (`serve --watch`),
//! each worker tells [`watch`] every exchange as it is decided; the acceptor's own 503s are not
//! among them.
//!
//! # Under a flood of idle connections
//!
//! `bench overload` holds connections that never send a byte and never close against a server,
//! then probes it, and reports how each probe was answered (a 503, a reset, a silent close, a
//! refused connection or a timeout):
//!
//! ```sh
//! cargo run --release -- bench overload --idle 140 --probes 5
//! cargo run --release -- bench overload --idle 130 --reopen-ms 300 --probes 15
//! ```
//!
//! `tests/server_transport.rs` checks what the design promises: silent connections never delay
//! another client's 503, a full lingering set closes its oldest socket and still answers a new
//! refusal, and probes that arrive behind stalled writes are refused at once.

mod connection;
pub mod fixture;
mod linger;
mod pool;
mod report;
pub mod watch;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime};
use std::{fmt, io};

use crate::auth::policy::OfflineTokenPolicy;
use crate::endpoint::{Delivery, Endpoint, EndpointConfig, Rejection, Reply};
use crate::http::TransferCodings;
use crate::http::date::DateCache;
use crate::limits::{Limits, LimitsError};
use crate::mcp::revision::Versions;
use crate::random::RandomUnavailable;
use linger::LingerSet;
use pool::Handoff;
use watch::Watch;

/// How the server is started.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Must be 127.0.0.1.
    pub address: IpAddr,
    /// 0 picks a free port.
    pub port: u16,
    /// Extra allowed `Origin` values, besides the server's own two loopback origins.
    pub extra_origins: Vec<String>,
    /// Extra allowed `Host` values, besides the server's own two loopback authorities (for a
    /// loopback proxy in front of it, which keeps the client's `Host`).
    pub extra_hosts: Vec<String>,
    /// Every budget; `requests_in_processing_max` is the number of worker threads.
    pub limits: Limits,
    /// The transfer codings request bodies may use (`serve --chunked`: chunked).
    pub request_codings: TransferCodings,
    /// The protocol revisions spoken (`serve --protocol-versions`): 2025-11-25 alone by default.
    pub versions: Versions,
    /// Each exchange told as it is decided (`serve --watch`), or nothing.
    pub watch: Option<Arc<Watch>>,
    /// The conformance suite's scope fixtures and its two tokens are served
    /// (`serve --conformance-fixtures`).
    pub conformance_fixtures: bool,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            address: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            extra_origins: Vec::new(),
            extra_hosts: Vec::new(),
            limits: Limits::DEFAULT,
            request_codings: TransferCodings::LengthOnly,
            versions: Versions::LEGACY,
            watch: None,
            conformance_fixtures: false,
        }
    }
}

/// Why the server did not start.
#[derive(Debug)]
pub enum ServerError {
    /// Only 127.0.0.1 may be bound.
    NotLoopback(IpAddr),
    /// The budgets are inconsistent.
    Limits(LimitsError),
    /// An allowed origin that is not `http://host[:port]` or `https://host[:port]`.
    Origin(String),
    /// An allowed host that is not `host[:port]`.
    Host(String),
    /// The listener could not be bound to this address.
    Listen(SocketAddr, io::Error),
    /// A thread (a worker, the sweeper, the acceptor) could not be started.
    Spawn(io::Error),
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerError::NotLoopback(address) => {
                write!(f, "refusing to listen on {address}: this server binds 127.0.0.1 only")
            }
            ServerError::Limits(e) => write!(f, "invalid limits: {e}"),
            ServerError::Origin(origin) => write!(f, "not an origin: {origin:?}"),
            ServerError::Host(host) => write!(f, "not a host: {host:?}"),
            ServerError::Listen(address, e) => write!(f, "cannot listen on {address}: {e}"),
            ServerError::Spawn(e) => write!(f, "cannot start a server thread: {e}"),
        }
    }
}

impl std::error::Error for ServerError {}

/// The 503 the acceptor answers when every worker is busy, with `Connection: close`.
struct Overloaded {
    reply: Reply,
    bytes: Vec<u8>,
    dates: DateCache,
    response_bytes_max: usize,
}

impl Overloaded {
    fn new(limits: &Limits) -> Overloaded {
        Overloaded {
            reply: Rejection::Overloaded.reply(""),
            bytes: Vec::new(),
            dates: DateCache::new(),
            response_bytes_max: limits.response_bytes_max,
        }
    }

    /// The 503's bytes with the `Date` of `wall`. Validated limits keep a response head's room
    /// beside any body, so it always fits; `None` (the connection is closed unanswered, the bug
    /// reported) would be a bug of that reserve.
    fn serialize(&mut self, wall: SystemTime) -> Option<&[u8]> {
        let date = self.dates.at(connection::unix_seconds(wall));
        let delivery = Delivery { close: true, head: false, date: Some(date) };
        let written = self.reply.serialize(&mut self.bytes, delivery, self.response_bytes_max);
        if written.is_err() {
            report::internal_error("the 503 reply does not fit the response budget");
            return None;
        }
        Some(self.bytes.as_slice())
    }
}

/// A listener bound to its port, not yet serving. The port is known here, so the token policy
/// (whose resource identifier names the port) can be built before serving starts.
#[derive(Debug)]
pub struct BoundServer {
    listener: TcpListener,
    config: ServerConfig,
    port: u16,
}

/// Checks the configuration and binds the listener.
pub fn bind(config: ServerConfig) -> Result<BoundServer, ServerError> {
    if config.address != IpAddr::V4(Ipv4Addr::LOCALHOST) {
        return Err(ServerError::NotLoopback(config.address));
    }
    config.limits.validate().map_err(ServerError::Limits)?;
    if let Some(bad) = config.extra_origins.iter().find(|o| !is_origin(o)) {
        return Err(ServerError::Origin(bad.clone()));
    }
    if let Some(bad) = config.extra_hosts.iter().find(|h| !crate::http::is_valid_host(h.as_bytes()))
    {
        return Err(ServerError::Host(bad.clone()));
    }
    let address = SocketAddr::new(config.address, config.port);
    let listener = TcpListener::bind(address).map_err(|e| ServerError::Listen(address, e))?;
    let port = listener.local_addr().map_err(|e| ServerError::Listen(address, e))?.port();
    Ok(BoundServer { listener, config, port })
}

/// `scheme "://" host [ ":" port ]` with an http(s) scheme and nothing after: the serialized form
/// a browser sends in `Origin`.
fn is_origin(origin: &str) -> bool {
    let rest = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
    rest.is_some_and(|authority| {
        !authority.is_empty()
            && authority.bytes().all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b))
    })
}

impl BoundServer {
    /// The port the listener is bound to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Starts serving with `policy`.
    pub fn start(self, policy: OfflineTokenPolicy) -> Result<RunningServer, ServerError> {
        let BoundServer { listener, config, port } = self;
        let mut endpoint_config = EndpointConfig::loopback(port, config.limits);
        endpoint_config.allowed_origins.extend(config.extra_origins.iter().cloned());
        endpoint_config.proxy_hosts.extend(config.extra_hosts.iter().cloned());
        endpoint_config.request_codings = config.request_codings;
        endpoint_config.versions = config.versions;
        endpoint_config.conformance_fixtures = config.conformance_fixtures;
        let endpoint = Arc::new(Endpoint::new(endpoint_config, policy));
        let limits = config.limits;
        let overloaded = Overloaded::new(&limits);
        let workers =
            Arc::new(Handoff::new(limits.requests_in_processing_max, limits.closing_worker_wait));
        let lingering = Arc::new(LingerSet::new(&limits));
        let stopping = Arc::new(AtomicBool::new(false));
        // Threads already started end when their hand-off closes: a server that could not
        // start every thread leaves none behind.
        let abandon = |e: io::Error| {
            workers.close();
            lingering.stop();
            ServerError::Spawn(e)
        };
        for _ in 0..limits.requests_in_processing_max {
            let (handoff, lingering, endpoint) =
                (Arc::clone(&workers), Arc::clone(&lingering), Arc::clone(&endpoint));
            let watch = config.watch.clone();
            let worker = move || {
                // The worker's connection buffers, kept from one connection to the next.
                let mut spare = None;
                let serve = |s, closing: &mut dyn FnMut()| {
                    serve_one(s, &endpoint, &mut spare, watch.as_deref(), closing)
                };
                run_worker(&handoff, serve, |done| lingering.add(done, Instant::now()))
            };
            spawn("worker", worker).map_err(abandon)?;
        }
        let sweeper = Arc::clone(&lingering);
        spawn("sweeper", move || sweeper.run_sweeper()).map_err(abandon)?;
        let acceptor = {
            let (workers, lingering, stopping) =
                (Arc::clone(&workers), Arc::clone(&lingering), Arc::clone(&stopping));
            let pause = limits.accept_error_pause;
            spawn("acceptor", move || {
                run_acceptor(&listener, &workers, &lingering, overloaded, &stopping, pause)
            })
            .map_err(abandon)?
        };
        Ok(RunningServer { port, endpoint, workers, lingering, stopping, acceptor: Some(acceptor) })
    }
}

fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> io::Result<JoinHandle<()>> {
    thread::Builder::new().name(format!("loopback-mcp-{name}")).spawn(f)
}

/// The operating system's generator, the only randomness the server and the commands use. It
/// does not fail on supported platforms; if it ever did, the caller gets an error (an initialize
/// is answered 500 and creates nothing) rather than predictable bytes.
pub fn fill_os_random(buf: &mut [u8]) -> Result<(), RandomUnavailable> {
    getrandom::fill(buf).map_err(|e| RandomUnavailable { os_error: e.raw_os_error() })
}

/// A worker: serves one connection after another. `serve` calls its second argument before each
/// write of the connection's last response, and the worker tells the hand-off so once: a client
/// that reads that response and reconnects at once may wait (a bounded time) for this place
/// rather than be refused. The worker gives its place back once `serve` has returned, that is
/// once the last response is written, and only then lets go of a connection that `serve`
/// returned (hands it to the lingering set), whatever that hand-off waits for.
fn run_worker<T, L>(
    handoff: &Handoff<T>,
    mut serve: impl FnMut(T, &mut dyn FnMut()) -> Option<L>,
    mut let_go: impl FnMut(L),
) {
    while let Some(stream) = handoff.take() {
        let mut closing = false;
        let done = serve(stream, &mut || {
            if !closing {
                closing = true;
                handoff.closing(Instant::now());
            }
        });
        handoff.finished(closing);
        if let Some(done) = done {
            let_go(done);
        }
    }
}

/// One connection, as a worker serves it, in the buffers of the worker's previous connection
/// when there is one (`spare`); the connection when it is to linger.
fn serve_one(
    stream: TcpStream,
    endpoint: &Endpoint,
    spare: &mut Option<connection::SpareConnection>,
    watch: Option<&Watch>,
    closing: &mut dyn FnMut(),
) -> Option<TcpStream> {
    // The endpoint's own panics are already answered 500; this keeps the worker alive through any
    // other one (the connection is dropped, and so are its buffers: the next one starts afresh).
    let served = panic::catch_unwind(AssertUnwindSafe(|| {
        connection::serve(stream, endpoint, &mut fill_os_random, spare, watch, closing)
    }));
    served.unwrap_or_else(|_| {
        *spare = None;
        None
    })
}

fn run_acceptor(
    listener: &TcpListener,
    workers: &Handoff<TcpStream>,
    lingering: &LingerSet,
    mut overloaded: Overloaded,
    stopping: &AtomicBool,
    accept_error_pause: Duration,
) {
    for stream in listener.incoming() {
        if stopping.load(Ordering::Acquire) {
            break;
        }
        let Ok(stream) = stream else {
            // Out of file descriptors or a connection reset before accept: nothing to answer.
            // Pausing keeps a persistent failure (no descriptors left) from spinning a core.
            thread::sleep(accept_error_pause);
            continue;
        };
        if let Err(stream) = workers.offer(stream)
            && let Some(response) = overloaded.serialize(SystemTime::now())
        {
            linger::turn_away(stream, response, lingering, Instant::now());
        }
    }
}

/// A server that is serving. Dropping it stops it.
#[derive(Debug)]
pub struct RunningServer {
    port: u16,
    endpoint: Arc<Endpoint>,
    workers: Arc<Handoff<TcpStream>>,
    lingering: Arc<LingerSet>,
    stopping: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl RunningServer {
    /// The bound port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `127.0.0.1:<port>`.
    pub fn address(&self) -> SocketAddr {
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), self.port)
    }

    /// The endpoint, for the control plane (revocations, revision changes) and inspection.
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// The endpoint, shared, for a control thread that lives as long as the process.
    pub fn shared_endpoint(&self) -> Arc<Endpoint> {
        Arc::clone(&self.endpoint)
    }

    /// Stops accepting, lets idle workers exit, and waits for the acceptor. Connections being
    /// served finish on their own (every one is bounded by its deadlines); open streams end at
    /// their next step.
    pub fn stop(&mut self) {
        self.stopping.store(true, Ordering::Release);
        // Open listens end gracefully, slow calls at their next step.
        self.endpoint.live().stop();
        // Wake the acceptor, which is blocked in accept().
        let _ = TcpStream::connect(self.address());
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        self.workers.close();
        self.lingering.stop();
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_worker_gives_its_place_back_before_it_lets_go_of_its_connection() {
        let handoff = Arc::new(Handoff::new(1, Duration::ZERO));
        let (letting_go_tx, letting_go) = mpsc::channel();
        let (release, release_rx) = mpsc::channel::<()>();
        let worker = {
            let handoff = Arc::clone(&handoff);
            thread::spawn(move || {
                // Letting go waits, as a hand-off to a lingering set whose lock is held would.
                let let_go = |connection: u32| {
                    letting_go_tx.send(connection).unwrap();
                    release_rx.recv().unwrap();
                };
                run_worker(&handoff, |connection, _: &mut dyn FnMut()| Some(connection), let_go)
            })
        };
        assert_eq!(handoff.offer(1), Ok(()));
        assert_eq!(letting_go.recv(), Ok(1));
        // The last response is written: a client reconnecting now is taken, not refused.
        assert_eq!(handoff.offer(2), Ok(()));
        release.send(()).unwrap();
        assert_eq!(letting_go.recv(), Ok(2));
        release.send(()).unwrap();
        handoff.close();
        worker.join().unwrap();
    }

    /// A worker whose `serve` says it is at its connection's last write (twice, as before each
    /// write of it) when `at_last_write`, then reports the connection and waits until told to
    /// finish: preempted, or writing to a peer that does not read, as far as the pool can tell.
    fn parked_worker(
        handoff: &Arc<Handoff<u32>>,
        at_last_write: bool,
    ) -> (mpsc::Receiver<u32>, mpsc::Sender<()>, JoinHandle<()>) {
        let (inside_tx, inside) = mpsc::channel();
        let (finish, finish_rx) = mpsc::channel::<()>();
        let handoff = Arc::clone(handoff);
        let worker = thread::spawn(move || {
            let serve = |connection: u32, last_write: &mut dyn FnMut()| {
                if at_last_write {
                    last_write();
                    last_write();
                }
                inside_tx.send(connection).unwrap();
                finish_rx.recv().unwrap();
                None::<()>
            };
            run_worker(&handoff, serve, |()| {})
        });
        (inside, finish, worker)
    }

    #[test]
    fn a_worker_holds_its_place_until_its_connection_is_done_with() {
        let handoff = Arc::new(Handoff::new(1, Duration::from_secs(60)));
        // Still serving, and not yet at its last response: a long request, say.
        let (inside, finish, worker) = parked_worker(&handoff, false);
        assert_eq!(handoff.offer(1), Ok(()));
        assert_eq!(inside.recv(), Ok(1));
        // A connection arriving now finds no free worker, and none closing: it is refused at
        // once (the acceptor's 503), never queued behind the busy one, however long the wait
        // for a closing worker would be.
        assert_eq!(handoff.offer(2), Err(2));
        finish.send(()).unwrap();
        // Once `serve` returned, the place is free again: the next connection is taken.
        let mut accepted = false;
        for _ in 0..2000 {
            if handoff.offer(3).is_ok() {
                accepted = true;
                break;
            }
            thread::sleep(Duration::from_millis(1));
        }
        assert!(accepted, "the worker never gave its place back");
        assert_eq!(inside.recv(), Ok(3));
        finish.send(()).unwrap();
        handoff.close();
        worker.join().unwrap();
    }

    #[test]
    fn a_reconnect_waits_for_a_worker_writing_its_last_response_and_is_taken() {
        let handoff = Arc::new(Handoff::new(1, Duration::from_secs(60)));
        // Preempted after its last write: the client has its answer, the place is not back yet.
        let (inside, finish, worker) = parked_worker(&handoff, true);
        assert_eq!(handoff.offer(1), Ok(()));
        assert_eq!(inside.recv(), Ok(1));
        let release = thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            finish.send(()).unwrap();
            finish
        });
        // The reconnect waits for the place instead of being refused, and is taken.
        assert_eq!(handoff.offer(2), Ok(()));
        let finish = release.join().unwrap();
        assert_eq!(inside.recv(), Ok(2));
        finish.send(()).unwrap();
        handoff.close();
        worker.join().unwrap();
        // Each connection said "closing" twice and counted once.
        assert_eq!(handoff.counts(), (0, 0));
    }
}
