//! `attack`: hostile requests against a fresh in-process server, each of which must be refused
//! with one exact status and public error code.
//!
//! Every attack is listed on stderr with the status and public error code it got. The summary
//! line on stdout says how many were blocked; the verdict is BLOCK (exit 0) only when every one
//! got its expected status and code (a 403 for a missing scope is not a 403 for a foreign
//! tenant), and an attack that got through is named on stderr (exit 1).

use std::process::ExitCode;

use super::local::{LocalServer, PROFILE};
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::mcp::{McpClient, RequestSpec, error_code};
use loopback_mcp_http::json::{Object, Value};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::PROTOCOL_VERSION;

const PING: &str = r#"{"jsonrpc":"2.0","id":90,"method":"ping"}"#;
const LIST: &str = r#"{"jsonrpc":"2.0","id":91,"method":"resources/list"}"#;
const INIT: &str = r#"{"jsonrpc":"2.0","id":92,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"attacker","version":"1"}}}"#;

/// The live sessions the attacks aim at, one client per role that owns one.
struct Targets {
    local: LocalServer,
    alice: McpClient,
    mallory: McpClient,
    narrow: McpClient,
    carol: McpClient,
    /// An event id mallory really received on her GET stream: a cursor of another session.
    mallory_event_id: String,
}

impl Targets {
    fn open(local: LocalServer) -> Result<Targets, String> {
        let open = |role: Role| local.session(role);
        let mut mallory = open(Role::OtherSubject)?;
        let mallory_event_id = mallory
            .poll_stream(None)
            .map_err(|e| format!("other_subject: GET stream: {e}"))?
            .into_iter()
            .find_map(|event| event.id)
            .ok_or("other_subject: the GET stream carried no event id")?;
        let mut targets = Targets {
            alice: open(Role::Full)?,
            mallory,
            narrow: open(Role::ConnectOnly)?,
            carol: open(Role::TenantDenied)?,
            mallory_event_id,
            local,
        };
        // Requests below carry other clients' session ids: every trace must hide all of them.
        let sessions: Vec<String> =
            targets.clients().map(|c| c.session().unwrap_or_default().to_owned()).collect();
        for client in
            [&mut targets.alice, &mut targets.mallory, &mut targets.narrow, &mut targets.carol]
        {
            for session in &sessions {
                client.trace.secret(session);
            }
        }
        Ok(targets)
    }

    fn clients(&self) -> impl Iterator<Item = &McpClient> {
        [&self.alice, &self.mallory, &self.narrow, &self.carol].into_iter()
    }

    fn token(&self, role: Role) -> String {
        self.local.fixture.token(role).to_owned()
    }

    fn limits(&self) -> &Limits {
        self.local.server.endpoint().limits()
    }

    fn host(&self) -> String {
        self.local.server.address().to_string()
    }

    /// A fresh initialize (no session) carrying `role`'s token.
    fn initialize_as(&self, role: Role) -> RequestSpec {
        self.alice
            .post_spec(INIT)
            .without("MCP-Session-Id")
            .without("MCP-Protocol-Version")
            .bearer(self.local.fixture.token(role))
    }
}

/// Who sends an attack's request.
#[derive(Clone, Copy)]
enum Sender {
    Alice,
    Mallory,
    Narrow,
    Carol,
}

/// One attack: what it tries, the status that blocks it, how to build its request, and a change
/// to the server's state made once it has run (for the attacks after it).
struct Attack {
    name: &'static str,
    blocked_by: u16,
    /// The public error code the refusal must carry in its body.
    code: &'static str,
    sender: Sender,
    build: fn(&Targets) -> Vec<u8>,
    then: Option<fn(&Targets)>,
}

/// Runs every attack; `trace` prints the redacted wire trace.
pub fn run(trace: bool) -> ExitCode {
    let outcome = LocalServer::start(trace).and_then(Targets::open).map(run_all);
    // Without a server or its sessions nothing was tried: the verdict is FAIL, still one line.
    let (blocked, through) = outcome.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        (0, ATTACKS.len())
    });
    let verdict = if through == 0 { "BLOCK" } else { "FAIL" };
    let mut line = Object::new();
    line.insert("blocked_attacks".into(), Value::from(blocked as u64));
    line.insert("profile".into(), PROFILE.into());
    line.insert("protocol_version".into(), PROTOCOL_VERSION.into());
    line.insert("verdict".into(), verdict.into());
    super::print_line(&Value::Object(line));
    if through == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Returns (blocked, got through).
