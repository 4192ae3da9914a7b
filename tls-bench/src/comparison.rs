//! Comparisons over the interleaved rounds: every variant of a section against
//! its baseline, per metric and grid point, by [`encbench_common::compare`]
//! (median of the paired per-round ratios, exact sign-test interval from
//! order statistics, verdict; no % with one round).
//!
//! Baselines:
//! - **latency** (`rtt_avg_us`, `rtt_p50_us`, `rtt_p95_us`, per connection
//!   count) and **bulk** (`mb_per_sec`, per suite): plain TCP of the same
//!   rounds.
//! - **handshake** (`handshakes_per_cpu_sec`, per harness, version,
//!   certificate and resumption): plain TCP has no handshake, so the baseline
//!   is the first TLS transport of `--transports` (rustls-aws-lc-rs by
//!   default); and `handshake_only_per_sec` of the socket harness against the
//!   memory harness of the same transport (the harness overhead).
//!
//! Round r of a variant pairs with round r of its baseline: both ran in the
//! same round of [`crate::rounds::schedule`].
//!
//! With `--control` each baseline ran a second time per round (A', half a
//! round after A); [`noise_floors`] compares A' with A
//! ([`compare::noise_floor`]) per metric and point: the difference this
//! machine shows now between two identical runs. A variant's effect whose
//! interval overlaps the floor of its metric and point gets the verdict
//! "within noise floor". Bulk has one baseline for every suite (plain TCP),
//! so its floor (point `plain`) serves every suite; the socket vs memory
//! harness comparison has no floor.

use encbench_common::compare::{self, Better, Comparison};
use serde::Serialize;

use crate::bulk::BulkRow;
use crate::config::Transport;
use crate::handshake::HandshakeRow;
use crate::latency::LatencyRow;

/// One metric of one variant against its baseline at one grid point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TlsComparison {
    /// `handshake`, `latency` or `bulk`.
    pub section: &'static str,
    /// The grid point: `socket TLSv1_3 EcdsaP256 tickets` (handshake),
    /// `8 connections` (latency), the suite (bulk).
    pub point: String,
    /// Concurrent connections of a latency point; `None` in other sections.
    pub connections: Option<u32>,
    /// `metric`, `baseline`, `variant`, `rounds`, `baseline_median`,
    /// `variant_median` (the metric's unit), `median_change_pct`,
    /// `ci95_low_pct`, `ci95_high_pct`, `confidence_pct` (null with 1
    /// round), `verdict`: [`encbench_common::compare::Comparison`], flattened.
    #[serde(flatten)]
    pub comparison: Comparison,
}

/// The A' runs of `--control`: a second run per round of every baseline, in
/// the rows of its section (their per-round figures pair with the baseline
/// row's, round by round). Empty without `--control`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ControlRuns {
    /// Second runs of the handshakes (socket and memory harness) of the first
    /// TLS transport.
    pub handshake: Vec<HandshakeRow>,
    /// Second runs of plain TCP, per connection count.
    pub latency: Vec<LatencyRow>,
    /// Second run of plain TCP bulk.
    pub bulk: Vec<BulkRow>,
}

/// Which direction of `metric` is the good one: rates higher, round trips lower.
pub fn better(metric: &str) -> Better {
    if metric.starts_with("rtt_") {
        Better::LowerLatency
    } else {
        Better::Higher
    }
}

/// What a verdict of a run without the A/A control carries: an effect may be
/// this machine's noise.
pub const NO_FLOOR: &str = "no noise floor measured: add --control";

/// The verdict of `t` in words ([`compare::describe`]: `faster`, `slower`,
/// `no difference detected`, ...). Without an A/A noise floor of its metric
/// and point in `floors` (the run had no `--control`, which `--quick` turns
/// on by default) an effect (`faster`, `slower`) cannot be told from the
/// machine's own noise and is followed by `(`[`NO_FLOOR`]`)`; the other
/// verdicts claim no effect and stay as they are.
pub fn verdict_text(t: &TlsComparison, floors: &[TlsComparison]) -> String {
    let words = t.comparison.verdict_words(better(&t.comparison.metric));
    if unfloored_effect(t, floors) {
        format!("{words} ({NO_FLOOR})")
    } else {
        words.to_string()
    }
}

/// True when `t` finds an effect (verdict `higher` or `lower`) and `floors`
/// has no A/A noise floor of its metric and point to hold it against.
pub fn unfloored_effect(t: &TlsComparison, floors: &[TlsComparison]) -> bool {
    matches!(
        t.comparison.verdict,
        compare::Verdict::Higher | compare::Verdict::Lower
    ) && floor(floors, t.section, &t.point, &t.comparison.metric).is_none()
}

fn paired(a: &[f64], b: &[f64]) -> Vec<(f64, f64)> {
    a.iter().copied().zip(b.iter().copied()).collect()
}

