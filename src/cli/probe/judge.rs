//! How any server's answer keeps a catalogue rule: a verdict and a line of what came back. Pure:
//! an [`Exchange`] in, words out.
//!
//! - `holds`: the answer keeps the rule as written;
//! - `differs`: it breaks a SHOULD or this project's profile, or keeps a MUST loosely (a refusal
//!   with another status than the one the rule names);
//! - `deviates`: it breaks a MUST;
//! - `not_applicable` and `unreachable` are decided before judging (`probe`) or when nothing
//!   came back.
//!
//! Not here: sending, or what the rows are (`catalogue`).

use loopback_mcp_http::json::{self, Value};

use super::answer::{self, Head};
use super::wire::{Exchange, Failure};
use crate::cli::catalogue::{Holds, Level};

/// A row's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    Deviates,
    Differs,
    NotApplicable,
    Unreachable,
}

impl Verdict {
    pub const fn name(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Deviates => "deviates",
            Verdict::Differs => "differs",
            Verdict::NotApplicable => "not_applicable",
            Verdict::Unreachable => "unreachable",
        }
    }
}

/// How an answer kept a rule, before its level decides the verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    Yes,
    Loosely,
    No,
}

/// What the judge knows beyond one answer.
#[derive(Clone, Debug)]
pub struct Context {
    /// The endpoint's URL, as the metadata's `resource` must name it.
    pub endpoint: String,
    /// The server speaks a 2026-era revision.
    pub modern: bool,
}

/// The verdict on one exchange under a rule of `level`.
pub fn verdict(holds: Holds, level: Level, exchange: &Exchange, context: &Context) -> Verdict {
    // Silence on an open connection is an answer of its own to a framing rule: the server is
    // reading a body by another length.
    let framing = matches!(holds, Holds::RefusedThenClosed(_) | Holds::Closes);
    match (&exchange.head, exchange.failure) {
        (None, Some(Failure::Connect)) => return Verdict::Unreachable,
        (None, Some(Failure::Timeout)) if !framing => return Verdict::Unreachable,
        _ => {}
    }
    match (kept(holds, exchange, context), level) {
        (Kept::Yes, _) => Verdict::Holds,
        (Kept::Loosely, _) | (Kept::No, Level::Should | Level::Profile) => Verdict::Differs,
        (Kept::No, Level::Must) => Verdict::Deviates,
    }
}

/// How the answer in `exchange` keeps `holds`.
pub fn kept(holds: Holds, exchange: &Exchange, context: &Context) -> Kept {
    let status = exchange.head.as_ref().map(|h| h.status);
    let refused = status.is_some_and(|s| s >= 400) || (status.is_none() && exchange.closed);
    let by = |ok: bool| {
        if ok {
            Kept::Yes
        } else if refused {
            Kept::Loosely
        } else {
            Kept::No
        }
    };
    match holds {
        Holds::Refused(wanted) => by(status == Some(wanted)),
        Holds::RefusedThenClosed(named) => match (status, exchange.closed) {
            (Some(s), true) if named.is_none_or(|n| n == s) && s >= 400 => Kept::Yes,
            (None, true) if named.is_none() => Kept::Yes,
            (Some(400..=599) | None, true) => Kept::Loosely,
            _ => Kept::No,
        },
        Holds::Closes => yes_or_no(exchange.closed),
        Holds::RpcError(wanted, code) => {
            by(status == Some(wanted) && rpc_code(exchange) == Some(code))
        }
        Holds::NoMismatch => {
            yes_or_no(!(status == Some(400) && rpc_code(exchange) == Some(-32020)))
        }
        Holds::Discovered => {
            yes_or_no(status == Some(200) && supported_versions(exchange).is_some())
        }
        Holds::Challenge(error) => challenge_kept(exchange, error),
        Holds::ChallengeNamesMetadata => yes_or_no(
            status == Some(401)
                && bearer(exchange.head.as_ref()).is_some_and(|c| c.contains("resource_metadata=")),
        ),
        Holds::ScopeChallenge(scopes) => by(scope_challenge(exchange, scopes, context)),
        Holds::Metadata => {
            let doc = document(exchange);
            let servers = doc.as_ref().and_then(|d| d.get("authorization_servers"));
            yes_or_no(
                status == Some(200)
                    && servers.and_then(Value::as_array).is_some_and(|a| !a.is_empty()),
            )
        }
        Holds::ResourceIsEndpoint => {
            let doc = document(exchange);
            let resource = doc.as_ref().and_then(|d| d.get("resource")).and_then(Value::as_str);
            yes_or_no(status == Some(200) && resource == Some(context.endpoint.as_str()))
        }
        Holds::NotAllowed => {
            match (status, exchange.head.as_ref().and_then(|h| h.field("allow"))) {
                (Some(405), Some(_)) => Kept::Yes,
                (Some(405), None) => Kept::No,
                _ if refused => Kept::Loosely,
                _ => Kept::No,
            }
        }
        Holds::TellsTheEra => yes_or_no(tells_modern(exchange) == context.modern),
        Holds::CallFinishes => yes_or_no(status == Some(200) && answered_call(exchange)),
        Holds::CallStops => {
            yes_or_no(status == Some(200) && !answered_call(exchange) && !exchange.stream_open)
        }
    }
}

