//! `bench codec`: the codecs alone, timed in a loop.
//!
//! `bench codec` times the parsers in a loop: one request head parse, one JSON decode of an
//! MCP initialize, one SSE event encode; nanoseconds per operation and per byte.
//!
//! Not here: anything over a socket (the rest of `bench`).

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use loopback_mcp_http::http::{Parsed, RequestParser};
use loopback_mcp_http::json::{self, Object, Value, members, object};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::PROTOCOL_VERSION;
use loopback_mcp_http::mcp::jsonrpc::{self, Id};
use loopback_mcp_http::sse::{self, Event};

/// Nanoseconds per call of `f`, over enough calls to take about `budget`.
fn time_per_op(budget: Duration, mut f: impl FnMut()) -> f64 {
    let mut calls = 1u64;
    loop {
        let began = Instant::now();
        for _ in 0..calls {
            f();
        }
        let elapsed = began.elapsed();
        if elapsed >= budget {
            return elapsed.as_nanos() as f64 / calls as f64;
        }
        calls *= 2;
    }
}

/// An `initialize` as a typical client sends it, with a few capabilities: the JSON the codec
/// benchmark decodes.
fn typical_initialize() -> Value {
    let capabilities =
        object([("roots", object([("listChanged", true.into())])), ("sampling", object([]))]);
    let params = members([
        ("protocolVersion", PROTOCOL_VERSION.into()),
        ("capabilities", capabilities),
        ("clientInfo", object([("name", "example-client".into()), ("version", "1.0.0".into())])),
    ]);
    jsonrpc::request(&Id::from(1), "initialize", params)
}

pub(super) fn codec() -> ExitCode {
    let limits = Limits::DEFAULT;
    let head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nAuthorization: Bearer 4f3c2a1b0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b\r\nMCP-Session-Id: 0123456789abcdef0123456789abcdef0123456789abcdef\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: 40\r\n\r\n";
    let body = json::encode(&typical_initialize());
    let body = body.as_bytes();
    let event = Event {
        id: Some("0123456789abcdef-g7".into()),
        event: None,
        data: Some(String::from_utf8_lossy(body).into_owned()),
        retry: Some(1000),
    };
    let budget = Duration::from_millis(300);
    let mut parser = RequestParser::new(&limits);
    let head_ns = time_per_op(budget, || {
        parser.reset();
        black_box(matches!(parser.parse(black_box(head)), Ok(Parsed::Complete { .. })));
    });
    let json_ns = time_per_op(budget, || {
        black_box(json::decode(black_box(body), limits.json_depth_max).is_ok());
    });
    let mut out = Vec::with_capacity(512);
    let sse_ns = time_per_op(budget, || {
        out.clear();
        black_box(
            sse::encode_event(black_box(&event), limits.sse_event_bytes_max, &mut out).is_ok(),
        );
    });
    let sse_bytes = out.len();
    let entry = |ns: f64, bytes: usize| {
        let mut o = Object::new();
        let number = |x: f64| {
            Value::Number(
                json::Number::parse(&format!("{x:.2}")).unwrap_or_else(|| json::Number::from(0u64)),
            )
        };
        o.insert("ns_per_op".into(), number(ns));
        o.insert("bytes".into(), Value::from(bytes as u64));
        o.insert("ns_per_byte".into(), number(ns / bytes as f64));
        Value::Object(o)
    };
    let mut line = Object::new();
    line.insert("request_head_parse".into(), entry(head_ns, head.len()));
    line.insert("json_decode_initialize".into(), entry(json_ns, body.len()));
    line.insert("sse_encode_event".into(), entry(sse_ns, sse_bytes));
    crate::cli::print_line(&Value::Object(line));
    ExitCode::SUCCESS
}
