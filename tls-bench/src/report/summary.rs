//! The one-screen summary that ends the text output (after the full tables,
//! as hyperfine ends with its summary): per section the headline comparisons
//! at the default point, each `variant median, median change (CI lo..hi%)
//! verdict` (the confidence of every interval in the first line), the A/A
//! noise floor there when `--control` ran (the default of `--quick`; without
//! it every `faster`/`slower` is marked [`UNFLOORED`], explained in one
//! line), and where the JSON went.
//!
//! Headline points: handshakes per CPU-second of the socket harness, TLS 1.3
//! (else the first version measured) with the first certificate type of
//! `--certs`, every resumption mode (TLS 1.3: full `no-resume` and resumed
//! `tickets`), every transport against the first TLS transport; latency p50
//! and p95 at the largest connection count, TLS 1.3 (else the first version)
//! against plain TCP; bulk MB/s of `TLS13_AES_256_GCM_SHA384` (else the first
//! suite) against plain TCP. At most [`MAX_LINES`] lines between [`BEGIN`] and
//! [`END`] for the default grid (a section's lines grow with `--transports`
//! and `--tls-versions`), about 100 columns wide.

use std::fmt::Write as _;
use std::path::Path;

use encbench_common::compare::{self, Comparison};

use super::Report;
use crate::comparison::{NO_FLOOR, TlsComparison, better, unfloored_effect};

/// The summary's first line starts with this.
pub const BEGIN: &str = "=== Summary";
/// The summary's last line.
pub const END: &str = "=== End of summary ===";
/// The most lines the summary takes, markers included (one screen).
pub const MAX_LINES: usize = 40;

/// The version a section's headline uses: TLS 1.3 when measured, else the first.
fn version<'a>(labels: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let all: Vec<&str> = labels.collect();
    all.iter()
        .find(|v| v.contains("TLSv1_3"))
        .or(all.first())
        .copied()
}

/// `-29.0% (CI -30.2..-25.7%)`: the median change and its interval (the
/// confidence is in the summary's first line), or `1 round`.
fn change(c: &Comparison) -> String {
    match (c.ci95_low_pct, c.ci95_high_pct) {
        (Some(lo), Some(hi)) => format!("{:+.1}% (CI {lo:+.1}..{hi:+.1}%)", c.median_change_pct),
        _ => compare::Verdict::OneRound.as_str().to_string(),
    }
}

/// After a verdict (`faster`, `slower`) that no A/A noise floor backs; the
/// summary's noise-floor line says what it means ([`NO_FLOOR`]).
pub const UNFLOORED: &str = "*";

/// The summary's verdict of `t`: in words, marked [`UNFLOORED`] when no
/// noise floor of its metric and point was measured.
fn verdict(report: &Report, t: &TlsComparison) -> String {
    let words = t.comparison.verdict_words(better(&t.comparison.metric));
    if unfloored_effect(t, &report.noise_floor) {
        format!("{words} {UNFLOORED}")
    } else {
        words.to_string()
    }
}

/// `  label  what  median unit  change (interval)  verdict`; an A/A floor
/// line's `verdict` is `noise floor`. No verdict with 1 round.
fn line(out: &mut String, (label, what): (&str, &str), c: &Comparison, unit: &str, verdict: &str) {
    let d = if unit == "us" { 1 } else { 0 };
    let verdict = if c.rounds < 2 { "" } else { verdict };
    let l = format!(
        "  {label:<16} {what:<13} {:>9.d$} {unit:<4}  {:<26}  {verdict}",
        c.variant_median,
        change(c),
    );
    let _ = writeln!(out, "{}", l.trim_end());
}

fn floors<'a>(
    report: &'a Report,
    section: &str,
    point: &'a str,
    metric: &'a str,
) -> impl Iterator<Item = &'a Comparison> {
    report
        .noise_floor
        .iter()
        .filter(move |f| {
            f.section == section
                && f.comparison.metric == metric
                && (section == "bulk" || f.point == point)
        })
        .map(|f| &f.comparison)
}

fn handshakes(out: &mut String, report: &Report) {
    let cmp: Vec<&TlsComparison> = report
        .comparisons
        .iter()
        .filter(|t| t.comparison.metric == "handshakes_per_cpu_sec")
        .collect();
    let Some(ver) = version(report.handshake.iter().map(|r| r.tls_version)) else {
        return;
    };
    let Some(cert) = report
        .handshake
        .iter()
        .find(|r| r.transport.is_tls())
        .map(|r| r.cert)
    else {
        return;
    };
    let prefix = format!("socket {ver} {cert} ");
    let at: Vec<&&TlsComparison> = cmp
        .iter()
        .filter(|t| t.point.starts_with(&prefix))
        .collect();
    let Some(first) = at.first() else {
        return;
    };
    let _ = writeln!(
        out,
        "Handshakes per CPU-second, {ver} {cert}, socket harness, vs {}:",
        first.comparison.baseline
    );
    let mut points: Vec<&str> = Vec::new();
    for t in &at {
        let mode = &t.point[prefix.len()..];
        line(
            out,
            (&t.comparison.variant, mode),
            &t.comparison,
            "hs/s",
            &verdict(report, t),
        );
        if !points.contains(&t.point.as_str()) {
            points.push(&t.point);
        }
    }
    for p in points {
        for f in floors(report, "handshake", p, "handshakes_per_cpu_sec") {
            let what = format!("A/A {}", &p[prefix.len()..]);
            line(out, (&f.baseline, &what), f, "hs/s", "noise floor");
        }
    }
}

