//! The request-target rule: origin-form paths only, no query, no fragment, no tricks.
//!
//! The request-line scanner has already guaranteed that the target is visible ASCII and within
//! its budget; this module decides whether those bytes are a path this project will route
//! (RFC 9112 §3.2.1 `origin-form`, minus the query). It is stricter than the RFC on purpose:
//!
//! - a `?` is refused, so a token can never travel in a URL and no query parser exists to differ
//!   from anyone else's;
//! - percent-encoding must be well-formed, and may not hide a control byte, `/` or `\` (a
//!   decoded slash would change the segment structure between two readers of the same path);
//! - `.` and `..` segments are refused whether literal, encoded or followed by `;` parameters,
//!   so no component ever has to normalize a path.
//!
//! The path is checked, never decoded or rewritten: routing compares the exact bytes.

use super::chars::{self, PATH};
use super::error::RequestErrorKind;
use crate::decimal::hex_value;

/// Checks a complete target. On failure returns the kind and the offset within the target of
/// the byte that decided it.
pub(crate) fn check(target: &[u8]) -> Result<(), (RequestErrorKind, usize)> {
    if target.first() != Some(&b'/') {
        return Err((RequestErrorKind::TargetNotOriginForm, 0));
    }
    check_bytes(target)?;
    check_segments(target)
}

fn check_bytes(target: &[u8]) -> Result<(), (RequestErrorKind, usize)> {
    let mut i = 0;
    while let Some(&byte) = target.get(i) {
        match byte {
            b'?' => return Err((RequestErrorKind::QueryForbidden, i)),
            b'#' => return Err((RequestErrorKind::FragmentForbidden, i)),
            b'%' => {
                let decoded = decode_percent(target, i)
                    .ok_or((RequestErrorKind::PercentEncodingInvalid, i))?;
                if decoded < 0x20 || decoded == 0x7f || decoded == b'/' || decoded == b'\\' {
                    return Err((RequestErrorKind::EncodedByteForbidden, i));
                }
                i += 3;
                continue;
            }
            _ if chars::is(byte, PATH) => {}
            _ => return Err((RequestErrorKind::TargetByteForbidden, i)),
        }
        i += 1;
    }
    Ok(())
}

/// The byte a `%XX` triplet at `at` stands for, if it is well-formed.
fn decode_percent(target: &[u8], at: usize) -> Option<u8> {
    let hi = hex_value(*target.get(at + 1)?)?;
    let lo = hex_value(*target.get(at + 2)?)?;
    Some(hi << 4 | lo)
}

/// Refuses any segment that is, once decoded, `.` or `..`.
fn check_segments(target: &[u8]) -> Result<(), (RequestErrorKind, usize)> {
    let mut start = 1;
    for segment in target[1..].split(|&b| b == b'/') {
        if is_dot_segment(segment) {
            return Err((RequestErrorKind::DotSegment, start));
        }
        start += segment.len() + 1;
    }
    Ok(())
}

/// A segment that is `.` or `..` once decoded, including with `;` path parameters after it
/// (`..;x`), which some servers strip before resolving dot segments.
fn is_dot_segment(segment: &[u8]) -> bool {
    let segment = segment.split(|&b| b == b';').next().unwrap_or(segment);
    let mut dots = 0;
    let mut rest = segment;
    while !rest.is_empty() {
        if rest[0] == b'.' {
            rest = &rest[1..];
        } else if rest.len() >= 3 && rest[0] == b'%' && rest[1] == b'2' && rest[2] | 0x20 == b'e' {
            rest = &rest[3..];
        } else {
            return false;
        }
        dots += 1;
    }
    dots == 1 || dots == 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use RequestErrorKind as K;

    type Verdict = Result<(), (RequestErrorKind, usize)>;

    #[test]
    fn target_rules() {
        let cases: [(&str, Verdict); 24] = [
            ("/", Ok(())),
            ("/mcp", Ok(())),
            ("//a//", Ok(())),
            ("/a%20b", Ok(())),
            ("/%C3%A4", Ok(())),
            ("/...", Ok(())),
            ("/.a", Ok(())),
            ("/a:b@c;d=e,f!$&'()*+-_~", Ok(())),
            ("*", Err((K::TargetNotOriginForm, 0))),
            ("http://a/", Err((K::TargetNotOriginForm, 0))),
            ("a/b", Err((K::TargetNotOriginForm, 0))),
            ("/search?q=1", Err((K::QueryForbidden, 7))),
            ("/?", Err((K::QueryForbidden, 1))),
            ("/index.html#frag", Err((K::FragmentForbidden, 11))),
            ("/a\\b", Err((K::TargetByteForbidden, 2))),
            ("/a|b", Err((K::TargetByteForbidden, 2))),
            ("/a%2", Err((K::PercentEncodingInvalid, 2))),
            ("/a%zz", Err((K::PercentEncodingInvalid, 2))),
            ("/a%00b", Err((K::EncodedByteForbidden, 2))),
            ("/a%2Fb", Err((K::EncodedByteForbidden, 2))),
            ("/a%5cb", Err((K::EncodedByteForbidden, 2))),
            ("/%2e%2e/secret", Err((K::DotSegment, 1))),
            ("/a/../b", Err((K::DotSegment, 3))),
            ("/a/.%2E", Err((K::DotSegment, 3))),
        ];
        for (target, expected) in cases {
            assert_eq!(check(target.as_bytes()), expected, "{target}");
        }
    }

    #[test]
    fn a_single_dot_segment_at_the_end_is_refused_too() {
        assert_eq!(check(b"/a/."), Err((K::DotSegment, 3)));
        assert_eq!(check(b"/%2e"), Err((K::DotSegment, 1)));
    }
}
