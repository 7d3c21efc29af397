//! The JSON value: [`Value`], [`Number`] (its exact text), objects as sorted maps with the
//! protocol's keys shared, and the constructors code builds values with.
//!
//! Only data: decoding and encoding are the sibling files' business.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::decimal;

/// A JSON object: keys in sorted order, each at most once.
pub type Object = BTreeMap<Key, Value>;

/// An object key. The keys of the protocol (`jsonrpc`, `id`, `method`, ...) are borrowed from
/// one static list, whether they were decoded or written in code; any other key is owned.
pub type Key = Cow<'static, str>;

/// The text of a string value, shared the same way: the protocol's words (`2.0`, the method
/// names, the protocol version) are borrowed from the same static list, any other text is owned.
/// A typical request then decodes without allocating for its strings.
pub type Text = Cow<'static, str>;

/// Declares the words a decoded key or string shares instead of copying.
macro_rules! known_words {
    ($($word:literal),* $(,)?) => {
        /// The static copy of `text` when it is one of the protocol's words.
        fn known_word(text: &str) -> Option<&'static str> {
            match text {
                $($word => Some($word),)*
                _ => None,
            }
        }
    };
}

known_words!(
    // Values.
    "2.0",
    "2025-11-25",
    "ping",
    "initialize",
    "notifications/initialized",
    "notifications/cancelled",
    "resources/list",
    "tools/list",
    "tools/call",
    "logging/setLevel",
    "test_reconnection",
    // Keys.
    "jsonrpc",
    "id",
    "method",
    "params",
    "result",
    "error",
    "code",
    "message",
    "data",
    "protocolVersion",
    "capabilities",
    "clientInfo",
    "serverInfo",
    "name",
    "title",
    "version",
    "level",
    "logger",
    "cursor",
    "nextCursor",
    "resources",
    "uri",
    "mimeType",
    "description",
    "instructions",
    "_meta",
    "progressToken",
    "roots",
    "sampling",
    "elicitation",
    "experimental",
    "listChanged",
    "subscribe",
    "logging",
    "tools",
    "prompts",
);

/// The key or string for `text`: borrowed from the static list when it is a known word, owned
/// otherwise.
pub(super) fn shared(text: Cow<'_, str>) -> Text {
    match known_word(&text) {
        Some(known) => Cow::Borrowed(known),
        None => Cow::Owned(text.into_owned()),
    }
}

