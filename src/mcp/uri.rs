//! Building `kb://` resource URIs without ever pasting raw text into URI syntax.
//!
//! A tenant is arbitrary Unicode and may contain `/`, `?`, `#`, spaces or anything else. It goes
//! into a URI only as one path segment whose UTF-8 bytes are percent-encoded except for the
//! RFC 3986 unreserved characters, so it can never add a segment, start a query or a fragment.

use std::fmt;

/// `text` as a single RFC 3986 path segment, written to `out`: unreserved bytes as they are, every
/// other byte of its UTF-8 encoding as `%XX` (upper-case hex).
pub fn write_path_segment(text: &str, out: &mut impl fmt::Write) -> fmt::Result {
    let unreserved = |byte: u8| byte.is_ascii_alphanumeric() || b"-._~".contains(&byte);
    let bytes = text.as_bytes();
    let mut run_start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        if !unreserved(byte) {
            // A run of unreserved bytes is ASCII, so viewing it as `str` never fails.
            out.write_str(std::str::from_utf8(&bytes[run_start..i]).unwrap_or_default())?;
            write!(out, "%{byte:02X}")?;
            run_start = i + 1;
        }
    }
    out.write_str(std::str::from_utf8(&bytes[run_start..]).unwrap_or_default())
}

/// The URI of a knowledge-base document of `tenant`, written to `out`.
pub fn write_knowledge_base(
    tenant: &str,
    document: &str,
    out: &mut impl fmt::Write,
) -> fmt::Result {
    out.write_str("kb://tenant/")?;
    write_path_segment(tenant, out)?;
    out.write_str("/")?;
    write_path_segment(document, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_never_carry_uri_syntax() {
        let cases: [(&str, &str); 6] = [
            ("acme", "acme"),
            ("a-b.c_d~e", "a-b.c_d~e"),
            ("a/b?c#d", "a%2Fb%3Fc%23d"),
            ("two words", "two%20words"),
            (
                "Ünïcødé/東京?#tenant",
                "%C3%9Cn%C3%AFc%C3%B8d%C3%A9%2F%E6%9D%B1%E4%BA%AC%3F%23tenant",
            ),
            ("%41", "%2541"),
        ];
        for (text, expected) in cases {
            let mut segment = String::new();
            write_path_segment(text, &mut segment).unwrap();
            assert_eq!(segment, expected);
        }
        let mut uri = String::new();
        write_knowledge_base("a/b", "faq", &mut uri).unwrap();
        assert_eq!(uri, "kb://tenant/a%2Fb/faq");
    }
}
