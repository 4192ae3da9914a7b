//! `oltp merge`: the results of several client machines that ran the same grid
//! at the same time against one server (for servers one client cannot
//! saturate), combined into one report: counts and rates added, latency
//! HdrHistograms merged, client CPU added.
//!
//! It stays beside [`crate::report`], not in it: it reads files and refuses
//! inputs with errors for the command line; the format it reads is
//! [`report::json`](crate::report::json), and runs are matched by
//! [`RunKey`] and round; what it refuses is in `check`.

mod check;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use hdrhistogram::Histogram;

use anyhow::{Result, anyhow, bail};

use crate::report::MeasuredWindow;
use crate::report::json::{self, check_schema};
use crate::report::{
    Fairness, LatencyLimit, LatencyMs, Queries, RunKey, RunResult, RunSettings, ScheduleLagMs,
    StatementLatency, histogram_from_hex, histogram_to_hex,
};
use check::{
    check_not_the_same, check_same_data_set, check_same_grid, check_same_per_client,
    check_same_workload, check_windows_overlap,
};

/// The report of one client, as read from its `--json-out` file.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientReport {
    /// The file it came from (named in every error).
    pub file: PathBuf,
    /// Its `schema_version` ([`SCHEMA_VERSION`](crate::report::SCHEMA_VERSION) for a file this oltp wrote).
    pub schema_version: u32,
    /// Its runs, in the order run.
    pub runs: Vec<RunResult>,
}

/// What `oltp merge` reads, in errors.
const REPORT_FILE: &str = "the --json-out report of an oltp run";

/// Reads one client's `--json-out` file: a regular file of at most
/// [`MAX_RESULT_JSON`](encbench_common::files::MAX_RESULT_JSON) bytes.
///
/// # Errors
/// The file cannot be read, is not a regular file or is larger than the cap,
/// is not an `oltp run` JSON report, or has another `schema_version` than this
/// oltp writes.
pub fn read_runs(path: &Path) -> Result<ClientReport> {
    use encbench_common::files::{MAX_RESULT_JSON, read_capped};
    let bytes = read_capped(path, MAX_RESULT_JSON, REPORT_FILE, "oltp merge")?;
    let file = json::parse(&bytes).map_err(|e| anyhow!("{} {e}", path.display()))?;
    Ok(ClientReport {
        file: path.to_path_buf(),
        schema_version: file.schema_version,
        runs: file.runs,
    })
}

/// What a run is matched by across clients: its combination of the grid (the
/// fields of its [`RunKey`], borrowed), its round of `--repeat`, and whether it
/// is the baseline's `--control` run.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct MergeKey<'a> {
    workload: &'a str,
    threads: u32,
    encrypt: &'a str,
    encrypted_columns: &'a str,
    tls: bool,
    at_rest: &'a str,
    round: u32,
    control: bool,
}

fn merge_key(r: &RunResult) -> MergeKey<'_> {
    let s = &r.settings;
    MergeKey {
        workload: &s.workload,
        threads: s.threads,
        encrypt: &s.encrypt,
        encrypted_columns: &s.encrypted_columns,
        tls: s.tls.is_some(),
        at_rest: s.at_rest.as_ref().map_or("", |a| a.mechanism.as_str()),
        round: r.round,
        control: r.control,
    }
}

/// A client's runs by [`MergeKey`]: the index of each in `runs`. Built once
/// per client, so matching runs across clients is linear, not quadratic (a
/// merge of 19,000 runs spent its time comparing every run with every other).
///
/// # Errors
/// The report holds one combination and round twice (named at its second run).
fn index_runs(c: &ClientReport) -> Result<HashMap<MergeKey<'_>, usize>> {
    let mut index = HashMap::with_capacity(c.runs.len());
    for (i, r) in c.runs.iter().enumerate() {
        if index.insert(merge_key(r), i).is_some() {
            bail!(
                "{} holds two runs of {} (round {}): give the report of one `oltp run`",
                c.file.display(),
                RunKey::of(r),
                r.round
            );
        }
    }
    Ok(index)
}

