//! The checks that need a whole request head: Host, message framing, Expect and Connection.
//!
//! They run once the empty line has arrived, in a fixed order so that every head gets one
//! deterministic verdict: Host, then Transfer-Encoding, then Content-Length syntax, then the body
//! budget, then Expect, then Connection. The outcome says how long the body is and whether the
//! connection may be reused; it never looks at the body itself.
//!
//! By default no transfer coding is accepted: a request that uses one is refused (501 when the
//! coding is a valid chunked one, 400 otherwise), which also removes every
//! Transfer-Encoding/Content-Length disagreement that request smuggling relies on. Under
//! [`TransferCodings::Chunked`] (`serve --chunked`) exactly one shape more is accepted:
//! `Transfer-Encoding: chunked` alone, on HTTP/1.1, without Content-Length, in one field line.
//! Every other shape keeps its default verdict, except a list that ends in chunked after other
//! codings, which stays a 501 (those codings are not implemented). The accepted shape is framing
//! only: Expect and Connection are checked after it as for any other head, so a plain chunked
//! head with `Expect: x` is a 417 under `--chunked`, where the default's 501 came first.

use super::chars::{self, HOST_NAME};
use super::error::{RequestError, RequestErrorKind};
use super::fields::FieldSpan;
use super::known::KnownName;
use super::vocab::Version;
use crate::decimal::{self, Decimal};

/// Which transfer codings a server decodes in request bodies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TransferCodings {
    /// None: `Content-Length` bodies only (the profile's default); any Transfer-Encoding is
    /// refused.
    #[default]
    LengthOnly,
    /// `Transfer-Encoding: chunked`, alone, as well (`serve --chunked`).
    Chunked,
}

/// How a request's body is delimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyFraming {
    /// Exactly this many bytes: the Content-Length, or 0 without one. Within the body budget.
    Length(usize),
    /// The chunked coding, to be decoded (its length is known only at its end).
    Chunked,
}

/// What the head says about its body and its connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Framing {
    pub body: BodyFraming,
    pub expect_continue: bool,
    pub keep_alive: bool,
}

/// The first two field lines with one name: the second is kept to point a duplicate's error at
/// it. (Like `FieldList::single`, but over spans, so framing allocates nothing.)
#[derive(Clone, Copy, Default)]
struct Lines<'s> {
    first: Option<&'s FieldSpan>,
    second: Option<&'s FieldSpan>,
}

impl<'s> Lines<'s> {
    fn push(&mut self, field: &'s FieldSpan) {
        if self.first.is_none() {
            self.first = Some(field);
        } else if self.second.is_none() {
            self.second = Some(field);
        }
    }
}

/// The framing field lines, found in one pass without allocating.
#[derive(Default)]
struct Seen<'s> {
    host: Lines<'s>,
    transfer_encoding: Lines<'s>,
    content_length: Lines<'s>,
}

fn gather<'s>(fields: &'s [FieldSpan]) -> Seen<'s> {
    let mut seen = Seen::default();
    for field in fields {
        match field.known {
            KnownName::Host => seen.host.push(field),
            KnownName::TransferEncoding => seen.transfer_encoding.push(field),
            KnownName::ContentLength => seen.content_length.push(field),
            _ => {}
        }
    }
    seen
}

/// Applies the rules, in order, to a complete head.
pub(crate) fn check(
    buf: &[u8],
    fields: &[FieldSpan],
    version: Version,
    body_bytes_max: usize,
    codings: TransferCodings,
) -> Result<Framing, RequestError> {
    let seen = gather(fields);
    let value = |f: &FieldSpan| &buf[f.value.clone()];
    let fail = |kind, f: &FieldSpan| Err(RequestError::new(kind, f.line_start));
    let named = |name: KnownName| fields.iter().filter(move |f| f.known == name);

    check_host(seen.host, version, value)?;
    let body = match (seen.transfer_encoding.first, seen.content_length) {
        (Some(first), _) => match transfer_encoding_verdict(&seen, version, value) {
            Codings::ChunkedOnly if codings == TransferCodings::Chunked => BodyFraming::Chunked,
            refused => return fail(refused.error_when_not_decoded(), first),
        },
        (None, Lines { first: None, .. }) => BodyFraming::Length(0),
        (None, Lines { first: Some(only), second: None }) => BodyFraming::Length(
            content_length_value(value(only), body_bytes_max)
                .map_err(|k| RequestError::new(k, only.line_start))?,
        ),
        (None, Lines { second: Some(second), .. }) => {
            return fail(RequestErrorKind::ContentLengthDuplicate, second);
        }
    };
    let expect_continue = match version {
        // RFC 9110 §10.1.1: an HTTP/1.0 expectation is ignored.
        Version::Http10 => false,
        Version::Http11 => {
            let mut any = false;
            for field in named(KnownName::Expect) {
                if !value(field).eq_ignore_ascii_case(b"100-continue") {
                    return fail(RequestErrorKind::ExpectationUnsupported, field);
                }
                any = true;
            }
            any
        }
    };
    let mut options = ConnectionOptions::default();
    for field in named(KnownName::Connection) {
        if !options.read(value(field)) {
            return fail(RequestErrorKind::ConnectionInvalid, field);
        }
    }
    let keep_alive = options.keep_alive(version);
    Ok(Framing { body, expect_continue, keep_alive })
}

