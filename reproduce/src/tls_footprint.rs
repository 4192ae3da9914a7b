//! Report 003, the yaSSL study: (a) the footprint share of TLS in a MariaDB
//! installation and in tls-bench's minimal clients, (b) Figure 2, average
//! SELECT time against connections, plain TCP vs TLS on the private MariaDB,
//! with the A/A floor.
//!
//! Figure 2 runs `oltp_point_select` (one event is one SELECT, so the
//! event's average RT is the average SELECT time) at every connection count
//! with `--tls off,on --control`: the rows compare RT's median paired change
//! with the study's +16.9% at 8 connections.

use encbench_common::compare::Comparison;
use serde_json::{Value, json};
use tls_bench::footprint::FootprintRow;

use super::footprint::Footprint;
use super::plan::{DataSetStep, Grid, PLAIN_BYTES_PER_ROW, Plan, comma_separated};
use super::published::{Published, ScaleSpec};
use super::row::{GridRun, Row};
use super::verdict::{Effect, judge};
use encbench_oltp::report::MetricComparison;

/// The plaintext database of report 003.
pub const DB: &str = "repro003";

/// The runs of report 003 at `scale`.
pub fn plan(scale: &ScaleSpec) -> Plan {
    let threads = scale.threads.clone();
    Plan {
        scale: scale.clone(),
        db: DB.to_string(),
        data_sets: vec![DataSetStep {
            encrypt: "none".into(),
            encrypt_columns: "c,pad".into(),
            bytes_per_row: PLAIN_BYTES_PER_ROW,
            ..DataSetStep::default()
        }],
        grids: vec![Grid {
            name: "figure 2: oltp_point_select, plain vs TLS".into(),
            args: vec![
                "--workload".into(),
                "oltp_point_select".into(),
                "--threads".into(),
                comma_separated(&threads),
                "--tls".into(),
                "off,on".into(),
                "--encrypt".into(),
                "none".into(),
                "--control".into(),
            ],
            threads,
            // plain, TLS, plain again (A/A).
            runs_per_round: 3,
            statements_per_table: 1,
            round_setup_secs: 0.0,
        }],
        servers: super::plan::Servers::Shared,
    }
}

/// The RT comparison of TLS against plain at `threads`, if it ran.
pub fn tls_rt(comparisons: &[MetricComparison], threads: u32) -> Option<&Comparison> {
    comparisons
        .iter()
        .find(|c| {
            c.threads == threads && c.comparison.metric == "rt_ms" && c.comparison.variant == "TLS"
        })
        .map(|c| &c.comparison)
}

/// The rows of report 003: the footprint (`footprint`: ours, or why it could
/// not be measured), tls-bench's minimal clients (`tls_bench`: its footprint
/// rows, or why they were not measured), and Figure 2 from `grids` (the runs so far).
pub fn rows(
    p: &Published,
    footprint: &Result<Footprint, String>,
    tls_bench: &Result<Vec<FootprintRow>, String>,
    grids: &[GridRun],
    threads: &[u32],
) -> Vec<Row> {
    let mut rows = Vec::new();
    if let Some(f) = p.figure("footprint_share") {
        let tol = f.tolerance(p);
        let (ours, verdict) = match footprint {
            Ok(fp) => {
                let e = Effect {
                    median: fp.tls_share_pct,
                    lo: fp.tls_share_pct,
                    hi: fp.tls_share_pct,
                };
                (
                    Some(fp.tls_share_pct),
                    judge(f.published, Some(e), tol, f.differs_reason(p)),
                )
            }
            Err(why) => (None, (super::Verdict::NotReproducibleHere, why.clone())),
        };
        rows.push(deterministic_row(f.figure.clone(), f, ours, verdict));
    }
    if let Some(f) = p.figure("minimal_client_tls_share") {
        let tol = f.tolerance(p);
        match tls_bench_shares(tls_bench) {
            Ok(shares) => {
                for (variant, share) in shares {
                    let e = Effect {
                        median: share,
                        lo: share,
                        hi: share,
                    };
                    let v = judge(f.published, Some(e), tol, f.differs_reason(p));
                    rows.push(deterministic_row(
                        format!("{} ({variant})", f.figure),
                        f,
                        Some(share),
                        v,
                    ));
                }
            }
            Err(why) => rows.push(deterministic_row(
                f.figure.clone(),
                f,
                None,
                (super::Verdict::NotReproducibleHere, why),
            )),
        }
    }
    if let Some(f) = p.figure("select_time_8") {
        let at = f.threads.unwrap_or(8);
        let c = grids
            .first()
            .and_then(|g| tls_rt(&g.report.comparisons, at));
        let mut row = Row::from_comparison(
            format!("{} (ours: rustls, oltp_point_select)", f.figure),
            f,
            c,
            f.tolerance(p),
            f.differs_reason(p),
        );
        if !threads.contains(&at) {
            row.reason = format!(
                "{at} connections are not in this run's --threads {}",
                comma_separated(threads)
            );
        }
        rows.push(row);
    }
    rows
}

fn deterministic_row(
    figure: String,
    f: &super::published::Figure,
    ours: Option<f64>,
    (verdict, reason): (super::Verdict, String),
) -> Row {
    Row {
        figure,
        published: f.published,
        published_unit: f.published_unit.clone(),
        source_line: f.source_line,
        ours,
        ci95_low: ours,
        ci95_high: ours,
        confidence_pct: None,
        rounds: usize::from(ours.is_some()),
        verdict,
        reason,
        comparison_verdict: None,
    }
}

