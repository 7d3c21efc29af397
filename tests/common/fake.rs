//! A fake server for client tests: it answers canned bytes, one reply per request, and hands
//! back the requests it received; or, scripted, writes a response in parts and waits in between
//! for the test to let it go on.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

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

/// One step of a [`scripted`] fake server.
pub enum Step {
    /// Read once (a request, as one read returns it) and keep what came.
    Read,
    /// Write these bytes.
    Write(String),
    /// Wait until the test sends on the channel (or drops its end).
    Wait(mpsc::Receiver<()>),
    /// Read until the client closes the connection (keeping `<closed>`), for at most 5 s
    /// (keeping `<still open>`).
    AwaitClose,
}

/// A server that runs `steps` in order on one connection, and returns what it read.
pub fn scripted(steps: Vec<Step>) -> (SocketAddr, thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let handle = thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut seen = Vec::new();
        let mut buf = vec![0u8; 65536];
        for step in steps {
            match step {
                Step::Read => {
                    let n = stream.read(&mut buf).unwrap();
                    seen.push(String::from_utf8_lossy(&buf[..n]).into_owned());
                }
                Step::Write(bytes) => stream.write_all(bytes.as_bytes()).unwrap(),
                Step::Wait(go) => {
                    let _ = go.recv();
                }
                Step::AwaitClose => {
                    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                    let closed = loop {
                        match stream.read(&mut buf) {
                            Ok(0) => break true,
                            Ok(_) => continue,
                            Err(e) => break e.kind() == std::io::ErrorKind::ConnectionReset,
                        }
                    };
                    seen.push(if closed { "<closed>" } else { "<still open>" }.to_owned());
                }
            }
        }
        seen
    });
    (address, handle)
}
