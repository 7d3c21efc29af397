//! The protocol revisions this crate knows: one table, one row per revision, and what follows
//! from it.
//!
//! A row is the revision's variant, its name on the wire and its era, on one line; the rows go
//! in date order, oldest first, each ending with its separator, so a new revision is a new last
//! line. From the table come [`Revision`] (ordered by date), [`Revision::ALL`], the names, the
//! era of each, the version constants (`PROTOCOL_VERSION`, the newest revision of the legacy era,
//! and `MODERN_PROTOCOL_VERSION`, the newest of the modern one), and [`Versions`], a set of
//! revisions: what `serve --protocol-versions` accepts, what `server/discover` and `-32022` list,
//! and what a client proposes.
//!
//! Nothing else names a revision's wire name, and nothing matches on a revision's variant: what a
//! method or a tool is offered in is a span of revisions ([`Offered`]: from one, until one or for
//! good), so a new revision offers what the one before it offers, and everything that differs
//! between the eras is decided by [`Revision::era`].
//!
//! Not here: which era a request belongs to (`era`), or what either era's rules are (the
//! endpoint's).

/// Declares [`Revision`] and its table functions from the rows.
macro_rules! revisions {
    ($($variant:ident = $name:literal, $era:ident,)+) => {
        /// A protocol revision this crate knows, in date order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Revision {
            $($variant,)+
        }

        impl Revision {
            /// Every revision, the oldest first.
            pub const ALL: [Revision; [$($name),+].len()] = [$(Revision::$variant),+];

            /// The revision's name on the wire.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Revision::$variant => $name,)+
                }
            }

            /// The era the revision belongs to.
            pub const fn era(self) -> Era {
                match self {
                    $(Revision::$variant => Era::$era,)+
                }
            }
        }
    };
}

revisions! {
    V2025_11_25 = "2025-11-25", Legacy,
    V2026_07_28 = "2026-07-28", Modern,
}

/// The two eras of MCP over HTTP: how a client and a server agree on what they speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Era {
    /// An `initialize` handshake opens a session, which carries the version (2025-11-25).
    Legacy,
    /// Every request carries its version, capabilities and identity in `_meta` (2026-07-28 on).
    Modern,
}

impl Era {
    /// Both eras.
    pub const ALL: [Era; 2] = [Era::Legacy, Era::Modern];
}

impl Revision {
    /// The revision a version name names.
    pub fn from_name(name: &[u8]) -> Option<Revision> {
        Revision::ALL.into_iter().find(|r| r.name().as_bytes() == name)
    }

    /// The newest revision of `era` (every era has one).
    pub const fn newest(era: Era) -> Revision {
        let mut newest = None;
        let mut i = 0;
        while i < Revision::ALL.len() {
            if Revision::ALL[i].era() as u8 == era as u8 {
                newest = Some(Revision::ALL[i]);
            }
            i += 1;
        }
        match newest {
            Some(revision) => revision,
            None => panic!("an era without a revision in the table"),
        }
    }

    /// The revision's place in the table, from 0.
    const fn index(self) -> usize {
        let mut i = 0;
        while i < Revision::ALL.len() {
            if Revision::ALL[i] as u8 == self as u8 {
                return i;
            }
            i += 1;
        }
        0
    }
}

// Every era has a revision, so `newest` never panics when the program runs.
const _: () = {
    let mut i = 0;
    while i < Era::ALL.len() {
        Revision::newest(Era::ALL[i]);
        i += 1;
    }
};

/// The revisions something (a method, a tool) is offered in: from `since` on, until `until`
/// (inclusive) or for good. A revision added to the table after `since` offers it too, unless it
/// ended before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offered {
    pub since: Revision,
    pub until: Option<Revision>,
}

impl Offered {
    /// From `revision` on, for good.
    pub const fn since(revision: Revision) -> Offered {
        Offered { since: revision, until: None }
    }

    /// In `revision` alone.
    pub const fn only(revision: Revision) -> Offered {
        Offered { since: revision, until: Some(revision) }
    }

    /// Whether `revision` offers it.
    pub fn includes(self, revision: Revision) -> bool {
        self.since <= revision && self.until.is_none_or(|until| revision <= until)
    }

    /// Whether some revision of `era` offers it.
    pub fn in_era(self, era: Era) -> bool {
        Revision::ALL.into_iter().any(|r| r.era() == era && self.includes(r))
    }
}

/// A set of revisions: the ones a server speaks, or a client proposes. Never empty where it is
/// used as such ([`Versions::parse`] refuses an empty list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Versions(u64);

/// Why a list of versions was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VersionsError {
    /// A name that is not a revision this crate knows (the name, from the command line).
    Unknown(String),
    /// No version at all.
    Empty,
}

impl std::fmt::Display for VersionsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let known: Vec<&str> = Revision::ALL.iter().map(|r| r.name()).collect();
        match self {
            VersionsError::Unknown(name) => {
                write!(f, "{name:?} is not a protocol version; known: {}", known.join(", "))
            }
            VersionsError::Empty => write!(f, "no protocol version; known: {}", known.join(", ")),
        }
    }
}

