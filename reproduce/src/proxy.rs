//! Report 000's proxy prediction: what column-bench's capacity model
//! (`column-bench/src/capacity.rs`, its README's "The capacity model")
//! predicts for the report's setup, a proxy decrypting on 16 cores of its
//! own, from column-bench's measurement on this machine during the
//! reproduction (its library, [`column_bench_config`], read by
//! [`from_report`]).
//!
//! The mixes are sbtest's row with every column encrypted (`k`, `c`, `pad`;
//! `id` plaintext), from sysbench's query mix (`shared/spec/sysbench-oltp.md`)
//! at range_size 100: per `oltp_read_only` transaction 10 point selects open
//! one `c` each, the simple, ORDER BY and DISTINCT ranges 100 `c` each, the
//! SUM range 100 `k` (summed after decryption): 310 `c` + 100 `k`;
//! `oltp_read_write` adds the index update's `k` (opened and sealed again),
//! the non-index update's `c` and the insert's `k`, `c` and `pad` (sealed).
//!
//! ```text
//! decryptions_per_s_per_core = opens_per_txn / decrypt_us_per_txn x 1e6
//! cores_needed               = published plaintext QPS / queries_per_txn x decrypt_us_per_txn / 1e6
//! rt_added_ms_per_txn        = decrypt_us_per_txn / 1000   (one core decrypts a transaction's values,
//!                                                           no queueing: cores_needed well below 16)
//! ```
//!
//! The rows are predictions with their inputs, never verdicts.

use column_bench::capacity::{CapacityRow, Mix};
use column_bench::config::{Config, Selection};
use column_bench::measure::{KeyMode, Operation, PathKind, Timing};
use column_bench::report::PointResult;
use column_bench::shape::Shape;
use serde::Serialize;

use super::published::Published;
use super::row::Table;

/// Proxy cores of the report's PolarDB Standard Edition (seed line 60:
/// "The test used the maximum proxy specification supported by the
/// Standard Edition instance (16 cores)").
pub const PROXY_CORES: f64 = 16.0;

/// Rows per range query (sysbench's `--range-size` default).
pub const RANGE_SIZE: u32 = 100;

/// One workload's values per transaction with every column encrypted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AllColumnsMix {
    /// The sysbench workload, e.g. `oltp_read_only`.
    pub workload: &'static str,
    /// Statements per transaction, BEGIN and COMMIT included (QPS / TPS).
    pub queries_per_txn: u32,
    /// Values opened per transaction: (`k`, `c`, `pad`).
    pub opens: [u32; 3],
    /// Values sealed per transaction: (`k`, `c`, `pad`).
    pub seals: [u32; 3],
}

/// Column names in the order of [`AllColumnsMix::opens`].
pub const COLUMNS: [&str; 3] = ["k", "c", "pad"];

/// Plaintext bytes of sbtest's encrypted columns: `k` as oltp seals it (a
/// 4-byte integer, `columns::k_plaintext`), `c` 119 and `pad` 59 characters
/// (`shared/spec/sysbench-oltp.md`, "Values").
pub const COLUMN_BYTES: [u32; 3] = [4, 119, 59];

/// The mixes of report 000's two workloads.
pub fn mixes() -> [AllColumnsMix; 2] {
    let r = RANGE_SIZE;
    // 10 point selects + simple, ORDER BY and DISTINCT ranges of `c`; the SUM range of `k`.
    let read_opens = [r, 10 + 3 * r, 0];
    [
        AllColumnsMix {
            workload: "oltp_read_only",
            queries_per_txn: 16,
            opens: read_opens,
            seals: [0, 0, 0],
        },
        AllColumnsMix {
            workload: "oltp_read_write",
            queries_per_txn: 20,
            // + the index update's k=k+1 (read, then sealed again).
            opens: [read_opens[0] + 1, read_opens[1], 0],
            // index update k; non-index update c; insert k, c, pad.
            seals: [2, 2, 1],
        },
    ]
}

impl AllColumnsMix {
    /// Values opened per transaction.
    pub fn opens_per_txn(&self) -> u32 {
        self.opens.iter().sum()
    }

    /// The mix's name in column-bench's capacity table.
    pub fn name(&self) -> String {
        format!("{}-all-columns", self.workload)
    }

