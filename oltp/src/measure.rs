//! Measurement: the per-worker aggregate (counts and an HdrHistogram of event
//! latency) that workers record into and reporting reads, and live counters for
//! progress display.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hdrhistogram::Histogram;

/// Lowest latency the histogram tracks: 1 µs, in ns.
const HIST_LOW_NS: u64 = 1_000;
/// Highest latency the histogram tracks before resizing: 1 hour, in ns.
const HIST_HIGH_NS: u64 = 3_600_000_000_000;
/// Significant decimal digits kept (0.1% relative error).
const HIST_SIGFIG: u8 = 3;

/// Counts and latencies of one worker, or of several merged.
#[derive(Clone, Debug)]
pub struct Aggregate {
    /// Events (transactions) completed.
    pub events: u64,
    /// Queries that returned a result set (sysbench's "read").
    pub read: u64,
    /// DML with affected rows > 0 (sysbench's "write").
    pub write: u64,
    /// Everything else: BEGIN, COMMIT, DML that matched nothing (sysbench's "other").
    pub other: u64,
    /// Ignored errors (deadlocks, lock wait timeouts): the event was restarted.
    pub errors: u64,
    /// Reconnects after a lost connection.
    pub reconnects: u64,
    /// Event latency in ns, from the start of an event to its commit.
    pub latency: Histogram<u64>,
    /// Wall time this worker spent running events.
    pub exec_time: Duration,
    /// When the last event completed (latest over merged workers).
    pub last_event_end: Option<std::time::Instant>,
    /// Per-worker (events, execution time in s), for sysbench's "threads fairness".
    pub per_worker: Vec<(u64, f64)>,
}

impl Default for Aggregate {
    fn default() -> Self {
        Self::new()
    }
}

impl Aggregate {
    /// An empty aggregate.
    pub fn new() -> Aggregate {
        Aggregate {
            events: 0,
            read: 0,
            write: 0,
            other: 0,
            errors: 0,
            reconnects: 0,
            latency: Histogram::new_with_bounds(HIST_LOW_NS, HIST_HIGH_NS, HIST_SIGFIG)
                .expect("constant histogram bounds are valid"),
            exec_time: Duration::ZERO,
            last_event_end: None,
            per_worker: Vec::new(),
        }
    }

    /// Queries of every kind so far.
    pub fn queries(&self) -> u64 {
        self.read + self.write + self.other
    }

    /// Records one completed event that took `latency` and ended at `end`.
    pub fn record_event(&mut self, latency: Duration, end: std::time::Instant) {
        self.events += 1;
        self.last_event_end = Some(end);
        let ns = u64::try_from(latency.as_nanos())
            .unwrap_or(u64::MAX)
            .max(HIST_LOW_NS);
        self.latency.saturating_record(ns);
    }

    /// Adds `other`'s counts and latencies to this one; a finished worker's
    /// aggregate is added as one entry of `per_worker`.
    pub fn merge(&mut self, other: &Aggregate) {
        self.events += other.events;
        self.read += other.read;
        self.write += other.write;
        self.other += other.other;
        self.errors += other.errors;
        self.reconnects += other.reconnects;
        self.latency
            .add(&other.latency)
            .expect("histograms with the same bounds always merge");
        if other.per_worker.is_empty() {
            self.per_worker
                .push((other.events, other.exec_time.as_secs_f64()));
        } else {
            self.per_worker.extend_from_slice(&other.per_worker);
        }
        self.exec_time += other.exec_time;
        self.last_event_end = self.last_event_end.max(other.last_event_end);
    }
}

/// Counters that workers bump after each event, read by the progress display.
#[derive(Debug, Default)]
pub struct Live {
    events: AtomicU64,
    queries: AtomicU64,
}

impl Live {
    /// Adds `events` and `queries`.
    pub fn add(&self, events: u64, queries: u64) {
        self.events.fetch_add(events, Ordering::Relaxed);
        self.queries.fetch_add(queries, Ordering::Relaxed);
    }

    /// (events, queries) so far.
    pub fn read(&self) -> (u64, u64) {
        (
            self.events.load(Ordering::Relaxed),
            self.queries.load(Ordering::Relaxed),
        )
    }
}

/// CPU time this process has used so far (user + system), from `getrusage(2)`.
pub fn process_cpu_time() -> Duration {
    use nix::sys::resource::{UsageWho, getrusage};
    match getrusage(UsageWho::RUSAGE_SELF) {
        Ok(u) => {
            let tv = |t: nix::sys::time::TimeVal| {
                Duration::from_secs(t.tv_sec().max(0) as u64)
                    + Duration::from_micros(t.tv_usec().max(0) as u64)
            };
            tv(u.user_time()) + tv(u.system_time())
        }
        Err(_) => Duration::ZERO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_counts_and_keeps_percentiles_within_min_max() {
        let mut a = Aggregate::new();
        let mut b = Aggregate::new();
        for ms in 1..=100 {
            a.record_event(Duration::from_millis(ms), std::time::Instant::now());
            b.record_event(Duration::from_millis(ms * 2), std::time::Instant::now());
        }
        a.read = 5;
        b.read = 7;
        let mut total = Aggregate::new();
        total.merge(&a);
        total.merge(&b);
        assert_eq!(total.events, 200);
        assert_eq!(total.read, 12);
        assert_eq!(total.per_worker.len(), 2);
        let p95 = total.latency.value_at_quantile(0.95);
        assert!(p95 >= total.latency.min() && p95 <= total.latency.max());
        assert!(total.latency.max() >= 199_000_000);
    }
}
