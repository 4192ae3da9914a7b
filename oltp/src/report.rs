//! Reporting: the result type every exporter reads, sysbench's text layout, JSON,
//! and the plaintext-vs-ciphertext comparison table of the column-encryption
//! report (seed 000).

use std::fmt::Write as _;

use serde::Serialize;

use crate::measure::{Aggregate, StatementKind};
use crate::workload::Options;

/// Queries by sysbench's classes.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
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
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
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
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StatementLatency {
    /// Statement kind: `begin`, `commit`, `point_select`, `simple_range`,
    /// `sum_range`, `order_range`, `distinct_range`, `index_update`,
    /// `non_index_update`, `delete`, `insert`.
    pub kind: &'static str,
    /// Statements of this kind that completed.
    pub count: u64,
    /// Their latency, ms (HdrHistogram with 2 significant digits, clamped to
    /// [min, max]); `sum` is count x mean.
    pub latency_ms: LatencyMs,
}

/// sysbench's "threads fairness".
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
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
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// sysbench workload name, e.g. `oltp_read_only`.
    pub workload: String,
    /// Worker threads (= connections).
    pub threads: u32,
    /// `none` or `BACKEND:ALGORITHM`.
    pub encrypt: String,
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
    /// False when the run stopped early (server lost, decryption failure, Ctrl-C).
    pub complete: bool,
    /// Why it stopped early, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
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
    /// Server version.
    pub server_version: String,
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
                    kind: kind.name(),
                    count: st.count,
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
            database: info.database,
            tables: info.tables,
            table_size: info.table_size,
            range_size: info.range_size,
            options: info.options,
            rand_type: info.rand_type,
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
            "{} | threads: {} | encrypt: {} | {} x {} rows | server {}",
            self.workload,
            self.threads,
            self.encrypt,
            self.tables,
            self.table_size,
            self.server_version
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

/// One row of the comparison table: a thread count, plaintext vs one encryption choice.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ComparisonRow {
    /// The encryption choice compared with plaintext.
    pub encrypt: String,
    /// Threads.
    pub threads: u32,
    /// Plaintext QPS.
    pub plaintext_qps: f64,
    /// Ciphertext QPS.
    pub ciphertext_qps: f64,
    /// Plaintext RT (average event latency), ms.
    pub plaintext_rt_ms: f64,
    /// Ciphertext RT, ms.
    pub ciphertext_rt_ms: f64,
    /// (ciphertext - plaintext) / plaintext QPS, percent (negative = slower).
    pub qps_diff_pct: f64,
    /// (ciphertext - plaintext) / plaintext RT, percent (positive = slower).
    pub rt_diff_pct: f64,
    /// Client CPU per query, plaintext, µs.
    pub plaintext_cpu_us_per_query: f64,
    /// Client CPU per query, ciphertext, µs.
    pub ciphertext_cpu_us_per_query: f64,
}

/// Pairs every encrypted run with the plaintext run of the same workload and
/// thread count, in the order the runs were given.
pub fn comparison(runs: &[RunResult]) -> Vec<ComparisonRow> {
    let pct = |new: f64, old: f64| {
        if old > 0.0 {
            (new - old) / old * 100.0
        } else {
            0.0
        }
    };
    let mut rows = Vec::new();
    for enc in runs.iter().filter(|r| r.encrypt != "none") {
        let Some(plain) = runs.iter().find(|p| {
            p.encrypt == "none" && p.threads == enc.threads && p.workload == enc.workload
        }) else {
            continue;
        };
        rows.push(ComparisonRow {
            encrypt: enc.encrypt.clone(),
            threads: enc.threads,
            plaintext_qps: plain.qps,
            ciphertext_qps: enc.qps,
            plaintext_rt_ms: plain.latency_ms.avg,
            ciphertext_rt_ms: enc.latency_ms.avg,
            qps_diff_pct: pct(enc.qps, plain.qps),
            rt_diff_pct: pct(enc.latency_ms.avg, plain.latency_ms.avg),
            plaintext_cpu_us_per_query: plain.client_cpu_us_per_query,
            ciphertext_cpu_us_per_query: enc.client_cpu_us_per_query,
        });
    }
    rows
}

/// The comparison as the seed report's tables, one per encryption choice, with
/// the % differences.
pub fn comparison_text(rows: &[ComparisonRow]) -> String {
    let mut s = String::new();
    let mut choices: Vec<&str> = Vec::new();
    for r in rows {
        if !choices.contains(&r.encrypt.as_str()) {
            choices.push(&r.encrypt);
        }
    }
    for choice in choices {
        let _ = writeln!(
            s,
            "\nPlaintext vs {choice} (column encryption of c and pad)"
        );
        let _ = writeln!(
            s,
            "| Threads | Plaintext QPS | Ciphertext QPS | QPS diff | Plaintext RT (ms) | Ciphertext RT (ms) | RT diff | Client CPU us/query (plain / cipher) |"
        );
        let _ = writeln!(s, "|---:|---:|---:|---:|---:|---:|---:|---:|");
        for r in rows.iter().filter(|r| r.encrypt == choice) {
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
    /// Plaintext vs each encryption choice.
    pub comparison: Vec<ComparisonRow>,
}

impl Report {
    /// Builds the report of `runs`.
    pub fn new(runs: Vec<RunResult>) -> Report {
        Report {
            tool: "oltp",
            version: env!("CARGO_PKG_VERSION"),
            complete: runs.iter().all(|r| r.complete),
            comparison: comparison(&runs),
            runs,
        }
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
