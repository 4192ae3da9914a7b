//! The write workloads, sysbench's options and counting, ignored errors,
//! `--events`, `--warmup` and `--report-interval`, against one real private
//! MariaDB server (no mocks) shared by the tests of this file: the write
//! workloads on database `wlw`, every other test on `wlo` (prepared once).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use encbench_oltp::columns::keys::load_cipher;
use encbench_oltp::columns::{Codec, Encrypt};
use encbench_oltp::driver::ConnectOptions;
use encbench_oltp::driver::mysql::mysql_opts;
use mysql_async::prelude::*;
use serde_json::Value;

#[allow(dead_code)] // each test binary uses a subset of the helpers
mod common;
use common::{
    AEAD, Cmd, ROWS, Rows, TABLES, Use, cli, kind_count, oltp_bin, once, prepare, read_json,
    runtime, shared_server, shared_server_alone, strings, table_rows, u, utf8,
};

/// `run` with `--output json --json-out out`; the parsed JSON report.
async fn run_json(run: Cmd, out: &Path) -> Value {
    let args = run
        .flag("output", "json")
        .flag("json-out", utf8(out))
        .build();
    let r = cli(&args).await;
    assert_eq!(r, Ok(true), "{args:?}");
    read_json(out)
}

/// `oltp run` on the tables of `db` of `url`, key files in `base` ([`Cmd::mysql`]).
fn oltp_run(url: &str, base: &Path, db: &str) -> Cmd {
    Cmd::mysql("run", url, base, db)
}

/// `--start-at` `secs` seconds from now (RFC 3339 UTC).
fn start_at(secs: i64) -> String {
    let at = time::OffsetDateTime::now_utc() + time::Duration::seconds(secs);
    at.format(&time::format_description::well_known::Rfc3339)
        .expect("RFC 3339")
}

/// Database `wlo`: plaintext and [`AEAD`], prepared once; its base directory.
static OTHERS: OnceLock<PathBuf> = OnceLock::new();

fn others(t: &Use) -> (String, PathBuf, &'static str, PathBuf) {
    let base = once(&OTHERS, async {
        let base = t.shared.dir().join("wlo-home");
        prepare(&t.url, &base, "wlo", &format!("none,{AEAD}"), &[]).await;
        base
    });
    (t.url.clone(), base.clone(), "wlo", t.file("r.json"))
}

