//! `WWW-Authenticate: Bearer ...` challenges (RFC 6750 §3, RFC 9728 §5.1), rendered exactly.
//!
//! A challenge is the scheme followed by `name="value"` parameters separated by `, `. Values are
//! written as quoted-strings with `"` and `\` escaped. The values this project passes are a URL
//! it built itself and scope tokens (which cannot contain either character), so the escaping is
//! there for correctness, not because input reaches it; control characters never do, and the
//! response writer refuses any header value containing one.

/// A `Bearer` challenge being written: `Bearer name1="value1", name2="value2", ...`, in one
/// buffer sized for the usual challenge, so rendering one takes one allocation.
#[derive(Debug)]
pub struct Bearer(String);

impl Bearer {
    /// `Bearer`, with no parameter yet, written into `out` (cleared first, its room kept);
    /// `capacity` is the room to reserve.
    pub fn in_buffer(mut out: String, capacity: usize) -> Bearer {
        out.clear();
        out.reserve(capacity);
        out.push_str("Bearer");
        Bearer(out)
    }

    /// Adds `name="value"`.
    pub fn param(self, name: &str, value: &str) -> Bearer {
        self.param_words(name, &[value])
    }

    /// Adds `name="word1 word2 ..."`: the words joined by single spaces, as one quoted value.
    pub fn param_words(mut self, name: &str, words: &[&str]) -> Bearer {
        let out = &mut self.0;
        out.push_str(if out.len() == "Bearer".len() { " " } else { ", " });
        out.push_str(name);
        out.push_str("=\"");
        for (i, word) in words.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            push_quoted_text(word, out);
        }
        out.push('"');
        self
    }

    /// The challenge's text.
    pub fn into_string(self) -> String {
        self.0
    }
}

/// Appends `value` as a quoted-string (RFC 9110 §5.6.4).
pub fn push_quoted(value: &str, out: &mut String) {
    out.push('"');
    push_quoted_text(value, out);
    out.push('"');
}

/// Appends the inside of a quoted-string: `value` with `"` and `\` escaped.
fn push_quoted_text(value: &str, out: &mut String) {
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_render_exactly() {
        let cases: [(Bearer, &str); 5] = [
            (Bearer::in_buffer(String::new(), 0), "Bearer"),
            (
                Bearer::in_buffer(String::new(), 0).param("error", "invalid_token"),
                r#"Bearer error="invalid_token""#,
            ),
            (
                Bearer::in_buffer(String::new(), 0).param("realm", "a\"b\\c").param("scope", "x y"),
                r#"Bearer realm="a\"b\\c", scope="x y""#,
            ),
            (Bearer::in_buffer(String::new(), 0).param("scope", ""), r#"Bearer scope="""#),
            (
                Bearer::in_buffer(String::new(), 64)
                    .param_words("scope", &["a", "b\"", "c"])
                    .param_words("x", &[]),
                r#"Bearer scope="a b\" c", x="""#,
            ),
        ];
        for (challenge, expected) in cases {
            assert_eq!(challenge.into_string(), expected);
        }
    }
}
