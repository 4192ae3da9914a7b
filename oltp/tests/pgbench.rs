//! pgbench's built-in scripts on the private PostgreSQL:
//! tables made by stock `pgbench -i -s 1` run under `oltp run --workload pgbench_*`
//! (and keep pgbench's invariant: the sums of account, teller and branch balances and
//! of history's deltas are equal); tables made by `oltp prepare --workload pgbench_*
//! --scale 1` have pgbench's shape and run under stock `pgbench -M prepared` with exit 0;
//! a scale that does not match the tables, a run before prepare and the flags pgbench
//! workloads refuse are one-line errors; encrypted fillers give the plaintext tables'
//! results after the same seeded transactions, and their envelopes open only for their
//! own row; `--report-interval` prints pgbench 15's `progress:` lines (with `, lag` under
//! `--rate`, whose final report gains the schedule-lag line); `--latency-limit` counts
//! late and (under `--rate`) skipped transactions as stock pgbench 15's `-L` does on the
//! same tables, in its lines' shapes, and reaches the CSV and Markdown exports; a run
//! by count (`--time 0 --events N`) prints the lines stock pgbench 15's `-t` prints, in
//! its order. One private PostgreSQL per test binary (a test that cannot start it fails,
//! never skips); scale 1, runs of 1 s or a few hundred transactions.

#[allow(dead_code)]
mod common;

use std::path::Path;

use common::*;
use encbench_oltp::driver::{Connection, PostgresConnection, Row as _};
use encbench_oltp::schema::pgbench::{Table, open_filler};

/// Stock pgbench of PostgreSQL 15 (the machine image's; Debian's `postgresql-15`).
const PGBENCH: &str = "/usr/lib/postgresql/15/bin/pgbench";

