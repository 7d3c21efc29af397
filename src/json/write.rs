//! Writing JSON text straight into a buffer, for the replies whose shape is fixed in code: no
//! [`super::Value`] tree is built, allocated and dropped only to be encoded once.
//!
//! [`ObjectWriter`] appends one object member by member; nested objects and arrays are written
//! by closures, so the nesting is the code's own and no input decides it. Strings, keys included,
//! go through the encoder's one escaping function ([`escape_into`]), so the text is exactly what
//! [`super::encode`] would write for the same value, provided the members are written in key
//! order, as the encoder writes them; the tests of every writer compare its text with the
//! encoding of the value it decodes to.
//!
//! What it does not do: check key order or repeated keys at run time (the keys are the code's
//! own constants, and the tests compare), or bound its output (the caller's response budget does).

use std::fmt;

use super::encode::{encode_into, escape_into};
use super::value::{Number, Value};

/// An object being written into a `String`: `{` is written when it opens, `}` when it closes.
#[derive(Debug)]
pub struct ObjectWriter<'o> {
    out: &'o mut String,
    started: bool,
}

impl<'o> ObjectWriter<'o> {
    /// Opens an object at the end of `out`.
    pub fn open(out: &'o mut String) -> ObjectWriter<'o> {
        out.push('{');
        ObjectWriter { out, started: false }
    }

    /// Writes the object `write` fills into `out` and closes it.
    pub fn write(out: &mut String, write: impl FnOnce(&mut ObjectWriter<'_>)) {
        let mut object = ObjectWriter::open(out);
        write(&mut object);
        object.close();
    }

    /// Ends the object.
    pub fn close(self) {
        self.out.push('}');
    }

    /// The key of the next member, and its `:`.
    fn key(&mut self, key: &str) -> &mut String {
        if std::mem::replace(&mut self.started, true) {
            self.out.push(',');
        }
        self.out.push('"');
        escape_into(key, self.out);
        self.out.push_str("\":");
        self.out
    }

    /// A string member.
    pub fn string(&mut self, key: &str, value: &str) -> &mut Self {
        let out = self.key(key);
        out.push('"');
        escape_into(value, out);
        out.push('"');
        self
    }

    /// A string member whose text `write` produces in pieces (through [`fmt::Write`]), each
    /// piece escaped as it arrives, so the text is never assembled in a buffer of its own.
    pub fn string_with(
        &mut self,
        key: &str,
        write: impl FnOnce(&mut StringWriter<'_>),
    ) -> &mut Self {
        let out = self.key(key);
        out.push('"');
        write(&mut StringWriter { out });
        out.push('"');
        self
    }

    /// A number member.
    pub fn number(&mut self, key: &str, value: &Number) -> &mut Self {
        value.write_to(self.key(key));
        self
    }

    /// An integer member.
    pub fn integer(&mut self, key: &str, value: i64) -> &mut Self {
        self.number(key, &Number::from(value))
    }

    /// A member holding a whole value, as the encoder writes it (for a value that came in a
    /// request, such as an id or a progress token, written back as it came).
    pub fn value(&mut self, key: &str, value: &Value) -> &mut Self {
        encode_into(value, self.key(key));
        self
    }

    /// A `true` or `false` member.
    pub fn boolean(&mut self, key: &str, value: bool) -> &mut Self {
        self.key(key).push_str(if value { "true" } else { "false" });
        self
    }

    /// A member holding the object `write` fills.
    pub fn object(&mut self, key: &str, write: impl FnOnce(&mut ObjectWriter<'_>)) -> &mut Self {
        ObjectWriter::write(self.key(key), write);
        self
    }

    /// A member holding an array of strings.
    pub fn strings<'s>(
        &mut self,
        key: &str,
        items: impl IntoIterator<Item = &'s str>,
    ) -> &mut Self {
        let out = self.key(key);
        out.push('[');
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push('"');
            escape_into(item, out);
            out.push('"');
        }
        out.push(']');
        self
    }

    /// A member holding an array with one object per item, each filled by `write`.
    pub fn objects<T>(
        &mut self,
        key: &str,
        items: impl IntoIterator<Item = T>,
        mut write: impl FnMut(&mut ObjectWriter<'_>, T),
    ) -> &mut Self {
        let out = self.key(key);
        out.push('[');
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            ObjectWriter::write(out, |object| write(object, item));
        }
        out.push(']');
        self
    }
}

/// The inside of a string member: every piece written through it is escaped.
#[derive(Debug)]
pub struct StringWriter<'o> {
    out: &'o mut String,
}

impl fmt::Write for StringWriter<'_> {
    fn write_str(&mut self, piece: &str) -> fmt::Result {
        escape_into(piece, self.out);
        Ok(())
    }
}

/// The text of the object `write` fills, in a buffer of `capacity` bytes to start with.
pub fn object_text(capacity: usize, write: impl FnOnce(&mut ObjectWriter<'_>)) -> String {
    let mut out = String::with_capacity(capacity);
    ObjectWriter::write(&mut out, write);
    out
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;

    use super::*;
    use crate::json::{decode, encode};

    /// The writer's text decodes, and the encoder writes the decoded value back byte for byte.
    fn assert_canonical(text: &str) {
        let value = decode(text.as_bytes(), 16).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        assert_eq!(encode(&value), text);
    }

    /// Fills an object.
    type Fill = fn(&mut ObjectWriter<'_>);

    #[test]
    fn members_of_every_kind_are_written_as_the_encoder_writes_them() {
        let cases: [(Fill, &str); 7] = [
            (|_| {}, "{}"),
            (
                |o| {
                    o.string("a", "q\"\\\n\u{1}é");
                },
                r#"{"a":"q\"\\\n\u0001é"}"#,
            ),
            (
                |o| {
                    o.integer("a", -7).boolean("b", true).boolean("c", false);
                },
                r#"{"a":-7,"b":true,"c":false}"#,
            ),
            (
                |o| {
                    o.object("a", |_| {}).object("b", |o| {
                        o.integer("c", 1);
                    });
                },
                r#"{"a":{},"b":{"c":1}}"#,
            ),
            (
                |o| {
                    o.objects("a", [1, 2], |o, n| {
                        o.integer("n", n);
                    });
                },
                r#"{"a":[{"n":1},{"n":2}]}"#,
            ),
            (
                |o| {
                    o.objects("a", [0; 0], |o, n| {
                        o.integer("n", n);
                    });
                },
                r#"{"a":[]}"#,
            ),
            (
                |o| {
                    o.object("a", |_| {}).string_with("b", |s| {
                        let _ = write!(s, "x\"{}", 5);
                    });
                },
                r#"{"a":{},"b":"x\"5"}"#,
            ),
        ];
        for (fill, expected) in cases {
            let text = object_text(0, fill);
            assert_eq!(text, expected);
            assert_canonical(&text);
        }
    }

    #[test]
    fn keys_are_escaped_like_values() {
        let text = object_text(0, |o| {
            o.string("k\"", "v");
        });
        assert_eq!(text, r#"{"k\"":"v"}"#);
        assert_canonical(&text);
    }
}
