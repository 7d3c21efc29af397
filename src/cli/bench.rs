//! `bench`: a load generator, closed-loop or at a fixed rate, and `bench codec` for the codecs
//! alone.
//!
//! `bench [--connections N] [--seconds S] [--route R] [--rate N [--pid PID]] [--url URL --token T]
//! [--allow-503]` opens N keep-alive connections, each on its own thread, and sends one request after another
//! for S seconds, waiting for each response (a closed loop). Only correct responses count: the
//! expected status, content type and JSON-RPC id. The routes:
//!
//! - `ping`, and `resources` (`resources/list`, answered as an event stream), each on a session
//!   that the connection opens first (`initialize` + `initialized`, not counted as an operation);
//! - `initialize`: the pair initialize + DELETE of the new session is one operation, each
//!   request timed on its own;
//! - `raw-ping`: the same ping request (the token, a placeholder session id as long as this
//!   server's, the protocol version) without opening a session, for a server that checks
//!   nothing, such as tests/bench/raw-limit. Only the status, the content type and a `result` are
//!   checked. This server refuses it (no such session), so it needs `--url`.
//!
//! By default the target is a server started in-process, with room for its load: 1024 sessions
//! in all and for one principal (every bench connection is the same principal), a session
//! lifetime of an hour, and a worker per connection (64 at least). `--url` and `--token` aim it at
//! any loopback server instead. One JSON line: operations and requests per second, latency
//! percentiles, the answers by status, errors (`status_503` counts the 503 answers among them),
//! and the process's resident memory (server and generator together).
//!
//! `--rate N` makes it open-loop: N operations per second in all, spread evenly over the
//! connections. Operation g, counted over all connections, is due g/N seconds after the start;
//! connection i sends operations i, i + C, i + 2C, ... of C connections, one every C/N seconds.
//! A connection sends at the due time, or as soon as its previous operation is answered when that
//! is later: such a send is *late*, and its latency is still measured from its due time, so a
//! server that falls behind shows as latency, not as a lower rate. The first second is a warm-up
//! (connections and sessions opened, answers checked, nothing recorded), then S seconds are
//! measured; operations due but not sent by their end are *unsent*. The line gives the offered
//! and achieved rates, the sends and the late and unsent ones, the answers by status, the latency
//! percentiles from the due times, and the server's CPU time per operation, user and system apart,
//! in microseconds, from `/proc`, read when the measured seconds begin and once their last
//! operation is answered:
//!
//! - in-process, the threads of this process whose name starts with `loopback-mcp-` (the server
//!   names its worker, acceptor and sweeper so; `bench`'s own threads are `bench-load`, and the
//!   main thread is left out): `utime` and `stime` of each `/proc/self/task/TID/stat`;
//! - with `--url`, `--pid PID` names the server's process: `/proc/PID/stat`, which counts all its
//!   threads, ended ones included. Without `--pid` there is no CPU figure.
//!
//! `/proc` gives CPU time in clock ticks, whose rate is read once from `getconf CLK_TCK` (100 when
//! that fails, and the line then says it was assumed). The kernel's total of a thread is its exact
//! run time, its split into user and system time a sample taken at each tick; the line gives the
//! ticks counted, since a figure from a few dozen of them is coarse (more seconds or a higher rate
//! give more).
//!
//! Exit status: 0 when every operation was answered as expected; 1 when one was not, or none was
//! answered, with the reason on stderr (`--allow-503` accepts 503 answers, the load a full worker
//! pool sheds); 2 for a usage error. A late or unsent operation is a measurement, not a failure.
//!
//! `bench codec` times the parsers in a loop: one request head parse, one JSON decode of an
//! MCP initialize, one SSE event encode; nanoseconds per operation and per byte.
//!
//! Timings are measurements, never assertions: nothing here decides pass or fail on a speed.

use std::collections::BTreeMap;
use std::fs;
use std::hint::black_box;
use std::net::SocketAddr;
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread::{self, JoinHandle};
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
    RawPing,
}

