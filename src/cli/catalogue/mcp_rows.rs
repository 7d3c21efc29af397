//! The rows about MCP and the resource server: versions, 2026-07-28, tokens and challenges, and
//! the method every endpoint refuses.

use loopback_mcp_http::auth::fixtures::Role;

use super::kinds::{
    Boundary, DISCOVERY, ENCODING, Group, Holds, Needs, VALIDATION, VERSION_HEADER, must, ping,
    profile, row, should,
};
use crate::cli::case::{Base, Change, Expect, Key, Message, Modern, Request, Text};

pub const VERSION_MISSING: Boundary = row(
    (
        "version-missing",
        "no MCP-Protocol-Version after initialize",
        "the ping without MCP-Protocol-Version",
    ),
    Group::Versions,
    Needs::Legacy,
    ping(&[Change::Without("MCP-Protocol-Version")]),
    profile(
        "without it a server assumes 2025-03-26; this project speaks none older and refuses",
        VERSION_HEADER,
    ),
    Holds::Refused(400),
    Expect::code(400, "protocol_version_missing"),
);

pub const VERSION_UNSUPPORTED: Boundary = row(
    (
        "version-unsupported",
        "an unsupported MCP-Protocol-Version",
        "the ping with MCP-Protocol-Version: 1999-01-01",
    ),
    Group::Versions,
    Needs::Legacy,
    ping(&[Change::Set("MCP-Protocol-Version", Text::Lit("1999-01-01"))]),
    must("an invalid or unsupported version gets 400", VERSION_HEADER),
    Holds::Refused(400),
    Expect::code(400, "protocol_version_unsupported"),
);

pub const VERSION_TWICE: Boundary = row(
    (
        "version-twice",
        "MCP-Protocol-Version twice",
        "the ping with its MCP-Protocol-Version line twice",
    ),
    Group::Versions,
    Needs::Legacy,
    ping(&[Change::With("MCP-Protocol-Version", Text::Lit("2025-11-25"))]),
    profile(
        "two lines are not one version; this project refuses rather than pick one",
        VERSION_HEADER,
    ),
    Holds::Refused(400),
    Expect::code(400, "protocol_version_repeated"),
);

