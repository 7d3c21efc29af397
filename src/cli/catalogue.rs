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

mod across_rows;
mod http_rows;
mod kinds;
mod mcp_rows;
mod session_rows;
pub mod sources;

pub use across_rows::ACROSS;
pub use http_rows::*;
pub use kinds::*;
pub use mcp_rows::*;
pub use session_rows::*;

/// Every row, in the grid's order.
pub const BOUNDARIES: [Boundary; 65] = [
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
    INITIALIZE_UNSUPPORTED,
    ERA_PROBE,
    NO_SESSION,
    UNKNOWN_SESSION,
    ENDED_SESSION,
    OTHER_PRINCIPAL,
    GET_STREAM,
    GET_NO_SESSION,
    GET_OTHER_PRINCIPAL,
    NOTIFICATION,
    DELETE_NO_SESSION,
    DELETE_OTHER_PRINCIPAL,
    DELETE_ENDED,
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
    TOKEN_IN_QUERY,
    PUT,
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
        let written: Vec<&str> = [
            include_str!("catalogue/http_rows.rs"),
            include_str!("catalogue/mcp_rows.rs"),
            include_str!("catalogue/session_rows.rs"),
        ]
        .iter()
        .flat_map(|file| file.lines())
        .filter_map(|line| {
            line.strip_prefix("pub const ")?.strip_suffix(": Boundary = row(").or_else(|| {
                line.strip_prefix("pub const ")?.strip_suffix(": Boundary = Boundary {")
            })
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
        let (mut written, mut in_table) = (written, in_table);
        written.sort_unstable();
        in_table.sort_unstable();
        assert_eq!(written, in_table, "every row written, once");
        assert_eq!(written.len(), BOUNDARIES.len());
    }
}
