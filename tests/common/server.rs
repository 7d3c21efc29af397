//! A real server on a random loopback port with the fixture roles, and a client side that speaks
//! exact bytes to it and checks every response it receives for leaked secrets.

use std::sync::{LazyLock, Mutex};

use loopback_mcp_http::auth::fixtures::{Fixture, Role};
use loopback_mcp_http::client::mcp::{self, RequestSpec};
use loopback_mcp_http::client::{ClientError, ClientResponse, HttpConnection};
use loopback_mcp_http::json::{self, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::jsonrpc::{self, Id};
use loopback_mcp_http::mcp::requests::{self, ClientInfo};
use loopback_mcp_http::server::fixture::start_with_fixture;
use loopback_mcp_http::server::{RunningServer, ServerConfig};

/// Who the tests say they are in `initialize`.
pub const CLIENT: ClientInfo<'static> = ClientInfo { name: "test", version: "1" };

/// `initialize` (id 1) of the current revision, encoded.
pub fn init_body() -> &'static str {
    static BODY: LazyLock<String> =
        LazyLock::new(|| json::encode(&requests::initialize_current(&Id::from(1), CLIENT)));
    &BODY
}

/// `notifications/initialized`, encoded.
pub fn initialized_body() -> &'static str {
    static BODY: LazyLock<String> = LazyLock::new(|| json::encode(&requests::initialized()));
    &BODY
}

/// `ping` with id 2, encoded.
pub fn ping_body() -> &'static str {
    static BODY: LazyLock<String> = LazyLock::new(|| json::encode(&requests::ping(&Id::from(2))));
    &BODY
}

/// `ping` with this id, encoded.
pub fn ping_with_id(id: i64) -> String {
    json::encode(&requests::ping(&Id::from(id)))
}

/// The encoded empty result of request `id` (ping's answer).
pub fn empty_result(id: i64) -> String {
    json::encode(&jsonrpc::result(&Id::from(id), json::object([])))
}

/// `resources/list` with id 3, encoded.
pub fn list_body() -> &'static str {
    static BODY: LazyLock<String> =
        LazyLock::new(|| json::encode(&requests::list_resources(&Id::from(3))));
    &BODY
}

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
    let (server, fixture) = start_with_fixture(config).expect("start");
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
        HttpConnection::connect(self.server.address(), &Limits::DEFAULT).expect("connect")
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
    /// a successful initialize hands out in its `MCP-Session-Id` field; and that the response
    /// carries a `Date` in IMF-fixdate form, as every final response of this server does (the
    /// interim `100 Continue` carries none, as RFC 9110 §6.6.1 allows).
    pub fn check_no_secrets(&self, response: &ClientResponse) {
        let date = response.field_str("date").unwrap_or_default();
        let dated = response.field_count("date") == 1 && is_imf_fixdate(date);
        let interim = response.status < 200 && response.field_count("date") == 0;
        assert!(dated || interim, "a response without one IMF-fixdate Date: {date:?}");
        let secrets = self.secrets.lock().unwrap();
        let hands_out_session = is_initialize_result(response);
        let mut texts: Vec<Vec<u8>> = vec![response.body.clone()];
        for (name, value) in &response.fields {
            texts.push(name.as_bytes().to_vec());
            if !(hands_out_session && name.eq_ignore_ascii_case("mcp-session-id")) {
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
        let spec = RequestSpec::mcp_post(&self.host(), self.token(role), session, body.as_bytes());
        with_fields(spec, extra).bytes()
    }

    /// An MCP POST without a session, with a chosen `Host`.
    pub fn post_bytes_with_host(&self, role: Role, host: &str, body: &str) -> Vec<u8> {
        RequestSpec::mcp_post(host, self.token(role), None, body.as_bytes()).bytes()
    }

    /// A GET or DELETE on /mcp by `role` in `session`, plus `extra`.
    pub fn session_bytes(
        &self,
        method: &str,
        role: Role,
        session: &str,
        extra: &[(&str, &str)],
    ) -> Vec<u8> {
        let spec = RequestSpec::mcp_session(method, &self.host(), self.token(role), Some(session));
        with_fields(spec, extra).bytes()
    }

    /// Initializes a session for `role` and sends `notifications/initialized`; returns its id.
    pub fn open_session(&self, role: Role) -> String {
        let mut conn = self.connect();
        let response =
            self.exchange(&mut conn, &self.post_bytes(role, None, init_body(), &[])).unwrap();
        assert_eq!(response.status, 200, "{}", String::from_utf8_lossy(&response.body));
        let id = response.field_str("mcp-session-id").expect("session id").to_owned();
        self.remember(&id);
        let response = self
            .exchange(&mut conn, &self.post_bytes(role, Some(&id), initialized_body(), &[]))
            .unwrap();
        assert_eq!(response.status, 202);
        id
    }
}

fn with_fields(spec: RequestSpec, extra: &[(&str, &str)]) -> RequestSpec {
    extra.iter().fold(spec, |spec, (name, value)| spec.with(name, value))
}

/// `Sun, 06 Nov 1994 08:49:37 GMT`: the shape of every IMF-fixdate.
fn is_imf_fixdate(value: &str) -> bool {
    let b = value.as_bytes();
    let digits = |range: std::ops::Range<usize>| b[range].iter().all(u8::is_ascii_digit);
    b.len() == 29
        && ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].contains(&&value[..3])
        && &value[3..5] == ", "
        && digits(5..7)
        && ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            .contains(&&value[8..11])
        && digits(12..16)
        && digits(17..19)
        && digits(20..22)
        && digits(23..25)
        && value.ends_with(" GMT")
}

/// A 200 whose body is an initialize result: the one response that hands out a session id.
fn is_initialize_result(response: &ClientResponse) -> bool {
    response.status == 200
        && json::decode(&response.body, Limits::DEFAULT.json_depth_max)
            .is_ok_and(|v| v.get("result").and_then(|r| r.get("protocolVersion")).is_some())
}

/// The body as JSON.
pub fn body_json(response: &ClientResponse) -> Value {
    json::decode(&response.body, Limits::DEFAULT.json_depth_max).unwrap_or_else(|e| {
        panic!("body is not JSON ({e}): {:?}", String::from_utf8_lossy(&response.body))
    })
}

/// The public code in an error body; the body must be JSON.
pub fn error_code(response: &ClientResponse) -> String {
    body_json(response);
    mcp::error_code(response)
}
