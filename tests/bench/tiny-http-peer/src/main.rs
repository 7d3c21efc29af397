//! tiny-http-peer: a benchmark peer for loopback-mcp-http, a synchronous server on the `tiny_http`
//! crate (0.12), an off-the-shelf blocking HTTP/1.1 server. It checks nothing: no method, path,
//! header, token, session or JSON is looked at, and every request gets the same fixed JSON-RPC
//! result with `Content-Type: application/json`, keep-alive (tiny_http adds `Date` and `Server`).
//! Thread per connection: tiny_http's accept thread hands each connection to a pool thread of its
//! own, which reads and frames its requests (tiny_http skips unread bodies) and queues them;
//! HANDLERS threads take requests from that queue with `incoming_requests()` and write the answers
//! (one write each), so no connection waits on another's answer for long.
//! One workaround, not a tuning: tiny_http's pool counts a woken thread as idle until it runs, so a
//! burst of connections can leave some queued behind busy keep-alive connections, unanswered for
//! as long as those stay open. An empty connection to itself every 5 ms makes the pool start a
//! thread when all are busy, and that thread then takes the queued connection.
//! It does not set TCP_NODELAY (tiny_http offers no hook for it, and each answer is one write).
//! Usage: tiny-http-peer [PORT] [HANDLERS] (default 18085 4), loopback only.
use std::net::TcpStream;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use tiny_http::{Header, Response, Server};

const BODY: &str = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;

fn main() {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().and_then(|p| p.parse().ok()).unwrap_or(18085);
    let handlers: usize = args.next().and_then(|n| n.parse().ok()).filter(|&n| n > 0).unwrap_or(4);
    let server = Arc::new(Server::http(("127.0.0.1", port)).expect("bind"));
    let addr = server.server_addr().to_ip().expect("a TCP address");
    let content_type: Header = "Content-Type: application/json".parse().expect("a valid field");
    eprintln!("tiny-http-peer listening on 127.0.0.1:{port}");
    thread::spawn(move || {
        loop {
            thread::sleep(Duration::from_millis(5));
            let _ = TcpStream::connect(addr);
        }
    });
    let threads: Vec<_> = (0..handlers)
        .map(|_| {
            let server = Arc::clone(&server);
            let content_type = content_type.clone();
            thread::spawn(move || {
                for request in server.incoming_requests() {
                    let response = Response::from_string(BODY).with_header(content_type.clone());
                    // A client that went away is not this server's concern; the next request is.
                    let _ = request.respond(response);
                }
            })
        })
        .collect();
    for t in threads {
        let _ = t.join();
    }
}
