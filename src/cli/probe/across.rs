//! The rows judged across the probe's answers, or by a walk of requests of their own: whether
//! each era's opening answer can be read, every answer's type, the session ids, the events of
//! two sessions' streams (`streams`), the metadata reached by discovery (`discovery`), and the
//! hygiene of every answer (`hygiene`). Each walk runs once, for the first row that needs it.
//!
//! Which rows apply to a server is decided here, for both kinds.
//!
//! Not here: the rows judged one request each (`probing`).

use loopback_mcp_http::mcp::revision::Era;

use super::discovery::{self, Found};
use super::grid::Row;
use super::hygiene::Hygiene;
use super::judge::{self, Outcome, Verdict};
use super::peer::{Delete, Opening, Peer};
use super::streams::{self, Seen};
use super::wire::Exchange;
use crate::cli::case::Sender;
use crate::cli::catalogue::{Across, Aggregate, Level, Needs};

/// The conformance suite's step-up fixture tool, whose listing says the suite's fixtures are
/// served.
const FIXTURE_TOOL: &str = "test_simple_text";

/// What the rows are judged with: the server's context, the baseline's outcome, and what the
/// rows and walks saw so far.
pub struct Judging {
    pub context: judge::Context,
    /// The baseline request was answered 2xx; if not, why the rows that change it say nothing.
    pub baseline: Result<(), String>,
    pub hygiene: Hygiene,
    /// The answer to the request without credentials whose challenge discovery starts from.
    pub challenge: Option<Exchange>,
    found: Option<Found>,
    seen: Option<Seen>,
}

impl Judging {
    pub fn new(context: judge::Context, baseline: Result<(), String>) -> Judging {
        let hygiene = Hygiene::default();
        Judging { context, baseline, hygiene, challenge: None, found: None, seen: None }
    }
}

/// One row judged across.
pub fn judge(peer: &mut Peer, across: &Across, judging: &mut Judging) -> Row {
    if let Err(why) = applies(across.needs, peer, &Ok(())) {
        return Row::across(across, Verdict::NotApplicable, why);
    }
    let outcome = match across.check {
        Aggregate::Readable(era) => readable(peer, era),
        Aggregate::AnswerTypes => answer_types(peer),
        Aggregate::SessionIdsVisible => session_ids(peer),
        Aggregate::EventsStayOnTheirStream => streams(peer, judging).crossed(),
        Aggregate::EventIdsUnique => streams(peer, judging).repeated(),
        Aggregate::LinkYields => found(peer, judging).link(),
        Aggregate::WellKnown => found(peer, judging).well_known(),
        Aggregate::Discoverable => found(peer, judging).discoverable(),
        Aggregate::ResourceIsEndpoint => {
            let endpoint = judging.context.endpoint.clone();
            found(peer, judging).resource(&endpoint)
        }
        Aggregate::NamesAuthorizationServer => found(peer, judging).authorization_servers(),
        Aggregate::NoEcho => kept(judging.hygiene.echo()),
        Aggregate::NoTokenEcho => kept(judging.hygiene.token()),
        Aggregate::NoTrace => kept(judging.hygiene.trace()),
    };
    let (verdict, seen) = match (outcome, across.rule.level) {
        (Outcome::Kept(true, seen), _) => (Verdict::Holds, seen),
        (Outcome::Kept(false, seen), Level::Must) => (Verdict::Deviates, seen),
        (Outcome::Kept(false, seen), Level::Should | Level::Profile) => (Verdict::Differs, seen),
        (Outcome::Aside(why), _) => (Verdict::NotApplicable, why),
    };
    Row::across(across, verdict, seen)
}

fn kept((ok, seen): (bool, String)) -> Outcome {
    Outcome::Kept(ok, seen)
}

/// The discovery walk, run on first use.
fn found<'j>(peer: &mut Peer, judging: &'j mut Judging) -> &'j Found {
    let challenge = judging.challenge.take();
    judging.found.get_or_insert_with(|| discovery::walk(peer, challenge.as_ref()))
}