/// How the answer keeps a rule about its challenge: a 401 whose `Bearer` challenge names
/// `error` (when one is named), loosely a 401 with another challenge.
fn challenge_kept(exchange: &Exchange, error: Option<&str>) -> Kept {
    let status = exchange.head.as_ref().map(|h| h.status);
    match (status, bearer(exchange.head.as_ref())) {
        (Some(401), Some(c)) if error.is_none_or(|e| has_param(&c, "error", e)) => Kept::Yes,
        (Some(401), Some(_)) => Kept::Loosely,
        _ => Kept::No,
    }
}

/// A slow call's answer in one line: what [`observed`] shows, and whether its response came.
pub fn call_outcome(exchange: &Exchange) -> String {
    let came = if answered_call(exchange) { "its response came" } else { "no response" };
    format!("{came}; {}", observed(exchange))
}

/// Whether a call's answer carries its response: a result or an error.
fn answered_call(exchange: &Exchange) -> bool {
    message(exchange).is_some_and(|m| m.get("result").is_some() || m.get("error").is_some())
}

/// A 403 with exactly one `Bearer` challenge that says `insufficient_scope`, names every one of
/// `scopes`, and points at metadata on the endpoint's own origin.
fn scope_challenge(exchange: &Exchange, scopes: &[&str], context: &Context) -> bool {
    let Some(head) = exchange.head.as_ref().filter(|h| h.status == 403) else { return false };
    let challenges: Vec<&String> = head
        .fields
        .iter()
        .filter(|(n, v)| n.eq_ignore_ascii_case("www-authenticate") && is_bearer(v))
        .map(|(_, v)| v)
        .collect();
    let [challenge] = challenges[..] else { return false };
    let named = param(challenge, "scope").unwrap_or_default();
    let origin_end = context.endpoint.match_indices('/').nth(2).map_or(0, |(at, _)| at + 1);
    let origin = &context.endpoint[..origin_end];
    has_param(challenge, "error", "insufficient_scope")
        && scopes.iter().all(|s| named.split(' ').any(|n| n == *s))
        && param(challenge, "resource_metadata").is_some_and(|m| m.starts_with(origin))
}

/// The value of one parameter of a challenge, quoted or not.
fn param<'c>(challenge: &'c str, name: &str) -> Option<&'c str> {
    let mut rest = challenge.get(6..)?;
    while let Some((key, after)) = rest.split_once('=') {
        let key = key.trim_start_matches([',', ' ']).trim();
        let (value, next) = match after.strip_prefix('"') {
            Some(quoted) => quoted.split_once('"').unwrap_or((quoted, "")),
            None => after.split_once(',').unwrap_or((after, "")),
        };
        if key.eq_ignore_ascii_case(name) {
            return Some(value.trim());
        }
        rest = next;
    }
    None
}

