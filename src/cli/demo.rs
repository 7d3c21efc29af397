//! `demo`: the normal path of a session, end to end, against a fresh in-process server.
//!
//! Discovery, initialize, initialized, ping (JSON), the GET stream (a priming event with an id
//! and a retry, then one notification), resources/list (an event stream), tools/list, the
//! `test_reconnection` call whose stream the server closes after its priming event (the client
//! waits the retry and resumes it with a GET and `Last-Event-ID`, and gets the result there),
//! the GET stream resumed from its cursor (only the later event), DELETE, and a last ping
//! proving the session is gone. Each step checks what it got; the first failure stops the demo
//! with verdict FAIL. One JSON line on stdout either way; what failed goes to stderr.

use std::process::ExitCode;

use super::local::LocalServer;
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::mcp::{McpClient, McpError, is_priming};
use loopback_mcp_http::client::trace::TraceMode;
use loopback_mcp_http::mcp::PROTOCOL_VERSION;
use loopback_mcp_http::sse::Event;

/// Runs the demo; `trace` prints the redacted wire trace to stderr.
pub fn run(trace: TraceMode) -> ExitCode {
    let (round_trips, outcome) = match LocalServer::start(trace) {
        Ok(local) => {
            let mut client = local.client(Role::Full);
            let outcome = normal_path(&mut client).map_err(|failure| client.trace.redact(&failure));
            (client.round_trips(), outcome)
        }
        Err(e) => (0, Err(format!("the server did not start: {e}"))),
    };
    let verdict = if outcome.is_ok() { "PASS" } else { "FAIL" };
    if let Err(failure) = &outcome {
        eprintln!("demo failed: {failure}");
    }
    super::print_summary(&[("http_round_trips", round_trips as u64)], true, verdict);
    if outcome.is_ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// What went wrong, for stderr (never a token or session id: only step names and codes).
fn step<T>(name: &str, result: Result<T, McpError>) -> Result<T, String> {
    result.map_err(|e| format!("{name}: {e}"))
}

fn check(name: &str, ok: bool, what: &str) -> Result<(), String> {
    if ok { Ok(()) } else { Err(format!("{name}: {what}")) }
}

/// The `data.event` of a `notifications/message` event.
fn event_name(event: &Event) -> Option<String> {
    let data = event.data.as_deref()?;
    let message = loopback_mcp_http::json::decode(
        data.as_bytes(),
        loopback_mcp_http::limits::Limits::DEFAULT.json_depth_max,
    )
    .ok()?;
    let name = message.get("params")?.get("data")?.get("event")?.as_str()?;
    Some(name.to_owned())
}

fn normal_path(client: &mut McpClient) -> Result<(), String> {
    step("discover", client.discover())?;
    let version = step("initialize", client.initialize(PROTOCOL_VERSION))?;
    check("initialize", version == PROTOCOL_VERSION, "unexpected protocol version")?;
    step("initialized", client.initialized())?;
    step("ping", client.ping())?;

    let first = step("GET stream", client.poll_stream(None))?;
    let [prime, started] = first.as_slice() else {
        return Err("GET stream: expected a priming event and one notification".into());
    };
    check("GET stream", is_priming(prime) && prime.retry.is_some(), "no priming event first")?;
    check(
        "GET stream",
        event_name(started).as_deref() == Some("session_started"),
        "not the session_started event",
    )?;
    let cursor = started.id.clone().ok_or("GET stream: the event has no id")?;

    let (uris, post_event_id) = step("resources/list", client.list_resources())?;
    check(
        "resources/list",
        uris.len() == 2 && uris.iter().all(|u| u.starts_with("kb://tenant/acme/")),
        "unexpected resources",
    )?;
    check(
        "resources/list",
        !post_event_id.is_empty() && post_event_id != cursor,
        "the event id is not unique",
    )?;

    let tools = step("tools/list", client.list_tools())?;
    check("tools/list", tools == ["test_reconnection"], "not test_reconnection alone")?;
    let called = step("tools/call test_reconnection", client.call_tool("test_reconnection"))?;
    check(
        "tools/call test_reconnection",
        called.resumptions == 1 && called.events.first().is_some_and(is_priming),
        "the result did not come after exactly one resumption of a primed stream",
    )?;

    let later = step("GET with Last-Event-ID", client.poll_stream(Some(&cursor)))?;
    let [prime, listed] = later.as_slice() else {
        return Err("GET with Last-Event-ID: expected a priming event and the later event".into());
    };
    check("GET with Last-Event-ID", is_priming(prime), "no priming event first")?;
    check(
        "GET with Last-Event-ID",
        event_name(listed).as_deref() == Some("resources_listed"),
        "not the later event",
    )?;

    let session = client.session().map(str::to_owned);
    step("DELETE", client.delete())?;
    if let Some(session) = session {
        client.use_session(&session);
    }
    match client.ping() {
        Err(McpError::Status { status: 404, .. }) => Ok(()),
        other => Err(format!("ping after DELETE: expected 404, got {other:?}")),
    }
}
