//! `bench --rate N`: the open loop, and the server's CPU time per operation.
//!
//! `--rate N` makes it open-loop: N operations per second in all, spread evenly over the
//! connections. Operation g, counted over all connections, is due g/N seconds after the start;
//! connection i sends operations i, i + C, i + 2C, ... of C connections, one every C/N seconds. A
//! connection sends at the due time, or as soon as its previous operation is answered when that is
//! later: such a send is *late*, and its latency is still measured from its due time, so a server
//! that falls behind shows as latency, not as a lower rate. A warm-up as long as the measured
//! seconds, at most one second, comes first (connections and sessions opened, answers checked,
//! nothing recorded), then S seconds are measured; operations due but not sent by their end are
//! *unsent*. The line gives the offered and achieved rates, the sends and the late and unsent ones,
//! the answers by status, the latency percentiles from the due times, and the server's CPU time per
//! operation, user and system apart, in microseconds, from `/proc`, read when the measured seconds
//! begin and once their last operation is answered:
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
//! Not here: what an operation is (`link`), and the closed loop (`closed`).

use std::fs;
use std::net::SocketAddr;
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use super::link::{Link, spawn_load};
use super::plan::{Plan, Route, Target};
use super::report::{Tally, decimal, insert_latency};
use loopback_mcp_http::client::http::HttpConnection;
use loopback_mcp_http::json::{Object, Value};

/// The longest warm-up before the measured seconds of `--rate`; a shorter run warms up for as
/// long as it measures.
const WARMUP_MAX: Duration = Duration::from_secs(1);
/// The prefix of the server's thread names (`server::spawn`), as `/proc` shows them.
const SERVER_THREADS: &str = "loopback-mcp-";

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
pub(super) fn load_at_rate(
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
    let measured = plan.seconds;
    let schedule = Schedule {
        rate,
        connections: plan.connections as u64,
        warmup: measured.min(WARMUP_MAX),
        end: measured.min(WARMUP_MAX) + measured,
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
    pub(super) fn new(plan: &Plan, schedule: Schedule, paced: Vec<Paced>) -> RateReport {
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
    pub(super) fn failure(&self, allow_503: bool) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
