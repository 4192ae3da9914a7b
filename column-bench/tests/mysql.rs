//! `--from-mysql` and `--oltp-result` against a real private MariaDB started by
//! `encbench_oltp::server` (no mocks): a small sysbench table is prepared with
//! the `oltp` library, its value lengths read back, and an `oltp run` with and
//! without encryption set beside the capacity model.

mod common;

use std::process::Output;

use common::QUICK;

use clap::Parser as _;
use encbench_oltp::cli::Cli;
use encbench_oltp::commands::execute;
use encbench_test_support::{one_error_line, runtime, start_server, stdout_json as json};

/// The column-bench binary with short timings ([`QUICK`]) before `args`.
fn column_bench(args: &[&str]) -> Output {
    common::column_bench(&[&QUICK[..], args].concat())
}

fn oltp(args: &[&str]) {
    let rt = runtime();
    let cli = Cli::try_parse_from(std::iter::once("oltp").chain(args.iter().copied()))
        .expect("oltp arguments");
    let done = rt.block_on(execute(cli)).expect("oltp command");
    assert!(done, "oltp {args:?} completed");
}

fn lengths(report: &serde_json::Value) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["column"].as_str().expect("column").to_string(),
                r["value_bytes"].as_f64().expect("bytes"),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.dedup();
    out
}

