//! A session's event-id tag, kept inline: the lowercase hex that starts every event id of the
//! session's streams (`mcp::stream`), so that ids differ across sessions.
//!
//! It is drawn once per session from the caller's randomness and stored inside the session
//! itself, with no allocation of its own. Not here: what the ids after the tag mean (`stream`).

use std::fmt;

/// The most hex digits a tag holds.
const TAG_DIGITS_MAX: usize = 32;

/// A tag: 1 to `TAG_DIGITS_MAX` (32) lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct EventTag {
    digits: [u8; TAG_DIGITS_MAX],
    len: usize,
}

impl EventTag {
    /// The tag `text` is, when it is 1 to `TAG_DIGITS_MAX` lowercase hex digits: for tests
    /// and fuzz targets, which name their tags (a server draws its own, [`EventTag::of_random`]).
    pub fn new(text: &str) -> Option<EventTag> {
        let bytes = text.as_bytes();
        let fits = (1..=TAG_DIGITS_MAX).contains(&bytes.len());
        if !fits || !crate::decimal::is_lower_hex(bytes) {
            return None;
        }
        let mut digits = [0u8; TAG_DIGITS_MAX];
        digits[..bytes.len()].copy_from_slice(bytes);
        Some(EventTag { digits, len: bytes.len() })
    }

    /// The tag of `random` bytes ([`crate::random::bytes`]), two digits a byte: 1 to 16 bytes,
    /// which the compiler checks.
    pub fn of_random<const BYTES: usize>(random: [u8; BYTES]) -> EventTag {
        const { assert!(BYTES > 0 && 2 * BYTES <= TAG_DIGITS_MAX) };
        let mut digits = [0u8; TAG_DIGITS_MAX];
        for (pair, byte) in digits.chunks_exact_mut(2).zip(random) {
            pair.copy_from_slice(&crate::decimal::hex_pair(byte));
        }
        EventTag { digits, len: 2 * BYTES }
    }

    pub fn as_str(&self) -> &str {
        // Only lowercase hex is ever stored, and ASCII is UTF-8.
        std::str::from_utf8(&self.digits[..self.len]).unwrap_or_default()
    }
}

impl fmt::Debug for EventTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EventTag({})", self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_one_to_thirty_two_lowercase_hex_digits() {
        let rows: [(&str, bool); 7] = [
            ("0f", true),
            ("0123456789abcdef", true),
            ("", false),
            ("0F", false),
            ("0g", false),
            ("00000000000000000000000000000000", true),
            ("000000000000000000000000000000000", false),
        ];
        for (text, valid) in rows {
            let tag = EventTag::new(text);
            assert_eq!(
                tag.map(|t| t.as_str().to_owned()),
                valid.then(|| text.to_owned()),
                "{text}"
            );
        }
        assert_eq!(EventTag::of_random([0x00, 0x9a, 0xff]).as_str(), "009aff");
        assert_eq!(EventTag::of_random([0xab; 16]).as_str(), "ab".repeat(16));
    }
}
