//! The values the probe must never print, and the one redaction every text it writes passes:
//! the grid, the JSON rows, the JUnit report, the messages on stderr (the wire trace redacts by
//! the same values, handed to it as they are learned).
//!
//! Which values: every token it was given (`--token`, `--other-token`), the value of every field
//! `--header` adds (it may be a credential), and every session id a server issued to it. A
//! session id shorter than [`SESSION_ID_BYTES_MIN`] is no secret (a guessable id protects
//! nothing), and replacing it everywhere would unmake the grid; a token is redacted at any length.
//!
//! Not here: the closed vocabulary that keeps a server's bytes out of the grid in the first place
//! (`shown`).

/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// The shortest session id treated as a secret.
pub const SESSION_ID_BYTES_MIN: usize = 8;

/// The secrets known so far.
#[derive(Clone, Debug, Default)]
pub struct Secrets {
    values: Vec<String>,
}

impl Secrets {
    /// Adds a value given to the probe: a token or a header's value.
    pub fn given(&mut self, value: &str) {
        if !value.is_empty() && !self.values.iter().any(|v| v == value) {
            self.values.push(value.to_owned());
            // The longest first, so that no shorter secret splits a longer one.
            self.values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        }
    }

    /// Whether a session id a server issued is long enough to be a secret.
    pub fn is_secret_id(id: &str) -> bool {
        id.len() >= SESSION_ID_BYTES_MIN
    }

    /// `text` with every secret replaced.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for value in &self.values {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), REDACTED);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_secret_is_replaced_wherever_it_appears_and_short_ids_are_not_secrets() {
        let mut secrets = Secrets::default();
        secrets.given("tok");
        secrets.given("tok123456");
        for id in ["session-0123", "s1"].into_iter().filter(|id| Secrets::is_secret_id(id)) {
            secrets.given(id);
        }
        let cases = [
            ("Bearer tok123456", "Bearer [redacted]"),
            ("a tok b", "a [redacted] b"),
            ("id session-0123 and s1", "id [redacted] and s1"),
            ("nothing here", "nothing here"),
        ];
        for (text, expected) in cases {
            assert_eq!(secrets.redact(text), expected, "{text}");
        }
        assert!(!format!("{:?}", secrets.redact("tok123456")).contains("tok"));
    }
}
