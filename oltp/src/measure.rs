//! Measurement: the per-worker aggregate (counts, an HdrHistogram of event
//! latency and one per statement kind) that workers record into and reporting
//! reads, and live counters for progress display and `--report-interval` lines.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hdrhistogram::Histogram;

/// Lowest latency the histogram tracks: 1 µs, in ns.
const HIST_LOW_NS: u64 = 1_000;
/// Highest latency the histogram tracks before resizing: 1 hour, in ns.
const HIST_HIGH_NS: u64 = 3_600_000_000_000;
/// Significant decimal digits kept (0.1% relative error).
const HIST_SIGFIG: u8 = 3;
/// Per-statement histograms count microseconds, 1 µs to 1 hour...
const STMT_HIGH_US: u64 = 3_600_000_000;
/// ...with 2 significant digits (1% relative error), so that 11 kinds x 256
/// workers stay small (about 10 KiB each).
const STMT_SIGFIG: u8 = 2;

/// The statement kinds of sysbench's OLTP scripts (`oltp_common.lua`), timed
/// one by one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StatementKind {
    /// `BEGIN` (text protocol).
    Begin,
    /// `COMMIT` (text protocol).
    Commit,
    /// `SELECT c ... WHERE id=?`.
    PointSelect,
    /// `SELECT c ... BETWEEN`.
    SimpleRange,
    /// `SELECT SUM(k) ... BETWEEN`.
    SumRange,
    /// `SELECT c ... BETWEEN ... ORDER BY c`.
    OrderRange,
    /// `SELECT DISTINCT c ... BETWEEN ... ORDER BY c`.
    DistinctRange,
    /// `UPDATE ... SET k=k+1 WHERE id=?`.
    IndexUpdate,
    /// `UPDATE ... SET c=? WHERE id=?`.
    NonIndexUpdate,
    /// `DELETE ... WHERE id=?`.
    Delete,
    /// `INSERT ... (id, k, c, pad)`.
    Insert,
    /// `SELECT id, k, c, pad ... WHERE k IN (...)` (`select_random_points`).
    RandomPoints,
    /// pgbench's `UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid`.
    UpdateAccounts,
    /// pgbench's `SELECT abalance FROM pgbench_accounts WHERE aid = :aid`.
    SelectAbalance,
    /// pgbench's `UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid`.
    UpdateTellers,
    /// pgbench's `UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid`.
    UpdateBranches,
    /// pgbench's `INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (...)`.
    InsertHistory,
}

impl StatementKind {
    /// Every kind, in report order.
    pub const ALL: [StatementKind; 17] = [
        StatementKind::Begin,
        StatementKind::Commit,
        StatementKind::PointSelect,
        StatementKind::SimpleRange,
        StatementKind::SumRange,
        StatementKind::OrderRange,
        StatementKind::DistinctRange,
        StatementKind::IndexUpdate,
        StatementKind::NonIndexUpdate,
        StatementKind::Delete,
        StatementKind::Insert,
        StatementKind::RandomPoints,
        StatementKind::UpdateAccounts,
        StatementKind::SelectAbalance,
        StatementKind::UpdateTellers,
        StatementKind::UpdateBranches,
        StatementKind::InsertHistory,
    ];

    /// The name used in reports (`point_select`, ...).
    pub fn name(self) -> &'static str {
        match self {
            StatementKind::Begin => "begin",
            StatementKind::Commit => "commit",
            StatementKind::PointSelect => "point_select",
            StatementKind::SimpleRange => "simple_range",
            StatementKind::SumRange => "sum_range",
            StatementKind::OrderRange => "order_range",
            StatementKind::DistinctRange => "distinct_range",
            StatementKind::IndexUpdate => "index_update",
            StatementKind::NonIndexUpdate => "non_index_update",
            StatementKind::Delete => "delete",
            StatementKind::Insert => "insert",
            StatementKind::RandomPoints => "random_points",
            StatementKind::UpdateAccounts => "update_accounts",
            StatementKind::SelectAbalance => "select_abalance",
            StatementKind::UpdateTellers => "update_tellers",
            StatementKind::UpdateBranches => "update_branches",
            StatementKind::InsertHistory => "insert_history",
        }
    }
}

/// Latencies of one statement kind, in µs.
#[derive(Clone, Debug)]
pub struct StatementStats {
    /// Statements of this kind that completed.
    pub count: u64,
    /// Their latency, µs (2 significant digits).
    pub latency_us: Histogram<u64>,
}

