//! The `column-bench` binary end to end, without a database: the JSON contract,
//! every output format, and one-line errors for bad input.

mod common;

use std::process::Output;

use common::{QUICK, column_bench};

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "column-bench failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

#[test]
fn default_shape_json_has_c_and_pad_for_every_backend_and_the_read_only_capacity() {
    let mut args = QUICK.to_vec();
    args.extend(["--output", "json"]);
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&column_bench(&args))).expect("valid JSON");
    let results = json["results"].as_array().expect("results array");
    let capacity = json["capacity"].as_array().expect("capacity array");
    for r in results {
        for field in [
            "backend",
            "algorithm",
            "column",
            "value_bytes",
            "key_mode",
            "threads",
            "ns_per_value",
            "values_per_sec",
        ] {
            assert!(!r[field].is_null(), "result lacks {field}: {r}");
        }
        assert!(r["ns_per_value"].as_f64().expect("number") > 0.0, "{r}");
    }
    for backend in encbench_registry::backends() {
        for algorithm in ["aes-256-gcm", "chacha20-poly1305"] {
            for (column, bytes) in [("c", 119.0), ("pad", 59.0)] {
                let found = results.iter().any(|r| {
                    r["backend"] == backend
                        && r["algorithm"] == algorithm
                        && r["column"] == column
                        && r["value_bytes"].as_f64() == Some(bytes)
                        && r["key_mode"] == "reused"
                        && r["path"] == "envelope"
                        && r["operation"] == "open"
                        && r["threads"] == 1
                });
                assert!(found, "no open of {column} for {backend}:{algorithm}");
            }
            let cap = capacity
                .iter()
                .find(|c| {
                    c["workload"] == "oltp_read_only"
                        && c["backend"] == backend
                        && c["algorithm"] == algorithm
                })
                .unwrap_or_else(|| panic!("no capacity row for {backend}:{algorithm}"));
            let us = cap["decrypt_us_per_txn"].as_f64().expect("number");
            let sort = cap["client_sort_us_per_txn"].as_f64().expect("number");
            let tps = cap["txn_per_sec_per_core"].as_f64().expect("number");
            assert!(us > 0.0 && sort > 0.0, "{cap}");
            assert!((tps * (us + sort) - 1e6).abs() < 1.0, "{cap}");
            assert_eq!(cap["opens_per_txn"].as_f64(), Some(310.0));
        }
    }
    // Every key mode and path of the default grid is there, and the thread scaling.
    for (key_mode, path) in [
        ("reused", "bare"),
        ("per_value", "envelope"),
        ("per_value", "bare"),
    ] {
        assert!(
            results
                .iter()
                .any(|r| r["key_mode"] == key_mode && r["path"] == path),
            "{key_mode} {path}"
        );
    }
    for batch in [10, 100] {
        assert!(results.iter().any(|r| r["batch_rows"] == batch));
    }
    assert!(results.iter().any(|r| r["operation"] == "seal"));
    assert!(json["rows"].as_array().expect("rows").len() >= 8);
}

#[test]
fn text_csv_markdown_and_svg() {
    let dir = tempfile::tempdir().expect("tempdir");
    let svg = dir.path().join("chart.svg");
    let svg_s = svg.to_str().expect("utf-8");
    let common = [
        "--backend",
        "ring",
        "--algorithms",
        "aes-256-gcm",
        "--columns",
        "c:119,pad:59,note:10-300",
        "--workloads",
        "oltp_read_only,oltp_read_write",
        "--mix",
        "reports;queries=3;open=note*50",
        "--threads",
        "1",
    ];
    let run = |extra: &[&str]| {
        let mut a: Vec<&str> = QUICK.to_vec();
        a.extend(common);
        a.extend(extra);
        stdout(&column_bench(&a))
    };
    let text = run(&["--svg", svg_s]);
    assert!(text.contains("Proxy capacity"), "{text}");
    assert!(
        text.contains("oltp_read_write") && text.contains("reports"),
        "{text}"
    );
    let chart = std::fs::read_to_string(&svg).expect("svg written");
    assert!(chart.starts_with("<svg") && chart.contains("ring:aes-256-gcm"));
    let md = run(&["--output", "markdown"]);
    assert!(md.contains("| workload | backend:algorithm |"), "{md}");
    let csv = run(&["--output", "csv"]);
    let (results, capacity) = csv.split_once("\n\n").expect("two CSV sections");
    let header = results.lines().next().expect("header");
    assert!(
        header.starts_with("backend,algorithm,column,value_bytes,"),
        "{header}"
    );
    let note_bytes: f64 = results
        .lines()
        .find(|l| l.contains(",note,"))
        .and_then(|l| l.split(',').nth(3))
        .and_then(|b| b.parse().ok())
        .expect("a note row with value_bytes");
    assert!(
        (100.0..=210.0).contains(&note_bytes),
        "mean of 10-300: {note_bytes}"
    );
    assert!(
        capacity.starts_with("workload,backend,algorithm,"),
        "{capacity}"
    );
    assert_eq!(
        capacity.lines().count(),
        4,
        "header + 3 workloads: {capacity}"
    );
    assert_csv_rounded(results, capacity);
    // The SVG has the mode of any new file, not the temporary file's 0600.
    {
        use std::os::unix::fs::PermissionsExt as _;
        let reference = dir.path().join("reference");
        std::fs::write(&reference, b"").expect("write");
        let mode =
            |p: &std::path::Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode(&svg), mode(&reference), "0666 minus the umask");
    }
}

