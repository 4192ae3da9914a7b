//! The tables of a [`Report`], in section order: handshakes (and the
//! harness overhead), record overhead, round trip (and Figure 2, the changes
//! of p50 and p95), bulk, footprint, then every comparison.

use std::collections::BTreeMap;

use encbench_common::compare;
use encbench_common::table::{Alignment, Table};

use super::Report;
use crate::comparison::{TlsComparison, verdict_text};
use crate::config::Transport;
use crate::rounds::Spread;

/// A table of one section of the report: the section names it in the CSV's
/// first column; text and Markdown draw [`table`](Self::table) (numbers
/// right-aligned by content, a rule under the headings).
#[derive(Clone, Debug)]
pub struct SectionTable {
    /// Section name (first CSV column): `handshake`, `record`, `latency`,
    /// `bulk`, `footprint`, `comparison`.
    pub section: &'static str,
    /// Title, headings and cells.
    pub table: Table,
}

impl SectionTable {
    /// The table of `section` titled `title`.
    pub fn new(
        section: &'static str,
        title: String,
        headers: Vec<String>,
        rows: Vec<Vec<String>>,
    ) -> Self {
        Self {
            section,
            table: Table {
                title,
                headers,
                rows,
                alignment: Alignment::ByContent,
                rule: true,
            },
        }
    }
}

fn f0(v: f64) -> String {
    format!("{v:.0}")
}
fn f1(v: f64) -> String {
    format!("{v:.1}")
}
fn pct(v: f64) -> String {
    format!("{v:+.1}%")
}

/// `+25.0% (+22.4..+27.1)`: the median change and interval of `t`, `-` for
/// none or one round.
fn cell(t: Option<&TlsComparison>) -> String {
    t.and_then(|t| {
        let c = &t.comparison;
        Some(format!(
            "{:+.1}% ({:+.1}..{:+.1})",
            c.median_change_pct, c.ci95_low_pct?, c.ci95_high_pct?
        ))
    })
    .unwrap_or_else(|| "-".into())
}

/// `median (min..max)` of per-round figures.
fn spread(rounds: &[f64], decimals: usize) -> String {
    Spread::of(rounds).map_or("-".into(), |s| s.text(decimals))
}

fn h(cols: &[&str]) -> Vec<String> {
    cols.iter().map(|s| (*s).to_string()).collect()
}

/// The table of `section`: one row of `cells` per item of `items`.
fn table<R>(
    section: &'static str,
    title: &str,
    headers: &[&str],
    items: &[R],
    cells: impl Fn(&R) -> Vec<String>,
) -> SectionTable {
    SectionTable::new(
        section,
        title.to_string(),
        h(headers),
        items.iter().map(cells).collect(),
    )
}

impl Report {
    /// The report's tables, in section order (empty sections left out).
    pub fn tables(&self) -> Vec<SectionTable> {
        let mut out = self.handshake_tables();
        out.extend(self.record_tables());
        out.extend(self.latency_tables());
        out.extend(self.bulk_tables());
        out.extend(self.footprint_tables());
        if !self.comparisons.is_empty() {
            out.push(self.comparison_table());
        }
        out
    }

    /// The handshake section: handshakes/s, and the harness overhead when measured both ways.
    fn handshake_tables(&self) -> Vec<SectionTable> {
        let mut out = Vec::new();
        if !self.handshake.is_empty() {
            out.push(table(
                "handshake",
                "Handshakes: connect + handshake + 1-byte greeting (socket) or handshake alone (memory); client and server on one thread",
                &[
                    "transport", "harness", "version", "cert", "suite", "resumption",
                    "handshakes/s", "cpu handshakes/s (round min..max)", "client us", "server us", "p50 us", "p99 us",
                ],
                &self.handshake,
                |r| {
                    vec![
                        r.transport.to_string(),
                        r.harness.into(),
                        r.tls_version.into(),
                        r.cert.into(),
                        r.suite.clone(),
                        r.resumption.to_string(),
                        f0(r.handshakes_per_sec),
                        spread(&r.cpu_handshakes_per_sec_rounds, 0),
                        f1(r.client_cpu_us),
                        f1(r.server_cpu_us),
                        f1(r.latency_us.p50),
                        f1(r.latency_us.p99),
                    ]
                },
            ));
            let cmp = self.harness_comparison();
            if !cmp.is_empty() {
                out.push(SectionTable::new(
                    "handshake",
                    "Harness overhead: the TLS handshake alone over sockets vs in memory, handshakes/s from time in each side's code (rustls-bench's method; target: within 20%)".into(),
                    h(&["transport", "version", "cert", "suite", "resumption", "socket hs/s", "memory hs/s", "socket vs memory (paired rounds)", "socket user us", "socket kernel us", "memory us", "socket with connect+greeting hs/s"]),
                    cmp,
                ));
            }
        }
        out
    }

