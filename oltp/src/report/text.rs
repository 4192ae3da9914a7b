//! Text: a run in sysbench 1.0's final-report layout, and the summary and
//! comparison tables (Markdown table syntax, readable as text).

use std::fmt::Write as _;

use super::model::RunResult;
use super::summary::{ComparisonRow, SummaryRow};

impl RunResult {
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
            self.settings.workload,
            self.settings.threads,
            if self.settings.encrypted_columns.is_empty() {
                self.settings.encrypt.clone()
            } else {
                format!(
                    "{} ({})",
                    self.settings.encrypt, self.settings.encrypted_columns
                )
            },
            self.settings
                .tls
                .as_ref()
                .map_or("off".to_string(), |t| format!("{} {}", t.version, t.cipher)),
            if self.settings.at_rest { "on" } else { "off" },
            self.settings.tables,
            self.settings.table_size,
            self.settings.server_version,
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
