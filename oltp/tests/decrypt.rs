//! A stored value that fails authentication mid-run (another
//! row's `c` copied into id 6) is a counted error of its own (`decrypt_errors`),
//! stops the run by default (`--on-decrypt-error stop`, exit 3, `complete:
//! false`) or is counted and its event restarted (`count`, exit 0), and the
//! read count agrees with the statement table. On the server shared by this
//! test binary, with its own databases; 1 table x 10 rows and uniform ids from
//! a fixed seed, so every run reads id 6 within its first events.

#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::*;
use encbench_oltp::columns::{Columns, Encrypt};
use mysql_async::prelude::*;
use serde_json::Value;

/// Rows of the tampered table: small, so uniform ids hit id 6 often.
const SIZE: &str = "10";
/// Events per run: with uniform ids over 10 rows, a run that never reads id 6
/// would need 200 misses in a row (0.9^200, and the seed is fixed anyway).
const EVENTS: &str = "200";

/// The flags every command here starts with: 1 table x 10 rows of `db` with
/// the key files of `base`.
fn flags(command: &str, url: &str, base: &Path, db: &str) -> Vec<String> {
    strings(&[
        command,
        "--mysql-url",
        url,
        "--base-dir",
        utf8(base),
        "--mysql-db",
        db,
        "--tables",
        "1",
        "--table-size",
        SIZE,
    ])
}

/// `oltp prepare --encrypt AEAD` of `db` (one table of `SIZE` rows); the name
/// of its AEAD tables' database.
async fn prepare_sealed(url: &str, base: &Path, db: &str) -> String {
    let mut args = flags("prepare", url, base, db);
    args.extend(strings(&["--encrypt", AEAD]));
    assert_eq!(cli(&args).await, Ok(true), "prepare {db}");
    encbench_oltp::schema::DataSet {
        db: db.into(),
        tables: 1,
        table_size: 10,
        columns: Columns::default(),
        at_rest: Default::default(),
        server: Default::default(),
        tls: None,
    }
    .database(Encrypt::parse(AEAD).expect("algorithm"))
}

/// Prepares `db` under AEAD and copies id 1's sealed `c` into each row of
/// `ids`: a value sealed for another row, which must fail authentication (the
/// AAD binds the id).
async fn prepare_tampered(url: &str, base: &Path, db: &str, ids: &[u32]) {
    let database = prepare_sealed(url, base, db).await;
    let mut c = conn(url, Some(&database)).await;
    let other: Vec<u8> = c
        .query_first("SELECT c FROM sbtest1 WHERE id = 1")
        .await
        .expect("select")
        .expect("row 1");
    for id in ids {
        c.exec_drop("UPDATE sbtest1 SET c = ? WHERE id = ?", (&other, id))
            .await
            .expect("tamper");
        assert_eq!(c.affected_rows(), 1, "id {id} must exist and change");
    }
    c.disconnect().await.expect("disconnect");
}

/// `oltp run` (the binary) of `workload` on the tampered `db` with
/// `--on-decrypt-error policy`, JSON written to `json`.
fn run_bin(
    url: &str,
    base: &Path,
    db: &str,
    workload: &str,
    policy: &str,
    json: &Path,
) -> std::process::Output {
    let mut args = flags("run", url, base, db);
    args.extend(strings(&[
        "--encrypt",
        AEAD,
        "--workload",
        workload,
        "--time",
        "0",
        "--events",
        EVENTS,
        "--rand-type",
        "uniform",
        "--rand-seed",
        "7",
        "--on-decrypt-error",
        policy,
        "--no-progress",
        "--json-out",
        utf8(json),
    ]));
    oltp_bin(base, &args)
}

/// The one run of the report at `path`.
fn only_run(path: &Path) -> Value {
    let report = read_json(path);
    let runs = report["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1, "{report}");
    runs[0].clone()
}

/// Every statement counted in the table is counted in read/write/other too,
/// and the reads exactly.
fn assert_counts_agree(run: &Value) {
    let read_kinds = [
        "point_select",
        "simple_range",
        "sum_range",
        "order_range",
        "distinct_range",
        "random_points",
    ];
    let reads: u64 = read_kinds.iter().map(|k| kind_count(run, k)).sum();
    assert_eq!(u(&run["queries"]["read"]), reads, "{run}");
    let statements: u64 = run["statements"]
        .as_array()
        .expect("statements")
        .iter()
        .map(|s| u(&s["count"]))
        .sum();
    assert_eq!(u(&run["queries"]["total"]), statements, "{run}");
}

/// Base name of the tampered database (each test leaves its `c` values alone).
const DB: &str = "decrypt";

/// The base directory (key files) of the tampered database, prepared and
/// tampered once per test binary, inside the shared server's directory.
fn tampered() -> &'static PathBuf {
    static CELL: OnceLock<PathBuf> = OnceLock::new();
    once(&CELL, async {
        let shared = default_server();
        let base = shared.dir().join("decrypt-home");
        prepare_tampered(shared.url(), &base, DB, &[6]).await;
        base
    })
}

