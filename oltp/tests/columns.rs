//! `--encrypt-columns` and `--deterministic` against a real private MariaDB
//! (no mocks), one server shared by the tests of this file (each its own
//! `--mysql-db`): with `k`, `c` and `pad` encrypted (randomized, or `k`
//! deterministic with AES-SIV), every query a sysbench workload sends returns
//! what the plaintext tables return, including SUM(k) and k=k+1 done in the
//! client; `select_random_points` finds rows by equality on a deterministic `k`;
//! layouts that cannot work are refused with one-line errors.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use encbench_oltp::columns::Columns;
use encbench_oltp::driver::PsMode;
use encbench_oltp::workload::{PointRow, QueryError, RangeKind, Workload};
use mysql_async::prelude::*;

#[allow(dead_code)] // each test binary uses a subset of the helpers
mod common;
use common::{
    TABLES, Use, args, cli, conn, data_set, once, prepare, read_json, runtime, session,
    shared_server, strings, write_key_file,
};

fn all() -> Columns {
    Columns::parse(&strings(&["all"]), &strings(&["none"])).expect("all")
}

fn det_k() -> Columns {
    Columns::parse(&strings(&["all"]), &strings(&["k"])).expect("det k")
}

fn sorted(mut rows: Vec<PointRow>) -> Vec<PointRow> {
    rows.sort_by_key(|r| r.id);
    rows
}

/// Plaintext, `aes-256-gcm` on k, c, pad and `aes-256-siv` with k deterministic,
/// prepared in a fresh database `db`; the base directory of their keys.
async fn prepare_three(t: &Use, db: &str) -> PathBuf {
    let (url, base) = (t.url.clone(), t.shared.dir().join(format!("{db}-home")));
    prepare(&url, &base, db, "none", &[]).await;
    prepare(
        &url,
        &base,
        db,
        "rustcrypto:aes-256-gcm",
        &["--encrypt-columns", "all"],
    )
    .await;
    prepare(
        &url,
        &base,
        db,
        "rustcrypto:aes-256-siv",
        &["--encrypt-columns", "all", "--deterministic", "k"],
    )
    .await;
    base
}

/// Database `colq`: the three layouts, prepared once and only read.
static READ_ONLY: OnceLock<PathBuf> = OnceLock::new();

#[test]
fn stored_envelopes_have_the_documented_sizes_and_deterministic_k_repeats_where_k_does() {
    let t = shared_server();
    once(&READ_ONLY, prepare_three(&t, "colq"));
    let url = t.url.clone();
    runtime().block_on(async {
        // What is stored: envelopes of the documented sizes, and a deterministic
        // k repeats exactly where the plaintext k repeats.
        let mut conn = conn(&url, None).await;
        let lens: Vec<(u64, u64, u64)> = conn
            .query("SELECT DISTINCT LENGTH(k), LENGTH(c), LENGTH(pad) FROM colq_aes_256_gcm_kcp.sbtest1")
            .await
            .expect("lengths");
        assert_eq!(lens, vec![(4 + 33, 119 + 33, 59 + 33)]);
        let lens: Vec<(u64, u64)> = conn
            .query("SELECT DISTINCT LENGTH(k), LENGTH(c) FROM colq_aes_256_siv_kdcp.sbtest1")
            .await
            .expect("lengths");
        assert_eq!(lens, vec![(4 + 21, 119 + 37)]);
        let dup = |db: &str| {
            format!("SELECT COUNT(*) FROM (SELECT k FROM {db}.sbtest1 GROUP BY k HAVING COUNT(*) > 1) d")
        };
        let plain_dups: Option<u64> = conn.query_first(dup("colq")).await.expect("dups");
        let det_dups: Option<u64> = conn
            .query_first(dup("colq_aes_256_siv_kdcp"))
            .await
            .expect("dups");
        let rnd_dups: Option<u64> = conn
            .query_first(dup("colq_aes_256_gcm_kcp"))
            .await
            .expect("dups");
        assert!(plain_dups.unwrap_or(0) > 10, "1000 draws from 1..=1000 repeat some k");
        assert_eq!(det_dups, plain_dups, "deterministic k must repeat where k repeats");
        assert_eq!(rnd_dups, Some(0), "randomized envelopes never repeat");
        conn.disconnect().await.expect("disconnect");
    });
}

