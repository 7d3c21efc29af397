//! The resource-server boundary over real round trips: 401 versus 403 with exact challenges for
//! every fixture role, the discovery documents, credentials in the wrong place, and revocation and
//! revision changes on a live session.

mod common;

use common::server::*;
use loopback_mcp_http::auth::fixtures::{self, Role};
use loopback_mcp_http::client::request;
use loopback_mcp_http::json::{self, Value};

fn challenge_401(t: &TestServer, scope: &str) -> String {
    format!(
        r#"Bearer error="invalid_token", resource_metadata="http://127.0.0.1:{}/.well-known/oauth-protected-resource/mcp", scope="{scope}""#,
        t.port()
    )
}

#[test]
fn every_role_on_initialize_gets_its_status_and_exact_challenge() {
    let t = start();
    let refused = [
        Role::Expired,
        Role::Revoked,
        Role::Inactive,
        Role::WrongIssuer,
        Role::WrongAudience,
        Role::WrongAuthorizationResource,
        Role::WrongTokenResource,
        Role::StaleRevision,
    ];
    for role in
        [Role::Full, Role::ConnectOnly, Role::OtherSubject, Role::TenantDenied, Role::Unicode]
    {
        let response = t.raw(&t.post_bytes(role, None, init_body(), &[])).unwrap();
        assert_eq!(response.status, 200, "{}", role.name());
        t.remember(response.field_str("mcp-session-id").unwrap());
    }
    for role in refused {
        let response = t.raw(&t.post_bytes(role, None, init_body(), &[])).unwrap();
        assert_eq!(
            (response.status, error_code(&response).as_str()),
            (401, "invalid_token"),
            "{}",
            role.name()
        );
        assert_eq!(
            response.field_str("www-authenticate"),
            Some(challenge_401(&t, "mcp:connect").as_str())
        );
    }
    assert_eq!(
        t.server.endpoint().live_sessions(std::time::Instant::now()),
        5,
        "refused initializes left nothing"
    );
}

#[test]
fn missing_bearer_gets_401_without_error_code() {
    let t = start();
    let host = t.host();
    let fields = [
        ("Host", host.as_str()),
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
    ];
    let cases: [(&str, &str); 2] =
        [(init_body(), "mcp:connect"), (list_body(), "mcp:connect resources:read")];
    for (body, scope) in cases {
        let response = t.raw(&request("POST", "/mcp", &fields, body.as_bytes())).unwrap();
        let expected = format!(
            r#"Bearer resource_metadata="http://127.0.0.1:{}/.well-known/oauth-protected-resource/mcp", scope="{scope}""#,
            t.port()
        );
        assert_eq!((response.status, error_code(&response).as_str()), (401, "missing_credentials"));
        assert_eq!(response.field_str("www-authenticate"), Some(expected.as_str()));
    }
}

#[test]
fn scope_and_tenant_refusals_are_403_with_the_right_challenge() {
    let t = start();
    let connect_only = t.open_session(Role::ConnectOnly);
    let response =
        t.raw(&t.post_bytes(Role::ConnectOnly, Some(&connect_only), list_body(), &[])).unwrap();
    let expected = format!(
        r#"Bearer error="insufficient_scope", scope="mcp:connect resources:read", resource_metadata="http://127.0.0.1:{}/.well-known/oauth-protected-resource/mcp""#,
        t.port()
    );
    assert_eq!((response.status, error_code(&response).as_str()), (403, "insufficient_scope"));
    assert_eq!(response.field_str("www-authenticate"), Some(expected.as_str()));
    // ping only needs mcp:connect.
    assert_eq!(
        t.raw(&t.post_bytes(Role::ConnectOnly, Some(&connect_only), ping_body(), &[]))
            .unwrap()
            .status,
        200
    );

    let denied = t.open_session(Role::TenantDenied);
    let response =
        t.raw(&t.post_bytes(Role::TenantDenied, Some(&denied), list_body(), &[])).unwrap();
    assert_eq!((response.status, error_code(&response).as_str()), (403, "forbidden"));
    assert_eq!(
        response.field_count("www-authenticate"),
        0,
        "no scope step-up for a tenant refusal"
    );
}

