//! Report 004, ApsaraDB RDS cached vs disk I/O-bound: sysbench
//! oltp_read_write at the report's thread counts (16, 32, 64) on the private
//! MariaDB with the report's durability (`sync_binlog=1`,
//! `innodb_flush_log_at_trx_commit=1`), `--profile cached` (4 GiB buffer
//! pool, larger than the data) vs `--profile io-bound` (128 MiB, several
//! times smaller than the data), in interleaved rounds (the server restarted
//! with the other profile between them, on the same data). The effect
//! compared is the ratio IO-bound / cached QPS per thread count (as a %
//! change over paired rounds), never QPS across hardware; and QPS / TPS = 20,
//! oltp_read_write's queries per transaction, on both sides.

use encbench_common::compare::{Comparison, compare};

use super::io_sample::{IO_BOUND_MIN_MISS_PCT, IoSample, ProfileIo, profile};
use super::plan::{DataSetStep, Grid, PLAIN_BYTES_PER_ROW, Plan, Servers};
use super::published::{Figure, IopsLimitSpec, Published, ScaleSpec};
use super::r003::join;
use super::row::{GridRun, Row, Table};
use super::verdict::{Effect, judge};

/// The plaintext database of report 004 (overridden and quick scales get
/// their own, as 000's).
pub const DB: &str = "repro004";

/// The grid of the cache-resident profile.
pub const CACHED: &str = "cached";

/// The grid of the IO-bound profile.
pub const IO_BOUND: &str = "io-bound";

/// Bytes per row of the sysbench tables on disk at 004's sizes: 961 MiB of
/// InnoDB files for 10 x 400,000 rows, measured on 2026-12-01 (the
/// 560 bytes per row of [`PLAIN_BYTES_PER_ROW`], measured at 25,000 rows
/// per table, over-estimate large tables; they stay the disk check's).
pub const MEASURED_BYTES_PER_ROW: u64 = 252;

/// The data set's size on disk, bytes (estimated with [`MEASURED_BYTES_PER_ROW`]).
pub fn data_bytes(spec: &ScaleSpec) -> u64 {
    u64::from(spec.tables) * u64::from(spec.table_size) * MEASURED_BYTES_PER_ROW
}

/// Seconds to stop the private MariaDB and start it with the other profile,
/// its buffer-pool load at startup awaited (measured 2026-12-02: 8-12 s per
/// io-bound round beside its runs, release build, load average 3-8).
pub const SERVER_RESTART_SECS: f64 = 8.0;

/// Device reads per second when nothing caps them, for the cached pool's
/// warming: 3,612 reads/s measured with `--rand-type uniform` on this
/// machine's disk (oltp/README.md, "Why the profile was changed").
pub const UNCAPPED_READS_PER_SEC: f64 = 3_612.0;

/// InnoDB's page size (MariaDB's default `innodb_page_size`), bytes.
pub const PAGE_BYTES: u64 = 16 << 10;

/// Seconds before each round's runs of `profile`: the restart, and for the
/// cached profile the warming of every page of the data set, one read each,
/// at the cap (or [`UNCAPPED_READS_PER_SEC`]): 61,500 pages at 1,000 reads/s
/// are about 62 s (measured: 64 s per cached round at 1,000).
pub fn round_setup_secs(scale: &ScaleSpec, profile: &str) -> f64 {
    if profile != CACHED {
        return SERVER_RESTART_SECS;
    }
    let rate = scale
        .iops_limit
        .as_ref()
        .map_or(UNCAPPED_READS_PER_SEC, |c| f64::from(c.iops));
    SERVER_RESTART_SECS + (data_bytes(scale) / PAGE_BYTES) as f64 / rate.max(1.0)
}