fn latency(out: &mut String, report: &Report) {
    let Some(n) = report.latency.iter().map(|r| r.connections).max() else {
        return;
    };
    let Some(ver) = version(
        report
            .latency
            .iter()
            .filter(|r| r.transport.is_tls())
            .map(|r| r.tls_version),
    ) else {
        return;
    };
    let at: Vec<&TlsComparison> = report
        .comparisons
        .iter()
        .filter(|t| {
            t.section == "latency"
                && t.connections == Some(n)
                && t.comparison.variant.ends_with(ver)
                && ["rtt_p50_us", "rtt_p95_us"].contains(&t.comparison.metric.as_str())
        })
        .collect();
    let Some(first) = at.first() else {
        return;
    };
    let _ = writeln!(
        out,
        "Round trip at {}, {ver}, vs {}:",
        first.point, first.comparison.baseline
    );
    for t in &at {
        let transport = t.comparison.variant.trim_end_matches(ver).trim_end();
        let what = t
            .comparison
            .metric
            .trim_start_matches("rtt_")
            .trim_end_matches("_us");
        line(
            out,
            (transport, what),
            &t.comparison,
            "us",
            &verdict(report, t),
        );
    }
    for metric in ["rtt_p50_us", "rtt_p95_us"] {
        for f in floors(report, "latency", &first.point, metric) {
            let what = metric.trim_start_matches("rtt_").trim_end_matches("_us");
            line(
                out,
                (&f.baseline, &format!("A/A {what}")),
                f,
                "us",
                "noise floor",
            );
        }
    }
}

fn bulk(out: &mut String, report: &Report) {
    let cmp: Vec<&TlsComparison> = report
        .comparisons
        .iter()
        .filter(|t| t.section == "bulk")
        .collect();
    let Some(suite) = cmp
        .iter()
        .find(|t| t.point == "TLS13_AES_256_GCM_SHA384")
        .or(cmp.first())
        .map(|t| t.point.as_str())
    else {
        return;
    };
    let at: Vec<&&TlsComparison> = cmp.iter().filter(|t| t.point == suite).collect();
    let _ = writeln!(
        out,
        "Bulk MB/s, one connection, {suite}, vs {}:",
        at[0].comparison.baseline
    );
    for t in &at {
        line(
            out,
            (&t.comparison.variant, ""),
            &t.comparison,
            "MB/s",
            &verdict(report, t),
        );
    }
    for f in floors(report, "bulk", suite, "mb_per_sec") {
        line(out, (&f.baseline, "A/A"), f, "MB/s", "noise floor");
    }
}

/// The summary block of `report`, from [`BEGIN`] to [`END`]; `json` is the
/// file the JSON report was written to (`--json-out`), if any.
pub fn summary(report: &Report, json: Option<&Path>) -> String {
    let mut out = String::new();
    let rounds = report.environment.repeat;
    let confidence = report
        .comparisons
        .iter()
        .find_map(|t| t.comparison.confidence_pct)
        .map_or(String::new(), |c| {
            format!(", intervals at {} confidence", compare::confidence_text(c))
        });
    let _ = writeln!(
        out,
        "{BEGIN}: {rounds} round{}{confidence}; full tables above ===",
        if rounds == 1 { "" } else { "s" }
    );
    if rounds < 2 {
        let _ = writeln!(out, "1 round: run --repeat 5 for a comparison");
    }
    let _ = writeln!(
        out,
        "{}",
        match (report.environment.control, rounds < 2) {
            (false, true) => "A/A noise floor: not measured (add --control)".to_string(),
            (false, false) => format!("A/A noise floor: not measured ({UNFLOORED}: {NO_FLOOR})"),
            (true, true) =>
                "A/A noise floor: 1 round: run --control --repeat 5 for a floor".to_string(),
            (true, false) =>
                "A/A noise floor: the baseline against its second run in the same rounds"
                    .to_string(),
        }
    );
    handshakes(&mut out, report);
    latency(&mut out, report);
    bulk(&mut out, report);
    let _ = writeln!(
        out,
        "{}",
        match json {
            Some(p) => format!("JSON: {}", p.display()),
            None => "JSON: not written (add --json-out FILE, or --output json)".to_string(),
        }
    );
    let _ = writeln!(out, "{END}");
    out
}