impl StatementStats {
    fn new() -> StatementStats {
        StatementStats {
            count: 0,
            latency_us: Histogram::new_with_bounds(1, STMT_HIGH_US, STMT_SIGFIG)
                .expect("constant histogram bounds are valid"),
        }
    }
}

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
    /// Stored values that failed authentication (a [`QueryError::Open`]):
    /// the event stopped the run (`--on-decrypt-error stop`) or was restarted
    /// (`count`).
    ///
    /// [`QueryError::Open`]: crate::workload::QueryError::Open
    pub decrypt_errors: u64,
    /// Reconnects after a lost connection.
    pub reconnects: u64,
    /// Events cut short by the error that ended a worker (a lost server, a
    /// decryption failure under `--on-decrypt-error stop`): their statements
    /// so far count in read/write/other and in `statements`, not in `events`
    /// (so BEGIN can outnumber COMMIT by this many), except those of an attempt
    /// that failed to decrypt ([`Aggregate::drop_attempt`]).
    pub interrupted: u64,
    /// `--latency-limit` (pgbench's `-L`): counted events that lasted longer
    /// than the limit (pgbench's `latency_late`); 0 without a limit.
    pub late: u64,
    /// `--latency-limit` with `--rate`: arrivals already more than the limit
    /// behind their schedule when their worker would have started them, so
    /// never sent (pgbench's skipped transactions); not in `events`.
    pub skipped: u64,
    /// Event latency in ns, from the start of an event to its commit.
    pub latency: Histogram<u64>,
    /// `--rate`: schedule lag in ns (pgbench's "rate limit schedule lag"),
    /// from an event's scheduled arrival to the moment its worker started it;
    /// `None` in a closed loop.
    pub lag: Option<Histogram<u64>>,
    /// Wall time this worker spent running events (up to the moment its
    /// connection was lost, when that ended it: not the reconnect window).
    pub exec_time: Duration,
    /// When the last event completed (latest over merged workers).
    pub last_event_end: Option<std::time::Instant>,
    /// Per-worker (events, execution time in s), for sysbench's "threads fairness".
    pub per_worker: Vec<(u64, f64)>,
    /// Latency per statement kind, indexed like [`StatementKind::ALL`]; `None`
    /// for kinds that never completed.
    pub statements: [Option<Box<StatementStats>>; 17],
    /// Statements of the event under way (kind, latency in µs): held until the
    /// event is counted ([`Aggregate::record_event`], [`Aggregate::keep_statements`])
    /// or dropped with it ([`Aggregate::rewind`]), so that an event outside the
    /// measured window leaves no trace.
    pending: Vec<(StatementKind, u64)>,
}