    /// column-bench's `--mix` for it: `NAME;queries=Q;open=COL*N,...[;seal=...]`.
    pub fn mix_arg(&self) -> String {
        let list = |n: &[u32; 3]| {
            COLUMNS
                .iter()
                .zip(n)
                .filter(|(_, n)| **n > 0)
                .map(|(c, n)| format!("{c}*{n}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        let mut s = format!(
            "{};queries={};open={}",
            self.name(),
            self.queries_per_txn,
            list(&self.opens)
        );
        if self.seals.iter().any(|n| *n > 0) {
            s.push_str(&format!(";seal={}", list(&self.seals)));
        }
        s
    }
}

/// column-bench's arguments (after the program) for the measurement:
/// `backend` alone (BACKEND:ALGORITHM), sbtest's three columns, open and
/// seal on the envelope path with the key set up once (a proxy), one value
/// at a time on one thread, the two mixes; JSON written to `json_out`.
pub fn column_bench_args(backend: &str, json_out: &str) -> Vec<String> {
    let columns = COLUMNS
        .iter()
        .zip(COLUMN_BYTES)
        .map(|(c, b)| format!("{c}:{b}"))
        .collect::<Vec<_>>()
        .join(",");
    let mut v: Vec<String> = [
        "--algorithm",
        backend,
        "--columns",
        &columns,
        "--operations",
        "open,seal",
        "--key-modes",
        "reused",
        "--paths",
        "envelope",
        "--batches",
        "1",
        "--threads",
        "1",
        "--workloads",
        "none",
    ]
    .map(String::from)
    .to_vec();
    for m in mixes() {
        v.extend(["--mix".to_string(), m.mix_arg()]);
    }
    v.extend(["--no-progress", "--output", "json", "--json-out", json_out].map(String::from));
    v
}

/// What column-bench measured for one mix.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measured {
    /// The mix.
    pub mix: AllColumnsMix,
    /// Decryption CPU per transaction on one core, µs (column-bench's
    /// `decrypt_us_per_txn`).
    pub decrypt_us_per_txn: f64,
    /// Sealing CPU per transaction on one core, µs.
    pub seal_us_per_txn: f64,
    /// opens_per_txn / decrypt_us_per_txn x 1e6.
    pub decryptions_per_s_per_core: f64,
}

/// The measurement: ns per open of each column and each mix's figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measurement {
    /// BACKEND:ALGORITHM measured.
    pub backend: String,
    /// ns per open, one value at a time, of `k`, `c`, `pad` (column-bench's
    /// median over its samples).
    pub ns_per_open: [f64; 3],
    /// Per mix.
    pub mixes: Vec<Measured>,
    /// The column-bench command line.
    pub command: String,
}

/// column-bench's configuration for the measurement, the one
/// [`column_bench_args`] gives its command line: `backend` alone
/// (BACKEND:ALGORITHM), sbtest's three columns, open and seal on the
/// envelope path with the key set up once, one value at a time on one
/// thread, the two mixes, at `timing`.
///
/// # Errors
/// `backend` is not compiled into column-bench, or a mix it refuses (the
/// message names which).
pub fn column_bench_config(backend: &str, timing: Timing) -> Result<Config, String> {
    let descriptors = Selection {
        backends: Vec::new(),
        algorithms: Vec::new(),
        names: vec![backend.to_string()],
    }
    .resolve()
    .map_err(|e| e.to_string())?;
    let columns = COLUMNS
        .iter()
        .zip(COLUMN_BYTES)
        .map(|(c, b)| format!("{c}:{b}"))
        .collect::<Vec<_>>()
        .join(",");
    let shape = Shape::parse_columns(&columns).map_err(|e| e.to_string())?;
    let mixes = mixes()
        .iter()
        .map(|m| Mix::parse(&m.mix_arg()))
        .collect::<column_bench::Result<Vec<_>>>()
        .map_err(|e| e.to_string())?;
    Config::one_value_proxy(descriptors, shape, mixes, timing).map_err(|e| e.to_string())
}

