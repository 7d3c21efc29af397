//! `bench`: a closed-loop load generator, and `bench codec` for the codecs alone.
//!
//! `bench [--connections N] [--seconds S] [--route ping|resources|initialize] [--url URL --token T]`
//! opens N keep-alive connections, each on its own thread, and sends one request after another
//! for S seconds, waiting for each response. Only correct responses count: the expected status,
//! content type and JSON-RPC id (for `initialize`, the pair initialize + DELETE is one operation,
//! each request timed on its own). By default the target is a server started in-process (with
//! room for 1024 sessions, so `initialize` is not limited by the default 8); `--url` and `--token`
//! aim it at any server instead. One JSON line: operations and requests per second, latency
//! percentiles, errors (`status_503` counts the 503 answers among them), and the process's
//! resident memory (server and generator together).
//!
//! `bench codec` times the parsers in a loop: one request head parse, one JSON decode of an
//! MCP initialize, one SSE event encode; nanoseconds per operation and per byte.
//!
//! Timings are measurements, never assertions: nothing here decides pass or fail.

use std::hint::black_box;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use super::args::Flags;
use loopback_mcp_http::auth::fixtures::Role;
use loopback_mcp_http::client::http::{ClientResponse, HttpConnection};
use loopback_mcp_http::client::mcp::{RequestSpec, is_priming};
use loopback_mcp_http::http::{Parsed, RequestParser};
use loopback_mcp_http::json::{self, Object, Value, members, object};
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::mcp::PROTOCOL_VERSION;
use loopback_mcp_http::mcp::jsonrpc::{self, Id};
use loopback_mcp_http::mcp::requests::{self, ClientInfo};
use loopback_mcp_http::server::fixture::start_with_fixture;
use loopback_mcp_http::server::{RunningServer, ServerConfig};
use loopback_mcp_http::sse::{self, Event};

/// What one operation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    Ping,
    Resources,
    Initialize,
}

/// A latency histogram with log-linear buckets: 16 per power of two, so about 4% resolution,
/// over the whole range of `u64` nanoseconds, in a fixed 1 KiB array.
#[derive(Clone, Debug)]
pub struct Histogram {
    buckets: Vec<u64>,
    count: u64,
    max_ns: u64,
}

const SUB_BUCKETS: u64 = 16;

impl Default for Histogram {
    fn default() -> Self {
        Histogram { buckets: vec![0; 64 * SUB_BUCKETS as usize], count: 0, max_ns: 0 }
    }
}

impl Histogram {
    fn bucket(ns: u64) -> usize {
        if ns < SUB_BUCKETS {
            return ns as usize;
        }
        let exponent = 63 - u64::from(ns.leading_zeros());
        let mantissa = (ns >> (exponent - 4)) & (SUB_BUCKETS - 1);
        ((exponent - 3) * SUB_BUCKETS + mantissa) as usize
    }

    /// The smallest value of a bucket.
    fn lower_bound(bucket: usize) -> u64 {
        let bucket = bucket as u64;
        if bucket < SUB_BUCKETS {
            return bucket;
        }
        let exponent = bucket / SUB_BUCKETS + 3;
        (SUB_BUCKETS + bucket % SUB_BUCKETS) << (exponent - 4)
    }

    pub fn record(&mut self, ns: u64) {
        self.buckets[Self::bucket(ns)] += 1;
        self.count += 1;
        self.max_ns = self.max_ns.max(ns);
    }

    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.buckets.iter_mut().zip(&other.buckets) {
            *a += b;
        }
        self.count += other.count;
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    /// The value below which `percent` of the samples fall (a bucket's lower bound).
    pub fn percentile(&self, percent: f64) -> u64 {
        let rank = ((self.count as f64) * percent / 100.0).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (bucket, n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Self::lower_bound(bucket);
            }
        }
        self.max_ns
    }
}