#[test]
fn write_workloads_count_like_sysbench_and_leave_equal_tables() {
    let t = shared_server();
    let (url, base, out) = (t.url.clone(), t.base(), t.file("r.json"));
    runtime().block_on(async {
        let db = "wlw";
        prepare(&url, &base, db, &format!("none,{AEAD}"), &[]).await;
        // Each write workload on the plaintext and the encrypted tables, one thread,
        // the same seed and event count: the same statements with the same values.
        // (queries per event: read, write, other; oltp_delete's are checked apart.)
        let workloads: [(&str, u64, u64, u64); 6] = [
            ("oltp_read_write", 14, 4, 2),
            ("oltp_write_only", 0, 4, 2),
            ("oltp_update_index", 0, 1, 0),
            ("oltp_update_non_index", 0, 1, 0),
            ("oltp_delete", 0, 0, 0),
            ("oltp_insert", 0, 1, 0),
        ];
        // A seed per workload: with one seed, a later workload could write a value
        // an earlier one already wrote (an UPDATE that changes nothing is "other").
        for (i, (workload, read, write, other)) in workloads.into_iter().enumerate() {
            let seed = (100 + i).to_string();
            let cmd = oltp_run(&url, &base, db)
                .workload(workload)
                .encrypt(&format!("none,{AEAD}"))
                .threads(1)
                .events(60)
                .time(0)
                .flag("rand-seed", seed)
                .flag("rand-type", "uniform");
            let report = run_json(cmd, &out).await;
            let runs = report["runs"].as_array().expect("runs");
            assert_eq!(runs.len(), 2);
            for run in runs {
                assert_eq!(run["workload"], workload);
                let tx = u(&run["transactions"]);
                assert_eq!(tx, 60, "--events 60 runs exactly 60 events: {run}");
                let q = &run["queries"];
                if workload == "oltp_delete" {
                    assert_eq!(u(&q["write"]) + u(&q["other"]), tx, "{workload}: {q}");
                    assert!(u(&q["write"]) > 0, "{workload} deleted rows: {q}");
                } else {
                    assert_eq!(
                        (u(&q["read"]), u(&q["write"]), u(&q["other"])),
                        (read * tx, write * tx, other * tx),
                        "{workload}: {run}"
                    );
                }
                assert_eq!(
                    u(&q["total"]),
                    u(&q["read"]) + u(&q["write"]) + u(&q["other"])
                );
                assert_eq!(run["errors"], 0);
                // Per-statement latency: every kind the script runs, each in [min, max].
                for st in run["statements"].as_array().expect("statements") {
                    let l = &st["latency_ms"];
                    let f = |k: &str| l[k].as_f64().expect("latency");
                    assert!(
                        f("min") > 0.0 && f("min") <= f("p50") && f("p50") <= f("p95"),
                        "{st}"
                    );
                    assert!(
                        f("p95") <= f("p99") && f("p99") <= f("max") && f("avg") <= f("max"),
                        "{st}"
                    );
                }
            }
            assert_eq!(
                runs[0]["queries"], runs[1]["queries"],
                "{workload}: plaintext and encrypted runs send the same statements"
            );
            if workload == "oltp_read_write" {
                let run = &runs[1];
                for (kind, per_event) in [
                    ("begin", 1),
                    ("commit", 1),
                    ("point_select", 10),
                    ("simple_range", 1),
                    ("sum_range", 1),
                    ("order_range", 1),
                    ("distinct_range", 1),
                    ("index_update", 1),
                    ("non_index_update", 1),
                    ("delete", 1),
                    ("insert", 1),
                ] {
                    assert_eq!(kind_count(run, kind), per_event * 60, "{kind}");
                }
            }
        }

        // Every row of the encrypted tables opens, and equals the plaintext row.
        // oltp_insert's rows differ in id only (auto-increment there, unique
        // client ids under encryption, since the AAD needs the id), so they are
        // compared as a multiset of (k, c, pad).
        let cipher = load_cipher(Encrypt::parse(AEAD).expect("name"), None, &base).expect("key");
        let codec = Codec::encrypted(cipher.expect("aead"));
        let (mut added_plain, mut added_enc) = (0, 0);
        for n in 1..=TABLES {
            let plain = table_rows(&url, db, n, &Codec::plaintext()).await;
            let enc = table_rows(&url, "wlw_aes_256_gcm", n, &codec).await;
            let prepared = |rows: &Rows| -> Rows {
                rows.iter()
                    .filter(|(id, _)| (1..=i64::from(ROWS)).contains(id))
                    .map(|(i, v)| (*i, v.clone()))
                    .collect()
            };
            let inserted = |rows: &Rows| -> Vec<(i64, Vec<u8>, Vec<u8>)> {
                let mut v: Vec<_> = rows
                    .iter()
                    .filter(|(id, _)| !(1..=i64::from(ROWS)).contains(id))
                    .map(|(_, v)| v.clone())
                    .collect();
                v.sort();
                v
            };
            assert_eq!(
                prepared(&plain),
                prepared(&enc),
                "sbtest{n}: rows 1..=1000 after the write runs"
            );
            assert!(
                prepared(&plain).len() < ROWS as usize,
                "oltp_delete removed rows of sbtest{n}"
            );
            assert_eq!(
                inserted(&plain),
                inserted(&enc),
                "sbtest{n}: rows added by oltp_insert"
            );
            assert!(
                plain.keys().all(|id| *id > 0),
                "plaintext oltp_insert uses auto-increment ids"
            );
            added_plain += inserted(&plain).len();
            added_enc += enc.keys().filter(|id| **id < 0).count();
        }
        assert_eq!(
            (added_plain, added_enc),
            (60, 60),
            "oltp_insert added one row per event"
        );
    });
}

