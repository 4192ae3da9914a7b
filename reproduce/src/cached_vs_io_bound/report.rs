//! Report 004's reproduction from the runs so far: the setup differences in
//! words, the rows, the tables, the measurements and the chart.

use crate::io_sample::{IO_BOUND_MIN_MISS_PCT, IoSample};
use crate::plan::{Plan, comma_separated};
use crate::published::{BeyondSpec, Published, ScaleSpec};

use super::{
    AddedEncryption, CACHED, IO_BOUND, beyond_costs, beyond_table, data_bytes, io_by_threads,
    io_table, ratio, rows,
};

/// Where our setup differs from the report's, plainly; `beyond`: the
/// data file's beyond-the-report choices, and whether this plan runs them.
pub fn setup_differences(
    spec: &ScaleSpec,
    quick: bool,
    beyond: Option<(&BeyondSpec, bool)>,
) -> Vec<String> {
    let mut out = vec![
        "The report ran RDS MySQL 5.7 High-availability Edition (a semi-synchronous replica, rpl_semi_sync_master_enabled=ON) on Premium Local SSDs, 1-16 cores, 20-minute runs; here MariaDB 10.11 without a replica, client and server on 2 cores shared with other jobs, over loopback TCP. Only the ratio IO-bound / cached is compared, never QPS.".to_string(),
        "The same durability as the report: binary log with sync_binlog=1, innodb_flush_log_at_trx_commit=1 in both profiles (oltp --profile); the profiles differ in the buffer pool only: 4 GiB (cached) vs 128 MiB (io-bound).".to_string(),
        format!(
            "{} tables x {} rows (about {} MiB on disk, {:.1}x the 128 MiB io-bound pool) on both sides, where the report's cached and IO-bound tests used different data sets (3-6 M vs 16-32 M rows per table). InnoDB reads its data files with O_DIRECT (innodb_flush_method, MariaDB 10.11's default), so a buffer-pool miss is a read of the virtual disk, not of the OS page cache (the miss rates and device reads per profile and thread count are in the rows, the buffer-pool table and measurements.buffer_pool; each thread count is an `oltp run` of its own on the round's server, the counters read around it). The cached profile's pool is warmed before each run (every table read), as the report's cached test keeps all data in the pool.",
            spec.tables,
            spec.table_size,
            data_bytes(spec) >> 20,
            data_bytes(spec) as f64 / f64::from(128u32 << 20)
        ),
        format!(
            "One server, restarted with the other profile between the runs, rotated per round ({} rounds); InnoDB dumps and reloads its buffer pool at restart (MariaDB's defaults), and {} s of warm-up precede each run.",
            spec.repeat, spec.warmup_s
        ),
        "rds.mysql.c2.xlarge ran 64 threads cached and 32 IO-bound: its ratio is compared at 32 threads here, where both profiles run.".to_string(),
        match &spec.iops_limit {
            Some(c) => format!(
                "IOPS capped at {n} reads/s and {n} writes/s on the data directory's disk for both profiles (oltp --iops-limit {n}: a cgroup per server, cgroup v1 blkio throttle or cgroup v2 io.max, as each run's iops_cap records), the IOPS of {}: {}. The cap holds InnoDB's direct IO (data files, doublewrite, redo log).",
                c.instance,
                c.why,
                n = c.iops
            ),
            None => "No IOPS cap (--iops-limit 0): the disk answers as fast as it can, where the report's instances were capped at 1,000-14,000 IOPS.".to_string(),
        },
        if quick {
            format!(
                "Quick mode: the full data set (7.5x the io-bound pool), threads {} (the report's IO-bound thread counts; 64 threads is full mode's, so c2.xlarge's cached QPS / TPS row is not measured in quick mode), {} rounds of {} s runs.",
                comma_separated(&spec.threads),
                spec.repeat,
                spec.time_s
            )
        } else {
            format!(
                "Full mode: {} s runs after {} s of warm-up, {} rounds.",
                spec.time_s, spec.warmup_s, spec.repeat
            )
        },
    ];
    match beyond {
        Some((b, true)) => out.push(format!(
            "Beyond the report, at {} threads in each profile: {} (a sealed data set of its own, warmed as the plaintext one in the cached profile) and {} (a private server and data set of its own), each a grid of its own in the same rotation, compared with its profile's plaintext run of the same round (the table beyond-the-report, measurements.beyond).",
            spec.threads.first().copied().unwrap_or(0),
            AddedEncryption::Columns.words(b),
            AddedEncryption::AtRest.words(b)
        )),
        Some((b, false)) => out.push(format!(
            "Beyond the report ({} and {} in each profile): full mode only (`scripts/reproduce 004`: four more grids per round, two more data sets; its duration is printed before it starts).",
            AddedEncryption::Columns.words(b),
            AddedEncryption::AtRest.words(b)
        )),
        None => {}
    }
    out
}

