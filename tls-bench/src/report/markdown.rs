//! GitHub-flavoured Markdown: every table under a heading, the skipped
//! combinations as a list.

use std::fmt::Write as _;

use super::Report;

/// Markdown tables with a heading per table.
pub fn markdown(report: &Report) -> String {
    let mut out = String::new();
    for t in report.tables() {
        out.push_str(&t.table.markdown());
    }
    for s in &report.skipped {
        let _ = writeln!(out, "- skipped: {s}");
    }
    out
}