impl Route {
    fn parse(name: Option<&str>) -> Result<Route, String> {
        match name {
            None | Some("ping") => Ok(Route::Ping),
            Some("resources") => Ok(Route::Resources),
            Some("initialize") => Ok(Route::Initialize),
            Some("raw-ping") => Ok(Route::RawPing),
            Some(other) => Err(format!("unknown route {other:?}")),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Route::Ping => "ping",
            Route::Resources => "resources",
            Route::Initialize => "initialize",
            Route::RawPing => "raw-ping",
        }
    }
}

/// The warm-up before the measured seconds of `--rate`.
const WARMUP: Duration = Duration::from_secs(1);
/// The most operations per second `--rate` offers.
const RATE_MAX: u64 = 100_000;
/// The prefix of the server's thread names (`server::spawn`), as `/proc` shows them.
const SERVER_THREADS: &str = "loopback-mcp-";
/// The name of `bench`'s own load threads: outside [`SERVER_THREADS`].
const LOAD_THREAD: &str = "bench-load";

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
        Some("overload") => return overload(&args[1..]),
        Some(other) if !other.starts_with('-') => {
            let near = super::help::did_you_mean(other, &["codec", "overload"]);
            return Err(format!("unknown bench mode {other:?}{near}"));
        }
        _ => {}
    }
    let plan = Plan::parse(args)?;
    let target = match (&plan.url, &plan.token) {
        (Some(url), Some(token)) => Target::external(url, token.clone())?,
        (None, None) => Target::in_process(plan.connections)?,
        _ => return Err("--url and --token go together".into()),
    };
    let (report, failure) = match plan.rate {
        None => load(&target, &plan)?,
        Some(rate) => load_at_rate(&target, &plan, rate)?,
    };
    super::print_line(&report);
    if let Some(why) = failure {
        eprintln!("error: {why}");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// `bench overload`: one line, and a failure when no probe was answered at all.
fn overload(args: &[String]) -> Result<ExitCode, String> {
    let report = super::overload::run(args)?;
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
    Ok(ExitCode::SUCCESS)
}

/// What the command line asked for.
struct Plan {
    connections: usize,
    seconds: u64,
    route: Route,
    url: Option<String>,
    token: Option<String>,
    /// Operations per second, open-loop; `None` for the closed loop.
    rate: Option<u64>,
    /// The server's process, for its CPU time at a rate.
    pid: Option<u32>,
    /// 503 answers are load shed, not unexpected.
    allow_503: bool,
}

impl Plan {
    fn parse(args: &[String]) -> Result<Plan, String> {
        let known = ["connections", "seconds", "route", "url", "token", "rate", "pid"];
        let flags = Flags::parse_with_switches(args, &known, &["allow-503"])?;
        let plan = Plan {
            connections: flags.one("connections")?.unwrap_or(16),
            seconds: flags.one("seconds")?.unwrap_or(5),
            route: Route::parse(flags.one::<String>("route")?.as_deref())?,
            url: flags.one("url")?,
            token: flags.one("token")?,
            rate: flags.one("rate")?,
            pid: flags.one("pid")?,
            allow_503: flags.has("allow-503"),
        };
        if !(1..=1024).contains(&plan.connections) || !(1..=600).contains(&plan.seconds) {
            return Err("--connections must be 1-1024 and --seconds 1-600".into());
        }
        if plan.rate.is_some_and(|rate| !(1..=RATE_MAX).contains(&rate)) {
            return Err(format!("--rate must be 1-{RATE_MAX} operations per second"));
        }
        if plan.pid.is_some() && (plan.rate.is_none() || plan.url.is_none()) {
            return Err("--pid goes with --rate and --url".into());
        }
        if plan.route == Route::RawPing && plan.url.is_none() {
            return Err(
                "--route raw-ping needs --url: this server answers pings in a session".into()
            );
        }
        Ok(plan)
    }
}

/// Where the load goes.
struct Target {
    address: SocketAddr,
    token: String,
    /// The in-process server, kept alive for the run; `None` for `--url`.
    server: Option<RunningServer>,
}

impl Target {
    /// A server in this process with room for `connections` of one principal, each with a
    /// session that outlives the longest run, and a worker each.
    fn in_process(connections: usize) -> Result<Target, String> {
        let limits = Limits {
            sessions_active_max: 1024,
            sessions_per_principal_max: 1024,
            session_ttl: Duration::from_secs(3600),
            requests_in_processing_max: connections.max(64),
            ..Limits::DEFAULT
        };
        let config = ServerConfig { limits, ..ServerConfig::default() };
        let (server, fixture) = start_with_fixture(config).map_err(|e| e.to_string())?;
        Ok(Target {
            address: server.address(),
            token: fixture.token(Role::Full).to_owned(),
            server: Some(server),
        })
    }

    fn external(url: &str, token: String) -> Result<Target, String> {
        Ok(Target { address: super::args::loopback_address(url)?, token, server: None })
    }
}

/// What one connection's thread measured.
#[derive(Default)]
struct Tally {
    /// Operations answered as expected.
    operations: u64,
    requests: u64,
    /// Operations that failed: an unexpected answer, or none.
    errors: u64,
    /// Responses with status 503 (no free worker, or no free session slot), also counted in
    /// `errors`: load the server shed.
    unavailable: u64,
    /// Every response by its status.
    answers: BTreeMap<u16, u64>,
    latency: Histogram,
    /// What went wrong first.
    first_failure: Option<String>,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.operations += other.operations;
        self.requests += other.requests;
        self.errors += other.errors;
        self.unavailable += other.unavailable;
        for (status, n) in other.answers {
            *self.answers.entry(status).or_default() += n;
        }
        self.latency.merge(&other.latency);
        self.first_failure = self.first_failure.take().or(other.first_failure);
    }

    /// Why the run failed, if it did: nothing answered, or an operation not answered as
    /// expected (503s aside when they are allowed).
    fn failure(&self, allow_503: bool) -> Option<String> {
        let first = self.first_failure.as_deref().unwrap_or("no operation completed");
        if self.operations == 0 {
            return Some(format!("nothing was answered as expected: {first}"));
        }
        let unexpected = self.errors - if allow_503 { self.unavailable } else { 0 };
        (unexpected > 0).then(|| {
            format!("{unexpected} operations were not answered as expected (first: {first})")
        })
    }

    /// The answers by status, as a JSON object.
    fn answers_json(&self) -> Value {
        let answers: Object =
            self.answers.iter().map(|(s, n)| (s.to_string().into(), Value::from(*n))).collect();
        Value::Object(answers)
    }
}

