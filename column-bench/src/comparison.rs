//! The comparisons: ns per value of one point against another over the paired
//! rounds, with [`encbench_common::compare`]'s method (median of the per-round
//! ratios B_r / A_r, order-statistic interval, verdict).
//!
//! Two kinds, each at every grid point (column, operation, key mode, batch,
//! threads) the run measured both sides of:
//!
//! - [`Kind::EnvelopeVsBare`]: per backend and algorithm, the envelope path (B)
//!   against the bare AEAD call (A) on the same values: the envelope's own cost.
//! - [`Kind::BetweenBackends`]: per algorithm, path and point, each backend (B)
//!   against the baseline backend (A): `--baseline BACKEND`, by default the first
//!   measured backend in name order (`aws-lc-rs` when it is compiled in).
//!
//! A round's figure of a point is the median ns per value of that round's
//! samples ([`RoundFigures`]); rounds pair by index, never across rounds.
//!
//! With `--control` every baseline point (see [`is_baseline`]) runs a second
//! time in each round, half a round after its first run (A'); [`Kind::NoiseFloor`]
//! sets A' against A ([`compare::noise_floor`]), one floor per baseline point,
//! and a comparison whose interval overlaps its baseline's floor gets the
//! verdict `within noise floor`.

use std::collections::HashMap;

use encbench_common::compare::{self, Comparison};
use encbench_registry::Descriptor;
use serde::Serialize;

use crate::measure::{KeyMode, Operation, PathKind, Variant};

/// The metric name of every comparison (ns per value: lower is cheaper).
pub const METRIC: &str = "ns_per_value";

/// What a comparison sets against what.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The envelope path (variant) against the bare AEAD call (baseline), one
    /// backend and algorithm.
    EnvelopeVsBare,
    /// A backend (variant) against the baseline backend, one algorithm and path.
    BetweenBackends,
    /// A baseline point's second run of each round (A', `--control`) against
    /// its first (A): the noise floor of the comparisons that use it.
    NoiseFloor,
}

/// The figures of a run: per point and round, the first run's figure
/// (`figures`) and, with `--control`, a baseline point's second run's
/// (`control`, A'; empty without `--control`).
#[derive(Clone, Debug, Default)]
pub struct Rounds {
    /// Every point's figure per round (A, and B of the comparisons).
    pub figures: RoundFigures,
    /// Baseline points' second-run figure per round (A').
    pub control: RoundFigures,
}

/// Per point, its figure in each round: median ns per value of the round's
/// samples, in round order. Keyed by (descriptor index, column index, variant
/// index) into the run's `Config` lists.
pub type RoundFigures = HashMap<(usize, usize, usize), Vec<f64>>;

/// One comparison at one grid point: an entry of the JSON's `comparisons`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PointComparison {
    /// `envelope_vs_bare`, `between_backends` or (in `noise_floor`) `noise_floor`.
    pub kind: Kind,
    /// Column name.
    pub column: String,
    /// `open` or `seal`.
    pub operation: Operation,
    /// `reused` or `per_value`.
    pub key_mode: KeyMode,
    /// Values per timed unit (result-set rows).
    pub batch_rows: usize,
    /// Threads running at once.
    pub threads: usize,
    /// `metric` (`ns_per_value`), `baseline` and `variant` (labels
    /// `BACKEND:ALGORITHM PATH`, e.g. `ring:aes-256-gcm bare`), `rounds`,
    /// `baseline_median` and `variant_median` (ns per value, medians of the
    /// round figures), `median_change_pct`, `ci95_low_pct`, `ci95_high_pct`
    /// and `confidence_pct` (percent; the interval fields `null` with 1
    /// round), `verdict` (`higher` = costlier, `lower` = cheaper, `within
    /// noise floor` when the interval overlaps the baseline's A/A interval).
    /// A noise floor's `variant` is its `baseline` + ` (A/A control)`.
    #[serde(flatten)]
    pub comparison: Comparison,
}

impl PointComparison {
    /// Whether this is a point of the text summary: key reused, one value at a
    /// time, one thread.
    pub fn is_summary_point(&self) -> bool {
        self.key_mode == KeyMode::Reused && self.batch_rows == 1 && self.threads == 1
    }

