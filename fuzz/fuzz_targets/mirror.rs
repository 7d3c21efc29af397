//! Fuzzes the mirrored-header rules (MCP 2026-07-28): the base64 sentinel decoder and the
//! comparison of a header with the body value it mirrors.
//!
//! Checked on every input: no panic; the sentinel decoder agrees with an independent strict
//! decoder written here (a lookup by search, four characters at a time, canonical padding bits
//! required), result for result; whatever a client would write for a text (`header_value`)
//! decodes back to it and compares equal with it, and compares unequal with any other text; a
//! header compared with the body text it names is equal only when the decoded header is that
//! text (the sentinel's shape being the specification's pattern); an integer header agrees with
//! an integer body exactly when their values are equal, however the body spells it.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use loopback_mcp_http::http::Occurrence;
use loopback_mcp_http::http::mirror::{self, BodyValue, Encoding, MirrorError};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

#[derive(Arbitrary, Debug)]
struct Input {
    header: Vec<u8>,
    body: String,
    other: String,
    number: i64,
    header_number: i64,
}

/// A strict base64 decoder written apart from the crate's: each group of four characters by
/// itself, the alphabet searched, padding only in the last group, zero unused bits.
fn oracle(payload: &[u8]) -> Result<Vec<u8>, ()> {
    if payload.len() % 4 != 0 {
        return Err(());
    }
    let groups = payload.len() / 4;
    let mut out = Vec::new();
    for (g, group) in payload.chunks(4).enumerate() {
        let pads = group.iter().filter(|&&b| b == b'=').count();
        let last = g + 1 == groups;
        if pads > 2 || (pads > 0 && !last) || group[..4 - pads].contains(&b'=') {
            return Err(());
        }
        let mut value: u32 = 0;
        for &c in &group[..4 - pads] {
            let index = ALPHABET.iter().position(|&a| a == c).ok_or(())?;
            value = value * 64 + index as u32;
        }
        let bits = 6 * (4 - pads) as u32;
        let bytes = (bits / 8) as usize;
        let spare = bits - 8 * bytes as u32;
        if value & ((1 << spare) - 1) != 0 {
            return Err(());
        }
        let value = value >> spare;
        for i in (0..bytes).rev() {
            out.push((value >> (8 * i)) as u8);
        }
    }
    Ok(out)
}

fuzz_target!(|input: Input| {
    // The decoder against the oracle.
    if let Ok(payload) = std::str::from_utf8(&input.header) {
        let ours = mirror::decode_sentinel(payload);
        match oracle(payload.as_bytes()) {
            Err(()) => assert_eq!(ours, Err(MirrorError::Base64), "{payload:?}"),
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => assert_eq!(ours, Ok(text), "{payload:?}"),
                Err(_) => assert_eq!(ours, Err(MirrorError::NotUtf8), "{payload:?}"),
            },
        }
    }
    // What a client writes for a text agrees with that text, and with no other.
    let written = mirror::header_value(&input.body);
    let header = Occurrence::Once(written.as_bytes());
    assert_eq!(mirror::compare(header, BodyValue::Text(&input.body), Encoding::Sentinel), Ok(()));
    if input.other != input.body {
        let other = mirror::compare(header, BodyValue::Text(&input.other), Encoding::Sentinel);
        assert_eq!(other, Err(MirrorError::Mismatch));
    }
    // Any header against a text: equal only when its decoded form is that text.
    let raw = Occurrence::Once(&input.header);
    if mirror::compare(raw, BodyValue::Text(&input.body), Encoding::Sentinel).is_ok() {
        let text = std::str::from_utf8(&input.header).expect("an agreeing header is ASCII");
        // The specification's pattern: it starts with the opening and ends with the closing,
        // which may overlap; a sentinel with no room for a payload never agrees.
        let shaped = text.starts_with("=?base64?") && text.ends_with("?=");
        let decoded = if shaped {
            assert!(text.len() >= "=?base64??=".len(), "{text:?} agreed with no payload");
            mirror::decode_sentinel(&text[9..text.len() - 2]).expect("it decoded")
        } else {
            text.to_owned()
        };
        assert_eq!(decoded, input.body);
    }
    // Integers: equal exactly when the values are.
    let (header, body) = (input.header_number.to_string(), input.number.to_string());
    let agreed = mirror::compare(
        Occurrence::Once(header.as_bytes()),
        BodyValue::Number(&body),
        Encoding::Sentinel,
    );
    assert_eq!(agreed.is_ok(), input.header_number == input.number);
    // However the body spells the same integer, it is compared as a number.
    for spelled in [format!("{body}.0"), format!("{body}e0"), format!("{body}0e-1")] {
        let agreed = mirror::compare(
            Occurrence::Once(body.as_bytes()),
            BodyValue::Number(&spelled),
            Encoding::Sentinel,
        );
        assert_eq!(agreed, Ok(()), "{spelled}");
    }
});
