//! What the codecs make of some bytes, as one JSON value: the `inspect` command's engine.
//!
//! A way to study the parsers from a shell: feed a request, a response, a JSON text, an SSE
//! stream or a chunked body and read the verdict (the head's parts, or the status, public code
//! and offset of the refusal). Pure: bytes and limits in, a [`Value`] out; reading files and
//! printing is `main`'s.
//!
//! [`connection`] does the same for a whole conversation: it drives the connection state machine
//! with the bytes as one arrival (and then the peer's close), admits every head the parser
//! accepts, answers every request with a small fixed 200, and reports each step the machine takes.
//!
//! [`Subject::Mirroring`] judges one request's head and Content-Length body together, as a
//! server started with `serve --protocol-versions 2026-07-28` does, through the endpoint's own
//! checks ([`crate::endpoint::modern`] has their order): the `_meta`, then every header the
//! server compares with the body, each with its field lines as sent, what a sentinel decodes to,
//! the body value it mirrors, whether the server compares it before or after the bearer token,
//! and its verdict. A `tools/call` names its tool, or the server's code for why it finds none
//! (then no `Mcp-Param-{Name}` is compared). A refusal adds the status and body the server
//! answers. What else the server decides (the route, `Host`, `Accept`, the version it speaks, the
//! token, a tool's capability) is not judged, and only mirrored headers are shown.
//!
//! Credentials are not repeated back: the values of `Authorization`, `Proxy-Authorization`,
//! `Cookie`, `Set-Cookie` and `MCP-Session-Id` are replaced by their length, so a report can be
//! pasted anywhere. Other field values are shown with non-UTF-8 bytes replaced.

use std::time::Instant;

use crate::endpoint::modern::{self, Check, Mirrored};
use crate::endpoint::tools::{self, Tool};
use crate::endpoint::{Delivery, Rejection, Reply};
use crate::http::chunked::request::{ChunkedDecoder, Decoded};
use crate::http::connection::{
    Answered, Close, Connection, Departure, Handler, Happened, Io, Next, Refused, Request, Stage,
    Transport, drive,
};
use crate::http::mirror::{self, Encoding};
use crate::http::{
    BodyFraming, FieldList, Method, Parsed, RequestErrorKind, RequestHead, RequestParser,
    ResponseParser, Status,
};
use crate::json::{self, Object, Value, object};
use crate::limits::Limits;
use crate::mcp::jsonrpc::{Id, Message};
use crate::mcp::meta::RequestMeta;
use crate::mcp::method::{McpMethod, MethodName, Offer};
use crate::mcp::revision::{Era, Revision};
use crate::sse;

/// Which codec to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    Request,
    Response,
    /// A response to a HEAD request, which ends after its head.
    ResponseToHead,
    Json,
    Sse,
    /// A chunked request body: the bytes after its head.
    Chunked,
    /// A whole 2026-07-28 request: each mirrored header against the body value it mirrors.
    Mirroring,
}

impl Subject {
    /// Every subject, in the order help lists them.
    pub const ALL: [Subject; 7] = [
        Subject::Request,
        Subject::Response,
        Subject::ResponseToHead,
        Subject::Json,
        Subject::Sse,
        Subject::Chunked,
        Subject::Mirroring,
    ];

