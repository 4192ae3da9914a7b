//! Reporting: the result type every exporter reads, sysbench's text layout, JSON,
//! and the plaintext-vs-ciphertext comparison table of the column-encryption
//! report (seed 000).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::driver::TlsSession;
use crate::measure::{Aggregate, StatementKind};
use crate::workload::Options;

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
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunResult {
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
    /// Tables.
    pub tables: u32,
    /// Rows per table.
    pub table_size: u32,
    /// Rows per range query.
    pub range_size: u32,
    /// sysbench's workload options used (point_selects, skip_trx, ...).
    pub options: Options,
    /// Id distribution (`--rand-type`).
    pub rand_type: String,
    /// `--rand-seed` (0: seeded from the operating system).
    pub rand_seed: u64,
    /// `--rate`, events per second for all threads (0: closed loop). With a
    /// rate, latency includes the time an event waited for its thread.
    #[serde(default)]
    pub rate: f64,
    /// TLS session (version and cipher as the server reports them), when TLS was on.
    pub tls: Option<TlsSession>,
    /// Whether every table was verified encrypted at rest before the run.
    pub at_rest: bool,
    /// Round of `--repeat` (1-based).
    pub round: u32,
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
    /// Reconnects after lost connections.
    pub reconnects: u64,
    /// Event latency, ms.
    pub latency_ms: LatencyMs,
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
    /// `SELECT VERSION()` of the server.
    pub server_version: String,
    /// Server variables (buffer pool, durability, TLS, at rest), name -> value.
    pub server_settings: std::collections::BTreeMap<String, String>,
    /// False when the run stopped early (server lost, decryption failure, Ctrl-C).
    pub complete: bool,
    /// Why it stopped early, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Inputs of [`RunResult::from_aggregate`] that are not in the aggregate.
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// Workload name.
    pub workload: String,
    /// Threads.
    pub threads: u32,
    /// Encryption choice name.
    pub encrypt: String,
    /// The encrypted columns (e.g. `k (deterministic), c, pad`); empty for plaintext.
    pub encrypted_columns: String,
    /// Database.
    pub database: String,
    /// Tables.
    pub tables: u32,
    /// Rows per table.
    pub table_size: u32,
    /// Range size.
    pub range_size: u32,
    /// Workload options.
    pub options: Options,
    /// Id distribution.
    pub rand_type: String,
    /// Random seed.
    pub rand_seed: u64,
    /// Open-loop rate, events per second (0: closed loop).
    pub rate: f64,
    /// TLS session, when on.
    pub tls: Option<TlsSession>,
    /// Verified encrypted at rest.
    pub at_rest: bool,
    /// Server version.
    pub server_version: String,
    /// Server settings.
    pub server_settings: std::collections::BTreeMap<String, String>,
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
        }
    }
}

impl RunResult {
    /// Builds the result of a run that lasted `time_s` seconds and used `cpu_s`
    /// seconds of client CPU.
    pub fn from_aggregate(
        info: RunInfo,
        agg: &Aggregate,
        time_s: f64,
        cpu_s: f64,
        error: Option<String>,
    ) -> RunResult {
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
        RunResult {
            workload: info.workload,
            threads: info.threads,
            encrypt: info.encrypt,
            encrypted_columns: info.encrypted_columns,
            database: info.database,
            tables: info.tables,
            table_size: info.table_size,
            range_size: info.range_size,
            options: info.options,
            rand_type: info.rand_type,
            rand_seed: info.rand_seed,
            rate: info.rate,
            tls: info.tls,
            at_rest: info.at_rest,
            round: 1,
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
            reconnects: agg.reconnects,
            latency_ms,
            latency_histogram: histogram_to_hex(&agg.latency),
            statements,
            fairness: Fairness {
                events_avg,
                events_stddev,
                exec_time_avg_s,
                exec_time_stddev_s,
            },
            client_cpu_s: cpu_s,
            client_cpu_us_per_query: if total > 0 {
                cpu_s * 1e6 / total as f64
            } else {
                0.0
            },
            server_version: info.server_version,
            server_settings: info.server_settings,
            complete: error.is_none(),
            error,
        }
    }

