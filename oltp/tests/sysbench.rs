//! Interop with the real sysbench 1.0 (Debian package `sysbench`, installed by
//! `scripts/lib.sh`): tables prepared by sysbench run under `oltp`, and tables
//! prepared by `oltp` run under sysbench, on one private MariaDB server shared
//! by the tests of this file (each test its own database).
//! sysbench missing fails the test (it never skips).

use std::process::Command;

use encbench_oltp::server::BENCH_USER;
use mysql_async::prelude::*;

#[allow(dead_code)] // each test binary uses a subset of the helpers
mod common;
use common::{args, cli, conn, read_json, runtime, shared_server, utf8};

/// Runs sysbench `script` `command` against the shared server's `db` on `port`, with the
/// benchmark user's password read as a script would (`<base>/mariadb/password`, as the
/// README says); its stdout.
fn sysbench(port: u16, db: &str, script: &str, command: &str, extra: &[&str]) -> String {
    let file = common::default_server().dir().join("mariadb/password");
    let password =
        std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let password = password.trim();
    let out = Command::new("sysbench")
        .arg(script)
        .args([
            "--db-driver=mysql",
            "--mysql-host=127.0.0.1",
            &format!("--mysql-port={port}"),
            &format!("--mysql-user={BENCH_USER}"),
            &format!("--mysql-password={password}"),
            &format!("--mysql-db={db}"),
            "--tables=2",
            "--table-size=1000",
        ])
        .args(extra)
        .arg(command)
        .output()
        .unwrap_or_else(|e| panic!("sysbench must be installed (apt-get install sysbench): {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "sysbench {script} {command} on {db} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The number after `label` in sysbench's report (e.g. "transactions:").
fn sysbench_figure(report: &str, label: &str) -> u64 {
    report
        .lines()
        .find_map(|l| l.trim().strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {label} in sysbench's report:\n{report}"))
}

/// `oltp prepare` of 2 plaintext tables of 1000 rows into `db`.
async fn oltp_prepare(url: &str, base: &str, db: &str) {
    let r = cli(&args("prepare", url, base, db, &["--threads", "2"])).await;
    assert_eq!(r, Ok(true), "oltp prepare");
}

#[test]
fn oltp_runs_every_workload_on_tables_sysbench_prepared() {
    let t = shared_server();
    let (url, port) = (t.url.clone(), t.shared.server().port());
    let base = t.base();
    let base = utf8(&base);
    let rt = runtime();
    rt.block_on(async {
        let mut conn = conn(&url, None).await;
        conn.query_drop("CREATE DATABASE sbfromsysbench")
            .await
            .expect("create db");
        conn.disconnect().await.expect("disconnect");
    });

    sysbench(port, "sbfromsysbench", "oltp_read_write", "prepare", &[]);
    let json = t.file("r.json");
    rt.block_on(async {
        for workload in [
            "oltp_read_only",
            "oltp_point_select",
            "oltp_read_write",
            "oltp_write_only",
            "oltp_update_index",
            "oltp_update_non_index",
            "oltp_delete",
            "oltp_insert",
            "select_random_points",
        ] {
            let flags = [
                "--workload",
                workload,
                "--events",
                "30",
                "--time",
                "0",
                "--threads",
                "2",
                "--json-out",
                utf8(&json),
                "--output",
                "json",
            ];
            let r = cli(&args("run", &url, base, "sbfromsysbench", &flags)).await;
            assert_eq!(r, Ok(true), "oltp {workload} on sysbench's tables");
            let report = read_json(&json);
            let run = &report["runs"][0];
            assert_eq!(run["transactions"], 30, "{workload}: {run}");
            assert!(run["queries"]["total"].as_u64().expect("total") >= 30);
        }
    });
}

/// oltp prepares, sysbench runs on its tables (the same schema and data
/// shapes: sysbench's read_write checks nothing, but fails on any SQL error).
#[test]
fn sysbench_runs_on_tables_oltp_prepared_and_counts_what_oltp_counts() {
    let t = shared_server();
    let (url, port) = (t.url.clone(), t.shared.server().port());
    let base = t.base();
    runtime().block_on(oltp_prepare(&url, utf8(&base), "sbfromoltp"));
    for script in [
        "oltp_read_only",
        "oltp_read_write",
        "oltp_delete",
        "oltp_insert",
    ] {
        let report = sysbench(
            port,
            "sbfromoltp",
            script,
            "run",
            &["--events=50", "--time=0"],
        );
        assert_eq!(
            sysbench_figure(&report, "transactions:"),
            50,
            "{script}:\n{report}"
        );
        assert_eq!(
            sysbench_figure(&report, "ignored errors:"),
            0,
            "{script}:\n{report}"
        );
    }
    // select_random_points: one read per event in both tools.
    let report = sysbench(
        port,
        "sbfromoltp",
        "select_random_points",
        "run",
        &["--events=50", "--time=0"],
    );
    assert_eq!(sysbench_figure(&report, "read:"), 50, "{report}");
    // sysbench's read_only on oltp's tables counts what oltp counts: 14 reads, 2 others.
    let report = sysbench(
        port,
        "sbfromoltp",
        "oltp_read_only",
        "run",
        &["--events=40", "--time=0"],
    );
    assert_eq!(sysbench_figure(&report, "read:"), 14 * 40, "{report}");
    assert_eq!(sysbench_figure(&report, "other:"), 2 * 40, "{report}");
}

#[test]
fn sysbench_cleanup_drops_oltp_tables_and_oltp_then_finds_them_missing() {
    let t = shared_server();
    let (url, port) = (t.url.clone(), t.shared.server().port());
    let base = t.base();
    let base = utf8(&base);
    let rt = runtime();
    rt.block_on(oltp_prepare(&url, base, "sbcleanup"));
    sysbench(port, "sbcleanup", "oltp_read_only", "cleanup", &[]);
    rt.block_on(async {
        let e = cli(&args("run", &url, base, "sbcleanup", &["--time", "1"]))
            .await
            .expect_err("tables are gone");
        assert!(e.contains("oltp prepare"), "{e}");
    });
}
