//! What reproduce writes: the reproduction updated from the runs so far,
//! report.md, report.json, report.html and the charts, the rows on stdout,
//! and the scale in words.

use std::path::Path;

use anyhow::Result;

use crate::plan::{Plan, Scale, comma_separated};
use crate::published::Published;
use crate::row::Reproduction;
use crate::{
    ReportId, at_rest_pgbench, cached_vs_io_bound, column_encryption, html, json, markdown,
    tls_footprint,
};
use encbench_oltp::commands::write_atomically;

use super::SideMeasurements;

/// The report's rows and words from what has been measured.
pub(super) fn update_reproduction(
    id: ReportId,
    r: &mut Reproduction,
    p: &Published,
    plan: &Plan,
    extras: &SideMeasurements,
) {
    match id {
        ReportId::R003 => {
            tls_footprint::update_reproduction(r, p, plan, &extras.footprint, &extras.tls_bench)
        }
        ReportId::R000 => {
            column_encryption::update_reproduction(r, p, plan, r.quick, &extras.proxy)
        }
        ReportId::R001 => at_rest_pgbench::update_reproduction(r, p, plan, &extras.at_rest),
        ReportId::R004 => cached_vs_io_bound::update_reproduction(r, p, plan, r.quick, &extras.io),
    }
}

/// Writes report.md, report.json, report.html and chart-N.svg into `out`,
/// each atomically.
pub(super) fn write_reports(r: &Reproduction, out: &Path) -> Result<()> {
    write_atomically(
        &out.join("report.json"),
        json::to_json(r)?.as_bytes(),
        "--out",
    )?;
    write_atomically(
        &out.join("report.md"),
        markdown::to_markdown(r).as_bytes(),
        "--out",
    )?;
    write_atomically(
        &out.join("report.html"),
        html::to_html(r).as_bytes(),
        "--out",
    )?;
    for (i, c) in r.charts.iter().enumerate() {
        write_atomically(
            &out.join(format!("chart-{}.svg", i + 1)),
            c.svg.as_bytes(),
            "--out",
        )?;
    }
    Ok(())
}

/// The rows table of `report.md` (for stdout).
pub(super) fn markdown_rows(r: &Reproduction) -> String {
    let md = markdown::to_markdown(r);
    let start = md.find("| figure |").unwrap_or(0);
    let end = md[start..].find("\n\n").map_or(md.len(), |e| start + e + 1);
    md[start..end].to_string()
}

/// The scale in words.
pub(super) fn scale_text(plan: &Plan, p: &Published, scale: &Scale) -> String {
    let s = &plan.scale;
    if plan.db.is_empty() {
        return format!(
            "pgbench, {} connections, {} interleaved rounds of {} s runs after {} s of warm-up; {}{}",
            comma_separated(&s.threads),
            s.repeat,
            s.time_s,
            s.warmup_s,
            s.scaled_how.as_deref().unwrap_or(""),
            if scale.overridden() {
                "; test overrides given: not the report's scale"
            } else {
                ""
            }
        );
    }
    format!(
        "{} x {} rows (report: {} x {}), threads {}, {} interleaved rounds of {} s runs after {} s of warm-up, the baseline twice per round (--control: A/A noise floor){}{}",
        encbench_oltp::report::count(u64::from(s.tables), "table", "tables"),
        s.table_size,
        p.full.tables,
        p.full.table_size,
        comma_separated(&s.threads),
        s.repeat,
        s.time_s,
        s.warmup_s,
        s.scaled_how
            .as_deref()
            .filter(|_| scale.quick)
            .map(|h| format!("; quick: {h}"))
            .unwrap_or_default(),
        if scale.overridden() {
            "; test overrides given: not the report's scale"
        } else {
            ""
        }
    )
}
