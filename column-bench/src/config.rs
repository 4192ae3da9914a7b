//! What a run measures: backends, column shape, variants, timing and workloads,
//! checked before any work starts.

use std::collections::BTreeSet;

use crate::error::{Result, invalid, invalid_err};
use encbench_registry::{Algorithm, Descriptor};

use crate::capacity::Mix;
use crate::measure::{KeyMode, Operation, PathKind, Timing, Variant};
use crate::oltp_result::OltpRuns;
use crate::shape::Shape;

/// The algorithms of the default run: enough to compare the backends in under a minute.
pub const DEFAULT_ALGORITHMS: [Algorithm; 2] = [Algorithm::Aes256Gcm, Algorithm::ChaCha20Poly1305];

/// Which descriptors to measure: a filter over `encbench_registry::all()`.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Backend names (empty = every compiled-in backend).
    pub backends: Vec<String>,
    /// Algorithm names, or `all` (empty = [`DEFAULT_ALGORITHMS`]).
    pub algorithms: Vec<String>,
    /// Full `BACKEND:ALGORITHM` names, measured in addition.
    pub names: Vec<String>,
}

impl Selection {
    /// The descriptors selected, in registry order.
    ///
    /// # Errors
    /// An unknown backend, algorithm or name; every message lists the valid ones.
    pub fn resolve(&self) -> Result<Vec<&'static Descriptor>> {
        let all = encbench_registry::all();
        let backends = encbench_registry::backends();
        for b in &self.backends {
            if !backends.iter().any(|x| x.eq_ignore_ascii_case(b)) {
                invalid!(
                    "--backend {b:?} is not compiled in: choose from {} (see --list-backends)",
                    backends.join(", ")
                );
            }
        }
        let known_algs: BTreeSet<&str> = all.iter().map(|d| d.algorithm.name()).collect();
        let every = self
            .algorithms
            .iter()
            .any(|a| a.eq_ignore_ascii_case("all"));
        for a in self
            .algorithms
            .iter()
            .filter(|a| !a.eq_ignore_ascii_case("all"))
        {
            if !known_algs.iter().any(|k| k.eq_ignore_ascii_case(a)) {
                invalid!(
                    "--algorithms {a:?} is not an algorithm of any compiled-in backend: choose from all, {}",
                    known_algs.into_iter().collect::<Vec<_>>().join(", ")
                );
            }
        }
        let mut chosen: Vec<&'static Descriptor> = all
            .iter()
            .copied()
            .filter(|d| {
                self.backends.is_empty()
                    || self
                        .backends
                        .iter()
                        .any(|b| b.eq_ignore_ascii_case(d.backend))
            })
            .filter(|d| {
                if every {
                    true
                } else if self.algorithms.is_empty() {
                    DEFAULT_ALGORITHMS.contains(&d.algorithm)
                } else {
                    self.algorithms
                        .iter()
                        .any(|a| a.eq_ignore_ascii_case(d.algorithm.name()))
                }
            })
            .collect();
        if !self.names.is_empty() && self.backends.is_empty() && self.algorithms.is_empty() {
            chosen.clear();
        }
        for n in &self.names {
            let d = encbench_registry::lookup(n).map_err(|e| invalid_err!("--algorithm: {e}"))?;
            if !chosen.iter().any(|c| std::ptr::eq(*c, d)) {
                chosen.push(d);
            }
        }
        if chosen.is_empty() {
            invalid!(
                "no backend and algorithm left after --backend/--algorithms filters: see --list-backends for what is compiled in"
            );
        }
        chosen.sort_by(|a, b| (a.backend, a.algorithm).cmp(&(b.backend, b.algorithm)));
        Ok(chosen)
    }
}

/// The variant grid, from the command line.
#[derive(Clone, Debug)]
pub struct Grid {
    /// Operations (open, seal).
    pub operations: Vec<Operation>,
    /// Key modes.
    pub key_modes: Vec<KeyMode>,
    /// Paths (envelope, bare).
    pub paths: Vec<PathKind>,
    /// Result-set batch sizes, rows.
    pub batches: Vec<usize>,
    /// Thread counts.
    pub threads: Vec<usize>,
}

impl Grid {
    /// The variants to run, in order.
    ///
    /// Every combination of operation, key mode and path at one value at a time
    /// on one thread; then, for the proxy's path only (open, key reused, envelope),
    /// each other batch size and each other thread count.
    pub fn variants(&self) -> Vec<Variant> {
        let mut out = Vec::new();
        let base = |operation, key_mode, path| Variant {
            operation,
            key_mode,
            path,
            batch_rows: 1,
            threads: 1,
        };
        for &op in &self.operations {
            for &km in &self.key_modes {
                for &p in &self.paths {
                    out.push(base(op, km, p));
                }
            }
        }
        let proxy = base(Operation::Open, KeyMode::Reused, PathKind::Envelope);
        for &b in self.batches.iter().filter(|b| **b != 1) {
            out.push(Variant {
                batch_rows: b,
                ..proxy
            });
        }
        for &t in self.threads.iter().filter(|t| **t != 1) {
            out.push(Variant {
                threads: t,
                ..proxy
            });
        }
        // The model needs the proxy's open (and seal) at one thread, one value.
        for v in [
            proxy,
            base(Operation::Seal, KeyMode::Reused, PathKind::Envelope),
        ] {
            if !out.contains(&v)
                && (v.operation == Operation::Open || self.operations.contains(&Operation::Seal))
            {
                out.push(v);
            }
        }
        let mut seen = Vec::new();
        out.retain(|v| {
            let new = !seen.contains(v);
            seen.push(*v);
            new
        });
        out
    }
}

