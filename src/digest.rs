//! SHA-256 digests as map keys: the token table and the session table store a digest, never the
//! secret itself, and look it up without hashing it a second time.
//!
//! A digest is already uniformly distributed, so its first eight bytes serve as the hash: a
//! [`DigestMap`] skips SipHash. That is safe here because no peer ever inserts: the token table
//! is built at start, and session keys are digests of ids the server drew from the operating
//! system's generator. A peer can grind its own tokens or ids into colliding prefixes, but a
//! lookup of one of those probes a table of at most a few thousand entries and finds nothing.
//!
//! Hashing is not password storage and not a signature: it only keeps raw secrets out of the
//! tables (and out of any dump of them) and gives fixed-size keys.
//!
//! A kept-alive connection usually presents the same token and session id on every request, so
//! each connection keeps the last secret of each kind with its digest ([`LastDigest`]) and hashes
//! only a secret that differs from the one before. Only the digest is reused, never a decision:
//! the lookups and every check after them run on every request. The one secret kept is the one
//! the same connection sent last, already in its read buffer; a different secret, even one byte
//! longer or shorter, is hashed as itself, and the comparison reads every byte whatever they hold.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hash, Hasher};

use sha2::{Digest as _, Sha256};

/// The SHA-256 of some secret bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digest([u8; 32]);

impl Digest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        Digest(Sha256::digest(bytes).into())
    }

    /// Its first four bytes in hex: enough to tell two secrets apart in a log, too little to
    /// look one up.
    pub fn short_hex(&self) -> String {
        self.0[..4].iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl Hash for Digest {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let mut prefix = [0u8; 8];
        prefix.copy_from_slice(&self.0[..8]);
        state.write_u64(u64::from_le_bytes(prefix));
    }
}

/// The hasher of [`DigestMap`]: the value a [`Digest`] hands it is the hash.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrefixHasher(u64);

impl Hasher for PrefixHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }

    /// Only digests are hashed here, through `write_u64`; anything else is folded in, byte by
    /// byte, so the hasher stays correct if it is ever handed other bytes.
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
}

/// A map keyed by digests, hashed by their prefix.
pub type DigestMap<V> = HashMap<Digest, V, BuildHasherDefault<PrefixHasher>>;

/// The last secret of one kind a connection presented, and its digest: one entry, replaced by
/// each new secret, forgotten when the connection ends (its worker keeps it, empty, for the next
/// connection). Its buffer keeps its allocation, so a secret of the same length or shorter costs
/// no allocation. Its `Debug` shows whether it keeps one, never the secret or its digest.
#[derive(Default)]
pub struct LastDigest {
    secret: Vec<u8>,
    digest: Option<Digest>,
}

impl fmt::Debug for LastDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LastDigest").field("keeps_one", &self.digest.is_some()).finish()
    }
}

impl LastDigest {
    /// The digest of `secret`: the one kept when `secret` equals the secret before it, else a
    /// new digest, which is kept in its place.
    pub fn of(&mut self, secret: &[u8]) -> Digest {
        match self.digest {
            Some(digest) if same_bytes(&self.secret, secret) => digest,
            _ => {
                let digest = Digest::of(secret);
                self.secret.clear();
                self.secret.extend_from_slice(secret);
                self.digest = Some(digest);
                digest
            }
        }
    }

    /// Forgets the kept secret and its digest (the buffer keeps its room).
    pub fn forget(&mut self) {
        self.secret.clear();
        self.digest = None;
    }

    /// Whether the next [`LastDigest::of`] with `secret` reuses the kept digest (for tests).
    #[cfg(test)]
    pub(crate) fn keeps(&self, secret: &[u8]) -> bool {
        self.digest.is_some() && same_bytes(&self.secret, secret)
    }
}

/// Equal lengths and equal bytes, every byte read whatever the earlier ones were: how long the
/// comparison takes says nothing of where two secrets of one length first differ.
fn same_bytes(kept: &[u8], sent: &[u8]) -> bool {
    kept.len() == sent.len() && kept.iter().zip(sent).fold(0u8, |diff, (a, b)| diff | (a ^ b)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_hash_to_their_first_eight_bytes_and_find_their_values() {
        let key = Digest::of(b"abc");
        // SHA-256("abc") starts ba 78 16 bf 8f 01 cf ea.
        let mut hasher = PrefixHasher::default();
        key.hash(&mut hasher);
        assert_eq!(
            hasher.finish(),
            u64::from_le_bytes([0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea])
        );
        let mut map: DigestMap<u8> = DigestMap::default();
        map.insert(key, 1);
        map.insert(Digest::of(b"abd"), 2);
        assert_eq!((map.get(&Digest::of(b"abc")), map.get(&Digest::of(b"abe"))), (Some(&1), None));
    }

    #[test]
    fn the_last_digest_is_reused_for_the_same_secret_only() {
        // (secret presented, whether the kept digest serves it)
        let rows: [(&[u8], bool); 8] = [
            (b"token-a", false),
            (b"token-a", true),
            (b"token-b", false),
            (b"token-a", false),
            (b"token-a2", false),
            (b"token-a", false),
            (b"", false),
            (b"", true),
        ];
        let mut last = LastDigest::default();
        for (row, (secret, kept)) in rows.into_iter().enumerate() {
            assert_eq!(last.keeps(secret), kept, "row {row}");
            assert_eq!(last.of(secret), Digest::of(secret), "row {row}");
            assert!(last.keeps(secret), "row {row}: kept after use");
        }
        last.forget();
        assert!(!last.keeps(b""), "forgotten");
    }

    #[test]
    fn a_kept_secret_never_shows_in_a_dump() {
        let mut last = LastDigest::default();
        last.of(b"secret-token-6f1d");
        assert_eq!(format!("{last:?}"), "LastDigest { keeps_one: true }");
        last.forget();
        assert_eq!(format!("{last:?}"), "LastDigest { keeps_one: false }");
    }
}
