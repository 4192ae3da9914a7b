//! The result of one run ([`RunResult`]): the settings it ran with
//! ([`RunSettings`]) and what it measured, built once from a
//! [`measure::Aggregate`](crate::measure::Aggregate). Every exporter reads it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::window::MeasuredWindow;
pub use crate::at_rest::AtRestInfo;
use crate::measure::{Aggregate, StatementKind};

/// `at_rest` as written now (an object or `null`) or before modes existed (a bool).
fn at_rest_compat<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<AtRestInfo>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Old(bool),
        New(Option<AtRestInfo>),
    }
    Ok(match Either::deserialize(d)? {
        Either::Old(false) => None,
        Either::Old(true) => Some(AtRestInfo {
            mechanism: "innodb".to_string(),
            crypto_driver: "unknown (report written before at-rest modes)".to_string(),
            control_of: None,
            verified_no_plaintext: None,
        }),
        Either::New(v) => v,
    })
}

/// TLS as the server reported it for the run's connections.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TlsInfo {
    /// `Ssl_version`, e.g. `TLSv1.3`.
    pub version: String,
    /// `Ssl_cipher`, e.g. `TLS_AES_256_GCM_SHA384`.
    pub cipher: String,
    /// How the certificate was checked: `verify-identity` (the default, and
    /// in results written before the field), `verify-ca` or `required`.
    #[serde(default)]
    pub mode: crate::driver::TlsMode,
}

/// sysbench's workload options a run used (`oltp_common.lua`), as plain
/// values: the `options` object of a run in the JSON report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkloadOptions {
    /// Rows per range query (`--range-size`).
    pub range_size: u32,
    /// Point selects per transaction (`--point-selects`).
    pub point_selects: u32,
    /// Simple range selects per transaction (`--simple-ranges`).
    pub simple_ranges: u32,
    /// SELECT SUM() ranges per transaction (`--sum-ranges`).
    pub sum_ranges: u32,
    /// SELECT ... ORDER BY ranges per transaction (`--order-ranges`).
    pub order_ranges: u32,
    /// SELECT DISTINCT ranges per transaction (`--distinct-ranges`).
    pub distinct_ranges: u32,
    /// Index updates per transaction (`--index-updates`).
    pub index_updates: u32,
    /// Non-index updates per transaction (`--non-index-updates`).
    pub non_index_updates: u32,
    /// DELETE + INSERT pairs per transaction (`--delete-inserts`).
    pub delete_inserts: u32,
    /// Whether range selects ran (`--range-selects`).
    pub range_selects: bool,
    /// Whether every statement ran in autocommit mode (`--skip-trx`).
    pub skip_trx: bool,
    /// Whether ids were AUTO_INCREMENT (`--auto-inc`).
    pub auto_inc: bool,
    /// Values in select_random_points' IN (...) (`--random-points`); 0 in
    /// results written before the field existed.
    #[serde(default)]
    pub random_points: u32,
    /// sysbench's `--db-ps-mode`: `auto` (server-side prepared statements) or
    /// `disable` (text protocol).
    #[serde(default = "ps_mode_auto")]
    pub db_ps_mode: String,
}

fn ps_mode_auto() -> String {
    "auto".to_string()
}