/// Starts one load thread, named outside the server's names.
fn spawn_load<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<JoinHandle<T>, String> {
    thread::Builder::new().name(LOAD_THREAD.into()).spawn(work).map_err(|e| e.to_string())
}

/// The closed loop: its line, and why it failed if it did.
fn load(target: &Target, plan: &Plan) -> Result<(Value, Option<String>), String> {
    let (route, connections) = (plan.route, plan.connections);
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(connections + 1));
    let mut workers = Vec::new();
    for i in 0..connections {
        let (stop, start) = (Arc::clone(&stop), Arc::clone(&start));
        let (address, token) = (target.address, target.token.clone());
        workers.push(spawn_load(move || drive(address, &token, route, i, &start, &stop))?);
    }
    start.wait();
    let began = Instant::now();
    thread::sleep(Duration::from_secs(plan.seconds));
    stop.store(true, Ordering::Release);
    let mut total = Tally::default();
    for worker in workers {
        total.merge(worker.join().unwrap_or_default());
    }
    let elapsed = began.elapsed().as_secs_f64();
    let per_second = |n: u64| Value::from((n as f64 / elapsed).round() as u64);
    let mut line = Object::new();
    line.insert("route".into(), route.name().into());
    line.insert("connections".into(), Value::from(connections as u64));
    line.insert("seconds".into(), decimal(elapsed, 3));
    line.insert("operations".into(), Value::from(total.operations));
    line.insert("operations_per_second".into(), per_second(total.operations));
    line.insert("requests_per_second".into(), per_second(total.requests));
    insert_latency(&mut line, &total.latency);
    line.insert("answers".into(), total.answers_json());
    line.insert("errors".into(), Value::from(total.errors));
    line.insert("status_503".into(), Value::from(total.unavailable));
    if let Some(kib) = resident_kib() {
        line.insert("process_rss_kib".into(), Value::from(kib));
    }
    if total.operations == 0 {
        let why = total.first_failure.clone().unwrap_or_else(|| "no operation completed".into());
        line.insert("failure".into(), why.into());
    } else if let Some(first) = total.first_failure.clone().filter(|_| total.errors > 0) {
        line.insert("first_error".into(), first.into());
    }
    Ok((Value::Object(line), total.failure(plan.allow_503)))
}

