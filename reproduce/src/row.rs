//! The result type of a reproduction: the rows (published | ours | verdict),
//! the identity checks, the footprint, and every run's raw result. Every
//! exporter reads it; only `json` writes it whole.

use encbench_common::ResultHeader;
use encbench_common::compare::Comparison;
use serde::Serialize;

use super::verdict::{Effect, Verdict, judge};
use encbench_oltp::report::{MetricComparison, Report};

/// One published figure beside ours: a row of `report.json`'s `rows`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Row {
    /// What is compared, in words (with our variant, e.g. the backend).
    pub figure: String,
    /// The report's figure.
    pub published: f64,
    /// Its unit.
    pub published_unit: String,
    /// Line of the seed file it comes from (see the data file's `line_numbering`).
    pub source_line: u32,
    /// Our figure in the same unit; `null` when we have none.
    pub ours: Option<f64>,
    /// Lower end of our interval (the unit of `ours`); `null` with 1 round or none.
    pub ci95_low: Option<f64>,
    /// Upper end of our interval.
    pub ci95_high: Option<f64>,
    /// The interval's exact coverage, percent (93.75 with 5 rounds, at
    /// least 95 from 6 on; see `encbench_common::compare`); `null` for a
    /// deterministic figure or none.
    pub confidence_pct: Option<f64>,
    /// Paired rounds behind `ours` (1 for a deterministic measurement).
    pub rounds: usize,
    /// `reproduced`, `differs` or `not reproducible here`.
    pub verdict: Verdict,
    /// Why, in one line.
    pub reason: String,
    /// oltp's own verdict of the comparison (`higher`, `lower`, `no
    /// difference detected`, `within noise floor`, `1 round`), when the row
    /// comes from one.
    pub comparison_verdict: Option<String>,
}

impl Row {
    /// The row of a published effect against one of oltp's comparisons
    /// (`None`: the run did not happen). One round gives no %: `ours` is
    /// null and the verdict "not reproducible here".
    pub fn from_comparison(
        figure: String,
        f: &super::published::Figure,
        c: Option<&Comparison>,
        tolerance: f64,
        why_differs: &str,
    ) -> Row {
        let effect = c.and_then(|c| {
            Some(Effect {
                median: c.median_change_pct,
                lo: c.ci95_low_pct?,
                hi: c.ci95_high_pct?,
            })
        });
        let (verdict, reason) = match (c, effect) {
            (None, _) => (
                Verdict::NotReproducibleHere,
                "the run did not happen (stopped early)".to_string(),
            ),
            (Some(_), None) => (
                Verdict::NotReproducibleHere,
                "1 round: no interval and no %; run with more rounds".to_string(),
            ),
            (Some(_), e) => judge(f.published, e, tolerance, why_differs),
        };
        Row {
            figure,
            published: f.published,
            published_unit: f.published_unit.clone(),
            source_line: f.source_line,
            ours: effect.map(|e| e.median),
            ci95_low: effect.map(|e| e.lo),
            ci95_high: effect.map(|e| e.hi),
            confidence_pct: c.and_then(|c| c.confidence_pct),
            rounds: c.map_or(0, |c| c.rounds),
            verdict,
            reason,
            comparison_verdict: c.map(|c| c.verdict.as_str().to_string()),
        }
    }
}

/// The identity RT = threads x queries per transaction / QPS (a closed
/// loop's Little's law), checked on a published pair or one of our medians.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Identity {
    /// Whose figures: `published (line N)` or `ours (mode)`.
    pub whose: String,
    /// Workload.
    pub workload: String,
    /// Threads.
    pub threads: u32,
    /// Queries per transaction used.
    pub queries_per_transaction: f64,
    /// QPS.
    pub qps: f64,
    /// RT as reported, ms.
    pub rt_ms: f64,
    /// threads x queries per transaction / QPS, ms.
    pub predicted_rt_ms: f64,
    /// (reported / predicted - 1) x 100.
    pub deviation_pct: f64,
}

