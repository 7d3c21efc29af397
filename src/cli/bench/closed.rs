//! The closed loop: each connection sends its next operation as soon as the last is answered.
//!
//! Not here: the open loop (`rate`), or what an operation is (`link`).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Instant;

use super::link::{Link, spawn_load};
use super::plan::{Plan, Route, Target};
use super::report::{Tally, decimal, insert_latency, resident_kib};
use loopback_mcp_http::json::{Object, Value};

/// The closed loop: its line, and why it failed if it did.
pub(super) fn load(target: &Target, plan: &Plan) -> Result<(Value, Option<String>), String> {
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
    thread::sleep(plan.seconds);
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