/// A number with `places` decimals, as JSON.
fn decimal(x: f64, places: usize) -> Value {
    let number = json::Number::parse(&format!("{x:.places$}"));
    Value::Number(number.unwrap_or_else(|| json::Number::from(0u64)))
}

/// The percentiles of `latency`, in microseconds.
fn insert_latency(line: &mut Object, latency: &Histogram) {
    let us = |ns: u64| decimal(ns as f64 / 1000.0, 1);
    line.insert("p50_us".into(), us(latency.percentile(50.0)));
    line.insert("p90_us".into(), us(latency.percentile(90.0)));
    line.insert("p99_us".into(), us(latency.percentile(99.0)));
    line.insert("max_us".into(), us(latency.max_ns));
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
    let mut link = Link::new(address, token, true);
    start.wait();
    let mut next_id = (index as i64) << 32;
    while !stop.load(Ordering::Acquire) {
        next_id += 1;
        if !link.operation(route, next_id, &mut tally)
            && tally.errors > 1000
            && tally.operations == 0
        {
            break; // the target is not answering at all
        }
    }
    tally
}

/// When each operation of an open loop is due, from its start: operation g (over all
/// connections) at g/rate seconds, connection `index` taking every `connections`-th from
/// `index` on; the warm-up before `warmup`, the measured operations until `end`.
#[derive(Clone, Copy, Debug)]
struct Schedule {
    rate: u64,
    connections: u64,
    warmup: Duration,
    end: Duration,
}

impl Schedule {
    /// When operation `k` of connection `index` is due.
    fn due(&self, index: u64, k: u64) -> Duration {
        let g = u128::from(k) * u128::from(self.connections) + u128::from(index);
        let ns = g * 1_000_000_000 / u128::from(self.rate);
        Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
    }

    /// How many operations, over all connections, are due in `[from, to)`.
    fn due_between(&self, from: Duration, to: Duration) -> u64 {
        // Operation g is due at floor(g * 1e9 / rate) ns, which is at least t ns exactly when
        // g >= ceil(t * rate / 1e9): the first operation due at or after t.
        let first_at = |t: Duration| (t.as_nanos() * u128::from(self.rate)).div_ceil(1_000_000_000);
        u64::try_from(first_at(to).saturating_sub(first_at(from))).unwrap_or(u64::MAX)
    }
}

/// What one connection measured at a rate.
#[derive(Default)]
struct Paced {
    /// Operations due in the warm-up: their failures count, nothing else.
    warm: Tally,
    /// Operations due in the measured seconds; latency from each one's due time.
    measured: Tally,
    /// Measured operations sent.
    sent: u64,
    /// Measured operations sent after their due time (the previous one was still out).
    late: u64,
    /// The connection, kept open until the server's CPU time is read.
    conn: Option<HttpConnection>,
}

/// One connection's open loop: every operation at its due time, or at once when it is late.
fn drive_at_rate(
    address: SocketAddr,
    token: &str,
    route: Route,
    index: u64,
    schedule: Schedule,
    start: Instant,
) -> Paced {
    let mut link = Link::new(address, token, false);
    let mut paced = Paced::default();
    let mut id = (index as i64) << 32;
    for k in 0.. {
        let due = schedule.due(index, k);
        let now = Instant::now().saturating_duration_since(start);
        if due >= schedule.end || now >= schedule.end {
            break;
        }
        let measured = due >= schedule.warmup;
        if now < due {
            thread::sleep(due - now);
        } else if measured {
            paced.late += 1;
        }
        id += 1;
        let tally = if measured { &mut paced.measured } else { &mut paced.warm };
        let answered = link.operation(route, id, tally);
        if measured {
            paced.sent += 1;
            if answered {
                let took = Instant::now().saturating_duration_since(start + due);
                tally.latency.record(u64::try_from(took.as_nanos()).unwrap_or(u64::MAX));
            }
        }
    }
    paced.conn = link.conn.take();
    paced
}

