//! Scopes and what each kind of request needs.
//!
//! Two scopes are the server's own: `mcp:connect` for taking part in a session at all
//! (initialize, ping, notifications, the GET stream, DELETE), and `resources:read` for listing
//! the knowledge-base resources, which also reads tenant data and so passes the tenant ACL. The
//! conformance suite's fixtures (`serve --conformance-fixtures`) each need two of their own,
//! one of them, for a template's resource, made from the id the request names.

/// Connecting to the MCP endpoint.
pub const MCP_CONNECT: &str = "mcp:connect";
/// Reading the knowledge-base resources.
pub const RESOURCES_READ: &str = "resources:read";
/// Every scope this resource knows, in the order the metadata lists them.
pub const SUPPORTED: [&str; 2] = [MCP_CONNECT, RESOURCES_READ];

/// What one request needs from its token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// Every scope the token must hold.
    pub scopes: &'static [&'static str],
    /// The request reads tenant data, so the tenant ACL applies.
    pub tenant_data: bool,
}

/// Initialize, ping, notifications, the GET stream, DELETE.
pub const CONNECT: Requirement = Requirement { scopes: &[MCP_CONNECT], tenant_data: false };

/// `resources/list`.
pub const READ_RESOURCES: Requirement =
    Requirement { scopes: &[MCP_CONNECT, RESOURCES_READ], tenant_data: true };

/// The one scope the conformance suite's under-scoped token holds.
pub const CONFORMANCE_BASELINE: &str = "mcp:conformance:baseline";

/// The conformance suite's fixture tool, `test_simple_text`.
pub const CONFORMANCE_TOOL: Requirement = Requirement {
    scopes: &["mcp:conformance:tools:call", "mcp:conformance:tools:test_simple_text"],
    tenant_data: false,
};

/// Its static resource, `test://static-text`.
pub const CONFORMANCE_STATIC: Requirement = Requirement {
    scopes: &["mcp:conformance:resources:read", "mcp:conformance:resources:static"],
    tenant_data: false,
};

/// Its template's resources, `test://template/{id}/data`: this, and the scope of the id
/// ([`template`]).
pub const CONFORMANCE_TEMPLATE: Requirement =
    Requirement { scopes: &["mcp:conformance:resources:read"], tenant_data: false };

/// Its prompt, `test_simple_prompt`.
pub const CONFORMANCE_PROMPT: Requirement = Requirement {
    scopes: &["mcp:conformance:prompts:get", "mcp:conformance:prompts:test_simple_prompt"],
    tenant_data: false,
};

/// The scope a template resource's `id` needs besides [`CONFORMANCE_TEMPLATE`]'s: the id is part
/// of it, so a token for one id reaches no other.
pub fn template(id: &str) -> String {
    format!("mcp:conformance:resources:template:{id}")
}

/// True for a valid `scope-token` (RFC 6749 §3.3): one or more of `%x21 / %x23-5B / %x5D-7E`,
/// so never a space, a double quote or a backslash.
pub fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_tokens() {
        let cases: [(&str, bool); 7] = [
            (MCP_CONNECT, true),
            (RESOURCES_READ, true),
            ("a!#[]~", true),
            ("", false),
            ("a b", false),
            ("a\"b", false),
            ("a\\b", false),
        ];
        for (scope, ok) in cases {
            assert_eq!(is_scope_token(scope), ok, "{scope:?}");
        }
    }
}
