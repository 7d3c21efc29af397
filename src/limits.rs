//! Every budget the project enforces, in one struct, with the reason for each number.
//!
//! Code elsewhere never spells a budget as a literal: it reads it from a [`Limits`] value that was
//! handed to it. The defaults are sized for a small loopback teaching server, not for production
//! traffic; a production deployment would derive them from measured message sizes and proxy limits.
//!
//! The relations between budgets (a single header value cannot be larger than the whole header
//! section, the head deadline must outlast one socket read, ...) are checked at compile time for
//! [`Limits::DEFAULT`] and at run time by [`Limits::validate`] for values built by hand.
//!
//! This module does not enforce anything itself; it only names the numbers.
//!
//! # The budgets
//!
//! README's map of where the rules live points here for this part; what follows moved from README, next to the code it describes.
//!
//! One struct, `Limits` in `src/limits.rs`, holds every number; no other code spells a budget. The
//! codec budgets (the chunked decoder's among them) are tested at exactly their value and one past
//! it in `tests/limits.rs`, with the defaults and with a set of small hand-built values, and so are
//! the ceilings below; the Accept range
//! budget is tested with the media parser (`tests/media.rs`), the control line in `serve`'s unit test,
//! the lifecycle budgets (idle, head, per-read, body, per-write, response, drain, requests per
//! connection) at their edge and one step past it on the connection machine's fake clock
//! (`tests/connection.rs`), the lingering set's size through the server, and the sessions through
//! the endpoint and the server. Two are not tested at an edge, because they pace a thread rather than
//! decide anything: the sweep interval and the pause after a failed `accept`.
//!
//! | budget | default | past it | enforced by |
//! |---|---|---|---|
//! | request body (`Content-Length`, or a chunked body decoded) | 16 KiB<!-- limit: request_body_bytes_max --> | 413, before any body byte is read (for chunked, before the data of the chunk that would cross it) | request parser, chunked decoder |
//! | chunk size | 16<!-- limit: chunk_size_digits_max --> hex digits, leading zeros included (the ceiling) | 400 `chunk_size_too_long` at the 17th | chunked decoder |
//! | extensions of one chunk-size line | 256 bytes<!-- limit: chunk_extension_bytes_max --> | 400, on the byte that crosses it | chunked decoder |
//! | chunks in one body | 256<!-- limit: chunks_per_body_max -->, the last one included | 400, on the first byte of one more | chunked decoder |
//! | trailer fields | 8<!-- limit: trailer_fields_max --> lines, 1 KiB<!-- limit: trailer_section_bytes_max --> in all (each value within the header value budget) | 431 | chunked decoder |
//! | JSON nesting depth | 64<!-- limit: json_depth_max --> | refused (400 at the server) | JSON decoder |
//! | media ranges in `Accept` | 16<!-- limit: accept_ranges_max --> | refused (400 at the server) | Accept parser |
//! | one header field value | 2 KiB<!-- limit: header_value_bytes_max --> | 431, on the byte that crosses it | request parser |
//! | header fields | 32<!-- limit: header_fields_max --> lines, 12 KiB<!-- limit: header_section_bytes_max --> in all | 431 | request parser |
//! | request target | 2 KiB<!-- limit: request_target_bytes_max -->, and no query at all | 414 / 400 | request parser |
//! | method | 32 bytes<!-- limit: method_bytes_max --> | 501 (no method that long is implemented) | request parser |
//! | empty lines before the request line | 1<!-- limit: leading_empty_lines_max --> | 400 | request parser |
//! | whole response | 64 KiB<!-- limit: response_bytes_max --> | the server never writes one; the client refuses one before reading its body | response writer, response parser |
//! | one SSE event | 32 KiB<!-- limit: sse_event_bytes_max --> of line bytes | refused | SSE parser |
//! | SSE events in one stream | 64<!-- limit: sse_stream_events_max --> | refused | SSE parser |
//! | active sessions | 8<!-- limit: sessions_active_max --> | fails closed (503 with `Retry-After`), nothing built or stored | session table |
//! | live sessions of one principal | 4<!-- limit: sessions_per_principal_max --> | 429 with `Retry-After`, nothing built; other principals unaffected | session table |
//! | session lifetime | 60 s<!-- limit: session_ttl --> from creation, never extended | 404 | session table |
//! | messages kept per session for resuming its streams (GET and POST) | 32<!-- limit: sse_events_kept_per_session_max --> | oldest dropped; a cursor before it: 400 `last_event_id_evicted` | event log |
//! | bytes of those messages | 64 KiB<!-- limit: sse_bytes_kept_per_session_max --> | the same | event log |
//! | requests being processed (workers) | 64<!-- limit: requests_in_processing_max -->, at most 1024 | 503 with `Retry-After: 1`; a count above 1024 is refused at start (`serve --workers` exits 2) | worker pool |
//! | idle connection, before a request's first byte | 5 s<!-- limit: connection_idle_timeout --> | connection closed | connection machine |
//! | one socket read, once a request has begun | 2 s<!-- limit: socket_read_timeout --> | connection closed, nothing dispatched | connection machine |
//! | whole request head | 5 s<!-- limit: request_head_deadline --> from its first byte, in total | connection closed, nothing dispatched | connection machine |
//! | whole request body | 5 s<!-- limit: request_body_deadline --> from the end of the head, in total | connection closed, nothing dispatched | connection machine |
//! | one socket write without progress | 2 s<!-- limit: socket_write_timeout --> | connection closed | connection machine |
//! | whole response write | 5 s<!-- limit: response_write_deadline --> | connection closed (the peer stopped reading) | connection machine |
//! | requests per connection | 1000<!-- limit: requests_per_connection_max --> | the last response says `Connection: close` | connection machine |
//! | drain after a connection's last response (or its 503) | 64 KiB<!-- limit: drain_bytes_max --> and 250 ms<!-- limit: drain_timeout --> | connection closed | linger |
//! | lingering connections | 64<!-- limit: connections_lingering_max --> | the oldest is closed at once; a new refusal still gets its 503 first | lingering set |
//! | sweep of the lingering connections | every 10 ms<!-- limit: linger_sweep_interval --> | (non-blocking reads on each) | sweeper |
//! | pause after a failed `accept` | 50 ms<!-- limit: accept_error_pause --> | (the acceptor waits, never spins) | acceptor |
//! | `retry` of every priming event | 1 s<!-- limit: stream_retry --> | (what clients wait before reconnecting) | endpoint |
//! | client: connect, each read and write | 10 s<!-- limit: client_io_timeout --> | the exchange fails | client |
//! | client: interim (1xx) responses before the final one | 4<!-- limit: interim_responses_max --> | the exchange fails | client |
//! | client: resumptions of one request's stream | 3<!-- limit: client_resumptions_max --> | `resumptions_exhausted` | client |
//! | client: one request, every resumption and wait included | 30 s<!-- limit: client_request_deadline --> | `request_deadline_passed` | client |
//! | a control command (the verb, the space and the role; not the secret, nor the CR and LF) | 256 bytes<!-- limit: control_line_bytes_max --> | answered `line_too_long`, never run | `serve`, on stdin and on the control channel |
//! | one control connection's line, from its accept to its LF | 2 s<!-- limit: control_line_deadline -->, in total | closed, its line never run | control channel |
//! | control connections open at once | 32<!-- limit: control_connections_max --> | a new one is answered `busy` and closed at once, never queued | control channel |
//!
//! The worker count has a ceiling of 1024: each worker is a thread with its own stack and buffers,
//! blocked on one connection at a time, and on two cores a thousand of them only add context switches
//! (and approach the process's thread limit), while connections past the pool get their 503 at once
//! anyway. `serve --workers` above it is a usage error (exit status 2) naming
//! `requests_in_processing_max`; a thread the system refuses to start is reported as that, not as a
//! failure to listen.
//!
//! The head buffer a server needs follows from the budgets (`Limits::request_head_bytes_max()`,
//! 14 384 bytes<!-- limit: request_head_bytes_max --> by default), so a peer can never make it grow. Hand-built limits go through
//! `Limits::validate()`, which refuses zero budgets, broken relations (a field value larger than the
//! header section, more field lines than the section could hold, an SSE event larger than a
//! response, a head deadline no longer than one read, more trailer lines than the trailer section
//! could hold) and budgets above a ceiling where derived
//! sizes could overflow: 1 GiB for bytes, 2^20 for counts, one day for durations (a deadline is added
//! to the current instant, and a sum past what the clock holds would panic), and 1024 for JSON depth
//! (decoding uses an explicit stack, but dropping or comparing a decoded value recurses once per
//! level, and tens of thousands of levels would overflow a worker's stack). `bind` also refuses a
//! response budget too small for the server's own 503.
//!

