//! The round schedule every tool measures by: each variant once per round, in
//! an order that rotates from round to round, and with the A/A control
//! (`--control`) each baseline a second time, half a round after its first run
//! (A B A' C for three variants), so the A/A pair sees the drift the A/B pairs
//! see. The rotation keeps A and A' apart by the same distance while both visit
//! every position.

/// The runs of one round in `order`: every item once, as `(item, false)`, and
/// after each item the second run `(a, true)` of the baseline `a` that stands
/// half a round (`order.len() / 2` places, at least 1) before it, wrapping
/// around, for every `a` that `is_baseline` accepts. For `[A, B, C]` with
/// baseline `A`: `A B A' C`; with one item: `A A'`.
pub fn with_controls<K: Copy>(order: &[K], is_baseline: impl Fn(&K) -> bool) -> Vec<(K, bool)> {
    let n = order.len();
    let half = (n / 2).max(1);
    let mut out = Vec::with_capacity(2 * n);
    for i in 0..n {
        out.push((order[i], false));
        let a = order[(i + n - half % n) % n];
        if is_baseline(&a) {
            out.push((a, true));
        }
    }
    out
}

/// `slots` rotated left by `round` places (modulo their number): round `r`
/// (0-based) of a schedule whose order rotates by one per round.
pub fn rotated<T: Copy>(slots: &[T], round: usize) -> Vec<T> {
    let mut out = slots.to_vec();
    if !out.is_empty() {
        let len = out.len();
        out.rotate_left(round % len);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{rotated, with_controls};

    #[test]
    fn the_second_run_of_a_baseline_sits_half_a_round_later() {
        let a = |k: &char| *k == 'A';
        assert_eq!(with_controls(&['A'], a), [('A', false), ('A', true)]);
        assert_eq!(
            with_controls(&['A', 'B'], a),
            [('A', false), ('B', false), ('A', true)]
        );
        assert_eq!(
            with_controls(&['A', 'B', 'C'], a),
            [('A', false), ('B', false), ('A', true), ('C', false)]
        );
        assert_eq!(
            with_controls(&['A', 'B', 'C', 'D'], a),
            [
                ('A', false),
                ('B', false),
                ('C', false),
                ('A', true),
                ('D', false)
            ]
        );
        assert_eq!(with_controls(&['A', 'B'], |_: &char| false).len(), 2);
    }

    #[test]
    fn a_round_rotates_by_one_place_per_round() {
        assert_eq!(rotated(&[1, 2, 3], 0), [1, 2, 3]);
        assert_eq!(rotated(&[1, 2, 3], 1), [2, 3, 1]);
        assert_eq!(rotated(&[1, 2, 3], 4), [2, 3, 1]);
        assert!(rotated::<u8>(&[], 3).is_empty());
    }
}
