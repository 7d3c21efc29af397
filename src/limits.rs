//! Every budget the project enforces, written once, in one table: the `budgets!` list below.
//!
//! Code elsewhere never spells a budget as a literal: it reads it from a [`Limits`] value that was
//! handed to it. The defaults are sized for a small loopback teaching server, not for production
//! traffic; a production deployment would derive them from measured message sizes and proxy limits.
//!
//! Each row of the list gives a budget's name, its kind (bytes, a count or a duration) with its
//! default in that kind's unit, its ceiling, and its doc line. From it come the [`Limits`] struct
//! and [`Limits::DEFAULT`], the magnitude checks of [`Limits::validate`] (every budget non-zero,
//! unless its row allows zero, and at most its ceiling), the table of every budget, its default,
//! its ceiling and what it bounds in [`Limits`]' documentation, and [`BUDGETS`], which the tests
//! read: the figures the documents restate (README, the module docs) are checked against it, and
//! every budget in it must have an edge test (at its value and one past it) or a reason it has
//! none. A row without its ceiling or its doc line does not compile, and a budget cannot be added
//! anywhere else.
//!
//! The relations between budgets (a single header value cannot be larger than the whole header
//! section, the head deadline must outlast one socket read, ...) are checked at compile time for
//! [`Limits::DEFAULT`] and at run time by [`Limits::validate`] for values built by hand.
//!
//! The ceilings keep derived sizes from overflowing: 1 GiB<!-- not a limit --> for bytes, 2^20
//! for counts, one day for durations (a deadline is added to the current instant, and a sum past
//! what the clock holds would panic), 16 for chunk-size digits (every size fits 64 bits), 100 for a
//! share in percent, 1024 for
//! JSON depth (decoding uses an explicit stack, but dropping or comparing a decoded value recurses
//! once per level), and 1024 for workers (each is a thread with its own stack and buffers; on two
//! cores a thousand of them only add context switches, while connections past the pool get their
//! 503 at once anyway). `serve --workers` above its ceiling is a usage error (exit status 2).
//!
//! The head buffer a server needs follows from the budgets (`Limits::request_head_bytes_max()`,
//! 14 384 bytes<!-- limit: request_head_bytes_max --> by default), so a peer can never make it
//! grow. `bind` also refuses a response budget too small for the server's own 503.
//!
//! This module does not enforce anything itself; it only names the numbers.

use std::time::Duration;

const KIB: usize = 1024;

/// A budget's amount, in its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amount {
    Bytes(usize),
    Count(usize),
    Time(Duration),
}

/// One row of the budget table, as the tests read it.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// The field's name.
    pub name: &'static str,
    /// The amount of the budget in some limits.
    pub get: fn(&Limits) -> Amount,
    /// Sets the budget in some limits to an amount of its kind (any other kind is ignored).
    pub set: fn(&mut Limits, Amount),
    /// The smallest amount [`Limits::validate`] accepts: zero, or one unit of the kind.
    pub floor: Amount,
    /// The largest amount [`Limits::validate`] accepts.
    pub ceiling: Amount,
    /// The doc line.
    pub doc: &'static str,
}

