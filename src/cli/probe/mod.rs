//! `probe URL`: the catalogue's boundary checks against any MCP server on this machine, as a
//! grid that says, row by row, which rule the answer keeps or breaks.
//!
//! The URL must name 127.0.0.1 or localhost (never resolved: localhost is 127.0.0.1 here); the
//! probe sends hostile bytes, so anything else is refused before a connection is made. It finds
//! what the server speaks, sends each applicable row once on a fresh connection (at most
//! [`peer::REQUESTS_MAX`] requests and [`RUN_TIME_MAX`] in all, each with its deadline), judges
//! each answer by the row's rule, then deletes every session it caused. Progress goes to
//! stderr, a line per group; the grid (or, with `--json`, one JSON object per row) to stdout.
//! Exit 0 when every MUST holds, 1 when one deviates, 2 for a usage error or a server that
//! never answered.
//!
//! Not here: the rows (`catalogue`), how an answer is read (`answer`, `wire`) or judged
//! (`judge`, `hygiene`).

pub mod answer;
mod grid;
pub mod hygiene;
pub mod judge;
pub mod peer;
pub mod wire;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use loopback_mcp_http::client::trace::Trace;
use loopback_mcp_http::mcp::revision::Versions;

use super::args::Flags;
use super::case::{Message, Request, Sender};
use super::catalogue::{self, Across, Aggregate, Boundary, Group, Holds, Level, Needs};
use super::render;
use grid::Row;
use hygiene::Hygiene;
use judge::{Kept, Verdict};
use peer::{Credentials, Peer, Target};

/// The conformance suite's step-up fixture tool, whose listing says the suite's fixtures are
/// served.
const FIXTURE_TOOL: &str = "test_simple_text";

/// The longest a probe runs.
pub const RUN_TIME_MAX: Duration = Duration::from_secs(60);

