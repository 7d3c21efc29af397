//! MCP 2026-07-28 over real sockets: a server started with `--protocol-versions 2026-07-28` (or
//! both revisions), checked from outside with raw requests, and the default server's answer to a
//! modern probe. Every answer is compared exactly: status, JSON-RPC code, public code, and the
//! fields that must or must not be there.

mod common;

use common::server::*;
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::{ClientResponse, request};
use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::revision::Versions;
use loopback_mcp_http::server::ServerConfig;

const MODERN: &str = "2026-07-28";

fn server(versions: &str) -> TestServer {
    let versions = Versions::parse(versions).unwrap();
    let limits = Limits { requests_in_processing_max: 8, ..Limits::DEFAULT };
    start_with(ServerConfig { limits, versions, ..ServerConfig::default() })
}

/// A `_meta` with `version`, no client capabilities, and `extra` members.
fn meta(version: &str, extra: &str) -> String {
    format!(
        r#""_meta":{{"io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/protocolVersion":"{version}"{extra}}}"#
    )
}

/// A POST of `body` with `role`'s token (none for `None`) and the fields `extra`, the standard
/// content fields first.
fn post(t: &TestServer, role: Option<Role>, body: &str, extra: &[(&str, &str)]) -> ClientResponse {
    let host = t.host();
    let bearer = role.map(|r| t.bearer(r));
    let mut fields = vec![
        ("Host", host.as_str()),
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
    ];
    if let Some(bearer) = &bearer {
        fields.push(("Authorization", bearer.as_str()));
    }
    fields.extend_from_slice(extra);
    t.raw(&request("POST", "/mcp", &fields, body.as_bytes())).unwrap()
}

/// A modern request of `method` with `params` (the `_meta` added), and its standard headers
/// unless `extra` replaces them.
fn modern(t: &TestServer, method: &str, params: &str, extra: &[(&str, &str)]) -> ClientResponse {
    let comma = if params.is_empty() { "" } else { "," };
    let body = format!(
        r#"{{"id":7,"jsonrpc":"2.0","method":"{method}","params":{{{}{comma}{params}}}}}"#,
        meta(MODERN, "")
    );
    let mut fields = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", method)];
    fields.retain(|(name, _)| !extra.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)));
    fields.extend(extra.iter().filter(|(_, v)| !v.is_empty()).copied());
    post(t, Some(Role::Full), &body, &fields)
}

/// The body of an event stream or a JSON reply, as the JSON-RPC message it carries last.
fn last_message(response: &ClientResponse) -> Value {
    let text = String::from_utf8_lossy(&response.body).into_owned();
    let data = match text.strip_prefix("data: ") {
        Some(_) => text.split("data: ").last().unwrap_or_default().trim_end().to_owned(),
        None => text,
    };
    json::decode(data.as_bytes(), 64).unwrap_or_else(|e| panic!("{e}: {data}"))
}

/// Status, JSON-RPC error code (0 for none), public code ("" for none), and the id.
fn verdict(response: &ClientResponse) -> (u16, i64, String, String) {
    let message = last_message(response);
    let error = message.get("error");
    let code = error.and_then(|e| e.get("code")).and_then(Value::as_number);
    let public = error.and_then(|e| e.get("message")).and_then(Value::as_str).unwrap_or("");
    let id = message.get("id").map(json::encode).unwrap_or_default();
    (response.status, code.and_then(|n| n.as_i64()).unwrap_or(0), public.to_owned(), id)
}

fn expect(response: &ClientResponse, status: u16, code: i64, public: &str) {
    let (got_status, got_code, got_public, id) = verdict(response);
    assert_eq!((got_status, got_code, got_public.as_str()), (status, code, public), "{response:?}");
    if status != 202 {
        assert_eq!(id, "7", "every modern answer carries the request's id");
    }
    assert!(response.field("mcp-session-id").is_none(), "no session id, ever");
}

/// Fields of a request.
type Fields<'a> = Vec<(&'a str, &'a str)>;

const TENANT: &[(&str, &str)] = &[("Mcp-Name", "tenant_documents"), ("Mcp-Param-Tenant", "acme")];

