//! JSON-RPC 2.0 messages as MCP 2025-11-25 uses them: one message per POST body, no batches.
//!
//! [`Message::from_value`] sorts a decoded JSON value into a request, a notification or a
//! response, and refuses everything else: arrays (batches were removed in 2025-06-18), a missing
//! or wrong `jsonrpc`, a `null`, fractional, boolean or out-of-range id, params that are not an
//! object, members that do not belong to the message's kind. The functions at the end build
//! messages: as values for the client (requests, notifications, results), which [`json::encode`]
//! turns into bytes, and as text written straight into a buffer for the server's replies
//! (results, errors, notifications), with no value tree. Nothing here knows which methods exist.

use crate::json::{self, Number, Object, ObjectWriter, Text, Value};

/// A request id: a string or an integer. `null` is not an id.
///
/// An integer keeps its exact text, so the reply echoes the id exactly as it was sent (`-0`
/// stays `-0`); only integers that fit an `i64` are ids, never a fraction or an exponent.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Id {
    Number(Number),
    String(String),
}

impl Id {
    fn from_value(value: Value) -> Option<Id> {
        match value {
            Value::String(s) => Some(Id::String(s.into_owned())),
            Value::Number(n) => n.as_i64().map(|_| Id::Number(n)),
            _ => None,
        }
    }

    /// The id a JSON value is, if it is one (a string, or an integer that fits an `i64`).
    pub fn of(value: &Value) -> Option<Id> {
        Id::from_value(value.clone())
    }

    /// Whether two ids name the same request: equal strings, or integers of one value however
    /// they are spelled (`7`, `7.0`, `7e0`).
    pub fn same_as(&self, other: &Id) -> bool {
        match (self, other) {
            (Id::String(a), Id::String(b)) => a == b,
            (Id::Number(a), Id::Number(b)) => a.as_i64().is_some() && a.as_i64() == b.as_i64(),
            (Id::String(_), Id::Number(_)) | (Id::Number(_), Id::String(_)) => false,
        }
    }

    /// The id as a JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            Id::Number(n) => Value::Number(n.clone()),
            Id::String(s) => Value::from(s.as_str()),
        }
    }
}

impl From<i64> for Id {
    fn from(n: i64) -> Self {
        Id::Number(Number::from(n))
    }
}

/// One JSON-RPC message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    Request {
        id: Id,
        method: Text,
        params: Object,
    },
    Notification {
        method: Text,
        params: Object,
    },
    /// A result or error from the client, answering a request of the server's.
    Response {
        id: Id,
    },
}

/// Why a value is not one JSON-RPC message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MessageError {
    /// A JSON array: a batch, which this revision does not allow.
    Batch,
    /// Not an object at all.
    NotAnObject,
    /// `jsonrpc` missing or not `"2.0"`.
    Version,
    /// An id that is `null`, fractional, out of range, or not a string or integer.
    Id,
    /// `method` is not a non-empty string.
    Method,
    /// `params` is present but not an object.
    Params,
    /// Members that do not make a request, notification or response.
    Shape,
}

impl MessageError {
    /// The stable public code.
    pub const fn code(self) -> &'static str {
        match self {
            MessageError::Batch => "batch_not_supported",
            MessageError::NotAnObject => "message_not_object",
            MessageError::Version => "jsonrpc_version",
            MessageError::Id => "id_invalid",
            MessageError::Method => "method_invalid",
            MessageError::Params => "params_invalid",
            MessageError::Shape => "message_shape",
        }
    }
}

