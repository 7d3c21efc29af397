//! The OAuth 2.1 resource-server boundary, decided offline and without I/O.
//!
//! A real resource server validates a signed or introspected token from an authorization server.
//! This project has none: [`policy::OfflineTokenPolicy`] looks tokens up in a table of fixture
//! claims ([`claims::TokenClaims`]) and applies the same decisions a resource server must make,
//! in the fixed order the table in [`policy`] sets out, on every request.
//!
//! The outcome is either a [`policy::Principal`] (a snapshot the session and MCP layers use; a
//! request body can never supply or change any part of it) or a [`policy::Denial`] that knows its
//! status and its exact `WWW-Authenticate` challenge ([`challenge`]). Every reason a token is
//! invalid gets the same 401 challenge, so the response is no oracle for which claim failed.
//!
//! [`metadata`] renders the protected-resource-metadata document; [`fixtures`] builds the named
//! roles used by the tests and the commands. Nothing here reads a clock (time is an argument),
//! draws randomness (the caller supplies random bytes) or touches a socket.
//!
//! Not here, and not pretended: an authorization server, authorization codes, PKCE, signatures,
//! JWKS, introspection, refresh tokens, TLS.
//!
//! # Authorization, decided offline
//!
//! README's map of where the rules live points here for this part; what follows moved from README, next to the code it describes.
//!
//! `auth::policy::OfflineTokenPolicy` plays the part of a resource server's token validation without
//! an authorization server: it holds fixture claims for each token (issuer, audience, the resource it
//! recorded, the RFC 8707 `resource` of the authorization request and of the token request, subject,
//! tenant, scopes, authorization revision, token id, active flag, expiry) and decides each request
//! from its `Authorization` field alone, in this order, every time:
//!
//! The decision table is in the module docs of `auth::policy`.
//!
//! The challenges follow [RFC 6750][rfc6750] (the `Bearer` scheme and its error codes) and
//! [RFC 9728][rfc9728] (the `resource_metadata` link); the resource binding is [RFC 8707][rfc8707].
//! Every cause of a 401 `invalid_token` yields the very same bytes, so a client cannot probe which
//! claim failed. `scope` in a 401 lists what the request needs (`mcp:connect`, plus
//! `resources:read` for `resources/list`). `tools/list` and `tools/call` of `test_reconnection`
//! need only `mcp:connect`: the tool reads no tenant data and reaches no resource, so neither a
//! scope of its own nor the tenant ACL has anything to guard. A success yields a `Principal` (subject, tenant,
//! revision, scopes) taken from the claims only; no request body can supply or change it. Revoking
//! a token or moving a subject's revision forward takes effect on the next request. Tokens are kept
//! under their SHA-256 digest, which only keeps raw tokens out of the table; it is not password
//! hashing and not a signature.
//!
//! The fixture roles used by the tests and commands (`auth::fixtures`): `full`, `connect_only`,
//! `other_subject`, `tenant_denied`, `unicode` (a non-ASCII subject, and a tenant with non-ASCII,
//! `/`, `?` and `#`), and one refused role per 401 cause: `expired`, `revoked`, `inactive`,
//! `wrong_issuer`, `wrong_audience`, `wrong_authorization_resource`, `wrong_token_resource`,
//! `stale_revision`. Their token strings are fresh random bytes on every run.
//!
//! **Protected-resource metadata.** The document
//! `{"authorization_servers": [...], "bearer_methods_supported": ["header"], "resource": "http://127.0.0.1:<port>/mcp", "scopes_supported": ["mcp:connect", "resources:read"]}`
//! names an issuer under `.invalid`, a name that can never resolve. RFC 9728 requires an `https`
//! resource identifier, so an `http://127.0.0.1` document can show the shape of discovery (the
//! paths, the fields, the link from the challenge) but can never be evidence of RFC 9728
//! conformance. On HTTPS the identifier, the metadata URL, the audience every token is compared with
//! and the challenge's `resource_metadata` would all change scheme and host, the document would be
//! fetched over TLS, and the exact string comparison used here would need real URI
//! canonicalization.
//!
//! [rfc6750]: https://www.rfc-editor.org/rfc/rfc6750
//! [rfc8707]: https://www.rfc-editor.org/rfc/rfc8707
//! [rfc9728]: https://www.rfc-editor.org/rfc/rfc9728
//!

pub mod bearer;
pub mod challenge;
pub mod claims;
pub mod fixtures;
pub mod metadata;
pub mod policy;
pub mod scope;