    /// Its name on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Subject::Request => "request",
            Subject::Response => "response",
            Subject::ResponseToHead => "response-to-head",
            Subject::Json => "json",
            Subject::Sse => "sse",
            Subject::Chunked => "chunked",
            Subject::Mirroring => "mirroring",
        }
    }

    /// The subject named on the command line.
    pub fn from_name(name: &str) -> Option<Subject> {
        Subject::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// The verdict on `input`; `accepted` is false for refusals and incomplete input.
pub struct Report {
    pub accepted: bool,
    pub value: Value,
}

/// Runs one codec over `input`.
pub fn inspect(subject: Subject, input: &[u8], limits: &Limits) -> Report {
    match subject {
        Subject::Request => request(input, limits),
        Subject::Response => response(ResponseParser::new(limits), input),
        Subject::ResponseToHead => response(ResponseParser::for_head(limits), input),
        Subject::Json => json_text(input, limits),
        Subject::Sse => sse_stream(input, limits),
        Subject::Chunked => chunked_body(input, limits),
        Subject::Mirroring => mirroring(input, limits),
    }
}

fn refused(code: &str, offset: usize, status: Option<u16>) -> Report {
    let mut members = Object::new();
    members.insert("verdict".into(), "refused".into());
    members.insert("code".into(), code.into());
    members.insert("offset".into(), Value::from(offset as u64));
    if let Some(status) = status {
        members.insert("status".into(), Value::from(u64::from(status)));
    }
    Report { accepted: false, value: Value::Object(members) }
}

fn incomplete() -> Report {
    Report { accepted: false, value: object([("verdict", "incomplete".into())]) }
}

/// A field value as a report shows it: a credential's length only, any other value with
/// non-UTF-8 bytes replaced.
fn shown_value(name: &str, value: &[u8]) -> String {
    if crate::http::CREDENTIAL_FIELDS.iter().any(|r| name.eq_ignore_ascii_case(r)) {
        format!("<redacted: {} bytes>", value.len())
    } else {
        String::from_utf8_lossy(value).into_owned()
    }
}

fn fields_value(fields: &FieldList<'_>) -> Value {
    let shown = fields
        .iter()
        .map(|f| object([("name", f.name.into()), ("value", shown_value(f.name, f.value).into())]));
    Value::Array(shown.collect())
}

/// How the head frames its body, as one member: `content_length`, or `transfer_coding`.
fn body_framing(head: &RequestHead<'_>) -> (&'static str, Value) {
    match head.body {
        BodyFraming::Length(n) => ("content_length", Value::from(n as u64)),
        BodyFraming::Chunked => ("transfer_coding", "chunked".into()),
    }
}

fn request(input: &[u8], limits: &Limits) -> Report {
    match RequestParser::new(limits).parse(input) {
        Ok(Parsed::Partial) => incomplete(),
        Err(e) => refused(e.code(), e.offset(), Some(e.status().code())),
        Ok(Parsed::Complete { value: head, len }) => Report {
            accepted: true,
            value: object([
                ("verdict", "complete".into()),
                ("head_bytes", Value::from(len as u64)),
                ("method", head.method.as_str().into()),
                ("target", head.target.into()),
                ("version", head.version.as_str().into()),
                ("fields", fields_value(&head.fields)),
                body_framing(&head),
                ("expect_continue", head.expect_continue.into()),
                ("keep_alive", head.keep_alive.into()),
                ("bytes_after_head", Value::from((input.len() - len) as u64)),
            ]),
        },
    }
}

/// The decoder's verdict on a chunked body. The body is shown (non-UTF-8 bytes replaced), and
/// how many bytes followed the coding.
fn chunked_body(input: &[u8], limits: &Limits) -> Report {
    let mut decoder = ChunkedDecoder::new(limits);
    let mut region = input.to_vec();
    match decoder.decode(&mut region) {
        Ok(Decoded::Partial { .. }) => incomplete(),
        Err(e) => {
            let kind = RequestErrorKind::Chunked(e.kind);
            refused(kind.code(), e.offset, Some(kind.status().code()))
        }
        Ok(Decoded::Complete { body_len, next, kept }) => Report {
            accepted: true,
            value: object([
                ("verdict", "complete".into()),
                ("coding_bytes", Value::from(decoder.raw_len() as u64)),
                ("chunks", Value::from(decoder.chunks() as u64)),
                ("trailer_fields", Value::from(decoder.trailer_fields() as u64)),
                ("body_bytes", Value::from(body_len as u64)),
                ("body", String::from_utf8_lossy(&region[..body_len]).into_owned().into()),
                ("bytes_after_coding", Value::from((kept - next) as u64)),
            ]),
        },
    }
}

fn response(mut parser: ResponseParser, input: &[u8]) -> Report {
    match parser.parse(input) {
        Ok(Parsed::Partial) => incomplete(),
        Err(e) => refused(e.code(), e.offset(), None),
        Ok(Parsed::Complete { value, len }) => Report {
            accepted: true,
            value: object([
                ("verdict", "complete".into()),
                ("bytes", Value::from(len as u64)),
                ("status", Value::from(u64::from(value.status))),
                ("fields", fields_value(&value.fields)),
                ("body_bytes", Value::from(value.body.len() as u64)),
                ("keep_alive", value.keep_alive.into()),
            ]),
        },
    }
}

fn json_text(input: &[u8], limits: &Limits) -> Report {
    match json::decode(input, limits.json_depth_max) {
        Err(e) => refused(e.kind.code(), e.offset, None),
        Ok(value) => Report {
            accepted: true,
            value: object([("verdict", "complete".into()), ("value", value)]),
        },
    }
}

fn sse_stream(input: &[u8], limits: &Limits) -> Report {
    match sse::parse_stream(input, limits) {
        Err(e) => refused(e.kind.code(), e.offset, None),
        Ok(events) => {
            let shown = events.into_iter().map(|e| {
                let mut members = Object::new();
                let text = |name: &'static str, v: Option<String>| {
                    v.map(|v| (name.into(), Value::from(v)))
                };
                members.extend(text("id", e.id));
                members.extend(text("event", e.event));
                members.extend(text("data", e.data));
                members.extend(e.retry.map(|r| ("retry".into(), Value::from(r))));
                Value::Object(members)
            });
            Report {
                accepted: true,
                value: object([
                    ("verdict", "complete".into()),
                    ("events", Value::Array(shown.collect())),
                ]),
            }
        }
    }
}

