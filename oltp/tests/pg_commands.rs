//! `oltp prepare|run|cleanup --db-driver pgsql` end to end: the
//! commands on the shared private PostgreSQL (`--pgsql-url`) and on a private
//! PostgreSQL of their own (no URL: the lease starts it and the last command stops it),
//! plaintext and column-encrypted, JSON `engine` = `postgresql`; cleanup drops what
//! prepare created; bad input (run before prepare, a URL of the wrong scheme, a flag of
//! the other driver, `sslmode` in the URL, InnoDB at rest) as one-line errors; `oltp_insert`
//! leaves the id to `SERIAL` as sysbench's pgsql driver does; stock sysbench runs on
//! oltp-prepared tables. One private PostgreSQL per test binary (a test that cannot start
//! it fails, never skips).

#[allow(dead_code)]
mod common;

use std::path::Path;

use common::*;
use encbench_oltp::server::postgres::PgServer;

/// Rows per table.
const SIZE: u32 = 200;
/// Tables per data set.
const TABLES_PG: u32 = 2;

/// `prepare|run|cleanup` flags of the data set `db` on `url`, keys in `base`.
fn data_args<'a>(cmd: &'a str, url: &'a str, base: &'a Path, db: &'a str) -> Vec<String> {
    pg_args(cmd, Some(url), base, db, (TABLES_PG, SIZE))
}

/// `oltp run` of `workload` for 1 s at 2 threads on plaintext and AEAD tables;
/// returns the JSON report.
fn run_json(url: &str, base: &Path, db: &str, workload: &str, extra: &[&str]) -> serde_json::Value {
    let json = base.join(format!("{workload}.json"));
    let mut args = data_args("run", url, base, db);
    args.extend(strings(&[
        "--workload",
        workload,
        "--encrypt",
        &format!("none,{AEAD}"),
        "--threads",
        "2",
        // 3 s, not 1: two oltp_read_write threads on 200-row tables can
        // deadlock, and PostgreSQL finds a deadlock after deadlock_timeout
        // (1 s), which stalled a whole 1 s window (0 transactions, 1 error).
        "--time",
        "3",
        "--output",
        "json",
        "--json-out",
        utf8(&json),
    ]));
    args.extend(strings(extra));
    let ok = runtime().block_on(cli(&args));
    assert_eq!(ok, Ok(true), "oltp run {workload}");
    read_json(&json)
}