    /// The median of the paired ratios B_r / A_r (`1.08` = 8% more ns per value).
    pub fn median_ratio(&self) -> f64 {
        1.0 + self.comparison.median_change_pct / 100.0
    }
}

/// `BACKEND:ALGORITHM PATH`.
fn label(d: &Descriptor, path: PathKind) -> String {
    format!("{} {}", d.name(), path.name())
}

/// Whether point (`di`, `vi`) is the baseline (A) of some comparison: a bare
/// variant whose envelope twin is measured, or a variant of the baseline
/// backend when another backend of the same algorithm is measured. These are
/// the points `--control` runs twice per round.
pub fn is_baseline(
    descriptors: &[&'static Descriptor],
    variants: &[Variant],
    baseline_backend: Option<&str>,
    di: usize,
    vi: usize,
) -> bool {
    let (d, v) = (descriptors[di], variants[vi]);
    let envelope = Variant {
        path: PathKind::Envelope,
        ..v
    };
    let bare_of_envelope = v.path == PathKind::Bare && variants.contains(&envelope);
    let baseline_backend = baseline_backend == Some(d.backend)
        && descriptors
            .iter()
            .any(|x| x.backend != d.backend && x.algorithm == d.algorithm);
    bare_of_envelope || baseline_backend
}

/// The comparisons and noise floors of a run (`comparisons` and
/// `noise_floor` of the JSON).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Compared {
    /// Envelope vs bare and backend vs baseline backend.
    pub comparisons: Vec<PointComparison>,
    /// Per baseline point with `--control` figures, A' against A
    /// ([`Kind::NoiseFloor`]); empty without `--control` or with one round.
    pub noise_floor: Vec<PointComparison>,
}

