//! How any server's answer keeps a catalogue rule: a verdict. Pure: an [`Exchange`] in, a
//! verdict out.
//!
//! - `holds`: the answer keeps the rule as written;
//! - `deviates`: it breaks a MUST. Where the rule is a status (400, 401, 403, 404, 405), another
//!   status breaks it. A second answer on the connection breaks the MUST every request shares,
//!   whatever the row's level: one message, one answer (RFC 9112 §6.3);
//! - `differs`: it breaks a SHOULD or this project's profile, or keeps a framing MUST of RFC 9112
//!   §6 loosely: refused with another 4xx or 5xx, then closed (the refusal and the close are what
//!   prevent a desync);
//! - `not_applicable` and `unreachable` are decided before judging (`probe`) or when nothing
//!   came back.
//!
//! Every challenge is read through `http::authenticate`, as RFC 9110 writes them. An answer is
//! read by its `Content-Type` and, without one, by what its body is.
//!
//! Not here: sending, what the rows are (`catalogue`), or what of the answer is shown (`shown`).

use loopback_mcp_http::http::authenticate::{self, Challenge};
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
    pub const ALL: [Verdict; 5] = [
        Verdict::Holds,
        Verdict::Deviates,
        Verdict::Differs,
        Verdict::NotApplicable,
        Verdict::Unreachable,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Deviates => "deviates",
            Verdict::Differs => "differs",
            Verdict::NotApplicable => "not_applicable",
            Verdict::Unreachable => "unreachable",
        }
    }

    /// The verdict of a name, as `--json` writes it.
    pub fn from_name(name: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// How an answer kept a rule, before its level decides the verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    Yes,
    /// A refusal, but not the one the rule names.
    Loosely,
    No,
}

/// What a row judged across concluded, before its level decides the verdict.
pub enum Outcome {
    /// The rule was kept or not, and what was seen.
    Kept(bool, String),
    /// Nothing could tell, and why.
    Aside(String),
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
    if exchange.second.is_some() {
        return Verdict::Deviates;
    }
    match (kept(holds, exchange, context), level) {
        (Kept::Yes, _) => Verdict::Holds,
        (Kept::Loosely, Level::Must) if framing => Verdict::Differs,
        (Kept::Loosely | Kept::No, Level::Must) => Verdict::Deviates,
        (Kept::Loosely | Kept::No, Level::Should | Level::Profile) => Verdict::Differs,
    }
}

/// How the answer in `exchange` keeps `holds`.
pub fn kept(holds: Holds, exchange: &Exchange, context: &Context) -> Kept {
    let status = exchange.head.as_ref().map(|h| h.status);
    let refused = status.is_some_and(|s| s >= 400) || (status.is_none() && exchange.closed);
    let by = |ok: bool| match (ok, refused) {
        (true, _) => Kept::Yes,
        (false, true) => Kept::Loosely,
        (false, false) => Kept::No,
    };
    match holds {
        Holds::Refused(wanted) => by(status == Some(wanted)),
        Holds::RefusedOr405(wanted) => refused_or_405(exchange, wanted, refused),
        Holds::SessionSurvives(wanted) => match refused_or_405(exchange, wanted, refused) {
            _ if !exchange.later.is_some_and(|s| (200..300).contains(&s)) => Kept::No,
            kept => kept,
        },
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
                && bearer(exchange.head.as_ref())
                    .is_some_and(|c| c.param("resource_metadata").is_some()),
        ),
        Holds::ScopeChallenge(scopes) => by(scope_challenge(exchange, scopes, context)),
        Holds::NotAllowed => match status {
            Some(405) => yes_or_no(allowed_405(exchange)),
            _ => by(false),
        },
        Holds::TokenIgnored => yes_or_no(refused),
        Holds::EventStreamOr405 => yes_or_no(
            (status.is_some_and(|s| (200..300).contains(&s)) && is_event_stream(exchange))
                || allowed_405(exchange),
        ),
        Holds::Accepted => yes_or_no(
            (status == Some(202) && exchange.body.is_empty() && !exchange.stream_open) || refused,
        ),
        Holds::OtherVersion(proposed) => {
            let named = message(exchange)
                .and_then(|m| m.get("result")?.get("protocolVersion")?.as_str().map(str::to_owned));
            let supported = named.is_some_and(|v| v != proposed && is_version(&v));
            yes_or_no(status == Some(200) && supported)
        }
        Holds::TellsTheEra => yes_or_no(tells_modern(exchange) == context.modern),
        Holds::CallFinishes => yes_or_no(status == Some(200) && answered_call(exchange)),
        Holds::CallStops => {
            yes_or_no(status == Some(200) && !answered_call(exchange) && !exchange.stream_open)
        }
    }
}

