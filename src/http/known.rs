//! The field names this crate looks up, recognised once per line: [`KnownName`], and where each
//! one's lines are in a section ([`KnownIndex`]), so that a lookup of a known name reads two
//! numbers instead of comparing every line.
//!
//! Not here: the scanning of a section (`fields`), or what any field means (its reader's).

#[cfg(test)]
use super::chars::{self, TCHAR};

/// The prefix of every `Mcp-Param-{Name}` field, in lower case.
pub(crate) const MCP_PARAM_PREFIX: &[u8] = b"mcp-param-";

/// Whether `name` (a token, in any case) is one of the field names the framing rules, the
/// endpoint and the client look up (`Host`, `Authorization`, `Mcp-Method`, ...).
pub fn is_looked_up(name: &[u8]) -> bool {
    KnownName::of(name) != KnownName::Other
}

/// The field names the framing rules, the endpoint and the client look up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KnownName {
    Host,
    ContentLength,
    TransferEncoding,
    Expect,
    Connection,
    Origin,
    Accept,
    ContentType,
    Authorization,
    ProxyAuthorization,
    Cookie,
    McpSessionId,
    McpProtocolVersion,
    McpMethod,
    McpName,
    LastEventId,
    /// Any other name.
    Other,
}

impl KnownName {
    /// Every known name (not [`KnownName::Other`]).
    #[cfg(test)]
    pub(crate) const ALL: [KnownName; 16] = [
        KnownName::Host,
        KnownName::ContentLength,
        KnownName::TransferEncoding,
        KnownName::Expect,
        KnownName::Connection,
        KnownName::Origin,
        KnownName::Accept,
        KnownName::ContentType,
        KnownName::Authorization,
        KnownName::ProxyAuthorization,
        KnownName::Cookie,
        KnownName::McpSessionId,
        KnownName::McpProtocolVersion,
        KnownName::McpMethod,
        KnownName::McpName,
        KnownName::LastEventId,
    ];

    /// The name in lower case; empty for [`KnownName::Other`].
    pub(crate) const fn lower(self) -> &'static str {
        match self {
            KnownName::Host => "host",
            KnownName::ContentLength => "content-length",
            KnownName::TransferEncoding => "transfer-encoding",
            KnownName::Expect => "expect",
            KnownName::Connection => "connection",
            KnownName::Origin => "origin",
            KnownName::Accept => "accept",
            KnownName::ContentType => "content-type",
            KnownName::Authorization => "authorization",
            KnownName::ProxyAuthorization => "proxy-authorization",
            KnownName::Cookie => "cookie",
            KnownName::McpSessionId => "mcp-session-id",
            KnownName::McpProtocolVersion => "mcp-protocol-version",
            KnownName::McpMethod => "mcp-method",
            KnownName::McpName => "mcp-name",
            KnownName::LastEventId => "last-event-id",
            KnownName::Other => "",
        }
    }

    /// Whether a chunked body's trailer section may not carry this field: each field the receive
    /// order reads from a head is decided here one by one, since RFC 9110 §6.5.1 forbids sending
    /// framing, routing, authentication and content-negotiation fields as trailers, and a server
    /// that merged them would let a trailer override what its checks read.
    pub(crate) const fn forbidden_in_trailer(self) -> bool {
        match self {
            // Framing and routing.
            KnownName::Host
            | KnownName::ContentLength
            | KnownName::TransferEncoding
            | KnownName::Expect
            | KnownName::Connection => true,
            // What the receive order judges before the body: the caller and what it accepts.
            KnownName::Origin | KnownName::Accept | KnownName::ContentType => true,
            // Credentials.
            KnownName::Authorization | KnownName::ProxyAuthorization | KnownName::Cookie => true,
            // MCP's own fields, which the session, version and mirroring checks read.
            KnownName::McpSessionId
            | KnownName::McpProtocolVersion
            | KnownName::McpMethod
            | KnownName::McpName
            | KnownName::LastEventId => true,
            // A field this crate never reads: checked by the field rules, then dropped.
            KnownName::Other => false,
        }
    }

    /// Whether a trailer line named `name` (which is `self`) is refused: a known name the
    /// receive order reads ([`KnownName::forbidden_in_trailer`]), or any `Mcp-Param-{Name}`,
    /// since the 2026-07-28 mirroring checks read those from the head too, whatever the name.
    pub(crate) fn forbidden_as_trailer(self, name: &[u8]) -> bool {
        let param = name.len() > MCP_PARAM_PREFIX.len()
            && lowered_is(&name[..MCP_PARAM_PREFIX.len()], MCP_PARAM_PREFIX);
        self.forbidden_in_trailer() || param
    }

    /// Which known name `name`, a field name the scanner has read (`tchar` bytes only), is,
    /// whatever its case. Its length and its first byte name the one candidate, and its bytes
    /// lowered by setting bit 0x20 must then be the candidate's exactly: known names hold only
    /// `a-z` and `-`, and among `tchar` bytes only `A-Z` and `a-z` become a letter that way and
    /// only `-` becomes `-`.
    pub(crate) fn of(name: &[u8]) -> KnownName {
        let Some(&first) = name.first() else {
            return KnownName::Other;
        };
        let known = KnownName::candidate(name.len(), first | 0x20);
        if lowered_is(name, known.lower().as_bytes()) { known } else { KnownName::Other }
    }

    /// Which known name `name` is, when it is written in lower case; [`KnownName::Other`] for
    /// any other spelling. Inlined, so that a lookup with a literal name is decided when the
    /// program is built.
    #[inline(always)]
    pub(crate) fn of_lower(name: &[u8]) -> KnownName {
        let Some(&first) = name.first() else {
            return KnownName::Other;
        };
        let known = KnownName::candidate(name.len(), first);
        if known.lower().as_bytes() == name { known } else { KnownName::Other }
    }

    /// The only known name `name` can be, judged from its length and its first byte (a test
    /// checks that every known name is reached).
    #[inline(always)]
    const fn candidate(len: usize, first: u8) -> KnownName {
        use KnownName::*;
        match (len, first) {
            (4, b'h') => Host,
            (6, b'e') => Expect,
            (6, b'o') => Origin,
            (6, b'a') => Accept,
            (6, b'c') => Cookie,
            (10, b'c') => Connection,
            (12, b'c') => ContentType,
            (13, b'a') => Authorization,
            (13, b'l') => LastEventId,
            (14, b'c') => ContentLength,
            (14, b'm') => McpSessionId,
            (17, b't') => TransferEncoding,
            (19, b'p') => ProxyAuthorization,
            (20, b'm') => McpProtocolVersion,
            (10, b'm') => McpMethod,
            (8, b'm') => McpName,
            _ => Other,
        }
    }
}

