//! The strict stream parser: bytes of a `text/event-stream` body in, [`Event`]s out.
//!
//! Incremental: [`SseParser::push`] accepts the body in chunks split anywhere (inside a UTF-8
//! sequence, between the CR and LF of one line ending) and [`SseParser::finish`] says whether the
//! stream ended cleanly. Lines are collected whole before they are decoded, and the line buffer
//! never holds more than one event's budget.
//!
//! Budgets: the bytes of one event's lines (comments included, line endings not counted) and the
//! number of events in one stream.

use std::fmt;

use super::event::Event;
use crate::decimal;
use crate::limits::Limits;

/// Why a stream was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SseErrorKind {
    /// A line that is not valid UTF-8.
    InvalidUtf8,
    /// A field other than `data`, `id`, `event`, `retry`.
    UnknownField,
    /// `id`, `event` or `retry` twice in one event.
    DuplicateField,
    /// An id containing NUL.
    IdContainsNul,
    /// A retry that is not one or more ASCII digits fitting a `u64`.
    RetryInvalid,
    /// An event whose lines exceed the budget.
    EventTooLarge { limit: usize },
    /// More events than the budget.
    TooManyEvents { limit: usize },
    /// The stream ended inside a line or an event (no empty line after its last field).
    TruncatedEvent,
}

impl SseErrorKind {
    /// The stable public code.
    pub const fn code(self) -> &'static str {
        match self {
            SseErrorKind::InvalidUtf8 => "sse_invalid_utf8",
            SseErrorKind::UnknownField => "sse_unknown_field",
            SseErrorKind::DuplicateField => "sse_duplicate_field",
            SseErrorKind::IdContainsNul => "sse_id_contains_nul",
            SseErrorKind::RetryInvalid => "sse_retry_invalid",
            SseErrorKind::EventTooLarge { .. } => "sse_event_too_large",
            SseErrorKind::TooManyEvents { .. } => "sse_too_many_events",
            SseErrorKind::TruncatedEvent => "sse_truncated_event",
        }
    }
}

/// A refused stream: what was wrong, and the stream offset of the line (or byte) concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SseError {
    pub kind: SseErrorKind,
    pub offset: usize,
}

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind.code(), self.offset)
    }
}

impl std::error::Error for SseError {}

/// Parses a whole stream body.
pub fn parse_stream(body: &[u8], limits: &Limits) -> Result<Vec<Event>, SseError> {
    let mut parser = SseParser::new(limits);
    let mut events = Vec::new();
    parser.push(body, &mut events)?;
    parser.finish()?;
    Ok(events)
}

/// An incremental parser for one stream.
#[derive(Clone, Debug)]
pub struct SseParser {
    event_bytes_max: usize,
    events_max: usize,
    /// The current line, without its terminator.
    line: Vec<u8>,
    line_start: usize,
    /// Offset of the next byte.
    offset: usize,
    /// The previous byte was a CR, so an LF now belongs to the same line ending.
    after_cr: bool,
    /// No line has ended yet (a leading U+FEFF is dropped from the first line only).
    first_line: bool,
    block: Event,
    block_bytes: usize,
    events: usize,
    failed: Option<SseError>,
}

impl SseParser {
    /// A parser enforcing the SSE budgets of `limits`.
    pub fn new(limits: &Limits) -> Self {
        SseParser {
            event_bytes_max: limits.sse_event_bytes_max,
            events_max: limits.sse_stream_events_max,
            line: Vec::new(),
            line_start: 0,
            offset: 0,
            after_cr: false,
            first_line: true,
            block: Event::default(),
            block_bytes: 0,
            events: 0,
            failed: None,
        }
    }

    /// Parses the next chunk, appending every event it completes to `out`. After an error, every
    /// later call returns the same error.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<Event>) -> Result<(), SseError> {
        if let Some(error) = self.failed {
            return Err(error);
        }
        let result = self.push_bytes(chunk, out);
        if let Err(error) = result {
            self.failed = Some(error);
        }
        result
    }

    fn push_bytes(&mut self, chunk: &[u8], out: &mut Vec<Event>) -> Result<(), SseError> {
        for &byte in chunk {
            let at = self.offset;
            self.offset += 1;
            if std::mem::take(&mut self.after_cr) && byte == b'\n' {
                self.line_start = self.offset;
                continue;
            }
            match byte {
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(out)?;
                }
                b'\n' => self.end_line(out)?,
                _ => {
                    self.block_bytes += 1;
                    if self.block_bytes > self.event_bytes_max {
                        let kind = SseErrorKind::EventTooLarge { limit: self.event_bytes_max };
                        return Err(SseError { kind, offset: at });
                    }
                    self.line.push(byte);
                }
            }
        }
        Ok(())
    }

    /// Says whether the stream ended between events. Call it once the body is complete.
    pub fn finish(&mut self) -> Result<(), SseError> {
        if let Some(error) = self.failed {
            return Err(error);
        }
        if !self.line.is_empty() || self.block != Event::default() {
            let error = SseError { kind: SseErrorKind::TruncatedEvent, offset: self.offset };
            self.failed = Some(error);
            return Err(error);
        }
        Ok(())
    }

    fn end_line(&mut self, out: &mut Vec<Event>) -> Result<(), SseError> {
        let line = std::mem::take(&mut self.line);
        let result = self.process_line(&line, out);
        self.line = line;
        self.line.clear();
        self.line_start = self.offset;
        self.first_line = false;
        result
    }

    fn process_line(&mut self, bytes: &[u8], out: &mut Vec<Event>) -> Result<(), SseError> {
        let at = self.line_start;
        let fail = |kind| Err(SseError { kind, offset: at });
        let Ok(mut line) = std::str::from_utf8(bytes) else {
            return fail(SseErrorKind::InvalidUtf8);
        };
        if self.first_line {
            line = line.strip_prefix('\u{feff}').unwrap_or(line);
        }
        if line.is_empty() {
            return self.dispatch(out);
        }
        if line.starts_with(':') {
            return Ok(()); // a comment
        }
        let (name, value) = match line.split_once(':') {
            Some((name, value)) => (name, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        let block = &mut self.block;
        match name {
            "data" => match &mut block.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => block.data = Some(value.to_owned()),
            },
            "id" if block.id.is_some() => return fail(SseErrorKind::DuplicateField),
            "id" if value.contains('\0') => return fail(SseErrorKind::IdContainsNul),
            "id" => block.id = Some(value.to_owned()),
            "event" if block.event.is_some() => return fail(SseErrorKind::DuplicateField),
            "event" => block.event = Some(value.to_owned()),
            "retry" if block.retry.is_some() => return fail(SseErrorKind::DuplicateField),
            "retry" => match decimal::parse_u64(value.as_bytes()) {
                Some(ms) => block.retry = Some(ms),
                None => return fail(SseErrorKind::RetryInvalid),
            },
            _ => return fail(SseErrorKind::UnknownField),
        }
        Ok(())
    }

    /// An empty line: the block so far is an event, unless it had no field at all.
    fn dispatch(&mut self, out: &mut Vec<Event>) -> Result<(), SseError> {
        self.block_bytes = 0;
        if self.block == Event::default() {
            return Ok(());
        }
        self.events += 1;
        if self.events > self.events_max {
            let kind = SseErrorKind::TooManyEvents { limit: self.events_max };
            return Err(SseError { kind, offset: self.line_start });
        }
        out.push(std::mem::take(&mut self.block));
        Ok(())
    }
}
