//! End-to-end tests of `oltp` against a real private MariaDB server started by
//! the project's own launcher (no mocks). Each test gets its own server in a
//! temporary directory. A server that cannot start fails the test (never skips).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use clap::Parser;
use encbench_oltp::cli::Cli;
use encbench_oltp::columns::keys::load_cipher;
use encbench_oltp::columns::{Codec, Encrypt};
use encbench_oltp::commands::execute;
use encbench_oltp::driver::ConnectOptions;
use encbench_oltp::driver::mysql::mysql_opts;
use encbench_oltp::schema::DataSet;
use encbench_oltp::server::{PrivateServer, ServerConfig};
use encbench_oltp::workload::{Params, RangeKind, Session, Workload};
use mysql_async::prelude::*;

const TABLES: u32 = 2;
const ROWS: u32 = 1000;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

fn start_server(dir: &Path) -> PrivateServer {
    PrivateServer::start(&ServerConfig::new(dir))
        .unwrap_or_else(|e| panic!("private MariaDB server must start: {e}"))
}

/// Runs the CLI in-process with `args`; returns Ok(complete) or the error text.
async fn cli(args: &[&str]) -> Result<bool, String> {
    let cli = Cli::try_parse_from(std::iter::once("oltp").chain(args.iter().copied()))
        .map_err(|e| e.to_string())?;
    execute(cli).await.map_err(|e| format!("{e:#}"))
}

fn oltp_bin(base: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_oltp"))
        .args(args)
        .env("ENCBENCH_HOME", base)
        .output()
        .expect("run the oltp binary")
}

async fn prepare(url: &str, base: &Path, encrypt: &str) {
    let base = base.to_str().expect("utf-8 path");
    let tables = TABLES.to_string();
    let rows = ROWS.to_string();
    let r = cli(&[
        "prepare",
        "--mysql-url",
        url,
        "--base-dir",
        base,
        "--tables",
        &tables,
        "--table-size",
        &rows,
        "--threads",
        "2",
        "--encrypt",
        encrypt,
    ])
    .await;
    assert_eq!(r, Ok(true), "prepare {encrypt}");
}

async fn session(url: &str, base: &Path, encrypt: Encrypt) -> Session {
    let data = DataSet {
        db: "sbtest".into(),
        tables: TABLES,
        table_size: ROWS,
        columns: Default::default(),
    };
    let codec = match load_cipher(encrypt, None, base).expect("key file") {
        None => Codec::plaintext(),
        Some(c) => Codec::encrypted(c),
    };
    let opts = ConnectOptions::new(url).database(data.database(encrypt));
    Session::connect(
        opts,
        Workload::OltpReadOnly,
        codec,
        Params::new(TABLES, ROWS),
    )
    .await
    .expect("session")
}