#[test]
fn reads_and_writes_on_encrypted_k_c_pad_return_the_plaintext_results() {
    let t = shared_server();
    let url = t.url.clone();
    let (all, det_k) = (all(), det_k());
    runtime().block_on(async {
        let db = "colrw";
        let base = prepare_three(&t, db).await;
        let base = &base;
        // A session of oltp_read_write on `encrypt` and `columns` of `db`.
        let rw = |encrypt, columns| {
            session(
                &url,
                base,
                db,
                encrypt,
                columns,
                Workload::OltpReadWrite,
                PsMode::Auto,
            )
        };
        let mut plain = rw("none", Columns::default()).await;
        let mut encs = vec![
            (
                "rustcrypto:aes-256-gcm all",
                rw("rustcrypto:aes-256-gcm", all).await,
            ),
            (
                "openssl:aes-256-gcm all",
                rw("openssl:aes-256-gcm", all).await,
            ),
            (
                "rustcrypto:aes-256-siv det k",
                rw("rustcrypto:aes-256-siv", det_k).await,
            ),
            (
                "openssl:aes-256-siv det k",
                rw("openssl:aes-256-siv", det_k).await,
            ),
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
                        let a = plain
                            .range(kind, table, lo, hi)
                            .await
                            .expect("range")
                            .to_vec();
                        let b = enc
                            .range(kind, table, lo, hi)
                            .await
                            .expect("range")
                            .to_vec();
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
                assert!(
                    enc.insert(2, id, k, &c, &pad).await.expect("insert"),
                    "{choice}"
                );
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
                    let a = plain
                        .range(RangeKind::Simple, table, lo, hi)
                        .await
                        .expect("r")
                        .to_vec();
                    let b = enc
                        .range(RangeKind::Simple, table, lo, hi)
                        .await
                        .expect("r")
                        .to_vec();
                    assert_eq!(a, b, "{choice} rows after writes {table} [{lo},{hi}]");
                }
            }
        }
        plain.close().await;
        for (_, enc) in encs {
            enc.close().await;
        }
    });
}