#[test]
fn stop_ends_the_run_with_exit_3_and_counts_the_failure() {
    let base = tampered();
    let shared = shared_server();
    let json = shared.file("stop.json");
    let out = run_bin(&shared.url, base, DB, "oltp_point_select", "stop", &json);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    assert!(stderr.contains("run stopped early"), "{stderr}");
    assert!(stderr.contains("sbtest1.c id=6"), "{stderr}");
    let report = read_json(&json);
    assert_eq!(report["complete"], false, "{report}");
    let run = only_run(&json);
    assert_eq!(run["complete"], false, "{run}");
    assert!(
        run["error"].as_str().is_some_and(|e| e.contains("id=6")),
        "{run}"
    );
    assert_eq!(u(&run["decrypt_errors"]), 1, "{run}");
    assert_eq!(u(&run["errors"]), 0, "{run}");
    assert_counts_agree(&run);
    // The text report: the failure on its own line, no empty summary table.
    assert!(
        stdout.contains("    decryption failures:                 1 "),
        "{stdout}"
    );
    assert!(stdout.contains("Summary: no run completed"), "{stdout}");
    assert!(!stdout.contains("| Workload | Threads |"), "{stdout}");
}

#[test]
fn count_goes_on_and_counts_every_failure() {
    let base = tampered();
    let shared = shared_server();
    // oltp_read_only would read id 6 in every event (its ranges cover all 10
    // rows) and never finish one: point selects restart and go on.
    let json = shared.file("count.json");
    let out = run_bin(&shared.url, base, DB, "oltp_point_select", "count", &json);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let run = only_run(&json);
    assert_eq!(run["complete"], true, "{run}");
    assert!(u(&run["decrypt_errors"]) >= 1, "{run}");
    assert_eq!(u(&run["transactions"]), 200, "{run}");
    assert_counts_agree(&run);
    // Each restarted event read nothing that counts: as many reads as events.
    assert_eq!(u(&run["queries"]["read"]), 200, "{run}");
    assert!(stdout.contains("decryption failures:"), "{stdout}");
}

#[test]
fn count_rolls_back_a_transaction_and_restarts_it() {
    let base = tampered();
    let shared = shared_server();
    // oltp_read_write with a point select and an index update only (k is not
    // encrypted, and c is left alone): BEGIN, SELECT, UPDATE, COMMIT; a
    // failure rolls back the open transaction before the restart.
    let json = shared.file("count-rw.json");
    let mut args = flags("run", &shared.url, base, DB);
    args.extend(strings(&[
        "--encrypt",
        AEAD,
        "--workload",
        "oltp_read_write",
        "--range-selects",
        "off",
        "--point-selects",
        "1",
        "--non-index-updates",
        "0",
        "--delete-inserts",
        "0",
        "--time",
        "0",
        "--events",
        "50",
        "--rand-type",
        "uniform",
        "--rand-seed",
        "11",
        "--on-decrypt-error",
        "count",
        "--no-progress",
        "--output",
        "csv",
        "--json-out",
        utf8(&json),
    ]));
    let out = oltp_bin(base, &args);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let run = only_run(&json);
    let failures = u(&run["decrypt_errors"]);
    assert!(failures >= 1, "{run}");
    assert_eq!(u(&run["transactions"]), 50, "{run}");
    assert_eq!(kind_count(&run, "commit"), 50, "{run}");
    // The statements of a failed attempt, its BEGIN included, are no queries
    // (they inflated QPS): BEGIN, SELECT, UPDATE, COMMIT per completed event.
    assert_eq!(kind_count(&run, "begin"), 50, "{run}");
    assert_eq!(kind_count(&run, "index_update"), 50, "{run}");
    assert_eq!(u(&run["queries"]["total"]), 4 * 50, "{run}");
    assert_counts_agree(&run);
    // CSV: a decrypt_errors column (the server's CPU and the window follow).
    let mut csv = csv::Reader::from_reader(stdout.as_bytes());
    let header = csv.headers().expect("csv header").clone();
    let row = csv.records().next().expect("csv row").expect("csv row");
    let i = header
        .iter()
        .position(|h| h == "decrypt_errors")
        .unwrap_or_else(|| panic!("{header:?}"));
    assert_eq!(&row[i], failures.to_string(), "{row:?}");
}

