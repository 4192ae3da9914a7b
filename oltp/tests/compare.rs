//! The comparison of `oltp run` on the shared server: the JSON's
//! `comparisons` (per thread count and metric, over paired rounds) and
//! `noise_floor` (`--control`), one round giving "1 round" and no interval,
//! two rounds a headline and no verdict in words (50% intervals), and the
//! refusals of `--control` and `--repeat` before anything runs.
//!
//! Nothing here asserts a verdict that depends on measured noise: only the
//! fields, their types, and what follows from the number of rounds.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

#[allow(dead_code)] // each test binary uses a subset of the helpers
mod common;
use common::{
    AEAD, Cmd, Use, VERDICTS, cli, oltp_bin, once, prepare, read_json, shared_server, utf8,
};

const DB: &str = "cmp";
/// The metrics of a run without the server's CPU (a `--mysql-url` without
/// `--server-pid`).
const METRICS: [&str; 5] = ["qps", "tps", "rt_ms", "p95_ms", "client_cpu_us_per_query"];
/// Every metric, with `--server-pid`.
const ALL_METRICS: [&str; 7] = [
    "qps",
    "tps",
    "rt_ms",
    "p95_ms",
    "client_cpu_us_per_query",
    "server_cpu_us_per_query",
    "total_cpu_us_per_query",
];
/// The base directory (key files) of `none` and [`AEAD`] prepared once in
/// database [`DB`] of the shared server, which the tests only read.
static PREPARED: OnceLock<PathBuf> = OnceLock::new();

fn prepared(t: &Use) -> &'static PathBuf {
    once(&PREPARED, async {
        let base = t.shared.dir().join("cmp-home");
        prepare(&t.url, &base, DB, &format!("none,{AEAD}"), &[]).await;
        base
    })
}

/// `oltp run` arguments on the prepared tables, then `extra`.
/// `oltp run --no-progress` on [`DB`] of `url`, key files in `base`.
fn oltp_run(url: &str, base: &Path) -> Cmd {
    Cmd::mysql("run", url, base, DB).switch("no-progress")
}

fn entries<'a>(report: &'a Value, field: &str) -> &'a Vec<Value> {
    report[field]
        .as_array()
        .unwrap_or_else(|| panic!("{field} must be an array"))
}

/// Every metric of `metrics` once per thread count, with the contract's
/// fields and types.
fn check_entries(
    list: &[Value],
    metrics: &[&str],
    threads: &[u64],
    rounds: u64,
    with_interval: bool,
) {
    assert_eq!(list.len(), metrics.len() * threads.len(), "{list:#?}");
    for t in threads {
        for &m in metrics {
            let e = list
                .iter()
                .find(|e| e["threads"] == *t && e["metric"] == m)
                .unwrap_or_else(|| panic!("no {m} at {t} threads: {list:#?}"));
            assert_eq!(e["rounds"], rounds, "{e}");
            assert!(e["baseline"].is_string() && e["variant"].is_string(), "{e}");
            assert!(e["median_change_pct"].is_f64(), "{e}");
            let v = e["verdict"].as_str().expect("verdict");
            assert!(VERDICTS.contains(&v), "{e}");
            for f in ["ci95_low_pct", "ci95_high_pct", "confidence_pct"] {
                assert_eq!(e[f].is_f64(), with_interval, "{f}: {e}");
                assert_eq!(e[f].is_null(), !with_interval, "{f}: {e}");
            }
            if with_interval {
                let (lo, hi) = (e["ci95_low_pct"].as_f64(), e["ci95_high_pct"].as_f64());
                let med = e["median_change_pct"].as_f64();
                assert!(lo <= med && med <= hi, "{e}");
                assert_ne!(v, "1 round", "{e}");
            } else {
                assert_eq!(v, "1 round", "{e}");
            }
        }
    }
}

