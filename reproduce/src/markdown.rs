//! `report.md`: the report's table shape, `published | ours (93.75% CI) |
//! verdict` (the coverage the intervals really have, [`ours_header`]), then
//! the extra tables (Figure 2's curve, the identity) and the
//! setup differences.

use std::fmt::Write as _;

use encbench_common::header::rfc3339;

use super::row::{Reproduction, Row};

/// A row's `ours (93.75% CI)` cell ([`ours_header`]): `+19.0% (+15.2% to +22.4%; 93.75%)` for a
/// comparison (the interval's exact coverage after the `;`), `3.3%` for a
/// deterministic figure (`+20.0%` for a change without interval, `20.00
/// queries per transaction` in another unit), `-` for none.
pub fn ours_cell(r: &Row) -> String {
    match (r.ours, r.ci95_low, r.ci95_high, r.confidence_pct) {
        (Some(m), Some(lo), Some(hi), Some(c)) => format!(
            "{m:+.1}% ({lo:+.1}% to {hi:+.1}%; {}, {} rounds)",
            encbench_common::compare::confidence_text(c),
            r.rounds
        ),
        (Some(m), ..) if r.published_unit.starts_with("% change") => format!("{m:+.1}%"),
        (Some(m), ..) if r.published_unit.starts_with('%') => format!("{m:.1}%"),
        (Some(m), ..) => format!("{m:.2} {}", r.published_unit),
        _ => "-".to_string(),
    }
}

/// Figure 2's `TLS change` cell of one point (`figure2` in the measurements):
/// `+71.1% (+67.0% to +75.2%; 93.75%, 5 rounds)`, the interval's exact coverage
/// and its rounds after the `;` as in [`ours_cell`] (a partial run's 2 rounds
/// cover only 50%); `1 round: no %` without an interval.
pub fn figure2_change(p: &serde_json::Value) -> String {
    let f = |k: &str| p[k].as_f64();
    match (
        f("tls_change_pct"),
        f("ci95_low_pct"),
        f("ci95_high_pct"),
        f("confidence_pct"),
    ) {
        (Some(m), Some(lo), Some(hi), Some(c)) => format!(
            "{m:+.1}% ({lo:+.1}% to {hi:+.1}%; {}, {} rounds)",
            encbench_common::compare::confidence_text(c),
            p["rounds"]
        ),
        _ => "1 round: no %".to_string(),
    }
}

/// The header of the rows table's `ours` column: `ours (93.75% CI)`, naming the coverage
/// the rows' intervals have (`ours (93.75% / 50% CI)` when they differ, as between a partial
/// run's rows), not the 95% they aim at; `ours` when no row has an interval.
pub fn ours_header(rows: &[Row]) -> String {
    let mut coverages: Vec<f64> = rows
        .iter()
        .filter(|r| r.ci95_low.is_some() && r.ci95_high.is_some())
        .filter_map(|r| r.confidence_pct)
        .collect();
    coverages.sort_by(|a, b| b.total_cmp(a));
    coverages.dedup();
    if coverages.is_empty() {
        return "ours".to_string();
    }
    let list: Vec<String> = coverages
        .into_iter()
        .map(encbench_common::compare::confidence_text)
        .collect();
    format!("ours ({} CI)", list.join(" / "))
}

/// The note under the rows table when some of its intervals cover less than the 95% they
/// aim at: `Note: ... cover 93.75% with 5 rounds ...`, each coverage with its rounds, and
/// why (the interval is an order statistic of the per-round ratios, and
/// fewer than 6 rounds cannot reach 95%: oltp/README.md "Comparisons"); `None` when every
/// interval reaches 95% or there is none.
pub fn coverage_note(rows: &[Row]) -> Option<String> {
    let mut short: Vec<(usize, String)> = rows
        .iter()
        .filter(|r| r.ci95_low.is_some() && r.ci95_high.is_some())
        .filter_map(|r| {
            r.confidence_pct
                .filter(|&c| c < 95.0)
                .map(|c| (r.rounds, c))
        })
        .map(|(n, c)| (n, encbench_common::compare::confidence_text(c)))
        .collect();
    short.sort_unstable();
    short.dedup();
    if short.is_empty() {
        return None;
    }
    let list: Vec<String> = short
        .iter()
        .map(|(n, c)| format!("{c} with {n} rounds"))
        .collect();
    Some(format!(
        "Note: the intervals of `ours` cover {}, not 95%: each is the k-th smallest to the k-th largest of the n per-round ratios (order statistics), and fewer than 6 rounds cannot reach 95% (oltp/README.md, \"Comparisons\").",
        list.join(", ")
    ))
}

/// A row's cells in the table's order (figure, line, published, ours (its
/// interval), verdict, reason), unescaped: each exporter escapes them for its
/// format.
pub fn cells(r: &Row) -> [String; 6] {
    [
        r.figure.clone(),
        r.source_line.to_string(),
        published_cell(r),
        ours_cell(r),
        r.verdict.as_str().to_string(),
        r.reason.clone(),
    ]
}

