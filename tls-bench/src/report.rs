//! Reporting: the one result type of a run, the tables every text-like
//! exporter draws from it, and the exporters (text, JSON, CSV, Markdown).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use encbench_common::ResultHeader;
use encbench_common::compare;
use serde::Serialize;

use crate::bulk::BulkRow;
use crate::comparison::{ControlRuns, TlsComparison, verdict_text};
use crate::config::Transport;
use crate::footprint::FootprintRow;
use crate::handshake::HandshakeRow;
use crate::latency::LatencyRow;
use crate::record::RecordRow;
use crate::rounds::Spread;

/// Where and with what a run was made.
#[derive(Clone, Debug, Serialize)]
pub struct Environment {
    /// tls-bench version.
    pub tool_version: &'static str,
    /// OpenSSL version string of the loaded libssl.
    pub openssl: String,
    /// Logical CPUs available to the process.
    pub cpus: usize,
    /// True for `--quick`.
    pub quick: bool,
    /// Rounds of the handshake, latency and bulk sections (`--repeat`).
    pub repeat: usize,
    /// True for `--control`: every baseline ran twice per round, the second
    /// runs are in `control_runs` and their A/A comparisons in `noise_floor`.
    pub control: bool,
}

/// The version of tls-bench's JSON layout (`schema_version`): raised when a
/// field is removed, renamed or changes meaning.
pub const SCHEMA_VERSION: u32 = 1;

/// Everything a run measured; every exporter reads only this.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `schema_version`, `tool`, `started_at`, `ended_at` (around the sections)
    /// and `machine`: the head of every encbench JSON result, flattened.
    #[serde(flatten)]
    pub header: ResultHeader,
    /// Where and with what.
    pub environment: Environment,
    /// Handshake rows (socket and in-memory harness).
    pub handshake: Vec<HandshakeRow>,
    /// Record overhead rows.
    pub record: Vec<RecordRow>,
    /// Round-trip latency rows.
    pub latency: Vec<LatencyRow>,
    /// Bulk throughput rows.
    pub bulk: Vec<BulkRow>,
    /// Footprint rows.
    pub footprint: Vec<FootprintRow>,
    /// The second (A') runs of every baseline with `--control`, empty without.
    pub control_runs: ControlRuns,
    /// The A/A noise floor per metric and point: each baseline's A' runs
    /// against its A runs of the same rounds, in the fields of
    /// `comparisons` (variant `<baseline> (A/A control)`); empty without
    /// `--control` or with 1 round.
    pub noise_floor: Vec<TlsComparison>,
    /// Every variant against its baseline over the paired rounds, per
    /// metric and grid point ([`crate::comparison`]).
    pub comparisons: Vec<TlsComparison>,
    /// Combinations not run, with the reason.
    pub skipped: Vec<String>,
}

/// A titled table of strings: the shape text, Markdown and CSV all draw.
#[derive(Clone, Debug)]
pub struct Table {
    /// Section name (first CSV column).
    pub section: &'static str,
    /// Title line.
    pub title: String,
    /// Column headers.
    pub headers: Vec<String>,
    /// Cells, one Vec per row.
    pub rows: Vec<Vec<String>>,
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
) -> Table {
    Table {
        section,
        title: title.into(),
        headers: h(headers),
        rows: items.iter().map(cells).collect(),
    }
}

impl Report {
    /// The report's tables, in section order (empty sections left out).
    pub fn tables(&self) -> Vec<Table> {
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
                out.push(Table {
                    section: "handshake",
                    title: "Harness overhead: the TLS handshake alone over sockets vs in memory, handshakes/s from time in each side's code (rustls-bench's method; target: within 20%)".into(),
                    headers: h(&["transport", "version", "cert", "suite", "resumption", "socket hs/s", "memory hs/s", "socket vs memory (paired rounds)", "socket user us", "socket kernel us", "memory us", "socket with connect+greeting hs/s"]),
                    rows: cmp,
                });
            }
        }
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
        if !self.comparisons.is_empty() {
            out.push(self.comparison_table());
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
    pub fn comparison_table(&self) -> Table {
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
        Table {
            section: "comparison",
            title: if one {
                "Comparisons with the baseline: 1 round: run --repeat 5 for a comparison".into()
            } else {
                "Comparisons with the baseline: median of the paired round ratios, interval from their order statistics (exact sign test) at the confidence shown".into()
            },
            headers,
            rows,
        }
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
    fn latency_changes(&self, metric: &str, what: &str) -> Table {
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
        Table {
            section: "latency",
            title: format!(
                "Round trip {what} vs plain TCP: median change of the paired rounds (interval at {} confidence)",
                self.confidence()
            ),
            headers,
            rows,
        }
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
    pub fn figure2(&self) -> Table {
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
        Table {
            section: "latency",
            title: if with_change {
                format!(
                    "Average round trip (ms) vs concurrent connections, with and without TLS (the study's Figure 2); vs plain: median change of the paired rounds (interval at {} confidence)",
                    self.confidence()
                )
            } else {
                "Average round trip (ms) vs concurrent connections, with and without TLS (the study's Figure 2)".into()
            },
            headers,
            rows,
        }
    }
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Aligned tables for a terminal.
    Text,
    /// The [`Report`] as one JSON object.
    Json,
    /// One CSV block per table, blank line between, first column `section`.
    Csv,
    /// GitHub-flavoured Markdown tables.
    Markdown,
}

impl std::str::FromStr for Format {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "text" => Ok(Format::Text),
            "json" => Ok(Format::Json),
            "csv" => Ok(Format::Csv),
            "markdown" | "md" => Ok(Format::Markdown),
            _ => Err(crate::Error::UnknownName {
                what: "output format",
                name: s.to_string(),
                known: "text, json, csv, markdown".to_string(),
            }),
        }
    }
}