/// Pools (count, mean, population stddev) groups into one.
fn pooled(parts: &[(f64, f64, f64)]) -> (f64, f64) {
    let n: f64 = parts.iter().map(|p| p.0).sum();
    if n == 0.0 {
        return (0.0, 0.0);
    }
    let mean = parts.iter().map(|p| p.0 * p.1).sum::<f64>() / n;
    let second = parts
        .iter()
        .map(|p| p.0 * (p.2 * p.2 + p.1 * p.1))
        .sum::<f64>()
        / n;
    (mean, (second - mean * mean).max(0.0).sqrt())
}

/// Merges the runs of several clients, run by run: each run of the first
/// client with the run of every other client that has the same [`RunKey`]
/// (workload, threads, encryption, columns, TLS, at rest) and round. Threads,
/// `--rate`, events, queries, rates, errors and client CPU add up; the time is
/// the longest; latencies come from the merged histograms; fairness is pooled
/// over all workers.
///
/// # Errors
/// Each with the file at fault and the fix: fewer than two inputs; a file of
/// another `schema_version`; a file given twice, or two files with the same
/// runs; another workload or other workload options; another data set
/// (database, tables, table size, encrypted columns); another grid (thread
/// counts, encryption choices, rounds); a histogram that does not decode.
pub fn merge(clients: &[ClientReport]) -> Result<Vec<RunResult>> {
    let (Some((first, rest)), 2..) = (clients.split_first(), clients.len()) else {
        bail!("oltp merge needs at least two JSON reports (one per client)");
    };
    let mut indexes = Vec::with_capacity(clients.len());
    for c in clients {
        check_schema(c.schema_version).map_err(|e| anyhow!("{} {e}", c.file.display()))?;
        if c.runs.is_empty() {
            bail!(
                "{} has no run: give the report of a client that ran",
                c.file.display()
            );
        }
        indexes.push(index_runs(c)?);
    }
    for (i, a) in clients.iter().enumerate() {
        for b in &clients[i + 1..] {
            check_not_the_same(a, b)?;
        }
    }
    let (first_index, rest_indexes) = indexes.split_first().expect("two clients or more");
    for (c, index) in rest.iter().zip(rest_indexes) {
        check_same_workload(first, c)?;
        check_same_data_set(first, c)?;
        check_same_grid((first, first_index), (c, index))?;
    }
    let groups: Vec<Vec<(&Path, &RunResult)>> = first
        .runs
        .iter()
        .map(|base| {
            let key = merge_key(base);
            let mut group = vec![(first.file.as_path(), base)];
            group.extend(
                rest.iter()
                    .zip(rest_indexes)
                    .filter_map(|(c, index)| Some((c.file.as_path(), &c.runs[*index.get(&key)?]))),
            );
            group
        })
        .collect();
    for g in &groups {
        check_windows_overlap(g)?;
    }
    groups
        .iter()
        .map(|g| merge_group(&g.iter().map(|(_, r)| *r).collect::<Vec<_>>()))
        .collect()
}

/// The overlap of merged clients' measured windows that `oltp merge`
/// requires, percent ([`overlap_pct`](crate::report::overlap_pct): intersection over union).
pub const MIN_OVERLAP_PCT: f64 = 90.0;