#[test]
fn sysbench_options_change_what_an_event_sends() {
    let t = shared_server();
    let (url, base, db, out) = others(&t);
    runtime().block_on(async {
        // sysbench's options change what an event sends.
        let cmd = oltp_run(&url, &base, db)
            .workload("oltp_read_only")
            .switch("skip-trx")
            .flag("range-selects", "off")
            .flag("point-selects", 3)
            .events(40)
            .time(0);
        let report = run_json(cmd, &out).await;
        let run = &report["runs"][0];
        assert_eq!(run["queries"]["read"], 120);
        assert_eq!(
            run["queries"]["other"], 0,
            "--skip-trx sends no BEGIN/COMMIT"
        );
        assert_eq!(kind_count(run, "simple_range"), 0);
        assert_eq!(run["options"]["skip_trx"], true);
        let cmd = oltp_run(&url, &base, db)
            .workload("oltp_write_only")
            .flag("index-updates", 0)
            .flag("non-index-updates", 2)
            .flag("delete-inserts", 2)
            .events(20)
            .time(0)
            .encrypt(AEAD);
        let report = run_json(cmd, &out).await;
        let run = &report["runs"][0];
        assert_eq!(kind_count(run, "index_update"), 0);
        assert_eq!(kind_count(run, "non_index_update"), 40);
        assert_eq!(kind_count(run, "insert"), 40);
        assert_eq!(
            u(&run["queries"]["write"]) + u(&run["queries"]["other"]),
            20 * (2 + 4 + 2)
        );
    });
}

#[test]
fn a_lock_wait_timeout_restarts_the_event_and_counts_as_an_ignored_error() {
    // Changes a global setting: no other test uses the server meanwhile.
    let t = shared_server_alone();
    let (url, base, db, _) = others(&t);
    runtime().block_on(async {
        // A lock wait timeout (1205) restarts the event and counts as an ignored
        // error: another connection holds every row of both tables for the
        // whole of a first run, so each of its statements waits out
        // innodb_lock_wait_timeout (1 s) until the run's 2 s are over; no timing
        // assumption (the run's window starts when its workers are connected).
        // A second run after the release completes events. (A global setting:
        // the runs' connections read it when they connect.)
        let mut holder = mysql_async::Conn::new(
            mysql_opts(&ConnectOptions::new(&url).database(db)).expect("opts"),
        )
        .await
        .expect("conn");
        holder
            .query_drop("SET GLOBAL innodb_lock_wait_timeout = 1")
            .await
            .expect("set");
        holder.query_drop("BEGIN").await.expect("begin");
        for n in 1..=TABLES {
            holder
                .query_drop(format!("SELECT id FROM sbtest{n} FOR UPDATE"))
                .await
                .expect("lock");
        }
        let cmd = oltp_run(&url, &base, db)
            .workload("oltp_update_index")
            .time(2);
        let locked = run_json(cmd, &t.file("locked.json")).await;
        holder.query_drop("ROLLBACK").await.expect("release");
        let cmd = oltp_run(&url, &base, db)
            .workload("oltp_update_index")
            .time(1);
        let released = run_json(cmd, &t.file("released.json")).await;
        holder
            .query_drop("SET GLOBAL innodb_lock_wait_timeout = 50")
            .await
            .expect("set");
        holder.disconnect().await.expect("disconnect");
        let run = &locked["runs"][0];
        assert!(
            u(&run["errors"]) >= 1,
            "lock wait timeouts are counted: {run}"
        );
        assert_eq!(locked["complete"], true, "a restarted event is no failure");
        let run = &released["runs"][0];
        assert!(
            u(&run["transactions"]) > 0,
            "events complete once the lock is gone: {run}"
        );
        assert_eq!(released["complete"], true);
    });
}

