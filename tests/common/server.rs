//! A real server on a random loopback port with the fixture roles, and a client side that speaks
//! exact bytes to it and checks every response it receives for leaked secrets.

use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use loopback_mcp_http::auth::fixtures::{Fixture, Role};
use loopback_mcp_http::client::{ClientError, ClientResponse, HttpConnection, request};
use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::server::{self, RunningServer, ServerConfig};

/// How long a test client waits for any read or write.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(10);

pub const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
pub const PING: &str = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
pub const LIST: &str = r#"{"jsonrpc":"2.0","id":3,"method":"resources/list"}"#;

pub struct TestServer {
    pub server: RunningServer,
    pub fixture: Fixture,
    /// Every token and session id this test has seen, which no response may contain.
    secrets: Mutex<Vec<String>>,
}

/// A server with 16 workers and otherwise the default budgets.
pub fn start() -> TestServer {
    let limits = Limits { requests_in_processing_max: 16, ..Limits::DEFAULT };
    start_with(ServerConfig { limits, ..ServerConfig::default() })
}

pub fn start_with(config: ServerConfig) -> TestServer {
    let bound = server::bind(config).expect("bind");
    let fixture = Fixture::build(bound.port(), SystemTime::now(), &mut server::fill_os_random)
        .expect("fixture");
    let server = bound.start(fixture.policy.clone()).expect("start");
    let secrets = fixture.tokens().map(|(_, t)| t.to_owned()).collect();
    TestServer { server, fixture, secrets: Mutex::new(secrets) }
}

impl TestServer {
    pub fn port(&self) -> u16 {
        self.server.port()
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port())
    }

    pub fn token(&self, role: Role) -> &str {
        self.fixture.token(role)
    }

    pub fn bearer(&self, role: Role) -> String {
        format!("Bearer {}", self.token(role))
    }

    pub fn connect(&self) -> HttpConnection {
        HttpConnection::connect(self.server.address(), &Limits::DEFAULT, CLIENT_TIMEOUT)
            .expect("connect")
    }

    /// Sends raw bytes on a new connection and reads the final response.
    pub fn raw(&self, bytes: &[u8]) -> Result<ClientResponse, ClientError> {
        let mut conn = self.connect();
        self.exchange(&mut conn, bytes)
    }

    /// Sends raw bytes and reads the final response, checking it for leaked secrets.
    pub fn exchange(
        &self,
        conn: &mut HttpConnection,
        bytes: &[u8],
    ) -> Result<ClientResponse, ClientError> {
        let response = conn.exchange(bytes)?;
        self.check_no_secrets(&response);
        Ok(response)
    }

    /// Asserts that no known token or session id appears in the response, except the session id
    /// an initialize response hands out in its `MCP-Session-Id` field.
    pub fn check_no_secrets(&self, response: &ClientResponse) {
        let secrets = self.secrets.lock().unwrap();
        let mut texts: Vec<Vec<u8>> = vec![response.body.clone()];
        for (name, value) in &response.fields {
            texts.push(name.as_bytes().to_vec());
            if !name.eq_ignore_ascii_case("mcp-session-id") {
                texts.push(value.clone());
            }
        }
        for secret in secrets.iter() {
            for text in &texts {
                assert!(
                    !text.windows(secret.len()).any(|w| w == secret.as_bytes()),
                    "a response leaks a secret: {:?}",
                    String::from_utf8_lossy(text)
                );
            }
        }
    }

    /// Remembers a secret to scan for.
    pub fn remember(&self, secret: &str) {
        self.secrets.lock().unwrap().push(secret.to_owned());
    }

    /// The standard headers of an MCP POST by `role`, plus `extra`.
    pub fn post_bytes(
        &self,
        role: Role,
        session: Option<&str>,
        body: &str,
        extra: &[(&str, &str)],
    ) -> Vec<u8> {
        let host = self.host();
        let bearer = self.bearer(role);
        let mut fields: Vec<(&str, &str)> = vec![
            ("Host", host.as_str()),
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "application/json"),
            ("Authorization", bearer.as_str()),
        ];
        if let Some(session) = session {
            fields.push(("MCP-Session-Id", session));
            fields.push(("MCP-Protocol-Version", "2025-11-25"));
        }
        fields.extend_from_slice(extra);
        request("POST", "/mcp", &fields, body.as_bytes())
    }

    /// An MCP POST without a session, with a chosen `Host`.
    pub fn post_bytes_with_host(&self, role: Role, host: &str, body: &str) -> Vec<u8> {
        let bearer = self.bearer(role);
        let fields = [
            ("Host", host),
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "application/json"),
            ("Authorization", bearer.as_str()),
        ];
        request("POST", "/mcp", &fields, body.as_bytes())
    }

    /// A GET or DELETE on /mcp by `role` in `session`, plus `extra`.
    pub fn session_bytes(
        &self,
        method: &str,
        role: Role,
        session: &str,
        extra: &[(&str, &str)],
    ) -> Vec<u8> {
        let host = self.host();
        let bearer = self.bearer(role);
        let mut fields: Vec<(&str, &str)> = vec![
            ("Host", host.as_str()),
            ("Authorization", bearer.as_str()),
            ("MCP-Session-Id", session),
            ("MCP-Protocol-Version", "2025-11-25"),
        ];
        if method == "GET" {
            fields.push(("Accept", "text/event-stream"));
        }
        fields.extend_from_slice(extra);
        request(method, "/mcp", &fields, b"")
    }

    /// Initializes a session for `role` and sends `notifications/initialized`; returns its id.
    pub fn open_session(&self, role: Role) -> String {
        let mut conn = self.connect();
        let response = self.exchange(&mut conn, &self.post_bytes(role, None, INIT, &[])).unwrap();
        assert_eq!(response.status, 200, "{}", String::from_utf8_lossy(&response.body));
        let id = response.field_str("mcp-session-id").expect("session id").to_owned();
        self.remember(&id);
        let response =
            self.exchange(&mut conn, &self.post_bytes(role, Some(&id), INITIALIZED, &[])).unwrap();
        assert_eq!(response.status, 202);
        id
    }
}

/// The body as JSON.
pub fn body_json(response: &ClientResponse) -> Value {
    json::decode(&response.body, 64).unwrap_or_else(|e| {
        panic!("body is not JSON ({e}): {:?}", String::from_utf8_lossy(&response.body))
    })
}

/// The public code in an error body.
pub fn error_code(response: &ClientResponse) -> String {
    body_json(response)
        .get("error")
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .unwrap_or("<none>")
        .to_owned()
}
