//! Where in the receive order a request was decided, and the public code of a refusal: what
//! `serve --watch` names for each exchange. Pure data, no decision: each [`super::Rejection`]
//! says its own stage.

/// Where in the receive order a request was decided: the endpoint's numbered stages (its module
/// docs), the 2026-07-28 steps that have no stage of their own (`modern`), the acceptor's
/// refusal when every worker is busy, and the server's own failure. `serve --watch` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReceiveStage {
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

impl ReceiveStage {
    /// How `serve --watch` names it.
    pub const fn label(self) -> &'static str {
        match self {
            ReceiveStage::Pool => "pool: every worker busy",
            ReceiveStage::Head => "stage 1: head",
            ReceiveStage::Host => "stage 2: host and origin",
            ReceiveStage::Route => "stage 3: route and media types",
            ReceiveStage::Body => "stage 4: body",
            ReceiveStage::Token => "stage 5: token",
            ReceiveStage::Session => "stage 6: session",
            ReceiveStage::Scope => "stage 7: scope and tenant",
            ReceiveStage::Method => "stage 8: method",
            ReceiveStage::ModernMeta => "2026-07-28 step 1: _meta",
            ReceiveStage::ModernMirroring => "2026-07-28 step 2: mirrored headers",
            ReceiveStage::ModernVersion => "2026-07-28 step 3: version",
            ReceiveStage::ModernMethod => "2026-07-28 step 5: method",
            ReceiveStage::ModernTool => "2026-07-28 step 6: tool call",
            ReceiveStage::Server => "server failure",
        }
    }
}

/// Where a refusal was decided, and its public code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decided {
    pub stage: ReceiveStage,
    pub code: &'static str,
}