/// The two sessions' streams, walked on first use.
fn streams<'j>(peer: &mut Peer, judging: &'j mut Judging) -> &'j Seen {
    judging.seen.get_or_insert_with(|| streams::walk(peer))
}

/// Whether the era's opening answer, when it was a 200, could be read.
fn readable(peer: &Peer, era: Era) -> Outcome {
    let (request, at) = match era {
        Era::Legacy => ("initialize", 0),
        Era::Modern => ("server/discover", 1),
    };
    match peer.opened[at] {
        Opening::Read => Outcome::Kept(true, format!("{request} was answered 200 and read")),
        Opening::Unreadable => Outcome::Kept(
            false,
            format!("{request} was answered 200 with a body that is no JSON-RPC message"),
        ),
        Opening::NotAnswered => Outcome::Aside(format!("{request} was not answered 200")),
    }
}

/// Whether every 2xx answer to a POSTed request was JSON or an event stream.
fn answer_types(peer: &Peer) -> Outcome {
    match peer.untyped.as_slice() {
        [] => {
            Outcome::Kept(true, "every 2xx answer to a request was JSON or an event stream".into())
        }
        [first] => Outcome::Kept(false, first.clone()),
        [first, rest @ ..] => {
            Outcome::Kept(false, format!("{first}, and {} more answers", rest.len()))
        }
    }
}

/// Whether every session id issued is visible ASCII; only counts and lengths are shown.
fn session_ids(peer: &Peer) -> Outcome {
    let visible = |id: &String| !id.is_empty() && id.bytes().all(|b| (0x21..=0x7E).contains(&b));
    let bad = peer.issued.iter().filter(|id| !visible(id)).count();
    let all = peer.issued.len();
    match bad {
        0 => Outcome::Kept(true, format!("{all} ids, every byte from 0x21 to 0x7E")),
        bad => Outcome::Kept(false, format!("{bad} of {all} ids hold a byte outside 0x21 to 0x7E")),
    }
}

/// Why a row does not apply to this server, if it does not.
pub fn applies(needs: Needs, peer: &Peer, baseline: &Result<(), String>) -> Result<(), String> {
    let ok = |yes: bool, why: &str| if yes { Ok(()) } else { Err(why.to_owned()) };
    let deletes = matches!(peer.delete, Delete::Ends | Delete::Unsupported);
    match needs {
        Needs::Nothing => baseline.clone(),
        Needs::Legacy => ok(peer.legacy, "the server does not answer initialize with 2025-11-25"),
        Needs::Session => {
            ok(peer.has_session(Sender::Alice), "the server opens no 2025-11-25 session")
        }
        Needs::EndedSession => {
            ok(peer.has_session(Sender::Ended), "no session could be ended with DELETE")
        }
        Needs::Delete => ok(
            peer.has_session(Sender::Alice) && deletes,
            "DELETE neither ended a session nor was answered 405",
        ),
        Needs::OtherToken => ok(
            peer.has_session(Sender::Mallory),
            "no session for a second principal (--other-token)",
        ),
        Needs::Victim => ok(
            peer.has_session(Sender::Mallory) && deletes,
            "no session for a second principal (--other-token), or no DELETE",
        ),
        Needs::Modern => ok(peer.modern.is_some(), "the server speaks no 2026-era revision"),
        Needs::ModernOnly => {
            ok(peer.modern.is_some() && !peer.legacy, "the server does not speak 2026-07-28 alone")
        }
        Needs::MirroredTool => {
            ok(peer.has_mirrored_tool(), "no 2026-07-28 tool mirrors a string argument")
        }
        Needs::Token => ok(peer.has_token(), "no --token given"),
        Needs::SlowTool => {
            ok(peer.has_slow_tool(), "no 2025-11-25 tools/list names test_tool_slow")
        }
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
