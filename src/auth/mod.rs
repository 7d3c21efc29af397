//! The OAuth 2.1 resource-server boundary, decided offline and without I/O.
//!
//! A real resource server validates a signed or introspected token from an authorization server.
//! This project has none: [`policy::OfflineTokenPolicy`] holds fixture claims for each token
//! ([`claims::TokenClaims`]: issuer, audience, the resource it recorded, the [RFC 8707][rfc8707]
//! `resource` of the authorization request and of the token request, subject, tenant, scopes,
//! authorization revision, token id, active flag, expiry). It makes the decisions a resource server
//! must make on every request, in the fixed order of the decision table in [`policy`]: who is
//! calling, from the `Authorization` field alone, then whether the call is allowed. Revoking a
//! token or moving a subject's revision forward takes effect on the next request. Tokens are kept
//! under their SHA-256 digest, which only keeps raw tokens out of the table; it is not password
//! hashing and not a signature.
//!
//! The outcome is either a [`policy::Principal`] (subject, tenant, revision and scopes, taken from
//! the claims only: a request body can never supply or change any part of it; the session and MCP
//! layers use this snapshot) or a [`policy::Denial`] that knows its status and its exact
//! `WWW-Authenticate` challenge ([`challenge`]). The challenges follow [RFC 6750][rfc6750] (the
//! `Bearer` scheme and its error codes) and [RFC 9728][rfc9728] (the `resource_metadata` link).
//! Every reason a token is invalid yields the very same bytes, a 401 `invalid_token`, so the
//! response is no oracle for which claim failed. `scope` in a 401 lists what the request needs
//! (`mcp:connect`, plus `resources:read` for `resources/list`). `tools/list` and `tools/call` of
//! `test_reconnection` need only `mcp:connect`: the tool reads no tenant data and reaches no
//! resource, so neither a scope of its own nor the tenant ACL has anything to guard.
//!
//! [`fixtures`] builds the named roles the tests and the commands use: `full`, `connect_only`,
//! `other_subject`, `tenant_denied`, `unicode` (a non-ASCII subject, and a tenant with non-ASCII,
//! `/`, `?` and `#`), and one refused role per 401 cause: `expired`, `revoked`, `inactive`,
//! `wrong_issuer`, `wrong_audience`, `wrong_authorization_resource`, `wrong_token_resource`,
//! `stale_revision`. Their token strings are fresh random bytes on every run.
//!
//! [`metadata`] renders the protected-resource-metadata document:
//!
//! ```json
//! {"authorization_servers": [...], "bearer_methods_supported": ["header"], "resource": "http://127.0.0.1:<port>/mcp", "scopes_supported": ["mcp:connect", "resources:read"]}
//! ```
//!
//! It names an issuer under `.invalid`, a name that can never resolve. RFC 9728 requires an `https`
//! resource identifier, so an `http://127.0.0.1` document can show the shape of discovery (the
//! paths, the fields, the link from the challenge) but can never be evidence of RFC 9728
//! conformance. On HTTPS the identifier, the metadata URL, the audience every token is compared
//! with and the challenge's `resource_metadata` would all change scheme and host, the document
//! would be fetched over TLS, and the exact string comparison used here would need real URI
//! canonicalization.
//!
//! Nothing here reads a clock (time is an argument), draws randomness (the caller supplies random
//! bytes) or touches a socket. Not here, and not pretended: an authorization server,
//! authorization codes, PKCE, signatures, JWKS, introspection, refresh tokens, TLS.
//!
//! [rfc6750]: https://www.rfc-editor.org/rfc/rfc6750
//! [rfc8707]: https://www.rfc-editor.org/rfc/rfc8707
//! [rfc9728]: https://www.rfc-editor.org/rfc/rfc9728

pub mod bearer;
pub mod challenge;
pub mod claims;
pub mod fixtures;
pub mod metadata;
pub mod policy;
pub mod scope;
