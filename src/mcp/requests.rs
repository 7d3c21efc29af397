//! The messages an MCP client sends, as JSON values: `initialize`, `notifications/initialized`,
//! `ping`, `resources/list`, `logging/setLevel`, `tools/list` and `tools/call`, and any request
//! of 2026-07-28 with its `_meta` ([`modern`]).
//!
//! One definition each, shared by the client, the commands and the tests, so that no caller
//! types a message out as text. Deliberately malformed bodies (a duplicate key, a batch) are not
//! built here: they stay byte literals where a reader can see them.

use super::PROTOCOL_VERSION;
use super::jsonrpc::{self, Id};
use super::meta::{
    CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, ClientCapability, PROTOCOL_VERSION_KEY,
};
use super::revision::Revision;
use crate::json::{Object, Value, members, object};

/// Who the client says it is in `initialize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientInfo<'a> {
    pub name: &'a str,
    pub version: &'a str,
}

/// `initialize`, proposing `protocol_version`, with no client capabilities.
pub fn initialize(id: &Id, protocol_version: &str, client: ClientInfo<'_>) -> Value {
    let params = members([
        ("protocolVersion", protocol_version.into()),
        ("capabilities", object([])),
        ("clientInfo", object([("name", client.name.into()), ("version", client.version.into())])),
    ]);
    jsonrpc::request(id, "initialize", params)
}

/// `initialize` proposing the one revision this project speaks.
pub fn initialize_current(id: &Id, client: ClientInfo<'_>) -> Value {
    initialize(id, PROTOCOL_VERSION, client)
}

/// `notifications/initialized`.
pub fn initialized() -> Value {
    jsonrpc::notification("notifications/initialized", Object::new())
}

/// `ping`.
pub fn ping(id: &Id) -> Value {
    jsonrpc::request(id, "ping", Object::new())
}

/// `resources/list`.
pub fn list_resources(id: &Id) -> Value {
    jsonrpc::request(id, "resources/list", Object::new())
}

/// `tools/list`.
pub fn list_tools(id: &Id) -> Value {
    jsonrpc::request(id, "tools/list", Object::new())
}

/// `tools/call` of the tool `name`, with no arguments.
pub fn call_tool(id: &Id, name: &str) -> Value {
    let params = members([("name", name.into()), ("arguments", object([]))]);
    jsonrpc::request(id, "tools/call", params)
}

/// `logging/setLevel` to `level` (a syslog level name such as `warning`).
pub fn set_log_level(id: &Id, level: &str) -> Value {
    jsonrpc::request(id, "logging/setLevel", members([("level", level.into())]))
}

/// A request of `method` in `revision` (of the modern era): `params` and the `_meta` every such
/// request carries (the revision, the capabilities the client declares, who it is). Other
/// members of a `_meta` already in `params` (a `progressToken`) are kept; these three are
/// written over.
pub fn modern(
    (id, method, revision): (&Id, &str, Revision),
    mut params: Object,
    capabilities: &[ClientCapability],
    client: ClientInfo<'_>,
) -> Value {
    let declared: Object = capabilities.iter().map(|c| (c.name().into(), object([]))).collect();
    let info = object([("name", client.name.into()), ("version", client.version.into())]);
    let mut meta = params.get("_meta").and_then(Value::as_object).cloned().unwrap_or_default();
    meta.insert(PROTOCOL_VERSION_KEY.into(), revision.name().into());
    meta.insert(CLIENT_CAPABILITIES_KEY.into(), Value::Object(declared));
    meta.insert(CLIENT_INFO_KEY.into(), info);
    params.insert("_meta".into(), Value::Object(meta));
    jsonrpc::request(id, method, params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn messages_encode_exactly() {
        let client = ClientInfo { name: "c", version: "1" };
        let with_token = members([("_meta", object([("progressToken", "p".into())]))]);
        let cases: [(Value, &str); 9] = [
            (list_tools(&Id::from(5)), r#"{"id":5,"jsonrpc":"2.0","method":"tools/list"}"#),
            (
                call_tool(&Id::from(6), "test_reconnection"),
                r#"{"id":6,"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{},"name":"test_reconnection"}}"#,
            ),
            (
                initialize_current(&Id::from(1), client),
                r#"{"id":1,"jsonrpc":"2.0","method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"c","version":"1"},"protocolVersion":"2025-11-25"}}"#,
            ),
            (initialized(), r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            (ping(&Id::String("a\"b".into())), r#"{"id":"a\"b","jsonrpc":"2.0","method":"ping"}"#),
            (
                list_resources(&Id::from(-3)),
                r#"{"id":-3,"jsonrpc":"2.0","method":"resources/list"}"#,
            ),
            (
                modern(
                    (&Id::from(8), "tools/list", Revision::V2026_07_28),
                    Object::new(),
                    &[ClientCapability::Sampling],
                    client,
                ),
                r#"{"id":8,"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
            ),
            (
                modern(
                    (&Id::from(9), "tools/call", Revision::V2026_07_28),
                    with_token,
                    &[],
                    client,
                ),
                r#"{"id":9,"jsonrpc":"2.0","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"p"}}}"#,
            ),
            (
                set_log_level(&Id::from(4), "warning"),
                r#"{"id":4,"jsonrpc":"2.0","method":"logging/setLevel","params":{"level":"warning"}}"#,
            ),
        ];
        for (value, expected) in cases {
            assert_eq!(json::encode(&value), expected);
        }
    }

    #[test]
    fn a_proposed_version_is_a_string_value_never_pasted_text() {
        let hostile = r#"2025-11-25","injected":"1"#;
        let text = json::encode(&initialize(
            &Id::from(1),
            hostile,
            ClientInfo { name: "c", version: "1" },
        ));
        let decoded = json::decode(text.as_bytes(), 8).unwrap();
        assert_eq!(
            decoded.get("params").and_then(|p| p.get("protocolVersion")),
            Some(&Value::from(hostile))
        );
        assert_eq!(decoded.get("params").and_then(|p| p.get("injected")), None);
    }
}
