//! What the endpoint answers: a status, fields, a body, and whether the connection must close.
//!
//! A [`Reply`] is data; [`Reply::serialize`] turns it into the bytes of one response with the
//! response writer (which adds `Content-Length`), adding `Connection: close` when asked.

use std::borrow::Cow;

use super::stage::Decided;
use crate::http::Status;
use crate::http::date::HttpDate;
use crate::http::writer::{FixedFields, OpenFraming, ResponseWriter, WriteError};
use crate::json::{self, Value};
use crate::mcp::revision::Era;
use crate::sse::{self, Event};

/// How a reply is framed on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivery<'d> {
    /// Add `Connection: close`: the connection ends after this response.
    pub close: bool,
    /// The request was HEAD: the response ends after its head.
    pub head: bool,
    /// The `Date`, when the sender has a clock.
    pub date: Option<&'d HttpDate>,
}

/// One response, before serialization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub status: Status,
    /// The fields every reply of its kind carries (`Content-Type`, `Cache-Control`), fixed and
    /// checked when the program is built, so most replies build no list and check no field.
    pub fixed: FixedFields,
    /// The fields added for this reply (`MCP-Session-Id`, `WWW-Authenticate`, ...), after the
    /// fixed ones. Fixed values are borrowed, so most copy no text.
    pub added: AddedFields,
    pub body: Vec<u8>,
    /// The connection must close after this response (every error response does).
    pub close: bool,
    /// For a refusal: where it was decided, and its public code (what `serve --watch` shows).
    pub decided: Option<Decided>,
    /// The era whose rules the request met, once it was decided (what `serve --watch` shows).
    pub era: Option<Era>,
}

/// Buffers lent for a reply's texts, empty, whose room is kept: its body and one field's value
/// (see `state::KeptByConnection`).
#[derive(Debug, Default)]
pub(crate) struct Lent {
    pub(crate) body: String,
    pub(crate) field: String,
}

/// One added field: its name and its value.
type AddedField = (&'static str, Cow<'static, str>);

/// How many added fields a reply keeps inline. No reply adds more than one today (a session id,
/// a challenge, `Allow` or `Retry-After`), so a reply's fields take no allocation of their own.
const ADDED_INLINE: usize = 2;

/// The fields added to one reply, in order: the first two inline, any further ones
/// in a list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AddedFields {
    inline: [Option<AddedField>; ADDED_INLINE],
    more: Vec<AddedField>,
}

impl AddedFields {
    /// Adds a field after the others.
    pub fn push(&mut self, field: AddedField) {
        match self.inline.iter_mut().find(|slot| slot.is_none()) {
            Some(slot) => *slot = Some(field),
            None => self.more.push(field),
        }
    }

    /// Takes the value of the first field whose text is owned, leaving it empty: its buffer,
    /// for reuse once the reply is written.
    pub fn take_owned(&mut self) -> Option<String> {
        // Fields fill the inline slots first: an empty first slot means no field at all.
        self.inline[0].as_ref()?;
        let mut values = self.inline.iter_mut().flatten().chain(&mut self.more);
        values.find_map(|(_, value)| match value {
            Cow::Owned(text) => Some(std::mem::take(text)),
            Cow::Borrowed(_) => None,
        })
    }

    /// The fields, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> {
        let inline = self.inline.iter().flatten();
        inline.chain(&self.more).map(|(name, value)| (*name, value.as_ref()))
    }
}

/// The `Content-Type` of JSON bodies.
pub const JSON: &str = "application/json";
/// The `Content-Type` of event streams.
pub const EVENT_STREAM: &str = "text/event-stream";

/// The field that ends a connection after its response.
const CONNECTION_CLOSE: FixedFields =
    FixedFields::new(&[("Connection", "close")], b"Connection: close\r\n");
/// The fixed fields of a JSON reply.
const JSON_FIELDS: FixedFields = FixedFields::new(
    &[("Content-Type", JSON), ("Cache-Control", "no-store")],
    b"Content-Type: application/json\r\nCache-Control: no-store\r\n",
);
/// The fixed fields of an event stream.
const EVENT_STREAM_FIELDS: FixedFields = FixedFields::new(
    &[("Content-Type", EVENT_STREAM), ("Cache-Control", "no-store")],
    b"Content-Type: text/event-stream\r\nCache-Control: no-store\r\n",
);