#[test]
fn a_notification_posts_mcp_method_if_any_must_agree_before_the_token() {
    let t = server(MODERN);
    let body = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#;
    let version = ("MCP-Protocol-Version", MODERN);
    let named = ("Mcp-Method", "notifications/cancelled");
    // (token, fields after the version, status, JSON-RPC code, public code, the error's data)
    type Case<'a> = (Option<Role>, Fields<'a>, u16, i64, &'a str, &'a str);
    let cases: [Case; 7] = [
        (Some(Role::Full), vec![named], 202, 0, "", ""),
        // Header requirements for notification POSTs are not defined by the revision: none is
        // required, but one that is sent must agree.
        (Some(Role::Full), vec![], 202, 0, "", ""),
        (
            Some(Role::Full),
            vec![("Mcp-Method", "notifications/initialized")],
            400,
            -32020,
            "header_mismatch",
            r#"{"header":"Mcp-Method","reason":"header_body_mismatch"}"#,
        ),
        (
            Some(Role::Full),
            vec![named, named],
            400,
            -32020,
            "header_mismatch",
            r#"{"header":"Mcp-Method","reason":"header_repeated"}"#,
        ),
        // Without a token, a header that disagrees is still what is refused, as for a request:
        // the comparison reads only what was sent.
        (
            None,
            vec![("Mcp-Method", "tools/list")],
            400,
            -32020,
            "header_mismatch",
            r#"{"header":"Mcp-Method","reason":"header_body_mismatch"}"#,
        ),
        (None, vec![named], 401, -32000, "missing_credentials", ""),
        (None, vec![], 401, -32000, "missing_credentials", ""),
    ];
    for (row, (role, extra, status, code, public, data)) in cases.into_iter().enumerate() {
        let fields = [&[version][..], &extra].concat();
        let response = post(&t, role, body, &fields);
        assert_eq!(response.status, status, "row {row}");
        assert!(response.field("mcp-session-id").is_none(), "row {row}");
        if status == 202 {
            assert_eq!(response.body, b"", "row {row}");
            continue;
        }
        let message = last_message(&response);
        let error = message.get("error").unwrap();
        let got_code = error.get("code").and_then(Value::as_number).and_then(|n| n.as_i64());
        assert_eq!(got_code, Some(code), "row {row}");
        assert_eq!(error.get("message").and_then(Value::as_str), Some(public), "row {row}");
        assert_eq!(message.get("id"), None, "row {row}: a notification has no id to carry");
        let got_data = error.get("data").map(json::encode).unwrap_or_default();
        assert_eq!(got_data, data, "row {row}");
    }
}

#[test]
fn allow_names_what_the_resource_takes_in_the_servers_eras() {
    let legacy = "2025-11-25";
    let both = "2025-11-25,2026-07-28";
    // (server, method, target, status, Allow)
    let cases: [(&str, &str, &str, u16, &str); 12] = [
        (MODERN, "PUT", "/mcp", 405, "POST"),
        (MODERN, "PATCH", "/mcp", 405, "POST"),
        (MODERN, "TRACE", "/mcp", 405, "POST"),
        (MODERN, "OPTIONS", "/mcp", 405, "POST"),
        (MODERN, "GET", "/mcp", 405, "POST"),
        (MODERN, "DELETE", "/mcp", 405, "POST"),
        (MODERN, "OPTIONS", "*", 204, "GET, HEAD, POST"),
        (both, "PUT", "/mcp", 405, "GET, POST, DELETE"),
        (both, "OPTIONS", "*", 204, "GET, HEAD, POST, DELETE"),
        (legacy, "PATCH", "/mcp", 405, "GET, POST, DELETE"),
        (legacy, "OPTIONS", "*", 204, "GET, HEAD, POST, DELETE"),
        (MODERN, "POST", "/.well-known/oauth-protected-resource", 405, "GET, HEAD"),
    ];
    for (versions, method, target, status, allow) in cases {
        let t = server(versions);
        let host = t.host();
        let response = t.raw(&request(method, target, &[("Host", host.as_str())], b"")).unwrap();
        let got = (response.status, response.field_str("allow"));
        assert_eq!(got, (status, Some(allow)), "{versions} {method} {target}");
    }
}

