//! Reading the bearer token from the `Authorization` field (RFC 6750 §2.1), and from nowhere else.
//!
//! ```text
//! credentials = "Bearer" 1*SP b64token           ; the scheme name is case-insensitive
//! b64token    = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
//! ```
//!
//! No field at all, or a well-formed field naming another scheme, means "no bearer credentials"
//! (401 without an error code). A malformed field, a `Bearer` without a token, or more than one
//! Authorization field is an `invalid_request` (400): guessing which of two credentials the
//! client meant is how confused-deputy bugs start. Query strings and bodies are never consulted;
//! the HTTP parser refuses every query before this module is reached.

use crate::http::chars;

/// Why the Authorization field is unusable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BearerError {
    /// More than one Authorization field line.
    Duplicate,
    /// Not `scheme [ 1*SP credentials ]`, or `Bearer` without a valid token.
    Malformed,
}

/// The bearer token in the request's Authorization field lines, if there is one.
pub fn token<'a, I>(authorization: I) -> Result<Option<&'a [u8]>, BearerError>
where
    I: IntoIterator<Item = &'a [u8]>,
{
    let mut values = authorization.into_iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(BearerError::Duplicate);
    }
    let scheme_end = value.iter().position(|&b| b == b' ').unwrap_or(value.len());
    let (scheme, rest) = value.split_at(scheme_end);
    if !chars::is_token(scheme) {
        return Err(BearerError::Malformed);
    }
    if !chars::same_ignoring_case(scheme, b"Bearer") {
        return Ok(None); // another scheme: no bearer credentials were offered
    }
    let spaces = rest.iter().take_while(|&&b| b == b' ').count();
    let token = &rest[spaces..];
    if spaces == 0 || !is_b64token(token) {
        return Err(BearerError::Malformed);
    }
    Ok(Some(token))
}

/// `b64token`: token characters, then optional `=` padding only at the end.
pub(crate) fn is_b64token(token: &[u8]) -> bool {
    let body_len = token.iter().rposition(|&b| b != b'=').map_or(0, |i| i + 1);
    // Every byte is looked up, without an early exit: a token is judged in one branch-free pass.
    let all_allowed =
        token[..body_len].iter().fold(true, |ok, &b| ok & B64TOKEN_CHAR[usize::from(b)]);
    body_len > 0 && all_allowed
}

/// The characters of a `b64token` before its padding (RFC 6750 §2.1): ALPHA, DIGIT and
/// `-._~+/`, one lookup per byte.
static B64TOKEN_CHAR: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] =
            c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~' | b'+' | b'/');
        b += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b64token_characters_are_exactly_the_rfc_set() {
        let expected = |b: u8| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b);
        for b in 0..=255u8 {
            assert_eq!(B64TOKEN_CHAR[usize::from(b)], expected(b), "{b:#04x}");
        }
    }

    type Case = (&'static [&'static [u8]], Result<Option<&'static [u8]>, BearerError>);

    #[test]
    fn authorization_fields() {
        let cases: [Case; 17] = [
            (&[], Ok(None)),
            (&[b"Bearer abc"], Ok(Some(b"abc"))),
            (&[b"bearer abc"], Ok(Some(b"abc"))),
            (&[b"BEARER a-b.c_d~e+f/g=="], Ok(Some(b"a-b.c_d~e+f/g=="))),
            (&[b"Bearer   abc"], Ok(Some(b"abc"))),
            (&[b"Basic dXNlcjpwYXNz"], Ok(None)),
            (&[b"Negotiate"], Ok(None)),
            (&[b"Bearer abc", b"Bearer abc"], Err(BearerError::Duplicate)),
            (&[b"Bearer abc", b"Basic x"], Err(BearerError::Duplicate)),
            (&[b"Bearer"], Err(BearerError::Malformed)),
            (&[b"Bearer "], Err(BearerError::Malformed)),
            (&[b"Bearer a b"], Err(BearerError::Malformed)),
            (&[b"Bearer ab=c"], Err(BearerError::Malformed)),
            (&[b"Bearer ==="], Err(BearerError::Malformed)),
            (&[b"Bearer\tabc"], Err(BearerError::Malformed)),
            (&[b"Bearer \tabc"], Err(BearerError::Malformed)),
            (&[b""], Err(BearerError::Malformed)),
        ];
        for (values, expected) in cases {
            assert_eq!(token(values.iter().copied()), expected, "{values:?}");
        }
    }
}
