//! A client that reconnects as soon as it has read a closing answer, against a small pool: the
//! worker that wrote that answer told the pool before its last write, so the reconnection waits
//! for that worker's place (a bounded wait) and is taken, not refused, even when the worker is
//! preempted between its last write and giving its place back.
//!
//! In a test binary of its own, so that the 2 000 exchanges do not share two cores with the
//! suite's floods of sixty-four workers and take longer than they need.

mod common;

use common::server::*;
use loopback_mcp_http::client::request;
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::server::ServerConfig;

#[test]
fn a_client_that_reconnects_after_each_closing_answer_is_never_refused() {
    let limits = Limits { requests_in_processing_max: 2, ..Limits::DEFAULT };
    let t = start_with(ServerConfig { limits, ..ServerConfig::default() });
    // No credentials: a 401, whose answer closes the connection.
    let host = t.host();
    let fields = [
        ("Host", host.as_str()),
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
    ];
    let unauthenticated = request("POST", "/mcp", &fields, init_body().as_bytes());
    let mut refused = 0;
    for _ in 0..2000 {
        let response = t.raw(&unauthenticated).unwrap();
        assert_eq!(response.field_str("connection"), Some("close"));
        match response.status {
            401 => {}
            503 => refused += 1,
            other => panic!("a {other}"),
        }
    }
    assert_eq!(refused, 0, "reconnections refused for a worker about to be free");
}
