//! The comparisons of report 004 (IO-bound vs cached QPS paired by round,
//! each grid beyond the report vs its profile's plaintext grid) and its rows,
//! judged on the buffer-pool miss rates.

use encbench_common::compare::{Comparison, compare};

use crate::io_sample::{IoSample, ProfileIo, profile};
use crate::plan::Grid;
use crate::published::{BeyondSpec, Figure, IopsLimitSpec, Published};
use crate::row::{GridRun, Row};
use crate::verdict::{Effect, judge};

use super::{AddedEncryption, CACHED, IO_BOUND, grid_name};

/// QPS of complete, non-control runs of `grid` at `threads`, by round.
fn qps_by_round(grid: &GridRun, threads: u32) -> Vec<(u32, f64)> {
    grid.report
        .runs
        .iter()
        .filter(|r| r.complete && !r.control && r.settings.threads == threads)
        .map(|r| (r.round, r.qps))
        .collect()
}

/// IO-bound vs cached QPS at `threads` over the rounds both ran: oltp's
/// comparison (median of the paired ratios, sign-test interval).
pub fn ratio(grids: &[GridRun], threads: u32) -> Option<Comparison> {
    compare_grids(grids, CACHED, IO_BOUND, threads)
}

/// The QPS of the grid `variant` vs the grid `baseline` at `threads`, paired
/// by round (the rounds both ran), as [`ratio`].
pub fn compare_grids(
    grids: &[GridRun],
    baseline: &str,
    variant: &str,
    threads: u32,
) -> Option<Comparison> {
    let a = grids.iter().find(|g| g.name == baseline)?;
    let b = grids.iter().find(|g| g.name == variant)?;
    let base = qps_by_round(a, threads);
    let pairs: Vec<(f64, f64)> = qps_by_round(b, threads)
        .into_iter()
        .filter_map(|(round, q)| base.iter().find(|(r, _)| *r == round).map(|(_, a)| (*a, q)))
        .collect();
    compare("qps", baseline, variant, &pairs, None)
}

/// One measurement beyond the report: `extra` in `profile` at `threads`
/// against the profile's plaintext runs of the same rounds, with both
/// sides' buffer-pool miss rates.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BeyondCost {
    /// `cached` or `io-bound`.
    pub profile: String,
    /// [`AddedEncryption::key`]; `extra` in the JSON.
    #[serde(rename = "extra")]
    pub added: &'static str,
    /// What was added, in words.
    pub what: String,
    /// Client threads.
    pub threads: u32,
    /// The comparison (QPS, variant vs plaintext); `None` before a round
    /// ran both.
    pub comparison: Option<Comparison>,
    /// The plaintext runs' median buffer-pool miss rate, %.
    pub baseline_miss_pct: Option<f64>,
    /// The variant's median buffer-pool miss rate, %.
    pub variant_miss_pct: Option<f64>,
}

/// The costs beyond the report of the grids run so far: one per profile and
/// extra whose grid is in `grids` or `planned`, in that order.
pub fn beyond_costs(
    b: &BeyondSpec,
    grids: &[GridRun],
    planned: &[Grid],
    io: &[IoSample],
) -> Vec<BeyondCost> {
    let mut out = Vec::new();
    for added in AddedEncryption::ALL {
        for p in [CACHED, IO_BOUND] {
            let name = grid_name(p, added);
            let Some(g) = planned.iter().find(|g| g.name == name) else {
                continue;
            };
            let Some(&t) = g.threads.first() else {
                continue;
            };
            out.push(BeyondCost {
                profile: p.to_string(),
                added: added.key(),
                what: added.words(b),
                threads: t,
                comparison: compare_grids(grids, p, &name, t),
                baseline_miss_pct: profile(io, p, t).map(|x| x.miss_pct),
                variant_miss_pct: profile(io, &name, t).map(|x| x.miss_pct),
            });
        }
    }
    out
}

/// Our QPS / TPS of `grid` at `threads` (medians of the rounds) and the
/// rounds behind it.
fn queries_per_transaction(grid: &GridRun, threads: u32) -> Option<(f64, usize)> {
    let s = grid
        .report
        .summary
        .iter()
        .find(|s| s.threads == threads && s.mode == "none")?;
    (s.tps.median > 0.0).then(|| (s.qps.median / s.tps.median, s.runs))
}

