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

pub mod bearer;
pub mod challenge;
pub mod claims;
pub mod fixtures;
pub mod metadata;
pub mod policy;
pub mod scope;
