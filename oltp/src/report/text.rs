//! Text: a run in sysbench 1.0's final-report layout, and the summary and
//! comparison tables (Markdown table syntax, readable as text).

use std::fmt::Write as _;

use encbench_common::compare::{self, Better, Comparison, Verdict, describe};

use super::model::RunResult;
use super::summary::{MetricComparison, SummaryRow, metric};

impl RunResult {
    /// The run in sysbench 1.0's final-report layout (pgbench 15's for a
    /// pgbench workload, [`RunResult::to_pgbench_text`]).
    pub fn to_text(&self) -> String {
        if self.settings.pgbench.is_some() {
            return self.to_pgbench_text();
        }
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
            "{} | threads: {} | encrypt: {} | tls: {} | at rest: {} | {} | {}server {}{}{}",
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
            self.settings.tls.as_ref().map_or("off".to_string(), |t| {
                format!(
                    "{} {} ({})",
                    t.version,
                    t.cipher,
                    t.mode.label(self.settings.engine == "postgresql")
                )
            }),
            self.settings
                .at_rest
                .as_ref()
                .map_or("off".to_string(), |a| {
                    let check = match (a.verified_no_plaintext, &a.control_of) {
                        (Some(true), _) => ", no plaintext on disk (verified)".to_string(),
                        (Some(false), Some(of)) => {
                            format!(", control of {of}: plaintext on disk, as expected")
                        }
                        (Some(false), None) => ", plaintext found on disk".to_string(),
                        (None, _) => String::new(),
                    };
                    format!("{} ({}{check})", a.mechanism, a.crypto_driver)
                }),
            match (
                &self.settings.pgbench,
                self.settings.tables,
                self.settings.table_size
            ) {
                (Some(p), _, _) => format!("pgbench scale {}", p.scale),
                (None, tables, rows) => format!(
                    "{} x {} rows",
                    tables.unwrap_or_default(),
                    rows.unwrap_or_default()
                ),
            },
            if self.settings.engine.is_empty() {
                String::new()
            } else {
                format!("engine: {} | ", self.settings.engine)
            },
            self.settings.server_version,
            self.settings
                .iops_cap
                .as_ref()
                .map_or(String::new(), |c| format!(" | IOPS cap: {}", c.text())),
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
            "    decryption failures:                 {:<8} ({:.2} per sec.)",
            self.decrypt_errors,
            per(self.decrypt_errors)
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
        match (self.server_cpu_s, &self.server_cpu_unavailable) {
            (Some(server), _) => {
                let _ = writeln!(
                    s,
                    "Server CPU: {server:.3} s ({} us per query); total {} us per query",
                    one_decimal(self.server_cpu_us_per_query),
                    one_decimal(self.total_cpu_us_per_query)
                );
            }
            (None, why) => {
                let _ = writeln!(
                    s,
                    "Server CPU: not measured ({})",
                    why.as_deref().unwrap_or("no reason recorded")
                );
            }
        }
        s.push_str(&self.incomplete_text());
        s
    }

    /// The lines of a run that stopped early, in both layouts: `INCOMPLETE
    /// RUN: <why>`, and how many events it cut short; empty for a complete run.
    pub(super) fn incomplete_text(&self) -> String {
        let mut s = String::new();
        if let Some(e) = &self.error {
            let _ = writeln!(s, "INCOMPLETE RUN: {e}");
            if self.interrupted_events > 0 {
                let _ = writeln!(
                    s,
                    "    {} events cut short by it: their statements so far are counted in the queries and the statement table, not in transactions",
                    self.interrupted_events
                );
            }
        }
        s
    }
}