/// Runs `bench` with the arguments after it.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    match args.first().map(String::as_str) {
        Some("codec") if args.len() == 1 => return Ok(codec()),
        Some("codec") => return Err("bench codec takes no arguments".into()),
        Some("overload") => {
            let report = super::overload::run(&args[1..])?;
            super::print_line(&report);
            if report.get("answered_200") == Some(&Value::from(0u64))
                && report.get("answered_503") == Some(&Value::from(0u64))
            {
                let n = |key: &str| report.get(key).map_or_else(String::new, json::encode);
                eprintln!(
                    "error: no probe was answered: {} refused, {} reset, {} closed silently, {} timed out",
                    n("refused"),
                    n("resets"),
                    n("silent_closes"),
                    n("timeouts")
                );
                return Ok(ExitCode::FAILURE);
            }
            return Ok(ExitCode::SUCCESS);
        }
        _ => {}
    }
    let flags = Flags::parse(args, &["connections", "seconds", "route", "url", "token"])?;
    let connections: usize = flags.one("connections")?.unwrap_or(16);
    let seconds: u64 = flags.one("seconds")?.unwrap_or(5);
    if !(1..=1024).contains(&connections) || !(1..=600).contains(&seconds) {
        return Err("--connections must be 1-1024 and --seconds 1-600".into());
    }
    let route = match flags.one::<String>("route")?.as_deref() {
        None | Some("ping") => Route::Ping,
        Some("resources") => Route::Resources,
        Some("initialize") => Route::Initialize,
        Some(other) => return Err(format!("unknown route {other:?}")),
    };
    let target = match (flags.one::<String>("url")?, flags.one::<String>("token")?) {
        (Some(url), Some(token)) => Target::external(&url, token)?,
        (None, None) => Target::in_process()?,
        _ => return Err("--url and --token go together".into()),
    };
    let report = load(&target, route, connections, Duration::from_secs(seconds));
    super::print_line(&report);
    if let Some(why) = report.get("failure").and_then(Value::as_str) {
        eprintln!("error: nothing was answered: {why}");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Where the load goes.
struct Target {
    address: SocketAddr,
    token: String,
    /// Keeps an in-process server alive for the run.
    _server: Option<RunningServer>,
}

impl Target {
    fn in_process() -> Result<Target, String> {
        let limits = Limits { sessions_active_max: 1024, ..Limits::DEFAULT };
        let config = ServerConfig { limits, ..ServerConfig::default() };
        let (server, fixture) = start_with_fixture(config).map_err(|e| e.to_string())?;
        Ok(Target {
            address: server.address(),
            token: fixture.token(Role::Full).to_owned(),
            _server: Some(server),
        })
    }

    fn external(url: &str, token: String) -> Result<Target, String> {
        Ok(Target { address: super::args::loopback_address(url)?, token, _server: None })
    }
}

/// What one connection's thread measured.
#[derive(Default)]
struct Tally {
    operations: u64,
    requests: u64,
    errors: u64,
    /// Responses with status 503 (no free worker, or no free session slot), also counted in
    /// `errors`: load the server shed.
    unavailable: u64,
    latency: Histogram,
    /// What went wrong first, for a run in which nothing was answered.
    first_failure: Option<String>,
}

fn load(target: &Target, route: Route, connections: usize, duration: Duration) -> Value {
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(connections + 1));
    let workers: Vec<_> = (0..connections)
        .map(|i| {
            let (stop, start) = (Arc::clone(&stop), Arc::clone(&start));
            let (address, token) = (target.address, target.token.clone());
            thread::spawn(move || drive(address, &token, route, i, &start, &stop))
        })
        .collect();
    start.wait();
    let began = Instant::now();
    thread::sleep(duration);
    stop.store(true, Ordering::Release);
    let mut total = Tally::default();
    for worker in workers {
        let tally = worker.join().unwrap_or_default();
        total.operations += tally.operations;
        total.requests += tally.requests;
        total.errors += tally.errors;
        total.unavailable += tally.unavailable;
        total.latency.merge(&tally.latency);
        total.first_failure = total.first_failure.or(tally.first_failure);
    }
    let elapsed = began.elapsed().as_secs_f64();
    let us = |ns: u64| {
        Value::Number(
            json::Number::parse(&format!("{:.1}", ns as f64 / 1000.0))
                .unwrap_or_else(|| json::Number::from(0u64)),
        )
    };
    let per_second = |n: u64| Value::from((n as f64 / elapsed).round() as u64);
    let mut line = Object::new();
    line.insert("route".into(), format!("{route:?}").to_lowercase().into());
    line.insert("connections".into(), Value::from(connections as u64));
    let seconds =
        json::Number::parse(&format!("{elapsed:.3}")).unwrap_or_else(|| json::Number::from(0u64));
    line.insert("seconds".into(), Value::Number(seconds));
    line.insert("operations".into(), Value::from(total.operations));
    line.insert("operations_per_second".into(), per_second(total.operations));
    line.insert("requests_per_second".into(), per_second(total.requests));
    line.insert("p50_us".into(), us(total.latency.percentile(50.0)));
    line.insert("p90_us".into(), us(total.latency.percentile(90.0)));
    line.insert("p99_us".into(), us(total.latency.percentile(99.0)));
    line.insert("max_us".into(), us(total.latency.max_ns));
    line.insert("errors".into(), Value::from(total.errors));
    line.insert("status_503".into(), Value::from(total.unavailable));
    if let Some(kib) = resident_kib() {
        line.insert("process_rss_kib".into(), Value::from(kib));
    }
    if total.operations == 0 {
        let why = total.first_failure.unwrap_or_else(|| "no operation completed".into());
        line.insert("failure".into(), why.into());
    } else if let Some(first) = total.first_failure.filter(|_| total.errors > 0) {
        line.insert("first_error".into(), first.into());
    }
    Value::Object(line)
}

