//! The rows about 2025-11-25 sessions: the id a request carries or lacks, whose it is, the GET
//! stream, notifications, DELETE, and cancellations within and across sessions.

use super::kinds::{
    Boundary, Group, HIJACKING, Holds, LISTENING, Needs, SESSIONS, TRANSPORT, must, ping, row,
    should,
};
use crate::cli::case::{Base, Change, Expect, Key, Message, Request, Sender, Text};

const CANCELLATION: &str = "MCP 2025-11-25, utilities: Cancellation";

pub const NO_SESSION: Boundary = row(
    ("no-session", "no MCP-Session-Id", "the session's ping without MCP-Session-Id"),
    Group::Sessions,
    Needs::Session,
    ping(&[Change::Without("MCP-Session-Id")]),
    should("a request other than initialize without the session's id gets 400", SESSIONS),
    Holds::Refused(400),
    Expect::code(400, "session_missing"),
);

pub const UNKNOWN_SESSION: Boundary = row(
    (
        "unknown-session",
        "an unknown MCP-Session-Id",
        "the session's ping with a session id the server never issued",
    ),
    Group::Sessions,
    Needs::Session,
    ping(&[Change::Set("MCP-Session-Id", Text::Lit("probe-session-never-issued"))]),
    should(
        "an id the server never issued gets 404, the client's signal to initialize again",
        "MCP 2025-11-25, transports: Session Management (its 404 MUST names ended sessions; a \
         server cannot tell an id it never issued from one it ended and forgot)",
    ),
    Holds::Refused(404),
    Expect::code(404, "session_not_found"),
);

pub const ENDED_SESSION: Boundary = row(
    (
        "ended-session",
        "a session ended by DELETE",
        "the session's ping with the id of a session DELETE ended",
    ),
    Group::Sessions,
    Needs::EndedSession,
    ping(&[Change::Set("MCP-Session-Id", Text::SessionOf(Sender::Ended))]),
    must("after a session ends, requests with its id get 404", SESSIONS),
    Holds::Refused(404),
    Expect::code(404, "session_not_found"),
);

pub const OTHER_PRINCIPAL: Boundary = Boundary {
    sender: Sender::Mallory,
    ..row(
        (
            "other-principal",
            "another principal's session",
            "the first principal's session id with the other principal's token",
        ),
        Group::Sessions,
        Needs::OtherToken,
        ping(&[Change::Set("MCP-Session-Id", Text::SessionOf(Sender::Alice))]),
        should(
            "a session is bound to its user: another's token with it is treated as unknown, 404",
            HIJACKING,
        ),
        Holds::Refused(404),
        Expect::code(404, "session_not_found"),
    )
};

pub const GET_STREAM: Boundary = row(
    ("get-stream", "the GET stream", "the session's GET with Accept: text/event-stream"),
    Group::Sessions,
    Needs::Legacy,
    Request::get(&[]),
    must("a GET for the stream gets an event stream, or 405 where there is none", LISTENING),
    Holds::EventStreamOr405,
    Expect { status: 200, key: Key::Header("content-type", "text/event-stream") },
);

pub const GET_NO_SESSION: Boundary = row(
    ("get-no-session", "a GET stream without MCP-Session-Id", "the session's GET without its id"),
    Group::Sessions,
    Needs::Session,
    Request::get(&[Change::Without("MCP-Session-Id")]),
    should("a GET without the session's id gets 400 (405 where there is no stream)", SESSIONS),
    Holds::RefusedOr405(400),
    Expect::code(400, "session_missing"),
);

pub const GET_OTHER_PRINCIPAL: Boundary = Boundary {
    sender: Sender::Mallory,
    ..row(
        (
            "get-other-principal",
            "another principal's GET stream",
            "a GET with the first principal's session id and the other principal's token",
        ),
        Group::Sessions,
        Needs::OtherToken,
        Request::get(&[Change::Set("MCP-Session-Id", Text::SessionOf(Sender::Alice))]),
        should("another's token with a session's id is treated as unknown: 404", HIJACKING),
        Holds::RefusedOr405(404),
        Expect::code(404, "session_not_found"),
    )
};

pub const NOTIFICATION: Boundary = row(
    ("notification", "a notification", "notifications/initialized again, in the session"),
    Group::Sessions,
    Needs::Legacy,
    Request::post(Message::Initialized, &[]),
    must("a notification accepted gets 202 and no body; one refused, an error status", TRANSPORT),
    Holds::Accepted,
    Expect::status(202),
);

pub const DELETE_NO_SESSION: Boundary = row(
    (
        "delete-no-session",
        "DELETE without MCP-Session-Id",
        "DELETE with the session's fields but its id",
    ),
    Group::Sessions,
    Needs::Session,
    Request { base: Base::Bodiless("DELETE"), changes: &[Change::Without("MCP-Session-Id")] },
    should("a DELETE without the session's id gets 400 (405 where DELETE ends nothing)", SESSIONS),
    Holds::RefusedOr405(400),
    Expect::code(400, "session_missing"),
);

pub const DELETE_OTHER_PRINCIPAL: Boundary = Boundary {
    sender: Sender::Mallory,
    ..row(
        (
            "delete-other-principal",
            "DELETE of another principal's session",
            "DELETE of a fresh session of the first principal, with the other's token; then its ping",
        ),
        Group::Sessions,
        Needs::Victim,
        Request {
            base: Base::Bodiless("DELETE"),
            changes: &[Change::Set("MCP-Session-Id", Text::SessionOf(Sender::AliceSecond))],
        },
        should(
            "another's DELETE is treated as unknown, 404, and the session goes on (or 405)",
            HIJACKING,
        ),
        Holds::SessionSurvives(404),
        Expect::code(404, "session_not_found"),
    )
};

pub const DELETE_ENDED: Boundary = row(
    ("delete-ended", "DELETE twice", "DELETE with the id of a session DELETE already ended"),
    Group::Sessions,
    Needs::Delete,
    Request {
        base: Base::Bodiless("DELETE"),
        changes: &[Change::Set("MCP-Session-Id", Text::SessionOf(Sender::Ended))],
    },
    must("every request with an ended session's id gets 404, DELETE too (or 405)", SESSIONS),
    Holds::RefusedOr405(404),
    Expect::code(404, "session_not_found"),
);

pub const CANCEL_OWN_SESSION: Boundary = row(
    (
        "cancel-own-session",
        "a cancellation in its own session",
        "notifications/cancelled naming the session's own test_tool_slow call in progress",
    ),
    Group::Sessions,
    Needs::SlowTool,
    Request { base: Base::CancelDuring(Sender::Alice), changes: &[] },
    should("the cancelled request stops, and no response is sent for it", CANCELLATION),
    Holds::CallStops,
    Expect::events("prime"),
);

pub const CANCEL_OTHER_PRINCIPAL: Boundary = Boundary {
    sender: Sender::Mallory,
    ..row(
        (
            "cancel-other-principal",
            "cancellation from another principal",
            "another principal's notifications/cancelled, in its own session, naming the first's call",
        ),
        Group::Sessions,
        Needs::SlowToolOtherToken,
        Request { base: Base::CancelDuring(Sender::Alice), changes: &[] },
        should(
            "a cancellation names a request of its own session: another's call finishes",
            CANCELLATION,
        ),
        Holds::CallFinishes,
        Expect::events("prime response"),
    )
};
