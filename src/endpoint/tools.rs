//! The fixture's tools: one table, [`Tool::row`], with each tool's schema, the revisions that
//! offer it, the access its token needs and the client capability it needs. `tools/list` is
//! written from the table, and so is the list of arguments a 2026-07-28 call mirrors into
//! `Mcp-Param-{Name}` headers.
//!
//! - `test_reconnection` (2025-11-25): the conformance suite's name for a call whose stream the
//!   server closes after its priming event, the result owed to the client's resumption.
//! - `whoami` (2026-07-28): no arguments; names the caller's subject and tenant.
//! - `tenant_documents` (2026-07-28): lists a tenant's knowledge-base documents. Its `tenant`
//!   (a string) and `limit` (an integer) are mirrored into `Mcp-Param-Tenant` and
//!   `Mcp-Param-Limit`: a router could route on the tenant header, so the header and the body
//!   must say the same. It reads tenant data, so it needs `resources:read` and the tenant ACL,
//!   like `resources/list`; a tenant that is not the caller's, or a bad argument, is a result
//!   with `isError`, as MCP asks of tool errors.
//! - `test_missing_capability` (2026-07-28): the conformance suite's probe; it needs the client's
//!   `sampling` capability, and without it the request is refused with `-32021`.
//! - `test_logging_tool` (2026-07-28): the suite's probe; it logs one `notifications/message`
//!   when the request's `_meta` asks for a log level, and none otherwise.
//! - `count_slowly` (both): `steps` steps (1 to `count_slowly_steps_max`), `pause_ms` between
//!   them (0 to `count_slowly_pause_max`, 100 when absent), a `notifications/progress` per step
//!   when the request carries a `progressToken`; its stream stays open while it counts, and what
//!   a disconnect means follows the era (`endpoint::live`).
//! - `test_tool_with_progress` (both): the suite's name for a slow call of three steps
//!   50 ms<!-- not a limit --> apart, whose progress reads 0, 50 and 100 of 100.
//! - `test_tool_fast` (both): the conformance suite's health check; answers at once with one
//!   text item.
//! - `test_tool_slow` (both): the suite's slow tool: `durationMs` of work (0 to
//!   `test_tool_slow_duration_max`), cut into equal steps of at most `test_tool_slow_step`; at
//!   every step it writes (a `notifications/progress` with a `progressToken`, a keep-alive
//!   without), and its stream shows it is live at once (the priming event in 2025-11-25, an event
//!   of empty data in 2026-07-28). Each era's cancellation stops it within a step.
//! - `test_trigger_tool_change` (2026-07-28): the suite's hook; it changes the tool list, as
//!   `control … change-tools` does, and every listen that opted in is told.
//! - `spare_tool` (2026-07-28): listed, and callable, only while the tool list is in its changed
//!   state (after an odd number of changes): what a `notifications/tools/list_changed` is about.
//! - `test_simple_text` (2026-07-28, `serve --conformance-fixtures` only): the suite's step-up
//!   fixture; one text item, for a token holding its two scopes (`mcp::conformance`).
//!
//! Not here: how a call is answered (the endpoint decides the stream and the errors).

use super::live::{Scale, SlowRequest};
use crate::json::{self, Number, Object, ObjectWriter, Value};
use crate::limits::Limits;
use crate::mcp::conformance::{self, Fixture};
use crate::mcp::jsonrpc::Id;
use crate::mcp::meta::ClientCapability;
use crate::mcp::method::{Access, Offer};
use crate::mcp::revision::{Offered, Revision};
use crate::mcp::uri;

/// A tool of the fixture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    TestReconnection,
    Whoami,
    TenantDocuments,
    TestMissingCapability,
    TestLogging,
    CountSlowly,
    TestToolWithProgress,
    TestToolFast,
    TestToolSlow,
    TestTriggerToolChange,
    SpareTool,
    TestSimpleText,
}

