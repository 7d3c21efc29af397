//! Strict JSON (RFC 8259): a decoder that refuses everything the RFC leaves ambiguous, and an
//! encoder whose output the decoder always reads back to the same value.
//!
//! Strict means: UTF-8 only (invalid sequences and `\u` escapes naming lone surrogates are
//! refused), duplicate object keys refused at every depth, no NaN or Infinity, no leading zeros,
//! no trailing commas, no comments, nothing after the value but whitespace, and a nesting budget.
//! A protocol that carries session and authorization data cannot afford "last key wins": two
//! readers of the same bytes must never see two different messages.
//!
//! Numbers keep their exact text ([`Number`]), so nothing is rounded and `decode(encode(v)) == v`
//! holds for every value nested no deeper than the decoder's depth budget (the encoder itself has
//! no budget: a deeper value built in code encodes, and the decoder then refuses it). Objects are
//! ordered maps, so encoding is deterministic.
//!
//! Neither direction recurses: the decoder and the encoder keep explicit stacks, and the decoder
//! stops at the depth budget, so 100 000 `[` cost one error, not the thread's stack. (The derived
//! `Drop`, `Clone` and `PartialEq` of [`Value`] do recurse, once per nesting level, which the
//! depth budget bounds for every decoded value.)
//!
//! This module knows nothing about JSON-RPC or MCP.

mod decode;
mod encode;

use std::collections::BTreeMap;

use crate::decimal;

pub use decode::{JsonError, JsonErrorKind, decode};
pub use encode::{encode, encode_into};

/// A JSON object: keys in sorted order, each at most once.
pub type Object = BTreeMap<String, Value>;

/// A JSON value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Value>),
    Object(Object),
}

impl Value {
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The members, if this is an object.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    /// The member `key`, if this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object()?.get(key)
    }
}

/// The members of an object built in code: `members([("a", 1u64.into())])`. Each key must
/// appear once (a repeated key would silently replace the earlier member, so it is a bug in the
/// caller, caught in debug builds).
pub fn members<const N: usize>(members: [(&str, Value); N]) -> Object {
    let object: Object = members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    debug_assert_eq!(object.len(), N, "a key repeated in a JSON object built in code");
    object
}

/// An object built in code, as a value: `object([("a", 1u64.into())])`.
pub fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    Value::Object(self::members(members))
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Value::Number(Number::from(n))
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Self {
        Value::Number(Number::from(n))
    }
}

impl From<Object> for Value {
    fn from(map: Object) -> Self {
        Value::Object(map)
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Self {
        Value::Array(items)
    }
}

/// A JSON number, kept as its exact text. Only texts that match the RFC 8259 grammar can be
/// made into a `Number`, so an encoder never writes an invalid one (there is no NaN to write).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Number(String);

impl Number {
    /// The number written as `text`, if `text` is exactly one RFC 8259 number.
    pub fn parse(text: &str) -> Option<Number> {
        (decode::number_len(text.as_bytes()) == Some(text.len())).then(|| Number(text.to_owned()))
    }

    /// The text, exactly as decoded or constructed.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The value as an `i64`, when the text is an integer (no fraction, no exponent) in range.
    pub fn as_i64(&self) -> Option<i64> {
        let (negative, digits) = match self.0.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, self.0.as_str()),
        };
        let magnitude = decimal::parse_u64(digits.as_bytes())?;
        if negative { 0i64.checked_sub_unsigned(magnitude) } else { i64::try_from(magnitude).ok() }
    }

    /// The value as a `u64`, when the text is a non-negative integer in range.
    pub fn as_u64(&self) -> Option<u64> {
        decimal::parse_u64(self.0.as_bytes())
    }
}

impl From<i64> for Number {
    fn from(n: i64) -> Self {
        Number(n.to_string())
    }
}

impl From<u64> for Number {
    fn from(n: u64) -> Self {
        Number(n.to_string())
    }
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_text_is_validated() {
        for ok in ["0", "-0", "1", "-12", "1.5", "1e5", "1E+5", "-1.25e-10"] {
            assert_eq!(Number::parse(ok).map(|n| n.as_str().to_owned()), Some(ok.to_owned()));
        }
        for bad in ["", "-", "01", "1.", ".5", "+1", "1e", "NaN", "Infinity", " 1", "1 ", "0x1"] {
            assert_eq!(Number::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn integers_convert_with_checked_arithmetic() {
        let cases: [(&str, Option<i64>, Option<u64>); 8] = [
            ("0", Some(0), Some(0)),
            ("-0", Some(0), None),
            ("9223372036854775807", Some(i64::MAX), Some(i64::MAX as u64)),
            ("-9223372036854775808", Some(i64::MIN), None),
            ("9223372036854775808", None, Some(9223372036854775808)),
            ("18446744073709551616", None, None),
            ("1.0", None, None),
            ("1e2", None, None),
        ];
        for (text, as_i64, as_u64) in cases {
            let n = Number::parse(text).unwrap();
            assert_eq!((n.as_i64(), n.as_u64()), (as_i64, as_u64), "{text}");
        }
    }
}