/// New-user finding: under `count`, a run with 0 transactions and thousands of
/// decryption failures printed its failed events' BEGINs as QPS, `complete:
/// true`, exit 0. Every row but id 1 (the one the check before the run opens)
/// is tampered, and oltp_read_only's simple range (from a random id up to the
/// table's end) reads one of them in every event, so no event ever succeeds:
/// the run is incomplete, exit 3, one line naming the likely fix, and no query
/// is counted.
#[test]
fn a_run_whose_every_event_failed_to_decrypt_is_incomplete_and_exits_3() {
    const ALL_DB: &str = "decall";
    let shared = shared_server();
    let base = shared.file("decall-home");
    runtime().block_on(prepare_tampered(
        &shared.url,
        &base,
        ALL_DB,
        &[2, 3, 4, 5, 6, 7, 8, 9, 10],
    ));
    let json = shared.file("all-failed.json");
    let mut args = flags("run", &shared.url, &base, ALL_DB);
    args.extend(strings(&[
        "--encrypt",
        AEAD,
        "--workload",
        "oltp_read_only",
        "--time",
        "1",
        "--rand-type",
        "uniform",
        "--rand-seed",
        "7",
        "--on-decrypt-error",
        "count",
        "--no-progress",
        "--json-out",
        utf8(&json),
    ]));
    let out = oltp_bin(&base, &args);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("every event failed to decrypt")
            && stderr.contains("give --key-file the key file its tables were prepared with"),
        "{stderr}"
    );
    let report = read_json(&json);
    assert_eq!(report["complete"], false, "{report}");
    let run = only_run(&json);
    assert_eq!(run["complete"], false, "{run}");
    assert_eq!(u(&run["transactions"]), 0, "{run}");
    assert!(u(&run["decrypt_errors"]) >= 1, "{run}");
    assert_eq!(u(&run["queries"]["total"]), 0, "{run}");
    assert_eq!(run["qps"].as_f64(), Some(0.0), "{run}");
    assert_counts_agree(&run);
}

/// Prepares `db` (1 table of 10 rows, encrypted with AEAD) on `shared` (its
/// scratch files must outlive the returned path), runs `tamper` on its encrypted database (the last statement must
/// change exactly one row), then `oltp run` of oltp_point_select with
/// `--on-decrypt-error stop`, its JSON in `db`.json: the binary's output and
/// the JSON's path.
fn run_after_tampering(shared: &Use, db: &str, tamper: &[&str]) -> (std::process::Output, PathBuf) {
    let base = shared.file(&format!("{db}-home"));
    runtime().block_on(async {
        let database = prepare_sealed(&shared.url, &base, db).await;
        let mut c = conn(&shared.url, Some(&database)).await;
        for sql in tamper {
            c.query_drop(*sql).await.expect(sql);
        }
        assert_eq!(c.affected_rows(), 1, "id 6 must exist and change");
        c.disconnect().await.expect("disconnect");
    });
    let json = shared.file(&format!("{db}.json"));
    let out = run_bin(&shared.url, &base, db, "oltp_point_select", "stop", &json);
    (out, json)
}

/// NULL in an encrypted column (the column altered to allow
/// it, `c = NULL` for id 6) used to be skipped silently, the row missing from
/// the results; it is the integrity failure it is, counted and stopping the run.
#[test]
fn a_null_in_an_encrypted_column_is_a_counted_integrity_failure() {
    // c is VARBINARY(119 + 33) under AES-256-GCM's envelope.
    let shared = shared_server();
    let (out, json) = run_after_tampering(
        &shared,
        "decnull",
        &[
            "ALTER TABLE sbtest1 MODIFY c VARBINARY(152) NULL",
            "UPDATE sbtest1 SET c = NULL WHERE id = 6",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("sbtest1.c id=6") && stderr.contains("NULL in an encrypted column"),
        "{stderr}"
    );
    let run = only_run(&json);
    assert_eq!(run["complete"], false, "{run}");
    assert_eq!(u(&run["decrypt_errors"]), 1, "{run}");
    assert_counts_agree(&run);
}

/// New-user finding: a value whose envelope version byte was changed (1 to 2)
/// was reported as a column "prepared with --deterministic", to be fixed with
/// a flag, though encbench_meta records the column as the run reads it: the
/// value was changed.
#[test]
fn a_changed_envelope_version_is_named_a_changed_value_not_a_flag() {
    // The first byte of c's randomized envelope: version 1 made 2.
    let shared = shared_server();
    let (out, _json) = run_after_tampering(
        &shared,
        "decversion",
        &["UPDATE sbtest1 SET c = CONCAT(x'02', SUBSTRING(c, 2)) WHERE id = 6"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(
            "sbtest1.c id=6: envelope version 2 (deterministic) where a randomized envelope (version 1) was expected: the stored value was changed, or the column holds deterministic envelopes (sealed with --deterministic); encbench_meta records the column's envelopes as this run reads them, so the stored value was changed after prepare (a changed byte, or written around oltp)"
        ),
        "{stderr}"
    );
    assert!(
        !stderr.contains("give the same --deterministic"),
        "{stderr}"
    );
}