/// The rows: the ratio per instance at its IO-bound thread count, QPS / TPS
/// per instance on both sides, from the grids run so far.
///
/// `io` holds the buffer-pool and device reads of every run (one per
/// profile, thread count and round): a ratio row at `t` threads whose
/// IO-bound runs at `t` missed less than
/// [`IO_BOUND_MIN_MISS_PCT`](crate::io_sample::IO_BOUND_MIN_MISS_PCT) is "not
/// reproducible here" (the profile was not IO-bound at that thread count),
/// and every ratio row's reason gives both profiles' miss rates and device
/// reads at its thread count.
///
/// `cap`: the IOPS cap both profiles ran with (the scale's), named in the
/// reason.
pub fn rows(
    p: &Published,
    grids: &[GridRun],
    threads: &[u32],
    io: &[IoSample],
    cap: Option<&IopsLimitSpec>,
) -> Vec<Row> {
    let mut rows = Vec::new();
    for f in &p.figures {
        let Some(t) = f.threads else { continue };
        let id = f.id.as_deref().unwrap_or("");
        let row = if id.starts_with("ratio_") {
            ratio_row(p, f, grids, threads, io, cap, t)
        } else {
            let side = if id == "qpt_cached" { CACHED } else { IO_BOUND };
            qpt_row(p, f, grids.iter().find(|g| g.name == side), t)
        };
        rows.push(row);
    }
    rows
}

/// One ratio row at `t` threads, judged on the miss rates measured at `t`.
fn ratio_row(
    p: &Published,
    f: &Figure,
    grids: &[GridRun],
    threads: &[u32],
    io: &[IoSample],
    cap: Option<&IopsLimitSpec>,
    t: u32,
) -> Row {
    let cached = profile(io, CACHED, t);
    let io_bound = profile(io, IO_BOUND, t);
    let measured = match (&io_bound, &cached) {
        (Some(i), Some(c)) => Some(format!("{}; {}", i.text(), c.text())),
        _ => None,
    };
    let why_differs = match (&io_bound, &measured) {
        (Some(i), Some(m)) if i.io_bound => format!(
            "the IO-bound runs were IO-bound, but a miss costs less here: {m}; {}",
            cap_words(cap)
        ),
        _ => String::new(),
    };
    let c = ratio(grids, t);
    let mut row = Row::from_comparison(
        format!("{} (ours: {t} threads)", f.figure),
        f,
        c.as_ref(),
        f.tolerance(p),
        if why_differs.is_empty() {
            f.differs_reason(p)
        } else {
            &why_differs
        },
    );
    if !threads.contains(&t) {
        row.reason = format!("{t} threads are not in this run's --threads");
    } else if let (Some(i), Some(m), Some(_)) = (&io_bound, &measured, row.ours) {
        if i.io_bound {
            if !row.reason.contains(m.as_str()) {
                row.reason = format!("{}; measured: {m}", row.reason);
            }
        } else {
            row.verdict = crate::Verdict::NotReproducibleHere;
            row.reason = format!(
                "the io-bound profile was not IO-bound here at {t} threads (a buffer-pool miss rate, not QPS, decides): {m}"
            );
        }
    }
    row
}

/// The buffer-pool and device reads per (profile, thread count): medians
/// over the rounds, in the order of `threads`, cached first.
pub fn io_by_threads(io: &[IoSample], threads: &[u32]) -> Vec<ProfileIo> {
    threads
        .iter()
        .flat_map(|&t| [CACHED, IO_BOUND].map(|g| profile(io, g, t)))
        .flatten()
        .collect()
}

/// The IOPS cap in a row's reason: ours beside the report's.
fn cap_words(cap: Option<&IopsLimitSpec>) -> String {
    match cap {
        Some(c) => format!(
            "both profiles ran capped at {} reads/s and {} writes/s (--iops-limit, {}), where the report's instances were capped at 1,000-14,000 IOPS of reads and writes together (the seed's IOPS column)",
            c.iops, c.iops, c.instance
        ),
        None => "the report's instances were capped at 1,000-14,000 IOPS (the seed's IOPS column), nothing caps them here (run without --iops-limit)".to_string(),
    }
}

/// A QPS / TPS row: a deterministic property of the workload, judged with
/// the figure's tolerance (queries per transaction).
fn qpt_row(p: &Published, f: &Figure, grid: Option<&GridRun>, t: u32) -> Row {
    let got = grid.and_then(|g| queries_per_transaction(g, t));
    let (verdict, reason) = match got {
        Some((q, _)) => {
            let e = Effect {
                median: q,
                lo: q,
                hi: q,
            };
            let (v, why) = judge(
                f.published,
                Some(e),
                f.tolerance(p),
                "transactions retried or rolled back change the queries counted per transaction",
            );
            (v, why.replace('%', ""))
        }
        None => (
            crate::Verdict::NotReproducibleHere,
            match grid {
                None => "the run did not happen (stopped early)".to_string(),
                Some(_) => format!("{t} threads did not run (see --threads, or the run stopped)"),
            },
        ),
    };
    Row {
        figure: format!("{} (ours: {t} threads)", f.figure),
        published: f.published,
        published_unit: f.published_unit.clone(),
        source_line: f.source_line,
        ours: got.map(|(q, _)| q),
        ci95_low: None,
        ci95_high: None,
        confidence_pct: None,
        rounds: got.map_or(0, |(_, n)| n),
        verdict,
        reason,
        comparison_verdict: None,
    }
}