/// The runs of report 004 at `scale` on the database `db`: both profiles
/// with the scale's IOPS cap, when it has one (as on RDS, where an
/// instance's IOPS hold whatever its buffer pool).
pub fn plan(scale: &ScaleSpec, db: &str) -> Plan {
    let grid = |profile: &str| Grid {
        name: profile.to_string(),
        args: [
            "--workload".into(),
            "oltp_read_write".into(),
            "--threads".into(),
            join(&scale.threads),
            "--encrypt".into(),
            "none".into(),
            "--profile".into(),
            profile.into(),
        ]
        .into_iter()
        .chain(
            scale
                .iops_limit
                .iter()
                .flat_map(|c| ["--iops-limit".to_string(), c.iops.to_string()]),
        )
        .collect(),
        threads: scale.threads.clone(),
        runs_per_round: 1,
        // point, simple, sum, order, distinct, index and non-index update, delete, insert.
        statements_per_table: 9,
        round_setup_secs: round_setup_secs(scale, profile),
    };
    Plan {
        scale: scale.clone(),
        db: db.to_string(),
        data_sets: vec![DataSetStep {
            encrypt: "none".into(),
            encrypt_columns: "c,pad".into(),
            bytes_per_row: PLAIN_BYTES_PER_ROW,
            ..DataSetStep::default()
        }],
        grids: vec![grid(CACHED), grid(IO_BOUND)],
        servers: Servers::PerCommandInterleaved,
    }
}

/// QPS of complete, non-control runs of `grid` at `threads`, by round.
fn qps_by_round(grid: &GridRun, threads: u32) -> Vec<(u32, f64)> {
    grid.report
        .runs
        .iter()
        .filter(|r| r.complete && !r.control && r.settings.threads == threads)
        .map(|r| (r.round, r.qps))
        .collect()
}

/// IO-bound vs cached QPS at `threads` over the rounds both ran: oltp's
/// comparison (median of the paired ratios, sign-test interval).
pub fn ratio(grids: &[GridRun], threads: u32) -> Option<Comparison> {
    let cached = grids.iter().find(|g| g.name == CACHED)?;
    let io = grids.iter().find(|g| g.name == IO_BOUND)?;
    let c = qps_by_round(cached, threads);
    let pairs: Vec<(f64, f64)> = qps_by_round(io, threads)
        .into_iter()
        .filter_map(|(round, q)| c.iter().find(|(r, _)| *r == round).map(|(_, a)| (*a, q)))
        .collect();
    compare("qps", CACHED, IO_BOUND, &pairs, None)
}

/// Our QPS / TPS of `grid` at `threads` (medians of the rounds) and the
/// rounds behind it.
fn queries_per_transaction(grid: &GridRun, threads: u32) -> Option<(f64, usize)> {
    let s = grid
        .report
        .summary
        .iter()
        .find(|s| s.threads == threads && s.mode == "none")?;
    (s.tps.median > 0.0).then(|| (s.qps.median / s.tps.median, s.runs))
}

/// The rows: the ratio per instance at its IO-bound thread count, QPS / TPS
/// per instance on both sides, from the grids run so far.
///
/// `io` holds the buffer-pool and device reads of every run (one per
/// profile, thread count and round): a ratio row at `t` threads whose
/// IO-bound runs at `t` missed less than [`IO_BOUND_MIN_MISS_PCT`] is "not
/// reproducible here" (the profile was not IO-bound at that thread count),
/// and every ratio row's reason gives both profiles' miss rates and device
/// reads at its thread count.
///
/// `cap`: the IOPS cap both profiles ran with (the scale's), named in the
/// reason.
pub fn rows(
    p: &Published,
    grids: &[GridRun],
    threads: &[u32],
    io: &[IoSample],
    cap: Option<&IopsLimitSpec>,
) -> Vec<Row> {
    let mut rows = Vec::new();
    for f in &p.figures {
        let Some(t) = f.threads else { continue };
        let id = f.id.as_deref().unwrap_or("");
        let row = if id.starts_with("ratio_") {
            ratio_row(p, f, grids, threads, io, cap, t)
        } else {
            let side = if id == "qpt_cached" { CACHED } else { IO_BOUND };
            qpt_row(p, f, grids.iter().find(|g| g.name == side), t)
        };
        rows.push(row);
    }
    rows
}

