//! The browser half of `lab`: Debian's Chromium, headless, against the server, judged from the
//! browser's own net log.
//!
//! Two probes, each one Chromium run with a fresh profile and a network confined to loopback:
//!
//! - DNS rebinding: `rebind.test` resolved to 127.0.0.1 (`--host-resolver-rules`), the page
//!   `http://rebind.test:<port>/.well-known/oauth-protected-resource/mcp` is loaded; the request
//!   reaches the server with `Host: rebind.test:<port>`.
//! - A foreign loopback origin: a page served from `http://127.0.0.1:<another port>/` POSTs to
//!   `/mcp` with `fetch` in `no-cors` mode and `Content-Type: text/plain` (a request a browser
//!   sends without asking first); the browser adds the page's `Origin`.
//!
//! Each answers the status line and the public code of the server's response as the browser
//! recorded them (`--log-net-log`): status lines from the response-header events, bodies from the
//! bytes-read events (base64). Nothing here is needed by the server; without Chromium the lab
//! reports the experiment as skipped.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use loopback_mcp_http::json::{self, Value};

/// Where Debian installs Chromium.
const CHROMIUM: &str = "/usr/bin/chromium";
/// How long one Chromium run may take before it is killed.
const RUN_LIMIT: Duration = Duration::from_secs(60);
/// The net log can be large; its nesting is shallow.
const NET_LOG_DEPTH_MAX: usize = 32;

/// How to install what is missing.
pub const INSTALL_HINT: &str = "Chromium is not installed (apt-get install chromium)";

/// The environment variable that names another Chromium binary (for a browser installed
/// elsewhere, or none: a path that does not exist makes the lab skip the browser).
pub const CHROMIUM_VARIABLE: &str = "LOOPBACK_MCP_CHROMIUM";

/// The Chromium binary, when there is one.
pub fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os(CHROMIUM_VARIABLE).map_or(PathBuf::from(CHROMIUM), PathBuf::from);
    Some(path).filter(|path| path.exists())
}

/// What the browser recorded of the first response to a request line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    pub status: Option<u16>,
    pub code: String,
    /// The `Origin` the browser sent, if any.
    pub origin: Option<String>,
}

/// Loads `http://rebind.test:<port><path>` with `rebind.test` resolved to 127.0.0.1.
pub fn rebinding(chromium: &Path, port: u16, path: &str) -> Result<Seen, String> {
    let url = format!("http://rebind.test:{port}{path}");
    let log = run(chromium, &url, &["MAP rebind.test 127.0.0.1"], None)?;
    Ok(first_response(&log, &format!("GET {path} ")))
}

/// Serves a page from another loopback port whose script POSTs `body` as `text/plain` to
/// `http://127.0.0.1:<port>/mcp` in `no-cors` mode, and loads it.
pub fn foreign_origin_post(chromium: &Path, port: u16, body: &str) -> Result<Seen, String> {
    let target = format!("http://127.0.0.1:{port}/mcp");
    let script = format!(
        "fetch({target:?}, {{method: 'POST', mode: 'no-cors', headers: {{'Content-Type': 'text/plain'}}, body: {body:?}}}).then(() => document.title = 'sent', () => document.title = 'failed');"
    );
    let page = format!("<!doctype html><title>page</title><script>{script}</script>");
    let server = PageServer::start(page)?;
    let url = format!("http://127.0.0.1:{}/", server.port());
    let log = run(chromium, &url, &[], Some(5000))?;
    Ok(first_response(&log, "POST /mcp "))
}

/// Runs Chromium on `url` and returns its net log, parsed.
fn run(chromium: &Path, url: &str, maps: &[&str], budget_ms: Option<u64>) -> Result<Value, String> {
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let run = RUNS.fetch_add(1, Ordering::AcqRel);
    let work = std::env::temp_dir().join(format!("loopback-mcp-lab-{}-{run}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| format!("cannot make a browser profile: {e}"))?;
    let net_log = work.join("net-log.json");
    let mut rules: Vec<&str> = maps.to_vec();
    rules.extend(["MAP * ~NOTFOUND", "EXCLUDE 127.0.0.1"]);
    let mut command = Command::new(chromium);
    command
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-gpu",
            "--net-log-capture-mode=Everything",
        ])
        .arg(format!("--user-data-dir={}", work.join("profile").display()))
        .arg(format!("--host-resolver-rules={}", rules.join(", ")))
        .arg(format!("--log-net-log={}", net_log.display()))
        .args(budget_ms.map(|ms| format!("--virtual-time-budget={ms}")))
        .args(["--dump-dom", url])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let outcome = wait_bounded(&mut command);
    let log = outcome.and_then(|()| {
        let text = std::fs::read(&net_log).map_err(|e| format!("no net log: {e}"))?;
        json::decode(&text, NET_LOG_DEPTH_MAX).map_err(|e| format!("the net log is not JSON: {e}"))
    });
    let _ = std::fs::remove_dir_all(&work);
    log
}

