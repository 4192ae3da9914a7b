//! `--oltp-result FILE`: the JSON `oltp run --json-out FILE` writes (`encbench_oltp::report::Report`),
//! read back so the capacity model can be set beside a measured run.
//!
//! The measured overhead of a run with column encryption is the client CPU per
//! transaction (user + system time of the whole `oltp` process, from getrusage)
//! minus that of the plaintext run of the same workload, thread count and TLS
//! setting, found in the same file or in another `--oltp-result` file. With
//! `oltp run --repeat R` the runs are paired by round (round r of the
//! encrypted choice with round r of plaintext, which `oltp` ran close together)
//! and compared with [`encbench_common::compare`]: the median of the paired
//! ratios and its sign-test interval, turned into µs per transaction by the
//! plaintext median (`plaintext_median x change`); one round gives the
//! difference and no interval. `--control` runs (the A/A baseline) are left out.
//! The prediction is the model's client CPU per transaction (see
//! [`crate::capacity`]) for the run's backend, algorithm and range size.

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
    /// Rows per range query; 0 for a run of pgbench's workloads, whose
    /// results leave the field out (no range queries, no built-in mix).
    #[serde(default)]
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
    /// Round of `oltp run --repeat` (1-based; 1 in files written before the field).
    #[serde(default = "first_round")]
    pub round: u32,
    /// A second baseline run of its round (`oltp run --control`): not paired.
    #[serde(default)]
    pub control: bool,
    /// The TLS session when TLS was on, `null` when off (only whether it is
    /// set is read).
    #[serde(default)]
    pub tls: Option<serde::de::IgnoredAny>,
}

fn first_round() -> u32 {
    1
}