/// The persistence tokens of every Connection field line of a message.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ConnectionOptions {
    close: bool,
    keep_alive: bool,
}

impl ConnectionOptions {
    /// Reads one Connection value; false when it is not a list of tokens. Empty list elements
    /// are skipped (RFC 9110 §5.6.1).
    pub fn read(&mut self, value: &[u8]) -> bool {
        for token in value.split(|&b| b == b',').map(chars::trim_ows) {
            if token.is_empty() {
                continue;
            }
            if !chars::is_token(token) {
                return false;
            }
            self.close |= token.eq_ignore_ascii_case(b"close");
            self.keep_alive |= token.eq_ignore_ascii_case(b"keep-alive");
        }
        true
    }

    /// RFC 9112 §9.3: HTTP/1.1 persists unless told to close; HTTP/1.0 only when asked to.
    pub fn keep_alive(self, version: Version) -> bool {
        match version {
            Version::Http11 => !self.close,
            Version::Http10 => self.keep_alive && !self.close,
        }
    }
}

fn check_host<'v>(
    host: Lines<'_>,
    version: Version,
    value: impl Fn(&FieldSpan) -> &'v [u8],
) -> Result<(), RequestError> {
    match (host.first, host.second) {
        (None, _) if version == Version::Http11 => {
            Err(RequestError::new(RequestErrorKind::HostMissing, 0))
        }
        (None, _) => Ok(()),
        (Some(only), None) if is_valid_host(value(only)) => Ok(()),
        (Some(only), None) => {
            Err(RequestError::new(RequestErrorKind::HostInvalid, only.line_start))
        }
        (Some(_), Some(second)) => {
            Err(RequestError::new(RequestErrorKind::HostDuplicate, second.line_start))
        }
    }
}

/// What a Transfer-Encoding says, judged strictly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Codings {
    /// `chunked`, alone, on HTTP/1.1, without Content-Length, in one field line: the one shape
    /// `--chunked` decodes.
    ChunkedOnly,
    /// Any other shape: invalid, or one no server here decodes, for this reason.
    Other(RequestErrorKind),
}

impl Codings {
    /// The error a server answers this shape with when it does not decode it.
    fn error_when_not_decoded(self) -> RequestErrorKind {
        match self {
            Codings::ChunkedOnly => RequestErrorKind::TransferEncodingChunked,
            Codings::Other(kind) => kind,
        }
    }
}

/// The Transfer-Encoding's shape: the one `--chunked` decodes, or the error that refuses it.
fn transfer_encoding_verdict<'v>(
    seen: &Seen<'_>,
    version: Version,
    value: impl Fn(&FieldSpan) -> &'v [u8],
) -> Codings {
    if version == Version::Http10 {
        return Codings::Other(RequestErrorKind::TransferEncodingOnHttp10);
    }
    if seen.content_length.first.is_some() {
        return Codings::Other(RequestErrorKind::TransferEncodingWithContentLength);
    }
    match (seen.transfer_encoding.first, seen.transfer_encoding.second) {
        (Some(only), None) => classify_codings(value(only)),
        _ => Codings::Other(RequestErrorKind::TransferEncodingDuplicate),
    }
}

/// `Transfer-Encoding = #transfer-coding`, read strictly: every element a bare token, no empty
/// elements, chunked only as the final coding. One pass, no allocation.
fn classify_codings(value: &[u8]) -> Codings {
    let mut codings = 0usize;
    let mut chunked_before_last = false;
    let mut last_is_chunked = false;
    for coding in value.split(|&b| b == b',').map(chars::trim_ows) {
        if !chars::is_token(coding) {
            return Codings::Other(RequestErrorKind::TransferEncodingInvalid);
        }
        codings += 1;
        chunked_before_last |= last_is_chunked;
        last_is_chunked = coding.eq_ignore_ascii_case(b"chunked");
    }
    match (chunked_before_last, last_is_chunked) {
        (true, _) => Codings::Other(RequestErrorKind::TransferEncodingInvalid),
        (false, true) if codings == 1 => Codings::ChunkedOnly,
        (false, true) => Codings::Other(RequestErrorKind::TransferEncodingChunked),
        (false, false) => Codings::Other(RequestErrorKind::TransferEncodingUnsupported),
    }
}

/// The request body length, or why it is refused.
/// `Content-Length = 1*DIGIT`; a number too large for a `u64` is still a valid length, just
/// over every budget.
fn content_length_value(value: &[u8], body_bytes_max: usize) -> Result<usize, RequestErrorKind> {
    let too_large = RequestErrorKind::ContentLengthTooLarge { limit: body_bytes_max };
    match decimal::parse(value) {
        Decimal::NotDigits => Err(RequestErrorKind::ContentLengthInvalid),
        Decimal::Value(length) => match usize::try_from(length) {
            Ok(length) if length <= body_bytes_max => Ok(length),
            _ => Err(too_large),
        },
        Decimal::Overflow => Err(too_large),
    }
}