#[test]
fn encrypted_results_equal_plaintext_and_runs_report_sysbench_counts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start_server(dir.path());
    let url = server.url();
    let base = dir.path().join("home");
    runtime().block_on(async {
        prepare(&url, &base, "none,rustcrypto:aes-256-gcm,openssl:chacha20-poly1305").await;

        // The stored values really are envelopes: 119 + 33 bytes, not the plaintext.
        let mut conn = mysql_async::Conn::new(mysql_opts(&ConnectOptions::new(&url)).expect("opts")).await.expect("conn");
        let (plain_c, enc_c): (Vec<u8>, Vec<u8>) = conn
            .query_first("SELECT p.c, e.c FROM sbtest.sbtest1 p JOIN sbtest_aes_256_gcm.sbtest1 e USING (id) WHERE id = 7")
            .await
            .expect("query")
            .expect("row 7");
        assert_eq!(plain_c.len(), 119);
        assert_eq!(enc_c.len(), 119 + 33);
        assert!(!enc_c.windows(11).any(|w| plain_c.starts_with(w)), "ciphertext must not contain the plaintext");
        conn.disconnect().await.expect("disconnect");

        let mut plain = session(&url, &base, Encrypt::parse("none").expect("none")).await;
        for choice in ["rustcrypto:aes-256-gcm", "openssl:aes-256-gcm", "ring:aes-256-gcm", "aws-lc-rs:aes-256-gcm", "openssl:chacha20-poly1305", "rustcrypto:chacha20-poly1305", "ring:chacha20-poly1305", "aws-lc-rs:chacha20-poly1305"] {
            let mut enc = session(&url, &base, Encrypt::parse(choice).expect("name")).await;
            for table in 1..=TABLES {
                for id in [1, 2, 500, 999, 1000, 1001] {
                    let a = plain.point_select(table, id).await.expect("plain point").to_vec();
                    let b = enc.point_select(table, id).await.expect("enc point").to_vec();
                    assert_eq!(a, b, "{choice} point select table {table} id {id}");
                    assert_eq!(a.len(), usize::from(id <= ROWS));
                }
                // Ranges inside, across the end of, and beyond the table.
                for (lo, hi) in [(1, 100), (450, 549), (950, 1049), (2000, 2099)] {
                    for kind in [RangeKind::Simple, RangeKind::Order, RangeKind::Distinct] {
                        let a = plain.range(kind, table, lo, hi).await.expect("plain range").to_vec();
                        let b = enc.range(kind, table, lo, hi).await.expect("enc range").to_vec();
                        assert_eq!(a, b, "{choice} {kind:?} table {table} [{lo},{hi}]");
                        if kind != RangeKind::Simple {
                            assert!(a.windows(2).all(|w| w[0] <= w[1]), "ORDER BY c must sort");
                        }
                    }
                    assert_eq!(
                        plain.sum_range(table, lo, hi).await.expect("sum"),
                        enc.sum_range(table, lo, hi).await.expect("sum"),
                    );
                }
            }
            enc.close().await;
        }
        plain.close().await;

        // 2 s of read_only per mode, through the CLI, JSON written.
        // The directory of --json-out must exist (oltp refuses to create it).
        let json = dir.path().join("out/result.json");
        std::fs::create_dir(dir.path().join("out")).expect("create out/");
        let base_s = base.to_str().expect("utf-8");
        let r = cli(&[
            "run", "--mysql-url", &url, "--base-dir", base_s, "--tables", "2", "--table-size", "1000", "--time", "2",
            "--threads", "1,2", "--encrypt", "none,rustcrypto:aes-256-gcm,openssl:aes-256-gcm", "--output", "json",
            "--json-out", json.to_str().expect("utf-8"),
        ])
        .await;
        assert_eq!(r, Ok(true));
        let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).expect("json file")).expect("valid json");
        assert_eq!(report["complete"], true);
        let runs = report["runs"].as_array().expect("runs");
        assert_eq!(runs.len(), 6, "2 thread counts x 3 choices");
        for run in runs {
            assert_eq!(run["workload"], "oltp_read_only");
            let tx = run["transactions"].as_u64().expect("transactions");
            assert!(tx > 10, "a 2 s run completes transactions: {run}");
            // sysbench's counting: 14 reads and 2 others (BEGIN, COMMIT) per event.
            assert_eq!(run["queries"]["read"].as_u64(), Some(14 * tx));
            assert_eq!(run["queries"]["other"].as_u64(), Some(2 * tx));
            assert_eq!(run["queries"]["write"].as_u64(), Some(0));
            assert_eq!(run["queries"]["total"].as_u64(), Some(16 * tx));
            let l = &run["latency_ms"];
            let (min, p95, max, avg) = (l["min"].as_f64(), l["p95"].as_f64(), l["max"].as_f64(), l["avg"].as_f64());
            let (min, p95, max, avg) = (min.expect("min"), p95.expect("p95"), max.expect("max"), avg.expect("avg"));
            assert!(min > 0.0 && min <= avg && avg <= max && min <= p95 && p95 <= max, "{l}");
            let qps = run["qps"].as_f64().expect("qps");
            let tps = run["tps"].as_f64().expect("tps");
            assert!((qps / tps - 16.0).abs() < 1e-6);
            assert_eq!(run["errors"], 0);
            assert_eq!(run["reconnects"], 0);
            assert!(run["time_s"].as_f64().expect("time") >= 2.0);
        }
        assert_eq!(report["comparison"].as_array().expect("comparison").len(), 4);
    });
    server.stop().expect("stop");
}