/// The type of a tool argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamType {
    String,
    Integer,
}

impl ParamType {
    const fn name(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Integer => "integer",
        }
    }
}

/// One argument of a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub ty: ParamType,
    pub required: bool,
    /// Its `x-mcp-header`: the `{Name}` of the `Mcp-Param-{Name}` header that mirrors it.
    pub header: Option<&'static str>,
    pub description: &'static str,
}

/// Every decision about one tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolRow {
    pub name: &'static str,
    pub description: &'static str,
    pub params: &'static [Param],
    /// The revisions that offer it.
    pub offered: Offered,
    pub access: Access,
    /// A client capability the call needs (`-32021` without it).
    pub needs: Option<ClientCapability>,
    /// It exists only on a server started with the conformance suite's fixtures.
    pub fixture: bool,
}

const NO_PARAMS: &[Param] = &[];
/// The legacy era's own tool: sessions came with 2025-11-25 and went with 2026-07-28.
const LEGACY: Offered = Offered::only(Revision::V2025_11_25);
/// From the first revision on.
const BOTH: Offered = Offered::since(Revision::V2025_11_25);
/// From the first revision of the modern era on.
const MODERN: Offered = Offered::since(Revision::V2026_07_28);

const SLOW_PARAMS: &[Param] = &[
    Param {
        name: "pause_ms",
        ty: ParamType::Integer,
        required: false,
        header: None,
        description: "Milliseconds between two steps, 0 to 1000 (100 when absent)",
    },
    Param {
        name: "steps",
        ty: ParamType::Integer,
        required: true,
        header: None,
        description: "How many steps, 1 to 20",
    },
];

const SLOW_TOOL_PARAMS: &[Param] = &[Param {
    name: "durationMs",
    ty: ParamType::Integer,
    required: true,
    header: None,
    description: "How long the call works, in milliseconds, 0 to the server's budget",
}];

const TENANT_PARAMS: &[Param] = &[
    Param {
        name: "limit",
        ty: ParamType::Integer,
        required: false,
        header: Some("Limit"),
        description: "At most this many documents, 1 or more (all of them when absent)",
    },
    Param {
        name: "tenant",
        ty: ParamType::String,
        required: true,
        header: Some("Tenant"),
        description: "The tenant whose documents to list: the caller's own",
    },
];

impl Tool {
    /// Every tool, in the order `tools/list` names them.
    pub const ALL: [Tool; 12] = [
        Tool::TestReconnection,
        Tool::Whoami,
        Tool::TenantDocuments,
        Tool::TestMissingCapability,
        Tool::TestLogging,
        Tool::CountSlowly,
        Tool::TestToolWithProgress,
        Tool::TestToolFast,
        Tool::TestToolSlow,
        Tool::TestTriggerToolChange,
        Tool::SpareTool,
        Tool::TestSimpleText,
    ];

    /// Every decision about this tool.
    pub const fn row(self) -> ToolRow {
        use Access::{Connect, ReadResources};
        let sampling = Some(ClientCapability::Sampling);
        let (name, params, offered, access, needs) = match self {
            Tool::TestReconnection => ("test_reconnection", NO_PARAMS, LEGACY, Connect, None),
            Tool::Whoami => ("whoami", NO_PARAMS, MODERN, Connect, None),
            Tool::TenantDocuments => {
                ("tenant_documents", TENANT_PARAMS, MODERN, ReadResources, None)
            }
            Tool::TestMissingCapability => {
                ("test_missing_capability", NO_PARAMS, MODERN, Connect, sampling)
            }
            Tool::TestLogging => ("test_logging_tool", NO_PARAMS, MODERN, Connect, None),
            Tool::CountSlowly => ("count_slowly", SLOW_PARAMS, BOTH, Connect, None),
            Tool::TestToolWithProgress => {
                ("test_tool_with_progress", NO_PARAMS, BOTH, Connect, None)
            }
            Tool::TestToolFast => ("test_tool_fast", NO_PARAMS, BOTH, Connect, None),
            Tool::TestToolSlow => ("test_tool_slow", SLOW_TOOL_PARAMS, BOTH, Connect, None),
            Tool::TestTriggerToolChange => {
                ("test_trigger_tool_change", NO_PARAMS, MODERN, Connect, None)
            }
            Tool::SpareTool => ("spare_tool", NO_PARAMS, MODERN, Connect, None),
            Tool::TestSimpleText => {
                (conformance::TOOL, NO_PARAMS, MODERN, Access::Fixture(Fixture::Tool), None)
            }
        };
        let description = self.description();
        let fixture = matches!(self, Tool::TestSimpleText);
        ToolRow { name, description, params, offered, access, needs, fixture }
    }

