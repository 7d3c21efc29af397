//! The stages both eras call: who is asking (stage 5, identity only), whether they may do it
//! (stage 7, scopes and tenant), and the one place that says which scopes a request needs.
//!
//! A request's access is its method's, or, where the method's row says its target decides
//! ([`access_of`]), its target's: the tool a `tools/call` names, the resource of a
//! `resources/read`, the prompt of a `prompts/get`. Each access is a static set of scopes
//! ([`requirement_of`]), and one of them, a template resource's, needs one more scope made from
//! the id the request names ([`argument_scope`]). That scope is computed from the decoded body at
//! stage 7 and never earlier: a request without a valid token learns nothing from it (its 401
//! names the static scopes alone). That id is the one value a request sends that an answer
//! repeats, since the challenge must name the scope it is part of; it is 1 to 64 letters, digits,
//! `.`, `_` or `-` (`mcp::conformance::resource`), or the URI names no resource at all.
//!
//! Not here: the token policy's decisions (`auth::policy`), or when either era calls these (its
//! own pipeline's order).

use super::rejection::Rejection;
use super::state::Clock;
use super::tools;
use crate::auth::policy::{OfflineTokenPolicy, Principal};
use crate::auth::scope::{self, Requirement};
use crate::digest::LastDigest;
use crate::http::RequestHead;
use crate::json::{Object, Value};
use crate::mcp::conformance::{self, Fixture};
use crate::mcp::method::{Access, McpMethod, MethodName, Offer};

/// Stage 5: who is asking. `requirement` only shapes the challenge of a refusal; `token` is the
/// digest of the token the connection presented last (see [`crate::digest`]).
pub(super) fn authenticate<'p>(
    policy: &'p OfflineTokenPolicy,
    head: &RequestHead<'_>,
    (clock, token): (Clock, &mut LastDigest),
    requirement: Requirement,
) -> Result<&'p Principal, Rejection> {
    policy
        .identify_keeping(head.fields.all("authorization"), clock.wall, token)
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

/// Stage 7 for a request of `access` with `params`: its static scopes and the one its arguments
/// make, in one decision.
pub(super) fn authorize_access(
    policy: &OfflineTokenPolicy,
    principal: &Principal,
    access: Access,
    params: &Object,
) -> Result<(), Rejection> {
    let requirement = requirement_of(access);
    let argument = argument_scope(access, params);
    policy
        .authorize_with(principal, &requirement, argument.as_deref())
        .map_err(|denial| Rejection::Auth { denial, requirement })
}

/// The access a request of `named` with `params` needs in `offer`: its method's, or its target's
/// when the method's row says so. A target that does not exist needs only the connect scope (it
/// reaches nothing, and the method then says so).
pub(super) fn access_of(named: MethodName, params: &Object, offer: Offer) -> Access {
    let method = match named {
        MethodName::Request(method, _) if method.row().access_by_target => method,
        MethodName::Request(..) | MethodName::Notification(_) | MethodName::Unknown => {
            return named.access();
        }
    };
    let text = |key: &str| params.get(key).and_then(Value::as_str).unwrap_or_default();
    match method {
        McpMethod::ToolsCall => {
            tools::tool_called(params, offer).map_or(Access::Connect, |tool| tool.row().access)
        }
        McpMethod::ResourcesRead => {
            conformance::resource(text("uri")).map_or(Access::Connect, |(f, _)| Access::Fixture(f))
        }
        McpMethod::PromptsGet if text("name") == conformance::PROMPT => {
            Access::Fixture(Fixture::Prompt)
        }
        McpMethod::PromptsGet
        | McpMethod::Initialize
        | McpMethod::Ping
        | McpMethod::NotificationsInitialized
        | McpMethod::NotificationsCancelled
        | McpMethod::ResourcesList
        | McpMethod::ToolsList
        | McpMethod::LoggingSetLevel
        | McpMethod::ServerDiscover
        | McpMethod::SubscriptionsListen => method.row().access,
    }
}

/// The static scopes an access needs. A tool needs only `mcp:connect` unless its row names an
/// access of its own: `tenant_documents` reads tenant data (the tenant ACL applies), and the
/// conformance suite's fixture needs its two scopes, whose 403 names them for a step-up.
pub(super) const fn requirement_of(access: Access) -> Requirement {
    match access {
        Access::Connect => scope::CONNECT,
        Access::ReadResources => scope::READ_RESOURCES,
        Access::Fixture(Fixture::Tool) => scope::CONFORMANCE_TOOL,
        Access::Fixture(Fixture::StaticResource) => scope::CONFORMANCE_STATIC,
        Access::Fixture(Fixture::TemplateResource) => scope::CONFORMANCE_TEMPLATE,
        Access::Fixture(Fixture::Prompt) => scope::CONFORMANCE_PROMPT,
    }
}

/// The scope a request's arguments make needed besides its access's static ones: a template
/// resource's, which holds its id.
pub(super) fn argument_scope(access: Access, params: &Object) -> Option<String> {
    match access {
        Access::Fixture(Fixture::TemplateResource) => {
            let uri = params.get("uri").and_then(Value::as_str)?;
            let (_, id) = conformance::resource(uri)?;
            id.map(scope::template)
        }
        Access::Connect
        | Access::ReadResources
        | Access::Fixture(Fixture::Tool | Fixture::StaticResource | Fixture::Prompt) => None,
    }
}
