//! Where reports go: stdout in the chosen format, files written atomically.

use std::path::Path;

use anyhow::Result;

use crate::cli::Output;
use crate::report::{Report, comparisons_text, no_baseline_text, summary_text};

pub(super) fn write_svg(path: Option<&Path>, report: &Report) -> Result<()> {
    if let Some(path) = path {
        let svg =
            crate::report::svg::svg(&report.summary).map_err(|e| anyhow::anyhow!("--svg: {e}"))?;
        write_atomically(path, svg.as_bytes(), "--svg")?;
    }
    Ok(())
}

/// Prints `report` in `output`; in text, each run's sysbench report first when
/// `runs_too` (a live run has printed them already).
pub(super) fn print_report(report: &Report, output: Output, runs_too: bool) {
    match output {
        Output::Text => {
            if runs_too {
                for r in &report.runs {
                    println!("{}", r.to_text());
                }
            }
            if report.summary.len() > 1 || report.runs.len() > report.summary.len() {
                println!("{}", summary_text(&report.summary));
            }
            if !report.comparisons.is_empty() || !report.noise_floor.is_empty() {
                println!(
                    "{}",
                    comparisons_text(&report.comparisons, &report.noise_floor)
                );
            }
            if let Some(line) = no_baseline_text(&report.summary) {
                println!("{line}");
            }
        }
        Output::Json => match report.to_json() {
            Ok(j) => println!("{j}"),
            Err(e) => eprintln!("Error: cannot print the JSON report: {e}"),
        },
        Output::Csv => match report.to_csv() {
            Ok(c) => print!("{c}"),
            Err(e) => eprintln!("Error: cannot print the CSV report: {e}"),
        },
        Output::Markdown => println!("{}", report.to_markdown()),
    }
}

/// Checks before a run that `path` can be written (see
/// [`encbench_common::output::check_writable`]).
///
/// # Errors
/// A directory, a missing directory, or one where files cannot be created.
pub fn check_writable(path: &Path, flag: &str) -> Result<()> {
    Ok(encbench_common::output::check_writable(path, flag)?)
}

/// Writes `bytes` to `path` atomically (see
/// [`encbench_common::output::write_atomically`]); `flag` names the option in errors.
///
/// # Errors
/// The directory does not exist, or the file cannot be written.
pub fn write_atomically(path: &Path, bytes: &[u8], flag: &str) -> Result<()> {
    Ok(encbench_common::output::write_atomically(
        path, bytes, flag,
    )?)
}
