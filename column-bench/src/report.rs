//! The result type every exporter reads, and the exporters: terminal text,
//! JSON, CSV, Markdown, and the SVG chart of ns per value against value size.

use std::fmt::Write as _;

use crate::error::{Error, Result};
use encbench_common::ResultHeader;
use encbench_common::compare::Better;
use encbench_registry::Descriptor;
use serde::Serialize;

use crate::capacity::CapacityRow;
use crate::comparison::{Kind, PointComparison};
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

/// A table of strings, rendered as aligned text or Markdown.
struct Table {
    title: String,
    headers: Vec<&'static str>,
    /// Right-align column i.
    numeric: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn text(&self, out: &mut String) {
        let mut w: Vec<usize> = self.headers.iter().map(|h| h.len()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate() {
                w[i] = w[i].max(c.chars().count());
            }
        }
        let _ = writeln!(out, "{}", self.title);
        let line = |cells: Vec<String>, out: &mut String| {
            let mut s = String::new();
            for (i, c) in cells.iter().enumerate() {
                if i > 0 {
                    s.push_str("  ");
                }
                if self.numeric[i] {
                    let _ = write!(s, "{c:>width$}", width = w[i]);
                } else {
                    let _ = write!(s, "{c:<width$}", width = w[i]);
                }
            }
            let _ = writeln!(out, "{}", s.trim_end());
        };
        line(self.headers.iter().map(|h| h.to_string()).collect(), out);
        for r in &self.rows {
            line(r.clone(), out);
        }
        out.push('\n');
    }

    fn markdown(&self, out: &mut String) {
        let _ = writeln!(out, "### {}\n", self.title);
        let _ = writeln!(out, "| {} |", self.headers.join(" | "));
        let seps: Vec<&str> = self
            .numeric
            .iter()
            .map(|n| if *n { "---:" } else { "---" })
            .collect();
        let _ = writeln!(out, "|{}|", seps.join("|"));
        for r in &self.rows {
            let _ = writeln!(out, "| {} |", r.join(" | "));
        }
        out.push('\n');
    }
}

/// A value or row length in bytes: an integer when every value has that length (`119`),
/// else the mean with one decimal (`37.5` for lengths 16 and 59).
fn value_len(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        f1(x)
    }
}

fn f1(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1}")
    } else {
        "-".into()
    }
}

fn f2(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.2}")
    } else {
        "-".into()
    }
}

/// `1234567.8` as `1,234,568`.
fn grouped(x: f64) -> String {
    encbench_common::number::thousands(x, 0)
}