/// The floor of `metric` at `point` of `section` (bulk: any point, its one
/// baseline serves every suite).
fn floor<'a>(
    floors: &'a [TlsComparison],
    section: &str,
    point: &str,
    metric: &str,
) -> Option<&'a Comparison> {
    floors
        .iter()
        .find(|f| {
            f.section == section
                && f.comparison.metric == metric
                && (section == "bulk" || f.point == point)
        })
        .map(|f| &f.comparison)
}

fn push(
    out: &mut Vec<TlsComparison>,
    floors: &[TlsComparison],
    (section, point, connections): (&'static str, String, Option<u32>),
    (metric, baseline, variant): (&str, &str, &str),
    (a, b): (&[f64], &[f64]),
) {
    let floor = floor(floors, section, &point, metric);
    if let Some(comparison) = compare::compare(metric, baseline, variant, &paired(a, b), floor) {
        out.push(TlsComparison {
            section,
            point,
            connections,
            comparison,
        });
    }
}

fn latency_label(r: &LatencyRow) -> String {
    if r.transport.is_tls() {
        format!("{} {}", r.transport, r.tls_version)
    } else {
        r.transport.to_string()
    }
}

fn handshake_point(r: &HandshakeRow) -> String {
    format!(
        "{} {} {} {}",
        r.harness, r.tls_version, r.cert, r.resumption
    )
}

fn latency_point(connections: u32) -> String {
    if connections == 1 {
        "1 connection".to_string()
    } else {
        format!("{connections} connections")
    }
}

/// A row's per-round figures of one metric.
type RoundsOf = fn(&LatencyRow) -> &[f64];

/// The latency metrics compared, with each row's per-round figures of it.
const LATENCY_METRICS: [(&str, RoundsOf); 3] = [
    ("rtt_avg_us", |r| &r.avg_us_rounds),
    ("rtt_p50_us", |r| &r.p50_us_rounds),
    ("rtt_p95_us", |r| &r.p95_us_rounds),
];

/// Pushes the A/A comparison of `metric` (A: `a`, A': `a2`) when there are
/// at least 2 rounds: one round gives no floor.
fn push_floor(
    out: &mut Vec<TlsComparison>,
    (section, point, connections): (&'static str, String, Option<u32>),
    (metric, baseline): (&str, &str),
    (a, a2): (&[f64], &[f64]),
) {
    if let Some(comparison) = compare::noise_floor(metric, baseline, &paired(a, a2)) {
        if comparison.rounds >= 2 {
            out.push(TlsComparison {
                section,
                point,
                connections,
                comparison,
            });
        }
    }
}

/// The noise floors of `--control`: every baseline row of `base`
/// (handshake, latency, bulk rows) with a second run in `control`, A' against
/// A of the same round, per metric and point (see the module docs). Empty
/// without `--control` or with one round.
pub fn noise_floors(
    (handshake, latency, bulk): (&[HandshakeRow], &[LatencyRow], &[BulkRow]),
    control: &ControlRuns,
) -> Vec<TlsComparison> {
    let mut out = Vec::new();
    for a2 in &control.handshake {
        if let Some(a) = handshake
            .iter()
            .find(|a| a.transport == a2.transport && handshake_point(a) == handshake_point(a2))
        {
            push_floor(
                &mut out,
                ("handshake", handshake_point(a), None),
                ("handshakes_per_cpu_sec", a.transport.name()),
                (
                    &a.cpu_handshakes_per_sec_rounds,
                    &a2.cpu_handshakes_per_sec_rounds,
                ),
            );
        }
    }
    for a2 in &control.latency {
        if let Some(a) = latency
            .iter()
            .find(|a| a.transport == a2.transport && a.connections == a2.connections)
        {
            for (metric, rounds) in LATENCY_METRICS {
                push_floor(
                    &mut out,
                    ("latency", latency_point(a.connections), Some(a.connections)),
                    (metric, &latency_label(a)),
                    (rounds(a), rounds(a2)),
                );
            }
        }
    }
    for a2 in &control.bulk {
        if let Some(a) = bulk.iter().find(|a| a.transport == a2.transport) {
            push_floor(
                &mut out,
                ("bulk", a.transport.to_string(), None),
                ("mb_per_sec", a.transport.name()),
                (&a.mb_per_sec_rounds, &a2.mb_per_sec_rounds),
            );
        }
    }
    out
}

/// The handshake comparisons of `rows` (see the module docs for baselines),
/// with the `floors` of [`noise_floors`].
pub fn handshakes(rows: &[HandshakeRow], floors: &[TlsComparison]) -> Vec<TlsComparison> {
    let mut out = Vec::new();
    let first_tls = rows.iter().map(|r| r.transport).find(|t| t.is_tls());
    let same = |a: &HandshakeRow, b: &HandshakeRow| {
        a.tls_version == b.tls_version && a.cert == b.cert && a.resumption == b.resumption
    };
    for v in rows.iter().filter(|r| r.transport.is_tls()) {
        if Some(v.transport) != first_tls {
            if let Some(base) = rows
                .iter()
                .find(|b| Some(b.transport) == first_tls && b.harness == v.harness && same(b, v))
            {
                push(
                    &mut out,
                    floors,
                    ("handshake", handshake_point(v), None),
                    (
                        "handshakes_per_cpu_sec",
                        base.transport.name(),
                        v.transport.name(),
                    ),
                    (
                        &base.cpu_handshakes_per_sec_rounds,
                        &v.cpu_handshakes_per_sec_rounds,
                    ),
                );
            }
        }
    }
    for s in rows.iter().filter(|r| r.harness == "socket") {
        if let Some(m) = rows
            .iter()
            .find(|m| m.harness == "memory" && m.transport == s.transport && same(m, s))
        {
            push(
                &mut out,
                &[],
                (
                    "handshake",
                    format!("{} {} {}", s.tls_version, s.cert, s.resumption),
                    None,
                ),
                (
                    "handshake_only_per_sec",
                    &format!("{} memory", m.transport),
                    &format!("{} socket", s.transport),
                ),
                (
                    &m.handshake_only_per_sec_rounds,
                    &s.handshake_only_per_sec_rounds,
                ),
            );
        }
    }
    out
}

/// The latency comparisons of `rows`: every TLS transport and version against
/// plain TCP at the same connection count, for the average, p50 and p95,
/// with the `floors` of [`noise_floors`].
pub fn latency(rows: &[LatencyRow], floors: &[TlsComparison]) -> Vec<TlsComparison> {
    let mut out = Vec::new();
    for v in rows.iter().filter(|r| r.transport.is_tls()) {
        let Some(base) = rows
            .iter()
            .find(|b| b.transport == Transport::Plain && b.connections == v.connections)
        else {
            continue;
        };
        let (bl, vl) = (latency_label(base), latency_label(v));
        for (metric, rounds) in LATENCY_METRICS {
            push(
                &mut out,
                floors,
                ("latency", latency_point(v.connections), Some(v.connections)),
                (metric, &bl, &vl),
                (rounds(base), rounds(v)),
            );
        }
    }
    out
}

/// The bulk comparisons of `rows`: every suite's MB/s against plain TCP,
/// with the `floors` of [`noise_floors`].
pub fn bulk(rows: &[BulkRow], floors: &[TlsComparison]) -> Vec<TlsComparison> {
    let mut out = Vec::new();
    let Some(base) = rows.iter().find(|b| b.transport == Transport::Plain) else {
        return out;
    };
    for v in rows.iter().filter(|r| r.transport.is_tls()) {
        push(
            &mut out,
            floors,
            ("bulk", v.suite.clone(), None),
            ("mb_per_sec", base.transport.name(), v.transport.name()),
            (&base.mb_per_sec_rounds, &v.mb_per_sec_rounds),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The p50 round trip at 8 connections, plain TCP at 100 us in every round.
    fn rtt(variant: &[f64], floors: &[TlsComparison]) -> TlsComparison {
        let plain = vec![100.0; variant.len()];
        let mut out = Vec::new();
        push(
            &mut out,
            floors,
            ("latency", latency_point(8), Some(8)),
            ("rtt_p50_us", "plain", "openssl TLSv1_3"),
            (&plain, variant),
        );
        out.pop().expect("a comparison")
    }

    #[test]
    fn an_effect_without_a_floor_says_so() {
        let mut floors = Vec::new();
        push_floor(
            &mut floors,
            ("latency", latency_point(8), Some(8)),
            ("rtt_p50_us", "plain"),
            (&[100.0, 100.0, 100.0], &[98.0, 100.0, 102.0]),
        );
        assert_eq!(floors.len(), 1);
        // +10..+30%: slower (a round trip higher is slower), clear of the -2..+2% floor;
        // 3 rounds cover 75%, and the words say so.
        let slower = [110.0, 120.0, 130.0];
        assert_eq!(
            verdict_text(&rtt(&slower, &floors), &floors),
            "slower (weak: 75% interval)"
        );
        assert_eq!(
            verdict_text(&rtt(&slower, &[]), &[]),
            "slower (weak: 75% interval) (no noise floor measured: add --control)"
        );
        // A floor of another point is no floor of this one.
        let mut elsewhere = floors.clone();
        elsewhere[0].point = latency_point(1);
        assert_eq!(
            verdict_text(&rtt(&slower, &elsewhere), &elsewhere),
            "slower (weak: 75% interval) (no noise floor measured: add --control)"
        );
        // -10..+10% claims no effect: nothing to qualify.
        let none = rtt(&[90.0, 100.0, 110.0], &[]);
        assert_eq!(
            verdict_text(&none, &[]),
            "no difference detected (weak: 75% interval)"
        );
        // One round: no verdict in words either way.
        assert_eq!(verdict_text(&rtt(&[120.0], &[]), &[]), "1 round");
    }
}
