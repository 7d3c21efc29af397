//! Streams that stay open, over real sockets: slow calls written step by step, what a disconnect
//! means in each era, keep-alives, `subscriptions/listen`, and the budgets that bound them (the
//! share of the workers, the listens of one principal, a listen's lifetime). Each stream is read
//! raw, byte by byte as it arrives, so what is checked is what the wire carried and when.

mod common;

use std::io::{Read, Write};
use std::time::{Duration, Instant, SystemTime};

use common::server::*;
use common::wire::*;
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::revision::Versions;
use loopback_mcp_http::server::ServerConfig;

fn server(limits: Limits) -> TestServer {
    start_with(ServerConfig { limits, versions: Versions::ALL, ..ServerConfig::default() })
}

/// 16 workers: a share of 8 streams, 2 of them for one principal.
fn limits() -> Limits {
    Limits { requests_in_processing_max: 16, ..Limits::DEFAULT }
}

fn count_slowly(steps: u64, pause_ms: u64) -> String {
    format!(r#""arguments":{{"pause_ms":{pause_ms},"steps":{steps}}},"name":"count_slowly""#)
}

const PROGRESS_TOKEN: &str = r#","progressToken":"p""#;

#[test]
fn a_slow_call_is_written_step_by_step_in_chunks_before_it_has_finished() {
    let t = server(limits());
    let mut wire =
        Wire::open(&t, &modern(&t, Role::Full, "tools/call", &count_slowly(3, 50), PROGRESS_TOKEN));
    let first = wire.until("notifications/progress", 1);
    // The first step is on the wire while the call still runs.
    assert_eq!(stats(&t).calls_finished, 0, "{first}");
    assert!(first.contains("Transfer-Encoding: chunked\r\n"), "{first}");
    assert!(!first.contains("Content-Length"), "{first}");
    let whole = wire.until("\r\n0\r\n\r\n", 1);
    let body = whole.split("\r\n\r\n").skip(1).collect::<Vec<_>>().join("\r\n\r\n");
    let expected = [
        r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"p","total":3}}"#,
        r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2,"progressToken":"p","total":3}}"#,
        r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":3,"progressToken":"p","total":3}}"#,
        r#"data: {"id":7,"jsonrpc":"2.0","result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"loopback-mcp-http","version":"0.1.0"}},"content":[{"text":"counted to 3","type":"text"}],"isError":false,"resultType":"complete"}}"#,
    ];
    // One event per chunk: its size line, the event, the empty line, CRLF.
    let chunks: Vec<String> =
        expected.iter().map(|e| format!("{:x}\r\n{e}\n\n\r\n", e.len() + 2)).collect();
    assert_eq!(body, format!("{}0\r\n\r\n", chunks.concat()));
    assert_eq!(eventually(&t, |s| s.calls_finished == 1).streams_open, 0);
}

