//! `oltp merge`: the results of several client machines that ran the same grid
//! at the same time against one server (for servers one client cannot
//! saturate), combined into one report: counts and rates added, latency
//! HdrHistograms merged, client CPU added.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::report::{
    Fairness, LatencyMs, Queries, RunResult, StatementLatency, histogram_from_hex, histogram_to_hex,
};

#[derive(Deserialize)]
struct ReportFile {
    runs: Vec<RunResult>,
}

/// Reads the runs of one `--json-out` file.
///
/// # Errors
/// The file cannot be read or is not an `oltp run` JSON report.
pub fn read_runs(path: &Path) -> Result<Vec<RunResult>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let file: ReportFile = serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "{} is not an oltp run report (write one with `oltp run --json-out FILE`)",
            path.display()
        )
    })?;
    Ok(file.runs)
}

/// What identifies a run across clients.
fn key(r: &RunResult) -> (String, String, bool, bool, u32) {
    (
        r.workload.clone(),
        r.encrypt.clone(),
        r.tls.is_some(),
        r.at_rest,
        r.round,
    )
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

/// Merges the runs of several clients, run by run: the i-th run of one client
/// with the run of every other client that has the same workload, encryption,
/// TLS, at-rest and round. Threads, events, queries, rates, errors and client
/// CPU add up; the time is the longest; latencies come from the merged
/// histograms; fairness is pooled over all workers.
///
/// # Errors
/// Fewer than two inputs, a run missing from one client, runs of different
/// data sets or options, or a histogram that does not decode.
pub fn merge(clients: &[Vec<RunResult>]) -> Result<Vec<RunResult>> {
    let Some((first, rest)) = clients.split_first() else {
        bail!("oltp merge needs at least two JSON reports");
    };
    if rest.is_empty() {
        bail!("oltp merge needs at least two JSON reports (one per client)");
    }
    let mut out = Vec::new();
    for (i, base) in first.iter().enumerate() {
        let mut group = vec![base];
        for (c, runs) in rest.iter().enumerate() {
            let Some(r) = runs.iter().find(|r| key(r) == key(base)) else {
                bail!(
                    "report {} has no {} run with encrypt {} (tls {}, round {}) that report 1 has: merge reports of the same grid",
                    c + 2,
                    base.workload,
                    base.encrypt,
                    base.tls.is_some(),
                    base.round
                );
            };
            if (r.tables, r.table_size, r.database.as_str(), r.options)
                != (
                    base.tables,
                    base.table_size,
                    base.database.as_str(),
                    base.options,
                )
            {
                bail!(
                    "report {} ran {} on other tables or options than report 1 (run {}): merge reports of the same grid",
                    c + 2,
                    r.workload,
                    i + 1
                );
            }
            group.push(r);
        }
        out.push(merge_group(&group)?);
    }
    Ok(out)
}

fn merge_group(group: &[&RunResult]) -> Result<RunResult> {
    let base = group[0];
    let mut latency = histogram_from_hex(&base.latency_histogram)
        .map_err(|e| anyhow::anyhow!("{} run: {e}", base.workload))?;
    for r in &group[1..] {
        let h = histogram_from_hex(&r.latency_histogram)
            .map_err(|e| anyhow::anyhow!("{} run: {e}", r.workload))?;
        latency
            .add(&h)
            .map_err(|e| anyhow::anyhow!("histograms do not merge: {e:?}"))?;
    }
    let mut statements: Vec<StatementLatency> = Vec::new();
    for r in group {
        for st in &r.statements {
            let h = histogram_from_hex(&st.histogram)
                .map_err(|e| anyhow::anyhow!("{} statements: {e}", st.kind))?;
            match statements.iter_mut().find(|s| s.kind == st.kind) {
                Some(m) => {
                    let mut merged = histogram_from_hex(&m.histogram)
                        .map_err(|e| anyhow::anyhow!("{} statements: {e}", m.kind))?;
                    merged
                        .add(&h)
                        .map_err(|e| anyhow::anyhow!("histograms do not merge: {e:?}"))?;
                    m.count += st.count;
                    m.latency_ms = LatencyMs::from_histogram(&merged, 1e-3);
                    m.histogram = histogram_to_hex(&merged);
                }
                None => statements.push(st.clone()),
            }
        }
    }
    let sum_u = |f: &dyn Fn(&RunResult) -> u64| group.iter().map(|r| f(r)).sum::<u64>();
    let sum_f = |f: &dyn Fn(&RunResult) -> f64| group.iter().map(|r| f(r)).sum::<f64>();
    let queries = Queries {
        read: sum_u(&|r| r.queries.read),
        write: sum_u(&|r| r.queries.write),
        other: sum_u(&|r| r.queries.other),
        total: sum_u(&|r| r.queries.total),
    };
    let cpu = sum_f(&|r| r.client_cpu_s);
    let (events_avg, events_stddev) = pooled(
        &group
            .iter()
            .map(|r| {
                (
                    f64::from(r.threads),
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
                    f64::from(r.threads),
                    r.fairness.exec_time_avg_s,
                    r.fairness.exec_time_stddev_s,
                )
            })
            .collect::<Vec<_>>(),
    );
    Ok(RunResult {
        threads: group.iter().map(|r| r.threads).sum(),
        time_s: group.iter().map(|r| r.time_s).fold(0.0, f64::max),
        transactions: sum_u(&|r| r.transactions),
        tps: sum_f(&|r| r.tps),
        qps: sum_f(&|r| r.qps),
        queries,
        errors: sum_u(&|r| r.errors),
        reconnects: sum_u(&|r| r.reconnects),
        latency_ms: LatencyMs::from_histogram(&latency, 1e-6),
        latency_histogram: histogram_to_hex(&latency),
        statements,
        fairness: Fairness {
            events_avg,
            events_stddev,
            exec_time_avg_s,
            exec_time_stddev_s,
        },
        client_cpu_s: cpu,
        client_cpu_us_per_query: if queries.total > 0 {
            cpu * 1e6 / queries.total as f64
        } else {
            0.0
        },
        complete: group.iter().all(|r| r.complete),
        error: group.iter().find_map(|r| r.error.clone()),
        ..base.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
