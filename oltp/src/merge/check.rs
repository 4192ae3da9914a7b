//! The refusals of `oltp merge`: inputs whose runs do not add up (another
//! workload, data set or grid, a copy, windows that do not overlap, another
//! `--events` per thread), each with the file at fault and the fix.

use std::collections::HashMap;
use std::path::Path;
use std::time::UNIX_EPOCH;

use anyhow::{Result, bail};

use super::{ClientReport, MIN_OVERLAP_PCT, MergeKey, merge_key};
use crate::report::{MeasuredWindow, RunKey, RunResult, WorkloadOptions, overlap_pct};
use encbench_common::header::rfc3339;

/// Refuses a run whose clients' measured windows overlap less than
/// [`MIN_OVERLAP_PCT`]: their rates would not add up over one time.
pub(super) fn check_windows_overlap(group: &[(&Path, &RunResult)]) -> Result<()> {
    let windows: Vec<MeasuredWindow> = group.iter().map(|(_, r)| r.measured_window).collect();
    let pct = overlap_pct(&windows);
    if pct >= MIN_OVERLAP_PCT {
        return Ok(());
    }
    let earliest = windows.iter().map(|w| w.start).min().unwrap_or(UNIX_EPOCH);
    let each = group
        .iter()
        .map(|(file, r)| {
            let w = r.measured_window;
            let after = w.start.duration_since(earliest).unwrap_or_default();
            format!(
                "{} from {} for {:.2} s (+{:.2} s)",
                file.display(),
                rfc3339(w.start).unwrap_or_default(),
                w.length().as_secs_f64(),
                after.as_secs_f64()
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let (_, r) = group[0];
    bail!(
        "the measured windows of {} (round {}) overlap by {pct:.1}% (at least {MIN_OVERLAP_PCT:.0}% needed): {each}; run every client with the same --start-at TIME, --time and --warmup",
        RunKey::of(r),
        r.round
    );
}

/// Refuses a file given twice, and two files with identical runs (a copy).
pub(super) fn check_not_the_same(a: &ClientReport, b: &ClientReport) -> Result<()> {
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    if canonical(&a.file) == canonical(&b.file) {
        bail!(
            "{} is given twice: give each client's report once",
            b.file.display()
        );
    }
    if a.runs == b.runs {
        bail!(
            "{} holds the same runs as {} (a copy?): give each client's own report",
            b.file.display(),
            a.file.display()
        );
    }
    Ok(())
}

/// The distinct values of `f` over the runs, in first-run order.
fn distinct<'a, T: PartialEq>(runs: &'a [RunResult], f: impl Fn(&'a RunResult) -> T) -> Vec<T> {
    let mut out = Vec::new();
    for r in runs {
        let v = f(r);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// Refuses `b` when what `of` reads from it differs from `a`'s, in one line:
/// `<b> ran <b's, as show> where <a> ran <a's>: <fix>`.
fn refuse_unlike<T: PartialEq>(
    (a, b): (&ClientReport, &ClientReport),
    of: impl Fn(&ClientReport) -> T,
    show: impl Fn(T) -> String,
    fix: &str,
) -> Result<()> {
    let (of_a, of_b) = (of(a), of(b));
    if of_a != of_b {
        bail!(
            "{} ran {} where {} ran {}: {fix}",
            b.file.display(),
            show(of_b),
            a.file.display(),
            show(of_a)
        );
    }
    Ok(())
}

/// `a` and `b` as `name a vs b` for every field that differs.
fn options_diff(a: &WorkloadOptions, b: &WorkloadOptions) -> String {
    let (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) =
        (serde_json::to_value(a), serde_json::to_value(b))
    else {
        return String::new();
    };
    a.iter()
        .filter(|(k, v)| b.get(*k) != Some(*v))
        .map(|(k, v)| {
            format!(
                "{k} {v} vs {}",
                b.get(k).unwrap_or(&serde_json::Value::Null)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Refuses another workload definition: the workload name and its options.
pub(super) fn check_same_workload(a: &ClientReport, b: &ClientReport) -> Result<()> {
    refuse_unlike(
        (a, b),
        |c| distinct(&c.runs, |r| r.settings.workload.clone()),
        |names| names.join(", "),
        "merge reports of the same grid (the same workload)",
    )?;
    let options = |c: &ClientReport| distinct(&c.runs, |r| r.settings.options.clone());
    let (oa, ob) = (options(a), options(b));
    if oa != ob {
        let diff = match (oa.first(), ob.first()) {
            (Some(x), Some(y)) if oa.len() == 1 && ob.len() == 1 => {
                format!(" ({})", options_diff(y, x))
            }
            _ => String::new(),
        };
        bail!(
            "{} ran other workload options than {}{diff}: merge reports of the same grid (the same workload options)",
            b.file.display(),
            a.file.display()
        );
    }
    Ok(())
}

/// Refuses another data set: database, tables, rows per table, encrypted columns.
pub(super) fn check_same_data_set(a: &ClientReport, b: &ClientReport) -> Result<()> {
    let shape = |c: &ClientReport| {
        distinct(&c.runs, |r| match &r.settings.pgbench {
            Some(p) => format!(
                "database {}, pgbench tables of scale {}",
                r.settings.database, p.scale
            ),
            None => format!(
                "database {}, {} tables x {} rows",
                r.settings.database,
                r.settings.tables.unwrap_or_default(),
                r.settings.table_size.unwrap_or_default()
            ),
        })
    };
    refuse_unlike(
        (a, b),
        shape,
        |shape| format!("on {}", shape.join("; ")),
        "merge reports of clients on the same data set (--tables, --table-size, database)",
    )?;
    // The columns an encryption choice encrypted (empty for plaintext): b's
    // distinct (encrypt, columns) pairs, in b's order, against each of a's runs.
    let b_columns = distinct(&b.runs, |r| {
        (
            r.settings.encrypt.as_str(),
            r.settings.encrypted_columns.as_str(),
        )
    });
    for ra in &a.runs {
        let other = b_columns.iter().find(|(encrypt, columns)| {
            *encrypt == ra.settings.encrypt && *columns != ra.settings.encrypted_columns
        });
        if let Some((encrypt, columns)) = other {
            bail!(
                "{}'s {} runs encrypted columns [{}] where {}'s encrypted [{}]: merge reports of clients on the same data set (the same --encrypt-columns and --deterministic)",
                b.file.display(),
                encrypt,
                columns,
                a.file.display(),
                ra.settings.encrypted_columns
            );
        }
    }
    Ok(())
}

/// Refuses another grid: every (combination, round) of one file must be in
/// the other (each client with its [`index_runs`]).
pub(super) fn check_same_grid(
    (a, a_index): (&ClientReport, &HashMap<MergeKey<'_>, usize>),
    (b, b_index): (&ClientReport, &HashMap<MergeKey<'_>, usize>),
) -> Result<()> {
    let threads = |c: &ClientReport| {
        let mut t = distinct(&c.runs, |r| r.settings.threads);
        t.sort_unstable();
        t.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
    };
    refuse_unlike(
        (a, b),
        threads,
        |threads| format!("--threads {threads}"),
        "merge reports of the same grid (each client runs the same --threads)",
    )?;
    let missing = |from: &ClientReport, to: &HashMap<MergeKey<'_>, usize>| {
        from.runs
            .iter()
            .find(|r| !to.contains_key(&merge_key(r)))
            .map(|r| (RunKey::of(r), r.round))
    };
    if let Some((key, round)) = missing(a, b_index) {
        bail!(
            "{} has no run of {key} (round {round}) that {} has: merge reports of the same grid (--threads, --encrypt, --tls, --repeat)",
            b.file.display(),
            a.file.display()
        );
    }
    if let Some((key, round)) = missing(b, a_index) {
        bail!(
            "{} has a run of {key} (round {round}) that {} has not: merge reports of the same grid (--threads, --encrypt, --tls, --repeat)",
            b.file.display(),
            a.file.display()
        );
    }
    Ok(())
}

/// Refuses clients of a pgbench run by count (`--time 0 --events N`,
/// pgbench's `-t`) whose transactions per client differ: the merged report
/// prints one per-client count and expects it of every client (a run by
/// time beside one by count differs too).
///
/// # Errors
/// The per-client counts, and the fix.
pub(super) fn check_same_per_client(group: &[&RunResult]) -> Result<()> {
    let per_client: Vec<Option<u64>> = group
        .iter()
        .map(|r| {
            r.settings
                .pgbench
                .as_ref()
                .and_then(|p| p.transactions_per_client)
        })
        .collect();
    if per_client.windows(2).any(|w| w[0] != w[1]) {
        let shown = |n: &Option<u64>| n.map_or("none (--time)".to_string(), |n| n.to_string());
        bail!(
            "the clients ran {} with {} transactions per client (pgbench's -t, --events / --threads): merge reports of the same grid (the same --events per --threads)",
            group[0].settings.workload,
            per_client.iter().map(shown).collect::<Vec<_>>().join(", ")
        );
    }
    Ok(())
}
