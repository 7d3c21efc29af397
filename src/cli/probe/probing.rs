//! Every row of the catalogue against the peer, in the grid's order: each row that applies sent
//! once on a fresh connection and judged, the rows judged across after each group's own, and
//! the sessions a row opened or caused ended before the next row.
//!
//! Not here: how an answer keeps a rule (`judge`), the rows judged across (`across`).

use super::across::{self, Judging};
use super::grid::{self, Row};
use super::judge::{self, Verdict};
use super::peer::Peer;
use super::shown;
use super::wire::{self, After};
use crate::cli::case::{Message, Request, Sender};
use crate::cli::catalogue::{self, Boundary, Group, Holds, Needs};
use crate::cli::render;

/// Every row, judged or set aside, in the grid's order; a progress line per group on stderr.
pub fn probe_all(peer: &mut Peer) -> Vec<Row> {
    let baseline = baseline(peer);
    let mut judging = Judging::new(peer.context(), baseline);
    let mut rows = Vec::new();
    for group in Group::ALL {
        let before = rows.len();
        for boundary in catalogue::BOUNDARIES.iter().filter(|b| b.group == group) {
            let row = probe_one(peer, boundary, &mut judging);
            peer.end_strays();
            rows.push(row);
        }
        for row in catalogue::ACROSS.iter().filter(|a| a.group == group) {
            let row = across::judge(peer, row, &mut judging);
            rows.push(row);
        }
        let line = grid::group_line(group, &rows[before..]);
        errln!("probe: {}", peer.secrets.redact(&line));
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
        match send_row(peer, ("the baseline request", Sender::Alice), &ping, After::Glance) {
            Ok((_, exchange))
                if exchange.head.as_ref().is_some_and(|h| (200..300).contains(&h.status)) =>
            {
                return Ok(());
            }
            Ok((_, exchange)) => {
                why = format!("the baseline {method} was answered {}", shown::observed(&exchange))
            }
            Err(e) => why = e,
        }
    }
    peer.use_baseline(peer.baseline_methods()[0]);
    peer.end_strays();
    Err(why)
}

/// One row sent and judged, or set aside.
fn probe_one(peer: &mut Peer, boundary: &Boundary, judging: &mut Judging) -> Row {
    if let Err(why) = across::applies(boundary.needs, peer, &judging.baseline) {
        return Row::judged(boundary, Verdict::NotApplicable, why);
    }
    if boundary.needs == Needs::Victim && !peer.open_temporary() {
        let why = "no second session of the first principal could be opened".to_owned();
        return Row::judged(boundary, Verdict::NotApplicable, why);
    }
    let sent = send_boundary(peer, boundary);
    if boundary.needs == Needs::Victim {
        peer.end_temporary();
    }
    let (request, exchange) = match sent {
        Ok(sent) => sent,
        Err(why) => return Row::judged(boundary, Verdict::NotApplicable, why),
    };
    judging.hygiene.observe(
        boundary.case,
        &request,
        &exchange,
        &peer.tokens(),
        &peer.session_ids(),
    );
    if boundary.holds == Holds::ChallengeNamesMetadata {
        judging.challenge = Some(exchange.clone());
    }
    let verdict = judge::verdict(boundary.holds, boundary.rule.level, &exchange, &judging.context);
    let observed = match (boundary.request.base.during(), exchange.later) {
        (Some(_), _) => format!("the call: {}", shown::call_outcome(&exchange)),
        (None, Some(later)) => {
            format!("{}; the session then answered {later}", shown::observed(&exchange))
        }
        (None, None) => shown::observed(&exchange),
    };
    Row::judged(boundary, verdict, observed)
}

/// The row's request sent as the row says: on its own, during a slow call, or followed by the
/// ping that shows whether the session it named survived.
fn send_boundary(
    peer: &mut Peer,
    boundary: &Boundary,
) -> Result<(Vec<u8>, wire::Exchange), String> {
    let named = (boundary.case, boundary.sender);
    let after = if boundary.group.reads_on() { After::ReadOn } else { After::Glance };
    let (request, mut exchange) = match boundary.request.base.during() {
        Some(owner) => send_during_slow_call(peer, named, &boundary.request, owner)?,
        None => send_row(peer, named, &boundary.request, after)?,
    };
    if let Holds::SessionSurvives(_) = boundary.holds {
        let ping = Request::post(Message::Ping, &[]);
        let (_, answer) =
            send_row(peer, ("the session's ping", Sender::AliceSecond), &ping, after)?;
        exchange.later = answer.head.map(|h| h.status);
    }
    Ok((request, exchange))
}

/// Renders and sends one request, watching the connection after it as `after` says; the bytes
/// and the exchange.
fn send_row(
    peer: &mut Peer,
    (case, sender): (&str, Sender),
    request: &Request,
    after: After,
) -> Result<(Vec<u8>, wire::Exchange), String> {
    let bytes = render::build(peer, sender, request, None)
        .map_err(|e| format!("{case}: cannot be sent here: {e}"))?;
    let exchange = peer.send_watching(sender, &bytes, after);
    Ok((bytes, exchange))
}

/// Starts `owner`'s slow call and sends the row's cancellation while it runs (see
/// [`Base::CancelDuring`]); the cancellation's bytes and the call's exchange. A cancellation not
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
        _ => Err(format!("the cancellation was answered {}", shown::observed(&answered))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::case::Base;

    #[test]
    fn only_the_framing_rows_read_on_after_their_answer() {
        let reading: Vec<&str> =
            catalogue::BOUNDARIES.iter().filter(|b| b.group.reads_on()).map(|b| b.id).collect();
        assert!(reading.contains(&"te-with-cl-chunked") && reading.contains(&"bare-lf"));
        assert!(catalogue::BOUNDARIES.iter().all(|b| {
            b.group.reads_on() == (b.group == Group::Framing)
                && (!matches!(b.request.base, Base::Raw(_)) || b.group == Group::Framing)
        }));
    }
}
