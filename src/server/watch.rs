//! `serve --watch`: the server's own view of each exchange, one line as it is decided.
//!
//! A line names the connection and the request (`c3 r1`), the request line, the status and the
//! public code, the stage of the receive order that decided (`endpoint::ReceiveStage`), and the bytes
//! in and out:
//!
//! ```text
//! c3 r1 POST /mcp [legacy] -> 401 missing_credentials (stage 5: token) in 412 B, out 251 B
//! ```
//!
//! A request that reached the era decision names the era whose rules it met, `[legacy]`
//! (2025-11-25, sessions) or `[modern]` (2026-07-28 on), after its request line; one refused
//! before it (a head, a route, a media type) names none.
//!
//! A stream that stays open gets a second line when it ends: how many chunks and bytes it
//! wrote, and whether it ended by itself or its client closed it. A connection closed while a
//! request was still arriving (or before any came) gets a line too: the budget that passed, by
//! its name in `Limits`, or the client's close, where the parser was, and the bytes received:
//!
//! ```text
//! c4 closed without an answer: socket_read_timeout passed in a head, 23 B received
//! ```
//!
//! A head the parser refused also names the byte where it stopped. With `--watch=bytes` the
//! received head follows, one line per field line, CR and LF made visible (`\r`, `\n`), and for
//! a refused head a caret under the byte where the parser stopped.
//!
//! **Nothing sent is repeated.** A target is shown only when it is one of the server's paths, a
//! field name only when it is one this server reads (`Host`, `Authorization`, `Mcp-Method`, a
//! tool's `Mcp-Param-{Name}`, ...; any other as its length, whitespace and the colon as they
//! are), and a field value only when it is one of the protocol's public constants (a media type,
//! a revision, a method name, `chunked`, the server's own authority) or, for `Content-Length`, a
//! number. A token or a session id shows as its length and the first eight hex digits of its
//! SHA-256 digest, so two lines can be told apart without either being readable; any other
//! value as its length.
//!
//! Not here: when lines are made (the connection's handler, `server::connection`), and where
//! they go (the sink `serve` gives: stderr).

use std::fmt;
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::auth::metadata::{PATH_FOR_MCP, PATH_ROOT};
use crate::digest::Digest;
use crate::endpoint::tools::Tool;
use crate::endpoint::{Answer, Decided};
use crate::http::chars::{self, escape_into};
use crate::http::connection::{Close, Departure, Happened, Next, ReadBudget, Stage, Why};
use crate::http::is_looked_up;
use crate::mcp::MCP_PATH;
use crate::mcp::method::McpMethod;
use crate::mcp::revision::{Era, Revision};

/// What `serve --watch` prints, and where.
pub struct Watch {
    /// `--watch=bytes`: the received head too.
    pub bytes: bool,
    sink: Arc<dyn Fn(&str) + Send + Sync>,
    connections: AtomicU64,
}

impl fmt::Debug for Watch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Watch").field("bytes", &self.bytes).finish_non_exhaustive()
    }
}

impl Watch {
    /// A watch that hands every line to `sink`.
    pub fn new(bytes: bool, sink: Arc<dyn Fn(&str) + Send + Sync>) -> Watch {
        Watch { bytes, sink, connections: AtomicU64::new(0) }
    }

    /// The number of the next connection, from 1.
    pub fn next_connection(&self) -> u64 {
        self.connections.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Hands `text` (one line, or a line and its head) to the sink.
    pub fn emit(&self, text: &str) {
        (self.sink)(text);
    }
}

/// One exchange, as its line shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exchange {
    pub connection: u64,
    pub request: u64,
    /// The request line, as [`request_line`] shows it.
    pub line: String,
    pub status: u16,
    /// A refusal's stage and code; `None` for an answer.
    pub decided: Option<Decided>,
    /// The answer is a stream that stays open.
    pub streaming: bool,
    pub bytes_in: usize,
    pub bytes_out: usize,
    /// For a head the parser refused: the offset of the byte where it stopped.
    pub stopped_at: Option<usize>,
    /// The era whose rules the request met, once it was decided.
    pub era: Option<Era>,
}