    /// The run in sysbench 1.0's final-report layout.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let per = |n: u64| {
            if self.time_s > 0.0 {
                n as f64 / self.time_s
            } else {
                0.0
            }
        };
        let _ = writeln!(
            s,
            "{} | threads: {} | encrypt: {} | tls: {} | at rest: {} | {} x {} rows | server {}{}",
            self.workload,
            self.threads,
            if self.encrypted_columns.is_empty() {
                self.encrypt.clone()
            } else {
                format!("{} ({})", self.encrypt, self.encrypted_columns)
            },
            self.tls
                .as_ref()
                .map_or("off".to_string(), |t| format!("{} {}", t.version, t.cipher)),
            if self.at_rest { "on" } else { "off" },
            self.tables,
            self.table_size,
            self.server_version,
            if self.round > 1 {
                format!(" | round {}", self.round)
            } else {
                String::new()
            }
        );
        let _ = writeln!(s, "SQL statistics:");
        let _ = writeln!(s, "    queries performed:");
        let _ = writeln!(
            s,
            "        read:                            {}",
            self.queries.read
        );
        let _ = writeln!(
            s,
            "        write:                           {}",
            self.queries.write
        );
        let _ = writeln!(
            s,
            "        other:                           {}",
            self.queries.other
        );
        let _ = writeln!(
            s,
            "        total:                           {}",
            self.queries.total
        );
        let _ = writeln!(
            s,
            "    transactions:                        {:<8} ({:.2} per sec.)",
            self.transactions, self.tps
        );
        let _ = writeln!(
            s,
            "    queries:                             {:<8} ({:.2} per sec.)",
            self.queries.total, self.qps
        );
        let _ = writeln!(
            s,
            "    ignored errors:                      {:<8} ({:.2} per sec.)",
            self.errors,
            per(self.errors)
        );
        let _ = writeln!(
            s,
            "    reconnects:                          {:<8} ({:.2} per sec.)",
            self.reconnects,
            per(self.reconnects)
        );
        let _ = writeln!(s);
        let _ = writeln!(s, "General statistics:");
        let _ = writeln!(
            s,
            "    total time:                          {:.4}s",
            self.time_s
        );
        let _ = writeln!(
            s,
            "    total number of events:              {}",
            self.transactions
        );
        let _ = writeln!(s);
        let l = &self.latency_ms;
        let _ = writeln!(s, "Latency (ms):");
        let _ = writeln!(
            s,
            "         min:                              {:>10.2}",
            l.min
        );
        let _ = writeln!(
            s,
            "         avg:                              {:>10.2}",
            l.avg
        );
        let _ = writeln!(
            s,
            "         max:                              {:>10.2}",
            l.max
        );
        let _ = writeln!(
            s,
            "         95th percentile:                  {:>10.2}",
            l.p95
        );
        let _ = writeln!(
            s,
            "         sum:                              {:>10.2}",
            l.sum
        );
        let _ = writeln!(s);
        if !self.statements.is_empty() {
            let _ = writeln!(
                s,
                "Statement latency (ms):      count        min        avg        p50        p95        p99        max"
            );
            for st in &self.statements {
                let l = &st.latency_ms;
                let _ = writeln!(
                    s,
                    "    {:<20} {:>11} {:>10.3} {:>10.3} {:>10.3} {:>10.3} {:>10.3} {:>10.3}",
                    st.kind, st.count, l.min, l.avg, l.p50, l.p95, l.p99, l.max
                );
            }
            let _ = writeln!(s);
        }
        let f = &self.fairness;
        let _ = writeln!(s, "Threads fairness:");
        let _ = writeln!(
            s,
            "    events (avg/stddev):           {:.4}/{:.2}",
            f.events_avg, f.events_stddev
        );
        let _ = writeln!(
            s,
            "    execution time (avg/stddev):   {:.4}/{:.2}",
            f.exec_time_avg_s, f.exec_time_stddev_s
        );
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "Client CPU: {:.3} s ({:.1} us per query)",
            self.client_cpu_s, self.client_cpu_us_per_query
        );
        if let Some(e) = &self.error {
            let _ = writeln!(s, "INCOMPLETE RUN: {e}");
        }
        s
    }
}

/// Median, smallest and largest of one figure over the rounds of `--repeat`.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Spread {
    /// Median (the mean of the two middle values for an even count).
    pub median: f64,
    /// Smallest.
    pub min: f64,
    /// Largest.
    pub max: f64,
}

impl Spread {
    /// The spread of `xs` (zeros when empty).
    pub fn of(mut xs: Vec<f64>) -> Spread {
        if xs.is_empty() {
            return Spread {
                median: 0.0,
                min: 0.0,
                max: 0.0,
            };
        }
        xs.sort_by(f64::total_cmp);
        let n = xs.len();
        let median = if n % 2 == 1 {
            xs[n / 2]
        } else {
            (xs[n / 2 - 1] + xs[n / 2]) / 2.0
        };
        Spread {
            median,
            min: xs[0],
            max: xs[n - 1],
        }
    }
}