/// Reads column-bench's measurement: its `results` and `capacity` tables
/// (of a run of [`column_bench_config`]) for `backend`.
///
/// # Errors
/// A figure missing from them (the message names which).
pub fn from_report(
    results: &[PointResult],
    capacity: &[CapacityRow],
    backend: &str,
    command: String,
) -> Result<Measurement, String> {
    let (b, alg) = backend.split_once(':').unwrap_or((backend, ""));
    let mut ns_per_open = [0.0; 3];
    for (i, col) in COLUMNS.iter().enumerate() {
        ns_per_open[i] = results
            .iter()
            .find(|r| {
                r.backend == b
                    && r.algorithm == alg
                    && r.column == *col
                    && r.operation == Operation::Open
                    && r.key_mode == KeyMode::Reused
                    && r.path == PathKind::Envelope
                    && r.batch_rows == 1
                    && r.threads == 1
            })
            .map(|r| r.ns_per_value)
            .ok_or_else(|| format!("column-bench's report has no open of {col} for {backend}"))?;
    }
    let mut mixes_out = Vec::new();
    for mix in mixes() {
        let row = capacity
            .iter()
            .find(|r| r.workload == mix.name() && r.backend == b && r.algorithm == alg)
            .ok_or_else(|| format!("column-bench's capacity table has no {}", mix.name()))?;
        let decrypt = row.decrypt_us_per_txn;
        mixes_out.push(Measured {
            decryptions_per_s_per_core: if decrypt > 0.0 {
                f64::from(mix.opens_per_txn()) / decrypt * 1e6
            } else {
                0.0
            },
            decrypt_us_per_txn: decrypt,
            seal_us_per_txn: row.seal_us_per_txn,
            mix,
        });
    }
    Ok(Measurement {
        backend: backend.to_string(),
        ns_per_open,
        mixes: mixes_out,
        command,
    })
}

/// One prediction: a published plaintext QPS figure and what the model
/// says a proxy needs for it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prediction {
    /// The report's instance.
    pub instance: String,
    /// Workload.
    pub workload: String,
    /// Threads.
    pub threads: u32,
    /// Seed line of the figure.
    pub source_line: u32,
    /// The report's plaintext QPS.
    pub published_qps: f64,
    /// published_qps / queries_per_txn.
    pub tps: f64,
    /// Values the proxy decrypts per second at that TPS.
    pub decryptions_per_s: f64,
    /// Proxy cores the decryption needs: decryptions_per_s / decryptions per
    /// second per core.
    pub cores_needed: f64,
    /// cores_needed / [`PROXY_CORES`] x 100.
    pub of_proxy_pct: f64,
    /// The decrypt time per transaction, ms: the RT a proxy adds to each
    /// transaction when a core is free for it.
    pub rt_added_ms: f64,
    /// The report's RT change, ciphertext - plaintext, ms.
    pub published_rt_added_ms: Option<f64>,
}

/// The predictions for every published plaintext QPS figure whose workload
/// was measured.
pub fn predict(p: &Published, m: &Measurement) -> Vec<Prediction> {
    let mut out = Vec::new();
    for f in p
        .figures
        .iter()
        .filter(|f| f.metric.as_deref() == Some("qps"))
    {
        let (Some(w), Some(t), Some(qps)) = (&f.workload, f.threads, f.plaintext) else {
            continue;
        };
        let Some(x) = m.mixes.iter().find(|x| x.mix.workload == w) else {
            continue;
        };
        let tps = qps / f64::from(x.mix.queries_per_txn);
        let decryptions_per_s = tps * f64::from(x.mix.opens_per_txn());
        let cores_needed = tps * x.decrypt_us_per_txn / 1e6;
        let rt = p
            .figures
            .iter()
            .find(|g| g.metric.as_deref() == Some("rt_ms") && g.source_line == f.source_line);
        out.push(Prediction {
            instance: f.instance.clone().unwrap_or_default(),
            workload: w.clone(),
            threads: t,
            source_line: f.source_line,
            published_qps: qps,
            tps,
            decryptions_per_s,
            cores_needed,
            of_proxy_pct: cores_needed / PROXY_CORES * 100.0,
            rt_added_ms: x.decrypt_us_per_txn / 1000.0,
            published_rt_added_ms: rt.and_then(|r| Some(r.ciphertext? - r.plaintext?)),
        });
    }
    out
}