/// Every setting a run result records, flattened into the run's JSON object
/// (the field names are those of `oltp run --json-out`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    /// sysbench workload name, e.g. `oltp_read_only`.
    pub workload: String,
    /// Worker threads (= connections).
    pub threads: u32,
    /// `none` or `BACKEND:ALGORITHM`.
    pub encrypt: String,
    /// The encrypted columns (e.g. `k (deterministic), c, pad`); empty for
    /// plaintext and for results written before the field existed.
    #[serde(default)]
    pub encrypted_columns: String,
    /// Database the tables were in.
    pub database: String,
    /// sysbench's tables; absent for a pgbench workload, whose tables are
    /// sized by `pgbench.scale`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables: Option<u32>,
    /// sysbench's rows per table; absent for a pgbench workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_size: Option<u32>,
    /// sysbench's rows per range query (the same as `options.range_size`);
    /// absent for a pgbench workload, which has no range queries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_size: Option<u32>,
    /// sysbench's workload options used (point_selects, skip_trx, ...).
    pub options: WorkloadOptions,
    /// Id distribution (`--rand-type`), e.g. `uniform`.
    pub rand_type: String,
    /// `--rand-seed` (0: seeded from the operating system).
    pub rand_seed: u64,
    /// `--rate`, events per second for all threads (0: closed loop). With a
    /// rate, latency includes the time an event waited for its thread.
    #[serde(default)]
    pub rate: f64,
    /// TLS session (version and cipher as the server reports them), when TLS
    /// was on; `null` when off.
    pub tls: Option<TlsInfo>,
    /// Encryption at rest of the server's data (`--at-rest`); `null` when off.
    /// Reports written before modes existed held `true` (InnoDB encryption) or
    /// `false`: read as `innodb` with an unknown driver, or `null`.
    #[serde(deserialize_with = "at_rest_compat")]
    pub at_rest: Option<AtRestInfo>,
    /// The server's kind: `mariadb`, `mysql` or `postgresql`; empty in
    /// results written before the field existed.
    #[serde(default)]
    pub engine: String,
    /// `SELECT VERSION()` of the server.
    pub server_version: String,
    /// Server variables (buffer pool, durability, TLS, at rest), name -> value.
    pub server_settings: BTreeMap<String, String>,
    /// The IOPS cap the kernel held for the server during the run
    /// (`--iops-limit`: reads and writes per second, device, mechanism, read
    /// back from its cgroup); `null` when uncapped (and in results written
    /// before the field existed).
    #[serde(default)]
    pub iops_cap: Option<crate::server::iops::IopsCap>,
    /// The pids of the other live `oltp` processes that used the same private server
    /// when the run started (they shared its cores: the figures are not comparable
    /// with a quiet run's); empty when none (and in results written before the field
    /// existed).
    #[serde(default)]
    pub shared_with: Vec<u32>,
    /// What a pgbench workload ran with (absent for sysbench's workloads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pgbench: Option<PgbenchRun>,
}

/// The pgbench side of a run of a pgbench workload: what pgbench's report
/// prints besides the counts and latencies every run has.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PgbenchRun {
    /// pgbench's name of the script (`tpcb-like`, `simple-update`, `select-only`).
    pub script: String,
    /// Scaling factor of the tables (`count(*)` of `pgbench_branches`).
    pub scale: u32,
    /// pgbench's `-M`: `prepared` (`--db-ps-mode auto`) or `simple` (`disable`).
    pub query_mode: String,
    /// Wall time from the start of the workers until every connection was
    /// open and its statements prepared, ms (pgbench's "initial connection
    /// time", which is not in the measured window: TPS excludes it).
    pub initial_connection_ms: f64,
    /// pgbench's `-t`: transactions per client of a run by count (`--time 0
    /// --events N`: N / `--threads`, which `oltp run` requires to divide N);
    /// absent for a run by time (`-T`) and in results written before the
    /// field. The report's expected total is this x the clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transactions_per_client: Option<u64>,
}

/// Queries by sysbench's classes.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Queries {
    /// Queries that returned a result set.
    pub read: u64,
    /// DML that changed rows.
    pub write: u64,
    /// BEGIN, COMMIT and DML that matched nothing.
    pub other: u64,
    /// read + write + other.
    pub total: u64,
}

/// Event (transaction) latency in milliseconds, from an HdrHistogram
/// (percentiles are never outside [min, max]).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct LatencyMs {
    /// Fastest event, ms.
    pub min: f64,
    /// Mean, ms (sysbench's "avg", the seed report's "RT").
    pub avg: f64,
    /// Median, ms.
    pub p50: f64,
    /// 95th percentile, ms.
    pub p95: f64,
    /// 99th percentile, ms.
    pub p99: f64,
    /// Slowest event, ms.
    pub max: f64,
    /// Sum over all events, ms.
    pub sum: f64,
    /// Standard deviation, ms (pgbench's "latency stddev"); 0 in results
    /// written before the field.
    #[serde(default)]
    pub stddev: f64,
}