/// Whether a challenge names the Bearer scheme. The value is the probed server's: its sixth byte
/// may fall inside a character, so the bytes are compared, never a slice of the text.
fn is_bearer(value: &str) -> bool {
    value.as_bytes().get(..6).is_some_and(|scheme| scheme.eq_ignore_ascii_case(b"bearer"))
}

fn yes_or_no(ok: bool) -> Kept {
    if ok { Kept::Yes } else { Kept::No }
}

/// Whether a dual-era client reads the answer to its `server/discover` probe as "modern": a
/// 200 with a result, or a 400 carrying one of the modern errors.
pub fn tells_modern(exchange: &Exchange) -> bool {
    let status = exchange.head.as_ref().map(|h| h.status);
    match status {
        Some(200) => message(exchange).is_some_and(|m| m.get("result").is_some()),
        Some(400) => rpc_code(exchange).is_some_and(|c| (-32022..=-32020).contains(&c)),
        _ => false,
    }
}

/// The JSON-RPC message of the answer: the body, or the last data line of an event stream.
pub fn message(exchange: &Exchange) -> Option<Value> {
    let head = exchange.head.as_ref()?;
    let is_stream = head.field("content-type").is_some_and(|t| t.starts_with("text/event-stream"));
    let text = if is_stream {
        answer::event_data(&exchange.body).into_iter().next_back()?.into_bytes()
    } else {
        exchange.body.clone()
    };
    json::decode(&text, 64).ok()
}

/// The JSON-RPC error code of the answer.
pub fn rpc_code(exchange: &Exchange) -> Option<i64> {
    message(exchange)?.get("error")?.get("code")?.as_number()?.as_i64()
}

/// The `supportedVersions` of a `server/discover` result.
pub fn supported_versions(exchange: &Exchange) -> Option<Vec<String>> {
    let message = message(exchange)?;
    let from_result = message.get("result").and_then(|r| r.get("supportedVersions"));
    let from_error =
        message.get("error").and_then(|e| e.get("data")).and_then(|d| d.get("supported"));
    let list = from_result.or(from_error)?.as_array()?;
    Some(list.iter().filter_map(Value::as_str).map(str::to_owned).collect())
}

fn document(exchange: &Exchange) -> Option<Value> {
    json::decode(&exchange.body, 64).ok()
}

/// The `Bearer` challenge of a `WWW-Authenticate` field.
fn bearer(head: Option<&Head>) -> Option<String> {
    let head = head?;
    head.fields
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("www-authenticate"))
        .map(|(_, v)| v)
        .find(|v| is_bearer(v))
        .cloned()
}

fn has_param(challenge: &str, name: &str, value: &str) -> bool {
    challenge.contains(&format!("{name}=\"{value}\""))
        || challenge.contains(&format!("{name}={value}"))
}

/// What came back, in one line: the status, the JSON-RPC error code and public code when there
/// are some, the challenge's parameters, and the connection's state. Never a value that was
/// sent: only numbers, field names and short lowercase codes are shown.
pub fn observed(exchange: &Exchange) -> String {
    let mut parts: Vec<String> = Vec::new();
    match (&exchange.head, &exchange.failure) {
        (Some(head), _) => {
            parts.push(head.status.to_string());
            if let Some(code) = rpc_code(exchange) {
                parts.push(code.to_string());
            }
            if let Some(code) = public_code(exchange) {
                parts.push(code);
            }
            if let Some(challenge) = bearer(Some(head)) {
                parts.push(format!("Bearer {}", challenge_params(&challenge)));
            }
            if let Some(allow) = head.field("allow") {
                parts.push(format!(
                    "Allow: {}",
                    allow
                        .chars()
                        .filter(|c| c.is_ascii_uppercase() || *c == ',' || *c == ' ')
                        .collect::<String>()
                ));
            }
        }
        (None, Some(failure)) => parts.push(failure.describe().to_owned()),
        (None, None) => parts.push("no answer".to_owned()),
    }
    let connection = match (exchange.closed, exchange.stream_open) {
        (true, _) => "closed",
        (false, true) => "stream left open",
        (false, false) => "kept open",
    };
    format!("{}; {connection}", parts.join(" "))
}