/// A JSON value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(Number),
    String(Text),
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
pub fn members<const N: usize>(members: [(&'static str, Value); N]) -> Object {
    let object: Object = members.into_iter().map(|(k, v)| (Cow::Borrowed(k), v)).collect();
    debug_assert_eq!(object.len(), N, "a key repeated in a JSON object built in code");
    object
}

/// An object built in code, as a value: `object([("a", 1u64.into())])`.
pub fn object<const N: usize>(members: [(&'static str, Value); N]) -> Value {
    Value::Object(self::members(members))
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(Cow::Owned(s.to_owned()))
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(Cow::Owned(s))
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
///
/// A text that is exactly how an `i64` prints (`0`, `-12`; not `-0`, `1.0` or `1e2`) is stored
/// as that integer; any other text is stored as it came. Both write back the same bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Number(Repr);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Repr {
    Int(i64),
    Text(Box<str>),
}

impl Number {
    /// The number `text` is, when it matches the RFC 8259 grammar exactly.
    pub fn parse(text: &str) -> Option<Number> {
        (number_len(text.as_bytes()) == Some(text.len())).then(|| Number::from_text(text))
    }

    /// A number from text the grammar has already accepted.
    pub(super) fn from_text(text: &str) -> Number {
        match integer_value(text) {
            Some(n) if text != "-0" => Number(Repr::Int(n)),
            _ => Number(Repr::Text(text.into())),
        }
    }

    /// Appends the number's text.
    pub fn write_to(&self, out: &mut String) {
        match &self.0 {
            Repr::Int(n) => {
                if *n < 0 {
                    out.push('-');
                }
                decimal::push_str(out, n.unsigned_abs());
            }
            Repr::Text(text) => out.push_str(text),
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match &self.0 {
            Repr::Int(n) => Some(*n),
            Repr::Text(text) => integer_value(text),
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match &self.0 {
            Repr::Int(n) => u64::try_from(*n).ok(),
            Repr::Text(text) => decimal::parse_u64(text.as_bytes()),
        }
    }
}

/// The `i64` an integer text (`-?DIGITS`) names, when it fits; `-0` is 0.
fn integer_value(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = decimal::parse_u64(digits.as_bytes())?;
    if negative { 0i64.checked_sub_unsigned(magnitude) } else { i64::try_from(magnitude).ok() }
}

impl From<i64> for Number {
    fn from(n: i64) -> Self {
        Number(Repr::Int(n))
    }
}

impl From<u64> for Number {
    fn from(n: u64) -> Self {
        match i64::try_from(n) {
            Ok(n) => Number(Repr::Int(n)),
            Err(_) => Number(Repr::Text(n.to_string().into())),
        }
    }
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Repr::Int(n) => write!(f, "{n}"),
            Repr::Text(text) => f.write_str(text),
        }
    }
}

/// The length of the RFC 8259 number at the start of `bytes`, if one is there:
/// `[ "-" ] ( "0" / [1-9] *DIGIT ) [ "." 1*DIGIT ] [ ( "e" / "E" ) [ "+" / "-" ] 1*DIGIT ]`.
/// A leading zero followed by a digit is not a number.
pub(crate) fn number_len(bytes: &[u8]) -> Option<usize> {
    let digits_from = |i: usize| bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
    let mut i = usize::from(bytes.first() == Some(&b'-'));
    match bytes.get(i) {
        Some(b'0') => {
            i += 1;
            if bytes.get(i).is_some_and(u8::is_ascii_digit) {
                return None;
            }
        }
        Some(b'1'..=b'9') => i += digits_from(i),
        _ => return None,
    }
    if bytes.get(i) == Some(&b'.') {
        let n = digits_from(i + 1);
        if n == 0 {
            return None;
        }
        i += 1 + n;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits_from(i);
        if n == 0 {
            return None;
        }
        i += n;
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_text_is_validated() {
        let big = ["9223372036854775807", "-9223372036854775808", "9223372036854775808"];
        for ok in ["0", "-0", "1", "-12", "1.5", "1e5", "1E+5", "-1.25e-10"].into_iter().chain(big)
        {
            let number = Number::parse(ok);
            assert_eq!(number.as_ref().map(Number::to_string), Some(ok.to_owned()));
            let mut written = String::new();
            number.iter().for_each(|n| n.write_to(&mut written));
            assert_eq!(written, ok);
        }
        for bad in ["", "-", "01", "1.", ".5", "+1", "1e", "NaN", "Infinity", " 1", "1 ", "0x1"] {
            assert_eq!(Number::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn integers_equal_their_text_only_when_the_text_is_how_they_print() {
        let same = |a: &str, b: Number| Number::parse(a) == Some(b);
        assert!(same("-12", Number::from(-12i64)));
        assert!(same("0", Number::from(0u64)));
        assert!(same("18446744073709551615", Number::from(u64::MAX)));
        assert!(!same("-0", Number::from(0i64)));
        assert!(!same("1.0", Number::from(1i64)));
        assert!(!same("1e2", Number::from(100i64)));
    }

    #[test]
    fn protocol_words_are_shared_and_other_text_owned() {
        assert!(matches!(shared(Cow::Borrowed("jsonrpc")), Cow::Borrowed("jsonrpc")));
        assert!(matches!(shared(Cow::Owned("method".into())), Cow::Borrowed("method")));
        assert!(matches!(shared(Cow::Borrowed("2.0")), Cow::Borrowed("2.0")));
        assert!(matches!(shared(Cow::Borrowed("tools/call")), Cow::Borrowed("tools/call")));
        assert!(matches!(shared(Cow::Borrowed("Method")), Cow::Owned(k) if k == "Method"));
        assert!(matches!(shared(Cow::Borrowed("ping ")), Cow::Owned(k) if k == "ping "));
        assert!(matches!(shared(Cow::Borrowed("x")), Cow::Owned(k) if k == "x"));
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
