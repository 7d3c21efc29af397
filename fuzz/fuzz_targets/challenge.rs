//! Fuzzes the client's `WWW-Authenticate` reader with raw bytes, one field line per `\n`: no
//! panic; every accepted list has token schemes, lowercase token parameter names, none twice in a
//! challenge, and no challenge with both a token68 and parameters; written out again (every value
//! quoted and escaped, one challenge per field line) it reads back to the same challenges; and the
//! same bytes as one field line joined by commas read the same as the field lines one by one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::http::authenticate::{Challenge, parse};
use loopback_mcp_http::http::chars::is_token;

fuzz_target!(|data: &[u8]| {
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    let Ok(challenges) = parse(lines.iter().copied()) else { return };
    for challenge in &challenges {
        assert!(is_token(challenge.scheme.as_bytes()), "{challenge:?}");
        assert!(challenge.token68.is_none() || challenge.params.is_empty(), "{challenge:?}");
        for (i, (name, _)) in challenge.params.iter().enumerate() {
            assert!(is_token(name.as_bytes()) && name.to_ascii_lowercase() == *name);
            assert!(challenge.params[..i].iter().all(|(n, _)| n != name), "{challenge:?}");
        }
    }
    let written: Vec<Vec<u8>> = challenges.iter().map(write).collect();
    let again = parse(written.iter().map(Vec::as_slice));
    assert_eq!(again.as_ref(), Ok(&challenges), "{written:?}");
    let joined = lines.join(&b","[..]);
    assert_eq!(parse([joined.as_slice()]), Ok(challenges));
});

/// One challenge as a field line: the scheme, then its token68 or its parameters, each value a
/// quoted-string.
fn write(challenge: &Challenge) -> Vec<u8> {
    let mut out = challenge.scheme.clone().into_bytes();
    if let Some(token) = &challenge.token68 {
        out.push(b' ');
        out.extend_from_slice(token.as_bytes());
    }
    for (i, (name, value)) in challenge.params.iter().enumerate() {
        out.extend_from_slice(if i == 0 { b" " } else { b", " });
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"=\"");
        for &b in value.as_bytes() {
            if b == b'"' || b == b'\\' {
                out.push(b'\\');
            }
            out.push(b);
        }
        out.push(b'"');
    }
    out
}