#[test]
fn prepare_run_and_cleanup_on_postgresql() {
    let s = shared_pg();
    let base = pg_tempdir();
    let db = "pgcmd";
    let url = s.url();
    let mut prepare = data_args("prepare", url, base.path(), db);
    prepare.extend(strings(&["--encrypt", &format!("none,{AEAD}")]));
    assert_eq!(runtime().block_on(cli(&prepare)), Ok(true), "prepare");
    // A second prepare refuses, naming the cleanup command with the pgsql flags.
    let e = runtime()
        .block_on(cli(&prepare))
        .expect_err("prepared twice");
    assert!(
        e.contains("already holds sbtest tables")
            && e.contains("--db-driver pgsql --pgsql-db pgcmd"),
        "{e}"
    );
    assert!(!e.contains('\n'), "one line: {e}");
    runtime().block_on(async {
        let rows = pg_scalar(url, Some("pgcmd_aes_256_gcm"), "SELECT COUNT(*) FROM sbtest2").await;
        assert_eq!(rows, Some(SIZE.to_string()));
        let c_type = pg_scalar(
            url,
            Some("pgcmd_aes_256_gcm"),
            "SELECT data_type::text FROM information_schema.columns WHERE table_name = 'sbtest1' AND column_name = 'c'",
        )
        .await;
        assert_eq!(c_type.as_deref(), Some("bytea"), "envelopes in bytea");
        let state = pg_scalar(url, Some(db), "SELECT value FROM encbench_meta WHERE name = 'state'").await;
        assert_eq!(state.as_deref(), Some("done"));
    });
    for workload in ["oltp_read_only", "oltp_read_write"] {
        let report = run_json(url, base.path(), db, workload, &[]);
        assert_eq!(report["complete"], true, "{workload}");
        let runs = report["runs"].as_array().expect("runs");
        assert_eq!(runs.len(), 2, "{workload}: plaintext and {AEAD}");
        for run in runs {
            assert_eq!(run["engine"], "postgresql", "{workload}");
            assert_eq!(run["complete"], true, "{workload}");
            assert!(u(&run["transactions"]) > 0, "{workload}: {run}");
            assert_eq!(run["decrypt_errors"], 0, "{workload}");
            assert!(
                run["server_version"]
                    .as_str()
                    .is_some_and(|v| v.starts_with("PostgreSQL ")),
                "{}",
                run["server_version"]
            );
            assert!(
                run["server_settings"]["shared_buffers"].is_string(),
                "{run}"
            );
            if workload == "oltp_read_only" {
                // Reads only: nothing to conflict on.
                assert_eq!(run["errors"], 0, "{workload}");
            }
            // A statement the server refused would have stopped the run; the
            // ignorable ones (deadlock, serialization failure, duplicate key)
            // are counted in `errors` and the event restarted.
        }
        let dbs: Vec<&str> = runs
            .iter()
            .map(|r| r["database"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(dbs, ["pgcmd", "pgcmd_aes_256_gcm"], "{workload}");
    }
    // cleanup drops the encrypted database and the plaintext tables.
    let cleanup = data_args("cleanup", url, base.path(), db);
    assert_eq!(runtime().block_on(cli(&cleanup)), Ok(true), "cleanup");
    runtime().block_on(async {
        let enc = pg_scalar(
            url,
            None,
            "SELECT datname::text FROM pg_database WHERE datname = 'pgcmd_aes_256_gcm'",
        )
        .await;
        assert_eq!(enc, None, "the encrypted database is dropped");
        let left = pg_scalar(
            url,
            Some(db),
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND (table_name LIKE 'sbtest%' OR table_name = 'encbench_meta')",
        )
        .await;
        assert_eq!(left.as_deref(), Some("0"), "plaintext tables dropped");
    });
    // And run now refuses, naming prepare.
    let mut run = data_args("run", url, base.path(), db);
    run.extend(strings(&["--time", "1"]));
    let e = runtime()
        .block_on(cli(&run))
        .expect_err("run after cleanup");
    assert!(
        e.contains("pgcmd.sbtest1 not found")
            && e.contains("oltp prepare --tables 2 --table-size 200 --encrypt none --db-driver pgsql --pgsql-db pgcmd"),
        "{e}"
    );
    assert!(!e.contains('\n'), "one line: {e}");
}

#[test]
fn run_before_prepare_names_prepare() {
    let s = shared_pg();
    let base = pg_tempdir();
    let mut run = data_args("run", s.url(), base.path(), "pgnever");
    run.extend(strings(&["--encrypt", AEAD, "--time", "1"]));
    let e = runtime().block_on(cli(&run)).expect_err("nothing prepared");
    assert!(
        e.contains("pgnever_aes_256_gcm.sbtest1 not found: run `oltp prepare")
            && e.contains("--db-driver pgsql --pgsql-db pgnever"),
        "{e}"
    );
    assert!(!e.contains('\n'), "one line: {e}");
}

#[test]
fn flags_of_the_other_driver_and_unbuilt_modes_are_refused() {
    let dir = pg_tempdir();
    let b = utf8(dir.path());
    let pg_url = "postgres://u:secret@127.0.0.1:1/postgres";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "run",
                "--db-driver",
                "pgsql",
                "--pgsql-url",
                "mysql://u:secret@127.0.0.1:1",
            ],
            "--pgsql-url is a mysql:// URL: give postgres://USER@HOST:PORT/DB, the password in --password-file F or $PGPASSWORD",
        ),
        (
            vec!["prepare", "--mysql-url", pg_url],
            "--mysql-url is a postgres:// URL, a PostgreSQL server: use --db-driver pgsql --pgsql-url URL",
        ),
        (
            vec!["run", "--db-driver", "mysql", "--pgsql-url", pg_url],
            "--pgsql-url is for --db-driver pgsql, not --db-driver mysql",
        ),
        (
            vec!["cleanup", "--pgsql-db", "x"],
            "--pgsql-db is for --db-driver pgsql",
        ),
        (
            vec!["prepare", "--db-driver", "pgsql", "--mysql-db", "x"],
            "--mysql-db is for --db-driver mysql: with --db-driver pgsql use --pgsql-db",
        ),
        (
            vec![
                "run",
                "--db-driver",
                "pgsql",
                "--mysql-url",
                "mysql://u:secret@h:1",
            ],
            "--mysql-url is for --db-driver mysql",
        ),
        (
            vec![
                "run",
                "--db-driver",
                "pgsql",
                "--pgsql-url",
                "postgres://u:secret@127.0.0.1:1/postgres?sslmode=disable",
            ],
            "--pgsql-url has sslmode=: oltp sets TLS with --tls",
        ),
        (
            vec!["run", "--db-driver", "pgsql", "--at-rest"],
            "--at-rest innodb: innodb is MariaDB's InnoDB encryption and PostgreSQL has no built-in TDE",
        ),
        (
            vec!["prepare", "--db-driver", "pgsql", "--pgsql-db", "Mixed"],
            "--pgsql-db \"Mixed\": use lower case",
        ),
    ];
    for (args, want) in cases {
        let mut args = strings(&args);
        args.extend(strings(&["--base-dir", b]));
        let e = runtime().block_on(cli(&args)).expect_err("refused");
        assert!(e.contains(want), "{args:?}: {e}");
        assert!(!e.contains('\n'), "one line: {e}");
        assert!(!e.contains("secret"), "no password: {e}");
    }
    // Nothing was started or created for any of them.
    assert!(
        !dir.path().join("postgresql").exists() && !dir.path().join("mariadb").exists(),
        "nothing created in the base directory"
    );
}