/// Every row of `sql` on `db`, columns as text.
fn rows(url: &str, db: &str, sql: &str) -> Vec<Vec<Option<String>>> {
    runtime().block_on(async {
        let mut c = pg(url, Some(db)).await;
        let r = c
            .query_text(sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        c.close().await;
        r
    })
}

/// The single value of `sql` on `db`.
fn value(url: &str, db: &str, sql: &str) -> String {
    runtime()
        .block_on(pg_scalar(url, Some(db), sql))
        .unwrap_or_else(|| panic!("{sql}: no value"))
}

/// Runs stock pgbench with `args` and the connection URI of `db` last.
fn pgbench(db_url: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new(PGBENCH)
        .args(args)
        .arg(db_url)
        .output()
        .expect("run pgbench (apt-get install postgresql-15)")
}

/// `oltp CMD --db-driver pgsql` on `url`, base database `db`, keys in `base`, then `extra`.
fn oltp_args(cmd: &str, url: &str, base: &Path, db: &str, extra: &[&str]) -> Vec<String> {
    pg_data_args(cmd, Some(url), base, db, extra)
}

/// `oltp prepare` with `extra` (it must succeed); its arguments, to give again.
fn prepare(url: &str, base: &Path, db: &str, extra: &[&str]) -> Vec<String> {
    let args = oltp_args("prepare", url, base, db, extra);
    assert_eq!(
        runtime().block_on(cli(&args)),
        Ok(true),
        "prepare {extra:?}"
    );
    args
}

/// `oltp run --db-driver pgsql` on `url`, base database `db`, keys in `base` ([`Cmd::pgsql`]).
fn oltp_run(url: &str, base: &Path, db: &str) -> Cmd {
    Cmd::pgsql("run", Some(url), base, db)
}

/// `run` (of base directory `base`) as JSON: the report.
fn run_json(base: &Path, run: Cmd) -> serde_json::Value {
    let json = base.join("run.json");
    let args = run
        .flag("output", "json")
        .switch("no-progress")
        .flag("json-out", utf8(&json))
        .build();
    assert_eq!(runtime().block_on(cli(&args)), Ok(true), "oltp {args:?}");
    read_json(&json)
}

/// The error of an `oltp` command that must fail.
fn refused(args: &[String]) -> String {
    let e = runtime().block_on(cli(args)).expect_err("refused");
    assert!(!e.contains('\n'), "one line: {e}");
    e
}

/// Creates database `db` (empty).
fn create_db(url: &str, db: &str) {
    runtime().block_on(async {
        let mut c = pg(url, Some("postgres")).await;
        c.simple(&format!("CREATE DATABASE {db}"))
            .await
            .expect("create database");
        c.close().await;
    });
}

/// pgbench's invariant after tpcb-like transactions: the sum of every
/// account's, teller's and branch's balance and of history's deltas are equal
/// (each transaction adds its delta to one of each).
fn balances(url: &str, db: &str) -> [String; 4] {
    [
        "SELECT COALESCE(SUM(abalance), 0)::text FROM pgbench_accounts",
        "SELECT COALESCE(SUM(tbalance), 0)::text FROM pgbench_tellers",
        "SELECT COALESCE(SUM(bbalance), 0)::text FROM pgbench_branches",
        "SELECT COALESCE(SUM(delta), 0)::text FROM pgbench_history",
    ]
    .map(|sql| value(url, db, sql))
}

#[test]
fn stock_pgbench_tables_run_under_oltp() {
    let s = shared_pg();
    let base = pg_tempdir();
    let db = "pgb_stock";
    create_db(s.url(), db);
    let out = pgbench(&s.url_of(db), &["-i", "-s", "1", "-q"]);
    assert!(
        out.status.success(),
        "pgbench -i: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for workload in [
        "pgbench_select_only",
        "pgbench_simple_update",
        "pgbench_tpcb_like",
    ] {
        let cmd = oltp_run(s.url(), base.path(), db)
            .workload(workload)
            .threads(2)
            .time(1);
        let report = run_json(base.path(), cmd);
        let run = &report["runs"][0];
        assert_eq!(run["engine"], "postgresql", "{workload}");
        assert_eq!(run["complete"], true, "{workload}: {run}");
        assert!(u(&run["transactions"]) > 0, "{workload}: {run}");
        assert!(run["tps"].as_f64().is_some_and(|t| t > 0.0), "{workload}");
        assert!(run["latency_ms"]["avg"].as_f64().is_some(), "{workload}");
        assert_eq!(run["errors"], 0, "{workload}");
        assert_eq!(run["pgbench"]["scale"], 1, "{workload}: the tables' scale");
        assert_eq!(run["pgbench"]["query_mode"], "prepared", "{workload}");
    }
    // Only tpcb-like moves tellers and branches: each of its transactions added
    // its delta once to an account, a teller, a branch and history; the two
    // scripts before it changed accounts and history alike.
    let [acc, tel, bra, hist] = balances(s.url(), db);
    assert_eq!(acc, hist, "accounts and history deltas");
    assert_eq!(tel, bra, "tellers and branches");
    let history: u64 = value(s.url(), db, "SELECT COUNT(*) FROM pgbench_history")
        .parse()
        .expect("count");
    assert!(history > 0, "history rows");
    // oltp's cleanup drops stock pgbench's tables too.
    assert_eq!(
        runtime().block_on(cli(&oltp_args("cleanup", s.url(), base.path(), db, &[]))),
        Ok(true)
    );
    let left = value(
        s.url(),
        db,
        "SELECT COUNT(*) FROM pg_tables WHERE tablename LIKE 'pgbench%'",
    );
    assert_eq!(left, "0", "cleanup dropped pgbench's tables");
}

#[test]
fn oltp_tables_have_pgbench_shape_and_run_under_stock_pgbench() {
    let s = shared_pg();
    let base = pg_tempdir();
    let db = "pgb_oltp";
    let prepare = prepare(
        s.url(),
        base.path(),
        db,
        &[
            "--workload",
            "pgbench_tpcb_like",
            "--scale",
            "1",
            "--fillfactor",
            "90",
        ],
    );
    let e = refused(&prepare);
    assert!(
        e.contains("already holds pgbench's tables") && e.contains("oltp cleanup --encrypt none"),
        "{e}"
    );
    for (table, rows) in [
        ("pgbench_branches", "1"),
        ("pgbench_tellers", "10"),
        ("pgbench_accounts", "100000"),
        ("pgbench_history", "0"),
    ] {
        let n = value(s.url(), db, &format!("SELECT COUNT(*) FROM {table}"));
        assert_eq!(n, rows, "{table}");
    }
    // pgbench's types and filler widths, fillfactor, keys after the load.
    let types = rows(
        s.url(),
        db,
        "SELECT table_name::text || '.' || column_name::text, data_type::text, character_maximum_length::text FROM information_schema.columns WHERE table_name LIKE 'pgbench%' AND column_name = 'filler' ORDER BY 1",
    );
    let want = [
        ("pgbench_accounts.filler", "84"),
        ("pgbench_branches.filler", "88"),
        ("pgbench_history.filler", "22"),
        ("pgbench_tellers.filler", "84"),
    ];
    assert_eq!(types.len(), 4, "{types:?}");
    for (row, (name, width)) in types.iter().zip(want) {
        assert_eq!(row[0].as_deref(), Some(name));
        assert_eq!(row[1].as_deref(), Some("character"), "{name}");
        assert_eq!(row[2].as_deref(), Some(width), "{name}");
    }
    let options = value(
        s.url(),
        db,
        "SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'pgbench_accounts'",
    );
    assert_eq!(options, "fillfactor=90");
    let keys = value(
        s.url(),
        db,
        "SELECT string_agg(conrelid::regclass::text, ',' ORDER BY conrelid::regclass::text) FROM pg_constraint WHERE contype = 'p' AND conrelid::regclass::text LIKE 'pgbench%'",
    );
    assert_eq!(keys, "pgbench_accounts,pgbench_branches,pgbench_tellers");
    // The accounts as pgbench -i writes them: bid from aid, zero balance, blank filler.
    let odd = value(
        s.url(),
        db,
        "SELECT COUNT(*) FROM pgbench_accounts WHERE bid <> 1 OR abalance <> 0 OR filler <> ''",
    );
    assert_eq!(odd, "0");
    for script in [&["-b", "tpcb-like", "-T", "2"][..], &["-S", "-T", "1"][..]] {
        let args = [&["-M", "prepared", "-c", "2", "-n"][..], script].concat();
        let out = pgbench(&s.url_of(db), &args);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "pgbench {args:?}: {stdout} {stderr}");
        assert!(
            stdout.contains("number of failed transactions: 0 (0.000%)"),
            "{stdout}"
        );
        assert!(!stderr.to_lowercase().contains("error"), "{stderr}");
        assert!(stdout.contains("scaling factor: 1"), "{stdout}");
    }
    let [acc, tel, bra, hist] = balances(s.url(), db);
    assert!(
        acc == tel && tel == bra && bra == hist,
        "{acc} {tel} {bra} {hist}"
    );
}

