//! Text: a run in sysbench 1.0's final-report layout, and the summary and
//! comparison tables (Markdown table syntax, readable as text).

use std::fmt::Write as _;

use encbench_common::compare::{self, Better, Comparison, Verdict, describe};

use super::headline::{change_with_interval, headline_text};
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
        self.header_text(&mut s);
        self.sql_statistics_text(&mut s);
        self.general_statistics_text(&mut s);
        self.latency_text(&mut s);
        self.statement_latency_text(&mut s);
        self.fairness_text(&mut s);
        self.cpu_text(&mut s);
        s.push_str(&self.incomplete_text());
        s
    }

    /// The first line: workload, threads, encryption, TLS, at rest, data set, server.
    fn header_text(&self, s: &mut String) {
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
    }

    /// sysbench's `SQL statistics:` section, with the decryption failures.
    fn sql_statistics_text(&self, s: &mut String) {
        let per = |n: u64| {
            if self.time_s > 0.0 {
                n as f64 / self.time_s
            } else {
                0.0
            }
        };
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
    }

    /// sysbench's `General statistics:` section.
    fn general_statistics_text(&self, s: &mut String) {
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
    }

    /// sysbench's `Latency (ms):` section.
    fn latency_text(&self, s: &mut String) {
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
    }

    /// The latency of each statement kind, when any was recorded.
    fn statement_latency_text(&self, s: &mut String) {
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
    }

    /// sysbench's `Threads fairness:` section.
    fn fairness_text(&self, s: &mut String) {
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
    }

    /// The client's and the server's CPU over the measured window.
    fn cpu_text(&self, s: &mut String) {
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
/// medians, the median of the per-round changes with its interval, and the
/// verdict; over them the [`headline_text`], under them the `--control` noise
/// floor and a legend of what the columns and intervals are. A verdict from
/// an interval under 80% coverage is not given (`n/a (50% interval)`). With
/// one round, the figures and a hint only, no % (Markdown table syntax,
/// readable as text; lines under 100 columns but for long mode names).
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
            _ if c.too_weak_for_a_verdict() => format!(
                "n/a ({} interval)",
                compare::confidence_text(c.confidence_pct.unwrap_or_default())
            ),
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
        s.push_str(&headline_text(rows));
    }
    for (baseline, mode) in super::summary::modes(rows) {
        let table: Vec<&MetricComparison> = rows
            .iter()
            .filter(|r| r.comparison.baseline == baseline && r.comparison.variant == mode)
            .collect();
        let (coverage, change) = change_column(&table);
        let _ = writeln!(s, "\nPlaintext ({baseline}) vs {mode}");
        let _ = writeln!(
            s,
            "| Threads | Metric | Plaintext | Ciphertext | Per-round change{coverage} | Verdict |"
        );
        let _ = writeln!(s, "|---:|---|---:|---:|---|---|");
        for r in table {
            let c = &r.comparison;
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                r.threads,
                label(c),
                num(&c.metric, c.baseline_median),
                num(&c.metric, c.variant_median),
                change(c),
                words(c)
            );
        }
    }
    if !floors.is_empty() {
        let _ = writeln!(
            s,
            "\nNoise floor on this machine now (--control: the baseline against its second run of each round, A/A)"
        );
        let floor: Vec<&MetricComparison> = floors.iter().collect();
        let (coverage, change) = change_column(&floor);
        let _ = writeln!(
            s,
            "| Threads | Metric | A | A' | A/A per-round change{coverage} |"
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
                change(c)
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
        let coverage = compare::order_statistic(rounds).map_or(0.0, |(_, c)| c * 100.0);
        let _ = writeln!(
            s,
            "\nPlaintext, Ciphertext (A, A'): medians over the rounds. Per-round change: the median of\nthe rounds' ratios (mode / baseline of the same round), not the ratio of the two medians.\nIntervals: distribution-free (sign test) interval of the median of the paired ratios;\nwith {rounds} rounds it covers {} ({}).\n\"no difference detected\": it contains 0; \"within noise floor\": it excludes 0 but\noverlaps the A/A interval.",
            compare::confidence_text(coverage),
            if rounds < compare::ROUNDS_FOR_95 {
                format!("min..max; 95% needs --repeat {}", compare::ROUNDS_FOR_95)
            } else {
                "at least 95%".to_string()
            }
        );
        if coverage < compare::MIN_VERDICT_CONFIDENCE * 100.0 {
            let _ = writeln!(
                s,
                "n/a: no verdict from an interval under {} coverage; --repeat 5 gives 93.75%.",
                compare::confidence_text(compare::MIN_VERDICT_CONFIDENCE * 100.0)
            );
        }
    }
    s
}