/// The line of an exchange.
pub fn exchange_line(e: &Exchange) -> String {
    let mut out = format!("c{} r{} {}", e.connection, e.request, e.line);
    match e.era {
        Some(Era::Legacy) => out.push_str(" [legacy]"),
        Some(Era::Modern) => out.push_str(" [modern]"),
        None => {}
    }
    let _ = write!(out, " -> {}", e.status);
    match (&e.decided, e.streaming) {
        (Some(decided), _) => {
            let _ = write!(out, " {} ({})", decided.code, decided.stage.label());
        }
        (None, true) => out.push_str(" stream open (stage 8: method)"),
        (None, false) => out.push_str(" (stage 8: method)"),
    }
    let _ = write!(out, " in {} B, out {} B", e.bytes_in, e.bytes_out);
    if let Some(at) = e.stopped_at {
        let _ = write!(out, ", stopped at byte {at}");
    }
    out
}

/// The line of a connection closed with no answer to what it was sending: why (the budget that
/// passed, or the client's close), where the parser was, and the bytes of the request received.
pub fn unanswered_line(
    connection: u64,
    pending: Option<&Exchange>,
    why: &str,
    received: usize,
) -> String {
    let (request, place) = match (pending, received) {
        (Some(e), _) => (format!(" r{} {}", e.request, e.line), "in the body"),
        (None, 0) => (String::new(), "before a request"),
        (None, _) => (String::new(), "in a head"),
    };
    format!("c{connection}{request} closed without an answer: {why} {place}, {received} B received")
}

/// How an open stream ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamEnd {
    /// Its end was written (the last chunk, or a close-delimited body's last event).
    Ended,
    /// Its client left (or was dropped for filling the read buffer), and the work stopped or
    /// goes on (a 2025-11-25 call).
    Departed(Why, Departure),
    /// The server failed while producing it: cut without its end.
    Cut,
}

/// The second line of a stream that stayed open.
pub fn stream_line(
    connection: u64,
    request: u64,
    chunks: usize,
    bytes: usize,
    end: StreamEnd,
) -> String {
    let how = match end {
        StreamEnd::Ended => "ended",
        StreamEnd::Departed(Why::PeerLeft, Departure::Continue) => {
            "closed by the client; the work goes on"
        }
        StreamEnd::Departed(Why::PeerLeft, Departure::Stop) => {
            "closed by the client; the work stopped"
        }
        StreamEnd::Departed(Why::OverBudget, Departure::Continue) => {
            "dropped: the client filled the read buffer; the work goes on"
        }
        StreamEnd::Departed(Why::OverBudget, Departure::Stop) => {
            "dropped: the client filled the read buffer; the work stopped"
        }
        StreamEnd::Cut => "cut by a server failure",
    };
    format!("c{connection} r{request} stream {how}: {chunks} events, out {bytes} B")
}

/// The paths a line may show.
const PATHS: [&str; 3] = [MCP_PATH, PATH_FOR_MCP, PATH_ROOT];

/// The request line of `received` as a watch line shows it: the method when it is one, the
/// target when it is one of the server's paths (its length otherwise), `?` for what is missing.
pub fn request_line(received: &[u8]) -> String {
    let first = received.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = first.strip_suffix(b"\r").unwrap_or(first);
    let mut parts = first.split(|&b| b == b' ');
    let method = parts.next().filter(|m| is_method(m));
    let method = method.map_or("?", |m| std::str::from_utf8(m).unwrap_or("?"));
    let target = match parts.next() {
        Some(t) if PATHS.iter().any(|p| p.as_bytes() == t) => String::from_utf8_lossy(t).into(),
        Some(t) if !t.is_empty() => format!("<target, {} B>", t.len()),
        _ => "?".to_owned(),
    };
    format!("{method} {target}")
}

fn is_method(bytes: &[u8]) -> bool {
    (1..=16).contains(&bytes.len()) && bytes.iter().all(u8::is_ascii_uppercase)
}

/// The received head, one field line per line with CR and LF made visible and every value
/// redacted (see the module docs); a caret under `stop`, the byte where the parser stopped.
/// `authority` is the server's own `Host`. At most the head's first empty line is shown.
pub fn head_dump(received: &[u8], stop: Option<usize>, authority: &str) -> String {
    let mut out = String::new();
    let mut start = 0;
    for (index, line) in received.split_inclusive(|&b| b == b'\n').enumerate() {
        let rendered = render_line(line, index == 0, authority);
        let _ = writeln!(out, "   | {}", rendered.text);
        let end = start + line.len();
        if let Some(at) = stop.filter(|at| (start..end).contains(at)) {
            let column = rendered.column_of(at - start);
            let _ = writeln!(out, "   | {}^ stopped here (byte {at})", " ".repeat(column));
        }
        start = end;
        if line == b"\r\n" || line == b"\n" {
            break;
        }
    }
    if let Some(at) = stop.filter(|at| *at >= start) {
        let _ = writeln!(out, "   | (stopped at byte {at}, after the bytes shown)");
    }
    out
}

