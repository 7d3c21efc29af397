//! One event, owned ([`Event`], what the parser yields) and borrowed ([`EventRef`], what the
//! encoder writes), and the two kinds of event this server writes: a priming event and an event
//! carrying one message.
//!
//! Only data: writing and reading them is the sibling files' business.

/// One event: the fields that were present in its block. An absent field is `None`; multi-line
/// data is joined with `\n`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Event {
    /// The `id` field: the cursor a client sends back as `Last-Event-ID`.
    pub id: Option<String>,
    /// The `event` field: the event type.
    pub event: Option<String>,
    /// The `data` lines joined with `\n`.
    pub data: Option<String>,
    /// The `retry` field: the reconnection delay in milliseconds.
    pub retry: Option<u64>,
}

/// An event's fields, borrowed: what the encoder writes, without owning the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct EventRef<'a> {
    pub id: Option<&'a str>,
    pub event: Option<&'a str>,
    pub data: Option<&'a str>,
    pub retry: Option<u64>,
}

impl Event {
    /// This event's fields, borrowed.
    pub fn borrowed(&self) -> EventRef<'_> {
        EventRef {
            id: self.id.as_deref(),
            event: self.event.as_deref(),
            data: self.data.as_deref(),
            retry: self.retry,
        }
    }
}

impl<'a> EventRef<'a> {
    /// A priming event: an id to resume from, the reconnection delay, and empty data, so that a
    /// WHATWG reader dispatches it (as an event with empty data, which an MCP client ignores) and
    /// keeps its id as the last event id. It encodes as `id: <id>`, `retry: <ms>`, `data:`, each
    /// ending in LF, then an empty line.
    pub fn priming(id: &'a str, retry_ms: u64) -> EventRef<'a> {
        EventRef { id: Some(id), event: None, data: Some(""), retry: Some(retry_ms) }
    }

    /// An event carrying one message under an id.
    pub fn message(id: &'a str, data: &'a str) -> EventRef<'a> {
        EventRef { id: Some(id), event: None, data: Some(data), retry: None }
    }
}
