//! Byte classes of the HTTP grammar, as one 256-entry table built at compile time.
//!
//! Each class is a bit in [`CLASS`]; a lookup is one load and one mask, so the parsers can test
//! a byte against the grammar without branches on ranges. The grammar each class follows is
//! quoted next to it; the helpers at the end read bytes by class, and [`escape_into`] shows any
//! byte as visible text (for the client's traces and the server's watch), in the caller's string.
//! Nothing here decodes; non-ASCII bytes are never interpreted.

/// `tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|"
/// / "~" / DIGIT / ALPHA` (RFC 9110 §5.6.2): the bytes of a token such as a method or a field name.
pub const TCHAR: u8 = 1 << 0;
/// `field-vchar = VCHAR / obs-text` plus SP and HTAB (RFC 9110 §5.5): the bytes allowed inside a
/// field value. Excludes NUL, CR, LF, every other control byte and DEL.
pub const FIELD_VALUE: u8 = 1 << 1;
/// The bytes a path may carry literally (RFC 3986 §3.3): `unreserved / sub-delims / ":" / "@" /
/// "/"`, plus `%` which must start a `pct-encoded` triplet.
pub const PATH: u8 = 1 << 2;
/// `VCHAR = %x21-7E`: the visible ASCII bytes.
pub const VCHAR: u8 = 1 << 3;
/// Bytes of a registered host name as this project accepts them: ALPHA, DIGIT, `-`, `.`, `_`,
/// `~` (the `unreserved` set of RFC 3986; percent-encoding and sub-delims are refused).
pub const HOST_NAME: u8 = 1 << 4;

const fn build() -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut b = 0usize;
    while b < 256 {
        let c = b as u8;
        let alpha = c.is_ascii_alphabetic();
        let digit = c.is_ascii_digit();
        let mut class = 0u8;
        if alpha || digit || is_in(c, b"!#$%&'*+-.^_`|~") {
            class |= TCHAR;
        }
        if c == b'\t' || c == b' ' || (c >= 0x21 && c != 0x7f) {
            class |= FIELD_VALUE;
        }
        if alpha || digit || is_in(c, b"-._~!$&'()*+,;=:@/%") {
            class |= PATH;
        }
        if c >= 0x21 && c <= 0x7e {
            class |= VCHAR;
        }
        if alpha || digit || is_in(c, b"-._~") {
            class |= HOST_NAME;
        }
        table[b] = class;
        b += 1;
    }
    table
}

const fn is_in(c: u8, set: &[u8]) -> bool {
    let mut i = 0;
    while i < set.len() {
        if set[i] == c {
            return true;
        }
        i += 1;
    }
    false
}

/// The class bits of every byte value, for constant evaluation.
const TABLE: [u8; 256] = build();

/// The class bits of every byte value.
pub static CLASS: [u8; 256] = TABLE;

/// [`is`] for constant evaluation (checks that run when a constant is built).
pub const fn is_const(byte: u8, class: u8) -> bool {
    TABLE[byte as usize] & class != 0
}

/// True when `byte` belongs to `class` (one of the constants above).
#[inline]
pub fn is(byte: u8, class: u8) -> bool {
    CLASS[usize::from(byte)] & class != 0
}

/// How many leading bytes of `bytes` belong to `class`: four bytes judged per step, all four
/// looked up before the one branch, then the first outsider found among them.
pub fn run_of(bytes: &[u8], class: u8) -> usize {
    let mut run = 0;
    for chunk in bytes.chunks_exact(4) {
        let Ok(&[a, b, c, d]) = <&[u8; 4]>::try_from(chunk) else { break };
        let lookup = |byte: u8| CLASS[usize::from(byte)] & class;
        // Nonzero only when each of the four is in the class (for a one-bit class; with more
        // bits it may stop early, and the byte-by-byte tail then gives the same answer).
        if lookup(a) & lookup(b) & lookup(c) & lookup(d) == 0 {
            break;
        }
        run += 4;
    }
    run + bytes[run..].iter().take_while(|&&b| is(b, class)).count()
}

/// True when every byte of `bytes` belongs to `class`, judged in one pass without an early exit
/// (a branch per byte costs more than the lookups it would save on the inputs that matter).
pub fn all_are(bytes: &[u8], class: u8) -> bool {
    bytes.iter().fold(true, |all, &b| all & is(b, class))
}

/// True when `a` and `b` are the same ignoring ASCII case: the same bytes first (the usual
/// spelling, one comparison), then byte by byte ignoring case.
#[inline]
pub fn same_ignoring_case(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && (a == b || a.eq_ignore_ascii_case(b))
}

/// True when every byte of `bytes` is a `tchar` and there is at least one.
pub fn is_token(bytes: &[u8]) -> bool {
    !bytes.is_empty() && all_are(bytes, TCHAR)
}

/// How many leading bytes of `bytes` are field-value bytes ([`FIELD_VALUE`]).
///
/// Values are most of a head's bytes, so this reads eight at a time: a word is plain when none of
/// its bytes is below 0x20 and none is 0x7F, two exact word tests (a byte below 0x20 leaves a
/// borrow into its own top bit that no byte at or above 0x80 can fake; a DEL is a zero byte after
/// XOR with 0x7F). A word that fails, HTAB included, is finished byte by byte, so the answer is
/// always exactly the class table's.
pub fn field_value_run(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let below = |word: u64, n: u8| word.wrapping_sub(ONES * u64::from(n)) & !word & HIGHS != 0;
    let mut run = 0;
    for chunk in bytes.chunks_exact(8) {
        let Ok(word) = <[u8; 8]>::try_from(chunk).map(u64::from_ne_bytes) else { break };
        if below(word, 0x20) || below(word ^ (ONES * 0x7f), 1) {
            break;
        }
        run += 8;
    }
    run + bytes[run..].iter().take_while(|&&b| is(b, FIELD_VALUE)).count()
}

