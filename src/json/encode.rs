//! The encoder: one [`Value`] to compact JSON text, without recursion.
//!
//! Strings escape `"`, `\` and every control character below U+0020 (with the short forms
//! `\b \f \n \r \t` where they exist, `\u00XX` otherwise); everything else, non-ASCII included,
//! is written as UTF-8. No whitespace is added. Object members come out in key order.

use std::slice;

use super::stack::Stack;
use super::value::{self, Value};

/// The JSON text of `value`.
pub fn encode(value: &Value) -> String {
    let mut out = String::new();
    encode_into(value, &mut out);
    out
}

/// A container being written: the elements still to write, and whether one was written yet.
enum Open<'v> {
    Array(slice::Iter<'v, Value>, bool),
    Object(value::Iter<'v>, bool),
}

/// Appends the JSON text of `value` to `out`.
pub fn encode_into(value: &Value, out: &mut String) {
    let mut stack: Stack<Open<'_>> = Stack::new();
    let mut next = Some(value);
    loop {
        if let Some(value) = next.take() {
            match value {
                Value::Null => out.push_str("null"),
                Value::Bool(true) => out.push_str("true"),
                Value::Bool(false) => out.push_str("false"),
                Value::Number(n) => n.write_to(out),
                Value::String(s) => encode_string_into(s, out),
                Value::Array(items) => {
                    out.push('[');
                    stack.push(Open::Array(items.iter(), false));
                }
                Value::Object(members) => {
                    out.push('{');
                    stack.push(Open::Object(members.iter(), false));
                }
            }
        }
        let Some(top) = stack.last_mut() else {
            return;
        };
        match top {
            Open::Array(items, started) => match items.next() {
                Some(item) => {
                    if std::mem::replace(started, true) {
                        out.push(',');
                    }
                    next = Some(item);
                }
                None => {
                    out.push(']');
                    stack.pop();
                }
            },
            Open::Object(members, started) => match members.next() {
                Some((key, item)) => {
                    if std::mem::replace(started, true) {
                        out.push(',');
                    }
                    encode_string_into(key, out);
                    out.push(':');
                    next = Some(item);
                }
                None => {
                    out.push('}');
                    stack.pop();
                }
            },
        }
    }
}

/// Appends `s` as a quoted JSON string.
pub fn encode_string_into(s: &str, out: &mut String) {
    out.push('"');
    escape_into(s, out);
    out.push('"');
}

/// Appends `s` escaped for the inside of a JSON string: the one place strings are escaped, for
/// the encoder and for [`super::ObjectWriter`] alike.
pub fn escape_into(s: &str, out: &mut String) {
    let needs_escape = |byte: u8| byte < 0x20 || byte == b'"' || byte == b'\\';
    // Most strings need no escape at all: one scan, one copy.
    let Some(first) = s.bytes().position(needs_escape) else {
        out.push_str(s);
        return;
    };
    let mut run_start = 0;
    for (i, byte) in s.bytes().enumerate().skip(first) {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[run_start..i]);
        if escape.is_empty() {
            out.push_str("\\u00");
            out.extend(crate::decimal::hex_pair(byte).map(char::from));
        } else {
            out.push_str(escape);
        }
        run_start = i + 1;
    }
    out.push_str(&s[run_start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_escape_quotes_backslashes_and_controls_only() {
        let cases: [(&str, &str); 6] = [
            ("", r#""""#),
            ("plain", r#""plain""#),
            ("a\"b\\c", r#""a\"b\\c""#),
            ("\n\r\t\u{8}\u{c}", r#""\n\r\t\b\f""#),
            ("\u{0}\u{1f}\u{7f}", "\"\\u0000\\u001f\u{7f}\""),
            ("é/\u{2028}😀", "\"é/\u{2028}😀\""),
        ];
        for (input, expected) in cases {
            let mut out = String::new();
            encode_string_into(input, &mut out);
            assert_eq!(out, expected);
        }
    }
}