/// `--rate`: the schedule lag of a run, ms, as pgbench's "rate limit
/// schedule lag: avg X (max Y) ms": from each event's scheduled arrival to
/// the moment its worker started it (HdrHistogram, 3 digits).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct ScheduleLagMs {
    /// Mean over the run's completed events, ms.
    pub avg: f64,
    /// Largest, ms.
    pub max: f64,
}

/// `--latency-limit` (pgbench's `-L`) of a run: the limit and what pgbench 15
/// counts against it (`printResults`: "number of transactions skipped" and
/// "number of transactions above the LIMIT ms latency limit").
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct LatencyLimit {
    /// The limit, ms (whole microseconds, as pgbench keeps it).
    pub limit_ms: f64,
    /// Processed transactions that lasted longer than the limit (of
    /// `transactions`; with `--rate` from their scheduled start).
    pub late: u64,
    /// `--rate` only: arrivals already more than the limit behind their
    /// schedule when their worker would have started them, skipped (never
    /// sent): not in `transactions`, TPS or latency; 0 in a closed loop.
    pub skipped: u64,
}

/// Latency of one statement kind over a run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct StatementLatency {
    /// Statement kind: `begin`, `commit`, `point_select`, `simple_range`,
    /// `sum_range`, `order_range`, `distinct_range`, `index_update`,
    /// `non_index_update`, `delete`, `insert`.
    pub kind: String,
    /// Statements of this kind that completed.
    pub count: u64,
    /// The HdrHistogram itself (µs), V2 deflate serialisation in hex, so that
    /// `oltp merge` can add several clients' histograms.
    pub histogram: String,
    /// Their latency, ms (HdrHistogram with 2 significant digits, clamped to
    /// [min, max]); `sum` is count x mean.
    pub latency_ms: LatencyMs,
}

/// sysbench's "threads fairness".
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Fairness {
    /// Mean events per worker.
    pub events_avg: f64,
    /// Standard deviation of events per worker.
    pub events_stddev: f64,
    /// Mean execution time per worker, s.
    pub exec_time_avg_s: f64,
    /// Standard deviation of execution time per worker, s.
    pub exec_time_stddev_s: f64,
}

/// One run: one workload at one thread count with one encryption choice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// What the run ran with (flattened: `workload`, `threads`, ... are
    /// fields of the run's JSON object).
    #[serde(flatten)]
    pub settings: RunSettings,
    /// Round of `--repeat` (1-based).
    pub round: u32,
    /// A second run of the baseline in its round (`--control`, the A/A
    /// noise floor): not a mode of its own, left out of the summary and of
    /// the baseline's medians; false in results written before the field.
    #[serde(default)]
    pub control: bool,
    /// Measured wall time, s.
    pub time_s: f64,
    /// Events (transactions) completed.
    pub transactions: u64,
    /// Transactions per second.
    pub tps: f64,
    /// Queries per second (all classes).
    pub qps: f64,
    /// Queries by class.
    pub queries: Queries,
    /// Ignored errors (event restarted).
    pub errors: u64,
    /// Stored values that failed authentication: the run stopped at the
    /// first (`--on-decrypt-error stop`), or each event was rolled back and
    /// restarted (`count`); 0 in results written before the field.
    #[serde(default)]
    pub decrypt_errors: u64,
    /// Reconnects after lost connections.
    pub reconnects: u64,
    /// Events cut short by the error that stopped the run (one per worker it
    /// stopped mid-event): their statements so far are in `queries` and
    /// `statements` (so `begin` can exceed `commit` by this many, beside
    /// ignored-error restarts), not in `transactions`; the statements of an
    /// attempt that failed to decrypt are in neither. 0 for a complete run
    /// and in results written before the field.
    #[serde(default)]
    pub interrupted_events: u64,
    /// Event latency, ms.
    pub latency_ms: LatencyMs,
    /// `--rate`: the schedule lag (absent in a closed loop and in results
    /// written before the field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_lag_ms: Option<ScheduleLagMs>,
    /// `--latency-limit`: the limit with the late and skipped transactions
    /// (absent without a limit and in results written before the field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_limit: Option<LatencyLimit>,
    /// The event latency HdrHistogram (ns), V2 deflate serialisation in hex, so
    /// that `oltp merge` can add several clients' histograms.
    pub latency_histogram: String,
    /// Latency per statement kind, in sysbench's statement order (kinds the
    /// workload did not run are left out).
    pub statements: Vec<StatementLatency>,
    /// Threads fairness.
    pub fairness: Fairness,
    /// CPU time of the `oltp` process during the run (user + system, getrusage), s.
    pub client_cpu_s: f64,
    /// Client CPU per query, µs (steadier than QPS on a noisy machine).
    pub client_cpu_us_per_query: f64,
    /// When the run measured (after its warm-up), wall-clock UTC: `oltp
    /// merge` requires the windows of merged clients to overlap.
    pub measured_window: MeasuredWindow,
    /// CPU time of the server's processes during the measured window (user +
    /// system, `/proc/PID/stat` of the server and its descendants), s;
    /// `null` when the server's process cannot be read (see
    /// `server_cpu_unavailable`).
    pub server_cpu_s: Option<f64>,
    /// Server CPU per query, µs; `null` as `server_cpu_s`.
    pub server_cpu_us_per_query: Option<f64>,
    /// Client + server CPU per query, µs: what one query costs in CPU on
    /// both sides; `null` as `server_cpu_s`.
    pub total_cpu_us_per_query: Option<f64>,
    /// Why `server_cpu_s` is `null`, e.g. `server pid unknown: pass
    /// --server-pid PID`; `null` when it is measured.
    pub server_cpu_unavailable: Option<String>,
    /// False when the run stopped early (server lost, decryption failure, Ctrl-C).
    pub complete: bool,
    /// Why it stopped early, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

