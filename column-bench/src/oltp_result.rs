//! `--oltp-result FILE`: the JSON `oltp run --json-out FILE` writes (`encbench_oltp::report::Report`),
//! read back so the capacity model can be set beside a measured run.
//!
//! The measured overhead of a run with column encryption is the client CPU per
//! transaction (user + system time of the whole `oltp` process, from getrusage)
//! minus that of the plaintext run of the same workload and thread count, found
//! in the same file or in another `--oltp-result` file. The prediction is the
//! model's crypto µs per transaction (see [`crate::capacity`]) for the run's
//! backend, algorithm and range size. The measured figure also contains what the
//! model leaves out: bigger values on the wire, the `id` column fetched with
//! range results, the client-side sort and deduplication of ORDER BY / DISTINCT
//! results, and allocation.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result, invalid, invalid_err};
use serde::{Deserialize, Serialize};

/// The fields of one `oltp` run that the comparison reads.
#[derive(Clone, Debug, Deserialize)]
pub struct OltpRun {
    /// Workload name, e.g. `oltp_read_only`.
    pub workload: String,
    /// Worker threads.
    pub threads: u32,
    /// `none` or `BACKEND:ALGORITHM`.
    pub encrypt: String,
    /// Rows per range query.
    pub range_size: u32,
    /// Measured wall time, s.
    pub time_s: f64,
    /// Transactions completed.
    pub transactions: u64,
    /// Transactions per second.
    pub tps: f64,
    /// Queries per second.
    pub qps: f64,
    /// Client CPU time, s.
    pub client_cpu_s: f64,
    /// Whether the run completed.
    pub complete: bool,
}

/// The part of `oltp`'s report that is read.
#[derive(Clone, Debug, Deserialize)]
struct OltpReport {
    tool: Tool,
    runs: Vec<OltpRun>,
}

/// `tool`: the name alone (`"oltp"`, before the result header), or the
/// header's object (`{"name": "oltp", "version": ..., "git_revision": ...}`).
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum Tool {
    Name(String),
    Info { name: String },
}

impl Tool {
    fn name(&self) -> &str {
        match self {
            Tool::Name(n) | Tool::Info { name: n } => n,
        }
    }
}

/// Runs read from `--oltp-result` files, with the file each came from.
#[derive(Clone, Debug, Default)]
pub struct OltpRuns {
    /// (file, run), in the order given.
    pub runs: Vec<(PathBuf, OltpRun)>,
}

impl OltpRuns {
    /// Reads every file.
    ///
    /// # Errors
    /// A file that cannot be read, is not JSON of `oltp run --json-out`, or holds
    /// an incomplete or empty run; the message names the file.
    pub fn read(paths: &[PathBuf]) -> Result<OltpRuns> {
        let mut out = OltpRuns::default();
        for p in paths {
            for run in read_one(p)? {
                out.runs.push((p.clone(), run));
            }
        }
        Ok(out)
    }

    /// The `BACKEND:ALGORITHM` names of the encrypted runs, deduplicated.
    pub fn encrypt_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for (_, r) in &self.runs {
            if r.encrypt != "none" && !names.contains(&r.encrypt) {
                names.push(r.encrypt.clone());
            }
        }
        names
    }
}

fn read_one(path: &Path) -> Result<Vec<OltpRun>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        context: format!("cannot read --oltp-result {}", path.display()),
        source,
    })?;
    parse(&text, path)
}

/// Parses the text of one `--oltp-result` file: the parsing entry point of
/// [`OltpRuns::read`], also fuzzed (`fuzz/fuzz_targets/result_json.rs`).
/// `path` names the file in errors.
///
/// # Errors
/// Not JSON of `oltp run --json-out`, or an incomplete or empty run.
pub fn parse(text: &str, path: &Path) -> Result<Vec<OltpRun>> {
    let report: OltpReport = serde_json::from_str(text).map_err(|e| {
        invalid_err!(
            "--oltp-result {} is not the JSON of `oltp run --json-out FILE` ({e}): give such a file",
            path.display()
        )
    })?;
    if report.tool.name() != "oltp" {
        invalid!(
            "--oltp-result {} was written by {:?}, not oltp: give the file of `oltp run --json-out`",
            path.display(),
            report.tool.name()
        );
    }
    for r in &report.runs {
        if !r.complete || r.transactions == 0 {
            invalid!(
                "--oltp-result {}: the {} run at {} threads ({}) is incomplete or has no transaction: rerun it",
                path.display(),
                r.workload,
                r.threads,
                r.encrypt
            );
        }
    }
    Ok(report.runs)
}

