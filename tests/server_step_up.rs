//! Step-up scope challenges over real sockets: a server started with the conformance suite's
//! fixtures (`serve --conformance-fixtures`), each fixture asked for with the suite's two tokens
//! and the project's own, and a server without the flag, where the suite's tokens are unknown and
//! its fixtures are no methods. Every answer is compared exactly: status, the one
//! `WWW-Authenticate` challenge, and the body.

mod common;

use common::server::*;
use loopback_mcp_http::auth::fixtures::{CONFORMANCE_FULL, CONFORMANCE_LOW, Role};
use loopback_mcp_http::client::{ClientResponse, request};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::revision::Versions;
use loopback_mcp_http::server::ServerConfig;

const MODERN: &str = "2026-07-28";
const BASELINE: &str = "mcp:conformance:baseline";
const TOOL: &str = "mcp:conformance:tools:call mcp:conformance:tools:test_simple_text";
const STATIC: &str = "mcp:conformance:resources:read mcp:conformance:resources:static";
const TEMPLATE: &str = "mcp:conformance:resources:read mcp:conformance:resources:template:";
const PROMPT: &str = "mcp:conformance:prompts:get mcp:conformance:prompts:test_simple_prompt";

fn server(fixtures: bool) -> TestServer {
    let versions = Versions::parse("2025-11-25,2026-07-28").unwrap();
    let limits = Limits { requests_in_processing_max: 4, ..Limits::DEFAULT };
    let config = ServerConfig {
        limits,
        versions,
        conformance_fixtures: fixtures,
        ..ServerConfig::default()
    };
    let t = start_with(config);
    t.remember(CONFORMANCE_LOW);
    t.remember(CONFORMANCE_FULL);
    t
}

/// One fixture request: its method, its `Mcp-Name` and its params before the `_meta`.
#[derive(Clone, Copy)]
struct Asked {
    method: &'static str,
    name: &'static str,
    params: &'static str,
}

const TOOL_CALL: Asked = Asked {
    method: "tools/call",
    name: "test_simple_text",
    params: r#""name":"test_simple_text","arguments":{}"#,
};
const STATIC_READ: Asked = Asked {
    method: "resources/read",
    name: "test://static-text",
    params: r#""uri":"test://static-text""#,
};
const TEMPLATE_123: Asked = Asked {
    method: "resources/read",
    name: "test://template/123/data",
    params: r#""uri":"test://template/123/data""#,
};
const TEMPLATE_456: Asked = Asked {
    method: "resources/read",
    name: "test://template/456/data",
    params: r#""uri":"test://template/456/data""#,
};
const PROMPT_GET: Asked = Asked {
    method: "prompts/get",
    name: "test_simple_prompt",
    params: r#""name":"test_simple_prompt""#,
};

/// A 2026-07-28 request for `asked` with `token`, its mirrored headers all agreeing.
fn ask(t: &TestServer, token: &str, asked: Asked) -> ClientResponse {
    let body = format!(
        r#"{{"id":7,"jsonrpc":"2.0","method":"{}","params":{{{},"_meta":{{"io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/protocolVersion":"{MODERN}"}}}}}}"#,
        asked.method, asked.params
    );
    let (host, bearer) = (t.host(), format!("Bearer {token}"));
    let fields = [
        ("Host", host.as_str()),
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
        ("Authorization", bearer.as_str()),
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", asked.method),
        ("Mcp-Name", asked.name),
    ];
    t.raw(&request("POST", "/mcp", &fields, body.as_bytes())).unwrap()
}

/// The one challenge of a response, with this server's metadata URL written as `{meta}`.
fn challenge(t: &TestServer, response: &ClientResponse) -> String {
    assert_eq!(response.field_count("www-authenticate"), 1, "one challenge");
    let metadata =
        format!("http://127.0.0.1:{}/.well-known/oauth-protected-resource/mcp", t.port());
    response.field_str("www-authenticate").unwrap().replace(&metadata, "{meta}")
}

/// The JSON message of a reply, whether it came as JSON or as one event.
fn message(response: &ClientResponse) -> String {
    let body = String::from_utf8_lossy(&response.body).into_owned();
    match body.strip_prefix("data: ") {
        Some(event) => event.trim_end().to_owned(),
        None => body,
    }
}

/// A 2026-07-28 result as this server writes it, with its `_meta`.
fn result(members: &str) -> String {
    let version = env!("CARGO_PKG_VERSION");
    format!(
        r#"{{"id":7,"jsonrpc":"2.0","result":{{"_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"loopback-mcp-http","version":"{version}"}}}},{members},"resultType":"complete"}}}}"#
    )
}

