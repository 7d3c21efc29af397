//! The rows judged across the probe's answers, or by a short walk of requests of their own: what
//! one request cannot show (the answers can be read, every answer's type, the session ids, the
//! events of two sessions' streams, the metadata reached by discovery) and the hygiene of every
//! answer. Only `probe` judges them: this server's own answers to them are pinned by its tests.

use loopback_mcp_http::mcp::revision::Era;

use super::kinds::{
    Across, Aggregate, DISCOVERY, Group, Needs, RESUMPTION, SESSIONS, TRANSPORT, must, profile,
    should,
};

/// Every row judged across, in the grid's order within each group.
pub const ACROSS: [Across; 14] = [
    Across {
        id: "initialize-readable",
        case: "initialize can be read",
        sent: "initialize, as the probe opened the session",
        group: Group::Versions,
        needs: Needs::Nothing,
        rule: must(
            "a 200 to a request is one JSON object or an event stream a client reads",
            TRANSPORT,
        ),
        check: Aggregate::Readable(Era::Legacy),
    },
    Across {
        id: "discover-readable",
        case: "server/discover can be read",
        sent: "server/discover, as the probe found the era",
        group: Group::Versions,
        needs: Needs::Nothing,
        rule: must(
            "a 200 to a request is one JSON object or an event stream a client reads",
            TRANSPORT,
        ),
        check: Aggregate::Readable(Era::Modern),
    },
    Across {
        id: "events-stay-on-their-stream",
        case: "events stay on their stream",
        sent: "a ping and a slow call in two sessions, then GET streams, with and without the other's Last-Event-ID",
        group: Group::Sessions,
        needs: Needs::Session,
        rule: must(
            "no stream replays what another stream carried, of its own session or another's",
            RESUMPTION,
        ),
        check: Aggregate::EventsStayOnTheirStream,
    },
    Across {
        id: "event-ids-unique",
        case: "event ids unique across a session's streams",
        sent: "the event ids of those streams, session by session",
        group: Group::Sessions,
        needs: Needs::Session,
        rule: must("an event id names one event across all of a session's streams", RESUMPTION),
        check: Aggregate::EventIdsUnique,
    },
    Across {
        id: "session-ids-visible",
        case: "session ids are visible ASCII",
        sent: "every MCP-Session-Id the server issued to the probe",
        group: Group::Sessions,
        needs: Needs::Session,
        rule: must("a session id holds only the bytes 0x21 to 0x7E", SESSIONS),
        check: Aggregate::SessionIdsVisible,
    },
    Across {
        id: "metadata-link",
        case: "the challenge's metadata link",
        sent: "a GET of the resource_metadata the 401 names, when it names this server",
        group: Group::Resource,
        needs: Needs::Token,
        rule: must(
            "resource_metadata is the metadata's URL: it yields the document (clients MUST use it)",
            "RFC 9728 §5.1; MCP 2025-11-25, authorization: Protected Resource Metadata Discovery",
        ),
        check: Aggregate::LinkYields,
    },
    Across {
        id: "metadata-well-known",
        case: "protected-resource metadata at a well-known URI",
        sent: "GET /.well-known/oauth-protected-resource<path>, then without <path>",
        group: Group::Resource,
        needs: Needs::Token,
        rule: should(
            "the document is at the path-inserted well-known URI or the root one",
            "RFC 9728 §3.1; MCP 2025-11-25, authorization: Protected Resource Metadata Discovery",
        ),
        check: Aggregate::WellKnown,
    },
    Across {
        id: "metadata-discoverable",
        case: "a way to find the metadata",
        sent: "the link, the path-inserted URI and the root one, in MCP's order",
        group: Group::Resource,
        needs: Needs::Token,
        rule: must("one of the three yields the protected-resource metadata", DISCOVERY),
        check: Aggregate::Discoverable,
    },
    Across {
        id: "metadata-resource",
        case: "the metadata's resource is the endpoint",
        sent: "the first document found: its resource member",
        group: Group::Resource,
        needs: Needs::Token,
        rule: must(
            "a client uses metadata only when its resource is the URL it is accessing",
            "RFC 9728 §3.3, §7.3",
        ),
        check: Aggregate::ResourceIsEndpoint,
    },
    Across {
        id: "metadata-authorization-servers",
        case: "the metadata names an authorization server",
        sent: "the first document found: its authorization_servers member",
        group: Group::Resource,
        needs: Needs::Token,
        rule: must(
            "authorization_servers lists at least one",
            "MCP 2025-11-25 and 2026-07-28, authorization: Authorization Server Location",
        ),
        check: Aggregate::NamesAuthorizationServer,
    },
    Across {
        id: "answer-types",
        case: "every answer to a request is JSON or an event stream",
        sent: "every POST above that carried an id, answered 2xx",
        group: Group::Hygiene,
        needs: Needs::Nothing,
        rule: must(
            "a request's answer says Content-Type: application/json or text/event-stream",
            TRANSPORT,
        ),
        check: Aggregate::AnswerTypes,
    },
    Across {
        id: "no-echo",
        case: "no refusal repeats what was sent",
        sent: "every refusal above, against the distinctive values and session ids its request held",
        group: Group::Hygiene,
        needs: Needs::Nothing,
        rule: profile(
            "an error names what was wrong, never the value: it may be a secret, or markup",
            "this project's profile",
        ),
        check: Aggregate::NoEcho,
    },
    Across {
        id: "no-token-echo",
        case: "no answer carries the token",
        sent: "every answer above, against the tokens given",
        group: Group::Hygiene,
        needs: Needs::Token,
        rule: profile(
            "a bearer token never comes back, in a body, a header or an error",
            "this project's profile (RFC 6750 §5.1 names token disclosure as the threat)",
        ),
        check: Aggregate::NoTokenEcho,
    },
    Across {
        id: "no-trace",
        case: "no stack trace or file path in an answer",
        sent: "every answer above",
        group: Group::Hygiene,
        needs: Needs::Nothing,
        rule: profile(
            "an answer tells the client what it did wrong, not how the server is built",
            "this project's profile",
        ),
        check: Aggregate::NoTrace,
    },
];
