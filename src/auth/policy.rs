//! The offline token policy: from the Authorization field to a principal or a denial.
//!
//! The policy is built for one endpoint, from one normalized identifier
//! `http://127.0.0.1:<port>/mcp`, and compares every resource claim to it byte for byte. (That
//! exactness suits an identifier this code generated itself; comparing arbitrary public URIs
//! would need real canonicalization first, such as case-folding the scheme and host.)
//!
//! [`OfflineTokenPolicy::decide`] runs the checks in a fixed order on every request, even when
//! the request belongs to a live session, so a revocation or a revision change takes effect on
//! the very next request. This table is the one home of that order.
//!
//! <!-- policy-table: start -->
//! | check | when it fails | status | `WWW-Authenticate` |
//! |---|---|---|---|
//! | one `Bearer` token in one Authorization field | no field, or another scheme | 401 | `Bearer resource_metadata="…", scope="…"` (no `error`: nothing was wrong with a credential that was never sent) |
//! | | malformed, or two fields | 400 | `Bearer error="invalid_request", resource_metadata="…"` |
//! | token known, active, unexpired (valid strictly before its expiry instant), not revoked | any | 401 | `Bearer error="invalid_token", resource_metadata="…", scope="…"` |
//! | issuer; audience, recorded resource and both RFC 8707 resources equal to `http://127.0.0.1:<port>/mcp` | any | 401 | the same |
//! | the subject's current authorization revision | unknown or older | 401 | the same |
//! | the scopes the request needs | one missing | 403 | `Bearer error="insufficient_scope", scope="<held + required>", resource_metadata="…"` |
//! | the tenant ACL, for requests that read tenant data | denied | 403 | none: the body says `forbidden`; more scope would not help |
//! <!-- policy-table: end -->
//!
//! The 401 challenge is the same for every reason a token is refused; the reason is kept in the
//! [`Denial`] for tests and never rendered.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::SystemTime;

use crate::digest::{Digest, DigestMap, LastDigest};

use super::bearer::{self, BearerError};
use super::challenge;
use super::claims::{ClaimError, TokenClaims};
use super::metadata;
use super::scope::{self, Requirement};
use crate::http::Status;
use crate::json::Value;

/// What the session and MCP layers learn about an authorized request. Derived from the token's
/// claims only: no request body or header other than Authorization contributes to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    /// Shared, so that a session bound to the principal copies no text.
    pub subject: Arc<str>,
    pub tenant: Arc<str>,
    pub authorization_revision: u64,
    pub scopes: BTreeSet<String>,
}

/// Why a token was refused. Kept for tests and local diagnostics; every variant produces the
/// same response.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InvalidTokenReason {
    Unknown,
    Inactive,
    Expired,
    Revoked,
    WrongIssuer,
    WrongAudience,
    WrongResource,
    WrongAuthorizationRequestResource,
    WrongTokenRequestResource,
    UnknownSubject,
    StaleRevision,
}

/// A refused request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Denial {
    /// The Authorization field is malformed or repeated: 400.
    InvalidRequest,
    /// No bearer credentials at all: 401 without an error code (RFC 6750 §3.1).
    MissingCredentials,
    /// The token cannot be used here: 401 `invalid_token`.
    InvalidToken(InvalidTokenReason),
    /// The token lacks a scope the request needs: 403. `scope` lists the scopes held plus those
    /// required, space-separated, as the challenge will carry them.
    InsufficientScope { scope: String },
    /// The tenant may not read this data: 403, with no scope challenge (more scope would not
    /// help, and naming the rule would describe another tenant's data).
    TenantForbidden,
}

impl Denial {
    /// The status to answer with.
    pub const fn status(&self) -> Status {
        match self {
            Denial::InvalidRequest => Status::BadRequest,
            Denial::MissingCredentials | Denial::InvalidToken(_) => Status::Unauthorized,
            Denial::InsufficientScope { .. } | Denial::TenantForbidden => Status::Forbidden,
        }
    }