#[test]
fn from_mysql_reads_real_lengths_and_oltp_results_compare_with_the_model() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start_server(dir.path());
    let url = server.url();
    let base = dir.path().join("home");
    let base_s = base.to_str().expect("utf-8");
    let data = [
        "--mysql-url",
        &url,
        "--base-dir",
        base_s,
        "--tables",
        "1",
        "--table-size",
        "300",
    ];
    let mut prepare = vec![
        "prepare",
        "--threads",
        "1",
        "--encrypt",
        "none,ring:aes-256-gcm",
    ];
    prepare.extend(data);
    oltp(&prepare);

    let sel = [
        "--backend",
        "ring",
        "--algorithms",
        "aes-256-gcm",
        "--threads",
        "1",
        "--output",
        "json",
    ];
    // Plaintext sysbench table: c is 119 bytes, pad 59 (CHAR drops no digits).
    let mut a = sel.to_vec();
    a.extend(["--from-mysql", &url, "--table", "sbtest.sbtest1"]);
    let r = json(&column_bench(&a));
    assert_eq!(
        lengths(&r),
        vec![("c".to_string(), 119.0), ("pad".to_string(), 59.0)]
    );
    // The same with the password out of argv: the URL without it and the
    // private server's own password file (0600), then MYSQL_PWD.
    let bare = encbench_common::password::without_password(&url);
    let pw_file = server.password_file();
    let mut a = sel.to_vec();
    a.extend(["--from-mysql", &bare, "--table", "sbtest.sbtest1"]);
    a.extend(["--password-file", pw_file.to_str().expect("utf-8")]);
    assert_eq!(lengths(&json(&column_bench(&a))).len(), 2);
    let mut a = sel.to_vec();
    a.extend(["--from-mysql", &bare, "--table", "sbtest.sbtest1"]);
    let o = common::column_bench_cmd(&[&QUICK[..], &a].concat())
        .env("MYSQL_PWD", server.password())
        .output()
        .expect("run column-bench");
    assert_eq!(lengths(&json(&o)).len(), 2);
    assert_eq!(r["settings"]["table"], "sbtest1");
    assert_eq!(r["capacity"][0]["workload"], "oltp_read_only");

    // The encrypted table holds envelopes: 33 bytes more; --mysql-columns picks one.
    let db_url = format!("{url}sbtest_aes_256_gcm");
    let mut a = sel.to_vec();
    a.extend([
        "--from-mysql",
        &db_url,
        "--table",
        "sbtest1",
        "--mysql-columns",
        "pad",
        "--mysql-rows",
        "50",
    ]);
    let r = json(&column_bench(&a));
    assert_eq!(lengths(&r), vec![("pad".to_string(), 92.0)]);

    // Errors that need a server: unknown table, unknown column, no database,
    // a database the server does not have (new-user finding: it was blamed on
    // host, port, user and password).
    let no_db_url = format!("{url}nosuchdb");
    for (extra, needle) in [
        (
            vec!["--from-mysql", no_db_url.as_str(), "--table", "sbtest1"],
            "the URL's database nosuchdb does not exist on that server: end the URL with /DATABASE of an existing one",
        ),
        (
            vec!["--from-mysql", url.as_str(), "--table", "sbtest.nosuch"],
            "does not exist",
        ),
        (
            vec![
                "--from-mysql",
                url.as_str(),
                "--table",
                "sbtest.sbtest1",
                "--mysql-columns",
                "zz",
            ],
            "has no column",
        ),
        (
            vec!["--from-mysql", url.as_str(), "--table", "sbtest1"],
            "DB.TABLE",
        ),
    ] {
        let err = one_error_line(&column_bench(&extra), &extra);
        assert!(err.contains(needle), "{extra:?}: {err}");
        assert!(!err.contains("fix host"), "{extra:?}: {err}");
        if extra[1] == no_db_url {
            assert!(
                err.contains("ERROR 1049 (42000): Unknown database 'nosuchdb'"),
                "the server's error: {err}"
            );
        }
    }

    // oltp run, plaintext and encrypted, then the model beside it.
    let out = dir.path().join("oltp.json");
    let mut run = vec![
        "run",
        "--threads",
        "2",
        "--time",
        "2",
        "--range-size",
        "20",
        "--encrypt",
        "none,ring:aes-256-gcm",
        "--output",
        "json",
        "--json-out",
        out.to_str().expect("utf-8"),
    ];
    run.extend(data);
    oltp(&run);
    let o = column_bench(&[
        "--backend",
        "openssl",
        "--algorithms",
        "aes-256-gcm",
        "--threads",
        "1",
        "--output",
        "json",
        "--oltp-result",
        out.to_str().expect("utf-8"),
    ]);
    let r = json(&o);
    let rows = r["oltp_comparison"].as_array().expect("comparison");
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(row["encrypt"], "ring:aes-256-gcm");
    assert_eq!(row["range_size"], 20);
    // The model: 10 + 3 x 20 = 70 opens of c per transaction.
    let ns_c = r["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|x| {
            x["backend"] == "ring"
                && x["column"] == "c"
                && x["operation"] == "open"
                && x["key_mode"] == "reused"
                && x["path"] == "envelope"
                && x["batch_rows"] == 1
                && x["threads"] == 1
        })
        .and_then(|x| x["ns_per_value"].as_f64())
        .expect("ring was added to the run because the oltp file names it");
    let crypto = row["predicted_crypto_us_per_txn"].as_f64().expect("number");
    assert!((crypto - 70.0 * ns_c / 1000.0).abs() < 1e-6, "{row}");
    // Plus the client-side sort of the ORDER BY and DISTINCT ranges of 20 rows.
    let sort = row["predicted_sort_us_per_txn"].as_f64().expect("number");
    let predicted = row["predicted_us_per_txn"].as_f64().expect("number");
    assert!(
        sort > 0.0 && (predicted - crypto - sort).abs() < 1e-9,
        "{row}"
    );
    assert_eq!(row["rounds"], 1, "{row}");
    assert!(
        row["measured_low_us_per_txn"].is_null(),
        "one round: no interval: {row}"
    );
    let plain = row["plaintext_cpu_us_per_txn"].as_f64().expect("number");
    let enc = row["encrypted_cpu_us_per_txn"].as_f64().expect("number");
    assert!(plain > 0.0 && enc > 0.0, "{row}");
    assert!(
        (row["measured_overhead_us_per_txn"]
            .as_f64()
            .expect("number")
            - (enc - plain))
            .abs()
            < 1e-6
    );

    // A file with only a plaintext run cannot be compared: one line saying what to run.
    let plain_only = dir.path().join("plain.json");
    let mut run = vec![
        "run",
        "--threads",
        "1",
        "--time",
        "1",
        "--encrypt",
        "none",
        "--json-out",
        plain_only.to_str().expect("utf-8"),
    ];
    run.extend(data);
    oltp(&run);
    let o = column_bench(&[
        "--backend",
        "ring",
        "--oltp-result",
        plain_only.to_str().expect("utf-8"),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("--encrypt none,BACKEND:ALGORITHM"),
        "{err}"
    );

    server.stop().expect("stop the private server");
}