/// The open loop: its line, and why it failed if it did.
fn load_at_rate(
    target: &Target,
    plan: &Plan,
    rate: u64,
) -> Result<(Value, Option<String>), String> {
    let cpu = match (plan.pid, &target.server) {
        (Some(pid), _) => Some(ServerCpu::Process(pid)),
        (None, Some(_)) => Some(ServerCpu::OwnThreads),
        (None, None) => None,
    };
    if let Some(cpu) = &cpu {
        cpu.read()?; // a process that cannot be read is a usage error, found before the run
    }
    let measured = Duration::from_secs(plan.seconds);
    let schedule = Schedule {
        rate,
        connections: plan.connections as u64,
        warmup: WARMUP,
        end: WARMUP + measured,
    };
    // Every thread is started before the first operation is due.
    let start = Instant::now() + Duration::from_millis(100);
    let mut workers = Vec::new();
    for i in 0..plan.connections as u64 {
        let (address, token, route) = (target.address, target.token.clone(), plan.route);
        workers
            .push(spawn_load(move || drive_at_rate(address, &token, route, i, schedule, start))?);
    }
    let begin = start + schedule.warmup;
    thread::sleep(begin.saturating_duration_since(Instant::now()));
    let before = cpu.as_ref().map(ServerCpu::read);
    let paced: Vec<Paced> = workers.into_iter().map(|w| w.join().unwrap_or_default()).collect();
    let after = cpu.as_ref().map(ServerCpu::read);
    let spent = match (before, after) {
        (Some(Ok(before)), Some(Ok(after))) => Some(Ok(after.since(before))),
        (Some(Err(e)), _) | (_, Some(Err(e))) => Some(Err(e)),
        _ => None,
    };
    let report = RateReport::new(plan, schedule, paced);
    let line = report.line(cpu.as_ref(), spent);
    let failure = report.failure(plan.allow_503);
    Ok((line, failure))
}

/// The sums of an open loop's connections.
struct RateReport {
    route: Route,
    connections: usize,
    rate: u64,
    schedule: Schedule,
    warm: Tally,
    measured: Tally,
    sent: u64,
    late: u64,
}

impl RateReport {
    fn new(plan: &Plan, schedule: Schedule, paced: Vec<Paced>) -> RateReport {
        let mut report = RateReport {
            route: plan.route,
            connections: plan.connections,
            rate: schedule.rate,
            schedule,
            warm: Tally::default(),
            measured: Tally::default(),
            sent: 0,
            late: 0,
        };
        for one in paced {
            report.warm.merge(one.warm);
            report.measured.merge(one.measured);
            report.sent += one.sent;
            report.late += one.late;
        } // the connections close here, after the CPU time was read
        report
    }

    /// Why the run failed: a failure of the warm-up or of the measured seconds, or no measured
    /// operation answered.
    fn failure(&self, allow_503: bool) -> Option<String> {
        let mut all = Tally {
            operations: self.measured.operations,
            errors: self.warm.errors + self.measured.errors,
            unavailable: self.warm.unavailable + self.measured.unavailable,
            ..Tally::default()
        };
        all.first_failure =
            self.warm.first_failure.clone().or_else(|| self.measured.first_failure.clone());
        all.failure(allow_503)
    }