impl Report {
    fn tables(&self) -> Vec<Table> {
        let mut tables = Vec::new();
        let mut t = Table {
            title: "Per value, one thread (ns per value: median [p10-p90])".into(),
            headers: vec![
                "backend:algorithm",
                "column",
                "bytes",
                "op",
                "key",
                "path",
                "batch",
                "ns/value",
                "p10-p90",
                "values/s",
                "MB/s",
            ],
            numeric: vec![
                false, false, true, false, false, false, true, true, true, true, true,
            ],
            rows: Vec::new(),
        };
        for r in self.results.iter().filter(|r| r.threads == 1) {
            t.rows.push(vec![
                format!("{}:{}", r.backend, r.algorithm),
                r.column.clone(),
                value_len(r.value_bytes),
                r.operation.name().into(),
                r.key_mode.name().into(),
                r.path.name().into(),
                r.batch_rows.to_string(),
                f1(r.ns_per_value),
                format!("{}-{}", f1(r.ns_per_value_p10), f1(r.ns_per_value_p90)),
                grouped(r.values_per_sec),
                f1(r.mb_per_sec),
            ]);
        }
        tables.push(t);

        let mut threads: Vec<usize> = self.results.iter().map(|r| r.threads).collect();
        threads.sort_unstable();
        threads.dedup();
        if threads.len() > 1 {
            let mut t = Table {
                title: "Thread scaling (open, key reused, envelope, one value at a time)".into(),
                headers: vec![
                    "backend:algorithm",
                    "column",
                    "threads",
                    "ns/value per thread",
                    "values/s (all threads)",
                    "speed-up vs 1 thread",
                ],
                numeric: vec![false, false, true, true, true, true],
                rows: Vec::new(),
            };
            for r in self.results.iter().filter(|r| {
                r.operation == Operation::Open
                    && r.key_mode == KeyMode::Reused
                    && r.path == PathKind::Envelope
                    && r.batch_rows == 1
            }) {
                let one = self
                    .results
                    .iter()
                    .find(|o| {
                        o.is_reference()
                            && o.backend == r.backend
                            && o.algorithm == r.algorithm
                            && o.column == r.column
                    })
                    .map_or(f64::NAN, |o| o.values_per_sec);
                t.rows.push(vec![
                    format!("{}:{}", r.backend, r.algorithm),
                    r.column.clone(),
                    r.threads.to_string(),
                    f1(r.ns_per_value),
                    grouped(r.values_per_sec),
                    f2(r.values_per_sec / one),
                ]);
            }
            tables.push(t);
        }

        let mut t = Table {
            title: "Per row (sum over the columns, one thread)".into(),
            headers: vec![
                "backend:algorithm",
                "op",
                "key",
                "path",
                "row bytes",
                "ns/row",
                "rows/s",
            ],
            numeric: vec![false, false, false, false, true, true, true],
            rows: Vec::new(),
        };
        for r in &self.rows {
            t.rows.push(vec![
                format!("{}:{}", r.backend, r.algorithm),
                r.operation.name().into(),
                r.key_mode.name().into(),
                r.path.name().into(),
                value_len(r.row_bytes),
                f1(r.ns_per_row),
                grouped(r.rows_per_sec),
            ]);
        }
        tables.push(t);

        if !self.capacity.is_empty() {
            let mut t = Table {
                title: format!(
                    "Proxy capacity, crypto and client-side sort (target {} QPS)",
                    grouped(self.settings.target_qps)
                ),
                headers: vec![
                    "workload",
                    "backend:algorithm",
                    "opens/txn",
                    "seals/txn",
                    "decrypt us/txn",
                    "seal us/txn",
                    "sort us/txn",
                    "txn/s per core",
                    "queries/txn",
                    "QPS per core",
                    "cores for target",
                ],
                numeric: vec![
                    false, false, true, true, true, true, true, true, true, true, true,
                ],
                rows: Vec::new(),
            };
            for c in &self.capacity {
                t.rows.push(vec![
                    c.workload.clone(),
                    format!("{}:{}", c.backend, c.algorithm),
                    grouped(c.opens_per_txn),
                    grouped(c.seals_per_txn),
                    f2(c.decrypt_us_per_txn),
                    f2(c.seal_us_per_txn),
                    f2(c.client_sort_us_per_txn),
                    grouped(c.txn_per_sec_per_core),
                    grouped(c.queries_per_txn),
                    grouped(c.qps_per_core),
                    f2(c.cores_for_target),
                ]);
            }
            tables.push(t);
        }

        if !self.oltp_comparison.is_empty() {
            let mut t = Table {
                title: "Model vs oltp run: client CPU per transaction (us), added by encryption"
                    .into(),
                headers: vec![
                    "workload",
                    "threads",
                    "encrypt",
                    "rounds",
                    "CPU plain",
                    "CPU encrypted",
                    "measured added",
                    "interval",
                    "predicted crypto",
                    "predicted sort",
                    "predicted",
                    "predicted/measured",
                ],
                numeric: vec![
                    false, true, false, true, true, true, true, false, true, true, true, true,
                ],
                rows: Vec::new(),
            };
            for c in &self.oltp_comparison {
                let interval = match (
                    c.measured_low_us_per_txn,
                    c.measured_high_us_per_txn,
                    c.confidence_pct,
                ) {
                    (Some(lo), Some(hi), Some(pct)) => format!(
                        "{} to {} ({})",
                        f1(lo),
                        f1(hi),
                        encbench_common::compare::confidence_text(pct)
                    ),
                    _ => "1 round".to_string(),
                };
                t.rows.push(vec![
                    c.workload.clone(),
                    format!("{}{}", c.threads, if c.tls { " TLS" } else { "" }),
                    c.encrypt.clone(),
                    c.rounds.to_string(),
                    f1(c.plaintext_cpu_us_per_txn),
                    f1(c.encrypted_cpu_us_per_txn),
                    f1(c.measured_overhead_us_per_txn),
                    interval,
                    f1(c.predicted_crypto_us_per_txn),
                    f1(c.predicted_sort_us_per_txn),
                    f1(c.predicted_us_per_txn),
                    f2(c.predicted_share),
                ]);
            }
            tables.push(t);
        }
        tables.extend(self.comparison_tables());
        tables
    }

