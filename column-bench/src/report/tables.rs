//! The tables text and Markdown draw from a [`Report`]: per value at one
//! thread, thread scaling, per row, capacity, model vs measured, and the paired
//! comparisons (envelope vs bare, backend vs backend, their A/A floors); the
//! header line and the note under them; the number formats of their cells.

use encbench_common::compare::Better;
use encbench_common::table::{Align, Alignment, Table};

use std::fmt::Write as _;

use super::{CAPACITY_NOTE, FLOOR_NOTE, NO_FLOOR_NOTE, Report};
use crate::comparison::{Kind, PointComparison};
use crate::measure::{KeyMode, Operation, PathKind};

/// A table titled `title` with `headers`, column i right-aligned when
/// `numeric[i]`, no rows yet.
fn table(title: String, headers: &[&str], numeric: &[bool]) -> Table {
    let align = numeric
        .iter()
        .map(|n| if *n { Align::Right } else { Align::Left })
        .collect();
    Table::new(title, headers, Alignment::Columns(align))
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
    /// The header line, every table through `render` (aligned text or
    /// Markdown), then the capacity note (when there is a capacity table) and
    /// the `--control` note: the document text and Markdown both are.
    pub(super) fn document(&self, render: impl Fn(&Table) -> String) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{}\n", self.header_line());
        for t in self.tables() {
            s.push_str(&render(&t));
        }
        if !self.capacity.is_empty() {
            let _ = writeln!(s, "{}", CAPACITY_NOTE);
        }
        if let Some(note) = self.control_note() {
            let _ = writeln!(s, "{note}");
        }
        s
    }

    /// The report's tables, in order.
    fn tables(&self) -> Vec<Table> {
        let mut tables = vec![self.per_value_table()];
        tables.extend(self.thread_scaling_table());
        tables.push(self.per_row_table());
        tables.extend(self.capacity_table());
        tables.extend(self.oltp_comparison_table());
        tables.extend(self.comparison_tables());
        tables
    }

    /// Per value at one thread: ns per value with its spread, values/s, MB/s.
    fn per_value_table(&self) -> Table {
        let mut t = table(
            "Per value, one thread (ns per value: median [p10-p90])".into(),
            &[
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
            &[
                false, false, true, false, false, false, true, true, true, true, true,
            ],
        );
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
        t
    }

    /// Thread scaling of an open (key reused, envelope, one value at a time); `None` with one thread count.
    fn thread_scaling_table(&self) -> Option<Table> {
        let mut threads: Vec<usize> = self.results.iter().map(|r| r.threads).collect();
        threads.sort_unstable();
        threads.dedup();
        if threads.len() < 2 {
            return None;
        }
        let mut t = table(
            "Thread scaling (open, key reused, envelope, one value at a time)".into(),
            &[
                "backend:algorithm",
                "column",
                "threads",
                "ns/value per thread",
                "values/s (all threads)",
                "speed-up vs 1 thread",
            ],
            &[false, false, true, true, true, true],
        );
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
        Some(t)
    }

    /// Per row: the sum over the columns at one thread.
    fn per_row_table(&self) -> Table {
        let mut t = table(
            "Per row (sum over the columns, one thread)".into(),
            &[
                "backend:algorithm",
                "op",
                "key",
                "path",
                "row bytes",
                "ns/row",
                "rows/s",
            ],
            &[false, false, false, false, true, true, true],
        );
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
        t
    }

    /// The proxy capacity model; `None` without one.
    fn capacity_table(&self) -> Option<Table> {
        if self.capacity.is_empty() {
            return None;
        }
        let mut t = table(
            format!(
                "Proxy capacity, crypto and client-side sort (target {} QPS)",
                grouped(self.settings.target_qps)
            ),
            &[
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
            &[
                false, false, true, true, true, true, true, true, true, true, true,
            ],
        );
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
        Some(t)
    }

    /// The model against `oltp run` results; `None` without them.
    fn oltp_comparison_table(&self) -> Option<Table> {
        if self.oltp_comparison.is_empty() {
            return None;
        }
        let mut t = table(
            "Model vs oltp run: client CPU per transaction (us), added by encryption".into(),
            &[
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
            &[
                false, true, false, true, true, true, true, false, true, true, true, true,
            ],
        );
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
        Some(t)
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
        let numeric = numeric(headers.len());
        let mut envelope = table(
            format!(
                "Envelope (B) vs bare AEAD (A), key reused, one value, one thread, ns per value; {title_tail}"
            ),
            &headers,
            &numeric,
        );
        let mut backends_headers = headers.clone();
        backends_headers[0] = "B vs A";
        let mut backends = table(
            format!(
                "Backends (B) vs the baseline backend (A), open, envelope, key reused, one value, one thread, ns per value; {title_tail}"
            ),
            &backends_headers,
            &numeric,
        );
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
}

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