    /// The record section: the bytes TLS adds to each message.
    fn record_tables(&self) -> Vec<SectionTable> {
        let mut out = Vec::new();
        if !self.record.is_empty() {
            out.push(table(
                "record",
                "Record overhead: one write of each message, bytes the client put on the wire",
                &[
                    "transport",
                    "version",
                    "message",
                    "payload B",
                    "wire B",
                    "records",
                    "writes",
                    "overhead B",
                    "B/record",
                    "overhead",
                ],
                &self.record,
                |r| {
                    vec![
                        r.transport.to_string(),
                        r.tls_version.into(),
                        r.message.into(),
                        r.payload_bytes.to_string(),
                        r.wire_bytes.to_string(),
                        r.records.to_string(),
                        r.socket_writes.to_string(),
                        r.overhead_bytes.to_string(),
                        f1(r.overhead_per_record),
                        pct(r.overhead_pct),
                    ]
                },
            ));
        }
        out
    }

    /// The latency section: round trips under concurrency, figure 2, and with rounds the changes of p50 and p95.
    fn latency_tables(&self) -> Vec<SectionTable> {
        let mut out = Vec::new();
        if !self.latency.is_empty() {
            out.push(table(
                "latency",
                "Round trip under concurrency (median of interleaved rounds)",
                &[
                    "transport",
                    "version",
                    "connections",
                    "requests/s",
                    "avg us",
                    "p50 us (round min..max)",
                    "p95 us (round min..max)",
                    "rounds",
                    "round avg range us",
                ],
                &self.latency,
                |r| {
                    vec![
                        r.transport.to_string(),
                        r.tls_version.into(),
                        r.connections.to_string(),
                        f0(r.requests_per_sec),
                        f1(r.avg_us),
                        spread(&r.p50_us_rounds, 1),
                        spread(&r.p95_us_rounds, 1),
                        r.rounds.to_string(),
                        format!("{:.1}..{:.1}", r.avg_range_us.0, r.avg_range_us.1),
                    ]
                },
            ));
            out.push(self.figure2());
            if !self.one_round() {
                for (metric, what) in [("rtt_p50_us", "median (p50)"), ("rtt_p95_us", "p95")] {
                    out.push(self.latency_changes(metric, what));
                }
            }
        }
        out
    }

    /// The bulk section: throughput of one connection.
    fn bulk_tables(&self) -> Vec<SectionTable> {
        let mut out = Vec::new();
        if !self.bulk.is_empty() {
            out.push(table(
                "bulk",
                "Bulk throughput, one connection",
                &[
                    "transport",
                    "version",
                    "suite",
                    "MiB per round",
                    "rounds",
                    "MB/s (round min..max)",
                ],
                &self.bulk,
                |r| {
                    vec![
                        r.transport.to_string(),
                        r.tls_version.into(),
                        r.suite.clone(),
                        (r.bytes / (1024 * 1024)).to_string(),
                        r.rounds.to_string(),
                        spread(&r.mb_per_sec_rounds, 0),
                    ]
                },
            ));
        }
        out
    }

    /// The footprint section: the size of the minimal client.
    fn footprint_tables(&self) -> Vec<SectionTable> {
        let mut out = Vec::new();
        if !self.footprint.is_empty() {
            out.push(table(
                "footprint",
                "Footprint: the minimal client, stripped",
                &["variant", "bytes", "unstripped bytes", "vs plain", "files"],
                &self.footprint,
                |r| {
                    vec![
                        r.variant.into(),
                        r.bytes.to_string(),
                        r.unstripped_bytes.to_string(),
                        pct(r.pct_vs_plain),
                        r.files.join(" "),
                    ]
                },
            ));
        }
        out
    }