    /// The one-screen summary of the comparisons: key reused, one value at a
    /// time, one thread; envelope vs bare for open and seal, backends vs the
    /// baseline backend for open through the envelope. With one round only the
    /// figures (no ratio, no %). With `--control` each table gets an A/A row
    /// per baseline it uses (A' against A: the noise floor).
    fn comparison_tables(&self) -> Vec<Table> {
        let one_round = self.settings.rounds < 2;
        let mut headers = vec!["backend:algorithm", "column", "op", "A ns", "B ns"];
        if !one_round {
            headers.extend(["B/A", "change (interval)", "verdict"]);
        }
        let numeric = |n: usize| (0..n).map(|i| (3..6).contains(&i)).collect::<Vec<_>>();
        let aa_row = |c: &PointComparison, name: String| {
            vec![
                name,
                c.column.clone(),
                c.operation.name().to_string(),
                f1(c.comparison.baseline_median),
                f1(c.comparison.variant_median),
                format!("{:.3}", c.median_ratio()),
                c.comparison.change_text(),
                "noise floor".to_string(),
            ]
        };
        let row = |c: &PointComparison, name: String| {
            let mut r = vec![
                name,
                c.column.clone(),
                c.operation.name().to_string(),
                f1(c.comparison.baseline_median),
                f1(c.comparison.variant_median),
            ];
            if !one_round {
                r.push(format!("{:.3}", c.median_ratio()));
                r.push(c.comparison.change_text());
                r.push(c.comparison.verdict_words(Better::LowerCost));
            }
            r
        };
        let title_tail = if one_round {
            "1 round: run --rounds 5 for a comparison".to_string()
        } else {
            format!(
                "{} paired rounds, median of B/A per round",
                self.settings.rounds
            )
        };
        let mut envelope = Table {
            title: format!(
                "Envelope (B) vs bare AEAD (A), key reused, one value, one thread, ns per value; {title_tail}"
            ),
            headers: headers.clone(),
            numeric: numeric(headers.len()),
            rows: Vec::new(),
        };
        let mut backends = Table {
            title: format!(
                "Backends (B) vs the baseline backend (A), open, envelope, key reused, one value, one thread, ns per value; {title_tail}"
            ),
            headers: {
                let mut h = headers.clone();
                h[0] = "B vs A";
                h
            },
            numeric: numeric(headers.len()),
            rows: Vec::new(),
        };
        for c in self.comparisons.iter().filter(|c| c.is_summary_point()) {
            match c.kind {
                Kind::EnvelopeVsBare => {
                    let name = c.comparison.baseline.trim_end_matches(" bare").to_string();
                    envelope.rows.push(row(c, name));
                }
                Kind::BetweenBackends
                    if c.operation == Operation::Open
                        && c.comparison.variant.ends_with(" envelope") =>
                {
                    let strip = |l: &str| l.trim_end_matches(" envelope").to_string();
                    let name = format!(
                        "{} vs {}",
                        strip(&c.comparison.variant),
                        strip(&c.comparison.baseline)
                    );
                    backends.rows.push(row(c, name));
                }
                Kind::BetweenBackends | Kind::NoiseFloor => {}
            }
        }
        // The floors of the baselines the rows above use, named by the
        // baseline's label (`ring:aes-256-gcm bare A/A`).
        for f in self
            .noise_floor
            .iter()
            .filter(|c| !one_round && c.is_summary_point())
        {
            let base = &f.comparison.baseline;
            let name = format!("{base} A/A");
            if let Some(b) = base.strip_suffix(" bare") {
                if envelope.rows.iter().any(|r| r[0] == b) {
                    envelope.rows.push(aa_row(f, name.clone()));
                }
            }
            if let Some(b) = base.strip_suffix(" envelope") {
                let vs = format!(" vs {b}");
                if f.operation == Operation::Open
                    && backends.rows.iter().any(|r| r[0].ends_with(&vs))
                {
                    backends.rows.push(aa_row(f, name));
                }
            }
        }
        [envelope, backends]
            .into_iter()
            .filter(|t| !t.rows.is_empty())
            .collect()
    }

