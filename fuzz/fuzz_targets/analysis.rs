//! The proxy's statement analysis (`encbench_proxy::analysis::analyze`) on
//! arbitrary SQL text, under every layout of sysbench's columns (plain,
//! randomized, deterministic per column).
//!
//! - Never a panic.
//! - A plan's template has one slot per sealed literal, each slot used once,
//!   and renders; a select plan's encrypted result columns are at distinct
//!   positions, none of them the id column it opens them with.
//! - No value in a refusal: when every `SECRET` of the text is inside a
//!   single-quoted string (and the text has no other quote or backslash, so
//!   that quotes pair up), no refusal message (Display, Debug) holds `SECRET`.
//!
//! Input: layout selector, then the SQL text.
#![no_main]

use encbench_oltp::columns::{ColumnMode, Columns};
use encbench_proxy::analysis::{
    EncryptionSchema, IdSource, Plan, SealTarget, SqlTemplate, analyze,
};
use libfuzzer_sys::fuzz_target;

const MODES: [ColumnMode; 3] = [
    ColumnMode::Plain,
    ColumnMode::Randomized,
    ColumnMode::Deterministic,
];

fn check_template(template: &Option<SqlTemplate>, seals: &[encbench_proxy::analysis::Seal]) {
    let slots: Vec<usize> = seals
        .iter()
        .filter_map(|s| match &s.target {
            SealTarget::Literal { slot, .. } => Some(*slot),
            SealTarget::Param(_) => None,
        })
        .collect();
    let n = template.as_ref().map_or(0, SqlTemplate::slots);
    if slots.is_empty() {
        return;
    }
    assert_eq!(slots.len(), n, "one slot per sealed literal");
    let mut sorted = slots.clone();
    sorted.sort_unstable();
    assert!(sorted.iter().copied().eq(0..n), "each slot once: {slots:?}");
    let values: Vec<&[u8]> = vec![b"\x00\xff"; n];
    let _ = template.as_ref().map(|t| t.render(&values));
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, text)) = data.split_first() else {
        return;
    };
    let Ok(sql) = std::str::from_utf8(text) else {
        return;
    };
    let columns = Columns {
        k: MODES[usize::from(selector % 3)],
        c: MODES[usize::from(selector / 3 % 3)],
        pad: MODES[usize::from(selector / 9 % 3)],
    };
    if columns.encrypted().next().is_none() {
        return;
    }
    let schema = EncryptionSchema::sysbench(columns);
    match analyze(&schema, sql) {
        Ok(Plan::Select(p)) => {
            check_template(&p.sql, &p.seals);
            let mut positions: Vec<usize> = p.columns.iter().map(|c| c.position).collect();
            positions.sort_unstable();
            positions.dedup();
            assert_eq!(positions.len(), p.columns.len(), "distinct positions");
            if let Some(IdSource::Column(id)) = p.id {
                assert!(!positions.contains(&id), "the id column is not encrypted");
            }
        }
        Ok(Plan::Write(p)) => check_template(&p.sql, &p.seals),
        Ok(Plan::ReadModifyWrite(p)) => {
            assert_eq!(p.select.slots(), 0);
            assert!(
                p.select_params
                    .iter()
                    .all(|&i| i < sql.matches('?').count())
            );
        }
        Ok(_) => {}
        Err(refusal) => {
            // Single quotes pair up only without other quotes and escapes
            // (a backtick identifier may hold a quote: `sbtest1 'SECRET'` is a
            // name, which a message may show).
            let parts: Vec<&str> = sql.split('\'').collect();
            let outside = parts.iter().step_by(2).any(|p| p.contains("SECRET"));
            let plain_quotes = !sql.contains(['`', '"', '\\']);
            if plain_quotes && !outside && sql.contains("SECRET") {
                let shown = format!("{refusal} {refusal:?}");
                assert!(!shown.contains("SECRET"), "a value in a refusal: {shown}");
            }
        }
    }
});
