//! The work: run every point of a [`Config`] and build the [`Report`].

use std::collections::HashMap;

use crate::error::{Result, invalid_err};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::capacity::{self, CapacityRow, ClientSort, Mix};
use crate::client_sort;
use crate::comparison::{self, Rounds, is_baseline};
use crate::config::Config;
use crate::measure::{self, Corpus, KeyMode, Observations, Operation, PathKind};
use crate::oltp_result::{self, ComparisonRow};
use crate::report::{PointResult, Report, RowResult, SCHEMA_VERSION, Settings};
use encbench_common::{ResultHeader, tool_info};

/// Runs shorter than this estimate (s) show no progress bar.
const PROGRESS_MIN_SECONDS: f64 = 2.0;

/// Runs the whole measurement grid and the capacity model.
///
/// `progress`: show a progress bar on stderr (only drawn on a terminal, and only
/// when the run is estimated to last more than 2 s).
///
/// # Errors
/// Key setup or sealing fails for a backend, or the capacity model or the
/// oltp comparison cannot be evaluated.
pub fn run(cfg: &Config, progress: bool) -> Result<Report> {
    cfg.check()?;
    let mut header = ResultHeader::begin(SCHEMA_VERSION, tool_info!("column-bench"));
    let bar = progress_bar(cfg, progress);
    let mut corpora = Vec::new();
    for d in &cfg.descriptors {
        for col in &cfg.shape.columns {
            corpora.push(Corpus::new(
                d,
                &cfg.shape.table,
                col,
                cfg.timing.corpus_rows,
            )?);
        }
    }
    let (mut obs, rounds) = measure_points(cfg, &corpora, &bar)?;
    let sort_ns = client_sorts(cfg, &corpora);
    bar.finish_and_clear();
    header.end();

    let mut results = Vec::new();
    for (ci, corpus) in corpora.iter().enumerate() {
        let (di, col) = (ci / cfg.shape.columns.len(), ci % cfg.shape.columns.len());
        for (vi, v) in cfg.variants.iter().enumerate() {
            let o = obs.remove(&(di, col, vi)).unwrap_or_default();
            results.push(PointResult::new(
                cfg.descriptors[di],
                &cfg.shape.columns[col].name,
                corpus.mean_value_bytes(),
                v,
                &o,
            ));
        }
    }
    let rows = row_results(cfg, &results);
    let columns: Vec<String> = cfg.shape.columns.iter().map(|c| c.name.clone()).collect();
    let compared = comparison::comparisons(
        &cfg.descriptors,
        &columns,
        &cfg.variants,
        cfg.baseline_backend(),
        &rounds,
    );
    let (capacity, oltp_comparison) = capacity_model(cfg, &results, &sort_ns)?;
    Ok(Report {
        header,
        version: env!("CARGO_PKG_VERSION"),
        settings: Settings {
            timing: cfg.timing,
            rounds: cfg.rounds,
            control: cfg.control,
            table: cfg.shape.table.clone(),
            columns: cfg
                .shape
                .columns
                .iter()
                .map(|c| format!("{}:{}", c.name, c.lengths.describe()))
                .collect(),
            target_qps: cfg.target_qps,
        },
        results,
        comparisons: compared.comparisons,
        noise_floor: compared.noise_floor,
        rows,
        capacity,
        oltp_comparison,
    })
}

