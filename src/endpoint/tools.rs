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
//!
//! Not here: how a call is answered (the endpoint decides the stream and the errors).

use crate::json::{Number, Object, ObjectWriter, Value};
use crate::mcp::meta::ClientCapability;
use crate::mcp::method::{Access, Revision};
use crate::mcp::uri;

/// A tool of the fixture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    TestReconnection,
    Whoami,
    TenantDocuments,
    TestMissingCapability,
    TestLogging,
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
    pub revisions: &'static [Revision],
    pub access: Access,
    /// A client capability the call needs (`-32021` without it).
    pub needs: Option<ClientCapability>,
}

const LEGACY: &[Revision] = &[Revision::V2025_11_25];
const NO_PARAMS: &[Param] = &[];
const MODERN: &[Revision] = &[Revision::V2026_07_28];

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
    pub const ALL: [Tool; 5] = [
        Tool::TestReconnection,
        Tool::Whoami,
        Tool::TenantDocuments,
        Tool::TestMissingCapability,
        Tool::TestLogging,
    ];

    /// Every decision about this tool.
    pub const fn row(self) -> ToolRow {
        let (name, description, params, revisions, access, needs) = match self {
            Tool::TestReconnection => (
                "test_reconnection",
                "Closes its event stream after the priming event; the result arrives when the \
                 client resumes with Last-Event-ID",
                NO_PARAMS,
                LEGACY,
                Access::Connect,
                None,
            ),
            Tool::Whoami => (
                "whoami",
                "Names the caller: the subject and the tenant its token was issued for",
                NO_PARAMS,
                MODERN,
                Access::Connect,
                None,
            ),
            Tool::TenantDocuments => (
                "tenant_documents",
                "Lists a tenant's knowledge-base documents, under the tenant ACL of \
                 resources/list; the tenant and the limit travel in Mcp-Param headers too",
                TENANT_PARAMS,
                MODERN,
                Access::ReadResources,
                None,
            ),
            Tool::TestMissingCapability => (
                "test_missing_capability",
                "Needs the client's sampling capability: without it the call is refused (-32021)",
                NO_PARAMS,
                MODERN,
                Access::Connect,
                Some(ClientCapability::Sampling),
            ),
            Tool::TestLogging => (
                "test_logging_tool",
                "Logs one notifications/message when the request's _meta asks for a log level",
                NO_PARAMS,
                MODERN,
                Access::Connect,
                None,
            ),
        };
        ToolRow { name, description, params, revisions, access, needs }
    }

    /// The tool's name.
    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// The tool `revision` offers under `name`.
    pub fn named(name: &str, revision: Revision) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == name && t.row().revisions.contains(&revision))
    }

    /// The tool of a name, in any revision (for sharing the name's text).
    pub fn from_name(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// The `tools` member of a `tools/list` result in `revision`, every tool that revision offers.
pub fn write_tools(revision: Revision, result: &mut ObjectWriter<'_>) {
    let offered = Tool::ALL.into_iter().filter(|t| t.row().revisions.contains(&revision));
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

/// The tool a `tools/call` names in `revision`, or the public code of why its params are refused
/// (answered as a JSON-RPC `-32602` error): `name` must be a tool the revision offers, and
/// `arguments`, when present, an object.
pub fn tool_called(params: &Object, revision: Revision) -> Result<Tool, &'static str> {
    let arguments_ok = params.get("arguments").is_none_or(|a| a.as_object().is_some());
    match params.get("name").and_then(Value::as_str) {
        _ if !arguments_ok => Err("tool_arguments_invalid"),
        Some(name) => Tool::named(name, revision).ok_or("tool_unknown"),
        None => Err("tool_name_missing"),
    }
}

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

/// A non-negative JSON number that is whole, written as an integer or with a fraction of zeros
/// (`2`, `2.0`), as the `Mcp-Param` comparison reads it.
fn whole_number(number: &Number) -> Option<u64> {
    let mut text = String::new();
    number.write_to(&mut text);
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    if !fraction.bytes().all(|b| b == b'0') {
        return None;
    }
    Number::parse(whole).and_then(|n| n.as_u64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn each_revision_lists_its_own_tools_in_table_order() {
        let listed = |revision| json::object_text(0, |r| write_tools(revision, r));
        assert_eq!(
            listed(Revision::V2025_11_25),
            r#"{"tools":[{"description":"Closes its event stream after the priming event; the result arrives when the client resumes with Last-Event-ID","inputSchema":{"properties":{},"type":"object"},"name":"test_reconnection"}]}"#
        );
        let modern = listed(Revision::V2026_07_28);
        assert_eq!(json::encode(&json::decode(modern.as_bytes(), 16).unwrap()), modern);
        let names: Vec<&str> = modern
            .match_indices("\"name\":\"")
            .map(|(i, _)| &modern[i + 8..])
            .map(|r| &r[..r.find('"').unwrap()])
            .collect();
        assert_eq!(
            names,
            ["whoami", "tenant_documents", "test_missing_capability", "test_logging_tool"]
        );
        assert!(modern.contains(r#""tenant":{"description":"The tenant whose documents to list: the caller's own","type":"string","x-mcp-header":"Tenant"}"#), "{modern}");
        assert!(modern.contains(r#""required":["tenant"]"#), "{modern}");
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
