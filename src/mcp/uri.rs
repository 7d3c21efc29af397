//! Building `kb://` resource URIs without ever pasting raw text into URI syntax.
//!
//! A tenant is arbitrary Unicode and may contain `/`, `?`, `#`, spaces or anything else. It goes
//! into a URI only as one path segment whose UTF-8 bytes are percent-encoded except for the
//! RFC 3986 unreserved characters, so it can never add a segment, start a query or a fragment.

/// `text` as a single RFC 3986 path segment: unreserved bytes as they are, every other byte of its
/// UTF-8 encoding as `%XX` (upper-case hex).
pub fn path_segment(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        }
    }
    out
}

/// The URI of a knowledge-base document of `tenant`.
pub fn knowledge_base(tenant: &str, document: &str) -> String {
    format!("kb://tenant/{}/{}", path_segment(tenant), path_segment(document))
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
            assert_eq!(path_segment(text), expected);
        }
        assert_eq!(knowledge_base("a/b", "faq"), "kb://tenant/a%2Fb/faq");
    }
}