#[test]
fn a_scale_that_differs_and_a_run_before_prepare_are_refused() {
    let s = shared_pg();
    let base = pg_tempdir();
    let db = "pgb_bad";
    let run = |extra: &[&str]| {
        let flags = [
            &["--workload", "pgbench_select_only", "--time", "1"][..],
            extra,
        ]
        .concat();
        oltp_args("run", s.url(), base.path(), db, &flags)
    };
    let e = refused(&run(&[]));
    assert!(
        e.contains(&format!(
            "pgb_bad has no pgbench tables: run `oltp prepare --workload pgbench_select_only --scale 1 --encrypt none --db-driver pgsql --pgsql-db pgb_bad{}` first",
            pg_shown(Some(s.url()), base.path())
        )),
        "{e}"
    );
    prepare(
        s.url(),
        base.path(),
        db,
        &["--workload", "pgbench_select_only", "--scale", "1"],
    );
    let e = refused(&run(&["--scale", "3"]));
    assert!(
        e.contains("pgb_bad's pgbench tables have scale 1 (count(*) of pgbench_branches), the run asks for --scale 3: use --scale 1"),
        "{e}"
    );
    // Encrypted tables that were never prepared.
    let e = refused(&run(&["--encrypt", AEAD]));
    assert!(
        e.contains("pgb_bad_aes_256_gcm has no pgbench tables"),
        "{e}"
    );
    // Flags pgbench's tables cannot take.
    let e = refused(&run(&[
        "--encrypt",
        AEAD,
        "--encrypt-columns",
        "k",
        "--scale",
        "1",
    ]));
    assert!(e.contains("names sysbench's columns"), "{e}");
    let e = refused(&oltp_args(
        "run",
        s.url(),
        base.path(),
        db,
        &["--workload", "oltp_point_select", "--scale", "2"],
    ));
    assert!(e.contains("--scale is for pgbench's tables"), "{e}");
    let mysql = strings(&[
        "run",
        "--workload",
        "pgbench_tpcb_like",
        "--mysql-url",
        "mysql://u:p@127.0.0.1:1",
    ]);
    let e = refused(&mysql);
    assert!(e.contains("add --db-driver pgsql"), "{e}");
    // The matching scale runs.
    let cmd = oltp_run(s.url(), base.path(), db)
        .workload("pgbench_select_only")
        .flag("scale", 1)
        .time(1);
    let report = run_json(base.path(), cmd);
    assert_eq!(report["runs"][0]["complete"], true);
}