/// Thousands separators: 1234567 as `1,234,567`.
fn grouped(v: f64) -> String {
    encbench_common::number::thousands(v.max(0.0), 0)
}

/// The inputs table: what column-bench measured and the mixes.
pub fn inputs_table(m: &Measurement) -> Table {
    let mut rows: Vec<Vec<String>> = COLUMNS
        .iter()
        .zip(COLUMN_BYTES)
        .zip(m.ns_per_open)
        .map(|((c, b), ns)| {
            vec![
                format!("ns per open of {c} ({b} B)"),
                format!("{ns:.0}"),
                "column-bench, one value at a time, key set up once, envelope path".into(),
            ]
        })
        .collect();
    for x in &m.mixes {
        let w = x.mix.workload;
        let vals = |n: &[u32; 3]| {
            COLUMNS
                .iter()
                .zip(n)
                .filter(|(_, n)| **n > 0)
                .map(|(c, n)| format!("{n} {c}"))
                .collect::<Vec<_>>()
                .join(" + ")
        };
        rows.push(vec![
            format!("{w}: values opened per transaction"),
            format!("{} ({})", x.mix.opens_per_txn(), vals(&x.mix.opens)),
            "sysbench's query mix at range_size 100 (shared/spec/sysbench-oltp.md)".into(),
        ]);
        rows.push(vec![
            format!("{w}: queries per transaction"),
            x.mix.queries_per_txn.to_string(),
            "sysbench, BEGIN and COMMIT included".into(),
        ]);
        rows.push(vec![
            format!("{w}: decrypt µs per transaction, one core"),
            format!("{:.1}", x.decrypt_us_per_txn),
            "column-bench's capacity model".into(),
        ]);
        if x.seal_us_per_txn > 0.0 {
            rows.push(vec![
                format!("{w}: seal µs per transaction, one core (not in the prediction)"),
                format!("{:.1} ({})", x.seal_us_per_txn, vals(&x.mix.seals)),
                "column-bench's capacity model".into(),
            ]);
        }
        rows.push(vec![
            format!("{w}: decryptions per second per core"),
            grouped(x.decryptions_per_s_per_core),
            "values opened per transaction / decrypt µs per transaction".into(),
        ]);
    }
    rows.push(vec![
        "proxy cores of the report".into(),
        format!("{PROXY_CORES:.0}"),
        "seed line 60 (PolarDB Standard Edition's proxy)".into(),
    ]);
    Table {
        id: "prediction-inputs".into(),
        title: format!("Proxy prediction: inputs ({}, measured here)", m.backend),
        note: format!(
            "column-bench's capacity model (column-bench/README.md, 'The capacity model') on sbtest's row with every column encrypted, measured during this reproduction: `{}`. One measurement (column-bench's median over its samples), not an interval.",
            m.command
        ),
        columns: ["input", "value", "source"].map(String::from).to_vec(),
        rows,
    }
}

/// The prediction table: one row per published plaintext QPS figure.
pub fn prediction_table(m: &Measurement, predictions: &[Prediction]) -> Table {
    Table {
        id: "prediction".into(),
        title: format!(
            "Proxy prediction: cores and RT a proxy decrypting with {} would need for the report's QPS",
            m.backend
        ),
        note: format!(
            "A prediction, not a measurement of the report's setup and not a verdict. cores needed = published plaintext QPS / queries per transaction x decrypt µs per transaction / 1e6; RT added = the decrypt time per transaction, when the report's {PROXY_CORES:.0} proxy cores decrypt (one core per transaction, no queueing: valid while the cores needed are well below {PROXY_CORES:.0}). Left out, as in column-bench's model: sealing, the client-side sort of the ORDER BY and DISTINCT ranges, protocol re-encoding and connection handling in the proxy. The published RT change is the report's ciphertext - plaintext RT, beside it."
        ),
        columns: [
            "instance",
            "workload",
            "threads",
            "line",
            "published plaintext QPS",
            "TPS",
            "decryptions/s",
            "proxy cores needed",
            "of 16 cores",
            "predicted RT added, ms/txn",
            "published RT change, ms",
        ]
        .map(String::from)
        .to_vec(),
        rows: predictions
            .iter()
            .map(|x| {
                vec![
                    x.instance.clone(),
                    x.workload.clone(),
                    x.threads.to_string(),
                    x.source_line.to_string(),
                    grouped(x.published_qps),
                    grouped(x.tps),
                    grouped(x.decryptions_per_s),
                    format!("{:.2}", x.cores_needed),
                    format!("{:.1}%", x.of_proxy_pct),
                    format!("{:.3}", x.rt_added_ms),
                    x.published_rt_added_ms
                        .map_or("-".into(), |v| format!("{v:+.2}")),
                ]
            })
            .collect(),
    }
}