/// Removes leading and trailing SP and HTAB (optional whitespace, RFC 9110 §5.6.3).
pub fn trim_ows(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|&b| b != b' ' && b != b'\t').unwrap_or(bytes.len());
    let end = bytes.iter().rposition(|&b| b != b' ' && b != b'\t').map_or(start, |i| i + 1);
    &bytes[start..end]
}

/// Views bytes a scanner has already restricted to ASCII (tokens, paths) as a `str`.
pub fn ascii_str(bytes: &[u8]) -> &str {
    debug_assert!(bytes.is_ascii(), "ascii_str over bytes no scanner restricted to ASCII");
    // ASCII is always UTF-8; were a scanner ever to let another byte through, a release build
    // shows an empty string (an unroutable request), never invalid text.
    std::str::from_utf8(bytes).unwrap_or_default()
}

/// Appends `b` to `out` as visible ASCII: CR, LF, HTAB and the backslash as `\r`, `\n`, `\t`
/// and `\\`, every other byte outside `%x20-7E` as `\xHH`, the rest as itself. A line shown this
/// way tells a bare LF from a CRLF, and no byte can move the terminal's cursor.
pub fn escape_into(b: u8, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match b {
        b'\r' => out.push_str("\\r"),
        b'\n' => out.push_str("\\n"),
        b'\t' => out.push_str("\\t"),
        b'\\' => out.push_str("\\\\"),
        0x20..=0x7e => out.push(char::from(b)),
        _ => {
            out.push_str("\\x");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_into_shows_every_byte_as_visible_ascii() {
        for (byte, shown) in [
            (b'\r', "\\r"),
            (b'\n', "\\n"),
            (b'\t', "\\t"),
            (b'\\', "\\\\"),
            (b' ', " "),
            (b'~', "~"),
            (0x00, "\\x00"),
            (0x1b, "\\x1b"),
            (0x7f, "\\x7f"),
            (0xff, "\\xff"),
        ] {
            let mut out = String::new();
            escape_into(byte, &mut out);
            assert_eq!(out, shown, "byte {byte:#04x}");
        }
        for byte in 0..=255u8 {
            let mut out = String::new();
            escape_into(byte, &mut out);
            assert!(out.bytes().all(|b| (0x20..=0x7e).contains(&b)), "byte {byte:#04x}");
        }
    }

    #[test]
    fn tchar_is_exactly_the_rfc_set() {
        let expected: Vec<u8> = (0u8..=255)
            .filter(|c| c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(c))
            .collect();
        let actual: Vec<u8> = (0u8..=255).filter(|&c| is(c, TCHAR)).collect();
        assert_eq!(actual, expected);
        assert_eq!(actual.len(), 77);
    }

    #[test]
    fn field_value_excludes_controls_and_del_but_keeps_tab_space_and_obs_text() {
        for c in 0u8..=255 {
            let allowed = c == b'\t' || c == b' ' || (0x21..=0x7e).contains(&c) || c >= 0x80;
            assert_eq!(is(c, FIELD_VALUE), allowed, "byte {c:#04x}");
        }
    }

    #[test]
    fn run_of_agrees_with_the_table_for_every_byte_at_every_position() {
        for class in [TCHAR, FIELD_VALUE, HOST_NAME, TCHAR | HOST_NAME] {
            let by_table = |bytes: &[u8]| bytes.iter().take_while(|&&b| is(b, class)).count();
            for len in 0..=11 {
                for at in 0..len {
                    for byte in 0..=255u8 {
                        let mut bytes = vec![b'a'; len];
                        bytes[at] = byte;
                        assert_eq!(run_of(&bytes, class), by_table(&bytes), "{byte:#04x} at {at}");
                    }
                }
            }
        }
    }

    #[test]
    fn field_value_run_agrees_with_the_table_for_every_byte_at_every_position() {
        let by_table = |bytes: &[u8]| bytes.iter().take_while(|&&b| is(b, FIELD_VALUE)).count();
        for len in 0..=19 {
            for at in 0..len {
                for byte in 0..=255u8 {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = byte;
                    assert_eq!(field_value_run(&bytes), by_table(&bytes), "{byte:#04x} at {at}");
                    // Neighbours that are themselves extreme but allowed.
                    bytes
                        .iter_mut()
                        .enumerate()
                        .filter(|(i, _)| *i != at)
                        .for_each(|(_, b)| *b = 0xff);
                    assert_eq!(field_value_run(&bytes), by_table(&bytes), "{byte:#04x} at {at}");
                }
            }
        }
    }

    #[test]
    fn path_bytes_exclude_query_fragment_backslash_and_non_ascii() {
        for c in [b'?', b'#', b'\\', b' ', b'"', b'<', b'>', b'[', b']', b'^', b'`', b'{', b'|'] {
            assert!(!is(c, PATH), "byte {c:#04x}");
        }
        assert!((0x80..=0xff).all(|c| !is(c, PATH)));
        assert!(b"/azAZ09-._~!$&'()*+,;=:@%".iter().all(|&c| is(c, PATH)));
    }

    #[test]
    fn trim_ows_removes_only_space_and_tab() {
        let cases: [(&[u8], &[u8]); 5] = [
            (b"", b""),
            (b" \t ", b""),
            (b" a ", b"a"),
            (b"\ta b\t", b"a b"),
            (b"\x0ba\x0b", b"\x0ba\x0b"),
        ];
        for (input, expected) in cases {
            assert_eq!(trim_ows(input), expected);
        }
    }
}