fn mean_stddev(xs: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let n = xs.clone().count() as f64;
    if n == 0.0 {
        return (0.0, 0.0);
    }
    let mean = xs.clone().sum::<f64>() / n;
    let var = xs.map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// `h` in HdrHistogram's V2 deflate format, hex-encoded.
pub fn histogram_to_hex(h: &hdrhistogram::Histogram<u64>) -> String {
    use hdrhistogram::serialization::{Serializer as _, V2DeflateSerializer};
    let mut bytes = Vec::new();
    match V2DeflateSerializer::new().serialize(h, &mut bytes) {
        Ok(_) => hex::encode(bytes),
        Err(_) => String::new(),
    }
}

/// The histogram [`histogram_to_hex`] wrote.
///
/// # Errors
/// Not hex, or not a V2 histogram.
pub fn histogram_from_hex(text: &str) -> Result<hdrhistogram::Histogram<u64>, String> {
    let bytes = hex::decode(text).map_err(|e| format!("histogram is not hex: {e}"))?;
    hdrhistogram::serialization::Deserializer::new()
        .deserialize(&mut &bytes[..])
        .map_err(|e| format!("histogram does not decode: {e:?}"))
}

impl LatencyMs {
    /// Summary of `h`, whose values times `to_ms` are milliseconds; zeros when
    /// empty. Percentiles are clamped to [min, max].
    pub fn from_histogram(h: &hdrhistogram::Histogram<u64>, to_ms: f64) -> LatencyMs {
        if h.is_empty() {
            return LatencyMs {
                min: 0.0,
                avg: 0.0,
                p50: 0.0,
                p95: 0.0,
                p99: 0.0,
                max: 0.0,
                sum: 0.0,
                stddev: 0.0,
            };
        }
        let (min, max) = (h.min(), h.max());
        let q = |p: f64| h.value_at_quantile(p).clamp(min, max) as f64 * to_ms;
        LatencyMs {
            min: min as f64 * to_ms,
            avg: h.mean() * to_ms,
            p50: q(0.50),
            p95: q(0.95),
            p99: q(0.99),
            max: max as f64 * to_ms,
            sum: h.mean() * h.len() as f64 * to_ms,
            stddev: h.stdev() * to_ms,
        }
    }
}

/// The CPU a run's measured window cost.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowCpu {
    /// The `oltp` process (user + system, getrusage), s.
    pub client_s: f64,
    /// The server's processes (user + system, `/proc`), s, or why it is
    /// not known.
    pub server_s: Result<f64, String>,
}