#[test]
fn open_loop_rate_gives_about_rate_times_time_events() {
    let t = shared_server();
    let (url, base, db, out) = others(&t);
    runtime().block_on(async {
        // Open loop: --rate 50 for 2 s gives about 100 events (Poisson arrivals),
        // far below what 2 threads can do closed-loop.
        let cmd = oltp_run(&url, &base, db)
            .workload("oltp_point_select")
            .rate(50)
            .time(2)
            .threads(2);
        let report = run_json(cmd, &out).await;
        let run = &report["runs"][0];
        let tx = u(&run["transactions"]);
        assert!((50..=160).contains(&tx), "--rate 50 for 2 s: {tx} events");
        assert_eq!(run["rate"], 50.0);
    });
}

/// A slow open loop's workers end early, when their next arrival falls past
/// the deadline: the run still measured its whole --time (it reported the
/// time up to its last event, and rates over that).
#[test]
fn a_slow_open_loop_measures_its_whole_time() {
    let t = shared_server();
    let (url, base, db, out) = others(&t);
    runtime().block_on(async {
        let cmd = oltp_run(&url, &base, db)
            .workload("oltp_point_select")
            .rate(0.5)
            .time(2)
            .threads(1);
        let report = run_json(cmd, &out).await;
        let run = &report["runs"][0];
        assert_eq!(run["time_s"].as_f64(), Some(2.0), "{run}");
        assert_eq!(run["complete"], true, "{run}");
    });
}

