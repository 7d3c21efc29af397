//! The named fixture roles: one token per role, with claims chosen so that each role exercises one
//! branch of the policy. Tests, `demo`, `attack` and `serve` all use these.
//!
//! | role | subject / tenant | what is special | outcome |
//! |---|---|---|---|
//! | `full` | alice / acme | both scopes | allowed |
//! | `connect_only` | alice / acme | `mcp:connect` only | 403 `insufficient_scope` on resources |
//! | `other_subject` | mallory / acme | both scopes | allowed, but not in alice's sessions |
//! | `tenant_denied` | carol / globex | both scopes, tenant ACL denies | 403 `forbidden` on resources |
//! | `unicode` | non-ASCII subject; tenant with non-ASCII, `/`, `?`, `#` | both scopes | allowed |
//! | `expired` | alice / acme | expired one second before the fixture time | 401 |
//! | `revoked` | alice / acme | revoked | 401 |
//! | `inactive` | alice / acme | marked inactive | 401 |
//! | `wrong_issuer` | alice / acme | another issuer | 401 |
//! | `wrong_audience` | alice / acme | another audience | 401 |
//! | `wrong_authorization_resource` | alice / acme | authorization request named another resource | 401 |
//! | `wrong_token_resource` | alice / acme | token request named another resource | 401 |
//! | `stale_revision` | alice / acme | issued at revision 0; current is 1 | 401 |
//!
//! Token strings are 32 random bytes in hex, drawn from the caller's random source, so they differ
//! on every run and say nothing about their role.
//!
//! The conformance suite's two tokens are the exception: fixed, public strings that the suite
//! sends as they are, so a server registers them only when asked to serve the suite's step-up
//! fixtures ([`Fixture::add_conformance_tokens`]). Both belong to subject and tenant
//! `conformance`: `mcp-conformance-scope-low` holds only `mcp:conformance:baseline`, and
//! `mcp-conformance-scope-full` every scope of the four fixtures, the template's for the id
//! [`CONFORMANCE_TEMPLATE_ID`] alone, so that another id still needs a step-up.

use std::collections::BTreeSet;
use std::fmt;
use std::time::{Duration, SystemTime};

use super::claims::{ClaimError, TokenClaims};
use super::policy::OfflineTokenPolicy;
use super::scope::{self, MCP_CONNECT, RESOURCES_READ};
use crate::random::{self, FillRandom, RandomUnavailable};

/// The issuer the policy trusts: deliberately a name that can never resolve (`.invalid`).
pub const ISSUER: &str = "https://issuer.loopback-mcp-http.invalid";
/// A resource that is not this server, for the wrong-binding roles.
pub const OTHER_RESOURCE: &str = "https://elsewhere.invalid/mcp";
/// The subject and tenant of the non-ASCII role.
pub const UNICODE_SUBJECT: &str = "Zoë 山田";
pub const UNICODE_TENANT: &str = "Ünïcødé/東京?#tenant";
/// How long the valid fixture tokens stay valid after the fixture time.
pub const TOKEN_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);
/// The authorization revision every fixture subject starts at.
const CURRENT_REVISION: u64 = 1;
/// The conformance suite's under-scoped token.
pub const CONFORMANCE_LOW: &str = "mcp-conformance-scope-low";
/// The conformance suite's token that holds every fixture's scopes.
pub const CONFORMANCE_FULL: &str = "mcp-conformance-scope-full";
/// The one template id whose scope the full conformance token holds.
pub const CONFORMANCE_TEMPLATE_ID: &str = "123";
/// The subject and tenant of both conformance tokens.
const CONFORMANCE_PRINCIPAL: &str = "conformance";

/// A fixture role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Full,
    ConnectOnly,
    OtherSubject,
    TenantDenied,
    Unicode,
    Expired,
    Revoked,
    Inactive,
    WrongIssuer,
    WrongAudience,
    WrongAuthorizationResource,
    WrongTokenResource,
    StaleRevision,
}

impl Role {
    /// Every role, in the order of the table above.
    pub const ALL: [Role; 13] = [
        Role::Full,
        Role::ConnectOnly,
        Role::OtherSubject,
        Role::TenantDenied,
        Role::Unicode,
        Role::Expired,
        Role::Revoked,
        Role::Inactive,
        Role::WrongIssuer,
        Role::WrongAudience,
        Role::WrongAuthorizationResource,
        Role::WrongTokenResource,
        Role::StaleRevision,
    ];

