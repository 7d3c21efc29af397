//! Where a rule's source is read: the URL of the section a row's source names, for the reports
//! that link it (`probe compare`). A source is written `RFC 9112 §6.1`, `draft-ietf-oauth-v2-1
//! §5.1`, or `MCP 2025-11-25, transports: Session Management` (a revision, a page, a section);
//! the first of several (`; `) is linked, and a remark in parentheses is not part of it. This
//! project's profile has no page, unless its remark names an RFC section.

/// The page of each MCP revision a source names, by the name the rows give it.
const MCP_PAGES: [(&str, &str, &str); 11] = [
    ("2025-11-25", "transports", "basic/transports"),
    ("2025-11-25", "authorization", "basic/authorization"),
    ("2025-11-25", "security", "basic/security_best_practices"),
    ("2025-11-25", "utilities", "basic/utilities"),
    ("2025-11-25", "lifecycle", "basic/lifecycle"),
    ("2025-11-25", "basic", "basic"),
    ("2026-07-28", "transports", "basic/transports/streamable-http"),
    ("2026-07-28", "authorization", "basic/authorization"),
    ("2026-07-28", "basic", "basic"),
    ("2026-07-28", "server/discover", "server/discover"),
    ("2026-07-28", "versioning", "basic/versioning"),
];

/// The URL of the section `source` names, when it names one.
pub fn link(source: &str) -> Option<String> {
    let (first, remark) = match source.split_once(" (") {
        Some((first, remark)) => (first, Some(remark)),
        None => (source, None),
    };
    let first = first.split("; ").next().unwrap_or_default();
    if first.starts_with("this project's profile") {
        return remark.and_then(|r| r.find("RFC ").and_then(|at| rfc(&r[at..])));
    }
    rfc(first).or_else(|| draft(first)).or_else(|| mcp(first))
}

/// `RFC 9112 §6.1` (or `§6, §9`: the first section).
fn rfc(text: &str) -> Option<String> {
    let rest = text.strip_prefix("RFC ")?;
    let (number, section) = rest.split_once(' ').map_or((rest, None), |(n, s)| (n, Some(s)));
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let base = format!("https://www.rfc-editor.org/rfc/rfc{number}");
    Some(match section.and_then(section_number) {
        Some(section) => format!("{base}#section-{section}"),
        None => base,
    })
}

/// `draft-ietf-oauth-v2-1 §5.1`.
fn draft(text: &str) -> Option<String> {
    let (name, section) = text.split_once(' ')?;
    if !name.starts_with("draft-") {
        return None;
    }
    let section = section_number(section)?;
    Some(format!("https://datatracker.ietf.org/doc/html/{name}#section-{section}"))
}

/// The first section number of `§6.1, §7.3`.
fn section_number(text: &str) -> Option<&str> {
    let rest = text.strip_prefix('§')?;
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
    Some(rest[..end].trim_end_matches('.')).filter(|s| !s.is_empty())
}

/// `MCP 2025-11-25 and 2026-07-28, transports: Session Management`: the first revision's page.
fn mcp(text: &str) -> Option<String> {
    let rest = text.strip_prefix("MCP ")?;
    let (revisions, place) = rest.split_once(", ")?;
    let revision = revisions.split(" and ").next()?;
    let (page, section) = place.split_once(": ").map_or((place, None), |(p, s)| (p, Some(s)));
    let (_, _, path) = MCP_PAGES.iter().find(|(r, p, _)| *r == revision && *p == page)?;
    let base = format!("https://modelcontextprotocol.io/specification/{revision}/{path}");
    Some(match (page, section) {
        ("utilities", Some(section)) => format!("{base}/{}", slug(section)),
        (_, Some(section)) => format!("{base}#{}", slug(section)),
        (_, None) => base,
    })
}

/// A section title as its anchor: lowercase words joined by hyphens.
fn slug(title: &str) -> String {
    let kept: String = title
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == ' ' || *c == '-')
        .collect::<String>()
        .to_ascii_lowercase();
    kept.split_whitespace().collect::<Vec<_>>().join("-")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::catalogue::{ACROSS, BOUNDARIES};

    #[test]
    fn sources_link_to_the_section_they_name() {
        let cases: [(&str, Option<&str>); 9] = [
            ("RFC 9112 §6.1", Some("https://www.rfc-editor.org/rfc/rfc9112#section-6.1")),
            ("RFC 8259 §6, §9", Some("https://www.rfc-editor.org/rfc/rfc8259#section-6")),
            ("RFC 9728 §3.3, §7.3", Some("https://www.rfc-editor.org/rfc/rfc9728#section-3.3")),
            (
                "draft-ietf-oauth-v2-1 §5.1",
                Some("https://datatracker.ietf.org/doc/html/draft-ietf-oauth-v2-1#section-5.1"),
            ),
            (
                "MCP 2025-11-25 and 2026-07-28, transports: Sending Messages",
                Some(
                    "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages",
                ),
            ),
            (
                "MCP 2025-11-25, utilities: Cancellation",
                Some(
                    "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation",
                ),
            ),
            (
                "MCP 2025-11-25, transports: Session Management (a remark; with a semicolon)",
                Some(
                    "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management",
                ),
            ),
            (
                "this project's profile (RFC 6750 §5.1 names the threat)",
                Some("https://www.rfc-editor.org/rfc/rfc6750#section-5.1"),
            ),
            ("this project's profile", None),
        ];
        for (source, expected) in cases {
            assert_eq!(link(source).as_deref(), expected, "{source}");
        }
    }

    #[test]
    fn every_row_s_source_but_the_bare_profile_has_a_link() {
        let sources =
            BOUNDARIES.iter().map(|b| b.rule.source).chain(ACROSS.iter().map(|a| a.rule.source));
        for source in sources {
            assert_eq!(link(source).is_some(), source != "this project's profile", "{source}");
        }
    }
}
