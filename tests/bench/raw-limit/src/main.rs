//! raw-limit: a benchmark peer for loopback-mcp-http, the ceiling of a blocking `std::net` design.
//! It checks nothing: no method, path, header, token, session or JSON is looked at, and every
//! request gets the same fixed JSON-RPC result. Thread per connection, HTTP/1.1 keep-alive; it
//! frames each request just enough to stay in step (head up to CRLFCRLF, then Content-Length body
//! bytes) and closes when the peer closes or sends `Connection: close`.
//! The answer has the shape of loopback-mcp-http's answer to a `ping` from
//! tests/bench/ping.lua, byte for byte in length: the same four header fields in the same order
//! and a 45-byte body with a ten-digit id. So the client parses as much per answer from either
//! server, and a benchmark compares what the servers do, not what the client does with their
//! answers. Its `Date` is fixed (this peer reads no clock) and its id is always the same.
//! `raw-limit PORT matched` also runs, once per request after reading it, a fixed chain of
//! distinct arithmetic functions (written by build.rs) that costs about as many instructions and
//! lines of code as this server's own work on a ping: a work-matched ceiling that still checks
//! nothing (tests/bench/README.md says how it was matched and what it showed; build.rs how to
//! rematch it). Its start line says how many steps it takes.
//! `raw-limit PORT capped` ends each connection after its 1000th request, as loopback-mcp-http
//! does (`requests_per_connection_max`): that answer carries `Connection: close`, then the write
//! half is shut and what the peer still sends is read and dropped until it closes, within this
//! server's drain budgets (its lingering, done here by the connection's own thread). A client
//! such as wrk then reconnects, so this ceiling pays for the same connection lifetime as the
//! server it is compared with.
//! Usage: raw-limit [PORT [matched] [capped]] (default 18084), loopback only.
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

mod work {
    include!(concat!(env!("OUT_DIR"), "/work.rs"));
}

const BODY: &str = r#"{"id":1000000001,"jsonrpc":"2.0","result":{}}"#;

/// The requests a connection carries in `capped` mode: loopback-mcp-http's default
/// `requests_per_connection_max` (`Limits::DEFAULT` in its src/limits.rs).
const REQUESTS_PER_CONNECTION: u32 = 1000;

/// How long, and how many bytes, the peer is drained after the last answer: loopback-mcp-http's
/// default `drain_timeout` and `drain_bytes_max`.
const DRAIN_TIME: Duration = Duration::from_millis(250);
const DRAIN_BYTES: usize = 64 * 1024;

/// What the command line asked for.
#[derive(Clone, Copy)]
struct Modes {
    matched: bool,
    capped: bool,
}

/// The answer, with `Connection: close` when it is the connection's last.
fn answer(last: bool) -> String {
    let connection = if last { "Connection: close\r\n" } else { "" };
    format!(
        "HTTP/1.1 200 OK\r\nDate: Thu, 01 Jan 1970 00:00:00 GMT\r\nContent-Type: application/json\r\n\
         Cache-Control: no-store\r\n{connection}Content-Length: {}\r\n\r\n{}",
        BODY.len(),
        BODY
    )
}

/// After the last answer: the write half shut, then whatever the peer still sends dropped until
/// it closes, so that it reads that answer rather than a reset; never past one deadline and one
/// byte budget (then the socket is closed, as loopback-mcp-http's lingering set does).
fn linger(mut stream: TcpStream, chunk: &mut [u8]) {
    let _ = stream.shutdown(Shutdown::Write);
    let deadline = Instant::now() + DRAIN_TIME;
    let mut drained = 0;
    while drained < DRAIN_BYTES {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return;
        }
        let room = chunk.len().min(DRAIN_BYTES - drained);
        match stream.read(&mut chunk[..room]) {
            Ok(0) => return,
            Ok(n) => drained += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|p| p + 4)
}

fn header_value<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.split("\r\n").skip(1).find_map(|line| {
        let (k, v) = line.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

fn serve(mut stream: TcpStream, modes: Modes) {
    let _ = stream.set_nodelay(true);
    let response = answer(false);
    // Built only where it can be sent, so the plain ceiling does no more per connection than before.
    let last_response = if modes.capped { answer(true) } else { String::new() };
    let mut buf: Vec<u8> = Vec::with_capacity(8192);
    let mut chunk = [0u8; 8192];
    let mut served = 0u32;
    loop {
        // Read until a complete head is buffered.
        let head_end = loop {
            if let Some(end) = find_head_end(&buf) {
                break end;
            }
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
            if buf.len() > 64 * 1024 {
                return;
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
        let body_len: usize =
            header_value(&head, "content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
        let close =
            header_value(&head, "connection").is_some_and(|v| v.eq_ignore_ascii_case("close"));
        // Read the rest of the body.
        while buf.len() < head_end + body_len {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        buf.drain(..head_end + body_len);
        if modes.matched {
            std::hint::black_box(work::run(std::hint::black_box(body_len as u64)));
        }
        let last = modes.capped && {
            served += 1;
            served == REQUESTS_PER_CONNECTION
        };
        let bytes = if last { &last_response } else { &response };
        if stream.write_all(bytes.as_bytes()).is_err() || close {
            return;
        }
        if last {
            return linger(stream, &mut chunk);
        }
    }
}

fn main() {
    let port: u16 = std::env::args().nth(1).and_then(|p| p.parse().ok()).unwrap_or(18084);
    let mut modes = Modes { matched: false, capped: false };
    for mode in std::env::args().skip(2) {
        match mode.as_str() {
            "matched" => modes.matched = true,
            "capped" => modes.capped = true,
            other => panic!("unknown mode {other:?}: raw-limit [PORT [matched] [capped]]"),
        }
    }
    let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind");
    let mut start = format!("raw-limit listening on 127.0.0.1:{port}");
    if modes.matched {
        start += &format!(", matched: {} steps", work::STEPS);
    }
    if modes.capped {
        start += &format!(", capped: {REQUESTS_PER_CONNECTION} requests per connection");
    }
    eprintln!("{start}");
    for stream in listener.incoming().flatten() {
        thread::spawn(move || serve(stream, modes));
    }
}