fn insufficient(scope: &str) -> String {
    format!(r#"Bearer error="insufficient_scope", scope="{scope}", resource_metadata="{{meta}}""#)
}

#[test]
fn each_fixture_names_both_its_scopes_to_the_low_token_in_one_challenge() {
    let t = server(true);
    let cases = [
        (TOOL_CALL, format!("{BASELINE} {TOOL}")),
        (STATIC_READ, format!("{BASELINE} {STATIC}")),
        (TEMPLATE_123, format!("{BASELINE} {TEMPLATE}123")),
        (PROMPT_GET, format!("{BASELINE} {PROMPT}")),
    ];
    for (asked, scope) in cases {
        let response = ask(&t, CONFORMANCE_LOW, asked);
        assert_eq!(response.status, 403, "{}", asked.name);
        assert_eq!(challenge(&t, &response), insufficient(&scope), "{}", asked.name);
        let body =
            r#"{"error":{"code":-32000,"message":"insufficient_scope"},"id":7,"jsonrpc":"2.0"}"#;
        assert_eq!(message(&response), body);
    }
}

#[test]
fn each_fixture_answers_the_full_token_with_its_result() {
    let t = server(true);
    let tool = r#""content":[{"text":"This is a simple text response for testing.","type":"text"}],"isError":false"#;
    let resource = |uri: &str, text: &str| {
        format!(r#""contents":[{{"mimeType":"text/plain","text":"{text}","uri":"{uri}"}}]"#)
    };
    let prompt = r#""description":"The conformance suite's scope fixture","messages":[{"content":{"text":"This is a simple prompt for testing.","type":"text"},"role":"user"}]"#;
    let cases = [
        (TOOL_CALL, tool.to_owned()),
        (
            STATIC_READ,
            resource("test://static-text", "This is the content of the static text resource."),
        ),
        (TEMPLATE_123, resource("test://template/123/data", "The data of template resource 123.")),
        (PROMPT_GET, prompt.to_owned()),
    ];
    for (asked, members) in cases {
        let response = ask(&t, CONFORMANCE_FULL, asked);
        assert_eq!(response.status, 200, "{}", asked.name);
        assert_eq!(response.field_count("www-authenticate"), 0);
        assert_eq!(message(&response), result(&members), "{}", asked.name);
    }
}

#[test]
fn a_template_scope_is_made_from_the_id_the_request_names() {
    let t = server(true);
    let response = ask(&t, CONFORMANCE_FULL, TEMPLATE_456);
    assert_eq!(response.status, 403);
    let held = "mcp:conformance:baseline mcp:conformance:prompts:get \
        mcp:conformance:prompts:test_simple_prompt mcp:conformance:resources:read \
        mcp:conformance:resources:static mcp:conformance:resources:template:123 \
        mcp:conformance:resources:template:456 mcp:conformance:tools:call \
        mcp:conformance:tools:test_simple_text";
    assert_eq!(challenge(&t, &response), insufficient(held));
    // Without a valid token, the argument's scope is never computed: the 401 names the static
    // scopes alone.
    let response = ask(&t, "not-a-token", TEMPLATE_456);
    assert_eq!(response.status, 401);
    let unknown = r#"Bearer error="invalid_token", resource_metadata="{meta}", scope="mcp:conformance:resources:read""#;
    assert_eq!(challenge(&t, &response), unknown);
}

#[test]
fn the_projects_own_token_steps_up_to_a_fixture_like_any_other() {
    let t = server(true);
    let response = ask(&t, t.token(Role::Full), TOOL_CALL);
    assert_eq!(response.status, 403);
    let scope = format!("{TOOL} mcp:connect resources:read");
    assert_eq!(challenge(&t, &response), insufficient(&scope));
}

#[test]
fn without_the_flag_the_suites_tokens_are_unknown_and_its_fixtures_no_methods() {
    let t = server(false);
    let response = ask(&t, CONFORMANCE_LOW, TOOL_CALL);
    assert_eq!(response.status, 401);
    let unknown =
        r#"Bearer error="invalid_token", resource_metadata="{meta}", scope="mcp:connect""#;
    assert_eq!(challenge(&t, &response), unknown);
    let token = t.token(Role::Full).to_owned();
    let unknown_tool =
        r#"{"error":{"code":-32602,"message":"tool_unknown"},"id":7,"jsonrpc":"2.0"}"#;
    let no_method =
        r#"{"error":{"code":-32601,"message":"method_not_found"},"id":7,"jsonrpc":"2.0"}"#;
    let cases = [
        (TOOL_CALL, 200, unknown_tool),
        (STATIC_READ, 404, no_method),
        (PROMPT_GET, 404, no_method),
    ];
    for (asked, status, body) in cases {
        let response = ask(&t, &token, asked);
        assert_eq!(
            (response.status, message(&response).as_str()),
            (status, body),
            "{}",
            asked.name
        );
    }
}

#[test]
fn a_legacy_session_is_offered_no_fixture() {
    let t = server(true);
    let session = t.open_session(Role::Full);
    let no_method = |id: i64| {
        format!(
            r#"{{"error":{{"code":-32601,"message":"method_not_found"}},"id":{id},"jsonrpc":"2.0"}}"#
        )
    };
    let cases = [
        (
            r#"{"id":1,"jsonrpc":"2.0","method":"resources/read","params":{"uri":"test://static-text"}}"#,
            no_method(1),
        ),
        (
            r#"{"id":2,"jsonrpc":"2.0","method":"prompts/get","params":{"name":"test_simple_prompt"}}"#,
            no_method(2),
        ),
        (
            r#"{"id":3,"jsonrpc":"2.0","method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}"#,
            r#"{"error":{"code":-32602,"message":"tool_unknown"},"id":3,"jsonrpc":"2.0"}"#
                .to_owned(),
        ),
    ];
    for (body, expected) in cases {
        let response = t.raw(&t.post_bytes(Role::Full, Some(&session), body, &[])).unwrap();
        assert_eq!(message(&response), expected, "{body}");
    }
    let list = r#"{"id":4,"jsonrpc":"2.0","method":"tools/list"}"#;
    let response = t.raw(&t.post_bytes(Role::Full, Some(&session), list, &[])).unwrap();
    assert!(!message(&response).contains("test_simple_text"), "a legacy list names no fixture");
}