/// One combination of the grid (workload, threads, encryption, TLS) over its
/// `--repeat` rounds.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SummaryRow {
    /// Workload.
    pub workload: String,
    /// Threads.
    pub threads: u32,
    /// Column encryption: `none` or `BACKEND:ALGORITHM`.
    pub encrypt: String,
    /// The encrypted columns (e.g. `k (deterministic), c, pad`); empty for plaintext.
    pub encrypted_columns: String,
    /// Whether the connections used TLS.
    pub tls: bool,
    /// Whether the tables were encrypted at rest.
    pub at_rest: bool,
    /// The mode as one label, e.g. `none`, `openssl:aes-256-gcm + TLS`,
    /// `rustcrypto:aes-256-siv [k (deterministic), c, pad]` (the columns are
    /// named when they are not the default `c, pad`).
    pub mode: String,
    /// Complete runs summarised.
    pub runs: usize,
    /// Queries per second.
    pub qps: Spread,
    /// Transactions per second.
    pub tps: Spread,
    /// Average event latency (RT), ms.
    pub rt_ms: Spread,
    /// 95th percentile event latency, ms.
    pub p95_ms: Spread,
    /// Client CPU per query, µs.
    pub cpu_us_per_query: Spread,
}

/// The label of a mode: the encryption choice (with its columns unless they
/// are the default `c, pad`), `+ TLS`, `+ at rest`.
pub fn mode_label(encrypt: &str, columns: &str, tls: bool, at_rest: bool) -> String {
    let mut parts = Vec::new();
    if encrypt != "none" || (!tls && !at_rest) {
        if columns.is_empty() || columns == "c, pad" || encrypt == "none" {
            parts.push(encrypt.to_string());
        } else {
            parts.push(format!("{encrypt} [{columns}]"));
        }
    }
    if tls {
        parts.push("TLS".to_string());
    }
    if at_rest {
        parts.push("at rest".to_string());
    }
    parts.join(" + ")
}

/// Groups complete runs by (workload, threads, encryption, TLS), in first-run
/// order, with medians and min-max over the rounds.
pub fn summary(runs: &[RunResult]) -> Vec<SummaryRow> {
    let mut rows: Vec<SummaryRow> = Vec::new();
    let key = |r: &RunResult| {
        (
            r.workload.clone(),
            r.threads,
            r.encrypt.clone(),
            r.tls.is_some(),
            r.encrypted_columns.clone(),
        )
    };
    let mut keys = Vec::new();
    for r in runs.iter().filter(|r| r.complete) {
        if !keys.contains(&key(r)) {
            keys.push(key(r));
        }
    }
    for k in keys {
        let group: Vec<&RunResult> = runs.iter().filter(|r| r.complete && key(r) == k).collect();
        let spread =
            |f: &dyn Fn(&RunResult) -> f64| Spread::of(group.iter().map(|r| f(r)).collect());
        let at_rest = group.iter().any(|r| r.at_rest);
        rows.push(SummaryRow {
            mode: mode_label(&k.2, &k.4, k.3, at_rest),
            workload: k.0,
            threads: k.1,
            encrypt: k.2,
            encrypted_columns: k.4,
            tls: k.3,
            at_rest,
            runs: group.len(),
            qps: spread(&|r| r.qps),
            tps: spread(&|r| r.tps),
            rt_ms: spread(&|r| r.latency_ms.avg),
            p95_ms: spread(&|r| r.latency_ms.p95),
            cpu_us_per_query: spread(&|r| r.client_cpu_us_per_query),
        });
    }
    rows
}

/// One row of the comparison table (seed 000's layout): a thread count, the
/// baseline (no column encryption, no TLS) vs one other mode, medians over the
/// rounds.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ComparisonRow {
    /// Workload.
    pub workload: String,
    /// The mode compared with the baseline, e.g. `openssl:aes-256-gcm + TLS`.
    pub mode: String,
    /// Its column encryption choice.
    pub encrypt: String,
    /// Its encrypted columns (e.g. `k (deterministic), c, pad`).
    pub encrypted_columns: String,
    /// Whether it used TLS.
    pub tls: bool,
    /// Threads.
    pub threads: u32,
    /// Baseline QPS (median).
    pub plaintext_qps: f64,
    /// The mode's QPS (median).
    pub ciphertext_qps: f64,
    /// Baseline RT (average event latency, median), ms.
    pub plaintext_rt_ms: f64,
    /// The mode's RT, ms.
    pub ciphertext_rt_ms: f64,
    /// (mode - baseline) / baseline QPS, percent (negative = slower).
    pub qps_diff_pct: f64,
    /// (mode - baseline) / baseline RT, percent (positive = slower).
    pub rt_diff_pct: f64,
    /// Client CPU per query, baseline, µs.
    pub plaintext_cpu_us_per_query: f64,
    /// Client CPU per query, the mode, µs.
    pub ciphertext_cpu_us_per_query: f64,
}