/// The depth of the server's error bodies, with room to spare.
const JSON_REPLY_DEPTH: usize = 8;

/// When the server makes a decision: before or after it looks at the bearer token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Checked {
    BeforeAuthentication,
    AfterAuthentication,
}

impl Checked {
    const fn name(self) -> &'static str {
        match self {
            Checked::BeforeAuthentication => "before_authentication",
            Checked::AfterAuthentication => "after_authentication",
        }
    }
}

/// A whole request through the 2026-07-28 endpoint's checks of its mirrored headers.
fn mirroring(input: &[u8], limits: &Limits) -> Report {
    let mut parser = RequestParser::new(limits);
    let (head, len) = match parser.parse(input) {
        Ok(Parsed::Partial) => return incomplete(),
        Err(e) => return refused(e.code(), e.offset(), Some(e.status().code())),
        Ok(Parsed::Complete { value, len }) => (value, len),
    };
    let body_len = match head.body {
        BodyFraming::Length(n) => n,
        // The parser of a server without `--chunked` refuses the coding before this.
        BodyFraming::Chunked => return refused("chunked_body_not_inspected", len, None),
    };
    let rest = &input[len..];
    let Some(body) = rest.get(..body_len) else { return incomplete() };
    if rest.len() > body_len {
        return refused("bytes_after_body", len + body_len, None);
    }
    let value = match json::decode(body, limits.json_depth_max) {
        Ok(value) => value,
        Err(e) => return refused_early(&Rejection::Json(e.kind), None),
    };
    match Message::from_value(value) {
        Err(e) => refused_early(&Rejection::Message(e), None),
        Ok(Message::Request { id, method, params }) => {
            mirrored_request(&head, &id, &method, &params)
        }
        Ok(Message::Notification { method, .. }) => mirrored_notification(&head, &method),
        Ok(Message::Response { .. }) => refused_early(&Rejection::UnsolicitedResponse, None),
    }
}

