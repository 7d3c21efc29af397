//! The MCP methods this server implements, as pure functions from params to results.
//!
//! `initialize` (answering 2025-11-25 whatever version was asked for), `ping`, `resources/list`
//! (the tenant's knowledge-base documents), `logging/setLevel`, `test_reconnection`'s result, and
//! the `notifications/message` events the server queues. Which requests may reach these, in what
//! order, and how their replies are streamed, is decided in the parent module; the tools are
//! `tools`'.

use crate::json::{Object, ObjectWriter, Value};
use crate::mcp::conformance;
use crate::mcp::jsonrpc;
use crate::mcp::jsonrpc::code;
use crate::mcp::method::{Capability, McpMethod, NOTIFICATIONS_MESSAGE, Offer};
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

/// The `initialize` result of a session of `revision` (of the legacy era): a client that cannot
/// use it must stop.
pub fn initialize_result(offer: Offer, result: &mut ObjectWriter<'_>) {
    result
        .object("capabilities", |capabilities| {
            let advertised = |c: &Capability| McpMethod::advertised(*c, offer);
            for capability in Capability::ALL.into_iter().filter(advertised) {
                capabilities.object(capability.name(), |_| {});
            }
        })
        .string("protocolVersion", offer.revision.name())
        .object("serverInfo", |info| {
            info.string("name", SERVER_NAME).string("version", env!("CARGO_PKG_VERSION"));
        });
}

/// The resource a `resources/read` names (`params.uri`): its URI and text, or the JSON-RPC error
/// of one this server does not have. Only the conformance suite's fixtures exist.
pub fn resource(params: &Object) -> Result<(String, String), (i64, &'static str)> {
    // 2026-07-28 answers an unknown resource -32602, where 2025-11-25 had its own -32002.
    let not_found = (code::INVALID_PARAMS, "resource_not_found");
    let uri = params.get("uri").and_then(Value::as_str).ok_or(not_found)?;
    match conformance::resource(uri).ok_or(not_found)? {
        (_, Some(id)) => Ok((uri.to_owned(), conformance::template_text(id))),
        (_, None) => Ok((uri.to_owned(), conformance::STATIC_TEXT.to_owned())),
    }
}

/// A `resources/read` result: the one text resource.
pub fn resource_result(uri: &str, text: &str, result: &mut ObjectWriter<'_>) {
    result.objects("contents", [(uri, text)], |content, (uri, text)| {
        content.string("mimeType", "text/plain").string("text", text).string("uri", uri);
    });
}

/// Whether a `prompts/get` names the one prompt (`params.name`), or its JSON-RPC error.
pub fn prompt(params: &Object) -> Result<(), (i64, &'static str)> {
    match params.get("name").and_then(Value::as_str) {
        Some(conformance::PROMPT) => Ok(()),
        Some(_) | None => Err((code::INVALID_PARAMS, "prompt_unknown")),
    }
}

/// A `prompts/get` result: one user message.
pub fn prompt_result(result: &mut ObjectWriter<'_>) {
    result.string("description", "The conformance suite's scope fixture").objects(
        "messages",
        [conformance::PROMPT_TEXT],
        |message, text| {
            message.object("content", |content| {
                content.string("text", text).string("type", "text");
            });
            message.string("role", "user");
        },
    );
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
    use crate::mcp::revision::{Era, Revision};

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

    /// The text of a result object `write` fills, checked to be what the encoder writes for it.
    fn written(write: impl FnOnce(&mut ObjectWriter<'_>)) -> String {
        let text = json::object_text(0, write);
        assert_eq!(json::encode(&json::decode(text.as_bytes(), 16).unwrap()), text);
        text
    }

    #[test]
    fn results_are_exact() {
        assert_eq!(
            written(|r| resources_list_result("a/b", r)),
            r#"{"resources":[{"mimeType":"text/markdown","name":"Tenant handbook","uri":"kb://tenant/a%2Fb/handbook"},{"mimeType":"text/plain","name":"Frequently asked questions","uri":"kb://tenant/a%2Fb/faq"}]}"#
        );
        assert_eq!(
            written(|r| resources_list_result("q\"é", r)),
            r#"{"resources":[{"mimeType":"text/markdown","name":"Tenant handbook","uri":"kb://tenant/q%22%C3%A9/handbook"},{"mimeType":"text/plain","name":"Frequently asked questions","uri":"kb://tenant/q%22%C3%A9/faq"}]}"#
        );
        assert_eq!(
            written(|r| initialize_result(Offer::plain(Revision::newest(Era::Legacy)), r)),
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
