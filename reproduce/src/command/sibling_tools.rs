//! The sibling tools reproduce runs through their libraries, in this
//! process: tls-bench's footprint section (003) and column-bench's
//! measurement for 000's proxy prediction.

use std::path::{Path, PathBuf};
use std::time::Duration;

use column_bench::measure::Timing;
use tls_bench::footprint::FootprintRow;

use crate::proxy;

/// Timeout of every network step of a footprint program's exchange with its
/// server (tls-bench's `--timeout-secs` default).
const FOOTPRINT_TIMEOUT: Duration = Duration::from_secs(10);

/// The directory of tls-bench's footprint programs: `given`
/// (`--footprint-dir`), or the one encbench-reproduce runs from.
///
/// # Errors
/// This binary's own path is unknown.
pub(super) fn footprint_dir(given: Option<&Path>) -> Result<PathBuf, String> {
    match given {
        Some(dir) => Ok(dir.to_path_buf()),
        None => tls_bench::footprint::default_dir().map_err(|e| e.to_string()),
    }
}

/// tls-bench's footprint section, measured on the programs in `given` (or
/// the default [`footprint_dir`]); `Err` naming the missing program and its
/// build command, or the program that fails its exchange.
pub(super) async fn tls_bench_footprint(given: Option<&Path>) -> Result<Vec<FootprintRow>, String> {
    let dir = footprint_dir(given)?;
    tls_bench::footprint::check_present(&dir).map_err(|e| e.to_string())?;
    let pki = tokio::task::spawn_blocking(tls_bench::pki::Pki::generate)
        .await
        .map_err(|e| format!("tls-bench's certificates: {e}"))?
        .map_err(|e| e.to_string())?;
    tls_bench::footprint::measure(&dir, &pki, FOOTPRINT_TIMEOUT)
        .await
        .map_err(|e| e.to_string())
}

/// 000's proxy prediction: column-bench's library measures `backend` on
/// sbtest's row with every column encrypted ([`proxy::column_bench_config`],
/// column-bench's default timing), its JSON report written to
/// `out`/column-bench.json; `Err(why)` when it fails (the report says so).
pub(super) async fn column_bench_prediction(
    backend: &str,
    out: &Path,
) -> Result<proxy::Measurement, String> {
    let json_out = out.join("column-bench.json");
    let args = proxy::column_bench_args(backend, &json_out.display().to_string());
    let command = format!(
        "column-bench {}",
        args.iter()
            .map(|a| if a.contains(';') {
                format!("'{a}'")
            } else {
                a.clone()
            })
            .collect::<Vec<_>>()
            .join(" ")
    );
    let cfg = proxy::column_bench_config(backend, Timing::DEFAULT)?;
    let report = tokio::task::spawn_blocking(move || column_bench::bench::run(&cfg, false))
        .await
        .map_err(|e| format!("column-bench: {e}"))?
        .map_err(|e| format!("column-bench: {e}"))?;
    let json = report
        .to_json()
        .map_err(|e| format!("column-bench's JSON: {e}"))?;
    encbench_common::output::write_atomically(&json_out, json.as_bytes(), "--out")
        .map_err(|e| e.to_string())?;
    proxy::from_report(&report.results, &report.capacity, backend, command)
}