    /// What `tools/list` says the tool does.
    const fn description(self) -> &'static str {
        match self {
            Tool::TestReconnection => {
                "Closes its event stream after the priming event; the result arrives when the \
                 client resumes with Last-Event-ID"
            }
            Tool::Whoami => "Names the caller: the subject and the tenant its token was issued for",
            Tool::TenantDocuments => {
                "Lists a tenant's knowledge-base documents, under the tenant ACL of \
                 resources/list; the tenant and the limit travel in Mcp-Param headers too"
            }
            Tool::TestMissingCapability => {
                "Needs the client's sampling capability: without it the call is refused (-32021)"
            }
            Tool::TestLogging => {
                "Logs one notifications/message when the request's _meta asks for a log level"
            }
            Tool::CountSlowly => {
                "Counts to steps, pause_ms apart, with a progress notification per step when the \
                 request carries a progressToken; its event stream stays open while it counts"
            }
            Tool::TestToolWithProgress => {
                "Three steps 50 ms apart, reporting progress 0, 50 and 100 of 100"
            }
            Tool::TestToolFast => "Answers at once with one text item",
            Tool::TestToolSlow => {
                "Works durationMs milliseconds on an event stream, writing at every step (its \
                 progress, or a keep-alive), and honours a cancellation within a step"
            }
            Tool::TestTriggerToolChange => {
                "Changes the tool list (spare_tool appears or goes), as control change-tools \
                 does: listens that asked for toolsListChanged are told"
            }
            Tool::SpareTool => "Listed only while the tool list is in its changed state",
            Tool::TestSimpleText => {
                "The conformance suite's scope fixture: one text item, for a token holding its \
                 two scopes"
            }
        }
    }

    /// The tool's name.
    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// The tool `offer` offers under `name`.
    pub fn named(name: &str, offer: Offer) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == name && t.offered_in(offer))
    }

    /// Whether `offer` has this tool: its revision, and the fixtures when it is one.
    pub fn offered_in(self, offer: Offer) -> bool {
        let row = self.row();
        row.offered.includes(offer.revision) && (offer.fixtures || !row.fixture)
    }

    /// The tool of a name, in any revision (for sharing the name's text).
    pub fn from_name(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// The `tools` member of a `tools/list` result in `offer`, every tool it offers; `spare_tool`
/// only when `changed` (the list is in its changed state).
pub fn write_tools(offer: Offer, changed: bool, result: &mut ObjectWriter<'_>) {
    let offered = Tool::ALL
        .into_iter()
        .filter(|t| t.offered_in(offer))
        .filter(|t| *t != Tool::SpareTool || changed);
    result.objects("tools", offered, |tool, offered| {
        let row = offered.row();
        tool.string("description", row.description)
            .object("inputSchema", |schema| write_schema(row.params, schema))
            .string("name", row.name);
    });
}

/// A tool's `inputSchema`: its arguments, the required ones, `type: object`.
fn write_schema(params: &[Param], schema: &mut ObjectWriter<'_>) {
    schema.object("properties", |properties| {
        for param in params {
            properties.object(param.name, |property| {
                property.string("description", param.description).string("type", param.ty.name());
                if let Some(header) = param.header {
                    property.string("x-mcp-header", header);
                }
            });
        }
    });
    let required = params.iter().filter(|p| p.required).map(|p| p.name);
    if params.iter().any(|p| p.required) {
        schema.strings("required", required);
    }
    schema.string("type", "object");
}

/// The tool a `tools/call` names in `offer`, or the public code of why its params are refused
/// (answered as a JSON-RPC `-32602` error): `name` must be a tool it offers, and `arguments`,
/// when present, an object.
pub fn tool_called(params: &Object, offer: Offer) -> Result<Tool, &'static str> {
    let arguments_ok = params.get("arguments").is_none_or(|a| a.as_object().is_some());
    match params.get("name").and_then(Value::as_str) {
        _ if !arguments_ok => Err("tool_arguments_invalid"),
        Some(name) => Tool::named(name, offer).ok_or("tool_unknown"),
        None => Err("tool_name_missing"),
    }
}

