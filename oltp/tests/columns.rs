//! `--encrypt-columns` and `--deterministic` against a real private MariaDB
//! (no mocks): with `k`, `c` and `pad` encrypted (randomized, or `k`
//! deterministic with AES-SIV), every query a sysbench workload sends returns
//! what the plaintext tables return, including SUM(k) and k=k+1 done in the
//! client; `select_random_points` finds rows by equality on a deterministic `k`;
//! layouts that cannot work are refused with one-line errors.

use std::path::Path;

use clap::Parser;
use encbench_oltp::cli::Cli;
use encbench_oltp::columns::keys::load_codec;
use encbench_oltp::columns::{Columns, Encrypt};
use encbench_oltp::commands::execute;
use encbench_oltp::driver::ConnectOptions;
use encbench_oltp::driver::PsMode;
use encbench_oltp::driver::mysql::mysql_opts;
use encbench_oltp::schema::DataSet;
use encbench_oltp::server::{PrivateServer, ServerConfig};
use encbench_oltp::workload::{Params, PointRow, QueryError, RangeKind, Session, Workload};
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

async fn cli(args: &[&str]) -> Result<bool, String> {
    let cli = Cli::try_parse_from(std::iter::once("oltp").chain(args.iter().copied()))
        .map_err(|e| e.to_string())?;
    execute(cli).await.map_err(|e| format!("{e:#}"))
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// `prepare` of `encrypt` with the layout flags `extra`.
async fn prepare(url: &str, base: &Path, encrypt: &str, extra: &[&str]) {
    let base = base.to_str().expect("utf-8 path");
    let (tables, rows) = (TABLES.to_string(), ROWS.to_string());
    let mut args = vec![
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
    ];
    args.extend_from_slice(extra);
    assert_eq!(cli(&args).await, Ok(true), "prepare {encrypt} {extra:?}");
}

async fn session(
    url: &str,
    base: &Path,
    encrypt: &str,
    columns: Columns,
    workload: Workload,
) -> Session {
    let encrypt = Encrypt::parse(encrypt).expect("name");
    let data = DataSet {
        db: "sbtest".into(),
        tables: TABLES,
        table_size: ROWS,
        columns,
    };
    let codec = load_codec(encrypt, columns, None, base).expect("keys");
    let opts = ConnectOptions::new(url).database(data.database(encrypt));
    Session::connect(opts, workload, codec, Params::new(TABLES, ROWS))
        .await
        .expect("session")
}

fn sorted(mut rows: Vec<PointRow>) -> Vec<PointRow> {
    rows.sort_by_key(|r| r.id);
    rows
}

#[test]
fn every_query_on_encrypted_k_c_pad_returns_the_plaintext_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = PrivateServer::start(&ServerConfig::new(dir.path()))
        .unwrap_or_else(|e| panic!("private MariaDB server must start: {e}"));
    let url = server.url();
    let base = dir.path().join("home");
    let all = Columns::parse(&strings(&["all"]), &strings(&["none"])).expect("all");
    let det_k = Columns::parse(&strings(&["all"]), &strings(&["k"])).expect("det k");
    runtime().block_on(async {
        prepare(&url, &base, "none", &[]).await;
        prepare(&url, &base, "rustcrypto:aes-256-gcm", &["--encrypt-columns", "all"]).await;
        prepare(
            &url,
            &base,
            "rustcrypto:aes-256-siv",
            &["--encrypt-columns", "all", "--deterministic", "k"],
        )
        .await;

        // What is stored: envelopes of the documented sizes, and a deterministic
        // k repeats exactly where the plaintext k repeats.
        let mut conn = mysql_async::Conn::new(mysql_opts(&ConnectOptions::new(&url)).expect("opts"))
            .await
            .expect("conn");
        let lens: Vec<(u64, u64, u64)> = conn
            .query("SELECT DISTINCT LENGTH(k), LENGTH(c), LENGTH(pad) FROM sbtest_aes_256_gcm_kcp.sbtest1")
            .await
            .expect("lengths");
        assert_eq!(lens, vec![(4 + 33, 119 + 33, 59 + 33)]);
        let lens: Vec<(u64, u64)> = conn
            .query("SELECT DISTINCT LENGTH(k), LENGTH(c) FROM sbtest_aes_256_siv_kdcp.sbtest1")
            .await
            .expect("lengths");
        assert_eq!(lens, vec![(4 + 21, 119 + 37)]);
        let dup = |db: &str| {
            format!("SELECT COUNT(*) FROM (SELECT k FROM {db}.sbtest1 GROUP BY k HAVING COUNT(*) > 1) d")
        };
        let plain_dups: Option<u64> = conn.query_first(dup("sbtest")).await.expect("dups");
        let det_dups: Option<u64> = conn
            .query_first(dup("sbtest_aes_256_siv_kdcp"))
            .await
            .expect("dups");
        let rnd_dups: Option<u64> = conn
            .query_first(dup("sbtest_aes_256_gcm_kcp"))
            .await
            .expect("dups");
        assert!(plain_dups.unwrap_or(0) > 10, "1000 draws from 1..=1000 repeat some k");
        assert_eq!(det_dups, plain_dups, "deterministic k must repeat where k repeats");
        assert_eq!(rnd_dups, Some(0), "randomized envelopes never repeat");
        conn.disconnect().await.expect("disconnect");

        let rw = Workload::OltpReadWrite;
        let mut plain = session(&url, &base, "none", Columns::default(), rw).await;
        let mut encs = vec![
            ("rustcrypto:aes-256-gcm all", session(&url, &base, "rustcrypto:aes-256-gcm", all, rw).await),
            ("openssl:aes-256-gcm all", session(&url, &base, "openssl:aes-256-gcm", all, rw).await),
            ("rustcrypto:aes-256-siv det k", session(&url, &base, "rustcrypto:aes-256-siv", det_k, rw).await),
            ("openssl:aes-256-siv det k", session(&url, &base, "openssl:aes-256-siv", det_k, rw).await),
        ];
        let ranges = [(1, 100), (450, 549), (950, 1049), (2000, 2099)];
        for (choice, enc) in &mut encs {
            for table in 1..=TABLES {
                for id in [1, 500, 1000, 1001] {
                    let a = plain.point_select(table, id).await.expect("point").to_vec();
                    let b = enc.point_select(table, id).await.expect("point").to_vec();
                    assert_eq!(a, b, "{choice} point select {table}/{id}");
                }
                for (lo, hi) in ranges {
                    for kind in [RangeKind::Simple, RangeKind::Order, RangeKind::Distinct] {
                        let a = plain.range(kind, table, lo, hi).await.expect("range").to_vec();
                        let b = enc.range(kind, table, lo, hi).await.expect("range").to_vec();
                        assert_eq!(a, b, "{choice} {kind:?} {table} [{lo},{hi}]");
                    }
                    let a = plain.sum_range(table, lo, hi).await.expect("sum");
                    let b = enc.sum_range(table, lo, hi).await.expect("sum");
                    assert_eq!(a, b, "{choice} SUM(k) {table} [{lo},{hi}]");
                }
            }
        }

        // Writes: k=k+1 (read, re-seal, conditional write), delete + insert of a
        // row with a new k, c and pad; then the same reads agree again. The two
        // SIV sessions share one database, so only one of them writes.
        let writers = [0usize, 2];
        for (id, k) in [(5u32, 77u32), (6, 78), (999, 5)] {
            let changed = plain.index_update(1, id).await.expect("k=k+1");
            assert!(changed);
            for &w in &writers {
                let (choice, enc) = &mut encs[w];
                assert!(enc.index_update(1, id).await.expect("k=k+1"), "{choice}");
            }
            let c = [b'1'; 119];
            let pad = [b'2'; 59];
            assert!(plain.delete(2, id).await.expect("delete"));
            assert!(plain.insert(2, id, k, &c, &pad).await.expect("insert"));
            for &w in &writers {
                let (choice, enc) = &mut encs[w];
                assert!(enc.delete(2, id).await.expect("delete"), "{choice}");
                assert!(enc.insert(2, id, k, &c, &pad).await.expect("insert"), "{choice}");
            }
        }
        // An update of a missing row changes nothing, as in sysbench.
        assert!(!plain.index_update(1, 5000).await.expect("missing row"));
        assert!(!encs[0].1.index_update(1, 5000).await.expect("missing row"));
        for (choice, enc) in &mut encs {
            for table in 1..=TABLES {
                for (lo, hi) in [(1, 10), (990, 1000)] {
                    let a = plain.sum_range(table, lo, hi).await.expect("sum");
                    let b = enc.sum_range(table, lo, hi).await.expect("sum");
                    assert_eq!(a, b, "{choice} SUM(k) after writes {table} [{lo},{hi}]");
                    let a = plain.range(RangeKind::Simple, table, lo, hi).await.expect("r").to_vec();
                    let b = enc.range(RangeKind::Simple, table, lo, hi).await.expect("r").to_vec();
                    assert_eq!(a, b, "{choice} rows after writes {table} [{lo},{hi}]");
                }
            }
        }
        plain.close().await;
        for (_, enc) in encs {
            enc.close().await;
        }

        // select_random_points: IN (...) on k finds the same rows through the
        // deterministic envelopes as on plaintext k.
        let srp = Workload::SelectRandomPoints;
        let mut plain = session(&url, &base, "none", Columns::default(), srp).await;
        let mut dets = [
            session(&url, &base, "rustcrypto:aes-256-siv", det_k, srp).await,
            session(&url, &base, "openssl:aes-256-siv", det_k, srp).await,
        ];
        let mut found = 0;
        for probe in [[1u32, 2, 3, 4, 5, 6, 7, 8, 9, 10], [78, 500, 501, 502, 503, 999, 1000, 17, 18, 19]] {
            let a = sorted(plain.random_points(&probe).await.expect("plain points"));
            found += a.len();
            assert!(a.iter().all(|r| probe.contains(&(r.k as u32))));
            for det in &mut dets {
                let b = sorted(det.random_points(&probe).await.expect("det points"));
                assert_eq!(a, b, "select_random_points {probe:?}");
            }
        }
        assert!(found > 5, "the probes should find rows ({found})");
        // The same over the text protocol (--db-ps-mode disable): the probes
        // and envelopes go inline as X'..', integers come back as text.
        let mut text_params = Params::new(TABLES, ROWS);
        text_params.opts.db_ps_mode = PsMode::Disable;
        let encrypt = Encrypt::parse("rustcrypto:aes-256-siv").expect("siv");
        let data = DataSet { db: "sbtest".into(), tables: TABLES, table_size: ROWS, columns: det_k };
        let mut text: Session = Session::connect(
            ConnectOptions::new(url.as_str()).database(data.database(encrypt)),
            srp,
            load_codec(encrypt, det_k, None, &base).expect("keys"),
            text_params,
        )
        .await
        .expect("text session");
        for probe in [[1u32, 2, 3, 4, 5, 6, 7, 8, 9, 10], [78, 500, 501, 502, 503, 999, 1000, 17, 18, 19]] {
            let a = sorted(plain.random_points(&probe).await.expect("plain points"));
            let b = sorted(text.random_points(&probe).await.expect("text points"));
            assert_eq!(a, b, "text protocol select_random_points {probe:?}");
        }
        text.close().await;
        let mut rnd = session(&url, &base, "rustcrypto:aes-256-gcm", all, srp).await;
        match rnd.random_points(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).await {
            Err(QueryError::Protocol(m)) => assert!(m.contains("--deterministic k"), "{m}"),
            other => panic!("randomized k must be refused, got {other:?}"),
        }
        plain.close().await;
        rnd.close().await;
        for d in dets {
            d.close().await;
        }
    });
}

