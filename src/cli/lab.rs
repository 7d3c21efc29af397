//! `lab`: change one thing in a correct request, predict the status, and compare.
//!
//! Each experiment starts a fresh in-process server, sends a correct baseline request and then the
//! same request with one change, and shows for both the prediction (status, plus the public error
//! code or the header that matters) and what came back, with a one-line explanation. `lab list`
//! names the experiments, `lab run <name>` runs one, `lab run all` runs them all. The last line on
//! stdout is a JSON summary; the exit status is nonzero when any observation differs from its
//! prediction.

use std::process::ExitCode;

use super::local::{LocalServer, PROFILE};
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::ClientResponse;
use loopback_mcp_http::client::mcp::{McpClient, RequestSpec, error_code};
use loopback_mcp_http::json::{Object, Value};
use loopback_mcp_http::mcp::PROTOCOL_VERSION;

const PING: &str = r#"{"jsonrpc":"2.0","id":40,"method":"ping"}"#;
const LIST: &str = r#"{"jsonrpc":"2.0","id":41,"method":"resources/list"}"#;

/// What, besides the status, an observation is judged on.
#[derive(Clone, Copy, Debug)]
enum Key {
    Nothing,
    /// The public error code in the body.
    Code(&'static str),
    /// A header whose value contains this text.
    Header(&'static str, &'static str),
    /// The body contains this text.
    Body(&'static str),
}

/// One request of an experiment and what was predicted for it.
struct Probe {
    label: String,
    change: String,
    status: u16,
    key: Key,
}

/// What one probe predicted and what it got.
struct Observation {
    probe: Probe,
    status: Option<u16>,
    key_seen: String,
    matched: bool,
}

struct Experiment {
    name: &'static str,
    explanation: &'static str,
    run: fn(&mut Lab) -> Result<Vec<Observation>, String>,
}

/// A fresh server and a client of `full` with an initialized session.
struct Lab {
    local: LocalServer,
    alice: McpClient,
}

impl Lab {
    fn start(trace: bool) -> Result<Lab, String> {
        let local = LocalServer::start(trace)?;
        let alice = local.session(Role::Full)?;
        Ok(Lab { local, alice })
    }

    /// Sends `spec` with `client` and judges the reply against the probe.
    fn observe(client: &mut McpClient, spec: &RequestSpec, probe: Probe) -> Observation {
        let response = client.send_spec(spec).ok();
        judge(probe, response.as_ref(), client)
    }
}

/// The commonest experiment: alice's well-formed ping (200), then the same ping with one change
/// made by `change`, predicted to get `status` and `key`.
fn ping_with_one_change(
    lab: &mut Lab,
    change: fn(RequestSpec) -> RequestSpec,
    described: &str,
    status: u16,
    key: Key,
) -> Vec<Observation> {
    let base = lab.alice.post_spec(PING);
    let changed = change(base.clone());
    vec![
        Lab::observe(
            &mut lab.alice,
            &base,
            probe("baseline", "a well-formed ping", 200, Key::Nothing),
        ),
        Lab::observe(&mut lab.alice, &changed, probe("changed", described, status, key)),
    ]
}

fn probe(label: &str, change: &str, status: u16, key: Key) -> Probe {
    Probe { label: label.to_owned(), change: change.to_owned(), status, key }
}

fn judge(probe: Probe, response: Option<&ClientResponse>, client: &McpClient) -> Observation {
    let Some(response) = response else {
        return Observation { probe, status: None, key_seen: "no response".into(), matched: false };
    };
    let (key_seen, key_ok) = match probe.key {
        Key::Nothing => (String::new(), true),
        Key::Code(code) => {
            let seen = error_code(response);
            let ok = seen == code;
            (seen, ok)
        }
        Key::Header(name, want) => {
            let seen = response.field_str(name).unwrap_or("").to_owned();
            let ok = seen.contains(want);
            (format!("{name}: {seen}"), ok)
        }
        Key::Body(want) => {
            let body = String::from_utf8_lossy(&response.body).into_owned();
            let ok = body.contains(want);
            (if ok { format!("body has {want}") } else { "body lacks it".into() }, ok)
        }
    };
    // Observations never print a token or a session id: the trace knows every one the client
    // has seen (all fixture tokens included), whether or not it prints.
    let key_seen = client.trace.redact(&key_seen);
    let matched = response.status == probe.status && key_ok;
    Observation { status: Some(response.status), key_seen, matched, probe }
}

const EXPERIMENTS: [Experiment; 11] = [
    Experiment {
        name: "accept-without-sse",
        explanation: "A POST must list both application/json and text/event-stream in Accept; without the stream type the server answers 406.",
        run: |lab| {
            Ok(ping_with_one_change(
                lab,
                |base| base.set("Accept", "application/json"),
                "Accept: application/json",
                406,
                Key::Code("not_acceptable"),
            ))
        },
    },
    Experiment {
        name: "content-type-text-plain",
        explanation: "A POST body must be declared application/json: 415. This is this project's hardening rule, not a MUST of the transport specification.",
        run: |lab| {
            Ok(ping_with_one_change(
                lab,
                |base| base.set("Content-Type", "text/plain"),
                "Content-Type: text/plain",
                415,
                Key::Code("unsupported_media_type"),
            ))
        },
    },
    Experiment {
        name: "missing-protocol-version",
        explanation: "After initialize every request carries MCP-Protocol-Version: 2025-11-25; without it: 400.",
        run: |lab| {
            Ok(ping_with_one_change(
                lab,
                |base| base.without("MCP-Protocol-Version"),
                "no MCP-Protocol-Version",
                400,
                Key::Code("protocol_version_unsupported"),
            ))
        },
    },
    Experiment {
        name: "missing-session-id",
        explanation: "Every request after initialize carries the session id; without it: 400 (a stale or unknown one would be 404).",
        run: |lab| {
            Ok(ping_with_one_change(
                lab,
                |base| base.without("MCP-Session-Id"),
                "no MCP-Session-Id",
                400,
                Key::Code("session_missing"),
            ))
        },
    },
    Experiment {
        name: "draft-version",
        explanation: "Proposing the 2026-07-28 Draft in the initialize body is not an error: the server answers with 2025-11-25 and the client decides. The Draft in the MCP-Protocol-Version header is a plain 400.",
        run: |lab| {
            let init = |version: &str| {
                format!(
                    r#"{{"jsonrpc":"2.0","id":42,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"lab","version":"1"}}}}}}"#
                )
            };
            let fresh = |lab: &Lab, body: &str| {
                lab.alice.post_spec(body).without("MCP-Session-Id").without("MCP-Protocol-Version")
            };
            let base = fresh(lab, &init(PROTOCOL_VERSION));
            let body_draft = fresh(lab, &init("2026-07-28"));
            let header_draft = lab.alice.post_spec(PING).set("MCP-Protocol-Version", "2026-07-28");
            Ok(vec![
                Lab::observe(
                    &mut lab.alice,
                    &base,
                    probe(
                        "baseline",
                        "initialize proposing 2025-11-25",
                        200,
                        Key::Body(r#""protocolVersion":"2025-11-25""#),
                    ),
                ),
                Lab::observe(
                    &mut lab.alice,
                    &body_draft,
                    probe(
                        "changed",
                        "initialize proposing 2026-07-28",
                        200,
                        Key::Body(r#""protocolVersion":"2025-11-25""#),
                    ),
                ),
                Lab::observe(
                    &mut lab.alice,
                    &header_draft,
                    probe(
                        "changed",
                        "MCP-Protocol-Version: 2026-07-28",
                        400,
                        Key::Code("protocol_version_unsupported"),
                    ),
                ),
            ])
        },
    },
    Experiment {
        name: "token-in-query",
        explanation: "A token never travels in a URL: any query string is refused (400), and the refusal does not repeat it.",
        run: |lab| {
            let base = lab.alice.session_spec("GET");
            let token = lab.local.fixture.token(Role::Full).to_owned();
            let mut changed = base.clone().without("Authorization");
            changed.target = format!("/mcp?access_token={token}");
            Ok(vec![
                Lab::observe(
                    &mut lab.alice,
                    &base,
                    probe(
                        "baseline",
                        "GET stream with the token in Authorization",
                        200,
                        Key::Nothing,
                    ),
                ),
                Lab::observe(
                    &mut lab.alice,
                    &changed,
                    probe(
                        "changed",
                        "the token in ?access_token=",
                        400,
                        Key::Code("query_forbidden"),
                    ),
                ),
            ])
        },
    },
    Experiment {
        name: "other-subject-session",
        explanation: "A session belongs to the principal that opened it. Another subject's valid token with it gets 404, exactly like a session that does not exist: no disclosure of ownership.",
        run: |lab| {
            let base = lab.alice.post_spec(PING);
            let changed = base.clone().bearer(lab.local.fixture.token(Role::OtherSubject));
            Ok(vec![
                Lab::observe(
                    &mut lab.alice,
                    &base,
                    probe("baseline", "alice's token, alice's session", 200, Key::Nothing),
                ),
                Lab::observe(
                    &mut lab.alice,
                    &changed,
                    probe(
                        "changed",
                        "mallory's token, alice's session",
                        404,
                        Key::Code("session_not_found"),
                    ),
                ),
            ])
        },
    },
    Experiment {
        name: "scope-vs-invalid-token",
        explanation: "A valid token without the needed scope is 403 insufficient_scope with the scopes to ask for; a token that is not valid here is 401 invalid_token. Only the first invites a step-up.",
        run: |lab| {
            let mut narrow = lab.local.session(Role::ConnectOnly)?;
            let base = lab.alice.post_spec(LIST);
            let scope = narrow.post_spec(LIST);
            let expired = base.clone().bearer(lab.local.fixture.token(Role::Expired));
            Ok(vec![
                Lab::observe(
                    &mut lab.alice,
                    &base,
                    probe("baseline", "resources/list with both scopes", 200, Key::Nothing),
                ),
                Lab::observe(
                    &mut narrow,
                    &scope,
                    probe(
                        "changed",
                        "a token with mcp:connect only",
                        403,
                        Key::Header(
                            "www-authenticate",
                            r#"error="insufficient_scope", scope="mcp:connect resources:read""#,
                        ),
                    ),
                ),
                Lab::observe(
                    &mut lab.alice,
                    &expired,
                    probe(
                        "changed",
                        "an expired token",
                        401,
                        Key::Header("www-authenticate", r#"error="invalid_token""#),
                    ),
                ),
            ])
        },
    },
    Experiment {
        name: "rfc8707-resource-elsewhere",
        explanation: "A token is accepted only if both the authorization request and the token request named this server as the RFC 8707 resource; either naming another server gives 401, with the same challenge.",
        run: |lab| {
            let base = lab.alice.post_spec(PING);
            let with = |role: Role| base.clone().bearer(lab.local.fixture.token(role));
            let (authz, token) =
                (with(Role::WrongAuthorizationResource), with(Role::WrongTokenResource));
            Ok(vec![
                Lab::observe(
                    &mut lab.alice,
                    &base,
                    probe("baseline", "both requests named this server", 200, Key::Nothing),
                ),
                Lab::observe(
                    &mut lab.alice,
                    &authz,
                    probe(
                        "changed",
                        "the authorization request named another server",
                        401,
                        Key::Header("www-authenticate", r#"error="invalid_token""#),
                    ),
                ),
                Lab::observe(
                    &mut lab.alice,
                    &token,
                    probe(
                        "changed",
                        "the token request named another server",
                        401,
                        Key::Header("www-authenticate", r#"error="invalid_token""#),
                    ),
                ),
            ])
        },
    },
    Experiment {
        name: "revoke-or-revision-then-reuse",
        explanation: "Revocation and a new authorization revision take effect on the very next request, even on a session that is still alive: 401.",
        run: |lab| {
            let mut narrow = lab.local.session(Role::ConnectOnly)?;
            let mut mallory = lab.local.session(Role::OtherSubject)?;
            let (narrow_ping, mallory_ping) = (narrow.post_spec(PING), mallory.post_spec(PING));
            let before = Lab::observe(
                &mut narrow,
                &narrow_ping,
                probe("baseline", "ping on a live session", 200, Key::Nothing),
            );
            Role::ConnectOnly.revoke_in(&mut lab.local.server.endpoint().policy_mut());
            let revoked = Lab::observe(
                &mut narrow,
                &narrow_ping,
                probe(
                    "changed",
                    "the same, after revoke",
                    401,
                    Key::Header("www-authenticate", r#"error="invalid_token""#),
                ),
            );
            Role::OtherSubject.bump_revision_in(&mut lab.local.server.endpoint().policy_mut());
            let bumped = Lab::observe(
                &mut mallory,
                &mallory_ping,
                probe(
                    "changed",
                    "another subject's ping, after a revision change",
                    401,
                    Key::Header("www-authenticate", r#"error="invalid_token""#),
                ),
            );
            Ok(vec![before, revoked, bumped])
        },
    },
    Experiment {
        name: "last-event-id",
        explanation: "Last-Event-ID resumes only this session's GET stream: an id from it returns the later events; a POST-stream id or another session's id is refused and replays nothing.",
        run: |lab| {
            let first = lab.alice.poll_stream(None).map_err(|e| format!("GET: {e}"))?;
            let cursor = first.first().and_then(|e| e.id.clone()).ok_or("GET: no event id")?;
            let (_, post_id) =
                lab.alice.list_resources().map_err(|e| format!("resources/list: {e}"))?;
            let mut other = lab.local.session(Role::Full)?;
            let others = other.poll_stream(None).map_err(|e| format!("GET: {e}"))?;
            let other_id = others.first().and_then(|e| e.id.clone()).ok_or("GET: no event id")?;
            let get = lab.alice.session_spec("GET");
            Ok(vec![
                Lab::observe(
                    &mut lab.alice,
                    &get.clone().with("Last-Event-ID", &cursor),
                    probe(
                        "baseline",
                        "Last-Event-ID of this session's GET stream",
                        200,
                        Key::Body("resources_listed"),
                    ),
                ),
                Lab::observe(
                    &mut lab.alice,
                    &get.clone().with("Last-Event-ID", &post_id),
                    probe(
                        "changed",
                        "Last-Event-ID of a POST stream",
                        400,
                        Key::Code("last_event_id_post_stream"),
                    ),
                ),
                Lab::observe(
                    &mut lab.alice,
                    &get.with("Last-Event-ID", &other_id),
                    probe(
                        "changed",
                        "Last-Event-ID of another session",
                        400,
                        Key::Code("last_event_id_other_session"),
                    ),
                ),
            ])
        },
    },
];

/// `lab list` and `lab run <name|all>`.
pub fn run(args: &[String], trace: bool) -> Result<ExitCode, String> {
    match args {
        [verb] if verb == "list" => {
            for experiment in &EXPERIMENTS {
                println!("{:<30} {}", experiment.name, experiment.explanation);
            }
            Ok(ExitCode::SUCCESS)
        }
        [verb, name] if verb == "run" => {
            let chosen: Vec<&Experiment> =
                EXPERIMENTS.iter().filter(|e| name == "all" || e.name == name).collect();
            if chosen.is_empty() {
                return Err(format!("no experiment {name:?}; `lab list` names them"));
            }
            Ok(run_experiments(&chosen, trace))
        }
        _ => Err("usage: lab list | lab run <name|all>".to_owned()),
    }
}

fn run_experiments(chosen: &[&Experiment], trace: bool) -> ExitCode {
    let (mut observations, mut mismatches) = (0usize, 0usize);
    for experiment in chosen {
        println!("== {}\n   {}", experiment.name, experiment.explanation);
        let outcome = Lab::start(trace).and_then(|mut lab| (experiment.run)(&mut lab));
        match outcome {
            Ok(seen) => {
                for observation in seen {
                    observations += 1;
                    mismatches += usize::from(!observation.matched);
                    print_observation(&observation);
                }
            }
            Err(problem) => {
                mismatches += 1;
                println!("   could not run: {problem}");
            }
        }
    }
    let mut line = Object::new();
    line.insert("experiments".into(), Value::from(chosen.len() as u64));
    line.insert("observations".into(), Value::from(observations as u64));
    line.insert("mismatches".into(), Value::from(mismatches as u64));
    line.insert("profile".into(), PROFILE.into());
    line.insert("verdict".into(), if mismatches == 0 { "PASS" } else { "FAIL" }.into());
    super::print_line(&Value::Object(line));
    if mismatches == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

fn print_observation(o: &Observation) {
    let predicted_key = match o.probe.key {
        Key::Nothing => String::new(),
        Key::Code(code) => format!(" {code}"),
        Key::Header(name, want) => format!(" {name} has {want}"),
        Key::Body(want) => format!(" body has {want}"),
    };
    let observed = o.status.map_or("no response".to_owned(), |s| s.to_string());
    let verdict = if o.matched { "as predicted" } else { "DIFFERENT" };
    println!("   {:<8} {}", o.probe.label, o.probe.change);
    println!("            predicted {}{predicted_key}", o.probe.status);
    println!("            observed  {observed} {}   {verdict}", o.key_seen);
}
