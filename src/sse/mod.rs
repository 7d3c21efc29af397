//! Server-Sent Events (the WHATWG `text/event-stream` format): an encoder for the server and a
//! strict, bounded stream parser for the client.
//!
//! One [`Event`] is one block of field lines ended by an empty line. The encoder refuses any
//! value that would change meaning on the wire (a line break inside an id, a CR inside data), so
//! every event it writes parses back to exactly the same [`Event`]. The parser follows the WHATWG
//! line rules (CRLF, LF or CR end a line; a leading U+FEFF is dropped; one space after the colon
//! is dropped; `:` starts a comment) and is stricter than a browser where a browser would guess:
//! invalid UTF-8, unknown field names, a repeated `id`, `event` or `retry` in one event, a NUL in
//! an id, a non-numeric retry, and a stream cut off inside an event are errors, not silently
//! ignored. Event size and count are budgets.
//!
//! Neither side knows about JSON-RPC, MCP, sockets or reconnection.
//!
//! # What the codec accepts
//!
//! README's map of where the rules live points here for this part; what follows moved from README, next to the code it describes.
//!
//! `sse::encode_event` writes `id`, `event`, `retry` and one `data:` line per line of data, and
//! refuses values a reader would split differently (a line break in an id or event type, a CR in
//! data) and events larger than the event budget, counted exactly as the parser counts them, so the
//! server can never write an event its own client refuses. `sse::SseParser` follows the [WHATWG][sse] line rules (CRLF, LF or CR; one leading BOM; one space
//! after the colon; comments) but refuses what a browser would quietly skip: invalid UTF-8, unknown
//! fields, a repeated `id`/`event`/`retry` in one event, NUL in an id, a non-numeric retry, and a
//! stream cut off inside an event.
//!
//! [sse]: https://html.spec.whatwg.org/multipage/server-sent-events.html
//!

mod encode;
mod event;
mod parse;

pub use encode::{SseEncodeError, encode, encode_event};
pub use event::{Event, EventRef};
pub use parse::{SseError, SseErrorKind, SseParser, parse_stream};