/// Updates `r` from the grids run so far.
/// `io`: the buffer-pool and device reads of every run so far, recorded in
/// `measurements` (`buffer_pool`: per profile and thread count, and per
/// run) and as the table `buffer-pool`.
pub fn update_reproduction(
    r: &mut crate::Reproduction,
    p: &Published,
    plan: &Plan,
    quick: bool,
    io: &[IoSample],
) {
    r.rows = rows(
        p,
        &r.runs,
        &plan.scale.threads,
        io,
        plan.scale.iops_limit.as_ref(),
    );
    let per_threads = io_by_threads(io, &plan.scale.threads);
    r.tables = vec![io_table(&per_threads)];
    r.measurements.insert(
        "buffer_pool".into(),
        serde_json::json!({
            "io_bound_min_miss_pct": IO_BOUND_MIN_MISS_PCT,
            "profiles": per_threads,
            "runs": io,
        }),
    );
    let ran_beyond = plan
        .grids
        .iter()
        .any(|g| g.name != CACHED && g.name != IO_BOUND);
    r.setup_differences = setup_differences(
        &plan.scale,
        quick,
        p.beyond.as_ref().map(|b| (b, ran_beyond)),
    );
    if let (Some(b), true) = (&p.beyond, ran_beyond) {
        let costs = beyond_costs(b, &r.runs, &plan.grids, io);
        r.tables.push(beyond_table(b, &costs));
        r.measurements.insert(
            "beyond".into(),
            serde_json::json!({ "choices": b, "costs": costs }),
        );
    }
    let ratios: serde_json::Map<String, serde_json::Value> = plan
        .scale
        .threads
        .iter()
        .filter_map(|&t| {
            let c = ratio(&r.runs, t)?;
            Some((t.to_string(), serde_json::to_value(c).ok()?))
        })
        .collect();
    r.measurements
        .insert("io_bound_vs_cached_qps".into(), ratios.into());
    r.charts.clear();
    let series = crate::svg::Series {
        label: "ours: IO-bound vs cached QPS (interval)".into(),
        points: plan
            .scale
            .threads
            .iter()
            .filter_map(|&t| {
                let c = ratio(&r.runs, t)?;
                Some(crate::svg::Point {
                    threads: t,
                    median: c.median_change_pct,
                    lo: c.ci95_low_pct?,
                    hi: c.ci95_high_pct?,
                })
            })
            .collect(),
    };
    let published: Vec<(String, u32, f64)> = p
        .figures
        .iter()
        .filter(|f| f.id.as_deref().is_some_and(|i| i.starts_with("ratio_")))
        .map(|f| {
            (
                format!(
                    "published: {}",
                    f.id.as_deref().unwrap_or("").trim_start_matches("ratio_")
                ),
                f.threads.unwrap_or(0),
                f.published,
            )
        })
        .collect();
    if !series.points.is_empty()
        && let Ok(svg) = crate::svg::effect_chart(
            "IO-bound vs cached QPS, oltp_read_write",
            "QPS change, %",
            &[series],
            &published,
        )
    {
        r.charts.push(crate::row::Chart {
            title: "IO-bound vs cached QPS against threads: ours (median of paired rounds, interval as a bar) and the report's per instance (crosses)".into(),
            svg,
        });
    }
}
