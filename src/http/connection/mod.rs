//! One connection's life, from its first byte to its close, as a sans-IO state machine, and the
//! one loop that drives it.
//!
//! [`Connection`] decides where each request begins and ends on a connection: when a head is
//! complete, when to ask for admission, whether to send `100 Continue`, how many body bytes
//! belong to the request, what follows a response (the next request, possibly already buffered,
//! or the close), what happens to the bytes after an error, and how long each wait may last. It
//! never touches a socket, a clock or a thread:
//!
//! ```text
//!            bytes          head complete       admitted, body incomplete
//!  ┌──▶ await head ──────────▶ admit ──────────────────────────┐ (100 Continue first,
//!  │       │  ▲                 │ admitted, body here          ▼  when it was asked for)
//!  │       │  └─ more bytes     │                          await body
//!  │       │                    ▼                              │
//!  │       │                 dispatch ◀────────────────────────┘ body complete
//!  │       │                    │ reply ready
//!  │       │                    ▼
//!  └───────┼───────────────── write ── the reply closes ──▶ close politely (linger)
//!   next   │  keep-alive        │
//!  request │                    └── refused head: its reply, then close politely
//!          └── peer closed, or a deadline passed ──▶ close at once, nothing dispatched
//! ```
//!
//! The machine is driven in stages, in the manner of ureq-proto, two ways (`stage`):
//! `Connection::stage` takes `&self`, changes nothing, and answers with a view of where the
//! connection is ([`Stage`]: a read and its deadline, a parsed head, bytes to write, ...), for
//! the driver and a handler's `observe`; `Connection::turn` lends the same stage as a handle
//! ([`Turn`]) offering exactly the transitions that can happen there. A read is offered the
//! machine's own buffer to read into ([`ReadTurn::buffer`]); an admission carries the parsed head
//! ([`AdmitTurn::parts`]); a dispatch carries the complete request, head and exactly its body
//! ([`DispatchTurn::parts`]); each lends the buffer the reply is serialized into, so that no
//! response is copied on its way out; a write names the bytes and the instant to give up. An
//! event that does not fit the state cannot be reported, because no handle offers it: the
//! impossible combinations are not asserted and then survived, they do not compile.
//!
//! [`drive`] is the loop, the only one in the crate and the only code that steps a machine: it
//! carries out each stage through a [`Transport`] (reads and writes with a deadline, the clock, and
//! word that the connection's last bytes are going out) and a [`Handler`] (admit a head, answer a request). The server's socket loop,
//! `inspect connection`, the `connection` fuzz target and the fake-clock tests are four pairs of
//! those traits.
//!
//! A head is parsed once, by the machine (with [`RequestParser`](crate::http::RequestParser)); the
//! handler only judges the parsed head (the receive order's stages 2 and 3) and answers each
//! dispatched request. A body is read exactly to its `Content-Length`; the bytes after it are the
//! next request, parsed as soon as the response is out. Bytes that follow a refused request are
//! never parsed: the connection closes with them unread. The interim `100 Continue` is the
//! machine's own: its bytes are fixed and carry no `Date` (RFC 9110 §6.6.1 asks a `Date` only of
//! 2xx to 4xx responses).
//!
//! # Deadlines and budgets
//!
//! The machine enforces every lifecycle budget of [`Limits`](crate::limits::Limits). Before a
//! request's first byte the idle timeout (5 s<!-- limit: connection_idle_timeout -->) governs; from
//! that byte the head must be complete within 5 s<!-- limit: request_head_deadline --> in total,
//! and no single read may wait more than 2 s<!-- limit: socket_read_timeout -->; the body must
//! follow within 5 s<!-- limit: request_body_deadline --> of the head's end, again no read waiting
//! more than 2 s<!-- limit: socket_read_timeout -->; a response must be written within
//! 5 s<!-- limit: response_write_deadline --> in total, and a write that makes no progress for
//! 2 s<!-- limit: socket_write_timeout --> ends the connection. On expiry the connection closes at
//! once: a partial request is never dispatched, and a peer that stops reading loses its worker. The
//! last request a connection may carry (the 1000<!-- limit: requests_per_connection_max -->th) is
//! dispatched as not keep-alive, so its response says `Connection: close`. `tests/connection.rs`
//! drives the machine with a fake clock and scripted arrivals, every deadline at its edge and one
//! step past it, with no sleep; the `connection` fuzz target drives it with arbitrary
//! conversations.
//!
//! A polite close shuts the write half after the last response and hands over to a [`Linger`], a
//! small machine of its own: it reads and drops what the peer still sends, at most
//! 64 KiB<!-- limit: drain_bytes_max --> and 250 ms<!-- limit: drain_timeout -->, until the peer
//! closes, so that the peer reads its last response rather than a reset. The server's refused
//! connections (its 503) linger the same way without ever having had a request.
//!
//! # Streams that stay open
//!
//! A handler may answer a request with the head of a stream whose events are not all known yet
//! ([`Answered::Streaming`]). Once the head is written the machine asks the handler, stage by
//! stage, for the stream's [`Next`] step: a chunk to write (under the same write deadlines as any
//! response), a time to come back, or the end (its last chunk, then the next request or the
//! close). The stream's request leaves the buffer when the stream opens (the handler took what
//! it needs), and while the stream is quiet the driver reads, with the handler's time as the
//! deadline, so a peer's close is seen the moment it happens. Bytes that arrive meanwhile are
//! kept for the next request, up to one request of the largest size: the buffer holds one byte
//! more, and a read that fills it is over budget, since waiting for a failed write is no
//! defence (a write to a socket whose peer left usually succeeds). A close that is read, a chunk
//! write that fails, one that the peer does not take within the write timeout, or a full buffer,
//! means the peer is gone ([`Why`]): the transport is hung up, and the handler decides
//! ([`Departure`]) whether the work stops there or goes on without a reader, its chunks dropped
//! and its waits spent pausing, until the handler ends it and the connection closes at once. How
//! chunks are framed is the handler's (this server's follows the request's HTTP version); the
//! machine moves bytes and keeps time.
//!
//! # `inspect connection`
//!
//! `inspect connection` runs the machine over a whole conversation read from standard input: the
//! bytes arrive at once, then the peer closes; every head the parser accepts is admitted and every
//! request answered `200 {}`. It prints one JSON line per step: the event, what comes `next`, and
//! the state. Two pipelined requests in one arrival are served in order without another read:
//!
//! ```sh
//! printf 'GET /mcp HTTP/1.1\r\nHost: a\r\n\r\nPOST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}' \
//!   | cargo run --release -q -- inspect connection
//! ```
//!
//! ```text
//! {"next":{"read":14384},"state":"await_head"}
//! {"event":{"received":82},"next":{"admit":{"content_length":0,"expect_continue":false,"keep_alive":true,"method":"GET","target":"/mcp"}},"state":"admitting"}
//! {"event":"admitted","next":{"dispatch":{"body_bytes":0,"keep_alive":true}},"state":"dispatching"}
//! {"event":{"replied":97},"next":{"write":{"bytes":97,"first_line":"HTTP/1.1 200 OK"}},"state":"writing"}
//! {"event":{"wrote":97},"next":{"admit":{"content_length":2,"expect_continue":false,"keep_alive":true,"method":"POST","target":"/mcp"}},"state":"admitting"}
//! {"event":"admitted","next":{"dispatch":{"body_bytes":2,"keep_alive":true}},"state":"dispatching"}
//! {"event":{"replied":97},"next":{"write":{"bytes":97,"first_line":"HTTP/1.1 200 OK"}},"state":"writing"}
//! {"event":{"wrote":97},"next":{"read":14384},"state":"await_head"}
//! {"event":"peer_closed","next":{"close":"at once"},"state":"closed"}
//! ```
//!
//! An error ends the conversation: the refused head gets its reply and the connection closes
//! politely; the well-formed request after it is never parsed (exit status 1):
//!
//! ```sh
//! printf 'GET /x HTTP/1.1\nHost: a\r\n\r\nGET /mcp HTTP/1.1\r\nHost: a\r\n\r\n' | cargo run --release -q -- inspect connection
//! ```
//!
//! ```text
//! {"next":{"read":14384},"state":"await_head"}
//! {"event":{"received":57},"next":{"admit":{"offset":15,"refused":"bare_lf","status":400}},"state":"admitting"}
//! {"event":{"refused":"bare_lf"},"next":{"write":{"bytes":185,"first_line":"HTTP/1.1 400 Bad Request"}},"state":"writing"}
//! {"event":{"wrote":185},"next":{"close":"politely"},"state":"closed_politely"}
//! ```

mod driver;
mod linger;
mod machine;
mod stage;

pub use driver::{Answered, Handler, Happened, Io, Transport, drive};
pub use linger::{Linger, LingerAction};
pub use machine::{Close, Connection, Departure, Next, ReadBudget, Refused, Request, Why};
pub use stage::{
    Admit, AdmitTurn, Departed, DepartedTurn, Dispatch, DispatchTurn, Pause, PauseTurn, Produce,
    ProduceTurn, Read, ReadTurn, Refuse, RefuseTurn, Stage, Turn, Write, WriteTurn,
};
