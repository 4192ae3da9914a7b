//! Markdown: the summary table and the comparison tables.

use std::fmt::Write as _;

use super::Report;
use super::text::{comparisons_text, summary_text};
use crate::schema::pgbench::ACCOUNTS_PER_SCALE;

impl Report {
    /// Markdown: the summary table (medians with min-max), with
    /// `--latency-limit` the per-run table of late and skipped transactions,
    /// and the comparison tables (paired rounds, intervals, verdicts, the
    /// noise floor).
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "## oltp {}\n", self.header.tool.version);
        if let Some(r) = self.runs.first() {
            // pgbench's tables are sized by the scale, not by sysbench's tables and rows.
            let data = match &r.settings.pgbench {
                Some(p) => format!(
                    "pgbench tables of scale {} ({} accounts), server {}",
                    p.scale,
                    u64::from(p.scale) * u64::from(ACCOUNTS_PER_SCALE),
                    r.settings.server_version
                ),
                None => format!(
                    "{} x {}, server {}, range size {}, rand-type {}",
                    encbench_common::number::count(
                        u64::from(r.settings.tables.unwrap_or_default()),
                        "table",
                        "tables"
                    ),
                    encbench_common::number::count(
                        u64::from(r.settings.table_size.unwrap_or_default()),
                        "row",
                        "rows"
                    ),
                    r.settings.server_version,
                    r.settings.range_size.unwrap_or_default(),
                    r.settings.rand_type
                ),
            };
            let _ = writeln!(
                s,
                "{data}{}\n",
                if self.complete {
                    ""
                } else {
                    " (INCOMPLETE: a run stopped early)"
                }
            );
        }
        let decrypt_errors: u64 = self.runs.iter().map(|r| r.decrypt_errors).sum();
        if decrypt_errors > 0 {
            let _ = writeln!(
                s,
                "Decryption failures: {decrypt_errors} (stored values that failed authentication; see the runs' `decrypt_errors`)\n"
            );
        }
        s.push_str(&summary_text(&self.summary));
        s.push_str(&super::latency_limit_table::latency_limit_text(&self.runs));
        s.push_str(&comparisons_text(&self.comparisons, &self.noise_floor));
        if let Some(line) = super::summary::no_baseline_text(&self.summary) {
            let _ = writeln!(s, "\n{line}");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use crate::report::Report;
    use crate::report::model::fixtures::{run, select_only, settings};

    #[test]
    fn the_heading_names_sysbench_tables_or_pgbench_scale() {
        let sysbench = Report::new(Report::begin(), vec![run(settings(2, "none"), 10, 0)]);
        let md = sysbench.to_markdown();
        assert!(md.contains("\n2 tables x 1000 rows, server "), "{md}");

        let st = select_only(8, 10, "prepared", 1.0);
        let md = Report::new(Report::begin(), vec![run(st, 10, 0)]).to_markdown();
        assert!(
            md.contains("\npgbench tables of scale 10 (1000000 accounts), server "),
            "{md}"
        );
        assert!(!md.contains("rows, server"), "{md}");
        assert!(!md.contains("range size"), "{md}");
    }
}