#[test]
fn oltp_insert_leaves_the_id_to_serial() {
    let s = shared_pg();
    // The shared server's own base directory: its URL names the private
    // server there, whose CPU is then measured.
    let base = s.dir();
    let (url, db) = (s.url(), "pgins");
    let prepare = data_args("prepare", url, base, db);
    assert_eq!(runtime().block_on(cli(&prepare)), Ok(true), "prepare");
    let count = |t: u32| async move {
        pg_scalar(url, Some(db), &format!("SELECT COUNT(*) FROM sbtest{t}"))
            .await
            .and_then(|n| n.parse::<u64>().ok())
            .expect("count")
    };
    let before = runtime().block_on(async { count(1).await + count(2).await });
    let json = base.join("insert.json");
    let mut run = data_args("run", url, base, db);
    run.extend(strings(&[
        "--workload",
        "oltp_insert",
        "--threads",
        "2",
        "--time",
        "1",
        "--json-out",
        utf8(&json),
    ]));
    assert_eq!(runtime().block_on(cli(&run)), Ok(true), "run oltp_insert");
    let report = read_json(&json);
    let r = &report["runs"][0];
    let inserted = u(&r["transactions"]);
    assert!(inserted > 0, "{r}");
    // An explicit id 0 (MySQL's form) would collide from the second insert on:
    // duplicate keys, counted as ignored errors.
    assert_eq!(r["errors"], 0, "{r}");
    assert!(r["server_cpu_s"].is_number(), "the postmaster's CPU: {r}");
    assert_eq!(r["server_cpu_unavailable"], serde_json::Value::Null, "{r}");
    let after = runtime().block_on(async { count(1).await + count(2).await });
    assert!(
        after - before >= inserted,
        "{before} + {inserted} > {after}"
    );
    let max_id = runtime().block_on(pg_scalar(url, Some(db), "SELECT MAX(id) FROM sbtest1"));
    let max_id: u32 = max_id.and_then(|v| v.parse().ok()).expect("max id");
    assert!(
        max_id >= SIZE,
        "ids come from the sequence past the loaded ones"
    );
}

#[test]
fn stock_sysbench_runs_on_oltp_prepared_tables() {
    let s = shared_pg();
    let base = pg_tempdir();
    let db = "pgsb";
    let prepare = data_args("prepare", s.url(), base.path(), db);
    assert_eq!(runtime().block_on(cli(&prepare)), Ok(true), "prepare");
    let out = stock_sysbench_pgsql(
        s,
        db,
        &[
            &format!("--tables={TABLES_PG}"),
            &format!("--table-size={SIZE}"),
            "--threads=2",
            "--time=1",
            "oltp_read_only",
            "run",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "sysbench run: {stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let transactions: u64 = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("transactions:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no transactions line: {stdout}"));
    assert!(transactions > 0, "{stdout}");
    let ignored: u64 = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("ignored errors:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no ignored errors line: {stdout}"));
    assert_eq!(ignored, 0, "{stdout}");
}

#[test]
fn without_a_url_the_private_postgresql_serves_and_the_last_command_stops_it() {
    let dir = pg_tempdir();
    let b = utf8(dir.path());
    let sized = |cmd: &str| {
        strings(&[
            cmd,
            "--db-driver",
            "pgsql",
            "--base-dir",
            b,
            "--tables",
            "1",
            "--table-size",
            "100",
        ])
    };
    assert_eq!(
        runtime().block_on(cli(&sized("prepare"))),
        Ok(true),
        "prepare"
    );
    assert!(
        PgServer::running(dir.path()).expect("look").is_none(),
        "the server prepare started stops with it"
    );
    // Kept by `oltp server start`: a run leaves it running.
    let start = strings(&["server", "start", "--db-driver", "pgsql", "--base-dir", b]);
    assert_eq!(runtime().block_on(cli(&start)), Ok(true), "server start");
    let pid = PgServer::running(dir.path())
        .expect("look")
        .expect("running")
        .pid();
    let mut run = sized("run");
    run.extend(strings(&["--time", "1"]));
    assert_eq!(runtime().block_on(cli(&run)), Ok(true), "run");
    let still = PgServer::running(dir.path()).expect("look").expect("kept");
    assert_eq!(still.pid(), pid, "the same server, not restarted");
    still.detach();
    let stop = strings(&["server", "stop", "--db-driver", "pgsql", "--base-dir", b]);
    assert_eq!(runtime().block_on(cli(&stop)), Ok(true), "server stop");
    assert!(PgServer::running(dir.path()).expect("look").is_none());
    // cleanup starts it again for itself, and stops it.
    assert_eq!(
        runtime().block_on(cli(&sized("cleanup"))),
        Ok(true),
        "cleanup"
    );
    assert!(PgServer::running(dir.path()).expect("look").is_none());
}