/// The TLS share of each minimal client of tls-bench's footprint section:
/// (bytes - plain bytes) / bytes x 100 for `rustls-aws-lc-rs` and
/// `openssl+libs`.
///
/// # Errors
/// tls-bench's footprint was not measured, or has no plain row.
pub fn tls_bench_shares(
    rows: &Result<Vec<FootprintRow>, String>,
) -> Result<Vec<(String, f64)>, String> {
    let rows = rows.as_ref().map_err(Clone::clone)?;
    let bytes = |name: &str| {
        rows.iter()
            .find(|r| r.variant == name)
            .map(|r| r.bytes as f64)
    };
    let plain = bytes("plain").ok_or("tls-bench's footprint has no plain row")?;
    Ok(["rustls-aws-lc-rs", "openssl+libs"]
        .iter()
        .filter_map(|n| bytes(n).map(|b| (n.to_string(), (b - plain) / b.max(1.0) * 100.0)))
        .collect())
}

/// Figure 2 as a table: per connection count, the plain and TLS medians of
/// RT (ms), our paired change with its interval, and the A/A floor.
pub fn curve(grids: &[GridRun]) -> Value {
    let Some(g) = grids.first() else {
        return json!([]);
    };
    let mut out = Vec::new();
    let mut threads: Vec<u32> = g.report.summary.iter().map(|s| s.threads).collect();
    threads.dedup();
    for t in threads {
        let rt = |mode: &str| {
            g.report
                .summary
                .iter()
                .find(|s| s.threads == t && s.mode == mode)
                .map(|s| s.rt_ms.median)
        };
        let c = tls_rt(&g.report.comparisons, t);
        let floor = g
            .report
            .noise_floor
            .iter()
            .find(|f| f.threads == t && f.comparison.metric == "rt_ms")
            .map(|f| &f.comparison);
        out.push(json!({
            "connections": t,
            "plain_rt_ms": rt("none"),
            "tls_rt_ms": rt("TLS"),
            "tls_change_pct": c.map(|c| c.median_change_pct),
            "ci95_low_pct": c.and_then(|c| c.ci95_low_pct),
            "ci95_high_pct": c.and_then(|c| c.ci95_high_pct),
            "confidence_pct": c.and_then(|c| c.confidence_pct),
            "rounds": c.map(|c| c.rounds),
            "oltp_verdict": c.map(|c| c.verdict.as_str()),
            "noise_floor_low_pct": floor.and_then(|f| f.ci95_low_pct),
            "noise_floor_high_pct": floor.and_then(|f| f.ci95_high_pct),
        }));
    }
    Value::Array(out)
}

/// Where our setup differs from the study's, plainly.
pub fn setup_differences() -> Vec<String> {
    vec![
        "The study ran MySQL 5.x with yaSSL on a 2011 Core 2 Duo laptop; here MariaDB 10.11 with the distribution's OpenSSL on the server, and oltp's client over rustls (aws-lc-rs provider), client and server on the same 2 cores of a machine shared with other jobs.".into(),
        "The study's query mix is not given beyond 'SELECT queries' with sysbench; here oltp_point_select (one primary-key SELECT per event, 1 table x 10,000 rows), so the average event RT is the average SELECT time.".into(),
        "Only the 8-connection point of Figure 2 is in the text (+16.9%); the other points are in an image the seed does not hold, so they are charted as ours only.".into(),
        "The footprint: the study compared a MySQL built with and without yaSSL (du of the installation); here the share of the distribution's MariaDB packages that the TLS library packages (libssl3, OpenSSL, counted whole) make up.".into(),
    ]
}

/// Updates `r` (rows, curve, footprint, charts, words) from what has been
/// measured so far.
pub fn update_reproduction(
    r: &mut super::Reproduction,
    p: &Published,
    plan: &Plan,
    footprint: &Result<Footprint, String>,
    tls_bench: &Result<Vec<FootprintRow>, String>,
) {
    r.rows = rows(p, footprint, tls_bench, &r.runs, &plan.scale.threads);
    r.measurements.insert("figure2".into(), curve(&r.runs));
    r.measurements.insert(
        "footprint".into(),
        match footprint {
            Ok(f) => serde_json::to_value(f).unwrap_or(Value::Null),
            Err(why) => json!({ "error": why }),
        },
    );
    r.measurements.insert(
        "tls_bench_footprint".into(),
        match tls_bench {
            Ok(rows) => serde_json::to_value(rows).unwrap_or(Value::Null),
            Err(why) => json!({ "error": why }),
        },
    );
    r.setup_differences = setup_differences();
    r.charts.clear();
    if let Some(g) = r.runs.first() {
        if let Ok(svg) = encbench_oltp::report::svg::svg(&g.report.summary) {
            r.charts.push(super::row::Chart {
                title: "oltp_point_select: QPS and average SELECT time (RT, ms) vs connections, plain (none) and TLS, medians of the rounds".into(),
                svg,
            });
        }
        let series = super::svg::Series {
            label: "ours: TLS vs plain, RT change (interval)".into(),
            points: super::svg::points(&g.report.comparisons, "rt_ms", "TLS"),
        };
        let published: Vec<(String, u32, f64)> = p
            .figure("select_time_8")
            .map(|f| {
                (
                    "published (yaSSL, 2011)".to_string(),
                    f.threads.unwrap_or(8),
                    f.published,
                )
            })
            .into_iter()
            .collect();
        if let Ok(svg) = super::svg::effect_chart(
            "Average SELECT time, TLS vs plain",
            "RT change, %",
            &[series],
            &published,
        ) {
            r.charts.push(super::row::Chart {
                title: "TLS's change of the average SELECT time against connections (median of paired rounds, interval as a bar), and the study's +16.9% at 8".into(),
                svg,
            });
        }
    }
}