#[test]
fn encrypted_fillers_give_the_plaintext_results() {
    let s = shared_pg();
    let base = pg_tempdir();
    let db = "pgb_enc";
    prepare(
        s.url(),
        base.path(),
        db,
        &[
            "--workload",
            "pgbench_tpcb_like",
            "--scale",
            "1",
            "--encrypt",
            &format!("none,{AEAD}"),
            "--encrypt-columns",
            "all",
        ],
    );
    let enc_db = "pgb_enc_aes_256_gcm_kcp";
    let filler_type = value(
        s.url(),
        enc_db,
        "SELECT string_agg(DISTINCT data_type::text, ',') FROM information_schema.columns WHERE table_name LIKE 'pgbench%' AND column_name = 'filler'",
    );
    assert_eq!(filler_type, "bytea", "every filler an envelope column");
    // The same seeded transactions, one client, on both: identical tables after.
    for workload in ["pgbench_tpcb_like", "pgbench_simple_update"] {
        let cmd = oltp_run(s.url(), base.path(), db)
            .workload(workload)
            .encrypt(&format!("none,{AEAD}"))
            .flag("encrypt-columns", "all")
            .flag("rand-seed", 7)
            .time(0)
            .events(300);
        let report = run_json(base.path(), cmd);
        for run in report["runs"].as_array().expect("runs") {
            assert_eq!(run["transactions"], 300, "{workload}: {run}");
            assert_eq!(run["complete"], true, "{workload}");
        }
    }
    for sql in [
        "SELECT aid, abalance FROM pgbench_accounts WHERE abalance <> 0 ORDER BY aid",
        "SELECT tid, tbalance FROM pgbench_tellers ORDER BY tid",
        "SELECT bid, bbalance FROM pgbench_branches ORDER BY bid",
        "SELECT tid, bid, aid, delta FROM pgbench_history ORDER BY tid, bid, aid, delta",
    ] {
        let (plain, enc) = (rows(s.url(), db, sql), rows(s.url(), enc_db, sql));
        assert!(!plain.is_empty(), "{sql}");
        assert_eq!(plain, enc, "{sql}");
    }
    assert_eq!(
        value(s.url(), db, "SELECT COUNT(*) FROM pgbench_history"),
        "600"
    );
    // Every accounts filler is an envelope of pgbench's 84 blanks bound to its aid.
    let codec = codec(base.path(), AEAD, encbench_oltp::columns::Columns::DEFAULT);
    runtime().block_on(async {
        let mut c = pg(s.url(), Some(enc_db)).await;
        let mut fillers: Vec<(i64, Vec<u8>)> = Vec::new();
        c.simple_query(
            "SELECT aid, filler FROM pgbench_accounts WHERE aid IN (1, 2, 50000, 100000) ORDER BY aid",
            |row: &mut <PostgresConnection as Connection>::Row| {
                fillers.push((row.int(0).expect("aid"), row.take_bytes(1).expect("filler")));
            },
        )
        .await
        .expect("fillers");
        assert_eq!(fillers.len(), 4);
        for (aid, stored) in &fillers {
            assert!(stored.len() > 84, "aid {aid}: an envelope");
            let mut v = stored.clone();
            open_filler(&codec, Table::Accounts, *aid, &mut v)
                .unwrap_or_else(|e| panic!("aid {aid}: {e}"));
            assert_eq!(v, vec![b' '; 84], "aid {aid}");
            let mut other = stored.clone();
            assert!(
                open_filler(&codec, Table::Accounts, aid + 1, &mut other).is_err(),
                "aid {aid}'s filler must not open as aid {}",
                aid + 1
            );
        }
        let null_fillers = c
            .query_text("SELECT COUNT(*) FROM pgbench_tellers WHERE filler IS NULL")
            .await
            .expect("tellers");
        assert_eq!(
            null_fillers[0][0].as_deref(),
            Some("10"),
            "pgbench leaves tellers' fillers NULL"
        );
        c.close().await;
    });
    // The wrong key is found before the run.
    let other = pg_tempdir();
    let keys = other.path().join("keys");
    std::fs::create_dir_all(&keys).expect("keys dir");
    write_key_file(
        &keys.join("aes-256-gcm.keys"),
        &format!("1;{}\n", "ab".repeat(32)),
    );
    let e = refused(&oltp_args(
        "run",
        s.url(),
        other.path(),
        db,
        &[
            "--workload",
            "pgbench_select_only",
            "--encrypt",
            AEAD,
            "--encrypt-columns",
            "all",
        ],
    ));
    assert!(
        e.contains("pgb_enc_aes_256_gcm_kcp.pgbench_accounts.filler aid=1"),
        "{e}"
    );
}

/// pgbench 15's `-P` line (`printProgressReport`), captured: time, tps, latency
/// average and stddev, failed, and with `-R` the lag.
fn progress_regex(rate: bool) -> regex::Regex {
    let lag = if rate { r", lag (\d+\.\d{3}) ms" } else { "" };
    pgbench_line(&format!(
        r"progress: (\d+\.\d) s, (\d+\.\d) tps, lat (\d+\.\d{{3}}) ms stddev (\d+\.\d{{3}}), (\d+) failed{lag}"
    ))
}

