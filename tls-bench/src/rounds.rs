//! Interleaved rounds (`--repeat`): the order the variants of a section run in
//! each round, and the median, min and max of one figure over the rounds.
//!
//! Every measuring section (handshake, latency, bulk) runs each of its
//! variants (plain TCP and every TLS transport, version, suite...) once per
//! round, in an order rotated by one per round (A B C, B C A, C A B, as oltp's
//! `--repeat` does), so a change in background load hits every variant
//! alike, and round r of the baseline pairs with round r of each variant in
//! [`crate::comparison`].

use std::future::Future;

use serde::Serialize;

use crate::error::Result;

/// The order in which the `variants` of a section run in round `round`
/// (0-based): `0, 1, .., n-1` rotated left by `round % n`.
pub fn order(variants: usize, round: usize) -> Vec<usize> {
    (0..variants).map(|k| (k + round) % variants).collect()
}

/// The order of round `round` (0-based) with `--control`: every variant
/// once, as (index, false), and every index in `controls` (the section's
/// baselines) a second time, as (index, true): the A' run of the A/A noise
/// floor. A' sits half a round after its A (`n / 2` places later, wrapping
/// around, as oltp's `--control`: A B A' C for three variants), and the
/// whole round rotates left by one per round, so A and A' keep their
/// distance while both visit every position. Without controls this is
/// [`order`].
pub fn schedule(variants: usize, controls: &[usize], round: usize) -> Vec<(usize, bool)> {
    let order: Vec<usize> = (0..variants).collect();
    let slots = encbench_common::rounds::with_controls(&order, |i| controls.contains(i));
    encbench_common::rounds::rotated(&slots, round)
}

/// The rows of one section: `repeat` rounds of its `variants` variants in the
/// order of [`schedule`] (each index in `controls` a second time per round),
/// `measure(variant, control, round)` measuring one run, then `reduce`
/// making one row of each variant's rounds (in round order, e.g. the median
/// round). Returns the variants' rows in variant order and the rows of their
/// A/A control runs, for the variants that have them.
///
/// # Errors
/// The first error of `measure` or `reduce`.
pub async fn measure_rounds<R, F, Fut>(
    (variants, controls): (usize, &[usize]),
    repeat: usize,
    mut measure: F,
    reduce: impl Fn(Vec<R>) -> Result<R>,
) -> Result<(Vec<R>, Vec<R>)>
where
    F: FnMut(usize, bool, usize) -> Fut,
    Fut: Future<Output = Result<R>>,
{
    let mut rounds: Vec<Vec<R>> = (0..variants).map(|_| Vec::new()).collect();
    let mut again: Vec<Vec<R>> = (0..variants).map(|_| Vec::new()).collect();
    for round in 0..repeat {
        for (i, control) in schedule(variants, controls, round) {
            let row = measure(i, control, round).await?;
            let into = if control { &mut again } else { &mut rounds };
            into[i].push(row);
        }
    }
    let rows = rounds.into_iter().map(&reduce).collect::<Result<_>>()?;
    let control_rows = again
        .into_iter()
        .filter(|r| !r.is_empty())
        .map(&reduce)
        .collect::<Result<_>>()?;
    Ok((rows, control_rows))
}

/// Median, smallest and largest of one figure over the rounds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Spread {
    /// Median (the mean of the two middle values for an even count).
    pub median: f64,
    /// Smallest.
    pub min: f64,
    /// Largest.
    pub max: f64,
}

impl Spread {
    /// The spread of `xs`; `None` when empty.
    pub fn of(xs: &[f64]) -> Option<Spread> {
        let mut xs = xs.to_vec();
        xs.sort_by(f64::total_cmp);
        let n = xs.len();
        let (&min, &max) = (xs.first()?, xs.last()?);
        let median = if n % 2 == 1 {
            xs[n / 2]
        } else {
            (xs[n / 2 - 1] + xs[n / 2]) / 2.0
        };
        Some(Spread { median, min, max })
    }

    /// `median (min..max)` with `decimals` decimals, or the figure alone for one round.
    pub fn text(&self, decimals: usize) -> String {
        if self.min == self.max {
            format!("{:.decimals$}", self.median)
        } else {
            format!(
                "{:.d$} ({:.d$}..{:.d$})",
                self.median,
                self.min,
                self.max,
                d = decimals
            )
        }
    }
}