/// Steps 1, 2 and 6 of the modern order over one request: its `_meta`, then every mirrored
/// header the server would compare, each with its outcome.
fn mirrored_request(head: &RequestHead<'_>, id: &Id, method: &str, params: &Object) -> Report {
    let meta = match RequestMeta::of(params) {
        Ok(meta) => meta,
        Err(e) => return refused_early(&Rejection::MetaInvalid(e), Some(id)),
    };
    let standard = modern::standard_checks(head, &meta, (method, false), params);
    let mut members = Object::new();
    let modern = Offer::plain(Revision::newest(Era::Modern));
    let called = match MethodName::of_request(method, modern) {
        MethodName::Request(McpMethod::ToolsCall, _) => Some(tools::tool_called(params, modern)),
        MethodName::Request(..) | MethodName::Notification(_) | MethodName::Unknown => None,
    };
    let params_checked = match called {
        Some(Ok(tool)) => modern::param_checks(head, tool, params),
        Some(Err(_)) | None => Vec::new(),
    };
    if let Some(called) = called {
        members.insert("tool".into(), called.map_or_else(|code| code, Tool::name).into());
    }
    let shown = standard.iter().map(|c| check_value(head, c, Checked::BeforeAuthentication));
    let after = params_checked.iter().map(|c| check_value(head, c, Checked::AfterAuthentication));
    members.insert("checks".into(), Value::Array(shown.chain(after).collect()));
    let failure = match modern::first_failure(&standard) {
        Err(rejection) => Some((rejection, Checked::BeforeAuthentication)),
        Ok(()) => modern::first_failure(&params_checked)
            .err()
            .map(|rejection| (rejection, Checked::AfterAuthentication)),
    };
    match failure {
        Some((rejection, checked)) => server_refuses(&rejection, Some(id), checked, members),
        None => {
            members.insert("verdict".into(), "agrees".into());
            Report { accepted: true, value: Value::Object(members) }
        }
    }
}

/// The one check of a notification: its `Mcp-Method`, before the token.
fn mirrored_notification(head: &RequestHead<'_>, method: &str) -> Report {
    let checks = modern::notification_checks(head, method);
    let mut members = Object::new();
    let shown = checks.iter().map(|c| check_value(head, c, Checked::BeforeAuthentication));
    members.insert("checks".into(), Value::Array(shown.collect()));
    match modern::first_failure(&checks) {
        Err(rejection) => server_refuses(&rejection, None, Checked::BeforeAuthentication, members),
        Ok(()) => {
            members.insert("verdict".into(), "agrees".into());
            Report { accepted: true, value: Value::Object(members) }
        }
    }
}

/// One check as the report shows it: the header, its field lines as sent, what a sentinel
/// decodes to, the body value it mirrors (left out when the body has none), when the server
/// compares it, and its verdict.
fn check_value(head: &RequestHead<'_>, check: &Check<'_>, checked: Checked) -> Value {
    let name = check.header.name();
    let lines: Vec<&[u8]> = head.fields.all(&check.field()).collect();
    let mut members = Object::new();
    members.insert("header".into(), name.as_ref().into());
    let sent = lines.iter().map(|line| Value::from(shown_value(&name, line)));
    members.insert("sent".into(), Value::Array(sent.collect()));
    let sentinel = match (check.encoding, lines.as_slice()) {
        (Encoding::Sentinel, [line]) => sentinel_text(line),
        (Encoding::Sentinel | Encoding::Plain, _) => None,
    };
    members.extend(sentinel.map(|decoded| ("decoded".into(), decoded.into())));
    let body = match check.mirrors {
        Mirrored::Text(text) => Some(Value::from(text)),
        Mirrored::Member(value) => value.cloned(),
    };
    members.extend(body.map(|body| ("body".into(), body)));
    members.insert("checked".into(), checked.name().into());
    let verdict = check.outcome.map_or_else(|error| error.code(), |()| "agrees");
    members.insert("verdict".into(), verdict.into());
    Value::Object(members)
}

/// What a header value of the sentinel's form decodes to, when it decodes (the decision itself
/// is [`mirror::compare`]'s).
fn sentinel_text(line: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(line).ok()?;
    mirror::decode_sentinel(mirror::sentinel_payload(text)?.ok()?).ok()
}