    fn line(&self, cpu: Option<&ServerCpu>, spent: Option<Result<Ticks, String>>) -> Value {
        let seconds = (self.schedule.end - self.schedule.warmup).as_secs_f64();
        let offered = self.schedule.due_between(self.schedule.warmup, self.schedule.end);
        let measured = &self.measured;
        let mut line = Object::new();
        line.insert("route".into(), self.route.name().into());
        line.insert("connections".into(), Value::from(self.connections as u64));
        line.insert("rate".into(), Value::from(self.rate));
        line.insert("seconds".into(), decimal(seconds, 3));
        line.insert("warmup_seconds".into(), decimal(self.schedule.warmup.as_secs_f64(), 3));
        line.insert("offered_per_second".into(), decimal(offered as f64 / seconds, 1));
        line.insert("achieved_per_second".into(), decimal(measured.operations as f64 / seconds, 1));
        line.insert("sent".into(), Value::from(self.sent));
        line.insert("late".into(), Value::from(self.late));
        line.insert("unsent".into(), Value::from(offered.saturating_sub(self.sent)));
        line.insert("operations".into(), Value::from(measured.operations));
        line.insert("answers".into(), measured.answers_json());
        insert_latency(&mut line, &measured.latency);
        line.insert("errors".into(), Value::from(self.warm.errors + measured.errors));
        line.insert("status_503".into(), Value::from(self.warm.unavailable + measured.unavailable));
        if let Some(first) = self.warm.first_failure.as_ref().or(measured.first_failure.as_ref()) {
            line.insert("first_error".into(), first.clone().into());
        }
        if let Some(cpu) = cpu {
            line.insert("server_cpu".into(), cpu.describe().into());
        }
        match spent {
            Some(Ok(ticks)) => insert_cpu(&mut line, ticks, measured.operations),
            Some(Err(why)) => {
                line.insert("server_cpu_error".into(), why.into());
            }
            None => {}
        }
        Value::Object(line)
    }
}

/// The server's CPU time per operation, from the ticks it spent over `operations`.
fn insert_cpu(line: &mut Object, ticks: Ticks, operations: u64) {
    let (hz, read) = clock_ticks_per_second();
    line.insert("clock_ticks_per_second".into(), Value::from(hz));
    if !read {
        line.insert("clock_ticks_assumed".into(), true.into());
    }
    line.insert("server_user_ticks".into(), Value::from(ticks.user));
    line.insert("server_system_ticks".into(), Value::from(ticks.system));
    let us = |t: u64| t as f64 * 1e6 / hz as f64 / operations.max(1) as f64;
    line.insert("server_user_us_per_op".into(), decimal(us(ticks.user), 2));
    line.insert("server_system_us_per_op".into(), decimal(us(ticks.system), 2));
    line.insert("server_us_per_op".into(), decimal(us(ticks.user + ticks.system), 2));
}

/// CPU time in clock ticks, user and system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Ticks {
    user: u64,
    system: u64,
}

impl Ticks {
    fn since(self, before: Ticks) -> Ticks {
        Ticks {
            user: self.user.saturating_sub(before.user),
            system: self.system.saturating_sub(before.system),
        }
    }
}

/// Whose CPU time is the server's.
enum ServerCpu {
    /// The threads of this process named like the server's.
    OwnThreads,
    /// A whole process.
    Process(u32),
}

impl ServerCpu {
    fn describe(&self) -> String {
        match self {
            ServerCpu::OwnThreads => format!("threads {SERVER_THREADS}* of this process"),
            ServerCpu::Process(pid) => format!("pid {pid}"),
        }
    }

    /// The CPU time spent so far.
    fn read(&self) -> Result<Ticks, String> {
        let stat = |path: &str| -> Result<String, String> {
            fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))
        };
        match self {
            ServerCpu::Process(pid) => {
                let path = format!("/proc/{pid}/stat");
                let text = stat(&path)?;
                parse_stat(&text).map(|(_, ticks)| ticks).ok_or(format!("{path}: unreadable"))
            }
            ServerCpu::OwnThreads => {
                let main_thread = std::process::id().to_string();
                let mut sum = Ticks::default();
                let tasks = fs::read_dir("/proc/self/task").map_err(|e| format!("/proc: {e}"))?;
                for task in tasks.flatten() {
                    if task.file_name().to_str() == Some(main_thread.as_str()) {
                        continue;
                    }
                    // A thread that ended since the listing has no stat left: skipped.
                    let Ok(text) = fs::read_to_string(task.path().join("stat")) else { continue };
                    if let Some((comm, ticks)) = parse_stat(&text)
                        && comm.starts_with(SERVER_THREADS)
                    {
                        sum.user += ticks.user;
                        sum.system += ticks.system;
                    }
                }
                Ok(sum)
            }
        }
    }
}