/// The steps and the pause a `count_slowly` call asks for, within `limits`, or the public code
/// of why its arguments are refused (a `-32602` before the call starts).
pub fn slow_arguments(
    arguments: &Object,
    limits: &crate::limits::Limits,
) -> Result<(u64, std::time::Duration), &'static str> {
    let whole = |key: &str| arguments.get(key).and_then(Value::as_number).and_then(whole_number);
    let steps_max = u64::try_from(limits.count_slowly_steps_max).unwrap_or(u64::MAX);
    let steps = whole("steps").filter(|n| (1..=steps_max).contains(n)).ok_or("steps_invalid")?;
    let pause_max = u64::try_from(limits.count_slowly_pause_max.as_millis()).unwrap_or(u64::MAX);
    let pause_ms = match arguments.get("pause_ms") {
        None | Some(Value::Null) => DEFAULT_PAUSE_MS,
        Some(_) => whole("pause_ms").filter(|&n| n <= pause_max).ok_or("pause_invalid")?,
    };
    Ok((steps, std::time::Duration::from_millis(pause_ms)))
}

/// The slow call `tool` asks for with `params`, or the public code of why its arguments are
/// refused.
pub(super) fn slow_request(
    id: &Id,
    tool: Tool,
    params: &Object,
    limits: &Limits,
) -> Result<SlowRequest, &'static str> {
    let empty = Object::new();
    let arguments = params.get("arguments").and_then(json::Value::as_object).unwrap_or(&empty);
    let (steps, pause, scale) = match tool {
        Tool::TestToolWithProgress => (3, std::time::Duration::from_millis(50), Scale::Percent),
        Tool::TestToolSlow => {
            let (steps, pause) = slow_tool_steps(arguments, limits)?;
            (steps, pause, Scale::Steps)
        }
        Tool::CountSlowly
        | Tool::TestToolFast
        | Tool::TestReconnection
        | Tool::Whoami
        | Tool::TenantDocuments
        | Tool::TestMissingCapability
        | Tool::TestLogging
        | Tool::TestTriggerToolChange
        | Tool::SpareTool
        | Tool::TestSimpleText => {
            let (steps, pause) = slow_arguments(arguments, limits)?;
            (steps, pause, Scale::Steps)
        }
    };
    // The slow tool writes at every step: a keep-alive when it has no progress to send.
    let keepalive = (tool == Tool::TestToolSlow).then_some(pause);
    Ok(SlowRequest {
        id: id.clone(),
        steps,
        pause,
        scale,
        progress_token: progress_token(params),
        keepalive,
    })
}

