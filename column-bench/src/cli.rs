//! The command line: flags (clap derive), checked into a [`Config`], run, and printed.
//!
//! The doc comments of the flags are their `--help` texts: a syntax such as
//! `NAME;queries=Q;open=COL*N[,COL*N]` stays readable on a terminal.
#![allow(rustdoc::broken_intra_doc_links)]

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::error::{Result, invalid, invalid_err};
use clap::{Parser, ValueEnum};

use crate::capacity::{Mix, RANGE_SIZE, SEED_TARGET_QPS};
use crate::config::{Config, Grid, Selection};
use crate::measure::{KeyMode, Operation, PathKind, Timing};
use crate::oltp_result::OltpRuns;
use crate::report::Report;
use crate::shape::{MysqlSource, Shape};
use encbench_common::machine::{Machine, logical_cpus};
use encbench_common::output;
use encbench_common::password::{Secret, ServerUrl};

/// Output format on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// Aligned tables for a terminal.
    Text,
    /// One JSON object: the result header (`schema_version`, `tool`, `started_at`,
    /// `ended_at`, `machine`), `version`, `settings`, `results`, `rows`,
    /// `capacity`, `oltp_comparison`.
    Json,
    /// The `results` table, a blank line, then the `capacity` table.
    Csv,
    /// The text tables as Markdown.
    Markdown,
}

/// Key modes on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KeyModeArg {
    /// One key set up once and shared (an encrypting proxy).
    Reused,
    /// Key schedule on every value (a data key per value).
    #[value(alias = "per_value")]
    PerValue,
}

/// Paths on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PathArg {
    /// Envelope parse, AAD build and AEAD: what oltp runs per value.
    Envelope,
    /// The AEAD call alone on the same bytes.
    Bare,
}

/// Operations on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OperationArg {
    /// Decrypt (the proxy's read path).
    Open,
    /// Encrypt with a fresh random nonce (the write path).
    Seal,
}

/// Per-row decryption cost of column encryption, per backend and algorithm, and the
/// proxy cores a workload needs.
///
/// Times are ns per value (median over samples; each sample opens every value of a
/// corpus of --corpus-rows values once). Throughput is values/s and plaintext MB/s
/// (10^6 bytes). The capacity table gives decrypt µs per transaction, transactions/s
/// per proxy core and the cores needed for --target-qps, for the crypto work alone.
#[derive(Debug, Parser)]
#[command(name = "column-bench", version)]
pub struct Cli {
    /// List the compiled-in BACKEND:ALGORITHM names with key, nonce and tag sizes
    /// (bytes) and the CPU features detected, then exit.
    #[arg(long)]
    pub list_backends: bool,

    /// Backends to measure, comma separated (default: every compiled-in backend).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub backend: Vec<String>,

    /// Algorithms to measure, comma separated, or `all`
    /// (default: aes-256-gcm,chacha20-poly1305).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub algorithms: Vec<String>,

    /// Exact BACKEND:ALGORITHM names to measure, comma separated (alone: only these).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub algorithm: Vec<String>,

    /// Encrypted columns as NAME:BYTES or NAME:MIN-MAX (uniform), comma separated
    /// [default: c:119,pad:59, sysbench's row].
    #[arg(long, value_name = "LIST", conflicts_with_all = ["schema_file", "from_mysql"])]
    pub columns: Option<String>,

    /// A file with one NAME:BYTES or NAME:MIN-MAX per line (# comments).
    #[arg(long, value_name = "FILE", conflicts_with = "from_mysql")]
    pub schema_file: Option<PathBuf>,

    /// Take value lengths from an existing table: mysql://USER@HOST:PORT/DB (needs
    /// --table), the password from --password-file or $MYSQL_PWD
    /// (mysql://USER:PASSWORD@... works too, but any local user can read a command
    /// line; an @ / ? # in it percent-encoded as %40 %2F %3F %23).
    #[arg(long, value_name = "URL", requires = "table")]
    pub from_mysql: Option<ServerUrl>,

    /// The password of --from-mysql, alone on one line of FILE (mode 0600 or 0400,
    /// yours). Beats $MYSQL_PWD; a URL holding a password too is refused.
    #[arg(long, value_name = "FILE", requires = "from_mysql")]
    pub password_file: Option<PathBuf>,

    /// Table for --from-mysql, TABLE or DB.TABLE.
    #[arg(long, value_name = "TABLE", requires = "from_mysql")]
    pub table: Option<String>,