#[test]
fn report_interval_prints_pgbench_progress_lines_and_rate_adds_the_schedule_lag() {
    let PgbenchDb { pg: s, base, db } = pgbench_select_only("pgb_progress");
    let lag_line =
        pgbench_line(r"rate limit schedule lag: avg (\d+\.\d{3}) \(max (\d+\.\d{3})\) ms");
    for rate in [None, Some("200")] {
        let json = base.path().join("progress.json");
        let mut extra = vec![
            "--workload",
            "pgbench_select_only",
            "--threads",
            "2",
            "--time",
            "3",
            "--report-interval",
            "1",
            "--no-progress",
            "--json-out",
            utf8(&json),
        ];
        if let Some(r) = rate {
            extra.extend(["--rate", r]);
        }
        let out = oltp_bin(
            base.path(),
            &oltp_args("run", s.url(), base.path(), db, &extra),
        );
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "run {rate:?}: {stderr}");
        let re = progress_regex(rate.is_some());
        let lines: Vec<&str> = stdout
            .lines()
            .chain(stderr.lines())
            .filter(|l| l.starts_with("progress: "))
            .collect();
        // One line per whole second of a 3 s run, in pgbench's exact layout.
        assert_eq!(lines.len(), 3, "{rate:?}: {stdout}\n{stderr}");
        let mut last_at = 0.0;
        for l in &lines {
            let c = re
                .captures(l)
                .unwrap_or_else(|| panic!("not pgbench's -P line ({rate:?}): {l}"));
            let at: f64 = c[1].parse().expect("time");
            assert!(at >= 1.0 && at > last_at, "{l}");
            last_at = at;
            assert_eq!(&c[5], "0", "no failed transactions: {l}");
        }
        let report = read_json(&json);
        let run = &report["runs"][0];
        assert_eq!(run["complete"], true, "{run}");
        // pgbench's stddev line, from the same HdrHistogram as the JSON's.
        let stddev = run["latency_ms"]["stddev"].as_f64().expect("stddev");
        assert!(
            stdout.contains(&format!("latency stddev = {stddev:.3} ms")),
            "{stdout}"
        );
        match rate {
            None => {
                assert!(!lag_line.is_match(&stdout), "closed loop: no lag\n{stdout}");
                assert!(run.get("schedule_lag_ms").is_none(), "{run}");
            }
            Some(_) => {
                let c = lag_line
                    .captures(&stdout)
                    .unwrap_or_else(|| panic!("no schedule lag line:\n{stdout}"));
                let lag = &run["schedule_lag_ms"];
                let (avg, max) = (
                    lag["avg"].as_f64().expect("avg"),
                    lag["max"].as_f64().expect("max"),
                );
                assert_eq!(&c[1], format!("{avg:.3}"), "text and JSON agree");
                assert_eq!(&c[2], format!("{max:.3}"), "text and JSON agree");
                assert!(avg >= 0.0 && avg <= max, "{lag}");
            }
        }
    }
}

/// pgbench 15's `-L` line of its final report, captured: the limit, late,
/// processed, percentage.
fn late_regex() -> regex::Regex {
    pgbench_line(
        r"number of transactions above the (\d+\.\d) ms latency limit: (\d+)/(\d+) \((\d+\.\d{3})%\)",
    )
}

/// pgbench 15's `-L` line under `-R`, captured: skipped, percentage.
fn skipped_regex() -> regex::Regex {
    pgbench_line(r"number of transactions skipped: (\d+) \((\d+\.\d{3})%\)")
}

/// `n` captured as an integer.
fn int(c: &regex::Captures<'_>, n: usize) -> u64 {
    c[n].parse().expect("integer")
}

/// `oltp run` of `extra` with text on stdout and the JSON report: (stdout
/// and stderr, the first run).
fn run_text(base: &Path, run: Cmd) -> (String, serde_json::Value) {
    let json = base.join("limit.json");
    let args = run
        .switch("no-progress")
        .flag("json-out", utf8(&json))
        .build();
    let out = oltp_bin(base, &args);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "oltp {args:?}: {text}");
    let run = read_json(&json)["runs"][0].clone();
    assert_eq!(run["complete"], true, "{run}");
    (text, run)
}

