//! `serve --watch` as a table: exchanges of both eras, accepted, refused by the parser or by a
//! later stage, and streamed, each with the exact lines the server's watch prints, the bytes in
//! and out taken from what this test sent and received. No line holds a token, a session id or
//! a value that was sent.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use common::server::*;
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::revision::Versions;
use loopback_mcp_http::server::ServerConfig;
use loopback_mcp_http::server::watch::Watch;

/// Long enough for any line that must come; never a bound on speed.
const PATIENCE: Duration = Duration::from_secs(10);

struct Watched {
    t: TestServer,
    lines: Arc<Mutex<Vec<String>>>,
}

fn watched(bytes: bool) -> Watched {
    watched_with(bytes, Limits { requests_in_processing_max: 4, ..Limits::DEFAULT })
}

fn watched_with(bytes: bool, limits: Limits) -> Watched {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink_lines = Arc::clone(&lines);
    let sink = Arc::new(move |text: &str| sink_lines.lock().unwrap().push(text.to_owned()));
    let config = ServerConfig {
        limits,
        versions: Versions::ALL,
        watch: Some(Arc::new(Watch::new(bytes, sink))),
        ..ServerConfig::default()
    };
    Watched { t: start_with(config), lines }
}

impl Watched {
    /// Sends `request` on a new connection and reads until the server closes it or `until`
    /// appears; what came back.
    fn send(&self, request: &[u8], until: &[u8]) -> Vec<u8> {
        let mut stream = TcpStream::connect(self.t.server.address()).unwrap();
        stream.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
        stream.write_all(request).unwrap();
        let (started, mut seen, mut buf) = (Instant::now(), Vec::new(), [0u8; 4096]);
        while started.elapsed() < PATIENCE && !contains(&seen, until) {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
                Err(_) => {}
            }
        }
        seen
    }

    /// The lines so far, once there are `count`.
    fn lines(&self, count: usize) -> Vec<String> {
        let started = Instant::now();
        loop {
            let lines = self.lines.lock().unwrap().clone();
            if lines.len() >= count || started.elapsed() > PATIENCE {
                return lines;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

fn post(t: &TestServer, fields: &str, body: &str) -> Vec<u8> {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\n{fields}Accept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        t.host(),
        body.len()
    )
    .into_bytes()
}

fn modern_call(t: &TestServer, name: &str, arguments: &str, header_name: &str) -> Vec<u8> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"{name}","arguments":{arguments},"_meta":{{"progressToken":"w","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    let fields = format!(
        "Authorization: {}\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n\
         Mcp-Name: {header_name}\r\n",
        t.bearer(Role::Full)
    );
    post(t, &fields, &body)
}

#[test]
fn every_exchange_gets_its_exact_line_and_no_secret() {
    let w = watched(false);
    let t = &w.t;
    let token = t.token(Role::Full).to_owned();
    let slow = modern_call(t, "count_slowly", r#"{"steps":2,"pause_ms":50}"#, "count_slowly");
    let mismatch = modern_call(t, "count_slowly", r#"{"steps":2,"pause_ms":50}"#, "whoami");
    let rows: Vec<(&str, Vec<u8>, &[u8], String)> = vec![
        (
            "no credentials",
            post(t, "", r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            b"}",
            "c1 r1 POST /mcp [legacy] -> 401 missing_credentials (stage 5: token) in {in} B, out {out} B"
                .into(),
        ),
        (
            "a bare LF ends the request line",
            format!("POST /mcp HTTP/1.1\nHost: {}\r\n\r\n", t.host()).into_bytes(),
            b"}",
            "c2 r1 POST /mcp -> 400 bare_lf (stage 1: head) in {in} B, out {out} B, stopped at byte 18"
                .into(),
        ),
        (
            "a token in the query",
            format!("GET /mcp?access_token={token} HTTP/1.1\r\nHost: {}\r\n\r\n", t.host())
                .into_bytes(),
            b"}",
            format!(
                "c3 r1 GET <target, {} B> -> 400 query_forbidden (stage 1: head) in {{in}} B, out {{out}} B, stopped at byte 8",
                "/mcp?access_token=".len() + token.len()
            ),
        ),
        (
            "a mirrored name that disagrees with the body",
            mismatch,
            b"}",
            "c4 r1 POST /mcp [modern] -> 400 header_mismatch (2026-07-28 step 2: mirrored headers) in {in} B, out {out} B"
                .into(),
        ),
        (
            "a slow call, streamed",
            slow,
            b"0\r\n\r\n",
            "c5 r1 POST /mcp [modern] -> 200 stream open (stage 8: method) in {in} B, out {head} B\n\
             c5 r1 stream ended: 3 events, out {rest} B"
                .into(),
        ),
        (
            "a 2025-11-25 initialize, accepted",
            post(
                t,
                &format!("Authorization: {}\r\n", t.bearer(Role::Full)),
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"w","version":"1"}}}"#,
            ),
            b"}}",
            "c6 r1 POST /mcp [legacy] -> 200 (stage 8: method) in {in} B, out {out} B".into(),
        ),
    ];
    let (mut count, mut sessions) = (0, Vec::new());
    for (what, request, until, template) in rows {
        let got = w.send(&request, until);
        let text = String::from_utf8_lossy(&got).into_owned();
        let id = text.lines().find_map(|l| l.strip_prefix("MCP-Session-Id: "));
        sessions.extend(id.map(str::to_owned));
        let head = got.windows(4).position(|x| x == b"\r\n\r\n").map_or(0, |p| p + 4);
        let expected = template
            .replace("{in}", &request.len().to_string())
            .replace("{out}", &got.len().to_string())
            .replace("{head}", &head.to_string())
            .replace("{rest}", &(got.len() - head).to_string());
        let expected: Vec<&str> = expected.split('\n').collect();
        count += expected.len();
        let lines = w.lines(count);
        assert_eq!(&lines[count - expected.len()..], expected.as_slice(), "{what}");
    }
    // A 2026-07-28 stream its client closes after the first event: the work stops.
    let slower = modern_call(t, "count_slowly", r#"{"steps":5,"pause_ms":200}"#, "count_slowly");
    let got = w.send(&slower, b"progress");
    let head = got.windows(4).position(|x| x == b"\r\n\r\n").map_or(0, |p| p + 4);
    count += 2;
    let lines = w.lines(count);
    let expected = [
        format!(
            "c7 r1 POST /mcp [modern] -> 200 stream open (stage 8: method) in {} B, out {head} B",
            slower.len()
        ),
        format!(
            "c7 r1 stream closed by the client; the work stopped: 1 events, out {} B",
            got.len() - head
        ),
    ];
    assert_eq!(&lines[count - 2..], expected.as_slice());
    let all = w.lines(count).join("\n");
    for secret in t.fixture.tokens().map(|(_, t)| t) {
        assert!(!all.contains(secret), "a token in {all}");
    }
    assert!(!all.contains("access_token") && !all.contains("whoami"), "{all}");
    assert_eq!(sessions.len(), 1, "the initialize row hands out one session");
    assert!(!all.contains(&sessions[0]), "a session id in {all}");
}

#[test]
fn bytes_mode_shows_the_head_redacted_and_where_the_parser_stopped() {
    let w = watched(true);
    let t = &w.t;
    let host = t.host();
    let refused = format!("POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type : x\r\n\r\n");
    let got = w.send(refused.as_bytes(), b"}");
    let column = "Content-Type".len();
    let stop = "POST /mcp HTTP/1.1\r\n".len() + "Host: \r\n".len() + host.len() + column;
    let expected = format!(
        "c1 r1 POST /mcp -> 400 whitespace_before_colon (stage 1: head) in {} B, out {} B, stopped at byte {stop}\n   \
         | POST /mcp HTTP/1.1\\r\\n\n   \
         | Host: {host}\\r\\n\n   \
         | Content-Type : <1 B>\\r\\n\n   \
         | {}^ stopped here (byte {stop})\n   \
         | \\r\\n",
        refused.len(),
        got.len(),
        " ".repeat(column),
    );
    assert_eq!(w.lines(1), [expected]);

    let ping = post(t, &format!("Authorization: {}\r\n", t.bearer(Role::Full)), "{}");
    let got = w.send(&ping, b"}");
    let lines = w.lines(2);
    let token = t.token(Role::Full);
    assert!(!lines[1].contains(token), "{}", lines[1]);
    let digest_line = lines[1].lines().find(|l| l.contains("Authorization:")).unwrap();
    assert!(
        digest_line.starts_with(&format!("   | Authorization: <{} B, sha256 ", 7 + token.len()))
    );
    assert!(lines[1].starts_with(&format!(
        "c2 r1 POST /mcp -> 400 jsonrpc_version (stage 4: body) in {} B, out {} B\n",
        ping.len(),
        got.len()
    )));
}

#[test]
fn a_connection_closed_without_an_answer_gets_a_line_naming_why_and_where() {
    let w = watched_with(false, short_read_budgets());
    let t = &w.t;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: 40\r\n\r\n",
        t.host()
    );
    let answered = format!(
        "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: {}\r\n\r\n",
        t.host()
    )
    .into_bytes();
    // (what is sent, whether the client then closes, and the connection's last line: `None` for
    // an answered request's own line, after which a quiet kept-alive connection gets none)
    let rows: [(Vec<u8>, bool, Option<String>); 5] = [
        (
            b"POST /mcp HTTP/1.1\r\nHo".to_vec(),
            false,
            Some("c2 closed without an answer: socket_read_timeout passed in a head, 22 B received".into()),
        ),
        (
            b"POST /mcp HTTP/1.1\r\nHo".to_vec(),
            true,
            Some("c3 closed without an answer: the client closed in a head, 22 B received".into()),
        ),
        (
            format!("{head}{{\"jsonrpc\"").into_bytes(),
            false,
            Some(format!("c4 r1 POST /mcp closed without an answer: socket_read_timeout passed in the body, {} B received", head.len() + 10)),
        ),
        (
            Vec::new(),
            false,
            Some("c5 closed without an answer: connection_idle_timeout passed before a request, 0 B received".into()),
        ),
        (answered, false, None),
    ];
    // A head that keeps arriving, a byte at a time within each read's budget, meets the whole
    // head's deadline instead.
    trickle_a_head(t.server.address());
    let mut count = 1;
    let lines = w.lines(count);
    let last = lines.last().map(String::as_str).unwrap_or_default();
    assert!(
        last.starts_with("c1 closed without an answer: request_head_deadline passed in a head, "),
        "{lines:?}"
    );
    for (row, (sent, close, line)) in rows.into_iter().enumerate() {
        let mut stream = TcpStream::connect(t.server.address()).unwrap();
        stream.write_all(&sent).unwrap();
        if close {
            stream.shutdown(std::net::Shutdown::Write).unwrap();
        }
        // The server closes: by its own budget, or after the client's close.
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        let mut rest = Vec::new();
        let _ = stream.read_to_end(&mut rest);
        count += 1;
        let lines = w.lines(count);
        match line {
            Some(line) => assert_eq!(lines.last(), Some(&line), "row {row}: {lines:?}"),
            None => {
                let answered =
                    |l: &String| l.starts_with("c6 r1 GET /.well-known/") && l.contains("-> 200");
                assert!(lines.last().is_some_and(answered), "row {row}: {lines:?}")
            }
        }
    }
}

/// Read budgets short enough for each to pass within a test.
fn short_read_budgets() -> Limits {
    Limits {
        requests_in_processing_max: 4,
        socket_read_timeout: Duration::from_millis(100),
        request_head_deadline: Duration::from_millis(400),
        request_body_deadline: Duration::from_millis(400),
        connection_idle_timeout: Duration::from_millis(200),
        ..Limits::DEFAULT
    }
}

/// Sends a head a byte every 30 ms, never ending it, until the server stops reading.
fn trickle_a_head(address: std::net::SocketAddr) {
    let mut stream = TcpStream::connect(address).unwrap();
    let started = Instant::now();
    for byte in b"POST /mcp HTTP/1.1\r\nHost: x".iter().cycle().take(40) {
        if stream.write_all(&[*byte]).is_err() || started.elapsed() > PATIENCE {
            break;
        }
        thread::sleep(Duration::from_millis(30));
    }
}
