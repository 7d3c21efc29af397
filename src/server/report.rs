//! What the server reports about itself: a failure of its own making, which no peer can cause (a
//! bug), goes to standard error and never to a peer.
//!
//! Not here: anything about a request or a peer, which is answered on the wire or not at all.

use std::io::Write;

/// Reports a failure of the server's own making on standard error. The connection it concerns
/// is closed, never answered with a guess.
pub fn internal_error(what: &str) {
    // A closed stderr is no reason to fail the server: the report is dropped.
    let _ = writeln!(std::io::stderr(), "loopback-mcp-http: internal error: {what}");
}