impl Identity {
    /// The check of one (threads, q/trx, QPS, RT) quadruple.
    pub fn check(
        whose: String,
        workload: &str,
        threads: u32,
        q: f64,
        qps: f64,
        rt_ms: f64,
    ) -> Identity {
        let predicted_rt_ms = f64::from(threads) * q / qps.max(1e-9) * 1000.0;
        Identity {
            whose,
            workload: workload.to_string(),
            threads,
            queries_per_transaction: q,
            qps,
            rt_ms,
            predicted_rt_ms,
            deviation_pct: (rt_ms / predicted_rt_ms - 1.0) * 100.0,
        }
    }
}

/// The comparison for `metric` at `threads` among one grid's
/// `comparisons` whose pair (variant, baseline) `matches`.
pub fn find_comparison<'a>(
    comparisons: &'a [MetricComparison],
    threads: u32,
    metric: &str,
    matches: impl Fn(&Comparison) -> bool,
) -> Option<&'a Comparison> {
    comparisons
        .iter()
        .find(|c| c.threads == threads && c.comparison.metric == metric && matches(&c.comparison))
        .map(|c| &c.comparison)
}

/// One grid that ran: its name, the `oltp run` command it was, and oltp's
/// whole report of it (every run's raw result, the summary, the comparisons).
#[derive(Clone, Debug, Serialize)]
pub struct GridRun {
    /// What it measures (`figure 2`, `oltp_read_only`).
    pub name: String,
    /// The equivalent `oltp run ...` command line.
    pub command: String,
    /// oltp's report of it, as `oltp run --json-out` writes it.
    pub report: Report,
}

/// A table of its own beside the rows (a report's extra measurements, e.g.
/// 004's reads per profile and thread count, 000's proxy prediction): cells
/// already formatted, written as they are by report.md and report.html.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Table {
    /// Anchor in report.html (`buffer-pool`, `prediction`).
    pub id: String,
    /// Heading.
    pub title: String,
    /// What the table is and where its figures come from, one paragraph.
    pub note: String,
    /// Column headings.
    pub columns: Vec<String>,
    /// Rows of cells, as many as `columns`.
    pub rows: Vec<Vec<String>>,
}

/// A chart: a title and its SVG document.
#[derive(Clone, Debug)]
pub struct Chart {
    /// What it shows.
    pub title: String,
    /// The SVG document.
    pub svg: String,
}

/// Everything a reproduction reports: `report.json` (the charts go into
/// the SVG files and the HTML page instead).
#[derive(Clone, Debug, Serialize)]
pub struct Reproduction {
    /// The head of every encbench result: `schema_version`, `tool`,
    /// `started_at`, `ended_at`, `machine` (this machine's CPU model, crypto
    /// flags, logical CPUs, kernel).
    #[serde(flatten)]
    pub header: ResultHeader,
    /// The report id (`000`, `003`).
    pub report: String,
    /// What the report measured.
    pub title: String,
    /// Its seed file.
    pub seed_file: String,
    /// `--quick`.
    pub quick: bool,
    /// True while measuring and after a stop (Ctrl-C, a failed run): the rows
    /// are the ones measured so far. False only once every step finished.
    pub partial: bool,
    /// Why it is partial, when it stopped.
    pub stopped: Option<String>,
    /// How the runs are scaled, in words.
    pub scale: String,
    /// How a verdict's tolerance was chosen.
    pub tolerance: String,
    /// Where our setup differs from the report's, plainly.
    pub setup_differences: Vec<String>,
    /// Published figure | ours (interval) | verdict.
    pub rows: Vec<Row>,
    /// RT = threads x queries per transaction / QPS on published and our figures.
    pub identity: Vec<Identity>,
    /// Extra measurements the rows come from (footprint, capacity model).
    pub measurements: serde_json::Map<String, serde_json::Value>,
    /// Tables of their own beside the rows (not verdicts): 004's reads per
    /// profile and thread count, 000's proxy prediction.
    pub tables: Vec<Table>,
    /// Every grid run, with oltp's full report (raw results).
    pub runs: Vec<GridRun>,
    /// The charts (not in the JSON).
    #[serde(skip)]
    pub charts: Vec<Chart>,
}
