//! `--db-ps-mode disable` (sysbench's text protocol, values inlined) against
//! `auto` (server-side prepared statements) on one real private MariaDB server:
//! the same results, the same counts for the same seeded run, plaintext and
//! encrypted, and the text mode as the way past a small `max_prepared_stmt_count`.

use std::collections::BTreeMap;
use std::path::Path;

use clap::Parser;
use encbench_oltp::cli::Cli;
use encbench_oltp::columns::keys::load_cipher;
use encbench_oltp::columns::{Codec, Column, Encrypt};
use encbench_oltp::commands::execute;
use encbench_oltp::driver::ConnectOptions;
use encbench_oltp::driver::PsMode;
use encbench_oltp::driver::mysql::mysql_opts;
use encbench_oltp::schema::DataSet;
use encbench_oltp::server::{PrivateServer, ServerConfig};
use encbench_oltp::workload::{Params, RangeKind, Session, Workload};
use mysql_async::prelude::*;
use serde_json::Value;

const TABLES: u32 = 2;
const ROWS: u32 = 1000;
const AEAD: &str = "rustcrypto:aes-256-gcm";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

async fn cli(args: &[String]) -> Result<bool, String> {
    let cli = Cli::try_parse_from(std::iter::once("oltp".to_string()).chain(args.iter().cloned()))
        .map_err(|e| e.to_string())?;
    execute(cli).await.map_err(|e| format!("{e:#}"))
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn codec(base: &Path, encrypt: Encrypt) -> Codec {
    match load_cipher(encrypt, None, base).expect("key file") {
        None => Codec::plaintext(),
        Some(c) => Codec::encrypted(c),
    }
}

async fn session(url: &str, base: &Path, encrypt: &str, mode: PsMode) -> Session {
    let encrypt = Encrypt::parse(encrypt).expect("encrypt name");
    let data = DataSet {
        db: "sbtest".into(),
        tables: TABLES,
        table_size: ROWS,
        columns: Default::default(),
    };
    let opts = ConnectOptions::new(url).database(data.database(encrypt));
    let mut params = Params::new(TABLES, ROWS);
    params.opts.db_ps_mode = mode;
    Session::connect(opts, Workload::OltpReadWrite, codec(base, encrypt), params)
        .await
        .expect("session")
}

/// `oltp run` with `extra` flags on the test's tables; the JSON report's runs.
async fn run(url: &str, base: &Path, out: &Path, extra: &[&str]) -> Result<Vec<Value>, String> {
    let mut args = strings(&[
        "run",
        "--mysql-url",
        url,
        "--base-dir",
        base.to_str().expect("utf-8"),
        "--tables",
        "2",
        "--table-size",
        "1000",
        "--threads",
        "1",
        "--time",
        "0",
        "--output",
        "json",
        "--json-out",
        out.to_str().expect("utf-8"),
    ]);
    args.extend(strings(extra));
    assert!(cli(&args).await?, "{extra:?}");
    let report: Value =
        serde_json::from_slice(&std::fs::read(out).expect("json file")).expect("valid json");
    Ok(report["runs"].as_array().expect("runs").clone())
}

/// Every row of `db.sbtestN` as id -> (k, c, pad), `c` and `pad` opened.
async fn table_rows(
    url: &str,
    db: &str,
    n: u32,
    codec: &Codec,
) -> BTreeMap<i64, (i64, Vec<u8>, Vec<u8>)> {
    let mut conn =
        mysql_async::Conn::new(mysql_opts(&ConnectOptions::new(url).database(db)).expect("opts"))
            .await
            .expect("conn");
    let rows: Vec<(i64, i64, Vec<u8>, Vec<u8>)> = conn
        .query(format!("SELECT id, k, c, pad FROM sbtest{n}"))
        .await
        .expect("select");
    conn.disconnect().await.expect("disconnect");
    let table = format!("sbtest{n}");
    rows.into_iter()
        .map(|(id, k, mut c, mut pad)| {
            codec
                .open_in_place(&table, Column::C, id, &mut c)
                .unwrap_or_else(|e| panic!("{db}.{table} id {id} c must open: {e}"));
            codec
                .open_in_place(&table, Column::Pad, id, &mut pad)
                .unwrap_or_else(|e| panic!("{db}.{table} id {id} pad must open: {e}"));
            (id, (k, c, pad))
        })
        .collect()
}

#[test]
fn text_protocol_mode_gives_the_prepared_modes_results_and_counts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = PrivateServer::start(&ServerConfig::new(dir.path()))
        .unwrap_or_else(|e| panic!("private MariaDB server must start: {e}"));
    let url = server.url();
    let base = dir.path().join("home");
    let out = dir.path().join("r.json");
    runtime().block_on(async {
        let r = cli(&strings(&[
            "prepare",
            "--mysql-url",
            &url,
            "--base-dir",
            base.to_str().expect("utf-8"),
            "--tables",
            "2",
            "--table-size",
            "1000",
            "--encrypt",
            &format!("none,{AEAD}"),
        ]))
        .await;
        assert_eq!(r, Ok(true), "prepare");

        // Point, range and SUM results: text mode equals prepared mode, and
        // encrypted equals plaintext, in both modes.
        let mut sessions = Vec::new();
        for encrypt in ["none", AEAD] {
            for mode in [PsMode::Auto, PsMode::Disable] {
                sessions.push((encrypt, mode, session(&url, &base, encrypt, mode).await));
            }
        }
        for table in 1..=TABLES {
            for id in [1, 2, 500, 999, 1000, 1001] {
                let mut results = Vec::new();
                for (encrypt, mode, s) in &mut sessions {
                    let rows = s.point_select(table, id).await.expect("point").to_vec();
                    results.push((*encrypt, *mode, rows));
                }
                assert_eq!(results[0].2.len(), usize::from(id <= ROWS));
                for r in &results[1..] {
                    assert_eq!(
                        r.2, results[0].2,
                        "{r:?} point select table {table} id {id}"
                    );
                }
            }
            for (lo, hi) in [(1, 100), (450, 549), (950, 1049), (2000, 2099)] {
                for kind in [RangeKind::Simple, RangeKind::Order, RangeKind::Distinct] {
                    let mut results = Vec::new();
                    for (encrypt, mode, s) in &mut sessions {
                        let rows = s.range(kind, table, lo, hi).await.expect("range").to_vec();
                        results.push((*encrypt, *mode, rows));
                    }
                    for r in &results[1..] {
                        assert_eq!(
                            r.2, results[0].2,
                            "{} {:?} {kind:?} table {table} [{lo},{hi}]",
                            r.0, r.1
                        );
                    }
                }
                let mut sums = Vec::new();
                for (_, _, s) in &mut sessions {
                    sums.push(s.sum_range(table, lo, hi).await.expect("sum"));
                }
                assert!(
                    sums.iter().all(|s| *s == sums[0]),
                    "SUM(k) [{lo},{hi}]: {sums:?}"
                );
                if lo < ROWS {
                    assert!(sums[0].is_some_and(|s| s > 0));
                }
            }
        }
        // Writes in text mode: a sealed value goes in as X'..' and opens again.
        for (encrypt, mode, s) in &mut sessions {
            if *mode == PsMode::Disable {
                let c = b"12345678901-12345678901";
                assert!(
                    s.non_index_update(1, 3, c).await.expect("update"),
                    "{encrypt}"
                );
                assert_eq!(s.point_select(1, 3).await.expect("point"), [c.to_vec()]);
            }
        }
        for (_, _, s) in sessions {
            s.close().await;
        }

        // The same seeded runs count the same queries in both modes, for both
        // tables (the read-only workloads and k=k+1, which always changes a row).
        for (workload, seed) in [
            ("oltp_read_only", "11"),
            ("oltp_point_select", "12"),
            ("oltp_update_index", "13"),
        ] {
            let mut counts = Vec::new();
            for mode in ["auto", "disable"] {
                let runs = run(
                    &url,
                    &base,
                    &out,
                    &[
                        "--workload",
                        workload,
                        "--encrypt",
                        &format!("none,{AEAD}"),
                        "--events",
                        "40",
                        "--rand-seed",
                        seed,
                        "--db-ps-mode",
                        mode,
                    ],
                )
                .await
                .unwrap_or_else(|e| panic!("{workload} {mode}: {e}"));
                assert_eq!(runs.len(), 2);
                for r in runs {
                    assert_eq!(r["options"]["db_ps_mode"], mode, "{r}");
                    assert_eq!(r["transactions"], 40, "{r}");
                    assert_eq!(r["errors"], 0, "{r}");
                    counts.push((r["encrypt"].clone(), r["queries"].clone()));
                }
            }
            assert!(
                counts.iter().all(|c| c.1 == counts[0].1),
                "{workload}: {counts:?}"
            );
        }

        // A write workload in text mode leaves the encrypted tables equal to the
        // plaintext ones (inserts and updates bind sealed values as X'..').
        let runs = run(
            &url,
            &base,
            &out,
            &[
                "--workload",
                "oltp_read_write",
                "--encrypt",
                &format!("none,{AEAD}"),
                "--events",
                "40",
                "--rand-seed",
                "21",
                "--rand-type",
                "uniform",
                "--db-ps-mode",
                "disable",
            ],
        )
        .await
        .expect("read_write in text mode");
        assert_eq!(runs[0]["queries"], runs[1]["queries"]);
        let plain = codec(&base, Encrypt::parse("none").expect("none"));
        let aead = Encrypt::parse(AEAD).expect("aead");
        let enc = codec(&base, aead);
        let enc_db = DataSet {
            db: "sbtest".into(),
            tables: TABLES,
            table_size: ROWS,
            columns: Default::default(),
        }
        .database(aead);
        for n in 1..=TABLES {
            let a = table_rows(&url, "sbtest", n, &plain).await;
            let b = table_rows(&url, &enc_db, n, &enc).await;
            assert_eq!(a.len(), ROWS as usize);
            assert!(
                a == b,
                "table {n}: encrypted rows differ from plaintext after text-mode writes"
            );
        }

        // A server whose max_prepared_stmt_count is too small: auto is refused
        // with the fix named, disable runs.
        let mut conn =
            mysql_async::Conn::new(mysql_opts(&ConnectOptions::new(&url)).expect("opts"))
                .await
                .expect("conn");
        conn.query_drop("SET GLOBAL max_prepared_stmt_count = 0")
            .await
            .expect("set");
        let e = run(&url, &base, &out, &["--events", "10"])
            .await
            .expect_err("statement budget");
        assert!(
            e.contains("max_prepared_stmt_count") && e.contains("--db-ps-mode disable"),
            "{e}"
        );
        let runs = run(
            &url,
            &base,
            &out,
            &["--events", "10", "--db-ps-mode", "disable"],
        )
        .await
        .expect("text mode needs no prepared statements");
        assert_eq!(runs[0]["queries"]["total"], 160);
        conn.query_drop("SET GLOBAL max_prepared_stmt_count = 16382")
            .await
            .expect("set");

        // A bad value: one line naming the valid ones.
        let e = cli(&strings(&["run", "--db-ps-mode", "bogus"]))
            .await
            .expect_err("bogus mode");
        assert!(
            e.lines()
                .next()
                .is_some_and(|l| l.contains("auto") && l.contains("disable")),
            "{e}"
        );
        conn.disconnect().await.expect("disconnect");
    });
    drop(server);
}
