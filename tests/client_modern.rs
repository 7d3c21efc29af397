//! The client's 2026-07-28 side: which tool definitions it may mirror, the exact headers it
//! writes, the typed modern errors, and the era it settles in against each kind of server (real
//! ones, and a fake one that answers canned modern errors, against which it must never fall
//! back).

mod common;

use common::fake::{fake, json_reply, json_status};
use common::server::*;
use loopback_mcp_http::client::mcp::{McpClient, McpError};
use loopback_mcp_http::client::mirroring::{
    AnnotationError, ParamHeader, ToolHeaders, Unmirrorable, request_headers, tool_headers,
};
use loopback_mcp_http::client::modern::{Opened, printable};
use loopback_mcp_http::client::trace::Trace;
use loopback_mcp_http::json::{self, Object, Value, members};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::jsonrpc::Id;
use loopback_mcp_http::mcp::requests::{ClientInfo, modern};
use loopback_mcp_http::mcp::revision::{Era, Revision, Versions};
use loopback_mcp_http::server::ServerConfig;

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";
const BOTH: &str = "2025-11-25,2026-07-28";

fn schema(text: &str) -> Value {
    json::decode(text.as_bytes(), 64).unwrap()
}

/// Annotations as (path, name) pairs, or why the tool was refused.
type Annotations = Result<Vec<(&'static [&'static str], &'static str)>, AnnotationError>;

