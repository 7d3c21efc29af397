//! The event encoder: one [`Event`] to its field lines and the empty line that ends it.
//!
//! Fields are written in the order `id`, `event`, `retry`, `data`, each as `name: value` and LF (`name:` alone when the value is empty).
//! Data is split on LF into one `data:` line per line. Values that would be read back differently
//! are refused instead of being rewritten.

use std::fmt;

use super::event::{Event, EventRef};
use crate::decimal;

/// Why an event cannot be written without changing its meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SseEncodeError {
    /// No field at all: the block would be an empty line, which is no event.
    EmptyEvent,
    /// An id containing CR, LF or NUL (a NUL id is ignored by WHATWG clients).
    IdInvalid,
    /// An event type containing CR or LF.
    EventTypeInvalid,
    /// Data containing CR, which a reader would take as a line break.
    DataInvalid,
    /// More line bytes than one event may have.
    TooLarge { limit: usize },
}

impl fmt::Display for SseEncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "event not encoded: {self:?}")
    }
}

impl std::error::Error for SseEncodeError {}

/// Appends `event` to `out`, refusing an event whose line bytes (line endings not counted, the
/// way the parser counts them) would exceed `event_bytes_max`, so the server never writes an
/// event its own client would refuse. On error nothing is appended.
pub fn encode_event(
    event: &Event,
    event_bytes_max: usize,
    out: &mut Vec<u8>,
) -> Result<(), SseEncodeError> {
    encode(event.borrowed(), event_bytes_max, out)
}

/// [`encode_event`] for borrowed fields.
pub fn encode(
    event: EventRef<'_>,
    event_bytes_max: usize,
    out: &mut Vec<u8>,
) -> Result<(), SseEncodeError> {
    check(&event)?;
    let start = out.len();
    let mut lines = 0;
    if let Some(id) = event.id {
        write_field(out, "id", id.as_bytes());
        lines += 1;
    }
    if let Some(kind) = event.event {
        write_field(out, "event", kind.as_bytes());
        lines += 1;
    }
    if let Some(retry) = event.retry {
        out.extend_from_slice(b"retry: ");
        decimal::push(out, retry);
        out.push(b'\n');
        lines += 1;
    }
    if let Some(data) = event.data {
        for line in data.split('\n') {
            write_field(out, "data", line.as_bytes());
            lines += 1;
        }
    }
    out.push(b'\n');
    let line_bytes = out.len() - start - lines - 1;
    if line_bytes > event_bytes_max {
        out.truncate(start);
        return Err(SseEncodeError::TooLarge { limit: event_bytes_max });
    }
    Ok(())
}

fn check(event: &EventRef<'_>) -> Result<(), SseEncodeError> {
    let breaks = |s: &str| s.bytes().any(|b| b == b'\r' || b == b'\n');
    if *event == EventRef::default() {
        return Err(SseEncodeError::EmptyEvent);
    }
    if event.id.is_some_and(|id| breaks(id) || id.contains('\0')) {
        return Err(SseEncodeError::IdInvalid);
    }
    if event.event.is_some_and(breaks) {
        return Err(SseEncodeError::EventTypeInvalid);
    }
    if event.data.is_some_and(|d| d.contains('\r')) {
        return Err(SseEncodeError::DataInvalid);
    }
    Ok(())
}

/// `name: value` LF, or `name:` LF for an empty value. The space is always written before a
/// value, so a value that itself starts with a space keeps it.
fn write_field(out: &mut Vec<u8>, name: &str, value: &[u8]) {
    out.extend_from_slice(name.as_bytes());
    out.push(b':');
    if !value.is_empty() {
        out.push(b' ');
        out.extend_from_slice(value);
    }
    out.push(b'\n');
}
