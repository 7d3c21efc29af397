//! The wire trace: every request and response head (and the start of each body) as it crossed
//! the wire, with secrets replaced, safe to paste into a bug report.
//!
//! Redaction is by value, not by field name: every bearer token and session id the client has
//! seen is replaced wherever it appears (in `Authorization`, in `MCP-Session-Id`, in a URL or a
//! body), and the value of any `Authorization` field is replaced whole, even for a token the client
//! never learned. The marker says what was removed, not what it was.

use std::io::Write;

/// What replaces a secret in the trace.
pub const REDACTED: &str = "[redacted]";

/// How much of a body the trace shows.
const BODY_BYTES_SHOWN: usize = 600;

/// A trace sink with the secrets it must never print.
#[derive(Debug, Default)]
pub struct Trace {
    /// Print to stderr.
    enabled: bool,
    /// Keep the lines (for tests).
    recording: bool,
    secrets: Vec<String>,
    lines: Vec<String>,
}

impl Trace {
    /// A trace that prints to stderr when `enabled`.
    pub fn new(enabled: bool) -> Trace {
        Trace { enabled, recording: false, secrets: Vec::new(), lines: Vec::new() }
    }

    /// A trace that keeps what it would print (for tests).
    pub fn recording() -> Trace {
        Trace { enabled: false, recording: true, secrets: Vec::new(), lines: Vec::new() }
    }

    /// Adds a value that must never be printed.
    pub fn secret(&mut self, value: &str) {
        if !value.is_empty() && !self.secrets.iter().any(|s| s == value) {
            self.secrets.push(value.to_owned());
        }
    }

    /// Every line recorded so far (recording traces only keep them).
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// Shows bytes that went out (`>`) or came in (`<`).
    pub fn wire(&mut self, direction: char, bytes: &[u8]) {
        if !self.enabled && !self.recording {
            return;
        }
        let text = self.redact_message(bytes);
        for line in text.lines() {
            let shown = format!("{direction} {line}");
            if self.enabled {
                let _ = writeln!(std::io::stderr(), "{shown}");
            }
            if self.recording {
                self.lines.push(shown);
            }
        }
    }

    /// A readable, redacted rendering of one HTTP message: the head line by line, then at most
    /// the first bytes of the body.
    fn redact_message(&self, bytes: &[u8]) -> String {
        let head_end =
            bytes.windows(4).position(|w| w == b"\r\n\r\n").map_or(bytes.len(), |i| i + 4);
        let mut out = String::new();
        for line in
            String::from_utf8_lossy(&bytes[..head_end]).split("\r\n").filter(|l| !l.is_empty())
        {
            let line = match line.split_once(':') {
                Some((name, _)) if name.eq_ignore_ascii_case("authorization") => {
                    format!("{name}: {REDACTED}")
                }
                _ => line.to_owned(),
            };
            out.push_str(&self.redact(&line));
            out.push('\n');
        }
        let body = &bytes[head_end..];
        if !body.is_empty() {
            let shown = &body[..body.len().min(BODY_BYTES_SHOWN)];
            out.push_str(&self.redact(&String::from_utf8_lossy(shown)));
            if body.len() > BODY_BYTES_SHOWN {
                out.push_str(&format!("\n[... {} more bytes]", body.len() - BODY_BYTES_SHOWN));
            }
            out.push('\n');
        }
        out
    }

    fn redact(&self, text: &str) -> String {
        self.secrets
            .iter()
            .fold(text.to_owned(), |text, secret| text.replace(secret.as_str(), REDACTED))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_replaced_everywhere_and_authorization_always() {
        let mut trace = Trace::recording();
        trace.secret("tok123");
        trace.secret("sess456");
        trace.wire(
            '>',
            b"GET /mcp?t=tok123 HTTP/1.1\r\nAuthorization: Bearer unknown-token\r\nMCP-Session-Id: sess456\r\n\r\n{\"x\":\"tok123\"}",
        );
        let text = trace.lines().join("\n");
        assert_eq!(
            text,
            "> GET /mcp?t=[redacted] HTTP/1.1\n> Authorization: [redacted]\n> MCP-Session-Id: [redacted]\n> {\"x\":\"[redacted]\"}"
        );
    }
}