/// A refusal the server answers, made `checked`: `members`, the public code, the status and body
/// of the server's reply (to the request with `id`, once that is known), and the verdict.
fn server_refuses(
    rejection: &Rejection,
    id: Option<&Id>,
    checked: Checked,
    mut members: Object,
) -> Report {
    let reply = rejection.reply_to(id, "");
    let body = json::decode(&reply.body, JSON_REPLY_DEPTH)
        .unwrap_or_else(|_| String::from_utf8_lossy(&reply.body).into_owned().into());
    let answer = object([
        ("body", body),
        ("checked", checked.name().into()),
        ("status", Value::from(u64::from(reply.status.code()))),
    ]);
    members.insert("code".into(), rejection.code().into());
    members.insert("server_would_answer".into(), answer);
    members.insert("verdict".into(), "refused".into());
    Report { accepted: false, value: Value::Object(members) }
}

/// A refusal the server answers before it compares any mirrored header.
fn refused_early(rejection: &Rejection, id: Option<&Id>) -> Report {
    server_refuses(rejection, id, Checked::BeforeAuthentication, Object::new())
}

/// What the connection machine made of a conversation: one JSON value per step, and whether
/// every byte went into a request that was answered (no refusal, nothing left over).
pub struct ConversationReport {
    pub steps: Vec<Value>,
    pub accepted: bool,
}

/// Drives [`Connection`] over `input`, received whole at `now` and followed by the peer's close
/// (a read takes at most what the machine asks for, so a long input arrives in several reads,
/// all at `now`). Every head the parser accepts is admitted; a refusal is answered as the server
/// would; every dispatch is answered `200 {}`; every write goes out whole.
pub fn connection(input: &[u8], limits: &Limits, now: Instant) -> ConversationReport {
    let mut machine = Connection::new(limits, now);
    let mut arrivals = Arrivals { input, sent: 0, now };
    let mut answers = Answers { limits: *limits, steps: Vec::new(), refusal: None, refused: false };
    drive(&mut machine, &mut arrivals, &mut answers);
    let accepted = !answers.refused && arrivals.sent == input.len() && machine.buffered() == 0;
    ConversationReport { steps: answers.steps, accepted }
}

/// The peer: the input whole, at one instant, then its close; it reads everything it is sent.
struct Arrivals<'i> {
    input: &'i [u8],
    sent: usize,
    now: Instant,
}

impl Transport for Arrivals<'_> {
    fn now(&mut self) -> Instant {
        self.now
    }

    fn read(&mut self, buf: &mut [u8], _deadline: Instant) -> Io {
        let n = buf.len().min(self.input.len() - self.sent);
        buf[..n].copy_from_slice(&self.input[self.sent..self.sent + n]);
        self.sent += n;
        Io::Done(n)
    }

    fn write(&mut self, bytes: &[u8], _deadline: Instant) -> Io {
        Io::Done(bytes.len())
    }

    fn pause(&mut self, until: Instant) {
        self.now = self.now.max(until);
    }

    // The steps show the last write as a write; nothing here counts workers.
    fn closing(&mut self) {}

    // Every dispatch is answered whole: no stream is ever open to hang up.
    fn hang_up(&mut self) {}
}

/// The server side of the conversation, and the record of its steps.
struct Answers {
    limits: Limits,
    steps: Vec<Value>,
    /// The code of the refusal being written.
    refusal: Option<&'static str>,
    refused: bool,
}

impl Answers {
    fn reply(&self, reply: &Reply, close: bool, head: bool, out: &mut Vec<u8>) {
        let delivery = Delivery { close, head, date: None };
        let _ = reply.serialize(out, delivery, self.limits.response_bytes_max);
    }
}

impl Handler for Answers {
    type Route = ();

    fn admit(&mut self, _head: &RequestHead<'_>, _reply: &mut Vec<u8>) -> Option<()> {
        Some(())
    }