/// Refused with `wanted`, or 405 with `Allow`; loosely another refusal.
fn refused_or_405(exchange: &Exchange, wanted: u16, refused: bool) -> Kept {
    let status = exchange.head.as_ref().map(|h| h.status);
    match status {
        Some(s) if s == wanted => Kept::Yes,
        Some(405) if allowed_405(exchange) => Kept::Yes,
        Some(405) => Kept::No,
        _ if refused => Kept::Loosely,
        _ => Kept::No,
    }
}

/// A 405 that carries `Allow` (RFC 9110 §15.5.6).
fn allowed_405(exchange: &Exchange) -> bool {
    exchange.head.as_ref().is_some_and(|h| h.status == 405 && h.field("allow").is_some())
}

/// Whether the answer is an event stream by its `Content-Type`.
pub fn is_event_stream(exchange: &Exchange) -> bool {
    content_type(exchange) == Some("text/event-stream")
}

/// The essence of the answer's `Content-Type` (`text/event-stream`), lowercased.
fn content_type(exchange: &Exchange) -> Option<&'static str> {
    let value = exchange.head.as_ref()?.field("content-type")?;
    let essence = value.split(';').next().unwrap_or_default().trim();
    ["application/json", "text/event-stream"].into_iter().find(|t| essence.eq_ignore_ascii_case(t))
}

/// Whether the answer's type is one of the two an MCP answer to a request has.
pub fn typed(exchange: &Exchange) -> bool {
    content_type(exchange).is_some()
}

/// How the answer keeps a rule about its challenge: a 401 whose `Bearer` challenge names
/// `error` (when one is named), loosely a 401 with another challenge.
fn challenge_kept(exchange: &Exchange, error: Option<&str>) -> Kept {
    let status = exchange.head.as_ref().map(|h| h.status);
    match (status, bearer(exchange.head.as_ref())) {
        (Some(401), Some(c)) if error.is_none_or(|e| c.param("error") == Some(e)) => Kept::Yes,
        (Some(401), _) => Kept::Loosely,
        (Some(s), _) if s >= 400 => Kept::Loosely,
        _ => Kept::No,
    }
}

/// Whether `text` looks like a protocol version: `YYYY-MM-DD`.
pub fn is_version(text: &str) -> bool {
    let b = text.as_bytes();
    let digit_or_dash = |(i, c): (usize, &u8)| match i {
        4 | 7 => *c == b'-',
        _ => c.is_ascii_digit(),
    };
    b.len() == 10 && b.iter().enumerate().all(digit_or_dash)
}

/// Whether a call's answer carries its response: a result or an error.
pub fn answered_call(exchange: &Exchange) -> bool {
    message(exchange).is_some_and(|m| m.get("result").is_some() || m.get("error").is_some())
}

/// A 403 with exactly one `Bearer` challenge that says `insufficient_scope`, names every one of
/// `scopes`, and points at metadata on the endpoint's own origin.
fn scope_challenge(exchange: &Exchange, scopes: &[&str], context: &Context) -> bool {
    let Some(head) = exchange.head.as_ref().filter(|h| h.status == 403) else { return false };
    let challenges = challenges(head).unwrap_or_default();
    let bearers: Vec<&Challenge> = challenges.iter().filter(|c| c.is("Bearer")).collect();
    let [challenge] = bearers[..] else { return false };
    let named = challenge.param("scope").unwrap_or_default();
    let origin_end = context.endpoint.match_indices('/').nth(2).map_or(0, |(at, _)| at + 1);
    let origin = &context.endpoint[..origin_end];
    challenge.param("error") == Some("insufficient_scope")
        && scopes.iter().all(|s| named.split(' ').any(|n| n == *s))
        && challenge.param("resource_metadata").is_some_and(|m| m.starts_with(origin))
}

/// Every challenge of a head's `WWW-Authenticate` fields; `None` when they do not parse.
pub fn challenges(head: &Head) -> Option<Vec<Challenge>> {
    let lines = head.fields.iter().filter(|(n, _)| n.eq_ignore_ascii_case("www-authenticate"));
    authenticate::parse(lines.map(|(_, v)| v.as_bytes())).ok()
}