    /// The stable public code for the response body.
    pub const fn code(&self) -> &'static str {
        match self {
            Denial::InvalidRequest => "invalid_request",
            Denial::MissingCredentials => "missing_credentials",
            Denial::InvalidToken(_) => "invalid_token",
            Denial::InsufficientScope { .. } => "insufficient_scope",
            Denial::TenantForbidden => "forbidden",
        }
    }

    /// The exact `WWW-Authenticate` value, or `None` when the response carries none.
    /// `requirement` is what the refused request needed.
    pub fn challenge(&self, metadata_url: &str, requirement: &Requirement) -> Option<String> {
        self.challenge_in(String::new(), metadata_url, requirement)
    }

    /// [`Denial::challenge`], written into `out` (cleared first), whose room is kept.
    pub fn challenge_in(
        &self,
        out: String,
        metadata_url: &str,
        requirement: &Requirement,
    ) -> Option<String> {
        let needed = requirement.scopes;
        let bearer = challenge::Bearer::in_buffer(out, CHALLENGE_BYTES + metadata_url.len());
        let challenge = match self {
            Denial::InvalidRequest => {
                bearer.param("error", "invalid_request").param("resource_metadata", metadata_url)
            }
            Denial::MissingCredentials => {
                bearer.param("resource_metadata", metadata_url).param_words("scope", needed)
            }
            Denial::InvalidToken(_) => bearer
                .param("error", "invalid_token")
                .param("resource_metadata", metadata_url)
                .param_words("scope", needed),
            Denial::InsufficientScope { scope } => bearer
                .param("error", "insufficient_scope")
                .param("scope", scope)
                .param("resource_metadata", metadata_url),
            Denial::TenantForbidden => return None,
        };
        Some(challenge.into_string())
    }
}

/// Room for a challenge's text beside the metadata URL (its scheme, names, codes and scopes).
const CHALLENGE_BYTES: usize = 128;

/// The key a token is stored under: its SHA-256 digest (see [`crate::digest`]). Tokens are
/// random, so no salt or stretching is needed.
fn lookup_key(token: &[u8]) -> Digest {
    Digest::of(token)
}

/// The offline policy for one endpoint.
#[derive(Clone, Debug)]
pub struct OfflineTokenPolicy {
    resource: String,
    metadata_url: String,
    issuer: String,
    /// Each token's record, under the digest of the token.
    records: DigestMap<TokenRecord>,
    /// Each token id, and its slot in `revoked`.
    token_ids: HashMap<String, usize>,
    /// Per token slot: revoked or not.
    revoked: Vec<bool>,
    /// Each (subject, tenant) pair a token or a revision names, and its slot in `revisions`.
    revision_slots: HashMap<(String, String), usize>,
    /// Per pair slot: the current authorization revision, `None` for a pair no revision was set
    /// for (an unknown subject).
    revisions: Vec<Option<u64>>,
    /// Tenants whose knowledge-base resources may be read.
    readable_tenants: HashSet<String>,
}

/// What the policy keeps for one token. The slots point at the token's revocation flag and at
/// its subject's current revision, which change at run time and are read on every request: the
/// slots only spare each request the hashing of the names they stand for.
#[derive(Clone, Debug)]
struct TokenRecord {
    claims: TokenClaims,
    /// The principal the claims make, built once and shared by every request.
    principal: Arc<Principal>,
    revoked_slot: usize,
    revision_slot: usize,
}

impl OfflineTokenPolicy {
    /// A policy for the loopback endpoint on `port`, trusting tokens from `issuer`.
    pub fn for_loopback_port(port: u16, issuer: &str) -> Self {
        OfflineTokenPolicy {
            resource: format!("http://127.0.0.1:{port}/mcp"),
            metadata_url: format!("http://127.0.0.1:{port}{}", metadata::PATH_FOR_MCP),
            issuer: issuer.to_owned(),
            records: DigestMap::default(),
            token_ids: HashMap::new(),
            revoked: Vec::new(),
            revision_slots: HashMap::new(),
            revisions: Vec::new(),
            readable_tenants: HashSet::new(),
        }
    }

    /// The resource identifier every token must be bound to.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The URL of the protected-resource-metadata document, as challenges carry it.
    pub fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    /// The protected-resource-metadata document.
    pub fn metadata(&self) -> Value {
        metadata::document(&self.resource, &[&self.issuer], &scope::SUPPORTED)
    }