#[test]
fn an_overloaded_open_loop_reports_a_growing_queue() {
    let t = shared_server();
    let (url, base, db, _) = others(&t);
    runtime().block_on(async {
        // Overloaded open loop: far more arrivals than one thread serves, so the
        // interval lines show a growing queue (sysbench's `queue length: Q,
        // concurrency: C` line) and latency includes the wait.
        let cmd = oltp_run(&url, &base, db)
            .workload("oltp_read_only")
            .rate(100000)
            .time(2)
            .report_interval(1)
            .switch("no-progress");
        let out_bin = oltp_bin(&base, &cmd.build());
        let text = String::from_utf8_lossy(&out_bin.stdout);
        assert!(out_bin.status.success(), "{text}");
        let first_queue: u64 = text
            .lines()
            .find_map(|l| l.strip_prefix("[ 1s ] queue length: "))
            .and_then(|r| r.split(',').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no queue line in:\n{text}"));
        assert!(
            first_queue > 1000,
            "100,000 arrivals/s on one thread must queue: {first_queue}\n{text}"
        );
        assert!(
            text.contains("[ 1s ] queue length: ") && text.contains(", concurrency: 1"),
            "{text}"
        );
    });
}

#[test]
fn two_clients_merge_counts_add_up_and_histograms_merge() {
    let t = shared_server();
    let (url, base, db, _) = others(&t);
    runtime().block_on(async {
        // Two clients at once, merged: counts add up, histograms merge.
        let other = t.file("other.json");
        let cmd = oltp_run(&url, &base, db)
            .workload("oltp_point_select")
            .events(20)
            .time(0)
            .threads(2);
        run_json(cmd, &other).await;
        let (a, b) = (t.file("a.json"), t.file("b.json"));
        // Started together, so merge finds their windows aligned.
        let at = start_at(5);
        let client = |out: std::path::PathBuf| {
            let (url, base, at) = (url.clone(), base.clone(), at.clone());
            tokio::spawn(async move {
                let cmd = oltp_run(&url, &base, db)
                    .workload("oltp_read_only")
                    .time(2)
                    .flag("start-at", at);
                run_json(cmd, &out).await
            })
        };
        let (ra, rb) = (client(a.clone()), client(b.clone()));
        let (ra, rb) = (ra.await.expect("client a"), rb.await.expect("client b"));
        let merged = t.file("merged.json");
        let r = cli(&strings(&[
            "merge",
            a.to_str().expect("utf-8"),
            b.to_str().expect("utf-8"),
            "--output",
            "json",
            "--json-out",
            merged.to_str().expect("utf-8"),
        ]))
        .await;
        assert_eq!(r, Ok(true));
        let m: Value =
            serde_json::from_slice(&std::fs::read(&merged).expect("merged")).expect("json");
        let (ra, rb, m) = (&ra["runs"][0], &rb["runs"][0], &m["runs"][0]);
        assert_eq!(u(&m["threads"]), 2);
        assert_eq!(
            u(&m["transactions"]),
            u(&ra["transactions"]) + u(&rb["transactions"])
        );
        assert_eq!(
            u(&m["queries"]["read"]),
            u(&ra["queries"]["read"]) + u(&rb["queries"]["read"])
        );
        assert_eq!(
            kind_count(m, "point_select"),
            kind_count(ra, "point_select") + kind_count(rb, "point_select")
        );
        let l = |r: &Value, k: &str| r["latency_ms"][k].as_f64().expect("latency");
        assert_eq!(l(m, "min"), l(ra, "min").min(l(rb, "min")));
        assert_eq!(l(m, "max"), l(ra, "max").max(l(rb, "max")));
        assert!(l(m, "p95") >= l(m, "min") && l(m, "p95") <= l(m, "max"));
        let qps = m["qps"].as_f64().expect("qps");
        assert!(
            (qps - ra["qps"].as_f64().expect("qps") - rb["qps"].as_f64().expect("qps")).abs()
                < 1e-6
        );
        let e = cli(&strings(&[
            "merge",
            a.to_str().expect("utf-8"),
            other.to_str().expect("utf-8"),
        ]))
        .await
        .expect_err("reports of different grids");
        assert!(e.contains("same grid"), "{e}");
    });
}

#[test]
fn warmup_is_excluded_and_interval_lines_go_to_stderr() {
    let t = shared_server();
    let (url, base, db, _) = others(&t);
    // --warmup and --report-interval through the binary: interval lines in
    // sysbench's layout on stderr (stdout carries the JSON), measured window
    // of --time seconds after the warm-up.
    let output = Command::new(env!("CARGO_BIN_EXE_oltp"))
        .args([
            "run",
            "--mysql-url",
            &url,
            "--tables",
            "2",
            "--table-size",
            "1000",
            "--workload",
            "oltp_point_select",
            "--mysql-db",
            db,
        ])
        .args([
            "--time",
            "2",
            "--warmup",
            "3",
            "--report-interval",
            "1",
            "--output",
            "json",
        ])
        .env("ENCBENCH_HOME", &base)
        .output()
        .expect("run oltp");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("[ ")).collect();
    assert!(lines.len() >= 2, "{stderr}");
    assert!(lines[0].starts_with("[ 1s ] thds: 1 tps: "), "{}", lines[0]);
    for part in [
        "qps: ",
        "(r/w/o: ",
        "lat (ms,95%): ",
        "err/s: ",
        "reconn/s: ",
    ] {
        assert!(lines[0].contains(part), "{}", lines[0]);
    }
    let report: Value = serde_json::from_slice(&output.stdout).expect("stdout is JSON only");
    let time = report["runs"][0]["time_s"].as_f64().expect("time");
    // With the 3 s warm-up counted the window would be at least 5 s; the
    // bound is that (a run ending up to 3 s late on a loaded machine still
    // passes), not a guess at how late a loaded machine ends the run.
    assert!(
        (2.0..5.0).contains(&time),
        "measured window excludes the warm-up: {time}"
    );
}