    /// Columns read by --from-mysql, comma separated (default: every CHAR, VARCHAR,
    /// BINARY, VARBINARY, TEXT and BLOB column).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        requires = "from_mysql"
    )]
    pub mysql_columns: Vec<String>,

    /// Rows whose lengths --from-mysql reads.
    #[arg(long, default_value_t = 1000, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub mysql_rows: u32,

    /// Operations to measure, comma separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "open,seal",
        value_name = "LIST"
    )]
    pub operations: Vec<OperationArg>,

    /// Key modes, comma separated: reused (set up once), per-value (key schedule per value).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "reused,per-value",
        value_name = "LIST"
    )]
    pub key_modes: Vec<KeyModeArg>,

    /// Paths, comma separated: envelope (what oltp runs) and bare (the AEAD call alone).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "envelope,bare",
        value_name = "LIST"
    )]
    pub paths: Vec<PathArg>,

    /// Result-set batch sizes in rows (open, key reused, envelope), comma separated.
    #[arg(long, value_delimiter = ',', default_value = "1,10,100", value_name = "LIST",
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub batches: Vec<u32>,

    /// Thread counts for the scaling table, comma separated [default: 1 to the number
    /// of logical CPUs].
    #[arg(long, value_delimiter = ',', value_name = "LIST",
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Vec<u32>,

    /// Warm-up per point, ms.
    #[arg(long, default_value_t = Timing::DEFAULT.warmup_ms, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(0..=60_000))]
    pub warmup_ms: u64,

    /// Measurement time per point, ms.
    #[arg(long, default_value_t = Timing::DEFAULT.measure_ms, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub measure_ms: u64,

    /// Values per column in the corpus (one sample opens each once).
    #[arg(long, default_value_t = Timing::DEFAULT.corpus_rows as u32, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub corpus_rows: u32,

    /// Repeat the whole grid this many times, interleaved and rotated; samples are
    /// pooled for the results, and each round's medians are paired for the
    /// comparisons (5 or more for an interval; 1 round prints no %).
    #[arg(long, default_value_t = 1, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: u32,

    /// The backend the others are compared with, per algorithm [default: the
    /// first measured backend in name order].
    #[arg(long, value_name = "BACKEND")]
    pub baseline: Option<String>,

    /// Run every comparison's baseline twice per round (A and A', half a round
    /// apart) and report the A/A difference as the noise floor; an effect whose
    /// interval overlaps it is "within noise floor" (needs --rounds 2 or more).
    #[arg(long)]
    pub control: bool,

    /// Capacity workloads, comma separated: oltp_read_only, oltp_read_write,
    /// oltp_point_select, or none (default: oltp_read_only when the shape has a column c).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub workloads: Vec<String>,

    /// A custom workload: NAME;queries=Q;open=COL*N[,COL*N];seal=COL*N (repeatable).
    #[arg(long, value_name = "SPEC")]
    pub mix: Vec<String>,

    /// Rows per range query in the built-in workloads (sysbench --range-size).
    #[arg(long, default_value_t = RANGE_SIZE, value_name = "ROWS",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub range_size: u32,

    /// QPS the capacity table sizes the proxy for (default: the seed report's
    /// 108,128.31, PolarDB oltp_read_only at 256 threads).
    #[arg(long, default_value_t = SEED_TARGET_QPS, value_name = "QPS")]
    pub target_qps: f64,

    /// JSON written by `oltp run --json-out FILE` (repeatable): print predicted vs
    /// measured encryption overhead per transaction.
    #[arg(long, value_name = "FILE")]
    pub oltp_result: Vec<PathBuf>,

    /// Output format on stdout.
    #[arg(long, value_enum, default_value = "text")]
    pub output: Output,

    /// Also write the SVG chart of ns per value against value size to FILE
    /// (atomically, at the end).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// Also write the JSON report (as --output json prints it) to FILE,
    /// atomically at the end, while --output goes to stdout; not the --svg file.
    #[arg(long, value_name = "FILE")]
    pub json_out: Option<PathBuf>,

    /// Never show the progress bar (it only shows on a terminal anyway).
    #[arg(long)]
    pub no_progress: bool,
}

