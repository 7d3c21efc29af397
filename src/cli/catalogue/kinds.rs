//! The kinds a catalogue row is made of: its group, its rule and level, how any answer keeps
//! it, and what a server must offer for it to apply.

use loopback_mcp_http::mcp::revision::Era;

use crate::cli::case::{Case, Change, Expect, Message, Request, Sender};

/// The groups of the grid, in the order it prints them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    Framing,
    Media,
    Rebinding,
    Json,
    Versions,
    Sessions,
    Modern,
    Resource,
    Hygiene,
}

impl Group {
    pub const ALL: [Group; 9] = [
        Group::Framing,
        Group::Media,
        Group::Rebinding,
        Group::Json,
        Group::Versions,
        Group::Sessions,
        Group::Modern,
        Group::Resource,
        Group::Hygiene,
    ];

    /// Whether the probe reads on after a row's answer until the close (or a short deadline):
    /// a framing row's bytes are those another reader could split into two requests, and a
    /// second answer is the sign one did.
    pub const fn reads_on(self) -> bool {
        match self {
            Group::Framing => true,
            Group::Media
            | Group::Rebinding
            | Group::Json
            | Group::Versions
            | Group::Sessions
            | Group::Modern
            | Group::Resource
            | Group::Hygiene => false,
        }
    }

    /// A short name for reports (JUnit's class names).
    pub const fn slug(self) -> &'static str {
        match self {
            Group::Framing => "framing",
            Group::Media => "media",
            Group::Rebinding => "rebinding",
            Group::Json => "json",
            Group::Versions => "versions",
            Group::Sessions => "sessions",
            Group::Modern => "modern",
            Group::Resource => "resource",
            Group::Hygiene => "hygiene",
        }
    }

    /// The group's heading.
    pub const fn title(self) -> &'static str {
        match self {
            Group::Framing => "HTTP framing",
            Group::Media => "media types",
            Group::Rebinding => "DNS-rebinding guards",
            Group::Json => "JSON and JSON-RPC",
            Group::Versions => "protocol versions",
            Group::Sessions => "2025-11-25 sessions",
            Group::Modern => "2026-07-28",
            Group::Resource => "the resource server",
            Group::Hygiene => "hygiene",
        }
    }
}

/// How binding a rule is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// A MUST of the source: breaking it is a deviation.
    Must,
    /// A SHOULD of the source: breaking it is a difference.
    Should,
    /// This project's stricter choice where the source allows more: a difference too.
    Profile,
}

impl Level {
    pub const fn name(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::Profile => "profile",
        }
    }
}

/// A rule: what an answer must do, where that is written, and how binding it is.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub says: &'static str,
    pub source: &'static str,
    pub level: Level,
}

/// How any server's answer keeps a rule (see `probe::judge`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holds {
    /// Refused with this status. Another refusal keeps the rule loosely: a MUST broken all the
    /// same, a SHOULD or the profile differing.
    Refused(u16),
    /// Refused with this status, or 405 with `Allow`: a server without the method keeps it.
    RefusedOr405(u16),
    /// That, and the session the request named still answers afterwards.
    SessionSurvives(u16),
    /// Refused (with this status, when one is named), and the connection closed after it: the
    /// framing rules of RFC 9112 §6. Another 4xx or 5xx followed by the close keeps it loosely,
    /// which differs even at MUST: the refusal and the close are what prevent a desync. No answer
    /// while the connection stays open breaks it: the server waits for a body by another length.
    RefusedThenClosed(Option<u16>),
    /// Whatever the answer, the connection closed after it; no answer on an open connection
    /// breaks it too.
    Closes,
    /// Refused with this status and this JSON-RPC error code.
    RpcError(u16, i64),
    /// Anything but a `-32020` refusal: the header was read as matching its body.
    NoMismatch,
    /// 200 with a JSON-RPC result listing `supportedVersions`.
    Discovered,
    /// 401 with a `Bearer` challenge, carrying this `error` when one is named.
    Challenge(Option<&'static str>),
    /// 401 whose `Bearer` challenge names `resource_metadata`.
    ChallengeNamesMetadata,
    /// 405 with an `Allow` field.
    NotAllowed,
    /// The token sent in the query was not taken: any refusal (400 for the query, 401 for a
    /// request without credentials) keeps it; an answer that serves the request breaks it.
    TokenIgnored,
    /// 200 with `Content-Type: text/event-stream`, or 405 with `Allow`.
    EventStreamOr405,
    /// 202 with no body, or a refusal: a notification accepted or not.
    Accepted,
    /// 200 whose `initialize` result names a version, not this one that was proposed.
    OtherVersion(&'static str),
    /// The answer tells a dual-era client the era the server speaks (see `probe::judge`).
    TellsTheEra,
    /// A slow call a cancellation named answered its result all the same: the cancellation
    /// did not reach it.
    CallFinishes,
    /// A slow call a cancellation named ended without its result.
    CallStops,
    /// 403 with one `Bearer` challenge: `error="insufficient_scope"`, a `scope` naming every
    /// one of these, and a `resource_metadata` on the endpoint's origin.
    ScopeChallenge(&'static [&'static str]),
}

