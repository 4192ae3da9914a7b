//! One comparison method for every encbench tool: is a variant (column
//! encryption, TLS, ...) faster or slower than the baseline, and by how much,
//! given that identical runs on a shared machine differ by 10-15% (at one
//! thread by up to 2x)?
//!
//! # Input
//!
//! R interleaved rounds; round r gives the baseline's figure A_r and the
//! variant's figure B_r, measured close together (the tools rotate the order
//! inside each round, so drift of the machine hits both). The rounds are
//! *paired*: only the ratio B_r / A_r of one round is used, never A of one
//! round with B of another.
//!
//! # Method: median of the paired ratios, sign-test interval
//!
//! - **Estimate**: the median of the R ratios B_r / A_r, printed as a change
//!   `(median - 1) x 100 %` (the mean of the two middle ratios when R is even).
//! - **Interval**: the distribution-free confidence interval of a median from
//!   order statistics (the interval that inverts the sign test; Conover,
//!   *Practical Nonparametric Statistics*, 3rd ed., section 3.2; Hollander &
//!   Wolfe, *Nonparametric Statistical Methods*, section 3.6). With the ratios
//!   sorted, x_(1) <= ... <= x_(R), the interval is [x_(k), x_(R+1-k)] and it
//!   covers the true median ratio with probability exactly
//!   `1 - 2 P(Binomial(R, 1/2) <= k - 1)`. We take the largest k whose
//!   coverage is at least 95%.
//! - **Assumptions**: the rounds are independent and the ratios come from one
//!   continuous distribution. Nothing about its shape: no normality, no
//!   symmetry (this machine's noise is skewed: a round that loses the CPU to
//!   another process is much slower, never much faster). The result is exact
//!   for every R, deterministic (no resampling, no seed), and depends on the
//!   order of the ratios only.
//! - **Why not a bootstrap**: a bootstrap of the median with 5 values can only
//!   return one of the 5 ratios and under-covers badly at small R. **Why not
//!   Hodges-Lehmann / Wilcoxon**: slightly narrower, but it needs a symmetric
//!   distribution of the log-ratios, which this noise is not.
//!
//! # Limits: small R cannot reach 95%
//!
//! With R rounds the widest interval, min..max of the ratios, covers with
//! probability `1 - 2^(1-R)`: R = 2: 50%, 3: 75%, 4: 87.5%, **5: 93.75%**,
//! 6: 96.875%. So 95% needs at least 6 rounds; below that the interval is
//! min..max at the confidence stated in [`Comparison::confidence_pct`] (the
//! tools print that figure, not "95%"). With 1 round there is no interval and
//! no % at all ([`Verdict::OneRound`]). The interval is about the median ratio
//! of *this* machine *now*; another machine or another hour may differ more.
//!
//! # Verdicts
//!
//! [`Verdict::Higher`] or [`Verdict::Lower`] when the interval excludes 0%;
//! [`Verdict::NoDifference`] when it contains 0%; [`Verdict::WithinNoiseFloor`]
//! when it excludes 0% but overlaps the *noise floor*: the same interval over
//! A'_r / A_r, where A' is a second run of the baseline in every round (an
//! A/A comparison, see [`noise_floor`]). An effect that a baseline also shows
//! against itself is not attributed to the variant. [`describe`] turns a
//! verdict into words for a metric (for a latency "higher" is "slower").

use serde::{Deserialize, Serialize};

/// The confidence the interval aims at (the largest k with at least this
/// coverage is used; see the module docs).
pub const TARGET_CONFIDENCE: f64 = 0.95;

/// Rounds needed before the interval reaches [`TARGET_CONFIDENCE`]:
/// min..max of 6 ratios covers 96.875%, of 5 only 93.75%.
pub const ROUNDS_FOR_95: usize = 6;

/// The least coverage an interval needs before a verdict is given in words
/// (faster, costlier, ...): 80%. Below it (min..max of 2 rounds covers 50%, of
/// 3 rounds 75%) the interval misses the true median ratio too often for a
/// claim, so the tools print the interval and say the verdict is not given
/// ([`Comparison::too_weak_for_a_verdict`]); the JSON's `verdict` stays what
/// the interval says, beside its `confidence_pct`.
pub const MIN_VERDICT_CONFIDENCE: f64 = 0.80;