#[test]
fn the_401_challenge_scope_follows_the_request() {
    let t = start();
    let session = t.open_session(Role::Full);
    let cases: [(&str, &str); 3] = [
        (ping_body(), "mcp:connect"),
        (list_body(), "mcp:connect resources:read"),
        (initialized_body(), "mcp:connect"),
    ];
    for (body, scope) in cases {
        let response = t.raw(&t.post_bytes(Role::Expired, Some(&session), body, &[])).unwrap();
        assert_eq!(response.status, 401);
        assert_eq!(response.field_str("www-authenticate"), Some(challenge_401(&t, scope).as_str()));
    }
    let response = t.raw(&t.session_bytes("GET", Role::Revoked, &session, &[])).unwrap();
    assert_eq!(
        response.field_str("www-authenticate"),
        Some(challenge_401(&t, "mcp:connect").as_str())
    );
}

#[test]
fn malformed_or_repeated_authorization_is_400_invalid_request() {
    let t = start();
    let token = t.token(Role::Full).to_owned();
    let cases = [
        vec![format!("Bearer {token}"), format!("Bearer {token}")],
        vec![format!("Bearer  {token} x")],
        vec!["Bearer".to_owned()],
        vec![format!("Bearer {token},")],
    ];
    for values in cases {
        let host = t.host();
        let mut fields = vec![
            ("Host", host.as_str()),
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "application/json"),
        ];
        for value in &values {
            fields.push(("Authorization", value.as_str()));
        }
        let response = t.raw(&request("POST", "/mcp", &fields, init_body().as_bytes())).unwrap();
        assert_eq!((response.status, error_code(&response).as_str()), (400, "invalid_request"));
        let expected = format!(
            r#"Bearer error="invalid_request", resource_metadata="http://127.0.0.1:{}/.well-known/oauth-protected-resource/mcp""#,
            t.port()
        );
        assert_eq!(response.field_str("www-authenticate"), Some(expected.as_str()));
    }
}

#[test]
fn a_token_in_the_query_string_is_refused_and_never_echoed() {
    let t = start();
    let token = t.token(Role::Full).to_owned();
    for target in [
        format!("/mcp?access_token={token}"),
        format!("/.well-known/oauth-protected-resource?t={token}"),
    ] {
        let bytes = format!(
            "GET {target} HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\r\n",
            t.host()
        );
        let response = t.raw(bytes.as_bytes()).unwrap();
        assert_eq!((response.status, error_code(&response).as_str()), (400, "query_forbidden"));
    }
}