#[test]
fn bad_input_gives_one_line_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path();
    // No server needed: names are checked before anything starts.
    for (args, needle) in [
        (
            vec!["run", "--encrypt", "nosuch:aes-256-gcm"],
            "valid names",
        ),
        (
            vec!["run", "--encrypt", "openssl:aes-999-gcm"],
            "openssl:aes-256-gcm",
        ),
        (vec!["prepare", "--encrypt", "rot13"], "BACKEND:ALGORITHM"),
        (vec!["run", "--threads", "0"], "--threads"),
        (vec!["run", "--workload", "oltp_nothing"], "oltp_read_only"),
        (vec!["run", "--mysql-url", "http://x"], "--mysql-url"),
        (
            vec!["prepare", "--mysql-db", "y`; drop database victim; --"],
            "--mysql-db",
        ),
        (vec!["run", "--mysql-db", "mysql"], "server's own database"),
        (
            vec!["run", "--json-out", "/proc/nonexistent/x.json"],
            "--json-out",
        ),
        (
            vec!["run", "--mysql-url", "mysql://encbench:pw@127.0.0.1:1/"],
            "cannot connect",
        ),
    ] {
        let out = oltp_bin(base, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} must fail");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    }
}

#[test]
fn run_before_prepare_wrong_keys_and_limits_are_clear_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start_server(dir.path());
    let url = server.url();
    let base = dir.path().join("home");
    let base_s = base.to_str().expect("utf-8").to_string();
    runtime().block_on(async {
        let run = |extra: Vec<String>| {
            let mut args: Vec<String> = [
                "run",
                "--mysql-url",
                &url,
                "--base-dir",
                &base_s,
                "--tables",
                "2",
                "--table-size",
                "1000",
                "--time",
                "1",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            args.extend(extra);
            async move {
                let refs: Vec<&str> = args.iter().map(String::as_str).collect();
                cli(&refs).await
            }
        };
        let e = run(vec![]).await.expect_err("run before prepare");
        assert!(e.contains("oltp prepare"), "{e}");
        let e = run(vec!["--encrypt".into(), "openssl:aes-256-gcm".into()])
            .await
            .expect_err("encrypted before prepare");
        assert!(e.contains("oltp prepare"), "{e}");

        prepare(&url, &base, "openssl:aes-256-gcm").await;
        let e = cli(&[
            "run",
            "--mysql-url",
            &url,
            "--base-dir",
            &base_s,
            "--tables",
            "2",
            "--table-size",
            "2000",
            "--encrypt",
            "openssl:aes-256-gcm",
        ])
        .await
        .expect_err("table size differs from prepare");
        assert!(e.contains("--table-size 1000"), "{e}");
        let e = cli(&[
            "prepare",
            "--mysql-url",
            &url,
            "--base-dir",
            &base_s,
            "--tables",
            "2",
            "--table-size",
            "1000",
            "--encrypt",
            "openssl:aes-256-gcm",
        ])
        .await
        .expect_err("second prepare");
        assert!(e.contains("cleanup"), "{e}");

        // Wrong key files, each refused before the run with the key id or the fix named:
        // (file contents, backend, what the error must say).
        let other = dir.path().join("other.keys");
        let wrong_keys = [
            // Key id 1 is not in this file.
            (
                format!("2;{}\n", "11".repeat(32)),
                "rustcrypto:aes-256-gcm",
                vec!["key id 1"],
            ),
            // Same key id, other key bytes: decryption fails, naming the key id and row.
            (
                format!("1;{}\n", "22".repeat(32)),
                "rustcrypto:aes-256-gcm",
                vec!["decryption failed under key id 1", "sbtest1"],
            ),
            // Wrong key length.
            (
                "1;00ff\n".to_string(),
                "openssl:aes-256-gcm",
                vec!["needs 32"],
            ),
        ];
        for (contents, encrypt, needles) in wrong_keys {
            std::fs::write(&other, &contents).expect("write");
            let e = run(vec![
                "--encrypt".into(),
                encrypt.into(),
                "--key-file".into(),
                other.display().to_string(),
            ])
            .await
            .expect_err("wrong key file");
            assert!(needles.iter().all(|n| e.contains(n)), "{contents}: {e}");
        }

        // Too many prepared statements for the server: refused before the run.
        let mut conn =
            mysql_async::Conn::new(mysql_opts(&ConnectOptions::new(&url)).expect("opts"))
                .await
                .expect("conn");
        conn.query_drop("SET GLOBAL max_prepared_stmt_count = 15")
            .await
            .expect("set");
        let e = run(vec![
            "--encrypt".into(),
            "openssl:aes-256-gcm".into(),
            "--threads".into(),
            "2".into(),
        ])
        .await
        .expect_err("statement budget");
        assert!(e.contains("max_prepared_stmt_count"), "{e}");
        conn.query_drop("SET GLOBAL max_prepared_stmt_count = 16382")
            .await
            .expect("set");
        conn.disconnect().await.expect("disconnect");

        // Wrong password.
        let bad = url.replacen(":encbench@", ":wrong@", 1);
        assert_ne!(bad, url, "url carries the password: {url}");
        let e = cli(&["run", "--mysql-url", &bad, "--base-dir", &base_s])
            .await
            .expect_err("wrong password");
        assert!(
            e.contains("cannot connect") && e.contains("Access denied"),
            "{e}"
        );

        // And the real thing works with the right key.
        assert_eq!(
            run(vec!["--encrypt".into(), "openssl:aes-256-gcm".into()]).await,
            Ok(true)
        );
    });
    server.stop().expect("stop");
}