impl OltpRun {
    /// Client CPU per transaction, µs.
    pub fn cpu_us_per_txn(&self) -> f64 {
        self.client_cpu_s * 1e6 / self.transactions as f64
    }
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

/// Reads one `--oltp-result` file: a regular file of at most
/// [`MAX_RESULT_JSON`](encbench_common::files::MAX_RESULT_JSON) bytes.
fn read_one(path: &Path) -> Result<Vec<OltpRun>> {
    use encbench_common::files::{MAX_RESULT_JSON, read_capped};
    let bytes = read_capped(
        path,
        MAX_RESULT_JSON,
        "the --json-out report of an oltp run",
        "--oltp-result",
    )
    .map_err(|e| Error::Invalid(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        Error::Invalid(format!(
            "--oltp-result {} is not UTF-8 text: give the --json-out report of an oltp run",
            path.display()
        ))
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

/// The model's added client CPU per transaction of one run (see [`crate::capacity`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// AEAD and envelope work (open + seal), µs per transaction.
    pub crypto_us_per_txn: f64,
    /// Client-side sort and dedup, µs per transaction.
    pub client_sort_us_per_txn: f64,
}

/// One encryption choice beside plaintext (same workload, threads and TLS
/// setting, paired by round) and the model's prediction.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ComparisonRow {
    /// Workload name.
    pub workload: String,
    /// Threads of both runs.
    pub threads: u32,
    /// Whether TLS was on in both.
    pub tls: bool,
    /// `BACKEND:ALGORITHM` of the encrypted runs.
    pub encrypt: String,
    /// Rows per range query of the runs.
    pub range_size: u32,
    /// Paired rounds.
    pub rounds: usize,
    /// Median plaintext TPS over the paired rounds.
    pub plaintext_tps: f64,
    /// Median encrypted TPS over the paired rounds.
    pub encrypted_tps: f64,
    /// Median plaintext client CPU per transaction, µs.
    pub plaintext_cpu_us_per_txn: f64,
    /// Median encrypted client CPU per transaction, µs.
    pub encrypted_cpu_us_per_txn: f64,
    /// Client CPU per transaction that encryption adds, µs: the plaintext
    /// median times the median paired change (with one round, the difference).
    pub measured_overhead_us_per_txn: f64,
    /// Low end of its interval, µs (`None` with one round).
    pub measured_low_us_per_txn: Option<f64>,
    /// High end of its interval, µs (`None` with one round).
    pub measured_high_us_per_txn: Option<f64>,
    /// The interval's exact coverage, percent (93.75 with 5 rounds; see
    /// [`encbench_common::compare`]); `None` with one round.
    pub confidence_pct: Option<f64>,
    /// The model's AEAD and envelope CPU per transaction, µs.
    pub predicted_crypto_us_per_txn: f64,
    /// The model's client-side sort and dedup CPU per transaction, µs.
    pub predicted_sort_us_per_txn: f64,
    /// The model's added client CPU per transaction (crypto + sort), µs.
    pub predicted_us_per_txn: f64,
    /// predicted / measured (1 = the model explains the whole overhead; NaN
    /// when the measured overhead is not positive).
    pub predicted_share: f64,
}

/// Pairs encrypted runs with plaintext runs (same workload, threads and TLS
/// setting; by round) and predicts their overhead with
/// `predict(workload, range_size, encrypt)` (`None` when the workload has no
/// built-in mix).
///
/// # Errors
/// No encrypted run has a plaintext partner: the message says what to run.
pub fn compare(
    runs: &OltpRuns,
    predict: impl Fn(&str, u32, &str) -> Result<Option<Prediction>>,
) -> Result<Vec<ComparisonRow>> {
    let median = |mut xs: Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        let n = xs.len();
        if n % 2 == 1 {
            xs[n / 2]
        } else {
            (xs[n / 2 - 1] + xs[n / 2]) / 2.0
        }
    };
    let runs: Vec<&OltpRun> = runs
        .runs
        .iter()
        .map(|(_, r)| r)
        .filter(|r| !r.control)
        .collect();
    let same = |a: &OltpRun, b: &OltpRun| {
        a.workload == b.workload && a.threads == b.threads && a.tls.is_some() == b.tls.is_some()
    };
    let mut rows: Vec<ComparisonRow> = Vec::new();
    for enc in runs.iter().filter(|r| r.encrypt != "none") {
        let done = rows.iter().any(|row| {
            row.workload == enc.workload
                && row.threads == enc.threads
                && row.tls == enc.tls.is_some()
                && row.encrypt == enc.encrypt
        });
        if done {
            continue;
        }
        // (plaintext, encrypted) of each round both have, first run of each.
        let mut pairs: Vec<(&OltpRun, &OltpRun)> = Vec::new();
        for e in runs
            .iter()
            .filter(|e| e.encrypt == enc.encrypt && same(e, enc))
        {
            if pairs.iter().any(|(_, p)| p.round == e.round) {
                continue;
            }
            if let Some(p) = runs
                .iter()
                .find(|p| p.encrypt == "none" && same(p, enc) && p.round == e.round)
            {
                pairs.push((p, e));
            }
        }
        if pairs.is_empty() {
            // Files from separate `oltp run`s: pair with the first plaintext run.
            let Some(p) = runs.iter().find(|p| p.encrypt == "none" && same(p, enc)) else {
                continue;
            };
            pairs.push((p, enc));
        }
        let Some(model) = predict(&enc.workload, enc.range_size, &enc.encrypt)? else {
            continue;
        };
        let predicted = model.crypto_us_per_txn + model.client_sort_us_per_txn;
        let cpu: Vec<(f64, f64)> = pairs
            .iter()
            .map(|(p, e)| (p.cpu_us_per_txn(), e.cpu_us_per_txn()))
            .collect();
        let Some(c) = encbench_common::compare::compare(
            "client_cpu_us_per_txn",
            "none",
            &enc.encrypt,
            &cpu,
            None,
        ) else {
            continue;
        };
        let base = c.baseline_median;
        let at = |pct: f64| base * pct / 100.0;
        let measured = at(c.median_change_pct);
        rows.push(ComparisonRow {
            workload: enc.workload.clone(),
            threads: enc.threads,
            tls: enc.tls.is_some(),
            encrypt: enc.encrypt.clone(),
            range_size: enc.range_size,
            rounds: c.rounds,
            plaintext_tps: median(pairs.iter().map(|(p, _)| p.tps).collect()),
            encrypted_tps: median(pairs.iter().map(|(_, e)| e.tps).collect()),
            plaintext_cpu_us_per_txn: base,
            encrypted_cpu_us_per_txn: c.variant_median,
            measured_overhead_us_per_txn: measured,
            measured_low_us_per_txn: c.ci95_low_pct.map(at),
            measured_high_us_per_txn: c.ci95_high_pct.map(at),
            confidence_pct: c.confidence_pct,
            predicted_crypto_us_per_txn: model.crypto_us_per_txn,
            predicted_sort_us_per_txn: model.client_sort_us_per_txn,
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
            "--oltp-result: no encrypted run has a plaintext run of the same workload, threads and TLS setting: run `oltp run --encrypt none,BACKEND:ALGORITHM --json-out FILE`"
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

    /// The runs of the oltp JSON `text`, as read from `r.json`.
    fn runs_of(text: &str) -> OltpRuns {
        let parsed = parse(text, Path::new("r.json")).expect("oltp JSON");
        OltpRuns {
            runs: parsed
                .into_iter()
                .map(|r| (PathBuf::from("r.json"), r))
                .collect(),
        }
    }

    fn read(tool: &str) -> Result<Vec<OltpRun>> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("r.json");
        std::fs::write(&path, format!(r#"{{"tool": {tool}, "runs": [{RUN}]}}"#)).expect("write");
        read_one(&path)
    }

    /// One run of `oltp run --json-out` with the fields read, 100 transactions.
    fn run(encrypt: &str, round: u32, control: bool, cpu_us_per_txn: f64) -> String {
        format!(
            r#"{{"workload": "oltp_read_only", "threads": 8, "encrypt": "{encrypt}",
            "range_size": 100, "time_s": 4.0, "transactions": 100, "tps": 25.0, "qps": 400.0,
            "client_cpu_s": {}, "complete": true, "round": {round}, "control": {control},
            "tls": null}}"#,
            cpu_us_per_txn * 100.0 / 1e6
        )
    }

    fn prediction(_: &str, range_size: u32, encrypt: &str) -> Result<Option<Prediction>> {
        assert_eq!(range_size, 100);
        Ok((encrypt == "ring:aes-256-gcm").then_some(Prediction {
            crypto_us_per_txn: 80.0,
            client_sort_us_per_txn: 20.0,
        }))
    }

    #[test]
    fn rounds_are_paired_and_the_added_cpu_has_an_interval() {
        // Plaintext 500 us/txn every round; encrypted 600, 610, 620, 590, 700:
        // paired changes +20%, +22%, +24%, +18%, +40%; median +22% = 110 us,
        // interval min..max (93.75%, 5 rounds) = 90..200 us. The control runs
        // (a second baseline, far off on purpose) must not be paired.
        let mut runs = Vec::new();
        for (r, enc) in [600.0, 610.0, 620.0, 590.0, 700.0].iter().enumerate() {
            let r = r as u32 + 1;
            runs.push(run("none", r, false, 500.0));
            runs.push(run("none", r, true, 50.0));
            runs.push(run("ring:aes-256-gcm", r, false, *enc));
        }
        let text = format!(r#"{{"tool": "oltp", "runs": [{}]}}"#, runs.join(","));
        let rows = compare(&runs_of(&text), prediction).expect("a pair");
        assert_eq!(rows.len(), 1);
        let row = &rows[0];
        assert_eq!(row.rounds, 5);
        assert!(
            (row.plaintext_cpu_us_per_txn - 500.0).abs() < 1e-9,
            "{row:?}"
        );
        assert!(
            (row.measured_overhead_us_per_txn - 110.0).abs() < 1e-6,
            "{row:?}"
        );
        let lo = row.measured_low_us_per_txn.expect("interval");
        let hi = row.measured_high_us_per_txn.expect("interval");
        assert!(
            (lo - 90.0).abs() < 1e-6 && (hi - 200.0).abs() < 1e-6,
            "{row:?}"
        );
        assert_eq!(row.confidence_pct, Some(93.75));
        assert_eq!(row.predicted_crypto_us_per_txn, 80.0);
        assert_eq!(row.predicted_sort_us_per_txn, 20.0);
        assert!((row.predicted_us_per_txn - 100.0).abs() < 1e-9);
        assert!((row.predicted_share - 100.0 / 110.0).abs() < 1e-9);
    }

    #[test]
    fn one_round_gives_the_difference_and_no_interval() {
        let text = format!(
            r#"{{"tool": "oltp", "runs": [{}, {}]}}"#,
            run("none", 1, false, 500.0),
            run("ring:aes-256-gcm", 1, false, 640.0)
        );
        let rows = compare(&runs_of(&text), prediction).expect("a pair");
        assert_eq!(rows[0].rounds, 1);
        assert!((rows[0].measured_overhead_us_per_txn - 140.0).abs() < 1e-6);
        assert_eq!(rows[0].measured_low_us_per_txn, None);
        assert_eq!(rows[0].confidence_pct, None);
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