/// The steps and the pause of a `test_tool_slow` call: its `durationMs` (0 to
/// `test_tool_slow_duration_max`) cut into equal steps of at most `test_tool_slow_step`, or the
/// public code of why it is refused.
fn slow_tool_steps(
    arguments: &Object,
    limits: &Limits,
) -> Result<(u64, std::time::Duration), &'static str> {
    let max = u64::try_from(limits.test_tool_slow_duration_max.as_millis()).unwrap_or(u64::MAX);
    let duration = arguments
        .get("durationMs")
        .and_then(Value::as_number)
        .and_then(whole_number)
        .filter(|&ms| ms <= max)
        .ok_or("duration_invalid")?;
    let step = u64::try_from(limits.test_tool_slow_step.as_millis()).unwrap_or(u64::MAX).max(1);
    let steps = duration.div_ceil(step).max(1);
    Ok((steps, std::time::Duration::from_millis(duration / steps)))
}

/// `params._meta.progressToken`, when it is a string or an integer (anything else asks for no
/// progress).
fn progress_token(params: &Object) -> Option<json::Value> {
    let token = params.get("_meta").and_then(|m| m.get("progressToken"))?;
    let usable = match token {
        json::Value::String(_) => true,
        json::Value::Number(n) => n.as_i64().is_some(),
        json::Value::Null
        | json::Value::Bool(_)
        | json::Value::Array(_)
        | json::Value::Object(_) => false,
    };
    usable.then(|| token.clone())
}

/// What `test_tool_fast` answers.
pub const FAST_TEXT: &str = "answered at once";

/// What a 2026-07-28 slow call's stream writes with its head: for `test_tool_slow` without a
/// progress token, one event of empty data, which every SSE reader skips (WHATWG: an event
/// without data is not dispatched), so that a client waiting for a first `data:` line (the
/// conformance suite does) sees the stream live at once; nothing for any other (its events are
/// its progress). In 2025-11-25 the priming event does this.
pub fn opening_event(tool: Tool, request: &SlowRequest) -> &'static [u8] {
    match tool {
        Tool::TestToolSlow if request.progress_token.is_none() => b"data:\n\n",
        Tool::TestToolSlow
        | Tool::TestReconnection
        | Tool::Whoami
        | Tool::TenantDocuments
        | Tool::TestMissingCapability
        | Tool::TestLogging
        | Tool::CountSlowly
        | Tool::TestToolWithProgress
        | Tool::TestToolFast
        | Tool::TestTriggerToolChange
        | Tool::SpareTool
        | Tool::TestSimpleText => b"",
    }
}

/// The pause of a `count_slowly` call that names none.
const DEFAULT_PAUSE_MS: u64 = 100;

/// What `tenant_documents` answers for `arguments`, called by a principal of `caller_tenant`: the
/// documents' URIs, or the public code of a tool error (`isError`).
pub fn tenant_documents(arguments: &Object, caller_tenant: &str) -> Result<String, &'static str> {
    let tenant = arguments.get("tenant").and_then(Value::as_str).ok_or("argument_invalid")?;
    let limit = match arguments.get("limit") {
        None | Some(Value::Null) => usize::MAX,
        Some(value) => value
            .as_number()
            .and_then(whole_number)
            .filter(|&n| n >= 1)
            .map_or(Err("argument_invalid"), |n| Ok(usize::try_from(n).unwrap_or(usize::MAX)))?,
    };
    // Another tenant looks like no tenant at all: the answer says nothing of who exists.
    if tenant != caller_tenant {
        return Err("tenant_not_found");
    }
    let mut text = String::new();
    for document in ["handbook", "faq"].into_iter().take(limit) {
        if !text.is_empty() {
            text.push('\n');
        }
        // The string writer never fails.
        let _ = uri::write_knowledge_base(tenant, document, &mut text);
    }
    Ok(text)
}

