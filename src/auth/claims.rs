//! The claims of one fixture token, and the checks that make a malformed fixture fail when it is
//! built rather than when a request happens to meet it.
//!
//! In a real deployment these would come from a verified JWT or an introspection response. Here
//! they are written by the test or the command that builds the policy, so they are checked as
//! data: every text claim non-empty and free of control characters (subjects and tenants may be
//! any other Unicode), every scope a valid scope token.

use std::collections::BTreeSet;
use std::fmt;
use std::time::SystemTime;

use super::scope;

/// What the offline policy knows about one token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenClaims {
    /// A stable identifier, used to revoke the token without knowing its secret.
    pub token_id: String,
    /// The authorization server that issued it.
    pub issuer: String,
    /// The audience it was issued for.
    pub audience: String,
    /// The protected resource the policy recorded for it.
    pub resource: String,
    /// The RFC 8707 `resource` parameter the client sent in the authorization request.
    pub authorization_request_resource: String,
    /// The RFC 8707 `resource` parameter the client sent in the token request.
    pub token_request_resource: String,
    /// Who it was issued to (any Unicode text).
    pub subject: String,
    /// The tenant the subject acts in (any Unicode text).
    pub tenant: String,
    /// The scopes granted.
    pub scopes: BTreeSet<String>,
    /// The subject's authorization revision when the token was issued.
    pub authorization_revision: u64,
    /// False once the authorization server deactivated it.
    pub active: bool,
    /// The first instant at which it is no longer valid.
    pub expires_at: SystemTime,
}

/// A claim that cannot be part of a fixture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ClaimError {
    /// A text claim is empty.
    Empty(&'static str),
    /// A text claim holds a control character.
    ControlCharacter(&'static str),
    /// A scope is not a valid scope token.
    InvalidScope,
    /// Another token already has this token id.
    DuplicateTokenId,
    /// The same token string was registered twice.
    DuplicateToken,
    /// The token string itself is not a valid bearer token (RFC 6750 `b64token`).
    InvalidTokenSyntax,
}

impl fmt::Display for ClaimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClaimError::Empty(claim) => write!(f, "claim {claim} is empty"),
            ClaimError::ControlCharacter(claim) => {
                write!(f, "claim {claim} has a control character")
            }
            ClaimError::InvalidScope => f.write_str("a scope is not a valid scope token"),
            ClaimError::DuplicateTokenId => f.write_str("the token id is already registered"),
            ClaimError::DuplicateToken => f.write_str("the token is already registered"),
            ClaimError::InvalidTokenSyntax => f.write_str("the token is not a valid bearer token"),
        }
    }
}

impl std::error::Error for ClaimError {}

impl TokenClaims {
    /// Checks every claim; the policy refuses to register claims that fail.
    pub fn validate(&self) -> Result<(), ClaimError> {
        let texts: [(&'static str, &str); 8] = [
            ("token_id", &self.token_id),
            ("issuer", &self.issuer),
            ("audience", &self.audience),
            ("resource", &self.resource),
            ("authorization_request_resource", &self.authorization_request_resource),
            ("token_request_resource", &self.token_request_resource),
            ("subject", &self.subject),
            ("tenant", &self.tenant),
        ];
        for (name, value) in texts {
            if value.is_empty() {
                return Err(ClaimError::Empty(name));
            }
            if value.chars().any(char::is_control) {
                return Err(ClaimError::ControlCharacter(name));
            }
        }
        if !self.scopes.iter().all(|s| scope::is_scope_token(s)) {
            return Err(ClaimError::InvalidScope);
        }
        Ok(())
    }
}
