//! The tables of report 004 beside its rows: the buffer-pool and device
//! reads per profile and thread count, and what the grids beyond the report
//! cost.

use crate::io_sample::{IO_BOUND_MIN_MISS_PCT, ProfileIo};
use crate::published::BeyondSpec;
use crate::row::Table;

use super::{AddedEncryption, BeyondCost};

/// The table of [`beyond_costs`](super::beyond_costs) for report.md and report.html.
pub fn beyond_table(b: &BeyondSpec, costs: &[BeyondCost]) -> Table {
    let pct = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}%"));
    Table {
        id: "beyond-the-report".into(),
        title:
            "Beyond the report: what column encryption and encryption at rest cost in each profile"
                .into(),
        note: format!(
            "QPS of oltp_read_write with {} and with {}, each against the same profile's plaintext run of the same round (median of the paired ratios, sign-test interval; no % from one round). Column encryption reads a sealed data set of its own (larger rows: more pages to cache or miss); encryption at rest is a server and data set of its own. {} {}",
            AddedEncryption::Columns.words(b),
            AddedEncryption::AtRest.words(b),
            b.backend_why,
            b.at_rest_why
        ),
        columns: [
            "profile",
            "threads",
            "added",
            "rounds",
            "QPS plaintext",
            "QPS with it",
            "QPS change (interval)",
            "verdict",
            "miss rate plaintext",
            "miss rate with it",
        ]
        .map(String::from)
        .to_vec(),
        rows: costs
            .iter()
            .map(|c| {
                let (rounds, base, with, change, verdict) = match &c.comparison {
                    Some(x) => (
                        x.rounds.to_string(),
                        format!("{:.0}", x.baseline_median),
                        format!("{:.0}", x.variant_median),
                        x.change_text(),
                        x.verdict.as_str().to_string(),
                    ),
                    None => (
                        "0".into(),
                        "-".into(),
                        "-".into(),
                        "-".into(),
                        "not measured (no round ran both)".into(),
                    ),
                };
                vec![
                    c.profile.clone(),
                    c.threads.to_string(),
                    c.what.clone(),
                    rounds,
                    base,
                    with,
                    change,
                    verdict,
                    pct(c.baseline_miss_pct),
                    pct(c.variant_miss_pct),
                ]
            })
            .collect(),
    }
}

/// The table of [`io_by_threads`](super::io_by_threads) for report.md and report.html.
pub fn io_table(per: &[ProfileIo]) -> Table {
    let opt =
        |v: Option<f64>, digits: usize| v.map_or("-".to_string(), |v| format!("{v:.digits$}"));
    Table {
        id: "buffer-pool".into(),
        title: "Buffer pool and device reads per profile and thread count".into(),
        note: format!(
            "Medians over the rounds of the counters read before and after each `oltp run --threads N` (warm-up included): Innodb_buffer_pool_reads / Innodb_buffer_pool_read_requests, and the data directory's device reads (/proc/diskstats; every process's). A profile counts as IO-bound at a thread count from a {IO_BOUND_MIN_MISS_PCT}% miss rate on."
        ),
        columns: [
            "profile",
            "threads",
            "rounds",
            "buffer-pool miss rate",
            "device reads/s",
            "ms per device read",
            "IO-bound",
        ]
        .map(String::from)
        .to_vec(),
        rows: per
            .iter()
            .map(|p| {
                vec![
                    p.grid.clone(),
                    p.threads.to_string(),
                    p.rounds.to_string(),
                    format!("{:.2}%", p.miss_pct),
                    opt(p.device_reads_per_s, 0),
                    opt(p.device_read_await_ms, 3),
                    if p.io_bound { "yes" } else { "no" }.to_string(),
                ]
            })
            .collect(),
    }
}
