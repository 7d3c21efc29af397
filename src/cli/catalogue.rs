//! The boundary catalogue: every check that applies to any MCP server, one row each, read by
//! `probe` (any server on this machine, judged by the rule), and by `attack` and `lab` (this
//! server, judged by its exact answer).
//!
//! A row names the case in words, says in one line what it sends, and holds the request as
//! `case` describes requests: a base (the sender's ordinary POST, a 2026-07-28 request, a raw
//! template) and the changes made to it. Its rule has a source (an RFC section, or the page of
//! an MCP revision) and a level: MUST, SHOULD, or this project's stricter profile. [`Holds`]
//! says how an answer keeps the rule whatever server gave it; [`Boundary::ours`] is the answer
//! this server gives, status and public code. [`Needs`] says what a server must offer for the
//! row to apply at all.
//!
//! Not here: sending (`scene` for this server, `probe` for any), and the checks that need this
//! server's fixture (roles, tenants, a revocation): those stay in `attack` and `lab`.

mod http_rows;
mod kinds;
mod mcp_rows;

pub use http_rows::*;
pub use kinds::*;
pub use mcp_rows::*;

/// Every row, in the grid's order.
pub const BOUNDARIES: [Boundary; 59] = [
    TE_WITH_CL,
    TE_WITH_CL_CHUNKED,
    TWO_LENGTHS,
    SIGNED_LENGTH,
    CHUNKED_NOT_LAST,
    NO_HOST,
    TWO_HOSTS,
    BARE_LF,
    SPACE_BEFORE_COLON,
    OBS_FOLD,
    MANY_FIELDS,
    LONG_VALUE,
    BIG_BODY,
    ACCEPT_JSON_ONLY,
    NO_ACCEPT,
    GET_ACCEPT_JSON,
    TEXT_PLAIN,
    FOREIGN_ORIGIN,
    NULL_ORIGIN,
    LOOPBACK_ORIGIN,
    FOREIGN_HOST,
    DUPLICATE_KEYS,
    NAN,
    BATCH,
    NULL_ID,
    TOO_DEEP,
    INVALID_UTF8,
    UNSOLICITED,
    VERSION_MISSING,
    VERSION_UNSUPPORTED,
    VERSION_TWICE,
    ERA_PROBE,
    NO_SESSION,
    UNKNOWN_SESSION,
    ENDED_SESSION,
    OTHER_PRINCIPAL,
    CANCEL_OWN_SESSION,
    CANCEL_OTHER_PRINCIPAL,
    DISCOVER,
    CAPABILITIES_MISSING,
    METHOD_MISMATCH,
    METHOD_MISSING,
    NAME_MISMATCH,
    PARAM_MISMATCH,
    PARAM_MISSING,
    PARAM_SENTINEL,
    PARAM_LOOKALIKE,
    MODERN_UNSUPPORTED,
    MODERN_GET,
    MODERN_DELETE,
    NO_TOKEN,
    BAD_TOKEN,
    CHALLENGE_METADATA,
    STEP_UP_SCOPES,
    STEP_UP_ARGUMENT,
    METADATA,
    RESOURCE_MATCHES,
    TOKEN_IN_QUERY,
    PUT,
];

/// The rows judged across every answer, in the grid's order.
pub const ACROSS: [Across; 4] = [
    Across {
        case: "a way to find the metadata",
        sent: "the challenge and the well-known URI above",
        group: Group::Resource,
        needs: Needs::Token,
        rule: must(
            "the 401 names the metadata, or the metadata is at its well-known URI",
            DISCOVERY,
        ),
        check: Aggregate::Discoverable,
    },
    Across {
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
        case: "no answer carries the token",
        sent: "every answer above, against the tokens given",
        group: Group::Hygiene,
        needs: Needs::Token,
        rule: profile(
            "a bearer token never comes back, in a body, a header or an error",
            "RFC 6750 §5.3",
        ),
        check: Aggregate::NoTokenEcho,
    },
    Across {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_named_in_words_once_and_grouped_in_order() {
        let mut seen = Vec::new();
        for row in &BOUNDARIES {
            assert!(!row.case.contains('_') || row.case.contains("_meta"), "{}: words", row.case);
            assert!(!seen.contains(&row.case), "{} twice", row.case);
            seen.push(row.case);
            assert!(row.sent.len() <= 100 && !row.sent.contains('\n'), "{}", row.case);
        }
        let groups: Vec<Group> = BOUNDARIES.iter().map(|r| r.group).collect();
        assert!(groups.is_sorted(), "rows are grouped in the grid's order");
        assert!(BOUNDARIES.len() >= 40);
    }

    #[test]
    fn every_row_written_is_in_the_table_once() {
        let written: Vec<&str> =
            [include_str!("catalogue/http_rows.rs"), include_str!("catalogue/mcp_rows.rs")]
                .iter()
                .flat_map(|file| file.lines())
                .filter_map(|line| {
                    line.strip_prefix("pub const ")?.strip_suffix(": Boundary = row(").or_else(
                        || line.strip_prefix("pub const ")?.strip_suffix(": Boundary = Boundary {"),
                    )
                })
                .collect();
        let table = include_str!("catalogue.rs");
        let listed = table
            .split("pub const BOUNDARIES")
            .nth(1)
            .and_then(|t| t.split("];").next())
            .unwrap_or_default();
        let in_table: Vec<&str> = listed
            .lines()
            .skip(1)
            .map(|l| l.trim().trim_end_matches(','))
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(written, in_table, "every row, in the order written");
        assert_eq!(written.len(), BOUNDARIES.len());
    }
}