use std::time::Duration;

/// The budgets of one server or client.
///
/// Field names end with their unit (`_bytes_max`, `_max` for counts); durations are typed.
/// Each budget is tested at exactly its value (accepted) and one past it (refused).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest request body: its `Content-Length`, or (under `--chunked`) the decoded bytes of
    /// its chunks. Over it: 413, decided before any byte of the body (or of the chunk that would
    /// cross it) is read.
    pub request_body_bytes_max: usize,
    /// Longest chunk size of a chunked body, in hex digits, leading zeros included. One more:
    /// 400. At most [`CHUNK_SIZE_DIGITS_CEILING`], so every size fits in 64 bits: a size that
    /// would overflow is refused at its seventeenth digit, before any arithmetic could wrap.
    pub chunk_size_digits_max: usize,
    /// Largest extension part of one chunk-size line: every byte between the size and the CR.
    /// Over it: 400, on the byte that crosses it.
    pub chunk_extension_bytes_max: usize,
    /// Most chunks in one chunked body, the last (zero-size) one included. The first byte of one
    /// more: 400.
    pub chunks_per_body_max: usize,
    /// Most trailer field lines after a chunked body. The first byte of one more: 431.
    pub trailer_fields_max: usize,
    /// Largest trailer section: every trailer line with its CRLF, not counting the empty line
    /// that ends it. Over it: 431.
    pub trailer_section_bytes_max: usize,
    /// Deepest nesting of JSON arrays and objects. Over it: 400. At most [`JSON_DEPTH_CEILING`].
    pub json_depth_max: usize,
    /// Largest single header field value, counted from its first non-whitespace byte to the end
    /// of its line. Over it: 431, as soon as the byte that crosses it arrives. A client also
    /// bounds a response's reason phrase by it.
    pub header_value_bytes_max: usize,
    /// Most header field lines in one head. The first byte of one line more: 431.
    pub header_fields_max: usize,
    /// Most media ranges in the Accept fields of one request. One more: 400.
    pub accept_ranges_max: usize,
    /// Largest header section: every field line with its CRLF, not counting the empty line that
    /// ends the head. Over it: 431.
    pub header_section_bytes_max: usize,
    /// Longest request target (the path; a query is always refused). Over it: 414.
    pub request_target_bytes_max: usize,
    /// Longest request method. A longer token cannot be one this server implements: 501.
    pub method_bytes_max: usize,
    /// Empty lines tolerated before a request line (RFC 9112 §2.2 asks for at least one). One
    /// more: 400.
    pub leading_empty_lines_max: usize,
    /// Largest whole response (head and body). The server never writes a bigger one; the client
    /// refuses a bigger one before reading its body.
    pub response_bytes_max: usize,
    /// Sessions alive at once. A new session past it fails closed (503 with `Retry-After`) and
    /// is never stored.
    pub sessions_active_max: usize,
    /// Sessions alive at once for one principal (subject and tenant, at its current
    /// authorization revision). One more: 429 with `Retry-After`, nothing built; other
    /// principals keep their slots. It may exceed `sessions_active_max`, which then binds.
    pub sessions_per_principal_max: usize,
    /// Lifetime of a session, fixed at creation and never extended by use. Afterwards: 404.
    pub session_ttl: Duration,
    /// Messages (notifications and responses) one session keeps for resuming its event streams,
    /// the GET stream and every POST stream together; past it the oldest is dropped, and a
    /// `Last-Event-ID` that would have resumed before it is refused. Priming events are not kept:
    /// their ids are positions, nothing to store.
    pub sse_events_kept_per_session_max: usize,
    /// Bytes of those kept messages (their encoded JSON), per session; past it the oldest is
    /// dropped, as for the count. At least one event of the largest size.
    pub sse_bytes_kept_per_session_max: usize,
    /// Largest single SSE event a client parses: every byte of its lines, comments included.
    pub sse_event_bytes_max: usize,
    /// Most SSE events a client accepts from one stream.
    pub sse_stream_events_max: usize,
    /// Requests being processed at once: the server runs exactly this many worker threads, each
    /// serving one connection at a time. One connection more: 503. At most [`WORKERS_CEILING`].
    pub requests_in_processing_max: usize,
    /// Longest wait for one socket read once a request has begun (its first byte arrived): a
    /// read that waits longer ends the connection, with nothing dispatched. Before a request's
    /// first byte, the idle timeout governs instead.
    pub socket_read_timeout: Duration,
    /// Longest time from the first byte of a request head to its last byte: a total deadline, not
    /// a per-read timeout, so a client trickling one byte at a time cannot hold a worker forever.
    /// On expiry the connection is closed and nothing is dispatched.
    pub request_head_deadline: Duration,
    /// Longest time from the end of a head to the last byte of its body, in total. On expiry the
    /// connection is closed and nothing is dispatched.
    pub request_body_deadline: Duration,
    /// Longest wait for the first byte of the next request on a kept-alive connection.
    pub connection_idle_timeout: Duration,
    /// Most requests served on one connection; the last response says `Connection: close`.
    pub requests_per_connection_max: usize,
    /// Longest wait for one socket write that makes no progress: a write that waits longer ends
    /// the connection.
    pub socket_write_timeout: Duration,
    /// Longest time to write one whole response, in total: a peer that stops reading (or reads a
    /// byte now and then) cannot hold a worker beyond it. On expiry the connection is closed.
    pub response_write_deadline: Duration,
    /// After a failed `accept` (out of file descriptors, say), the acceptor waits this long
    /// before it tries again, instead of spinning.
    pub accept_error_pause: Duration,
    /// After a connection's last response (or its 503): at most this many unread bytes are
    /// drained (so the peer reads the response instead of a reset) before it is closed.
    pub drain_bytes_max: usize,
    /// After a connection's last response (or its 503): at most this long is spent draining.
    pub drain_timeout: Duration,
    /// Connections lingering at once: refused with 503 while every worker is busy, or ended
    /// politely by a worker, each draining within the drain budgets. When the set is full, the
    /// oldest lingering connection is closed at once; a newly refused one always gets its 503
    /// written first.
    pub connections_lingering_max: usize,
    /// How often the lingering connections are swept (non-blocking reads on each).
    pub linger_sweep_interval: Duration,
    /// The `retry` every event stream's priming event tells the client to wait before it
    /// reconnects (after a stream ends without its response, or to poll the GET stream again).
    pub stream_retry: Duration,
    /// A client's timeout for connecting and for each read and write.
    pub client_io_timeout: Duration,
    /// How many times a client resumes one request's stream (a GET with `Last-Event-ID` after a
    /// stream that ended without the response) before it gives up. It never sends the request
    /// again.
    pub client_resumptions_max: usize,
    /// The longest a client's request may take in all, every resumption and the waits before
    /// them included.
    pub client_request_deadline: Duration,
    /// Interim (1xx) responses a client reads before the final one. One more: the exchange
    /// fails, so a server cannot keep a client reading `100 Continue` forever.
    pub interim_responses_max: usize,
    /// Longest control command `serve` runs, on stdin and on the control channel alike: the
    /// verb, the space and the role, not the secret before them nor the CR and LF after them. A
    /// longer one is refused whole and never run.
    pub control_line_bytes_max: usize,
    /// Longest time a control connection has for its whole line, from its accept to its LF: a
    /// total, not a per-read timeout. Past it the connection is closed and its line never runs,
    /// so a command its client saw fail never takes effect later.
    pub control_line_deadline: Duration,
    /// Control connections served at once, each on its own thread for at most
    /// `control_line_deadline`. One more is answered `busy` and closed at once, never queued
    /// behind the others.
    pub control_connections_max: usize,
}

