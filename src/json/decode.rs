//! The strict decoder: bytes in, one [`Value`] or a typed error with its byte offset out.
//!
//! It first checks that the whole input is UTF-8 (so every later slice is a valid `str`), then
//! walks it once with an explicit stack of open containers, bounded by the depth budget. Errors
//! carry a kind and an offset, never a piece of the input.

use std::borrow::Cow;
use std::fmt;

use super::stack::Stack;
use super::value::{self, Key, Number, Object, Value, Words, number_len};

/// Why an input is not strict JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JsonErrorKind {
    /// The input ends inside a value (or is empty).
    UnexpectedEnd,
    /// A byte that cannot start or continue what is being read.
    UnexpectedByte,
    /// The input is not valid UTF-8.
    InvalidUtf8,
    /// A raw control byte (below 0x20) inside a string.
    ControlInString,
    /// A backslash not followed by one of `"\/bfnrtu`, or `\u` without four hex digits.
    InvalidEscape,
    /// A `\u` escape naming half of a surrogate pair without its other half.
    LoneSurrogate,
    /// A number that breaks the grammar (`-`, `1.`, `1e`, ...).
    InvalidNumber,
    /// A number with a leading zero (`01`).
    LeadingZero,
    /// A word that is not `true`, `false` or `null`.
    InvalidLiteral,
    /// A key that already appears in the same object.
    DuplicateKey,
    /// Arrays and objects nested deeper than the budget.
    DepthLimit { limit: usize },
    /// Something other than whitespace after the value.
    TrailingBytes,
}

impl JsonErrorKind {
    /// The stable public code.
    pub const fn code(self) -> &'static str {
        match self {
            JsonErrorKind::UnexpectedEnd => "json_unexpected_end",
            JsonErrorKind::UnexpectedByte => "json_unexpected_byte",
            JsonErrorKind::InvalidUtf8 => "json_invalid_utf8",
            JsonErrorKind::ControlInString => "json_control_in_string",
            JsonErrorKind::InvalidEscape => "json_invalid_escape",
            JsonErrorKind::LoneSurrogate => "json_lone_surrogate",
            JsonErrorKind::InvalidNumber => "json_invalid_number",
            JsonErrorKind::LeadingZero => "json_leading_zero",
            JsonErrorKind::InvalidLiteral => "json_invalid_literal",
            JsonErrorKind::DuplicateKey => "json_duplicate_key",
            JsonErrorKind::DepthLimit { .. } => "json_depth_limit",
            JsonErrorKind::TrailingBytes => "json_trailing_bytes",
        }
    }
}

/// A refused input: what was wrong and the offset of the byte where it was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JsonError {
    pub kind: JsonErrorKind,
    pub offset: usize,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind.code(), self.offset)
    }
}

impl std::error::Error for JsonError {}

/// Decodes exactly one JSON value from `input`, with arrays and objects nested at most
/// `depth_max` deep.
pub fn decode(input: &[u8], depth_max: usize) -> Result<Value, JsonError> {
    decode_sharing(input, depth_max, value::no_words)
}

/// [`decode`], borrowing the static copy `words` has of a key or string instead of allocating
/// one.
pub fn decode_sharing(input: &[u8], depth_max: usize, words: Words) -> Result<Value, JsonError> {
    let mut decoder = Decoder::over(input, depth_max, words)?;
    let value = decoder.value()?;
    decoder.skip_whitespace();
    if decoder.pos < input.len() {
        return Err(decoder.error(JsonErrorKind::TrailingBytes));
    }
    Ok(value)
}

/// The one value at the start of `input` (after any whitespace), decoded as [`decode_sharing`]
/// would, and the offset just after it: what follows is left unread. For a caller that reads the
/// bytes around a value itself (`mcp::flat`). The whole of `input` must be UTF-8.
pub fn decode_prefix(
    input: &[u8],
    depth_max: usize,
    words: Words,
) -> Result<(Value, usize), JsonError> {
    let mut decoder = Decoder::over(input, depth_max, words)?;
    let value = decoder.value()?;
    Ok((value, decoder.pos))
}

/// An array or object whose closing bracket has not been read yet.
enum Open {
    Array(Vec<Value>),
    /// The members so far and the key whose value is being read.
    Object(Object, Key),
}

struct Decoder<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth_max: usize,
    stack: Stack<Open>,
    words: Words,
}