    /// True when every comparison has a single round: no % is printed then.
    fn one_round(&self) -> bool {
        self.comparisons.iter().all(|c| c.comparison.rounds < 2)
    }

    /// Every comparison as a table: the medians of baseline and variant, the
    /// median change with its interval and the verdict in words; with one
    /// round the figures only.
    pub fn comparison_table(&self) -> SectionTable {
        let one = self.one_round();
        let mut headers = h(&[
            "section",
            "point",
            "metric",
            "baseline",
            "variant",
            "rounds",
            "baseline median",
            "variant median",
        ]);
        if !one {
            headers.extend(h(&["change (interval)", "verdict"]));
        }
        // Latency changes are in the tables by connection count above, the
        // socket vs memory handshakes in the harness table; JSON has them all.
        // Each section's A/A noise floors first, then its comparisons.
        let floors = self.noise_floor.iter().map(|t| (t, true));
        let mut rows_of: Vec<(&TlsComparison, bool)> = floors
            .chain(self.comparisons.iter().map(|t| (t, false)))
            .filter(|(t, _)| {
                t.section != "latency" && t.comparison.metric != "handshake_only_per_sec"
            })
            .collect();
        rows_of.sort_by_key(|(t, _)| t.section != "handshake");
        let rows = rows_of
            .into_iter()
            .map(|(t, floor)| {
                let c = &t.comparison;
                let d = if c.metric.ends_with("_us") { 1 } else { 0 };
                let mut row = vec![
                    t.section.to_string(),
                    t.point.clone(),
                    c.metric.clone(),
                    c.baseline.clone(),
                    c.variant.clone(),
                    c.rounds.to_string(),
                    format!("{:.d$}", c.baseline_median),
                    format!("{:.d$}", c.variant_median),
                ];
                if !one {
                    row.push(c.change_text());
                    row.push(if floor {
                        "A/A noise floor".to_string()
                    } else {
                        verdict_text(t, &self.noise_floor)
                    });
                }
                row
            })
            .collect();
        SectionTable::new(
            "comparison",
            if one {
                "Comparisons with the baseline: 1 round: run --repeat 5 for a comparison".into()
            } else {
                "Comparisons with the baseline: median of the paired round ratios, interval from their order statistics (exact sign test) at the confidence shown".into()
            },
            headers,
            rows,
        )
    }

    fn harness_comparison(&self) -> Vec<Vec<String>> {
        let mut rows = Vec::new();
        for m in self.handshake.iter().filter(|r| r.harness == "memory") {
            if let Some(s) = self.handshake.iter().find(|s| {
                s.harness == "socket"
                    && s.transport == m.transport
                    && s.tls_version == m.tls_version
                    && s.cert == m.cert
                    && s.resumption == m.resumption
            }) {
                rows.push(vec![
                    m.transport.to_string(),
                    m.tls_version.into(),
                    m.cert.into(),
                    m.suite.clone(),
                    m.resumption.to_string(),
                    spread(&s.handshake_only_per_sec_rounds, 0),
                    spread(&m.handshake_only_per_sec_rounds, 0),
                    self.comparisons
                        .iter()
                        .find(|c| {
                            c.comparison.metric == "handshake_only_per_sec"
                                && c.comparison.variant == format!("{} socket", s.transport)
                                && c.point
                                    == format!("{} {} {}", s.tls_version, s.cert, s.resumption)
                        })
                        .map_or("-".into(), |c| c.comparison.change_text()),
                    f1(s.user_us),
                    f1(s.system_us),
                    f1(m.user_us),
                    f0(1e6 / (s.client_cpu_us + s.server_cpu_us)),
                ]);
            }
        }
        rows
    }

