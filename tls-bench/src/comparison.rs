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
//! same round of [`crate::rounds::order`].

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

/// Which direction of `metric` is the good one: rates higher, round trips lower.
pub fn better(metric: &str) -> Better {
    if metric.starts_with("rtt_") {
        Better::LowerLatency
    } else {
        Better::Higher
    }
}

fn paired(a: &[f64], b: &[f64]) -> Vec<(f64, f64)> {
    a.iter().copied().zip(b.iter().copied()).collect()
}

fn push(
    out: &mut Vec<TlsComparison>,
    (section, point, connections): (&'static str, String, Option<u32>),
    (metric, baseline, variant): (&str, &str, &str),
    (a, b): (&[f64], &[f64]),
) {
    if let Some(comparison) = compare::compare(metric, baseline, variant, &paired(a, b), None) {
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

/// The handshake comparisons of `rows` (see the module docs for baselines).
pub fn handshakes(rows: &[HandshakeRow]) -> Vec<TlsComparison> {
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
                    (
                        "handshake",
                        format!(
                            "{} {} {} {}",
                            v.harness, v.tls_version, v.cert, v.resumption
                        ),
                        None,
                    ),
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
/// plain TCP at the same connection count, for the average, p50 and p95.
pub fn latency(rows: &[LatencyRow]) -> Vec<TlsComparison> {
    let mut out = Vec::new();
    for v in rows.iter().filter(|r| r.transport.is_tls()) {
        let Some(base) = rows
            .iter()
            .find(|b| b.transport == Transport::Plain && b.connections == v.connections)
        else {
            continue;
        };
        let (bl, vl) = (latency_label(base), latency_label(v));
        for (metric, a, b) in [
            ("rtt_avg_us", &base.avg_us_rounds, &v.avg_us_rounds),
            ("rtt_p50_us", &base.p50_us_rounds, &v.p50_us_rounds),
            ("rtt_p95_us", &base.p95_us_rounds, &v.p95_us_rounds),
        ] {
            push(
                &mut out,
                (
                    "latency",
                    if v.connections == 1 {
                        "1 connection".to_string()
                    } else {
                        format!("{} connections", v.connections)
                    },
                    Some(v.connections),
                ),
                (metric, &bl, &vl),
                (a, b),
            );
        }
    }
    out
}

/// The bulk comparisons of `rows`: every suite's MB/s against plain TCP.
pub fn bulk(rows: &[BulkRow]) -> Vec<TlsComparison> {
    let mut out = Vec::new();
    let Some(base) = rows.iter().find(|b| b.transport == Transport::Plain) else {
        return out;
    };
    for v in rows.iter().filter(|r| r.transport.is_tls()) {
        push(
            &mut out,
            ("bulk", v.suite.clone(), None),
            ("mb_per_sec", base.transport.name(), v.transport.name()),
            (&base.mb_per_sec_rounds, &v.mb_per_sec_rounds),
        );
    }
    out
}