/// Every comparison the measured grid allows (see the module docs), in the
/// order descriptors x columns x variants, and every noise floor the
/// `--control` figures allow. `baseline_backend`: the backend the others are
/// compared with; `None` or a backend with no descriptor of an algorithm gives
/// no between-backend entries for it.
pub fn comparisons(
    descriptors: &[&'static Descriptor],
    columns: &[String],
    variants: &[Variant],
    baseline_backend: Option<&str>,
    rounds: &Rounds,
) -> Compared {
    let figures = &rounds.figures;
    let pairs = |a: &[f64], b: &[f64]| -> Vec<(f64, f64)> {
        a.iter().copied().zip(b.iter().copied()).collect()
    };
    let entry = |kind, col: &str, v: &Variant, c: Comparison| PointComparison {
        kind,
        column: col.to_string(),
        operation: v.operation,
        key_mode: v.key_mode,
        batch_rows: v.batch_rows,
        threads: v.threads,
        comparison: c,
    };
    // The floor of baseline point (di, ci, vi): A' against A, round by round.
    let mut floors: HashMap<(usize, usize, usize), Comparison> = HashMap::new();
    let mut noise_floor = Vec::new();
    for (di, d) in descriptors.iter().enumerate() {
        for (ci, col) in columns.iter().enumerate() {
            for (vi, v) in variants.iter().enumerate() {
                let key = (di, ci, vi);
                let (Some(a), Some(a2)) = (figures.get(&key), rounds.control.get(&key)) else {
                    continue;
                };
                if let Some(c) = compare::noise_floor(METRIC, &label(d, v.path), &pairs(a, a2)) {
                    floors.insert(key, c.clone());
                    noise_floor.push(entry(Kind::NoiseFloor, col, v, c));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (di, d) in descriptors.iter().enumerate() {
        for (ci, col) in columns.iter().enumerate() {
            for (vi, v) in variants.iter().enumerate() {
                let Some(b) = figures.get(&(di, ci, vi)) else {
                    continue;
                };
                // Envelope against bare at the same point.
                if v.path == PathKind::Envelope {
                    let bare = Variant {
                        path: PathKind::Bare,
                        ..*v
                    };
                    if let Some((bi, a)) = variants
                        .iter()
                        .position(|x| *x == bare)
                        .and_then(|bi| figures.get(&(di, ci, bi)).map(|a| (bi, a)))
                    {
                        if let Some(c) = compare::compare(
                            METRIC,
                            &label(d, PathKind::Bare),
                            &label(d, PathKind::Envelope),
                            &pairs(a, b),
                            floors.get(&(di, ci, bi)),
                        ) {
                            out.push(entry(Kind::EnvelopeVsBare, col, v, c));
                        }
                    }
                }
                // This backend against the baseline backend, same algorithm.
                let Some(base) = baseline_backend.filter(|base| *base != d.backend) else {
                    continue;
                };
                let Some(bdi) = descriptors
                    .iter()
                    .position(|x| x.backend == base && x.algorithm == d.algorithm)
                else {
                    continue;
                };
                if let Some(a) = figures.get(&(bdi, ci, vi)) {
                    if let Some(c) = compare::compare(
                        METRIC,
                        &label(descriptors[bdi], v.path),
                        &label(d, v.path),
                        &pairs(a, b),
                        floors.get(&(bdi, ci, vi)),
                    ) {
                        out.push(entry(Kind::BetweenBackends, col, v, c));
                    }
                }
            }
        }
    }
    Compared {
        comparisons: out,
        noise_floor,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use encbench_common::compare::Verdict;
    use encbench_registry::lookup;

    fn variant(operation: Operation, path: PathKind) -> Variant {
        Variant {
            operation,
            key_mode: KeyMode::Reused,
            path,
            batch_rows: 1,
            threads: 1,
        }
    }

    fn grid() -> (Vec<&'static Descriptor>, Vec<String>, Vec<Variant>) {
        let ds = ["ring:aes-256-gcm", "rustcrypto:aes-256-gcm"]
            .map(|n| lookup(n).expect("compiled in"))
            .to_vec();
        let vs = vec![
            variant(Operation::Open, PathKind::Envelope),
            variant(Operation::Open, PathKind::Bare),
        ];
        (ds, vec!["c".to_string()], vs)
    }

    #[test]
    fn envelope_pairs_with_bare_and_backends_with_the_baseline_round_by_round() {
        let (ds, cols, vs) = grid();
        let mut f = RoundFigures::new();
        // ring: envelope 10% above bare in every round although the rounds drift.
        f.insert((0, 0, 0), vec![110.0, 220.0, 330.0, 440.0, 550.0]);
        f.insert((0, 0, 1), vec![100.0, 200.0, 300.0, 400.0, 500.0]);
        // rustcrypto: envelope 2x ring's envelope, bare equal to ring's.
        f.insert((1, 0, 0), vec![220.0, 440.0, 660.0, 880.0, 1100.0]);
        f.insert((1, 0, 1), vec![100.0, 200.0, 300.0, 400.0, 500.0]);
        let rounds = Rounds {
            figures: f,
            control: RoundFigures::new(),
        };
        let all = comparisons(&ds, &cols, &vs, Some("ring"), &rounds);
        assert!(all.noise_floor.is_empty(), "no --control, no floor");
        let cs = all.comparisons;
        let find = |kind, variant: &str| {
            cs.iter()
                .find(|c| c.kind == kind && c.comparison.variant == variant)
                .unwrap_or_else(|| panic!("no {kind:?} {variant}: {cs:?}"))
        };
        let e = find(Kind::EnvelopeVsBare, "ring:aes-256-gcm envelope");
        assert_eq!(e.comparison.baseline, "ring:aes-256-gcm bare");
        assert_eq!(e.comparison.rounds, 5);
        assert!((e.comparison.median_change_pct - 10.0).abs() < 1e-9);
        assert!((e.median_ratio() - 1.1).abs() < 1e-12);
        assert_eq!(e.comparison.verdict, Verdict::Higher);
        assert_eq!(e.comparison.confidence_pct, Some(93.75));
        let b = find(Kind::BetweenBackends, "rustcrypto:aes-256-gcm envelope");
        assert_eq!(b.comparison.baseline, "ring:aes-256-gcm envelope");
        assert!((b.comparison.median_change_pct - 100.0).abs() < 1e-9);
        let bare = find(Kind::BetweenBackends, "rustcrypto:aes-256-gcm bare");
        assert_eq!(bare.comparison.verdict, Verdict::NoDifference);
        // The baseline backend is never compared with itself; 2 + 2 entries.
        assert_eq!(cs.len(), 4, "{cs:?}");
        assert!(cs.iter().all(|c| c.is_summary_point() && c.column == "c"));
    }

    #[test]
    fn one_round_has_no_interval() {
        let (ds, cols, vs) = grid();
        let mut f = RoundFigures::new();
        for k in [(0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 0, 1)] {
            f.insert(k, vec![100.0 + k.0 as f64]);
        }
        let cs = comparisons(
            &ds,
            &cols,
            &vs,
            None,
            &Rounds {
                figures: f,
                control: RoundFigures::new(),
            },
        )
        .comparisons;
        assert_eq!(cs.len(), 2, "no baseline backend: envelope vs bare only");
        for c in &cs {
            assert_eq!(c.comparison.verdict, Verdict::OneRound);
            assert_eq!(c.comparison.ci95_low_pct, None);
            assert_eq!(c.comparison.ci95_high_pct, None);
            assert_eq!(c.comparison.change_text(), "1 round");
        }
    }

    #[test]
    fn baselines_are_the_bare_twins_and_the_baseline_backend() {
        let (ds, _, vs) = grid();
        // vs: 0 = open envelope, 1 = open bare; ds: 0 = ring, 1 = rustcrypto.
        let base = |b, di, vi| is_baseline(&ds, &vs, b, di, vi);
        assert!(base(None, 0, 1) && base(None, 1, 1), "bare twins");
        assert!(!base(None, 0, 0) && !base(None, 1, 0));
        assert!(base(Some("ring"), 0, 0), "the baseline backend's envelope");
        assert!(!base(Some("ring"), 1, 0));
        // A lone backend is no baseline backend; a bare point without its
        // envelope twin is no baseline either.
        assert!(!is_baseline(&ds[..1], &vs, Some("ring"), 0, 0));
        assert!(!is_baseline(&ds, &vs[1..], None, 0, 0));
    }

    #[test]
    fn the_floor_of_the_baseline_point_turns_overlapping_effects_into_noise() {
        let (ds, cols, vs) = grid();
        let mut rounds = Rounds::default();
        let (f, c) = (&mut rounds.figures, &mut rounds.control);
        // ring: envelope 5% above bare in every round; A' of bare -8%..+8%.
        f.insert((0, 0, 0), vec![105.0, 210.0, 315.0, 420.0, 525.0]);
        f.insert((0, 0, 1), vec![100.0, 200.0, 300.0, 400.0, 500.0]);
        c.insert((0, 0, 1), vec![92.0, 216.0, 300.0, 404.0, 495.0]);
        // rustcrypto: envelope 20% above bare, its own floor -1%..+1%.
        f.insert((1, 0, 0), vec![120.0, 240.0, 360.0, 480.0, 600.0]);
        f.insert((1, 0, 1), vec![100.0, 200.0, 300.0, 400.0, 500.0]);
        c.insert((1, 0, 1), vec![99.0, 202.0, 300.0, 400.0, 505.0]);
        let all = comparisons(&ds, &cols, &vs, None, &rounds);
        assert_eq!(all.noise_floor.len(), 2, "{:?}", all.noise_floor);
        let f = &all.noise_floor[0];
        assert_eq!(f.kind, Kind::NoiseFloor);
        assert_eq!(f.comparison.baseline, "ring:aes-256-gcm bare");
        assert_eq!(f.comparison.variant, "ring:aes-256-gcm bare (A/A control)");
        assert!((f.comparison.ci95_low_pct.expect("low") + 8.0).abs() < 1e-9);
        assert!((f.comparison.ci95_high_pct.expect("high") - 8.0).abs() < 1e-9);
        let verdict = |variant: &str| {
            all.comparisons
                .iter()
                .find(|c| c.comparison.variant == variant)
                .map(|c| c.comparison.verdict)
        };
        assert_eq!(
            verdict("ring:aes-256-gcm envelope"),
            Some(Verdict::WithinNoiseFloor)
        );
        assert_eq!(
            verdict("rustcrypto:aes-256-gcm envelope"),
            Some(Verdict::Higher)
        );
    }
}
