//! The `--latency-limit` table of the Markdown export: per run, pgbench 15's
//! late and skipped counts (`printResults`' "above the latency limit" and
//! "skipped" lines) with their shares, as the text report computes them.

use std::fmt::Write as _;

use super::model::RunResult;
use super::summary::RunKey;

/// One Markdown table row per run with a latency limit, in run order:
/// workload, threads, mode, round (`control` marked), the limit (ms), the
/// transactions processed, late (and % of processed), skipped (and % of
/// processed + skipped + failed, pgbench's `total_cnt`); an empty string
/// when no run had a limit (the table is absent, not empty).
pub fn latency_limit_text(runs: &[RunResult]) -> String {
    let limited: Vec<_> = runs
        .iter()
        .filter_map(|r| r.latency_limit.map(|l| (r, l)))
        .collect();
    if limited.is_empty() {
        return String::new();
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nLatency limit (`--latency-limit`, pgbench's -L), per run:\n"
    );
    let _ = writeln!(
        s,
        "| Workload | Threads | Mode | Round | Limit ms | Processed | Late (% of processed) | Skipped (% of processed + skipped + failed) |"
    );
    let _ = writeln!(s, "|---|---:|---|---:|---:|---:|---:|---:|");
    for (r, l) in limited {
        let failed = r.errors + r.interrupted_events;
        let tried = r.transactions + l.skipped + failed;
        let _ = writeln!(
            s,
            "| {} | {} | {} | {}{} | {:.3} | {} | {} ({:.3}%) | {} ({:.3}%) |",
            r.settings.workload,
            r.settings.threads,
            RunKey::of(r).mode(),
            r.round,
            if r.control { " (control)" } else { "" },
            l.limit_ms,
            r.transactions,
            l.late,
            pct(l.late, r.transactions),
            l.skipped,
            pct(l.skipped, tried)
        );
    }
    s
}

/// `n` as a percentage of `of` (0 when `of` is 0, as pgbench prints it).
fn pct(n: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * n as f64 / of as f64
    }
}

#[cfg(test)]
mod tests {
    use super::latency_limit_text;
    use crate::report::LatencyLimit;
    use crate::report::model::fixtures::{run, select_only};

    #[test]
    fn one_row_per_limited_run_and_no_table_without_a_limit() {
        let plain = run(select_only(2, 1, "prepared", 1.0), 90, 10);
        assert_eq!(latency_limit_text(std::slice::from_ref(&plain)), "");
        // 2 threads x 100: 200 processed, 1 failed, 799 skipped.
        let mut limited = plain.clone();
        limited.errors = 1;
        limited.latency_limit = Some(LatencyLimit {
            limit_ms: 5.0,
            late: 20,
            skipped: 799,
        });
        let md = latency_limit_text(&[plain, limited]);
        let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| pgbench")).collect();
        assert_eq!(
            rows,
            ["| pgbench_select_only | 2 | none | 1 | 5.000 | 200 | 20 (10.000%) | 799 (79.900%) |"],
            "{md}"
        );
    }
}
