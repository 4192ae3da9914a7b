//! The result type every exporter reads ([`Report`]), and one exporter per
//! format, each in a file of its own: terminal text ([`Report::to_text`]),
//! Markdown ([`Report::to_markdown`]), JSON ([`Report::to_json`]), CSV
//! ([`Report::to_csv`]) and the SVG chart of ns per value against value size
//! ([`Report::to_svg`]); the tables text and Markdown share are drawn in
//! `tables.rs`.

mod csv;
mod json;
mod markdown;
mod svg;
mod tables;
mod text;

use encbench_common::ResultHeader;
use encbench_registry::Descriptor;
use serde::Serialize;

use crate::capacity::CapacityRow;
use crate::comparison::PointComparison;
use crate::measure::{KeyMode, Observations, Operation, PathKind, Timing, Variant};
use crate::oltp_result::ComparisonRow;

/// One measured point: one backend and algorithm, one column, one variant.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PointResult {
    /// Backend name, e.g. `openssl`.
    pub backend: String,
    /// Algorithm name, e.g. `aes-256-gcm`.
    pub algorithm: String,
    /// Column name.
    pub column: String,
    /// Mean plaintext length of the column's values, bytes.
    pub value_bytes: f64,
    /// `open` or `seal`.
    pub operation: Operation,
    /// `reused` (key set up once) or `per_value` (key schedule per value).
    pub key_mode: KeyMode,
    /// `envelope` (the proxy's whole per-value path) or `bare` (the AEAD call only).
    pub path: PathKind,
    /// Values per timed unit (result-set rows).
    pub batch_rows: usize,
    /// Threads running at once, sharing one cipher.
    pub threads: usize,
    /// Median time per value on one thread, ns.
    pub ns_per_value: f64,
    /// 10th percentile of the per-sample ns per value, ns.
    pub ns_per_value_p10: f64,
    /// 90th percentile of the per-sample ns per value, ns.
    pub ns_per_value_p90: f64,
    /// Values per second of all threads together (threads x 1e9 / ns_per_value).
    pub values_per_sec: f64,
    /// Plaintext megabytes (10^6 bytes) per second of all threads together.
    pub mb_per_sec: f64,
    /// Samples the median is taken over (each sample = every value of the corpus once).
    pub samples: usize,
}

impl PointResult {
    /// Summarizes observations.
    pub fn new(
        d: &Descriptor,
        column: &str,
        value_bytes: f64,
        v: &Variant,
        o: &Observations,
    ) -> PointResult {
        let ns = o.quantile(0.5);
        let vps = v.threads as f64 * 1e9 / ns;
        PointResult {
            backend: d.backend.to_string(),
            algorithm: d.algorithm.name().to_string(),
            column: column.to_string(),
            value_bytes,
            operation: v.operation,
            key_mode: v.key_mode,
            path: v.path,
            batch_rows: v.batch_rows,
            threads: v.threads,
            ns_per_value: ns,
            ns_per_value_p10: o.quantile(0.1),
            ns_per_value_p90: o.quantile(0.9),
            values_per_sec: vps,
            mb_per_sec: vps * value_bytes / 1e6,
            samples: o.ns_per_value.len(),
        }
    }

    /// Whether this result was measured with variant `v`.
    pub fn matches(&self, v: &Variant) -> bool {
        self.operation == v.operation
            && self.key_mode == v.key_mode
            && self.path == v.path
            && self.batch_rows == v.batch_rows
            && self.threads == v.threads
    }

    /// Whether this is the proxy's reference point (open, key reused, envelope,
    /// one value at a time, one thread).
    pub fn is_reference(&self) -> bool {
        self.operation == Operation::Open
            && self.key_mode == KeyMode::Reused
            && self.path == PathKind::Envelope
            && self.batch_rows == 1
            && self.threads == 1
    }
}