impl Reply {
    /// A JSON body with this status.
    pub fn json(status: Status, value: &Value) -> Reply {
        Reply {
            status,
            fixed: JSON_FIELDS,
            added: AddedFields::default(),
            body: json::encode(value).into_bytes(),
            close: false,
            decided: None,
            era: None,
        }
    }

    /// A 200 with a JSON body already encoded.
    pub fn json_text(text: String) -> Reply {
        Reply {
            status: Status::Ok,
            fixed: JSON_FIELDS,
            added: AddedFields::default(),
            body: text.into_bytes(),
            close: false,
            decided: None,
            era: None,
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
        Ok(Reply::event_stream_body(body))
    }

    /// A 200 event stream whose events are already encoded in `body`.
    pub fn event_stream_body(body: Vec<u8>) -> Reply {
        Reply {
            status: Status::Ok,
            fixed: EVENT_STREAM_FIELDS,
            added: AddedFields::default(),
            body,
            close: false,
            decided: None,
            era: None,
        }
    }

    /// A status with no body at all (202, 204).
    pub fn empty(status: Status) -> Reply {
        Reply {
            status,
            fixed: FixedFields::NONE,
            added: AddedFields::default(),
            body: Vec::new(),
            close: false,
            decided: None,
            era: None,
        }
    }

    /// The response's bytes in `out` (cleared first), framed as `delivery` says, at most
    /// `response_bytes_max` of them. On error `out` is left empty.
    ///
    /// A response to HEAD carries no content: a success announces the length GET would get, an
    /// error announces none.
    pub fn serialize(
        &self,
        out: &mut Vec<u8>,
        delivery: Delivery<'_>,
        response_bytes_max: usize,
    ) -> Result<usize, WriteError> {
        let writer = self.head(out, delivery);
        if delivery.head {
            let success = (200..300).contains(&self.status.code());
            let announced = success.then_some(self.body.len());
            return writer.finish_without_content(announced, response_bytes_max);
        }
        writer.finish(&self.body, response_bytes_max)
    }

    /// A writer holding the reply's status line and fields, framed as `delivery` says, in `out`
    /// (cleared first).
    fn head<'o>(&self, out: &'o mut Vec<u8>, delivery: Delivery<'_>) -> ResponseWriter<'o> {
        out.clear();
        let mut writer = ResponseWriter::new(out, self.status);
        if let Some(date) = delivery.date {
            writer.date(date);
        }
        writer.fixed(&self.fixed);
        for (name, value) in self.added.iter() {
            writer.field(name, value.as_bytes());
        }
        if delivery.close {
            writer.fixed(&CONNECTION_CLOSE);
        }
        writer
    }

    /// The head of a stream that stays open, in `out` (cleared first): the reply's status and
    /// fields, framed as `delivery` says (with `Connection: close` whatever it says when the
    /// close delimits the body), the framing's own field, and the reply's body as the first
    /// piece. On error `out` is left empty.
    pub fn serialize_open(
        &self,
        out: &mut Vec<u8>,
        (delivery, framing): (Delivery<'_>, OpenFraming),
        response_bytes_max: usize,
    ) -> Result<usize, WriteError> {
        let delivery = Delivery { close: delivery.close || framing.closes(), ..delivery };
        self.head(out, delivery).finish_open(framing, &self.body, response_bytes_max)
    }

    /// The same reply with another status.
    pub fn with_status(mut self, status: Status) -> Reply {
        self.status = status;
        self
    }

    /// Adds a field.
    pub fn with(mut self, name: &'static str, value: impl Into<Cow<'static, str>>) -> Reply {
        self.added.push((name, value.into()));
        self
    }

    /// Every field, fixed ones first, in the order they are written.
    pub fn fields(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.fixed.list().iter().copied().chain(self.added.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_fields_keep_their_order_inline_and_beyond() {
        let names = ["A", "B", "C", "D"];
        for count in 0..=names.len() {
            let mut reply = Reply::empty(Status::NoContent);
            for (i, name) in names.iter().take(count).enumerate() {
                reply = reply.with(name, i.to_string());
            }
            let got: Vec<(&str, String)> =
                reply.added.iter().map(|(n, v)| (n, v.to_owned())).collect();
            let want: Vec<(&str, String)> =
                names.iter().take(count).enumerate().map(|(i, n)| (*n, i.to_string())).collect();
            assert_eq!(got, want);
            assert_eq!(reply.added.more.len(), count.saturating_sub(ADDED_INLINE));
        }
    }
}