/// The index of the round whose `key` is the median (the upper middle one
/// for an even count): the round whose other figures a row reports.
/// `None` for no rounds.
pub fn median_index<R>(rounds: &[R], key: impl Fn(&R) -> f64) -> Option<usize> {
    let mut idx: Vec<usize> = (0..rounds.len()).collect();
    idx.sort_by(|&a, &b| key(&rounds[a]).total_cmp(&key(&rounds[b])));
    idx.get(rounds.len() / 2).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_round_rotates_the_order_by_one() {
        assert_eq!(order(3, 0), [0, 1, 2]);
        assert_eq!(order(3, 1), [1, 2, 0]);
        assert_eq!(order(3, 2), [2, 0, 1]);
        assert_eq!(order(3, 3), [0, 1, 2]);
        assert_eq!(order(1, 4), [0]);
        assert!(order(0, 2).is_empty());
        // Over n rounds every variant runs once in every position.
        for pos in 0..4 {
            let mut seen: Vec<usize> = (0..4).map(|r| order(4, r)[pos]).collect();
            seen.sort_unstable();
            assert_eq!(seen, [0, 1, 2, 3]);
        }
    }

    #[test]
    fn the_control_run_sits_half_a_round_after_its_baseline() {
        let (a, b, c) = ((0, false), (1, false), (2, false));
        // Three variants, baseline 0: A B A' C, as oltp's --control.
        assert_eq!(schedule(3, &[0], 0), [a, b, (0, true), c]);
        assert_eq!(schedule(3, &[0], 1), [b, (0, true), c, a]);
        // A baseline that is not first: its A' still comes n/2 later, wrapping.
        assert_eq!(schedule(3, &[2], 0), [a, (2, true), b, c]);
        // Two baselines (handshakes: one per configuration of the first transport).
        assert_eq!(
            schedule(4, &[0, 1], 0),
            [a, b, c, (0, true), (3, false), (1, true)]
        );
        // No controls: the plain rotation.
        for r in 0..5 {
            let plain: Vec<(usize, bool)> = order(4, r).into_iter().map(|i| (i, false)).collect();
            assert_eq!(schedule(4, &[], r), plain);
        }
        // Every run once per round, A' exactly once per baseline.
        for r in 0..6 {
            let s = schedule(5, &[1, 3], r);
            assert_eq!(s.len(), 7);
            assert_eq!(s.iter().filter(|x| x.1).count(), 2);
            for i in 0..5 {
                assert_eq!(s.iter().filter(|x| **x == (i, false)).count(), 1);
            }
        }
        // One variant with a control: A A'.
        assert_eq!(schedule(1, &[0], 0), [a, (0, true)]);
    }

    #[test]
    fn every_variant_and_control_run_is_measured_and_reduced_in_round_order() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let mut runs = Vec::new();
        let (rows, controls) = rt
            .block_on(measure_rounds(
                (3, &[0]),
                2,
                |i, control, round| {
                    runs.push((i, control, round));
                    std::future::ready(Ok(vec![(i, control, round)]))
                },
                |rounds| Ok(rounds.concat()),
            ))
            .expect("rows");
        // Round 0: A B A' C; round 1 rotated by one: B A' C A.
        assert_eq!(
            runs,
            [
                (0, false, 0),
                (1, false, 0),
                (0, true, 0),
                (2, false, 0),
                (1, false, 1),
                (0, true, 1),
                (2, false, 1),
                (0, false, 1),
            ]
        );
        assert_eq!(
            rows,
            [
                vec![(0, false, 0), (0, false, 1)],
                vec![(1, false, 0), (1, false, 1)],
                vec![(2, false, 0), (2, false, 1)],
            ]
        );
        assert_eq!(controls, [vec![(0, true, 0), (0, true, 1)]]);
        // The first error stops the section.
        let failed = rt.block_on(measure_rounds(
            (2, &[]),
            1,
            |i, _, _| {
                std::future::ready(if i == 1 {
                    Err(crate::error::Error::Check("no".into()))
                } else {
                    Ok(i)
                })
            },
            |rounds| Ok(rounds[0]),
        ));
        assert!(failed.is_err());
    }

    #[test]
    fn spread_and_median_round() {
        let s = Spread::of(&[3.0, 1.0, 2.0]).expect("spread");
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
        assert_eq!(s.text(1), "2.0 (1.0..3.0)");
        let s = Spread::of(&[4.0, 1.0]).expect("spread");
        assert_eq!(s.median, 2.5);
        assert_eq!(Spread::of(&[7.0]).expect("spread").text(0), "7");
        assert_eq!(Spread::of(&[]), None);
        assert_eq!(median_index(&[5.0, 1.0, 3.0], |x| *x), Some(2));
        assert_eq!(median_index(&[4.0, 1.0], |x| *x), Some(0));
        assert_eq!(median_index::<f64>(&[], |x| *x), None);
    }
}