impl RunResult {
    /// Builds the result of a run with `settings` that measured over
    /// `window` (its length is the run's time) and used `cpu`; `error` says
    /// why it stopped early (`None`: complete). The round is 1 (the caller
    /// sets it).
    pub fn from_aggregate(
        settings: RunSettings,
        agg: &Aggregate,
        window: MeasuredWindow,
        cpu: WindowCpu,
        error: Option<String>,
    ) -> RunResult {
        let time_s = window.length().as_secs_f64();
        let cpu_s = cpu.client_s;
        let latency_ms = LatencyMs::from_histogram(&agg.latency, 1e-6);
        let statements = StatementKind::ALL
            .iter()
            .zip(&agg.statements)
            .filter_map(|(kind, st)| {
                let st = st.as_ref()?;
                Some(StatementLatency {
                    kind: kind.name().to_string(),
                    count: st.count,
                    histogram: histogram_to_hex(&st.latency_us),
                    latency_ms: LatencyMs::from_histogram(&st.latency_us, 1e-3),
                })
            })
            .collect();
        let total = agg.queries();
        let per_sec = |n: u64| if time_s > 0.0 { n as f64 / time_s } else { 0.0 };
        let (events_avg, events_stddev) =
            mean_stddev(agg.per_worker.iter().map(|(e, _)| *e as f64));
        let (exec_time_avg_s, exec_time_stddev_s) =
            mean_stddev(agg.per_worker.iter().map(|(_, t)| *t));
        let mut r =
            RunResult {
                settings,
                round: 1,
                control: false,
                time_s,
                transactions: agg.events,
                tps: per_sec(agg.events),
                qps: per_sec(total),
                queries: Queries {
                    read: agg.read,
                    write: agg.write,
                    other: agg.other,
                    total,
                },
                errors: agg.errors,
                decrypt_errors: agg.decrypt_errors,
                reconnects: agg.reconnects,
                interrupted_events: agg.interrupted,
                latency_ms,
                schedule_lag_ms: agg.lag.as_ref().filter(|h| !h.is_empty()).map(|h| {
                    ScheduleLagMs {
                        avg: h.mean() * 1e-6,
                        max: h.max() as f64 * 1e-6,
                    }
                }),
                latency_limit: None,
                latency_histogram: histogram_to_hex(&agg.latency),
                statements,
                fairness: Fairness {
                    events_avg,
                    events_stddev,
                    exec_time_avg_s,
                    exec_time_stddev_s,
                },
                client_cpu_s: cpu_s,
                client_cpu_us_per_query: 0.0,
                measured_window: window,
                server_cpu_s: None,
                server_cpu_us_per_query: None,
                total_cpu_us_per_query: None,
                server_cpu_unavailable: None,
                complete: error.is_none(),
                error,
            };
        r.set_cpu(cpu_s, cpu.server_s);
        r
    }

    /// Sets the CPU figures from `client_s` and `server_s` (seconds over
    /// the window) and the run's query count: per query in µs, 0 (client)
    /// or `null` (server, total) without queries.
    pub fn set_cpu(&mut self, client_s: f64, server_s: Result<f64, String>) {
        let total = self.queries.total;
        let per_query = |s: f64| (total > 0).then(|| s * 1e6 / total as f64);
        self.client_cpu_s = client_s;
        self.client_cpu_us_per_query = per_query(client_s).unwrap_or(0.0);
        match server_s {
            Ok(s) => {
                self.server_cpu_s = Some(s);
                self.server_cpu_us_per_query = per_query(s);
                self.total_cpu_us_per_query = per_query(client_s + s);
                self.server_cpu_unavailable = None;
            }
            Err(why) => {
                self.server_cpu_s = None;
                self.server_cpu_us_per_query = None;
                self.total_cpu_us_per_query = None;
                self.server_cpu_unavailable = Some(why);
            }
        }
    }
}

/// Synthetic runs for tests: real aggregates with recorded latencies (also for
/// other crates' tests, with the `test-fixtures` feature). Not a stable API.
#[cfg(any(test, feature = "test-fixtures"))]
#[doc(hidden)]
pub mod fixtures {
    use std::time::{Duration, Instant};

    use super::*;