/// One rendered line, and the column under which each of its raw bytes is shown.
struct Rendered {
    text: String,
    columns: Vec<usize>,
}

impl Rendered {
    /// The column under which raw byte `at` of the line is shown.
    fn column_of(&self, at: usize) -> usize {
        self.columns.get(at).copied().unwrap_or_else(|| self.text.chars().count())
    }

    /// `bytes` shown one by one, escaped.
    fn verbatim(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.columns.push(self.text.chars().count());
            escape_into(b, &mut self.text);
        }
    }

    /// `raw` bytes shown as `text`.
    fn placeholder(&mut self, raw: usize, text: &str) {
        let column = self.text.chars().count();
        self.columns.extend(std::iter::repeat_n(column, raw));
        self.text.push_str(text);
    }
}

/// One line of a head: the request line, or a field line, redacted.
fn render_line(line: &[u8], first: bool, authority: &str) -> Rendered {
    let mut r = Rendered { text: String::new(), columns: Vec::new() };
    let body_end = line.iter().rposition(|&b| b != b'\r' && b != b'\n').map_or(0, |p| p + 1);
    let (content, ending) = line.split_at(body_end);
    if first {
        render_request_line(content, &mut r);
    } else {
        render_field_line(content, authority, &mut r);
    }
    r.verbatim(ending);
    r
}

fn render_request_line(content: &[u8], r: &mut Rendered) {
    for (i, part) in content.split(|&b| b == b' ').enumerate() {
        if i > 0 {
            r.verbatim(b" ");
        }
        let shown = match i {
            0 => is_method(part),
            1 => PATHS.iter().any(|p| p.as_bytes() == part),
            _ => part == b"HTTP/1.1" || part == b"HTTP/1.0",
        };
        if shown || part.is_empty() {
            r.verbatim(part);
        } else {
            r.placeholder(part.len(), &format!("<{} B>", part.len()));
        }
    }
}

fn render_field_line(content: &[u8], authority: &str, r: &mut Rendered) {
    if content.is_empty() {
        return; // the empty line that ends the head
    }
    let Some(colon) = content.iter().position(|&b| b == b':') else {
        r.placeholder(content.len(), &format!("<{} B, no colon>", content.len()));
        return;
    };
    let (name, rest) = content.split_at(colon);
    render_field_name(name, r);
    r.verbatim(b":");
    let value = &rest[1..];
    let lead = value.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    r.verbatim(&value[..lead]);
    let value = &value[lead..];
    let shown = String::from_utf8_lossy(name).to_ascii_lowercase();
    r.placeholder(value.len(), &redacted(&shown, value, authority));
}

/// A field name as the dump shows it: each run of token bytes itself when it is a name this
/// server reads, else its length; whitespace as it is (a space before the colon is an error the
/// dump points at); any other bytes as their length.
fn render_field_name(name: &[u8], r: &mut Rendered) {
    let mut rest = name;
    while let Some(&first) = rest.first() {
        let kind = |b: &u8| (chars::is(*b, chars::TCHAR), matches!(b, b' ' | b'\t'));
        let run = rest.iter().take_while(|b| kind(b) == kind(&first)).count();
        let (part, after) = rest.split_at(run);
        match kind(&first) {
            (true, _) if is_servers_field(part) => r.verbatim(part),
            (false, true) => r.verbatim(part),
            (true, _) | (false, false) => r.placeholder(part.len(), &format!("<{} B>", part.len())),
        }
        rest = after;
    }
}

/// Whether `name` is a field this server reads: one the receive order looks up, or the
/// `Mcp-Param-{Name}` of one of its tools' mirrored arguments.
fn is_servers_field(name: &[u8]) -> bool {
    let param = |header: &str| {
        let field = format!("Mcp-Param-{header}");
        name.eq_ignore_ascii_case(field.as_bytes())
    };
    let params = Tool::ALL.into_iter().flat_map(|tool| tool.row().params.iter());
    is_looked_up(name) || params.filter_map(|p| p.header).any(param)
}

