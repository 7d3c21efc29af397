//! The events of two sessions' streams, side by side: what a resumable 2025-11-25 server must
//! keep apart (MCP 2025-11-25, transports: Resumability and Redelivery). Each session sends a
//! ping and, when the server lists it, a slow call, each under a JSON-RPC id tagged with its
//! session; then each opens a GET stream, and one more with the other session's last event id as
//! `Last-Event-ID`.
//!
//! A GET stream never carries the answer to a POST: a fresh one carries no response at all, and
//! one resumed from the other session's cursor has nothing of that session to replay. So a
//! tagged answer on any GET stream is an event replayed from another stream, of its own session
//! or the other's. And no event id appears on two of one session's fresh streams.
//!
//! The second session is the other principal's when there is one, else a second session of the
//! first principal, ended at the end of the walk.
//!
//! Not here: the rows that judge what was seen (`across`).

use loopback_mcp_http::json::{self, Value, members};
use loopback_mcp_http::mcp::jsonrpc::{self, Id};

use super::answer;
use super::judge::{self, Outcome};
use super::peer::Peer;
use super::wire::Exchange;
use crate::cli::case::Sender;

/// How the tagged ids begin: `probe-stream-a-ping`.
const TAG: &str = "probe-stream-";

/// How long the slow call works: enough to come as a stream, short enough to wait for.
const SLOW_CALL_MS: u64 = 100;

/// One stream as read: its event ids, and the data of its events.
#[derive(Clone, Debug, Default)]
struct Stream {
    ids: Vec<String>,
    data: Vec<String>,
}

/// What the walk saw.
#[derive(Clone, Debug)]
pub struct Seen {
    /// Why it could not run, when it could not.
    aside: Option<String>,
    /// Each session's fresh streams (its POSTs' answers, then its GET).
    fresh: [Vec<Stream>; 2],
    /// Each session's GET streams, fresh and resumed.
    gets: [Vec<Stream>; 2],
    /// Some GET was answered with an event stream.
    streamed: bool,
}

/// The walk over two sessions.
pub fn walk(peer: &mut Peer) -> Seen {
    let mut seen =
        Seen { aside: None, fresh: Default::default(), gets: Default::default(), streamed: false };
    let second = if peer.has_session(Sender::Mallory) {
        Some(Sender::Mallory)
    } else {
        peer.open_temporary().then_some(Sender::AliceSecond)
    };
    let Some(second) = second else {
        seen.aside = Some("no second session could be opened".into());
        return seen;
    };
    let senders = [Sender::Alice, second];
    for (at, sender) in senders.into_iter().enumerate() {
        let tag = format!("{TAG}{}", ["a", "b"][at]);
        seen.fresh[at] = posts(peer, sender, &tag);
        let get = get(peer, sender, None, &mut seen.streamed);
        seen.fresh[at].push(get.clone());
        seen.gets[at].push(get);
    }
    for (at, sender) in senders.into_iter().enumerate() {
        let cursor = seen.fresh[1 - at].iter().flat_map(|s| s.ids.last()).next_back().cloned();
        if let Some(cursor) = cursor {
            let resumed = get(peer, sender, Some(&cursor), &mut seen.streamed);
            seen.gets[at].push(resumed);
        }
    }
    if second == Sender::AliceSecond {
        peer.end_temporary();
    }
    seen
}

/// A tagged ping and, when the server lists it, a tagged slow call: the streams their answers
/// were.
fn posts(peer: &mut Peer, sender: Sender, tag: &str) -> Vec<Stream> {
    let session = peer.session(sender).map(str::to_owned);
    let ping = jsonrpc::request(&Id::String(format!("{tag}-ping")), "ping", json::Object::new());
    let mut messages = vec![ping];
    if peer.has_slow_tool() {
        let arguments = json::object([("durationMs", SLOW_CALL_MS.into())]);
        let params = members([("name", "test_tool_slow".into()), ("arguments", arguments)]);
        messages.push(jsonrpc::request(&Id::String(format!("{tag}-slow")), "tools/call", params));
    }
    messages
        .iter()
        .map(|message| {
            let body = json::encode(message).into_bytes();
            let spec = peer.legacy_post(sender, &body, session.as_deref());
            stream(&peer.send(sender, &spec.bytes()))
        })
        .collect()
}

/// A GET stream in `sender`'s session, resumed from `cursor` when one is given.
fn get(peer: &mut Peer, sender: Sender, cursor: Option<&str>, streamed: &mut bool) -> Stream {
    let spec = peer.legacy_spec("GET", sender, peer.session(sender));
    let spec = match cursor {
        Some(cursor) => spec.with("Last-Event-ID", cursor),
        None => spec,
    };
    let exchange = peer.send(sender, &spec.bytes());
    let is_stream = exchange.head.as_ref().is_some_and(|h| (200..300).contains(&h.status))
        && judge::is_event_stream(&exchange);
    *streamed |= is_stream;
    if is_stream { stream(&exchange) } else { Stream::default() }
}