/// Renders `report` in `format`; `json_out` is where the JSON report also
/// went (`--json-out`), named in the text summary.
///
/// # Errors
/// [`crate::Error::Protocol`] if serialisation fails (it does not for these types).
pub fn render(
    report: &Report,
    format: Format,
    json_out: Option<&std::path::Path>,
) -> crate::Result<String> {
    match format {
        Format::Text => Ok(text(report, json_out)),
        Format::Json => serde_json::to_string_pretty(report)
            .map(|s| s + "\n")
            .map_err(|e| crate::Error::Protocol(format!("JSON: {e}"))),
        Format::Csv => csv_text(report),
        Format::Markdown => Ok(markdown(report)),
    }
}

fn is_numeric(s: &str) -> bool {
    s.trim_start_matches(['+', '-'])
        .trim_end_matches('%')
        .parse::<f64>()
        .is_ok()
}

/// Aligned text tables, numbers right-aligned, then the one-screen
/// [`crate::summary`] (`json_out`: where the JSON went).
pub fn text(report: &Report, json_out: Option<&std::path::Path>) -> String {
    let mut out = String::new();
    for t in report.tables() {
        let mut widths: Vec<usize> = t.headers.iter().map(|h| h.chars().count()).collect();
        for r in &t.rows {
            for (i, c) in r.iter().enumerate() {
                if i >= widths.len() {
                    widths.push(0);
                }
                widths[i] = widths[i].max(c.chars().count());
            }
        }
        let _ = writeln!(out, "{}", t.title);
        let line = |cells: &[String]| {
            let mut l = String::new();
            for (i, c) in cells.iter().enumerate() {
                if i > 0 {
                    l.push_str("  ");
                }
                if is_numeric(c) {
                    let _ = write!(l, "{c:>w$}", w = widths[i]);
                } else {
                    let _ = write!(l, "{c:<w$}", w = widths[i]);
                }
            }
            l.trim_end().to_string()
        };
        let _ = writeln!(out, "{}", line(&t.headers));
        let _ = writeln!(
            out,
            "{}",
            widths
                .iter()
                .map(|w| "-".repeat(*w))
                .collect::<Vec<_>>()
                .join("  ")
        );
        for r in &t.rows {
            let _ = writeln!(out, "{}", line(r));
        }
        out.push('\n');
    }
    for s in &report.skipped {
        let _ = writeln!(out, "skipped: {s}");
    }
    if !report.skipped.is_empty() {
        out.push('\n');
    }
    out.push_str(&crate::summary::summary(report, json_out));
    out
}

/// Markdown tables with a heading per table.
pub fn markdown(report: &Report) -> String {
    let mut out = String::new();
    for t in report.tables() {
        let _ = writeln!(out, "### {}\n", t.title);
        let _ = writeln!(out, "| {} |", t.headers.join(" | "));
        let _ = writeln!(
            out,
            "|{}|",
            t.headers
                .iter()
                .map(|_| "---")
                .collect::<Vec<_>>()
                .join("|")
        );
        for r in &t.rows {
            let _ = writeln!(out, "| {} |", r.join(" | "));
        }
        out.push('\n');
    }
    for s in &report.skipped {
        let _ = writeln!(out, "- skipped: {s}");
    }
    out
}

/// CSV blocks, one per table, separated by a blank line; first column `section`.
///
/// # Errors
/// [`crate::Error::Protocol`] if the CSV writer fails.
pub fn csv_text(report: &Report) -> crate::Result<String> {
    let err = |e: &dyn std::fmt::Display| crate::Error::Protocol(format!("CSV: {e}"));
    let mut out = String::new();
    for (i, t) in report.tables().iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header = vec!["section".to_string()];
        header.extend(t.headers.iter().cloned());
        w.write_record(&header).map_err(|e| err(&e))?;
        for r in &t.rows {
            let mut rec = vec![t.section.to_string()];
            rec.extend(r.iter().cloned());
            w.write_record(&rec).map_err(|e| err(&e))?;
        }
        let bytes = w.into_inner().map_err(|e| err(&e))?;
        out.push_str(&String::from_utf8_lossy(&bytes));
    }
    Ok(out)
}
