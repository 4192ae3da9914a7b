//! The `column-bench` binary end to end, without a database: the JSON contract,
//! every output format, and one-line errors for bad input.

mod common;

use std::process::Output;

use common::{QUICK, column_bench};
use encbench_test_support::{VERDICTS, one_error_line, usage_error_line};

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

/// A tiny grid for the comparison plumbing: two backends, one column, open.
const TINY: [&str; 14] = [
    "--backend",
    "ring,rustcrypto",
    "--algorithms",
    "aes-256-gcm",
    "--columns",
    "c:119",
    "--operations",
    "open",
    "--key-modes",
    "reused",
    "--threads",
    "1",
    "--batches",
    "1",
];

fn tiny(extra: &[&str]) -> String {
    let mut a: Vec<&str> = QUICK.to_vec();
    a.extend(TINY);
    a.extend(extra);
    stdout(&column_bench(&a))
}

#[test]
fn comparisons_pair_the_rounds_and_one_round_prints_no_percent() {
    for rounds in ["1", "3"] {
        let json: serde_json::Value = serde_json::from_str(&tiny(&[
            "--rounds",
            rounds,
            "--baseline",
            "rustcrypto",
            "--output",
            "json",
        ]))
        .expect("valid JSON");
        let cs = json["comparisons"].as_array().expect("comparisons array");
        // ring and rustcrypto envelope vs bare; ring vs rustcrypto on both paths.
        assert_eq!(cs.len(), 4, "{cs:?}");
        let find = |kind: &str, variant: &str| {
            cs.iter()
                .find(|c| c["kind"] == kind && c["variant"] == variant)
                .unwrap_or_else(|| panic!("no {kind} {variant} in {cs:?}"))
        };
        let e = find("envelope_vs_bare", "ring:aes-256-gcm envelope");
        assert_eq!(e["baseline"], "ring:aes-256-gcm bare");
        let b = find("between_backends", "ring:aes-256-gcm envelope");
        assert_eq!(b["baseline"], "rustcrypto:aes-256-gcm envelope");
        for c in cs {
            assert_eq!(c["metric"], "ns_per_value");
            assert_eq!(c["rounds"].as_u64(), Some(rounds.parse().expect("n")));
            assert_eq!(c["column"], "c");
            assert_eq!(c["operation"], "open");
            assert_eq!(c["key_mode"], "reused");
            assert_eq!(c["batch_rows"], 1);
            assert_eq!(c["threads"], 1);
            assert!(c["baseline_median"].as_f64().expect("ns") > 0.0, "{c}");
            assert!(c["median_change_pct"].as_f64().is_some(), "{c}");
            if rounds == "1" {
                assert!(c["ci95_low_pct"].is_null() && c["ci95_high_pct"].is_null());
                assert_eq!(c["verdict"], "1 round");
            } else {
                let (lo, hi) = (
                    c["ci95_low_pct"].as_f64().expect("low"),
                    c["ci95_high_pct"].as_f64().expect("high"),
                );
                let mid = c["median_change_pct"].as_f64().expect("change");
                assert!(lo <= mid && mid <= hi, "{c}");
                assert_eq!(c["confidence_pct"].as_f64(), Some(75.0), "{c}");
                assert_ne!(c["verdict"], "1 round");
            }
        }
    }
    // The CSV's comparisons section: the same 4 rows; the change and its
    // interval only with more than one round.
    for rounds in ["1", "3"] {
        let csv = tiny(&["--rounds", rounds, "--output", "csv"]);
        // results, capacity (the default workload), comparisons: told apart by
        // their first header field.
        let sections: Vec<&str> = csv.split("\n\n").collect();
        assert_eq!(sections.len(), 3, "results, capacity, comparisons: {csv}");
        assert!(sections[0].starts_with("backend,") && sections[1].starts_with("workload,"));
        let mut lines = sections[2].lines();
        let header: Vec<&str> = lines.next().expect("header").split(',').collect();
        assert_eq!(header[0], "kind", "{header:?}");
        let col = |name: &str| {
            header
                .iter()
                .position(|h| *h == name)
                .unwrap_or_else(|| panic!("no {name} in {header:?}"))
        };
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), 4, "{csv}");
        for row in &rows {
            assert_eq!(row.len(), header.len(), "{row:?}");
            assert_eq!(row[col("rounds")], rounds);
            assert!(row[col("baseline_median")].parse::<f64>().expect("ns") > 0.0);
            let pct = ["median_change_pct", "ci95_low_pct", "ci95_high_pct"];
            if rounds == "1" {
                assert!(pct.iter().all(|f| row[col(f)].is_empty()), "{row:?}");
                assert_eq!(row[col("verdict")], "1 round");
            } else {
                let v: Vec<f64> = pct
                    .iter()
                    .map(|f| row[col(f)].parse().expect("percent"))
                    .collect();
                assert!(v[1] <= v[0] && v[0] <= v[2], "{row:?}");
                assert_eq!(row[col("confidence_pct")], "75.0");
            }
        }
        assert!(
            rows.iter().any(|r| r[col("kind")] == "envelope_vs_bare"
                && r[col("variant")] == "ring:aes-256-gcm envelope"
                && r[col("baseline")] == "ring:aes-256-gcm bare"),
            "{csv}"
        );
    }
    let one = tiny(&["--rounds", "1"]);
    let section = one
        .split_once("Envelope (B) vs bare AEAD (A)")
        .expect("envelope vs bare table")
        .1;
    assert!(
        section.contains("1 round: run --rounds 5 for a comparison"),
        "{section}"
    );
    assert!(!section.contains('%'), "one round prints no %: {section}");
    let three = tiny(&["--rounds", "3"]);
    let section = three
        .split_once("Envelope (B) vs bare AEAD (A)")
        .expect("envelope vs bare table")
        .1;
    assert!(section.contains("75% CI"), "{section}");
    assert!(section.contains("3 paired rounds"), "{section}");
    // The default baseline is the first backend in name order: ring.
    assert!(
        three.contains("rustcrypto:aes-256-gcm vs ring:aes-256-gcm"),
        "{three}"
    );
}