/// The events of an answer, when it is an event stream (by its type, or without one by its
/// lines).
fn stream(exchange: &Exchange) -> Stream {
    let text = String::from_utf8_lossy(&exchange.body);
    let ids = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .filter_map(|l| l.strip_prefix("id:"))
        .map(|id| id.strip_prefix(' ').unwrap_or(id).to_owned())
        .filter(|id| !id.is_empty())
        .collect();
    Stream { ids, data: answer::event_data(&exchange.body) }
}

/// Whether an event's data answers one of the walk's tagged requests.
fn tagged(data: &str) -> bool {
    json::decode(data.as_bytes(), 64)
        .ok()
        .and_then(|m| m.get("id").and_then(Value::as_str).map(|id| id.starts_with(TAG)))
        .unwrap_or(false)
}

impl Seen {
    /// No GET stream carries an answer to a POST.
    pub fn crossed(&self) -> Outcome {
        if let Some(why) = &self.aside {
            return Outcome::Aside(why.clone());
        }
        if !self.streamed {
            return Outcome::Aside("no GET was answered with an event stream".into());
        }
        for (at, gets) in self.gets.iter().enumerate() {
            for (n, get) in gets.iter().enumerate() {
                let replayed = get.data.iter().filter(|d| tagged(d)).count();
                if replayed > 0 {
                    let which = if n == 0 {
                        "a fresh GET stream"
                    } else {
                        "a GET resumed from the other session's id"
                    };
                    let whose = ["first", "second"][at];
                    return Outcome::Kept(
                        false,
                        format!(
                            "{which} of the {whose} session replayed {replayed} answers to POSTs"
                        ),
                    );
                }
            }
        }
        let count: usize = self.gets.iter().map(Vec::len).sum();
        Outcome::Kept(true, format!("{count} GET streams carried no answer to a POST"))
    }

    /// No event id appears on two of a session's fresh streams.
    pub fn repeated(&self) -> Outcome {
        if let Some(why) = &self.aside {
            return Outcome::Aside(why.clone());
        }
        let mut checked = 0;
        for (at, streams) in self.fresh.iter().enumerate() {
            for (n, stream) in streams.iter().enumerate() {
                checked += stream.ids.len();
                let later = &streams[n + 1..];
                if stream.ids.iter().any(|id| later.iter().any(|s| s.ids.contains(id))) {
                    let whose = ["first", "second"][at];
                    return Outcome::Kept(
                        false,
                        format!("an event id of the {whose} session came on two of its streams"),
                    );
                }
            }
        }
        match checked {
            0 => Outcome::Aside("no stream carried an event id".into()),
            n => Outcome::Kept(true, format!("{n} event ids, each on one stream")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(ids: &[&str], data: &[&str]) -> Stream {
        Stream {
            ids: ids.iter().map(|s| (*s).to_owned()).collect(),
            data: data.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    fn seen(fresh: [Vec<Stream>; 2], resumed: [Option<Stream>; 2]) -> Seen {
        let gets = [0, 1].map(|at| {
            let mut gets = vec![fresh[at].last().cloned().unwrap_or_default()];
            gets.extend(resumed[at].clone());
            gets
        });
        Seen { aside: None, fresh, gets, streamed: true }
    }

    #[test]
    fn an_answer_to_a_post_on_a_get_stream_was_replayed_from_another_stream() {
        let answer = r#"{"id":"probe-stream-a-slow","jsonrpc":"2.0","result":{}}"#;
        let call = stream(&["a2", "a3"], &[answer]);
        let second = || vec![stream(&["b1"], &[])];
        let clean = seen([vec![call.clone(), stream(&["a4"], &[])], second()], [None, None]);
        let resumed = Some(stream(&["a3"], &[answer]));
        let crossed = seen([vec![call.clone(), stream(&["a4"], &[])], second()], [None, resumed]);
        let restarted = seen([vec![call.clone(), stream(&["a2"], &[])], second()], [None, None]);
        let cases: [(&Seen, bool, bool); 3] =
            [(&clean, true, true), (&crossed, false, true), (&restarted, true, false)];
        for (seen, stays, unique) in cases {
            let kept = |o: Outcome| matches!(o, Outcome::Kept(true, _));
            assert_eq!((kept(seen.crossed()), kept(seen.repeated())), (stays, unique));
        }
        assert!(tagged(answer) && !tagged(r#"{"id":7,"result":{}}"#) && !tagged("not json"));
    }
}