/// The counters of an [`Aggregate`] before an event ([`Aggregate::mark`]), to
/// take the event back out ([`Aggregate::rewind`]) when it completed outside
/// the measured window.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    events: u64,
    read: u64,
    write: u64,
    other: u64,
    errors: u64,
    decrypt_errors: u64,
    reconnects: u64,
    /// Statements pending then ([`Aggregate::drop_attempt`]).
    pending: usize,
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
            decrypt_errors: 0,
            reconnects: 0,
            interrupted: 0,
            late: 0,
            skipped: 0,
            latency: Histogram::new_with_bounds(HIST_LOW_NS, HIST_HIGH_NS, HIST_SIGFIG)
                .expect("constant histogram bounds are valid"),
            lag: None,
            exec_time: Duration::ZERO,
            last_event_end: None,
            per_worker: Vec::new(),
            statements: Default::default(),
            pending: Vec::with_capacity(64),
        }
    }

    /// The counters now, before an event.
    pub fn mark(&self) -> Mark {
        Mark {
            events: self.events,
            read: self.read,
            write: self.write,
            other: self.other,
            errors: self.errors,
            decrypt_errors: self.decrypt_errors,
            reconnects: self.reconnects,
            pending: self.pending.len(),
        }
    }

    /// Takes back the queries and statements of an attempt at an event since
    /// `mark` (taken when the attempt began), keeping the error counters: a
    /// value of it failed to decrypt, so its statements (its BEGIN included)
    /// did no work a result may count.
    pub fn drop_attempt(&mut self, mark: &Mark) {
        self.read = mark.read;
        self.write = mark.write;
        self.other = mark.other;
        self.pending.truncate(mark.pending);
    }

    /// Takes back everything recorded since `mark` (counters and the pending
    /// statements): the event that followed completed outside the measured
    /// window (during the warm-up, or after the deadline).
    pub fn rewind(&mut self, mark: &Mark) {
        self.events = mark.events;
        self.read = mark.read;
        self.write = mark.write;
        self.other = mark.other;
        self.errors = mark.errors;
        self.decrypt_errors = mark.decrypt_errors;
        self.reconnects = mark.reconnects;
        self.pending.clear();
    }

    /// Moves the pending statements into the statement table: those of an
    /// event that did not complete but counts (cut short by the error that
    /// ended its worker, or by Ctrl-C), or of a completed one.
    pub fn keep_statements(&mut self) {
        for (kind, us) in self.pending.drain(..) {
            let slot = &mut self.statements[kind as usize];
            let st = slot.get_or_insert_with(|| Box::new(StatementStats::new()));
            st.count += 1;
            st.latency_us.saturating_record(us);
        }
    }

    /// Records one completed statement of `kind` that took `latency` (a
    /// statement that failed is not recorded: it is counted as an error of
    /// its kind, and in neither read/write/other nor here).
    /// It joins the statement table when its event is counted
    /// ([`Aggregate::record_event`]).
    pub fn record_statement(&mut self, kind: StatementKind, latency: Duration) {
        let us = u64::try_from(latency.as_micros())
            .unwrap_or(u64::MAX)
            .max(1);
        self.pending.push((kind, us));
    }

    /// Queries of every kind so far.
    pub fn queries(&self) -> u64 {
        self.read + self.write + self.other
    }

    /// Records one completed event that took `latency` and ended at `end`, with
    /// its statements.
    pub fn record_event(&mut self, latency: Duration, end: std::time::Instant) {
        self.keep_statements();
        self.events += 1;
        self.last_event_end = Some(end);
        let ns = u64::try_from(latency.as_nanos())
            .unwrap_or(u64::MAX)
            .max(HIST_LOW_NS);
        self.latency.saturating_record(ns);
    }

    /// `--rate`: records the schedule lag of one completed event (its
    /// start minus its scheduled arrival).
    pub fn record_lag(&mut self, lag: Duration) {
        self.lag
            .get_or_insert_with(new_ns_histogram)
            .saturating_record(ns_of(lag));
    }

    /// Adds `other`'s counts and latencies to this one; a finished worker's
    /// aggregate is added as one entry of `per_worker`.
    pub fn merge(&mut self, other: &Aggregate) {
        self.events += other.events;
        self.read += other.read;
        self.write += other.write;
        self.other += other.other;
        self.errors += other.errors;
        self.decrypt_errors += other.decrypt_errors;
        self.reconnects += other.reconnects;
        self.interrupted += other.interrupted;
        self.late += other.late;
        self.skipped += other.skipped;
        self.latency
            .add(&other.latency)
            .expect("histograms with the same bounds always merge");
        if let Some(lag) = &other.lag {
            self.lag
                .get_or_insert_with(new_ns_histogram)
                .add(lag)
                .expect("histograms with the same bounds always merge");
        }
        if other.per_worker.is_empty() {
            self.per_worker
                .push((other.events, other.exec_time.as_secs_f64()));
        } else {
            self.per_worker.extend_from_slice(&other.per_worker);
        }
        self.exec_time += other.exec_time;
        self.last_event_end = self.last_event_end.max(other.last_event_end);
        // A finished worker has none pending; were there any, they count.
        for &(kind, us) in &other.pending {
            let slot = &mut self.statements[kind as usize];
            let st = slot.get_or_insert_with(|| Box::new(StatementStats::new()));
            st.count += 1;
            st.latency_us.saturating_record(us);
        }
        for (mine, theirs) in self.statements.iter_mut().zip(&other.statements) {
            if let Some(t) = theirs {
                let m = mine.get_or_insert_with(|| Box::new(StatementStats::new()));
                m.count += t.count;
                m.latency_us
                    .add(&t.latency_us)
                    .expect("histograms with the same bounds always merge");
            }
        }
    }
}

/// Counters that workers bump after each event, read by the progress display
/// and the `--report-interval` lines.
#[derive(Debug)]
pub struct Live {
    events: AtomicU64,
    read: AtomicU64,
    write: AtomicU64,
    other: AtomicU64,
    errors: AtomicU64,
    reconnects: AtomicU64,
    /// `--latency-limit` with `--rate`: arrivals skipped, all workers.
    skipped: AtomicU64,
    /// `--rate`: events that have arrived but not started, all workers.
    queued: AtomicU64,
    /// `--rate`: workers executing an event now.
    busy: AtomicU64,
    /// Event latency and (`--rate`) schedule lag, ns, since the last
    /// interval line; only kept with `--report-interval`.
    interval: Option<std::sync::Mutex<IntervalHistograms>>,
}