/// What a comparison concludes, serialised as the strings of the JSON
/// contract: `"higher"`, `"lower"`, `"no difference detected"`,
/// `"within noise floor"`, `"1 round"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// The variant's figure is higher: the interval lies above 0% and clear of
    /// the noise floor.
    #[serde(rename = "higher")]
    Higher,
    /// The variant's figure is lower: the interval lies below 0% and clear of
    /// the noise floor.
    #[serde(rename = "lower")]
    Lower,
    /// The interval contains 0%.
    #[serde(rename = "no difference detected")]
    NoDifference,
    /// The interval excludes 0% but overlaps the noise floor's interval.
    #[serde(rename = "within noise floor")]
    WithinNoiseFloor,
    /// One round: no interval, no % (run `--repeat 5`).
    #[serde(rename = "1 round")]
    OneRound,
}

impl Verdict {
    /// The verdict as in the JSON (`"no difference detected"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Higher => "higher",
            Verdict::Lower => "lower",
            Verdict::NoDifference => "no difference detected",
            Verdict::WithinNoiseFloor => "within noise floor",
            Verdict::OneRound => "1 round",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which direction of a metric is the good one, for [`describe`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    /// Throughput (QPS, TPS, bytes per second): higher is faster.
    Higher,
    /// Latency (RT, p95): lower is faster.
    LowerLatency,
    /// A cost (CPU per query, bytes): lower is cheaper.
    LowerCost,
}

/// The verdict in words for a metric: `"faster"`, `"slower"`, `"costlier"`,
/// `"cheaper"`, or the verdict itself when it names no direction.
pub fn describe(verdict: Verdict, better: Better) -> &'static str {
    match (verdict, better) {
        (Verdict::Higher, Better::Higher) | (Verdict::Lower, Better::LowerLatency) => "faster",
        (Verdict::Lower, Better::Higher) | (Verdict::Higher, Better::LowerLatency) => "slower",
        (Verdict::Higher, Better::LowerCost) => "costlier",
        (Verdict::Lower, Better::LowerCost) => "cheaper",
        (v, _) => v.as_str(),
    }
}

/// One metric of a variant compared with the baseline over paired rounds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The metric's name, e.g. `qps`, `rt_ms` (the tool's JSON names).
    pub metric: String,
    /// The baseline's label, e.g. `none`.
    pub baseline: String,
    /// The variant's label, e.g. `rustcrypto:aes-256-gcm + TLS`.
    pub variant: String,
    /// Paired rounds used (rounds where the baseline's figure is positive and
    /// both are finite).
    pub rounds: usize,
    /// Median of the baseline's figures over those rounds (the metric's unit).
    pub baseline_median: f64,
    /// Median of the variant's figures over those rounds (the metric's unit).
    pub variant_median: f64,
    /// Median of the paired ratios B_r / A_r as a change, percent (negative:
    /// the variant's figure is lower). With 1 round, that round's ratio;
    /// printed only as the two figures then.
    pub median_change_pct: f64,
    /// Lower end of the interval of the median change, percent; `None` with
    /// 1 round. Called `ci95` after its target: see `confidence_pct`.
    pub ci95_low_pct: Option<f64>,
    /// Upper end of the interval, percent; `None` with 1 round.
    pub ci95_high_pct: Option<f64>,
    /// The interval's exact coverage, percent: at least 95 from 6 rounds on,
    /// 93.75 with 5, 75 with 3 (min..max); `None` with 1 round.
    pub confidence_pct: Option<f64>,
    /// What the interval says.
    pub verdict: Verdict,
}

impl Comparison {
    /// The change as text: `-7.5% (93.75% CI -9.1% to -5.8%)`, or `1 round`
    /// (no % with one round).
    pub fn change_text(&self) -> String {
        match (self.ci95_low_pct, self.ci95_high_pct, self.confidence_pct) {
            (Some(lo), Some(hi), Some(c)) => format!(
                "{:+.1}% ({} CI {lo:+.1}% to {hi:+.1}%)",
                self.median_change_pct,
                confidence_text(c)
            ),
            _ => Verdict::OneRound.as_str().to_string(),
        }
    }
}

