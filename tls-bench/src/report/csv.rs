//! CSV: one block per table, the section as the first column.

use super::Report;

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
        header.extend(t.table.headers.iter().cloned());
        w.write_record(&header).map_err(|e| err(&e))?;
        for r in &t.table.rows {
            let mut rec = vec![t.section.to_string()];
            rec.extend(r.iter().cloned());
            w.write_record(&rec).map_err(|e| err(&e))?;
        }
        let bytes = w.into_inner().map_err(|e| err(&e))?;
        out.push_str(&String::from_utf8_lossy(&bytes));
    }
    Ok(out)
}
