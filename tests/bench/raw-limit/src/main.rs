//! raw-limit: a benchmark peer for loopback-mcp-http, the ceiling of a blocking `std::net` design.
//! It checks nothing: no method, path, header, token, session or JSON is looked at, and every
//! request gets the same fixed JSON-RPC result. Thread per connection, HTTP/1.1 keep-alive; it
//! frames each request just enough to stay in step (head up to CRLFCRLF, then Content-Length body
//! bytes) and closes when the peer closes or sends `Connection: close`.
//! The answer has the shape of loopback-mcp-http's answer to a `ping` from
//! tests/bench/ping.lua or `bench --route raw-ping`, byte for byte in length: the same four header
//! fields in the same order and a 45-byte body with a ten-digit id. So the client parses as much
//! per answer from either server, and a benchmark compares what the servers do, not what the
//! client does with their answers. Its `Date` is fixed (this peer reads no clock) and its id is
//! always the same. It does not end a connection after a number of requests, as
//! loopback-mcp-http does after its 1000th.
//! Usage: raw-limit [PORT] [--detours N] (default 18084, 0), loopback only.
//!
//! `--detours N` (at most 256) adds code to every request's path and nothing else: N small
//! functions, each called once a request with one multiplication, a rotation and a comparison
//! that never holds, and each followed in the binary by a cold tail about 400 bytes long that never
//! runs. So a request runs about 2 more 64-byte lines of code and 20 more instructions (the call
//! through a table included) per detour, spread over a page for every few detours: a calibration
//! of what code that is far apart costs on this machine (tests/bench/README.md).
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;

const BODY: &str = r#"{"id":1000000001,"jsonrpc":"2.0","result":{}}"#;

/// The answer to every request.
fn answer() -> String {
    format!(
        "HTTP/1.1 200 OK\r\nDate: Thu, 01 Jan 1970 00:00:00 GMT\r\nContent-Type: application/json\r\n\
         Cache-Control: no-store\r\nContent-Length: {}\r\n\r\n{}",
        BODY.len(),
        BODY
    )
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

/// One detour: a few instructions of work, then a tail that never runs, between it and the next
/// detour in the binary.
#[inline(never)]
fn detour<const K: u64>(x: u64) -> u64 {
    let y = x.wrapping_mul(K | 1).rotate_left((K % 63 + 1) as u32) ^ 0x9e37_79b9_7f4a_7c15;
    if std::hint::black_box(y) == K.wrapping_add(0x5eed) {
        let mut z = y;
        for k in 0..24u64 {
            z = std::hint::black_box(z.wrapping_mul(K ^ k).rotate_left((k + 1) as u32));
        }
        return z;
    }
    y.wrapping_add(K)
}

macro_rules! detours {
    ($($row:literal)*) => {
        [$(detours!(@row $row 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)),*]
    };
    (@row $row:literal $($col:literal)*) => {
        [$(detour::<{ $row * 16 + $col }> as Detour),*]
    };
}

type Detour = fn(u64) -> u64;

/// Every detour, in the order a request calls them.
static DETOURS: [[Detour; 16]; 16] = detours!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);

/// Runs the first `count` detours.
fn take_detours(count: usize, seed: u64) -> u64 {
    DETOURS.iter().flatten().take(count).fold(seed, |x, f| f(x))
}

fn serve(mut stream: TcpStream, detours: usize) {
    let _ = stream.set_nodelay(true);
    let response = answer();
    let mut buf: Vec<u8> = Vec::with_capacity(8192);
    let mut chunk = [0u8; 8192];
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
        if detours > 0 {
            std::hint::black_box(take_detours(detours, body_len as u64));
        }
        if stream.write_all(response.as_bytes()).is_err() || close {
            return;
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let port: u16 = args.get(1).and_then(|p| p.parse().ok()).unwrap_or(18084);
    let detours = match args.get(2..) {
        Some([flag, n]) if flag == "--detours" => n.parse().ok().filter(|&n| n <= 256),
        Some([]) | None => Some(0),
        Some(_) => None,
    };
    let Some(detours) = detours else {
        eprintln!("usage: raw-limit [PORT] [--detours N] (N at most 256)");
        std::process::exit(2);
    };
    let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind");
    eprintln!("raw-limit listening on 127.0.0.1:{port}");
    for stream in listener.incoming().flatten() {
        thread::spawn(move || serve(stream, detours));
    }
}
