//! What the codecs make of some bytes, as one JSON value: the `inspect` command's engine.
//!
//! A way to study the parsers from a shell: feed a request, a response, a JSON text or an SSE
//! stream and read the verdict (the head's parts, or the status, public code and offset of the
//! refusal). Pure: bytes and limits in, a [`Value`] out; reading files and printing is `main`'s.
//!
//! Credentials are not repeated back: the values of `Authorization`, `Proxy-Authorization`,
//! `Cookie`, `Set-Cookie` and `MCP-Session-Id` are replaced by their length, so a report can be
//! pasted anywhere. Other field values are shown with non-UTF-8 bytes replaced.

use crate::http::{FieldList, Parsed, RequestParser, ResponseParser};
use crate::json::{self, Object, Value, object};
use crate::limits::Limits;
use crate::sse;

/// Which codec to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    Request,
    Response,
    Json,
    Sse,
}

impl Subject {
    /// The subject named on the command line.
    pub fn from_name(name: &str) -> Option<Subject> {
        Some(match name {
            "request" => Subject::Request,
            "response" => Subject::Response,
            "json" => Subject::Json,
            "sse" => Subject::Sse,
            _ => return None,
        })
    }
}

/// The verdict on `input`; `accepted` is false for refusals and incomplete input.
pub struct Report {
    pub accepted: bool,
    pub value: Value,
}

/// Runs one codec over `input`.
pub fn inspect(subject: Subject, input: &[u8], limits: &Limits) -> Report {
    match subject {
        Subject::Request => request(input, limits),
        Subject::Response => response(input, limits),
        Subject::Json => json_text(input, limits),
        Subject::Sse => sse_stream(input, limits),
    }
}

fn refused(code: &str, offset: usize, status: Option<u16>) -> Report {
    let mut members = Object::new();
    members.insert("verdict".into(), "refused".into());
    members.insert("code".into(), code.into());
    members.insert("offset".into(), Value::from(offset as u64));
    if let Some(status) = status {
        members.insert("status".into(), Value::from(u64::from(status)));
    }
    Report { accepted: false, value: Value::Object(members) }
}

fn incomplete() -> Report {
    Report { accepted: false, value: object([("verdict", "incomplete".into())]) }
}

fn fields_value(fields: &FieldList<'_>) -> Value {
    let shown = fields.iter().map(|f| {
        let redact = crate::http::CREDENTIAL_FIELDS.iter().any(|r| f.name.eq_ignore_ascii_case(r));
        let value = if redact {
            format!("<redacted: {} bytes>", f.value.len())
        } else {
            String::from_utf8_lossy(f.value).into_owned()
        };
        object([("name", f.name.into()), ("value", value.into())])
    });
    Value::Array(shown.collect())
}

fn request(input: &[u8], limits: &Limits) -> Report {
    match RequestParser::new(limits).parse(input) {
        Ok(Parsed::Partial) => incomplete(),
        Err(e) => refused(e.code(), e.offset(), Some(e.status().code())),
        Ok(Parsed::Complete { value: head, len }) => Report {
            accepted: true,
            value: object([
                ("verdict", "complete".into()),
                ("head_bytes", Value::from(len as u64)),
                ("method", head.method.as_str().into()),
                ("target", head.target.into()),
                ("version", head.version.as_str().into()),
                ("fields", fields_value(&head.fields)),
                ("content_length", Value::from(head.content_length)),
                ("expect_continue", head.expect_continue.into()),
                ("keep_alive", head.keep_alive.into()),
                ("bytes_after_head", Value::from((input.len() - len) as u64)),
            ]),
        },
    }
}

fn response(input: &[u8], limits: &Limits) -> Report {
    match ResponseParser::new(limits).parse(input) {
        Ok(Parsed::Partial) => incomplete(),
        Err(e) => refused(e.code(), e.offset(), None),
        Ok(Parsed::Complete { value, len }) => Report {
            accepted: true,
            value: object([
                ("verdict", "complete".into()),
                ("bytes", Value::from(len as u64)),
                ("status", Value::from(u64::from(value.status))),
                ("fields", fields_value(&value.fields)),
                ("body_bytes", Value::from(value.body.len() as u64)),
                ("keep_alive", value.keep_alive.into()),
            ]),
        },
    }
}

fn json_text(input: &[u8], limits: &Limits) -> Report {
    match json::decode(input, limits.json_depth_max) {
        Err(e) => refused(e.kind.code(), e.offset, None),
        Ok(value) => Report {
            accepted: true,
            value: object([("verdict", "complete".into()), ("value", value)]),
        },
    }
}

fn sse_stream(input: &[u8], limits: &Limits) -> Report {
    match sse::parse_stream(input, limits) {
        Err(e) => refused(e.kind.code(), e.offset, None),
        Ok(events) => {
            let shown = events.into_iter().map(|e| {
                let mut members = Object::new();
                let text =
                    |name: &str, v: Option<String>| v.map(|v| (name.to_owned(), Value::from(v)));
                members.extend(text("id", e.id));
                members.extend(text("event", e.event));
                members.extend(text("data", e.data));
                members.extend(e.retry.map(|r| ("retry".to_owned(), Value::from(r))));
                Value::Object(members)
            });
            Report {
                accepted: true,
                value: object([
                    ("verdict", "complete".into()),
                    ("events", Value::Array(shown.collect())),
                ]),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(subject: Subject, input: &[u8]) -> (bool, String) {
        let report = inspect(subject, input, &Limits::DEFAULT);
        (report.accepted, json::encode(&report.value))
    }

    #[test]
    fn reports_are_exact_json() {
        let cases: [(Subject, &[u8], bool, &str); 6] = [
            (
                Subject::Request,
                b"GET /mcp HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer secret\r\n\r\n",
                true,
                r#"{"bytes_after_head":0,"content_length":0,"expect_continue":false,"fields":[{"name":"Host","value":"a"},{"name":"Authorization","value":"<redacted: 13 bytes>"}],"head_bytes":60,"keep_alive":true,"method":"GET","target":"/mcp","verdict":"complete","version":"HTTP/1.1"}"#,
            ),
            (
                Subject::Request,
                b"GET /mcp?access_token=secret HTTP/1.1\r\n",
                false,
                r#"{"code":"query_forbidden","offset":8,"status":400,"verdict":"refused"}"#,
            ),
            (Subject::Request, b"GET / HTT", false, r#"{"verdict":"incomplete"}"#),
            (
                Subject::Response,
                b"HTTP/1.1 204 No Content\r\n\r\n",
                true,
                r#"{"body_bytes":0,"bytes":27,"fields":[],"keep_alive":true,"status":204,"verdict":"complete"}"#,
            ),
            (
                Subject::Json,
                b"{\"a\":1,\"a\":2}",
                false,
                r#"{"code":"json_duplicate_key","offset":7,"verdict":"refused"}"#,
            ),
            (
                Subject::Sse,
                b"id: 1\ndata: x\n\n",
                true,
                r#"{"events":[{"data":"x","id":"1"}],"verdict":"complete"}"#,
            ),
        ];
        for (subject, input, accepted, expected) in cases {
            assert_eq!(run(subject, input), (accepted, expected.to_owned()));
        }
    }
}