/// `Host = uri-host [ ":" port ]`, narrowed: a registered name of unreserved bytes, an IPv4
/// address (which has the same bytes) or a bracketed IPv6 address; a port of 1–5 digits up to
/// 65535. Empty hosts, percent-encoding, sub-delims, user info and lists are refused.
pub fn is_valid_host(value: &[u8]) -> bool {
    let (host, port) = split_host_port(value);
    let host_ok = match host {
        [b'[', inner @ .., b']'] => is_ipv6_literal(inner),
        _ => !host.is_empty() && chars::all_are(host, HOST_NAME),
    };
    host_ok && port.is_none_or(is_port)
}

fn split_host_port(value: &[u8]) -> (&[u8], Option<&[u8]>) {
    let host_end = match value.first() {
        Some(b'[') => value.iter().position(|&b| b == b']').map_or(value.len(), |i| i + 1),
        _ => value.iter().position(|&b| b == b':').unwrap_or(value.len()),
    };
    match value[host_end..].split_first() {
        None => (value, None),
        Some((b':', port)) => (&value[..host_end], Some(port)),
        // Anything after a bracketed literal other than ":port" makes the whole value invalid.
        Some(_) => (b"", None),
    }
}

/// An IPv6 address as RFC 4291 writes it (the standard library's parser; no zone identifiers, no
/// IPvFuture).
fn is_ipv6_literal(inner: &[u8]) -> bool {
    std::str::from_utf8(inner).is_ok_and(|s| s.parse::<std::net::Ipv6Addr>().is_ok())
}

fn is_port(port: &[u8]) -> bool {
    (1..=5).contains(&port.len())
        && port.iter().all(u8::is_ascii_digit)
        && port.iter().fold(0u32, |n, &d| n * 10 + u32::from(d - b'0')) <= 65535
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_values() {
        let cases: [(&str, bool); 27] = [
            ("a", true),
            ("127.0.0.1:8080", true),
            ("localhost:1", true),
            ("x-y.z_w~:65535", true),
            ("[::1]", true),
            ("[::1]:80", true),
            ("", false),
            (":80", false),
            ("a:", false),
            ("a:65536", false),
            ("a:123456", false),
            ("a:8o", false),
            ("a, b", false),
            ("a,b", false),
            ("a/path", false),
            ("a b", false),
            ("user@a", false),
            ("a%20", false),
            ("[]", false),
            ("[::1", false),
            ("[::1]x", false),
            ("[g::1]", false),
            ("[:::::]", false),
            ("[...:]", false),
            ("[::1%eth0]", false),
            ("[v1.x]", false),
            ("[::ffff:127.0.0.1]:80", true),
        ];
        for (value, ok) in cases {
            assert_eq!(is_valid_host(value.as_bytes()), ok, "{value:?}");
        }
    }

    #[test]
    fn transfer_coding_lists() {
        use RequestErrorKind as K;
        let refused = Codings::Other;
        let cases: [(&str, Codings); 10] = [
            ("chunked", Codings::ChunkedOnly),
            ("CHUNKED", Codings::ChunkedOnly),
            (" chunked ", Codings::ChunkedOnly),
            ("gzip, chunked", refused(K::TransferEncodingChunked)),
            ("chunked, gzip", refused(K::TransferEncodingInvalid)),
            ("chunked, chunked", refused(K::TransferEncodingInvalid)),
            (",chunked", refused(K::TransferEncodingInvalid)),
            ("chunked;x=1", refused(K::TransferEncodingInvalid)),
            ("xchunked", refused(K::TransferEncodingUnsupported)),
            ("gzip", refused(K::TransferEncodingUnsupported)),
        ];
        for (value, verdict) in cases {
            assert_eq!(classify_codings(value.as_bytes()), verdict, "{value:?}");
        }
        assert_eq!(Codings::ChunkedOnly.error_when_not_decoded(), K::TransferEncodingChunked);
    }

    #[test]
    fn content_length_values() {
        use RequestErrorKind as K;
        let too_large = K::ContentLengthTooLarge { limit: 100 };
        let cases: [(&str, Result<usize, RequestErrorKind>); 10] = [
            ("0", Ok(0)),
            ("010", Ok(10)),
            ("100", Ok(100)),
            ("00000000000000000000000000000000000000000100", Ok(100)),
            ("101", Err(too_large)),
            ("18446744073709551616", Err(too_large)),
            ("", Err(K::ContentLengthInvalid)),
            ("+1", Err(K::ContentLengthInvalid)),
            ("1_0", Err(K::ContentLengthInvalid)),
            ("5, 5", Err(K::ContentLengthInvalid)),
        ];
        for (value, expected) in cases {
            assert_eq!(content_length_value(value.as_bytes(), 100), expected, "{value:?}");
        }
    }
}
