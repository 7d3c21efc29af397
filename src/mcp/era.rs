//! Which era a request belongs to: the one decision that sends it to the 2025-11-25 contract
//! (sessions) or to the 2026-07-28 one (`_meta` on every request), made before any session rule.
//!
//! A server speaks the revisions it was started with ([`Versions`]): those of the legacy era
//! alone (the default, the seed's contract byte for byte), those of the modern era alone, or
//! revisions of both. The era of a request follows from those, from its `MCP-Protocol-Version`
//! header ([`VersionHeader`]) and from what it calls ([`CallKind`]):
//!
//! | server speaks | `MCP-Protocol-Version` | `initialize` | a method only 2026-07-28 has | any other method, GET, DELETE |
//! |---|---|---|---|---|
//! | 2025-11-25 | any | legacy | legacy | legacy |
//! | 2026-07-28 | any | modern | modern | modern |
//! | both | absent | legacy | modern | legacy |
//! | both | `2025-11-25` | legacy | legacy | legacy |
//! | both | `2026-07-28` | modern | modern | modern |
//! | both | another value, or repeated | modern | modern | modern |
//!
//! Within an era the era's own rules then decide the answer: a legacy request with a version
//! other than 2025-11-25 is refused as 2025-11-25 refuses it (a plain 400), a modern one
//! gets the modern errors (`-32602` for a missing `_meta`, `-32020` for a header that disagrees
//! with it, `-32022` for a version the server does not speak), and `initialize` in the modern era
//! is a method that does not exist (404, `-32601`). A dual-era server answers a request that
//! names no version like a legacy server, because every modern client names one: only a method
//! that exists in the modern era alone is taken for a modern client that forgot its header.
//!
//! **Why 2025-11-25 stays the default.** It is the seed's contract: its sessions, its stream
//! resumption and the experiments written for them (the lab, the attacks, the walkthrough, the
//! conformance baseline of 2025-11-25) all assume it, byte for byte. 2026-07-28 is added beside
//! it, on request, so that a learner can put both eras on one endpoint and watch the boundary,
//! and so that nothing the default server answers changes.
//!
//! Not here: the checks of either era (the endpoint's), or the header's bytes (the caller reads
//! the field and hands over a [`VersionHeader`]).

use super::method::McpMethod;
use super::revision::{Era, Eras, Revision, Versions};

/// What a request's `MCP-Protocol-Version` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VersionHeader {
    Absent,
    /// One field line naming a revision this crate knows.
    Names(Revision),
    /// One field line naming anything else, or more than one field line.
    Other,
}

impl VersionHeader {
    /// The header from its one value (`Some`), its absence (`None`), or `repeated`.
    pub fn of(value: Option<&[u8]>, repeated: bool) -> VersionHeader {
        match (value, repeated) {
            (_, true) => VersionHeader::Other,
            (None, false) => VersionHeader::Absent,
            (Some(value), false) => {
                Revision::from_name(value).map_or(VersionHeader::Other, VersionHeader::Names)
            }
        }
    }
}

/// What a request calls, as far as the era decision cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallKind {
    Initialize,
    /// A method only the modern revision has (`server/discover`).
    ModernOnly,
    /// Anything else: a method both eras have, a legacy one, an unknown one, a GET or a DELETE.
    Other,
}

impl CallKind {
    /// What a POST's JSON-RPC method names.
    pub fn of_method(name: &str) -> CallKind {
        match McpMethod::from_name(name) {
            Some(McpMethod::Initialize) => CallKind::Initialize,
            Some(method)
                if method.row().offered.in_era(Era::Modern)
                    && !method.row().offered.in_era(Era::Legacy) =>
            {
                CallKind::ModernOnly
            }
            Some(_) | None => CallKind::Other,
        }
    }
}

/// The era of a request: the table in the module docs.
pub fn era(versions: Versions, header: VersionHeader, called: CallKind) -> Era {
    match versions.eras() {
        Eras::One(era) => era,
        Eras::Both => match (header, called) {
            (VersionHeader::Absent, CallKind::ModernOnly) => Era::Modern,
            (VersionHeader::Absent, CallKind::Initialize | CallKind::Other) => Era::Legacy,
            (VersionHeader::Names(revision), _) => revision.era(),
            (VersionHeader::Other, _) => Era::Modern,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_of_the_decision_table() {
        let legacy = Versions::LEGACY;
        let modern = Versions::MODERN;
        let both = Versions::ALL;
        let old = VersionHeader::Names(Revision::newest(Era::Legacy));
        let new = VersionHeader::Names(Revision::newest(Era::Modern));
        let headers = [VersionHeader::Absent, old, new, VersionHeader::Other];
        let called = [CallKind::Initialize, CallKind::ModernOnly, CallKind::Other];
        for header in headers {
            for call in called {
                assert_eq!(era(legacy, header, call), Era::Legacy, "{header:?} {call:?}");
                assert_eq!(era(modern, header, call), Era::Modern, "{header:?} {call:?}");
            }
        }
        use Era::{Legacy, Modern};
        let dual: [(VersionHeader, [Era; 3]); 4] = [
            (VersionHeader::Absent, [Legacy, Modern, Legacy]),
            (old, [Legacy, Legacy, Legacy]),
            (new, [Modern, Modern, Modern]),
            (VersionHeader::Other, [Modern, Modern, Modern]),
        ];
        for (header, eras) in dual {
            for (call, expected) in called.into_iter().zip(eras) {
                assert_eq!(era(both, header, call), expected, "{header:?} {call:?}");
            }
        }
    }

    #[test]
    fn a_header_names_a_revision_only_exactly() {
        let cases: [(Option<&[u8]>, bool, VersionHeader); 4] = [
            (None, false, VersionHeader::Absent),
            (Some(b"2026-07-28 "), false, VersionHeader::Other),
            (Some(b"v999.0.0"), false, VersionHeader::Other),
            (Some(b"2026-07-28"), true, VersionHeader::Other),
        ];
        for (value, repeated, expected) in cases {
            assert_eq!(VersionHeader::of(value, repeated), expected, "{value:?}");
        }
        for revision in Revision::ALL {
            let named = VersionHeader::of(Some(revision.name().as_bytes()), false);
            assert_eq!(named, VersionHeader::Names(revision));
        }
    }

    #[test]
    fn methods_are_called_modern_only_when_no_legacy_revision_has_them() {
        assert_eq!(CallKind::of_method("initialize"), CallKind::Initialize);
        assert_eq!(CallKind::of_method("server/discover"), CallKind::ModernOnly);
        assert_eq!(CallKind::of_method("tools/list"), CallKind::Other);
        assert_eq!(CallKind::of_method("nothing/here"), CallKind::Other);
    }
}
