//! Interop with the real sysbench 1.0 (Debian package `sysbench`, installed by
//! `scripts/lib.sh`): tables prepared by sysbench run under `oltp`, and tables
//! prepared by `oltp` run under sysbench, on one private MariaDB server.
//! sysbench missing fails the test (it never skips).

use std::process::Command;

use clap::Parser;
use encbench_oltp::cli::Cli;
use encbench_oltp::commands::execute;
use encbench_oltp::driver::ConnectOptions;
use encbench_oltp::driver::mysql::mysql_opts;
use encbench_oltp::server::{BENCH_PASSWORD, BENCH_USER, PrivateServer, ServerConfig};
use mysql_async::prelude::*;
use serde_json::Value;

/// Runs sysbench `script` `command` against the server's `db`; its stdout.
fn sysbench(port: u16, db: &str, script: &str, command: &str, extra: &[&str]) -> String {
    let out = Command::new("sysbench")
        .arg(script)
        .args([
            "--db-driver=mysql",
            "--mysql-host=127.0.0.1",
            &format!("--mysql-port={port}"),
            &format!("--mysql-user={BENCH_USER}"),
            &format!("--mysql-password={BENCH_PASSWORD}"),
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

async fn oltp(args: &[&str]) -> Result<bool, String> {
    let cli = Cli::try_parse_from(std::iter::once("oltp").chain(args.iter().copied()))
        .map_err(|e| e.to_string())?;
    execute(cli).await.map_err(|e| format!("{e:#}"))
}

#[test]
fn sysbench_tables_run_under_oltp_and_oltp_tables_run_under_sysbench() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = PrivateServer::start(&ServerConfig::new(dir.path()))
        .unwrap_or_else(|e| panic!("private MariaDB server must start: {e}"));
    let (url, port) = (server.url(), server.port());
    let base = dir.path().join("home");
    let base = base.to_str().expect("utf-8");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let mut conn =
            mysql_async::Conn::new(mysql_opts(&ConnectOptions::new(&url)).expect("opts"))
                .await
                .expect("conn");
        conn.query_drop("CREATE DATABASE sbfromsysbench")
            .await
            .expect("create db");
        conn.disconnect().await.expect("disconnect");
    });

    // 1. sysbench prepares, oltp runs every workload on its tables.
    sysbench(port, "sbfromsysbench", "oltp_read_write", "prepare", &[]);
    let json = dir.path().join("r.json");
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
            let r = oltp(&[
                "run",
                "--mysql-url",
                &url,
                "--base-dir",
                base,
                "--mysql-db",
                "sbfromsysbench",
                "--tables",
                "2",
                "--table-size",
                "1000",
                "--workload",
                workload,
                "--events",
                "30",
                "--time",
                "0",
                "--threads",
                "2",
                "--json-out",
                json.to_str().expect("utf-8"),
                "--output",
                "json",
            ])
            .await;
            assert_eq!(r, Ok(true), "oltp {workload} on sysbench's tables");
            let report: Value =
                serde_json::from_slice(&std::fs::read(&json).expect("json")).expect("json");
            let run = &report["runs"][0];
            assert_eq!(run["transactions"], 30, "{workload}: {run}");
            assert!(run["queries"]["total"].as_u64().expect("total") >= 30);
        }
    });

    // 2. oltp prepares, sysbench runs on its tables (the same schema and data
    // shapes: sysbench's read_write checks nothing, but fails on any SQL error).
    rt.block_on(async {
        let r = oltp(&[
            "prepare",
            "--mysql-url",
            &url,
            "--base-dir",
            base,
            "--mysql-db",
            "sbfromoltp",
            "--tables",
            "2",
            "--table-size",
            "1000",
            "--threads",
            "2",
        ])
        .await;
        assert_eq!(r, Ok(true), "oltp prepare");
    });
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
    // sysbench's cleanup drops oltp's tables; oltp then finds them missing.
    sysbench(port, "sbfromoltp", "oltp_read_only", "cleanup", &[]);
    rt.block_on(async {
        let e = oltp(&[
            "run",
            "--mysql-url",
            &url,
            "--base-dir",
            base,
            "--mysql-db",
            "sbfromoltp",
            "--tables",
            "2",
            "--table-size",
            "1000",
            "--time",
            "1",
        ])
        .await
        .expect_err("tables are gone");
        assert!(e.contains("oltp prepare"), "{e}");
    });
    server.stop().expect("stop");
}
