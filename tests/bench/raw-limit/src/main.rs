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
//! Usage: raw-limit [PORT] (default 18084), loopback only.
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

fn serve(mut stream: TcpStream) {
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
        if stream.write_all(response.as_bytes()).is_err() || close {
            return;
        }
    }
}

fn main() {
    let port: u16 = std::env::args().nth(1).and_then(|p| p.parse().ok()).unwrap_or(18084);
    let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind");
    eprintln!("raw-limit listening on 127.0.0.1:{port}");
    for stream in listener.incoming().flatten() {
        thread::spawn(move || serve(stream));
    }
}
