//! Report 000, DSC column encryption: oltp_read_only and oltp_read_write at
//! 64, 128 and 256 threads, plaintext vs every column encrypted
//! (`--encrypt-columns all`: `k`, `c` and `pad`; `id` stays plaintext as the
//! AAD's primary key) with the best backend's AES-256-GCM and OpenSSL's, in
//! interleaved rounds with the A/A floor. Rows: the report's QPS and RT
//! changes beside ours; the identity RT = threads x queries per transaction
//! / QPS on both.

use super::plan::{
    DataSetStep, Grid, PLAIN_BYTES_PER_ROW, Plan, SEALED_BYTES_PER_ROW, comma_separated,
};
use super::proxy::Measurement;
use super::published::{Published, ScaleSpec};
use super::row::{GridRun, Identity, Row, find_comparison};

/// The plaintext database of report 000 at the full scale; quick and
/// overridden scales get their own (`repro000q`, ...), so each size is
/// prepared once and reused.
pub const DB: &str = "repro000";

/// The workloads of the report.
pub const WORKLOADS: [&str; 2] = ["oltp_read_only", "oltp_read_write"];

/// The runs of report 000 at `scale`, comparing `backends` (the data
/// file's) with plaintext; `db` is the plaintext database.
pub fn plan(p: &Published, scale: &ScaleSpec, db: &str) -> Plan {
    let backends = p.backends.join(",");
    let algorithm_of = |b: &str| b.split_once(':').map_or(b, |(_, a)| a).to_string();
    let mut data_sets = vec![DataSetStep {
        encrypt: "none".into(),
        encrypt_columns: "c,pad".into(),
        bytes_per_row: PLAIN_BYTES_PER_ROW,
        ..DataSetStep::default()
    }];
    // One database per algorithm: every backend of it reads the same tables.
    let mut algorithms: Vec<String> = Vec::new();
    for b in &p.backends {
        if !algorithms.contains(&algorithm_of(b)) {
            algorithms.push(algorithm_of(b));
            data_sets.push(DataSetStep {
                encrypt: b.clone(),
                encrypt_columns: "all".into(),
                bytes_per_row: SEALED_BYTES_PER_ROW,
                ..DataSetStep::default()
            });
        }
    }
    let grids = WORKLOADS
        .iter()
        .map(|w| Grid {
            name: (*w).to_string(),
            args: vec![
                "--workload".into(),
                (*w).to_string(),
                "--threads".into(),
                comma_separated(&scale.threads),
                "--encrypt".into(),
                format!("none,{backends}"),
                "--encrypt-columns".into(),
                "all".into(),
                "--control".into(),
            ],
            threads: scale.threads.clone(),
            runs_per_round: 2 + p.backends.len() as u32,
            // read_only: point, simple, sum, order, distinct; read_write adds 4.
            statements_per_table: if *w == "oltp_read_only" { 5 } else { 9 },
            round_setup_secs: 0.0,
        })
        .collect();
    Plan {
        scale: scale.clone(),
        db: db.to_string(),
        data_sets,
        grids,
        servers: super::plan::Servers::Shared,
    }
}

/// The rows: every published figure for every backend, from the grids run
/// so far (a figure whose grid did not run is "not reproducible here").
pub fn rows(p: &Published, grids: &[GridRun]) -> Vec<Row> {
    let mut rows = Vec::new();
    for backend in &p.backends {
        for f in &p.figures {
            let (Some(w), Some(t), Some(m)) = (&f.workload, f.threads, &f.metric) else {
                continue;
            };
            let grid = grids.iter().find(|g| g.name == *w);
            let c = grid.and_then(|g| {
                find_comparison(&g.report.comparisons, t, m, |c| {
                    c.variant.split(' ').next() == Some(backend.as_str())
                })
            });
            let mut row = Row::from_comparison(
                format!("{} (ours: {backend})", f.figure),
                f,
                c,
                f.tolerance(p),
                f.differs_reason(p),
            );
            if grid.is_some() && c.is_none() {
                row.reason = format!("{t} threads did not run (see --threads, or the run stopped)");
            }
            rows.push(row);
        }
    }
    rows
}

/// The identity RT = threads x q / QPS on every published (instance,
/// workload, threads) pair and on our medians of every mode.
pub fn identity(p: &Published, grids: &[GridRun]) -> Vec<Identity> {
    let mut out = Vec::new();
    for f in p
        .figures
        .iter()
        .filter(|f| f.metric.as_deref() == Some("qps"))
    {
        let rt = p
            .figures
            .iter()
            .find(|g| g.metric.as_deref() == Some("rt_ms") && g.source_line == f.source_line);
        let (Some(rt), Some(w), Some(t), Some(q)) =
            (rt, &f.workload, f.threads, f.queries_per_transaction)
        else {
            continue;
        };
        for (side, qps, ms) in [
            ("plaintext", f.plaintext, rt.plaintext),
            ("ciphertext", f.ciphertext, rt.ciphertext),
        ] {
            if let (Some(qps), Some(ms)) = (qps, ms) {
                out.push(Identity::check(
                    format!(
                        "published, {} {side} (line {})",
                        f.instance.as_deref().unwrap_or(""),
                        f.source_line
                    ),
                    w,
                    t,
                    f64::from(q),
                    qps,
                    ms,
                ));
            }
        }
    }
    for g in grids {
        for s in &g.report.summary {
            let q = s.qps.median / s.tps.median.max(1e-9);
            out.push(Identity::check(
                format!("ours, {}", s.mode),
                &s.workload,
                s.threads,
                q,
                s.qps.median,
                s.rt_ms.median,
            ));
        }
    }
    out
}