    /// Adds a token with its claims. Refuses malformed claims, a token that is not a valid bearer
    /// token, and a token or token id registered before.
    pub fn register(&mut self, token: &str, claims: TokenClaims) -> Result<(), ClaimError> {
        claims.validate()?;
        if !bearer::is_b64token(token.as_bytes()) {
            return Err(ClaimError::InvalidTokenSyntax);
        }
        let key = lookup_key(token.as_bytes());
        if self.records.contains_key(&key) {
            return Err(ClaimError::DuplicateToken);
        }
        if self.token_ids.contains_key(&claims.token_id) {
            return Err(ClaimError::DuplicateTokenId);
        }
        let revoked_slot = self.revoked.len();
        self.revoked.push(false);
        self.token_ids.insert(claims.token_id.clone(), revoked_slot);
        let revision_slot = self.revision_slot(&claims.subject, &claims.tenant);
        let principal = Arc::new(Principal {
            subject: claims.subject.as_str().into(),
            tenant: claims.tenant.as_str().into(),
            authorization_revision: claims.authorization_revision,
            scopes: claims.scopes.clone(),
        });
        self.records.insert(key, TokenRecord { claims, principal, revoked_slot, revision_slot });
        Ok(())
    }

    /// The revision slot of a (subject, tenant) pair, made (with no revision) on first use.
    fn revision_slot(&mut self, subject: &str, tenant: &str) -> usize {
        let pair = (subject.to_owned(), tenant.to_owned());
        *self.revision_slots.entry(pair).or_insert_with(|| {
            self.revisions.push(None);
            self.revisions.len() - 1
        })
    }

    /// Sets the current authorization revision of a subject in a tenant.
    pub fn set_revision(&mut self, subject: &str, tenant: &str, revision: u64) {
        let slot = self.revision_slot(subject, tenant);
        self.revisions[slot] = Some(revision);
    }

    /// Moves a subject's authorization revision forward by one: every token issued before stops
    /// working on the next request. Returns the new revision, or `None` for an unknown subject.
    pub fn bump_revision(&mut self, subject: &str, tenant: &str) -> Option<u64> {
        let pair = (subject.to_owned(), tenant.to_owned());
        let slot = *self.revision_slots.get(&pair)?;
        let revision = self.revisions[slot].as_mut()?;
        *revision = revision.checked_add(1)?;
        Some(*revision)
    }

    /// Lets `tenant` read its knowledge-base resources.
    pub fn allow_tenant(&mut self, tenant: &str) {
        self.readable_tenants.insert(tenant.to_owned());
    }

    /// Revokes a token by id, effective on the next request. False for an unknown id.
    pub fn revoke(&mut self, token_id: &str) -> bool {
        match self.token_ids.get(token_id) {
            Some(&slot) => {
                self.revoked[slot] = true;
                true
            }
            None => false,
        }
    }

