//! `bench overload`: is the server still readable when idle connections hold every worker?
//!
//! It opens N connections that never send a byte (by default twice the server's workers) and
//! never close them, even after the server has closed its side (or, with `--reopen-ms`, opens a
//! new one that long after the server closes each, as a persistent attacker would), and meanwhile sends one probe per interval: a GET of the metadata
//! document on a fresh connection. A probe is *answered* when a complete response arrives (200,
//! or 503 with `Connection: close`), a *reset* when the connection is reset before that, a
//! *silent close* when it ends without a response, a *timeout* when nothing arrives within the
//! client's I/O timeout. Then the idle connections are closed and one more probe,
//! 100 ms<!-- not a limit --> later, shows whether the server has recovered. One JSON line of
//! counts and times; loopback only.
//!
//! Measurements, never assertions: nothing here decides pass or fail.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use loopback_mcp_http::auth::metadata;
use loopback_mcp_http::client::request;
use loopback_mcp_http::http::{Parsed, ResponseParser};
use loopback_mcp_http::json::{Value, object};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::server::fixture::start_with_fixture;
use loopback_mcp_http::server::{RunningServer, ServerConfig};

use super::args::Flags;

/// How often the idle connections are looked at (to notice the server closing them).
const WATCH_INTERVAL: Duration = Duration::from_millis(10);
/// How long the recovery probe waits after the idle connections are closed.
const RECOVERY_PAUSE: Duration = Duration::from_millis(100);

/// The outcome of one probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Probe {
    /// A complete response with this status, after this long; `readable` when it is a 200, or a
    /// 503 that says `Connection: close`.
    Answered {
        status: u16,
        readable: bool,
        elapsed: Duration,
    },
    Reset,
    SilentClose,
    Timeout,
    /// The connection was refused: nothing listens there.
    Refused,
}

/// `bench overload [--idle N] [--probes P] [--interval-ms MS] [--reopen-ms MS] [--url URL]`.
pub fn run(args: &[String]) -> Result<Value, String> {
    let flags = Flags::parse(args, &["idle", "probes", "interval-ms", "reopen-ms", "url"])?;
    let probes: u64 = flags.one("probes")?.unwrap_or(10);
    let interval = Duration::from_millis(flags.one("interval-ms")?.unwrap_or(1000));
    let reopen = flags.one::<u64>("reopen-ms")?.map(Duration::from_millis);
    if !(1..=600).contains(&probes) || interval > Duration::from_secs(60) {
        return Err("--probes must be 1-600 and --interval-ms at most 60000".into());
    }
    let (address, _server, workers) = match flags.one::<String>("url")? {
        Some(url) => (super::args::loopback_address(&url)?, None, None),
        None => {
            let config = ServerConfig::default();
            let workers = config.limits.requests_in_processing_max;
            let (server, _) = start_with_fixture(config).map_err(|e| e.to_string())?;
            (server.address(), Some(server), Some(workers))
        }
    };
    let idle = match (flags.one::<usize>("idle")?, workers) {
        (Some(idle), _) => idle,
        (None, Some(workers)) => 2 * workers,
        (None, None) => return Err("--idle is needed with --url".into()),
    };
    if !(1..=4096).contains(&idle) {
        return Err("--idle must be 1-4096".into());
    }
    Ok(measure(address, idle, probes, interval, reopen, _server))
}

fn measure(
    address: SocketAddr,
    idle: usize,
    probes: u64,
    interval: Duration,
    reopen: Option<Duration>,
    _server: Option<RunningServer>,
) -> Value {
    let flood = Flood::open(address, idle, reopen);
    let began = Instant::now();
    let mut outcomes = Vec::new();
    for i in 0..probes {
        let at = began + interval * u32::try_from(i).unwrap_or(u32::MAX);
        thread::sleep(at.saturating_duration_since(Instant::now()));
        outcomes.push(probe(address));
    }
    let reopened = flood.stop();
    thread::sleep(RECOVERY_PAUSE);
    let recovery = probe(address);
    report(idle, reopen, &outcomes, reopened, recovery)
}