fn wait_bounded(command: &mut Command) -> Result<(), String> {
    let mut child = command.spawn().map_err(|e| format!("cannot start Chromium: {e}"))?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => return Err(format!("Chromium exited with {status}")),
            Ok(None) if started.elapsed() > RUN_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("Chromium took longer than {RUN_LIMIT:?}"));
            }
            Ok(None) => thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("cannot wait for Chromium: {e}")),
        }
    }
}

/// The first response the browser recorded for a request whose line starts with `line_start`:
/// its status, the public code of its body, and the `Origin` the request carried.
fn first_response(log: &Value, line_start: &str) -> Seen {
    let kinds = log.get("constants").and_then(|c| c.get("logEventTypes"));
    let kind = |name: &str| kinds.and_then(|k| k.get(name)).and_then(number);
    let (send, read, bytes) = (
        kind("HTTP_TRANSACTION_SEND_REQUEST_HEADERS"),
        kind("HTTP_TRANSACTION_READ_RESPONSE_HEADERS"),
        kind("URL_REQUEST_JOB_FILTERED_BYTES_READ"),
    );
    let events = log.get("events").and_then(Value::as_array).unwrap_or_default();
    let mut source = None;
    let mut seen = Seen::default();
    for event in events {
        let (event_kind, params) = (event.get("type").and_then(number), event.get("params"));
        let event_source = event.get("source").and_then(|s| s.get("id")).and_then(number);
        let text = |key: &str| params.and_then(|p| p.get(key)).and_then(Value::as_str);
        if source.is_none()
            && event_kind == send
            && text("line").is_some_and(|l| l.starts_with(line_start))
        {
            source = event_source;
            seen.origin = header(params, "origin:");
            continue;
        }
        if source.is_none() || event_source != source {
            continue;
        }
        if event_kind == read && seen.status.is_none() {
            let status_line = params.and_then(|p| p.get("headers")).and_then(Value::as_array);
            let status_line = status_line.and_then(|h| h.first()).and_then(Value::as_str);
            seen.status =
                status_line.and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok());
        } else if event_kind == bytes && seen.code.is_empty() {
            seen.code =
                text("bytes").and_then(base64_decode).map(|b| public_code(&b)).unwrap_or_default();
        }
    }
    seen
}

fn number(value: &Value) -> Option<u64> {
    value.as_number().and_then(|n| n.as_u64())
}

/// The value of a request header the net log recorded (`"Name: value"` lines), by its lowercase
/// name with the colon.
fn header(params: Option<&Value>, name_colon: &str) -> Option<String> {
    let headers = params?.get("headers")?.as_array()?;
    headers.iter().filter_map(Value::as_str).find_map(|line| {
        let lower = line.to_ascii_lowercase();
        lower.starts_with(name_colon).then(|| line[name_colon.len()..].trim().to_owned())
    })
}

/// The public code (`error.message`) of a JSON-RPC error body.
fn public_code(body: &[u8]) -> String {
    json::decode(body, 8)
        .ok()
        .and_then(|v| v.get("error")?.get("message")?.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Standard base64 (RFC 4648 §4) with padding, as the net log writes bodies.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let bytes = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * i);
        }
        let produced = chunk.len().checked_sub(1)?;
        out.extend_from_slice(&n.to_be_bytes()[1..=produced]);
    }
    Some(out)
}

/// A one-page HTTP server on a free loopback port, for the foreign-origin probe.
struct PageServer {
    address: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl PageServer {
    fn start(page: String) -> Result<PageServer, String> {
        let listener =
            TcpListener::bind("127.0.0.1:0").map_err(|e| format!("cannot serve the page: {e}"))?;
        let address = listener.local_addr().map_err(|e| format!("cannot serve the page: {e}"))?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let thread = thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::Acquire) {
                    return;
                }
                if let Ok(stream) = stream {
                    answer_page(stream, &page);
                }
            }
        });
        Ok(PageServer { address, stop, thread: Some(thread) })
    }

    fn port(&self) -> u16 {
        self.address.port()
    }
}

impl Drop for PageServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        let _ = TcpStream::connect(self.address); // wakes the accept
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Reads one request head (bounded) and answers the page, or 404 for anything but `/`.
fn answer_page(mut stream: TcpStream, page: &str) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut chunk = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&chunk[..n]),
        }
    }
    let (status, body) =
        if head.starts_with(b"GET / ") { ("200 OK", page) } else { ("404 Not Found", "") };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_the_net_log_bodies() {
        let cases: [(&str, Option<&[u8]>); 6] = [
            ("", Some(b"")),
            ("YQ==", Some(b"a")),
            ("YWI=", Some(b"ab")),
            ("YWJj", Some(b"abc")),
            ("eyJhIjoxfQ==", Some(br#"{"a":1}"#)),
            ("YW*j", None),
        ];
        for (text, expected) in cases {
            assert_eq!(base64_decode(text).as_deref(), expected, "{text:?}");
        }
    }
}
