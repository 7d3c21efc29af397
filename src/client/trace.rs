//! The wire trace: every request and response head (and the start of each body) as it crossed
//! the wire, with secrets replaced, safe to paste into a bug report.
//!
//! Redaction is by value, not by field name: every bearer token and session id the client has
//! seen is replaced wherever it appears (in `Authorization`, in `MCP-Session-Id`, in a URL or a
//! body), and the value of any `Authorization` field is replaced whole, even for a token the client
//! never learned. The marker says what was removed, not what it was.

use std::io::Write;

use crate::http::CREDENTIAL_FIELDS;

/// What replaces a secret in the trace.
pub const REDACTED: &str = "[redacted]";

/// How much of a body the trace shows.
const BODY_BYTES_SHOWN: usize = 600;

/// A trace sink with the secrets it must never print.
#[derive(Debug, Default)]
pub struct Trace {
    /// Print to stderr.
    enabled: bool,
    secrets: Vec<String>,
}

impl Trace {
    /// A trace that prints to stderr when `enabled`.
    pub fn new(enabled: bool) -> Trace {
        Trace { enabled, secrets: Vec::new() }
    }

    /// Adds a value that must never be printed.
    pub fn secret(&mut self, value: &str) {
        if !value.is_empty() && !self.secrets.iter().any(|s| s == value) {
            self.secrets.push(value.to_owned());
        }
    }

    /// Shows bytes that went out (`>`) or came in (`<`).
    pub fn wire(&self, direction: char, bytes: &[u8]) {
        if !self.enabled {
            return;
        }
        let mut stderr = std::io::stderr().lock();
        for line in self.redact_message(bytes).lines() {
            let _ = writeln!(stderr, "{direction} {line}");
        }
    }

    /// A readable, redacted rendering of one HTTP message: the head line by line (a bare LF
    /// ends a line too), then at most the first bytes of the body, redacted before it is cut so
    /// that no secret can straddle the cut.
    fn redact_message(&self, bytes: &[u8]) -> String {
        let head_end =
            bytes.windows(4).position(|w| w == b"\r\n\r\n").map_or(bytes.len(), |i| i + 4);
        let mut out = String::new();
        let head = String::from_utf8_lossy(&bytes[..head_end]);
        for line in head.split('\n').map(|l| l.trim_end_matches('\r')).filter(|l| !l.is_empty()) {
            let line = match line.split_once(':') {
                Some((name, _)) if is_credential_field(name) => format!("{name}: {REDACTED}"),
                _ => line.to_owned(),
            };
            out.push_str(&self.redact(&line));
            out.push('\n');
        }
        let body = &bytes[head_end..];
        if !body.is_empty() {
            let body = self.redact(&String::from_utf8_lossy(body));
            let mut cut = body.len().min(BODY_BYTES_SHOWN);
            while !body.is_char_boundary(cut) {
                cut -= 1;
            }
            out.push_str(&body[..cut]);
            if body.len() > cut {
                out.push_str(&format!("\n[... {} more bytes]", body.len() - cut));
            }
            out.push('\n');
        }
        out
    }

    /// `text` with every known secret replaced.
    pub fn redact(&self, text: &str) -> String {
        self.secrets
            .iter()
            .fold(text.to_owned(), |text, secret| text.replace(secret.as_str(), REDACTED))
    }
}

/// A field whose value is a credential whatever it holds (the name as sent, spaces allowed
/// around it: a trace shows what went over the wire, even malformed).
fn is_credential_field(name: &str) -> bool {
    CREDENTIAL_FIELDS.iter().any(|c| name.trim().eq_ignore_ascii_case(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_replaced_everywhere_and_credential_fields_always() {
        let mut trace = Trace::new(false);
        trace.secret("tok123");
        trace.secret("sess456");
        let cases: [(&[u8], &str); 3] = [
            (
                b"GET /mcp?t=tok123 HTTP/1.1\r\nAuthorization: Bearer unknown-token\r\nMCP-Session-Id: sess456\r\n\r\n{\"x\":\"tok123\"}",
                "GET /mcp?t=[redacted] HTTP/1.1\nAuthorization: [redacted]\nMCP-Session-Id: [redacted]\n{\"x\":\"[redacted]\"}\n",
            ),
            (
                b"GET /mcp HTTP/1.1\nauthorization : Bearer unseen\r\nCookie: a=b\r\n\r\n",
                "GET /mcp HTTP/1.1\nauthorization : [redacted]\nCookie: [redacted]\n",
            ),
            (
                b"HTTP/1.1 200 OK\r\nMcp-Session-Id: never-learned\r\n\r\n",
                "HTTP/1.1 200 OK\nMcp-Session-Id: [redacted]\n",
            ),
        ];
        for (bytes, expected) in cases {
            assert_eq!(trace.redact_message(bytes), expected);
        }
    }

    #[test]
    fn a_secret_across_the_body_cut_is_still_redacted() {
        let mut trace = Trace::new(false);
        trace.secret("secret-token-value");
        let mut message = b"POST /mcp HTTP/1.1\r\n\r\n".to_vec();
        message.extend(std::iter::repeat_n(b'x', BODY_BYTES_SHOWN - 5));
        message.extend_from_slice(b"secret-token-value and more");
        let shown = trace.redact_message(&message);
        assert!(!shown.contains("secret"), "{shown}");
        assert!(!shown.contains("token-value"), "{shown}");
    }
}