    fn refuse(&mut self, refused: Refused, reply: &mut Vec<u8>) {
        let rejection = Rejection::Request(refused.error);
        self.refused = true;
        self.refusal = Some(rejection.code());
        let head = refused.method == Some(Method::Head);
        self.reply(&rejection.reply(""), true, head, reply);
    }

    fn respond(
        &mut self,
        _route: (),
        request: &Request<'_>,
        keep_alive: bool,
        _now: Instant,
        reply: &mut Vec<u8>,
    ) -> Answered {
        let head = request.head.method == Method::Head;
        self.reply(&Reply::json(Status::Ok, &object([])), !keep_alive, head, reply);
        Answered::Whole { close: !keep_alive }
    }

    fn observe(&mut self, happened: Option<Happened>, state: &'static str, next: &Stage<'_, ()>) {
        let mut members = Object::new();
        if let Some(happened) = happened {
            members.insert("event".into(), self.happened_value(happened));
        }
        members.insert("state".into(), state.into());
        members.insert("next".into(), stage_value(next));
        self.steps.push(Value::Object(members));
    }
}

impl Answers {
    fn happened_value(&self, happened: Happened) -> Value {
        let count = |name: &'static str, n: usize| object([(name, (n as u64).into())]);
        match happened {
            Happened::Received(n) => count("received", n),
            Happened::Wrote(n) => count("wrote", n),
            Happened::Replied(n) => count("replied", n),
            Happened::PeerClosed => "peer_closed".into(),
            Happened::TimePassed => "time_passed".into(),
            Happened::Admitted => "admitted".into(),
            Happened::Refused => object([("refused", self.refusal.unwrap_or("refused").into())]),
            Happened::Produced(next) => object([("produced", next_value(next))]),
            Happened::Paused => "paused".into(),
            Happened::Departed(Departure::Stop) => object([("departed", "stop".into())]),
            Happened::Departed(Departure::Continue) => object([("departed", "continue".into())]),
        }
    }
}

/// What the machine asks for next, as JSON.
fn stage_value(stage: &Stage<'_, ()>) -> Value {
    match stage {
        Stage::Read(read) => object([("read", (read.room() as u64).into())]),
        Stage::Admit(admit) => {
            let head = admit.head();
            object([(
                "admit",
                object([
                    ("method", head.method.as_str().into()),
                    ("target", head.target.into()),
                    body_framing(&head),
                    ("keep_alive", head.keep_alive.into()),
                    ("expect_continue", head.expect_continue.into()),
                ]),
            )])
        }
        Stage::Refuse(refuse) => {
            let error = refuse.refused_head().error;
            object([(
                "admit",
                object([
                    ("refused", error.code().into()),
                    ("status", Value::from(u64::from(error.status().code()))),
                    ("offset", Value::from(error.offset() as u64)),
                ]),
            )])
        }
        Stage::Dispatch(dispatch) => {
            let body = dispatch.request().body.len();
            let keep_alive = dispatch.keep_alive();
            object([(
                "dispatch",
                object([("body_bytes", (body as u64).into()), ("keep_alive", keep_alive.into())]),
            )])
        }
        Stage::Write(write) => {
            let bytes = write.bytes();
            let line = first_line(bytes);
            object([(
                "write",
                object([("bytes", (bytes.len() as u64).into()), ("first_line", line)]),
            )])
        }
        Stage::Stream(produce) => {
            object([("stream", object([("detached", produce.detached().into())]))])
        }
        Stage::Pause(_) => "pause".into(),
        Stage::Gone(_) => "depart".into(),
        Stage::Closed(Close::Polite) => object([("close", "politely".into())]),
        Stage::Closed(Close::Now) => object([("close", "at once".into())]),
    }
}

/// An open stream's next step, as JSON.
fn next_value(next: Next) -> Value {
    match next {
        Next::Chunk => "chunk".into(),
        Next::Wait(_) => "wait".into(),
        Next::End { close } => object([("end", object([("close", close.into())]))]),
    }
}

