//! Mirrored request headers: a header that repeats a field of the body, compared with it.
//!
//! MCP 2026-07-28 (SEP-2243) repeats body fields in request headers so that an intermediary can
//! route a request without parsing its body: `MCP-Protocol-Version` (the body's
//! `_meta` protocol version), `Mcp-Method` (the method), `Mcp-Name` (the tool's name or the
//! resource's URI) and `Mcp-Param-{Name}` (a tool argument whose schema asks for it). Two
//! components that trust two sources of truth for one request is the shape of Content-Length
//! against Transfer-Encoding, so the server refuses any disagreement: [`compare`] decides, for one
//! header and the body value it mirrors, whether they agree.
//!
//! The rules:
//!
//! - the header's value arrives trimmed of its surrounding whitespace (RFC 9110 §5.5: the field
//!   parser excludes it) and is compared case-sensitively; names are matched case-insensitively
//!   by the field list the caller reads them from;
//! - a header that appears twice, or whose value holds a byte outside visible ASCII, space and
//!   tab, is malformed;
//! - on `Mcp-Name` and `Mcp-Param-{Name}` ([`Encoding::Sentinel`]), a value of the sentinel's
//!   shape (it starts with `=?base64?` and ends with `?=`) is decoded first, strictly
//!   ([`decode_sentinel`]): the standard alphabet,
//!   padding to a multiple of four and nowhere else, zero bits after the last byte, and UTF-8
//!   after decoding. A malformed sentinel is refused, never read as a literal, so a plain value
//!   shaped like the sentinel cannot match the same text in the body;
//! - a text body value must equal the decoded header exactly; an integer one matches the header's
//!   decimal integer numerically, however the body spells it (`2` matches `2`, `2.0`, `2e0` and
//!   `20e-1`, not `2.5`), as the specification asks; a boolean matches `true` or `false`;
//! - a body value that is absent or `null` needs no header, and a header whose body value is
//!   absent (or of another type) is a mismatch.
//!
//! [`header_value`] is the other direction: how a client writes a value into such a header.
//!
//! Not here: which headers a request needs (the endpoint knows the method and the tool's schema),
//! or anything about JSON: the caller hands over each body value as a [`BodyValue`]. An error
//! names the header and what was wrong with it, never a byte of either value.

use std::borrow::Cow;

use super::fields::Occurrence;
use crate::decimal;

/// The sentinel's opening.
const SENTINEL_START: &str = "=?base64?";
/// The sentinel's closing.
const SENTINEL_END: &str = "?=";
/// The longest decimal integer a header may carry: an `i64` and its sign.
const INTEGER_BYTES_MAX: usize = 20;

/// A body value as the comparison sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyValue<'v> {
    /// The field is not in the body.
    Absent,
    /// The field is `null`.
    Null,
    Text(&'v str),
    /// A JSON number, as its exact text.
    Number(&'v str),
    Bool(bool),
    /// An array or an object: nothing a header can mirror.
    Other,
}

/// Whether a header may carry its value as the base64 sentinel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Plain text only (`MCP-Protocol-Version`, `Mcp-Method`).
    Plain,
    /// Plain text, or `=?base64?…?=` (`Mcp-Name`, `Mcp-Param-{Name}`).
    Sentinel,
}

/// Why a mirrored header does not agree with its body value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MirrorError {
    /// The body has the value and the header is not there.
    Missing,
    /// More than one field line of the header.
    Repeated,
    /// A byte outside visible ASCII, space and tab.
    InvalidByte,
    /// A sentinel whose base64 breaks the alphabet, the padding or the zero trailing bits.
    Base64,
    /// A sentinel that decodes to bytes that are not UTF-8.
    NotUtf8,
    /// A header for an integer that is not a decimal integer.
    NotAnInteger,
    /// The header is there and says something else than the body (or the body has no value).
    Mismatch,
}

impl MirrorError {
    /// The stable public code.
    pub const fn code(self) -> &'static str {
        match self {
            MirrorError::Missing => "header_missing",
            MirrorError::Repeated => "header_repeated",
            MirrorError::InvalidByte => "header_value_byte",
            MirrorError::Base64 => "header_base64_invalid",
            MirrorError::NotUtf8 => "header_base64_not_utf8",
            MirrorError::NotAnInteger => "header_not_an_integer",
            MirrorError::Mismatch => "header_body_mismatch",
        }
    }
}

/// Whether `header` (its field lines, one name) agrees with `body`, the value it mirrors.
pub fn compare(
    header: Occurrence<'_>,
    body: BodyValue<'_>,
    encoding: Encoding,
) -> Result<(), MirrorError> {
    let raw = match header {
        Occurrence::Absent => {
            return match body {
                BodyValue::Absent | BodyValue::Null => Ok(()),
                BodyValue::Text(_)
                | BodyValue::Number(_)
                | BodyValue::Bool(_)
                | BodyValue::Other => Err(MirrorError::Missing),
            };
        }
        Occurrence::Repeated => return Err(MirrorError::Repeated),
        Occurrence::Once(raw) => raw,
    };
    if !raw.iter().all(|&b| b == b'\t' || (0x20..=0x7e).contains(&b)) {
        return Err(MirrorError::InvalidByte);
    }
    // Only visible ASCII, space and tab: the bytes are UTF-8.
    let text = std::str::from_utf8(raw).map_err(|_| MirrorError::InvalidByte)?;
    let said = match encoding {
        Encoding::Plain => Cow::Borrowed(text),
        Encoding::Sentinel => decoded(text)?,
    };
    if agrees(&said, body)? { Ok(()) } else { Err(MirrorError::Mismatch) }
}