/// The name (`comm`) and the CPU time of a `/proc/.../stat` line: `PID (COMM) STATE ...`, with
/// `utime` and `stime` its 14th and 15th fields. The name may hold spaces and parentheses, so
/// it runs from the first `(` to the last `)`.
fn parse_stat(line: &str) -> Option<(&str, Ticks)> {
    let open = line.find('(')?;
    let close = line.rfind(')')?;
    let comm = line.get(open + 1..close)?;
    // After the name: the state is field 3, so utime (14) is the twelfth from there.
    let mut fields = line[close + 1..].split_ascii_whitespace();
    let user = fields.nth(11)?.parse().ok()?;
    let system = fields.next()?.parse().ok()?;
    Some((comm, Ticks { user, system }))
}

/// Clock ticks per second from `getconf CLK_TCK`, and whether it answered (else 100).
fn clock_ticks_per_second() -> (u64, bool) {
    let read = Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| text.trim().parse::<u64>().ok())
        .filter(|&hz| hz > 0);
    match read {
        Some(hz) => (hz, true),
        None => (100, false),
    }
}

/// A session id as long as this server's, for `raw-ping`: sent, never looked up.
const PLACEHOLDER_SESSION: &str = "000000000000000000000000000000000000000000000000";

/// One load connection: where it goes, with which token, over which kept-alive connection, in
/// which session.
struct Link<'t> {
    address: SocketAddr,
    host: String,
    token: &'t str,
    conn: Option<HttpConnection>,
    session: Option<String>,
    /// Each request's latency goes to the tally (the closed loop); at a rate, the caller times
    /// the operation from its due time instead.
    time_requests: bool,
}

impl<'t> Link<'t> {
    fn new(address: SocketAddr, token: &'t str, time_requests: bool) -> Link<'t> {
        let host = address.to_string();
        Link { address, host, token, conn: None, session: None, time_requests }
    }

    /// One operation of `route`, counted in `tally`. A failed one drops the connection and the
    /// session (it may have expired or been ended): the next one starts over.
    fn operation(&mut self, route: Route, id: i64, tally: &mut Tally) -> bool {
        let ok = match route {
            Route::Initialize => self.initialize_and_delete(id, tally),
            Route::RawPing => self.raw_ping(id, tally),
            Route::Ping | Route::Resources => {
                if self.session.is_none() {
                    self.session = self.open_session(tally);
                }
                let session = self.session.take();
                let ok = session.as_deref().is_some_and(|s| self.call(s, route, id, tally));
                self.session = session;
                ok
            }
        };
        if ok {
            tally.operations += 1;
        } else {
            tally.errors += 1;
            self.conn = None;
            self.session = None;
        }
        ok
    }

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
        *tally.answers.entry(response.status).or_default() += 1;
        if !response.keep_alive {
            self.conn = None;
        }
        if !valid(&response) {
            let why = format!("{}: an unexpected answer, status {}", self.address, response.status);
            tally.first_failure.get_or_insert(why);
            return None;
        }
        if self.time_requests {
            tally.latency.record(u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX));
        }
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