/// What [`Live`] keeps per interval: two HdrHistograms (ns).
#[derive(Debug)]
struct IntervalHistograms {
    latency: Histogram<u64>,
    lag: Histogram<u64>,
}

/// The latency figures of one `--report-interval` interval, ms (all 0
/// without events or without interval tracking), from [`Live`]'s
/// per-interval HdrHistograms.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IntervalLatency {
    /// Mean event latency, ms.
    pub avg_ms: f64,
    /// Standard deviation of the event latency, ms (pgbench's "stddev").
    pub stddev_ms: f64,
    /// 95th percentile of the event latency, ms (sysbench's "lat (ms,95%)").
    pub p95_ms: f64,
    /// `--rate`: mean schedule lag, ms (pgbench's "lag"); 0 in a closed loop.
    pub lag_avg_ms: f64,
}

/// An empty event-latency histogram (ns, 1 µs to 1 hour, 3 digits).
fn new_ns_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(HIST_LOW_NS, HIST_HIGH_NS, HIST_SIGFIG)
        .expect("constant histogram bounds are valid")
}

/// `d` in ns for [`new_ns_histogram`] (at least its lowest value).
fn ns_of(d: Duration) -> u64 {
    u64::try_from(d.as_nanos())
        .unwrap_or(u64::MAX)
        .max(HIST_LOW_NS)
}

impl Default for Live {
    fn default() -> Self {
        Live::new(false)
    }
}

/// A snapshot of [`Live`]'s counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LiveCounts {
    /// Events completed.
    pub events: u64,
    /// Read queries.
    pub read: u64,
    /// Write queries.
    pub write: u64,
    /// Other queries.
    pub other: u64,
    /// Ignored errors and decryption failures (the interval lines' err/s).
    pub errors: u64,
    /// Reconnects.
    pub reconnects: u64,
    /// `--latency-limit` with `--rate`: arrivals skipped (pgbench's
    /// `skipped` in its `-P` line).
    pub skipped: u64,
}

impl LiveCounts {
    /// read + write + other.
    pub fn queries(&self) -> u64 {
        self.read + self.write + self.other
    }
}

impl Live {
    /// Live counters; `intervals` also keeps a latency histogram per interval.
    pub fn new(intervals: bool) -> Live {
        Live {
            events: AtomicU64::new(0),
            read: AtomicU64::new(0),
            write: AtomicU64::new(0),
            other: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            reconnects: AtomicU64::new(0),
            skipped: AtomicU64::new(0),
            queued: AtomicU64::new(0),
            busy: AtomicU64::new(0),
            interval: intervals.then(|| {
                std::sync::Mutex::new(IntervalHistograms {
                    latency: new_ns_histogram(),
                    lag: new_ns_histogram(),
                })
            }),
        }
    }

    /// Adds what a worker's aggregate gained since `before` (a copy of its
    /// counts taken earlier), and the latency and (`--rate`) schedule lag of
    /// the event that just ended.
    pub fn add(
        &self,
        before: &LiveCounts,
        now: &Aggregate,
        latency: Option<Duration>,
        lag: Option<Duration>,
    ) {
        let d = |a: u64, b: u64| a.saturating_sub(b);
        self.events
            .fetch_add(d(now.events, before.events), Ordering::Relaxed);
        self.read
            .fetch_add(d(now.read, before.read), Ordering::Relaxed);
        self.write
            .fetch_add(d(now.write, before.write), Ordering::Relaxed);
        self.other
            .fetch_add(d(now.other, before.other), Ordering::Relaxed);
        self.errors
            .fetch_add(d(now.errors, before.errors), Ordering::Relaxed);
        self.reconnects
            .fetch_add(d(now.reconnects, before.reconnects), Ordering::Relaxed);
        if let (Some(h), Some(l)) = (&self.interval, latency) {
            let mut h = h.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            h.latency.saturating_record(ns_of(l));
            if let Some(lag) = lag {
                h.lag.saturating_record(ns_of(lag));
            }
        }
    }

    /// `--latency-limit` with `--rate`: a worker skipped `n` arrivals.
    pub fn add_skipped(&self, n: u64) {
        self.skipped.fetch_add(n, Ordering::Relaxed);
    }