#[test]
fn server_killed_mid_run_ends_with_partial_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start_server(dir.path());
    let url = server.url();
    let base = dir.path().join("home");
    let rt = runtime();
    rt.block_on(prepare(&url, &base, "none"));
    let opts = encbench_oltp::config::RunConfig {
        url: url.clone(),
        data: DataSet {
            db: "sbtest".into(),
            tables: TABLES,
            table_size: ROWS,
            columns: Default::default(),
        },
        workload: encbench_oltp::workload::Workload::OltpReadOnly,
        threads: vec![2],
        encrypts: vec![Encrypt::None],
        time: Duration::from_secs(30),
        events: 0,
        rate: 0.0,
        warmup: Duration::ZERO,
        report_interval: Duration::ZERO,
        intervals_to_stderr: true,
        options: encbench_oltp::workload::Options::default(),
        rand_type: encbench_oltp::rand::RandType::Special,
        rand_seed: 0,
        tls: vec![false],
        tls_ca: None,
        at_rest: false,
        repeat: 1,
        key_file: None,
        base_dir: base.clone(),
        progress: false,
        reconnect_window: Duration::from_secs(2),
    };
    let started = std::time::Instant::now();
    let results = rt.block_on(async {
        let run = tokio::spawn(async move {
            encbench_oltp::run::run_grid(&opts, std::sync::Arc::new(encbench_oltp::run::Silent))
                .await
        });
        tokio::time::sleep(Duration::from_secs(2)).await;
        server.kill().expect("kill server");
        tokio::time::timeout(Duration::from_secs(20), run)
            .await
            .expect("run must end soon after the server dies")
            .expect("task")
            .expect("grid")
    });
    assert!(started.elapsed() < Duration::from_secs(25));
    assert_eq!(results.len(), 1);
    let r = &results[0];
    assert!(!r.complete, "a run whose server died is not complete");
    assert!(r.error.as_deref().is_some_and(|e| !e.is_empty()));
    assert!(
        r.transactions > 0,
        "the events before the kill are reported"
    );
}