/// A non-negative JSON number that is whole, however it is spelled (`2`, `2.0`, `2e0`), as the
/// `Mcp-Param` comparison reads it.
fn whole_number(number: &Number) -> Option<u64> {
    number.as_whole().and_then(|n| u64::try_from(n).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    const LEGACY_TOOLS: [&str; 5] = [
        "test_reconnection",
        "count_slowly",
        "test_tool_with_progress",
        "test_tool_fast",
        "test_tool_slow",
    ];

    /// Every modern tool, `spare_tool` last (listed in the changed state only).
    const MODERN_TOOLS: [&str; 10] = [
        "whoami",
        "tenant_documents",
        "test_missing_capability",
        "test_logging_tool",
        "count_slowly",
        "test_tool_with_progress",
        "test_tool_fast",
        "test_tool_slow",
        "test_trigger_tool_change",
        "spare_tool",
    ];

    #[test]
    fn each_revision_lists_its_own_tools_in_table_order() {
        let names = |revision, changed| {
            let listed = json::object_text(0, |r| write_tools(Offer::plain(revision), changed, r));
            assert_eq!(json::encode(&json::decode(listed.as_bytes(), 16).unwrap()), listed);
            let tools = json::decode(listed.as_bytes(), 16).unwrap();
            let tools = tools.get("tools").and_then(Value::as_array).unwrap().to_vec();
            let name = |t: &Value| t.get("name").and_then(Value::as_str).unwrap().to_owned();
            (tools.iter().map(name).collect::<Vec<_>>(), listed)
        };
        let cases: [(Revision, bool, &[&str]); 4] = [
            (Revision::V2025_11_25, false, &LEGACY_TOOLS),
            (Revision::V2026_07_28, false, &MODERN_TOOLS[..9]),
            (Revision::V2026_07_28, true, &MODERN_TOOLS),
            (Revision::V2025_11_25, true, &LEGACY_TOOLS),
        ];
        for (revision, changed, expected) in cases {
            assert_eq!(names(revision, changed).0, expected, "{revision:?} {changed}");
        }
        let (_, legacy) = names(Revision::V2025_11_25, false);
        assert!(legacy.starts_with(r#"{"tools":[{"description":"Closes its event stream after the priming event; the result arrives when the client resumes with Last-Event-ID","inputSchema":{"properties":{},"type":"object"},"name":"test_reconnection"},"#), "{legacy}");
        let (_, modern) = names(Revision::V2026_07_28, false);
        assert!(modern.contains(r#""tenant":{"description":"The tenant whose documents to list: the caller's own","type":"string","x-mcp-header":"Tenant"}"#), "{modern}");
        assert!(modern.contains(r#""required":["tenant"]"#), "{modern}");
        assert!(
            modern
                .contains(r#""steps":{"description":"How many steps, 1 to 20","type":"integer"}"#),
            "{modern}"
        );
    }

    #[test]
    fn tenant_documents_answers_the_callers_own_tenant_only() {
        let args = |text: &str| -> Object {
            let Ok(Value::Object(o)) = json::decode(text.as_bytes(), 8) else { panic!("{text}") };
            o
        };
        let cases: [(&str, Result<&str, &str>); 9] = [
            (r#"{"tenant":"acme"}"#, Ok("kb://tenant/acme/handbook\nkb://tenant/acme/faq")),
            (r#"{"tenant":"acme","limit":1}"#, Ok("kb://tenant/acme/handbook")),
            (r#"{"tenant":"acme","limit":1.00}"#, Ok("kb://tenant/acme/handbook")),
            (
                r#"{"tenant":"acme","limit":null}"#,
                Ok("kb://tenant/acme/handbook\nkb://tenant/acme/faq"),
            ),
            (r#"{"tenant":"acme","limit":0}"#, Err("argument_invalid")),
            (r#"{"tenant":"acme","limit":"2"}"#, Err("argument_invalid")),
            (r#"{"tenant":"globex"}"#, Err("tenant_not_found")),
            (r#"{"tenant":7}"#, Err("argument_invalid")),
            (r#"{}"#, Err("argument_invalid")),
        ];
        for (text, expected) in cases {
            let got = tenant_documents(&args(text), "acme");
            assert_eq!(got.as_deref().map_err(|e| *e), expected, "{text}");
        }
    }
}