#[test]
fn repeated_rounds_with_control_give_intervals_and_a_noise_floor() {
    let t = shared_server();
    let base = prepared(&t);
    let out = t.file("r.json");
    // The server's CPU too: every metric is compared.
    let pid = t.shared.server().pid().to_string();
    let args = oltp_run(&t.url, base)
        .flag("server-pid", &pid)
        .flag("threads", "1,2")
        .encrypt(&format!("none,{AEAD}"))
        .flag("repeat", 3)
        .switch("control")
        .time(0)
        .events(200)
        .flag("output", "json")
        .flag("json-out", utf8(&out))
        .build();
    let complete = common::runtime().block_on(cli(&args));
    assert_eq!(complete, Ok(true));
    let report = read_json(&out);
    // 2 thread counts x 3 rounds x (none, AEAD, none again as the control).
    let runs = entries(&report, "runs");
    assert_eq!(runs.len(), 18);
    let controls: Vec<&Value> = runs.iter().filter(|r| r["control"] == true).collect();
    assert_eq!(controls.len(), 6);
    assert!(controls.iter().all(|r| r["encrypt"] == "none"));
    for thr in [1, 2] {
        let mut rounds: Vec<u64> = controls
            .iter()
            .filter(|r| r["threads"] == thr)
            .map(|r| r["round"].as_u64().expect("round"))
            .collect();
        rounds.sort_unstable();
        assert_eq!(rounds, [1, 2, 3]);
    }
    // The control runs are no mode of their own, nor in the baseline's medians.
    let summary = entries(&report, "summary");
    assert_eq!(summary.len(), 4, "{summary:#?}");
    assert!(summary.iter().all(|s| s["runs"] == 3), "{summary:#?}");
    let comparisons = entries(&report, "comparisons");
    check_entries(comparisons, &ALL_METRICS, &[1, 2], 3, true);
    for c in comparisons {
        assert_eq!(c["baseline"], "none");
        assert_eq!(c["variant"], AEAD);
        // 3 rounds: min..max of the ratios, 75% coverage.
        assert_eq!(c["confidence_pct"], 75.0, "{c}");
    }
    let floor = entries(&report, "noise_floor");
    check_entries(floor, &ALL_METRICS, &[1, 2], 3, true);
    assert!(floor.iter().all(|f| f["variant"] == "none (A/A control)"));
    // The old medians-only array is still there for its readers.
    assert_eq!(entries(&report, "comparison").len(), 2);
    // The CSV marks the control runs too.
    let args = oltp_run(&t.url, base)
        .encrypt("none")
        .switch("control")
        .time(0)
        .events(20)
        .flag("output", "csv")
        .build();
    let bin = oltp_bin(base, &args);
    assert!(bin.status.success(), "{bin:?}");
    let text = String::from_utf8_lossy(&bin.stdout);
    let header = text.lines().next().expect("header");
    // control, then decrypt_errors (since --on-decrypt-error), then the
    // server's CPU and the measured window (schema 4), then the engine, then
    // the at-rest record's other fields (its mechanism is `at_rest`), then
    // --latency-limit's three (empty here: a sysbench workload has no limit).
    assert!(
        header.ends_with(
            ",control,decrypt_errors,server_cpu_s,server_cpu_us_per_query,total_cpu_us_per_query,server_cpu_unavailable,measured_window_start,measured_window_end,engine,at_rest_crypto_driver,at_rest_control_of,at_rest_verified_no_plaintext,latency_limit_ms,latency_limit_late,latency_limit_skipped"
        ),
        "{header}"
    );
    assert!(
        text.lines().skip(1).all(|l| l.ends_with(",mariadb,,,,,,")),
        "every row names the engine (and no at-rest mechanism or latency limit): {text}"
    );
    assert_eq!(text.lines().filter(|l| l.contains(",true,0,")).count(), 1);
}

