//! Event streams read as they are written: the client side of a response that stays open.
//!
//! [`McpClient::open_stream`] sends a request on a connection of its own and reads the head. An
//! event-stream body in the chunked coding is then read by an [`EventReader`], event by event, as
//! each chunk arrives: the first progress notification of a slow call is in hand while the server
//! still counts. Every wait for a chunk is bounded by an idle timer the caller chooses, and any
//! chunk restarts it, including one that carries only an SSE comment (a keep-alive), which the
//! SSE parser skips and the reader only counts. A body with a `Content-Length` (a stream known
//! whole) is read as one chunk; the body of a refusal (a status outside 2xx) is read into the
//! response at once.
//!
//! Closing the reader ([`EventReader::close`]) closes the connection, and that is all a client
//! does to end a stream: in 2026-07-28 the server treats it as the cancellation of the request;
//! in 2025-11-25 it is not one, and [`McpClient::resume`] picks up the same call's later events
//! and its result with `Last-Event-ID`.
//!
//! Not here: following a whole reply (see [`super::mcp`]), or building the requests
//! ([`McpClient::call_tool_streaming`] and [`McpClient::listen`] use the era's builders).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::http::{ClientResponse, HttpConnection};
use super::mcp::{McpClient, McpError, ReplyRule, Streamed};
use crate::json::{Object, Value, members};
use crate::limits::Limits;
use crate::mcp::jsonrpc::{self, Id};
use crate::mcp::revision::Era;
use crate::sse::{Event, SseParser};

/// An event-stream body being read as it arrives.
#[derive(Debug)]
pub struct EventReader {
    conn: HttpConnection,
    parser: SseParser,
    ready: VecDeque<Event>,
    comments: usize,
    last_event_id: Option<String>,
}

impl EventReader {
    fn new(conn: HttpConnection) -> EventReader {
        EventReader {
            conn,
            parser: SseParser::new(&Limits::DEFAULT),
            ready: VecDeque::new(),
            comments: 0,
            last_event_id: None,
        }
    }

    /// The next event, or `None` when the body has ended. Each wait for a chunk lasts at most
    /// `idle`: past it, [`McpError::Http`] with `deadline_passed`, and the reader may go on.
    pub fn next_event(&mut self, idle: Duration) -> Result<Option<Event>, McpError> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                if let Some(id) = &event.id {
                    self.last_event_id = Some(id.clone());
                }
                return Ok(Some(event));
            }
            let Some(chunk) = self.conn.next_chunk(Instant::now() + idle)? else {
                self.parser.finish().map_err(|_| McpError::Reply(ReplyRule::EventStreamInvalid))?;
                return Ok(None);
            };
            if chunk.first() == Some(&b':') {
                self.comments += 1;
            }
            let mut events = Vec::new();
            self.parser
                .push(&chunk, &mut events)
                .map_err(|_| McpError::Reply(ReplyRule::EventStreamInvalid))?;
            self.ready.extend(events);
        }
    }

    /// The next event that carries a JSON-RPC message, decoded; events without data (a priming
    /// event) are skipped. `None` at the end of the body.
    pub fn next_message(&mut self, idle: Duration) -> Result<Option<Value>, McpError> {
        while let Some(event) = self.next_event(idle)? {
            if let Some(data) = event.data.as_deref().filter(|d| !d.is_empty()) {
                let message = crate::json::decode(data.as_bytes(), Limits::DEFAULT.json_depth_max)
                    .map_err(|_| McpError::Reply(ReplyRule::EventDataNotJson))?;
                return Ok(Some(message));
            }
        }
        Ok(None)
    }

    /// How many chunks so far carried a comment (a keep-alive).
    pub fn comments(&self) -> usize {
        self.comments
    }

    /// The id of the last event handed out: where a 2025-11-25 stream resumes from.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// Closes the connection: the end of the stream, as far as the server is concerned.
    pub fn close(self) {
        self.conn.close();
    }
}

impl McpClient {
    /// Sends `bytes` on a connection of its own and reads the response's head; its body is left
    /// to the returned reader. Traced: the request and the head.
    pub fn open_stream(&mut self, bytes: &[u8]) -> Result<(ClientResponse, EventReader), McpError> {
        let mut conn = HttpConnection::connect(self.address, &Limits::DEFAULT)
            .map_err(|e| McpError::Http(e.into()))?;
        self.trace.wire('>', bytes);
        self.round_trips += 1;
        conn.send(bytes).map_err(|e| McpError::Http(e.into()))?;
        let mut response = conn.receive_stream_head()?;
        if !(200..300).contains(&response.status) {
            read_refusal(&mut conn, &mut response)?;
        }
        self.trace.wire('<', &response.raw);
        Ok((response, EventReader::new(conn)))
    }

    /// `tools/call` of `name` with `arguments` and the progress token `progress`, in the era
    /// the client settled (a session, or 2026-07-28's `_meta` and mirrored headers): the head,
    /// the request's id and the reader of its stream.
    pub fn call_tool_streaming(
        &mut self,
        name: &str,
        arguments: Object,
        progress: &str,
    ) -> Result<(ClientResponse, Id, EventReader), McpError> {
        let meta = Value::Object(members([("progressToken", progress.into())]));
        let params = members([
            ("name", name.into()),
            ("arguments", Value::Object(arguments)),
            ("_meta", meta),
        ]);
        let (bytes, id) = match self.era() {
            Some(Era::Modern) => {
                let (message, id) = self.modern_message("tools/call", params);
                (self.modern_spec(&message)?.bytes(), id)
            }
            Some(Era::Legacy) | None => {
                let id = self.next_id();
                let message = jsonrpc::request(&id, "tools/call", params);
                (self.message_spec(&message).bytes(), id)
            }
        };
        let (response, reader) = self.open_stream(&bytes)?;
        Ok((response, id, reader))
    }

    /// `subscriptions/listen` (2026-07-28) opted in to the tool list's changes: the head, the
    /// listen's id (the subscription id) and the reader of its stream.
    pub fn listen(&mut self) -> Result<(ClientResponse, Id, EventReader), McpError> {
        let filter = Value::Object(members([("toolsListChanged", true.into())]));
        let params = members([("notifications", filter)]);
        let (message, id) = self.modern_message("subscriptions/listen", params);
        let bytes = self.modern_spec(&message)?.bytes();
        let (response, reader) = self.open_stream(&bytes)?;
        Ok((response, id, reader))
    }

    /// Resumes a 2025-11-25 stream from `cursor` (GET with `Last-Event-ID`) and follows it to
    /// the response to `id`, resuming again when it ends early, as [`McpClient::request`] does.
    pub fn resume(&mut self, cursor: &str, id: &Id) -> Result<Streamed, McpError> {
        let streamed = Streamed { last_event_id: Some(cursor.to_owned()), ..Streamed::default() };
        let deadline = Instant::now() + Limits::DEFAULT.client_request_deadline;
        // The first GET goes at once: the caller chose when to resume.
        self.follow_resumptions(streamed, id, Some(0), deadline)
    }
}

/// Reads a refusal's body into `response`, as a whole reply has it: the body says why.
fn read_refusal(conn: &mut HttpConnection, response: &mut ClientResponse) -> Result<(), McpError> {
    let deadline = Instant::now() + Limits::DEFAULT.client_io_timeout;
    let chunked = response.field_str("transfer-encoding").is_some();
    while let Some(chunk) = conn.next_chunk(deadline)? {
        if !chunked {
            response.raw.extend_from_slice(&chunk);
        }
        response.body.extend_from_slice(&chunk);
    }
    Ok(())
}