/// The status line of a response being written.
fn first_line(bytes: &[u8]) -> Value {
    let end = bytes.windows(2).position(|w| w == b"\r\n").unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(subject: Subject, input: &[u8]) -> (bool, String) {
        let report = inspect(subject, input, &Limits::DEFAULT);
        (report.accepted, json::encode(&report.value))
    }

    #[test]
    fn reports_are_exact_json() {
        let cases: [(Subject, &[u8], bool, &str); 11] = [
            (
                Subject::Chunked,
                b"5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 1\r\n\r\nGET",
                true,
                r#"{"body":"hello world","body_bytes":11,"bytes_after_coding":3,"chunks":3,"coding_bytes":42,"trailer_fields":1,"verdict":"complete"}"#,
            ),
            (
                Subject::Chunked,
                b"4001\r\n",
                false,
                r#"{"code":"chunked_body_too_large","offset":4,"status":413,"verdict":"refused"}"#,
            ),
            (Subject::Chunked, b"5\r\nhel", false, r#"{"verdict":"incomplete"}"#),
            (
                Subject::Request,
                b"GET /mcp HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer secret\r\n\r\n",
                true,
                r#"{"bytes_after_head":0,"content_length":0,"expect_continue":false,"fields":[{"name":"Host","value":"a"},{"name":"Authorization","value":"<redacted: 13 bytes>"}],"head_bytes":60,"keep_alive":true,"method":"GET","target":"/mcp","verdict":"complete","version":"HTTP/1.1"}"#,
            ),
            (
                Subject::Request,
                b"GET /mcp?access_token=secret HTTP/1.1\r\n",
                false,
                r#"{"code":"query_forbidden","offset":8,"status":400,"verdict":"refused"}"#,
            ),
            (Subject::Request, b"GET / HTT", false, r#"{"verdict":"incomplete"}"#),
            (
                Subject::ResponseToHead,
                b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
                true,
                r#"{"body_bytes":0,"bytes":38,"fields":[{"name":"Content-Length","value":"5"}],"keep_alive":true,"status":200,"verdict":"complete"}"#,
            ),
            (
                Subject::Response,
                b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
                false,
                r#"{"verdict":"incomplete"}"#,
            ),
            (
                Subject::Response,
                b"HTTP/1.1 204 No Content\r\n\r\n",
                true,
                r#"{"body_bytes":0,"bytes":27,"fields":[],"keep_alive":true,"status":204,"verdict":"complete"}"#,
            ),
            (
                Subject::Json,
                b"{\"a\":1,\"a\":2}",
                false,
                r#"{"code":"json_duplicate_key","offset":7,"verdict":"refused"}"#,
            ),
            (
                Subject::Sse,
                b"id: 1\ndata: x\n\n",
                true,
                r#"{"events":[{"data":"x","id":"1"}],"verdict":"complete"}"#,
            ),
        ];
        for (subject, input, accepted, expected) in cases {
            assert_eq!(run(subject, input), (accepted, expected.to_owned()));
        }
    }

    #[test]
    fn mirroring_judges_one_whole_request_only() {
        let cases: [(&[u8], &str); 4] = [
            (
                b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 9\r\n\r\n{}",
                r#"{"verdict":"incomplete"}"#,
            ),
            (
                b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}\n",
                r#"{"code":"bytes_after_body","offset":52,"verdict":"refused"}"#,
            ),
            (
                b"POST /mcp HTTP/1.1\r\nHost: a\r\nMcp-Method: tools/list\r\nContent-Length: 44\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}",
                r#"{"checks":[{"body":"notifications/x","checked":"before_authentication","header":"Mcp-Method","sent":["tools/list"],"verdict":"header_body_mismatch"}],"code":"header_mismatch","server_would_answer":{"body":{"error":{"code":-32020,"data":{"header":"Mcp-Method","reason":"header_body_mismatch"},"message":"header_mismatch"},"jsonrpc":"2.0"},"checked":"before_authentication","status":400},"verdict":"refused"}"#,
            ),
            (
                b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 36\r\n\r\n{\"id\":1,\"jsonrpc\":\"2.0\",\"result\":{}}",
                r#"{"code":"unsolicited_response","server_would_answer":{"body":{"error":{"code":-32600,"message":"unsolicited_response"},"jsonrpc":"2.0"},"checked":"before_authentication","status":400},"verdict":"refused"}"#,
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(run(Subject::Mirroring, input), (false, expected.to_owned()), "{input:?}");
        }
        let agrees = b"POST /mcp HTTP/1.1\r\nHost: a\r\nMcp-Method: notifications/x\r\nContent-Length: 44\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}";
        let expected = r#"{"checks":[{"body":"notifications/x","checked":"before_authentication","header":"Mcp-Method","sent":["notifications/x"],"verdict":"agrees"}],"verdict":"agrees"}"#;
        assert_eq!(run(Subject::Mirroring, agrees), (true, expected.to_owned()));
        // A notification POST need not carry the field at all: nothing to compare.
        let unnamed = b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 44\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}";
        let expected = r#"{"checks":[],"verdict":"agrees"}"#;
        assert_eq!(run(Subject::Mirroring, unnamed), (true, expected.to_owned()));
    }

    /// The steps of a conversation, one compact line each: the event, then what comes next.
    fn steps(input: &[u8]) -> (bool, Vec<String>) {
        let report = connection(input, &Limits::DEFAULT, Instant::now());
        let line = |v: &Value| {
            let event = v.get("event").map_or(String::new(), json::encode);
            let next = v.get("next").map_or(String::new(), json::encode);
            format!("{event} -> {next}")
        };
        (report.accepted, report.steps.iter().map(line).collect())
    }

    #[test]
    fn conversations_show_every_framing_decision() {
        let pipelined: &[u8] = b"GET /mcp HTTP/1.1\r\nHost: a\r\n\r\nPOST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}";
        let (accepted, lines) = steps(pipelined);
        assert!(accepted);
        assert_eq!(
            lines,
            [
                r#" -> {"read":14384}"#,
                r#"{"received":82} -> {"admit":{"content_length":0,"expect_continue":false,"keep_alive":true,"method":"GET","target":"/mcp"}}"#,
                r#""admitted" -> {"dispatch":{"body_bytes":0,"keep_alive":true}}"#,
                r#"{"replied":97} -> {"write":{"bytes":97,"first_line":"HTTP/1.1 200 OK"}}"#,
                r#"{"wrote":97} -> {"admit":{"content_length":2,"expect_continue":false,"keep_alive":true,"method":"POST","target":"/mcp"}}"#,
                r#""admitted" -> {"dispatch":{"body_bytes":2,"keep_alive":true}}"#,
                r#"{"replied":97} -> {"write":{"bytes":97,"first_line":"HTTP/1.1 200 OK"}}"#,
                r#"{"wrote":97} -> {"read":14384}"#,
                r#""peer_closed" -> {"close":"at once"}"#,
            ]
        );
        let error_then_more: &[u8] =
            b"GET /x HTTP/1.1\nHost: a\r\n\r\nGET /mcp HTTP/1.1\r\nHost: a\r\n\r\n";
        let (accepted, lines) = steps(error_then_more);
        assert!(!accepted, "a refusal is not accepted");
        assert_eq!(
            lines,
            [
                r#" -> {"read":14384}"#,
                r#"{"received":57} -> {"admit":{"offset":15,"refused":"bare_lf","status":400}}"#,
                r#"{"refused":"bare_lf"} -> {"write":{"bytes":185,"first_line":"HTTP/1.1 400 Bad Request"}}"#,
                r#"{"wrote":185} -> {"close":"politely"}"#,
            ]
        );
        let (accepted, lines) =
            steps(b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 9\r\n\r\n{}");
        assert!(!accepted, "a request cut short is not accepted");
        assert_eq!(
            lines.last().map(String::as_str),
            Some(r#""peer_closed" -> {"close":"at once"}"#)
        );
    }
}