#[test]
fn annotations_that_break_a_constraint_refuse_the_tool() {
    use AnnotationError::*;
    let prop = |ty: &str, header: &str| format!(r#"{{"type":"{ty}","x-mcp-header":{header}}}"#);
    let props = |members: &str| format!(r#"{{"type":"object","properties":{{{members}}}}}"#);
    let cases: [(&str, String, Annotations); 14] = [
        ("no annotation", props(r#""q":{"type":"string"}"#), Ok(vec![])),
        (
            "string, integer and boolean",
            props(&format!(
                r#""a":{},"b":{},"c":{}"#,
                prop("string", r#""A""#),
                prop("integer", r#""B""#),
                prop("boolean", r#""C""#)
            )),
            Ok(vec![(&["a"], "A"), (&["b"], "B"), (&["c"], "C")]),
        ),
        (
            "nested through properties",
            props(&format!(
                r#""outer":{}"#,
                props(&format!(r#""inner":{}"#, prop("string", r#""Deep""#)))
            )),
            Ok(vec![(&["outer", "inner"], "Deep")]),
        ),
        (
            "a default that holds the key as data",
            props(r#""q":{"type":"object","default":{"x-mcp-header":"Data"}}"#),
            Ok(vec![]),
        ),
        ("empty", props(&format!(r#""a":{}"#, prop("string", r#""""#))), Err(Empty)),
        ("a space", props(&format!(r#""a":{}"#, prop("string", r#""Ten ant""#))), Err(NotAToken)),
        ("CR LF", props(&format!(r#""a":{}"#, prop("string", r#""A\r\nB""#))), Err(NotAToken)),
        ("not a string", props(&format!(r#""a":{}"#, prop("string", "7"))), Err(NotText)),
        (
            "equal but for case",
            props(&format!(
                r#""a":{},"b":{}"#,
                prop("string", r#""Region""#),
                prop("string", r#""REGION""#)
            )),
            Err(Repeated),
        ),
        ("a number", props(&format!(r#""a":{}"#, prop("number", r#""N""#))), Err(NotPrimitive)),
        ("an array", props(&format!(r#""a":{}"#, prop("array", r#""N""#))), Err(NotPrimitive)),
        (
            "under items",
            props(&format!(r#""a":{{"type":"array","items":{}}}"#, prop("string", r#""I""#))),
            Err(NotReachable),
        ),
        (
            "under oneOf",
            format!(
                r#"{{"type":"object","oneOf":[{}]}}"#,
                props(&format!(r#""a":{}"#, prop("string", r#""O""#)))
            ),
            Err(NotReachable),
        ),
        ("on the root", prop("object", r#""Root""#), Err(NotReachable)),
    ];
    for (what, text, expected) in cases {
        let got = tool_headers("t", Some(&schema(&text)));
        let expected = expected.map(|params| ToolHeaders {
            tool: "t".into(),
            params: params
                .into_iter()
                .map(|(path, name)| ParamHeader {
                    path: path.iter().map(|p| p.to_string()).collect(),
                    name: name.into(),
                })
                .collect(),
        });
        assert_eq!(got, expected, "{what}");
    }
}

const CLIENT: ClientInfo<'static> = ClientInfo { name: "c", version: "1" };

/// The headers of a `tools/call` of `t`, which mirrors `v` as `Mcp-Param-V`, with `value`.
fn param_header(value: Value) -> Result<Vec<(String, String)>, Unmirrorable> {
    let tools = [ToolHeaders {
        tool: "t".into(),
        params: vec![ParamHeader { path: vec!["v".into()], name: "V".into() }],
    }];
    let arguments = match value {
        Value::Null => Object::new(),
        value => members([("v", value)]),
    };
    let params = members([("name", "t".into()), ("arguments", Value::Object(arguments))]);
    let revision = Revision::newest(Era::Modern);
    let message = modern((&Id::from(1), "tools/call", revision), params, &[], CLIENT);
    request_headers(&message, &tools)
}

#[test]
fn values_are_sent_plain_or_as_the_sentinel_exactly_when_the_specification_says() {
    let standard = |rest: &[(&str, &str)]| {
        let mut all =
            vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", "tools/call"), ("Mcp-Name", "t")];
        all.extend_from_slice(rest);
        all.into_iter().map(|(n, v)| (n.to_owned(), v.to_owned())).collect::<Vec<_>>()
    };
    let number = |text: &str| Value::Number(json::Number::parse(text).unwrap());
    let cases: [(Value, Result<Option<&str>, &str>); 14] = [
        ("us-west1".into(), Ok(Some("us-west1"))),
        ("Hello, 世界".into(), Ok(Some("=?base64?SGVsbG8sIOS4lueVjA==?="))),
        (" padded ".into(), Ok(Some("=?base64?IHBhZGRlZCA=?="))),
        ("line1\nline2".into(), Ok(Some("=?base64?bGluZTEKbGluZTI=?="))),
        ("=?base64?literal?=".into(), Ok(Some("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="))),
        ("a\tb".into(), Ok(Some("=?base64?YQli?="))),
        ("=?base64?open".into(), Ok(Some("=?base64?open"))),
        (number("42"), Ok(Some("42"))),
        (number("-7"), Ok(Some("-7"))),
        (Value::Bool(true), Ok(Some("true"))),
        (number("9007199254740991"), Ok(Some("9007199254740991"))),
        (number("9007199254740992"), Err("argument_number_not_mirrorable")),
        (number("1.5"), Err("argument_number_not_mirrorable")),
        (Value::Null, Ok(None)),
    ];
    for (value, expected) in cases {
        let shown = json::encode(&value);
        match (param_header(value), expected) {
            (Ok(headers), Ok(param)) => {
                let rest: Vec<(&str, &str)> =
                    param.map(|v| ("Mcp-Param-V", v)).into_iter().collect();
                assert_eq!(headers, standard(&rest), "{shown}");
            }
            (Err(why), Err(code)) => assert_eq!(why.code(), code, "{shown}"),
            (got, expected) => panic!("{shown}: {got:?}, expected {expected:?}"),
        }
    }
    let array = param_header(Value::Array(vec![]));
    assert_eq!(array.map_err(|e| e.code()), Err("argument_not_primitive"));
}

fn server(versions: &str) -> TestServer {
    let versions = Versions::parse(versions).unwrap();
    let limits = Limits { requests_in_processing_max: 8, ..Limits::DEFAULT };
    start_with(ServerConfig { limits, versions, ..ServerConfig::default() })
}

fn client(t: &TestServer) -> McpClient {
    let address = format!("127.0.0.1:{}", t.port()).parse().unwrap();
    McpClient::new(
        address,
        t.token(loopback_mcp_http::auth::fixtures::Role::Full),
        Trace::new(false),
    )
}

#[test]
fn the_client_settles_in_the_era_each_server_speaks() {
    // (server, client, how it opens, round trips)
    let cases: [(&str, &str, Result<Opened, &str>, usize); 6] = [
        (LEGACY, BOTH, Ok(Opened::FellBack), 3),
        (BOTH, BOTH, Ok(Opened::Modern), 1),
        (MODERN, BOTH, Ok(Opened::Modern), 1),
        (MODERN, MODERN, Ok(Opened::Modern), 1),
        (BOTH, LEGACY, Ok(Opened::Legacy), 2),
        // A legacy client gets the modern refusal of a request without `_meta` (-32602, a 400).
        (MODERN, LEGACY, Err("unexpected_status"), 1),
    ];
    for (serves, speaks, expected, round_trips) in cases {
        let t = server(serves);
        let mut c = client(&t);
        let opened = c.open(Versions::parse(speaks).unwrap());
        assert_eq!(
            opened.as_ref().map_err(McpError::code),
            expected.as_ref().map_err(|e| *e),
            "{serves} / {speaks}"
        );
        assert_eq!(c.round_trips(), round_trips, "{serves} / {speaks}");
        let era = expected.ok().map(Opened::era);
        assert_eq!(c.era(), era);
        assert_eq!(c.session().is_some(), era == Some(Era::Legacy), "{serves} / {speaks}");
    }
}

/// A JSON-RPC error body with `code` and `data`.
fn error_body(code: i64, data: &str) -> String {
    format!(r#"{{"error":{{"code":{code},"data":{data},"message":"m"}},"id":1,"jsonrpc":"2.0"}}"#)
}

#[test]
fn a_modern_error_body_never_causes_a_fall_back() {
    let cases: [(&str, String, &str); 5] = [
        (
            "400 Bad Request",
            error_body(-32020, r#"{"header":"Mcp-Method","reason":"header_body_mismatch"}"#),
            "header_mismatch",
        ),
        (
            "400 Bad Request",
            error_body(-32021, r#"{"requiredCapabilities":{"sampling":{}}}"#),
            "client_capability_missing",
        ),
        (
            "400 Bad Request",
            error_body(-32022, r#"{"supported":["2027-01-01"]}"#),
            "unsupported_protocol_version",
        ),
        ("404 Not Found", error_body(-32601, "null"), "method_not_found"),
        (
            "401 Unauthorized",
            r#"{"error":{"code":-32001,"message":"invalid_token"},"jsonrpc":"2.0"}"#.into(),
            "unexpected_status",
        ),
    ];
    for (status, body, code) in cases {
        let (address, fake_server) = fake(vec![json_status(status, &body)]);
        let mut c = McpClient::new(address, "token", Trace::new(false));
        let opened = c.open(Versions::parse(BOTH).unwrap());
        assert_eq!(opened.map_err(|e| e.code()), Err(code), "{body}");
        let requests = fake_server.join().unwrap();
        assert_eq!(requests.len(), 1, "one probe, and no initialize after it: {body}");
        assert!(requests[0].contains("\r\nMcp-Method: server/discover\r\n"));
        assert_eq!(c.era(), None);
    }
}

#[test]
fn a_legacy_400_and_a_version_list_naming_2025_11_25_open_a_session() {
    let initialize = r#"{"id":2,"jsonrpc":"2.0","result":{"capabilities":{},"protocolVersion":"2025-11-25","serverInfo":{"name":"f","version":"1"}}}"#;
    let accepted = "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n".to_owned();
    let cases: [(String, Opened); 3] = [
        (
            json_status(
                "400 Bad Request",
                r#"{"error":{"code":-32000,"message":"protocol_version_unsupported"},"jsonrpc":"2.0"}"#,
            ),
            Opened::FellBack,
        ),
        ("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".to_owned(), Opened::FellBack),
        (
            json_status("400 Bad Request", &error_body(-32022, r#"{"supported":["2025-11-25"]}"#)),
            Opened::Negotiated,
        ),
    ];
    for (probe_answer, expected) in cases {
        let replies =
            vec![probe_answer, json_reply("MCP-Session-Id: s1\r\n", initialize), accepted.clone()];
        let (address, fake_server) = fake(replies);
        let mut c = McpClient::new(address, "token", Trace::new(false));
        assert_eq!(c.open(Versions::parse(BOTH).unwrap()).map_err(|e| e.code()), Ok(expected));
        let requests = fake_server.join().unwrap();
        assert!(requests[1].contains(r#""method":"initialize""#), "{}", requests[1]);
        assert!(!requests[1].contains("Mcp-Method"), "initialize is a legacy request");
        assert_eq!(c.session(), Some("s1"));
    }
}

#[test]
fn modern_refusals_are_typed_with_what_the_server_named() {
    let t = server(MODERN);
    let mut c = client(&t);
    c.open(Versions::parse(MODERN).unwrap()).unwrap();
    let needs = c.call_tool_modern("test_missing_capability", Object::new());
    assert!(
        matches!(&needs, Err(McpError::CapabilityMissing { required }) if required == &["sampling"]),
        "{needs:?}"
    );
    c.declare(loopback_mcp_http::mcp::meta::ClientCapability::Sampling);
    assert!(c.call_tool_modern("test_missing_capability", Object::new()).is_ok());
    let ping = c.modern_request("ping", Object::new());
    assert!(matches!(ping, Err(McpError::MethodNotFound)), "{ping:?}");

    let (message, id) = c.modern_message("tools/list", Object::new());
    let spec = c.modern_spec(&message).unwrap().set("Mcp-Method", "tools/call");
    let refused = c.send_spec(&spec).unwrap();
    let typed = loopback_mcp_http::client::modern::modern_reply(&refused, &id);
    assert!(
        matches!(&typed, Err(McpError::HeaderMismatch { header, reason }) if header == "Mcp-Method" && reason == "header_body_mismatch"),
        "{typed:?}"
    );
    let later = json::encode(&message).replace(MODERN, "2027-01-01");
    let spec = c.modern_spec(&message).unwrap().set("MCP-Protocol-Version", "2027-01-01");
    let spec = loopback_mcp_http::client::mcp::RequestSpec { body: later.into_bytes(), ..spec };
    let typed = loopback_mcp_http::client::modern::modern_reply(&c.send_spec(&spec).unwrap(), &id);
    assert!(
        matches!(&typed, Err(McpError::UnsupportedVersion { supported }) if supported == &[MODERN]),
        "{typed:?}"
    );
}

#[test]
fn a_tool_call_mirrors_its_annotated_arguments_and_retries_once_after_a_mismatch() {
    let t = server(MODERN);
    let mut c = client(&t);
    let arguments = || members([("tenant", "acme".into()), ("limit", Value::from(1i64))]);
    // Not listed yet: no Mcp-Param headers, a -32020, a fresh tools/list, and the call again.
    let called = c.call_tool_modern("tenant_documents", arguments()).unwrap();
    assert_eq!(c.round_trips(), 3);
    let text = called.response.get("result").and_then(|r| r.get("content")).map(json::encode);
    assert_eq!(text.as_deref(), Some(r#"[{"text":"kb://tenant/acme/handbook","type":"text"}]"#));
    // Listed now: one round trip, the headers written from the body.
    let (message, _) = c.modern_message(
        "tools/call",
        members([("name", "tenant_documents".into()), ("arguments", Value::Object(arguments()))]),
    );
    let spec = c.modern_spec(&message).unwrap();
    let mirrored: Vec<(&str, &str)> =
        spec.fields.iter().skip(4).map(|(n, v)| (n.as_str(), v.as_str())).collect();
    assert_eq!(
        mirrored,
        [
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "tenant_documents"),
            ("Mcp-Param-Limit", "1"),
            ("Mcp-Param-Tenant", "acme"),
        ]
    );
    c.call_tool_modern("tenant_documents", arguments()).unwrap();
    assert_eq!(c.round_trips(), 4);
}

#[test]
fn a_tool_with_broken_annotations_is_left_out_with_a_warning() {
    let list = r#"{"id":1,"jsonrpc":"2.0","result":{"tools":[{"inputSchema":{"properties":{"a":{"type":"number","x-mcp-header":"A"}},"type":"object"},"name":"bad\u001b[31m"},{"inputSchema":{"type":"object"},"name":"good"}]}}"#;
    let (address, _fake_server) = fake(vec![json_reply("", list)]);
    let mut c = McpClient::new(address, "token", Trace::new(false));
    assert_eq!(c.list_tools_modern().unwrap(), ["good"]);
    assert_eq!(
        c.warnings(),
        [
            r#"tool "bad?[31m" left out: x-mcp-header on a type other than string, integer, boolean (x_mcp_header_not_primitive)"#
        ]
    );
    assert_eq!(printable("a\u{7f}é"), "a??");
}