/// One connection's closed loop. A failed operation drops the connection and, for the session
/// routes, the session too (it may have expired or been ended): the next operation starts over.
fn drive(
    address: SocketAddr,
    token: &str,
    route: Route,
    index: usize,
    start: &Barrier,
    stop: &AtomicBool,
) -> Tally {
    let mut tally = Tally::default();
    let mut link = Link { address, host: address.to_string(), token, conn: None };
    let mut session = None;
    start.wait();
    let mut next_id = (index as i64) << 32;
    while !stop.load(Ordering::Acquire) {
        next_id += 1;
        let ok = match route {
            Route::Initialize => link.initialize_and_delete(next_id, &mut tally),
            Route::Ping | Route::Resources => {
                if session.is_none() {
                    session = link.open_session(&mut tally);
                }
                session.as_deref().is_some_and(|id| link.call(id, route, next_id, &mut tally))
            }
        };
        if ok {
            tally.operations += 1;
        } else {
            tally.errors += 1;
            link.conn = None;
            session = None;
            if tally.errors > 1000 && tally.operations == 0 {
                break; // the target is not answering at all
            }
        }
    }
    tally
}

/// One load connection: where it goes, with which token, over which kept-alive connection.
struct Link<'t> {
    address: SocketAddr,
    host: String,
    token: &'t str,
    conn: Option<HttpConnection>,
}