/// What a server must offer for a row to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// Nothing: sent in the server's first era, as its ordinary ping changed.
    Nothing,
    /// 2025-11-25: the server answered `initialize` with it, with or without a session.
    Legacy,
    /// A 2025-11-25 session.
    Session,
    /// A 2025-11-25 session, and DELETE to end one.
    EndedSession,
    /// A 2025-11-25 session, and DELETE either ends one or is answered 405.
    Delete,
    /// A 2025-11-25 session and a second principal's token (`probe --other-token`).
    OtherToken,
    /// That, and a session of the first principal opened for the row alone
    /// ([`Sender::AliceSecond`]), ended after it.
    Victim,
    /// 2026-07-28.
    Modern,
    /// 2026-07-28 and nothing older.
    ModernOnly,
    /// A 2026-07-28 tool that mirrors an argument into a header.
    MirroredTool,
    /// A token (`probe --token`).
    Token,
    /// A 2025-11-25 session whose `tools/list` names `test_tool_slow`.
    SlowTool,
    /// That, and a session for a second principal (`probe --other-token`).
    SlowToolOtherToken,
    /// The conformance suite's step-up fixtures: a 2026-07-28 `tools/list` names
    /// `test_simple_text` (`serve --conformance-fixtures`).
    ConformanceFixtures,
}

/// One row of the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct Boundary {
    /// A stable name, kept when the words change: what `probe --json` and `probe compare` match
    /// runs by.
    pub id: &'static str,
    /// The case, in words.
    pub case: &'static str,
    /// What is sent, in one line.
    pub sent: &'static str,
    pub group: Group,
    pub needs: Needs,
    pub sender: Sender,
    pub request: Request,
    pub rule: Rule,
    pub holds: Holds,
    /// What this server answers.
    pub ours: Expect,
}

/// A rule judged across every answer of a probe, or by a short walk of requests of its own,
/// not by one request.
#[derive(Clone, Copy, Debug)]
pub struct Across {
    pub id: &'static str,
    pub case: &'static str,
    pub sent: &'static str,
    pub group: Group,
    pub needs: Needs,
    pub rule: Rule,
    pub check: Aggregate,
}

/// What an [`Across`] row looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregate {
    /// The server's answer to the era's opening request (`initialize`, `server/discover`),
    /// answered 200, can be read.
    Readable(Era),
    /// Every 2xx answer to a POSTed request (one with an `id`) is JSON or an event stream.
    AnswerTypes,
    /// Every session id the server issued is visible ASCII.
    SessionIdsVisible,
    /// No GET stream carries an event of another stream: of its own session's POSTs, or of
    /// another session's, with or without that session's `Last-Event-ID`.
    EventsStayOnTheirStream,
    /// No event id appears on two of a session's streams.
    EventIdsUnique,
    /// The challenge's `resource_metadata`, when it names this server, yields the document.
    LinkYields,
    /// The path-inserted or the root well-known URI yields the document.
    WellKnown,
    /// One of the three yields it, in MCP's order: the link, the path-inserted URI, the root.
    Discoverable,
    /// The first document found names the endpoint as its `resource`.
    ResourceIsEndpoint,
    /// That document lists at least one authorization server.
    NamesAuthorizationServer,
    /// No refusal repeats a distinctive value the request carried, or a session id.
    NoEcho,
    /// No answer carries the token.
    NoTokenEcho,
    /// No answer carries a stack trace or a file path.
    NoTrace,
}

impl Boundary {
    /// The row as a case of this server: its words, its sender, its request and this server's
    /// answer.
    pub const fn case(&self) -> Case {
        Case { what: self.case, sender: self.sender, request: self.request, expect: self.ours }
    }
}

// How the rows are written.

pub(super) const fn must(says: &'static str, source: &'static str) -> Rule {
    Rule { says, source, level: Level::Must }
}

pub(super) const fn should(says: &'static str, source: &'static str) -> Rule {
    Rule { says, source, level: Level::Should }
}

pub(super) const fn profile(says: &'static str, source: &'static str) -> Rule {
    Rule { says, source, level: Level::Profile }
}

/// The sender's ordinary ping with `changes`.
pub(super) const fn ping(changes: &'static [Change]) -> Request {
    Request::post(Message::Ping, changes)
}

/// A row sent by the first principal: its id, its words and what it sends first.
#[allow(clippy::too_many_arguments)]
pub(super) const fn row(
    (id, case, sent): (&'static str, &'static str, &'static str),
    group: Group,
    needs: Needs,
    request: Request,
    rule: Rule,
    holds: Holds,
    ours: Expect,
) -> Boundary {
    Boundary { id, case, sent, group, needs, sender: Sender::Alice, request, rule, holds, ours }
}

pub(super) const RFC9112_FRAMING: &str = "RFC 9112 §6.3";
pub(super) const TRANSPORT: &str = "MCP 2025-11-25 and 2026-07-28, transports: Sending Messages";
pub(super) const SECURITY: &str = "MCP 2025-11-25 and 2026-07-28, transports: Security Warning";
pub(super) const VERSION_HEADER: &str = "MCP 2025-11-25, transports: Protocol Version Header";
pub(super) const SESSIONS: &str = "MCP 2025-11-25, transports: Session Management";
pub(super) const VALIDATION: &str = "MCP 2026-07-28, transports: Server Validation";
pub(super) const ENCODING: &str = "MCP 2026-07-28, transports: Value Encoding";
pub(super) const DISCOVERY: &str =
    "MCP 2025-11-25, authorization: Protected Resource Metadata Discovery";
pub(super) const LISTENING: &str =
    "MCP 2025-11-25, transports: Listening for Messages from the Server";
pub(super) const RESUMPTION: &str = "MCP 2025-11-25, transports: Resumability and Redelivery";
pub(super) const HIJACKING: &str = "MCP 2025-11-25, security: Session Hijacking";
