//! Report 004's plan, comparisons, rows and tables on fixtures.

use super::*;
use crate::io_sample::IoSample;
use crate::plan::Servers;
use crate::published::Published;
use crate::row::{GridRun, Row};

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
    // Each cached round warms_buffer_pool 961 MiB of pages: ~62 s at 1,000 reads/s,
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
        assert_eq!(warms_buffer_pool(g), g.name.starts_with(CACHED), "{args}");
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
    extra.name = grid_name(CACHED, AddedEncryption::Columns);
    for r in &mut extra.report.runs {
        r.qps *= 0.75;
    }
    g.push(extra);
    let costs = beyond_costs(b, &g, &planned, &io(500));
    assert_eq!(costs.len(), 4);
    let c = &costs[0];
    assert_eq!(
        (c.profile.as_str(), c.added, c.threads),
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
    use encbench_oltp::report::Report;
    use encbench_oltp::report::model::fixtures::{run, settings};
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
            .find(|r| r.figure.starts_with("IO-bound vs cached") && r.figure.contains("s1.small"))
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