/// Where our setup differs from the report's, plainly; `proxy`: column-bench's
/// measurement for the proxy prediction, or why there is none.
pub fn setup_differences(
    p: &Published,
    scale: &ScaleSpec,
    quick: bool,
    proxy: &Result<Measurement, String>,
) -> Vec<String> {
    let mut out = vec![
        super::proxy::setup_note(proxy, p),
        "The report ran RDS MySQL 8.0 (mysql.n2.xlarge.2c) and PolarDB (8-core nodes) on their own hardware; here MariaDB 10.11, client and server on one 2-core machine shared with other jobs, over loopback TCP. Only effects (percent changes) are compared, never QPS.".to_string(),
        "Every column encrypted: k, c and pad are AES-256-GCM envelopes (AAD: table, column, id); id stays plaintext. SUM(k), ORDER BY c and DISTINCT c are computed in the client after decryption.".to_string(),
        format!(
            "Backends: {} ({}); {} as the OpenSSL row.",
            p.backends.first().map_or("", String::as_str),
            p.best_backend_why.as_deref().unwrap_or("the best one"),
            p.backends.get(1).map_or("", String::as_str),
        ),
    ];
    if quick {
        out.push(format!(
            "Quick mode: {} x {} rows, scaled: {}.",
            encbench_oltp::report::count(u64::from(scale.tables), "table", "tables"),
            scale.table_size,
            scale.scaled_how.as_deref().unwrap_or("")
        ));
    } else {
        out.push("Full mode: 250 tables x 25,000 rows is about 3.2 GiB plaintext and 4.5 GiB encrypted, larger than the private server's 1 GiB buffer pool: IO-bound here, where the report's instances cached it.".to_string());
    }
    out.push("At 256 threads on 2 cores, the RT is the queueing of 256 clients for 2 cores (the identity table shows it holds).".to_string());
    out
}

/// Updates `r` (rows, identity, the proxy prediction's tables, charts, words)
/// from the grids run so far and column-bench's measurement (`proxy`).
pub fn update_reproduction(
    r: &mut super::Reproduction,
    p: &Published,
    plan: &Plan,
    quick: bool,
    proxy: &Result<Measurement, String>,
) {
    r.rows = rows(p, &r.runs);
    r.identity = identity(p, &r.runs);
    r.setup_differences = setup_differences(p, &plan.scale, quick, proxy);
    r.tables.clear();
    match proxy {
        Ok(m) => {
            let predictions = super::proxy::predict(p, m);
            r.tables.push(super::proxy::inputs_table(m));
            r.tables
                .push(super::proxy::prediction_table(m, &predictions));
            r.measurements.insert(
                "proxy_prediction".into(),
                serde_json::json!({
                    "measurement": m,
                    "proxy_cores": super::proxy::PROXY_CORES,
                    "predictions": predictions,
                }),
            );
        }
        Err(e) => {
            r.measurements.insert(
                "proxy_prediction".into(),
                serde_json::json!({ "not_run": e }),
            );
        }
    }
    r.charts.clear();
    for g in &r.runs {
        for (metric, what) in [("qps", "QPS"), ("rt_ms", "RT")] {
            let series: Vec<super::svg::Series> = p
                .backends
                .iter()
                .map(|b| super::svg::Series {
                    label: format!("ours: {b}"),
                    points: super::svg::points(&g.report.comparisons, metric, b),
                })
                .collect();
            let published: Vec<(String, u32, f64)> = p
                .figures
                .iter()
                .filter(|f| {
                    f.workload.as_deref() == Some(g.name.as_str())
                        && f.metric.as_deref() == Some(metric)
                })
                .map(|f| {
                    (
                        format!("published: {}", f.instance.as_deref().unwrap_or("")),
                        f.threads.unwrap_or(0),
                        f.published,
                    )
                })
                .collect();
            // One legend entry per instance: the crosses of one instance share a label.
            let mut seen: Vec<String> = Vec::new();
            let published: Vec<(String, u32, f64)> = published
                .into_iter()
                .map(|(l, t, y)| {
                    if seen.contains(&l) {
                        (String::new(), t, y)
                    } else {
                        seen.push(l.clone());
                        (l, t, y)
                    }
                })
                .collect();
            if let Ok(svg) = super::svg::effect_chart(
                &format!(
                    "{}: {what} change, every column encrypted vs plaintext",
                    g.name
                ),
                &format!("{what} change, %"),
                &series,
                &published,
            ) {
                r.charts.push(super::row::Chart {
                    title: format!(
                        "{}: {what} change against threads, ours per backend (median of paired rounds, interval as a bar) and the report's (crosses)",
                        g.name
                    ),
                    svg,
                });
            }
        }
    }
}