/// The progress bar over `cfg`'s points: hidden unless `progress` and the
/// run is estimated to last more than [`PROGRESS_MIN_SECONDS`].
fn progress_bar(cfg: &Config, progress: bool) -> ProgressBar {
    if progress && cfg.estimated_seconds() > PROGRESS_MIN_SECONDS {
        let b =
            ProgressBar::with_draw_target(Some(cfg.points() as u64), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} points, ETA {eta} {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    } else {
        ProgressBar::hidden()
    }
}

/// A point of the grid: (descriptor, column, variant), indexes into `cfg`.
type Point = (usize, usize, usize);

/// Measures every point of the grid over `cfg.rounds` rounds (`corpora`:
/// one per descriptor and column, descriptor outermost): each point's
/// samples pooled over the rounds, and each point's median per round.
///
/// # Errors
/// Key setup or sealing fails for a backend.
fn measure_points(
    cfg: &Config,
    corpora: &[Corpus],
    bar: &ProgressBar,
) -> Result<(HashMap<Point, Observations>, Rounds)> {
    // Rounds outermost, so a burst of noise from other processes spreads over
    // every backend instead of hitting one; round r rotates the backends, the
    // columns and the variants by r (A B C, B C A, ...), so no point always runs
    // before the one it is compared with. Each point keeps its samples pooled
    // over the rounds (the results) and its median per round (the comparisons).
    // With --control (and more than one round) a baseline point runs a second
    // time half a round later (A'): its median goes to the noise floor only.
    let (nd, nc, nv) = (
        cfg.descriptors.len(),
        cfg.shape.columns.len(),
        cfg.variants.len(),
    );
    let mut obs: HashMap<Point, Observations> = HashMap::new();
    let mut rounds = Rounds::default();
    let base = cfg.baseline_backend();
    for round in 0..cfg.rounds {
        let mut order = Vec::with_capacity(nd * nc * nv);
        for di in (0..nd).map(|k| (k + round) % nd) {
            for col in (0..nc).map(|k| (k + round) % nc) {
                for vi in (0..nv).map(|k| (k + round) % nv) {
                    order.push((di, col, vi));
                }
            }
        }
        let control = |&(di, _, vi): &Point| {
            cfg.runs_control() && is_baseline(&cfg.descriptors, &cfg.variants, base, di, vi)
        };
        for (key, second) in schedule(&order, control) {
            let (di, col, vi) = key;
            let v = &cfg.variants[vi];
            bar.set_message(format!(
                "{} {} {}{}",
                cfg.descriptors[di].name(),
                cfg.shape.columns[col].name,
                v.operation.name(),
                if second { " (A/A control)" } else { "" }
            ));
            let o = measure::measure(&corpora[di * nc + col], v, &cfg.timing)?;
            if second {
                rounds.control.entry(key).or_default().push(o.quantile(0.5));
            } else {
                rounds.figures.entry(key).or_default().push(o.quantile(0.5));
                obs.entry(key).or_default().merge(o);
            }
            bar.inc(1);
        }
    }
    Ok((obs, rounds))
}

/// A client-side sort measured: (column, rows, dedup, median ns).
type SortNs = (String, u32, bool, f64);

/// The client-side sort of the sorted result sets of every mix and of the
/// --oltp-result runs' workloads, on the plaintexts of the first backend's
/// corpus of that column (the same plaintexts for every backend).
fn client_sorts(cfg: &Config, corpora: &[Corpus]) -> Vec<SortNs> {
    let specs: Vec<ClientSort> = cfg
        .mixes
        .iter()
        .cloned()
        .chain(
            cfg.oltp
                .runs
                .iter()
                .filter_map(|(_, r)| Mix::builtin(&r.workload, r.range_size)),
        )
        .flat_map(|m| m.sorts)
        .collect();
    let mut sort_ns: Vec<SortNs> = Vec::new();
    for s in &specs {
        if sort_ns
            .iter()
            .any(|(c, r, d, _)| *c == s.column && *r == s.rows && *d == s.dedup)
        {
            continue;
        }
        let Some(col) = cfg.shape.columns.iter().position(|c| c.name == s.column) else {
            continue;
        };
        let Some(corpus) = corpora.get(col) else {
            continue;
        };
        let plaintexts: Vec<Vec<u8>> = (0..corpus.len())
            .map(|i| corpus.plaintext(i).to_vec())
            .collect();
        let mut o = Observations::default();
        for _round in 0..cfg.rounds {
            o.merge(client_sort::measure(
                &plaintexts,
                s.rows as usize,
                s.dedup,
                &cfg.timing,
            ));
        }
        sort_ns.push((s.column.clone(), s.rows, s.dedup, o.quantile(0.5)));
    }
    sort_ns
}

/// The capacity model of every mix and backend, and its predictions against
/// the --oltp-result runs, from the single-thread results and the sorts.
///
/// # Errors
/// The model cannot be evaluated, or an --oltp-result run names an
/// encryption this build does not know.
fn capacity_model(
    cfg: &Config,
    results: &[PointResult],
    sort_ns: &[SortNs],
) -> Result<(Vec<CapacityRow>, Vec<ComparisonRow>)> {
    let sort_of = |s: &ClientSort| {
        sort_ns
            .iter()
            .find(|(c, r, d, _)| *c == s.column && *r == s.rows && *d == s.dedup)
            .map(|t| t.3)
    };
    let single = |backend: &str, algorithm: &str, column: &str, seal: bool| {
        results
            .iter()
            .find(|r| {
                r.backend == backend
                    && r.algorithm == algorithm
                    && r.column == column
                    && r.key_mode == KeyMode::Reused
                    && r.path == PathKind::Envelope
                    && r.operation
                        == if seal {
                            Operation::Seal
                        } else {
                            Operation::Open
                        }
                    && r.batch_rows == 1
                    && r.threads == 1
            })
            .map(|r| r.ns_per_value)
    };
    let mut capacity = Vec::new();
    for m in &cfg.mixes {
        for d in &cfg.descriptors {
            let (b, a) = (d.backend, d.algorithm.name());
            capacity.push(capacity::evaluate(
                m,
                b,
                a,
                cfg.target_qps,
                |c, s| single(b, a, c, s),
                sort_of,
            )?);
        }
    }
    let oltp_comparison = if cfg.oltp.runs.is_empty() {
        Vec::new()
    } else {
        oltp_result::compare(&cfg.oltp, |workload, range_size, encrypt| {
            let Some(mix) = Mix::builtin(workload, range_size) else {
                return Ok(None);
            };
            let d = encbench_registry::lookup(encrypt)
                .map_err(|e| invalid_err!("--oltp-result: {e}"))?;
            let row = capacity::evaluate(
                &mix,
                d.backend,
                d.algorithm.name(),
                cfg.target_qps,
                |c, s| single(d.backend, d.algorithm.name(), c, s),
                sort_of,
            )?;
            Ok(Some(oltp_result::Prediction {
                crypto_us_per_txn: row.decrypt_us_per_txn + row.seal_us_per_txn,
                client_sort_us_per_txn: row.client_sort_us_per_txn,
            }))
        })?
    };
    Ok((capacity, oltp_comparison))
}

/// One round's runs: `order` (the rotated points, each once) with, for every
/// point `control` picks, a second run (`true`) half a round after its first
/// one: right after the point `order.len() / 2` places later, wrapping round
/// to the front of the round when that is past its end (A B A' C for three
/// points with A picked). The distance stays the same in every rotation, so
/// the A/A pair sees the drift the A/B pairs see.
fn schedule<K: Copy>(order: &[K], control: impl Fn(&K) -> bool) -> Vec<(K, bool)> {
    encbench_common::rounds::with_controls(order, control)
}

/// Per-row figures: the sum over the shape's columns of each single-thread,
/// one-value-at-a-time variant.
fn row_results(cfg: &Config, results: &[PointResult]) -> Vec<RowResult> {
    let mut rows = Vec::new();
    for d in &cfg.descriptors {
        for v in cfg
            .variants
            .iter()
            .filter(|v| v.batch_rows == 1 && v.threads == 1)
        {
            let per_col: Vec<&PointResult> = results
                .iter()
                .filter(|r| {
                    r.backend == d.backend && r.algorithm == d.algorithm.name() && r.matches(v)
                })
                .collect();
            if per_col.len() != cfg.shape.columns.len() {
                continue;
            }
            let ns: f64 = per_col.iter().map(|r| r.ns_per_value).sum();
            let bytes: f64 = per_col.iter().map(|r| r.value_bytes).sum();
            rows.push(RowResult {
                backend: d.backend.to_string(),
                algorithm: d.algorithm.name().to_string(),
                operation: v.operation,
                key_mode: v.key_mode,
                path: v.path,
                columns: per_col.len(),
                row_bytes: bytes,
                ns_per_row: ns,
                rows_per_sec: 1e9 / ns,
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::schedule;

    #[test]
    fn the_control_run_sits_half_a_round_after_the_baseline() {
        let none = |_: &char| false;
        assert_eq!(
            schedule(&['A', 'B', 'C'], none),
            [('A', false), ('B', false), ('C', false)]
        );
        let a = |k: &char| *k == 'A';
        assert_eq!(schedule(&['A'], a), [('A', false), ('A', true)]);
        assert_eq!(
            schedule(&['A', 'B', 'C'], a),
            [('A', false), ('B', false), ('A', true), ('C', false)]
        );
        // Rotated (the next round): A' wraps to the front, still two runs from A.
        assert_eq!(
            schedule(&['B', 'C', 'A'], a),
            [('B', false), ('A', true), ('C', false), ('A', false)]
        );
        // Two baselines in four points: each A' right after the point two
        // places after its A.
        let ac = |k: &char| *k == 'A' || *k == 'C';
        assert_eq!(
            schedule(&['A', 'B', 'C', 'D'], ac),
            [
                ('A', false),
                ('C', true),
                ('B', false),
                ('C', false),
                ('A', true),
                ('D', false)
            ]
        );
    }
}
