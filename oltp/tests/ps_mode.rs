//! `--db-ps-mode disable` (sysbench's text protocol, values inlined) against
//! `auto` (server-side prepared statements) on one real private MariaDB server
//! shared by the tests of this file (each its own `--mysql-db`): the same
//! results, the same counts for the same seeded run, plaintext and encrypted,
//! and the text mode as the way past a small `max_prepared_stmt_count`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use encbench_oltp::columns::Columns;
use encbench_oltp::driver::{MysqlConnection, PsMode};
use encbench_oltp::workload::{RangeKind, Session, Workload};
use serde_json::Value;

#[allow(dead_code)] // each test binary uses a subset of the helpers
mod common;
use common::{
    AEAD, ROWS, TABLES, Use, args, cli, codec, conn, data_set, once, prepare, read_json, runtime,
    set_max_prepared_stmt_count, shared_server, shared_server_alone, strings, table_rows, utf8,
};

async fn session(
    url: &str,
    base: &Path,
    db: &str,
    encrypt: &str,
    mode: PsMode,
) -> Session<MysqlConnection> {
    common::session(
        url,
        base,
        db,
        encrypt,
        Columns::default(),
        Workload::OltpReadWrite,
        mode,
    )
    .await
}

/// `none` and [`AEAD`] prepared in a fresh database `db`; its base directory.
async fn prepare_both(t: &Use, db: &str) -> PathBuf {
    let base = t.shared.dir().join(format!("{db}-home"));
    prepare(&t.url, &base, db, &format!("none,{AEAD}"), &[]).await;
    base
}

/// Database `psq`, prepared once and only read.
static READ_ONLY: OnceLock<PathBuf> = OnceLock::new();

/// `oltp run` with `extra` flags on the tables of `db`; the JSON report's runs.
async fn run(
    url: &str,
    base: &Path,
    db: &str,
    out: &Path,
    extra: &[&str],
) -> Result<Vec<Value>, String> {
    let flags = [
        "--threads",
        "1",
        "--time",
        "0",
        "--output",
        "json",
        "--json-out",
        utf8(out),
    ];
    let args = args("run", url, base, db, &[&flags, extra].concat());
    assert!(cli(&args).await?, "{extra:?}");
    Ok(read_json(out)["runs"].as_array().expect("runs").clone())
}

#[test]
fn text_and_prepared_modes_return_the_same_point_range_and_sum_results() {
    let t = shared_server();
    let base = once(&READ_ONLY, prepare_both(&t, "psq"));
    let url = t.url.clone();
    runtime().block_on(async {
        let db = "psq";
        // Point, range and SUM results: text mode equals prepared mode, and
        // encrypted equals plaintext, in both modes.
        let mut sessions = Vec::new();
        for encrypt in ["none", AEAD] {
            for mode in [PsMode::Auto, PsMode::Disable] {
                sessions.push((encrypt, mode, session(&url, base, db, encrypt, mode).await));
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
        for (_, _, s) in sessions {
            s.close().await;
        }
    });
}

#[test]
fn seeded_runs_count_the_same_queries_in_both_modes() {
    let t = shared_server();
    let url = t.url.clone();
    let out = t.file("r.json");
    runtime().block_on(async {
        let base = prepare_both(&t, "pscount").await;
        let base = &base;
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
                    base,
                    "pscount",
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
    });
}

#[test]
fn text_mode_writes_leave_encrypted_tables_equal_to_plaintext() {
    let t = shared_server();
    let url = t.url.clone();
    let out = t.file("r.json");
    runtime().block_on(async {
        let db = "pswrite";
        let base = prepare_both(&t, db).await;
        let mut sessions = Vec::new();
        for encrypt in ["none", AEAD] {
            for mode in [PsMode::Auto, PsMode::Disable] {
                sessions.push((encrypt, mode, session(&url, &base, db, encrypt, mode).await));
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

        // A write workload in text mode leaves the encrypted tables equal to the
        // plaintext ones (inserts and updates bind sealed values as X'..').
        let runs = run(
            &url,
            &base,
            db,
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
        let plain = codec(&base, "none", Columns::default());
        let enc = codec(&base, AEAD, Columns::default());
        let aead = encbench_oltp::columns::Encrypt::parse(AEAD).expect("aead");
        let enc_db = data_set(db, Columns::default()).database(aead);
        for n in 1..=TABLES {
            let a = table_rows(&url, db, n, &plain).await;
            let b = table_rows(&url, &enc_db, n, &enc).await;
            assert_eq!(a.len(), ROWS as usize);
            assert!(
                a == b,
                "table {n}: encrypted rows differ from plaintext after text-mode writes"
            );
        }
    });
}

#[test]
fn a_small_statement_budget_refuses_auto_and_text_mode_runs() {
    // Changes a global setting: no other test uses the server meanwhile.
    let t = shared_server_alone();
    let base = once(&READ_ONLY, prepare_both(&t, "psq"));
    let url = t.url.clone();
    let out = t.file("r.json");
    runtime().block_on(async {
        // A server whose max_prepared_stmt_count is too small: auto is refused
        // with the fix named, disable runs.
        let mut conn = conn(&url, None).await;
        let old = set_max_prepared_stmt_count(&mut conn, 0).await;
        let e = run(&url, base, "psq", &out, &["--events", "10"])
            .await
            .expect_err("statement budget");
        assert!(
            e.contains("max_prepared_stmt_count") && e.contains("--db-ps-mode disable"),
            "{e}"
        );
        let runs = run(
            &url,
            base,
            "psq",
            &out,
            &["--events", "10", "--db-ps-mode", "disable"],
        )
        .await;
        set_max_prepared_stmt_count(&mut conn, old).await;
        let runs = runs.expect("text mode needs no prepared statements");
        assert_eq!(runs[0]["queries"]["total"], 160);
        conn.disconnect().await.expect("disconnect");
    });
}

#[test]
fn a_bad_ps_mode_is_one_line_naming_the_valid_ones() {
    runtime().block_on(async {
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
    });
}