#[test]
fn latency_limit_counts_late_and_skipped_transactions_as_pgbench_15() {
    let PgbenchDb { pg: s, base, db } = pgbench_select_only("pgb_limit");
    let (late, skipped) = (late_regex(), skipped_regex());
    // Stock pgbench on the same tables first: the shapes oltp's lines must
    // have, and pgbench's own counting. No transaction lasts under 1 µs (a
    // round trip to the server), so -L 0.001 makes every one late; -t under
    // -R 1,000,000 schedules 2 x 500 transactions far faster than they can
    // run, so some are skipped, and processed + skipped is exactly 1,000.
    let stock = |args: &[&str]| {
        let out = pgbench(&s.url_of(db), args);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        );
        assert!(out.status.success(), "pgbench {args:?}: {stdout} {stderr}");
        (stdout, stderr)
    };
    let (closed, _) = stock(&["-S", "-n", "-c", "2", "-j", "2", "-t", "150", "-L", "0.001"]);
    let c = late.captures(&closed).unwrap_or_else(|| panic!("{closed}"));
    assert_eq!(&c[1], "0.0", "{closed}");
    assert_eq!((int(&c, 2), int(&c, 3)), (300, 300), "{closed}");
    assert!(
        !skipped.is_match(&closed),
        "no -R: no skipped line\n{closed}"
    );
    let args = [
        "-S", "-n", "-c", "2", "-j", "2", "-t", "500", "-R", "1000000", "-L", "0.001",
    ];
    let (open, _) = stock(&args);
    let sk = skipped.captures(&open).unwrap_or_else(|| panic!("{open}"));
    let c = late.captures(&open).unwrap_or_else(|| panic!("{open}"));
    assert!(int(&sk, 1) > 0, "{open}");
    assert_eq!(int(&c, 3) + int(&sk, 1), 1000, "{open}");
    // -t's processed line: of the 1,000 scheduled, skipped ones included.
    assert!(
        open.contains(&format!(
            "\nnumber of transactions actually processed: {}/1000\n",
            int(&c, 3)
        )),
        "{open}"
    );
    assert_eq!(int(&c, 2), int(&c, 3), "every processed one late: {open}");
    // The same under oltp (--events counts all clients: pgbench's -t 150 x 2).
    let by_count = oltp_run(s.url(), base.path(), db)
        .workload("pgbench_select_only")
        .threads(2)
        .time(0);
    for (limit, shown, all_late) in [("0.001", "0.0", true), ("100000", "100000.0", false)] {
        let cmd = by_count.clone().events(300).flag("latency-limit", limit);
        let (text, run) = run_text(base.path(), cmd);
        let c = late
            .captures(&text)
            .unwrap_or_else(|| panic!("-L {limit}: {text}"));
        assert_eq!(&c[1], shown, "{text}");
        let want_late = if all_late { 300 } else { 0 };
        assert_eq!((int(&c, 2), int(&c, 3)), (want_late, 300), "{text}");
        assert!(
            !skipped.is_match(&text),
            "no --rate: no skipped line\n{text}"
        );
        assert_eq!(run["transactions"], 300, "{run}");
        let l = &run["latency_limit"];
        assert_eq!(l["limit_ms"].as_f64(), limit.parse::<f64>().ok(), "{run}");
        assert_eq!(
            (l["late"].as_u64(), l["skipped"].as_u64()),
            (Some(want_late), Some(0))
        );
    }
    let cmd = by_count
        .events(1000)
        .rate(1000000)
        .flag("latency-limit", "0.001");
    let (text, run) = run_text(base.path(), cmd);
    let sk = skipped.captures(&text).unwrap_or_else(|| panic!("{text}"));
    let c = late.captures(&text).unwrap_or_else(|| panic!("{text}"));
    let l = &run["latency_limit"];
    let (processed, skip) = (
        run["transactions"].as_u64().expect("transactions"),
        l["skipped"].as_u64().expect("skipped"),
    );
    assert!(skip > 0, "{text}");
    assert_eq!(
        processed + skip,
        1000,
        "processed + skipped = scheduled: {text}"
    );
    assert_eq!(int(&sk, 1), skip, "text and JSON agree: {text}");
    assert_eq!((int(&c, 2), int(&c, 3)), (processed, processed), "{text}");
    assert_eq!(l["late"].as_u64(), Some(processed), "{run}");
    assert!(
        text.contains(&format!(
            "\nnumber of transactions actually processed: {processed}/1000\n"
        )),
        "as pgbench's -t: {text}"
    );
    // pgbench's percentage: of processed + skipped + failed (none failed).
    assert_eq!(
        &sk[2],
        format!("{:.3}", 100.0 * skip as f64 / 1000.0),
        "{text}"
    );
}

/// The label of a report line (what comes before its first `: ` or ` = `,
/// whichever is first), `None` for a line with neither.
fn label(line: &str) -> Option<&str> {
    [": ", " = "]
        .iter()
        .filter_map(|sep| line.find(sep))
        .min()
        .map(|at| &line[..at])
}