/// The first `Bearer` challenge of a head.
pub fn bearer(head: Option<&Head>) -> Option<Challenge> {
    challenges(head?)?.into_iter().find(|c| c.is("Bearer"))
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

/// The JSON-RPC message of the answer: the body, or the last data line of an event stream. By
/// the answer's `Content-Type`, and without one (or with another) by what the body is: JSON, or
/// else an event stream's data.
pub fn message(exchange: &Exchange) -> Option<Value> {
    exchange.head.as_ref()?;
    let from_stream = || {
        let text = answer::event_data(&exchange.body).into_iter().next_back()?;
        json::decode(text.as_bytes(), 64).ok()
    };
    match content_type(exchange) {
        Some("text/event-stream") => from_stream(),
        Some(_) => json::decode(&exchange.body, 64).ok(),
        None => json::decode(&exchange.body, 64).ok().or_else(from_stream),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(raw: &str, closed: bool) -> Exchange {
        let head = answer::head(raw.as_bytes()).unwrap().unwrap();
        let body = raw.as_bytes()[head.len..].to_vec();
        Exchange { head: Some(head), body, closed, ..Exchange::default() }
    }

    const CONTEXT: fn() -> Context =
        || Context { endpoint: "http://127.0.0.1:1/mcp".into(), modern: false };

    #[test]
    fn a_broken_must_deviates_and_only_a_framing_refusal_keeps_one_loosely() {
        let bad = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
        let forbidden = "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n";
        let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
        let gone = "HTTP/1.1 501 Not Implemented\r\nContent-Length: 0\r\n\r\n";
        let mismatch = "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n\r\n{\"error\":{\"code\":-32020,\"message\":\"header_mismatch\"},\"id\":1,\"jsonrpc\":\"2.0\"}";
        let cases: [(Holds, Level, &str, bool, Verdict); 17] = [
            (Holds::Refused(403), Level::Must, forbidden, false, Verdict::Holds),
            (Holds::Refused(403), Level::Must, bad, false, Verdict::Deviates),
            (Holds::Refused(403), Level::Must, ok, false, Verdict::Deviates),
            (Holds::Refused(404), Level::Should, bad, false, Verdict::Differs),
            (Holds::Refused(400), Level::Profile, ok, false, Verdict::Differs),
            (Holds::RefusedThenClosed(None), Level::Must, ok, false, Verdict::Deviates),
            (Holds::RefusedThenClosed(None), Level::Must, ok, true, Verdict::Deviates),
            (Holds::RefusedThenClosed(None), Level::Must, forbidden, true, Verdict::Holds),
            (Holds::RefusedThenClosed(Some(400)), Level::Must, bad, true, Verdict::Holds),
            (Holds::RefusedThenClosed(Some(400)), Level::Must, bad, false, Verdict::Deviates),
            (Holds::RefusedThenClosed(Some(400)), Level::Must, forbidden, true, Verdict::Differs),
            (Holds::RefusedThenClosed(Some(400)), Level::Must, gone, true, Verdict::Differs),
            (Holds::RefusedThenClosed(Some(400)), Level::Must, gone, false, Verdict::Deviates),
            (Holds::RpcError(400, -32020), Level::Must, mismatch, false, Verdict::Holds),
            (Holds::RpcError(400, -32020), Level::Must, bad, false, Verdict::Deviates),
            (Holds::NoMismatch, Level::Must, mismatch, false, Verdict::Deviates),
            (Holds::TokenIgnored, Level::Must, ok, false, Verdict::Deviates),
        ];
        for (holds, level, raw, closed, expected) in cases {
            let got = verdict(holds, level, &answer(raw, closed), &CONTEXT());
            assert_eq!(got, expected, "{holds:?} {raw:?} closed {closed}");
        }
    }

    #[test]
    fn a_second_answer_on_the_connection_deviates_whatever_the_level() {
        let bad = answer("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", true);
        let twice = Exchange { second: Some(400), ..bad.clone() };
        let cases: [(Holds, Level, &Exchange, Verdict); 4] = [
            (Holds::Closes, Level::Must, &bad, Verdict::Holds),
            (Holds::Closes, Level::Must, &twice, Verdict::Deviates),
            (Holds::Refused(400), Level::Profile, &bad, Verdict::Holds),
            (Holds::Refused(400), Level::Profile, &twice, Verdict::Deviates),
        ];
        for (holds, level, exchange, expected) in cases {
            assert_eq!(verdict(holds, level, exchange, &CONTEXT()), expected, "{holds:?}");
        }
    }

    #[test]
    fn the_rows_users_expect_read_their_answers() {
        let stream = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nid: 1\ndata:\n\n";
        let json = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{}";
        let allowed =
            "HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, POST\r\nContent-Length: 0\r\n\r\n";
        let bare_405 = "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n";
        let accepted = "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n";
        let bad = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
        let not_found = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
        let unauthorized = "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n";
        let version = |v: &str| {
            format!("HTTP/1.1 200 OK\r\n\r\n{{\"result\":{{\"protocolVersion\":\"{v}\"}}}}")
        };
        let (supported, echoed) = (version("2025-11-25"), version("1999-01-01"));
        let cases: [(Holds, &str, Kept); 16] = [
            (Holds::EventStreamOr405, stream, Kept::Yes),
            (Holds::EventStreamOr405, allowed, Kept::Yes),
            (Holds::EventStreamOr405, json, Kept::No),
            (Holds::EventStreamOr405, bare_405, Kept::No),
            (Holds::Accepted, accepted, Kept::Yes),
            (Holds::Accepted, bad, Kept::Yes),
            (Holds::Accepted, json, Kept::No),
            (Holds::RefusedOr405(404), not_found, Kept::Yes),
            (Holds::RefusedOr405(404), allowed, Kept::Yes),
            (Holds::RefusedOr405(404), bare_405, Kept::No),
            (Holds::RefusedOr405(404), bad, Kept::Loosely),
            (Holds::TokenIgnored, unauthorized, Kept::Yes),
            (Holds::TokenIgnored, bad, Kept::Yes),
            (Holds::TokenIgnored, json, Kept::No),
            (Holds::OtherVersion("1999-01-01"), &supported, Kept::Yes),
            (Holds::OtherVersion("1999-01-01"), &echoed, Kept::No),
        ];
        for (holds, raw, expected) in cases {
            assert_eq!(kept(holds, &answer(raw, false), &CONTEXT()), expected, "{holds:?} {raw:?}");
        }
        let survived = |later| Exchange { later, ..answer(not_found, false) };
        let check = |exchange: &Exchange| kept(Holds::SessionSurvives(404), exchange, &CONTEXT());
        assert_eq!(
            (check(&survived(Some(200))), check(&survived(Some(404)))),
            (Kept::Yes, Kept::No)
        );
    }

    #[test]
    fn challenges_are_read_as_a_list_in_any_case() {
        let challenge = |value: &str| {
            format!(
                "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: {value}\r\nContent-Length: 0\r\n\r\n"
            )
        };
        let cases: [(Holds, String, Kept); 8] = [
            (
                Holds::Challenge(Some("invalid_token")),
                challenge(r#"Bearer error="invalid_token""#),
                Kept::Yes,
            ),
            (
                Holds::Challenge(Some("invalid_token")),
                challenge(r#"Basic realm="mcp", Bearer error="invalid_token""#),
                Kept::Yes,
            ),
            (
                Holds::Challenge(Some("invalid_token")),
                challenge(r#"bearer ERROR=invalid_token"#),
                Kept::Yes,
            ),
            (Holds::Challenge(None), challenge(r#"Basic realm="mcp""#), Kept::Loosely),
            (Holds::Challenge(None), "HTTP/1.1 403 Forbidden\r\n\r\n".into(), Kept::Loosely),
            (
                Holds::ChallengeNamesMetadata,
                challenge(r#"Basic realm="mcp", Bearer RESOURCE_METADATA="http://x""#),
                Kept::Yes,
            ),
            (
                Holds::ChallengeNamesMetadata,
                challenge(r#"Bearer realm="resource_metadata=""#),
                Kept::No,
            ),
            (Holds::ChallengeNamesMetadata, challenge(r#"Bearer resource_metadata="a"#), Kept::No),
        ];
        for (holds, raw, expected) in cases {
            assert_eq!(kept(holds, &answer(&raw, false), &CONTEXT()), expected, "{raw:?}");
        }
    }

    #[test]
    fn an_answer_without_a_content_type_is_still_read() {
        let cases: [(&str, Option<i64>); 4] = [
            ("HTTP/1.1 400 Bad Request\r\n\r\n{\"error\":{\"code\":-32600}}", Some(-32600)),
            ("HTTP/1.1 200 OK\r\n\r\nid: 1\ndata: {\"error\":{\"code\":-1}}\n\n", Some(-1)),
            (
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n{\"error\":{\"code\":-1}}",
                None,
            ),
            ("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>", None),
        ];
        for (raw, code) in cases {
            assert_eq!(rpc_code(&answer(raw, false)), code, "{raw:?}");
        }
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
