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
//!
//! Beyond the report (full mode, the data file's `beyond`): four more grids
//! in the same rotation, each at the scale's first thread count: each
//! profile with column encryption (a sealed data set of its own) and with
//! InnoDB's encryption at rest (a server and data set of its own), each
//! compared with its profile's plaintext run of the same round: a table and
//! `measurements.beyond`, not rows (the report has no such figures).

use encbench_common::compare::{Comparison, compare};

use super::io_sample::{IO_BOUND_MIN_MISS_PCT, IoSample, ProfileIo, profile};
use super::plan::{
    DataSetStep, Grid, PLAIN_BYTES_PER_ROW, Plan, SEALED_BYTES_PER_ROW, Servers, comma_separated,
};
use super::published::{BeyondSpec, Figure, IopsLimitSpec, Published, ScaleSpec};
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

/// Bytes per row of the sealed data set (`--encrypt-columns all`), for its
/// warming: [`MEASURED_BYTES_PER_ROW`] scaled by the sealed / plaintext
/// estimate of [`SEALED_BYTES_PER_ROW`] / [`PLAIN_BYTES_PER_ROW`] (not
/// measured at 004's sizes).
pub const SEALED_MEASURED_BYTES_PER_ROW: u64 =
    MEASURED_BYTES_PER_ROW * SEALED_BYTES_PER_ROW / PLAIN_BYTES_PER_ROW;

/// The data set's size on disk, bytes (estimated with [`MEASURED_BYTES_PER_ROW`]).
pub fn data_bytes(spec: &ScaleSpec) -> u64 {
    data_bytes_at(spec, MEASURED_BYTES_PER_ROW)
}

/// The size on disk of a data set of `bytes_per_row`, bytes.
pub fn data_bytes_at(spec: &ScaleSpec, bytes_per_row: u64) -> u64 {
    u64::from(spec.tables) * u64::from(spec.table_size) * bytes_per_row
}

/// What a grid beyond the report adds to its profile's plaintext run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extra {
    /// Column encryption (`--encrypt BACKEND --encrypt-columns COLUMNS`).
    Columns,
    /// Encryption at rest (`--at-rest MODE`).
    AtRest,
}

impl Extra {
    /// Both, in the order of the grids.
    pub const ALL: [Extra; 2] = [Extra::Columns, Extra::AtRest];

    /// In words, with the choice of `b`.
    pub fn words(self, b: &BeyondSpec) -> String {
        match self {
            Extra::Columns => format!(
                "column encryption ({}, --encrypt-columns {})",
                b.backend, b.encrypt_columns
            ),
            Extra::AtRest => format!("encryption at rest (--at-rest {})", b.at_rest),
        }
    }

    /// Its key in `measurements.beyond`.
    pub fn key(self) -> &'static str {
        match self {
            Extra::Columns => "column_encryption",
            Extra::AtRest => "encryption_at_rest",
        }
    }
}

/// The name of the grid of `profile` with `extra`, e.g. `cached, column
/// encryption`.
pub fn grid_name(profile: &str, extra: Extra) -> String {
    match extra {
        Extra::Columns => format!("{profile}, column encryption"),
        Extra::AtRest => format!("{profile}, encryption at rest"),
    }
}

/// Whether the server of `grid` is warmed before its runs: the cached
/// profile's grids (`--profile cached`).
pub fn warms(grid: &Grid) -> bool {
    grid.args
        .windows(2)
        .any(|w| w[0] == "--profile" && w[1] == CACHED)
}

/// Seconds to stop the private MariaDB and start it with the other profile,
/// its buffer-pool load at startup awaited (measured 2026-12-02: 8-12 s per
/// io-bound round beside its runs, release build, load average 3-8).
pub const SERVER_RESTART_SECS: f64 = 8.0;

/// Device reads per second when nothing caps them, for the cached pool's
/// warming: 3,612 reads/s measured with `--rand-type uniform` on this
/// machine's disk (docs/measurements.md, "oltp reproduce 004").
pub const UNCAPPED_READS_PER_SEC: f64 = 3_612.0;

/// InnoDB's page size (MariaDB's default `innodb_page_size`), bytes.
pub const PAGE_BYTES: u64 = 16 << 10;