/// The CSV's rates and times are rounded as in the text table: ns and MB/s to
/// 0.1, values/s and per-core rates to integers, µs and cores to 0.01.
fn assert_csv_rounded(results: &str, capacity: &str) {
    let decimals = |cell: &str| cell.split_once('.').map_or(0, |(_, d)| d.len());
    let check = |table: &str, rules: &[(&str, usize)]| {
        let mut lines = table.lines();
        let header: Vec<&str> = lines.next().expect("header").split(',').collect();
        let mut rows = 0;
        for line in lines {
            let cells: Vec<&str> = line.split(',').collect();
            assert_eq!(cells.len(), header.len(), "{line}");
            for (field, want) in rules {
                let i = header
                    .iter()
                    .position(|h| h == field)
                    .unwrap_or_else(|| panic!("no {field} in {header:?}"));
                assert!(cells[i].parse::<f64>().is_ok(), "{field}: {line}");
                assert_eq!(decimals(cells[i]), *want, "{field} in {line}");
            }
            rows += 1;
        }
        assert!(rows > 0, "{table}");
    };
    check(
        results,
        &[
            ("value_bytes", 1),
            ("ns_per_value", 1),
            ("ns_per_value_p10", 1),
            ("ns_per_value_p90", 1),
            ("values_per_sec", 0),
            ("mb_per_sec", 1),
        ],
    );
    check(
        capacity,
        &[
            ("decrypt_us_per_txn", 2),
            ("client_sort_us_per_txn", 2),
            ("seal_us_per_txn", 2),
            ("txn_per_sec_per_core", 0),
            ("qps_per_core", 0),
            ("cores_for_target", 2),
        ],
    );
}

