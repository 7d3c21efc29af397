//! Event-stream bodies: the SSE writer a session's event log writes its streams through.
//!
//! [`SseBody`] encodes the priming event and the messages the log hands it, and refuses a
//! message once the body would no longer fit one response beside its head: the log then keeps
//! that message owed, for the client's next resumption. [`PrimeOnly`] is the same writer closed
//! after its priming event, which is how the server ends a POST stream before its response.
//!
//! What goes on a stream, and under which ids, is the log's business (`mcp::stream`); this file
//! only turns events into bytes.

use crate::limits::{Limits, RESPONSE_HEAD_BYTES_RESERVE};
use crate::mcp::stream::StreamWriter;
use crate::sse::{self, EventRef};

/// Room reserved for a body up front: a priming event and a result or two, in one allocation.
/// A body whose room stays within `reply_text_bytes_kept_max` goes back to its worker once
/// written; a larger one is dropped.
const BODY_BYTES_RESERVED: usize = 1024;

/// The body of one event-stream response, being written.
#[derive(Debug)]
pub struct SseBody {
    body: Vec<u8>,
    /// The most bytes the body may take: the response budget less a head's room.
    room: usize,
    event_bytes_max: usize,
    retry_ms: u64,
    /// An event would not encode (larger than one event may be): a bug of the server's own
    /// messages, which turns the reply into a 500.
    failed: bool,
}

impl SseBody {
    /// An empty body under the budgets of `limits`.
    pub fn new(limits: &Limits) -> SseBody {
        SseBody::in_buffer(Vec::new(), limits)
    }

    /// [`SseBody::new`], written into `body` (cleared first), whose room is kept.
    pub fn in_buffer(mut body: Vec<u8>, limits: &Limits) -> SseBody {
        body.clear();
        body.reserve(BODY_BYTES_RESERVED);
        SseBody {
            body,
            room: limits.response_bytes_max.saturating_sub(RESPONSE_HEAD_BYTES_RESERVE),
            event_bytes_max: limits.sse_event_bytes_max,
            retry_ms: u64::try_from(limits.stream_retry.as_millis()).unwrap_or(u64::MAX),
            failed: false,
        }
    }

    /// The bytes written, unless an event failed to encode.
    pub fn finish(self) -> Option<Vec<u8>> {
        (!self.failed).then_some(self.body)
    }
}

impl StreamWriter for SseBody {
    fn prime(&mut self, id: &str) {
        // `Limits::validate` leaves room for a priming event beside the largest event.
        let encoded =
            sse::encode(EventRef::priming(id, self.retry_ms), self.event_bytes_max, &mut self.body);
        self.failed |= encoded.is_err();
    }

    fn message(&mut self, id: &str, data: &str) -> bool {
        let before = self.body.len();
        if sse::encode(EventRef::message(id, data), self.event_bytes_max, &mut self.body).is_err() {
            self.failed = true;
            return false;
        }
        if self.body.len() > self.room {
            self.body.truncate(before);
            return false;
        }
        true
    }
}

/// A stream the server closes right after its priming event: every message stays owed.
pub struct PrimeOnly<'b>(pub &'b mut SseBody);

impl StreamWriter for PrimeOnly<'_> {
    fn prime(&mut self, id: &str) {
        self.0.prime(id);
    }

    fn message(&mut self, _id: &str, _data: &str) -> bool {
        false
    }
}