impl Comparison {
    /// Whether the interval covers less than [`MIN_VERDICT_CONFIDENCE`] (2 or
    /// 3 rounds), so that no verdict in words is printed for it; false with 1
    /// round, which has no interval and says so ([`Verdict::OneRound`]).
    pub fn too_weak_for_a_verdict(&self) -> bool {
        self.confidence_pct
            .is_some_and(|c| c < MIN_VERDICT_CONFIDENCE * 100.0)
    }

    /// The verdict in words for a metric whose better direction is `better`
    /// ([`describe`]), saying how weak it is when its interval covers less
    /// than [`MIN_VERDICT_CONFIDENCE`]: `slower (weak: 75% interval)`.
    pub fn verdict_words(&self, better: Better) -> String {
        let words = describe(self.verdict, better);
        if self.too_weak_for_a_verdict() {
            return format!(
                "{words} (weak: {} interval)",
                confidence_text(self.confidence_pct.unwrap_or_default())
            );
        }
        words.to_string()
    }
}

/// A coverage in percent as printed: `95%`, `93.75%`, `96.9%`.
pub fn confidence_text(pct: f64) -> String {
    let s = format!("{pct:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}%")
}

/// The paired rounds as ratios B_r / A_r, dropping rounds whose baseline is
/// not positive or whose figures are not finite (a run with no events).
fn ratios(pairs: &[(f64, f64)]) -> Vec<f64> {
    pairs
        .iter()
        .filter(|(a, b)| a.is_finite() && b.is_finite() && *a > 0.0)
        .map(|(a, b)| b / a)
        .collect()
}

/// The median of sorted `xs` (the mean of the two middle values when even).
///
/// # Panics
/// `xs` is empty.
fn median_sorted(xs: &[f64]) -> f64 {
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// For R ratios, the order statistic k (1-based) of the interval
/// [x_(k), x_(R+1-k)] and its exact coverage `1 - 2 P(Bin(R, 1/2) <= k-1)`:
/// the largest k with coverage >= [`TARGET_CONFIDENCE`], else 1 (min..max).
/// `None` for R < 2.
pub fn order_statistic(rounds: usize) -> Option<(usize, f64)> {
    if rounds < 2 {
        return None;
    }
    let n = rounds as f64;
    // ln C(R, i) - R ln 2, built up term by term (no overflow, no 2^-R underflow
    // trouble: exp() of a very negative number is the correct tiny value).
    let mut ln_pmf = -n * std::f64::consts::LN_2;
    let mut tail = 0.0; // P(Bin <= k - 1)
    let mut best = (1, 1.0 - 2.0 * ln_pmf.exp());
    for k in 1..=rounds.div_ceil(2) {
        tail += ln_pmf.exp();
        let coverage = 1.0 - 2.0 * tail;
        if coverage >= TARGET_CONFIDENCE {
            best = (k, coverage);
        } else {
            break;
        }
        // pmf(k) from pmf(k - 1).
        ln_pmf += ((rounds - k + 1) as f64).ln() - (k as f64).ln();
    }
    Some(best)
}

/// Compares `variant` with `baseline` on `metric` over paired rounds: `pairs`
/// holds (A_r, B_r) for each round r. `floor` is the noise floor of the same
/// metric ([`noise_floor`]), if one was measured. `None` when no round has a
/// positive baseline figure.
pub fn compare(
    metric: &str,
    baseline: &str,
    variant: &str,
    pairs: &[(f64, f64)],
    floor: Option<&Comparison>,
) -> Option<Comparison> {
    let usable: Vec<(f64, f64)> = pairs
        .iter()
        .copied()
        .filter(|(a, b)| a.is_finite() && b.is_finite() && *a > 0.0)
        .collect();
    let mut rs = ratios(&usable);
    if rs.is_empty() {
        return None;
    }
    rs.sort_by(f64::total_cmp);
    let pct = |r: f64| (r - 1.0) * 100.0;
    let med = |mut xs: Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        median_sorted(&xs)
    };
    let rounds = rs.len();
    let median_change_pct = pct(median_sorted(&rs));
    let (lo, hi, confidence_pct) = match order_statistic(rounds) {
        Some((k, coverage)) => (
            Some(pct(rs[k - 1])),
            Some(pct(rs[rounds - k])),
            Some(coverage * 100.0),
        ),
        None => (None, None, None),
    };
    let verdict = verdict(
        lo.zip(hi),
        floor.and_then(|f| f.ci95_low_pct.zip(f.ci95_high_pct)),
    );
    Some(Comparison {
        metric: metric.to_string(),
        baseline: baseline.to_string(),
        variant: variant.to_string(),
        rounds,
        baseline_median: med(usable.iter().map(|p| p.0).collect()),
        variant_median: med(usable.iter().map(|p| p.1).collect()),
        median_change_pct,
        ci95_low_pct: lo,
        ci95_high_pct: hi,
        confidence_pct,
        verdict,
    })
}