/// A relation between two budgets that a hand-built [`Limits`] broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitsError {
    /// A budget is zero, which would refuse every request.
    Zero(&'static str),
    /// A single header value may not exceed the whole header section.
    HeaderValueExceedsSection,
    /// A single SSE event, with the head of its response, must fit the whole response.
    SseEventExceedsResponse,
    /// The head deadline must be longer than one socket read.
    HeadDeadlineNotAboveReadTimeout,
    /// A session must be able to keep one event of the largest size.
    KeptBytesBelowEvent,
    /// A client's request deadline must leave time to wait the server's `retry` and resume.
    RequestDeadlineNotAboveRetry,
    /// A byte budget above [`BYTES_CEILING`], a count above [`COUNT_CEILING`], a duration above
    /// [`DURATION_CEILING`], a JSON depth above [`JSON_DEPTH_CEILING`], a worker count above
    /// [`WORKERS_CEILING`] or a chunk-size digit count above [`CHUNK_SIZE_DIGITS_CEILING`].
    AboveCeiling(&'static str),
    /// More header fields than the header section could hold (each line takes at least 4 bytes).
    FieldsExceedSection,
    /// More trailer fields than the trailer section could hold.
    TrailerFieldsExceedSection,
}

/// The largest byte budget [`Limits::validate`] accepts. The codecs are built for small loopback
/// messages; a larger budget is a mistake, and would let derived sizes overflow.
pub const BYTES_CEILING: usize = 1 << 30;
/// The largest count budget [`Limits::validate`] accepts.
pub const COUNT_CEILING: usize = 1 << 20;
/// The longest duration [`Limits::validate`] accepts: one day. Deadlines are added to the current
/// instant, and a sum past what the clock can hold would panic.
pub const DURATION_CEILING: Duration = Duration::from_secs(24 * 60 * 60);
/// The deepest JSON nesting [`Limits::validate`] accepts. The decoder itself uses an explicit
/// stack, but dropping, cloning and comparing a decoded value recurse once per level on the
/// thread's stack: 1024 levels take a small fraction of a worker's stack, ten thousands overflow
/// it and abort the process.
pub const JSON_DEPTH_CEILING: usize = 1024;
/// The most worker threads [`Limits::validate`] accepts. Each worker is a thread with its own
/// stack and buffers, blocked on one connection at a time: on a loopback teaching server, more
/// than a thousand of them only adds context switches (and risks the process's thread limit),
/// while the overload path answers extra connections with a 503 at once anyway.
pub const WORKERS_CEILING: usize = 1024;
/// The most bytes the head of a response this server writes can take: the status line, `Date`,
/// `Content-Type`, `Cache-Control`, `Retry-After`, `Allow`, `Connection` and `Content-Length`
/// with their values, with room to spare. A GET stream's body may use the rest of the response
/// budget, so one event of the largest size must fit below it.
pub const RESPONSE_HEAD_BYTES_RESERVE: usize = 512;
/// The most bytes a priming event can take: `id: ` with the longest id this server writes (a
/// 16-digit tag, `-p`, two 20-digit numbers and a dash), `retry: ` with 20 digits, `data:`, four
/// LFs. Every event stream starts with one, so it must fit beside the largest event.
pub const PRIMING_EVENT_BYTES_MAX: usize = 128;
/// The most hex digits a chunk size may have: sixteen digits always fit in 64 bits.
pub const CHUNK_SIZE_DIGITS_CEILING: usize = 16;
/// The fewest bytes one field line can take: a one-byte name, the colon and CRLF.
const FIELD_LINE_BYTES_MIN: usize = 4;

impl std::fmt::Display for LimitsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LimitsError::Zero(name) => write!(f, "limit {name} must be greater than zero"),
            LimitsError::HeaderValueExceedsSection => {
                f.write_str("header_value_bytes_max must not exceed header_section_bytes_max")
            }
            LimitsError::SseEventExceedsResponse => f.write_str(
                "sse_event_bytes_max plus a priming event and a response head must fit response_bytes_max",
            ),
            LimitsError::HeadDeadlineNotAboveReadTimeout => {
                f.write_str("request_head_deadline must be longer than socket_read_timeout")
            }
            LimitsError::KeptBytesBelowEvent => {
                f.write_str("sse_bytes_kept_per_session_max must be at least sse_event_bytes_max")
            }
            LimitsError::RequestDeadlineNotAboveRetry => {
                f.write_str("client_request_deadline must be longer than stream_retry")
            }
            LimitsError::AboveCeiling(name) => write!(f, "limit {name} is above its ceiling"),
            LimitsError::FieldsExceedSection => {
                f.write_str("header_fields_max lines cannot fit in header_section_bytes_max")
            }
            LimitsError::TrailerFieldsExceedSection => {
                f.write_str("trailer_fields_max lines cannot fit in trailer_section_bytes_max")
            }
        }
    }
}