#[test]
fn closing_the_stream_cancels_a_2026_call_and_not_a_2025_one() {
    let t = server(limits());
    // 2026-07-28: the call stops; nothing more is produced.
    let mut wire =
        Wire::open(&t, &modern(&t, Role::Full, "tools/call", &count_slowly(6, 50), PROGRESS_TOKEN));
    wire.until("notifications/progress", 2);
    drop(wire);
    let after = eventually(&t, |s| s.calls_cancelled == 1);
    assert_eq!((after.calls_cancelled, after.calls_finished, after.streams_open), (1, 0, 0));
    // Longer than the four steps the call had left.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(stats(&t).calls_finished, 0, "a cancelled call never finishes");

    // 2025-11-25: the work goes on, and its rest comes back through Last-Event-ID.
    let session = t.open_session(Role::Full);
    let call = format!(
        r#"{{"id":8,"jsonrpc":"2.0","method":"tools/call","params":{{"_meta":{{"progressToken":5}},{}}}}}"#,
        count_slowly(5, 50)
    );
    let mut wire = Wire::open(&t, &t.post_bytes(Role::Full, Some(&session), &call, &[]));
    let seen = wire.until("notifications/progress", 2);
    let last_id =
        seen.lines().filter_map(|l| l.strip_prefix("id: ")).next_back().unwrap().to_owned();
    drop(wire);
    let finished = eventually(&t, |s| s.calls_finished == 1);
    assert_eq!((finished.calls_cancelled, finished.calls_finished), (1, 1));
    let resume = t.session_bytes("GET", Role::Full, &session, &[("Last-Event-ID", &last_id)]);
    // The call has finished: its rest is a whole response.
    let rest = Wire::open(&t, &resume).until("counted to 5", 1);
    for step in 3..=5 {
        assert!(
            rest.contains(&format!(r#""progress":{step},"progressToken":5,"total":5"#)),
            "{rest}"
        );
    }
    assert!(
        rest.contains(
            r#""result":{"content":[{"text":"counted to 5","type":"text"}],"isError":false}"#
        ),
        "{rest}"
    );
    assert!(!rest.contains(r#""progress":2,"#), "nothing the client already had: {rest}");
}

#[test]
fn a_resumption_of_a_call_still_running_follows_it_to_its_result() {
    let t = server(limits());
    let session = t.open_session(Role::Full);
    let call = format!(
        r#"{{"id":8,"jsonrpc":"2.0","method":"tools/call","params":{{{}}}}}"#,
        count_slowly(4, 50)
    );
    let mut wire = Wire::open(&t, &t.post_bytes(Role::Full, Some(&session), &call, &[]));
    let prime = wire.until("data:\n\n", 1);
    let prime_id =
        prime.lines().filter_map(|l| l.strip_prefix("id: ")).next_back().unwrap().to_owned();
    drop(wire);
    let resume = t.session_bytes("GET", Role::Full, &session, &[("Last-Event-ID", &prime_id)]);
    let mut tail = Wire::open(&t, &resume);
    tail.until("\r\n\r\n", 1);
    // The result is not queued yet: the resumption is a stream that stays open.
    assert_eq!(stats(&t).calls_finished, 0);
    let rest = tail.until("\r\n0\r\n\r\n", 1);
    assert!(rest.contains("counted to 4"), "{rest}");
}

#[test]
fn a_quiet_stream_sends_a_comment_line_at_its_keepalive_interval() {
    let keepalive = Duration::from_millis(50);
    let t = server(Limits { stream_keepalive: keepalive, ..limits() });
    let listen = modern(
        &t,
        Role::Full,
        "subscriptions/listen",
        r#""notifications":{"toolsListChanged":true}"#,
        "",
    );
    let mut wire = Wire::open(&t, &listen);
    let started = Instant::now();
    let seen = wire.until(": keep-alive\n\n", 2);
    assert!(started.elapsed() >= keepalive, "not before its interval");
    assert!(seen.contains("e\r\n: keep-alive\n\n\r\n"), "one comment line per chunk: {seen}");

    // A slow call without a progress token writes nothing at its steps: a step is no write, so
    // the keep-alives still come, however its pauses line up with the interval.
    let call = modern(&t, Role::Full, "tools/call", &count_slowly(3, 75), "");
    let mut wire = Wire::open(&t, &call);
    let seen = wire.until("counted to 3", 1);
    assert!(seen.matches(": keep-alive").count() >= 2, "{seen}");
}

/// The frames of a listen stream, each a JSON message, in order (keep-alives skipped).
fn frames(seen: &str) -> Vec<String> {
    seen.lines().filter_map(|l| l.strip_prefix("data: ")).map(str::to_owned).collect()
}

#[test]
fn a_listen_acknowledges_first_tags_everything_and_honours_its_filter() {
    let t = server(limits());
    let tools = modern(
        &t,
        Role::Full,
        "subscriptions/listen",
        r#""notifications":{"promptsListChanged":true,"toolsListChanged":true}"#,
        "",
    );
    let prompts = modern(
        &t,
        Role::Full,
        "subscriptions/listen",
        r#""notifications":{"promptsListChanged":true}"#,
        "",
    );
    let (mut wanted, mut unwanted) = (Wire::open(&t, &tools), Wire::open(&t, &prompts));
    wanted.until("acknowledged", 1);
    unwanted.until("acknowledged", 1);
    t.server.endpoint().live().change_tools();
    let seen = frames(&wanted.until("list_changed", 1));
    assert_eq!(
        seen,
        [
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"notifications":{"toolsListChanged":true}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}"#,
        ]
    );
    // The same change, on the stream that did not ask for it: nothing.
    std::thread::sleep(Duration::from_millis(100));
    let mut buf = [0u8; 1024];
    let late = unwanted.stream.read(&mut buf).map_or(0, |n| n);
    assert_eq!(late, 0, "{}", text(&buf[..late]));
    assert_eq!(
        frames(&text(&unwanted.seen)),
        [
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"notifications":{}}}"#
        ]
    );
}

#[test]
fn a_listen_ends_gracefully_at_its_lifetime_and_without_a_result_when_its_token_is_revoked() {
    let t = server(Limits { listen_lifetime: Duration::from_millis(200), ..limits() });
    let listen = modern(
        &t,
        Role::Full,
        "subscriptions/listen",
        r#""notifications":{"toolsListChanged":true}"#,
        "",
    );
    let ended = Wire::open(&t, &listen).until("\r\n0\r\n\r\n", 1);
    assert_eq!(
        frames(&ended)[1..],
        [
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"reason":"listen_lifetime","requestId":7}}"#,
            r#"{"id":7,"jsonrpc":"2.0","result":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"resultType":"complete"}}"#,
        ]
    );
    let t = server(limits());
    let listen = modern(
        &t,
        Role::OtherSubject,
        "subscriptions/listen",
        r#""notifications":{"toolsListChanged":true}"#,
        "",
    );
    let mut wire = Wire::open(&t, &listen);
    wire.until("acknowledged", 1);
    Role::OtherSubject.revoke_in(&mut t.server.endpoint().policy_mut());
    let revoked = wire.until("\r\n0\r\n\r\n", 1);
    assert_eq!(
        frames(&revoked)[1..],
        [
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"reason":"token_revoked","requestId":7}}"#
        ]
    );
    assert_eq!(eventually(&t, |s| s.listens_open == 0).listens_open, 0);
}