#[test]
fn server_cpu_is_measured_beside_client_cpu() {
    let t = shared_server();
    let (url, base, db, out) = others(&t);
    let pid = t.shared.server().pid().to_string();
    // A count, not a time: server CPU is read in 10 ms ticks, which a 1 s
    // window on a loaded machine may not fill.
    let point_selects = oltp_run(&url, &base, db)
        .workload("oltp_point_select")
        .time(0)
        .events(5000);
    runtime().block_on(async {
        let cmd = point_selects.clone().flag("server-pid", &pid);
        let v = run_json(cmd, &out).await;
        let r = &v["runs"][0];
        let f = |k: &str| r[k].as_f64().unwrap_or_else(|| panic!("{k}: {r}"));
        // Every point select runs on the server: its CPU per query is above 0.
        assert!(f("server_cpu_s") > 0.0, "{r}");
        assert!(f("server_cpu_us_per_query") > 0.0, "{r}");
        let sum = f("client_cpu_us_per_query") + f("server_cpu_us_per_query");
        assert!(
            (f("total_cpu_us_per_query") - sum).abs() < 1e-6 * sum,
            "{r}"
        );
        assert!(r["server_cpu_unavailable"].is_null(), "{r}");
        // Both server CPU metrics are in the summary.
        assert!(v["summary"][0]["server_cpu_us_per_query"]["median"].as_f64() > Some(0.0));
    });
    // A --mysql-url without --server-pid: not measured, and the CSV says why.
    let output = oltp_bin(&base, &point_selects.flag("output", "csv").build());
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut csv = csv::Reader::from_reader(&output.stdout[..]);
    let header = csv.headers().expect("csv header").clone();
    let row = csv.records().next().expect("csv row").expect("csv row");
    let col = |name: &str| {
        let i = header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("{name}"));
        row[i].to_string()
    };
    assert_eq!(col("server_cpu_us_per_query"), "");
    assert_eq!(
        col("server_cpu_unavailable"),
        "server pid unknown: pass --server-pid PID"
    );
    assert!(
        col("client_cpu_us_per_query")
            .parse::<f64>()
            .expect("client")
            > 0.0
    );
}

#[test]
fn clients_started_together_merge_and_a_late_one_is_refused() {
    let t = shared_server();
    let (url, base, db, _) = others(&t);
    let (a, b, c) = (t.file("a.json"), t.file("b.json"), t.file("c.json"));
    let run = |out: &Path, extra: &[&str]| {
        let args = Cmd::mysql("run", &url, &base, db)
            .workload("oltp_point_select")
            .time(2)
            .switch("no-progress")
            .flag("output", "json")
            .flag("json-out", utf8(out))
            .extend(extra)
            .build();
        Command::new(env!("CARGO_BIN_EXE_oltp"))
            .args(args)
            .env("ENCBENCH_HOME", &base)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start oltp")
    };
    let wait = |child: std::process::Child| {
        let out = child.wait_with_output().expect("wait for oltp");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // Two clients, separate processes, one --start-at.
    let at = start_at(5);
    let (pa, pb) = (run(&a, &["--start-at", &at]), run(&b, &["--start-at", &at]));
    wait(pa);
    wait(pb);
    let window = |f: &Path| read_json(f)["runs"][0]["measured_window"].clone();
    for f in [&a, &b] {
        // The window starts at --start-at (no warm-up), give or take the
        // scheduler: its first 19 characters are the same second or later.
        let start = window(f)["start"].as_str().expect("start").to_string();
        assert!(start.as_str() >= &at[..19], "{start} vs {at}");
    }
    let merged = runtime().block_on(cli(&strings(&[
        "merge",
        utf8(&a),
        utf8(&b),
        "--output",
        "json",
    ])));
    assert_eq!(merged, Ok(true));
    // A third client, started after the others ended: its window misses theirs.
    wait(run(&c, &[]));
    let e = runtime()
        .block_on(cli(&strings(&["merge", utf8(&a), utf8(&c)])))
        .expect_err("windows that do not overlap");
    assert!(e.contains("overlap by 0.0% (at least 90% needed)"), "{e}");
    assert!(e.contains(utf8(&a)) && e.contains(utf8(&c)), "{e}");
    assert!(e.contains("--start-at"), "{e}");
}