    /// The ping of a session, without one: any 200 JSON result will do.
    fn raw_ping(&mut self, id: i64, tally: &mut Tally) -> bool {
        let request = self.post(Some(PLACEHOLDER_SESSION), &requests::ping(&id.into()));
        self.timed(&request, tally, json_result).is_some()
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

/// A 200 JSON reply with a `result`, whatever its id.
fn json_result(response: &ClientResponse) -> bool {
    response.status == 200
        && content_type_is(response, "application/json")
        && json::decode(&response.body, Limits::DEFAULT.json_depth_max)
            .is_ok_and(|reply| reply.get("result").is_some())
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

    #[test]
    fn stat_lines_give_the_name_and_the_user_and_system_ticks() {
        let tail = "S 1 2 3 4 5 6 7 8 9 10 41 17 0 0 20 0 1 0 100 2000 300";
        let cases: [(&str, Option<(&str, Ticks)>); 7] = [
            ("1234 (loopback-mcp-wo) ", Some(("loopback-mcp-wo", Ticks { user: 41, system: 17 }))),
            (
                "7 (a name with spaces) ",
                Some(("a name with spaces", Ticks { user: 41, system: 17 })),
            ),
            ("7 (odd) (name)) ", Some(("odd) (name)", Ticks { user: 41, system: 17 }))),
            ("7 ((() ", Some(("((", Ticks { user: 41, system: 17 }))),
            ("7 () ", Some(("", Ticks { user: 41, system: 17 }))),
            ("7 no parentheses ", None),
            ("7 )backwards( ", None),
        ];
        for (head, expected) in cases {
            let line = format!("{head}{tail}\n");
            assert_eq!(parse_stat(&line), expected, "{line:?}");
        }
        assert_eq!(parse_stat("7 (short) S 1 2 3 4 5 6 7 8 9 10 41"), None, "no stime field");
        assert_eq!(parse_stat("7 (x) S 1 2 3 4 5 6 7 8 9 10 4x 17"), None, "not a number");
    }

    #[test]
    fn the_schedule_spreads_the_rate_evenly_over_the_connections() {
        let schedule = Schedule {
            rate: 1000,
            connections: 4,
            warmup: Duration::from_secs(1),
            end: Duration::from_secs(3),
        };
        // Each connection sends every 4 ms, the four of them 1 ms apart.
        assert_eq!(schedule.due(0, 0), Duration::ZERO);
        assert_eq!(schedule.due(1, 0), Duration::from_millis(1));
        assert_eq!(schedule.due(3, 0), Duration::from_millis(3));
        assert_eq!(schedule.due(0, 1), Duration::from_millis(4));
        assert_eq!(schedule.due(2, 250), Duration::from_millis(1002));
        // All connections together: operation g at g ms, each once.
        let mut all: Vec<Duration> =
            (0..4).flat_map(|i| (0..100).map(move |k| schedule.due(i, k))).collect();
        all.sort();
        assert!(all.iter().enumerate().all(|(g, at)| *at == Duration::from_millis(g as u64)));
        assert_eq!(schedule.due_between(Duration::ZERO, schedule.warmup), 1000);
        assert_eq!(schedule.due_between(schedule.warmup, schedule.end), 2000);
        assert_eq!(schedule.due_between(Duration::from_micros(500), Duration::from_millis(2)), 1);
    }

    #[test]
    fn operations_due_in_a_span_are_counted_as_the_connections_would_send_them() {
        // A rate that does not divide a second: the due times round down to the nanosecond.
        for (rate, connections) in [(3, 1), (7, 3), (1000, 16), (999, 7)] {
            let schedule = Schedule {
                rate,
                connections,
                warmup: Duration::from_millis(1500),
                end: Duration::from_millis(4700),
            };
            let mut counted = 0;
            for i in 0..connections {
                for k in 0.. {
                    let due = schedule.due(i, k);
                    if due >= schedule.end {
                        break;
                    }
                    counted += u64::from(due >= schedule.warmup);
                }
            }
            assert_eq!(counted, schedule.due_between(schedule.warmup, schedule.end), "{rate}");
        }
    }

    #[test]
    fn a_run_fails_on_any_unexpected_answer_and_on_503s_unless_allowed() {
        let tally = |operations, errors, unavailable| Tally {
            operations,
            errors,
            unavailable,
            first_failure: (errors > 0).then(|| "why".to_owned()),
            ..Tally::default()
        };
        assert_eq!(tally(10, 0, 0).failure(false), None);
        assert_eq!(tally(10, 3, 3).failure(true), None);
        assert!(tally(10, 3, 3).failure(false).is_some_and(|w| w.starts_with("3 operations")));
        assert!(tally(10, 4, 3).failure(true).is_some_and(|w| w.starts_with("1 operations")));
        assert!(tally(0, 0, 0).failure(true).is_some_and(|w| w.starts_with("nothing")));
    }

    #[test]
    fn flags_that_need_another_are_refused_alone() {
        let parse = |words: &[&str]| {
            Plan::parse(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>()).err()
        };
        assert_eq!(parse(&["--rate", "1000"]), None);
        assert!(parse(&["--rate", "0"]).is_some());
        assert!(parse(&["--pid", "1"]).is_some());
        assert!(parse(&["--pid", "1", "--rate", "10"]).is_some());
        assert_eq!(parse(&["--pid", "1", "--rate", "10", "--url", "u", "--token", "t"]), None);
        assert!(parse(&["--route", "raw-ping"]).is_some());
        assert_eq!(parse(&["--route", "raw-ping", "--url", "u", "--token", "t"]), None);
        assert_eq!(parse(&["--allow-503", "--connections", "2"]), None);
    }
}