/// Pairs every mode with the baseline (no column encryption, no TLS) of the
/// same workload and thread count.
pub fn comparison(runs: &[RunResult]) -> Vec<ComparisonRow> {
    let pct = |new: f64, old: f64| {
        if old > 0.0 {
            (new - old) / old * 100.0
        } else {
            0.0
        }
    };
    let sum = summary(runs);
    let mut rows = Vec::new();
    for m in sum.iter().filter(|r| r.encrypt != "none" || r.tls) {
        let Some(base) = sum.iter().find(|p| {
            p.encrypt == "none" && !p.tls && p.threads == m.threads && p.workload == m.workload
        }) else {
            continue;
        };
        rows.push(ComparisonRow {
            workload: m.workload.clone(),
            mode: m.mode.clone(),
            encrypt: m.encrypt.clone(),
            encrypted_columns: m.encrypted_columns.clone(),
            tls: m.tls,
            threads: m.threads,
            plaintext_qps: base.qps.median,
            ciphertext_qps: m.qps.median,
            plaintext_rt_ms: base.rt_ms.median,
            ciphertext_rt_ms: m.rt_ms.median,
            qps_diff_pct: pct(m.qps.median, base.qps.median),
            rt_diff_pct: pct(m.rt_ms.median, base.rt_ms.median),
            plaintext_cpu_us_per_query: base.cpu_us_per_query.median,
            ciphertext_cpu_us_per_query: m.cpu_us_per_query.median,
        });
    }
    rows
}

/// The comparison as the seed report's tables, one per mode, with the %
/// differences (Markdown table syntax, readable as text).
pub fn comparison_text(rows: &[ComparisonRow]) -> String {
    let mut s = String::new();
    let mut modes: Vec<&str> = Vec::new();
    for r in rows {
        if !modes.contains(&r.mode.as_str()) {
            modes.push(&r.mode);
        }
    }
    for mode in modes {
        let _ = writeln!(s, "\nPlaintext vs {mode}");
        let _ = writeln!(
            s,
            "| Threads | Plaintext QPS | Ciphertext QPS | QPS diff | Plaintext RT (ms) | Ciphertext RT (ms) | RT diff | Client CPU us/query (plain / cipher) |"
        );
        let _ = writeln!(s, "|---:|---:|---:|---:|---:|---:|---:|---:|");
        for r in rows.iter().filter(|r| r.mode == mode) {
            if r.plaintext_qps <= 0.0 || r.ciphertext_qps <= 0.0 {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | n/a (a run had no events) | | | | |",
                    r.threads,
                    thousands(r.plaintext_qps),
                    thousands(r.ciphertext_qps),
                );
                continue;
            }
            let _ = writeln!(
                s,
                "| {} | {} | {} | {:+.1}% | {:.2} | {:.2} | {:+.1}% | {:.1} / {:.1} |",
                r.threads,
                thousands(r.plaintext_qps),
                thousands(r.ciphertext_qps),
                r.qps_diff_pct,
                r.plaintext_rt_ms,
                r.ciphertext_rt_ms,
                r.rt_diff_pct,
                r.plaintext_cpu_us_per_query,
                r.ciphertext_cpu_us_per_query
            );
        }
    }
    s
}

/// The summary as a Markdown table: medians with (min-max) over the rounds.
pub fn summary_text(rows: &[SummaryRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| Workload | Threads | Mode | Runs | QPS median (min-max) | TPS median | RT avg ms median (min-max) | p95 ms median | Client CPU us/query median (min-max) |"
    );
    let _ = writeln!(s, "|---|---:|---|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} ({}-{}) | {:.2} | {:.2} ({:.2}-{:.2}) | {:.2} | {:.1} ({:.1}-{:.1}) |",
            r.workload,
            r.threads,
            r.mode,
            r.runs,
            thousands(r.qps.median),
            thousands(r.qps.min),
            thousands(r.qps.max),
            r.tps.median,
            r.rt_ms.median,
            r.rt_ms.min,
            r.rt_ms.max,
            r.p95_ms.median,
            r.cpu_us_per_query.median,
            r.cpu_us_per_query.min,
            r.cpu_us_per_query.max
        );
    }
    s
}