    /// `--rate`: a worker's queue went from `from` to `to` events (arrived,
    /// not started).
    pub fn requeue(&self, from: usize, to: usize) {
        if to >= from {
            self.queued.fetch_add((to - from) as u64, Ordering::Relaxed);
        } else {
            self.queued.fetch_sub((from - to) as u64, Ordering::Relaxed);
        }
    }

    /// `--rate`: a worker starts (`true`) or ends (`false`) an event.
    pub fn set_busy(&self, busy: bool) {
        if busy {
            self.busy.fetch_add(1, Ordering::Relaxed);
        } else {
            self.busy.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// `--rate`: (queue length, concurrency) now, as sysbench 1.0's
    /// `queue length: Q, concurrency: C` interval line: events that arrived
    /// and wait for their worker, and workers executing an event.
    pub fn queue(&self) -> (u64, u64) {
        (
            self.queued.load(Ordering::Relaxed),
            self.busy.load(Ordering::Relaxed),
        )
    }

    /// The counters so far.
    pub fn read(&self) -> LiveCounts {
        LiveCounts {
            events: self.events.load(Ordering::Relaxed),
            read: self.read.load(Ordering::Relaxed),
            write: self.write.load(Ordering::Relaxed),
            other: self.other.load(Ordering::Relaxed),
            errors: self.errors.load(Ordering::Relaxed),
            reconnects: self.reconnects.load(Ordering::Relaxed),
            skipped: self.skipped.load(Ordering::Relaxed),
        }
    }

    /// The latency figures since the last call (zeros without events or
    /// without interval tracking); resets the interval histograms.
    pub fn take_interval(&self) -> IntervalLatency {
        let Some(h) = &self.interval else {
            return IntervalLatency::default();
        };
        let mut h = h.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if h.latency.is_empty() {
            return IntervalLatency::default();
        }
        let l = &h.latency;
        let p95 = l.value_at_quantile(0.95).clamp(l.min(), l.max());
        let out = IntervalLatency {
            avg_ms: l.mean() / 1e6,
            stddev_ms: l.stdev() / 1e6,
            p95_ms: p95 as f64 / 1e6,
            lag_avg_ms: if h.lag.is_empty() {
                0.0
            } else {
                h.lag.mean() / 1e6
            },
        };
        h.latency.reset();
        h.lag.reset();
        out
    }
}

impl Aggregate {
    /// The counters [`Live::add`] compares against.
    pub fn counts(&self) -> LiveCounts {
        LiveCounts {
            events: self.events,
            read: self.read,
            write: self.write,
            other: self.other,
            errors: self.errors + self.decrypt_errors,
            reconnects: self.reconnects,
            skipped: self.skipped,
        }
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
        b.decrypt_errors = 2;
        let mut total = Aggregate::new();
        total.merge(&a);
        total.merge(&b);
        assert_eq!(total.events, 200);
        assert_eq!(total.read, 12);
        assert_eq!(total.decrypt_errors, 2);
        assert_eq!(total.per_worker.len(), 2);
        let p95 = total.latency.value_at_quantile(0.95);
        assert!(p95 >= total.latency.min() && p95 <= total.latency.max());
        assert!(total.latency.max() >= 199_000_000);
    }

    #[test]
    fn an_event_rewound_leaves_no_trace_and_a_recorded_one_keeps_its_statements() {
        let mut a = Aggregate::new();
        let end = std::time::Instant::now();
        a.record_statement(StatementKind::PointSelect, Duration::from_micros(50));
        a.read += 1;
        a.record_event(Duration::from_micros(60), end);
        let mark = a.mark();
        // An event outside the window: two statements, an ignored error.
        a.record_statement(StatementKind::PointSelect, Duration::from_micros(70));
        a.record_statement(StatementKind::Commit, Duration::from_micros(10));
        a.read += 1;
        a.other += 1;
        a.errors += 1;
        a.rewind(&mark);
        assert_eq!((a.events, a.read, a.other, a.errors), (1, 1, 0, 0));
        let point = a.statements[StatementKind::PointSelect as usize]
            .as_ref()
            .expect("the recorded event's statement");
        assert_eq!(point.count, 1);
        assert!(a.statements[StatementKind::Commit as usize].is_none());
        // Statements of an event cut short count when kept.
        a.record_statement(StatementKind::Commit, Duration::from_micros(10));
        a.keep_statements();
        assert_eq!(
            a.statements[StatementKind::Commit as usize]
                .as_ref()
                .map(|s| s.count),
            Some(1)
        );
    }
}
