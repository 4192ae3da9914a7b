//! What the proxy counts (shared by every connection task through atomics), the
//! per-interval line and the JSON summary written at exit.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use encbench_common::header::ResultHeader;
use encbench_common::tool_info;
use serde::Serialize;

/// Counters every connection task adds to.
#[derive(Debug, Default)]
pub struct Stats {
    queries: AtomicU64,
    errors: AtomicU64,
    connections: AtomicU64,
    open: AtomicU64,
    peak: AtomicU64,
}

impl Stats {
    /// One command answered by the backend (COM_QUIT and commands without reply aside).
    pub fn query(&self) {
        self.queries.fetch_add(1, Relaxed);
    }

    /// One error: an ERR reply, a login refused, a backend unreachable or lost.
    pub fn error(&self) {
        self.errors.fetch_add(1, Relaxed);
    }

    /// A client connection accepted; dropping the guard counts it closed.
    pub fn open(&self) -> OpenConnection<'_> {
        self.connections.fetch_add(1, Relaxed);
        let now = self.open.fetch_add(1, Relaxed) + 1;
        self.peak.fetch_max(now, Relaxed);
        OpenConnection(self)
    }

    fn snapshot(&self) -> (u64, u64, u64) {
        (
            self.queries.load(Relaxed),
            self.errors.load(Relaxed),
            self.open.load(Relaxed),
        )
    }
}

/// A client connection counted open until dropped.
#[derive(Debug)]
pub struct OpenConnection<'a>(&'a Stats);

impl Drop for OpenConnection<'_> {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Relaxed);
    }
}

/// This process's CPU time so far (getrusage(RUSAGE_SELF)): (user, system) seconds.
pub fn cpu_seconds() -> (f64, f64) {
    use nix::sys::resource::{UsageWho, getrusage};
    getrusage(UsageWho::RUSAGE_SELF).map_or((0.0, 0.0), |u| {
        let s = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
        (s(u.user_time()), s(u.system_time()))
    })
}

/// The interval lines: `[ 10s ] qps: 48123.40 conns: 8 errors/s: 0.00 cpu: 0.93 s/s (usr
/// 0.21 sys 0.72)`, CPU in proxy CPU-seconds per second over the interval.
#[derive(Debug)]
pub struct Reporter {
    start: Instant,
    last: Instant,
    last_counts: (u64, u64),
    last_cpu: (f64, f64),
}

impl Reporter {
    /// A reporter whose clock starts now.
    pub fn new() -> Reporter {
        let now = Instant::now();
        Reporter {
            start: now,
            last: now,
            last_counts: (0, 0),
            last_cpu: cpu_seconds(),
        }
    }

    /// The line for the interval since the previous one.
    pub fn line(&mut self, stats: &Stats) -> String {
        let now = Instant::now();
        let dt = now.duration_since(self.last).as_secs_f64().max(1e-9);
        let (q, e, open) = stats.snapshot();
        let cpu = cpu_seconds();
        let (du, ds) = (cpu.0 - self.last_cpu.0, cpu.1 - self.last_cpu.1);
        let line = format!(
            "[ {}s ] qps: {:.2} conns: {open} errors/s: {:.2} cpu: {:.2} s/s (usr {:.2} sys {:.2})",
            now.duration_since(self.start).as_secs_f64().round(),
            (q - self.last_counts.0) as f64 / dt,
            (e - self.last_counts.1) as f64 / dt,
            (du + ds) / dt,
            du / dt,
            ds / dt,
        );
        self.last = now;
        self.last_counts = (q, e);
        self.last_cpu = cpu;
        line
    }
}

impl Default for Reporter {
    fn default() -> Self {
        Reporter::new()
    }
}

/// The version of the summary's JSON layout ([`ResultHeader::schema_version`]).
pub const SCHEMA_VERSION: u32 = 1;

/// The JSON summary written at exit (`--summary FILE`): the header every encbench result
/// starts with (`schema_version`, `tool`, `started_at`, `ended_at`, `machine`), then the
/// proxy's figures.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// `schema_version` ([`SCHEMA_VERSION`]), `tool` {`name`: `encbench-proxy`, `version`,
    /// `git_revision`}, `started_at` (the first accept) and `ended_at` (RFC 3339 UTC), `machine`.
    #[serde(flatten)]
    pub header: ResultHeader,
    /// The mode run ("forward").
    pub mode: &'static str,
    /// Seconds from the first accept to the exit.
    pub duration_s: f64,
    /// Commands answered by the backend (COM_QUIT and commands without a reply aside).
    pub queries: u64,
    /// `queries` per second over `duration_s`.
    pub qps: f64,
    /// Client connections accepted.
    pub connections: u64,
    /// The most client connections open at once.
    pub peak_connections: u64,
    /// ERR replies, refused logins, backends unreachable or lost.
    pub errors: u64,
    /// Proxy CPU time in user mode, seconds (getrusage).
    pub cpu_user_s: f64,
    /// Proxy CPU time in the kernel, seconds (getrusage).
    pub cpu_sys_s: f64,
    /// Proxy CPU per query, microseconds (user + system over `queries`; null with no query).
    pub cpu_us_per_query: Option<f64>,
}

impl Summary {
    /// The summary of `stats` over `elapsed`, CPU read now.
    pub fn of(stats: &Stats, mode: &'static str, elapsed: Duration) -> Summary {
        let (queries, errors, _) = stats.snapshot();
        let (user, sys) = cpu_seconds();
        let secs = elapsed.as_secs_f64();
        let mut header = ResultHeader::begin(SCHEMA_VERSION, tool_info!("encbench-proxy"));
        header.started_at = header
            .started_at
            .checked_sub(elapsed)
            .unwrap_or(header.started_at);
        Summary {
            header,
            mode,
            duration_s: secs,
            queries,
            qps: if secs > 0.0 {
                queries as f64 / secs
            } else {
                0.0
            },
            connections: stats.connections.load(Relaxed),
            peak_connections: stats.peak.load(Relaxed),
            errors,
            cpu_user_s: user,
            cpu_sys_s: sys,
            cpu_us_per_query: (queries > 0).then(|| (user + sys) * 1e6 / queries as f64),
        }
    }
}