    /// Decides one request from its Authorization field lines (all of them, in order), what it
    /// needs, and the current time: [`Self::authenticate`], then [`Self::authorize`].
    pub fn decide<'a, I>(
        &self,
        authorization: I,
        requirement: &Requirement,
        now: SystemTime,
    ) -> Result<Arc<Principal>, Denial>
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        let principal = self.authenticate(authorization, now)?;
        self.authorize(&principal, requirement)?;
        Ok(principal)
    }

    /// The first half of the decision: who is this? Checks the Authorization field, then the
    /// token's validity, bindings and revision. A server that must check something else (such
    /// as the session) between identity and permission calls the halves separately.
    pub fn authenticate<'a, I>(
        &self,
        authorization: I,
        now: SystemTime,
    ) -> Result<Arc<Principal>, Denial>
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        self.record_of(authorization, now, lookup_key).map(|record| Arc::clone(&record.principal))
    }

    /// [`OfflineTokenPolicy::authenticate`], the principal borrowed from the policy: for a caller
    /// that holds the policy for the whole request, so that no shared count is touched.
    pub fn identify<'a, I>(&self, authorization: I, now: SystemTime) -> Result<&Principal, Denial>
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        self.record_of(authorization, now, lookup_key).map(|record| &*record.principal)
    }

    /// [`OfflineTokenPolicy::identify`] for a connection that keeps the digest of the token it
    /// presented last in `last`: the token is hashed only when it differs from that one. Every
    /// check runs as in `identify`; only the digest is reused.
    pub fn identify_keeping<'a, I>(
        &self,
        authorization: I,
        now: SystemTime,
        last: &mut LastDigest,
    ) -> Result<&Principal, Denial>
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        self.record_of(authorization, now, |token| last.of(token)).map(|record| &*record.principal)
    }

    /// The record of the token in `authorization`, looked up under `key_of(token)`, once every
    /// check of identity passed.
    fn record_of<'a, I>(
        &self,
        authorization: I,
        now: SystemTime,
        key_of: impl FnOnce(&[u8]) -> Digest,
    ) -> Result<&TokenRecord, Denial>
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        let token = match bearer::token(authorization) {
            Ok(Some(token)) => token,
            Ok(None) => return Err(Denial::MissingCredentials),
            Err(BearerError::Duplicate | BearerError::Malformed) => {
                return Err(Denial::InvalidRequest);
            }
        };
        let invalid = Denial::InvalidToken;
        let record =
            self.records.get(&key_of(token)).ok_or(invalid(InvalidTokenReason::Unknown))?;
        self.check_usable(record, now).map_err(invalid)?;
        self.check_bindings(&record.claims).map_err(invalid)?;
        self.check_revision(record).map_err(invalid)?;
        Ok(record)
    }

    /// The second half: may this principal do what the request needs? Scopes first (403
    /// `insufficient_scope`), then the tenant ACL for requests that read tenant data (403
    /// `forbidden`).
    pub fn authorize(
        &self,
        principal: &Principal,
        requirement: &Requirement,
    ) -> Result<(), Denial> {
        self.authorize_with(principal, requirement, None)
    }

    /// [`Self::authorize`] for a request whose arguments make one more scope needed (a template
    /// resource's id): a refusal's challenge names every scope the operation needs at once,
    /// with those the token holds, so that one step-up is enough.
    pub fn authorize_with(
        &self,
        principal: &Principal,
        requirement: &Requirement,
        argument: Option<&str>,
    ) -> Result<(), Denial> {
        let needed = || requirement.scopes.iter().copied().chain(argument);
        if needed().any(|s| !principal.scopes.contains(s)) {
            let mut scopes: BTreeSet<&str> = principal.scopes.iter().map(String::as_str).collect();
            scopes.extend(needed());
            let scope = scopes.into_iter().collect::<Vec<_>>().join(" ");
            return Err(Denial::InsufficientScope { scope });
        }
        if requirement.tenant_data && !self.readable_tenants.contains(&*principal.tenant) {
            return Err(Denial::TenantForbidden);
        }
        Ok(())
    }

    /// Active, unexpired (valid strictly before `expires_at`), not revoked.
    fn check_usable(
        &self,
        record: &TokenRecord,
        now: SystemTime,
    ) -> Result<(), InvalidTokenReason> {
        let claims = &record.claims;
        if !claims.active {
            return Err(InvalidTokenReason::Inactive);
        }
        if now >= claims.expires_at {
            return Err(InvalidTokenReason::Expired);
        }
        if self.revoked[record.revoked_slot] {
            return Err(InvalidTokenReason::Revoked);
        }
        Ok(())
    }

    /// Issued by the trusted issuer, for this resource, and requested for it in both RFC 8707
    /// requests.
    fn check_bindings(&self, claims: &TokenClaims) -> Result<(), InvalidTokenReason> {
        let checks = [
            (&claims.issuer, &self.issuer, InvalidTokenReason::WrongIssuer),
            (&claims.audience, &self.resource, InvalidTokenReason::WrongAudience),
            (&claims.resource, &self.resource, InvalidTokenReason::WrongResource),
            (
                &claims.authorization_request_resource,
                &self.resource,
                InvalidTokenReason::WrongAuthorizationRequestResource,
            ),
            (
                &claims.token_request_resource,
                &self.resource,
                InvalidTokenReason::WrongTokenRequestResource,
            ),
        ];
        match checks.into_iter().find(|(claimed, expected, _)| claimed != expected) {
            Some((_, _, reason)) => Err(reason),
            None => Ok(()),
        }
    }

    fn check_revision(&self, record: &TokenRecord) -> Result<(), InvalidTokenReason> {
        match self.revisions[record.revision_slot] {
            None => Err(InvalidTokenReason::UnknownSubject),
            Some(revision) if revision != record.claims.authorization_revision => {
                Err(InvalidTokenReason::StaleRevision)
            }
            Some(_) => Ok(()),
        }
    }
}