    /// The change of round-trip `metric` (`rtt_p50_us`, `rtt_p95_us`) over
    /// plain TCP, median and interval, per connection count (rows) and TLS
    /// transport and version (columns).
    fn latency_changes(&self, metric: &str, what: &str) -> SectionTable {
        let mut variants: Vec<&str> = Vec::new();
        let mut points: Vec<u32> = Vec::new();
        for t in self
            .comparisons
            .iter()
            .filter(|t| t.comparison.metric == metric)
        {
            if !variants.contains(&t.comparison.variant.as_str()) {
                variants.push(&t.comparison.variant);
            }
            if let Some(c) = t.connections.filter(|c| !points.contains(c)) {
                points.push(c);
            }
        }
        let mut headers = vec!["connections".to_string()];
        headers.extend(variants.iter().map(|v| format!("{v} vs plain")));
        let with_floor = self
            .noise_floor
            .iter()
            .any(|f| f.comparison.metric == metric);
        if with_floor {
            headers.push("plain A/A (noise floor)".into());
        }
        let rows = points
            .iter()
            .map(|&c| {
                let mut row = vec![c.to_string()];
                for v in &variants {
                    row.push(self.change_cell(c, metric, v));
                }
                if with_floor {
                    row.push(cell(self.noise_floor.iter().find(|t| {
                        t.connections == Some(c) && t.comparison.metric == metric
                    })));
                }
                row
            })
            .collect();
        SectionTable::new(
            "latency",
            format!(
                "Round trip {what} vs plain TCP: median change of the paired rounds (interval at {} confidence)",
                self.confidence()
            ),
            headers,
            rows,
        )
    }

    /// The confidence of the intervals, e.g. `93.75%` (every comparison of a
    /// run has the same number of rounds).
    fn confidence(&self) -> String {
        self.comparisons
            .iter()
            .find_map(|t| t.comparison.confidence_pct)
            .map_or("-".into(), compare::confidence_text)
    }

    /// `+25.0% (+22.4..+27.1)` for latency `metric` of `variant` at `c`
    /// connections, `-` when there is no such comparison or one round.
    fn change_cell(&self, c: u32, metric: &str, variant: &str) -> String {
        self.comparisons
            .iter()
            .find(|t| {
                t.connections == Some(c)
                    && t.comparison.metric == metric
                    && t.comparison.variant == variant
            })
            .map_or_else(|| "-".into(), |t| cell(Some(t)))
    }

    /// The study's Figure 2 as a table: average round trip (ms) against
    /// concurrency, one column per transport, with the increase over plain TCP.
    pub fn figure2(&self) -> SectionTable {
        let mut series: Vec<(String, Transport)> = Vec::new();
        let mut points: BTreeMap<u32, BTreeMap<String, f64>> = BTreeMap::new();
        for r in &self.latency {
            let name = if r.transport.is_tls() {
                format!("{} {}", r.transport, r.tls_version)
            } else {
                r.transport.to_string()
            };
            if !series.iter().any(|(n, _)| *n == name) {
                series.push((name.clone(), r.transport));
            }
            points
                .entry(r.connections)
                .or_default()
                .insert(name, r.avg_us);
        }
        // The change over plain TCP only from paired rounds, never from one.
        let with_change = !self.one_round();
        let mut headers = vec!["connections".to_string()];
        for (name, t) in &series {
            headers.push(format!("{name} avg ms"));
            if t.is_tls() && with_change {
                headers.push("vs plain (interval)".into());
            }
        }
        let rows = points
            .iter()
            .map(|(c, by)| {
                let mut row = vec![c.to_string()];
                for (name, t) in &series {
                    let v = by.get(name).copied();
                    row.push(v.map_or("-".into(), |v| format!("{:.3}", v / 1e3)));
                    if t.is_tls() && with_change {
                        row.push(self.change_cell(*c, "rtt_avg_us", name));
                    }
                }
                row
            })
            .collect();
        SectionTable::new(
            "latency",
            if with_change {
                format!(
                    "Average round trip (ms) vs concurrent connections, with and without TLS (the study's Figure 2); vs plain: median change of the paired rounds (interval at {} confidence)",
                    self.confidence()
                )
            } else {
                "Average round trip (ms) vs concurrent connections, with and without TLS (the study's Figure 2)".into()
            },
            headers,
            rows,
        )
    }
}