/// A public code in the answer: a JSON-RPC error's message or an `error` member, when it is a
/// short lowercase identifier.
fn public_code(exchange: &Exchange) -> Option<String> {
    let message = message(exchange)?;
    let text = message
        .get("error")
        .and_then(|e| e.get("message").or(Some(e)))
        .and_then(Value::as_str)
        .map(str::to_owned)?;
    let is_code = !text.is_empty()
        && text.len() <= 48
        && text.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    is_code.then_some(text)
}

/// A challenge's parameter names, and the value of `error` (a fixed vocabulary).
fn challenge_params(challenge: &str) -> String {
    let mut out = Vec::new();
    for part in challenge[6..].split(',') {
        let Some((name, value)) = part.trim().split_once('=') else { continue };
        let value = value.trim_matches('"');
        match name.trim() {
            "error" if value.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') => {
                out.push(format!("error={value}"));
            }
            name if name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') => {
                out.push(name.to_owned());
            }
            _ => {}
        }
    }
    if out.is_empty() { "(no parameters)".into() } else { out.join(",") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(raw: &str, closed: bool) -> Exchange {
        let head = answer::head(raw.as_bytes()).unwrap().unwrap();
        let body = raw.as_bytes()[head.len..].to_vec();
        Exchange {
            head: Some(head),
            body,
            closed,
            stream_open: false,
            failure: None,
            raw: Vec::new(),
        }
    }

    const CONTEXT: fn() -> Context =
        || Context { endpoint: "http://127.0.0.1:1/mcp".into(), modern: false };

    #[test]
    fn refusals_keep_rules_exactly_loosely_or_not_at_all() {
        let bad = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
        let forbidden = "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n";
        let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
        let mismatch = "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n\r\n{\"error\":{\"code\":-32020,\"message\":\"header_mismatch\"},\"id\":1,\"jsonrpc\":\"2.0\"}";
        let cases: [(Holds, Level, &str, bool, Verdict); 13] = [
            (Holds::Refused(403), Level::Must, forbidden, false, Verdict::Holds),
            (Holds::Refused(403), Level::Must, bad, false, Verdict::Differs),
            (Holds::Refused(403), Level::Must, ok, false, Verdict::Deviates),
            (Holds::Refused(400), Level::Profile, ok, false, Verdict::Differs),
            (Holds::RefusedThenClosed(None), Level::Must, ok, false, Verdict::Deviates),
            (Holds::RefusedThenClosed(None), Level::Must, ok, true, Verdict::Deviates),
            (Holds::RefusedThenClosed(None), Level::Must, forbidden, true, Verdict::Holds),
            (Holds::RefusedThenClosed(Some(400)), Level::Must, bad, true, Verdict::Holds),
            (Holds::RefusedThenClosed(Some(400)), Level::Must, bad, false, Verdict::Deviates),
            (Holds::RefusedThenClosed(Some(400)), Level::Must, forbidden, true, Verdict::Differs),
            (Holds::RpcError(400, -32020), Level::Must, mismatch, false, Verdict::Holds),
            (Holds::RpcError(400, -32020), Level::Must, bad, false, Verdict::Differs),
            (Holds::NoMismatch, Level::Must, mismatch, false, Verdict::Deviates),
        ];
        for (holds, level, raw, closed, expected) in cases {
            let got = verdict(holds, level, &answer(raw, closed), &CONTEXT());
            assert_eq!(got, expected, "{holds:?} {raw:?} closed {closed}");
        }
    }

    #[test]
    fn a_challenge_scheme_is_compared_by_its_bytes() {
        let cases = [
            ("Bearer error=\"invalid_token\"", true),
            ("bearer", true),
            ("Beare", false),
            ("Beare\u{e9} realm=x", false),
            ("\u{e9}\u{e9}\u{e9}", false),
            ("Basic realm=x", false),
        ];
        for (value, expected) in cases {
            assert_eq!(is_bearer(value), expected, "{value:?}");
        }
    }

    #[test]
    fn challenges_and_metadata_are_read_from_the_answer() {
        let invalid = "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer error=\"invalid_token\", resource_metadata=\"http://x\"\r\nContent-Length: 0\r\n\r\n";
        let bare = "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n";
        let doc = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"resource\":\"http://127.0.0.1:1/mcp\",\"authorization_servers\":[\"http://as\"]}";
        let cases: [(Holds, &str, Kept); 6] = [
            (Holds::Challenge(Some("invalid_token")), invalid, Kept::Yes),
            (Holds::Challenge(None), bare, Kept::No),
            (Holds::ChallengeNamesMetadata, invalid, Kept::Yes),
            (Holds::Metadata, doc, Kept::Yes),
            (Holds::ResourceIsEndpoint, doc, Kept::Yes),
            (Holds::ResourceIsEndpoint, bare, Kept::No),
        ];
        for (holds, raw, expected) in cases {
            assert_eq!(kept(holds, &answer(raw, false), &CONTEXT()), expected, "{holds:?}");
        }
        assert_eq!(
            observed(&answer(invalid, true)),
            "401 Bearer error=invalid_token,resource_metadata; closed"
        );
    }

    #[test]
    fn a_scope_challenge_names_every_scope_once_with_same_origin_metadata() {
        let challenge =
            |fields: &str| format!("HTTP/1.1 403 Forbidden\r\n{fields}Content-Length: 0\r\n\r\n");
        let meta =
            r#"resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp""#;
        let both = format!(
            "WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"held a b\", {meta}\r\n"
        );
        let one = format!(
            "WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"a\", {meta}\r\n"
        );
        let elsewhere = "WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"a b\", resource_metadata=\"http://127.0.0.2:1/m\"\r\n";
        let two = format!("{one}WWW-Authenticate: Bearer scope=\"b\"\r\n");
        let unauthorized = both.replace("insufficient_scope", "invalid_token");
        let cases: [(String, Kept); 6] = [
            (challenge(&both), Kept::Yes),
            (challenge(&one), Kept::Loosely),
            (challenge(elsewhere), Kept::Loosely),
            (challenge(&two), Kept::Loosely),
            (challenge(&unauthorized), Kept::Loosely),
            (both.replace("WWW", "HTTP/1.1 200 OK\r\nWWW") + "\r\n", Kept::No),
        ];
        for (raw, expected) in cases {
            let got = kept(Holds::ScopeChallenge(&["a", "b"]), &answer(&raw, false), &CONTEXT());
            assert_eq!(got, expected, "{raw:?}");
        }
    }

    #[test]
    fn a_cancelled_call_is_told_from_a_finished_one_by_its_response() {
        let stream = |events: &str| {
            format!("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n{events}")
        };
        let prime = "id: 1\ndata:\n\n: keep-alive\n\n";
        let result = r#"data: {"id":95,"jsonrpc":"2.0","result":{}}"#;
        let finished = stream(&format!("{prime}{result}\n\n"));
        let stopped = stream(prime);
        let cases: [(Holds, &str, bool, Kept); 5] = [
            (Holds::CallFinishes, &finished, false, Kept::Yes),
            (Holds::CallFinishes, &stopped, false, Kept::No),
            (Holds::CallStops, &stopped, false, Kept::Yes),
            (Holds::CallStops, &finished, false, Kept::No),
            (Holds::CallStops, &stopped, true, Kept::No),
        ];
        for (holds, raw, open, expected) in cases {
            let exchange = Exchange { stream_open: open, ..answer(raw, false) };
            assert_eq!(kept(holds, &exchange, &CONTEXT()), expected, "{holds:?} {raw:?} {open}");
        }
    }

    #[test]
    fn the_era_an_answer_tells_is_what_a_dual_era_client_concludes() {
        let cases: [(&str, bool); 4] = [
            (
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"id\":1,\"result\":{}}",
                true,
            ),
            ("HTTP/1.1 400 Bad Request\r\n\r\n{\"error\":{\"code\":-32022}}", true),
            ("HTTP/1.1 400 Bad Request\r\n\r\n{\"error\":{\"code\":-32600}}", false),
            ("HTTP/1.1 404 Not Found\r\n\r\n", false),
        ];
        for (raw, modern) in cases {
            assert_eq!(tells_modern(&answer(raw, false)), modern, "{raw}");
        }
    }
}
