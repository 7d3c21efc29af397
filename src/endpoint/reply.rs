//! What the endpoint answers: a status, fields, a body, and whether the connection must close.
//!
//! A [`Reply`] is data; the server shell serializes it with the response writer (which adds
//! `Content-Length`) and adds `Connection: close` when `close` is set.

use crate::http::Status;
use crate::json::{self, Value};
use crate::sse::{self, Event};

/// One response, before serialization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub status: Status,
    pub fields: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
    /// The connection must close after this response (every error response does).
    pub close: bool,
}

/// The `Content-Type` of JSON bodies.
pub const JSON: &str = "application/json";
/// The `Content-Type` of event streams.
pub const EVENT_STREAM: &str = "text/event-stream";

impl Reply {
    /// A JSON body with this status. Responses at 400 and above close the connection.
    pub fn json(status: Status, value: &Value) -> Reply {
        Reply {
            status,
            fields: vec![
                ("Content-Type", JSON.to_owned()),
                ("Cache-Control", "no-store".to_owned()),
            ],
            body: json::encode(value).into_bytes(),
            close: status.code() >= 400,
        }
    }

    /// An event stream made of `events`, which ends when the body does. Fails only when an event
    /// cannot be encoded within `event_bytes_max`.
    pub fn event_stream(
        events: &[Event],
        event_bytes_max: usize,
    ) -> Result<Reply, sse::SseEncodeError> {
        let mut body = Vec::new();
        for event in events {
            sse::encode_event(event, event_bytes_max, &mut body)?;
        }
        Ok(Reply {
            status: Status::Ok,
            fields: vec![
                ("Content-Type", EVENT_STREAM.to_owned()),
                ("Cache-Control", "no-store".to_owned()),
            ],
            body,
            close: false,
        })
    }

    /// A status with no body at all (202, 204).
    pub fn empty(status: Status) -> Reply {
        Reply { status, fields: Vec::new(), body: Vec::new(), close: false }
    }

    /// Adds a field.
    pub fn with(mut self, name: &'static str, value: String) -> Reply {
        self.fields.push((name, value));
        self
    }
}
