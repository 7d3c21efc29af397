//! One connection read raw, byte by byte as it arrives, and the 2026-07-28 requests and server
//! counters the stream tests read: what is checked is what the wire carried and when.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::server::TestServer;
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::endpoint::live::Stats;

pub const MODERN: &str = "2026-07-28";
/// How long a test waits for bytes that must come.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// One connection read as the bytes come.
pub struct Wire {
    pub stream: TcpStream,
    pub seen: Vec<u8>,
}

impl Wire {
    pub fn open(t: &TestServer, request: &[u8]) -> Wire {
        let mut stream = TcpStream::connect(t.server.address()).unwrap();
        stream.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
        stream.write_all(request).unwrap();
        Wire { stream, seen: Vec::new() }
    }

    /// Reads until `pattern` has been seen `times` times; everything read so far, as text.
    pub fn until(&mut self, pattern: &str, times: usize) -> String {
        let started = Instant::now();
        let mut buf = [0u8; 4096];
        while text(&self.seen).matches(pattern).count() < times {
            assert!(started.elapsed() < PATIENCE, "no {pattern:?} in {:?}", text(&self.seen));
            match self.stream.read(&mut buf) {
                Ok(0) => panic!("closed before {pattern:?}: {:?}", text(&self.seen)),
                Ok(n) => self.seen.extend_from_slice(&buf[..n]),
                Err(_) => {}
            }
        }
        text(&self.seen)
    }

    /// Reads until the server closes the connection or `PATIENCE` passes.
    pub fn until_close(&mut self) -> String {
        let started = Instant::now();
        let mut buf = [0u8; 4096];
        while started.elapsed() < PATIENCE {
            match self.stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => self.seen.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
                Err(_) => {}
            }
        }
        text(&self.seen)
    }
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A 2026-07-28 POST of `method` with `params` (the `_meta` added, with `meta_extra` inside it).
pub fn modern(t: &TestServer, role: Role, method: &str, params: &str, meta_extra: &str) -> Vec<u8> {
    let comma = if params.is_empty() { "" } else { "," };
    let body = format!(
        r#"{{"id":7,"jsonrpc":"2.0","method":"{method}","params":{{"_meta":{{"io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/protocolVersion":"{MODERN}"{meta_extra}}}{comma}{params}}}}}"#
    );
    let name = params.split(r#""name":""#).nth(1).and_then(|r| r.split('"').next());
    let mut extra = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", method)];
    extra.extend(name.map(|n| ("Mcp-Name", n)));
    t.post_bytes(role, None, &body, &extra)
}

pub fn stats(t: &TestServer) -> Stats {
    t.server.endpoint().live().stats()
}

/// Waits until `done` holds of the server's counters.
pub fn eventually(t: &TestServer, done: impl Fn(&Stats) -> bool) -> Stats {
    let started = Instant::now();
    loop {
        let now = stats(t);
        if done(&now) || started.elapsed() > PATIENCE {
            return now;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