/// The noise floor of `metric`: the baseline against itself, `pairs` holding
/// (A_r, A'_r) of each round, A' a second run of the baseline at another
/// position of the round. Its interval is what the machine's noise alone
/// gives; its verdict ignores any floor.
pub fn noise_floor(metric: &str, baseline: &str, pairs: &[(f64, f64)]) -> Option<Comparison> {
    compare(
        metric,
        baseline,
        &format!("{baseline} (A/A control)"),
        pairs,
        None,
    )
}

/// The verdict of an interval `ci` (percent; `None`: one round) given the
/// noise floor's interval `floor`.
pub fn verdict(ci: Option<(f64, f64)>, floor: Option<(f64, f64)>) -> Verdict {
    let Some((lo, hi)) = ci else {
        return Verdict::OneRound;
    };
    if lo <= 0.0 && hi >= 0.0 {
        return Verdict::NoDifference;
    }
    if let Some((flo, fhi)) = floor {
        if lo <= fhi && flo <= hi {
            return Verdict::WithinNoiseFloor;
        }
    }
    if lo > 0.0 {
        Verdict::Higher
    } else {
        Verdict::Lower
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    fn some(x: Option<f64>) -> f64 {
        x.expect("an interval")
    }

    fn pairs(a: &[f64], b: &[f64]) -> Vec<(f64, f64)> {
        a.iter().copied().zip(b.iter().copied()).collect()
    }

    #[test]
    fn order_statistic_matches_the_binomial_by_hand() {
        // 1 - 2^(1-R) for min..max.
        assert_eq!(order_statistic(1), None);
        assert_eq!(order_statistic(2), Some((1, 0.5)));
        assert_eq!(order_statistic(3), Some((1, 0.75)));
        assert_eq!(order_statistic(4), Some((1, 0.875)));
        assert_eq!(order_statistic(5), Some((1, 0.9375)));
        assert_eq!(order_statistic(6), Some((1, 0.96875)));
        // R = 8: k = 2 would cover 1 - 2 (1 + 8) / 256 = 0.9297 < 0.95.
        assert_eq!(order_statistic(8), Some((1, 1.0 - 2.0 / 256.0)));
        // R = 9: k = 2 covers 1 - 2 (1 + 9) / 512 = 0.9609375.
        assert_eq!(order_statistic(9), Some((2, 0.9609375)));
        // R = 10: k = 2 covers 1 - 2 * 11 / 1024; k = 3: 1 - 2 * 56 / 1024 = 0.89.
        assert_eq!(order_statistic(10), Some((2, 1.0 - 22.0 / 1024.0)));
        // Large R: coverage stays >= 95% and k grows (no overflow at 1000).
        let (k, c) = order_statistic(1000).expect("interval");
        assert!((0.95..0.97).contains(&c), "{c}");
        assert!((469..=470).contains(&k), "{k}");
    }

    #[test]
    fn verdict_words_say_how_weak_they_are_below_80_pct_coverage() {
        let a = [100.0, 100.0];
        let b = [150.0, 160.0];
        let c = compare("cpu_us", "none", "x", &pairs(&a, &b), None).expect("comparison");
        assert_eq!(c.verdict, Verdict::Higher, "the interval's own word stays");
        assert_eq!(
            c.verdict_words(Better::LowerCost),
            "costlier (weak: 50% interval)"
        );
        let five = compare(
            "cpu_us",
            "none",
            "x",
            &pairs(&[100.0; 5], &[150.0, 160.0, 155.0, 158.0, 152.0]),
            None,
        )
        .expect("comparison");
        assert_eq!(five.verdict_words(Better::LowerCost), "costlier");
    }

    #[test]
    fn five_rounds_give_the_median_and_min_max_at_93_75() {
        let a = [100.0, 100.0, 100.0, 100.0, 100.0];
        let b = [90.0, 95.0, 92.0, 97.0, 93.0];
        let c = compare("qps", "none", "x", &pairs(&a, &b), None).expect("comparison");
        assert_eq!(c.rounds, 5);
        assert!(close(c.median_change_pct, -7.0), "{c:?}");
        assert!(close(some(c.ci95_low_pct), -10.0));
        assert!(close(some(c.ci95_high_pct), -3.0));
        assert!(close(some(c.confidence_pct), 93.75));
        assert_eq!(c.verdict, Verdict::Lower);
        assert!(close(c.baseline_median, 100.0) && close(c.variant_median, 93.0));
        assert_eq!(c.change_text(), "-7.0% (93.75% CI -10.0% to -3.0%)");
        assert!(
            !c.too_weak_for_a_verdict(),
            "93.75% is enough for a verdict"
        );
    }

    #[test]
    fn pairs_are_kept_per_round() {
        // The machine drifts by 2x between rounds, the variant is always 10%
        // faster than its own round's baseline: paired ratios see exactly +10%.
        let a = [100.0, 200.0, 50.0, 150.0];
        let b = [110.0, 220.0, 55.0, 165.0];
        let c = compare("qps", "none", "x", &pairs(&a, &b), None).expect("comparison");
        assert!(close(c.median_change_pct, 10.0));
        assert!(close(some(c.ci95_low_pct), 10.0));
        assert!(close(some(c.ci95_high_pct), 10.0));
        assert!(close(some(c.confidence_pct), 87.5));
        assert_eq!(c.verdict, Verdict::Higher);
        // Even count: the median is the mean of the two middle ratios.
        let c = compare(
            "qps",
            "none",
            "x",
            &pairs(&a, &[90.0, 210.0, 60.0, 150.0]),
            None,
        )
        .expect("comparison");
        // ratios 0.9, 1.05, 1.2, 1.0 -> sorted 0.9, 1.0, 1.05, 1.2; median 1.025.
        assert!(close(c.median_change_pct, 2.5), "{c:?}");
        assert!(close(some(c.ci95_low_pct), -10.0));
        assert!(close(some(c.ci95_high_pct), 20.0));
        assert_eq!(c.verdict, Verdict::NoDifference);
    }

    #[test]
    fn nine_rounds_drop_the_extremes() {
        let a = [100.0; 9];
        let b = [80.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 130.0];
        let c = compare("rt_ms", "none", "x", &pairs(&a, &b), None).expect("comparison");
        assert!(close(c.median_change_pct, -6.0));
        assert!(close(some(c.ci95_low_pct), -9.0));
        assert!(close(some(c.ci95_high_pct), -3.0));
        assert!(close(some(c.confidence_pct), 96.09375));
        assert_eq!(c.change_text(), "-6.0% (96.09% CI -9.0% to -3.0%)");
    }

    #[test]
    fn one_round_has_no_interval() {
        let c = compare("qps", "none", "x", &[(100.0, 80.0)], None).expect("comparison");
        assert_eq!(c.rounds, 1);
        assert_eq!(c.verdict, Verdict::OneRound);
        assert_eq!(
            (c.ci95_low_pct, c.ci95_high_pct, c.confidence_pct),
            (None, None, None)
        );
        assert_eq!(c.change_text(), "1 round");
        assert!(!c.too_weak_for_a_verdict(), "1 round says so itself");
        let json = serde_json::to_value(&c).expect("json");
        assert_eq!(json["verdict"], "1 round");
        assert!(json["ci95_low_pct"].is_null() && json["ci95_high_pct"].is_null());
    }

    #[test]
    fn rounds_without_a_baseline_figure_are_dropped() {
        assert_eq!(compare("qps", "none", "x", &[(0.0, 5.0)], None), None);
        let c = compare(
            "qps",
            "none",
            "x",
            &[(0.0, 5.0), (100.0, 90.0), (f64::NAN, 1.0), (100.0, 95.0)],
            None,
        )
        .expect("comparison");
        assert_eq!(c.rounds, 2);
        assert!(close(some(c.confidence_pct), 50.0));
        assert!(c.too_weak_for_a_verdict(), "50% is below 80%");
    }

    #[test]
    fn the_noise_floor_absorbs_overlapping_effects() {
        let a = [100.0; 5];
        // A/A: -4% .. +4%.
        let floor = noise_floor(
            "qps",
            "none",
            &pairs(&a, &[96.0, 99.0, 100.0, 102.0, 104.0]),
        )
        .expect("floor");
        assert_eq!(floor.variant, "none (A/A control)");
        assert!(close(some(floor.ci95_low_pct), -4.0));
        assert!(close(some(floor.ci95_high_pct), 4.0));
        assert_eq!(floor.verdict, Verdict::NoDifference);
        // -10% .. -3%: excludes 0 but overlaps the floor.
        let b = [90.0, 95.0, 92.0, 97.0, 93.0];
        let c = compare("qps", "none", "x", &pairs(&a, &b), Some(&floor)).expect("comparison");
        assert_eq!(c.verdict, Verdict::WithinNoiseFloor);
        // -10% .. -5%: clear of the floor.
        let b = [90.0, 95.0, 92.0, 94.0, 93.0];
        let c = compare("qps", "none", "x", &pairs(&a, &b), Some(&floor)).expect("comparison");
        assert_eq!(c.verdict, Verdict::Lower);
        // An interval around 0 stays "no difference detected" with a floor too.
        assert_eq!(
            verdict(Some((-1.0, 2.0)), Some((-4.0, 4.0))),
            Verdict::NoDifference
        );
        assert_eq!(
            verdict(Some((5.0, 9.0)), Some((-4.0, 4.0))),
            Verdict::Higher
        );
        assert_eq!(verdict(None, Some((-4.0, 4.0))), Verdict::OneRound);
    }

    #[test]
    fn verdicts_in_words_and_json() {
        assert_eq!(describe(Verdict::Higher, Better::Higher), "faster");
        assert_eq!(describe(Verdict::Higher, Better::LowerLatency), "slower");
        assert_eq!(describe(Verdict::Lower, Better::LowerLatency), "faster");
        assert_eq!(describe(Verdict::Lower, Better::Higher), "slower");
        assert_eq!(describe(Verdict::Higher, Better::LowerCost), "costlier");
        assert_eq!(describe(Verdict::Lower, Better::LowerCost), "cheaper");
        assert_eq!(
            describe(Verdict::WithinNoiseFloor, Better::Higher),
            "within noise floor"
        );
        for v in [
            Verdict::Higher,
            Verdict::Lower,
            Verdict::NoDifference,
            Verdict::WithinNoiseFloor,
            Verdict::OneRound,
        ] {
            assert_eq!(serde_json::to_value(v).expect("json"), v.as_str());
        }
        assert_eq!(confidence_text(95.0), "95%");
        assert_eq!(confidence_text(93.75), "93.75%");
        assert_eq!(confidence_text(96.875), "96.88%");
    }

    #[test]
    fn deterministic() {
        let a = [10.0, 11.0, 9.0, 10.5, 9.5, 10.2];
        let b = [9.0, 10.0, 9.5, 10.0, 9.9, 9.8];
        let x = compare("tps", "none", "x", &pairs(&a, &b), None);
        let y = compare("tps", "none", "x", &pairs(&a, &b), None);
        assert_eq!(x, y);
    }
}