impl std::error::Error for LimitsError {}

const KIB: usize = 1024;

impl Limits {
    /// The project's budgets.
    pub const DEFAULT: Limits = Limits {
        request_body_bytes_max: 16 * KIB,
        chunk_size_digits_max: CHUNK_SIZE_DIGITS_CEILING,
        chunk_extension_bytes_max: 256,
        chunks_per_body_max: 256,
        trailer_fields_max: 8,
        trailer_section_bytes_max: KIB,
        json_depth_max: 64,
        header_value_bytes_max: 2 * KIB,
        header_fields_max: 32,
        accept_ranges_max: 16,
        header_section_bytes_max: 12 * KIB,
        request_target_bytes_max: 2 * KIB,
        // The longest registered method this crate knows is 7 bytes (CONNECT, OPTIONS); 32
        // leaves room for extension methods while keeping the request line short.
        method_bytes_max: 32,
        leading_empty_lines_max: 1,
        response_bytes_max: 64 * KIB,
        sessions_active_max: 8,
        sessions_per_principal_max: 4,
        session_ttl: Duration::from_secs(60),
        sse_events_kept_per_session_max: 32,
        sse_bytes_kept_per_session_max: 64 * KIB,
        sse_event_bytes_max: 32 * KIB,
        sse_stream_events_max: 64,
        requests_in_processing_max: 64,
        socket_read_timeout: Duration::from_secs(2),
        request_head_deadline: Duration::from_secs(5),
        request_body_deadline: Duration::from_secs(5),
        connection_idle_timeout: Duration::from_secs(5),
        requests_per_connection_max: 1000,
        socket_write_timeout: Duration::from_secs(2),
        response_write_deadline: Duration::from_secs(5),
        accept_error_pause: Duration::from_millis(50),
        drain_bytes_max: 64 * KIB,
        drain_timeout: Duration::from_millis(250),
        connections_lingering_max: 64,
        linger_sweep_interval: Duration::from_millis(10),
        stream_retry: Duration::from_secs(1),
        client_io_timeout: Duration::from_secs(10),
        client_resumptions_max: 3,
        client_request_deadline: Duration::from_secs(30),
        interim_responses_max: 4,
        control_line_bytes_max: 256,
        control_line_deadline: Duration::from_secs(2),
        control_connections_max: 32,
    };

