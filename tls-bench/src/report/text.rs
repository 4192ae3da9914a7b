//! Aligned text for the terminal: every table, the skipped combinations, the
//! one-screen summary.

use std::fmt::Write as _;

use super::Report;

/// Aligned text tables, numbers right-aligned, then the one-screen
/// [`super::summary`] (`json_out`: where the JSON went).
pub fn text(report: &Report, json_out: Option<&std::path::Path>) -> String {
    let mut out = String::new();
    for t in report.tables() {
        out.push_str(&t.table.text());
    }
    for s in &report.skipped {
        let _ = writeln!(out, "skipped: {s}");
    }
    if !report.skipped.is_empty() {
        out.push('\n');
    }
    out.push_str(&super::summary::summary(report, json_out));
    out
}
