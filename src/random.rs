//! Randomness as the pure core receives it: a fill function handed in by the caller, which may
//! fail, and the one way ids, tokens and tags are drawn from it ([`bytes`], and [`hex`] for
//! bytes as lowercase hex).
//!
//! Deliberately draws nothing itself: the operating system's generator is read only by the shell
//! ([`crate::server::fill_os_random`]), so tests can hand the core a deterministic or a failing
//! source. A failed draw is an error value, never a panic and never weaker bytes.

use std::fmt;

/// The random source could not deliver; nothing that needed it was created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RandomUnavailable {
    /// The operating system's error number, when there was one.
    pub os_error: Option<i32>,
}

impl fmt::Display for RandomUnavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.os_error {
            Some(errno) => write!(f, "the random generator failed (os error {errno})"),
            None => f.write_str("the random generator failed"),
        }
    }
}

impl std::error::Error for RandomUnavailable {}

/// A source of random bytes: fills the whole buffer or fails.
pub type FillRandom<'a> = dyn FnMut(&mut [u8]) -> Result<(), RandomUnavailable> + 'a;

/// `BYTES` random bytes, drawn on the stack.
pub fn bytes<const BYTES: usize>(
    fill: &mut FillRandom<'_>,
) -> Result<[u8; BYTES], RandomUnavailable> {
    let mut buf = [0u8; BYTES];
    fill(&mut buf)?;
    Ok(buf)
}

/// `BYTES` random bytes as `2 * BYTES` lowercase hex digits: the bytes are drawn on the stack,
/// and the text is the one allocation.
pub fn hex<const BYTES: usize>(fill: &mut FillRandom<'_>) -> Result<String, RandomUnavailable> {
    hex_in::<BYTES>(String::new(), fill)
}

/// [`hex`], written into `out` (cleared first), whose room is kept.
pub fn hex_in<const BYTES: usize>(
    mut out: String,
    fill: &mut FillRandom<'_>,
) -> Result<String, RandomUnavailable> {
    let buf = bytes::<BYTES>(fill)?;
    out.clear();
    out.reserve(2 * BYTES);
    crate::decimal::push_hex(&buf, &mut out);
    Ok(out)
}