impl Cli {
    /// Checks every flag and builds the run's configuration (reads the schema
    /// file, the table of --from-mysql and the --oltp-result files).
    ///
    /// # Errors
    /// Any invalid flag; the message names it and the fix.
    pub fn config(&self) -> Result<Config> {
        let oltp = OltpRuns::read(&self.oltp_result)?;
        let selection = Selection {
            backends: self.backend.clone(),
            algorithms: self.algorithms.clone(),
            names: self.algorithm.clone(),
        };
        let mut descriptors = selection.resolve()?;
        // The runs of --oltp-result are predicted with their own backend and algorithm.
        for n in oltp.encrypt_names() {
            let d = encbench_registry::lookup(&n)
                .map_err(|e| invalid_err!("--oltp-result names {n:?}: {e}"))?;
            if !descriptors.iter().any(|x| std::ptr::eq(*x, d)) {
                descriptors.push(d);
            }
        }
        if !(self.target_qps.is_finite() && self.target_qps > 0.0) {
            invalid!(
                "--target-qps {} must be a positive number of queries per second",
                self.target_qps
            );
        }
        let shape = if let Some(c) = &self.columns {
            Shape::parse_columns(c)?
        } else if let Some(f) = &self.schema_file {
            Shape::from_schema_file(f)?
        } else if let Some(url) = &self.from_mysql {
            let url = Secret::from_env(self.password_file.clone(), "MYSQL_PWD")
                .resolve(Some(url), "--from-mysql")
                .map_err(crate::error::Error::Invalid)?
                .unwrap_or_default();
            crate::shape::from_mysql(&MysqlSource {
                url: url.into(),
                table: self.table.clone().unwrap_or_default(),
                columns: self.mysql_columns.clone(),
                rows: self.mysql_rows as usize,
            })?
        } else {
            Shape::sysbench()
        };
        let mut mixes = Vec::new();
        let workloads: Vec<String> = if self.workloads.is_empty() {
            if shape.column("c").is_some() && self.mix.is_empty() {
                vec!["oltp_read_only".into()]
            } else {
                vec![]
            }
        } else {
            self.workloads.clone()
        };
        for w in workloads.iter().filter(|w| !w.eq_ignore_ascii_case("none")) {
            let m = Mix::builtin(w, self.range_size).ok_or_else(|| {
                invalid_err!(
                    "--workloads {w:?} is not built in: choose from {} or describe it with --mix",
                    Mix::BUILTIN.join(", ")
                )
            })?;
            mixes.push(m);
        }
        for m in &self.mix {
            mixes.push(Mix::parse(m)?);
        }
        let threads: Vec<usize> = if self.threads.is_empty() {
            (1..=logical_cpus()).collect()
        } else {
            self.threads.iter().map(|t| *t as usize).collect()
        };
        let grid = Grid {
            operations: dedup(self.operations.iter().map(|o| match o {
                OperationArg::Open => Operation::Open,
                OperationArg::Seal => Operation::Seal,
            })),
            key_modes: dedup(self.key_modes.iter().map(|k| match k {
                KeyModeArg::Reused => KeyMode::Reused,
                KeyModeArg::PerValue => KeyMode::PerValue,
            })),
            paths: dedup(self.paths.iter().map(|p| match p {
                PathArg::Envelope => PathKind::Envelope,
                PathArg::Bare => PathKind::Bare,
            })),
            batches: dedup(self.batches.iter().map(|b| *b as usize)),
            threads: dedup(threads.into_iter()),
        };
        let cfg = Config {
            descriptors,
            shape,
            variants: grid.variants(),
            timing: Timing {
                warmup_ms: self.warmup_ms,
                measure_ms: self.measure_ms,
                corpus_rows: self.corpus_rows as usize,
            },
            rounds: self.rounds as usize,
            baseline: self.baseline.clone(),
            control: self.control,
            mixes,
            target_qps: self.target_qps,
            oltp,
        };
        cfg.check()?;
        Ok(cfg)
    }
}

fn dedup<T: PartialEq>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// Runs the command line: `--list-backends`, or a measurement printed in the
/// chosen format (and the SVG chart and the JSON report written atomically).
///
/// # Errors
/// Invalid flags (`--json-out` and `--svg` on one file among them), a failed
/// measurement, or an output file that cannot be written.
pub fn execute(cli: &Cli) -> Result<String> {
    if cli.list_backends {
        return Ok(list_backends());
    }
    let cfg = cli.config()?;
    // Fail on an unwritable path before the run, not after it.
    if let Some(p) = &cli.svg {
        output::check_writable(p, "--svg")?;
    }
    if let Some(p) = &cli.json_out {
        output::check_writable(p, "--json-out")?;
    }
    if let (Some(json), Some(svg)) = (&cli.json_out, &cli.svg)
        && json == svg
    {
        invalid!(
            "--json-out and --svg are the same file ({}): give each its own path",
            json.display()
        );
    }
    let progress = !cli.no_progress && std::io::stderr().is_terminal();
    let report = crate::bench::run(&cfg, progress)?;
    if let Some(p) = &cli.svg {
        output::write_atomically(p, report.to_svg()?.as_bytes(), "--svg")?;
    }
    if let Some(p) = &cli.json_out {
        output::write_atomically(p, report.to_json()?.as_bytes(), "--json-out")?;
    }
    render(&report, cli.output)
}

/// The report in `format`.
///
/// # Errors
/// Serialization fails (not expected).
pub fn render(report: &Report, format: Output) -> Result<String> {
    match format {
        Output::Text => Ok(report.to_text()),
        Output::Json => report.to_json(),
        Output::Csv => report.to_csv(),
        Output::Markdown => Ok(report.to_markdown()),
    }
}

/// `column-bench --list-backends`: one line per compiled-in `BACKEND:ALGORITHM`
/// with key, nonce and tag sizes in bytes, then the CPU and its crypto flags.
pub fn list_backends() -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let all = encbench_registry::all();
    let width = all.iter().map(|d| d.name().len()).max().unwrap_or(0);
    for d in all {
        let a = d.algorithm;
        let _ = writeln!(
            s,
            "{:width$}  key {:>2} B  nonce {:>2} B  tag {:>2} B  envelope overhead {} B",
            d.name(),
            a.key_len(),
            a.nonce_len(),
            a.tag_len(),
            encbench_registry::envelope::overhead(a),
        );
    }
    let m = Machine::detect();
    let _ = writeln!(
        s,
        "CPU: {} ({} logical CPUs); features: {}",
        m.cpu_model,
        m.logical_cpus,
        m.flags_label()
    );
    s
}