/// Which eras a set of revisions reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eras {
    /// Revisions of one era only.
    One(Era),
    /// Revisions of both.
    Both,
}

// A set is a 64-bit mask: the table holds at most 64 revisions.
const _: () = assert!(Revision::ALL.len() <= 64);

impl Versions {
    /// Every revision of the legacy era: 2025-11-25, the seed's contract, and the default.
    pub const LEGACY: Versions = Versions::of_era(Era::Legacy);
    /// Every revision of the modern era.
    pub const MODERN: Versions = Versions::of_era(Era::Modern);
    /// Every revision of both eras.
    pub const ALL: Versions = Versions::LEGACY.with_all(Versions::MODERN);

    /// Every revision of `era`.
    pub const fn of_era(era: Era) -> Versions {
        let (mut mask, mut i) = (0, 0);
        while i < Revision::ALL.len() {
            if Revision::ALL[i].era() as u8 == era as u8 {
                mask |= 1 << i;
            }
            i += 1;
        }
        Versions(mask)
    }

    /// `revision` alone.
    pub const fn only(revision: Revision) -> Versions {
        Versions(1 << revision.index())
    }

    /// These and the ones of `other`.
    pub const fn with_all(self, other: Versions) -> Versions {
        Versions(self.0 | other.0)
    }

    /// A comma-separated list of version names, such as `2025-11-25,2026-07-28`.
    pub fn parse(list: &str) -> Result<Versions, VersionsError> {
        let mut versions = Versions(0);
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let revision = Revision::from_name(name.as_bytes())
                .ok_or_else(|| VersionsError::Unknown(name.to_owned()))?;
            versions = versions.with_all(Versions::only(revision));
        }
        if versions.0 == 0 { Err(VersionsError::Empty) } else { Ok(versions) }
    }

    /// Whether the set holds `revision`.
    pub const fn speaks(self, revision: Revision) -> bool {
        self.0 & (1 << revision.index()) != 0
    }

    /// The revisions of the set, the newest first.
    pub fn newest_first(self) -> impl Iterator<Item = Revision> {
        Revision::ALL.into_iter().rev().filter(move |r| self.speaks(*r))
    }

    /// The names of the revisions of the set, the newest first.
    pub fn names(self) -> Vec<&'static str> {
        self.newest_first().map(Revision::name).collect()
    }

    /// The newest revision of the set in `era`, if it has one.
    pub fn newest_in(self, era: Era) -> Option<Revision> {
        self.newest_first().find(|r| r.era() == era)
    }

    /// Which eras the set reaches (the legacy one for an empty set, which is never spoken).
    pub const fn eras(self) -> Eras {
        let legacy = self.0 & Versions::LEGACY.0 != 0;
        let modern = self.0 & Versions::MODERN.0 != 0;
        match (legacy, modern) {
            (true, true) => Eras::Both,
            (false, true) => Eras::One(Era::Modern),
            (true | false, false) => Eras::One(Era::Legacy),
        }
    }
}

impl Default for Versions {
    fn default() -> Self {
        Versions::LEGACY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_date_order_and_every_name_reads_back() {
        let names: Vec<&str> = Revision::ALL.iter().map(|r| r.name()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted, "rows in date order, each name once");
        for revision in Revision::ALL {
            assert_eq!(Revision::from_name(revision.name().as_bytes()), Some(revision));
            assert!(Versions::of_era(revision.era()).speaks(revision));
            assert!(Revision::newest(revision.era()) >= revision);
        }
        assert_eq!(Revision::from_name(b"2026-07-28 "), None);
    }

    #[test]
    fn version_lists_name_known_revisions_only() {
        let both = Versions::parse("2026-07-28,2025-11-25").unwrap();
        assert_eq!(both, Versions::ALL.with_all(both));
        assert_eq!(both.names(), ["2026-07-28", "2025-11-25"]);
        assert_eq!(both.eras(), Eras::Both);
        assert_eq!(Versions::parse("2025-11-25"), Ok(Versions::LEGACY));
        assert_eq!(Versions::LEGACY.eras(), Eras::One(Era::Legacy));
        let modern = Versions::parse("2026-07-28").unwrap();
        assert_eq!((modern.names(), modern.eras()), (vec!["2026-07-28"], Eras::One(Era::Modern)));
        assert_eq!(Versions::parse("2024-11-05"), Err(VersionsError::Unknown("2024-11-05".into())));
        assert_eq!(Versions::parse(" , "), Err(VersionsError::Empty));
    }

    #[test]
    fn an_offer_runs_from_its_revision_until_its_end() {
        let (first, last) = (Revision::ALL[0], Revision::ALL[Revision::ALL.len() - 1]);
        assert!(Offered::since(first).includes(last));
        assert!(Offered::only(first).includes(first));
        assert_eq!(Offered::only(first).includes(last), first == last);
        assert!(Offered::since(last).in_era(last.era()));
    }
}
