//! The protected-resource-metadata document this server publishes (the shape of RFC 9728 §2).
//!
//! Served without credentials at `/.well-known/oauth-protected-resource/mcp` (the path RFC 9728
//! §3.1 builds by inserting the well-known segment before the resource's path) and at
//! `/.well-known/oauth-protected-resource`. Its `resource` is the exact identifier the policy
//! compares tokens against, so a client that discovers it and asks for tokens with that
//! `resource` gets tokens this server accepts.
//!
//! The identifier is `http://127.0.0.1:<port>/mcp`, and RFC 9728 requires `https`: this is the
//! document's shape and its link from the challenge, not RFC 9728 conformance. On HTTPS the
//! identifier, the metadata URL and every comparison would change scheme (and gain a real host
//! name), and the document would have to be fetched and checked over TLS.

use crate::json::{Object, Value};

/// The path that serves the document for the `/mcp` resource (RFC 9728 §3.1 insertion).
pub const PATH_FOR_MCP: &str = "/.well-known/oauth-protected-resource/mcp";
/// The root fallback path a client also tries.
pub const PATH_ROOT: &str = "/.well-known/oauth-protected-resource";

/// The document: `resource`, `authorization_servers`, `scopes_supported`,
/// `bearer_methods_supported` (always `["header"]`: tokens are accepted in no other place).
pub fn document(resource: &str, authorization_servers: &[&str], scopes: &[&str]) -> Value {
    let strings = |items: &[&str]| Value::Array(items.iter().map(|&s| Value::from(s)).collect());
    let mut doc = Object::new();
    doc.insert("resource".into(), resource.into());
    doc.insert("authorization_servers".into(), strings(authorization_servers));
    doc.insert("scopes_supported".into(), strings(scopes));
    doc.insert("bearer_methods_supported".into(), strings(&["header"]));
    Value::Object(doc)
}
