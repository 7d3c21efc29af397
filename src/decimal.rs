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

/// The exponent beyond which a JSON number's digits cannot matter any more: every `i64` has at
/// most 19 digits, so a larger exponent only says the number is too large (or, negative, that
/// it has a fraction), and reading it further would only risk overflow.
const EXPONENT_CAP: i64 = 1_000_000;

/// The integer a JSON number's text (RFC 8259: `-? int frac? exp?`) stands for, compared as a
/// number: `2`, `2.0`, `2e0`, `20e-1` and `0.2e1` are all 2; `2.5`, `2e-1` and anything outside
/// an `i64` are no integer. `None` for text that is not a JSON number.
pub(crate) fn json_integer(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    let (negative, rest) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, bytes),
    };
    let exp_at = rest.iter().position(|b| matches!(b, b'e' | b'E')).unwrap_or(rest.len());
    let (mantissa, exponent) = rest.split_at(exp_at);
    let (whole, fraction) = match mantissa.iter().position(|&b| b == b'.') {
        Some(at) if at + 1 < mantissa.len() => (&mantissa[..at], &mantissa[at + 1..]),
        Some(_) => return None,
        None => (mantissa, &mantissa[mantissa.len()..]),
    };
    let digits = |part: &[u8]| part.iter().all(u8::is_ascii_digit);
    if whole.is_empty() || !digits(whole) || !digits(fraction) {
        return None;
    }
    let exponent = match exponent.split_first() {
        None => 0,
        Some((_, exp)) => json_exponent(exp)?,
    };
    // The significant digits (leading and trailing zeros apart), and the decimal point's place
    // counted from the first of them.
    let all = || whole.iter().chain(fraction);
    let Some(leading) = all().position(|&d| d != b'0') else {
        return Some(0);
    };
    let trailing = all().rev().position(|&d| d != b'0').unwrap_or(0);
    let count = whole.len() + fraction.len() - leading - trailing;
    let point = i64::try_from(whole.len()).ok()? - i64::try_from(leading).ok()? + exponent;
    let count = i64::try_from(count).ok()?;
    // A significant digit after the point is a fraction; more than 19 digits before it are
    // beyond an `i64`.
    if point < count || point > 19 {
        return None;
    }
    let significant = all().skip(leading).take(whole.len() + fraction.len() - leading - trailing);
    let mut magnitude = significant.fold(0i128, |n, d| n * 10 + i128::from(d - b'0'));
    for _ in count..point {
        magnitude *= 10;
    }
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

/// A JSON exponent's `[+-]? 1*DIGIT`, its magnitude capped at [`EXPONENT_CAP`].
fn json_exponent(exp: &[u8]) -> Option<i64> {
    let (sign, digits) = match exp.split_first() {
        Some((b'-', rest)) => (-1, rest),
        Some((b'+', rest)) => (1, rest),
        _ => (1, exp),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let magnitude =
        digits.iter().fold(0i64, |n, &d| (n * 10 + i64::from(d - b'0')).min(EXPONENT_CAP));
    Some(sign * magnitude)
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

/// Appends `bytes` as lowercase hexadecimal, two digits per byte.
pub(crate) fn push_hex(bytes: &[u8], out: &mut String) {
    out.extend(bytes.iter().flat_map(|&b| hex_pair(b)).map(char::from));
}

/// One byte as two lowercase hexadecimal digits.
pub(crate) fn hex_pair(byte: u8) -> [u8; 2] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    [HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xf)]]
}

/// Whether every byte is a lowercase hex digit (`0-9`, `a-f`); true of no bytes.
pub(crate) fn is_lower_hex(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
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
    fn json_numbers_are_integers_by_value_not_by_spelling() {
        let cases: [(&str, Option<i64>); 24] = [
            ("1", Some(1)),
            ("1e0", Some(1)),
            ("1E+0", Some(1)),
            ("10e-1", Some(1)),
            ("0.1e1", Some(1)),
            ("100e-2", Some(1)),
            ("1.000", Some(1)),
            ("-0", Some(0)),
            ("0e999999999999999999999", Some(0)),
            ("-2.0e1", Some(-20)),
            ("1e18", Some(1_000_000_000_000_000_000)),
            ("9223372036854775807", Some(i64::MAX)),
            ("-9223372036854775808", Some(i64::MIN)),
            ("9.223372036854775807e18", Some(i64::MAX)),
            ("9223372036854775808", None),
            ("1e19", None),
            ("1e400", None),
            ("1e-1", None),
            ("2.5", None),
            ("15e-1", None),
            ("1.", None),
            ("e1", None),
            ("1e", None),
            ("0x10", None),
        ];
        for (text, expected) in cases {
            assert_eq!(json_integer(text), expected, "{text}");
        }
    }

    #[test]
    fn hex_is_lowercase_and_two_digits_per_byte() {
        let hex = |bytes: &[u8]| {
            let mut out = String::from("kept ");
            push_hex(bytes, &mut out);
            out
        };
        assert_eq!(hex(&[0x00, 0x0f, 0xa0, 0xff]), "kept 000fa0ff");
        assert_eq!(hex(&[]), "kept ");
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