impl Message {
    /// Sorts a decoded body into a message.
    pub fn from_value(value: Value) -> Result<Message, MessageError> {
        let members = match value {
            Value::Object(members) => Members::sort(members),
            Value::Array(_) => return Err(MessageError::Batch),
            _ => return Err(MessageError::NotAnObject),
        };
        if members.jsonrpc.as_ref().and_then(Value::as_str) != Some("2.0") {
            return Err(MessageError::Version);
        }
        let id = match members.id {
            None => None,
            Some(value) => Some(Id::from_value(value).ok_or(MessageError::Id)?),
        };
        let Some(method) = members.method else {
            // A response: besides `jsonrpc` and `id`, exactly one of `result` and `error`.
            let one_outcome = members.outcomes == 1 && members.params.is_none() && !members.other;
            return match id {
                Some(id) if one_outcome => Ok(Message::Response { id }),
                _ => Err(MessageError::Shape),
            };
        };
        let method = match method {
            Value::String(m) if !m.is_empty() => m,
            _ => return Err(MessageError::Method),
        };
        let params = match members.params {
            None => Object::new(),
            Some(Value::Object(params)) => params,
            Some(_) => return Err(MessageError::Params),
        };
        if members.outcomes > 0 || members.other {
            return Err(MessageError::Shape);
        }
        Ok(match id {
            Some(id) => Message::Request { id, method, params },
            None => Message::Notification { method, params },
        })
    }
}

/// The members of a message object, sorted by name in one pass that consumes the object.
#[derive(Default)]
struct Members {
    jsonrpc: Option<Value>,
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Value>,
    /// How many of `result` and `error` there are.
    outcomes: usize,
    /// Any other member.
    other: bool,
}

impl Members {
    fn sort(object: Object) -> Members {
        let mut members = Members::default();
        for (key, value) in object {
            match &*key {
                "jsonrpc" => members.jsonrpc = Some(value),
                "id" => members.id = Some(value),
                "method" => members.method = Some(value),
                "params" => members.params = Some(value),
                "result" | "error" => members.outcomes += 1,
                _ => members.other = true,
            }
        }
        members
    }
}

/// JSON-RPC error codes (JSON-RPC 2.0 §5.1).
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Implementation-defined server errors: transport, authorization, session problems.
    pub const SERVER_ERROR: i64 = -32000;
    /// MCP 2026-07-28: a mirrored header disagrees with the body, or is missing or malformed.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// MCP 2026-07-28: the request needs a client capability its `_meta` does not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// MCP 2026-07-28: the request's protocol version is not one the server speaks.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// A result response: `{"id": id, "jsonrpc": "2.0", "result": result}`.
pub fn result(id: &Id, result: Value) -> Value {
    json::object([("id", id.to_value()), ("jsonrpc", "2.0".into()), ("result", result)])
}

