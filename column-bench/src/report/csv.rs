//! CSV: one section per kind of row (results, capacity, comparisons), each
//! with its own header row.

use serde::Serialize;

use super::{PointResult, Report};
use crate::capacity::CapacityRow;
use crate::comparison::{Kind, PointComparison};
use crate::error::{Error, Result};
use crate::measure::{KeyMode, Operation, PathKind};

impl Report {
    /// CSV: the `results` table, then (each after a blank line, only when not
    /// empty) the `capacity` table and the `comparisons` table, each with its
    /// own header row (field names as in the JSON; a reader tells the sections
    /// apart by their first header field: `backend`, `workload`, `kind`).
    /// Numbers are rounded as in the text tables, the JSON keeping full
    /// precision: bytes, ns and MB/s to 0.1, values/s, transactions/s and QPS to
    /// integers, µs per transaction and cores to 0.01, comparison medians (ns)
    /// and percentages to 0.1 (percent values without a `%` sign); counts and
    /// targets given on the command line (opens, seals and queries per
    /// transaction, target QPS) as given. A comparison of one round has its
    /// change, interval and confidence cells empty (one round prints no %) and
    /// the verdict `1 round`. With `--control` the `noise_floor` entries follow
    /// the comparisons in the same section, `kind` `noise_floor`.
    ///
    /// # Errors
    /// Serialization fails (not expected).
    pub fn to_csv(&self) -> Result<String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        for r in &self.results {
            w.serialize(CsvPoint::from(r)).map_err(|e| csv_err(&e))?;
        }
        let mut bytes = w.into_inner().map_err(|e| csv_err(e.error()))?;
        if !self.capacity.is_empty() {
            bytes.push(b'\n');
            let mut w = csv::Writer::from_writer(bytes);
            for c in &self.capacity {
                w.serialize(CsvCapacity::from(c)).map_err(|e| csv_err(&e))?;
            }
            bytes = w.into_inner().map_err(|e| csv_err(e.error()))?;
        }
        if !self.comparisons.is_empty() || !self.noise_floor.is_empty() {
            bytes.push(b'\n');
            let mut w = csv::Writer::from_writer(bytes);
            for c in self.comparisons.iter().chain(&self.noise_floor) {
                w.serialize(CsvComparison::from(c))
                    .map_err(|e| csv_err(&e))?;
            }
            bytes = w.into_inner().map_err(|e| csv_err(e.error()))?;
        }
        String::from_utf8(bytes).map_err(|e| Error::Output {
            format: "csv",
            detail: e.to_string(),
        })
    }
}

/// A `results` row of the CSV: [`PointResult`] rounded as in the text table.
#[derive(Serialize)]
struct CsvPoint<'a> {
    backend: &'a str,
    algorithm: &'a str,
    column: &'a str,
    value_bytes: String,
    operation: Operation,
    key_mode: KeyMode,
    path: PathKind,
    batch_rows: usize,
    threads: usize,
    ns_per_value: String,
    ns_per_value_p10: String,
    ns_per_value_p90: String,
    values_per_sec: String,
    mb_per_sec: String,
    samples: usize,
}

impl<'a> From<&'a PointResult> for CsvPoint<'a> {
    fn from(r: &'a PointResult) -> Self {
        CsvPoint {
            backend: &r.backend,
            algorithm: &r.algorithm,
            column: &r.column,
            value_bytes: csv_num(r.value_bytes, 1),
            operation: r.operation,
            key_mode: r.key_mode,
            path: r.path,
            batch_rows: r.batch_rows,
            threads: r.threads,
            ns_per_value: csv_num(r.ns_per_value, 1),
            ns_per_value_p10: csv_num(r.ns_per_value_p10, 1),
            ns_per_value_p90: csv_num(r.ns_per_value_p90, 1),
            values_per_sec: csv_num(r.values_per_sec, 0),
            mb_per_sec: csv_num(r.mb_per_sec, 1),
            samples: r.samples,
        }
    }
}

/// A `capacity` row of the CSV: [`CapacityRow`] rounded as in the text table
/// (counts and the target as given).
#[derive(Serialize)]
struct CsvCapacity<'a> {
    workload: &'a str,
    backend: &'a str,
    algorithm: &'a str,
    opens_per_txn: f64,
    seals_per_txn: f64,
    decrypt_us_per_txn: String,
    seal_us_per_txn: String,
    client_sort_us_per_txn: String,
    txn_per_sec_per_core: String,
    queries_per_txn: f64,
    qps_per_core: String,
    target_qps: f64,
    cores_for_target: String,
}

impl<'a> From<&'a CapacityRow> for CsvCapacity<'a> {
    fn from(c: &'a CapacityRow) -> Self {
        CsvCapacity {
            workload: &c.workload,
            backend: &c.backend,
            algorithm: &c.algorithm,
            opens_per_txn: c.opens_per_txn,
            seals_per_txn: c.seals_per_txn,
            decrypt_us_per_txn: csv_num(c.decrypt_us_per_txn, 2),
            seal_us_per_txn: csv_num(c.seal_us_per_txn, 2),
            client_sort_us_per_txn: csv_num(c.client_sort_us_per_txn, 2),
            txn_per_sec_per_core: csv_num(c.txn_per_sec_per_core, 0),
            queries_per_txn: c.queries_per_txn,
            qps_per_core: csv_num(c.qps_per_core, 0),
            target_qps: c.target_qps,
            cores_for_target: csv_num(c.cores_for_target, 2),
        }
    }
}

/// A `comparisons` row of the CSV: [`PointComparison`] with the medians and
/// percentages to 0.1; with one round (no interval) the change, interval and
/// confidence are empty.
#[derive(Serialize)]
struct CsvComparison<'a> {
    kind: Kind,
    column: &'a str,
    operation: Operation,
    key_mode: KeyMode,
    batch_rows: usize,
    threads: usize,
    metric: &'a str,
    baseline: &'a str,
    variant: &'a str,
    rounds: usize,
    baseline_median: String,
    variant_median: String,
    median_change_pct: String,
    ci95_low_pct: String,
    ci95_high_pct: String,
    confidence_pct: String,
    verdict: &'static str,
}

impl<'a> From<&'a PointComparison> for CsvComparison<'a> {
    fn from(p: &'a PointComparison) -> Self {
        let c = &p.comparison;
        let pct = |x: Option<f64>| x.map_or_else(String::new, |x| csv_num(x, 1));
        // The change is printed only with its interval.
        let change = c.ci95_low_pct.map(|_| c.median_change_pct);
        CsvComparison {
            kind: p.kind,
            column: &p.column,
            operation: p.operation,
            key_mode: p.key_mode,
            batch_rows: p.batch_rows,
            threads: p.threads,
            metric: &c.metric,
            baseline: &c.baseline,
            variant: &c.variant,
            rounds: c.rounds,
            baseline_median: csv_num(c.baseline_median, 1),
            variant_median: csv_num(c.variant_median, 1),
            median_change_pct: pct(change),
            ci95_low_pct: pct(c.ci95_low_pct),
            ci95_high_pct: pct(c.ci95_high_pct),
            confidence_pct: pct(c.confidence_pct),
            verdict: c.verdict.as_str(),
        }
    }
}

/// `x` with `decimals` decimals, no thousands separators; empty when not finite
/// (as the text table's `-`).
fn csv_num(x: f64, decimals: usize) -> String {
    if x.is_finite() {
        format!("{x:.decimals$}")
    } else {
        String::new()
    }
}

fn csv_err(e: &dyn std::fmt::Display) -> Error {
    Error::Output {
        format: "csv",
        detail: e.to_string(),
    }
}