    fn header_line(&self) -> String {
        let m = &self.header.machine;
        format!(
            "column-bench {}: {} ({} logical CPUs; {}); table {}, columns {}; {} ms warm-up + {} ms per point, {} values per sample, {} round(s)",
            self.version,
            m.cpu_model,
            m.logical_cpus,
            m.flags_label(),
            self.settings.table,
            self.settings.columns.join(","),
            self.settings.timing.warmup_ms,
            self.settings.timing.measure_ms,
            self.settings.timing.corpus_rows,
            self.settings.rounds
        )
    }

    /// What `--control` gave, printed under the tables: the noise floor's
    /// meaning, or that one round gives none. `None` without `--control`.
    fn control_note(&self) -> Option<&'static str> {
        if !self.settings.control {
            None
        } else if self.settings.rounds < 2 {
            Some(NO_FLOOR_NOTE)
        } else {
            Some(FLOOR_NOTE)
        }
    }

    /// The terminal tables.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{}\n", self.header_line());
        for t in self.tables() {
            t.text(&mut s);
        }
        if !self.capacity.is_empty() {
            let _ = writeln!(s, "{}", CAPACITY_NOTE);
        }
        if let Some(note) = self.control_note() {
            let _ = writeln!(s, "{note}");
        }
        s
    }

    /// The same tables in Markdown.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{}\n", self.header_line());
        for t in self.tables() {
            t.markdown(&mut s);
        }
        if !self.capacity.is_empty() {
            let _ = writeln!(s, "{}", CAPACITY_NOTE);
        }
        if let Some(note) = self.control_note() {
            let _ = writeln!(s, "{note}");
        }
        s
    }

    /// The whole report as pretty JSON.
    ///
    /// # Errors
    /// Serialization fails (not expected).
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self)
            .map(|s| s + "\n")
            .map_err(|e| Error::Output {
                format: "json",
                detail: e.to_string(),
            })
    }

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

    /// The SVG chart: ns per value (open, key reused, envelope, one thread, one
    /// value at a time) against value size, one line per backend and algorithm.
    ///
    /// # Errors
    /// Drawing fails.
    pub fn to_svg(&self) -> Result<String> {
        use plotters::prelude::*;
        let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        for r in self.results.iter().filter(|r| r.is_reference()) {
            let name = format!("{}:{}", r.backend, r.algorithm);
            match series.iter_mut().find(|(n, _)| *n == name) {
                Some((_, pts)) => pts.push((r.value_bytes, r.ns_per_value)),
                None => series.push((name, vec![(r.value_bytes, r.ns_per_value)])),
            }
        }
        for (_, pts) in &mut series {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        let x_max = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|x| x.0))
            .fold(1.0f64, f64::max);
        let y_max = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|x| x.1))
            .fold(1.0f64, f64::max);
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (900, 560)).into_drawing_area();
            root.fill(&WHITE).map_err(svg_err)?;
            let mut chart = ChartBuilder::on(&root)
                .caption(
                    "column-bench: open, key reused, envelope path, one thread",
                    ("sans-serif", 20),
                )
                .margin(15)
                .x_label_area_size(45)
                .y_label_area_size(60)
                .build_cartesian_2d(0.0..x_max * 1.1, 0.0..y_max * 1.15)
                .map_err(svg_err)?;
            chart
                .configure_mesh()
                .x_desc("value size (bytes)")
                .y_desc("ns per value")
                .draw()
                .map_err(svg_err)?;
            for (i, (name, pts)) in series.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                    .map_err(svg_err)?
                    .label(name.clone())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                    });
                chart
                    .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
                    .map_err(svg_err)?;
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()
                .map_err(svg_err)?;
            root.present().map_err(svg_err)?;
        }
        Ok(svg)
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

fn svg_err(e: impl std::fmt::Display) -> Error {
    Error::Output {
        format: "svg",
        detail: e.to_string(),
    }
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

#[cfg(test)]
mod value_len_tests {
    use super::value_len;

    #[test]
    fn a_fixed_length_prints_as_an_integer_and_a_mean_with_one_decimal() {
        assert_eq!(value_len(119.0), "119");
        assert_eq!(value_len(37.5), "37.5");
        assert_eq!(value_len(f64::NAN), "-");
    }
}