/// Seconds before each round's runs of `profile`: the restart, and for the
/// cached profile the warming of every page of the data set
/// (`bytes_per_row` on disk), one read each, at the cap (or
/// [`UNCAPPED_READS_PER_SEC`]): 61,500 pages at 1,000 reads/s are about
/// 62 s (measured: 64 s per cached round at 1,000).
pub fn round_setup_secs(scale: &ScaleSpec, profile: &str, bytes_per_row: u64) -> f64 {
    if profile != CACHED {
        return SERVER_RESTART_SECS;
    }
    let rate = scale
        .iops_limit
        .as_ref()
        .map_or(UNCAPPED_READS_PER_SEC, |c| f64::from(c.iops));
    SERVER_RESTART_SECS + (data_bytes_at(scale, bytes_per_row) / PAGE_BYTES) as f64 / rate.max(1.0)
}

/// The runs of report 004 at `scale` on the database `db`: both profiles
/// with the scale's IOPS cap, when it has one (as on RDS, where an
/// instance's IOPS hold whatever its buffer pool); with `beyond` (full
/// mode), each profile also with column encryption and with encryption at
/// rest at the scale's first thread count, each a grid and data set of its
/// own (module docs).
pub fn plan(scale: &ScaleSpec, db: &str, beyond: Option<&BeyondSpec>) -> Plan {
    let grid = |name: String, profile: &str, threads: &[u32], extra: &[String], per_row| Grid {
        name,
        args: [
            "--workload".into(),
            "oltp_read_write".into(),
            "--threads".into(),
            comma_separated(threads),
        ]
        .into_iter()
        .chain(extra.iter().cloned())
        .chain(["--profile".into(), profile.into()])
        .chain(
            scale
                .iops_limit
                .iter()
                .flat_map(|c| ["--iops-limit".to_string(), c.iops.to_string()]),
        )
        .collect(),
        threads: threads.to_vec(),
        runs_per_round: 1,
        // point, simple, sum, order, distinct, index and non-index update, delete, insert.
        statements_per_table: 9,
        round_setup_secs: round_setup_secs(scale, profile, per_row),
    };
    let plain = ["--encrypt".to_string(), "none".into()];
    let mut data_sets = vec![DataSetStep {
        encrypt: "none".into(),
        encrypt_columns: "c,pad".into(),
        bytes_per_row: PLAIN_BYTES_PER_ROW,
        ..DataSetStep::default()
    }];
    let mut grids: Vec<Grid> = [CACHED, IO_BOUND]
        .map(|p| grid(p.into(), p, &scale.threads, &plain, MEASURED_BYTES_PER_ROW))
        .into();
    if let (Some(b), Some(&first)) = (beyond, scale.threads.first()) {
        let columns = [
            "--encrypt".to_string(),
            b.backend.clone(),
            "--encrypt-columns".into(),
            b.encrypt_columns.clone(),
        ];
        let at_rest = [
            plain[0].clone(),
            plain[1].clone(),
            "--at-rest".into(),
            b.at_rest.clone(),
        ];
        data_sets.push(DataSetStep {
            encrypt: b.backend.clone(),
            encrypt_columns: b.encrypt_columns.clone(),
            bytes_per_row: SEALED_BYTES_PER_ROW,
            ..DataSetStep::default()
        });
        data_sets.push(DataSetStep {
            encrypt: "none".into(),
            encrypt_columns: "c,pad".into(),
            bytes_per_row: PLAIN_BYTES_PER_ROW,
            args: vec!["--at-rest".into(), b.at_rest.clone()],
            ..DataSetStep::default()
        });
        for extra in Extra::ALL {
            for p in [CACHED, IO_BOUND] {
                let (args, per_row) = match extra {
                    Extra::Columns => (&columns, SEALED_MEASURED_BYTES_PER_ROW),
                    Extra::AtRest => (&at_rest, MEASURED_BYTES_PER_ROW),
                };
                grids.push(grid(grid_name(p, extra), p, &[first], args, per_row));
            }
        }
    }
    Plan {
        scale: scale.clone(),
        db: db.to_string(),
        data_sets,
        grids,
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
    compare_grids(grids, CACHED, IO_BOUND, threads)
}

/// The QPS of the grid `variant` vs the grid `baseline` at `threads`, paired
/// by round (the rounds both ran), as [`ratio`].
pub fn compare_grids(
    grids: &[GridRun],
    baseline: &str,
    variant: &str,
    threads: u32,
) -> Option<Comparison> {
    let a = grids.iter().find(|g| g.name == baseline)?;
    let b = grids.iter().find(|g| g.name == variant)?;
    let base = qps_by_round(a, threads);
    let pairs: Vec<(f64, f64)> = qps_by_round(b, threads)
        .into_iter()
        .filter_map(|(round, q)| base.iter().find(|(r, _)| *r == round).map(|(_, a)| (*a, q)))
        .collect();
    compare("qps", baseline, variant, &pairs, None)
}

/// One measurement beyond the report: `extra` in `profile` at `threads`
/// against the profile's plaintext runs of the same rounds, with both
/// sides' buffer-pool miss rates.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BeyondCost {
    /// `cached` or `io-bound`.
    pub profile: String,
    /// [`Extra::key`].
    pub extra: &'static str,
    /// What was added, in words.
    pub what: String,
    /// Client threads.
    pub threads: u32,
    /// The comparison (QPS, variant vs plaintext); `None` before a round
    /// ran both.
    pub comparison: Option<Comparison>,
    /// The plaintext runs' median buffer-pool miss rate, %.
    pub baseline_miss_pct: Option<f64>,
    /// The variant's median buffer-pool miss rate, %.
    pub variant_miss_pct: Option<f64>,
}