/// The comparison as tables, one per mode (the seed report's "Plaintext vs
/// X"), one row per thread count and metric: the baseline's and the mode's
/// medians, the median change of the paired rounds with its interval, and the
/// verdict; then the `--control` noise floor and what the intervals are.
/// With one round, the figures and a hint only, no % (Markdown table syntax,
/// readable as text).
pub fn comparisons_text(rows: &[MetricComparison], floors: &[MetricComparison]) -> String {
    let mut s = String::new();
    if rows.is_empty() && floors.is_empty() {
        return s;
    }
    let num = |metric: &str, x: f64| {
        if matches!(metric, "qps" | "tps") {
            thousands(x)
        } else {
            format!("{x:.2}")
        }
    };
    let words = |c: &Comparison| {
        let better = metric(&c.metric).map_or(Better::Higher, |m| m.better);
        match c.verdict {
            Verdict::Higher | Verdict::Lower => {
                format!("{}: {}", c.verdict, describe(c.verdict, better))
            }
            v => v.to_string(),
        }
    };
    fn label(c: &Comparison) -> &str {
        metric(&c.metric).map_or(c.metric.as_str(), |m| m.label)
    }
    if !rows.is_empty() {
        let _ = writeln!(
            s,
            "\nComparison with the baseline (paired rounds: round r of a mode against round r of the baseline)"
        );
    }
    let mut modes: Vec<(&str, &str)> = Vec::new();
    for r in rows {
        let m = (
            r.comparison.baseline.as_str(),
            r.comparison.variant.as_str(),
        );
        if !modes.contains(&m) {
            modes.push(m);
        }
    }
    for (baseline, mode) in modes {
        let _ = writeln!(s, "\nPlaintext ({baseline}) vs {mode}");
        let _ = writeln!(
            s,
            "| Threads | Metric | Plaintext | Ciphertext | Change (median, interval) | Verdict |"
        );
        let _ = writeln!(s, "|---:|---|---:|---:|---|---|");
        for r in rows
            .iter()
            .filter(|r| r.comparison.baseline == baseline && r.comparison.variant == mode)
        {
            let c = &r.comparison;
            let change = if c.rounds > 1 {
                c.change_text()
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {change} | {} |",
                r.threads,
                label(c),
                num(&c.metric, c.baseline_median),
                num(&c.metric, c.variant_median),
                words(c)
            );
        }
    }
    if !floors.is_empty() {
        let _ = writeln!(
            s,
            "\nNoise floor on this machine now (--control: the baseline against its second run of each round, A/A)"
        );
        let _ = writeln!(
            s,
            "| Threads | Metric | A | A' | A/A change (median, interval) |"
        );
        let _ = writeln!(s, "|---:|---|---:|---:|---|");
        for f in floors {
            let c = &f.comparison;
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                f.threads,
                label(c),
                num(&c.metric, c.baseline_median),
                num(&c.metric, c.variant_median),
                if c.rounds > 1 {
                    c.change_text()
                } else {
                    String::new()
                }
            );
        }
    }
    let rounds = rows
        .iter()
        .chain(floors)
        .map(|r| r.comparison.rounds)
        .min()
        .unwrap_or(0);
    if rounds <= 1 {
        let _ = writeln!(s, "\n1 round: run --repeat 5 for a comparison");
    } else {
        let _ = writeln!(
            s,
            "\nIntervals: distribution-free (sign test) interval of the median of the paired ratios;\nwith {rounds} rounds it covers {} ({}).\n\"no difference detected\": it contains 0; \"within noise floor\": it excludes 0 but\noverlaps the A/A interval.",
            compare::order_statistic(rounds)
                .map_or_else(String::new, |(_, c)| compare::confidence_text(c * 100.0)),
            if rounds < compare::ROUNDS_FOR_95 {
                format!("min..max; 95% needs --repeat {}", compare::ROUNDS_FOR_95)
            } else {
                "at least 95%".to_string()
            }
        );
    }
    s
}

/// The summary as a Markdown table: medians with (min-max) over the rounds;
/// without rows (no run completed) one line that says so, not an empty table.
pub fn summary_text(rows: &[SummaryRow]) -> String {
    let mut s = String::new();
    if rows.is_empty() {
        let _ = writeln!(s, "Summary: no run completed, so there are no medians.");
        return s;
    }
    let _ = writeln!(
        s,
        "| Workload | Threads | Mode | Runs | QPS median (min-max) | TPS median | RT avg ms median (min-max) | p95 ms median | Client CPU us/query median (min-max) | Server CPU us/query median | Total CPU us/query median |"
    );
    let _ = writeln!(s, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} ({}-{}) | {} | {:.2} ({:.2}-{:.2}) | {:.2} | {:.1} ({:.1}-{:.1}) | {} | {} |",
            r.workload,
            r.threads,
            r.mode,
            r.runs,
            thousands(r.qps.median),
            thousands(r.qps.min),
            thousands(r.qps.max),
            thousands(r.tps.median),
            r.rt_ms.median,
            r.rt_ms.min,
            r.rt_ms.max,
            r.p95_ms.median,
            r.cpu_us_per_query.median,
            r.cpu_us_per_query.min,
            r.cpu_us_per_query.max,
            one_decimal(r.server_cpu_us_per_query.map(|x| x.median)),
            one_decimal(r.total_cpu_us_per_query.map(|x| x.median))
        );
    }
    s
}

/// `x` with one decimal, `n/a` for a figure not measured.
fn one_decimal(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_string(), |x| format!("{x:.1}"))
}