/// One row of a shape: the sum over its columns.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RowResult {
    /// Backend name.
    pub backend: String,
    /// Algorithm name.
    pub algorithm: String,
    /// `open` or `seal`.
    pub operation: Operation,
    /// Key mode.
    pub key_mode: KeyMode,
    /// Path.
    pub path: PathKind,
    /// Encrypted columns per row.
    pub columns: usize,
    /// Mean plaintext bytes per row (encrypted columns only), bytes.
    pub row_bytes: f64,
    /// Time per row on one thread (sum of the columns' medians), ns.
    pub ns_per_row: f64,
    /// Rows per second on one thread.
    pub rows_per_sec: f64,
}

/// How the run was set up.
#[derive(Clone, Debug, Serialize)]
pub struct Settings {
    /// Warm-up, measurement time and corpus size per point.
    #[serde(flatten)]
    pub timing: Timing,
    /// Rounds over the whole grid (observations pooled in `results`, paired
    /// per round in `comparisons`).
    pub rounds: usize,
    /// `--control`: the baselines ran twice per round for the noise floor
    /// (with 2 or more rounds; see `noise_floor`).
    pub control: bool,
    /// Table name bound into the AAD.
    pub table: String,
    /// The columns as `NAME:LENGTHS` (bytes).
    pub columns: Vec<String>,
    /// QPS the capacity table sizes the proxy for.
    pub target_qps: f64,
}

/// The version of column-bench's JSON layout (`schema_version`): raised when
/// a field is removed, renamed or changes meaning.
pub const SCHEMA_VERSION: u32 = 1;

/// Everything `column-bench` reports; every output format is an exporter of this.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `schema_version`, `tool` {`name`: `column-bench`, `version`,
    /// `git_revision`}, `started_at`, `ended_at` (around the measurement) and
    /// `machine`: the head of every encbench JSON result, flattened.
    #[serde(flatten)]
    pub header: ResultHeader,
    /// column-bench's version (as `tool.version`; kept from before the header).
    pub version: &'static str,
    /// The run's settings.
    pub settings: Settings,
    /// Every measured point.
    pub results: Vec<PointResult>,
    /// Envelope vs bare and backend vs baseline backend over the paired rounds,
    /// at every grid point measured on both sides ([`PointComparison`]).
    pub comparisons: Vec<PointComparison>,
    /// With `--control` and 2 or more rounds: per baseline point, its second
    /// run of each round (A') against its first (A), `kind` `noise_floor`, the
    /// other fields as in `comparisons`: the interval the machine's noise alone
    /// gives now. Empty otherwise.
    pub noise_floor: Vec<PointComparison>,
    /// Per-row sums.
    pub rows: Vec<RowResult>,
    /// Proxy capacity per workload and backend.
    pub capacity: Vec<CapacityRow>,
    /// Model vs measured `oltp` runs (empty without `--oltp-result`).
    pub oltp_comparison: Vec<ComparisonRow>,
}

/// Printed with `--control --rounds 1`: there is no A/A pair to compare.
pub const NO_FLOOR_NOTE: &str =
    "--control: 1 round gives no noise floor (no A/A pairs to compare): run --rounds 5 --control";

/// Printed under the comparison tables with `--control` and 2 or more rounds.
pub const FLOOR_NOTE: &str = "Noise floor on this machine now (--control): each A/A row is a baseline measured twice per round, half a round apart (B = its second run); \
a comparison whose interval overlaps its baseline's A/A interval is \"within noise floor\", not attributed to the variant.";

/// What the capacity table counts, printed under it.
pub const CAPACITY_NOTE: &str = "Capacity counts the AEAD and envelope work per value (single-thread ns/value of open and seal, key reused) \
and the client-side sort/dedup of ORDER BY/DISTINCT ranges (ns per sorted result set): \
not MySQL protocol handling or the driver's work on the longer envelope rows. \
oltp_read_only: 10 + 3 x range_size values of c opened per transaction, 16 queries per transaction (BEGIN and COMMIT included).";
