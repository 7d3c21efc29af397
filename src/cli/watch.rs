//! Streams that stay open, watched from the client's side for `lab` and `attack`.
//!
//! A [`StreamCheck`] is a row of data like every other step: it runs against a fresh in-process server
//! that speaks both revisions (eight workers, so four open streams at most, one for each
//! principal; a flood runs on the default 64), reads its streams with the project's client
//! (`client::stream`, or the raw socket where the framing is the point), and reports what it saw
//! as one line of facts, compared with the line it predicted. The server's counters (`calls_finished`,
//! `calls_cancelled`, the open streams) are read as `control FILE stats` reads them.
//!
//! A watch reports [`Seen`]s, which `case` turns into its observations. Not here: the bytes of a
//! stream (see `tests/server_live.rs`), or timing bounds: a watch waits
//! for what must happen, up to a patience that is never a measure of speed.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::ClientResponse;
use loopback_mcp_http::client::mcp::McpClient;
use loopback_mcp_http::client::stream::EventReader;
use loopback_mcp_http::client::trace::TraceMode;
use loopback_mcp_http::endpoint::live::{SUBSCRIPTION_ID_KEY, Stats};
use loopback_mcp_http::http::TransferCodings;
use loopback_mcp_http::http::chars::escape_into;
use loopback_mcp_http::json::{self, Object, Value, members};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::jsonrpc::Id;
use loopback_mcp_http::mcp::revision::{Era, Versions};

use super::local::LocalServer;
use loopback_mcp_http::client::mcp::error_code;

/// What a watch does.
#[derive(Clone, Copy, Debug)]
pub enum StreamCheck {
    /// `count_slowly` (6 steps of 50 ms, with a progress token) in this era; the client closes
    /// the stream after step 2. In 2025-11-25 it then resumes with `Last-Event-ID`.
    CloseAfterTwo(Era),
    /// `count_slowly` (one pause of 300 ms) read with an idle timer of 200 ms, on a server
    /// that sends keep-alives every 50 ms, or at the default 15 s.
    IdleTimer { keepalives: bool },
    /// A listen, then a change of the tool list (what `control FILE change-tools` does).
    ListenAndChange,
    /// One principal opens every stream it may on the default server: four listens (its
    /// listens), then slow calls up to eight (its part of the share); one more listen and one
    /// more call of its own are refused, and another principal's listen and a ping are answered
    /// meanwhile.
    StreamFlood,
    /// A slow call whose client never reads its stream; a ping afterwards.
    NeverReads,
    /// `count_slowly` (3 steps of 50 ms, with a progress token) asked as HTTP/1.0 (`true`) or
    /// HTTP/1.1: the framing of its stream, and its bytes as they came.
    Framing { http10: bool },
}

impl StreamCheck {
    /// How many observations it makes.
    pub const fn observations(self) -> usize {
        match self {
            StreamCheck::CloseAfterTwo(Era::Modern) => 1,
            StreamCheck::CloseAfterTwo(Era::Legacy) => 2,
            StreamCheck::IdleTimer { .. }
            | StreamCheck::ListenAndChange
            | StreamCheck::NeverReads
            | StreamCheck::Framing { .. } => 1,
            StreamCheck::StreamFlood => 4,
        }
    }
}

