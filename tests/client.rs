//! The MCP client's own checks, against a fake server that answers canned bytes: it stops the
//! handshake on a protocol version it does not speak, and refuses replies with the wrong content
//! type, a mismatched id or a malformed session id.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::thread;

use loopback_mcp_http::client::ClientError;
use loopback_mcp_http::client::mcp::{McpClient, McpError, ReplyRule};
use loopback_mcp_http::client::trace::Trace;
use loopback_mcp_http::http::ResponseErrorKind;
use loopback_mcp_http::json::{self, object};
use loopback_mcp_http::mcp::jsonrpc::{self, Id};

/// A server that answers each of `replies` to one request, in order, on one connection, and
/// returns every request it received.
fn fake(replies: Vec<String>) -> (SocketAddr, thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let handle = thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut requests = Vec::new();
        for reply in replies {
            let mut buf = vec![0u8; 65536];
            let n = stream.read(&mut buf).unwrap();
            requests.push(String::from_utf8_lossy(&buf[..n]).into_owned());
            stream.write_all(reply.as_bytes()).unwrap();
        }
        requests
    });
    (address, handle)
}

fn json_reply(fields: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{fields}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// The fake server's answer to the client's first `initialize` (id 1).
fn initialize_result(version: &str) -> String {
    let result = object([
        ("protocolVersion", version.into()),
        ("capabilities", object([])),
        ("serverInfo", object([("name", "fake".into()), ("version", "1".into())])),
    ]);
    json::encode(&jsonrpc::result(&Id::from(1), result))
}

#[test]
fn an_unsupported_server_version_stops_the_handshake_before_initialized() {
    let (address, server) =
        fake(vec![json_reply("MCP-Session-Id: abc\r\n", &initialize_result("2099-01-01"))]);
    let mut client = McpClient::new(address, "token", Trace::new(false));
    match client.initialize("2025-11-25") {
        Err(McpError::VersionUnsupported(version)) => assert_eq!(version, "2099-01-01"),
        other => panic!("{other:?}"),
    }
    assert_eq!(client.session(), None);
    assert!(matches!(client.initialized(), Err(McpError::NoSession)), "initialized is never sent");
    drop(client);
    let requests = server.join().unwrap();
    assert_eq!(requests.len(), 1);
    assert!(requests[0].contains("\r\nAuthorization: Bearer token\r\n"));
    assert!(!requests[0].lines().next().unwrap().contains("token"), "never in the URL");
}

#[test]
fn replies_that_break_the_rules_are_refused() {
    let cases: Vec<(String, ReplyRule)> = vec![
        (json_reply("", &initialize_result("2025-11-25")), ReplyRule::SessionIdMissing),
        (
            json_reply("MCP-Session-Id: has space\r\n", &initialize_result("2025-11-25")),
            ReplyRule::SessionIdInvalid,
        ),
        (
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}".to_owned(),
            ReplyRule::ContentTypeNotJson,
        ),
        (
            json_reply(
                "MCP-Session-Id: abc\r\n",
                &initialize_result("2025-11-25").replace("\"id\":1", "\"id\":2"),
            ),
            ReplyRule::IdMismatch,
        ),
        (
            json_reply("MCP-Session-Id: abc\r\n", r#"{"jsonrpc":"2.0","id":1,"method":"x"}"#),
            ReplyRule::ResultOrErrorMissing,
        ),
        (
            json_reply(
                "MCP-Session-Id: abc\r\n",
                r#"{"jsonrpc":"2.0","id":1,"result":{},"result":{}}"#,
            ),
            ReplyRule::BodyNotJson,
        ),
    ];
    for (reply, rule) in cases {
        let (address, server) = fake(vec![reply]);
        let mut client = McpClient::new(address, "token", Trace::new(false));
        match client.initialize("2025-11-25") {
            Err(error @ McpError::Reply(got)) => {
                assert_eq!(got, rule);
                assert_eq!(error.code(), rule.code());
            }
            other => panic!("{rule:?}: {other:?}"),
        }
        drop(client);
        server.join().unwrap();
    }
}

#[test]
fn an_oversized_response_is_refused_before_its_body_is_read() {
    let (address, server) = fake(vec![
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 70000\r\n\r\n".into(),
    ]);
    let mut client = McpClient::new(address, "token", Trace::new(false));
    match client.initialize("2025-11-25") {
        Err(McpError::Http(ClientError::Response(e))) => {
            assert_eq!(e.kind(), ResponseErrorKind::ResponseTooLarge { limit: 65536 });
        }
        other => panic!("{other:?}"),
    }
    drop(client);
    server.join().unwrap();
}
