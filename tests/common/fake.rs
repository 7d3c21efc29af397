//! A fake server for client tests: it answers canned bytes, one reply per request, and hands
//! back the requests it received.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::thread;

/// A server that answers each of `replies` to one request, in order, on one connection, and
/// returns every request it received.
pub fn fake(replies: Vec<String>) -> (SocketAddr, thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let handle = thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut requests = Vec::new();
        for reply in replies {
            let mut buf = vec![0u8; 65536];
            let n = stream.read(&mut buf).unwrap();
            requests.push(String::from_utf8_lossy(&buf[..n]).into_owned());
            stream.write_all(reply.as_bytes()).unwrap();
        }
        requests
    });
    (address, handle)
}

/// A 200 reply with the extra `fields` (each ending in CRLF) and a JSON body.
pub fn json_reply(fields: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{fields}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// A reply with `status` (its code and reason) and a JSON body.
pub fn json_status(status: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}