/// A field value as the dump shows it: itself when public, else its length (and, for a
/// credential, the start of its digest).
fn redacted(name: &str, value: &[u8], authority: &str) -> String {
    let text = std::str::from_utf8(value).unwrap_or_default();
    let public = match name {
        "host" => text == authority,
        "accept" => ACCEPTS.contains(&text),
        "content-type" => CONTENT_TYPES.contains(&text),
        "content-length" => !value.is_empty() && value.iter().all(u8::is_ascii_digit),
        "mcp-protocol-version" => Revision::ALL.iter().any(|r| r.name() == text),
        "mcp-method" => McpMethod::ALL.iter().any(|m| m.name() == text),
        "transfer-encoding" => text == "chunked",
        "connection" => text == "close" || text == "keep-alive",
        "expect" => text == "100-continue",
        _ => false,
    };
    if public && !text.is_empty() {
        return text.to_owned();
    }
    match name {
        "authorization" | "mcp-session-id" | "cookie" | "proxy-authorization" => {
            format!("<{} B, sha256 {}>", value.len(), Digest::of(value).short_hex())
        }
        _ => format!("<{} B>", value.len()),
    }
}

const ACCEPTS: [&str; 4] =
    ["application/json, text/event-stream", "application/json", "text/event-stream", "*/*"];
const CONTENT_TYPES: [&str; 2] = ["application/json", "text/plain"];

/// One connection's side of the watch: the exchange being decided and the stream being
/// written, turned into lines as they end.
pub struct Watcher<'w> {
    watch: &'w Watch,
    connection: u64,
    requests: u64,
    authority: String,
    pending: Option<Exchange>,
    dump: Option<String>,
    /// The open stream's request, chunks and bytes, while it is open.
    stream: Option<(u64, usize, usize)>,
    /// The budget the last read waited under, and the bytes of the request received by then.
    reading: Option<(ReadBudget, usize)>,
}

