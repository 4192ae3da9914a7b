//! `report.html`: one self-contained page (no network: inline CSS, inline
//! SVG charts, no scripts): the rows table, the extra tables of `report.md`
//! and the charts.

use std::fmt::Write as _;

use encbench_common::header::rfc3339;

use super::markdown::cells;
use super::row::Reproduction;

/// `s` escaped for HTML text and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The SVG document `svg` without its XML declaration, to inline in HTML.
fn inline_svg(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    }
}

const STYLE: &str = "body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.25em .5em;text-align:left;vertical-align:top}th{background:#eee}.reproduced{background:#e3f6e3}.differs{background:#fbe9d7}.not-reproducible-here{background:#eee}.partial{color:#a00;font-weight:bold}figure{margin:1em 0}";

/// The whole page.
pub fn to_html(r: &Reproduction) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Report {} reproduced</title><style>{STYLE}</style></head><body>\n",
        escape(&r.report)
    );
    let _ = writeln!(
        o,
        "<h1>Report {}: {}</h1>",
        escape(&r.report),
        escape(&r.title)
    );
    let _ = writeln!(
        o,
        "<p>Seed <code>{}</code>. Measured {} to {} on {} ({} logical CPUs); {} mode.</p>",
        escape(&r.seed_file),
        escape(&rfc3339(r.header.started_at).unwrap_or_default()),
        escape(&rfc3339(r.header.ended_at).unwrap_or_default()),
        escape(&r.header.machine.cpu_model),
        r.header.machine.logical_cpus,
        if r.quick { "quick" } else { "full" }
    );
    if r.partial {
        let _ = writeln!(
            o,
            "<p class=\"partial\" id=\"partial\">PARTIAL: {}; the rows are the ones measured so far.</p>",
            escape(r.stopped.as_deref().unwrap_or("still running"))
        );
    }
    let _ = writeln!(
        o,
        "<p>Scale: {}</p><p>Verdicts: {}</p>",
        escape(&r.scale),
        escape(&r.tolerance)
    );
    let _ = writeln!(
        o,
        "<table id=\"rows\"><thead><tr><th>figure</th><th>line</th><th>published</th><th>{}</th><th>verdict</th><th>reason</th></tr></thead><tbody>",
        escape(&super::markdown::ours_header(&r.rows))
    );
    for row in &r.rows {
        let tds: String = cells(row)
            .iter()
            .map(|c| format!("<td>{}</td>", escape(c)))
            .collect();
        let _ = writeln!(
            o,
            "<tr class=\"{}\">{tds}</tr>",
            row.verdict.as_str().replace(' ', "-"),
        );
    }
    let _ = writeln!(o, "</tbody></table>");
    if let Some(note) = super::markdown::coverage_note(&r.rows) {
        let _ = writeln!(
            o,
            "<p id=\"coverage\">{}</p>",
            escape(&note.replace('`', ""))
        );
    }
    for (i, c) in r.charts.iter().enumerate() {
        let _ = writeln!(
            o,
            "<figure id=\"chart-{}\" class=\"chart\">{}<figcaption>{}</figcaption></figure>",
            i + 1,
            inline_svg(&c.svg),
            escape(&c.title)
        );
    }
    if let Some(curve) = r.measurements.get("figure2").and_then(|v| v.as_array()) {
        let _ = writeln!(
            o,
            "<h2>Figure 2: average SELECT time (ms) vs connections</h2><table id=\"figure2\"><thead><tr><th>connections</th><th>plain RT ms</th><th>TLS RT ms</th><th>TLS change (CI)</th><th>A/A floor</th></tr></thead><tbody>"
        );
        for p in curve {
            let f = |k: &str| p[k].as_f64();
            let ms = |k: &str| f(k).map_or("-".to_string(), |v| format!("{v:.3}"));
            let change = super::markdown::figure2_change(p);
            let floor = match (f("noise_floor_low_pct"), f("noise_floor_high_pct")) {
                (Some(lo), Some(hi)) => format!("{lo:+.1}% to {hi:+.1}%"),
                _ => "-".to_string(),
            };
            let _ = writeln!(
                o,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                p["connections"],
                ms("plain_rt_ms"),
                ms("tls_rt_ms"),
                escape(&change),
                escape(&floor)
            );
        }
        let _ = writeln!(o, "</tbody></table>");
    }
    for t in &r.tables {
        let ths: String = t
            .columns
            .iter()
            .map(|c| format!("<th>{}</th>", escape(c)))
            .collect();
        let _ = writeln!(
            o,
            "<h2>{}</h2><p>{}</p><table id=\"{}\"><thead><tr>{ths}</tr></thead><tbody>",
            escape(&t.title),
            escape(&t.note),
            escape(&t.id)
        );
        for row in &t.rows {
            let tds: String = row
                .iter()
                .map(|c| format!("<td>{}</td>", escape(c)))
                .collect();
            let _ = writeln!(o, "<tr>{tds}</tr>");
        }
        let _ = writeln!(o, "</tbody></table>");
    }
    if !r.identity.is_empty() {
        let _ = writeln!(
            o,
            "<h2>Identity RT = threads x queries per transaction / QPS</h2><table id=\"identity\"><thead><tr><th>whose</th><th>workload</th><th>threads</th><th>q/trx</th><th>QPS</th><th>RT ms</th><th>predicted ms</th><th>deviation</th></tr></thead><tbody>"
        );
        for i in &r.identity {
            let _ = writeln!(
                o,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.0}</td><td>{:.2}</td><td>{:.2}</td><td>{:+.1}%</td></tr>",
                escape(&i.whose),
                escape(&i.workload),
                i.threads,
                i.queries_per_transaction,
                i.qps,
                i.rt_ms,
                i.predicted_rt_ms,
                i.deviation_pct
            );
        }
        let _ = writeln!(o, "</tbody></table>");
    }
    let _ = writeln!(o, "<h2>Where the setups differ</h2><ul>");
    for d in &r.setup_differences {
        let _ = writeln!(o, "<li>{}</li>", escape(d));
    }
    let _ = writeln!(o, "</ul>\n</body></html>");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_strips_the_xml_declaration() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(inline_svg("<?xml version=\"1.0\"?>\n<svg x>"), "<svg x>");
    }
}
