//! The fast path of a request body's decoding: a flat JSON-RPC envelope read straight into a
//! [`Message`], with no value tree.
//!
//! A request body is one envelope: `jsonrpc`, `id`, `method` and `params`. The strict decoder
//! builds an object of those members only for [`Message::from_value`] to take it apart again.
//! [`flat_message`] reads the envelope's bytes itself and builds the message, handing only the
//! value of a non-empty `params` to the strict decoder ([`json::decode_prefix`]), which reads it
//! exactly as it would have inside the whole body.
//!
//! It takes a deliberately narrow grammar, and anything outside it is left to the slow path,
//! which then finds the same message or the same error:
//!
//! - one object, surrounded and separated by JSON whitespace, of the members `jsonrpc` (exactly
//!   `"2.0"`), `method` (a non-empty string), an optional `id` (a string, or an integer that fits
//!   an `i64`) and an optional `params` object that the strict decoder accepts, each at most
//!   once, in any order;
//! - every key and string visible ASCII (`%x20-7E`) without a backslash, so that no escape, no
//!   control byte and no byte of a longer UTF-8 sequence is ever read here;
//! - no more nesting than the depth budget allows.
//!
//! A body the fast path takes is one the slow path decodes to an equal message: a table test
//! and the `json` fuzz target compare the two on every input they try. What the fast path never
//! does is decide an error.

use crate::json::{self, Number, Object, Text, Value, Words};

use super::jsonrpc::{Id, Message};

/// The message a flat envelope is, when `body` is one and nests no deeper than `depth_max`;
/// `None` for everything else, which the strict decoder then decides.
pub fn flat_message(body: &[u8], depth_max: usize, words: Words) -> Option<Message> {
    if depth_max == 0 {
        return None;
    }
    let mut scan = Scan { bytes: body, pos: 0 };
    scan.byte_after_whitespace(b'{')?;
    let mut members = Flat::default();
    loop {
        let key = scan.plain_string_after_whitespace()?;
        scan.byte_after_whitespace(b':')?;
        scan.whitespace();
        members.read(key, &mut scan, (depth_max, words))?;
        scan.whitespace();
        match scan.next()? {
            b',' => {}
            b'}' => break,
            _ => return None,
        }
    }
    scan.whitespace();
    if scan.pos != body.len() || !members.jsonrpc {
        return None;
    }
    let (method, params) = (members.method?, members.params.unwrap_or_default());
    Some(match members.id {
        Some(id) => Message::Request { id, method, params },
        None => Message::Notification { method, params },
    })
}

/// The members read so far.
#[derive(Default)]
struct Flat {
    jsonrpc: bool,
    id: Option<Id>,
    method: Option<Text>,
    params: Option<Object>,
}

impl Flat {
    /// Reads the value of the member `key`; `None` for a key that is not one of the four, one
    /// seen before, or a value the fast path does not take.
    fn read(
        &mut self,
        key: &[u8],
        scan: &mut Scan<'_>,
        (depth_max, words): (usize, Words),
    ) -> Option<()> {
        match key {
            b"jsonrpc" if !self.jsonrpc => {
                self.jsonrpc = scan.plain_string()? == b"2.0";
                self.jsonrpc.then_some(())
            }
            b"id" if self.id.is_none() => {
                self.id = Some(scan.id()?);
                Some(())
            }
            b"method" if self.method.is_none() => {
                let method = ascii(scan.plain_string()?)?;
                if method.is_empty() {
                    return None;
                }
                self.method = Some(json::shared(method.into(), words));
                Some(())
            }
            b"params" if self.params.is_none() => {
                // An object, one level below the envelope: the strict decoder reads it.
                let depth_max = depth_max.checked_sub(1)?;
                let rest = scan.bytes.get(scan.pos..)?;
                if rest.first() != Some(&b'{') {
                    return None;
                }
                let (value, len) = json::decode_prefix(rest, depth_max, words).ok()?;
                let Value::Object(params) = value else { return None };
                scan.pos += len;
                self.params = Some(params);
                Some(())
            }
            _ => None,
        }
    }
}

struct Scan<'b> {
    bytes: &'b [u8],
    pos: usize,
}

impl<'b> Scan<'b> {
    fn next(&mut self) -> Option<u8> {
        let byte = *self.bytes.get(self.pos)?;
        self.pos += 1;
        Some(byte)
    }

    fn whitespace(&mut self) {
        while matches!(self.bytes.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Consumes `want` at the current position.
    fn byte(&mut self, want: u8) -> Option<()> {
        (self.next()? == want).then_some(())
    }

    fn byte_after_whitespace(&mut self, want: u8) -> Option<()> {
        self.whitespace();
        self.byte(want)
    }

    fn plain_string_after_whitespace(&mut self) -> Option<&'b [u8]> {
        self.whitespace();
        self.plain_string()
    }

    /// A string of visible ASCII without a backslash, its contents.
    fn plain_string(&mut self) -> Option<&'b [u8]> {
        self.byte(b'"')?;
        let start = self.pos;
        let rest = self.bytes.get(start..)?;
        let len =
            rest.iter().position(|&b| !matches!(b, 0x20..=0x7e) || b == b'"' || b == b'\\')?;
        self.pos += len;
        self.byte(b'"')?;
        Some(&rest[..len])
    }