/// `n` and the noun that agrees with it: `1 table`, `2 tables`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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
    fn the_header_names_the_engine() {
        let mut settings = crate::report::model::fixtures::settings(2, "none");
        settings.engine = "postgresql".to_string();
        settings.server_version = "PostgreSQL 15.18".to_string();
        let text = crate::report::model::fixtures::run(settings, 10, 0).to_text();
        let header = text.lines().next().unwrap_or_default();
        assert!(
            header.ends_with("| engine: postgresql | server PostgreSQL 15.18"),
            "{header}"
        );
    }

    #[test]
    fn postgresql_names_verify_identity_by_its_sslmode_verify_full() {
        let tls = crate::report::model::TlsInfo {
            version: "TLSv1.3".to_string(),
            cipher: "TLS_AES_256_GCM_SHA384".to_string(),
            mode: crate::driver::TlsMode::VerifyIdentity,
        };
        let mut settings = crate::report::model::fixtures::settings(2, "none");
        settings.tls = Some(tls);
        let my = crate::report::model::fixtures::run(settings.clone(), 10, 0).to_text();
        assert!(
            my.contains("tls: TLSv1.3 TLS_AES_256_GCM_SHA384 (verify-identity)"),
            "{my}"
        );
        settings.engine = "postgresql".to_string();
        let pg = crate::report::model::fixtures::run(settings, 10, 0).to_text();
        assert!(
            pg.contains("tls: TLSv1.3 TLS_AES_256_GCM_SHA384 (verify-full)"),
            "{pg}"
        );
        assert!(!pg.contains("verify-identity"), "{pg}");
    }

    #[test]
    fn the_floor_alone_prints_no_empty_comparison_heading() {
        use crate::report::summary::{comparisons, noise_floors};
        let mut runs = Vec::new();
        for r in 1..=3 {
            for (fast, control) in [(100 + 10 * r, false), (101 + 10 * r, true)] {
                let mut x = crate::report::model::fixtures::run(
                    crate::report::model::fixtures::settings(1, "none"),
                    fast,
                    0,
                );
                (x.round, x.control) = (r as u32, control);
                runs.push(x);
            }
        }
        let floors = noise_floors(&runs);
        assert!(!floors.is_empty());
        assert!(comparisons(&runs, &floors).is_empty());
        let text = comparisons_text(&[], &floors);
        assert!(!text.contains("Comparison with the baseline"), "{text}");
        assert!(text.contains("\nNoise floor on this machine now"), "{text}");
    }

    #[test]
    fn the_intervals_legend_wraps_under_100_columns() {
        use crate::report::summary::noise_floors;
        let mut runs = Vec::new();
        for r in 1..=5 {
            for (fast, control) in [(100 + 10 * r, false), (101 + 10 * r, true)] {
                let mut x = crate::report::model::fixtures::run(
                    crate::report::model::fixtures::settings(1, "none"),
                    fast,
                    0,
                );
                (x.round, x.control) = (r as u32, control);
                runs.push(x);
            }
        }
        let floors = noise_floors(&runs);
        let text = comparisons_text(&[], &floors);
        let legend: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with("Intervals: "))
            .collect();
        assert_eq!(
            legend,
            [
                "Intervals: distribution-free (sign test) interval of the median of the paired ratios;",
                "with 5 rounds it covers 93.75% (min..max; 95% needs --repeat 6).",
                "\"no difference detected\": it contains 0; \"within noise floor\": it excludes 0 but",
                "overlaps the A/A interval.",
            ],
            "{text}"
        );
        for line in text.lines().filter(|l| !l.starts_with('|')) {
            assert!(line.chars().count() < 100, "{} columns: {line}", line.len());
        }
    }

    #[test]
    fn the_summary_groups_tps_digits_as_qps() {
        let runs: Vec<_> = [1, 2]
            .into_iter()
            .map(|r| {
                let mut x = crate::report::model::fixtures::run(
                    crate::report::model::fixtures::settings(1, "none"),
                    10,
                    0,
                );
                (x.round, x.tps) = (r, 12345.5);
                x
            })
            .collect();
        let text = summary_text(&crate::report::summary::summary(&runs));
        assert!(text.contains("| 12,345.50 |"), "{text}");
    }

    #[test]
    fn counts_agree_with_their_noun() {
        assert_eq!(count(1, "table", "tables"), "1 table");
        assert_eq!(count(2, "table", "tables"), "2 tables");
        assert_eq!(count(0, "row", "rows"), "0 rows");
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(14332.576), "14,332.58");
        assert_eq!(thousands(108128.31), "108,128.31");
        assert_eq!(thousands(12.0), "12.00");
        assert_eq!(thousands(-1234.5), "-1,234.50");
    }
}
