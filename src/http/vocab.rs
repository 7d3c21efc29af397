//! The words every HTTP file here shares: request methods, protocol versions and the version
//! grammar, and [`Parsed`], the answer of an incremental parser.
//!
//! Only vocabulary: no parsing state, no budgets and no imports from the rest of `http`, so the
//! request parser, the response parser and the framing rules can all depend on it without
//! depending on each other.

/// The answer of an incremental parser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed<T> {
    /// The input ends before the element does; call again with more bytes.
    Partial,
    /// The element is complete; it occupies the first `len` bytes of the input.
    Complete { value: T, len: usize },
}

/// The request methods this crate recognises (RFC 9110 §9). Any other token gets 501.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Head,
    Post,
    Put,
    Delete,
    Connect,
    Options,
    Trace,
    Patch,
}

impl Method {
    /// The method for an exact (case-sensitive) token.
    pub fn from_token(token: &[u8]) -> Option<Method> {
        Some(match token {
            b"GET" => Method::Get,
            b"HEAD" => Method::Head,
            b"POST" => Method::Post,
            b"PUT" => Method::Put,
            b"DELETE" => Method::Delete,
            b"CONNECT" => Method::Connect,
            b"OPTIONS" => Method::Options,
            b"TRACE" => Method::Trace,
            b"PATCH" => Method::Patch,
            _ => return None,
        })
    }

    /// The token as sent on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
            Method::Connect => "CONNECT",
            Method::Options => "OPTIONS",
            Method::Trace => "TRACE",
            Method::Patch => "PATCH",
        }
    }
}

/// The two protocol versions accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Version {
    Http10,
    Http11,
}

impl Version {
    /// The version as sent on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Version::Http10 => "HTTP/1.0",
            Version::Http11 => "HTTP/1.1",
        }
    }
}

/// The length of `HTTP/1.1` and of every version this grammar admits.
pub const VERSION_LEN: usize = "HTTP/1.1".len();

/// Whether `byte` can be byte number `matched` of `HTTP-version = "HTTP/" DIGIT "." DIGIT`
/// (RFC 9112 §2.3).
pub fn version_byte_fits(matched: usize, byte: u8) -> bool {
    match matched {
        5 | 7 => byte.is_ascii_digit(),
        6 => byte == b'.',
        _ => b"HTTP/".get(matched) == Some(&byte),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_grammar_admits_http_digit_dot_digit_only() {
        let fits = |text: &[u8]| text.iter().enumerate().all(|(i, &b)| version_byte_fits(i, b));
        let cases: [(&[u8], bool); 6] = [
            (b"HTTP/1.1", true),
            (b"HTTP/2.0", true),
            (b"HTTP/1.x", false),
            (b"http/1.1", false),
            (b"HTTP-1.1", false),
            (b"HTTP/11.", false),
        ];
        for (text, expected) in cases {
            assert_eq!(fits(text), expected, "{:?}", String::from_utf8_lossy(text));
        }
    }

    #[test]
    fn methods_round_trip_through_their_tokens() {
        for token in
            ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]
        {
            let method = Method::from_token(token.as_bytes()).unwrap();
            assert_eq!(method.as_str(), token);
        }
        assert_eq!(Method::from_token(b"get"), None);
    }
}