#[test]
fn one_round_prints_no_percentage() {
    let t = shared_server();
    let base = prepared(&t);
    let out = t.file("one.json");
    let args = oltp_run(&t.url, base)
        .encrypt(&format!("none,{AEAD}"))
        .switch("control")
        .time(0)
        .events(30)
        .flag("json-out", utf8(&out))
        .build();
    let bin = oltp_bin(base, &args);
    assert!(bin.status.success(), "{bin:?}");
    let report = read_json(&out);
    check_entries(entries(&report, "comparisons"), &METRICS, &[1], 1, false);
    check_entries(entries(&report, "noise_floor"), &METRICS, &[1], 1, false);
    let stdout = String::from_utf8_lossy(&bin.stdout);
    let cmp = stdout
        .split("Comparison with the baseline")
        .nth(1)
        .unwrap_or_else(|| panic!("no comparison in {stdout}"));
    assert!(
        cmp.contains("1 round: run --repeat 5 for a comparison"),
        "{cmp}"
    );
    assert!(!cmp.contains('%'), "one round must print no %: {cmp}");
}

#[test]
fn two_rounds_print_a_headline_and_no_verdict_from_their_50_pct_intervals() {
    let t = shared_server();
    let base = prepared(&t);
    let pid = t.shared.server().pid().to_string();
    let args = oltp_run(&t.url, base)
        .flag("server-pid", &pid)
        .flag("threads", "1,2")
        .encrypt(&format!("none,{AEAD}"))
        .flag("repeat", 2)
        .switch("control")
        .time(0)
        .events(100)
        .build();
    let bin = oltp_bin(base, &args);
    assert!(bin.status.success(), "{bin:?}");
    let stdout = String::from_utf8_lossy(&bin.stdout);
    let cmp = stdout
        .split("\nComparison with the baseline")
        .nth(1)
        .unwrap_or_else(|| panic!("no comparison in {stdout}"));
    // What the run showed comes first: per thread count, client CPU and QPS.
    let headline: Vec<&str> = cmp
        .lines()
        .skip_while(|l| !l.starts_with("Headline: "))
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(
        headline.first().copied(),
        Some(format!("Headline: {AEAD} vs none (2 rounds, 50% intervals)").as_str()),
        "{cmp}"
    );
    for (line, threads) in headline[1..3].iter().zip(["1 thread: ", "2 threads:"]) {
        assert!(
            line.starts_with(&format!("  {threads} client CPU per query "))
                && line.contains("; QPS "),
            "{line}\n{cmp}"
        );
    }
    assert!(
        headline.contains(
            &"  No verdicts: 50% intervals miss too often (under 80%); --repeat 5 gives 93.75%."
        ),
        "{cmp}"
    );
    // Every row of the table says no verdict is given, whatever the noise did.
    let rows: Vec<&str> = cmp
        .lines()
        .skip_while(|l| !l.starts_with("Plaintext (none) vs "))
        .skip(3)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(rows.len(), 2 * ALL_METRICS.len(), "{cmp}");
    for row in rows {
        assert!(row.ends_with(" | n/a (50% interval) |"), "{row}");
    }
    for word in ["costlier", "cheaper", "faster", "slower"] {
        assert!(!cmp.contains(word), "{word}: {cmp}");
    }
    for line in cmp.lines() {
        assert!(line.chars().count() <= 100, "over 100 columns: {line}");
    }
}

#[test]
fn bad_comparisons_are_refused_before_anything_runs() {
    let t = shared_server();
    let base = &t.base();
    let out = t.file("never.json");
    let rt = common::runtime();
    let refused = |extra: &[&str]| {
        let mut extra = extra.to_vec();
        extra.extend(["--json-out", utf8(&out)]);
        let e = rt
            .block_on(cli(&oltp_run(&t.url, base).extend(&extra).build()))
            .expect_err("must be refused");
        assert!(!out.exists(), "nothing may run: {extra:?}");
        e
    };
    let e = refused(&["--repeat", "0"]);
    assert!(e.contains("--repeat") && e.contains("0"), "{e}");
    for extra in [
        &["--control", "--encrypt", AEAD][..],
        &["--control", "--tls", "on"][..],
    ] {
        let e = refused(extra);
        assert_eq!(
            e,
            "--control runs the baseline twice per round, but the grid has none: add none to --encrypt and off to --tls"
        );
        assert_eq!(e.lines().count(), 1);
    }
}