/// The text of a result response whose result object `write` fills: the bytes [`result`] would
/// encode to, written without a tree. The envelope is literal text (its keys need no escaping, and
/// an object's members come out in key order: `id`, `jsonrpc`, `result`); the id and the result
/// go through the writer. A test compares it with the encoder's text.
pub fn result_text(id: &Id, capacity: usize, write: impl FnOnce(&mut ObjectWriter<'_>)) -> String {
    result_text_in(String::new(), id, capacity, write)
}

/// [`result_text`] written into `out`, cleared first: a buffer lent again and again keeps its
/// room, so a result that fits it allocates nothing.
pub fn result_text_in(
    mut out: String,
    id: &Id,
    capacity: usize,
    write: impl FnOnce(&mut ObjectWriter<'_>),
) -> String {
    out.clear();
    out.reserve(capacity);
    out.push_str("{\"id\":");
    write_id(id, &mut out);
    out.push_str(",\"jsonrpc\":\"2.0\",\"result\":");
    ObjectWriter::write(&mut out, write);
    out.push('}');
    out
}

/// The text of an error response. `id` is `None` when the request's id could not be read: the
/// member is then left out entirely (the 2025-11-25 schema makes it optional; `null` would not
/// validate). `message` is a stable public code, never text derived from the input. Members in
/// key order: `error` (`code`, `message`), `id`, `jsonrpc`.
pub fn error_text(id: Option<&Id>, code: i64, message: &str) -> String {
    error_text_in(String::new(), id, code, message)
}

/// [`error_text`] written into `out`, cleared first (see [`result_text_in`]).
pub fn error_text_in(mut out: String, id: Option<&Id>, code: i64, message: &str) -> String {
    out.clear();
    out.reserve(96 + message.len());
    out.push_str("{\"error\":");
    ObjectWriter::write(&mut out, |error| {
        error.integer("code", code).string("message", message);
    });
    if let Some(id) = id {
        out.push_str(",\"id\":");
        write_id(id, &mut out);
    }
    out.push_str(",\"jsonrpc\":\"2.0\"}");
    out
}

/// [`error_text_in`] with a `data` object that `write` fills (members in key order: `code`,
/// `data`, `message`).
pub fn error_text_with_in(
    mut out: String,
    id: Option<&Id>,
    code: i64,
    message: &str,
    write: impl FnOnce(&mut ObjectWriter<'_>),
) -> String {
    out.clear();
    out.reserve(160 + message.len());
    out.push_str("{\"error\":");
    ObjectWriter::write(&mut out, |error| {
        error.integer("code", code).object("data", write).string("message", message);
    });
    if let Some(id) = id {
        out.push_str(",\"id\":");
        write_id(id, &mut out);
    }
    out.push_str(",\"jsonrpc\":\"2.0\"}");
    out
}

/// The text of a notification whose params object `write` fills. Members in key order:
/// `jsonrpc`, `method`, `params`.
pub fn notification_text(
    method: &str,
    capacity: usize,
    write: impl FnOnce(&mut ObjectWriter<'_>),
) -> String {
    let mut out = String::with_capacity(capacity);
    out.push_str("{\"jsonrpc\":\"2.0\",\"method\":");
    json::encode_string_into(method, &mut out);
    out.push_str(",\"params\":");
    ObjectWriter::write(&mut out, write);
    out.push('}');
    out
}

/// An id's JSON text: an integer as its exact text, a string escaped by the encoder.
fn write_id(id: &Id, out: &mut String) {
    match id {
        Id::Number(n) => n.write_to(out),
        Id::String(s) => json::encode_string_into(s, out),
    }
}

/// A request. Empty `params` are left out, as JSON-RPC allows.
pub fn request(id: &Id, method: &str, params: Object) -> Value {
    let mut message = notification(method, params);
    if let Value::Object(members) = &mut message {
        members.insert("id".into(), id.to_value());
    }
    message
}

/// A notification. Empty `params` are left out, as JSON-RPC allows.
pub fn notification(method: &str, params: Object) -> Value {
    let mut message = json::members([("jsonrpc", "2.0".into()), ("method", method.into())]);
    if !params.is_empty() {
        message.insert("params".into(), Value::Object(params));
    }
    Value::Object(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Message, MessageError> {
        Message::from_value(json::decode(text.as_bytes(), 64).unwrap())
    }

    #[test]
    fn messages() {
        let request = |id, method: &'static str| {
            Ok(Message::Request { id, method: method.into(), params: Object::new() })
        };
        let cases: Vec<(&str, Result<Message, MessageError>)> = vec![
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, request(Id::from(1), "ping")),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"ping","params":{}}"#,
                request(Id::String("a".into()), "ping"),
            ),
            (
                r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"x"}"#,
                request(Id::from(i64::MIN), "x"),
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                Ok(Message::Notification {
                    method: "notifications/initialized".into(),
                    params: Object::new(),
                }),
            ),
            (r#"{"jsonrpc":"2.0","id":5,"result":{}}"#, Ok(Message::Response { id: Id::from(5) })),
            (
                r#"{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m"}}"#,
                Ok(Message::Response { id: Id::from(5) }),
            ),
            (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, Err(MessageError::Batch)),
            (r#""ping""#, Err(MessageError::NotAnObject)),
            (r#"{"id":1,"method":"ping"}"#, Err(MessageError::Version)),
            (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, Err(MessageError::Version)),
            (
                r#"{"jsonrpc":"2.0","id":-0,"method":"ping"}"#,
                request(Id::Number(Number::parse("-0").unwrap()), "ping"),
            ),
            (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, Err(MessageError::Id)),
            (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, Err(MessageError::Id)),
            (r#"{"jsonrpc":"2.0","id":1e0,"method":"ping"}"#, Err(MessageError::Id)),
            (
                r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}"#,
                Err(MessageError::Id),
            ),
            (r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#, Err(MessageError::Id)),
            (r#"{"jsonrpc":"2.0","id":1,"method":""}"#, Err(MessageError::Method)),
            (r#"{"jsonrpc":"2.0","id":1,"method":7}"#, Err(MessageError::Method)),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}"#, Err(MessageError::Params)),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}"#, Err(MessageError::Shape)),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}"#, Err(MessageError::Shape)),
            (r#"{"jsonrpc":"2.0","id":5,"result":{},"error":{}}"#, Err(MessageError::Shape)),
            (r#"{"jsonrpc":"2.0","result":{}}"#, Err(MessageError::Shape)),
            (r#"{"jsonrpc":"2.0","id":5}"#, Err(MessageError::Shape)),
            (r#"{"jsonrpc":"2.0","id":5,"result":{},"params":{}}"#, Err(MessageError::Shape)),
            (r#"{"jsonrpc":"2.0","id":5,"error":{},"x":1}"#, Err(MessageError::Shape)),
            (r#"{"jsonrpc":"2.0","method":"m","error":{}}"#, Err(MessageError::Shape)),
        ];
        for (text, expected) in cases {
            assert_eq!(parse(text), expected, "{text}");
        }
    }

    #[test]
    fn result_text_is_the_encoding_of_result() {
        let result_value = json::decode(br#"{"b":{"c":-1},"d":[{"e":true},{}]}"#, 8).unwrap();
        let minus_zero = Id::Number(Number::parse("-0").unwrap());
        for id in [Id::from(-7), minus_zero, Id::String("q\"uote".into())] {
            let empty = result_text(&id, 0, |_| {});
            assert_eq!(empty, json::encode(&result(&id, Value::Object(Object::new()))));
            let nested = result_text(&id, 0, |r| {
                r.object("b", |b| {
                    b.integer("c", -1);
                })
                .objects("d", [true, false], |d, first| {
                    if first {
                        d.boolean("e", true);
                    }
                });
            });
            assert_eq!(nested, json::encode(&result(&id, result_value.clone())));
        }
    }

    #[test]
    fn replies_are_exact() {
        let cases: [(String, &str); 6] = [
            (
                json::encode(&result(&Id::from(1), Value::Object(Object::new()))),
                r#"{"id":1,"jsonrpc":"2.0","result":{}}"#,
            ),
            (
                error_text(
                    Some(&Id::String("x".into())),
                    code::METHOD_NOT_FOUND,
                    "method_not_found",
                ),
                r#"{"error":{"code":-32601,"message":"method_not_found"},"id":"x","jsonrpc":"2.0"}"#,
            ),
            (
                error_text(None, code::PARSE_ERROR, "json_duplicate_key"),
                r#"{"error":{"code":-32700,"message":"json_duplicate_key"},"jsonrpc":"2.0"}"#,
            ),
            (
                json::encode(&notification("notifications/message", Object::new())),
                r#"{"jsonrpc":"2.0","method":"notifications/message"}"#,
            ),
            (
                notification_text("n", 0, |p| {
                    p.integer("a", 1);
                }),
                r#"{"jsonrpc":"2.0","method":"n","params":{"a":1}}"#,
            ),
            (
                json::encode(&request(&Id::from(3), "m", json::members([("b", true.into())]))),
                r#"{"id":3,"jsonrpc":"2.0","method":"m","params":{"b":true}}"#,
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(text, expected);
            assert_eq!(json::encode(&json::decode(text.as_bytes(), 8).unwrap()), text);
        }
    }
}