#[test]
fn control_measures_the_baselines_twice_and_gives_a_floor_per_point() {
    let json: serde_json::Value =
        serde_json::from_str(&tiny(&["--rounds", "2", "--control", "--output", "json"]))
            .expect("valid JSON");
    assert_eq!(json["settings"]["control"], true);
    let floors = json["noise_floor"].as_array().expect("noise_floor array");
    // The bare twins of both backends and the baseline backend's (ring's)
    // envelope: one floor each.
    let mut bases: Vec<&str> = floors
        .iter()
        .map(|f| f["baseline"].as_str().expect("baseline"))
        .collect();
    bases.sort_unstable();
    assert_eq!(
        bases,
        [
            "ring:aes-256-gcm bare",
            "ring:aes-256-gcm envelope",
            "rustcrypto:aes-256-gcm bare"
        ],
        "{floors:?}"
    );
    for f in floors {
        assert_eq!(f["kind"], "noise_floor");
        assert_eq!(f["metric"], "ns_per_value");
        assert_eq!(
            f["variant"].as_str(),
            Some(format!("{} (A/A control)", f["baseline"].as_str().expect("b")).as_str())
        );
        assert_eq!(f["rounds"], 2);
        assert_eq!(
            (f["column"].as_str(), f["operation"].as_str()),
            (Some("c"), Some("open"))
        );
        let (lo, hi) = (
            f["ci95_low_pct"].as_f64().expect("low"),
            f["ci95_high_pct"].as_f64().expect("high"),
        );
        assert!(lo <= hi, "{f}");
        assert_eq!(f["confidence_pct"].as_f64(), Some(50.0), "{f}");
        assert!(
            VERDICTS.contains(&f["verdict"].as_str().expect("verdict")),
            "{f}"
        );
    }
    // Every comparison's verdict is the one its interval and its baseline's
    // floor give (the floor decides "within noise floor").
    let cs = json["comparisons"].as_array().expect("comparisons");
    assert_eq!(cs.len(), 4, "{cs:?}");
    for c in cs {
        let floor = floors
            .iter()
            .find(|f| f["baseline"] == c["baseline"])
            .unwrap_or_else(|| panic!("no floor for {c}"));
        let interval =
            |x: &serde_json::Value| x["ci95_low_pct"].as_f64().zip(x["ci95_high_pct"].as_f64());
        let want = encbench_common::compare::verdict(interval(c), interval(floor));
        assert_eq!(c["verdict"], want.as_str(), "{c} with floor {floor}");
        assert!(
            VERDICTS.contains(&c["verdict"].as_str().expect("verdict")),
            "{c}"
        );
    }
    // Text: an A/A row in each comparison table and the floor's note.
    let text = tiny(&["--rounds", "2", "--control"]);
    let (_, envelope) = text
        .split_once("Envelope (B) vs bare AEAD (A)")
        .expect("envelope vs bare table");
    let (envelope, backends) = envelope
        .split_once("Backends (B) vs the baseline backend (A)")
        .expect("backends table");
    for (table, row) in [
        (envelope, "ring:aes-256-gcm bare A/A"),
        (envelope, "rustcrypto:aes-256-gcm bare A/A"),
        (backends, "ring:aes-256-gcm envelope A/A"),
    ] {
        assert!(
            table
                .lines()
                .any(|l| l.starts_with(row) && l.ends_with("noise floor")),
            "no {row}: {table}"
        );
    }
    assert!(
        text.contains("Noise floor on this machine now (--control)"),
        "{text}"
    );
    // CSV: the floors follow the comparisons in their section.
    let csv = tiny(&["--rounds", "2", "--control", "--output", "csv"]);
    let section = csv.split("\n\n").nth(2).expect("comparisons section");
    assert!(section.starts_with("kind,"), "{section}");
    let kinds: Vec<&str> = section
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().expect("kind"))
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == "noise_floor").count(),
        3,
        "{csv}"
    );
    assert_eq!(kinds.len(), 7, "{csv}");
}