/// True when `name` with bit 0x20 set in every byte is `lower`, compared eight bytes at a time.
fn lowered_is(name: &[u8], lower: &[u8]) -> bool {
    const MASK: u64 = u64::from_ne_bytes([0x20; 8]);
    let word = |bytes: &[u8]| <[u8; 8]>::try_from(bytes).map_or(0, u64::from_ne_bytes);
    if name.len() != lower.len() {
        return false;
    }
    let (mut names, mut lowers) = (name.chunks_exact(8), lower.chunks_exact(8));
    let words_match = (&mut names).zip(&mut lowers).all(|(n, l)| word(n) | MASK == word(l));
    words_match && names.remainder().iter().zip(lowers.remainder()).all(|(&n, &l)| n | 0x20 == l)
}

/// How many known names there are ([`KnownName::Other`] is last).
const KNOWN_NAMES: usize = KnownName::Other as usize;

/// Where each known name's field lines are: the position of the first among the spans, and
/// how many there are. The scanner records each line as it completes it, so looking a known
/// name up reads two numbers instead of comparing every line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KnownIndex {
    first: [usize; KNOWN_NAMES],
    count: [usize; KNOWN_NAMES],
}

/// The index of a section without fields.
pub(crate) static NO_FIELDS: KnownIndex = KnownIndex::EMPTY;

impl KnownIndex {
    pub(crate) const EMPTY: KnownIndex =
        KnownIndex { first: [0; KNOWN_NAMES], count: [0; KNOWN_NAMES] };

    /// The line at `position` among the spans has the name `known`.
    pub(crate) fn record(&mut self, known: KnownName, position: usize) {
        let slot = known as usize;
        if let (Some(first), Some(count)) = (self.first.get_mut(slot), self.count.get_mut(slot)) {
            if *count == 0 {
                *first = position;
            }
            *count += 1;
        }
    }

    /// The position of the first line named `known`, and how many lines are.
    #[inline]
    pub(crate) fn lines(&self, known: KnownName) -> (usize, usize) {
        let slot = known as usize;
        match (self.first.get(slot), self.count.get(slot)) {
            (Some(&first), Some(&count)) => (first, count),
            _ => (0, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_the_receive_order_reads_is_forbidden_in_a_trailer() {
        for known in KnownName::ALL {
            assert!(known.forbidden_in_trailer(), "{known:?}");
        }
        assert!(!KnownName::Other.forbidden_in_trailer());
    }

    #[test]
    fn known_names_are_recognised_in_any_case_and_nothing_else_is() {
        for known in KnownName::ALL {
            let lower = known.lower();
            assert_eq!(KnownName::of(lower.as_bytes()), known, "{lower}");
            assert_eq!(KnownName::of(lower.to_ascii_uppercase().as_bytes()), known, "{lower}");
            // One byte changed, dropped or added: another name.
            let mut changed = lower.as_bytes().to_vec();
            changed[0] = b'x';
            assert_eq!(KnownName::of(&changed), KnownName::Other, "{lower}");
            assert_eq!(KnownName::of(&lower.as_bytes()[1..]), KnownName::Other, "{lower}");
            assert_eq!(KnownName::of(format!("{lower}s").as_bytes()), KnownName::Other, "{lower}");
        }
        for other in ["", "x", "hosts", "content_type", "accept-encoding", "set-cookie", "date"] {
            assert_eq!(KnownName::of(other.as_bytes()), KnownName::Other, "{other}");
        }
        assert_eq!(KnownName::of(&[b'a'; 64]), KnownName::Other);
        // Any one tchar byte anywhere in a known name: recognised exactly when it is the right
        // letter in either case.
        for known in KnownName::ALL {
            for at in 0..known.lower().len() {
                for byte in (0..=255u8).filter(|&b| chars::is(b, TCHAR)) {
                    let mut name = known.lower().as_bytes().to_vec();
                    name[at] = byte;
                    let lowered = name.to_ascii_lowercase();
                    let expected = KnownName::ALL
                        .into_iter()
                        .find(|k| k.lower().as_bytes() == lowered)
                        .unwrap_or(KnownName::Other);
                    assert_eq!(KnownName::of(&name), expected, "{byte:#04x} at {at} of {known:?}");
                }
            }
        }
        assert_eq!(KnownName::of_lower(b"Host"), KnownName::Other);
    }
}
