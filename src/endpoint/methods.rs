//! The MCP methods this server implements, as pure functions from params to results.
//!
//! `initialize` (answering 2025-11-25 whatever version was asked for), `ping`, `resources/list`
//! (the tenant's knowledge-base documents), `logging/setLevel`, `tools/list` and `tools/call` of
//! the one tool, `test_reconnection` (the official conformance suite's name for a call whose
//! stream the server closes before its result), and the `notifications/message` events the
//! server queues. Which requests may reach these, in what order, and how their replies are
//! streamed, is decided in the parent module. Nothing else of tools exists here.

use crate::json::{Object, ObjectWriter, Value};
use crate::mcp::PROTOCOL_VERSION;
use crate::mcp::jsonrpc;
use crate::mcp::method::{Capability, Method, NOTIFICATIONS_MESSAGE};
use crate::mcp::session::LogLevel;
use crate::mcp::uri;

/// The server's name in `serverInfo` and as the logger of its notifications.
pub const SERVER_NAME: &str = "loopback-mcp-http";

/// `initialize` params must name a protocol version (any string: an unsupported one is answered
/// with ours, not refused), carry capabilities, and identify the client.
pub fn initialize_params_valid(params: &Object) -> bool {
    let client = params.get("clientInfo");
    let text =
        |v: Option<&Value>, key: &str| v.and_then(|v| v.get(key)).and_then(Value::as_str).is_some();
    params.get("protocolVersion").and_then(Value::as_str).is_some()
        && params.get("capabilities").and_then(Value::as_object).is_some()
        && text(client, "name")
        && text(client, "version")
}

/// The `initialize` result: always 2025-11-25, the only revision spoken here; a client that
/// cannot use it must stop.
pub fn initialize_result(result: &mut ObjectWriter<'_>) {
    result
        .object("capabilities", |capabilities| {
            for capability in Capability::ALL.into_iter().filter(|c| Method::advertised(*c)) {
                capabilities.object(capability.name(), |_| {});
            }
        })
        .string("protocolVersion", PROTOCOL_VERSION)
        .object("serverInfo", |info| {
            info.string("name", SERVER_NAME).string("version", env!("CARGO_PKG_VERSION"));
        });
}

/// The empty result of `ping` and `logging/setLevel`.
pub fn empty_result(_result: &mut ObjectWriter<'_>) {}

/// The documents of `tenant`'s knowledge base. The tenant enters each URI only as one
/// percent-encoded segment.
pub fn resources_list_result(tenant: &str, result: &mut ObjectWriter<'_>) {
    let documents = [
        ("handbook", "Tenant handbook", "text/markdown"),
        ("faq", "Frequently asked questions", "text/plain"),
    ];
    result.objects("resources", documents, |resource, (document, name, mime)| {
        resource.string("mimeType", mime).string("name", name).string_with("uri", |text| {
            // The string writer never fails.
            let _ = uri::write_knowledge_base(tenant, document, text);
        });
    });
}

/// The one tool's name.
pub const TEST_RECONNECTION: &str = "test_reconnection";

/// The tools a `tools/call` can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// Answers on a stream the server closes after its priming event; the result comes only
    /// through the client's resumption.
    TestReconnection,
}

impl Tool {
    /// The tool's name.
    pub const fn name(self) -> &'static str {
        match self {
            Tool::TestReconnection => TEST_RECONNECTION,
        }
    }

    /// The tool of a name, if it is one.
    pub fn from_name(name: &str) -> Option<Tool> {
        [Tool::TestReconnection].into_iter().find(|tool| tool.name() == name)
    }
}

/// The `tools/list` result: `test_reconnection` alone, taking no arguments.
pub fn tools_list_result(result: &mut ObjectWriter<'_>) {
    result.objects("tools", [TEST_RECONNECTION], |tool, name| {
        tool.string(
            "description",
            "Closes its event stream after the priming event; the result arrives when the client \
             resumes with Last-Event-ID",
        )
        .object("inputSchema", |schema| {
            schema.object("properties", |_| {}).string("type", "object");
        })
        .string("name", name);
    });
}

/// The tool a `tools/call` names, or the public code of why its params are refused (answered
/// as a JSON-RPC `-32602` error): `name` must be a tool of [`tools_list_result`], and
/// `arguments`, when present, an object (the tool takes none, so any object will do).
pub fn tool_called(params: &Object) -> Result<Tool, &'static str> {
    let arguments_ok = params.get("arguments").is_none_or(|a| a.as_object().is_some());
    match params.get("name").and_then(Value::as_str) {
        _ if !arguments_ok => Err("tool_arguments_invalid"),
        Some(name) => Tool::from_name(name).ok_or("tool_unknown"),
        None => Err("tool_name_missing"),
    }
}

