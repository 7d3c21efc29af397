//! What of a server's answer the grid may show: a closed vocabulary. A server's bytes reach the
//! grid only as statuses and numbers, names from the lists below, public codes shaped like this
//! project's (lowercase words joined by underscores), versions shaped like a revision's date, and
//! lengths; anything else, a parameter name a server made up or a message in its own words, is
//! shown as its length. So a token or session id a hostile server writes into its answer has no
//! way into the grid, even before the redaction every output passes (`secrets`).
//!
//! Not here: what the answer means for a rule (`judge`).

use loopback_mcp_http::http::authenticate::{self, Challenge};

use super::answer::Head;
use super::judge;
use super::wire::Exchange;

/// The authentication schemes shown by name (the IANA registry's, RFC 9110 §16.4).
const SCHEMES: [&str; 8] =
    ["Bearer", "Basic", "Digest", "DPoP", "Negotiate", "HOBA", "Mutual", "OAuth"];

/// The challenge parameters shown by name (RFC 9110 §11, RFC 6750 §3, RFC 9728 §5.1).
const PARAMS: [&str; 6] =
    ["realm", "scope", "error", "error_description", "error_uri", "resource_metadata"];

/// The `error` values shown (RFC 6750 §3.1, RFC 9449 §7.1).
const ERRORS: [&str; 5] = [
    "invalid_request",
    "invalid_token",
    "insufficient_scope",
    "invalid_dpop_proof",
    "use_dpop_nonce",
];

/// The methods an `Allow` field is shown with (RFC 9110 §9, RFC 5789).
const METHODS: [&str; 9] =
    ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"];

/// The media types shown by name.
const TYPES: [&str; 4] = ["application/json", "text/event-stream", "text/plain", "text/html"];

/// The longest public code shown.
const CODE_BYTES_MAX: usize = 48;

/// Whether `text` looks like a public code: lowercase words joined by underscores, at least two,
/// as every code of this project is (`session_not_found`).
pub fn is_code(text: &str) -> bool {
    let words: Vec<&str> = text.split('_').collect();
    text.len() <= CODE_BYTES_MAX
        && words.len() >= 2
        && words.iter().all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase()))
}

/// A value a server sent, in one word: itself when `known` says so, else its length.
fn word(value: &str, known: bool) -> String {
    if known { value.to_owned() } else { format!("({} B)", value.len()) }
}

/// A slow call's answer in one line: what [`observed`] shows, and whether its response came.
pub fn call_outcome(exchange: &Exchange) -> String {
    let came = if judge::answered_call(exchange) { "its response came" } else { "no response" };
    format!("{came}; {}", observed(exchange))
}

/// What came back, in one line: the status, the content's type when it is not one of the two an
/// MCP answer has, the JSON-RPC error code and public code when there are some, the challenges,
/// `Allow`, and what the connection did after. Never a value that was sent.
pub fn observed(exchange: &Exchange) -> String {
    let mut parts: Vec<String> = Vec::new();
    match (&exchange.head, &exchange.failure) {
        (Some(head), _) => head_parts(head, exchange, &mut parts),
        (None, Some(failure)) => parts.push(failure.describe().to_owned()),
        (None, None) => parts.push("no answer".to_owned()),
    }
    let connection = match (exchange.closed, exchange.stream_open) {
        (true, _) => "closed",
        (false, true) => "stream left open",
        (false, false) => "kept open",
    };
    let mut line = format!("{}; {connection}", parts.join(" "));
    match (exchange.second, exchange.after) {
        (Some(status), _) => line.push_str(&format!(
            "; then a second answer, {status}: the bytes were read as two requests"
        )),
        (None, 0) => {}
        (None, bytes) => line.push_str(&format!("; then {bytes} B more")),
    }
    line
}

fn head_parts(head: &Head, exchange: &Exchange, parts: &mut Vec<String>) {
    parts.push(head.status.to_string());
    parts.extend(content_type(head, exchange));
    if let Some(code) = judge::rpc_code(exchange) {
        parts.push(code.to_string());
    }
    if let Some(code) = public_code(exchange) {
        parts.push(code);
    }
    if head.field("www-authenticate").is_some() {
        parts.push(challenges(head));
    }
    if let Some(allow) = head.field("allow") {
        parts.push(format!("Allow: {}", methods(allow)));
    }
}

/// The content's type, when the answer has content: `event stream` for MCP's stream, nothing
/// for JSON, and any other type (or none) in parentheses.
fn content_type(head: &Head, exchange: &Exchange) -> Option<String> {
    let has_content = !exchange.body.is_empty() || exchange.stream_open;
    match head.field("content-type") {
        _ if !has_content => None,
        None => Some("(no Content-Type)".into()),
        Some(t) => {
            let essence = t.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
            match essence.as_str() {
                "application/json" => None,
                "text/event-stream" => Some("event stream".into()),
                other => Some(format!("(Content-Type {})", word(other, TYPES.contains(&other)))),
            }
        }
    }
}

/// A public code in the answer: a JSON-RPC error's message or an `error` member, when it looks
/// like one ([`is_code`]).
fn public_code(exchange: &Exchange) -> Option<String> {
    let message = judge::message(exchange)?;
    let error = message.get("error")?;
    let text = error.get("message").or(Some(error)).and_then(|v| v.as_str())?;
    is_code(text).then(|| text.to_owned())
}