fn run_all(mut t: Targets) -> (usize, usize) {
    let (mut blocked, mut through) = (0, 0);
    for attack in ATTACKS {
        let bytes = (attack.build)(&t);
        let client = match attack.sender {
            Sender::Alice => &mut t.alice,
            Sender::Mallory => &mut t.mallory,
            Sender::Narrow => &mut t.narrow,
            Sender::Carol => &mut t.carol,
        };
        let response = client.send(&bytes).ok();
        let got = response.as_ref().map(|r| (r.status, error_code(r)));
        let shown = got.as_ref().map_or("no response".to_owned(), |(s, c)| format!("{s} {c}"));
        if got.as_ref().is_some_and(|(s, c)| *s == attack.blocked_by && c == attack.code) {
            blocked += 1;
            eprintln!("blocked      {shown:<36} {}", attack.name);
        } else {
            through += 1;
            let expected = format!("{} {}", attack.blocked_by, attack.code);
            eprintln!("GOT THROUGH  {shown:<36} {} (expected {expected})", attack.name);
        }
        if let Some(then) = attack.then {
            then(&t);
        }
    }
    (blocked, through)
}

fn revoke_connect_only(t: &Targets) {
    Role::ConnectOnly.revoke_in(&mut t.local.server.endpoint().policy_mut());
}

fn bump_mallorys_revision(t: &Targets) {
    Role::OtherSubject.bump_revision_in(&mut t.local.server.endpoint().policy_mut());
}

fn raw(text: String) -> Vec<u8> {
    text.into_bytes()
}