impl<'a> Decoder<'a> {
    /// A decoder at the start of `input`, which must be UTF-8 as a whole.
    fn over(input: &'a [u8], depth_max: usize, words: Words) -> Result<Decoder<'a>, JsonError> {
        let text = std::str::from_utf8(input)
            .map_err(|e| JsonError { kind: JsonErrorKind::InvalidUtf8, offset: e.valid_up_to() })?;
        Ok(Decoder { text, bytes: input, pos: 0, depth_max, stack: Stack::new(), words })
    }

    fn error(&self, kind: JsonErrorKind) -> JsonError {
        JsonError { kind, offset: self.pos }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// The byte after optional whitespace, consumed; an error at the end of input.
    fn next_significant(&mut self) -> Result<u8, JsonError> {
        self.skip_whitespace();
        let byte = self.peek().ok_or(self.error(JsonErrorKind::UnexpectedEnd))?;
        self.pos += 1;
        Ok(byte)
    }

    /// Reads one complete value, containers included, without recursion.
    fn value(&mut self) -> Result<Value, JsonError> {
        loop {
            let Some(mut done) = self.value_start()? else {
                continue; // a container opened; read its first element
            };
            // Hand the finished value to the containers it completes, innermost first.
            loop {
                match self.attach(done)? {
                    Attached::Finished(value) => return Ok(value),
                    Attached::Closed(value) => done = value,
                    Attached::NeedValue => break,
                }
            }
        }
    }

    /// Reads a scalar, or opens a container. `None` when a non-empty container was opened and
    /// its first element (and for an object, its first key) is next.
    fn value_start(&mut self) -> Result<Option<Value>, JsonError> {
        self.skip_whitespace();
        let Some(byte) = self.peek() else {
            return Err(self.error(JsonErrorKind::UnexpectedEnd));
        };
        let value = match byte {
            b'[' => {
                self.open(Open::Array(Vec::new()))?;
                self.skip_whitespace();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    self.stack.pop();
                    return Ok(Some(Value::Array(Vec::new())));
                }
                return Ok(None);
            }
            b'{' => {
                self.open(Open::Object(Object::new(), Key::Borrowed("")))?;
                if self.next_significant()? == b'}' {
                    self.stack.pop();
                    return Ok(Some(Value::Object(Object::new())));
                }
                self.pos -= 1;
                self.key()?;
                return Ok(None);
            }
            b'"' => Value::String(value::shared(self.string()?, self.words)),
            b't' => self.literal("true", Value::Bool(true))?,
            b'f' => self.literal("false", Value::Bool(false))?,
            b'n' => self.literal("null", Value::Null)?,
            b'-' | b'0'..=b'9' => Value::Number(self.number()?),
            _ => return Err(self.error(JsonErrorKind::UnexpectedByte)),
        };
        Ok(Some(value))
    }

    /// Pushes a container whose opening bracket is at `self.pos`, within the depth budget.
    fn open(&mut self, container: Open) -> Result<(), JsonError> {
        if self.stack.len() >= self.depth_max {
            return Err(self.error(JsonErrorKind::DepthLimit { limit: self.depth_max }));
        }
        self.pos += 1;
        self.stack.push(container);
        Ok(())
    }

    /// Stores a finished value in the innermost open container and reads what follows it.
    fn attach(&mut self, value: Value) -> Result<Attached, JsonError> {
        let Some(top) = self.stack.last_mut() else {
            return Ok(Attached::Finished(value));
        };
        let close = match top {
            Open::Array(items) => {
                items.push(value);
                b']'
            }
            Open::Object(members, key) => {
                members.insert(std::mem::replace(key, Key::Borrowed("")), value);
                b'}'
            }
        };
        match self.next_significant()? {
            b',' if close == b'}' => {
                self.key()?;
                Ok(Attached::NeedValue)
            }
            b',' => Ok(Attached::NeedValue),
            byte if byte == close => match self.stack.pop() {
                Some(Open::Array(items)) => Ok(Attached::Closed(Value::Array(items))),
                Some(Open::Object(members, _)) => Ok(Attached::Closed(Value::Object(members))),
                None => unreachable!("the stack top was just read"),
            },
            _ => {
                self.pos -= 1;
                Err(self.error(JsonErrorKind::UnexpectedByte))
            }
        }
    }

    /// Reads `"key" :` into the innermost object, refusing a key it already has.
    fn key(&mut self) -> Result<(), JsonError> {
        self.skip_whitespace();
        let start = self.pos;
        if self.peek() != Some(b'"') {
            return Err(self.error(JsonErrorKind::UnexpectedByte));
        }
        let key = self.string()?;
        if self.next_significant()? != b':' {
            self.pos -= 1;
            return Err(self.error(JsonErrorKind::UnexpectedByte));
        }
        if let Some(Open::Object(members, pending)) = self.stack.last_mut() {
            if members.contains_key(&key) {
                return Err(JsonError { kind: JsonErrorKind::DuplicateKey, offset: start });
            }
            *pending = value::shared(key, self.words);
        }
        Ok(())
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, JsonError> {
        if !self.bytes[self.pos..].starts_with(word.as_bytes()) {
            return Err(self.error(JsonErrorKind::InvalidLiteral));
        }
        self.pos += word.len();
        Ok(value)
    }

    fn number(&mut self) -> Result<Number, JsonError> {
        let start = self.pos;
        match number_len(&self.bytes[start..]) {
            Some(len) => {
                self.pos += len;
                Ok(Number::from_text(&self.text[start..self.pos]))
            }
            None => {
                let (kind, offset) = number_error(&self.bytes[start..]);
                Err(JsonError { kind, offset: start + offset })
            }
        }
    }

    /// Reads a string whose opening quote is at `self.pos`, resolving escapes. A string without
    /// escapes is borrowed from the input; only an escape makes a copy.
    fn string(&mut self) -> Result<Cow<'a, str>, JsonError> {
        self.pos += 1;
        let mut out = Cow::Borrowed("");
        let mut run_start = self.pos;
        loop {
            // Plain bytes in one scan: up to the next quote, backslash or control byte.
            let special = |&b: &u8| b == b'"' || b == b'\\' || b < 0x20;
            let rest = self.bytes.get(self.pos..).unwrap_or_default();
            self.pos += rest.iter().position(special).unwrap_or(rest.len());
            let Some(byte) = self.peek() else {
                return Err(self.error(JsonErrorKind::UnexpectedEnd));
            };
            match byte {
                b'"' => {
                    let run = &self.text[run_start..self.pos];
                    self.pos += 1;
                    return Ok(match out {
                        Cow::Borrowed(_) => Cow::Borrowed(run),
                        Cow::Owned(mut owned) => {
                            owned.push_str(run);
                            Cow::Owned(owned)
                        }
                    });
                }
                b'\\' => {
                    let owned = out.to_mut();
                    owned.push_str(&self.text[run_start..self.pos]);
                    owned.push(self.escape()?);
                    run_start = self.pos;
                }
                0x00..=0x1f => return Err(self.error(JsonErrorKind::ControlInString)),
                _ => self.pos += 1,
            }
        }
    }

    /// Reads an escape whose backslash is at `self.pos`.
    fn escape(&mut self) -> Result<char, JsonError> {
        let start = self.pos;
        let invalid = JsonError { kind: JsonErrorKind::InvalidEscape, offset: start };
        let letter = self.bytes.get(start + 1).copied().ok_or(invalid)?;
        self.pos += 2;
        let simple = match letter {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(start),
            _ => return Err(invalid),
        };
        Ok(simple)
    }

    /// The four hex digits after `\u` (already consumed), plus a low surrogate's escape when the
    /// first names a high surrogate.
    fn unicode_escape(&mut self, start: usize) -> Result<char, JsonError> {
        let lone = JsonError { kind: JsonErrorKind::LoneSurrogate, offset: start };
        let first = self.hex4(start)?;
        let code = match first {
            0xd800..=0xdbff => {
                if self.bytes.get(self.pos..self.pos + 2) != Some(b"\\u") {
                    return Err(lone);
                }
                self.pos += 2;
                let second = self.hex4(self.pos - 2)?;
                if !(0xdc00..=0xdfff).contains(&second) {
                    return Err(lone);
                }
                0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00)
            }
            0xdc00..=0xdfff => return Err(lone),
            _ => first,
        };
        char::from_u32(code).ok_or(lone)
    }