#[test]
fn a_notifications_version_header_meets_the_checks_of_a_requests() {
    let body = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#;
    let supported = r#""supported":["2026-07-28","2025-11-25"]"#;
    let repeated = r#"{"header":"MCP-Protocol-Version","reason":"header_repeated"}"#;
    let unsupported = |requested: &str| format!(r#"{{"requested":"{requested}",{supported}}}"#);
    // (server, version field lines, status, JSON-RPC code, the error's data)
    let cases: [(&str, &[&str], u16, i64, String); 6] = [
        ("2025-11-25,2026-07-28", &[MODERN], 202, 0, String::new()),
        ("2025-11-25,2026-07-28", &["1999-01-01"], 400, -32022, unsupported("1999-01-01")),
        ("2025-11-25,2026-07-28", &["v999"], 400, -32022, unsupported("v999")),
        ("2025-11-25,2026-07-28", &[MODERN, MODERN], 400, -32020, repeated.to_owned()),
        ("2025-11-25,2026-07-28", &[MODERN, "2025-11-25"], 400, -32020, repeated.to_owned()),
        // Not required: a notification's POST has no header rules in the revision.
        (MODERN, &[], 202, 0, String::new()),
    ];
    for (row, (versions, lines, status, code, data)) in cases.into_iter().enumerate() {
        let t = server(versions);
        let fields: Fields = lines.iter().map(|line| ("MCP-Protocol-Version", *line)).collect();
        let response = post(&t, Some(Role::Full), body, &fields);
        assert_eq!(response.status, status, "row {row}");
        if status == 202 {
            continue;
        }
        let message = last_message(&response);
        let error = message.get("error").unwrap();
        let got_code = error.get("code").and_then(Value::as_number).and_then(|n| n.as_i64());
        assert_eq!(got_code, Some(code), "row {row}");
        assert_eq!(error.get("data").map(json::encode).unwrap_or_default(), data, "row {row}");
        assert_eq!(message.get("id"), None, "row {row}");
    }
}

#[test]
fn each_mirrored_header_must_agree_with_the_body() {
    let t = server(MODERN);
    let call = |args: &str| format!(r#""arguments":{args},"name":"tenant_documents""#);
    let acme = call(r#"{"tenant":"acme"}"#);
    let cases: Vec<(String, Fields, u16, i64, &str)> = vec![
        (acme.clone(), TENANT.to_vec(), 200, 0, ""),
        (
            acme.clone(),
            vec![("mcp-name", "tenant_documents"), ("MCP-PARAM-TENANT", "acme")],
            200,
            0,
            "",
        ),
        (acme.clone(), vec![("Mcp-Name", "tenant_documents")], 400, -32020, "header_mismatch"),
        (
            acme.clone(),
            vec![("Mcp-Name", "tenant_documents"), ("Mcp-Param-Tenant", "globex")],
            400,
            -32020,
            "header_mismatch",
        ),
        (
            acme.clone(),
            vec![("Mcp-Name", "tenant_documents"), ("Mcp-Param-Tenant", "ACME")],
            400,
            -32020,
            "header_mismatch",
        ),
        (
            acme.clone(),
            vec![
                ("Mcp-Name", "tenant_documents"),
                ("Mcp-Param-Tenant", "acme"),
                ("Mcp-Param-Tenant", "acme"),
            ],
            400,
            -32020,
            "header_mismatch",
        ),
        (
            acme.clone(),
            vec![("Mcp-Name", "whoami"), ("Mcp-Param-Tenant", "acme")],
            400,
            -32020,
            "header_mismatch",
        ),
        (acme.clone(), vec![("Mcp-Param-Tenant", "acme")], 400, -32020, "header_mismatch"),
        (
            acme.clone(),
            vec![
                ("Mcp-Name", "=?base64?dGVuYW50X2RvY3VtZW50cw==?="),
                ("Mcp-Param-Tenant", "=?base64?YWNtZQ==?="),
            ],
            200,
            0,
            "",
        ),
        (
            acme.clone(),
            vec![("Mcp-Name", "tenant_documents"), ("Mcp-Param-Tenant", "=?base64?Z2xvYmV4?=")],
            400,
            -32020,
            "header_mismatch",
        ),
        (
            acme.clone(),
            vec![("Mcp-Name", "tenant_documents"), ("Mcp-Param-Tenant", "=?base64?YWNtZQ?=")],
            400,
            -32020,
            "header_mismatch",
        ),
        (
            call(r#"{"tenant":"=?base64?YWNtZQ==?="}"#),
            vec![("Mcp-Name", "tenant_documents"), ("Mcp-Param-Tenant", "=?base64?YWNtZQ==?=")],
            400,
            -32020,
            "header_mismatch",
        ),
        (
            call(r#"{"tenant":"acme","limit":2}"#),
            vec![
                ("Mcp-Name", "tenant_documents"),
                ("Mcp-Param-Tenant", "acme"),
                ("Mcp-Param-Limit", "2"),
            ],
            200,
            0,
            "",
        ),
        (
            call(r#"{"tenant":"acme","limit":2.0}"#),
            vec![
                ("Mcp-Name", "tenant_documents"),
                ("Mcp-Param-Tenant", "acme"),
                ("Mcp-Param-Limit", "2"),
            ],
            200,
            0,
            "",
        ),
        (
            call(r#"{"tenant":"acme","limit":2}"#),
            vec![
                ("Mcp-Name", "tenant_documents"),
                ("Mcp-Param-Tenant", "acme"),
                ("Mcp-Param-Limit", "3"),
            ],
            400,
            -32020,
            "header_mismatch",
        ),
        (call(r#"{"tenant":"acme","limit":2}"#), TENANT.to_vec(), 400, -32020, "header_mismatch"),
        (call(r#"{"tenant":"acme","limit":null}"#), TENANT.to_vec(), 200, 0, ""),
        (
            call(r#"{"tenant":"acme"}"#),
            vec![
                ("Mcp-Name", "tenant_documents"),
                ("Mcp-Param-Tenant", "acme"),
                ("Mcp-Param-Limit", "2"),
            ],
            400,
            -32020,
            "header_mismatch",
        ),
    ];
    for (i, (params, fields, status, code, public)) in cases.into_iter().enumerate() {
        let response = modern(&t, "tools/call", &params, &fields);
        let (got, got_code, got_public, _) = verdict(&response);
        assert_eq!(
            (got, got_code, got_public.as_str()),
            (status, code, public),
            "case {i}: {fields:?}"
        );
    }
}

#[test]
fn the_standard_headers_and_the_meta_are_checked_in_order() {
    let t = server(MODERN);
    let v999 = format!(
        r#"{{"id":7,"jsonrpc":"2.0","method":"server/discover","params":{{{}}}}}"#,
        meta("v999.0.0", "")
    );
    let headers =
        |version| vec![("MCP-Protocol-Version", version), ("Mcp-Method", "server/discover")];
    let mismatch = post(&t, Some(Role::Full), &v999, &headers(MODERN));
    expect(&mismatch, 400, -32020, "header_mismatch");
    let unsupported = post(&t, Some(Role::Full), &v999, &headers("v999.0.0"));
    expect(&unsupported, 400, -32022, "protocol_version_unsupported");
    let data =
        last_message(&unsupported).get("error").and_then(|e| e.get("data")).map(json::encode);
    assert_eq!(data.as_deref(), Some(r#"{"requested":"v999.0.0","supported":["2026-07-28"]}"#));
    // A requested version not shaped like one is never repeated.
    let odd = v999.replace("v999.0.0", "secret value");
    let refused = post(&t, Some(Role::Full), &odd, &headers("secret value"));
    expect(&refused, 400, -32022, "protocol_version_unsupported");
    assert!(!String::from_utf8_lossy(&refused.body).contains("secret"));
    let no_meta = r#"{"id":7,"jsonrpc":"2.0","method":"server/discover","params":{}}"#;
    expect(&post(&t, Some(Role::Full), no_meta, &headers(MODERN)), 400, -32602, "meta_missing");
    // The meta comes first: a request without it and without headers is -32602.
    expect(&post(&t, None, no_meta, &[]), 400, -32602, "meta_missing");
    let cases: [(Fields, i64, &str); 5] = [
        (vec![("Mcp-Method", "")], -32020, "header_mismatch"),
        (vec![("Mcp-Method", "tools/list")], -32020, "header_mismatch"),
        (vec![("Mcp-Method", "SERVER/DISCOVER")], -32020, "header_mismatch"),
        (vec![("MCP-Protocol-Version", "")], -32020, "header_mismatch"),
        (vec![("mcp-method", " server/discover ")], 0, ""),
    ];
    for (extra, code, public) in cases {
        let extra = extra.as_slice();
        let status = if code == 0 { 200 } else { 400 };
        expect(&modern(&t, "server/discover", "", extra), status, code, public);
    }
}

#[test]
fn methods_of_2025_11_25_and_unknown_ones_are_404_and_get_delete_405() {
    let t = server(MODERN);
    for method in ["ping", "initialize", "logging/setLevel", "resources/subscribe", "nothing/here"]
    {
        expect(&modern(&t, method, "", &[]), 404, -32601, "method_not_found");
    }
    for method in ["GET", "DELETE"] {
        let fields = [("Host", t.host()), ("MCP-Protocol-Version", MODERN.to_owned())];
        let fields: Vec<(&str, &str)> = fields.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let response = t.raw(&request(method, "/mcp", &fields, b"")).unwrap();
        assert_eq!((response.status, response.field_str("allow")), (405, Some("POST")), "{method}");
    }
}

#[test]
fn discovery_lists_and_tools_answer_with_the_modern_result_fields() {
    let t = server(MODERN);
    let discover = modern(&t, "server/discover", "", &[]);
    expect(&discover, 200, 0, "");
    let result = last_message(&discover).get("result").cloned().unwrap();
    let ttl = Limits::DEFAULT.list_ttl.as_millis() as u64;
    assert_eq!(json::encode(result.get("supportedVersions").unwrap()), r#"["2026-07-28"]"#);
    assert_eq!(
        json::encode(result.get("capabilities").unwrap()),
        r#"{"logging":{},"resources":{},"tools":{"listChanged":true}}"#
    );
    assert_eq!(result.get("ttlMs").and_then(Value::as_number).and_then(|n| n.as_u64()), Some(ttl));
    let info = result.get("_meta").and_then(|m| m.get("io.modelcontextprotocol/serverInfo"));
    assert!(info.and_then(|i| i.get("name")).is_some());
    for (method, scope) in [("tools/list", "private"), ("resources/list", "private")] {
        let listed = modern(&t, method, "", &[]);
        expect(&listed, 200, 0, "");
        let result = last_message(&listed).get("result").cloned().unwrap();
        assert_eq!(result.get("cacheScope").and_then(Value::as_str), Some(scope), "{method}");
        assert_eq!(result.get("resultType").and_then(Value::as_str), Some("complete"));
        assert_eq!(
            result.get("ttlMs").and_then(Value::as_number).and_then(|n| n.as_u64()),
            Some(ttl)
        );
    }
    // The first tool takes no argument: a plain call gets a result.
    let call =
        modern(&t, "tools/call", r#""arguments":{},"name":"whoami""#, &[("Mcp-Name", "whoami")]);
    expect(&call, 200, 0, "");
    assert_eq!(call.field_str("x-accel-buffering"), Some("no"));
    assert!(!String::from_utf8_lossy(&call.body).contains("id:"), "no event ids");
    let other = modern(
        &t,
        "tools/call",
        r#""arguments":{"tenant":"globex"},"name":"tenant_documents""#,
        &[("Mcp-Name", "tenant_documents"), ("Mcp-Param-Tenant", "globex")],
    );
    expect(&other, 200, 0, "");
    let result = last_message(&other).get("result").cloned().unwrap();
    assert_eq!(result.get("isError"), Some(&Value::Bool(true)));
}

#[test]
fn capabilities_and_log_levels_come_from_each_requests_meta() {
    let t = server(MODERN);
    let probe = modern(
        &t,
        "tools/call",
        r#""arguments":{},"name":"test_missing_capability""#,
        &[("Mcp-Name", "test_missing_capability")],
    );
    expect(&probe, 400, -32021, "client_capability_missing");
    let data = last_message(&probe).get("error").and_then(|e| e.get("data")).map(json::encode);
    assert_eq!(data.as_deref(), Some(r#"{"requiredCapabilities":{"sampling":{}}}"#));
    let silent = modern(
        &t,
        "tools/call",
        r#""arguments":{},"name":"test_logging_tool""#,
        &[("Mcp-Name", "test_logging_tool")],
    );
    expect(&silent, 200, 0, "");
    assert!(!String::from_utf8_lossy(&silent.body).contains("notifications/message"));
    let body = format!(
        r#"{{"id":7,"jsonrpc":"2.0","method":"tools/call","params":{{{},"arguments":{{}},"name":"test_logging_tool"}}}}"#,
        meta(MODERN, r#","io.modelcontextprotocol/logLevel":"info""#)
    );
    let fields = [
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "test_logging_tool"),
    ];
    let logged = post(&t, Some(Role::Full), &body, &fields);
    expect(&logged, 200, 0, "");
    let text = String::from_utf8_lossy(&logged.body);
    assert!(
        text.starts_with("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\""),
        "{text}"
    );
}

#[test]
fn tokens_are_checked_on_every_request_with_the_same_challenges() {
    let t = server(MODERN);
    let tenant = r#""arguments":{"tenant":"acme"},"name":"tenant_documents""#;
    let body = |params: &str| {
        format!(
            r#"{{"id":7,"jsonrpc":"2.0","method":"tools/call","params":{{{},{params}}}}}"#,
            meta(MODERN, "")
        )
    };
    let fields = [
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "tenant_documents"),
        ("Mcp-Param-Tenant", "acme"),
    ];
    let anonymous = post(&t, None, &body(tenant), &fields);
    expect(&anonymous, 401, -32000, "missing_credentials");
    assert!(
        anonymous.field_str("www-authenticate").unwrap().starts_with("Bearer resource_metadata=")
    );
    let connect_only = post(&t, Some(Role::ConnectOnly), &body(tenant), &fields);
    expect(&connect_only, 403, -32000, "insufficient_scope");
    assert!(
        connect_only
            .field_str("www-authenticate")
            .unwrap()
            .contains("error=\"insufficient_scope\"")
    );
    expect(&post(&t, Some(Role::TenantDenied), &body(tenant), &fields), 403, -32000, "forbidden");
    // An anonymous caller learns nothing of the tool's mirrored arguments: 401, not -32020.
    let unmirrored = [
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "tenant_documents"),
    ];
    expect(&post(&t, None, &body(tenant), &unmirrored), 401, -32000, "missing_credentials");
    // Revocation applies to the very next request.
    expect(&post(&t, Some(Role::Full), &body(tenant), &fields), 200, 0, "");
    assert!(Role::Full.revoke_in(&mut t.server.endpoint().policy_mut()));
    expect(&post(&t, Some(Role::Full), &body(tenant), &fields), 401, -32000, "invalid_token");
}

#[test]
fn session_ids_and_event_ids_sent_are_ignored() {
    let t = server(MODERN);
    let fields = [("Mcp-Session-Id", "abc"), ("Last-Event-ID", "x-p1-1")];
    let response = modern(&t, "tools/list", "", &fields);
    expect(&response, 200, 0, "");
    assert!(!String::from_utf8_lossy(&response.raw).contains("abc"));
}

#[test]
fn the_default_server_answers_a_modern_probe_with_a_legacy_400() {
    let t = start();
    let probe = modern(&t, "server/discover", "", &[]);
    let (status, code, public, _) = verdict(&probe);
    assert_eq!((status, code, public.as_str()), (400, -32000, "protocol_version_unsupported"));
}

/// The answer to one request of the era table: a POST (`initialize`, `server/discover` or
/// `tools/list`) or a GET, with the version header `version` ("" for none).
fn era_row(t: &TestServer, call: &str, version: &str) -> (u16, String) {
    let mut fields = vec![("Host", t.host())];
    if !version.is_empty() {
        fields.push(("MCP-Protocol-Version", version.to_owned()));
    }
    let bearer = t.bearer(Role::Full);
    fields.push(("Authorization", bearer));
    let response = if call == "GET" {
        fields.push(("Accept", "text/event-stream".to_owned()));
        let fields: Vec<(&str, &str)> = fields.iter().map(|(n, v)| (*n, v.as_str())).collect();
        t.raw(&request("GET", "/mcp", &fields, b"")).unwrap()
    } else {
        let params = match call {
            "initialize" => r#"{"capabilities":{},"clientInfo":{"name":"t","version":"1"},"protocolVersion":"2025-11-25"}"#.to_owned(),
            _ => format!("{{{}}}", meta(if version.is_empty() { MODERN } else { version }, "")),
        };
        let body = format!(r#"{{"id":7,"jsonrpc":"2.0","method":"{call}","params":{params}}}"#);
        fields.push(("Mcp-Method", call.to_owned()));
        fields.push(("Accept", "application/json, text/event-stream".to_owned()));
        fields.push(("Content-Type", "application/json".to_owned()));
        let fields: Vec<(&str, &str)> = fields.iter().map(|(n, v)| (*n, v.as_str())).collect();
        t.raw(&request("POST", "/mcp", &fields, body.as_bytes())).unwrap()
    };
    let message = json::decode(&response.body, 64).ok();
    let error = message.as_ref().and_then(|m| m.get("error")).and_then(|e| e.get("message"));
    let code =
        error.and_then(Value::as_str).unwrap_or(if response.status < 300 { "ok" } else { "" });
    (response.status, code.to_owned())
}

#[test]
fn every_row_of_the_era_table_over_the_wire() {
    let legacy = start();
    let modern_only = server(MODERN);
    let both = server("2025-11-25,2026-07-28");
    let ok = (200, "ok".to_owned());
    let legacy_400 = (400, "protocol_version_unsupported".to_owned());
    let r = |status: u16, code: &str| (status, code.to_owned());
    // (server, call, version header, expected answer)
    let rows: Vec<(&TestServer, &str, &str, (u16, String))> = vec![
        (&legacy, "initialize", "", ok.clone()),
        (&legacy, "initialize", MODERN, legacy_400.clone()),
        (&legacy, "server/discover", MODERN, legacy_400.clone()),
        (&legacy, "server/discover", "", r(400, "protocol_version_missing")),
        (&legacy, "GET", MODERN, legacy_400.clone()),
        (&modern_only, "initialize", "", r(400, "meta_missing")),
        (&modern_only, "initialize", "2025-11-25", r(400, "meta_missing")),
        (&modern_only, "server/discover", "", r(400, "header_mismatch")),
        (&modern_only, "server/discover", "2025-11-25", r(400, "protocol_version_unsupported")),
        (&modern_only, "server/discover", MODERN, ok.clone()),
        (&modern_only, "tools/list", "1999-01-01", r(400, "protocol_version_unsupported")),
        (&modern_only, "GET", "", r(405, "method_not_allowed")),
        (&both, "initialize", "", ok.clone()),
        (&both, "initialize", "2025-11-25", ok.clone()),
        (&both, "initialize", MODERN, r(400, "meta_missing")),
        (&both, "server/discover", "", r(400, "header_mismatch")),
        (&both, "server/discover", "2025-11-25", r(400, "session_missing")),
        (&both, "server/discover", MODERN, ok.clone()),
        (&both, "server/discover", "1999-01-01", r(400, "protocol_version_unsupported")),
        (&both, "tools/list", "", r(400, "protocol_version_missing")),
        (&both, "tools/list", MODERN, ok.clone()),
        (&both, "GET", "", r(400, "protocol_version_missing")),
        (&both, "GET", MODERN, r(405, "method_not_allowed")),
        (&both, "GET", "1999-01-01", r(405, "method_not_allowed")),
    ];
    for (i, (t, call, version, expected)) in rows.into_iter().enumerate() {
        assert_eq!(era_row(t, call, version), expected, "row {i}: {call} {version:?}");
    }
}

/// The requests of the conformance suite's `http-header-validation` and
/// `http-custom-header-server-validation` scenarios (2026-07-28), as the suite sends them to this
/// server (its first listed tool is `whoami`; its string `x-mcp-header` tool is
/// `tenant_documents`), with the answers the suite expects: a refusal is 400 with `-32020`, an
/// acceptance is 200. A regression shows up here as well as in the suite.
#[test]
fn the_suites_header_validation_scenarios_answer_as_the_suite_expects() {
    /// Status, JSON-RPC code, public code.
    type Answer = (u16, i64, &'static str);
    const REFUSED: Answer = (400, -32020, "header_mismatch");
    const ANSWERED: Answer = (200, 0, "");
    let t = server(MODERN);
    let whoami = r#""arguments":{},"name":"whoami""#;
    let tenant =
        |value: &str| format!(r#""arguments":{{"tenant":"{value}"}},"name":"tenant_documents""#);
    let hello = tenant("Hello");
    let literal = tenant("SGVsbG8=");
    let unclosed = tenant("=?base64?SGVsbG8=");
    let test_value = tenant("test-value");
    let call = ("Mcp-Method", "tools/call");
    let cases: [(&str, &str, &str, Fields, Answer); 14] = [
        (
            "ServerRejectsMismatchedMethodHeader",
            "tools/list",
            "",
            vec![("Mcp-Method", "prompts/list")],
            REFUSED,
        ),
        ("ServerRejectsMissingMethodHeader", "tools/list", "", vec![("Mcp-Method", "")], REFUSED),
        (
            "ServerRejectsMismatchedNameHeader",
            "tools/call",
            whoami,
            vec![call, ("Mcp-Name", "wrong_tool_name")],
            REFUSED,
        ),
        (
            "ServerAcceptsWhitespaceHeaderValue",
            "tools/call",
            whoami,
            vec![call, ("Mcp-Name", "  whoami  ")],
            ANSWERED,
        ),
        ("ServerRejectsMissingNameHeader", "tools/call", whoami, vec![call], REFUSED),
        (
            "ServerAcceptsLowercaseHeaderName",
            "tools/list",
            "",
            vec![("Mcp-Method", ""), ("mcp-method", "tools/list")],
            ANSWERED,
        ),
        (
            "ServerAcceptsUppercaseHeaderName",
            "tools/list",
            "",
            vec![("Mcp-Method", ""), ("MCP-METHOD", "tools/list")],
            ANSWERED,
        ),
        (
            "ServerRejectsCaseMismatchValue",
            "tools/list",
            "",
            vec![("Mcp-Method", "TOOLS/LIST")],
            REFUSED,
        ),
        (
            "ServerAcceptsValidBase64",
            "tools/call",
            &hello,
            vec![
                call,
                ("Mcp-Name", "tenant_documents"),
                ("Mcp-Param-Tenant", "=?base64?SGVsbG8=?="),
            ],
            ANSWERED,
        ),
        (
            "ServerRejectsInvalidBase64Padding",
            "tools/call",
            &hello,
            vec![
                call,
                ("Mcp-Name", "tenant_documents"),
                ("Mcp-Param-Tenant", "=?base64?SGVsbG8?="),
            ],
            REFUSED,
        ),
        (
            "ServerRejectsInvalidBase64Chars",
            "tools/call",
            &hello,
            vec![
                call,
                ("Mcp-Name", "tenant_documents"),
                ("Mcp-Param-Tenant", "=?base64?SGVs!!!bG8=?="),
            ],
            REFUSED,
        ),
        (
            "ServerLiteralMissingBase64Prefix",
            "tools/call",
            &literal,
            vec![call, ("Mcp-Name", "tenant_documents"), ("Mcp-Param-Tenant", "SGVsbG8=")],
            ANSWERED,
        ),
        (
            "ServerLiteralMissingBase64Suffix",
            "tools/call",
            &unclosed,
            vec![call, ("Mcp-Name", "tenant_documents"), ("Mcp-Param-Tenant", "=?base64?SGVsbG8=")],
            ANSWERED,
        ),
        (
            "ServerRejectsMissingCustomHeader",
            "tools/call",
            &test_value,
            vec![call, ("Mcp-Name", "tenant_documents")],
            REFUSED,
        ),
    ];
    for (name, method, params, fields, (status, code, public)) in cases {
        let response = modern(&t, method, params, &fields);
        let (got_status, got_code, got_public, _) = verdict(&response);
        assert_eq!((got_status, got_code, got_public.as_str()), (status, code, public), "{name}");
    }
}
