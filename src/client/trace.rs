//! The wire trace: every request and response head (and the start of each body) as it crossed
//! the wire, with secrets replaced, safe to paste into a bug report. Two renderings: by lines
//! ([`TraceMode::Lines`], readable), or byte for byte ([`TraceMode::Bytes`]): CR, LF and every
//! other control or non-ASCII byte escaped (`\r`, `\n`, `\x00`), and a mark where the head ends
//! and the body begins, so that framing (a bare LF, a missing empty line) can be seen.
//!
//! Redaction is by value, not by field name: every bearer token and session id the client has
//! seen is replaced wherever it appears (in `Authorization`, in `MCP-Session-Id`, in a URL or a
//! body), and the value of any `Authorization` field is replaced whole, even for a token the client
//! never learned. The marker says what was removed, not what it was.

use std::io::Write;

use crate::http::CREDENTIAL_FIELDS;
use crate::http::chars::escape_into;

/// What replaces a secret in the trace.
pub const REDACTED: &str = "[redacted]";

/// How much of a body the trace shows.
const BODY_BYTES_SHOWN: usize = 600;

/// How a trace shows the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TraceMode {
    /// Nothing is printed.
    #[default]
    Off,
    /// Line by line, readable.
    Lines,
    /// Byte for byte, with line endings and control bytes escaped.
    Bytes,
}

/// A trace sink with the secrets it must never print.
#[derive(Debug, Default)]
pub struct Trace {
    mode: TraceMode,
    secrets: Vec<String>,
}

impl Trace {
    /// A trace that prints lines to stderr when `enabled`.
    pub fn new(enabled: bool) -> Trace {
        Trace::with_mode(if enabled { TraceMode::Lines } else { TraceMode::Off })
    }

    /// A trace that prints to stderr as `mode` says.
    pub fn with_mode(mode: TraceMode) -> Trace {
        Trace { mode, secrets: Vec::new() }
    }

    /// Adds a value that must never be printed.
    pub fn secret(&mut self, value: &str) {
        if !value.is_empty() && !self.secrets.iter().any(|s| s == value) {
            self.secrets.push(value.to_owned());
        }
    }

    /// Shows bytes that went out (`>`) or came in (`<`).
    pub fn wire(&self, direction: char, bytes: &[u8]) {
        let rendered = match self.mode {
            TraceMode::Off => return,
            TraceMode::Lines => self.redact_message(bytes),
            TraceMode::Bytes => self.escaped_message(bytes),
        };
        let mut stderr = std::io::stderr().lock();
        for line in rendered.lines() {
            let _ = writeln!(stderr, "{direction} {line}");
        }
    }

    /// One message rendered byte for byte, as [`TraceMode::Bytes`] prints it, whatever the
    /// trace's own mode: for commands that show an exchange on purpose.
    pub fn render_bytes(&self, bytes: &[u8]) -> String {
        self.escaped_message(bytes)
    }

    /// One message byte for byte: the head with its line endings written out (`\r\n`, a bare
    /// `\n` shows as itself), a mark where it ends, then at most the first bytes of the body.
    /// Credential fields and known secrets are redacted first, as in the line rendering.
    fn escaped_message(&self, bytes: &[u8]) -> String {
        let head_end = bytes.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
        let (head, body) = bytes.split_at(head_end.unwrap_or(bytes.len()));
        let mut out = String::new();
        for line in head.split_inclusive(|&b| b == b'\n') {
            let line = match line.iter().position(|&b| b == b':') {
                Some(colon) if is_credential_field(&String::from_utf8_lossy(&line[..colon])) => {
                    let ending =
                        line.len() - line.iter().rev().take_while(|b| b"\r\n".contains(b)).count();
                    [&line[..colon], b": ", REDACTED.as_bytes(), &line[ending..]].concat()
                }
                _ => line.to_vec(),
            };
            out.push_str(&escape(&self.redact_bytes(&line)));
            out.push('\n');
        }
        match head_end {
            Some(end) if body.is_empty() => {
                out.push_str(&format!("-- end of head ({end} bytes), no body\n"));
            }
            Some(end) => {
                out.push_str(&format!(
                    "-- end of head ({end} bytes); body ({} bytes):\n",
                    body.len()
                ));
                let body = self.redact_bytes(body);
                let cut = body.len().min(BODY_BYTES_SHOWN);
                out.push_str(&escape(&body[..cut]));
                if body.len() > cut {
                    out.push_str(&format!(" [... {} more bytes]", body.len() - cut));
                }
                out.push('\n');
            }
            None => out.push_str("-- no empty line: the head never ended\n"),
        }
        out
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

    /// `bytes` with every known secret replaced, byte for byte (nothing else changes).
    fn redact_bytes(&self, bytes: &[u8]) -> Vec<u8> {
        let mut out = bytes.to_vec();
        for secret in self.secrets.iter().map(String::as_bytes) {
            let mut replaced = Vec::with_capacity(out.len());
            let mut rest = out.as_slice();
            while let Some(at) = rest.windows(secret.len()).position(|w| w == secret) {
                replaced.extend_from_slice(&rest[..at]);
                replaced.extend_from_slice(REDACTED.as_bytes());
                rest = &rest[at + secret.len()..];
            }
            replaced.extend_from_slice(rest);
            out = replaced;
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

/// Bytes as printable ASCII: `\r`, `\n`, `\t` and `\\` escaped, every other control or
/// non-ASCII byte as `\xNN`. A trailing LF keeps its line break after the escape.
fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        escape_into(b, &mut out);
    }
    out
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
    fn bytes_show_line_endings_and_where_the_head_ends() {
        let mut trace = Trace::new(false);
        trace.secret("tok123");
        let cases: [(&[u8], &str); 4] = [
            (
                b"POST /mcp HTTP/1.1\r\nAuthorization: Bearer tok123\r\n\r\n{\"a\":\"tok123\"}",
                "POST /mcp HTTP/1.1\\r\\n\nAuthorization: [redacted]\\r\\n\n\\r\\n\n-- end of head (52 bytes); body (14 bytes):\n{\"a\":\"[redacted]\"}\n",
            ),
            (
                b"GET /mcp HTTP/1.1\nHost: a\r\n\r\n",
                "GET /mcp HTTP/1.1\\n\nHost: a\\r\\n\n\\r\\n\n-- end of head (29 bytes), no body\n",
            ),
            (
                b"GET /\x00\t\xff HTTP/1.1\r\n",
                "GET /\\x00\\t\\xff HTTP/1.1\\r\\n\n-- no empty line: the head never ended\n",
            ),
            (
                b"HTTP/1.1 204 No Content\r\n\r\n",
                "HTTP/1.1 204 No Content\\r\\n\n\\r\\n\n-- end of head (27 bytes), no body\n",
            ),
        ];
        for (bytes, expected) in cases {
            assert_eq!(trace.escaped_message(bytes), expected);
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
