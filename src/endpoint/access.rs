//! The stages both eras call: who is asking (stage 5, identity only), whether they may do it
//! (stage 7, scopes and tenant), and the scopes each access needs.
//!
//! Not here: the token policy's decisions (`auth::policy`), or when either era calls these (its
//! own pipeline's order).

use super::rejection::Rejection;
use super::state::Clock;
use crate::auth::policy::{OfflineTokenPolicy, Principal};
use crate::auth::scope::{self, Requirement};
use crate::http::RequestHead;
use crate::mcp::method::Access;

/// Stage 5: who is asking. `requirement` only shapes the challenge of a refusal.
pub(super) fn authenticate<'p>(
    policy: &'p OfflineTokenPolicy,
    head: &RequestHead<'_>,
    clock: Clock,
    requirement: Requirement,
) -> Result<&'p Principal, Rejection> {
    policy
        .identify(head.fields.all("authorization"), clock.wall)
        .map_err(|denial| Rejection::Auth { denial, requirement })
}

/// Stage 7: may they do it.
pub(super) fn authorize(
    policy: &OfflineTokenPolicy,
    principal: &Principal,
    requirement: Requirement,
) -> Result<(), Rejection> {
    policy
        .authorize(principal, &requirement)
        .map_err(|denial| Rejection::Auth { denial, requirement })
}

/// The scopes an access needs. `tools/call` needs only `mcp:connect`: the one tool,
/// `test_reconnection`, reads no tenant data and reaches no resource (it only shows how a stream
/// resumes), so the tenant ACL does not apply. A tool that reached data would get an access of
/// its own, and its 403 would name the scope for a step-up.
pub(super) const fn requirement_of(access: Access) -> Requirement {
    match access {
        Access::Connect => scope::CONNECT,
        Access::ReadResources => scope::READ_RESOURCES,
    }
}