/// What `test_reconnection` returns, once the client has resumed its stream.
pub fn test_reconnection_result(result: &mut ObjectWriter<'_>) {
    let text = "delivered on resumption: the server closed this call's stream after its priming \
                event and kept this result for the client's GET with Last-Event-ID";
    result
        .objects("content", [text], |content, text| {
            content.string("text", text).string("type", "text");
        })
        .boolean("isError", false);
}

/// The level named by `logging/setLevel` params.
pub fn log_level(params: &Object) -> Option<LogLevel> {
    params.get("level").and_then(Value::as_str).and_then(LogLevel::from_name)
}

/// The text of a `notifications/message` at `level` whose data names `event`.
pub fn log_message(level: LogLevel, event: &str) -> String {
    jsonrpc::notification_text(NOTIFICATIONS_MESSAGE, 160, |params| {
        params
            .object("data", |data| {
                data.string("event", event);
            })
            .string("level", level.name())
            .string("logger", SERVER_NAME);
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn initialize_params() {
        let cases: [(&str, bool); 6] = [
            (
                r#"{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
                true,
            ),
            (
                r#"{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
                true,
            ),
            (r#"{"capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#, false),
            (
                r#"{"protocolVersion":1,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
                false,
            ),
            (
                r#"{"protocolVersion":"2025-11-25","capabilities":[],"clientInfo":{"name":"c","version":"1"}}"#,
                false,
            ),
            (
                r#"{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c"}}"#,
                false,
            ),
        ];
        for (text, valid) in cases {
            let Ok(Value::Object(params)) = json::decode(text.as_bytes(), 64) else { panic!() };
            assert_eq!(initialize_params_valid(&params), valid, "{text}");
        }
    }

    #[test]
    fn tool_calls() {
        let cases: [(&str, Result<Tool, &str>); 6] = [
            (r#"{"name":"test_reconnection"}"#, Ok(Tool::TestReconnection)),
            (r#"{"name":"test_reconnection","arguments":{"x":1}}"#, Ok(Tool::TestReconnection)),
            (r#"{"name":"test_reconnection","arguments":[]}"#, Err("tool_arguments_invalid")),
            (r#"{"name":"other"}"#, Err("tool_unknown")),
            (r#"{"name":1}"#, Err("tool_name_missing")),
            (r#"{}"#, Err("tool_name_missing")),
        ];
        for (text, expected) in cases {
            let Ok(Value::Object(params)) = json::decode(text.as_bytes(), 64) else { panic!() };
            assert_eq!(tool_called(&params), expected, "{text}");
        }
    }

    /// The text of a result object `write` fills, checked to be what the encoder writes for it.
    fn written(write: impl FnOnce(&mut ObjectWriter<'_>)) -> String {
        let text = json::object_text(0, write);
        assert_eq!(json::encode(&json::decode(text.as_bytes(), 16).unwrap()), text);
        text
    }

    #[test]
    fn results_are_exact() {
        assert_eq!(
            written(tools_list_result),
            r#"{"tools":[{"description":"Closes its event stream after the priming event; the result arrives when the client resumes with Last-Event-ID","inputSchema":{"properties":{},"type":"object"},"name":"test_reconnection"}]}"#
        );
        assert_eq!(
            written(|r| resources_list_result("a/b", r)),
            r#"{"resources":[{"mimeType":"text/markdown","name":"Tenant handbook","uri":"kb://tenant/a%2Fb/handbook"},{"mimeType":"text/plain","name":"Frequently asked questions","uri":"kb://tenant/a%2Fb/faq"}]}"#
        );
        assert_eq!(
            written(|r| resources_list_result("q\"é", r)),
            r#"{"resources":[{"mimeType":"text/markdown","name":"Tenant handbook","uri":"kb://tenant/q%22%C3%A9/handbook"},{"mimeType":"text/plain","name":"Frequently asked questions","uri":"kb://tenant/q%22%C3%A9/faq"}]}"#
        );
        assert_eq!(
            written(initialize_result),
            format!(
                r#"{{"capabilities":{{"logging":{{}},"resources":{{}},"tools":{{}}}},"protocolVersion":"2025-11-25","serverInfo":{{"name":"loopback-mcp-http","version":"{}"}}}}"#,
                env!("CARGO_PKG_VERSION")
            )
        );
        assert_eq!(
            written(test_reconnection_result),
            r#"{"content":[{"text":"delivered on resumption: the server closed this call's stream after its priming event and kept this result for the client's GET with Last-Event-ID","type":"text"}],"isError":false}"#
        );
        assert_eq!(written(empty_result), "{}");
        let message = log_message(LogLevel::Info, "session_started");
        assert_eq!(
            message,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":{"event":"session_started"},"level":"info","logger":"loopback-mcp-http"}}"#
        );
        assert_eq!(json::encode(&json::decode(message.as_bytes(), 16).unwrap()), message);
    }
}