/// The setup note: what the model predicts for the report's proxy, or why
/// it was not run.
pub fn setup_note(m: &Result<Measurement, String>, p: &Published) -> String {
    let base = "The report decrypts in a proxy (PolarDB: 16 proxy cores of its own, line 60); here oltp decrypts in the client, as a proxy would, on the same 2 cores as the MariaDB server, so every decryption takes CPU the server would otherwise use.";
    match m {
        Ok(m) => {
            let preds = predict(p, m);
            let max = preds
                .iter()
                .max_by(|a, b| a.cores_needed.total_cmp(&b.cores_needed));
            let ro = m.mixes.iter().find(|x| x.mix.workload == "oltp_read_only");
            match (max, ro) {
                (Some(x), Some(ro)) => format!(
                    "{base} column-bench's capacity model, run here ({}: {} decryptions per second per core, {:.1} µs of decryption per oltp_read_only transaction), predicts that a proxy needs {:.2} cores for the report's highest plaintext QPS ({} {} at {} threads, {} QPS), {:.1}% of the 16, and adds {:.3} ms per transaction, where the report's RT grew {}: see the prediction tables.",
                    m.backend,
                    grouped(ro.decryptions_per_s_per_core),
                    ro.decrypt_us_per_txn,
                    x.cores_needed,
                    x.instance,
                    x.workload,
                    x.threads,
                    grouped(x.published_qps),
                    x.of_proxy_pct,
                    x.rt_added_ms,
                    x.published_rt_added_ms
                        .map_or("by an unknown amount".into(), |v| format!("{v:+.2} ms")),
                ),
                _ => format!(
                    "{base} column-bench's capacity model ran, but no published figure matched its workloads."
                ),
            }
        }
        Err(e) => format!(
            "{base} column-bench's capacity model would predict what a separate proxy needs; it did not run here: {e}."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mixes_follow_sysbenchs_query_mix_with_every_column_encrypted() {
        let [ro, rw] = mixes();
        assert_eq!(
            (ro.opens, ro.opens_per_txn(), ro.queries_per_txn),
            ([100, 310, 0], 410, 16)
        );
        assert_eq!(
            (rw.opens, rw.seals, rw.queries_per_txn),
            ([101, 310, 0], [2, 2, 1], 20)
        );
        assert_eq!(
            ro.mix_arg(),
            "oltp_read_only-all-columns;queries=16;open=k*100,c*310"
        );
        assert_eq!(
            rw.mix_arg(),
            "oltp_read_write-all-columns;queries=20;open=k*101,c*310;seal=k*2,c*2,pad*1"
        );
        let args = column_bench_args("ring:aes-256-gcm", "/x.json").join(" ");
        assert!(
            args.starts_with("--algorithm ring:aes-256-gcm --columns k:4,c:119,pad:59 "),
            "{args}"
        );
        assert!(args.ends_with("--json-out /x.json"), "{args}");
    }

    #[test]
    fn grouped_separates_thousands() {
        assert_eq!(grouped(108_128.31), "108,128");
        assert_eq!(grouped(999.0), "999");
        assert_eq!(grouped(1_234_567.0), "1,234,567");
    }

    /// column-bench's tables as it fills them, with round figures: 10 ns per
    /// open of k, 200 of c, 100 of pad.
    fn fixture() -> (Vec<PointResult>, Vec<CapacityRow>) {
        let result = |col: &str, operation, ns: f64| PointResult {
            backend: "ring".into(),
            algorithm: "aes-256-gcm".into(),
            column: col.into(),
            value_bytes: 1.0,
            operation,
            key_mode: KeyMode::Reused,
            path: PathKind::Envelope,
            batch_rows: 1,
            threads: 1,
            ns_per_value: ns,
            ns_per_value_p10: ns,
            ns_per_value_p90: ns,
            values_per_sec: 1e9 / ns,
            mb_per_sec: 1e3 / ns,
            samples: 1,
        };
        let capacity = |workload: &str, decrypt: f64, seal: f64| CapacityRow {
            workload: workload.into(),
            backend: "ring".into(),
            algorithm: "aes-256-gcm".into(),
            opens_per_txn: 0.0,
            seals_per_txn: 0.0,
            decrypt_us_per_txn: decrypt,
            seal_us_per_txn: seal,
            client_sort_us_per_txn: 0.0,
            txn_per_sec_per_core: 0.0,
            queries_per_txn: 0.0,
            qps_per_core: 0.0,
            target_qps: 0.0,
            cores_for_target: 0.0,
        };
        (
            vec![
                result("k", Operation::Open, 10.0),
                result("c", Operation::Open, 200.0),
                result("pad", Operation::Open, 100.0),
                result("c", Operation::Seal, 900.0),
            ],
            vec![
                // 100 x 10 + 310 x 200 ns = 63 us.
                capacity("oltp_read_only-all-columns", 63.0, 0.0),
                capacity("oltp_read_write-all-columns", 63.01, 5.0),
            ],
        )
    }

    #[test]
    fn the_prediction_is_the_models_arithmetic_on_the_published_qps() {
        let (results, capacity) = fixture();
        let m = from_report(
            &results,
            &capacity,
            "ring:aes-256-gcm",
            "column-bench x".into(),
        )
        .expect("every figure");
        assert_eq!(m.ns_per_open, [10.0, 200.0, 100.0]);
        // 410 values in 63 us.
        assert!((m.mixes[0].decryptions_per_s_per_core - 410.0 / 63.0 * 1e6).abs() < 1e-6);
        let p = Published::of(super::super::ReportId::R000).expect("000");
        let preds = predict(&p, &m);
        assert_eq!(preds.len(), 9);
        let polar = preds
            .iter()
            .find(|x| x.instance.starts_with("PolarDB") && x.threads == 256)
            .expect("PolarDB 256");
        // 108,128.31 QPS / 16 = 6,758.02 TPS; x 63 us = 0.4258 cores.
        assert!((polar.tps - 108_128.31 / 16.0).abs() < 1e-9);
        assert!((polar.cores_needed - 108_128.31 / 16.0 * 63.0 / 1e6).abs() < 1e-12);
        assert!((polar.of_proxy_pct - polar.cores_needed / 16.0 * 100.0).abs() < 1e-12);
        assert!((polar.decryptions_per_s - 108_128.31 / 16.0 * 410.0).abs() < 1e-6);
        assert!((polar.rt_added_ms - 0.063).abs() < 1e-12);
        // 43.63 - 37.86 ms (line 76).
        assert!((polar.published_rt_added_ms.expect("rt") - 5.77).abs() < 1e-9);
        let t = prediction_table(&m, &preds);
        assert_eq!(t.rows.len(), 9);
        assert!(t.rows.iter().all(|r| r.len() == t.columns.len()));
        let row = t.rows.iter().find(|r| r[3] == "76").expect("line 76");
        assert_eq!(
            row[4..],
            [
                "108,128",
                "6,758",
                "2,770,788",
                "0.43",
                "2.7%",
                "0.063",
                "+5.77"
            ]
        );
        let inputs = inputs_table(&m);
        assert!(inputs.note.contains("column-bench x"), "{}", inputs.note);
        assert!(
            inputs
                .rows
                .iter()
                .any(|r| r[0] == "oltp_read_only: values opened per transaction"
                    && r[1] == "410 (100 k + 310 c)")
        );
        let note = setup_note(&Ok(m.clone()), &p);
        assert!(
            note.contains("needs 0.43 cores for the report's highest plaintext QPS"),
            "{note}"
        );
        let e = from_report(&results, &capacity, "openssl:aes-256-gcm", String::new())
            .expect_err("other backend");
        assert_eq!(
            e,
            "column-bench's report has no open of k for openssl:aes-256-gcm"
        );
        let note = setup_note(&Err("x not found".into()), &p);
        assert!(
            note.ends_with("it did not run here: x not found."),
            "{note}"
        );
    }
}