/// One ratio row at `t` threads, judged on the miss rates measured at `t`.
fn ratio_row(
    p: &Published,
    f: &Figure,
    grids: &[GridRun],
    threads: &[u32],
    io: &[IoSample],
    cap: Option<&IopsLimitSpec>,
    t: u32,
) -> Row {
    let cached = profile(io, CACHED, t);
    let io_bound = profile(io, IO_BOUND, t);
    let measured = match (&io_bound, &cached) {
        (Some(i), Some(c)) => Some(format!("{}; {}", i.text(), c.text())),
        _ => None,
    };
    let why_differs = match (&io_bound, &measured) {
        (Some(i), Some(m)) if i.io_bound => format!(
            "the IO-bound runs were IO-bound, but a miss costs less here: {m}; {}",
            cap_words(cap)
        ),
        _ => String::new(),
    };
    let c = ratio(grids, t);
    let mut row = Row::from_comparison(
        format!("{} (ours: {t} threads)", f.figure),
        f,
        c.as_ref(),
        f.tolerance(p),
        if why_differs.is_empty() {
            f.differs_reason(p)
        } else {
            &why_differs
        },
    );
    if !threads.contains(&t) {
        row.reason = format!("{t} threads are not in this run's --threads");
    } else if let (Some(i), Some(m), Some(_)) = (&io_bound, &measured, row.ours) {
        if i.io_bound {
            if !row.reason.contains(m.as_str()) {
                row.reason = format!("{}; measured: {m}", row.reason);
            }
        } else {
            row.verdict = super::Verdict::NotReproducibleHere;
            row.reason = format!(
                "the io-bound profile was not IO-bound here at {t} threads (a buffer-pool miss rate, not QPS, decides): {m}"
            );
        }
    }
    row
}

/// The buffer-pool and device reads per (profile, thread count): medians
/// over the rounds, in the order of `threads`, cached first.
pub fn io_by_threads(io: &[IoSample], threads: &[u32]) -> Vec<ProfileIo> {
    threads
        .iter()
        .flat_map(|&t| [CACHED, IO_BOUND].map(|g| profile(io, g, t)))
        .flatten()
        .collect()
}

/// The table of [`io_by_threads`] for report.md and report.html.
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

/// The IOPS cap in a row's reason: ours beside the report's.
fn cap_words(cap: Option<&IopsLimitSpec>) -> String {
    match cap {
        Some(c) => format!(
            "both profiles ran capped at {} reads/s and {} writes/s (--iops-limit, {}), where the report's instances were capped at 1,000-14,000 IOPS of reads and writes together (the seed's IOPS column)",
            c.iops, c.iops, c.instance
        ),
        None => "the report's instances were capped at 1,000-14,000 IOPS (the seed's IOPS column), nothing caps them here (run without --iops-limit)".to_string(),
    }
}

/// A QPS / TPS row: a deterministic property of the workload, judged with
/// the figure's tolerance (queries per transaction).
fn qpt_row(p: &Published, f: &Figure, grid: Option<&GridRun>, t: u32) -> Row {
    let got = grid.and_then(|g| queries_per_transaction(g, t));
    let (verdict, reason) = match got {
        Some((q, _)) => {
            let e = Effect {
                median: q,
                lo: q,
                hi: q,
            };
            let (v, why) = judge(
                f.published,
                Some(e),
                f.tolerance(p),
                "transactions retried or rolled back change the queries counted per transaction",
            );
            (v, why.replace('%', ""))
        }
        None => (
            super::Verdict::NotReproducibleHere,
            match grid {
                None => "the run did not happen (stopped early)".to_string(),
                Some(_) => format!("{t} threads did not run (see --threads, or the run stopped)"),
            },
        ),
    };
    Row {
        figure: format!("{} (ours: {t} threads)", f.figure),
        published: f.published,
        published_unit: f.published_unit.clone(),
        source_line: f.source_line,
        ours: got.map(|(q, _)| q),
        ci95_low: None,
        ci95_high: None,
        confidence_pct: None,
        rounds: got.map_or(0, |(_, n)| n),
        verdict,
        reason,
        comparison_verdict: None,
    }
}