#[test]
fn json_has_the_header_of_every_encbench_result() {
    let out = column_bench(&[
        "--algorithm",
        "ring:aes-256-gcm",
        "--columns",
        "c:119",
        "--operations",
        "open",
        "--key-modes",
        "reused",
        "--paths",
        "envelope",
        "--batches",
        "1",
        "--threads",
        "1",
        "--warmup-ms",
        "0",
        "--measure-ms",
        "5",
        "--corpus-rows",
        "10",
        "--output",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("valid JSON");
    // schema_version integer, tool {name, version, git_revision}, RFC 3339
    // started_at <= ended_at, machine {cpu_model, cpu_flags list, logical_cpus, kernel}.
    encbench_common::header::check_json(&v).expect("the result header contract");
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["tool"]["name"], "column-bench");
    assert_eq!(v["tool"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(v["machine"]["cpu_flags"].is_array());
    // The fields from before the header stay.
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["settings"]["columns"][0], "c:119");
    assert_eq!(v["results"].as_array().expect("results").len(), 1);
}

#[test]
fn list_backends_names_every_compiled_in_algorithm() {
    let out = stdout(&column_bench(&["--list-backends"]));
    for name in encbench_registry::names() {
        assert!(out.contains(&name), "{name} missing: {out}");
    }
    assert!(out.contains("key 32 B  nonce 12 B  tag 16 B"), "{out}");
    assert!(out.contains("CPU:") && out.contains("features:"), "{out}");
}

#[test]
fn bad_input_is_a_one_line_error_with_the_fix() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing_dir_svg = dir.path().join("no/such/dir/chart.svg");
    let oltp_garbage = dir.path().join("garbage.json");
    std::fs::write(&oltp_garbage, "{\"tool\": \"oltp\"}").expect("write");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--backend", "nosuch"], "--list-backends"),
        (vec!["--algorithms", "rot13"], "aes-256-gcm"),
        (vec!["--algorithm", "ring:aes-999-gcm"], "valid names"),
        (vec!["--columns", "c"], "NAME:BYTES"),
        (vec!["--columns", "c:abc"], "NAME:BYTES"),
        (vec!["--columns", "c:9-3"], "MIN > MAX"),
        (vec!["--columns", "c:1,c:2"], "twice"),
        (
            vec!["--columns", "x:10", "--workloads", "oltp_read_only"],
            "add c:BYTES",
        ),
        (vec!["--workloads", "tpcc"], "--mix"),
        (vec!["--mix", "x;open=c*1"], "queries=Q"),
        (
            vec![
                "--from-mysql",
                "mysql://u:secretpw@127.0.0.1:1/db",
                "--table",
                "t",
            ],
            "start the server",
        ),
        (
            vec!["--from-mysql", "http://nope", "--table", "t"],
            "mysql://",
        ),
        (
            vec!["--schema-file", "/nonexistent/schema"],
            "--schema-file",
        ),
        (
            vec!["--oltp-result", "/nonexistent/r.json"],
            "--oltp-result",
        ),
        (
            vec!["--oltp-result", oltp_garbage.to_str().expect("utf-8")],
            "oltp run --json-out",
        ),
        (vec!["--target-qps=-5"], "--target-qps"),
        (vec!["--threads", "0"], "--threads"),
        (vec!["--no-such-flag"], "--help"),
        (
            vec![
                "--backend",
                "ring",
                "--algorithms",
                "aes-256-gcm",
                "--columns",
                "c:16",
                "--svg",
                missing_dir_svg.to_str().expect("utf-8"),
            ],
            "--svg",
        ),
    ];
    for (args, needle) in cases {
        let mut a: Vec<&str> = QUICK.to_vec();
        a.extend(&args);
        let o = column_bench(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} must fail");
        assert!(o.stdout.is_empty(), "{args:?}: nothing on stdout on error");
        assert!(err.starts_with("Error: "), "{args:?}: {err}");
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{args:?}: one line: {err}"
        );
        assert!(
            err.contains(needle),
            "{args:?}: expected {needle:?} in {err}"
        );
        assert!(
            !err.contains("panicked") && !err.contains("secretpw"),
            "{args:?}: {err}"
        );
        // mysql_async's I/O error repeats its prefix: printed once.
        assert!(
            err.matches("Input/output error").count() <= 1,
            "{args:?}: {err}"
        );
    }
    assert!(!missing_dir_svg.exists());
    assert!(!missing_dir_svg.parent().expect("parent").exists());
}

#[test]
fn a_missing_svg_directory_names_it_and_the_fix() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("charts");
    let svg = missing.join("chart.svg");
    let mut a: Vec<&str> = QUICK.to_vec();
    a.extend(["--svg", svg.to_str().expect("utf-8")]);
    let o = column_bench(&a);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("directory {} does not exist", missing.display()))
            && err.contains("create it first"),
        "{err}"
    );
    assert!(!missing.exists());
}

#[test]
fn usage_errors_are_one_line_naming_the_value_with_exit_2() {
    let cases: [(&[&str], &[&str]); 5] = [
        (
            &["--output", "xml"],
            &[
                "'xml'",
                "--output",
                "possible values: text, json, csv, markdown",
            ],
        ),
        (&["--threads", "0"], &["'0'", "--threads", "1..=1024"]),
        (
            &["--key-modes", "reused,perfect"],
            &["'perfect'", "possible values:"],
        ),
        (&["--no-such-flag"], &["'--no-such-flag'"]),
        (&["--rounds", "x"], &["'x'", "--rounds"]),
    ];
    for (args, needles) in cases {
        let o = column_bench(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("Error: "), "{args:?}: {err}");
        assert!(
            err.trim_end().ends_with("see column-bench --help"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("similar value"), "{args:?}: {err}");
        for n in needles {
            assert!(err.contains(n), "{args:?}: {n:?} not in {err}");
        }
    }
    for args in [["--help"], ["--version"]] {
        let o = column_bench(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stdout).contains("column-bench"));
    }
}
