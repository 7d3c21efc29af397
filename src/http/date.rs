//! The `Date` field in IMF-fixdate form (RFC 9110 §5.6.7), formatted by hand:
//! `Sun, 06 Nov 1994 08:49:37 GMT`, always 29 bytes.
//!
//! RFC 9110 §6.6.1 asks an origin server with a clock to send `Date` in its 2xx, 3xx and 4xx
//! responses. The clock is the shell's: it passes the seconds since the Unix epoch in, and
//! [`DateCache`] formats a new value at most once per second, so a response pays a copy of 29
//! bytes. Dates before 1970 cannot be asked for; dates after 9999 are written as the last second
//! of 9999 (IMF-fixdate has four year digits).

/// The length of every IMF-fixdate.
pub const IMF_FIXDATE_LEN: usize = 29;

/// The last second IMF-fixdate can write: Fri, 31 Dec 9999 23:59:59 GMT.
const LAST_WRITABLE_SECOND: u64 = 253_402_300_799;

const SECONDS_PER_DAY: u64 = 86_400;
const WEEKDAYS: [&[u8; 3]; 7] = [b"Sun", b"Mon", b"Tue", b"Wed", b"Thu", b"Fri", b"Sat"];
const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

/// An IMF-fixdate, made only by [`imf_fixdate`]: ASCII letters, digits, `,`, `:` and spaces,
/// so a writer can copy it into a field without checking it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HttpDate([u8; IMF_FIXDATE_LEN]);

impl HttpDate {
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// `unix_secs` as an IMF-fixdate.
pub fn imf_fixdate(unix_secs: u64) -> HttpDate {
    let secs = unix_secs.min(LAST_WRITABLE_SECOND);
    let days = secs / SECONDS_PER_DAY;
    let second_of_day = secs % SECONDS_PER_DAY;
    // 1 January 1970 was a Thursday.
    let weekday = ((days + 4) % 7) as usize;
    let (year, month, day) = civil_from_days(days);
    let mut out = [0u8; IMF_FIXDATE_LEN];
    out[..3].copy_from_slice(WEEKDAYS[weekday]);
    out[3..5].copy_from_slice(b", ");
    put_digits(&mut out[5..7], day);
    out[7] = b' ';
    out[8..11].copy_from_slice(MONTHS[(month - 1) as usize]);
    out[11] = b' ';
    put_digits(&mut out[12..16], year);
    out[16] = b' ';
    put_digits(&mut out[17..19], second_of_day / 3600);
    out[19] = b':';
    put_digits(&mut out[20..22], second_of_day / 60 % 60);
    out[22] = b':';
    put_digits(&mut out[23..25], second_of_day % 60);
    out[25..].copy_from_slice(b" GMT");
    HttpDate(out)
}

/// The proleptic Gregorian (year, month 1–12, day 1–31) of a count of days since 1970-01-01:
/// counted in 400-year eras that start on 1 March, so the leap day ends each cycle's year.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468; // days from 0000-03-01
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 { month_from_march + 3 } else { month_from_march - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// Writes `value` as exactly `out.len()` decimal digits, with leading zeros.
fn put_digits(out: &mut [u8], mut value: u64) {
    for digit in out.iter_mut().rev() {
        *digit = b'0' + (value % 10) as u8;
        value /= 10;
    }
}

/// The last formatted date, reused until the second changes.
#[derive(Clone, Copy, Debug)]
pub struct DateCache {
    second: u64,
    date: HttpDate,
}

impl DateCache {
    pub fn new() -> DateCache {
        DateCache { second: 0, date: imf_fixdate(0) }
    }

    /// The IMF-fixdate of `unix_secs`, formatted only when the second differs from the last.
    pub fn at(&mut self, unix_secs: u64) -> &HttpDate {
        if unix_secs != self.second {
            self.second = unix_secs;
            self.date = imf_fixdate(unix_secs);
        }
        &self.date
    }
}

impl Default for DateCache {
    fn default() -> Self {
        DateCache::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_exact_across_leap_years_and_year_boundaries() {
        let cases: [(u64, &str); 13] = [
            (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
            (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
            (68_169_600, "Tue, 29 Feb 1972 00:00:00 GMT"),
            (946_684_799, "Fri, 31 Dec 1999 23:59:59 GMT"),
            (946_684_800, "Sat, 01 Jan 2000 00:00:00 GMT"),
            (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
            (1_709_164_800, "Thu, 29 Feb 2024 00:00:00 GMT"),
            (1_798_761_599, "Thu, 31 Dec 2026 23:59:59 GMT"),
            (1_798_761_600, "Fri, 01 Jan 2027 00:00:00 GMT"),
            // 2100 is not a leap year: 28 February is followed by 1 March.
            (4_107_456_000, "Sun, 28 Feb 2100 00:00:00 GMT"),
            (4_107_542_400, "Mon, 01 Mar 2100 00:00:00 GMT"),
            (253_402_300_799, "Fri, 31 Dec 9999 23:59:59 GMT"),
            (u64::MAX, "Fri, 31 Dec 9999 23:59:59 GMT"),
        ];
        for (secs, expected) in cases {
            let date = imf_fixdate(secs);
            assert_eq!(std::str::from_utf8(date.as_bytes()), Ok(expected), "{secs}");
            // What lets a writer copy it unchecked.
            assert!(
                date.as_bytes().iter().all(|&b| b.is_ascii_alphanumeric() || b", :".contains(&b))
            );
        }
    }

    #[test]
    fn every_day_of_four_centuries_follows_the_previous_one() {
        // Walking day by day from 1970 to 2370 (a whole Gregorian cycle and more), each date is
        // the next calendar day of the one before, and weekdays cycle by seven.
        let days_in = |y: u64, m: u64| match m {
            2 if y.is_multiple_of(4) && (!y.is_multiple_of(100) || y.is_multiple_of(400)) => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        let mut previous = civil_from_days(0);
        assert_eq!(previous, (1970, 1, 1));
        for days in 1..146_097 + 365 {
            let (y, m, d) = previous;
            let expected = if d < days_in(y, m) {
                (y, m, d + 1)
            } else if m < 12 {
                (y, m + 1, 1)
            } else {
                (y + 1, 1, 1)
            };
            let got = civil_from_days(days);
            assert_eq!(got, expected, "day {days}");
            previous = got;
        }
    }

    #[test]
    fn the_cache_formats_once_per_second() {
        let mut cache = DateCache::new();
        assert_eq!(cache.at(784_111_777).as_bytes(), b"Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(cache.at(784_111_777).as_bytes(), b"Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(cache.at(784_111_778).as_bytes(), b"Sun, 06 Nov 1994 08:49:38 GMT");
    }
}