/// One run merged from the clients' runs in `group` (the first client's
/// first): counts and rates added, histograms merged, fairness pooled.
///
/// # Errors
/// Another `--latency-limit` or transactions per client, or a histogram that
/// does not decode or merge.
fn merge_group(group: &[&RunResult]) -> Result<RunResult> {
    let base = group[0];
    let latency_limit = merge_latency_limit(group)?;
    check_same_per_client(group)?;
    let mut latency = histogram_from_hex(&base.latency_histogram)
        .map_err(|e| anyhow::anyhow!("{} run: {e}", base.settings.workload))?;
    for r in &group[1..] {
        let h = histogram_from_hex(&r.latency_histogram)
            .map_err(|e| anyhow::anyhow!("{} run: {e}", r.settings.workload))?;
        latency
            .add(&h)
            .map_err(|e| anyhow::anyhow!("histograms do not merge: {e:?}"))?;
    }
    let statements = merge_statements(group)?;
    let sum_u = |f: &dyn Fn(&RunResult) -> u64| group.iter().map(|r| f(r)).sum::<u64>();
    let sum_f = |f: &dyn Fn(&RunResult) -> f64| group.iter().map(|r| f(r)).sum::<f64>();
    let queries = Queries {
        read: sum_u(&|r| r.queries.read),
        write: sum_u(&|r| r.queries.write),
        other: sum_u(&|r| r.queries.other),
        total: sum_u(&|r| r.queries.total),
    };
    let cpu = sum_f(&|r| r.client_cpu_s);
    // One server: each client on its machine measured it over (nearly) the
    // same window; their mean is its CPU over the merged run.
    let server: Vec<f64> = group.iter().filter_map(|r| r.server_cpu_s).collect();
    let server_cpu = if server.is_empty() {
        Err(group
            .iter()
            .find_map(|r| r.server_cpu_unavailable.clone())
            .unwrap_or_else(|| "no client measured the server's CPU".to_string()))
    } else {
        Ok(server.iter().sum::<f64>() / server.len() as f64)
    };
    let window = MeasuredWindow {
        start: group
            .iter()
            .map(|r| r.measured_window.start)
            .min()
            .unwrap_or(base.measured_window.start),
        end: group
            .iter()
            .map(|r| r.measured_window.end)
            .max()
            .unwrap_or(base.measured_window.end),
    };
    let (events_avg, events_stddev) = pooled(
        &group
            .iter()
            .map(|r| {
                (
                    f64::from(r.settings.threads),
                    r.fairness.events_avg,
                    r.fairness.events_stddev,
                )
            })
            .collect::<Vec<_>>(),
    );
    let (exec_time_avg_s, exec_time_stddev_s) = pooled(
        &group
            .iter()
            .map(|r| {
                (
                    f64::from(r.settings.threads),
                    r.fairness.exec_time_avg_s,
                    r.fairness.exec_time_stddev_s,
                )
            })
            .collect::<Vec<_>>(),
    );
    let mut merged = RunResult {
        settings: RunSettings {
            threads: group.iter().map(|r| r.settings.threads).sum(),
            rate: sum_f(&|r| r.settings.rate),
            ..base.settings.clone()
        },
        time_s: group.iter().map(|r| r.time_s).fold(0.0, f64::max),
        transactions: sum_u(&|r| r.transactions),
        tps: sum_f(&|r| r.tps),
        qps: sum_f(&|r| r.qps),
        queries,
        errors: sum_u(&|r| r.errors),
        decrypt_errors: sum_u(&|r| r.decrypt_errors),
        reconnects: sum_u(&|r| r.reconnects),
        interrupted_events: sum_u(&|r| r.interrupted_events),
        latency_ms: LatencyMs::from_histogram(&latency, 1e-6),
        schedule_lag_ms: merge_lag(group),
        latency_limit,
        latency_histogram: histogram_to_hex(&latency),
        statements,
        fairness: Fairness {
            events_avg,
            events_stddev,
            exec_time_avg_s,
            exec_time_stddev_s,
        },
        measured_window: window,
        complete: group.iter().all(|r| r.complete),
        error: group.iter().find_map(|r| r.error.clone()),
        ..base.clone()
    };
    merged.set_cpu(cpu, server_cpu);
    Ok(merged)
}

/// The statement kinds of the clients' runs in `group`, in the order met:
/// counts added, histograms merged.
///
/// # Errors
/// A histogram that does not decode or merge.
fn merge_statements(group: &[&RunResult]) -> Result<Vec<StatementLatency>> {
    // Each statement kind's histograms decoded once and added up; encoded once
    // at the end, for a kind more than one client ran.
    let mut statements: Vec<(StatementLatency, Histogram<u64>, bool)> = Vec::new();
    for r in group {
        for st in &r.statements {
            let h = histogram_from_hex(&st.histogram)
                .map_err(|e| anyhow::anyhow!("{} statements: {e}", st.kind))?;
            match statements.iter_mut().find(|(s, _, _)| s.kind == st.kind) {
                Some((m, merged, added)) => {
                    merged
                        .add(&h)
                        .map_err(|e| anyhow::anyhow!("histograms do not merge: {e:?}"))?;
                    m.count += st.count;
                    *added = true;
                }
                None => statements.push((st.clone(), h, false)),
            }
        }
    }
    Ok(statements
        .into_iter()
        .map(|(mut m, merged, added)| {
            if added {
                m.latency_ms = LatencyMs::from_histogram(&merged, 1e-3);
                m.histogram = histogram_to_hex(&merged);
            }
            m
        })
        .collect())
}

