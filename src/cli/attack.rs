//! `attack`: hostile requests against a fresh in-process server, each of which must be refused
//! with one exact status and public error code.
//!
//! The attacks are one table of [`Step`]s (see `case`): who sends what, the refusal it must get,
//! and the state changes between them. Every attack is listed on stderr with the status and
//! public error code it got. The summary line on stdout says how many were blocked; the verdict
//! is BLOCK (exit 0) only when every one got its expected status and code (a 403 for a missing
//! scope is not a 403 for a foreign tenant), and an attack that got through is named on stderr
//! (exit 1).

use std::process::ExitCode;

use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::trace::TraceMode;
use loopback_mcp_http::mcp::revision::Versions;

use super::args::Flags;
use super::case::{
    Action, Case, Change, Expect, Message, Modern, Observation, Request, Sender, Smuggling, Step,
    Text,
};
use super::catalogue::{self, Boundary};
use super::scene::Scene;
use super::watch::StreamCheck;

/// Runs every attack; `--trace` or `--trace-bytes` prints the redacted wire trace.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let trace = Flags::parse_traced(args, &[], &[])?.trace()?;
    Ok(run_traced(trace))
}

fn run_traced(trace: TraceMode) -> ExitCode {
    let outcome = Scene::open(trace, &ATTACKS).and_then(|mut scene| run_all(&mut scene));
    // Without a server or its sessions nothing was tried: the verdict is FAIL, still one line.
    let (blocked, through) = outcome.unwrap_or_else(|e| {
        errln!("error: {e}");
        (0, attack_count())
    });
    let verdict = if through == 0 { "BLOCK" } else { "FAIL" };
    super::print_summary(&[("blocked_attacks", blocked as u64)], Some(Versions::LEGACY), verdict);
    if through == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// How many attacks the table holds.
fn attack_count() -> usize {
    ATTACKS
        .iter()
        .map(|step| match step {
            Step::Check(_)
            | Step::Baseline(_)
            | Step::Wire(_)
            | Step::Smuggle(_)
            | Step::Open(..) => 1,
            Step::CheckEachRole(roles, _) => roles.len(),
            Step::Watch(watch) => watch.observations(),
            Step::Do(_) | Step::Browser(_) => 0,
        })
        .sum()
}

/// Returns (blocked, got through).
fn run_all(scene: &mut Scene) -> Result<(usize, usize), String> {
    let (mut blocked, mut through) = (0, 0);
    for step in &ATTACKS {
        for observation in scene.run(step)? {
            if observation.matched {
                blocked += 1;
            } else {
                through += 1;
            }
            report(&observation);
        }
    }
    Ok((blocked, through))
}

fn report(o: &Observation) {
    let shown = o.status.map_or("no response".to_owned(), |s| format!("{s} {}", o.key_seen));
    if o.matched {
        errln!("blocked      {shown:<36} {}", o.what);
    } else {
        let expected = format!("{}{}", o.expect.status, o.expect.key_text());
        errln!("GOT THROUGH  {shown:<36} {} (expected {expected})", o.what);
    }
}

const fn attack(what: &'static str, sender: Sender, request: Request, expect: Expect) -> Step {
    Step::Check(Case { what, sender, request, expect })
}

/// Alice's 2026-07-28 request with `changes`, which must get `expect`.
const fn modern_attack(
    what: &'static str,
    modern: Modern,
    changes: &'static [Change],
    expect: Expect,
) -> Step {
    attack(what, Sender::Alice, Request::modern(modern, changes), expect)
}

const INVALID_TOKEN: Expect = Expect::code(401, "invalid_token");

/// Every token role the policy refuses with 401 at initialize, whatever the reason.
const REFUSED_ROLES: [Role; 6] = [
    Role::WrongAudience,
    Role::WrongAuthorizationResource,
    Role::WrongTokenResource,
    Role::WrongIssuer,
    Role::Expired,
    Role::StaleRevision,
];

/// The head of an MCP POST as a client sends it, up to (not including) its framing fields.
macro_rules! post_head {
    () => {
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n{auth}"
    };
}

/// The same head announcing a chunked body, its empty line included.
macro_rules! chunked_head {
    () => {
        concat!(post_head!(), "Transfer-Encoding: chunked\r\n\r\n")
    };
}

/// The request a smuggling attempt hides after its own: answering it would prove the smuggle.
macro_rules! smuggled {
    () => {
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n{auth}\r\n"
    };
}

const fn smuggle(
    what: &'static str,
    decided: &'static str,
    rest: &'static str,
    expect: Expect,
) -> Step {
    Step::Smuggle(Smuggling { what, decided, rest, expect })
}

/// A row of the catalogue, judged by this server's exact answer.
const fn row(boundary: &Boundary) -> Step {
    Step::Check(boundary.case())
}

const ATTACKS: [Step; 84] = [
    // Mallory's GET stream and her tool call's POST stream hand her event ids: later, cursors of
    // another session.
    Step::Do(Action::PollStream(Sender::Mallory)),
    Step::Do(Action::CallReconnectionTool(Sender::Mallory)),
    // The catalogue's rows that any server meets, as this server refuses them.
    row(&catalogue::TE_WITH_CL),
    row(&catalogue::TE_WITH_CL_CHUNKED),
    row(&catalogue::TWO_LENGTHS),
    row(&catalogue::SIGNED_LENGTH),
    row(&catalogue::CHUNKED_NOT_LAST),
    row(&catalogue::NO_HOST),
    row(&catalogue::TWO_HOSTS),
    row(&catalogue::BARE_LF),
    row(&catalogue::SPACE_BEFORE_COLON),
    row(&catalogue::OBS_FOLD),
    row(&catalogue::MANY_FIELDS),
    row(&catalogue::LONG_VALUE),
    row(&catalogue::BIG_BODY),
    row(&catalogue::ACCEPT_JSON_ONLY),
    row(&catalogue::NO_ACCEPT),
    row(&catalogue::GET_ACCEPT_JSON),
    row(&catalogue::TEXT_PLAIN),
    row(&catalogue::FOREIGN_ORIGIN),
    row(&catalogue::NULL_ORIGIN),
    row(&catalogue::LOOPBACK_ORIGIN),
    row(&catalogue::FOREIGN_HOST),
    row(&catalogue::DUPLICATE_KEYS),
    row(&catalogue::NAN),
    row(&catalogue::BATCH),
    row(&catalogue::NULL_ID),
    row(&catalogue::TOO_DEEP),
    row(&catalogue::INVALID_UTF8),
    row(&catalogue::UNSOLICITED),
    row(&catalogue::VERSION_MISSING),
    row(&catalogue::VERSION_UNSUPPORTED),
    row(&catalogue::VERSION_TWICE),
    row(&catalogue::NO_SESSION),
    row(&catalogue::UNKNOWN_SESSION),
    row(&catalogue::ENDED_SESSION),
    row(&catalogue::OTHER_PRINCIPAL),
    row(&catalogue::CANCEL_OTHER_PRINCIPAL),
    row(&catalogue::NO_TOKEN),
    row(&catalogue::BAD_TOKEN),
    row(&catalogue::TOKEN_IN_QUERY),
    row(&catalogue::PUT),
    // What needs this server's fixture: its roles, scopes, tenants and revocations.
    Step::CheckEachRole(
        &REFUSED_ROLES,
        Case {
            what: "a token the policy refuses",
            sender: Sender::Alice,
            request: Request::initialize(&[Change::OutsideSession]),
            expect: INVALID_TOKEN,
        },
    ),
    attack(
        "skipping the scope step-up (connect-only token lists resources)",
        Sender::Narrow,
        Request::post(Message::ListResources, &[]),
        Expect::code(403, "insufficient_scope"),
    ),
    attack(
        "tenant outside the ACL reads resources",
        Sender::Carol,
        Request::post(Message::ListResources, &[]),
        Expect::code(403, "forbidden"),
    ),
    attack(
        "a cookie sent to the public discovery document",
        Sender::Alice,
        Request::discovery(&[Change::With("Cookie", Text::Lit("session=stolen"))]),
        Expect::code(400, "credentials_not_accepted"),
    ),
    attack(
        "the localhost alias, which the metadata (naming 127.0.0.1) does not describe",
        Sender::Alice,
        Request::discovery(&[Change::Set(
            "Host",
            Text::Join(&[Text::Lit("localhost:"), Text::Port]),
        )]),
        Expect::code(421, "host_not_canonical"),
    ),
    attack(
        "the later revision (2026-07-28) in the version header",
        Sender::Alice,
        Request::post(
            Message::Ping,
            &[Change::Set("MCP-Protocol-Version", Text::Lit("2026-07-28"))],
        ),
        Expect::code(400, "protocol_version_unsupported"),
    ),
    attack(
        "Last-Event-ID from another session",
        Sender::Alice,
        Request::get(&[Change::With("Last-Event-ID", Text::GetEventOf(Sender::Mallory))]),
        Expect::code(400, "last_event_id_other_session"),
    ),
    attack(
        "Last-Event-ID of another session's POST stream (its tool result is owed)",
        Sender::Alice,
        Request::get(&[Change::With("Last-Event-ID", Text::LastEventOf(Sender::Mallory))]),
        Expect::code(400, "last_event_id_other_session"),
    ),
    Step::Do(Action::Revoke(Role::ConnectOnly)),
    attack(
        "revoked token on a live session",
        Sender::Narrow,
        Request::post(Message::Ping, &[]),
        INVALID_TOKEN,
    ),
    Step::Do(Action::BumpRevision(Role::OtherSubject)),
    attack(
        "token outlived by a revision change on a live session",
        Sender::Mallory,
        Request::post(Message::Ping, &[]),
        INVALID_TOKEN,
    ),
    // alice of acme holds two sessions (`full` and `connect_only` are both hers); two more fill
    // her quota of four, and the table still has room for everyone else.
    Step::Do(Action::OpenSessions(Role::Full, 2)),
    attack(
        "one principal taking every session slot",
        Sender::Alice,
        Request::initialize(&[Change::OutsideSession]),
        Expect::code(429, "session_quota"),
    ),
    // Under `--chunked` the server decodes chunked bodies, and the smuggling shapes meet a
    // decoder: each is refused at the byte that decides it (its answer arrives before the rest
    // is sent), and the request hidden behind it is never answered.
    Step::Do(Action::ServeChunked),
    smuggle(
        "--chunked, CL.TE: Content-Length and Transfer-Encoding together",
        concat!(post_head!(), "Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n"),
        concat!("0\r\n\r\nX", smuggled!()),
        Expect::code(400, "transfer_encoding_with_content_length"),
    ),
    smuggle(
        "--chunked, TE.CL: Transfer-Encoding, then a Content-Length a front end would obey",
        concat!(post_head!(), "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n"),
        concat!("0\r\n\r\n", smuggled!()),
        Expect::code(400, "transfer_encoding_with_content_length"),
    ),
    smuggle(
        "--chunked, TE.TE: a second, obfuscated Transfer-Encoding line",
        concat!(post_head!(), "Transfer-Encoding: chunked\r\nTransfer-Encoding: xchunked\r\n\r\n"),
        concat!("0\r\n\r\n", smuggled!()),
        Expect::code(400, "transfer_encoding_duplicate"),
    ),
    smuggle(
        "--chunked, TE.TE: chunked applied before a coding some hop ignores",
        concat!(post_head!(), "Transfer-Encoding: chunked, identity\r\n\r\n"),
        concat!("0\r\n\r\n", smuggled!()),
        Expect::code(400, "transfer_encoding_invalid"),
    ),
    smuggle(
        "--chunked, TE.TE: a coding this server does not implement before chunked",
        concat!(post_head!(), "Transfer-Encoding: identity, chunked\r\n\r\n"),
        concat!("0\r\n\r\n", smuggled!()),
        Expect::code(501, "transfer_encoding_chunked"),
    ),
    smuggle(
        "--chunked, a chunk size that wraps to 5 in 64 bits (seventeen digits)",
        concat!(chunked_head!(), "10000000000000005"),
        concat!("\r\nhello\r\n0\r\n\r\n", smuggled!()),
        Expect::code(400, "chunk_size_too_long"),
    ),
    smuggle(
        "--chunked, a request hidden in a quoted chunk extension",
        concat!(chunked_head!(), "5;note=\"\r"),
        concat!("\n", smuggled!(), "\"\r\nhello\r\n0\r\n\r\n"),
        Expect::code(400, "chunk_extension_quoted_byte"),
    ),
    smuggle(
        "--chunked, a bare LF ending a chunk extension (a lenient parser's line end)",
        concat!(chunked_head!(), "2;x\n"),
        concat!("{}\r\n0\r\n\r\n", smuggled!()),
        Expect::code(400, "chunk_bare_lf"),
    ),
    smuggle(
        "--chunked, a request hidden after a bare LF in a trailer",
        concat!(chunked_head!(), "2\r\n{}\r\n0\r\nX-Note: a\n"),
        concat!(smuggled!(), "\r\n"),
        Expect::code(400, "trailer_bare_lf"),
    ),
    smuggle(
        "--chunked, a trailer Content-Length that would re-frame the body",
        concat!(chunked_head!(), "2\r\n{}\r\n0\r\nContent-Length: 120\r\n"),
        concat!("\r\n", smuggled!()),
        Expect::code(400, "trailer_field_forbidden"),
    ),
    smuggle(
        "--chunked, chunk data running past its size",
        concat!(chunked_head!(), "2\r\n{}}"),
        concat!("\r\n0\r\n\r\n", smuggled!()),
        Expect::code(400, "chunk_data_unterminated"),
    ),
    // 2026-07-28 on a server that speaks both revisions: a header that repeats a body field and
    // says something else (a router trusting the header, the server the body) is refused.
    Step::Do(Action::ServeVersions(Versions::ALL)),
    Step::Do(Action::ListToolsModern(Sender::Alice)),
    row(&catalogue::CAPABILITIES_MISSING),
    row(&catalogue::METHOD_MISMATCH),
    row(&catalogue::METHOD_MISSING),
    row(&catalogue::NAME_MISMATCH),
    row(&catalogue::PARAM_MISMATCH),
    row(&catalogue::PARAM_MISSING),
    row(&catalogue::PARAM_LOOKALIKE),
    row(&catalogue::MODERN_UNSUPPORTED),
    modern_attack(
        "a sentinel that decodes to CR LF and a second header line",
        Modern::Mirrored("acme"),
        &[Change::SetMirrored(Text::Lit("=?base64?YWNtZQ0KWC1UZW5hbnQ6IGdsb2JleA==?="))],
        Expect::mismatch("Mcp-Param-Tenant", "header_body_mismatch"),
    ),
    modern_attack(
        "a sentinel whose base64 is not valid (a missing pad)",
        Modern::Mirrored("acme"),
        &[Change::SetMirrored(Text::Lit("=?base64?YWNtZQ=?="))],
        Expect::mismatch("Mcp-Param-Tenant", "header_base64_invalid"),
    ),
    modern_attack(
        "Mcp-Name twice",
        Modern::Mirrored("acme"),
        &[Change::With("Mcp-Name", Text::Lit("tenant_documents"))],
        Expect::mismatch("Mcp-Name", "header_repeated"),
    ),
    // Streams that stay open hold workers: a flood of them by one principal takes at most its
    // part of their share, a client that never reads cannot keep one, and a stream answered to
    // HTTP/1.0 carries no transfer coding it cannot read.
    Step::Watch(StreamCheck::StreamFlood),
    Step::Watch(StreamCheck::NeverReads),
    Step::Watch(StreamCheck::Framing { http10: true }),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::case::Key;
    use loopback_mcp_http::http::chunked::request::{ChunkedDecoder, Decoded};
    use loopback_mcp_http::http::{BodyFraming, Parsed, RequestParser, TransferCodings};
    use loopback_mcp_http::limits::Limits;

    /// The code of the refusal `bytes` get from the parser and the decoder under `--chunked`, or
    /// `None` while they still wait for more.
    fn refusal(bytes: &[u8]) -> Option<&'static str> {
        let limits = Limits::DEFAULT;
        let mut parser = RequestParser::with_codings(&limits, TransferCodings::Chunked);
        let accepted = match parser.judge(bytes) {
            Err(e) => return Some(e.code()),
            Ok(Parsed::Partial) => return None,
            Ok(Parsed::Complete { value, .. }) => value,
        };
        assert_eq!(accepted.body(), BodyFraming::Chunked, "a smuggle that is a plain request");
        let mut body = bytes[accepted.head_len()..].to_vec();
        match ChunkedDecoder::new(&limits).decode(&mut body) {
            Err(e) => Some(e.in_request(accepted.head_len()).code()),
            Ok(Decoded::Partial { .. }) => None,
            Ok(Decoded::Complete { .. }) => panic!("a smuggle that is a valid body"),
        }
    }

    #[test]
    fn every_smuggle_is_decided_by_the_last_byte_of_its_first_write() {
        let fill = |t: &str| {
            let t = t.replace("{path}", "/mcp").replace("{host}", "127.0.0.1:8080");
            t.replace("{auth}", "Authorization: Bearer tok\r\n").into_bytes()
        };
        let mut smuggles = 0;
        for step in &ATTACKS {
            let Step::Smuggle(smuggling) = step else { continue };
            smuggles += 1;
            let decided = fill(smuggling.decided);
            let code = match smuggling.expect.key {
                Key::Code(code) => code,
                _ => panic!("{}: a smuggle is judged by its code", smuggling.what),
            };
            assert_eq!(refusal(&decided), Some(code), "{}", smuggling.what);
            let before = &decided[..decided.len() - 1];
            assert_eq!(refusal(before), None, "{}: decided before its last byte", smuggling.what);
        }
        assert_eq!(smuggles, 11);
    }
}