fn report(
    idle: usize,
    reopen: Option<Duration>,
    outcomes: &[Probe],
    reopened: u64,
    recovery: Probe,
) -> Value {
    let count = |f: &dyn Fn(&Probe) -> bool| outcomes.iter().filter(|p| f(p)).count() as u64;
    let mut answered: Vec<Duration> = outcomes
        .iter()
        .filter_map(|p| match p {
            Probe::Answered { elapsed, .. } => Some(*elapsed),
            _ => None,
        })
        .collect();
    answered.sort();
    let ms = |d: Duration| Value::from(u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let median = answered.get(answered.len() / 2).copied().map_or(Value::Null, ms);
    let worst = answered.last().copied().map_or(Value::Null, ms);
    let (recovery_status, recovery_ms) = match recovery {
        Probe::Answered { status, elapsed, .. } => (Value::from(u64::from(status)), ms(elapsed)),
        _ => (Value::Null, Value::Null),
    };
    object([
        ("idle_connections", Value::from(idle as u64)),
        ("reopen_ms", reopen.map_or(Value::Null, ms)),
        ("reopened", Value::from(reopened)),
        ("probes", Value::from(outcomes.len() as u64)),
        ("answered_200", Value::from(count(&|p| matches!(p, Probe::Answered { status: 200, .. })))),
        ("answered_503", Value::from(count(&|p| matches!(p, Probe::Answered { status: 503, .. })))),
        (
            "unreadable",
            Value::from(count(&|p| matches!(p, Probe::Answered { readable: false, .. }))),
        ),
        ("resets", Value::from(count(&|p| *p == Probe::Reset))),
        ("silent_closes", Value::from(count(&|p| *p == Probe::SilentClose))),
        ("timeouts", Value::from(count(&|p| *p == Probe::Timeout))),
        ("refused", Value::from(count(&|p| *p == Probe::Refused))),
        ("answer_median_ms", median),
        ("answer_worst_ms", worst),
        ("recovery_status", recovery_status),
        ("recovery_ms", recovery_ms),
    ])
}

/// One probe on a fresh connection: a GET of the metadata document, read to its end.
fn probe(address: SocketAddr) -> Probe {
    let limits = Limits::DEFAULT;
    let began = Instant::now();
    let mut stream = match TcpStream::connect_timeout(&address, limits.client_io_timeout) {
        Ok(stream) => stream,
        Err(e) => return failed(&e),
    };
    let host = address.to_string();
    let bytes = request("GET", metadata::PATH_FOR_MCP, &[("Host", &host)], b"");
    let _ = stream.set_read_timeout(Some(limits.client_io_timeout));
    if let Err(e) = stream.write_all(&bytes) {
        return failed(&e);
    }
    let mut received = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let mut parser = ResponseParser::new(&limits);
        match parser.parse(&received) {
            Ok(Parsed::Complete { value, .. }) => {
                let closes = value.fields.get("connection") == Some(b"close".as_slice());
                let readable = value.status == 200 || (value.status == 503 && closes);
                return Probe::Answered {
                    status: value.status,
                    readable,
                    elapsed: began.elapsed(),
                };
            }
            Ok(Parsed::Partial) => {}
            Err(_) => {
                return Probe::Answered { status: 0, readable: false, elapsed: began.elapsed() };
            }
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Probe::SilentClose,
            Ok(n) => received.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return failed(&e),
        }
    }
}

fn failed(e: &io::Error) -> Probe {
    match e.kind() {
        io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted => Probe::Reset,
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Probe::Timeout,
        io::ErrorKind::ConnectionRefused => Probe::Refused,
        _ => Probe::SilentClose,
    }
}

/// The idle connections, watched by one thread.
struct Flood {
    stop: Arc<AtomicBool>,
    reopened: Arc<AtomicU64>,
    watcher: thread::JoinHandle<()>,
}

/// One idle connection: open, closed by the server and still held (an attacker that never
/// closes), or closed by the server and waiting to be reopened.
enum Slot {
    Open(TcpStream),
    /// Kept open, never read again: holding it is the point.
    Held {
        _stream: TcpStream,
    },
    ReopenAt(Instant),
    Gone,
}

impl Flood {
    fn open(address: SocketAddr, idle: usize, reopen: Option<Duration>) -> Flood {
        let mut slots: Vec<Slot> = (0..idle).map(|_| connect(address)).collect();
        let stop = Arc::new(AtomicBool::new(false));
        let reopened = Arc::new(AtomicU64::new(0));
        let watcher = {
            let (stop, reopened) = (Arc::clone(&stop), Arc::clone(&reopened));
            thread::spawn(move || {
                while !stop.load(Ordering::Acquire) {
                    for slot in &mut slots {
                        watch(slot, address, reopen, &reopened);
                    }
                    thread::sleep(WATCH_INTERVAL);
                }
                // Dropping the slots closes every idle connection.
            })
        };
        Flood { stop, reopened, watcher }
    }

    /// Closes every idle connection; how many were reopened along the way.
    fn stop(self) -> u64 {
        self.stop.store(true, Ordering::Release);
        let _ = self.watcher.join();
        self.reopened.load(Ordering::Acquire)
    }
}

fn connect(address: SocketAddr) -> Slot {
    match TcpStream::connect_timeout(&address, Limits::DEFAULT.client_io_timeout) {
        Ok(stream) if stream.set_nonblocking(true).is_ok() => Slot::Open(stream),
        _ => Slot::Gone,
    }
}

/// Notices a server close (reading and dropping anything it sent first) and reopens on time.
fn watch(slot: &mut Slot, address: SocketAddr, reopen: Option<Duration>, reopened: &AtomicU64) {
    match slot {
        Slot::Open(stream) => {
            let mut chunk = [0u8; 1024];
            let closed = loop {
                match stream.read(&mut chunk) {
                    Ok(0) => break true,
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break false,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break true,
                }
            };
            if closed {
                *slot = match reopen {
                    Some(after) => Slot::ReopenAt(Instant::now() + after),
                    None => match std::mem::replace(slot, Slot::Gone) {
                        Slot::Open(stream) => Slot::Held { _stream: stream },
                        other => other,
                    },
                };
            }
        }
        Slot::ReopenAt(at) if Instant::now() >= *at => {
            *slot = connect(address);
            reopened.fetch_add(1, Ordering::AcqRel);
        }
        Slot::ReopenAt(_) | Slot::Held { .. } | Slot::Gone => {}
    }
}
