//! sysbench 1.0's random numbers: id distributions and the `c`/`pad` value templates.
//!
//! Sources: sysbench 1.0.20 `src/sb_rand.c` (`sb_rand_uniform`, `sb_rand_gaussian`,
//! `sb_rand_special` with `--rand-spec-iter=12`, `--rand-spec-pct=1`,
//! `--rand-spec-res=75`) and `src/lua/oltp_common.lua` (value templates).

use rand::{Rng, RngCore, SeedableRng, rngs::SmallRng};

/// `--rand-spec-iter` default: summands of the gaussian part.
pub const RAND_SPEC_ITER: u64 = 12;
/// `--rand-spec-pct` default: percentage of the range the "special" values fall in.
pub const RAND_SPEC_PCT: u64 = 1;
/// `--rand-spec-res` default: percentage of draws that are "special" values.
pub const RAND_SPEC_RES: u64 = 75;
/// `--rand-pareto-h` default: the pareto distribution's shape parameter h.
pub const RAND_PARETO_H: f64 = 0.2;

/// Length of sysbench's `c` value: 10 groups of 11 digits joined by '-' (119 bytes).
pub const C_LEN: usize = 119;
/// Length of sysbench's `pad` value: 5 groups of 11 digits joined by '-' (59 bytes).
pub const PAD_LEN: usize = 59;

/// The id distribution (`--rand-type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RandType {
    /// Every id equally likely.
    Uniform,
    /// Mean of 12 uniform draws (sysbench's `gaussian`).
    Gaussian,
    /// sysbench 1.0's default: 75% of draws land in 1% of the range around its
    /// middle, the rest are `gaussian`.
    Special,
    /// sysbench's `pareto` with h = 0.2: `a + (b-a+1) * u^(ln h / ln(1-h))`,
    /// u uniform in [0, 1), so low ids are hot.
    Pareto,
}

/// A fast per-worker random number generator with sysbench's distributions.
#[derive(Debug)]
pub struct SbRng {
    rng: SmallRng,
    kind: RandType,
}

impl SbRng {
    /// A generator seeded from `seed` (deterministic: the same seed gives the same draws).
    pub fn seeded(seed: u64, kind: RandType) -> SbRng {
        SbRng {
            rng: SmallRng::seed_from_u64(seed),
            kind,
        }
    }

    /// A generator seeded from the operating system.
    pub fn from_os(kind: RandType) -> SbRng {
        SbRng {
            rng: SmallRng::from_os_rng(),
            kind,
        }
    }

    fn next(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Uniform integer in `a..=b`.
    pub fn uniform(&mut self, a: u32, b: u32) -> u32 {
        if a >= b {
            return a;
        }
        a + (self.next() % (u64::from(b - a) + 1)) as u32
    }

    fn gaussian(&mut self, a: u32, t: u64) -> u32 {
        let sum: u64 = (0..RAND_SPEC_ITER).map(|_| self.next() % t).sum();
        a + (sum / RAND_SPEC_ITER) as u32
    }

    /// An integer in `a..=b` with the configured distribution (sysbench's
    /// `sb_rand_default`).
    pub fn id(&mut self, a: u32, b: u32) -> u32 {
        if a >= b {
            return a;
        }
        let t = u64::from(b - a) + 1;
        match self.kind {
            RandType::Uniform => self.uniform(a, b),
            RandType::Gaussian => self.gaussian(a, t),
            RandType::Special => {
                let range_size = t * (100 / (100 - RAND_SPEC_RES));
                let res = self.next() % range_size;
                if res < t {
                    return self.gaussian(a, t);
                }
                let d = (t * RAND_SPEC_PCT / 100).max(1);
                let res = res % d + (t / 2 - t * RAND_SPEC_PCT / 200);
                a + res as u32
            }
            RandType::Pareto => {
                let power = RAND_PARETO_H.ln() / (1.0 - RAND_PARETO_H).ln();
                let u: f64 = self.rng.random();
                let off = (t as f64 * u.powf(power)) as u64;
                a + off.min(t - 1) as u32
            }
        }
    }

    /// A draw of the exponential distribution with mean 1 (inter-arrival times
    /// of `--rate`, as sysbench's open-loop event generator).
    pub fn exponential(&mut self) -> f64 {
        let u: f64 = self.rng.random();
        -(1.0 - u).ln()
    }

    /// Fills `out` with groups of 11 random decimal digits separated by '-'
    /// (sysbench's `###########-...` templates): pass [`C_LEN`] or [`PAD_LEN`] bytes.
    pub fn digits(&mut self, out: &mut [u8]) {
        for (i, b) in out.iter_mut().enumerate() {
            *b = if i % 12 == 11 {
                b'-'
            } else {
                b'0' + self.rng.random_range(0..10u8)
            };
        }
    }

    /// A fresh `c` value (119 bytes).
    pub fn c_value(&mut self) -> [u8; C_LEN] {
        let mut v = [0u8; C_LEN];
        self.digits(&mut v);
        v
    }

    /// A fresh `pad` value (59 bytes).
    pub fn pad_value(&mut self) -> [u8; PAD_LEN] {
        let mut v = [0u8; PAD_LEN];
        self.digits(&mut v);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_have_sysbench_shape() {
        let mut r = SbRng::seeded(1, RandType::Special);
        let c = r.c_value();
        let s = std::str::from_utf8(&c).unwrap_or_default();
        assert_eq!(s.split('-').count(), 10);
        assert!(
            s.split('-')
                .all(|g| g.len() == 11 && g.bytes().all(|b| b.is_ascii_digit()))
        );
        let pad = r.pad_value();
        let s = std::str::from_utf8(&pad).unwrap_or_default();
        assert_eq!(s.split('-').count(), 5);
        assert!(s.split('-').all(|g| g.len() == 11));
    }

    #[test]
    fn ids_stay_in_range_for_every_distribution() {
        for kind in [
            RandType::Uniform,
            RandType::Gaussian,
            RandType::Special,
            RandType::Pareto,
        ] {
            let mut r = SbRng::seeded(7, kind);
            for _ in 0..10_000 {
                let id = r.id(1, 1000);
                assert!((1..=1000).contains(&id), "{kind:?} gave {id}");
            }
            assert_eq!(r.id(5, 5), 5);
        }
    }

    #[test]
    fn pareto_makes_low_ids_hot() {
        let mut r = SbRng::seeded(5, RandType::Pareto);
        let n = 100_000;
        // u^7.21 < 0.2 when u < 0.8: 80% of draws fall in the lowest 20% of ids.
        let low = (0..n).filter(|_| r.id(1, 10_000) <= 2_000).count();
        let share = low as f64 / n as f64;
        assert!((0.78..0.82).contains(&share), "pareto share {share}");
    }

    #[test]
    fn special_concentrates_three_quarters_in_one_percent() {
        let mut r = SbRng::seeded(3, RandType::Special);
        let n = 100_000;
        // 1% of 1..=10000 around the middle: [4951, 5050].
        let hot = (0..n)
            .filter(|_| (4951..=5050).contains(&r.id(1, 10_000)))
            .count();
        let share = hot as f64 / n as f64;
        assert!((0.74..0.80).contains(&share), "special share {share}");
    }
}