/// Everything a run needs, validated.
#[derive(Debug)]
pub struct Config {
    /// Backends and algorithms, in registry order.
    pub descriptors: Vec<&'static Descriptor>,
    /// The row shape.
    pub shape: Shape,
    /// What to measure per backend and column.
    pub variants: Vec<Variant>,
    /// Warm-up, measurement time and corpus size per point.
    pub timing: Timing,
    /// Times the whole grid is repeated, interleaved and rotated (observations
    /// pooled for the results, paired per round for the comparisons).
    pub rounds: usize,
    /// `--baseline BACKEND`: the backend the others are compared with (`None`:
    /// the first of `descriptors`, see [`Config::baseline_backend`]).
    pub baseline: Option<String>,
    /// `--control`: every baseline point ([`crate::comparison::is_baseline`])
    /// runs twice per round, the second run (A') half a round after the first,
    /// for the A/A noise floor. Needs 2 or more rounds to give a floor.
    pub control: bool,
    /// Workload mixes of the capacity table.
    pub mixes: Vec<Mix>,
    /// QPS the capacity table sizes the proxy for.
    pub target_qps: f64,
    /// Runs read from `--oltp-result` files.
    pub oltp: OltpRuns,
}

impl Config {
    /// A proxy's measurement, as a library caller wants it without a command
    /// line: `descriptors` on `shape`, open and seal on the envelope path with
    /// the key set up once, one value at a time on one thread (the variants the
    /// capacity model reads), one round, no control, the capacity table of
    /// `mixes` sized for the seed report's QPS ([`SEED_TARGET_QPS`]), no
    /// `--oltp-result` runs. The same [`Config`] as `column-bench --algorithm
    /// ... --columns ... --operations open,seal --key-modes reused --paths
    /// envelope --batches 1 --threads 1 --workloads none --mix ...` with
    /// `timing`'s `--warmup-ms`, `--measure-ms` and `--corpus-rows`.
    ///
    /// # Errors
    /// [`Config::check`]: a mix names a column not in `shape`.
    ///
    /// [`SEED_TARGET_QPS`]: crate::capacity::SEED_TARGET_QPS
    pub fn one_value_proxy(
        descriptors: Vec<&'static Descriptor>,
        shape: Shape,
        mixes: Vec<Mix>,
        timing: Timing,
    ) -> Result<Config> {
        let grid = Grid {
            operations: vec![Operation::Open, Operation::Seal],
            key_modes: vec![KeyMode::Reused],
            paths: vec![PathKind::Envelope],
            batches: vec![1],
            threads: vec![1],
        };
        let cfg = Config {
            descriptors,
            shape,
            variants: grid.variants(),
            timing,
            rounds: 1,
            baseline: None,
            control: false,
            mixes,
            target_qps: crate::capacity::SEED_TARGET_QPS,
            oltp: OltpRuns::default(),
        };
        cfg.check()?;
        Ok(cfg)
    }

    /// Measurement points in the whole run (for progress and the time estimate).
    pub fn points(&self) -> usize {
        let mut per_round = self.variants.len() * self.descriptors.len();
        if self.runs_control() {
            let base = self.baseline_backend();
            per_round += (0..self.descriptors.len())
                .flat_map(|di| (0..self.variants.len()).map(move |vi| (di, vi)))
                .filter(|&(di, vi)| {
                    crate::comparison::is_baseline(&self.descriptors, &self.variants, base, di, vi)
                })
                .count();
        }
        per_round * self.shape.columns.len() * self.rounds
    }

    /// Whether the A' runs of `--control` are measured: with `--control` and
    /// 2 or more rounds (one round gives no floor, so it is not run).
    pub fn runs_control(&self) -> bool {
        self.control && self.rounds > 1
    }

    /// Estimated wall time, s.
    pub fn estimated_seconds(&self) -> f64 {
        self.points() as f64 * (self.timing.warmup_ms + self.timing.measure_ms) as f64 / 1000.0
    }

    /// The backend every other backend is compared with, per algorithm:
    /// `--baseline`, else the first measured backend (descriptors are in name
    /// order, so `aws-lc-rs` when it is measured).
    pub fn baseline_backend(&self) -> Option<&str> {
        let first = self.descriptors.first().map(|d| d.backend);
        match &self.baseline {
            Some(b) => self
                .descriptors
                .iter()
                .find(|d| d.backend.eq_ignore_ascii_case(b))
                .map(|d| d.backend),
            None => first,
        }
    }

    /// Checks what cannot be checked field by field: every mix's columns are in
    /// the shape, and a seal is measured when a mix seals.
    ///
    /// # Errors
    /// The message names the workload or column and the fix.
    pub fn check(&self) -> Result<()> {
        if let Some(b) = &self.baseline {
            if !self
                .descriptors
                .iter()
                .any(|d| d.backend.eq_ignore_ascii_case(b))
            {
                let mut measured: Vec<&str> = self.descriptors.iter().map(|d| d.backend).collect();
                measured.dedup();
                invalid!(
                    "--baseline {b:?} is not a measured backend: choose from {} or add it to --backend",
                    measured.join(", ")
                );
            }
        }
        let seals = self
            .variants
            .iter()
            .any(|v| v.operation == Operation::Seal && v.key_mode == KeyMode::Reused);
        for m in &self.mixes {
            for c in m.columns() {
                if self.shape.column(c).is_none() {
                    let have: Vec<&str> =
                        self.shape.columns.iter().map(|c| c.name.as_str()).collect();
                    invalid!(
                        "workload {} needs column {c:?}, but the shape has only {}: add {c}:BYTES to --columns or drop the workload from --workloads",
                        m.name,
                        have.join(", ")
                    );
                }
            }
            if m.seals_any() && !seals {
                invalid!(
                    "workload {} seals values, but seal is not measured: add seal to --operations",
                    m.name
                );
            }
        }
        Ok(())
    }
}