    /// The most bytes a complete request head can occupy under these budgets: leading empty
    /// lines, the longest request line, the largest header section and the final CRLF. A server
    /// sizes its head buffer from this, so the peer never drives buffer growth.
    /// For validated limits the sum cannot overflow (every part is under its ceiling); for others
    /// it saturates rather than wrapping.
    pub const fn request_head_bytes_max(&self) -> usize {
        const SP_SP_VERSION_CRLF: usize = 1 + 1 + "HTTP/1.1".len() + 2;
        self.leading_empty_lines_max
            .saturating_mul(2)
            .saturating_add(self.method_bytes_max)
            .saturating_add(self.request_target_bytes_max)
            .saturating_add(SP_SP_VERSION_CRLF)
            .saturating_add(self.header_section_bytes_max)
            .saturating_add(2)
    }

    /// Checks the relations between budgets; [`Limits::DEFAULT`] passes at compile time. The
    /// parsers assume validated limits: a server validates any limits it did not take from
    /// `DEFAULT` before it starts.
    pub const fn validate(&self) -> Result<(), LimitsError> {
        if let Err(e) = self.check_magnitudes() {
            return Err(e);
        }
        if self.header_value_bytes_max > self.header_section_bytes_max {
            return Err(LimitsError::HeaderValueExceedsSection);
        }
        if self.header_fields_max > self.header_section_bytes_max / FIELD_LINE_BYTES_MIN {
            return Err(LimitsError::FieldsExceedSection);
        }
        if self.trailer_fields_max > self.trailer_section_bytes_max / FIELD_LINE_BYTES_MIN {
            return Err(LimitsError::TrailerFieldsExceedSection);
        }
        if self.sse_event_bytes_max
            > self
                .response_bytes_max
                .saturating_sub(RESPONSE_HEAD_BYTES_RESERVE + PRIMING_EVENT_BYTES_MAX)
        {
            return Err(LimitsError::SseEventExceedsResponse);
        }
        if self.request_head_deadline.as_nanos() <= self.socket_read_timeout.as_nanos() {
            return Err(LimitsError::HeadDeadlineNotAboveReadTimeout);
        }
        if self.sse_bytes_kept_per_session_max < self.sse_event_bytes_max {
            return Err(LimitsError::KeptBytesBelowEvent);
        }
        if self.client_request_deadline.as_nanos() <= self.stream_retry.as_nanos() {
            return Err(LimitsError::RequestDeadlineNotAboveRetry);
        }
        Ok(())
    }