#[test]
fn control_with_one_round_says_there_is_no_floor_and_prints_no_percent() {
    let json: serde_json::Value =
        serde_json::from_str(&tiny(&["--rounds", "1", "--control", "--output", "json"]))
            .expect("valid JSON");
    assert_eq!(json["settings"]["control"], true);
    assert_eq!(json["noise_floor"].as_array().map(Vec::len), Some(0));
    for c in json["comparisons"].as_array().expect("comparisons") {
        assert_eq!(c["verdict"], "1 round", "{c}");
    }
    let text = tiny(&["--rounds", "1", "--control"]);
    let (_, section) = text
        .split_once("Envelope (B) vs bare AEAD (A)")
        .expect("envelope vs bare table");
    assert!(!section.contains('%'), "one round prints no %: {section}");
    assert!(!section.contains("gcm A/A"), "no A/A rows: {section}");
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("1 round gives no noise floor"))
        .collect();
    assert_eq!(
        lines,
        [
            "--control: 1 round gives no noise floor (no A/A pairs to compare): run --rounds 5 --control"
        ],
        "{text}"
    );
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
    let sections: Vec<&str> = csv.split("\n\n").collect();
    let [results, capacity, comparisons] = sections[..] else {
        panic!("results, capacity, comparisons: {csv}");
    };
    assert!(
        comparisons.starts_with("kind,column,operation,"),
        "{comparisons}"
    );
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
    // Password files holding "secretpw", which no message may show.
    let pw_file = |name: &str, mode: u32| {
        use std::os::unix::fs::PermissionsExt as _;
        let p = dir.path().join(name);
        std::fs::write(&p, "secretpw-in-a-file\n").expect("write");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).expect("chmod");
        p.to_str().expect("utf-8").to_string()
    };
    let (pw_good, pw_open) = (pw_file("pw", 0o600), pw_file("pw-open", 0o644));
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "--from-mysql",
                "mysql://u:secretpw@127.0.0.1:1/db",
                "--password-file",
                &pw_good,
                "--table",
                "t",
            ],
            "give one or the other",
        ),
        (
            vec![
                "--from-mysql",
                "mysql://u@127.0.0.1:1/db",
                "--password-file",
                &pw_open,
                "--table",
                "t",
            ],
            "run `chmod 600",
        ),
        (
            vec![
                "--from-mysql",
                "mysql://u:p@secretpw@127.0.0.1:1/db",
                "--table",
                "t",
            ],
            "percent-encode @ as %40 in the password",
        ),
        (
            vec![
                "--from-mysql",
                "mysql://u@127.0.0.1:1/db",
                "--password-file",
                &pw_good,
                "--table",
                "t",
            ],
            "start the server",
        ),
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
            // The fix keeps the password off the command line.
            "use mysql://USER@HOST:PORT/DATABASE, the password in --password-file F or $MYSQL_PWD",
        ),
        (
            vec!["--schema-file", "/nonexistent/schema"],
            "--schema-file",
        ),
        (
            vec!["--oltp-result", "/nonexistent/r.json"],
            "--oltp-result",
        ),
        // New-user finding: files named by a flag were read without bound.
        (
            vec!["--schema-file", "/dev/zero"],
            "--schema-file /dev/zero is a character device, not a regular file: give a schema file of NAME:LENGTHS lines",
        ),
        (
            vec!["--oltp-result", "/dev/zero"],
            "--oltp-result /dev/zero is a character device, not a regular file: give the --json-out report of an oltp run",
        ),
        (
            vec!["--oltp-result", oltp_garbage.to_str().expect("utf-8")],
            "oltp run --json-out",
        ),
        (vec!["--target-qps=-5"], "--target-qps"),
        (vec!["--threads", "0"], "--threads"),
        (
            vec!["--backend", "ring,openssl", "--baseline", "rustcrypto"],
            "--baseline",
        ),
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
        let err = one_error_line(&column_bench(&a), &args);
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
    let err = one_error_line(&column_bench(&a), &a);
    assert!(
        err.contains(&format!("directory {} does not exist", missing.display()))
            && err.contains("create it first"),
        "{err}"
    );
    assert!(!missing.exists());
}