#[test]
fn both_discovery_paths_serve_the_same_document_without_credentials() {
    let t = start();
    let port = t.port();
    for path in
        ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]
    {
        let response = t.raw(&request("GET", path, &[("Host", &t.host())], b"")).unwrap();
        assert_eq!(
            (response.status, response.field_str("content-type")),
            (200, Some("application/json"))
        );
        let doc = body_json(&response);
        assert_eq!(
            doc.get("resource").and_then(Value::as_str),
            Some(format!("http://127.0.0.1:{port}/mcp").as_str())
        );
        assert_eq!(
            json::encode(doc.get("authorization_servers").unwrap()),
            format!(r#"["{}"]"#, fixtures::ISSUER)
        );
        assert_eq!(
            json::encode(doc.get("scopes_supported").unwrap()),
            r#"["mcp:connect","resources:read"]"#
        );
        assert_eq!(json::encode(doc.get("bearer_methods_supported").unwrap()), r#"["header"]"#);

        let with_token = request(
            "GET",
            path,
            &[("Host", &t.host()), ("Authorization", &t.bearer(Role::Full))],
            b"",
        );
        let response = t.raw(&with_token).unwrap();
        assert_eq!(
            (response.status, error_code(&response).as_str()),
            (400, "credentials_not_accepted")
        );
    }
    // The challenge's resource_metadata points at a document that exists.
    let response = t.raw(&t.post_bytes(Role::Expired, None, init_body(), &[])).unwrap();
    let challenge = response.field_str("www-authenticate").unwrap().to_owned();
    let url = challenge.split("resource_metadata=\"").nth(1).unwrap().split('"').next().unwrap();
    let path = url.strip_prefix(&format!("http://127.0.0.1:{port}")).unwrap();
    assert_eq!(t.raw(&request("GET", path, &[("Host", &t.host())], b"")).unwrap().status, 200);
}

#[test]
fn revocation_on_a_live_session_fails_the_very_next_request() {
    let t = start();
    let session = t.open_session(Role::Full);
    let mut conn = t.connect();
    assert_eq!(
        t.exchange(&mut conn, &t.post_bytes(Role::Full, Some(&session), ping_body(), &[]))
            .unwrap()
            .status,
        200
    );
    assert!(Role::Full.revoke_in(&mut t.server.endpoint().policy_mut()));
    let response =
        t.exchange(&mut conn, &t.post_bytes(Role::Full, Some(&session), ping_body(), &[])).unwrap();
    assert_eq!((response.status, error_code(&response).as_str()), (401, "invalid_token"));
    // The session id alone authenticates nothing, and it still belongs to alice/acme at
    // revision 1: another of her tokens can use it, another subject's cannot.
    assert_eq!(
        t.raw(&t.post_bytes(Role::ConnectOnly, Some(&session), ping_body(), &[])).unwrap().status,
        200
    );
    assert_eq!(
        t.raw(&t.post_bytes(Role::OtherSubject, Some(&session), ping_body(), &[])).unwrap().status,
        404
    );
}

#[test]
fn one_connection_has_each_token_and_session_id_checked_as_itself() {
    // A connection keeps the digests of the token and session id it sent last: a request that
    // sends others must be judged by its own. Each row: who asks, in whose session, what, and
    // the status. Rows run on one kept-alive connection until a refusal closes it.
    let t = start();
    let (alice, bob) = (t.open_session(Role::Full), t.open_session(Role::OtherSubject));
    let rows: [&[(Role, &str, &str, u16)]; 3] = [
        &[
            (Role::Full, &alice, ping_body(), 200),
            (Role::ConnectOnly, &alice, ping_body(), 200),
            (Role::Full, &alice, list_body(), 200),
            (Role::ConnectOnly, &alice, list_body(), 403),
        ],
        &[(Role::Full, &alice, ping_body(), 200), (Role::Full, &bob, ping_body(), 404)],
        &[
            (Role::OtherSubject, &bob, ping_body(), 200),
            (Role::OtherSubject, &alice, ping_body(), 404),
        ],
    ];
    for (connection, requests) in rows.iter().enumerate() {
        let mut conn = t.connect();
        for (row, &(role, session, body, status)) in requests.iter().enumerate() {
            let response =
                t.exchange(&mut conn, &t.post_bytes(role, Some(session), body, &[])).unwrap();
            assert_eq!(response.status, status, "connection {connection}, row {row}");
        }
    }
    let mut conn = t.connect();
    let ping = t.post_bytes(Role::Full, Some(&alice), ping_body(), &[]);
    assert_eq!(t.exchange(&mut conn, &ping).unwrap().status, 200);
    assert_eq!(Role::Full.bump_revision_in(&mut t.server.endpoint().policy_mut()), Some(2));
    let response = t.exchange(&mut conn, &ping).unwrap();
    assert_eq!((response.status, error_code(&response).as_str()), (401, "invalid_token"));
}

#[test]
fn a_revision_change_on_a_live_session_fails_the_very_next_request() {
    let t = start();
    let session = t.open_session(Role::Full);
    assert_eq!(Role::Full.bump_revision_in(&mut t.server.endpoint().policy_mut()), Some(2));
    for role in [Role::Full, Role::ConnectOnly] {
        let response = t.raw(&t.post_bytes(role, Some(&session), ping_body(), &[])).unwrap();
        assert_eq!((response.status, error_code(&response).as_str()), (401, "invalid_token"));
    }
    // Other subjects are untouched.
    let other = t.open_session(Role::OtherSubject);
    assert_eq!(
        t.raw(&t.post_bytes(Role::OtherSubject, Some(&other), ping_body(), &[])).unwrap().status,
        200
    );
}

#[test]
fn authentication_is_checked_before_the_session_and_scope_after_it() {
    let t = start();
    let session = t.open_session(Role::Full);
    // A bad token with a good session: 401, not 200 (a session id is no credential).
    assert_eq!(
        t.raw(&t.post_bytes(Role::Inactive, Some(&session), ping_body(), &[])).unwrap().status,
        401
    );
    // A connect-only token on someone else's session: 404 (session) before 403 (scope).
    let response = t
        .raw(&t.post_bytes(Role::ConnectOnly, Some("0".repeat(48).as_str()), list_body(), &[]))
        .unwrap();
    assert_eq!((response.status, error_code(&response).as_str()), (404, "session_not_found"));
}