/// `probe URL [flags]`.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let (url, rest) = args.split_first().ok_or("probe needs a URL: http://127.0.0.1:PORT/path")?;
    let target = loopback_target(url)?;
    let known = ["token", "other-token", "header", "protocol-versions"];
    let flags = Flags::parse_traced(rest, &known, &["json"])?;
    let trace = flags.trace()?;
    let mut headers = Vec::new();
    for header in flags.all("header") {
        let (name, value) = header
            .split_once(':')
            .ok_or(format!("--header {header:?}: the form is 'Name: value'"))?;
        let name = name.trim();
        if name.is_empty()
            || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
        {
            return Err(format!("--header {header:?}: not a field name"));
        }
        headers.push((name.to_owned(), value.trim().to_owned()));
    }
    let versions = match flags.one::<String>("protocol-versions")? {
        Some(list) => Versions::parse(&list).map_err(|e| format!("--protocol-versions: {e}"))?,
        None => Versions::ALL,
    };
    let credentials =
        Credentials { token: flags.one("token")?, other_token: flags.one("other-token")?, headers };
    let started = Instant::now();
    let mut peer =
        Peer::open(target, credentials, Trace::with_mode(trace), versions, started + RUN_TIME_MAX);
    let rows = probe_all(&mut peer);
    peer.close();
    let summary = grid::summary(&rows, peer.sent, started.elapsed());
    eprintln!("probe: {summary}");
    if peer.answered == 0 {
        eprintln!("probe: the server never answered at {}", peer.target.address);
        return Ok(ExitCode::from(2));
    }
    if flags.has("json") {
        for row in &rows {
            super::print_line(&row.json());
        }
    } else {
        print!("{}", grid::text(&rows));
        println!("{summary}");
    }
    let deviates = rows.iter().any(|r| r.verdict == Verdict::Deviates);
    Ok(if deviates { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// The server named by a URL on this machine: `http://127.0.0.1:PORT/path` or
/// `http://localhost:PORT/path`.
pub fn loopback_target(url: &str) -> Result<Target, String> {
    let only = "the probe sends hostile bytes, so only to this machine: http://127.0.0.1:PORT/path or http://localhost:PORT/path";
    let rest =
        url.strip_prefix("http://").ok_or(format!("{url:?} is not an http:// URL; {only}"))?;
    let (authority, path) = rest.find('/').map_or((rest, "/"), |at| (&rest[..at], &rest[at..]));
    let (host, port) =
        authority.rsplit_once(':').ok_or(format!("{url:?} names no port; {only}"))?;
    if host != "127.0.0.1" && host != "localhost" {
        return Err(format!("{host:?} is not this machine; {only}"));
    }
    let port: u16 =
        port.parse().ok().filter(|p| *p != 0).ok_or(format!("{port:?} is not a port; {only}"))?;
    if path.contains(['?', '#']) || !path.bytes().all(|b| b.is_ascii_graphic()) {
        // Not repeated: a query may hold a token.
        return Err("the URL's path takes no query, fragment or space".into());
    }
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    Ok(Target { address, authority: authority.to_owned(), path: path.to_owned() })
}

/// What the rows are judged with: the server's context, the baseline's outcome, and the
/// rules judged across every answer.
struct Judging {
    context: judge::Context,
    /// The baseline request was answered 2xx; if not, why the rows that change it say nothing.
    baseline: Result<(), String>,
    hygiene: Hygiene,
}

/// Every row, judged or set aside, in the grid's order.
fn probe_all(peer: &mut Peer) -> Vec<Row> {
    let baseline = baseline(peer);
    let mut judging = Judging { context: peer.context(), baseline, hygiene: Hygiene::default() };
    let mut rows = Vec::new();
    for group in Group::ALL {
        let before = rows.len();
        for boundary in catalogue::BOUNDARIES.iter().filter(|b| b.group == group) {
            let row = probe_one(peer, boundary, &mut judging);
            rows.push(row);
        }
        for across in catalogue::ACROSS.iter().filter(|a| a.group == group) {
            let row = judge_across(peer, across, &judging, &rows);
            rows.push(row);
        }
        eprintln!("probe: {}", grid::group_line(group, &rows[before..]));
    }
    rows
}

/// The first baseline method the server answers 2xx (the table's bodies name it from then on);
/// why none did, if none did.
fn baseline(peer: &mut Peer) -> Result<(), String> {
    let ping = Request::post(Message::Ping, &[]);
    let mut why = String::new();
    for method in peer.baseline_methods() {
        peer.use_baseline(method);
        match send_row(peer, ("the baseline request", Sender::Alice), &ping, wire::CLOSE_GLANCE) {
            Ok((_, exchange))
                if exchange.head.as_ref().is_some_and(|h| (200..300).contains(&h.status)) =>
            {
                return Ok(());
            }
            Ok((_, exchange)) => {
                why = format!("the baseline {method} was answered {}", judge::observed(&exchange))
            }
            Err(e) => why = e,
        }
    }
    peer.use_baseline(peer.baseline_methods()[0]);
    Err(why)
}

/// One row sent and judged, or set aside.
fn probe_one(peer: &mut Peer, boundary: &Boundary, judging: &mut Judging) -> Row {
    if let Err(why) = applies(boundary.needs, peer, &judging.baseline) {
        return Row::set_aside(boundary, Verdict::NotApplicable, why);
    }
    let named = (boundary.case, boundary.sender);
    let during = boundary.request.base.during();
    let sent = match during {
        Some(owner) => send_during_slow_call(peer, named, &boundary.request, owner),
        None => send_row(peer, named, &boundary.request, watch(boundary.holds)),
    };
    let (request, exchange) = match sent {
        Ok(sent) => sent,
        Err(why) => return Row::set_aside(boundary, Verdict::NotApplicable, why),
    };
    judging.hygiene.observe(
        boundary.case,
        &request,
        &exchange,
        &peer.tokens(),
        &peer.session_ids(),
    );
    let verdict = judge::verdict(boundary.holds, boundary.rule.level, &exchange, &judging.context);
    let discovers = kept_discovery(boundary, &exchange, &judging.context);
    let observed = match during {
        Some(_) => format!("the call: {}", judge::call_outcome(&exchange)),
        None => judge::observed(&exchange),
    };
    Row::judged(boundary, verdict, observed, discovers)
}

/// A row judged across every answer so far.
fn judge_across(peer: &Peer, across: &Across, judging: &Judging, rows: &[Row]) -> Row {
    if let Err(why) = applies(across.needs, peer, &Ok(())) {
        return Row::across(across, Verdict::NotApplicable, why);
    }
    let (kept, seen) = match across.check {
        Aggregate::Discoverable => discoverable(rows),
        Aggregate::NoEcho => judging.hygiene.echo(),
        Aggregate::NoTokenEcho => judging.hygiene.token(),
        Aggregate::NoTrace => judging.hygiene.trace(),
    };
    let verdict = match (kept, across.rule.level) {
        (true, _) => Verdict::Holds,
        (false, Level::Must) => Verdict::Deviates,
        (false, Level::Should | Level::Profile) => Verdict::Differs,
    };
    Row::across(across, verdict, seen)
}

/// Renders and sends one request, watching for the close as long as `watch`; the bytes and the
/// exchange.
fn send_row(
    peer: &mut Peer,
    (case, sender): (&str, Sender),
    request: &Request,
    watch: Duration,
) -> Result<(Vec<u8>, wire::Exchange), String> {
    let bytes = render::build(peer, sender, request, None)
        .map_err(|e| format!("{case}: cannot be sent here: {e}"))?;
    let exchange = peer.send_watching(sender, &bytes, watch);
    Ok((bytes, exchange))
}

/// Starts `owner`'s slow call and sends the row's cancellation while it runs (see
/// [`super::case::Base::CancelDuring`]); the cancellation's bytes and the call's exchange. A cancellation not
/// answered 2xx sets the row aside: the call's end would say nothing about it.
fn send_during_slow_call(
    peer: &mut Peer,
    (case, sender): (&str, Sender),
    request: &Request,
    owner: Sender,
) -> Result<(Vec<u8>, wire::Exchange), String> {
    let cannot = |e: String| format!("{case}: cannot be sent here: {e}");
    let call = render::build(peer, owner, &Request::post(Message::SlowCall, &[]), None);
    let call = call.map_err(cannot)?;
    let bytes = render::build(peer, sender, request, None).map_err(cannot)?;
    let (called, answered) = peer.send_during((owner, &call), sender, &bytes);
    match answered.head.as_ref().map(|h| h.status) {
        Some(200..=299) => Ok((bytes, called)),
        _ => Err(format!("the cancellation was answered {}", judge::observed(&answered))),
    }
}

/// How long to watch for the close: long where the rule is about it.
fn watch(holds: Holds) -> Duration {
    match holds {
        Holds::RefusedThenClosed(_) | Holds::Closes => wire::CLOSE_WATCH,
        Holds::Refused(_)
        | Holds::RpcError(..)
        | Holds::NoMismatch
        | Holds::Discovered
        | Holds::Challenge(_)
        | Holds::ChallengeNamesMetadata
        | Holds::Metadata
        | Holds::ResourceIsEndpoint
        | Holds::NotAllowed
        | Holds::TellsTheEra
        | Holds::CallFinishes
        | Holds::CallStops
        | Holds::ScopeChallenge(_) => wire::CLOSE_GLANCE,
    }
}

/// Why a row does not apply to this server, if it does not.
fn applies(needs: Needs, peer: &Peer, baseline: &Result<(), String>) -> Result<(), String> {
    let ok = |yes: bool, why: &str| if yes { Ok(()) } else { Err(why.to_owned()) };
    match needs {
        Needs::Nothing => baseline.clone(),
        Needs::Session => {
            ok(peer.has_session(Sender::Alice), "the server opens no 2025-11-25 session")
        }
        Needs::EndedSession => {
            ok(peer.has_session(Sender::Ended), "no session could be ended with DELETE")
        }
        Needs::OtherToken => ok(
            peer.has_session(Sender::Mallory),
            "no session for a second principal (--other-token)",
        ),
        Needs::Modern => ok(peer.modern.is_some(), "the server speaks no 2026-era revision"),
        Needs::ModernOnly => {
            ok(peer.modern.is_some() && !peer.legacy, "the server does not speak 2026-07-28 alone")
        }
        Needs::MirroredTool => {
            ok(peer.has_mirrored_tool(), "no 2026-07-28 tool mirrors a string argument")
        }
        Needs::Token => ok(peer.has_token(), "no --token given"),
        Needs::SlowTool => ok(peer.has_slow_tool(), "no 2025-11-25 session lists test_tool_slow"),
        Needs::SlowToolOtherToken => ok(
            peer.has_slow_tool() && peer.has_session(Sender::Mallory),
            "no test_tool_slow, or no session for a second principal (--other-token)",
        ),
        Needs::ConformanceFixtures => ok(
            peer.has_tool(FIXTURE_TOOL),
            "no 2026-07-28 tools/list names test_simple_text (the suite's step-up fixtures)",
        ),
    }
}

/// Whether a discovery row's answer kept its rule, for the row judged across them.
fn kept_discovery(
    boundary: &Boundary,
    exchange: &wire::Exchange,
    context: &judge::Context,
) -> bool {
    matches!(boundary.holds, Holds::ChallengeNamesMetadata | Holds::Metadata)
        && judge::kept(boundary.holds, exchange, context) == Kept::Yes
}

/// The metadata can be found: one of the discovery rows kept its rule.
fn discoverable(rows: &[Row]) -> (bool, String) {
    match rows.iter().find(|r| r.discovers) {
        Some(row) => (true, format!("by {}", row.case)),
        None => {
            (false, "neither the challenge nor the well-known URI leads to the metadata".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_urls_on_this_machine_are_probed() {
        type Named = Result<(&'static str, &'static str), &'static str>;
        let cases: [(&str, Named); 8] = [
            ("http://127.0.0.1:8000/mcp", Ok(("127.0.0.1:8000", "/mcp"))),
            ("http://localhost:3000/", Ok(("localhost:3000", "/"))),
            ("http://localhost:3000", Ok(("localhost:3000", "/"))),
            ("http://example.invalid:80/mcp", Err("is not this machine")),
            ("https://127.0.0.1:8000/mcp", Err("is not an http:// URL")),
            ("http://127.0.0.1/mcp", Err("names no port")),
            ("http://127.0.0.1:0/mcp", Err("is not a port")),
            ("http://127.0.0.1:8000/mcp?x=1", Err("no query")),
        ];
        for (url, expected) in cases {
            match (loopback_target(url), expected) {
                (Ok(t), Ok((authority, path))) => {
                    assert_eq!((t.authority.as_str(), t.path.as_str()), (authority, path), "{url}");
                    assert_eq!(t.address.to_string(), format!("127.0.0.1:{}", t.address.port()));
                }
                (Err(e), Err(part)) => assert!(e.contains(part), "{url}: {e}"),
                (got, _) => panic!("{url}: {got:?}"),
            }
        }
    }
}
