//! Markdown: the summary table and the comparison tables.

use std::fmt::Write as _;

use super::Report;
use super::text::{comparisons_text, summary_text};

impl Report {
    /// Markdown: the summary table (medians with min-max) and the comparison
    /// tables (paired rounds, intervals, verdicts, the noise floor).
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "## oltp {}\n", self.header.tool.version);
        if let Some(r) = self.runs.first() {
            let _ = writeln!(
                s,
                "{} x {}, server {}, range size {}, rand-type {}{}\n",
                super::text::count(u64::from(r.settings.tables), "table", "tables"),
                super::text::count(u64::from(r.settings.table_size), "row", "rows"),
                r.settings.server_version,
                r.settings.range_size,
                r.settings.rand_type,
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
        s.push_str(&comparisons_text(&self.comparisons, &self.noise_floor));
        if let Some(line) = super::summary::no_baseline_text(&self.summary) {
            let _ = writeln!(s, "\n{line}");
        }
        s
    }
}