    /// Every budget non-zero (except the leading-empty-line allowance) and under its ceiling.
    const fn check_magnitudes(&self) -> Result<(), LimitsError> {
        let bytes: [(&'static str, usize); 12] = [
            ("chunk_extension_bytes_max", self.chunk_extension_bytes_max),
            ("trailer_section_bytes_max", self.trailer_section_bytes_max),
            ("sse_bytes_kept_per_session_max", self.sse_bytes_kept_per_session_max),
            ("drain_bytes_max", self.drain_bytes_max),
            ("request_body_bytes_max", self.request_body_bytes_max),
            ("header_value_bytes_max", self.header_value_bytes_max),
            ("header_section_bytes_max", self.header_section_bytes_max),
            ("request_target_bytes_max", self.request_target_bytes_max),
            ("method_bytes_max", self.method_bytes_max),
            ("response_bytes_max", self.response_bytes_max),
            ("sse_event_bytes_max", self.sse_event_bytes_max),
            ("control_line_bytes_max", self.control_line_bytes_max),
        ];
        let counts: [(&'static str, usize); 14] = [
            ("chunks_per_body_max", self.chunks_per_body_max),
            ("trailer_fields_max", self.trailer_fields_max),
            ("client_resumptions_max", self.client_resumptions_max),
            ("requests_per_connection_max", self.requests_per_connection_max),
            ("connections_lingering_max", self.connections_lingering_max),
            ("header_fields_max", self.header_fields_max),
            ("accept_ranges_max", self.accept_ranges_max),
            ("sessions_active_max", self.sessions_active_max),
            ("sessions_per_principal_max", self.sessions_per_principal_max),
            ("sse_events_kept_per_session_max", self.sse_events_kept_per_session_max),
            ("sse_stream_events_max", self.sse_stream_events_max),
            ("requests_in_processing_max", self.requests_in_processing_max),
            ("interim_responses_max", self.interim_responses_max),
            ("control_connections_max", self.control_connections_max),
        ];
        if let Err(e) = within(&bytes, BYTES_CEILING) {
            return Err(e);
        }
        if let Err(e) = within(&counts, COUNT_CEILING) {
            return Err(e);
        }
        if let Err(e) = within(&[("json_depth_max", self.json_depth_max)], JSON_DEPTH_CEILING) {
            return Err(e);
        }
        let workers = [("requests_in_processing_max", self.requests_in_processing_max)];
        if let Err(e) = within(&workers, WORKERS_CEILING) {
            return Err(e);
        }
        let digits = [("chunk_size_digits_max", self.chunk_size_digits_max)];
        if let Err(e) = within(&digits, CHUNK_SIZE_DIGITS_CEILING) {
            return Err(e);
        }
        if self.leading_empty_lines_max > COUNT_CEILING {
            return Err(LimitsError::AboveCeiling("leading_empty_lines_max"));
        }
        self.check_durations()
    }

    /// Every duration non-zero and at most [`DURATION_CEILING`].
    const fn check_durations(&self) -> Result<(), LimitsError> {
        let durations: [(&'static str, Duration); 14] = [
            ("client_request_deadline", self.client_request_deadline),
            ("socket_read_timeout", self.socket_read_timeout),
            ("socket_write_timeout", self.socket_write_timeout),
            ("request_head_deadline", self.request_head_deadline),
            ("request_body_deadline", self.request_body_deadline),
            ("connection_idle_timeout", self.connection_idle_timeout),
            ("response_write_deadline", self.response_write_deadline),
            ("accept_error_pause", self.accept_error_pause),
            ("drain_timeout", self.drain_timeout),
            ("linger_sweep_interval", self.linger_sweep_interval),
            ("stream_retry", self.stream_retry),
            ("session_ttl", self.session_ttl),
            ("client_io_timeout", self.client_io_timeout),
            ("control_line_deadline", self.control_line_deadline),
        ];
        let mut i = 0;
        while i < durations.len() {
            let (name, value) = durations[i];
            if value.is_zero() {
                return Err(LimitsError::Zero(name));
            }
            if value.as_nanos() > DURATION_CEILING.as_nanos() {
                return Err(LimitsError::AboveCeiling(name));
            }
            i += 1;
        }
        Ok(())
    }
}

/// Each named budget non-zero and at most `ceiling`.
const fn within(budgets: &[(&'static str, usize)], ceiling: usize) -> Result<(), LimitsError> {
    let mut i = 0;
    while i < budgets.len() {
        let (name, value) = budgets[i];
        if value == 0 {
            return Err(LimitsError::Zero(name));
        }
        if value > ceiling {
            return Err(LimitsError::AboveCeiling(name));
        }
        i += 1;
    }
    Ok(())
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

const _: () = assert!(Limits::DEFAULT.validate().is_ok());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_limits_match_the_published_table() {
        let l = Limits::DEFAULT;
        assert_eq!(l.request_body_bytes_max, 16384);
        assert_eq!(l.chunk_size_digits_max, 16);
        assert_eq!(l.chunk_extension_bytes_max, 256);
        assert_eq!(l.chunks_per_body_max, 256);
        assert_eq!(l.trailer_fields_max, 8);
        assert_eq!(l.trailer_section_bytes_max, 1024);
        assert_eq!(l.json_depth_max, 64);
        assert_eq!(l.header_value_bytes_max, 2048);
        assert_eq!(l.header_fields_max, 32);
        assert_eq!(l.header_section_bytes_max, 12288);
        assert_eq!(l.request_target_bytes_max, 2048);
        assert_eq!(l.response_bytes_max, 65536);
        assert_eq!(l.sessions_active_max, 8);
        assert_eq!(l.session_ttl, Duration::from_secs(60));
        assert_eq!(l.sse_events_kept_per_session_max, 32);
        assert_eq!(l.sse_bytes_kept_per_session_max, 65536);
        assert_eq!(l.requests_in_processing_max, 64);
        assert_eq!(l.socket_read_timeout, Duration::from_secs(2));
        assert_eq!(l.request_head_deadline, Duration::from_secs(5));
    }

    #[test]
    fn head_bytes_max_is_the_sum_of_its_parts() {
        assert_eq!(Limits::DEFAULT.request_head_bytes_max(), 2 + 32 + 2048 + 12 + 12288 + 2);
    }

    #[test]
    fn head_bytes_max_saturates_for_unvalidated_limits() {
        let huge = Limits { header_section_bytes_max: usize::MAX - 100, ..Limits::DEFAULT };
        assert_eq!(huge.request_head_bytes_max(), usize::MAX);
    }

    #[test]
    fn broken_relations_are_refused() {
        let d = Limits::DEFAULT;
        let cases: [(Limits, LimitsError); 13] = [
            (
                Limits { chunk_size_digits_max: 17, ..d },
                LimitsError::AboveCeiling("chunk_size_digits_max"),
            ),
            (Limits { chunks_per_body_max: 0, ..d }, LimitsError::Zero("chunks_per_body_max")),
            (Limits { trailer_fields_max: 257, ..d }, LimitsError::TrailerFieldsExceedSection),
            (Limits { json_depth_max: 0, ..d }, LimitsError::Zero("json_depth_max")),
            (
                Limits { sse_bytes_kept_per_session_max: 32767, ..d },
                LimitsError::KeptBytesBelowEvent,
            ),
            (
                Limits { client_request_deadline: Duration::from_secs(1), ..d },
                LimitsError::RequestDeadlineNotAboveRetry,
            ),
            (Limits { header_value_bytes_max: 12289, ..d }, LimitsError::HeaderValueExceedsSection),
            (Limits { sse_event_bytes_max: 64897, ..d }, LimitsError::SseEventExceedsResponse),
            (
                Limits { request_head_deadline: Duration::from_secs(2), ..d },
                LimitsError::HeadDeadlineNotAboveReadTimeout,
            ),
            (
                Limits { header_section_bytes_max: usize::MAX - 100, ..d },
                LimitsError::AboveCeiling("header_section_bytes_max"),
            ),
            (
                Limits { header_fields_max: usize::MAX / 8, ..d },
                LimitsError::AboveCeiling("header_fields_max"),
            ),
            (Limits { header_fields_max: 3073, ..d }, LimitsError::FieldsExceedSection),
            (
                Limits { socket_read_timeout: Duration::ZERO, ..d },
                LimitsError::Zero("socket_read_timeout"),
            ),
        ];
        for (limits, expected) in cases {
            assert_eq!(limits.validate(), Err(expected));
        }
    }
}