impl Link<'_> {
    /// Sends one request on the kept-alive connection (opening one if needed). Its latency is
    /// recorded only when `valid` accepts the response: errors never count as fast answers.
    fn timed(
        &mut self,
        spec: &RequestSpec,
        tally: &mut Tally,
        valid: impl FnOnce(&ClientResponse) -> bool,
    ) -> Option<ClientResponse> {
        if self.conn.is_none() {
            match HttpConnection::connect(self.address, &Limits::DEFAULT) {
                Ok(conn) => self.conn = Some(conn),
                Err(e) => {
                    let why = format!("cannot connect to {}: {e}", self.address);
                    tally.first_failure.get_or_insert(why);
                    return None;
                }
            }
        }
        let bytes = spec.bytes();
        let began = Instant::now();
        let exchanged = self.conn.as_mut()?.exchange(&bytes);
        let response = match exchanged {
            Ok(response) => response,
            Err(e) => {
                tally.first_failure.get_or_insert(format!("{}: {e}", self.address));
                return None;
            }
        };
        let elapsed = began.elapsed();
        tally.requests += 1;
        tally.unavailable += u64::from(response.status == 503);
        if !response.keep_alive {
            self.conn = None;
        }
        if !valid(&response) {
            let why = format!("{}: an unexpected answer, status {}", self.address, response.status);
            tally.first_failure.get_or_insert(why);
            return None;
        }
        tally.latency.record(u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX));
        Some(response)
    }

    fn post(&self, session: Option<&str>, message: &Value) -> RequestSpec {
        RequestSpec::mcp_post(&self.host, self.token, session, json::encode(message).as_bytes())
    }

    /// initialize + initialized; the session id.
    fn open_session(&mut self, tally: &mut Tally) -> Option<String> {
        let init = self.post(None, &requests::initialize_current(&Id::from(0), CLIENT));
        let response = self.timed(&init, tally, |r| r.status == 200)?;
        let session = response.field_str("mcp-session-id")?.to_owned();
        let note = self.post(Some(&session), &requests::initialized());
        self.timed(&note, tally, |r| r.status == 202)?;
        Some(session)
    }

    /// One ping (a JSON reply) or resources/list (an event stream) with this id.
    fn call(&mut self, session: &str, route: Route, id: i64, tally: &mut Tally) -> bool {
        let message = match route {
            Route::Ping => requests::ping(&id.into()),
            _ => requests::list_resources(&id.into()),
        };
        let request = self.post(Some(session), &message);
        self.timed(&request, tally, |response| match route {
            Route::Ping => json_reply_with_id(response, id),
            _ => event_reply_with_id(response, id),
        })
        .is_some()
    }

    /// initialize then DELETE of the new session: one operation, two timed requests.
    fn initialize_and_delete(&mut self, id: i64, tally: &mut Tally) -> bool {
        let init = self.post(None, &requests::initialize_current(&id.into(), CLIENT));
        let Some(response) = self.timed(&init, tally, |r| json_reply_with_id(r, id)) else {
            return false;
        };
        let Some(session) = response.field_str("mcp-session-id") else {
            return false;
        };
        let delete = RequestSpec::mcp_session("DELETE", &self.host, self.token, Some(session));
        self.timed(&delete, tally, |r| r.status == 204).is_some()
    }
}

/// Who `initialize` says the load generator is.
const CLIENT: ClientInfo<'static> = ClientInfo { name: "loopback-mcp-http-bench", version: "1" };

fn content_type_is(response: &ClientResponse, expected: &str) -> bool {
    response.field_str("content-type") == Some(expected)
}

/// The id of a JSON-RPC response body.
fn id_of(body: &[u8]) -> Option<i64> {
    json::decode(body, Limits::DEFAULT.json_depth_max).ok()?.get("id")?.as_number()?.as_i64()
}

/// A 200 JSON reply to request `id`.
fn json_reply_with_id(response: &ClientResponse, id: i64) -> bool {
    response.status == 200
        && content_type_is(response, "application/json")
        && id_of(&response.body) == Some(id)
}

/// A 200 event stream whose first event answers request `id`.
fn event_reply_with_id(response: &ClientResponse, id: i64) -> bool {
    response.status == 200
        && content_type_is(response, "text/event-stream")
        && sse::parse_stream(&response.body, &Limits::DEFAULT)
            .ok()
            // The stream opens with its priming event (an id, empty data): the reply follows.
            .and_then(|events| events.into_iter().find(|e| !is_priming(e)).and_then(|e| e.data))
            .is_some_and(|data| id_of(data.as_bytes()) == Some(id))
}

/// The resident set size of this process, from /proc (Linux).
fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

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

fn codec() -> ExitCode {
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
    super::print_line(&Value::Object(line));
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_monotonic_and_tight() {
        let mut previous = 0;
        for ns in [0u64, 1, 15, 16, 17, 100, 1_000, 12_345, 1_000_000, u64::MAX / 2] {
            let bucket = Histogram::bucket(ns);
            assert!(bucket >= previous);
            previous = bucket;
            let low = Histogram::lower_bound(bucket);
            assert!(low <= ns && ns - low <= ns / 16 + 1, "{ns}: bucket starts at {low}");
        }
    }

    #[test]
    fn percentiles_come_from_the_recorded_samples() {
        let mut h = Histogram::default();
        for us in 1..=100u64 {
            h.record(us * 1000);
        }
        assert!((48_000..=50_000).contains(&h.percentile(50.0)), "{}", h.percentile(50.0));
        assert!((95_000..=99_000).contains(&h.percentile(99.0)), "{}", h.percentile(99.0));
        assert_eq!(h.max_ns, 100_000);
    }
}