#[test]
fn a_run_by_count_prints_the_lines_of_stock_pgbench_15s_t() {
    let PgbenchDb { pg: s, base, db } = pgbench_select_only("pgb_count");
    let per_client = pgbench_line(r"number of transactions per client: (\d+)");
    let processed = pgbench_line(r"number of transactions actually processed: (\d+)/(\d+)");
    // Stock pgbench -t 150 with 2 clients: what -t prints.
    let out = pgbench(
        &s.url_of(db),
        &["-S", "-n", "-c", "2", "-j", "2", "-t", "150"],
    );
    let stock = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{stock} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // oltp's --events counts all clients: 300 for 2 threads is -t 150.
    let cmd = oltp_run(s.url(), base.path(), db)
        .workload("pgbench_select_only")
        .threads(2)
        .time(0)
        .events(300);
    let (text, run) = run_text(base.path(), cmd);
    assert_eq!(run["transactions"], 300, "{run}");
    assert_eq!(run["pgbench"]["transactions_per_client"], 150, "{run}");
    for (who, report) in [("pgbench", &stock), ("oltp", &text)] {
        let c = per_client
            .captures(report)
            .unwrap_or_else(|| panic!("{who}: {report}"));
        assert_eq!(int(&c, 1), 150, "{who}: {report}");
        let c = processed
            .captures(report)
            .unwrap_or_else(|| panic!("{who}: {report}"));
        assert_eq!((int(&c, 1), int(&c, 2)), (300, 300), "{who}: {report}");
        assert!(!report.contains("duration:"), "{who}: no -T line\n{report}");
    }
    // Line for line: pgbench's lines up to the failed one are oltp's, in
    // order; every later one pgbench prints, oltp prints in the same order
    // (oltp adds the stddev line and its own after the tps line).
    let labels = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.starts_with("pgbench ("))
            .filter_map(label)
            .map(String::from)
            .collect()
    };
    let (want, got) = (labels(&stock), labels(&text));
    let head = want
        .iter()
        .position(|l| l == "number of failed transactions")
        .expect("pgbench's failed line")
        + 1;
    assert_eq!(got[..head], want[..head], "{stock}\n{text}");
    let mut rest = got[head..].iter();
    for l in &want[head..] {
        assert!(
            rest.any(|g| g == l),
            "{l:?} missing or out of order:\n{text}"
        );
    }
}

#[test]
fn latency_limit_counts_reach_the_csv_and_markdown_exports() {
    let PgbenchDb { pg: s, base, db } = pgbench_select_only("pgb_limit_exports");
    // No transaction lasts under 1 µs: all 300 late, none skipped (no --rate).
    for output in ["csv", "markdown"] {
        let json = base.path().join(format!("{output}.json"));
        let extra = [
            "--workload",
            "pgbench_select_only",
            "--threads",
            "2",
            "--time",
            "0",
            "--events",
            "300",
            "--latency-limit",
            "0.001",
            "--output",
            output,
            "--no-progress",
            "--json-out",
            utf8(&json),
        ];
        let out = oltp_bin(
            base.path(),
            &oltp_args("run", s.url(), base.path(), db, &extra),
        );
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "{output}: {stdout} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let run = read_json(&json)["runs"][0].clone();
        let l = &run["latency_limit"];
        assert_eq!((u(&l["late"]), u(&l["skipped"])), (300, 0), "{run}");
        // New-user finding: pgbench results carried sysbench's data set.
        for field in ["tables", "table_size", "range_size"] {
            assert!(run.get(field).is_none(), "{field}: {run}");
        }
        assert_eq!(run["pgbench"]["scale"], 1, "{run}");
        if output == "csv" {
            let mut r = csv::Reader::from_reader(stdout.as_bytes());
            let header = r.headers().expect("header").clone();
            let row = r.records().next().expect("a row").expect("row");
            let col = |name: &str| {
                let i = header
                    .iter()
                    .position(|h| h == name)
                    .unwrap_or_else(|| panic!("{name} not in {header:?}"));
                row[i].to_string()
            };
            assert_eq!(col("latency_limit_ms"), "0.001");
            assert_eq!(col("latency_limit_late"), "300");
            assert_eq!(col("latency_limit_skipped"), "0");
            assert_eq!(col("transactions"), "300");
            assert_eq!(col("scale"), "1");
            assert_eq!(col("script"), "select-only");
            assert_eq!(
                (col("tables"), col("table_size")),
                (String::new(), String::new())
            );
        } else {
            assert!(
                stdout.contains(
                    "| pgbench_select_only | 2 | none | 1 | 0.001 | 300 | 300 (100.000%) | 0 (0.000%) |\n"
                ),
                "{stdout}"
            );
        }
    }
}

#[test]
fn latency_limit_under_rate_adds_skipped_to_the_progress_line_as_pgbench_15() {
    let PgbenchDb { pg: s, base, db } = pgbench_select_only("pgb_limit_progress");
    let line = pgbench_line(
        r"progress: \d+\.\d s, \d+\.\d tps, lat \d+\.\d{3} ms stddev \d+\.\d{3}, \d+ failed, lag \d+\.\d{3} ms, (\d+) skipped",
    );
    // Stock pgbench's -P line under -R and -L (on stderr): the shape.
    let out = pgbench(
        &s.url_of(db),
        &[
            "-S", "-n", "-c", "2", "-j", "2", "-T", "2", "-P", "1", "-R", "1000000", "-L", "1",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let stock: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("progress: "))
        .collect();
    assert!(!stock.is_empty(), "{stderr}");
    for l in &stock {
        assert!(line.is_match(l), "stock pgbench's line: {l}");
    }
    // oltp's, 2 s at 1 line per second. 1,000,000 arrivals per second for 2
    // clients (one every 2 µs each) outrun any round trip to the server, so
    // arrivals fall more than 1 ms behind and are skipped; the intervals'
    // skipped are never more than the run's (a worker may skip the last ones
    // just after the last line).
    let cmd = oltp_run(s.url(), base.path(), db)
        .workload("pgbench_select_only")
        .threads(2)
        .time(2)
        .report_interval(1)
        .rate(1000000)
        .flag("latency-limit", 1);
    let (text, run) = run_text(base.path(), cmd);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("progress: "))
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    let mut sum = 0;
    for l in &lines {
        let c = line
            .captures(l)
            .unwrap_or_else(|| panic!("not pgbench's -P line under -R -L: {l}"));
        sum += int(&c, 1);
    }
    let skipped = run["latency_limit"]["skipped"].as_u64().expect("skipped");
    assert!(skipped > 0 && sum <= skipped, "{sum} of {skipped}: {text}");
}