/// The change column of a table of `rows`: what its header says after
/// `Per-round change`, and its cells. When every interval has the same
/// coverage the header names it once (` (93.75% CI)`) and a cell is `+2.8%
/// (-1.0% to +9.0%)`; otherwise the header says ` (interval)` and each cell
/// names its own coverage (`+2.8% (75% CI -1.0% to +9.0%)`); with 1 round the
/// header adds nothing and the cells are empty (no %).
fn change_column(rows: &[&MetricComparison]) -> (String, fn(&Comparison) -> String) {
    let mut coverages = rows.iter().filter_map(|r| r.comparison.confidence_pct);
    let first = coverages.next();
    let one: fn(&Comparison) -> String = |c| {
        if c.rounds > 1 {
            change_with_interval(c).unwrap_or_default()
        } else {
            String::new()
        }
    };
    let each: fn(&Comparison) -> String = |c| {
        if c.rounds > 1 {
            c.change_text()
        } else {
            String::new()
        }
    };
    match first {
        None => (String::new(), one),
        Some(f) if coverages.all(|c| c == f) => {
            (format!(" ({} CI)", compare::confidence_text(f)), one)
        }
        Some(_) => (" (interval)".to_string(), each),
    }
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

/// `12345.678` as `12,345.68`, as in the seed report.
pub fn thousands(x: f64) -> String {
    encbench_common::number::thousands(x, 2)
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

    /// `rounds` rounds of `none` at one thread (10 more per round from 110)
    /// and its `--control` run (one more): an A/A pair, nothing to compare.
    fn baseline_and_control(rounds: u32) -> Vec<RunResult> {
        let mut runs = Vec::new();
        for r in 1..=rounds {
            for (fast, control) in [(100 + 10 * r, false), (101 + 10 * r, true)] {
                let mut x = crate::report::model::fixtures::run(
                    crate::report::model::fixtures::settings(1, "none"),
                    fast.into(),
                    0,
                );
                (x.round, x.control) = (r, control);
                runs.push(x);
            }
        }
        runs
    }

    #[test]
    fn the_floor_alone_prints_no_empty_comparison_heading() {
        use crate::report::summary::{comparisons, noise_floors};
        let runs = baseline_and_control(3);
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
        let runs = baseline_and_control(5);
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

    /// The quickstart's grid at its largest figures: `none` (with its
    /// `--control` run) and AES-GCM at 1 and 8 threads over `rounds` rounds,
    /// QPS in the hundred thousands and client CPU per query up 2x, so every
    /// cell is as wide as a real run's.
    fn quickstart_text(rounds: u32) -> String {
        use crate::report::summary::{comparisons, noise_floors};
        let mut runs = Vec::new();
        for r in 1..=rounds {
            let f = f64::from(r);
            for threads in [1, 8] {
                let t = f64::from(threads);
                for (encrypt, control, qps, client, server) in [
                    (
                        "none",
                        false,
                        14_332.57 * t + 999.0 * f,
                        123.45 + f,
                        98.76 - f,
                    ),
                    ("none", true, 14_000.12 * t + 1_111.0 * f, 124.45, 99.76 + f),
                    (
                        "rustcrypto:aes-256-gcm",
                        false,
                        13_000.5 * t + 977.0 * f,
                        270.12 + 3.0 * f,
                        60.1,
                    ),
                ] {
                    let mut x = crate::report::model::fixtures::run(
                        crate::report::model::fixtures::settings(threads, encrypt),
                        10,
                        1,
                    );
                    (x.round, x.control) = (r, control);
                    (x.qps, x.tps) = (qps, qps / 16.0);
                    x.client_cpu_us_per_query = client;
                    x.server_cpu_us_per_query = Some(server);
                    x.total_cpu_us_per_query = Some(client + server);
                    runs.push(x);
                }
            }
        }
        let floors = noise_floors(&runs);
        comparisons_text(&comparisons(&runs, &floors), &floors)
    }

    #[test]
    fn every_line_of_the_comparison_fits_100_columns_and_names_its_change() {
        for rounds in [2, 5] {
            let text = quickstart_text(rounds);
            for line in text.lines() {
                assert!(
                    line.chars().count() <= 100,
                    "{} columns: {line}\n{text}",
                    line.chars().count()
                );
            }
            assert!(
                text.contains("\nHeadline: rustcrypto:aes-256-gcm vs none ("),
                "{text}"
            );
            assert!(
                text.contains("the rounds' ratios (mode / baseline of the same round), not the ratio of the two medians"),
                "{text}"
            );
        }
        let text = quickstart_text(5);
        assert!(
            text.contains(
                "\n| Threads | Metric | Plaintext | Ciphertext | Per-round change (93.75% CI) | Verdict |\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("\n| Threads | Metric | A | A' | A/A per-round change (93.75% CI) |\n"),
            "{text}"
        );
        // Client CPU per query more than doubles in every round: a verdict in words.
        assert!(
            text.contains(" | client CPU us/query | 126.45 | 279.12 | +120.7% (+119.5% to +122.0%) | higher: costlier |"),
            "{text}"
        );
        assert!(text.contains("| higher: costlier |"), "{text}");
    }

    #[test]
    fn intervals_under_80_pct_give_no_verdict_in_words() {
        let text = quickstart_text(2);
        let rows: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with("Plaintext (none) vs "))
            .skip(3)
            .take_while(|l| l.starts_with('|'))
            .collect();
        assert_eq!(rows.len(), 2 * 7, "{text}");
        for row in rows {
            assert!(row.ends_with(" | n/a (50% interval) |"), "{row}\n{text}");
        }
        for word in ["costlier", "cheaper", "faster", "slower"] {
            assert!(!text.contains(word), "{word}: {text}");
        }
        assert!(
            text.contains(
                "\nn/a: no verdict from an interval under 80% coverage; --repeat 5 gives 93.75%.\n"
            ),
            "{text}"
        );
        assert!(!quickstart_text(5).contains("n/a"));
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
    fn thousands_groups_digits() {
        assert_eq!(thousands(14332.576), "14,332.58");
        assert_eq!(thousands(108128.31), "108,128.31");
        assert_eq!(thousands(12.0), "12.00");
        assert_eq!(thousands(-1234.5), "-1,234.50");
    }
}
