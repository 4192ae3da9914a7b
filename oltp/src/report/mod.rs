//! Reporting: the result type every exporter reads, the statistics over it,
//! and one exporter per format.
//!
//! - [`model`]: a run's result ([`RunResult`]), built once from the
//!   [`measure::Aggregate`](crate::measure::Aggregate) of its workers, with the
//!   settings it ran with ([`RunSettings`]).
//! - [`mod@summary`]: the [`RunKey`] of a run, the summary of each combination over
//!   its `--repeat` rounds, the comparison of every mode with the baseline.
//! - [`headline`]: the few lines over the comparison tables that say what the
//!   run showed.
//! - One file per format, each over [`Report`]: [`text`] (sysbench's layout;
//!   [`pgbench_text`] pgbench's, for a pgbench workload),
//!   [`json`] (written by `--json-out`, read back by `oltp merge`), [`csv`],
//!   [`markdown`] (with [`latency_limit_table`]), [`svg`] (the chart).
//! - [`window`]: a run's measured window in wall-clock time, and how much
//!   several clients' windows overlap (what `oltp merge` checks).
//!
//! Nothing here prints or reads the command line: the caller gets strings.

pub mod csv;
pub mod headline;
pub mod json;
pub mod latency_limit_table;
pub mod markdown;
pub mod model;
pub mod pgbench_text;
pub mod summary;
pub mod svg;
pub mod text;
pub mod window;

use encbench_common::ResultHeader;
use serde::Serialize;

pub use encbench_common::number::count;
pub use json::SCHEMA_VERSION;
pub use model::{
    Fairness, LatencyLimit, LatencyMs, PgbenchRun, Queries, RunResult, RunSettings, ScheduleLagMs,
    StatementLatency, TlsInfo, WindowCpu, WorkloadOptions, histogram_from_hex, histogram_to_hex,
};
pub use summary::{
    ComparisonRow, METRICS, Metric, MetricComparison, RunKey, Spread, SummaryRow, baselines,
    comparison, comparisons, metric, mode_label, no_baseline_text, noise_floors, summary,
};
pub use text::{comparisons_text, summary_text, thousands};
pub use window::{MeasuredWindow, overlap_pct};

/// Everything `oltp run` reports, as printed by `--output json` and written by
/// `--json-out`; every exporter reads it.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The head every encbench result has: `schema_version` (the layout of
    /// this JSON, [`SCHEMA_VERSION`]; `oltp merge` refuses others), `tool`
    /// {`name`: `oltp`, `version`, `git_revision`}, `started_at` and
    /// `ended_at` (RFC 3339, UTC) and `machine` (the client's CPU model,
    /// crypto CPU flags, logical CPUs, kernel).
    #[serde(flatten)]
    pub header: ResultHeader,
    /// False when any run stopped early.
    pub complete: bool,
    /// Every run, in the order run.
    pub runs: Vec<RunResult>,
    /// Every combination over its rounds: medians with min-max.
    pub summary: Vec<SummaryRow>,
    /// Each mode vs its baselines (`summary::baselines`: plaintext without
    /// TLS, or with the mode's TLS when that did not run), medians
    /// only (kept for readers of the old layout; see `comparisons`).
    pub comparison: Vec<ComparisonRow>,
    /// The baseline vs each other mode per thread count and metric, over the
    /// paired rounds: median change, its interval and the verdict.
    pub comparisons: Vec<MetricComparison>,
    /// With `--control`: the baseline against its second run of each round
    /// (A/A), per thread count and metric: the interval the noise alone gives.
    pub noise_floor: Vec<MetricComparison>,
}

impl Report {
    /// The header of a report begun now ([`ResultHeader::end`] it when the
    /// runs are done).
    pub fn begin() -> ResultHeader {
        ResultHeader::begin(SCHEMA_VERSION, encbench_common::tool_info!("oltp"))
    }

    /// Builds the report of `runs` under `header`.
    pub fn new(header: ResultHeader, runs: Vec<RunResult>) -> Report {
        let noise_floor = noise_floors(&runs);
        Report {
            header,
            complete: runs.iter().all(|r| r.complete),
            summary: summary(&runs),
            comparison: comparison(&runs),
            comparisons: comparisons(&runs, &noise_floor),
            noise_floor,
            runs,
        }
    }
}
