//! Where reports go: stdout in the chosen format, files written atomically.

use std::io::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::cli::Output;
use crate::report::{Report, comparison_text, summary_text};

pub(super) fn write_svg(path: Option<&Path>, report: &Report) -> Result<()> {
    if let Some(path) = path {
        let svg =
            crate::report::svg::svg(&report.summary).map_err(|e| anyhow::anyhow!("--svg: {e}"))?;
        write_atomically(path, svg.as_bytes())?;
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
            if !report.comparison.is_empty() {
                println!("{}", comparison_text(&report.comparison));
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

/// Checks before a run that `path` can be written: not a directory, in an
/// existing directory (never created: a mistyped path is refused, not made)
/// where files can be created; so a long benchmark does not end in a file that
/// cannot be saved. Leaves nothing behind.
pub(super) fn check_writable(path: &Path, flag: &str) -> Result<()> {
    if path.is_dir() {
        bail!("{flag} {} is a directory: give a file name", path.display());
    }
    let dir = output_dir(path, flag)?;
    tempfile::NamedTempFile::new_in(dir).map(drop).map_err(|e| {
        anyhow::anyhow!(
            "{flag} {}: cannot create files in {}: {}: give a writable directory",
            path.display(),
            dir.display(),
            std::io::Error::from(e.kind())
        )
    })
}

/// The directory `path` goes in (`.` for a bare file name), which must exist.
fn output_dir<'a>(path: &'a Path, flag: &str) -> Result<&'a Path> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    if !dir.is_dir() {
        bail!(
            "{flag} {}: directory {} does not exist: create it first, or give another path",
            path.display(),
            dir.display()
        );
    }
    Ok(dir)
}

/// Writes `bytes` to `path` through a temporary file in the same directory and
/// a rename, so a reader never sees a half-written file. The directory must
/// exist; the file gets the usual mode of a new file (0666 minus the umask),
/// not the temporary file's 0600.
///
/// # Errors
/// The directory does not exist, or the file cannot be written.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = output_dir(path, "cannot write")?;
    let fail = || format!("cannot write {}", path.display());
    let mut tmp = tempfile::Builder::new()
        .prefix(".oltp-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .with_context(fail)?;
    tmp.write_all(bytes).with_context(fail)?;
    tmp.persist(path).map_err(|e| e.error).with_context(fail)?;
    Ok(())
}
