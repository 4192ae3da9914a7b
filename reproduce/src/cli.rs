//! The command line of `encbench-reproduce` (and `oltp reproduce`, which runs
//! it): clap types only; [`crate::command::reproduce`] does what it says.
#![allow(rustdoc::invalid_html_tags)]

use std::path::PathBuf;

use clap::{Args, Parser};

/// A parser of a `u64` option in `lo..=hi`, reading the value as an `i64` first so that a
/// negative one is refused naming the range (`-1 is not in 0..=86400`), as the `u32`
/// options' parsers do, instead of "invalid digit found in string".
fn u64_in(lo: i64, hi: i64) -> clap::builder::RangedI64ValueParser<u64> {
    clap::builder::RangedI64ValueParser::<u64>::new().range(lo..=hi)
}

/// Reproduce a source report (listed in README.md; its published figures
/// are data in reproduce/published/ID.json): run the experiment it
/// describes on this machine, its published figures beside ours with a
/// verdict; writes DIR/report.md, report.json, report.html and the SVG charts.
#[derive(Debug, Parser)]
#[command(
    name = "encbench-reproduce",
    version,
    after_help = REPRODUCE_HELP,
    allow_negative_numbers = true
)]
pub struct Cli {
    /// The reproduction's arguments.
    #[command(flatten)]
    pub args: ReproduceArgs,
}

/// `encbench-reproduce --help`'s epilogue.
pub const REPRODUCE_HELP: &str = "Reports: 000 (column encryption, DSC), 001 (encryption at rest, PostgreSQL pgbench), 003 (SSL, yaSSL study), 004 (RDS cached vs IO-bound); all runs each one in turn (DIR/ID/).
The test-only overrides (--time, --warmup, --repeat, --threads, --tables, --table-size, --scale, --iops-limit) shrink or change a run; a run with them is not the report's scale.
Exit codes: 0 complete, 1 failed (bad input, checks, server), 2 usage error (a flag or its value, as clap reports it), 3 stopped early (Ctrl-C, a failed run): the rows so far are written, marked partial.";

/// The arguments of `encbench-reproduce` (and of `oltp reproduce`, which
/// passes them through).
#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// Report id: 000, 001, 003, 004, or all.
    pub id: String,
    /// The scaled-down run (under 10 minutes per report on 2 cores); default: the report's scale.
    #[arg(long)]
    pub quick: bool,
    /// Directory for report.md, report.json, report.html and chart-N.svg
    /// (created if missing). Default: results/reproduce/<ID>; with all, DIR/<ID>/.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// encbench's directory (see `oltp run --help`).
    #[arg(long, value_name = "DIR")]
    pub base_dir: Option<PathBuf>,
    /// Directory holding tls-bench's footprint programs (footprint-plain,
    /// footprint-rustls, footprint-openssl) for 003's minimal-client footprint.
    /// Default: this binary's directory (cargo build --release -p tls-bench-footprint).
    #[arg(long, value_name = "DIR")]
    pub footprint_dir: Option<PathBuf>,
    /// Test only: measured seconds per run instead of the report's.
    #[arg(long, value_parser = u64_in(1, 86_400))]
    pub time: Option<u64>,
    /// Test only: warm-up seconds per run (default: the report's).
    #[arg(long, value_parser = u64_in(0, 86_400))]
    pub warmup: Option<u64>,
    /// Test only: interleaved rounds (1 gives no %; default: the report's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: Option<u32>,
    /// Test only: thread counts, comma separated (default: the report's).
    #[arg(long, value_delimiter = ',', value_name = "LIST",
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub threads: Option<Vec<u32>>,
    /// Test only: tables (default: the report's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub tables: Option<u32>,
    /// Test only: rows per table (default: the report's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000_000))]
    pub table_size: Option<u32>,
    /// Test only: pgbench scale of 001's cached data set (the large one is
    /// then left out, as in quick mode).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=21_474))]
    pub scale: Option<u32>,
    /// Test only: 004's IOPS cap of the private server, reads and writes per
    /// second each (0: uncapped; default: the data file's, the IOPS of the
    /// instance the run imitates).
    #[arg(long, value_name = "N")]
    pub iops_limit: Option<u32>,
}