/// One encrypted run beside its plaintext run and the model's prediction.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ComparisonRow {
    /// Workload name.
    pub workload: String,
    /// Threads of both runs.
    pub threads: u32,
    /// `BACKEND:ALGORITHM` of the encrypted run.
    pub encrypt: String,
    /// Rows per range query of the runs.
    pub range_size: u32,
    /// Plaintext TPS.
    pub plaintext_tps: f64,
    /// Encrypted TPS.
    pub encrypted_tps: f64,
    /// Plaintext client CPU per transaction, µs.
    pub plaintext_cpu_us_per_txn: f64,
    /// Encrypted client CPU per transaction, µs.
    pub encrypted_cpu_us_per_txn: f64,
    /// Encrypted minus plaintext client CPU per transaction, µs.
    pub measured_overhead_us_per_txn: f64,
    /// The model's crypto CPU per transaction (open + seal), µs.
    pub predicted_us_per_txn: f64,
    /// predicted / measured (1 = the model explains the whole overhead).
    pub predicted_share: f64,
}

/// Pairs encrypted runs with plaintext runs (same workload and threads) and
/// predicts their overhead with `predict(workload, range_size, encrypt)` (µs per
/// transaction; `None` when the workload has no built-in mix).
///
/// # Errors
/// No encrypted run has a plaintext partner: the message says what to run.
pub fn compare(
    runs: &OltpRuns,
    predict: impl Fn(&str, u32, &str) -> Result<Option<f64>>,
) -> Result<Vec<ComparisonRow>> {
    let cpu_per_txn = |r: &OltpRun| r.client_cpu_s * 1e6 / r.transactions as f64;
    let mut rows = Vec::new();
    for (_, enc) in runs.runs.iter().filter(|(_, r)| r.encrypt != "none") {
        let Some((_, plain)) = runs.runs.iter().find(|(_, p)| {
            p.encrypt == "none" && p.workload == enc.workload && p.threads == enc.threads
        }) else {
            continue;
        };
        let Some(predicted) = predict(&enc.workload, enc.range_size, &enc.encrypt)? else {
            continue;
        };
        let measured = cpu_per_txn(enc) - cpu_per_txn(plain);
        rows.push(ComparisonRow {
            workload: enc.workload.clone(),
            threads: enc.threads,
            encrypt: enc.encrypt.clone(),
            range_size: enc.range_size,
            plaintext_tps: plain.tps,
            encrypted_tps: enc.tps,
            plaintext_cpu_us_per_txn: cpu_per_txn(plain),
            encrypted_cpu_us_per_txn: cpu_per_txn(enc),
            measured_overhead_us_per_txn: measured,
            predicted_us_per_txn: predicted,
            predicted_share: if measured > 0.0 {
                predicted / measured
            } else {
                f64::NAN
            },
        });
    }
    if rows.is_empty() {
        invalid!(
            "--oltp-result: no encrypted run has a plaintext run of the same workload and threads: run `oltp run --encrypt none,BACKEND:ALGORITHM --json-out FILE`"
        );
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUN: &str = r#"{"workload": "oltp_read_only", "threads": 1, "encrypt": "none",
        "range_size": 100, "time_s": 1.0, "transactions": 10, "tps": 10.0, "qps": 160.0,
        "client_cpu_s": 0.1, "complete": true}"#;

    fn read(tool: &str) -> Result<Vec<OltpRun>> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("r.json");
        std::fs::write(&path, format!(r#"{{"tool": {tool}, "runs": [{RUN}]}}"#)).expect("write");
        read_one(&path)
    }

    #[test]
    fn tool_is_read_as_a_name_or_as_the_result_headers_object() {
        assert_eq!(read(r#""oltp""#).expect("name").len(), 1);
        let header = r#"{"name": "oltp", "version": "0.1.0", "git_revision": null}"#;
        assert_eq!(read(header).expect("object").len(), 1);
        for other in [
            r#""tls-bench""#,
            r#"{"name": "column-bench", "version": "0.1.0"}"#,
        ] {
            let e = read(other).expect_err("not oltp").to_string();
            assert!(e.contains("not oltp"), "{e}");
        }
    }
}