    /// The role's name, as commands and JSON use it.
    pub const fn name(self) -> &'static str {
        match self {
            Role::Full => "full",
            Role::ConnectOnly => "connect_only",
            Role::OtherSubject => "other_subject",
            Role::TenantDenied => "tenant_denied",
            Role::Unicode => "unicode",
            Role::Expired => "expired",
            Role::Revoked => "revoked",
            Role::Inactive => "inactive",
            Role::WrongIssuer => "wrong_issuer",
            Role::WrongAudience => "wrong_audience",
            Role::WrongAuthorizationResource => "wrong_authorization_resource",
            Role::WrongTokenResource => "wrong_token_resource",
            Role::StaleRevision => "stale_revision",
        }
    }

    /// The role with this name.
    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name)
    }

    /// What is special about the role's token, in a few words.
    pub const fn describe(self) -> &'static str {
        match self {
            Role::Full => "both scopes",
            Role::ConnectOnly => "mcp:connect only",
            Role::OtherSubject => "another subject of the same tenant",
            Role::TenantDenied => "a tenant outside the ACL",
            Role::Unicode => "a non-ASCII subject and tenant",
            Role::Expired => "expired",
            Role::Revoked => "revoked",
            Role::Inactive => "deactivated",
            Role::WrongIssuer => "from another issuer",
            Role::WrongAudience => "issued for another resource (audience)",
            Role::WrongAuthorizationResource => "its authorization request named another resource",
            Role::WrongTokenResource => "its token request named another resource",
            Role::StaleRevision => "at a stale authorization revision",
        }
    }

    /// The token id (not secret: it names the token for revocation).
    pub fn token_id(self) -> String {
        format!("tid-{}", self.name())
    }

    /// Revokes this role's token in `policy` (a fixture's, or a running server's through
    /// [`crate::endpoint::Endpoint::policy_mut`]). False when `policy` does not know it.
    pub fn revoke_in(self, policy: &mut OfflineTokenPolicy) -> bool {
        policy.revoke(&self.token_id())
    }

    /// Moves the authorization revision of this role's subject and tenant forward in `policy`:
    /// the new revision, or `None` when `policy` does not know the subject.
    pub fn bump_revision_in(self, policy: &mut OfflineTokenPolicy) -> Option<u64> {
        let (subject, tenant) = self.subject_and_tenant();
        policy.bump_revision(subject, tenant)
    }

    /// Who the role's token was issued to, and in which tenant.
    pub const fn subject_and_tenant(self) -> (&'static str, &'static str) {
        match self {
            Role::OtherSubject => ("mallory", "acme"),
            Role::TenantDenied => ("carol", "globex"),
            Role::Unicode => (UNICODE_SUBJECT, UNICODE_TENANT),
            _ => ("alice", "acme"),
        }
    }

    /// The claims this role's token carries, for a policy on `resource` built at `now`.
    pub fn claims(self, resource: &str, now: SystemTime) -> TokenClaims {
        let both: BTreeSet<String> = [MCP_CONNECT, RESOURCES_READ].map(String::from).into();
        let (subject, tenant) = self.subject_and_tenant();
        let mut claims = TokenClaims {
            token_id: self.token_id(),
            issuer: ISSUER.to_owned(),
            audience: resource.to_owned(),
            resource: resource.to_owned(),
            authorization_request_resource: resource.to_owned(),
            token_request_resource: resource.to_owned(),
            subject: subject.to_owned(),
            tenant: tenant.to_owned(),
            scopes: both,
            authorization_revision: CURRENT_REVISION,
            active: true,
            expires_at: now + TOKEN_LIFETIME,
        };
        match self {
            Role::ConnectOnly => claims.scopes = [MCP_CONNECT.to_owned()].into(),
            Role::Expired => {
                claims.expires_at = now.checked_sub(Duration::from_secs(1)).unwrap_or(now)
            }
            Role::Inactive => claims.active = false,
            Role::WrongIssuer => claims.issuer = "https://other-issuer.invalid".to_owned(),
            Role::WrongAudience => claims.audience = OTHER_RESOURCE.to_owned(),
            Role::WrongAuthorizationResource => {
                claims.authorization_request_resource = OTHER_RESOURCE.to_owned()
            }
            Role::WrongTokenResource => claims.token_request_resource = OTHER_RESOURCE.to_owned(),
            Role::StaleRevision => claims.authorization_revision = CURRENT_REVISION - 1,
            _ => {}
        }
        claims
    }
}