/// Declares [`Limits`], [`Limits::DEFAULT`], the magnitude checks and [`BUDGETS`] from one list.
/// A row: its doc line (`///`), then `name: kind DEFAULT UNIT, at most CEILING`, and `, or zero`
/// when zero is allowed. Kinds and units: `bytes N KiB`, `bytes N bytes`, `count N`,
/// `duration N s`, `duration N ms`.
macro_rules! budgets {
    (@type bytes) => { usize };
    (@type count) => { usize };
    (@type duration) => { Duration };
    (@value bytes $n:literal KiB) => { $n * KIB };
    (@value bytes $n:literal bytes) => { $n };
    (@value count $n:literal) => { $n };
    (@value duration $n:literal s) => { Duration::from_secs($n) };
    (@value duration $n:literal ms) => { Duration::from_millis($n) };
    (@amount bytes $v:expr) => { Amount::Bytes($v) };
    (@amount count $v:expr) => { Amount::Count($v) };
    (@amount duration $v:expr) => { Amount::Time($v) };
    (@floor duration) => { Amount::Time(Duration::from_nanos(1)) };
    (@floor bytes) => { Amount::Bytes(1) };
    (@floor count) => { Amount::Count(1) };
    (@floor bytes zero) => { Amount::Bytes(0) };
    (@floor count zero) => { Amount::Count(0) };
    (@set bytes $field:expr, $amount:expr) => { if let Amount::Bytes(v) = $amount { $field = v } };
    (@set count $field:expr, $amount:expr) => { if let Amount::Count(v) = $amount { $field = v } };
    (@set duration $field:expr, $amount:expr) => { if let Amount::Time(v) = $amount { $field = v } };
    (@check duration $name:expr, $v:expr, $ceiling:expr $(, $zero:ident)?) => {
        within_time($name, $v, $ceiling)
    };
    (@check $kind:ident $name:expr, $v:expr, $ceiling:expr) => { within($name, $v, 1, $ceiling) };
    (@check $kind:ident $name:expr, $v:expr, $ceiling:expr, zero) => {
        within($name, $v, 0, $ceiling)
    };
    ($(
        $(#[doc = $doc:literal])+
        $name:ident: $kind:ident $n:literal $($unit:ident)?, at most $ceiling:ident $(, or $zero:ident)?;
    )*) => {
        /// The budgets of one server or client.
        ///
        /// Field names end with their unit (`_bytes_max`, `_max` for counts); durations are typed.
        ///
        /// | budget | default | at most | what it bounds |
        /// |---|---|---|---|
        $(#[doc = concat!(
            "| `", stringify!($name), "` | ", stringify!($n), $(" ", stringify!($unit),)?
            " | [`", stringify!($ceiling), "`] | ", $($doc,)+ " |"
        )])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Limits {
            $($(#[doc = $doc])+ pub $name: budgets!(@type $kind),)*
        }

        impl Limits {
            /// The project's budgets.
            pub const DEFAULT: Limits = Limits {
                $($name: budgets!(@value $kind $n $($unit)?),)*
            };

            /// Every budget non-zero (unless its row allows zero) and at most its ceiling.
            const fn check_magnitudes(&self) -> Result<(), LimitsError> {
                $(
                    if let Err(e) =
                        budgets!(@check $kind stringify!($name), self.$name, $ceiling $(, $zero)?)
                    {
                        return Err(e);
                    }
                )*
                Ok(())
            }
        }

        /// Every budget, in the order of the table.
        pub const BUDGETS: [Budget; [$(stringify!($name)),*].len()] = [$(
            Budget {
                name: stringify!($name),
                get: |l| budgets!(@amount $kind l.$name),
                set: |l, amount| budgets!(@set $kind l.$name, amount),
                floor: budgets!(@floor $kind $($zero)?),
                ceiling: budgets!(@amount $kind $ceiling),
                doc: concat!($($doc),+),
            },
        )*];
    };
}

budgets! {
    /// The largest request body: its `Content-Length`, or under `--chunked` the decoded bytes of
    /// its chunks. Over it: 413, decided before any byte of the body (or of the chunk that would
    /// cross it) is read. Request parser and chunked decoder.
    request_body_bytes_max: bytes 16 KiB, at most BYTES_CEILING;
    /// The longest chunk size of a chunked body, in hex digits, leading zeros included. One
    /// more: 400 `chunk_size_too_long`. Its ceiling keeps every size within 64 bits: a size that
    /// would overflow is refused at its seventeenth digit, before any arithmetic could wrap.
    chunk_size_digits_max: count 16, at most CHUNK_SIZE_DIGITS_CEILING;
    /// The largest extension part of one chunk-size line: every byte between the size and the
    /// CR. Over it: 400, on the byte that crosses it.
    chunk_extension_bytes_max: bytes 256 bytes, at most BYTES_CEILING;
    /// The most chunks in one chunked body, the last (zero-size) one included. The first byte of
    /// one more: 400.
    chunks_per_body_max: count 256, at most COUNT_CEILING;
    /// The most trailer field lines after a chunked body, each value within the header value
    /// budget. The first byte of one more: 431.
    trailer_fields_max: count 8, at most COUNT_CEILING;
    /// The largest trailer section: every trailer line with its CRLF, not counting the empty
    /// line that ends it. Over it: 431.
    trailer_section_bytes_max: bytes 1 KiB, at most BYTES_CEILING;
    /// The deepest nesting of JSON arrays and objects. Over it: refused by the JSON decoder (400
    /// at the server).
    json_depth_max: count 64, at most JSON_DEPTH_CEILING;
    /// The largest single header field value, counted from its first non-whitespace byte to the
    /// end of its line. Over it: 431, as soon as the byte that crosses it arrives. A client also
    /// bounds a response's reason phrase by it.
    header_value_bytes_max: bytes 2 KiB, at most BYTES_CEILING;
    /// The most header field lines in one head. The first byte of one line more: 431.
    header_fields_max: count 32, at most COUNT_CEILING;
    /// The most media ranges in the `Accept` fields of one request. One more: refused by the
    /// Accept parser (400 at the server).
    accept_ranges_max: count 16, at most COUNT_CEILING;
    /// The largest header section: every field line with its CRLF, not counting the empty line
    /// that ends the head. Over it: 431.
    header_section_bytes_max: bytes 12 KiB, at most BYTES_CEILING;
    /// The longest request target (the path; a query is always refused, 400). Over it: 414.
    request_target_bytes_max: bytes 2 KiB, at most BYTES_CEILING;
    /// The longest request method: the longest registered one is 7 bytes (`CONNECT`,
    /// `OPTIONS`), and this leaves room for extension methods while keeping the request line
    /// short. A longer token cannot be one this server implements: 501.
    method_bytes_max: bytes 32 bytes, at most BYTES_CEILING;
    /// The empty lines tolerated before a request line (RFC 9112 §2.2 asks for at least one).
    /// One more: 400.
    leading_empty_lines_max: count 1, at most COUNT_CEILING, or zero;
    /// The largest whole response, head and body. The server never writes a bigger one; the
    /// client refuses a bigger one before reading its body.
    response_bytes_max: bytes 64 KiB, at most BYTES_CEILING;
    /// The room a worker keeps in each of its two reply-text buffers (a body, one field's value)
    /// from one request to the next. A larger buffer handed back is dropped, not kept.
    reply_text_bytes_kept_max: bytes 1 KiB, at most BYTES_CEILING;
    /// Sessions alive at once. A new session past it fails closed (503 with `Retry-After`) and
    /// is never stored.
    sessions_active_max: count 8, at most COUNT_CEILING;
    /// Sessions alive at once for one principal (subject and tenant, at its current
    /// authorization revision). One more: 429 with `Retry-After`, nothing built; other
    /// principals keep their slots. It may exceed `sessions_active_max`, which then binds.
    sessions_per_principal_max: count 4, at most COUNT_CEILING;
    /// The lifetime of a session, fixed at creation and never extended by use. Afterwards: 404.
    session_ttl: duration 60 s, at most DURATION_CEILING;
    /// Messages (notifications and responses) one session keeps for resuming its event
    /// streams, the GET stream and every POST stream together. Past it the oldest is dropped,
    /// and a `Last-Event-ID` that would have resumed before it is refused (400
    /// `last_event_id_evicted`). Priming events are not kept: their ids are positions.
    sse_events_kept_per_session_max: count 32, at most COUNT_CEILING;
    /// Bytes of those kept messages (their encoded JSON), per session; past it the oldest is
    /// dropped, as for the count. At least one event of the largest size.
    sse_bytes_kept_per_session_max: bytes 64 KiB, at most BYTES_CEILING;
    /// The largest single SSE event a client parses: every byte of its lines, comments
    /// included. Over it: refused.
    sse_event_bytes_max: bytes 32 KiB, at most BYTES_CEILING;
    /// The most SSE events a client accepts from one stream. One more: refused.
    sse_stream_events_max: count 64, at most COUNT_CEILING;
    /// The workers: requests being processed at once. The server runs exactly this many worker
    /// threads, each serving one connection at a time. One connection more: 503 with
    /// `Retry-After: 1`, answered at once (or after `closing_worker_wait`).
    requests_in_processing_max: count 64, at most WORKERS_CEILING;
    /// With every worker busy, the longest a new connection waits for a worker that is writing
    /// its connection's last response (reckoned from the latest such write's start) before its
    /// 503: the client that read that response may reconnect before the worker gives its place
    /// back. A pool busy with anything else refuses at once.
    closing_worker_wait: duration 100 ms, at most DURATION_CEILING;
    /// The longest wait for one socket read once a request has begun (its first byte arrived):
    /// a read that waits longer ends the connection, with nothing dispatched. Before a request's
    /// first byte, the idle timeout governs instead.
    socket_read_timeout: duration 2 s, at most DURATION_CEILING;
    /// The longest time from the first byte of a request head to its last byte: a total, not a
    /// per-read timeout, so a client trickling one byte at a time cannot hold a worker. On
    /// expiry the connection is closed and nothing is dispatched.
    request_head_deadline: duration 5 s, at most DURATION_CEILING;
    /// The longest time from the end of a head to the last byte of its body, in total. On
    /// expiry the connection is closed and nothing is dispatched.
    request_body_deadline: duration 5 s, at most DURATION_CEILING;
    /// The longest wait for the first byte of the next request on a kept-alive connection. Then
    /// the connection is closed.
    connection_idle_timeout: duration 5 s, at most DURATION_CEILING;
    /// The most requests served on one connection; the last response says `Connection: close`.
    requests_per_connection_max: count 1000, at most COUNT_CEILING;
    /// The longest wait for one socket write that makes no progress: a write that waits longer
    /// ends the connection.
    socket_write_timeout: duration 2 s, at most DURATION_CEILING;
    /// The longest time to write one whole response, in total: a peer that stops reading (or
    /// reads a byte now and then) cannot hold a worker beyond it. On expiry the connection is
    /// closed.
    response_write_deadline: duration 5 s, at most DURATION_CEILING;
    /// After a failed `accept` (out of file descriptors, say), the acceptor waits this long
    /// before it tries again, instead of spinning. It paces a thread and decides nothing.
    accept_error_pause: duration 50 ms, at most DURATION_CEILING;
    /// After a connection's last response (or its 503): at most this many unread bytes are
    /// drained (so the peer reads the response instead of a reset) before it is closed.
    drain_bytes_max: bytes 64 KiB, at most BYTES_CEILING;
    /// After a connection's last response (or its 503): at most this long is spent draining.
    drain_timeout: duration 250 ms, at most DURATION_CEILING;
    /// Connections lingering at once: refused with 503 while every worker is busy, or ended
    /// politely by a worker, each draining within the drain budgets. When the set is full, the
    /// oldest lingering connection is closed at once; a newly refused one always gets its 503
    /// written first.
    connections_lingering_max: count 64, at most COUNT_CEILING;
    /// How often the lingering connections are swept (non-blocking reads on each). It paces a
    /// thread and decides nothing.
    linger_sweep_interval: duration 10 ms, at most DURATION_CEILING;
    /// The `retry` every event stream's priming event tells the client to wait before it
    /// reconnects (after a stream ends without its response, or to poll the GET stream again).
    stream_retry: duration 1 s, at most DURATION_CEILING;
    /// How long a client may reuse a 2026-07-28 list result: the `ttlMs` of `tools/list`,
    /// `resources/list` and `server/discover`. A freshness hint, announced and never enforced.
    list_ttl: duration 300 s, at most DURATION_CEILING;
    /// A client's timeout for connecting and for each read and write. Past it the exchange
    /// fails.
    client_io_timeout: duration 10 s, at most DURATION_CEILING;
    /// How many times a client resumes one request's stream (a GET with `Last-Event-ID` after a
    /// stream that ended without the response) before it gives up with
    /// `resumptions_exhausted`. It never sends the request again.
    client_resumptions_max: count 3, at most COUNT_CEILING;
    /// The longest a client's request may take in all, every resumption and the waits before
    /// them included. Past it: `request_deadline_passed`.
    client_request_deadline: duration 30 s, at most DURATION_CEILING;
    /// Interim (1xx) responses a client reads before the final one. One more: the exchange
    /// fails, so a server cannot keep a client reading `100 Continue` forever.
    interim_responses_max: count 4, at most COUNT_CEILING;
    /// The longest control command `serve` runs, on stdin and on the control channel alike:
    /// the verb, the space and the role, not the secret before them nor the CR and LF after
    /// them. A longer one is answered `line_too_long` and never run.
    control_line_bytes_max: bytes 256 bytes, at most BYTES_CEILING;
    /// The longest time a control connection has for its whole line, from its accept to its LF:
    /// a total, not a per-read timeout. Past it the connection is answered `deadline_passed`
    /// and closed, and its line never runs, so a command its client saw fail never takes effect
    /// later.
    control_line_deadline: duration 2 s, at most DURATION_CEILING;
    /// Control connections served at once, each on its own thread for at most
    /// `control_line_deadline`. One more is answered `busy` and closed at once, never queued
    /// behind the others.
    control_connections_max: count 32, at most COUNT_CEILING;
    /// The most steps one `count_slowly` call may take. One more: the call is refused
    /// (`-32602`, `steps_invalid`) before it starts.
    count_slowly_steps_max: count 20, at most COUNT_CEILING;
    /// The longest pause between two steps of a `count_slowly` call. One millisecond more: the
    /// call is refused (`-32602`, `pause_invalid`) before it starts.
    count_slowly_pause_max: duration 1000 ms, at most DURATION_CEILING;
    /// The longest `test_tool_slow` call (its `durationMs`). One millisecond more: the call is
    /// refused (`-32602`, `duration_invalid`) before it starts.
    test_tool_slow_duration_max: duration 30 s, at most DURATION_CEILING;
    /// The longest step of a `test_tool_slow` call: its duration is cut into equal steps no longer
    /// than this, at each of which it writes (its progress, or a keep-alive) and looks for a
    /// cancellation, so that one is honoured within a step.
    test_tool_slow_step: duration 250 ms, at most DURATION_CEILING;
    /// How long an open stream may stay silent: past it, it sends an SSE comment line, so that an
    /// idle timer between the server and the client (a proxy's, the client's own) does not cut
    /// it. `serve --stream-keepalive-secs` sets it.
    stream_keepalive: duration 15 s, at most DURATION_CEILING;
    /// How often a quiet open stream looks for news (a change to announce, a revocation, the
    /// server stopping) between its own events. It paces a wait and decides nothing.
    stream_poll_interval: duration 25 ms, at most DURATION_CEILING;
    /// The share of the workers, in percent, that open streams (listens, slow calls while they
    /// stream or their work goes on, resumptions' tails) may hold at once: at least one worker,
    /// and never the last one. A stream past it is refused with 503 and `Retry-After`, so that
    /// plain requests always find a worker.
    stream_share_percent: count 50, at most PERCENT_CEILING;
    /// Open streams of every kind one principal (subject and tenant) may hold at once, and never
    /// more than a quarter of the share (at least one): the default is a quarter of the default
    /// share. One more: 429 with `Retry-After`, and other principals keep their places.
    open_streams_per_principal_max: count 8, at most COUNT_CEILING;
    /// Open `subscriptions/listen` streams one principal (subject and tenant) may hold at once,
    /// within its open streams. One more: 429 with `Retry-After`, as the session quota answers.
    listens_per_principal_max: count 4, at most COUNT_CEILING;
    /// The longest a `subscriptions/listen` stream stays open. At its end the server tears it
    /// down gracefully (`notifications/cancelled`, then the completion result), and the client
    /// listens again.
    listen_lifetime: duration 300 s, at most DURATION_CEILING;
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
/// The largest share, in percent: all of it.
pub const PERCENT_CEILING: usize = 100;
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

impl Limits {
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
}

/// A budget of bytes or a count between `floor` and `ceiling`.
const fn within(
    name: &'static str,
    value: usize,
    floor: usize,
    ceiling: usize,
) -> Result<(), LimitsError> {
    if value < floor {
        return Err(LimitsError::Zero(name));
    }
    if value > ceiling {
        return Err(LimitsError::AboveCeiling(name));
    }
    Ok(())
}

/// A duration non-zero and at most `ceiling`.
const fn within_time(
    name: &'static str,
    value: Duration,
    ceiling: Duration,
) -> Result<(), LimitsError> {
    if value.is_zero() {
        return Err(LimitsError::Zero(name));
    }
    if value.as_nanos() > ceiling.as_nanos() {
        return Err(LimitsError::AboveCeiling(name));
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
