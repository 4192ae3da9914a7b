//! The proxy's client-side ORDER BY / DISTINCT, timed: once values are
//! encrypted with random nonces the server can no longer order or
//! deduplicate them, so the proxy sorts (and for DISTINCT deduplicates) the
//! opened plaintexts of every such result set. This is `oltp`'s code for it
//! (`oltp/src/workload/reads.rs`, `Session::range`: `sort_unstable`, then
//! `dedup` for DISTINCT, on the `Vec<Vec<u8>>` of the range's plaintext `c`
//! values), run on the same plaintexts the crypto corpus seals.
//!
//! How it is timed: a sample copies `rows` plaintexts (consecutive, wrapping
//! around the corpus, a different start each sample) into a reused vector
//! (not timed), then times the sort (and dedup) with [`Instant`]; samples
//! repeat for the measurement time after the warm-up, and the median is
//! kept. A sample is one result set (about 2 µs for 100 values of 119 bytes
//! on the machine of the README), short enough that the median skips
//! preempted samples.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::measure::{Observations, Timing};

/// Times sorting (and, with `dedup`, deduplicating) result sets of `rows`
/// values drawn from `plaintexts`. Returns ns per result set, one observation
/// per sample (at least 5), in [`Observations::ns_per_value`] (here: per set);
/// an empty `plaintexts` or `rows == 0` gives no observation.
pub fn measure(plaintexts: &[Vec<u8>], rows: usize, dedup: bool, timing: &Timing) -> Observations {
    let mut obs = Observations::default();
    if plaintexts.is_empty() || rows == 0 {
        return obs;
    }
    let mut set: Vec<Vec<u8>> = Vec::with_capacity(rows);
    let mut start = 0;
    let mut fill = |set: &mut Vec<Vec<u8>>| {
        set.clear();
        for i in 0..rows {
            set.push(plaintexts[(start + i) % plaintexts.len()].clone());
        }
        start = (start + rows) % plaintexts.len();
    };
    let one = |set: &mut Vec<Vec<u8>>| {
        let t = Instant::now();
        set.sort_unstable();
        if dedup {
            set.dedup();
        }
        black_box(&*set);
        t.elapsed()
    };
    let warmup = Duration::from_millis(timing.warmup_ms);
    let t0 = Instant::now();
    while t0.elapsed() < warmup {
        fill(&mut set);
        one(&mut set);
    }
    let span = Duration::from_millis(timing.measure_ms);
    let t1 = Instant::now();
    while t1.elapsed() < span || obs.ns_per_value.len() < 5 {
        fill(&mut set);
        obs.ns_per_value.push(one(&mut set).as_nanos() as f64);
        obs.values += rows as u64;
    }
    obs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_and_counts_samples() {
        let values: Vec<Vec<u8>> = (0..50u8).rev().map(|i| vec![i; 3]).collect();
        let timing = Timing {
            warmup_ms: 0,
            measure_ms: 0,
            corpus_rows: 50,
        };
        let o = measure(&values, 10, true, &timing);
        assert_eq!(o.ns_per_value.len(), 5);
        assert_eq!(o.values, 50);
        assert!(measure(&[], 10, false, &timing).ns_per_value.is_empty());
        assert!(measure(&values, 0, false, &timing).ns_per_value.is_empty());
    }
}