#[test]
fn usage_errors_are_one_line_naming_the_value_with_exit_2() {
    let cases: [(&[&str], &[&str]); 6] = [
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
        (&["--rounds", "0"], &["'0'", "--rounds", "1..=100"]),
    ];
    for (args, needles) in cases {
        let err = usage_error_line(&column_bench(args), args);
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

#[test]
fn json_out_writes_the_json_report_while_the_output_goes_to_stdout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("report.json");
    let json_s = json.to_str().expect("utf-8");
    let text = tiny(&["--json-out", json_s]);
    assert!(text.contains("Proxy capacity"), "text on stdout: {text}");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("--json-out written"))
            .expect("the file is JSON");
    assert_eq!(report["tool"]["name"], "column-bench", "{report}");
    let results = report["results"].as_array().expect("results");
    assert!(
        results
            .iter()
            .any(|r| r["backend"] == "ring" && r["column"] == "c"),
        "{results:?}"
    );
    // No temporary file is left beside it.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .expect("read dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("report.json")]);

    // One file for both, or a missing directory: refused before the run, nothing written.
    let same = dir.path().join("same.out");
    let same_s = same.to_str().expect("utf-8");
    let missing = dir.path().join("no/such/r.json");
    for (extra, needle) in [
        (
            vec!["--json-out", same_s, "--svg", same_s],
            "--json-out and --svg are the same file",
        ),
        (
            vec!["--json-out", missing.to_str().expect("utf-8")],
            "--json-out",
        ),
    ] {
        let mut a: Vec<&str> = QUICK.to_vec();
        a.extend(TINY);
        a.extend(&extra);
        let err = one_error_line(&column_bench(&a), &extra);
        assert!(err.contains(needle), "{extra:?}: {err}");
    }
    assert!(!same.exists() && !missing.exists());
}