pub const INITIALIZE_UNSUPPORTED: Boundary = row(
    (
        "initialize-unsupported",
        "initialize proposing an unsupported version",
        "initialize with protocolVersion 1999-01-01, outside any session",
    ),
    Group::Versions,
    Needs::Legacy,
    Request::post(Message::Initialize("1999-01-01"), &[Change::OutsideSession]),
    must(
        "a version the server lacks is answered with one it supports, never refused or echoed",
        "MCP 2025-11-25, lifecycle: Version Negotiation",
    ),
    Holds::OtherVersion("1999-01-01"),
    Expect::body(200, r#""protocolVersion":"2025-11-25""#),
);

pub const ERA_PROBE: Boundary = row(
    (
        "era-probe",
        "what a dual-era client concludes",
        "server/discover, as a client that speaks both revisions probes first",
    ),
    Group::Versions,
    Needs::Nothing,
    Request::modern(Modern::Discover, &[]),
    should(
        "a modern answer means 2026-07-28; any other 400, 404 or 405 means initialize",
        "MCP 2026-07-28, transports: Backward Compatibility",
    ),
    Holds::TellsTheEra,
    Expect::code(400, "protocol_version_unsupported"),
);

pub const DISCOVER: Boundary = row(
    ("discover", "server/discover", "server/discover with its _meta and headers"),
    Group::Modern,
    Needs::Modern,
    Request::modern(Modern::Discover, &[]),
    must(
        "a 2026-07-28 server answers with the versions it supports",
        "MCP 2026-07-28, server/discover",
    ),
    Holds::Discovered,
    Expect::body(200, r#""supportedVersions""#),
);

pub const CAPABILITIES_MISSING: Boundary = row(
    (
        "capabilities-missing",
        "_meta without clientCapabilities",
        "server/discover whose _meta lacks the required clientCapabilities",
    ),
    Group::Modern,
    Needs::Modern,
    Request::modern(Modern::DiscoverWithoutCapabilities, &[]),
    must(
        "a request missing a required _meta field gets 400 and -32602",
        "MCP 2026-07-28, basic: Per-request protocol fields",
    ),
    Holds::RpcError(400, -32602),
    Expect::code(400, "meta_client_capabilities_missing"),
);

pub const METHOD_MISMATCH: Boundary = row(
    (
        "method-mismatch",
        "Mcp-Method that disagrees with the body",
        "tools/list with Mcp-Method: ping",
    ),
    Group::Modern,
    Needs::Modern,
    Request::modern(Modern::ToolsList, &[Change::Set("Mcp-Method", Text::Lit("ping"))]),
    must("a header that disagrees with its body field gets 400 and -32020", VALIDATION),
    Holds::RpcError(400, -32020),
    Expect::mismatch("Mcp-Method", "header_body_mismatch"),
);

pub const METHOD_MISSING: Boundary = row(
    ("method-missing", "no Mcp-Method", "tools/list without Mcp-Method"),
    Group::Modern,
    Needs::Modern,
    Request::modern(Modern::ToolsList, &[Change::Without("Mcp-Method")]),
    must("a missing standard header gets 400 and -32020", VALIDATION),
    Holds::RpcError(400, -32020),
    Expect::mismatch("Mcp-Method", "header_missing"),
);

pub const NAME_MISMATCH: Boundary = row(
    (
        "name-mismatch",
        "Mcp-Name that disagrees with the body",
        "tools/call of the first tool with Mcp-Name: probe-other-tool",
    ),
    Group::Modern,
    Needs::Modern,
    Request::modern(Modern::FirstTool, &[Change::Set("Mcp-Name", Text::Lit("probe-other-tool"))]),
    must("a header that disagrees with its body field gets 400 and -32020", VALIDATION),
    Holds::RpcError(400, -32020),
    Expect::mismatch("Mcp-Name", "header_body_mismatch"),
);

pub const PARAM_MISMATCH: Boundary = row(
    (
        "param-mismatch",
        "an Mcp-Param header that disagrees with the body",
        "a mirrored argument acme, its Mcp-Param header globex",
    ),
    Group::Modern,
    Needs::MirroredTool,
    Request::modern(Modern::Mirrored("acme"), &[Change::SetMirrored(Text::Lit("globex"))]),
    must("a mirrored argument's header must equal its body value: 400 and -32020", VALIDATION),
    Holds::RpcError(400, -32020),
    Expect::mismatch("Mcp-Param-Tenant", "header_body_mismatch"),
);

pub const PARAM_MISSING: Boundary = row(
    (
        "param-missing",
        "no Mcp-Param header while the body has the value",
        "a mirrored argument acme without its Mcp-Param header",
    ),
    Group::Modern,
    Needs::MirroredTool,
    Request::modern(Modern::Mirrored("acme"), &[Change::WithoutMirrored]),
    must("a value in the body without its header gets 400 and -32020", VALIDATION),
    Holds::RpcError(400, -32020),
    Expect::mismatch("Mcp-Param-Tenant", "header_missing"),
);

pub const PARAM_SENTINEL: Boundary = row(
    (
        "param-sentinel",
        "an Mcp-Param value in the base64 sentinel",
        "a mirrored argument acmé, its header =?base64?YWNtw6k=?= as the client encodes it",
    ),
    Group::Modern,
    Needs::MirroredTool,
    Request::modern(Modern::Mirrored("acmé"), &[]),
    must("an encoded value is decoded before it is compared: this one matches", ENCODING),
    Holds::NoMismatch,
    Expect::body(200, "tenant_not_found"),
);

pub const PARAM_LOOKALIKE: Boundary = row(
    (
        "param-lookalike",
        "a plain Mcp-Param value shaped like the sentinel",
        "argument and header both =?base64?YWNtZQ==?=, the header sent plain",
    ),
    Group::Modern,
    Needs::MirroredTool,
    Request::modern(
        Modern::Mirrored("=?base64?YWNtZQ==?="),
        &[Change::SetMirrored(Text::Lit("=?base64?YWNtZQ==?="))],
    ),
    must(
        "the server decodes the sentinel (to acme), which the body does not say: 400 and -32020",
        ENCODING,
    ),
    Holds::RpcError(400, -32020),
    Expect::mismatch("Mcp-Param-Tenant", "header_body_mismatch"),
);

pub const MODERN_UNSUPPORTED: Boundary = row(
    (
        "modern-unsupported",
        "an unsupported 2026-era version",
        "server/discover naming 2099-01-01 in _meta and MCP-Protocol-Version",
    ),
    Group::Modern,
    Needs::Modern,
    Request::modern(Modern::DiscoverAs("2099-01-01"), &[]),
    must(
        "a version the server does not serve gets 400 and -32022 listing the ones it does",
        "MCP 2026-07-28, transports: Protocol Version Header",
    ),
    Holds::RpcError(400, -32022),
    Expect::code(400, "protocol_version_unsupported"),
);

pub const MODERN_GET: Boundary = row(
    (
        "modern-get",
        "GET on a 2026-07-28 endpoint",
        "GET with Accept: text/event-stream, no session",
    ),
    Group::Modern,
    Needs::ModernOnly,
    Request { base: Base::Bodiless("GET"), changes: &[] },
    should(
        "a server of this revision alone has no GET stream: 405",
        "MCP 2026-07-28, transports: Earlier Streamable HTTP Revisions",
    ),
    Holds::NotAllowed,
    Expect::status(405),
);

pub const MODERN_DELETE: Boundary = row(
    ("modern-delete", "DELETE on a 2026-07-28 endpoint", "DELETE, no session"),
    Group::Modern,
    Needs::ModernOnly,
    Request { base: Base::Bodiless("DELETE"), changes: &[] },
    should(
        "a server of this revision alone has no session to end: 405",
        "MCP 2026-07-28, transports: Earlier Streamable HTTP Revisions",
    ),
    Holds::NotAllowed,
    Expect::status(405),
);

pub const NO_TOKEN: Boundary = row(
    ("no-token", "no token", "the baseline without Authorization"),
    Group::Resource,
    Needs::Token,
    ping(&[Change::Without("Authorization")]),
    must("a protected resource answers 401 with a Bearer challenge", "RFC 6750 §3"),
    Holds::Challenge(None),
    Expect::code(401, "missing_credentials"),
);

pub const BAD_TOKEN: Boundary = row(
    ("bad-token", "a malformed token", "the baseline with Authorization: Bearer not-a-token"),
    Group::Resource,
    Needs::Token,
    ping(&[Change::Set("Authorization", Text::Lit("Bearer not-a-token"))]),
    must(
        r#"a token that is not valid here gets 401 (with error="invalid_token", RFC 6750 §3.1)"#,
        "MCP 2025-11-25 and 2026-07-28, authorization: Token Handling",
    ),
    Holds::Challenge(Some("invalid_token")),
    Expect::code(401, "invalid_token"),
);

pub const CHALLENGE_METADATA: Boundary = row(
    (
        "challenge-metadata",
        "resource_metadata in the challenge",
        "the baseline without Authorization: its WWW-Authenticate",
    ),
    Group::Resource,
    Needs::Token,
    ping(&[Change::Without("Authorization")]),
    should(
        "the 401 names the protected-resource metadata (this or the well-known URI is a MUST)",
        DISCOVERY,
    ),
    Holds::ChallengeNamesMetadata,
    Expect::challenge(401, &[("resource_metadata", "http://")]),
);

pub const STEP_UP_SCOPES: Boundary = row(
    (
        "step-up-scopes",
        "a fixture tool with an under-scoped token",
        "tools/call test_simple_text with the suite's low token (mcp:conformance:baseline alone)",
    ),
    Group::Resource,
    Needs::ConformanceFixtures,
    Request::modern(Modern::CallTool("test_simple_text"), &[LOW_TOKEN]),
    should("a 403 names every scope the operation needs, in one challenge", STEP_UP),
    Holds::ScopeChallenge(&[
        "mcp:conformance:tools:call",
        "mcp:conformance:tools:test_simple_text",
    ]),
    Expect::challenge(
        403,
        &[(
            "scope",
            "mcp:conformance:baseline mcp:conformance:tools:call mcp:conformance:tools:test_simple_text",
        )],
    ),
);

pub const STEP_UP_ARGUMENT: Boundary = row(
    (
        "step-up-argument",
        "a template id the token's scopes do not name",
        "resources/read test://template/456/data with the suite's full token (template id 123)",
    ),
    Group::Resource,
    Needs::ConformanceFixtures,
    Request::modern(Modern::ReadResource("test://template/456/data"), &[FULL_TOKEN]),
    should(
        "the scopes a request's arguments make needed are named with the rest, in one challenge",
        STEP_UP,
    ),
    Holds::ScopeChallenge(&[
        "mcp:conformance:resources:read",
        "mcp:conformance:resources:template:456",
    ]),
    Expect::challenge(403, &[("scope", "mcp:conformance:resources:template:456")]),
);

/// The conformance suite's public tokens (`serve --conformance-fixtures`).
pub const LOW_TOKEN: Change =
    Change::Set("Authorization", Text::Lit("Bearer mcp-conformance-scope-low"));
pub const FULL_TOKEN: Change =
    Change::Set("Authorization", Text::Lit("Bearer mcp-conformance-scope-full"));
const STEP_UP: &str = "MCP 2026-07-28, authorization: Runtime Insufficient Scope Errors";

pub const TOKEN_IN_QUERY: Boundary = row(
    (
        "token-in-query",
        "the token in the query string",
        "the baseline to <path>?access_token=TOKEN without Authorization",
    ),
    Group::Resource,
    Needs::Token,
    ping(&[
        Change::Without("Authorization"),
        Change::Target(Text::Join(&[
            Text::Path,
            Text::Lit("?access_token="),
            Text::TokenOf(Role::Full),
        ])),
    ]),
    must(
        "a resource server ignores a token in the query: refused, 400 or 401, never served",
        "draft-ietf-oauth-v2-1 §5.1",
    ),
    Holds::TokenIgnored,
    Expect::code(400, "query_forbidden"),
);

pub const PUT: Boundary = row(
    ("put", "PUT on the endpoint", "PUT with the sender's fields and no body"),
    Group::Hygiene,
    Needs::Nothing,
    Request { base: Base::Bodiless("PUT"), changes: &[] },
    must("a method the resource does not allow gets 405, which carries Allow", "RFC 9110 §15.5.6"),
    Holds::NotAllowed,
    Expect { status: 405, key: Key::Header("allow", "POST") },
);
