//! Server-Sent Events (the [WHATWG `text/event-stream` format][sse]): an encoder for the server and
//! a strict, bounded stream parser for the client.
//!
//! One [`Event`] is one block of field lines ended by an empty line. [`encode_event`] writes `id`,
//! `event`, `retry` and one `data:` line per line of data. It refuses an event that would change
//! meaning on the wire (a line break or NUL in an id, a line break in an event type, a CR in data),
//! an event with no field, and an event larger than the event budget, counted exactly as the
//! parser counts it. So every event it writes parses back to exactly the same [`Event`], and the
//! server never writes an event its own client would refuse.
//!
//! [`SseParser`] follows the WHATWG line rules (CRLF, LF or CR end a line; a leading U+FEFF is
//! dropped; one space after the colon is dropped; `:` starts a comment) but refuses what a browser
//! would guess at or quietly skip: invalid UTF-8, unknown field names, a repeated `id`, `event` or
//! `retry` in one event, a NUL in an id, a non-numeric retry, and a stream cut off inside an event
//! are errors. The size of one event and the number of events in a stream are budgets.
//!
//! Neither side knows about JSON-RPC, MCP, sockets or reconnection.
//!
//! [sse]: https://html.spec.whatwg.org/multipage/server-sent-events.html

mod encode;
mod event;
mod parse;

pub use encode::{SseEncodeError, encode, encode_event};
pub use event::{Event, EventRef};
pub use parse::{SseError, SseErrorKind, SseParser, parse_stream};