const ATTACKS: [Attack; 25] = [
    Attack {
        name: "foreign Origin (a browser page elsewhere)",
        blocked_by: 403,
        code: "origin_not_allowed",
        sender: Sender::Alice,
        build: |t| t.initialize_as(Role::Full).with("Origin", "http://evil.example").bytes(),
        then: None,
    },
    Attack {
        name: "DNS rebinding (foreign Host)",
        blocked_by: 421,
        code: "host_not_allowed",
        sender: Sender::Alice,
        build: |t| t.initialize_as(Role::Full).set("Host", "evil.example").bytes(),
        then: None,
    },
    Attack {
        name: "token issued for another resource (audience)",
        blocked_by: 401,
        code: "invalid_token",
        sender: Sender::Alice,
        build: |t| t.initialize_as(Role::WrongAudience).bytes(),
        then: None,
    },
    Attack {
        name: "token whose authorization request named another resource",
        blocked_by: 401,
        code: "invalid_token",
        sender: Sender::Alice,
        build: |t| t.initialize_as(Role::WrongAuthorizationResource).bytes(),
        then: None,
    },
    Attack {
        name: "token whose token request named another resource",
        blocked_by: 401,
        code: "invalid_token",
        sender: Sender::Alice,
        build: |t| t.initialize_as(Role::WrongTokenResource).bytes(),
        then: None,
    },
    Attack {
        name: "token from another issuer",
        blocked_by: 401,
        code: "invalid_token",
        sender: Sender::Alice,
        build: |t| t.initialize_as(Role::WrongIssuer).bytes(),
        then: None,
    },
    Attack {
        name: "expired token",
        blocked_by: 401,
        code: "invalid_token",
        sender: Sender::Alice,
        build: |t| t.initialize_as(Role::Expired).bytes(),
        then: None,
    },
    Attack {
        name: "token at a stale authorization revision",
        blocked_by: 401,
        code: "invalid_token",
        sender: Sender::Alice,
        build: |t| t.initialize_as(Role::StaleRevision).bytes(),
        then: None,
    },
    Attack {
        name: "another subject's token on a live session",
        blocked_by: 404,
        code: "session_not_found",
        sender: Sender::Mallory,
        build: |t| {
            t.mallory
                .post_spec(PING)
                .set("MCP-Session-Id", t.alice.session().unwrap_or_default())
                .bytes()
        },
        then: None,
    },
    Attack {
        name: "a session id alone, without a token",
        blocked_by: 401,
        code: "missing_credentials",
        sender: Sender::Alice,
        build: |t| t.alice.post_spec(PING).without("Authorization").bytes(),
        then: None,
    },
    Attack {
        name: "skipping the scope step-up (connect-only token lists resources)",
        blocked_by: 403,
        code: "insufficient_scope",
        sender: Sender::Narrow,
        build: |t| t.narrow.post_spec(LIST).bytes(),
        then: None,
    },
    Attack {
        name: "tenant outside the ACL reads resources",
        blocked_by: 403,
        code: "forbidden",
        sender: Sender::Carol,
        build: |t| t.carol.post_spec(LIST).bytes(),
        then: None,
    },
    Attack {
        name: "token in the query string",
        blocked_by: 400,
        code: "query_forbidden",
        sender: Sender::Alice,
        build: |t| {
            raw(format!(
                "GET /mcp?access_token={} HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\r\n",
                t.token(Role::Full),
                t.host()
            ))
        },
        then: None,
    },
    Attack {
        name: "request smuggling (Transfer-Encoding with Content-Length)",
        blocked_by: 400,
        code: "transfer_encoding_with_content_length",
        sender: Sender::Alice,
        build: |t| {
            raw(format!(
                "POST /mcp HTTP/1.1\r\nHost: {}\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n",
                t.host()
            ))
        },
        then: None,
    },
    Attack {
        name: "request smuggling (space before the colon)",
        blocked_by: 400,
        code: "whitespace_before_colon",
        sender: Sender::Alice,
        build: |t| {
            raw(format!(
                "POST /mcp HTTP/1.1\r\nHost: {}\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n",
                t.host()
            ))
        },
        then: None,
    },
    Attack {
        name: "bare LF line ending",
        blocked_by: 400,
        code: "bare_lf",
        sender: Sender::Alice,
        build: |t| raw(format!("GET /mcp HTTP/1.1\nHost: {}\r\n\r\n", t.host())),
        then: None,
    },
    Attack {
        name: "oversize header value",
        blocked_by: 431,
        code: "field_value_too_large",
        sender: Sender::Alice,
        build: |t| {
            let filler = "x".repeat(t.limits().header_value_bytes_max + 1);
            t.alice.post_spec(PING).with("X-Filler", &filler).bytes()
        },
        then: None,
    },
    Attack {
        name: "oversize body",
        blocked_by: 413,
        code: "content_length_too_large",
        sender: Sender::Alice,
        build: |t| t.alice.post_spec(&" ".repeat(t.limits().request_body_bytes_max + 1)).bytes(),
        then: None,
    },
    Attack {
        name: "duplicate JSON key (ping, then initialize)",
        blocked_by: 400,
        code: "json_duplicate_key",
        sender: Sender::Alice,
        build: |t| {
            t.alice
                .post_spec(r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"initialize"}"#)
                .bytes()
        },
        then: None,
    },
    Attack {
        name: "JSON-RPC batch",
        blocked_by: 400,
        code: "batch_not_supported",
        sender: Sender::Alice,
        build: |t| t.alice.post_spec(&format!("[{PING}]")).bytes(),
        then: None,
    },
    Attack {
        name: "Draft protocol version in the header",
        blocked_by: 400,
        code: "protocol_version_unsupported",
        sender: Sender::Alice,
        build: |t| t.alice.post_spec(PING).set("MCP-Protocol-Version", "2026-07-28").bytes(),
        then: None,
    },
    Attack {
        name: "unsolicited JSON-RPC response",
        blocked_by: 400,
        code: "unsolicited_response",
        sender: Sender::Alice,
        build: |t| t.alice.post_spec(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#).bytes(),
        then: None,
    },
    Attack {
        name: "Last-Event-ID from another session",
        blocked_by: 400,
        code: "last_event_id_other_session",
        sender: Sender::Alice,
        build: |t| t.alice.session_spec("GET").with("Last-Event-ID", &t.mallory_event_id).bytes(),
        then: Some(revoke_connect_only),
    },
    Attack {
        name: "revoked token on a live session",
        blocked_by: 401,
        code: "invalid_token",
        sender: Sender::Narrow,
        build: |t| t.narrow.post_spec(PING).bytes(),
        then: Some(bump_mallorys_revision),
    },
    Attack {
        name: "token outlived by a revision change on a live session",
        blocked_by: 401,
        code: "invalid_token",
        sender: Sender::Mallory,
        build: |t| t.mallory.post_spec(PING).bytes(),
        then: None,
    },
];