/// The clients' `--latency-limit` counts added (late, skipped); `None`
/// when no client had a limit.
///
/// # Errors
/// Clients with different limits, or one without: their late counts mean
/// different things.
fn merge_latency_limit(group: &[&RunResult]) -> Result<Option<LatencyLimit>> {
    let limits: Vec<Option<f64>> = group
        .iter()
        .map(|r| r.latency_limit.map(|l| l.limit_ms))
        .collect();
    if limits.windows(2).any(|w| w[0] != w[1]) {
        let shown = |l: &Option<f64>| l.map_or("none".to_string(), |ms| format!("{ms} ms"));
        bail!(
            "the clients ran {} with --latency-limit {}: merge reports of the same grid (the same --latency-limit)",
            group[0].settings.workload,
            limits.iter().map(shown).collect::<Vec<_>>().join(", ")
        );
    }
    Ok(group[0].latency_limit.map(|l| LatencyLimit {
        limit_ms: l.limit_ms,
        late: group
            .iter()
            .filter_map(|r| r.latency_limit)
            .map(|l| l.late)
            .sum(),
        skipped: group
            .iter()
            .filter_map(|r| r.latency_limit)
            .map(|l| l.skipped)
            .sum(),
    }))
}

/// The clients' schedule lag together: the mean weighted by transactions
/// and the largest (`None` unless every client ran with `--rate`).
fn merge_lag(group: &[&RunResult]) -> Option<ScheduleLagMs> {
    let lags = group
        .iter()
        .map(|r| r.schedule_lag_ms.map(|l| (l, r.transactions)))
        .collect::<Option<Vec<_>>>()?;
    let n: u64 = lags.iter().map(|(_, t)| t).sum();
    (n > 0).then(|| ScheduleLagMs {
        avg: lags.iter().map(|(l, t)| l.avg * *t as f64).sum::<f64>() / n as f64,
        max: lags.iter().map(|(l, _)| l.max).fold(0.0, f64::max),
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::report::SCHEMA_VERSION;
    use crate::report::model::fixtures::{run, settings};

    const ENCRYPT: [&str; 2] = ["none", "rustcrypto:aes-256-gcm"];

    /// A client's report of `--threads threads --encrypt none,rustcrypto:aes-256-gcm`,
    /// its settings changed by `edit`, each thread with `fast` events of 1 ms
    /// and `slow` of 10 ms.
    fn client(
        file: &str,
        threads: &[u32],
        edit: impl Fn(&mut RunSettings),
        fast: u64,
        slow: u64,
    ) -> ClientReport {
        let mut runs = Vec::new();
        for &t in threads {
            for e in ENCRYPT {
                let mut s = settings(t, e);
                edit(&mut s);
                runs.push(run(s, fast, slow));
            }
        }
        ClientReport {
            file: PathBuf::from(file),
            schema_version: SCHEMA_VERSION,
            runs,
        }
    }

    fn same(_: &mut RunSettings) {}

    fn refused(clients: &[ClientReport]) -> String {
        format!("{:#}", merge(clients).expect_err("must be refused"))
    }

    #[test]
    fn two_clients_two_thread_counts_two_encryptions() {
        // Client a: every event 1 ms (p95 1 ms). Client b: 8% of events 10 ms
        // (p95 10 ms). Together 4% are 10 ms: the merged p95 is 1 ms, which no
        // combination of the two p95s gives.
        let a = client("a.json", &[1, 8], same, 100, 0);
        let b = client("b.json", &[1, 8], same, 92, 8);
        assert!((a.runs[0].latency_ms.p95 - 1.0).abs() < 0.01);
        assert!((b.runs[0].latency_ms.p95 - 10.0).abs() < 0.1);
        let merged = merge(&[a.clone(), b.clone()]).expect("merge");
        assert_eq!(merged.len(), 4);
        for ((m, ra), rb) in merged.iter().zip(&a.runs).zip(&b.runs) {
            assert_eq!(RunKey::of(ra), RunKey::of(rb));
            assert_eq!(m.settings.threads, 2 * ra.settings.threads);
            assert_eq!(m.settings.encrypt, ra.settings.encrypt);
            assert_eq!(m.round, ra.round);
            assert_eq!(m.transactions, ra.transactions + rb.transactions);
            assert_eq!(m.transactions, 200 * u64::from(ra.settings.threads));
            assert_eq!(m.queries.total, ra.queries.total + rb.queries.total);
            assert_eq!(m.queries.read, ra.queries.read + rb.queries.read);
            assert!((m.tps - (ra.tps + rb.tps)).abs() < 1e-9);
            assert!((m.client_cpu_s - 1.0).abs() < 1e-12);
            let h = histogram_from_hex(&m.latency_histogram).expect("histogram");
            assert_eq!(h.len(), m.transactions);
            assert!((m.latency_ms.p95 - 1.0).abs() < 0.01, "{:?}", m.latency_ms);
            assert!((m.latency_ms.max - 10.0).abs() < 0.1, "{:?}", m.latency_ms);
            assert_eq!(m.statements.len(), 1);
            let st = &m.statements[0];
            assert_eq!(st.count, ra.statements[0].count + rb.statements[0].count);
            assert!(
                (st.latency_ms.p95 - 0.1).abs() < 0.01,
                "{:?}",
                st.latency_ms
            );
            assert!(
                (m.fairness.events_avg - 100.0).abs() < 1e-9,
                "{:?}",
                m.fairness
            );
            assert!(m.complete);
        }
        let threads: Vec<u32> = merged.iter().map(|m| m.settings.threads).collect();
        assert_eq!(threads, [2, 2, 16, 16]);
    }

    #[test]
    fn server_cpu_is_one_servers_and_windows_must_overlap() {
        let a = client("a.json", &[1], same, 100, 0);
        let mut b = client("b.json", &[1], same, 92, 8);
        // b ran on another machine: no server CPU. The server's 1.5 s (a's
        // reading) spread over both clients' queries, added to their 1 s.
        for r in &mut b.runs {
            let client_s = r.client_cpu_s;
            r.set_cpu(
                client_s,
                Err(crate::server_cpu::NO_SERVER_PID_MESSAGE.to_string()),
            );
        }
        let merged = merge(&[a.clone(), b.clone()]).expect("merge");
        let q = (a.runs[0].queries.total + b.runs[0].queries.total) as f64;
        let m = &merged[0];
        assert_eq!(m.server_cpu_s, Some(1.5));
        assert!((m.server_cpu_us_per_query.expect("server") - 1.5e6 / q).abs() < 1e-9);
        assert!((m.total_cpu_us_per_query.expect("total") - 2.5e6 / q).abs() < 1e-9);
        assert_eq!(m.measured_window, a.runs[0].measured_window);
        // b 150 ms late on 2 s windows: 1850 / 2150 = 86.0% < 90%.
        for r in &mut b.runs {
            r.measured_window.start += Duration::from_millis(150);
            r.measured_window.end += Duration::from_millis(150);
        }
        let e = refused(&[a.clone(), b.clone()]);
        assert!(e.contains("overlap by 86.0% (at least 90% needed)"), "{e}");
        assert!(
            e.contains("a.json from 2026-11-30T00:53:20Z for 2.00 s (+0.00 s)"),
            "{e}"
        );
        assert!(
            e.contains("b.json from 2026-11-30T00:53:20.15Z for 2.00 s (+0.15 s)"),
            "{e}"
        );
        assert!(e.contains("the same --start-at TIME"), "{e}");
        // 100 ms late: 1900 / 2100 = 90.5%, merged over the union.
        for r in &mut b.runs {
            r.measured_window.start -= Duration::from_millis(50);
            r.measured_window.end -= Duration::from_millis(50);
        }
        let merged = merge(&[a.clone(), b.clone()]).expect("90.5% overlap");
        assert_eq!(
            merged[0].measured_window.start,
            a.runs[0].measured_window.start
        );
        assert_eq!(merged[0].measured_window.end, b.runs[0].measured_window.end);
    }

    #[test]
    fn other_thread_counts_are_refused() {
        let a = client("a.json", &[1, 8], same, 10, 0);
        let b = client("b.json", &[1, 4], same, 10, 0);
        let e = refused(&[a, b]);
        assert!(e.contains("b.json ran --threads 1,4"), "{e}");
        assert!(e.contains("a.json ran --threads 1,8"), "{e}");
        assert!(e.contains("same --threads"), "{e}");
    }

    #[test]
    fn a_missing_encryption_choice_is_refused() {
        let a = client("a.json", &[1, 8], same, 10, 0);
        let mut b = client("b.json", &[1, 8], same, 10, 0);
        b.runs.retain(|r| r.settings.encrypt == "none");
        let e = refused(&[a, b]);
        assert!(
            e.contains("b.json has no run of oltp_read_only at 1 thread,"),
            "{e}"
        );
        assert!(e.contains("same grid"), "{e}");
    }

    #[test]
    fn another_schema_version_is_refused() {
        let a = client("a.json", &[1], same, 10, 0);
        let mut b = client("b.json", &[1], same, 10, 0);
        b.schema_version = 1;
        let e = refused(&[a, b]);
        assert!(e.starts_with("b.json was written by an older oltp"), "{e}");
        assert!(e.contains("re-run"), "{e}");
    }

    #[test]
    fn a_file_without_schema_version_is_refused_when_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("old.json");
        let report = crate::report::Report::new(
            crate::report::Report::begin(),
            client("x", &[1], same, 5, 0).runs,
        );
        let mut v = serde_json::to_value(&report).expect("json");
        v.as_object_mut().expect("object").remove("schema_version");
        std::fs::write(&path, serde_json::to_vec(&v).expect("json")).expect("write");
        let e = format!("{:#}", read_runs(&path).expect_err("schema 1"));
        assert!(e.contains("old.json was written by an older oltp"), "{e}");
        assert!(e.contains("re-run"), "{e}");
        std::fs::write(&path, report.to_json().expect("json")).expect("write");
        let c = read_runs(&path).expect("schema 2");
        // serde_json reads a float back to within one ulp: compare as JSON.
        assert_eq!(
            serde_json::to_value(&c.runs).expect("json"),
            serde_json::from_str::<serde_json::Value>(&report.to_json().expect("json"))
                .expect("json")["runs"]
        );
        assert_eq!(c.file, path);
    }

    #[test]
    fn another_data_set_is_refused() {
        let a = client("a.json", &[1, 8], same, 10, 0);
        let b = client("b.json", &[1, 8], |s| s.table_size = Some(2000), 10, 0);
        let e = refused(&[a, b]);
        assert!(
            e.contains("b.json ran on database sbtest, 2 tables x 2000 rows"),
            "{e}"
        );
        assert!(e.contains("same data set"), "{e}");
        let a = client("a.json", &[1], same, 10, 0);
        let b = client(
            "b.json",
            &[1],
            |s| {
                if s.encrypt != "none" {
                    s.encrypted_columns = "k (deterministic), c, pad".to_string();
                }
            },
            10,
            0,
        );
        let e = refused(&[a, b]);
        // New-user finding: this sentence was garbled and named a --columns
        // flag that oltp does not have.
        assert!(
            e.starts_with(
                "b.json's rustcrypto:aes-256-gcm runs encrypted columns [k (deterministic), c, pad] where a.json's encrypted [c, pad]: merge reports of clients on the same data set (the same --encrypt-columns and --deterministic)"
            ),
            "{e}"
        );
    }

    #[test]
    fn other_workload_options_are_refused() {
        let a = client("a.json", &[1, 8], same, 10, 0);
        let b = client("b.json", &[1, 8], |s| s.options.point_selects = 5, 10, 0);
        let e = refused(&[a, b]);
        assert!(
            e.contains("b.json ran other workload options than a.json"),
            "{e}"
        );
        assert!(e.contains("point_selects 5 vs 10"), "{e}");
        let a = client("a.json", &[1], same, 10, 0);
        let b = client(
            "b.json",
            &[1],
            |s| s.workload = "oltp_point_select".into(),
            10,
            0,
        );
        let e = refused(&[a, b]);
        assert!(
            e.contains("b.json ran oltp_point_select where a.json ran oltp_read_only"),
            "{e}"
        );
    }

    #[test]
    fn a_report_is_not_merged_with_itself() {
        let a = client("a.json", &[1], same, 10, 0);
        let e = refused(&[a.clone(), a.clone()]);
        assert!(e.contains("a.json is given twice"), "{e}");
        let copy = ClientReport {
            file: PathBuf::from("copy.json"),
            ..a.clone()
        };
        let e = refused(&[a, copy]);
        assert!(e.contains("copy.json holds the same runs as a.json"), "{e}");
    }

    #[test]
    fn latency_limit_counts_add_up_and_another_limit_is_refused() {
        let limit = |late, skipped| LatencyLimit {
            limit_ms: 5.0,
            late,
            skipped,
        };
        let mut a = client("a.json", &[1], same, 100, 0);
        let mut b = client("b.json", &[1], same, 92, 8);
        for r in &mut a.runs {
            r.latency_limit = Some(limit(0, 3));
        }
        for r in &mut b.runs {
            r.latency_limit = Some(limit(8, 4));
        }
        let merged = merge(&[a.clone(), b.clone()]).expect("merge");
        for r in &merged {
            assert_eq!(r.latency_limit, Some(limit(8, 7)), "{}", r.settings.encrypt);
        }
        for r in &mut b.runs {
            r.latency_limit = None;
        }
        let e = refused(&[a, b]);
        assert!(
            e.contains("--latency-limit 5 ms, none") && e.contains("the same --latency-limit"),
            "{e}"
        );
    }

    #[test]
    fn pgbench_clients_by_count_merge_with_the_same_per_client_count_only() {
        let by_count = |n: Option<u64>| {
            move |s: &mut RunSettings| {
                let (encrypt, columns) = (s.encrypt.clone(), s.encrypted_columns.clone());
                *s = crate::report::model::fixtures::select_only(s.threads, 1, "prepared", 1.0);
                (s.encrypt, s.encrypted_columns) = (encrypt, columns);
                if let Some(p) = s.pgbench.as_mut() {
                    p.transactions_per_client = n;
                }
            }
        };
        let a = client("a.json", &[2], by_count(Some(150)), 150, 0);
        let b = client("b.json", &[2], by_count(Some(150)), 140, 10);
        let merged = merge(&[a.clone(), b]).expect("merge");
        let text = merged[0].to_text();
        assert!(
            text.contains(
                "number of transactions per client: 150\nnumber of transactions actually processed: 600/600\n"
            ),
            "{text}"
        );
        let c = client("c.json", &[2], by_count(Some(100)), 100, 0);
        let e = refused(&[a.clone(), c]);
        assert!(
            e.contains("with 150, 100 transactions per client")
                && e.contains("the same --events per --threads"),
            "{e}"
        );
        let d = client("d.json", &[2], by_count(None), 150, 0);
        assert!(refused(&[a, d]).contains("150, none (--time)"));
    }

    #[test]
    fn one_report_is_refused() {
        let a = client("a.json", &[1], same, 10, 0);
        assert!(refused(&[a]).contains("at least two"));
        assert!(refused(&[]).contains("at least two"));
    }

    #[test]
    fn pooled_stddev_equals_the_stddev_of_all_values() {
        // {1, 3} (mean 2, sd 1) and {5, 7, 9} (mean 7, sd sqrt(8/3)).
        let (m, sd) = pooled(&[(2.0, 2.0, 1.0), (3.0, 7.0, (8.0f64 / 3.0).sqrt())]);
        let all = [1.0, 3.0, 5.0, 7.0, 9.0];
        let mean = all.iter().sum::<f64>() / 5.0;
        let var = all.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / 5.0;
        assert!((m - mean).abs() < 1e-12);
        assert!((sd - var.sqrt()).abs() < 1e-12);
    }
}