/// `12345.678` as `12,345.68`, as in the seed report.
pub fn thousands(x: f64) -> String {
    let s = format!("{x:.2}");
    let (int, frac) = s.split_once('.').unwrap_or((&s, "00"));
    let (sign, digits) = int.strip_prefix('-').map_or(("", int), |d| ("-", d));
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    format!("{sign}{out}.{frac}")
}

/// Everything `oltp run` reports, as printed by `--output json` and written by `--json-out`.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `oltp`.
    pub tool: &'static str,
    /// encbench version.
    pub version: &'static str,
    /// False when any run stopped early.
    pub complete: bool,
    /// Every run, in the order run.
    pub runs: Vec<RunResult>,
    /// Every combination over its rounds: medians with min-max.
    pub summary: Vec<SummaryRow>,
    /// The baseline (no column encryption, no TLS) vs each other mode, medians.
    pub comparison: Vec<ComparisonRow>,
}

impl Report {
    /// Builds the report of `runs`.
    pub fn new(runs: Vec<RunResult>) -> Report {
        Report {
            tool: "oltp",
            version: env!("CARGO_PKG_VERSION"),
            complete: runs.iter().all(|r| r.complete),
            summary: summary(&runs),
            comparison: comparison(&runs),
            runs,
        }
    }

    /// JSON (pretty-printed).
    ///
    /// # Errors
    /// Serialisation failed.
    pub fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(self)
    }

    /// CSV: one row per run with its settings and figures (latencies in ms,
    /// CPU in µs per query), a header first.
    ///
    /// # Errors
    /// Writing failed.
    pub fn to_csv(&self) -> Result<String, csv::Error> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record([
            "workload",
            "threads",
            "encrypt",
            "encrypted_columns",
            "tls",
            "tls_cipher",
            "at_rest",
            "round",
            "tables",
            "table_size",
            "time_s",
            "transactions",
            "tps",
            "qps",
            "read",
            "write",
            "other",
            "errors",
            "reconnects",
            "lat_min_ms",
            "lat_avg_ms",
            "lat_p50_ms",
            "lat_p95_ms",
            "lat_p99_ms",
            "lat_max_ms",
            "client_cpu_s",
            "client_cpu_us_per_query",
            "server_version",
            "complete",
        ])?;
        for r in &self.runs {
            let l = &r.latency_ms;
            w.write_record([
                r.workload.clone(),
                r.threads.to_string(),
                r.encrypt.clone(),
                r.encrypted_columns.clone(),
                r.tls.is_some().to_string(),
                r.tls.as_ref().map(|t| t.cipher.clone()).unwrap_or_default(),
                r.at_rest.to_string(),
                r.round.to_string(),
                r.tables.to_string(),
                r.table_size.to_string(),
                format!("{:.4}", r.time_s),
                r.transactions.to_string(),
                format!("{:.2}", r.tps),
                format!("{:.2}", r.qps),
                r.queries.read.to_string(),
                r.queries.write.to_string(),
                r.queries.other.to_string(),
                r.errors.to_string(),
                r.reconnects.to_string(),
                format!("{:.3}", l.min),
                format!("{:.3}", l.avg),
                format!("{:.3}", l.p50),
                format!("{:.3}", l.p95),
                format!("{:.3}", l.p99),
                format!("{:.3}", l.max),
                format!("{:.3}", r.client_cpu_s),
                format!("{:.1}", r.client_cpu_us_per_query),
                r.server_version.clone(),
                r.complete.to_string(),
            ])?;
        }
        let bytes = w.into_inner().map_err(|e| e.into_error())?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Markdown: the summary table (medians with min-max) and the comparison
    /// tables.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "## oltp {}\n", self.version);
        if let Some(r) = self.runs.first() {
            let _ = writeln!(
                s,
                "{} tables x {} rows, server {}, range size {}, rand-type {}{}\n",
                r.tables,
                r.table_size,
                r.server_version,
                r.range_size,
                r.rand_type,
                if self.complete {
                    ""
                } else {
                    " (INCOMPLETE: a run stopped early)"
                }
            );
        }
        s.push_str(&summary_text(&self.summary));
        s.push_str(&comparison_text(&self.comparison));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(14332.576), "14,332.58");
        assert_eq!(thousands(108128.31), "108,128.31");
        assert_eq!(thousands(12.0), "12.00");
        assert_eq!(thousands(-1234.5), "-1,234.50");
    }
}
