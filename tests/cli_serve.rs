//! The `serve` command as a black box: the built binary, its announcement line, a real request,
//! the stdin control plane, and its refusal to listen anywhere but loopback.

mod common;

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::serve::{BIN, Serve};

use loopback_mcp_http::client::HttpConnection;
use loopback_mcp_http::client::mcp::RequestSpec;
use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::jsonrpc::Id;
use loopback_mcp_http::mcp::requests::{self, ClientInfo};

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_else(|| panic!("no {key} in {value:?}"))
}

fn initialize(port: u16, token: &str) -> u16 {
    let address: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let mut conn = HttpConnection::connect(address, &Limits::DEFAULT).unwrap();
    let client = ClientInfo { name: "cli-test", version: "1" };
    let body = json::encode(&requests::initialize_current(&Id::from(1), client));
    let request = RequestSpec::mcp_post(&address.to_string(), token, None, body.as_bytes());
    conn.exchange(&request.bytes()).unwrap().status
}

#[test]
fn serve_announces_itself_serves_and_obeys_control_commands() {
    // `--limit` at a budget's ceiling is accepted (one past it is refused, below).
    let mut serve = Serve::start(&[
        "--allow-origin",
        "http://app.example:3000",
        "--max-sessions",
        "4",
        "--limit",
        "list_ttl=86400s",
    ]);
    let hello = serve.line();
    let url = text(&hello, "url").to_owned();
    let port: u16 = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|r| r.strip_suffix("/mcp"))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(text(&hello, "protocol_version"), "2025-11-25");
    assert_eq!(
        text(&hello, "resource_metadata"),
        format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp")
    );
    assert_eq!(
        json::encode(hello.get("allowed_origins").unwrap()),
        format!(
            r#"["http://127.0.0.1:{port}","http://localhost:{port}","http://app.example:3000"]"#
        )
    );
    let tokens = hello.get("tokens").and_then(Value::as_object).unwrap();
    let roles: Vec<&str> = tokens.keys().map(|k| k.as_ref()).collect();
    for role in [
        "full",
        "connect_only",
        "other_subject",
        "tenant_denied",
        "unicode",
        "expired",
        "revoked",
        "inactive",
        "wrong_issuer",
        "wrong_audience",
        "wrong_authorization_resource",
        "wrong_token_resource",
        "stale_revision",
    ] {
        assert!(roles.contains(&role), "{role} missing from {roles:?}");
    }
    let full = tokens.get("full").and_then(Value::as_str).unwrap().to_owned();
    let other = tokens.get("other_subject").and_then(Value::as_str).unwrap().to_owned();

    assert_eq!(initialize(port, &full), 200);
    let reply = serve.control("revoke full");
    assert_eq!(json::encode(&reply), r#"{"command":"revoke","ok":true,"role":"full"}"#);
    assert_eq!(initialize(port, &full), 401);

    let reply = serve.control("bump-revision other_subject");
    assert_eq!(
        json::encode(&reply),
        r#"{"command":"bump-revision","ok":true,"revision":2,"role":"other_subject"}"#
    );
    assert_eq!(initialize(port, &other), 401);

    let roles = r#""roles":["full","connect_only","other_subject","tenant_denied","unicode","expired","revoked","inactive","wrong_issuer","wrong_audience","wrong_authorization_resource","wrong_token_resource","stale_revision"]"#;
    assert_eq!(
        json::encode(&serve.control("revoke nobody")),
        format!(r#"{{"error":"unknown_role","ok":false,{roles}}}"#)
    );
    assert_eq!(
        json::encode(&serve.control("launch full")),
        r#"{"error":"unknown_command","ok":false}"#
    );

    // End of stdin does not stop the server.
    drop(serve.stdin.take());
    std::thread::sleep(Duration::from_millis(200));
    assert!(serve.child.try_wait().unwrap().is_none(), "serve exited when stdin closed");
    let connect_only = tokens.get("connect_only").and_then(Value::as_str).unwrap();
    assert_eq!(initialize(port, connect_only), 200);
}

#[test]
fn serve_refuses_to_listen_beyond_loopback_and_bad_flags() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let cases: [(&[&str], &str); 15] = [
        (&["--bind", "0.0.0.0"], "binds 127.0.0.1 only"),
        (&["--workers", "0"], "workers"),
        (&["--workers", "1025"], "--workers must be 1 to 1024"),
        (&["--workers", "1000000"], "--workers must be 1 to 1024"),
        (&["--max-sessions-per-principal", "0"], "sessions_per_principal_max"),
        (&["--port", "http"], "--port"),
        (&["--frobnicate", "1"], "unknown argument"),
        (&["--port", &port], "Address already in use"),
        (&["--limit", "control_connections_max"], "the form is NAME=VALUE"),
        (&["--limit", "control_conections_max=4"], "did you mean `control_connections_max`?"),
        (&["--limit", "control_line_deadline=2 min"], "is not a value of its kind"),
        (&["--limit", "control_connections_max=-1"], "is not a value of its kind"),
        (&["--limit", "control_line_deadline=86401s"], "invalid limits"),
        (&["--limit", "control_line_deadline=0ms"], "invalid limits"),
        (&["--limit", "control_connections_max=1048577"], "invalid limits"),
    ];
    for (args, message) in cases {
        let output =
            Command::new(BIN).arg("serve").args(args).stdin(Stdio::null()).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(stderr.contains("; usage: loopback-mcp-http serve ["), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(output.stdout.is_empty());
    }
    drop(taken);
}