/// The costs beyond the report of the grids run so far: one per profile and
/// extra whose grid is in `grids` or `planned`, in that order.
pub fn beyond_costs(
    b: &BeyondSpec,
    grids: &[GridRun],
    planned: &[Grid],
    io: &[IoSample],
) -> Vec<BeyondCost> {
    let mut out = Vec::new();
    for extra in Extra::ALL {
        for p in [CACHED, IO_BOUND] {
            let name = grid_name(p, extra);
            let Some(g) = planned.iter().find(|g| g.name == name) else {
                continue;
            };
            let Some(&t) = g.threads.first() else {
                continue;
            };
            out.push(BeyondCost {
                profile: p.to_string(),
                extra: extra.key(),
                what: extra.words(b),
                threads: t,
                comparison: compare_grids(grids, p, &name, t),
                baseline_miss_pct: profile(io, p, t).map(|x| x.miss_pct),
                variant_miss_pct: profile(io, &name, t).map(|x| x.miss_pct),
            });
        }
    }
    out
}

/// The table of [`beyond_costs`] for report.md and report.html.
pub fn beyond_table(b: &BeyondSpec, costs: &[BeyondCost]) -> Table {
    let pct = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}%"));
    Table {
        id: "beyond-the-report".into(),
        title:
            "Beyond the report: what column encryption and encryption at rest cost in each profile"
                .into(),
        note: format!(
            "QPS of oltp_read_write with {} and with {}, each against the same profile's plaintext run of the same round (median of the paired ratios, sign-test interval; no % from one round). Column encryption reads a sealed data set of its own (larger rows: more pages to cache or miss); encryption at rest is a server and data set of its own. {} {}",
            Extra::Columns.words(b),
            Extra::AtRest.words(b),
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
            Extra::Columns.words(b),
            Extra::AtRest.words(b)
        )),
        Some((b, false)) => out.push(format!(
            "Beyond the report ({} and {} in each profile): full mode only (`scripts/reproduce 004`: four more grids per round, two more data sets; its duration is printed before it starts).",
            Extra::Columns.words(b),
            Extra::AtRest.words(b)
        )),
        None => {}
    }
    out
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
        let p = plan(&spec, DB, None);
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
        let p = plan(&uncapped, DB, None);
        assert!(p.grids[1].args.join(" ").ends_with("--profile io-bound"));
        assert_eq!(p.runs(), 2 * 2 * 5);
        // Each cached round warms 961 MiB of pages: ~62 s at 1,000 reads/s,
        // ~17 s uncapped; an io-bound round is a restart only.
        let capped = plan(&spec, DB, None);
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
    fn full_mode_adds_column_encryption_and_at_rest_grids_per_profile() {
        let published = Published::of(super::super::ReportId::R004).expect("004");
        let b = published.beyond.as_ref().expect("004 has a beyond block");
        let spec = published.scale(false).clone();
        let p = plan(&spec, DB, Some(b));
        let names: Vec<&str> = p.grids.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(
            names,
            [
                CACHED,
                IO_BOUND,
                "cached, column encryption",
                "io-bound, column encryption",
                "cached, encryption at rest",
                "io-bound, encryption at rest",
            ]
        );
        // The extras run at the first thread count only, under the same cap
        // and profile as their plaintext grid.
        for g in &p.grids[2..] {
            assert_eq!(g.threads, [spec.threads[0]], "{}", g.name);
            let args = g.args.join(" ");
            assert!(args.contains("--iops-limit 1000"), "{args}");
            assert_eq!(warms(g), g.name.starts_with(CACHED), "{args}");
        }
        assert!(
            p.grids[2]
                .args
                .join(" ")
                .contains("--encrypt ring:aes-256-gcm --encrypt-columns all --profile cached")
        );
        assert!(
            p.grids[5]
                .args
                .join(" ")
                .contains("--encrypt none --at-rest innodb --profile io-bound")
        );
        // Three data sets: plaintext, sealed, and plaintext on the at-rest server.
        let sets: Vec<(&str, String)> = p
            .data_sets
            .iter()
            .map(|d| (d.encrypt.as_str(), d.args.join(" ")))
            .collect();
        assert_eq!(
            sets,
            [
                ("none", String::new()),
                ("ring:aes-256-gcm", String::new()),
                ("none", "--at-rest innodb".to_string())
            ]
        );
        // The sealed set's warming takes longer than the plaintext one's.
        assert!(p.grids[2].round_setup_secs > p.grids[0].round_setup_secs);
        assert_eq!(p.grids[3].round_setup_secs, SERVER_RESTART_SECS);
        // Full mode with them fits in about an hour and a quarter.
        let secs = p.estimate_secs();
        assert!((3_000.0..5_400.0).contains(&secs), "{secs}");
        // Quick mode has none of them, and says so.
        let quick = plan(published.scale(true), DB, None);
        assert_eq!(quick.grids.len(), 2);
        let said = setup_differences(published.scale(true), true, Some((b, false)));
        assert!(
            said.last().is_some_and(|d| d.contains("full mode only")),
            "{said:?}"
        );
    }

    #[test]
    fn a_beyond_cost_pairs_the_extra_grid_with_its_profile_by_round() {
        let p = Published::of(super::super::ReportId::R004).expect("004");
        let b = p.beyond.as_ref().expect("beyond");
        let spec = p.scale(false).clone();
        let mut spec16 = spec.clone();
        spec16.threads = vec![16];
        let planned = plan(&spec16, DB, Some(b)).grids;
        let mut g = grids();
        // Cached with column encryption at 3/4 of cached's QPS, every round.
        let mut extra = g[0].clone();
        extra.name = grid_name(CACHED, Extra::Columns);
        for r in &mut extra.report.runs {
            r.qps *= 0.75;
        }
        g.push(extra);
        let costs = beyond_costs(b, &g, &planned, &io(500));
        assert_eq!(costs.len(), 4);
        let c = &costs[0];
        assert_eq!(
            (c.profile.as_str(), c.extra, c.threads),
            (CACHED, "column_encryption", 16)
        );
        let cmp = c.comparison.as_ref().expect("2 rounds of both");
        assert_eq!(cmp.rounds, 2);
        assert!((cmp.median_change_pct + 25.0).abs() < 1e-9, "{cmp:?}");
        // Nothing ran for the others: their rows say so, no %.
        assert!(costs[1..].iter().all(|c| c.comparison.is_none()));
        let t = beyond_table(b, &costs);
        assert_eq!(t.rows.len(), 4);
        assert_eq!(t.columns.len(), t.rows[0].len());
        assert!(t.rows[0][6].starts_with("-25.0%"), "{:?}", t.rows[0]);
        assert_eq!(t.rows[1][7], "not measured (no round ran both)");
        assert_eq!(t.rows[1][6], "-");
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