/// The challenges of a head, each its scheme and its parameters' names, `error`'s value among
/// them: `Bearer error=invalid_token,resource_metadata`.
pub fn challenges(head: &Head) -> String {
    let lines = head.fields.iter().filter(|(n, _)| n.eq_ignore_ascii_case("www-authenticate"));
    match authenticate::parse(lines.map(|(_, v)| v.as_bytes())) {
        Ok(list) if list.is_empty() => "WWW-Authenticate (empty)".into(),
        Ok(list) => list.iter().map(challenge).collect::<Vec<_>>().join(" "),
        Err(malformed) => format!("WWW-Authenticate unreadable ({})", malformed.why.code()),
    }
}

fn challenge(challenge: &Challenge) -> String {
    let known = SCHEMES.iter().find(|s| challenge.is(s));
    let scheme = known
        .map_or_else(|| format!("a scheme of {} B", challenge.scheme.len()), |s| (*s).to_owned());
    let mut shown = Vec::new();
    let mut others = 0;
    for (name, value) in &challenge.params {
        match PARAMS.iter().find(|p| *p == name) {
            Some(&"error") => {
                shown.push(format!("error={}", word(value, ERRORS.contains(&value.as_str()))))
            }
            Some(param) => shown.push((*param).to_owned()),
            None => others += 1,
        }
    }
    if others > 0 {
        shown.push(format!("{others} other parameters"));
    }
    if challenge.token68.is_some() {
        shown.push("a token68".into());
    }
    if shown.is_empty() {
        format!("{scheme} (no parameters)")
    } else {
        format!("{scheme} {}", shown.join(","))
    }
}

/// An `Allow` field's methods, those not in [`METHODS`] counted.
fn methods(allow: &str) -> String {
    let listed: Vec<&str> = allow.split(',').map(str::trim).filter(|m| !m.is_empty()).collect();
    let known: Vec<&str> = listed.iter().copied().filter(|m| METHODS.contains(m)).collect();
    let others = listed.len() - known.len();
    let mut out = known.join(", ");
    if others > 0 {
        out.push_str(&format!("{}{others} others", if known.is_empty() { "" } else { " and " }));
    }
    if out.is_empty() { "(empty)".into() } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::probe::answer;

    fn answer(raw: &str) -> Exchange {
        let head = answer::head(raw.as_bytes()).unwrap().unwrap();
        let body = raw.as_bytes()[head.len..].to_vec();
        Exchange { head: Some(head), body, ..Exchange::default() }
    }

    #[test]
    fn a_server_s_words_are_shown_only_from_the_closed_vocabulary() {
        let secret = "tok_secret_abc123";
        let hostile = format!(
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: {secret} realm=x, Bearer {secret}=\"a\", ERROR=\"{secret}\", Resource_Metadata=\"{secret}\"\r\nAllow: GET, {secret}\r\nContent-Type: text/{secret}\r\n\r\n{{\"error\":{{\"code\":-1,\"message\":\"{secret}\"}}}}"
        );
        let cases: [(String, &str); 5] = [
            (
                hostile,
                "401 (Content-Type (22 B)) -1 a scheme of 17 B realm Bearer error=(17 B),resource_metadata,1 other parameters Allow: GET and 1 others; kept open",
            ),
            (
                "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"mcp\", Bearer error=\"invalid_token\", resource_metadata=\"http://x\"\r\n\r\n".into(),
                "401 Basic realm Bearer error=invalid_token,resource_metadata; kept open",
            ),
            (
                "HTTP/1.1 400 Bad Request\r\n\r\n{\"error\":{\"code\":-32000,\"message\":\"session_not_found\"}}".into(),
                "400 (no Content-Type) -32000 session_not_found; kept open",
            ),
            (
                "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"a\r\n\r\n".into(),
                "401 WWW-Authenticate unreadable (challenge_bad_quoted_string); kept open",
            ),
            ("HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, POST\r\n\r\n".into(), "405 Allow: GET, POST; kept open"),
        ];
        for (raw, expected) in cases {
            let seen = observed(&answer(&raw));
            assert_eq!(seen, expected, "{raw:?}");
            assert!(!seen.contains("secret"), "{seen}");
        }
    }

    #[test]
    fn codes_and_versions_are_told_by_their_shape() {
        use judge::is_version;
        let codes = [
            ("session_not_found", true),
            ("invalid_token", true),
            ("busy", false),
            ("a_1", false),
            ("Session_not", false),
            ("deadbeef_cafe0", false),
        ];
        for (text, expected) in codes {
            assert_eq!(is_code(text), expected, "{text}");
        }
        let versions = [
            ("2025-11-25", true),
            ("1999-01-01", true),
            ("2025-1-25", false),
            ("abcd-ef-gh", false),
        ];
        for (text, expected) in versions {
            assert_eq!(is_version(text), expected, "{text}");
        }
    }

    #[test]
    fn what_follows_an_answer_is_told_apart_from_it() {
        let base = answer("HTTP/1.1 400 Bad Request\r\n\r\n");
        let cases: [(Option<u16>, usize, bool, &str); 3] = [
            (
                Some(400),
                120,
                true,
                "400; closed; then a second answer, 400: the bytes were read as two requests",
            ),
            (None, 7, false, "400; kept open; then 7 B more"),
            (None, 0, true, "400; closed"),
        ];
        for (second, after, closed, expected) in cases {
            let exchange = Exchange { second, after, closed, ..base.clone() };
            assert_eq!(observed(&exchange), expected);
        }
    }
}