#[test]
fn select_random_points_finds_rows_through_deterministic_k_in_both_protocols() {
    let t = shared_server();
    let base = once(&READ_ONLY, prepare_three(&t, "colq"));
    let url = t.url.clone();
    let (all, det_k) = (all(), det_k());
    runtime().block_on(async {
        let db = "colq";
        // select_random_points: IN (...) on k finds the same rows through the
        // deterministic envelopes as on plaintext k.
        // A session of select_random_points on `encrypt` and `columns` of `db`.
        let srp = |encrypt, columns| {
            session(
                &url,
                base,
                db,
                encrypt,
                columns,
                Workload::SelectRandomPoints,
                PsMode::Auto,
            )
        };
        let mut plain = srp("none", Columns::default()).await;
        let mut dets = [
            srp("rustcrypto:aes-256-siv", det_k).await,
            srp("openssl:aes-256-siv", det_k).await,
        ];
        let mut found = 0;
        for probe in [
            [1u32, 2, 3, 4, 5, 6, 7, 8, 9, 10],
            [78, 500, 501, 502, 503, 999, 1000, 17, 18, 19],
        ] {
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
        let mut text = session(
            &url,
            base,
            db,
            "rustcrypto:aes-256-siv",
            det_k,
            Workload::SelectRandomPoints,
            PsMode::Disable,
        )
        .await;
        for probe in [
            [1u32, 2, 3, 4, 5, 6, 7, 8, 9, 10],
            [78, 500, 501, 502, 503, 999, 1000, 17, 18, 19],
        ] {
            let a = sorted(plain.random_points(&probe).await.expect("plain points"));
            let b = sorted(text.random_points(&probe).await.expect("text points"));
            assert_eq!(a, b, "text protocol select_random_points {probe:?}");
        }
        text.close().await;
        let mut rnd = srp("rustcrypto:aes-256-gcm", all).await;
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

/// The layout of the run tests: plaintext and `aes-256-siv` with k deterministic.
const LAYOUT: [&str; 4] = ["--encrypt-columns", "all", "--deterministic", "k"];

/// Database `collay`: [`LAYOUT`] prepared once (runs write to it; nothing reads its rows).
static LAYOUT_DB: OnceLock<PathBuf> = OnceLock::new();

/// `oltp run` on database `db` with the keys of `b` and JSON output, then `extra`.
async fn run(url: &str, b: &str, db: &str, extra: &[&str]) -> Result<bool, String> {
    let json = ["--no-progress", "--output", "json"];
    cli(&args("run", url, b, db, &[&json, extra].concat())).await
}

/// [`run`] of `workload` on `encrypt` with [`LAYOUT`], then `extra`.
async fn run_layout(
    url: &str,
    b: &str,
    db: &str,
    (workload, encrypt): (&str, &str),
    extra: &[&str],
) -> Result<bool, String> {
    let flags = ["--workload", workload, "--encrypt", encrypt];
    run(url, b, db, &[&flags[..], &LAYOUT, extra].concat()).await
}

/// The shared server and the prepared [`LAYOUT_DB`]: url, base dir (str), db.
fn layout_db(t: &Use) -> (String, String, &'static str) {
    let base = once(&LAYOUT_DB, async {
        let base = t.shared.dir().join("collay-home");
        prepare(
            &t.url,
            &base,
            "collay",
            "none,rustcrypto:aes-256-siv",
            &LAYOUT,
        )
        .await;
        base
    });
    (
        t.url.clone(),
        base.to_str().expect("utf-8").to_string(),
        "collay",
    )
}

#[test]
fn layouts_run_end_to_end_in_both_protocols() {
    let t = shared_server();
    let (url, b, db) = layout_db(&t);
    runtime().block_on(async {
        // Real runs of a writing workload and of select_random_points on the layout.
        // Both protocols: prepared statements and sysbench's --db-ps-mode disable
        // (values inlined, envelopes as X'..').
        for ps_mode in ["auto", "disable"] {
            for workload in [
                "oltp_read_write",
                "select_random_points",
                "oltp_update_index",
            ] {
                let r = run_layout(
                    &url,
                    &b,
                    db,
                    (workload, "none,rustcrypto:aes-256-siv"),
                    &[
                        "--threads",
                        "2",
                        "--time",
                        "0",
                        "--events",
                        "200",
                        "--db-ps-mode",
                        ps_mode,
                    ],
                )
                .await;
                assert_eq!(r, Ok(true), "{workload} --db-ps-mode {ps_mode}");
            }
        }
    });
}

#[test]
fn bad_layouts_are_refused_in_one_line_naming_the_fix() {
    let t = shared_server();
    let (url, b, db) = layout_db(&t);
    runtime().block_on(async {
        // Refusals, each one line naming the fix.
        let cases: [(&[&'static str], &str); 5] = [
            (
                &[
                    "--workload",
                    "select_random_points",
                    "--encrypt",
                    "rustcrypto:aes-256-gcm",
                    "--encrypt-columns",
                    "all",
                ],
                "--deterministic k",
            ),
            (
                &[
                    "--encrypt",
                    "rustcrypto:aes-256-gcm",
                    "--encrypt-columns",
                    "all",
                    "--deterministic",
                    "k",
                ],
                "has none: use one of",
            ),
            (
                &[
                    "--encrypt",
                    "rustcrypto:aes-256-siv",
                    "--encrypt-columns",
                    "id",
                ],
                "id stays plaintext",
            ),
            (
                &[
                    "--encrypt",
                    "rustcrypto:aes-256-siv",
                    "--encrypt-columns",
                    "k",
                    "--deterministic",
                    "c",
                ],
                "c is not encrypted",
            ),
            // Tables prepared with k deterministic, run asking for randomized k.
            (
                &[
                    "--encrypt",
                    "rustcrypto:aes-256-siv",
                    "--encrypt-columns",
                    "all",
                ],
                "not found",
            ),
        ];
        for (extra, want) in cases {
            let e = run(&url, &b, db, extra).await.expect_err("must be refused");
            assert!(e.contains(want), "{extra:?}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
    });
}

#[test]
fn a_rotated_deterministic_key_is_refused_before_the_run() {
    let t = shared_server();
    let (url, b, db) = layout_db(&t);
    let base = Path::new(&b);
    runtime().block_on(async {
        // A rotated key file (a new highest id) would make every equality
        // lookup on the deterministic k miss: refused before the run.
        let keys = std::fs::read_to_string(base.join("keys/aes-256-siv.keys")).expect("key file");
        let rotated = t.file("rotated.keys");
        write_key_file(&rotated, &format!("{keys}2;{}\n", "ab".repeat(64)));
        let workload = ("select_random_points", "rustcrypto:aes-256-siv");
        let key_file = ["--key-file", rotated.to_str().expect("utf-8")];
        let e = run_layout(&url, &b, db, workload, &key_file)
            .await
            .expect_err("rotated deterministic key");
        assert!(
            e.contains("sealed under key id 1") && e.contains("highest) key id is 2"),
            "{e}"
        );
    });
}

#[test]
fn preparing_a_layout_again_names_its_cleanup() {
    let t = shared_server();
    let (url, b, db) = layout_db(&t);
    runtime().block_on(async {
        // Preparing a layout again names the cleanup of that layout.
        let e = cli(&args("prepare", &url, &b, db, &[&["--encrypt", "rustcrypto:aes-256-siv"][..], &LAYOUT].concat()))
        .await
        .expect_err("already prepared");
        assert!(
            e.contains("oltp cleanup --encrypt rustcrypto:aes-256-siv --encrypt-columns k,c,pad --deterministic k"),
            "{e}"
        );

    });
}

#[test]
fn reports_name_the_encrypted_columns() {
    let t = shared_server();
    let (url, b, db) = layout_db(&t);
    runtime().block_on(async {
        // The summary, comparison and CSV name the encrypted columns.
        let json = t.file("layout.json");
        let workload = ("oltp_point_select", "none,rustcrypto:aes-256-siv");
        let extra = [
            "--time",
            "0",
            "--events",
            "50",
            "--json-out",
            json.to_str().expect("utf-8"),
        ];
        assert_eq!(run_layout(&url, &b, db, workload, &extra).await, Ok(true));
        let report = read_json(&json);
        assert_eq!(
            report["summary"][1]["encrypted_columns"],
            "k (deterministic), c, pad"
        );
        assert_eq!(
            report["comparison"][0]["mode"],
            "rustcrypto:aes-256-siv [k (deterministic), c, pad]"
        );
    });
}

#[test]
fn cleanup_all_drops_every_layout_and_nothing_else() {
    let t = shared_server();
    let (url, base, db) = (t.url.clone(), t.base(), "colclean");
    let b = base.to_str().expect("utf-8").to_string();
    runtime().block_on(async {
        prepare(&url, &base, db, "none,rustcrypto:aes-256-siv", &LAYOUT).await;
        // cleanup --encrypt all drops every layout's database, also one that a
        // prepare left half-loaded (no encbench_meta), and nothing else.
        let mut conn = conn(&url, None).await;
        for sql in [
            "CREATE DATABASE colclean_aes_256_gcm_kcp",
            "CREATE TABLE colclean_aes_256_gcm_kcp.sbtest1 (id INT PRIMARY KEY)",
            "CREATE DATABASE colclean_sb",
            "CREATE TABLE colclean_sb.sbtest1 (id INT PRIMARY KEY)",
        ] {
            conn.query_drop(sql).await.expect(sql);
        }
        assert_eq!(cli(&["cleanup", "--mysql-url", &url, "--base-dir", &b, "--mysql-db", db]).await, Ok(true));
        let left: Vec<String> = conn
            .query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'colclean%' ORDER BY 1")
            .await
            .expect("schemas");
        assert_eq!(left, ["colclean", "colclean_sb"], "left: {left:?}");
        // A second cleanup finds nothing of ours: it reports no drop.
        let again = encbench_oltp::schema::cleanup_all(&url, &data_set(db, Columns::default()))
            .await
            .expect("second cleanup");
        assert!(again.is_empty(), "second cleanup touched {again:?}");
        conn.disconnect().await.expect("disconnect");
    });
}