    /// sysbench's default options, as a run records them (a unit test in `run` checks them
    /// against `workload_options(&Options::default())`; written out here so that the report
    /// does not depend on the run).
    pub fn options() -> WorkloadOptions {
        WorkloadOptions {
            range_size: 100,
            point_selects: 10,
            simple_ranges: 1,
            sum_ranges: 1,
            order_ranges: 1,
            distinct_ranges: 1,
            index_updates: 1,
            non_index_updates: 1,
            delete_inserts: 1,
            range_selects: true,
            skip_trx: false,
            auto_inc: true,
            random_points: 10,
            db_ps_mode: "auto".to_string(),
        }
    }

    /// oltp_read_only on 2 tables x 1000 rows at `threads` with `encrypt`.
    pub fn settings(threads: u32, encrypt: &str) -> RunSettings {
        RunSettings {
            workload: "oltp_read_only".to_string(),
            threads,
            encrypt: encrypt.to_string(),
            encrypted_columns: if encrypt == "none" {
                String::new()
            } else {
                "c, pad".to_string()
            },
            database: "sbtest".to_string(),
            tables: Some(2),
            table_size: Some(1000),
            range_size: Some(100),
            options: options(),
            rand_type: "uniform".to_string(),
            rand_seed: 0,
            rate: 0.0,
            tls: None,
            at_rest: None,
            engine: "mariadb".to_string(),
            server_version: "11.8.3-MariaDB".to_string(),
            server_settings: BTreeMap::from([(
                "innodb_buffer_pool_size".to_string(),
                "134217728".to_string(),
            )]),
            iops_cap: None,
            shared_with: Vec::new(),
            pgbench: None,
        }
    }

    /// pgbench's select-only at `threads` clients on tables of `scale`, in
    /// `query_mode`, with `initial_connection_ms`.
    pub fn select_only(
        threads: u32,
        scale: u32,
        query_mode: &str,
        initial_connection_ms: f64,
    ) -> RunSettings {
        let mut st = settings(threads, "none");
        st.workload = "pgbench_select_only".into();
        (st.tables, st.table_size, st.range_size) = (None, None, None);
        st.pgbench = Some(super::PgbenchRun {
            script: "select-only".into(),
            scale,
            query_mode: query_mode.into(),
            initial_connection_ms,
            transactions_per_client: None,
        });
        st
    }

    /// A 2 s run with `settings`: each of its threads completed `fast` events
    /// of 1 ms then `slow` events of 10 ms, each one point select (0.1 ms or
    /// 1 ms) and BEGIN + COMMIT.
    pub fn run(settings: RunSettings, fast: u64, slow: u64) -> RunResult {
        let end = Instant::now();
        let mut total = Aggregate::new();
        for _ in 0..settings.threads {
            let mut w = Aggregate::new();
            for i in 0..fast + slow {
                let ms = if i < fast { 1 } else { 10 };
                w.record_statement(StatementKind::PointSelect, Duration::from_micros(ms * 100));
                w.record_event(Duration::from_millis(ms), end);
                w.read += 1;
                w.other += 2;
            }
            w.exec_time = Duration::from_secs(2);
            total.merge(&w);
        }
        let start = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_000_000);
        let window = MeasuredWindow::new(start, Duration::from_secs(2));
        let cpu = WindowCpu {
            client_s: 0.5,
            server_s: Ok(1.5),
        };
        RunResult::from_aggregate(settings, &total, window, cpu, None)
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{run, settings};
    use super::*;

    #[test]
    fn from_aggregate_counts_and_latencies() {
        let r = run(settings(4, "none"), 92, 8);
        assert_eq!(r.settings.threads, 4);
        assert_eq!(r.transactions, 400);
        assert_eq!(r.queries.total, 1200);
        assert!((r.tps - 200.0).abs() < 1e-9);
        assert!((r.latency_ms.p95 - 10.0).abs() < 0.1, "{:?}", r.latency_ms);
        assert!((r.latency_ms.p50 - 1.0).abs() < 0.01, "{:?}", r.latency_ms);
        assert_eq!(r.statements.len(), 1);
        assert_eq!(r.statements[0].count, 400);
        let h = histogram_from_hex(&r.latency_histogram).expect("histogram");
        assert_eq!(h.len(), 400);
        assert!(r.complete);
    }
}
