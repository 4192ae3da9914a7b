//! `oltp merge` and `column-bench --oltp-result` on arbitrary JSON, structure
//! aware: the input holds up to two JSON documents and a list of edits,
//! separated by NUL bytes (never valid inside JSON). Each document that parses
//! as JSON gets the edits applied to its numbers and strings (hostile numbers:
//! 0, -1, u64::MAX, i64::MIN, 1e308, 5e-324, 2^53 + 1 ...; huge or empty
//! histograms, serialized by hdrhistogram itself with extreme bounds and
//! counts; mismatched names), so the mutations stay valid-looking results.
//!
//! - Never a panic, in the parsers, the merge, or any exporter (text,
//!   Markdown, CSV, JSON, SVG).
//! - A report that parses writes JSON that parses back to the same runs.
//! - column-bench's reader and its comparison never panic on what it accepts.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use encbench_common::ResultHeader;
use encbench_oltp::fuzzing::{ClientReport, merge};
use encbench_oltp::report::{Report, histogram_to_hex, json};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0);
    let a = parts.next().unwrap_or_default();
    let b = parts.next();
    let edits = parts.next().unwrap_or_default();
    let a = edited(a, edits);
    let b = b.map(|b| edited(b, edits.get(edits.len() / 2..).unwrap_or_default()));
    let first = check_one(&a);
    if let (Some(first), Some(b)) = (first, b.as_deref()) {
        if let Some(second) = check_one(b) {
            let clients = [client("a.json", first), client("b.json", second)];
            if let Ok(runs) = merge(&clients) {
                render(runs);
            }
        }
    }
});

fn client(file: &str, file_runs: json::ReportFile) -> ClientReport {
    ClientReport {
        file: file.into(),
        schema_version: file_runs.schema_version,
        runs: file_runs.runs,
    }
}

/// Both readers on one document; the oltp report when it parses.
fn check_one(doc: &[u8]) -> Option<json::ReportFile> {
    if let Ok(text) = std::str::from_utf8(doc) {
        if let Ok(runs) = column_bench::oltp_result::parse(text, Path::new("fuzz.json")) {
            let runs = column_bench::oltp_result::OltpRuns {
                runs: runs.into_iter().map(|r| ("fuzz.json".into(), r)).collect(),
            };
            let _ = runs.encrypt_names();
            if let Ok(rows) = column_bench::oltp_result::compare(&runs, |_, range_size, encrypt| {
                Ok(Some(column_bench::oltp_result::Prediction {
                    crypto_us_per_txn: f64::from(range_size) * encrypt.len() as f64,
                    client_sort_us_per_txn: f64::from(range_size),
                }))
            }) {
                let _ = serde_json::to_string(&rows);
            }
        }
    }
    let parsed = json::parse(doc).ok()?;
    let report = render(parsed.runs.clone());
    let again = json::parse(report.as_bytes()).expect("a report read back from its own JSON");
    assert!(
        again.runs == parsed.runs,
        "runs changed through to_json and parse"
    );
    Some(parsed)
}

/// Every exporter over the report of `runs`; returns its JSON.
fn render(runs: Vec<encbench_oltp::report::RunResult>) -> String {
    static HEADER: OnceLock<ResultHeader> = OnceLock::new();
    let header = HEADER.get_or_init(Report::begin).clone();
    let report = Report::new(header, runs);
    for r in &report.runs {
        let _ = r.to_text();
    }
    let _ = encbench_oltp::report::summary_text(&report.summary);
    let _ = encbench_oltp::report::comparisons_text(&report.comparisons, &report.noise_floor);
    let _ = report.to_markdown();
    let _ = report.to_csv();
    let _ = encbench_oltp::report::svg::svg(&report.summary);
    report.to_json().expect("a report serializes")
}

/// `doc` with `edits` applied when it is JSON; else as it is.
fn edited(doc: &[u8], edits: &[u8]) -> Vec<u8> {
    if edits.is_empty() {
        return doc.to_vec();
    }
    let Ok(mut value) = serde_json::from_slice::<Value>(doc) else {
        return doc.to_vec();
    };
    for edit in edits.chunks(3) {
        let at = usize::from(edit[0]) | usize::from(*edit.get(2).unwrap_or(&0)) << 8;
        let kind = *edit.get(1).unwrap_or(&0);
        let mut leaves = Vec::new();
        collect(&mut value, &mut leaves);
        if leaves.is_empty() {
            break;
        }
        let n = leaves.len();
        let leaf = &mut *leaves[at % n];
        *leaf = hostile(leaf, kind);
    }
    serde_json::to_vec(&value).unwrap_or_else(|_| doc.to_vec())
}

/// Every number and string in `v`, depth first.
fn collect<'v>(v: &'v mut Value, out: &mut Vec<&'v mut Value>) {
    match v {
        Value::Array(a) => a.iter_mut().for_each(|x| collect(x, out)),
        Value::Object(o) => o.values_mut().for_each(|x| collect(x, out)),
        Value::Number(_) | Value::String(_) => out.push(v),
        _ => {}
    }
}

/// A hostile replacement for `leaf`, by `kind`.
fn hostile(leaf: &Value, kind: u8) -> Value {
    const NUMBERS: [f64; 10] = [
        0.0,
        -1.0,
        1e308,
        -1e308,
        5e-324,
        9_007_199_254_740_993.0,
        4_294_967_296.0,
        0.5,
        1e-9,
        1e19,
    ];
    match kind % 16 {
        0 => Value::from(u64::MAX),
        1 => Value::from(i64::MIN),
        2 => Value::from(u32::MAX),
        3 => Value::from(0u64),
        4..=9 => serde_json::Number::from_f64(
            NUMBERS[usize::from(kind % 16 - 4) + usize::from(kind >> 7) * 4],
        )
        .map_or(Value::Null, Value::Number),
        10 => Value::from(histogram(kind >> 4)),
        11 => Value::from(""),
        12 => Value::from("none"),
        13 => Value::from("rustcrypto:aes-256-gcm"),
        14 => match leaf {
            // Bounded: edits compound, and 3^n copies of a seed's string ran
            // the target out of memory (the harness, not the product).
            Value::String(s) if s.len() <= 4096 => Value::from(s.repeat(3)),
            other => other.clone(),
        },
        _ => Value::from("oltp_read_only"),
    }
}

/// A histogram serialized by hdrhistogram (V2 deflate, hex) with extreme
/// bounds or counts, by `kind` (0..16); built once.
fn histogram(kind: u8) -> String {
    static HISTOGRAMS: OnceLock<Vec<String>> = OnceLock::new();
    HISTOGRAMS.get_or_init(|| (0..4).map(build_histogram).collect())[usize::from(kind % 4)].clone()
}

fn build_histogram(kind: u8) -> String {
    use hdrhistogram::Histogram;
    let h = match kind {
        0 => Histogram::<u64>::new_with_bounds(1, u64::MAX / 2, 5)
            .ok()
            .map(|mut h| {
                let _ = h.record(u64::MAX / 2);
                h
            }),
        1 => Histogram::<u64>::new(3).ok().map(|mut h| {
            let _ = h.record_n(1, u64::MAX);
            let _ = h.record_n(1_000_000, u64::MAX / 3);
            h
        }),
        2 => Histogram::<u64>::new_with_bounds(1, 2, 0).ok(),
        _ => Histogram::<u64>::new(5).ok(),
    };
    h.map(|h| histogram_to_hex(&h)).unwrap_or_default()
}