/// The header's text: the sentinel's payload decoded when it has that shape, the text itself
/// otherwise.
fn decoded(text: &str) -> Result<Cow<'_, str>, MirrorError> {
    match sentinel_payload(text) {
        Some(payload) => decode_sentinel(payload?).map(Cow::Owned),
        None => Ok(Cow::Borrowed(text)),
    }
}

/// The base64 between `=?base64?` and `?=` when `text` has the sentinel's shape (`None` when it
/// has not). The shape is the specification's pattern: a text that starts with `=?base64?` and
/// ends with `?=`. The two may overlap, as in `=?base64?=`, which has the shape and no room for a
/// payload: a malformed sentinel (`Base64`).
pub fn sentinel_payload(text: &str) -> Option<Result<&str, MirrorError>> {
    if !text.starts_with(SENTINEL_START) || !text.ends_with(SENTINEL_END) {
        return None;
    }
    let end = text.len() - SENTINEL_END.len();
    Some(text.get(SENTINEL_START.len()..end).ok_or(MirrorError::Base64))
}

/// Whether the header's (decoded) text says what the body value says.
fn agrees(said: &str, body: BodyValue<'_>) -> Result<bool, MirrorError> {
    Ok(match body {
        BodyValue::Text(text) => said == text,
        BodyValue::Number(number) => {
            let header = integer(said).ok_or(MirrorError::NotAnInteger)?;
            decimal::json_integer(number) == Some(header)
        }
        BodyValue::Bool(value) => said == if value { "true" } else { "false" },
        BodyValue::Absent | BodyValue::Null | BodyValue::Other => false,
    })
}