/// Why the fixture could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixtureError {
    /// The random source failed.
    Random(RandomUnavailable),
    /// A token was refused, e.g. a repeating random source produced one twice.
    Claims(ClaimError),
}

impl fmt::Display for FixtureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FixtureError::Random(e) => e.fmt(f),
            FixtureError::Claims(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FixtureError {}

/// A policy with every role registered, and the tokens that go with them.
#[derive(Clone, Debug)]
pub struct Fixture {
    pub policy: OfflineTokenPolicy,
    tokens: Vec<(Role, String)>,
}

impl Fixture {
    /// Builds the policy for the loopback endpoint on `port`. `fill_random` must fill its buffer
    /// with unpredictable bytes (the server passes the operating system's generator); a source
    /// that repeats itself is refused rather than allowed to give two roles one token.
    pub fn build(
        port: u16,
        now: SystemTime,
        fill_random: &mut FillRandom<'_>,
    ) -> Result<Fixture, FixtureError> {
        let mut policy = OfflineTokenPolicy::for_loopback_port(port, ISSUER);
        let subjects = [
            ("alice", "acme"),
            ("mallory", "acme"),
            ("carol", "globex"),
            (UNICODE_SUBJECT, UNICODE_TENANT),
        ];
        for (subject, tenant) in subjects {
            policy.set_revision(subject, tenant, CURRENT_REVISION);
        }
        policy.allow_tenant("acme");
        policy.allow_tenant(UNICODE_TENANT);
        let resource = policy.resource().to_owned();
        let mut tokens = Vec::with_capacity(Role::ALL.len());
        for role in Role::ALL {
            let token = random::hex::<TOKEN_BYTES>(fill_random).map_err(FixtureError::Random)?;
            policy.register(&token, role.claims(&resource, now)).map_err(FixtureError::Claims)?;
            tokens.push((role, token));
        }
        policy.revoke(&Role::Revoked.token_id());
        Ok(Fixture { policy, tokens })
    }

    /// The token of `role`.
    pub fn token(&self, role: Role) -> &str {
        let token = self.tokens.iter().find(|(r, _)| *r == role).map(|(_, t)| t.as_str());
        // `build` draws a token for every role; an empty one would simply be refused (401).
        debug_assert!(token.is_some(), "a fixture without a token for {role:?}");
        token.unwrap_or_default()
    }

    /// Every role with its token, in role order.
    pub fn tokens(&self) -> impl Iterator<Item = (Role, &str)> {
        self.tokens.iter().map(|(r, t)| (*r, t.as_str()))
    }

    /// Registers the conformance suite's two fixed tokens (the module docs), valid from `now`.
    pub fn add_conformance_tokens(&mut self, now: SystemTime) -> Result<(), ClaimError> {
        let principal = CONFORMANCE_PRINCIPAL;
        self.policy.set_revision(principal, principal, CURRENT_REVISION);
        let template = scope::template(CONFORMANCE_TEMPLATE_ID);
        let fixtures = [
            scope::CONFORMANCE_TOOL,
            scope::CONFORMANCE_STATIC,
            scope::CONFORMANCE_TEMPLATE,
            scope::CONFORMANCE_PROMPT,
        ];
        let every = fixtures.iter().flat_map(|r| r.scopes.iter().copied());
        let full = every.chain([scope::CONFORMANCE_BASELINE, template.as_str()]);
        let tokens = [
            (CONFORMANCE_LOW, vec![scope::CONFORMANCE_BASELINE]),
            (CONFORMANCE_FULL, full.collect()),
        ];
        let resource = self.policy.resource().to_owned();
        for (token, scopes) in tokens {
            let claims = TokenClaims {
                token_id: format!("tid-{token}"),
                issuer: ISSUER.to_owned(),
                audience: resource.clone(),
                resource: resource.clone(),
                authorization_request_resource: resource.clone(),
                token_request_resource: resource.clone(),
                subject: principal.to_owned(),
                tenant: principal.to_owned(),
                scopes: scopes.into_iter().map(String::from).collect(),
                authorization_revision: CURRENT_REVISION,
                active: true,
                expires_at: now + TOKEN_LIFETIME,
            };
            self.policy.register(token, claims)?;
        }
        Ok(())
    }
}

/// Random bytes per token: 64 hex digits.
const TOKEN_BYTES: usize = 32;
