//! What the load connections measured, summed, and the pieces of the JSON line both loops print:
//! the answers by status, the latency percentiles, a decimal, the resident memory.
//!
//! Not here: the rate's own line and the server's CPU time (`rate`).

use std::collections::BTreeMap;

use super::histogram::Histogram;
use loopback_mcp_http::json::{self, Object, Value};

/// What one connection's thread measured.
#[derive(Default)]
pub(super) struct Tally {
    /// Operations answered as expected.
    pub(super) operations: u64,
    pub(super) requests: u64,
    /// Operations that failed: an unexpected answer, or none.
    pub(super) errors: u64,
    /// Responses with status 503 (no free worker, or no free session slot), also counted in
    /// `errors`: load the server shed.
    pub(super) unavailable: u64,
    /// Every response by its status.
    pub(super) answers: BTreeMap<u16, u64>,
    pub(super) latency: Histogram,
    /// What went wrong first.
    pub(super) first_failure: Option<String>,
}

impl Tally {
    pub(super) fn merge(&mut self, other: Tally) {
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
    pub(super) fn failure(&self, allow_503: bool) -> Option<String> {
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
    pub(super) fn answers_json(&self) -> Value {
        let answers: Object =
            self.answers.iter().map(|(s, n)| (s.to_string().into(), Value::from(*n))).collect();
        Value::Object(answers)
    }
}

/// A number with `places` decimals, as JSON.
pub(super) fn decimal(x: f64, places: usize) -> Value {
    let number = json::Number::parse(&format!("{x:.places$}"));
    Value::Number(number.unwrap_or_else(|| json::Number::from(0u64)))
}

/// The percentiles of `latency`, in microseconds.
pub(super) fn insert_latency(line: &mut Object, latency: &Histogram) {
    let us = |ns: u64| decimal(ns as f64 / 1000.0, 1);
    line.insert("p50_us".into(), us(latency.percentile(50.0)));
    line.insert("p90_us".into(), us(latency.percentile(90.0)));
    line.insert("p99_us".into(), us(latency.percentile(99.0)));
    line.insert("max_us".into(), us(latency.max_ns));
}

/// The resident set size of this process, from /proc (Linux).
pub(super) fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