/// Where our setup differs from the report's, plainly.
pub fn setup_differences(spec: &ScaleSpec, quick: bool) -> Vec<String> {
    vec![
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
                join(&spec.threads),
                spec.repeat,
                spec.time_s
            )
        } else {
            "Full mode: 60 s runs, 6 rounds.".to_string()
        },
    ]
}

/// Fills `r` from the grids run so far.
/// `io`: the buffer-pool and device reads of every run so far, recorded in
/// `measurements` (`buffer_pool`: per profile and thread count, and per
/// run) and as the table `buffer-pool`.
pub fn fill(r: &mut super::Reproduction, p: &Published, plan: &Plan, quick: bool, io: &[IoSample]) {
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
    r.setup_differences = setup_differences(&plan.scale, quick);
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
    let series = super::svg::Series {
        label: "ours: IO-bound vs cached QPS (interval)".into(),
        points: plan
            .scale
            .threads
            .iter()
            .filter_map(|&t| {
                let c = ratio(&r.runs, t)?;
                Some(super::svg::Point {
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
        && let Ok(svg) = super::svg::effect_chart(
            "IO-bound vs cached QPS, oltp_read_write",
            "QPS change, %",
            &[series],
            &published,
        )
    {
        r.charts.push(super::row::Chart {
            title: "IO-bound vs cached QPS against threads: ours (median of paired rounds, interval as a bar) and the report's per instance (crosses)".into(),
            svg,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_runs_both_profiles_interleaved() {
        // The data file's quick scale: 2 thread counts (16, 32), 5 rounds.
        let published = Published::of(super::super::ReportId::R004).expect("004");
        let spec = published.scale(true).clone();
        let p = plan(&spec, DB);
        assert_eq!(p.servers, Servers::PerCommandInterleaved);
        assert_eq!(p.grids.len(), 2);
        // Both profiles under the data file's cap, s1.small's 1,000 IOPS.
        assert!(
            p.grids[1]
                .args
                .join(" ")
                .ends_with("--profile io-bound --iops-limit 1000")
        );
        assert!(
            p.grids[0]
                .args
                .join(" ")
                .ends_with("--profile cached --iops-limit 1000")
        );
        let mut uncapped = spec.clone();
        uncapped.iops_limit = None;
        let p = plan(&uncapped, DB);
        assert!(p.grids[1].args.join(" ").ends_with("--profile io-bound"));
        assert_eq!(p.runs(), 2 * 2 * 5);
        // Each cached round warms 961 MiB of pages: ~62 s at 1,000 reads/s,
        // ~17 s uncapped; an io-bound round is a restart only.
        let capped = plan(&spec, DB);
        let warm = (data_bytes(&spec) / PAGE_BYTES) as f64;
        assert_eq!(
            capped.grids[0].round_setup_secs,
            SERVER_RESTART_SECS + warm / 1000.0
        );
        assert_eq!(capped.grids[1].round_setup_secs, SERVER_RESTART_SECS);
        assert_eq!(
            p.grids[0].round_setup_secs,
            SERVER_RESTART_SECS + warm / UNCAPPED_READS_PER_SEC
        );
        // 7.5x the 128 MiB pool.
        assert!(data_bytes(&spec) > 7 * (128 << 20));
    }

    #[test]
    fn no_runs_give_rows_that_say_so() {
        let p = Published::of(super::super::ReportId::R004).expect("004");
        let rows = rows(&p, &[], &[16, 32], &[], None);
        assert_eq!(rows.len(), 15);
        assert!(
            rows.iter()
                .all(|r| r.verdict == super::super::Verdict::NotReproducibleHere)
        );
        let c2 = rows
            .iter()
            .find(|r| r.figure.contains("c2.xlarge") && r.figure.starts_with("cached"))
            .expect("c2 cached");
        assert_eq!(c2.reason, "the run did not happen (stopped early)");
    }

    /// Both profiles at 16 threads over 2 rounds: cached twice as fast.
    fn grids() -> Vec<GridRun> {
        use crate::report::Report;
        use crate::report::model::fixtures::{run, settings};
        let grid = |name: &str, fast| {
            let runs = (1..=2)
                .map(|round| {
                    let mut r = run(settings(16, "none"), fast, 0);
                    r.round = round;
                    r
                })
                .collect();
            GridRun {
                name: name.into(),
                command: String::new(),
                report: Report::new(Report::begin(), runs),
            }
        };
        vec![grid(CACHED, 200), grid(IO_BOUND, 100)]
    }

    fn io(io_bound_reads: u64) -> Vec<IoSample> {
        use super::super::buffer_pool::PoolCounters;
        use super::super::io_sample::Counters;
        let at = |requests, reads| Counters {
            pool: PoolCounters {
                read_requests: requests,
                reads,
            },
            device: Err("no device in this test".into()),
        };
        vec![
            IoSample::between(CACHED, 16, 1, &at(0, 0), &at(10_000, 1), 1.0),
            IoSample::between(IO_BOUND, 16, 1, &at(0, 0), &at(10_000, io_bound_reads), 1.0),
            // 32 threads missed 9%: says nothing about the 16-thread rows.
            IoSample::between(IO_BOUND, 32, 1, &at(0, 0), &at(10_000, 900), 1.0),
        ]
    }

    #[test]
    fn the_miss_rate_decides_whether_the_ratio_counts() {
        let p = Published::of(super::super::ReportId::R004).expect("004");
        let g = grids();
        let s1 = |rows: &[Row]| {
            rows.iter()
                .find(|r| {
                    r.figure.starts_with("IO-bound vs cached") && r.figure.contains("s1.small")
                })
                .cloned()
                .expect("s1.small")
        };
        // 0.5% missed: not IO-bound, whatever the QPS says.
        let r = s1(&rows(&p, &g, &[16], &io(50), None));
        assert!(r.ours.is_some());
        assert_eq!(r.verdict, super::super::Verdict::NotReproducibleHere);
        assert!(
            r.reason.contains("was not IO-bound here at 16 threads"),
            "{}",
            r.reason
        );
        assert!(
            r.reason
                .contains("io-bound at 16 threads: buffer-pool miss rate 0.50%"),
            "{}",
            r.reason
        );
        // 5%: IO-bound; judged, with both miss rates in the reason.
        let r = s1(&rows(&p, &g, &[16], &io(500), p.quick.iops_limit.as_ref()));
        assert_ne!(r.verdict, super::super::Verdict::NotReproducibleHere);
        assert!(
            r.reason
                .contains("io-bound at 16 threads: buffer-pool miss rate 5.00% (at or above"),
            "{}",
            r.reason
        );
        assert!(
            r.reason
                .contains("cached at 16 threads: buffer-pool miss rate 0.01% (below"),
            "{}",
            r.reason
        );
        assert!(
            r.reason
                .contains("both profiles ran capped at 1000 reads/s and 1000 writes/s (--iops-limit, rds.mysql.s1.small)"),
            "{}",
            r.reason
        );
    }

    #[test]
    fn the_reads_table_has_a_row_per_profile_and_thread_count() {
        let per = io_by_threads(&io(500), &[16, 32, 64]);
        // Cached ran at 16 only; io-bound at 16 and 32; nothing at 64.
        let keys: Vec<(&str, u32)> = per.iter().map(|p| (p.grid.as_str(), p.threads)).collect();
        assert_eq!(keys, vec![(CACHED, 16), (IO_BOUND, 16), (IO_BOUND, 32)]);
        let t = io_table(&per);
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.columns.len(), t.rows[0].len());
        assert_eq!(t.rows[1][..4], ["io-bound", "16", "1", "5.00%"]);
        assert_eq!(t.rows[2][3], "9.00%");
        assert_eq!(t.rows[2][6], "yes");
        assert_eq!(t.rows[0][6], "no");
        // No device in the fixture: a dash, not a number.
        assert_eq!(t.rows[0][4], "-");
    }
}
