//! Numbers as ASCII digits: reading `1*DIGIT` with checked arithmetic, writing a decimal without
//! going through `fmt`, and hexadecimal both ways (random bytes as lowercase hex for tokens and
//! session ids; single hex digits for `%XX` and `\uXXXX` escapes).
//!
//! Every length, delay and id the codecs read as digits goes through [`parse`], so there is one
//! place where overflow is handled. Signs, spaces, `_` separators and hex are never decimal
//! digits here.

/// What a run of bytes says as a decimal number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decimal {
    /// Not one or more ASCII digits.
    NotDigits,
    /// Digits, but more than a `u64` holds.
    Overflow,
    Value(u64),
}

/// Reads `1*DIGIT`. Leading zeros are decimal, never octal.
pub(crate) fn parse(bytes: &[u8]) -> Decimal {
    if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_digit) {
        return Decimal::NotDigits;
    }
    let value =
        bytes.iter().try_fold(0u64, |n, &d| n.checked_mul(10)?.checked_add(u64::from(d - b'0')));
    value.map_or(Decimal::Overflow, Decimal::Value)
}

/// The value of `1*DIGIT` when it fits a `u64`.
pub(crate) fn parse_u64(bytes: &[u8]) -> Option<u64> {
    match parse(bytes) {
        Decimal::Value(n) => Some(n),
        Decimal::NotDigits | Decimal::Overflow => None,
    }
}

/// The decimal digits of `n`, written at the end of `buf`.
fn digits(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[i..]
}

/// Appends the decimal digits of `n`.
pub(crate) fn push(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(digits(n, &mut [0; 20]));
}

/// Appends the decimal digits of `n` to text.
pub(crate) fn push_str(out: &mut String, n: u64) {
    for &digit in digits(n, &mut [0; 20]) {
        out.push(char::from(digit));
    }
}

/// `bytes` as lowercase hexadecimal, two digits per byte.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().flat_map(|&b| hex_pair(b)).map(char::from).collect()
}

/// One byte as two lowercase hexadecimal digits.
pub(crate) fn hex_pair(byte: u8) -> [u8; 2] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    [HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xf)]]
}

/// The value of one hexadecimal digit, either case.
pub(crate) fn hex_value(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        b'A'..=b'F' => Some(digit - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_reads_only_plain_digits() {
        let cases: [(&str, Decimal); 10] = [
            ("0", Decimal::Value(0)),
            ("010", Decimal::Value(10)),
            ("18446744073709551615", Decimal::Value(u64::MAX)),
            ("18446744073709551616", Decimal::Overflow),
            ("99999999999999999999999", Decimal::Overflow),
            ("", Decimal::NotDigits),
            ("+1", Decimal::NotDigits),
            ("-1", Decimal::NotDigits),
            ("1_0", Decimal::NotDigits),
            ("0x10", Decimal::NotDigits),
        ];
        for (input, expected) in cases {
            assert_eq!(parse(input.as_bytes()), expected, "{input:?}");
        }
    }

    #[test]
    fn hex_is_lowercase_and_two_digits_per_byte() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa0, 0xff]), "000fa0ff");
        assert_eq!(hex(&[]), "");
    }

    #[test]
    fn push_writes_every_width() {
        for n in [0u64, 7, 10, 99, 100, 65536, u64::MAX] {
            let mut out = Vec::new();
            push(&mut out, n);
            assert_eq!(out, n.to_string().as_bytes());
            let mut text = String::from("=");
            push_str(&mut text, n);
            assert_eq!(text, format!("={n}"));
        }
    }
}
