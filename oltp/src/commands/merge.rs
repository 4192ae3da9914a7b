//! `oltp merge`: several clients' reports of one grid as one.

use anyhow::Result;

use crate::cli::MergeArgs;
use crate::report::Report;

use super::output::{check_writable, print_report, write_atomically, write_svg};

/// Runs `oltp merge`; false when a merged run is incomplete.
///
/// # Errors
/// A file cannot be read or merged, or the output cannot be written.
pub fn merge(a: &MergeArgs) -> Result<bool> {
    if let Some(path) = &a.json_out {
        check_writable(path, "--json-out")?;
    }
    if let Some(path) = &a.svg {
        check_writable(path, "--svg")?;
    }
    let clients = a
        .files
        .iter()
        .map(|f| crate::merge::read_runs(f))
        .collect::<Result<Vec<_>>>()?;
    let mut header = Report::begin();
    let runs = crate::merge::merge(&clients)?;
    // The inputs are as large as the output: gone before it is written.
    drop(clients);
    header.end();
    let report = Report::new(header, runs);
    print_report(&report, a.output, true);
    if let Some(path) = &a.json_out {
        write_atomically(path, report.to_json()?.as_bytes(), "--json-out")?;
        if matches!(a.output, crate::cli::Output::Text) {
            println!("JSON report written to {}", path.display());
        }
    }
    write_svg(a.svg.as_deref(), &report)?;
    Ok(report.complete)
}