impl<'w> Watcher<'w> {
    /// The watch of a new connection to a server whose own `Host` is `authority`.
    pub fn new(watch: &'w Watch, authority: &str) -> Watcher<'w> {
        Watcher {
            watch,
            connection: watch.next_connection(),
            requests: 0,
            authority: authority.to_owned(),
            pending: None,
            dump: None,
            stream: None,
            reading: None,
        }
    }

    /// A new exchange begins with `received`, the head (and, for a refused head, whatever
    /// followed it); `stopped_at` for a head the parser refused.
    fn begin(&mut self, received: &[u8], stopped_at: Option<usize>) {
        self.requests += 1;
        self.dump = self.watch.bytes.then(|| head_dump(received, stopped_at, &self.authority));
        self.pending = Some(Exchange {
            connection: self.connection,
            request: self.requests,
            line: request_line(received),
            status: 0,
            decided: None,
            streaming: false,
            bytes_in: received.len(),
            bytes_out: 0,
            stopped_at,
            era: None,
        });
    }

    /// The machine's next stage: where an exchange begins, takes its body, or is answered.
    pub fn observe<R: Copy>(&mut self, happened: Option<Happened>, next: &Stage<'_, R>) {
        // What the stage just carried out read, when it was a read: only a close that follows
        // a read is the read's to explain.
        let read = self.reading.take();
        match next {
            Stage::Admit(admit) => self.begin(admit.received(), None),
            Stage::Refuse(refuse) => {
                let at = refuse.refused_head().error.offset();
                match self.pending.as_mut() {
                    // A body refused after its head was admitted (a chunked coding).
                    Some(pending) if pending.status == 0 => pending.stopped_at = Some(at),
                    _ => self.begin(refuse.received(), Some(at)),
                }
            }
            Stage::Dispatch(dispatch) => {
                if let Some(pending) = self.pending.as_mut() {
                    pending.bytes_in = dispatch.received_len();
                }
            }
            Stage::Write(write)
                if matches!(happened, Some(Happened::Refused | Happened::Replied(_))) =>
            {
                self.finish(write.bytes().len());
            }
            Stage::Read(read) => self.reading = read.budget().map(|b| (b, read.buffered())),
            Stage::Closed(Close::Now) => self.closed_unanswered(happened, read),
            _ => {}
        }
    }

    /// The connection closed while it read (`read`: the budget of that read and what was
    /// buffered): a line when that cut a request short, or when the connection never sent one.
    /// A kept-alive connection that goes quiet after its answers gets none, and a close after
    /// anything but a read (a write that timed out) is no read's.
    fn closed_unanswered(&mut self, happened: Option<Happened>, read: Option<(ReadBudget, usize)>) {
        let Some((budget, received)) = read else { return };
        let why = match happened {
            Some(Happened::TimePassed) => format!("{} passed", budget.name()),
            Some(Happened::PeerClosed) => "the client closed".to_owned(),
            None
            | Some(
                Happened::Received(_)
                | Happened::Wrote(_)
                | Happened::Admitted
                | Happened::Refused
                | Happened::Replied(_)
                | Happened::Produced(_)
                | Happened::Paused
                | Happened::Departed(_),
            ) => return,
        };
        let started = received > 0 || self.pending.is_some() || self.requests == 0;
        if started && self.stream.is_none() {
            self.watch.emit(&unanswered_line(
                self.connection,
                self.pending.as_ref(),
                &why,
                received,
            ));
        }
    }

    /// How the exchange was decided: its status, and for a refusal where and why.
    pub fn decided(&mut self, status: u16, decided: Option<Decided>) {
        if let Some(pending) = self.pending.as_mut() {
            (pending.status, pending.decided) = (status, decided);
        }
    }

    /// The era the request met.
    fn era(&mut self, era: Option<Era>) {
        if let Some(pending) = self.pending.as_mut() {
            pending.era = era;
        }
    }

    /// The endpoint's answer.
    pub fn answered(&mut self, answer: &Answer) {
        match answer {
            Answer::Whole(reply) => {
                self.decided(reply.status.code(), reply.decided);
                self.era(reply.era);
            }
            Answer::Open { head, .. } => {
                self.decided(head.status.code(), None);
                self.era(head.era);
                if let Some(pending) = self.pending.as_mut() {
                    pending.streaming = true;
                    self.stream = Some((pending.request, 0, 0));
                }
            }
        }
    }

    /// The reply of `bytes` is about to be written: the exchange's line.
    fn finish(&mut self, bytes: usize) {
        let Some(mut pending) = self.pending.take() else { return };
        pending.bytes_out = bytes;
        let mut text = exchange_line(&pending);
        if let Some(dump) = self.dump.take() {
            text.push('\n');
            text.push_str(dump.trim_end());
        }
        self.watch.emit(&text);
    }

    /// The open stream produced `next`: `chunks` events (keep-alives among them) in `bytes`
    /// bytes, its last chunk included.
    pub fn produced(&mut self, next: Next, chunks: usize, bytes: usize) {
        if let Some((_, counted, written)) = self.stream.as_mut() {
            *written += bytes;
            *counted += chunks;
        }
        if let Next::End { .. } = next {
            self.stream_ended(StreamEnd::Ended);
        }
    }

    /// The open stream ended: its second line.
    pub fn stream_ended(&mut self, end: StreamEnd) {
        if let Some((request, chunks, bytes)) = self.stream.take() {
            self.watch.emit(&stream_line(self.connection, request, chunks, bytes, end));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::RequestHead;
    use crate::http::connection::{
        Answered, Connection, Handler, Io, Refused, Request, Transport, drive,
    };
    use crate::limits::Limits;
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    /// Reads `arrivals` one a read, then waits out every read; each write moves everything,
    /// or waits out its deadline when `writes_stall`. Time moves only as reads and waits do.
    struct Scripted {
        now: Instant,
        arrivals: Vec<&'static [u8]>,
        writes_stall: bool,
    }

    impl Transport for Scripted {
        fn now(&mut self) -> Instant {
            self.now
        }
        fn read(&mut self, buf: &mut [u8], deadline: Instant) -> Io {
            if self.arrivals.is_empty() {
                self.now = deadline;
                return Io::TimedOut;
            }
            let bytes = self.arrivals.remove(0);
            buf[..bytes.len()].copy_from_slice(bytes);
            self.now += Duration::from_millis(1);
            Io::Done(bytes.len())
        }
        fn write(&mut self, bytes: &[u8], deadline: Instant) -> Io {
            if self.writes_stall {
                self.now = deadline;
                return Io::TimedOut;
            }
            Io::Done(bytes.len())
        }
        fn pause(&mut self, _until: Instant) {}
        fn closing(&mut self) {}
        fn hang_up(&mut self) {}
    }

    /// Answers every head 200, telling the watcher.
    struct Answering<'w>(Watcher<'w>);

    impl Handler for Answering<'_> {
        type Route = ();
        fn admit(&mut self, _head: &RequestHead<'_>, _reply: &mut Vec<u8>) -> Option<()> {
            Some(())
        }
        fn refuse(&mut self, _refused: Refused, _reply: &mut Vec<u8>) {}
        fn respond(
            &mut self,
            (): (),
            _request: &Request<'_>,
            _keep_alive: bool,
            _now: Instant,
            reply: &mut Vec<u8>,
        ) -> Answered {
            self.0.decided(200, None);
            reply.extend_from_slice(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
            Answered::Whole { close: false }
        }
        fn observe(
            &mut self,
            happened: Option<Happened>,
            _state: &'static str,
            next: &Stage<'_, ()>,
        ) {
            self.0.observe(happened, next);
        }
    }

    #[test]
    fn only_a_close_that_follows_a_read_is_told_as_unanswered() {
        const HEAD: &[u8] = b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
        let answered = "c1 r1 GET /mcp -> 200 (stage 8: method) in 38 B, out 38 B";
        let cut_short =
            "c1 closed without an answer: socket_read_timeout passed in a head, 20 B received";
        // (the head's arrivals, whether writes stall, the one line written)
        let rows: [(Vec<&'static [u8]>, bool, &str); 4] = [
            (vec![&HEAD[..20], &HEAD[20..]], true, answered),
            (vec![HEAD], true, answered),
            (vec![&HEAD[..20], &HEAD[20..]], false, answered),
            (vec![&HEAD[..20]], false, cut_short),
        ];
        for (row, (arrivals, writes_stall, expected)) in rows.into_iter().enumerate() {
            let lines = Arc::new(Mutex::new(Vec::<String>::new()));
            let sink = Arc::clone(&lines);
            let watch = Watch::new(
                false,
                Arc::new(move |text: &str| sink.lock().unwrap().push(text.to_owned())),
            );
            let now = Instant::now();
            let limits = Limits::DEFAULT;
            let mut connection = Connection::new(&limits, now);
            let mut transport = Scripted { now, arrivals, writes_stall };
            drive(&mut connection, &mut transport, &mut Answering(Watcher::new(&watch, "x")));
            assert_eq!(*lines.lock().unwrap(), [expected], "row {row}");
        }
    }

    #[test]
    fn request_lines_show_methods_and_the_servers_paths_only() {
        let cases: [(&[u8], &str); 6] = [
            (b"POST /mcp HTTP/1.1\r\n", "POST /mcp"),
            (
                b"GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\n",
                "GET /.well-known/oauth-protected-resource/mcp",
            ),
            (b"GET /secret-path HTTP/1.1\r\n", "GET <target, 12 B>"),
            (b"get /mcp HTTP/1.1\r\n", "? /mcp"),
            (b"POST", "POST ?"),
            (b"", "? ?"),
        ];
        for (received, expected) in cases {
            assert_eq!(request_line(received), expected, "{received:?}");
        }
    }

    #[test]
    fn field_names_show_only_when_the_server_reads_them() {
        let cases: [(&[u8], &str); 7] = [
            (b"Host: 127.0.0.1:1\r\n", "Host: 127.0.0.1:1\\r\\n"),
            (b"X-abc123secret: 1\r\n", "<14 B>: <1 B>\\r\\n"),
            (b"Content-Type : text/plain\r\n", "Content-Type : <10 B>\\r\\n"),
            (b"X secret: 1\r\n", "<1 B> <6 B>: <1 B>\\r\\n"),
            (b"mcp-param-LIMIT: 2\r\n", "mcp-param-LIMIT: <1 B>\\r\\n"),
            (b"Mcp-Param-Other: 2\r\n", "<15 B>: <1 B>\\r\\n"),
            (b"A\x01b: 2\r\n", "<1 B><1 B><1 B>: <1 B>\\r\\n"),
        ];
        for (line, expected) in cases {
            assert_eq!(render_line(line, false, "127.0.0.1:1").text, expected, "{line:?}");
        }
    }

    #[test]
    fn values_show_only_when_public() {
        let cases: [(&str, &[u8], &str); 8] = [
            ("host", b"127.0.0.1:1", "127.0.0.1:1"),
            ("host", b"evil.example", "<12 B>"),
            ("content-length", b"12", "12"),
            ("content-length", b"1x", "<2 B>"),
            ("mcp-method", b"tools/call", "tools/call"),
            ("mcp-method", b"tools/secret", "<12 B>"),
            ("x-anything", b"value", "<5 B>"),
            ("cookie", b"a", "<1 B, sha256 ca978112>"),
        ];
        for (name, value, expected) in cases {
            assert_eq!(redacted(name, value, "127.0.0.1:1"), expected, "{name}");
        }
    }
}