    fn hex4(&mut self, escape_start: usize) -> Result<u32, JsonError> {
        let invalid = JsonError { kind: JsonErrorKind::InvalidEscape, offset: escape_start };
        let digits = self.bytes.get(self.pos..self.pos + 4).ok_or(invalid)?;
        let mut code = 0u32;
        for &d in digits {
            code = code << 4 | u32::from(crate::decimal::hex_value(d).ok_or(invalid)?);
        }
        self.pos += 4;
        Ok(code)
    }
}

/// What [`Decoder::attach`] did with a finished value.
enum Attached {
    /// It was the whole document.
    Finished(Value),
    /// It completed its container, which is now itself a finished value.
    Closed(Value),
    /// It was stored; the container's next element follows.
    NeedValue,
}

/// Why the bytes at the start of `bytes` are not a number, and the offset that decided it.
fn number_error(bytes: &[u8]) -> (JsonErrorKind, usize) {
    let sign = usize::from(bytes.first() == Some(&b'-'));
    if bytes.get(sign) == Some(&b'0') && bytes.get(sign + 1).is_some_and(u8::is_ascii_digit) {
        return (JsonErrorKind::LeadingZero, sign);
    }
    // The offset of the first byte after the longest run that could still begin a number.
    let end = bytes
        .iter()
        .position(|b| !(b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')))
        .unwrap_or(bytes.len());
    (JsonErrorKind::InvalidNumber, end)
}
