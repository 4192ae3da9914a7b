//! The verdict of one row: does our measured effect reproduce the published
//! one? Effects only (percent changes, shares), never absolute QPS across
//! hardware.
//!
//! - **reproduced**: the published effect lies inside our interval, or our
//!   median is within the tolerance (percentage points, stated in the report's
//!   data file) of it and in the same direction (or both within the tolerance
//!   of 0, where a direction means nothing);
//! - **differs**: otherwise, with our figure, the published one and the likely
//!   reason in one line;
//! - **not reproducible here**: no figure of ours (one round gives no %; a
//!   run that did not happen; a measurement this machine cannot make), or
//!   our interval holds both 0 and a published effect larger than the
//!   tolerance (too noisy here to tell).
//!
//! The interval is the one of `encbench_common::compare` (median of the
//! paired ratios, sign-test interval), as `oltp run` reports it.

use serde::{Deserialize, Serialize};

/// The rule in one sentence, as the reports print it.
pub const RULE: &str = "reproduced: the published effect is inside our interval, or our median is within the tolerance of it in the same direction (or both within the tolerance of 0); differs: otherwise (likely reason given); not reproducible here: no figure of ours (1 round gives no %, a run that did not happen), or our interval holds both 0 and a published effect larger than the tolerance (too noisy to tell).";

/// A row's verdict, serialised as the words of the JSON contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// The published effect is inside our interval, or within the tolerance
    /// in the same direction.
    #[serde(rename = "reproduced")]
    Reproduced,
    /// Our effect is another one.
    #[serde(rename = "differs")]
    Differs,
    /// We have no figure to compare.
    #[serde(rename = "not reproducible here")]
    NotReproducibleHere,
}

impl Verdict {
    /// The words of the JSON contract.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::Differs => "differs",
            Verdict::NotReproducibleHere => "not reproducible here",
        }
    }
}

/// Our effect: the median (percent, or a share in percent), with its
/// interval when there is one (a deterministic measurement such as a file
/// size has none: `lo == hi == median`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Effect {
    /// Median change (percent).
    pub median: f64,
    /// Lower end of the interval (percent).
    pub lo: f64,
    /// Upper end of the interval (percent).
    pub hi: f64,
}

/// The verdict of `ours` against `published` with `tolerance` percentage
/// points, and its reason in one line; `why_differs` is the likely reason
/// given when it differs.
pub fn judge(
    published: f64,
    ours: Option<Effect>,
    tolerance: f64,
    why_differs: &str,
) -> (Verdict, String) {
    let Some(e) = ours else {
        return (
            Verdict::NotReproducibleHere,
            "no figure of ours to compare".to_string(),
        );
    };
    let inside = e.lo <= published && published <= e.hi && e.lo < e.hi;
    if inside && e.lo <= 0.0 && 0.0 <= e.hi && published.abs() > tolerance {
        return (
            Verdict::NotReproducibleHere,
            format!(
                "our interval {:+.1}% to {:+.1}% holds both 0 and the published {published:+.1}%: too noisy here to tell (more rounds, a quieter machine)",
                e.lo, e.hi
            ),
        );
    }
    if inside {
        return (
            Verdict::Reproduced,
            format!(
                "published {published:+.1}% is inside our interval {:+.1}% to {:+.1}%",
                e.lo, e.hi
            ),
        );
    }
    let near = (e.median - published).abs() <= tolerance;
    let negligible = published.abs() <= tolerance && e.median.abs() <= tolerance;
    let same_direction = e.median.signum() == published.signum();
    if near && (same_direction || negligible) {
        return (
            Verdict::Reproduced,
            format!(
                "ours {:+.1}% is within {tolerance} points of the published {published:+.1}%{}",
                e.median,
                if same_direction {
                    ", same direction"
                } else {
                    ", both negligible"
                }
            ),
        );
    }
    (
        Verdict::Differs,
        format!(
            "ours {:+.1}% vs published {published:+.1}% (tolerance {tolerance} points): {why_differs}",
            e.median
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn effect(median: f64, lo: f64, hi: f64) -> Option<Effect> {
        Some(Effect { median, lo, hi })
    }

    #[test]
    fn inside_the_interval_is_reproduced() {
        let (v, why) = judge(-2.4, effect(-5.0, -8.0, -1.0), 3.0, "x");
        assert_eq!(v, Verdict::Reproduced);
        assert_eq!(why, "published -2.4% is inside our interval -8.0% to -1.0%");
    }

    #[test]
    fn near_in_the_same_direction_is_reproduced() {
        // 16.9 is outside 20..30, but 19.0 is within 5 points, same sign.
        let (v, why) = judge(16.9, effect(19.0, 18.0, 21.0), 5.0, "x");
        assert_eq!(v, Verdict::Reproduced, "{why}");
        assert!(why.contains("same direction"), "{why}");
        // A deterministic share: 3.3% against "about 5%", 2.5 points.
        assert_eq!(
            judge(5.0, effect(3.3, 3.3, 3.3), 2.5, "x").0,
            Verdict::Reproduced
        );
    }

    #[test]
    fn opposite_directions_near_zero_are_both_negligible() {
        let (v, why) = judge(0.32, effect(-1.0, -2.0, -0.5), 3.0, "x");
        assert_eq!(v, Verdict::Reproduced);
        assert!(why.contains("both negligible"), "{why}");
        // But not a real effect of the other sign.
        assert_eq!(
            judge(-21.1, effect(4.0, 3.0, 5.0), 3.0, "x").0,
            Verdict::Differs
        );
    }

    #[test]
    fn far_away_differs_with_the_reason() {
        let (v, why) = judge(
            -2.4,
            effect(-12.0, -14.0, -10.0),
            3.0,
            "the proxy has 16 cores",
        );
        assert_eq!(v, Verdict::Differs);
        assert_eq!(
            why,
            "ours -12.0% vs published -2.4% (tolerance 3 points): the proxy has 16 cores"
        );
        // A degenerate interval (one value) only counts through the tolerance.
        assert_eq!(
            judge(5.0, effect(15.0, 15.0, 15.0), 2.5, "x").0,
            Verdict::Differs
        );
    }

    #[test]
    fn an_interval_around_0_and_the_effect_cannot_tell() {
        let (v, why) = judge(16.9, effect(3.4, -26.7, 33.5), 5.0, "x");
        assert_eq!(v, Verdict::NotReproducibleHere);
        assert!(why.contains("too noisy"), "{why}");
        // An interval around 0 that excludes the published effect tells them apart.
        let (v, why) = judge(-94.6, effect(9.7, -9.4, 20.5), 5.0, "the page cache");
        assert_eq!(v, Verdict::Differs, "{why}");
        // A negligible published effect inside it is reproduced.
        assert_eq!(
            judge(0.3, effect(1.0, -2.0, 3.0), 3.0, "x").0,
            Verdict::Reproduced
        );
    }

    #[test]
    fn no_figure_is_not_reproducible_here() {
        let (v, _) = judge(16.9, None, 5.0, "x");
        assert_eq!(v, Verdict::NotReproducibleHere);
        assert_eq!(
            serde_json::to_value(Verdict::NotReproducibleHere).expect("json"),
            "not reproducible here"
        );
    }
}
