//! Where in the receive order a request was decided, and the public code of a refusal: what
//! `serve --watch` names for each exchange. Pure data, no decision: each [`super::Rejection`]
//! says its own stage.

/// Where in the receive order a request was decided: the endpoint's numbered stages (its module
/// docs), the 2026-07-28 steps that have no stage of their own (`modern`), the acceptor's
/// refusal when every worker is busy, and the server's own failure. `serve --watch` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Pool,
    Head,
    Host,
    Route,
    Body,
    Token,
    Session,
    Scope,
    Method,
    ModernMeta,
    ModernMirroring,
    ModernVersion,
    ModernMethod,
    ModernTool,
    Server,
}

impl Stage {
    /// How `serve --watch` names it.
    pub const fn label(self) -> &'static str {
        match self {
            Stage::Pool => "pool: every worker busy",
            Stage::Head => "stage 1: head",
            Stage::Host => "stage 2: host and origin",
            Stage::Route => "stage 3: route and media types",
            Stage::Body => "stage 4: body",
            Stage::Token => "stage 5: token",
            Stage::Session => "stage 6: session",
            Stage::Scope => "stage 7: scope and tenant",
            Stage::Method => "stage 8: method",
            Stage::ModernMeta => "2026-07-28 step 1: _meta",
            Stage::ModernMirroring => "2026-07-28 step 2: mirrored headers",
            Stage::ModernVersion => "2026-07-28 step 3: version",
            Stage::ModernMethod => "2026-07-28 step 5: method",
            Stage::ModernTool => "2026-07-28 step 6: tool call",
            Stage::Server => "server failure",
        }
    }
}

/// Where a refusal was decided, and its public code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decided {
    pub stage: Stage,
    pub code: &'static str,
}