#[test]
fn a_stopping_server_ends_every_listen_gracefully() {
    let mut t = server(limits());
    let listen = modern(
        &t,
        Role::Full,
        "subscriptions/listen",
        r#""notifications":{"toolsListChanged":true}"#,
        "",
    );
    let mut wire = Wire::open(&t, &listen);
    wire.until("acknowledged", 1);
    t.server.stop();
    let ended = frames(&wire.until("\r\n0\r\n\r\n", 1));
    assert!(ended[1].contains(r#""reason":"server_stopping""#), "{ended:?}");
    assert!(ended[2].contains(r#""resultType":"complete""#), "{ended:?}");
}

/// The status line and the `Retry-After` of an answer that was refused at once, and its body.
fn refused(wire: &mut Wire) -> (String, String) {
    let seen = wire.until_close();
    let status = seen.lines().next().unwrap_or_default().to_owned();
    let retry = seen.lines().find(|l| l.starts_with("Retry-After:")).unwrap_or_default().to_owned();
    (format!("{status} {retry}"), seen.lines().last().unwrap_or_default().to_owned())
}

/// A listen of `role` that opted in to nothing.
fn listen(t: &TestServer, role: Role) -> Vec<u8> {
    modern(t, role, "subscriptions/listen", r#""notifications":{}"#, "")
}

/// A stream opened and acknowledged (a listen) or begun (a slow call): its connection, held.
fn opened(t: &TestServer, request: &[u8], first: &str) -> Wire {
    let mut wire = Wire::open(t, request);
    wire.until(first, 1);
    wire
}

#[test]
fn open_streams_hold_at_most_their_share_and_one_principal_its_listens() {
    // 4 workers: a share of 2 (never the last worker), one stream for each principal.
    let t = server(Limits { requests_in_processing_max: 4, ..limits() });
    let held = [opened(&t, &listen(&t, Role::Full), "acknowledged")];
    // One more for alice: her part of the share (429), before the share is looked at.
    let (line, body) = refused(&mut Wire::open(&t, &listen(&t, Role::Full)));
    assert_eq!(line, "HTTP/1.1 429 Too Many Requests Retry-After: 1");
    assert!(body.contains(r#""message":"stream_quota""#), "{body}");
    let mallory = opened(&t, &listen(&t, Role::OtherSubject), "acknowledged");
    assert_eq!((stats(&t).streams_open, stats(&t).listens_open), (2, 2));
    // A third principal's listen, or its slow call: the share is taken (503).
    let carol_call = modern(&t, Role::TenantDenied, "tools/call", &count_slowly(1, 0), "");
    for request in [listen(&t, Role::TenantDenied), carol_call] {
        let (line, body) = refused(&mut Wire::open(&t, &request));
        assert_eq!(line, "HTTP/1.1 503 Service Unavailable Retry-After: 1");
        assert!(body.contains(r#""message":"stream_share_taken""#), "{body}");
    }
    // Plain requests are answered meanwhile.
    let discover = t.raw(&modern(&t, Role::Full, "server/discover", "", "")).unwrap();
    assert_eq!(discover.status, 200);
    // A stream that ends gives its place back.
    drop((held, mallory));
    assert_eq!(eventually(&t, |s| s.streams_open == 0).listens_open, 0);
    opened(&t, &listen(&t, Role::TenantDenied), "acknowledged");

    // The default share of 64 workers (32), and alice's default part of it (8): 4 listens at
    // most, then any stream up to 8; another principal still streams.
    let t = server(Limits::DEFAULT);
    let mut held: Vec<Wire> =
        (0..4).map(|_| opened(&t, &listen(&t, Role::Full), "acknowledged")).collect();
    let (line, body) = refused(&mut Wire::open(&t, &listen(&t, Role::Full)));
    assert_eq!(line, "HTTP/1.1 429 Too Many Requests Retry-After: 1");
    assert!(body.contains(r#""message":"listen_quota""#), "{body}");
    let call = modern(&t, Role::Full, "tools/call", &count_slowly(20, 1000), "");
    held.extend((0..4).map(|_| opened(&t, &call, "\r\n\r\n")));
    assert_eq!((stats(&t).streams_open, stats(&t).listens_open), (8, 4));
    let (line, body) = refused(&mut Wire::open(&t, &call));
    assert_eq!(line, "HTTP/1.1 429 Too Many Requests Retry-After: 1");
    assert!(body.contains(r#""message":"stream_quota""#), "{body}");
    opened(&t, &listen(&t, Role::OtherSubject), "acknowledged");
}

#[test]
fn one_principals_abandoned_calls_hold_its_part_and_others_still_stream() {
    // alice's session: 40 slow calls of 20 steps of 1000 ms, each on a connection closed once its
    // head is read. In 2025-11-25 the work goes on without a reader, within her part.
    let t = server(Limits::DEFAULT);
    let part = Limits::DEFAULT.open_streams_per_principal_max;
    let session = t.open_session(Role::Full);
    let call = format!(
        r#"{{"id":8,"jsonrpc":"2.0","method":"tools/call","params":{{{}}}}}"#,
        count_slowly(20, 1000)
    );
    let request = t.post_bytes(Role::Full, Some(&session), &call, &[]);
    let mut statuses = Vec::new();
    for _ in 0..40 {
        let seen = Wire::open(&t, &request).until("\r\n\r\n", 1);
        statuses.push(seen.lines().next().unwrap_or_default().to_owned());
    }
    // At her part, and one past it.
    assert!(statuses[..part].iter().all(|s| s == "HTTP/1.1 200 OK"), "{statuses:?}");
    assert!(statuses[part..].iter().all(|s| s == "HTTP/1.1 429 Too Many Requests"), "{statuses:?}");
    assert_eq!(eventually(&t, |s| s.streams_open == part).streams_open, part);
    // Another principal's listen and slow call open meanwhile.
    let mallory = [
        opened(&t, &listen(&t, Role::OtherSubject), "acknowledged"),
        opened(
            &t,
            &modern(&t, Role::OtherSubject, "tools/call", &count_slowly(1, 0), ""),
            "counted to 1",
        ),
    ];
    assert!(mallory.iter().all(|wire| text(&wire.seen).starts_with("HTTP/1.1 200 OK\r\n")));
}

#[test]
fn slow_call_arguments_hold_at_their_budgets_and_are_refused_one_past() {
    let l = Limits {
        count_slowly_steps_max: 3,
        count_slowly_pause_max: Duration::from_millis(20),
        ..limits()
    };
    let t = server(l);
    let cases: [(u64, u64, &str); 5] = [
        (3, 20, "counted to 3"),
        (4, 20, r#""code":-32602,"message":"steps_invalid""#),
        (3, 21, r#""code":-32602,"message":"pause_invalid""#),
        (0, 20, r#""code":-32602,"message":"steps_invalid""#),
        (1, 0, "counted to 1"),
    ];
    for (steps, pause, expected) in cases {
        let mut wire =
            Wire::open(&t, &modern(&t, Role::Full, "tools/call", &count_slowly(steps, pause), ""));
        let seen = wire.until(expected, 1);
        assert!(seen.starts_with("HTTP/1.1 200 OK\r\n"), "{seen}");
    }
}

/// `request` sent as HTTP/1.0.
fn http10(request: &[u8]) -> Vec<u8> {
    let text = String::from_utf8(request.to_vec()).unwrap();
    text.replacen(" HTTP/1.1\r\n", " HTTP/1.0\r\n", 1).into_bytes()
}

/// A response's head and body.
fn split_head(seen: &str) -> (&str, &str) {
    seen.split_once("\r\n\r\n").unwrap_or((seen, ""))
}

#[test]
fn a_stream_answered_to_http_1_0_is_delimited_by_the_close_and_written_as_it_happens() {
    let t = server(limits());
    let call = modern(&t, Role::Full, "tools/call", &count_slowly(3, 50), PROGRESS_TOKEN);
    let mut wire = Wire::open(&t, &http10(&call));
    let first = wire.until("notifications/progress", 1);
    // The first step is on the wire while the call still runs, unframed.
    assert_eq!(stats(&t).calls_finished, 0, "{first}");
    let whole = wire.until_close();
    let (head, body) = split_head(&whole);
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    assert!(head.contains("\r\nConnection: close"), "{head}");
    assert!(!head.contains("Transfer-Encoding") && !head.contains("Content-Length"), "{head}");
    let expected = [
        r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"p","total":3}}"#,
        r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2,"progressToken":"p","total":3}}"#,
        r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":3,"progressToken":"p","total":3}}"#,
        r#"data: {"id":7,"jsonrpc":"2.0","result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"loopback-mcp-http","version":"0.1.0"}},"content":[{"text":"counted to 3","type":"text"}],"isError":false,"resultType":"complete"}}"#,
    ];
    assert_eq!(body, expected.map(|e| format!("{e}\n\n")).concat());
    assert_eq!(eventually(&t, |s| s.streams_open == 0).calls_finished, 1);

    // A listen, and a 2025-11-25 slow call in a session: the same framing, by the request's
    // version whatever the era.
    let session = t.open_session(Role::Full);
    let legacy = format!(
        r#"{{"id":8,"jsonrpc":"2.0","method":"tools/call","params":{{"_meta":{{"progressToken":5}},{}}}}}"#,
        count_slowly(2, 50)
    );
    let legacy = t.post_bytes(Role::Full, Some(&session), &legacy, &[]);
    for (request, first) in [(listen(&t, Role::Full), "acknowledged"), (legacy, "counted to 2")] {
        let mut wire = Wire::open(&t, &http10(&request));
        let seen = wire.until(first, 1);
        let (head, body) = split_head(&seen);
        assert!(head.contains("\r\nConnection: close"), "{head}");
        assert!(!head.contains("Transfer-Encoding") && !head.contains("Content-Length"), "{head}");
        let events = loopback_mcp_http::sse::parse_stream(body.as_bytes(), &Limits::DEFAULT);
        assert!(events.is_ok_and(|events| !events.is_empty()), "{body}");
        assert!(!body.contains("\r\n"), "no chunk framing: {body:?}");
    }
}

#[test]
fn bytes_pipelined_behind_an_open_stream_are_budgeted_like_any_other() {
    // A 2026-07-28 call of 20 steps of 1000 ms without a progress token writes nothing between
    // its steps. 64 KiB pipelined behind it fill the read buffer (one request of the largest
    // size and a byte): the stream is over budget, the call cancelled, the connection hung up.
    let t = server(Limits::DEFAULT);
    let call = modern(&t, Role::Full, "tools/call", &count_slowly(20, 1000), "");
    let mut wire = Wire::open(&t, &call);
    wire.until("\r\n\r\n", 1);
    let _ = wire.stream.write_all(&vec![b'x'; 64 * 1024]);
    let seen = wire.until_close();
    drop(wire);
    // Counted long before the call's own end (20 s), and never finished.
    let after = eventually(&t, |s| s.calls_cancelled == 1);
    assert_eq!((after.calls_cancelled, after.calls_finished, after.streams_open), (1, 0, 0));
    let (_, body) = split_head(&seen);
    assert_eq!(body, "", "nothing is written after the head");

    // A request pipelined within the buffer is answered once the stream has ended.
    let call = modern(&t, Role::Full, "tools/call", &count_slowly(2, 100), "");
    let discover = modern(&t, Role::Full, "server/discover", "", "");
    let mut wire = Wire::open(&t, &call);
    wire.until("\r\n\r\n", 1);
    wire.stream.write_all(&discover).unwrap();
    let seen = wire.until("supportedVersions", 1);
    let ended = seen.find("counted to 2").unwrap();
    assert!(seen[ended..].contains("\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n"), "{seen}");
    assert_eq!(eventually(&t, |s| s.calls_finished == 1).calls_cancelled, 1);
}

#[test]
fn a_request_changes_the_tool_list_its_own_tenant_sees_and_no_other() {
    let t = server(limits());
    let tools = r#""notifications":{"toolsListChanged":true}"#;
    let mut acme = opened(&t, &modern(&t, Role::Full, "subscriptions/listen", tools, ""), "ack");
    let mut globex =
        opened(&t, &modern(&t, Role::TenantDenied, "subscriptions/listen", tools, ""), "ack");
    let trigger = r#""arguments":{},"name":"test_trigger_tool_change""#;
    let changed = t.raw(&modern(&t, Role::TenantDenied, "tools/call", trigger, "")).unwrap();
    assert!(String::from_utf8_lossy(&changed.body).contains("the tool list changed"));
    globex.until("list_changed", 1);
    let listed = |role| {
        let reply = t.raw(&modern(&t, role, "tools/list", "", "")).unwrap();
        String::from_utf8_lossy(&reply.body).contains(r#""name":"spare_tool""#)
    };
    assert_eq!((listed(Role::TenantDenied), listed(Role::Full)), (true, false));
    std::thread::sleep(Duration::from_millis(100));
    assert!(!text(&acme.seen).contains("list_changed"), "another tenant's change reached acme");
    // The control plane's change is everyone's.
    t.server.endpoint().live().change_tools();
    acme.until("list_changed", 1);
    assert_eq!((listed(Role::TenantDenied), listed(Role::Full)), (false, true));
}

#[test]
fn open_streams_never_take_the_last_worker() {
    // One worker: no stream opens at all, and a plain request is answered.
    let t = server(Limits { requests_in_processing_max: 1, ..limits() });
    let (line, body) = refused(&mut Wire::open(&t, &listen(&t, Role::Full)));
    assert_eq!(line, "HTTP/1.1 503 Service Unavailable Retry-After: 1");
    assert!(body.contains(r#""message":"stream_share_taken""#), "{body}");
    assert_eq!(t.raw(&modern(&t, Role::Full, "server/discover", "", "")).unwrap().status, 200);
    // Two: one stream, and the other worker still answers while it is open.
    let t = server(Limits { requests_in_processing_max: 2, ..limits() });
    let _held = opened(&t, &listen(&t, Role::Full), "acknowledged");
    let (line, _) = refused(&mut Wire::open(&t, &listen(&t, Role::OtherSubject)));
    assert_eq!(line, "HTTP/1.1 503 Service Unavailable Retry-After: 1");
    assert_eq!(t.raw(&modern(&t, Role::Full, "server/discover", "", "")).unwrap().status, 200);
}

#[test]
fn listen_and_stream_quotas_are_keyed_by_subject_and_tenant() {
    // alice of acme holds her four listens; alice of globex is another principal.
    let t = server(Limits::DEFAULT);
    let token = "alice-of-globex-token-0123456789abcdef";
    {
        let mut policy = t.server.endpoint().policy_mut();
        let mut claims = Role::Full.claims(policy.resource(), SystemTime::now());
        (claims.tenant, claims.token_id) = ("globex".to_owned(), "alice-globex".to_owned());
        policy.set_revision("alice", "globex", claims.authorization_revision);
        policy.register(token, claims).unwrap();
    }
    let held: Vec<Wire> =
        (0..4).map(|_| opened(&t, &listen(&t, Role::Full), "acknowledged")).collect();
    let (line, _) = refused(&mut Wire::open(&t, &listen(&t, Role::Full)));
    assert_eq!(line, "HTTP/1.1 429 Too Many Requests Retry-After: 1");
    let request = text(&listen(&t, Role::Full)).replace(t.token(Role::Full), token);
    let other = opened(&t, request.as_bytes(), "acknowledged");
    assert!(text(&other.seen).starts_with("HTTP/1.1 200 OK\r\n"));
    assert_eq!(stats(&t).listens_open, 5);
    drop(held);
}

#[test]
fn a_slow_call_whose_token_is_revoked_stops_at_its_next_step_without_a_result() {
    let t = server(limits());
    let revoked =
        r#"data: {"error":{"code":-32000,"message":"token_revoked"},"id":7,"jsonrpc":"2.0"}"#;
    // 2026-07-28.
    let call = modern(&t, Role::OtherSubject, "tools/call", &count_slowly(20, 50), PROGRESS_TOKEN);
    let mut wire = Wire::open(&t, &call);
    wire.until("notifications/progress", 1);
    Role::OtherSubject.revoke_in(&mut t.server.endpoint().policy_mut());
    let seen = wire.until_close();
    assert!(seen.ends_with(&format!("{revoked}\n\n\r\n0\r\n\r\n")), "{seen}");
    assert!(!seen.contains("counted to"), "{seen}");
    let after = eventually(&t, |s| s.calls_cancelled == 1 && s.streams_open == 0);
    assert_eq!((after.calls_cancelled, after.calls_finished), (1, 0));
    // 2025-11-25: the error goes through the session's event log, as the call's response.
    let session = t.open_session(Role::ConnectOnly);
    let legacy = format!(
        r#"{{"id":7,"jsonrpc":"2.0","method":"tools/call","params":{{"_meta":{{"progressToken":5}},{}}}}}"#,
        count_slowly(20, 50)
    );
    let mut wire = Wire::open(&t, &t.post_bytes(Role::ConnectOnly, Some(&session), &legacy, &[]));
    wire.until("notifications/progress", 1);
    Role::ConnectOnly.revoke_in(&mut t.server.endpoint().policy_mut());
    let seen = wire.until_close();
    assert!(seen.contains("token_revoked") && !seen.contains("counted to"), "{seen}");
    assert_eq!(eventually(&t, |s| s.calls_cancelled == 2).calls_finished, 0);
}