/// What a watch predicted besides the status.
#[derive(Clone, Copy, Debug)]
pub enum Predicted {
    /// A refusal with this public code and a `Retry-After`.
    Code(&'static str),
    /// This line of facts, exactly.
    Facts(&'static str),
}

/// One thing a watch saw, against its prediction.
#[derive(Clone, Debug)]
pub struct Seen {
    pub what: String,
    pub status: u16,
    pub predicted: Predicted,
    /// The status seen; `None` when no response arrived.
    pub observed_status: Option<u16>,
    pub observed: String,
    pub matched: bool,
    /// The messages of a stream, for showing.
    pub wire: Option<String>,
}

/// Long enough for anything that must happen; never a bound on speed.
const PATIENCE: Duration = Duration::from_secs(10);
/// The slow call most watches make: six steps of 50 ms.
const SIX_STEPS: (i64, i64) = (6, 50);

/// Runs `watch` on a fresh server; its observations.
pub fn observe(trace: TraceMode, watch: StreamCheck) -> Result<Vec<Seen>, String> {
    match watch {
        StreamCheck::CloseAfterTwo(era) => close_after_two(&start(trace, None)?, era),
        StreamCheck::IdleTimer { keepalives } => {
            let every = keepalives.then_some(Duration::from_millis(50));
            idle_timer(&start(trace, every)?, keepalives)
        }
        StreamCheck::ListenAndChange => listen_and_change(&start(trace, None)?),
        StreamCheck::StreamFlood => {
            let versions = Versions::ALL;
            let local = LocalServer::start_limited(
                trace,
                TransferCodings::LengthOnly,
                versions,
                Limits::DEFAULT,
            )?;
            stream_flood(&local)
        }
        StreamCheck::NeverReads => never_reads(&start(trace, None)?),
        StreamCheck::Framing { http10 } => framing(&start(trace, None)?, http10),
    }
}

fn start(trace: TraceMode, keepalive: Option<Duration>) -> Result<LocalServer, String> {
    let limits = Limits {
        requests_in_processing_max: 8,
        stream_keepalive: keepalive.unwrap_or(Limits::DEFAULT.stream_keepalive),
        ..Limits::DEFAULT
    };
    LocalServer::start_limited(trace, TransferCodings::LengthOnly, Versions::ALL, limits)
}

/// A client of `full` settled in `era`.
fn client(local: &LocalServer, era: Era) -> Result<McpClient, String> {
    let mut client = local.client(Role::Full);
    let versions = match era {
        Era::Legacy => Versions::LEGACY,
        Era::Modern => Versions::MODERN,
    };
    client.open(versions).map_err(|e| format!("open: {e}"))?;
    Ok(client)
}

fn slow_arguments((steps, pause_ms): (i64, i64)) -> Object {
    members([("steps", steps.into()), ("pause_ms", pause_ms.into())])
}

/// Facts seen against the predicted `facts`, under `status`.
fn facts(what: &str, status: Option<u16>, facts: &'static str, seen: String) -> Seen {
    let matched = status == Some(200) && seen == facts;
    Seen {
        what: what.to_owned(),
        status: 200,
        predicted: Predicted::Facts(facts),
        observed_status: status,
        observed: seen,
        matched,
        wire: None,
    }
}

/// The server's counters, once `done` holds (or the patience ran out).
fn stats_when(local: &LocalServer, done: impl Fn(&Stats) -> bool) -> Stats {
    let started = Instant::now();
    loop {
        let stats = local.server.endpoint().live().stats();
        if done(&stats) || started.elapsed() > PATIENCE {
            return stats;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

fn method(message: &Value) -> &str {
    message.get("method").and_then(Value::as_str).unwrap_or("the result")
}

fn progress(message: &Value) -> String {
    let value = message.get("params").and_then(|p| p.get("progress"));
    value.map(json::encode).unwrap_or_default()
}

/// The progress values of the next `count` messages of `reader`.
fn read_progress(reader: &mut EventReader, count: usize) -> Result<Vec<String>, String> {
    let mut seen = Vec::new();
    for _ in 0..count {
        let message = reader.next_message(PATIENCE).map_err(|e| format!("stream: {e}"))?;
        seen.push(message.as_ref().map(progress).unwrap_or_else(|| "end".into()));
    }
    Ok(seen)
}

fn close_after_two(local: &LocalServer, era: Era) -> Result<Vec<Seen>, String> {
    let mut client = client(local, era)?;
    let started = client.call_tool_streaming("count_slowly", slow_arguments(SIX_STEPS), "lab");
    let (head, id, mut reader) = started.map_err(|e| format!("tools/call: {e}"))?;
    let first = read_progress(&mut reader, 2)?.join(" ");
    let cursor = reader.last_event_id().map(str::to_owned);
    reader.close();
    // Longer than the four steps left, so a call that went on would have finished.
    thread::sleep(Duration::from_millis(250));
    let stats = stats_when(local, |s| s.calls_cancelled + s.calls_finished == 1);
    let counted = format!(
        "progress {first}, then closed; cancelled {}, finished {}",
        stats.calls_cancelled, stats.calls_finished
    );
    let status = Some(head.status);
    let (what, predicted) = match era {
        Era::Modern => (
            "2026-07-28: count_slowly (6 steps), the stream closed after step 2",
            "progress 1 2, then closed; cancelled 1, finished 0",
        ),
        Era::Legacy => (
            "2025-11-25: count_slowly (6 steps), the stream closed after step 2",
            "progress 1 2, then closed; cancelled 0, finished 1",
        ),
    };
    let mut seen = vec![facts(what, status, predicted, counted)];
    if let (Era::Legacy, Some(cursor)) = (era, cursor) {
        let resumed = client.resume(&cursor, &id).map_err(|e| format!("resume: {e}"))?;
        let later: Vec<String> = resumed.notifications.iter().map(progress).collect();
        let result = resumed.response.get("result").and_then(|r| r.get("content"));
        let text = result.and_then(Value::as_array).and_then(|c| c.first());
        let text = text.and_then(|c| c.get("text")).and_then(Value::as_str).unwrap_or("none");
        let line = format!("progress {}, then the result: {text}", later.join(" "));
        let what = "GET with Last-Event-ID: the last id the closed stream carried";
        seen.push(facts(what, Some(200), "progress 3 4 5 6, then the result: counted to 6", line));
    }
    Ok(seen)
}

fn idle_timer(local: &LocalServer, keepalives: bool) -> Result<Vec<Seen>, String> {
    let mut client = client(local, Era::Modern)?;
    let started = client.call_tool_streaming("count_slowly", slow_arguments((1, 300)), "lab");
    let (head, _, mut reader) = started.map_err(|e| format!("tools/call: {e}"))?;
    let mut methods = Vec::new();
    let ending = loop {
        match reader.next_message(Duration::from_millis(200)) {
            Ok(Some(message)) => methods.push(method(&message).to_owned()),
            Ok(None) => break "the stream ended".to_owned(),
            Err(e) => break format!("cut by the idle timer ({})", e.code()),
        }
    };
    let comments = if reader.comments() >= 2 { "2 or more" } else { "fewer than 2" };
    let line = format!("{}; {ending}; {comments} keep-alives skipped", shown(&methods));
    let (what, predicted) = if keepalives {
        (
            "a stream quiet for 300 ms, a 200 ms idle timer, keep-alives every 50 ms",
            "notifications/progress, the result; the stream ended; 2 or more keep-alives skipped",
        )
    } else {
        (
            "the same, keep-alives at the default 15 s",
            "no message; cut by the idle timer (deadline_passed); fewer than 2 keep-alives skipped",
        )
    };
    Ok(vec![facts(what, Some(head.status), predicted, line)])
}

fn shown(methods: &[String]) -> String {
    if methods.is_empty() { "no message".to_owned() } else { methods.join(", ") }
}

fn listen_and_change(local: &LocalServer) -> Result<Vec<Seen>, String> {
    let mut client = client(local, Era::Modern)?;
    let (head, id, mut reader) = client.listen().map_err(|e| format!("listen: {e}"))?;
    let next = |reader: &mut EventReader| reader.next_message(PATIENCE).ok().flatten();
    let ack = next(&mut reader);
    local.server.endpoint().live().change_tools();
    let change = next(&mut reader);
    reader.close();
    let tag = |m: &Value| m.get("params")?.get("_meta")?.get(SUBSCRIPTION_ID_KEY).cloned();
    let tagged = |m: &Option<Value>| m.as_ref().and_then(tag) == Some(id.to_value());
    let describe = |m: &Option<Value>| {
        let name = m.as_ref().map_or("nothing", method).to_owned();
        if tagged(m) { format!("{name} (tagged with the listen's id)") } else { name }
    };
    let line = format!("{}, then {}", describe(&ack), describe(&change));
    let mut observation = facts(
        "subscriptions/listen for tool list changes, then the list changes",
        Some(head.status),
        "notifications/subscriptions/acknowledged (tagged with the listen's id), then \
         notifications/tools/list_changed (tagged with the listen's id)",
        line,
    );
    let wire: Vec<String> = [ack, change].iter().flatten().map(json::encode).collect();
    observation.wire = Some(client.trace.redact(&wire.join("\n")));
    Ok(vec![observation])
}

fn stream_flood(local: &LocalServer) -> Result<Vec<Seen>, String> {
    let mut alice = client(local, Era::Modern)?;
    let mut held = Vec::new();
    for _ in 0..4 {
        let (_, _, mut reader) = alice.listen().map_err(|e| format!("listen: {e}"))?;
        reader.next_message(PATIENCE).map_err(|e| format!("listen: {e}"))?;
        held.push(reader);
    }
    let listen = alice.listen().map_err(|e| format!("listen: {e}"));
    let fifth = refused(listen, "alice's fifth listen (4 per principal)", "listen_quota", 429)?;
    for _ in 0..4 {
        let started = alice.call_tool_streaming("count_slowly", slow_arguments((20, 1000)), "f");
        let (_, _, reader) = started.map_err(|e| format!("tools/call: {e}"))?;
        held.push(reader);
    }
    let call = alice.call_tool_streaming("count_slowly", slow_arguments((20, 1000)), "f");
    let call = call.map_err(|e| format!("tools/call: {e}"));
    let flood = refused(call, "stream flood by one principal", "stream_quota", 429)?;
    let mut mallory = local.client(Role::OtherSubject);
    mallory.open(Versions::MODERN).map_err(|e| format!("open: {e}"))?;
    let (head, _, mut reader) = mallory.listen().map_err(|e| format!("listen: {e}"))?;
    let first = reader.next_message(PATIENCE).ok().flatten();
    reader.close();
    let line = first.as_ref().map_or("nothing", method).to_owned();
    let other = facts(
        "another principal's listen during the flood",
        Some(head.status),
        "notifications/subscriptions/acknowledged",
        line,
    );
    let seen = vec![fifth, flood, other, ping(local, "a ping during the flood")?];
    held.into_iter().for_each(EventReader::close);
    Ok(seen)
}

/// One more stream (its answer), judged for `status`, `code` and a `Retry-After`.
fn refused(
    opened: Result<(ClientResponse, Id, EventReader), String>,
    what: &str,
    code: &'static str,
    status: u16,
) -> Result<Seen, String> {
    let (response, _, reader) = opened?;
    reader.close();
    let seen = error_code(&response);
    let retry_after = response.field_str("retry-after").is_some();
    Ok(Seen {
        what: what.to_owned(),
        status,
        predicted: Predicted::Code(code),
        observed_status: Some(response.status),
        matched: response.status == status && seen == code && retry_after,
        observed: seen,
        wire: None,
    })
}

/// A ping in a fresh session, judged for a 200.
fn ping(local: &LocalServer, what: &str) -> Result<Seen, String> {
    let mut client = local.session(Role::Full)?;
    let answered = client.ping();
    let status = answered.is_ok().then_some(200);
    let seen = answered.map_or_else(|e| e.to_string(), |()| "answered".to_owned());
    Ok(facts(what, status, "answered", seen))
}

fn never_reads(local: &LocalServer) -> Result<Vec<Seen>, String> {
    let mut client = client(local, Era::Modern)?;
    let params = members([
        ("name", "count_slowly".into()),
        ("arguments", Value::Object(slow_arguments((3, 50)))),
    ]);
    let (message, _) = client.modern_message("tools/call", params);
    let spec = client.modern_spec(&message).map_err(|e| format!("tools/call: {e}"))?;
    let mut silent = TcpStream::connect(local.server.address()).map_err(|e| e.to_string())?;
    silent.write_all(&spec.bytes()).map_err(|e| e.to_string())?;
    let stats = stats_when(local, |s| s.calls_finished == 1 && s.streams_open == 0);
    let line = format!("finished {}, open streams {}", stats.calls_finished, stats.streams_open);
    let mut seen = vec![facts(
        "a client that never reads its open stream (count_slowly, 3 steps)",
        Some(200),
        "finished 1, open streams 0",
        line,
    )];
    seen[0].matched &= ping(local, "")?.matched;
    drop(silent);
    Ok(seen)
}

fn framing(local: &LocalServer, http10: bool) -> Result<Vec<Seen>, String> {
    let mut client = client(local, Era::Modern)?;
    let meta = Value::Object(members([("progressToken", "f".into())]));
    let params = members([
        ("name", "count_slowly".into()),
        ("arguments", Value::Object(slow_arguments((3, 50)))),
        ("_meta", meta),
    ]);
    let (message, _) = client.modern_message("tools/call", params);
    let mut bytes = client.modern_spec(&message).map_err(|e| format!("tools/call: {e}"))?.bytes();
    if http10 {
        let at = bytes.windows(10).position(|w| w == b" HTTP/1.1\r").ok_or("no version")?;
        bytes[at + 8] = b'0';
    }
    let received = read_raw(local, &bytes, http10)?;
    let text = String::from_utf8_lossy(&received).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let chunked = head.contains("\r\nTransfer-Encoding: chunked");
    let closes = head.contains("\r\nConnection: close");
    let events = body.matches("data: ").count();
    let line = format!(
        "{}, {}, {events} events, ended by {}",
        if chunked { "Transfer-Encoding: chunked" } else { "no Transfer-Encoding" },
        if closes { "Connection: close" } else { "no Connection: close" },
        if body.ends_with("\r\n0\r\n\r\n") { "the last chunk" } else { "the close" },
    );
    let (what, predicted) = if http10 {
        (
            "HTTP/1.0 stream: count_slowly (3 steps) asked as HTTP/1.0",
            "no Transfer-Encoding, Connection: close, 4 events, ended by the close",
        )
    } else {
        (
            "HTTP/1.1 stream: the same call asked as HTTP/1.1",
            "Transfer-Encoding: chunked, no Connection: close, 4 events, ended by the last chunk",
        )
    };
    let status = head.starts_with("HTTP/1.1 200 ").then_some(200);
    let mut observation = facts(what, status, predicted, line);
    observation.wire = Some(client.trace.redact(&visible_lines(&received)));
    Ok(vec![observation])
}

/// Sends `bytes` on a fresh connection and reads its answer: up to the close for HTTP/1.0,
/// up to the last chunk for HTTP/1.1.
fn read_raw(local: &LocalServer, bytes: &[u8], until_close: bool) -> Result<Vec<u8>, String> {
    let mut socket = TcpStream::connect(local.server.address()).map_err(|e| e.to_string())?;
    socket.set_read_timeout(Some(PATIENCE)).map_err(|e| e.to_string())?;
    socket.write_all(bytes).map_err(|e| e.to_string())?;
    let mut received = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = socket.read(&mut buf).map_err(|e| format!("read: {e}"))?;
        received.extend_from_slice(&buf[..n]);
        if n == 0 || (!until_close && received.ends_with(b"\r\n0\r\n\r\n")) {
            return Ok(received);
        }
    }
}

/// Bytes as lines, CR and LF made visible at the end of each.
fn visible_lines(bytes: &[u8]) -> String {
    let mut out = String::new();
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        for &b in line {
            escape_into(b, &mut out);
        }
        out.push('\n');
    }
    out
}
