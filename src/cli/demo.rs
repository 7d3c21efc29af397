//! `demo`: the normal path, end to end, against a fresh in-process server, in the protocol
//! revisions `--protocol-versions` names (2025-11-25 by default, as for `serve`).
//!
//! 2025-11-25: discovery, initialize, initialized, ping (JSON), the GET stream (a priming event
//! with an id and a retry, then one notification), resources/list (an event stream), tools/list,
//! the `test_reconnection` call whose stream the server closes after its priming event (the
//! client waits the retry and resumes it with a GET and `Last-Event-ID`, and gets the result
//! there), the GET stream resumed from its cursor (only the later event), DELETE, and a last
//! ping proving the session is gone.
//!
//! 2026-07-28: `server/discover`, tools/list, the `tenant_documents` call with its arguments
//! mirrored in `Mcp-Param-Tenant` and `Mcp-Param-Limit`, the same call with a tenant header that
//! disagrees with the body (refused, `-32020`), a GET (405: this revision has no GET stream) and a
//! `ping` (404, `-32601`: this revision has no such method).
//!
//! Both: a client that speaks both revisions opens, stays in 2026-07-28 and walks that path;
//! then a 2025-11-25 client walks its own on the same server.
//!
//! Each step checks what it got; the first failure stops the demo with verdict FAIL. One JSON
//! line on stdout either way, with the round trips and the versions; what failed goes to stderr.

use std::process::ExitCode;

use super::args::Flags;
use super::local::LocalServer;
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::mcp::{McpClient, McpError, is_priming};
use loopback_mcp_http::client::modern::{Opened, modern_reply};
use loopback_mcp_http::http::TransferCodings;
use loopback_mcp_http::json::{Object, Value, members};
use loopback_mcp_http::mcp::revision::{Era, Versions};
use loopback_mcp_http::mcp::{MODERN_PROTOCOL_VERSION, PROTOCOL_VERSION};
use loopback_mcp_http::sse::Event;

/// Runs `demo [--protocol-versions LIST] [--trace | --trace-bytes]` (the trace on stderr).
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let flags = Flags::parse_traced(args, &["protocol-versions"], &[])?;
    let trace = flags.trace()?;
    let versions = match flags.one::<String>("protocol-versions")? {
        Some(list) => Versions::parse(&list).map_err(|e| format!("--protocol-versions: {e}"))?,
        None => Versions::LEGACY,
    };
    let started = LocalServer::start_speaking(trace, TransferCodings::LengthOnly, versions);
    let (round_trips, outcome) = match started {
        Ok(local) => walk(&local, versions),
        Err(e) => (0, Err(format!("the server did not start: {e}"))),
    };
    let verdict = if outcome.is_ok() { "PASS" } else { "FAIL" };
    if let Err(failure) = &outcome {
        errln!("demo failed: {failure}");
    }
    super::print_summary(&[("http_round_trips", round_trips as u64)], Some(versions), verdict);
    Ok(if outcome.is_ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Every path `versions` calls for, in order; the round trips of all of them.
fn walk(local: &LocalServer, versions: Versions) -> (usize, Result<(), String>) {
    let (legacy, modern) =
        (versions.newest_in(Era::Legacy).is_some(), versions.newest_in(Era::Modern).is_some());
    let mut round_trips = 0;
    if modern {
        let mut client = local.client(Role::Full);
        let outcome = modern_path(&mut client, versions);
        round_trips += client.round_trips();
        if let Err(failure) = outcome {
            return (round_trips, Err(client.trace.redact(&failure)));
        }
    }
    if legacy {
        let mut client = local.client(Role::Full);
        let outcome = normal_path(&mut client).map_err(|failure| client.trace.redact(&failure));
        round_trips += client.round_trips();
        return (round_trips, outcome);
    }
    (round_trips, Ok(()))
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

/// The 2025-11-25 path (the module docs).
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

    legacy_tools(client)?;
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

/// The arguments of the demo's `tenant_documents` call.
/// `tools/list` in 2025-11-25: the reconnection tool, the three slow ones and the fast one.
fn legacy_tools(client: &mut McpClient) -> Result<(), String> {
    let tools = step("tools/list", client.list_tools())?;
    let expected =
        ["test_reconnection", "count_slowly", "test_tool_with_progress", "test_tool_fast"];
    let listed = tools.len() == 5 && tools[..4] == expected && tools[4] == "test_tool_slow";
    check("tools/list", listed, "not test_reconnection, the three slow tools and the fast one")
}

fn tenant_arguments() -> Object {
    members([("tenant", "acme".into()), ("limit", Value::from(1i64))])
}

/// The 2026-07-28 path (the module docs), for a client that speaks `versions`.
fn modern_path(client: &mut McpClient, versions: Versions) -> Result<(), String> {
    let opened = step("open", client.open(versions))?;
    check("open", opened == Opened::Modern, "the client did not settle in 2026-07-28")?;
    let tools = step("tools/list", client.list_tools_modern())?;
    check("tools/list", tools.iter().any(|t| t == "tenant_documents"), "no tenant_documents")?;
    check("tools/list", client.warnings().is_empty(), "a tool was left out")?;
    let called =
        step("tools/call", client.call_tool_modern("tenant_documents", tenant_arguments()))?;
    let text = called.response.get("result").and_then(|r| r.get("content")).map(|c| c.to_owned());
    let first =
        text.as_ref().and_then(|c| c.as_array()?.first()?.get("text")?.as_str().map(str::to_owned));
    check(
        "tools/call",
        first.as_deref() == Some("kb://tenant/acme/handbook"),
        "not acme's handbook",
    )?;

    let params = members([
        ("name", "tenant_documents".into()),
        ("arguments", Value::Object(tenant_arguments())),
    ]);
    let (message, id) = client.modern_message("tools/call", params);
    let spec = step("mismatch", client.modern_spec(&message))?.set("Mcp-Param-Tenant", "globex");
    let refused = client.send_spec(&spec).map_err(McpError::from);
    match refused.and_then(|response| modern_reply(&response, &id)) {
        Err(McpError::HeaderMismatch { header, reason })
            if header == "Mcp-Param-Tenant" && reason == "header_body_mismatch" => {}
        other => return Err(format!("mismatch: expected -32020, got {}", outcome(&other))),
    }

    let get = client.session_spec("GET").with("MCP-Protocol-Version", MODERN_PROTOCOL_VERSION);
    let status = step("GET", client.send_spec(&get).map_err(McpError::from))?.status;
    check("GET", status == 405, "expected 405")?;
    match client.modern_request("ping", Object::new()) {
        Err(McpError::MethodNotFound) => Ok(()),
        other => Err(format!("ping: expected 404 with -32601, got {}", outcome(&other))),
    }
}

/// What a step got, for a failure message: the error's code, or that it succeeded.
fn outcome<T>(result: &Result<T, McpError>) -> String {
    match result {
        Ok(_) => "a success".to_owned(),
        Err(e) => e.code().to_owned(),
    }
}