#[test]
fn layouts_run_end_to_end_and_bad_layouts_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = PrivateServer::start(&ServerConfig::new(dir.path()))
        .unwrap_or_else(|e| panic!("private MariaDB server must start: {e}"));
    let url = server.url();
    let base = dir.path().join("home");
    let b = base.to_str().expect("utf-8").to_string();
    runtime().block_on(async {
        prepare(&url, &base, "none,rustcrypto:aes-256-siv", &["--encrypt-columns", "all", "--deterministic", "k"]).await;
        let common = |extra: &[&'static str]| {
            let mut v: Vec<String> = strings(&[
                "run", "--mysql-url", &url, "--base-dir", &b, "--tables", "2", "--table-size", "1000",
                "--no-progress", "--output", "json",
            ]);
            v.extend(extra.iter().map(|s| s.to_string()));
            v
        };
        let run = |args: Vec<String>| async move {
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            cli(&refs).await
        };
        // Real runs of a writing workload and of select_random_points on the layout.
        // Both protocols: prepared statements and sysbench's --db-ps-mode disable
        // (values inlined, envelopes as X'..').
        for ps_mode in ["auto", "disable"] {
            for workload in ["oltp_read_write", "select_random_points", "oltp_update_index"] {
                let r = run(common(&[
                    "--workload", workload, "--encrypt", "none,rustcrypto:aes-256-siv",
                    "--encrypt-columns", "all", "--deterministic", "k", "--threads", "2",
                    "--time", "0", "--events", "200", "--db-ps-mode", ps_mode,
                ]))
                .await;
                assert_eq!(r, Ok(true), "{workload} --db-ps-mode {ps_mode}");
            }
        }
        // Refusals, each one line naming the fix.
        let cases: [(&[&'static str], &str); 5] = [
            (&["--workload", "select_random_points", "--encrypt", "rustcrypto:aes-256-gcm", "--encrypt-columns", "all"], "--deterministic k"),
            (&["--encrypt", "rustcrypto:aes-256-gcm", "--encrypt-columns", "all", "--deterministic", "k"], "has none: use one of"),
            (&["--encrypt", "rustcrypto:aes-256-siv", "--encrypt-columns", "id"], "id stays plaintext"),
            (&["--encrypt", "rustcrypto:aes-256-siv", "--encrypt-columns", "k", "--deterministic", "c"], "c is not encrypted"),
            // Tables prepared with k deterministic, run asking for randomized k.
            (&["--encrypt", "rustcrypto:aes-256-siv", "--encrypt-columns", "all"], "not found"),
        ];
        for (extra, want) in cases {
            let e = run(common(extra)).await.expect_err("must be refused");
            assert!(e.contains(want), "{extra:?}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
        // A rotated key file (a new highest id) would make every equality
        // lookup on the deterministic k miss: refused before the run.
        let keys = std::fs::read_to_string(base.join("keys/aes-256-siv.keys")).expect("key file");
        let rotated = dir.path().join("rotated.keys");
        std::fs::write(&rotated, format!("{keys}2;{}\n", "ab".repeat(64))).expect("write keys");
        let mut args = common(&[
            "--workload", "select_random_points", "--encrypt", "rustcrypto:aes-256-siv",
            "--encrypt-columns", "all", "--deterministic", "k",
        ]);
        args.extend(["--key-file".to_string(), rotated.to_str().expect("utf-8").to_string()]);
        let e = run(args)
        .await
        .expect_err("rotated deterministic key");
        assert!(e.contains("sealed under key id 1") && e.contains("highest) key id is 2"), "{e}");

        // Preparing a layout again names the cleanup of that layout.
        let e = cli(&[
            "prepare", "--mysql-url", &url, "--base-dir", &b, "--tables", "2", "--table-size", "1000",
            "--encrypt", "rustcrypto:aes-256-siv", "--encrypt-columns", "all", "--deterministic", "k",
        ])
        .await
        .expect_err("already prepared");
        assert!(
            e.contains("oltp cleanup --encrypt rustcrypto:aes-256-siv --encrypt-columns k,c,pad --deterministic k"),
            "{e}"
        );

        // The summary, comparison and CSV name the encrypted columns.
        let json = dir.path().join("layout.json");
        let mut args = common(&[
            "--workload", "oltp_point_select", "--encrypt", "none,rustcrypto:aes-256-siv",
            "--encrypt-columns", "all", "--deterministic", "k", "--time", "0", "--events", "50",
        ]);
        args.extend(["--json-out".to_string(), json.to_str().expect("utf-8").to_string()]);
        assert_eq!(run(args).await, Ok(true));
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&json).expect("json")).expect("json");
        assert_eq!(report["summary"][1]["encrypted_columns"], "k (deterministic), c, pad");
        assert_eq!(
            report["comparison"][0]["mode"],
            "rustcrypto:aes-256-siv [k (deterministic), c, pad]"
        );

        // cleanup --encrypt all drops every layout's database, also one that a
        // prepare left half-loaded (no encbench_meta), and nothing else.
        let mut conn = mysql_async::Conn::new(mysql_opts(&ConnectOptions::new(&url)).expect("opts")).await.expect("conn");
        for sql in [
            "CREATE DATABASE sbtest_aes_256_gcm_kcp",
            "CREATE TABLE sbtest_aes_256_gcm_kcp.sbtest1 (id INT PRIMARY KEY)",
            "CREATE DATABASE sbtest_sb",
            "CREATE TABLE sbtest_sb.sbtest1 (id INT PRIMARY KEY)",
        ] {
            conn.query_drop(sql).await.expect(sql);
        }
        assert_eq!(cli(&["cleanup", "--mysql-url", &url, "--base-dir", &b]).await, Ok(true));
        let left: Vec<String> = conn
            .query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'sbtest%' ORDER BY 1")
            .await
            .expect("schemas");
        assert_eq!(left, ["sbtest", "sbtest_sb"], "left: {left:?}");
        conn.disconnect().await.expect("disconnect");
    });
}