/// Waits (up to 120 s) until the prepare of `db` on `url` has marked it
/// loading in its record table.
async fn wait_until_pgbench_loading(url: &str, db: &str) {
    let mut opts = encbench_oltp::driver::ConnectOptions::new(url);
    opts.database = Some(db.to_string());
    let t0 = std::time::Instant::now();
    loop {
        if let Ok(mut c) = PostgresConnection::connect(&opts).await {
            let state = c
                .query_text("SELECT value FROM encbench_pgbench WHERE name = 'state'")
                .await
                .ok()
                .and_then(|rows| rows.into_iter().next())
                .and_then(|r| r.into_iter().next().flatten());
            c.close().await;
            if state.as_deref() == Some("loading") {
                return;
            }
        }
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(120),
            "{db}: prepare never started loading"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Sends `signal` to process `pid` (a child of the test).
fn signal(pid: u32, signal: nix::sys::signal::Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), signal)
        .unwrap_or_else(|e| panic!("{signal} to {pid}: {e}"));
}

#[test]
fn a_second_prepare_while_one_loads_says_so_and_a_dead_ones_hint_keeps_its_scale() {
    // New-user findings: the second prepare called the first's database half
    // loaded and advised the cleanup that would destroy it under the first;
    // the hint after an interrupted prepare named --scale 1, not the scale given.
    use nix::sys::signal::Signal::{SIGCONT, SIGKILL, SIGSTOP};
    let s = shared_pg();
    let base = pg_tempdir();
    let db = "pgb_concurrent";
    let spawn = |scale: &str| {
        let args = oltp_args(
            "prepare",
            s.url(),
            base.path(),
            db,
            &["--workload", "pgbench_select_only", "--scale", scale],
        );
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_oltp"))
            .args(&args)
            .env("ENCBENCH_HOME", base.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start oltp prepare");
        (child, args)
    };
    let run_args = oltp_args(
        "run",
        s.url(),
        base.path(),
        db,
        &["--workload", "pgbench_select_only", "--time", "1"],
    );
    let (first, args) = spawn("3");
    runtime().block_on(async {
        wait_until_pgbench_loading(s.url(), db).await;
        // Paused mid-load (its lock and connections held), so the checks
        // below run while it loads, however fast or slow the machine.
        signal(first.id(), SIGSTOP);
        let e = cli(&args).await.expect_err("another prepare");
        assert_eq!(
            e,
            "pgb_concurrent is being loaded by another prepare running now: wait for it to finish, then use its tables (they are ready when it ends)"
        );
        let e = cli(&run_args).await.expect_err("loading");
        assert_eq!(
            e,
            "pgb_concurrent is being loaded by a prepare running now: wait for it to finish, then run again"
        );
        signal(first.id(), SIGCONT);
    });
    let out = first.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "the first prepare: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cleanup = oltp_args("cleanup", s.url(), base.path(), db, &[]);
    runtime().block_on(async {
        assert_eq!(cli(&run_args).await, Ok(true), "intact");
        assert_eq!(cli(&cleanup).await, Ok(true));
    });
    // A prepare of scale 3 killed mid-load: the hint prepares scale 3 again.
    let (first, _) = spawn("3");
    runtime().block_on(async {
        wait_until_pgbench_loading(s.url(), db).await;
        signal(first.id(), SIGKILL);
    });
    first.wait_with_output().expect("wait");
    runtime().block_on(async {
        let e = cli(&run_args).await.expect_err("half loaded");
        assert!(
            e.starts_with("pgb_concurrent is half loaded (a prepare of pgbench's tables did not finish): run `oltp cleanup --encrypt none --db-driver pgsql --pgsql-db pgb_concurrent")
                && e.contains("`oltp prepare --workload pgbench_select_only --scale 3 --encrypt none --db-driver pgsql --pgsql-db pgb_concurrent"),
            "{e}"
        );
        assert_eq!(cli(&cleanup).await, Ok(true));
    });
}