    /// An id: a plain string, or an integer that fits an `i64` (as [`Number::parse`] reads it;
    /// the usual spelling of one is read here directly).
    fn id(&mut self) -> Option<Id> {
        if self.bytes.get(self.pos) == Some(&b'"') {
            return Some(Id::String(ascii(self.plain_string()?)?.to_owned()));
        }
        let rest = self.bytes.get(self.pos..)?;
        let len = rest.iter().take_while(|b| matches!(b, b'-' | b'0'..=b'9')).count();
        let text = &rest[..len];
        let number = match usual_integer(text) {
            Some(n) => Number::from(n),
            None => Number::parse(ascii(text)?)?,
        };
        number.as_i64()?;
        self.pos += len;
        Some(Id::Number(number))
    }
}

/// The integer `text` spells the way an `i64` prints, in at most 18 digits (so it always fits):
/// the text [`Number::parse`] keeps as that integer. `None` for every other text (`-0`, `01`,
/// longer ones), which `Number::parse` then reads.
fn usual_integer(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text.split_first() {
        Some((b'-', digits)) => (true, digits),
        _ => (false, text),
    };
    let usual =
        matches!(digits, [b'1'..=b'9', ..] if digits.len() <= 18) || (digits == b"0" && !negative);
    if !usual {
        return None;
    }
    let magnitude = i64::try_from(crate::decimal::parse_u64(digits)?).ok()?;
    Some(if negative { -magnitude } else { magnitude })
}

/// Bytes the scan has restricted to ASCII, as text.
fn ascii(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn words(text: &str) -> Option<&'static str> {
        ["ping", "jsonrpc", "id", "method", "params"].into_iter().find(|w| *w == text)
    }

    /// The slow path's answer: the strict decoder, then the message rules.
    fn slow(body: &[u8], depth_max: usize) -> Option<Message> {
        let value = json::decode_sharing(body, depth_max, words).ok()?;
        Message::from_value(value).ok()
    }

    #[test]
    fn the_fast_path_takes_flat_envelopes_and_agrees_with_the_slow_path() {
        // (body, depth budget, whether the fast path takes it)
        let rows: [(&str, usize, bool); 47] = [
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, 64, true),
            (r#"{"method":"ping","id":1,"jsonrpc":"2.0"}"#, 64, true),
            (
                r#" { "jsonrpc" : "2.0" ,	"id" : 7 ,
"method" : "ping" } "#,
                64,
                true,
            ),
            (r#"{"jsonrpc":"2.0","id":"a b","method":"ping"}"#, 64, true),
            (r#"{"jsonrpc":"2.0","id":"","method":"ping"}"#, 64, true),
            (r#"{"jsonrpc":"2.0","id":-0,"method":"ping"}"#, 64, true),
            (r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}"#, 64, true),
            (r#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"x/y"}"#, 64, true),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}"#, 64, true),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{ }}"#, 2, true),
            (r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, 64, true),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, 1, true),
            // Left to the slow path, which decides them (an error or a message).
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}"#, 1, false),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, 0, false),
            (r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1e2,"method":"ping"}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":01,"method":"ping"}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":-,"method":"ping"}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1,"method":""}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":"é","method":"ping"}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1}}"#, 64, true),
            (r#"{"params":{"a":{"b":[1,"\u00e9"]}},"jsonrpc":"2.0","id":1,"method":"x"}"#, 4, true),
            (
                r#"{"params":{"a":{"b":[1,"\u00e9"]}},"jsonrpc":"2.0","id":1,"method":"x"}"#,
                3,
                false,
            ),
            (r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1,"a":2}}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":NaN}}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{},"params":{}}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1,"method":"x","params":"{}"}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"initialize"}"#, 64, false),
            (r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#, 64, false),
            (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, 64, false),
            (r#"{"id":1,"method":"ping"}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping",}"#, 64, false),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping""#, 64, false),
            (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, 64, false),
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\tng\"}", 64, false),
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\u{a0}\"method\":\"ping\"}", 64, false),
            ("{}", 64, false),
        ];
        for (row, (body, depth_max, taken)) in rows.into_iter().enumerate() {
            let fast = flat_message(body.as_bytes(), depth_max, words);
            assert_eq!(fast.is_some(), taken, "row {row}: {body}");
            if fast.is_some() {
                assert_eq!(fast, slow(body.as_bytes(), depth_max), "row {row}: {body}");
            }
        }
    }

    #[test]
    fn usual_integers_are_the_numbers_the_parser_keeps_as_integers() {
        let texts = [
            "0",
            "7",
            "-7",
            "10",
            "-0",
            "00",
            "01",
            "-01",
            "-",
            "",
            "1-",
            "999999999999999999",
            "-999999999999999999",
            "1000000000000000000",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
        ];
        for text in texts {
            if let Some(n) = usual_integer(text.as_bytes()) {
                assert_eq!(Some(Number::from(n)), Number::parse(text), "{text}");
            }
        }
        assert_eq!(usual_integer(b"-999999999999999999"), Some(-999_999_999_999_999_999));
        assert_eq!(usual_integer(b"1000000000000000000"), None);
    }

    #[test]
    fn every_prefix_and_every_byte_change_of_an_envelope_agrees_with_the_slow_path() {
        let body = br#"{"jsonrpc":"2.0","id":-12,"method":"ping","params":{"a":[1,"b"],"c":{}}}"#;
        for end in 0..=body.len() {
            let fast = flat_message(&body[..end], 64, words);
            assert!(fast.is_none() || fast == slow(&body[..end], 64), "prefix of {end}");
        }
        for at in 0..body.len() {
            for byte in 0..=255u8 {
                let mut changed = body.to_vec();
                changed[at] = byte;
                let fast = flat_message(&changed, 64, words);
                assert!(fast.is_none() || fast == slow(&changed, 64), "{byte:#04x} at {at}");
            }
        }
    }
}