/// A published figure as printed: `+16.9%`, `5.0%`.
pub fn published_cell(r: &Row) -> String {
    if r.published_unit.starts_with("% change") {
        format!("{:+.1}%", r.published)
    } else if r.published_unit.starts_with('%') {
        format!("{:.1}%", r.published)
    } else {
        format!("{:.2} {}", r.published, r.published_unit)
    }
}

/// `|` escaped for a Markdown cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// The whole `report.md`.
pub fn to_markdown(r: &Reproduction) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Report {}: {}\n", r.report, r.title);
    let _ = writeln!(
        out,
        "Seed `{}`. Measured {} to {} on {} ({} logical CPUs, kernel {}); {} mode.{}\n",
        r.seed_file,
        rfc3339(r.header.started_at).unwrap_or_default(),
        rfc3339(r.header.ended_at).unwrap_or_default(),
        r.header.machine.cpu_model,
        r.header.machine.logical_cpus,
        r.header.machine.kernel,
        if r.quick { "quick" } else { "full" },
        if r.partial {
            format!(
                " **PARTIAL: {}; the rows below are the ones measured so far.**",
                r.stopped.as_deref().unwrap_or("still running")
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(out, "Scale: {}\n", r.scale);
    let _ = writeln!(out, "Verdicts: {}\n", r.tolerance);
    let _ = writeln!(
        out,
        "| figure | line | published | {} | verdict | reason |",
        ours_header(&r.rows)
    );
    let _ = writeln!(out, "|---|---:|---:|---|---|---|");
    for row in &r.rows {
        let cs = cells(row).map(|c| cell(&c));
        let _ = writeln!(out, "| {} |", cs.join(" | "));
    }
    if let Some(note) = coverage_note(&r.rows) {
        let _ = writeln!(out, "\n{note}");
    }
    if let Some(curve) = r.measurements.get("figure2").and_then(|v| v.as_array()) {
        let _ = writeln!(
            out,
            "\n## Figure 2: average SELECT time (ms) vs connections\n\n| connections | plain RT ms | TLS RT ms | TLS change (CI) | A/A floor |\n|---:|---:|---:|---|---|"
        );
        for p in curve {
            let f = |k: &str| p[k].as_f64();
            let change = figure2_change(p);
            let floor = match (f("noise_floor_low_pct"), f("noise_floor_high_pct")) {
                (Some(lo), Some(hi)) => format!("{lo:+.1}% to {hi:+.1}%"),
                _ => "-".to_string(),
            };
            let ms = |k: &str| f(k).map_or("-".to_string(), |v| format!("{v:.3}"));
            let _ = writeln!(
                out,
                "| {} | {} | {} | {change} | {floor} |",
                p["connections"],
                ms("plain_rt_ms"),
                ms("tls_rt_ms")
            );
        }
    }
    if let Some(fp) = r.measurements.get("footprint") {
        if let Some(pkgs) = fp["mariadb_packages"].as_array() {
            let _ = writeln!(
                out,
                "\n## Footprint\n\n{}\n\n| package | KiB |\n|---|---:|",
                fp["definition"].as_str().unwrap_or("")
            );
            for p in pkgs
                .iter()
                .chain(fp["tls_packages"].as_array().into_iter().flatten())
            {
                let _ = writeln!(
                    out,
                    "| {} | {} |",
                    p["package"].as_str().unwrap_or(""),
                    p["installed_kib"]
                );
            }
            let _ = writeln!(
                out,
                "\nTLS: {} KiB of {} KiB ({:.1}%); libraries: {}",
                fp["tls_kib"],
                fp["total_kib"],
                fp["tls_share_pct"].as_f64().unwrap_or(0.0),
                fp["tls_libraries"]
                    .as_array()
                    .map(|a| a
                        .iter()
                        .filter_map(|x| x.as_str())
                        .collect::<Vec<_>>()
                        .join(", "))
                    .unwrap_or_default()
            );
        }
    }
    for t in &r.tables {
        let _ = writeln!(
            out,
            "\n## {}\n\n{}\n\n| {} |\n|{}",
            t.title,
            t.note,
            t.columns
                .iter()
                .map(|c| cell(c))
                .collect::<Vec<_>>()
                .join(" | "),
            "---|".repeat(t.columns.len())
        );
        for row in &t.rows {
            let cs: Vec<String> = row.iter().map(|c| cell(c)).collect();
            let _ = writeln!(out, "| {} |", cs.join(" | "));
        }
    }
    if !r.identity.is_empty() {
        let _ = writeln!(
            out,
            "\n## Identity RT = threads x queries per transaction / QPS\n\n| whose | workload | threads | q/trx | QPS | RT ms | predicted ms | deviation |\n|---|---|---:|---:|---:|---:|---:|---:|"
        );
        for i in &r.identity {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {:.2} | {:.0} | {:.2} | {:.2} | {:+.1}% |",
                cell(&i.whose),
                i.workload,
                i.threads,
                i.queries_per_transaction,
                i.qps,
                i.rt_ms,
                i.predicted_rt_ms,
                i.deviation_pct
            );
        }
    }
    let _ = writeln!(out, "\n## Where the setups differ\n");
    for d in &r.setup_differences {
        let _ = writeln!(out, "- {d}");
    }
    if !r.runs.is_empty() {
        let _ = writeln!(out, "\n## Runs\n");
        for g in &r.runs {
            let _ = writeln!(
                out,
                "- {}: `{}` ({} runs)",
                g.name,
                g.command,
                g.report.runs.len()
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::Reproduction;

    /// A row of `rounds` rounds whose interval covers `confidence` (percent).
    fn row(rounds: usize, confidence: Option<f64>) -> Row {
        Row {
            figure: "QPS change".into(),
            published: 10.0,
            published_unit: "% change".into(),
            source_line: 1,
            ours: Some(9.0),
            ci95_low: Some(5.0),
            ci95_high: Some(12.0),
            confidence_pct: confidence,
            rounds,
            verdict: crate::verdict::Verdict::Reproduced,
            reason: String::new(),
            comparison_verdict: None,
        }
    }

    #[test]
    fn a_table_of_5_round_intervals_notes_their_93_75_pct_coverage() {
        let note = coverage_note(&[row(5, Some(93.75)), row(5, Some(93.75)), row(2, Some(50.0))]);
        assert_eq!(
            note.as_deref(),
            Some(
                "Note: the intervals of `ours` cover 50% with 2 rounds, 93.75% with 5 rounds, not 95%: each is the k-th smallest to the k-th largest of the n per-round ratios (order statistics), and fewer than 6 rounds cannot reach 95% (oltp/README.md, \"Comparisons\")."
            )
        );
        assert_eq!(coverage_note(&[row(6, Some(96.875))]), None, "95% reached");
        assert_eq!(
            coverage_note(&[row(1, None)]),
            None,
            "a deterministic figure"
        );
    }

    #[test]
    fn the_ours_header_names_the_coverage_the_intervals_have() {
        assert_eq!(
            ours_header(&[row(5, Some(93.75)), row(1, None)]),
            "ours (93.75% CI)"
        );
        assert_eq!(
            ours_header(&[row(2, Some(50.0)), row(5, Some(93.75)), row(5, Some(93.75))]),
            "ours (93.75% / 50% CI)"
        );
        assert_eq!(ours_header(&[row(6, Some(96.875))]), "ours (96.88% CI)");
        assert_eq!(ours_header(&[row(1, None)]), "ours");
    }

    #[test]
    fn the_note_follows_the_rows_table_in_markdown_and_html() {
        let r = Reproduction {
            header: encbench_oltp::report::Report::begin(),
            report: "000".into(),
            title: "t".into(),
            seed_file: "s".into(),
            quick: true,
            partial: false,
            stopped: None,
            scale: "s".into(),
            tolerance: "t".into(),
            setup_differences: Vec::new(),
            rows: vec![row(5, Some(93.75))],
            identity: Vec::new(),
            measurements: serde_json::Map::new(),
            tables: Vec::new(),
            runs: Vec::new(),
            charts: Vec::new(),
        };
        let md = to_markdown(&r);
        assert!(
            md.contains("\n| figure | line | published | ours (93.75% CI) | verdict | reason |\n"),
            "{md}"
        );
        let html = crate::html::to_html(&r);
        assert!(html.contains("<th>ours (93.75% CI)</th>"), "{html}");
        let lines: Vec<&str> = md.lines().collect();
        let last_row = lines
            .iter()
            .rposition(|l| l.starts_with("| QPS change"))
            .expect("the row");
        assert_eq!(lines[last_row + 1], "");
        assert!(
            lines[last_row + 2]
                .starts_with("Note: the intervals of `ours` cover 93.75% with 5 rounds, not 95%"),
            "{md}"
        );
        let html = crate::html::to_html(&r);
        assert!(
            html.contains("</tbody></table>\n<p id=\"coverage\">Note: the intervals of ours cover 93.75% with 5 rounds, not 95%"),
            "{html}"
        );
        let r = Reproduction {
            rows: vec![row(6, Some(96.875))],
            ..r
        };
        assert!(!to_markdown(&r).contains("Note: "));
        assert!(!crate::html::to_html(&r).contains("id=\"coverage\""));
    }

    #[test]
    fn a_figure2_interval_shows_its_coverage_and_rounds() {
        // The point a partial 003 run left (2 rounds: min..max covers 50%).
        let p = serde_json::json!({
            "connections": 1, "tls_change_pct": 71.077, "ci95_low_pct": 66.99,
            "ci95_high_pct": 75.16, "confidence_pct": 50.0, "rounds": 2
        });
        assert_eq!(
            figure2_change(&p),
            "+71.1% (+67.0% to +75.2%; 50%, 2 rounds)"
        );
        let one = serde_json::json!({ "connections": 1, "tls_change_pct": 5.0, "rounds": 1 });
        assert_eq!(figure2_change(&one), "1 round: no %");
    }
}