/// A decimal integer (`-?DIGIT+`, leading zeros allowed: the comparison is numeric) that fits an
/// `i64`.
fn integer(text: &str) -> Option<i64> {
    if text.len() > INTEGER_BYTES_MAX {
        return None;
    }
    let (negative, digits) = match text.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let magnitude: i128 = digits.bytes().fold(0i128, |n, d| n * 10 + i128::from(d - b'0'));
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

/// Decodes a sentinel's base64 payload strictly: the standard alphabet, `=` padding to a
/// multiple of four at the end only, zero bits after the last byte, and UTF-8 after decoding.
pub fn decode_sentinel(payload: &str) -> Result<String, MirrorError> {
    let bytes = payload.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return Err(MirrorError::Base64);
    }
    let padding = bytes.iter().rev().take_while(|&&b| b == b'=').count();
    if padding > 2 {
        return Err(MirrorError::Base64);
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let body = &bytes[..bytes.len() - padding];
    let mut bits: u32 = 0;
    let mut count = 0;
    for &byte in body {
        bits = (bits << 6) | u32::from(sextet(byte).ok_or(MirrorError::Base64)?);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    // What is left must be the zero bits that pad the last byte out to a sextet.
    if bits != 0 {
        return Err(MirrorError::Base64);
    }
    String::from_utf8(out).map_err(|_| MirrorError::NotUtf8)
}

/// The value of one base64 character, if it is one.
fn sextet(byte: u8) -> Option<u8> {
    match byte {
        b'A'..=b'Z' => Some(byte - b'A'),
        b'a'..=b'z' => Some(byte - b'a' + 26),
        b'0'..=b'9' => Some(byte - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The header value a client writes for `value`: the value itself when it is plain visible ASCII
/// (spaces inside allowed) with no whitespace at either end and not shaped like the sentinel;
/// `=?base64?…?=` otherwise, as the specification asks.
pub fn header_value(value: &str) -> Cow<'_, str> {
    let plain = value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && sentinel_payload(value).is_none();
    if plain {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(SENTINEL_START.len() + value.len() / 3 * 4 + 6);
    out.push_str(SENTINEL_START);
    for chunk in value.as_bytes().chunks(3) {
        let word =
            chunk.iter().fold(0u32, |w, &b| (w << 8) | u32::from(b)) << (8 * (3 - chunk.len()));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((word >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out.push_str(SENTINEL_END);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn once(text: &str) -> Occurrence<'_> {
        Occurrence::Once(text.as_bytes())
    }

    #[test]
    fn each_header_agrees_with_its_body_value_or_names_what_is_wrong() {
        use BodyValue::{Absent, Bool, Null, Number, Text};
        use Encoding::{Plain, Sentinel};
        use MirrorError::*;
        type Case<'a> = (Occurrence<'a>, BodyValue<'a>, Encoding, Result<(), MirrorError>);
        let cases: [Case; 31] = [
            (once("tools/call"), Text("tools/call"), Plain, Ok(())),
            (once("TOOLS/CALL"), Text("tools/call"), Plain, Err(Mismatch)),
            (Occurrence::Absent, Text("tools/call"), Plain, Err(Missing)),
            (Occurrence::Absent, Absent, Sentinel, Ok(())),
            (Occurrence::Absent, Null, Sentinel, Ok(())),
            (once("x"), Absent, Sentinel, Err(Mismatch)),
            (once("x"), Null, Sentinel, Err(Mismatch)),
            (Occurrence::Repeated, Text("x"), Sentinel, Err(Repeated)),
            (once("caf\u{e9}"), Text("caf\u{e9}"), Sentinel, Err(InvalidByte)),
            (once("a\x01b"), Text("a\x01b"), Sentinel, Err(InvalidByte)),
            (once("=?base64?SGVsbG8=?="), Text("Hello"), Sentinel, Ok(())),
            (once("=?base64?SGVsbG8=?="), Text("=?base64?SGVsbG8=?="), Sentinel, Err(Mismatch)),
            (once("=?base64?SGVsbG8=?="), Text("=?base64?SGVsbG8=?="), Plain, Ok(())),
            (once("=?base64?SGVsbG8?="), Text("Hello"), Sentinel, Err(Base64)),
            (once("=?base64?SGVs!!!bG8=?="), Text("Hello"), Sentinel, Err(Base64)),
            (once("=?base64?SGVs bG8=?="), Text("Hel lo"), Sentinel, Err(Base64)),
            (once("=?base64?/w==?="), Text("\u{ff}"), Sentinel, Err(NotUtf8)),
            (once("SGVsbG8="), Text("SGVsbG8="), Sentinel, Ok(())),
            (once("=?base64?SGVsbG8="), Text("=?base64?SGVsbG8="), Sentinel, Ok(())),
            (once("=?base64?DQo=?="), Text("\r\n"), Sentinel, Ok(())),
            (once("2"), Number("2"), Sentinel, Ok(())),
            (once("2"), Number("2.0"), Sentinel, Ok(())),
            (once("002"), Number("2"), Sentinel, Ok(())),
            (once("2"), Number("2.5"), Sentinel, Err(Mismatch)),
            (once("1"), Number("1e0"), Sentinel, Ok(())),
            (once("1"), Number("10E-1"), Sentinel, Ok(())),
            (once("1"), Number("1e-1"), Sentinel, Err(Mismatch)),
            (once("=?base64?="), Text("=?base64?="), Sentinel, Err(Base64)),
            (once("=?base64?PT9iYXNlNjQ/PQ==?="), Text("=?base64?="), Sentinel, Ok(())),
            (once("two"), Number("2"), Sentinel, Err(NotAnInteger)),
            (once("true"), Bool(true), Sentinel, Ok(())),
        ];
        for (header, body, encoding, expected) in cases {
            assert_eq!(
                compare(header, body, encoding),
                expected,
                "{header:?} {body:?} {encoding:?}"
            );
        }
    }

    #[test]
    fn strict_base64_refuses_what_lenient_decoders_take() {
        let cases: [(&str, Result<&str, MirrorError>); 12] = [
            ("SGVsbG8=", Ok("Hello")),
            ("SGVsbA==", Ok("Hell")),
            ("SGVs", Ok("Hel")),
            ("", Ok("")),
            ("SGVsbG8", Err(MirrorError::Base64)),
            ("SGVsbG9=", Err(MirrorError::Base64)),
            ("SGVsbB==", Err(MirrorError::Base64)),
            ("SG=sbG8=", Err(MirrorError::Base64)),
            ("S===", Err(MirrorError::Base64)),
            ("SGVsbG8-", Err(MirrorError::Base64)),
            ("SGVs\tbG8=", Err(MirrorError::Base64)),
            ("5pel5pys", Ok("\u{65e5}\u{672c}")),
        ];
        for (payload, expected) in cases {
            assert_eq!(decode_sentinel(payload).as_deref(), expected.as_deref(), "{payload:?}");
        }
    }

    #[test]
    fn a_client_encodes_exactly_what_cannot_travel_plain() {
        let cases: [(&str, &str); 9] = [
            ("us-west1", "us-west1"),
            ("Hello, \u{4e16}\u{754c}", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
            ("=?base64?=", "=?base64?PT9iYXNlNjQ/PQ==?="),
            ("=?base64??=", "=?base64?PT9iYXNlNjQ/Pz0=?="),
            ("a b", "a b"),
            ("", ""),
        ];
        for (value, written) in cases {
            assert_eq!(header_value(value), written, "{value:?}");
            let header = header_value(value);
            let back = match sentinel_payload(&header) {
                Some(payload) => decode_sentinel(payload.unwrap()).unwrap(),
                None => header.into_owned(),
            };
            assert_eq!(back, value);
        }
    }
}
