//! A latency histogram with log-linear buckets, in a fixed array: merged across connections,
//! read as percentiles.
//!
//! Not here: what is timed, and from when (`link`, `rate`).

/// A latency histogram with log-linear buckets: 16 per power of two, so about 4% resolution,
/// over the whole range of `u64` nanoseconds, in a fixed 1 KiB array.
#[derive(Clone, Debug)]
pub(super) struct Histogram {
    buckets: Vec<u64>,
    count: u64,
    pub(super) max_ns: u64,
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

    pub(super) fn record(&mut self, ns: u64) {
        self.buckets[Self::bucket(ns)] += 1;
        self.count += 1;
        self.max_ns = self.max_ns.max(ns);
    }

    pub(super) fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.buckets.iter_mut().zip(&other.buckets) {
            *a += b;
        }
        self.count += other.count;
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    /// The value below which `percent` of the samples fall (a bucket's lower bound).
    pub(super) fn percentile(&self, percent: f64) -> u64 {
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
