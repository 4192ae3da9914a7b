//! `encbench-reproduce ID` (`oltp reproduce ID`): the contract (`--out DIR` gets report.md, report.json,
//! report.html; report.json's fields) for every report, bad input (unknown
//! id, a missing server package, a data set that does not fit, Ctrl-C
//! mid-way), re-use of a prepared data set, and report.html rendered in
//! headless Chromium.
//!
//! Every run here is the `encbench-reproduce` binary on its own private MariaDB (001: the
//! private PostgreSQL of every at-rest mode; one base directory for the
//! whole file, so each data directory is initialised once),
//! shrunk with the test-only overrides (`--time 1 --warmup 0 --repeat 2
//! --threads ...`). The tests that use the server take one lock, so they run
//! one at a time. Nothing asserts a timing or an effect's size: only shapes,
//! words and counts that cannot differ between runs.

use encbench_test_support::read_json;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, OnceLock, PoisonError};

use serde_json::Value;

/// The base directory every test of this file shares (one private server).
fn home() -> &'static Path {
    static HOME: OnceLock<tempfile::TempDir> = OnceLock::new();
    HOME.get_or_init(encbench_test_support::server_tempdir)
        .path()
}

/// One test at a time on the shared private server.
static SERVER: Mutex<()> = Mutex::new(());

/// The `encbench-reproduce` binary (what `oltp reproduce` runs) with `args`.
fn oltp(args: &[&str], env: &[(&str, &str)]) -> Output {
    oltp_at(
        Path::new(env!("CARGO_BIN_EXE_encbench-reproduce")),
        args,
        env,
    )
}

/// The `encbench-reproduce` binary hard-linked (or copied) alone into a directory of its own, with no
/// footprint programs beside it: `encbench-reproduce 003` then finds none where it looks by
/// default, as on a machine where they are not built (`--footprint-dir` of a directory
/// without them is refused instead).
fn oltp_without_tls_bench() -> &'static Path {
    static EXE: OnceLock<std::path::PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("oltp-without-tls-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the directory");
        let exe = dir.join("encbench-reproduce");
        let _ = std::fs::remove_file(&exe);
        if std::fs::hard_link(env!("CARGO_BIN_EXE_encbench-reproduce"), &exe).is_err() {
            std::fs::copy(env!("CARGO_BIN_EXE_encbench-reproduce"), &exe)
                .expect("copy encbench-reproduce");
        }
        exe
    })
}

/// [`oltp`] with the binary `exe`.
fn oltp_at(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(exe);
    c.args(args).arg("--base-dir").arg(home());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run encbench-reproduce")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The one line on stderr of a failed command, and its exit code.
fn one_line_error(o: &Output) -> (i32, String) {
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "not one line: {err}");
    assert!(err.starts_with("Error: "), "{err}");
    (o.status.code().unwrap_or(-1), err.trim_end().to_string())
}

/// The fields every row of report.json has, with their types.
fn check_rows(j: &Value) -> &Vec<Value> {
    let rows = j["rows"].as_array().expect("rows");
    assert!(!rows.is_empty());
    for r in rows {
        assert!(r["figure"].as_str().is_some_and(|s| !s.is_empty()), "{r}");
        assert!(r["published"].is_number(), "{r}");
        assert!(r["published_unit"].is_string(), "{r}");
        assert!(r["source_line"].as_u64().is_some_and(|l| l >= 1), "{r}");
        for k in ["ours", "ci95_low", "ci95_high"] {
            assert!(r[k].is_number() || r[k].is_null(), "{k}: {r}");
        }
        assert!(r["rounds"].is_u64(), "{r}");
        assert!(
            ["reproduced", "differs", "not reproducible here"]
                .contains(&r["verdict"].as_str().unwrap_or("")),
            "{r}"
        );
        assert!(r["reason"].as_str().is_some_and(|s| !s.is_empty()), "{r}");
        // 1 round gives no %: an interval needs 2 rounds or more.
        if r["ours"].is_number() && r["confidence_pct"].is_number() {
            assert!(r["rounds"].as_u64() >= Some(2), "{r}");
        }
    }
    rows
}

#[test]
fn an_unknown_id_lists_the_valid_ones() {
    let o = oltp(&["002"], &[]);
    assert_eq!(
        one_line_error(&o),
        (
            1,
            "Error: unknown report id \"002\": give one of 000, 001, 003, 004, or all".to_string()
        )
    );
}

#[test]
fn a_missing_footprint_dir_is_refused_before_anything_starts() {
    // New-user finding: a directory the user names that does not hold the
    // footprint programs was not refused (report 003).
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let empty = dir.path().to_str().expect("utf-8");
    for given in ["/nonexistent", empty] {
        let args = [
            "003",
            "--footprint-dir",
            given,
            "--out",
            out.to_str().expect("utf-8"),
        ];
        let o = oltp(&args, &[]);
        assert_eq!(
            one_line_error(&o),
            (
                1,
                format!(
                    "Error: --footprint-dir {given}: footprint: {given}/footprint-plain is missing: build the programs with `cargo build --release -p tls-bench-footprint` or point --footprint-dir at them"
                )
            )
        );
        assert!(text(&o.stdout).is_empty(), "{given}: nothing started");
        assert!(!out.exists(), "{given}: nothing written");
    }
    // The sibling tools run in this process: no flag names their binaries.
    for flag in ["--tls-bench", "--column-bench"] {
        let o = oltp(&["000", flag, "/bin/false"], &[]);
        assert_eq!(o.status.code(), Some(2), "{flag}: a usage error");
        assert!(
            text(&o.stderr).contains(&format!("unexpected argument '{flag}'")),
            "{}",
            text(&o.stderr)
        );
    }
}

#[test]
fn too_many_connections_for_the_memory_are_refused_first() {
    use encbench_reproduce::resources::{memory_available, memory_needed};
    let (need, avail) = (
        memory_needed(10_000),
        memory_available().expect("/proc/meminfo"),
    );
    assert!(
        avail < need,
        "this test needs a machine with less than {need} bytes of memory available"
    );
    // The fix suggests --quick to a full run only.
    for (mode, fix) in [
        (None, "or run --quick with fewer --threads"),
        (Some("--quick"), "or run with fewer --threads"),
    ] {
        let out = tempfile::tempdir().expect("tempdir");
        let mut args = vec![
            "003",
            "--threads",
            "10000",
            "--out",
            out.path().to_str().expect("utf8"),
        ];
        args.extend(mode);
        let o = oltp(&args, &[]);
        let (code, e) = one_line_error(&o);
        assert_eq!(code, 1);
        assert!(
            e.contains("10000 connections need about 40.1 GiB of memory"),
            "{e}"
        );
        assert!(e.ends_with(fix), "{mode:?}: {e}");
        assert!(
            !out.path().join("report.json").exists(),
            "nothing is written before the checks pass"
        );
    }
}

#[test]
fn a_missing_server_package_is_one_line() {
    let _one = SERVER.lock().unwrap_or_else(PoisonError::into_inner);
    let out = tempfile::tempdir().expect("tempdir");
    let o = oltp(
        &[
            "000",
            "--quick",
            "--out",
            out.path().to_str().expect("utf8"),
        ],
        &[("ENCBENCH_MARIADB_BIN_DIR", "/nonexistent-mariadb")],
    );
    let (code, e) = one_line_error(&o);
    assert_eq!(code, 1);
    assert!(
        e.contains("MariaDB server binaries not found")
            && e.contains("apt-get install mariadb-server"),
        "{e}"
    );
    assert!(!out.path().join("report.json").exists());
}

#[test]
fn a_data_set_larger_than_the_disk_says_how_much_it_needs() {
    let _one = SERVER.lock().unwrap_or_else(PoisonError::into_inner);
    let out = tempfile::tempdir().expect("tempdir");
    // 100,000 tables x 1e9 rows: about 64 PiB plaintext.
    let o = oltp(
        &[
            "000",
            "--tables",
            "100000",
            "--table-size",
            "1000000000",
            "--threads",
            "2",
            "--out",
            out.path().to_str().expect("utf8"),
        ],
        &[],
    );
    let (code, e) = one_line_error(&o);
    assert_eq!(code, 1);
    assert!(
        e.contains("report 000's data sets (100000000000000 rows each) needs about"),
        "{e}"
    );
    assert!(
        e.contains("GiB is free") && e.contains("run --quick"),
        "{e}"
    );
    // What was written says it is partial, with the reason.
    let j = read_json(&out.path().join("report.json"));
    assert_eq!(j["partial"], true);
    assert!(
        j["stopped"]
            .as_str()
            .is_some_and(|s| s.contains("needs about")),
        "{j}"
    );
}

/// Renders `html` in headless Chromium and returns the DOM.
fn chromium_dom(html: &Path) -> String {
    let profile = tempfile::tempdir().expect("tempdir");
    let o = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", html.display()))
        .stdin(Stdio::null())
        .output()
        .expect("chromium not found: apt-get install chromium (.ci/run installs it)");
    assert!(o.status.success(), "chromium failed: {}", text(&o.stderr));
    text(&o.stdout)
}

#[test]
fn report_003_keeps_the_contract_reuses_its_data_and_renders() {
    let _one = SERVER.lock().unwrap_or_else(PoisonError::into_inner);
    let out = tempfile::tempdir().expect("tempdir");
    let dir = out.path().to_str().expect("utf8");
    let tiny = ["--time", "1", "--warmup", "0", "--repeat", "2"];
    let mut args = vec!["003", "--quick", "--threads", "1,8", "--out", dir];
    args.extend(tiny);
    let o = oltp_at(oltp_without_tls_bench(), &args, &[]);
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(
        stdout.contains("about ") && stdout.contains("in all"),
        "duration printed first: {stdout}"
    );
    for f in [
        "report.md",
        "report.json",
        "report.html",
        "chart-1.svg",
        "chart-2.svg",
    ] {
        assert!(out.path().join(f).is_file(), "{f}");
    }
    let j = read_json(&out.path().join("report.json"));
    assert_eq!(j["report"], "003");
    assert_eq!(j["quick"], true);
    assert_eq!(j["partial"], false);
    assert!(
        j["machine"]["cpu_model"].is_string() && j["machine"]["logical_cpus"].as_u64() >= Some(1),
        "{}",
        j["machine"]
    );
    let rows = check_rows(&j);
    assert_eq!(rows.len(), 3, "footprint, minimal client, Figure 2 at 8");
    // The footprint is measured from the distribution's packages.
    let share = rows[0]["ours"].as_f64().expect("footprint share");
    assert!(share > 0.0 && share < 100.0, "{share}");
    assert_eq!(rows[0]["published"], 5.0);
    // tls-bench's footprint programs absent: said plainly, with the build command.
    assert_eq!(rows[1]["verdict"], "not reproducible here");
    assert!(
        rows[1]["reason"]
            .as_str()
            .unwrap_or("")
            .contains("cargo build --release -p tls-bench-footprint"),
        "{}",
        rows[1]["reason"]
    );
    // Figure 2 at 8 connections: 2 paired rounds, an interval (50%).
    assert_eq!(rows[2]["published"], 16.9);
    assert_eq!(rows[2]["rounds"], 2);
    assert_eq!(rows[2]["confidence_pct"], 50.0);
    assert!(rows[2]["ci95_low"].as_f64() <= rows[2]["ci95_high"].as_f64());
    // Every run's raw result: 2 thread counts x 2 rounds x (plain, TLS, plain again).
    let runs = j["runs"][0]["report"]["runs"].as_array().expect("raw runs");
    assert_eq!(runs.len(), 12);
    assert_eq!(runs.iter().filter(|r| r["control"] == true).count(), 4);
    assert!(
        runs.iter()
            .all(|r| r["complete"] == true && r["latency_histogram"].is_string())
    );
    assert_eq!(
        j["measurements"]["figure2"].as_array().map(Vec::len),
        Some(2)
    );
    let md = std::fs::read_to_string(out.path().join("report.md")).expect("md");
    assert!(
        md.contains("| figure | line | published | ours (50% CI) | verdict | reason |"),
        "{md}"
    );
    // Figure 2's intervals say what they cover: 2 rounds, min..max, 50%.
    let md_fig2 = md
        .split("## Figure 2")
        .nth(1)
        .expect("Figure 2 in report.md");
    assert_eq!(
        md_fig2.matches("; 50%, 2 rounds) |").count(),
        2,
        "{md_fig2}"
    );

    // The page, rendered: the rows table with a row per figure, and the charts.
    let dom = chromium_dom(&out.path().join("report.html"));
    let table = dom
        .split("<table id=\"rows\">")
        .nth(1)
        .expect("rows table in the DOM");
    let body = table.split("</table>").next().unwrap_or("");
    assert_eq!(body.matches("<tr class=").count(), 3, "{body}");
    assert!(
        body.contains("average SELECT time at 8 connections"),
        "{body}"
    );
    for chart in ["chart-1", "chart-2"] {
        let fig = dom
            .split(&format!("<figure id=\"{chart}\""))
            .nth(1)
            .expect(chart);
        assert!(
            fig.split("</figure>").next().unwrap_or("").contains("<svg"),
            "{chart}: no inline SVG"
        );
    }
    let fig2 = dom
        .split("<table id=\"figure2\">")
        .nth(1)
        .expect("Figure 2 table in the DOM");
    assert_eq!(
        fig2.split("</table>")
            .next()
            .unwrap_or("")
            .matches("<tr><td>")
            .count(),
        2,
        "1 and 8 connections"
    );
    assert_eq!(
        fig2.split("</table>")
            .next()
            .unwrap_or("")
            .matches("; 50%, 2 rounds)</td>")
            .count(),
        2,
        "Figure 2's intervals with their coverage"
    );
    // Self-contained: no script, stylesheet link or remote resource.
    for remote in ["<script", "<link", "src=\"http", "href=\"http", "url(http"] {
        assert!(!dom.contains(remote), "the page loads something: {remote}");
    }

    // Again: the data set is verified and reused, not loaded again.
    let again = tempfile::tempdir().expect("tempdir");
    let mut args = vec![
        "003",
        "--quick",
        "--threads",
        "1",
        "--out",
        again.path().to_str().expect("utf8"),
    ];
    args.extend(tiny);
    let o = oltp_at(oltp_without_tls_bench(), &args, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(
        stdout.contains(
            "reusing data set repro003: verified (1 table x 10000 rows, prepare finished)"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("prepared repro003"), "{stdout}");
    // 8 connections did not run this time: said so, no figure.
    let j = read_json(&again.path().join("report.json"));
    assert_eq!(j["rows"][2]["verdict"], "not reproducible here");
    assert!(j["rows"][2]["ours"].is_null());
}

#[test]
fn ctrl_c_mid_way_writes_the_rows_so_far_marked_partial() {
    let _one = SERVER.lock().unwrap_or_else(PoisonError::into_inner);
    let out = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(oltp_without_tls_bench())
        .args([
            "003",
            "--threads",
            "1,8",
            "--time",
            "2",
            "--warmup",
            "0",
            "--repeat",
            "3",
        ])
        .arg("--out")
        .arg(out.path())
        .arg("--base-dir")
        .arg(home())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start encbench-reproduce");
    // Wait for the second finished run, then Ctrl-C.
    let mut stderr = std::io::BufReader::new(child.stderr.take().expect("stderr"));
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        let n = std::io::BufRead::read_line(&mut stderr, &mut line).expect("read stderr");
        assert!(n > 0, "ended before two runs: {seen}");
        seen.push_str(&line);
        if line.contains("[2/") {
            break;
        }
    }
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).expect("SIGINT");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).expect("read stderr");
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(3), "{seen}{rest}");
    assert!(
        rest.contains("stopped early") && rest.contains("marked partial"),
        "{rest}"
    );
    let j = read_json(&out.path().join("report.json"));
    assert_eq!(j["partial"], true);
    assert!(j["stopped"].is_string(), "{}", j["stopped"]);
    check_rows(&j);
    let runs = j["runs"][0]["report"]["runs"]
        .as_array()
        .expect("runs so far");
    assert!(runs.len() >= 2 && runs.len() < 18, "{}", runs.len());
    assert_eq!(
        runs.last().map(|r| r["complete"].clone()),
        Some(Value::Bool(false))
    );
    let md = std::fs::read_to_string(out.path().join("report.md")).expect("md");
    assert!(md.contains("**PARTIAL: "), "{md}");
}

#[test]
fn report_000_compares_both_backends_and_checks_the_identity() {
    let _one = SERVER.lock().unwrap_or_else(PoisonError::into_inner);
    let out = tempfile::tempdir().expect("tempdir");
    let o = oltp(
        &[
            "000",
            "--quick",
            "--threads",
            "64",
            "--tables",
            "1",
            "--table-size",
            "1000",
            "--time",
            "1",
            "--warmup",
            "0",
            "--repeat",
            "2",
            "--out",
            out.path().to_str().expect("utf8"),
        ],
        &[],
    );
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    let j = read_json(&out.path().join("report.json"));
    assert_eq!(
        (j["report"].as_str(), j["partial"].as_bool()),
        (Some("000"), Some(false))
    );
    // column-bench's library measured the first backend for the proxy
    // prediction: its figures, the two tables, its JSON beside the report.
    let pred = &j["measurements"]["proxy_prediction"];
    assert_eq!(pred["measurement"]["backend"], "ring:aes-256-gcm", "{pred}");
    let ns = pred["measurement"]["ns_per_open"]
        .as_array()
        .expect("ns per open");
    assert!(
        ns.len() == 3 && ns.iter().all(|n| n.as_f64().is_some_and(|n| n > 0.0)),
        "{pred}"
    );
    assert!(
        pred["predictions"].as_array().is_some_and(|p| p.len() == 9),
        "{pred}"
    );
    assert_eq!(j["tables"].as_array().map(Vec::len), Some(2));
    assert!(
        j["setup_differences"][0]
            .as_str()
            .unwrap_or("")
            .contains("column-bench's capacity model, run here"),
        "{}",
        j["setup_differences"][0]
    );
    assert!(
        text(&o.stdout).contains("decryptions per second per core (oltp_read_only, every column)"),
        "{}",
        text(&o.stdout)
    );
    assert!(out.path().join("column-bench.json").is_file());
    let rows = check_rows(&j);
    // 18 published figures x 2 backends.
    assert_eq!(rows.len(), 36);
    let measured: Vec<&Value> = rows.iter().filter(|r| r["ours"].is_number()).collect();
    // At 64 threads: read-only (RDS, PolarDB) and read/write (RDS), QPS and RT, per backend.
    assert_eq!(measured.len(), 2 * 3 * 2, "{measured:?}");
    assert!(measured.iter().all(|r| r["rounds"] == 2));
    assert!(rows.iter().any(|r| {
        r["figure"]
            .as_str()
            .unwrap_or("")
            .contains("(ours: openssl:aes-256-gcm)")
    }));
    // The identity on the published pairs (9 x plaintext and ciphertext) and on our
    // medians (2 workloads x 3 modes; the A/A control runs are not in the summary).
    let id = j["identity"].as_array().expect("identity");
    assert_eq!(
        id.iter()
            .filter(|i| i["whose"].as_str().unwrap_or("").starts_with("published"))
            .count(),
        18
    );
    let ours: Vec<&Value> = id
        .iter()
        .filter(|i| i["whose"].as_str().unwrap_or("").starts_with("ours"))
        .collect();
    assert_eq!(ours.len(), 2 * 3);
    for i in id
        .iter()
        .filter(|i| i["whose"].as_str().unwrap_or("").starts_with("published"))
    {
        assert!(
            i["deviation_pct"].as_f64().is_some_and(|d| d.abs() < 3.0),
            "{i}"
        );
    }
    let html = std::fs::read_to_string(out.path().join("report.html")).expect("html");
    assert_eq!(
        html.matches("<figure id=\"chart-").count(),
        4,
        "QPS and RT per workload"
    );
}

/// Rows of `rows` whose figure contains every one of `parts`.
fn rows_with<'a>(rows: &'a [Value], parts: &[&str]) -> Vec<&'a Value> {
    rows.iter()
        .filter(|r| {
            let f = r["figure"].as_str().unwrap_or("");
            parts.iter().all(|p| f.contains(p))
        })
        .collect()
}

#[test]
fn report_001_runs_every_at_rest_mode_and_says_what_cannot_run_here() {
    let _one = SERVER.lock().unwrap_or_else(PoisonError::into_inner);
    let out = tempfile::tempdir().expect("tempdir");
    let o = oltp(
        &[
            "001",
            "--quick",
            "--scale",
            "1",
            "--time",
            "1",
            "--warmup",
            "0",
            "--repeat",
            "2",
            "--out",
            out.path().to_str().expect("utf8"),
        ],
        &[],
    );
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    let j = read_json(&out.path().join("report.json"));
    assert_eq!(
        (
            j["report"].as_str(),
            j["partial"].as_bool(),
            j["quick"].as_bool()
        ),
        (Some("001"), Some(false), Some(true))
    );
    assert!(j["machine"].is_object());
    let rows = check_rows(&j);
    // As root with /dev/fuse and loop devices (the at-rest tests' machine), all
    // five modes run: two mechanisms, each against off and its control.
    let refused = j["measurements"]["at_rest_refused"]
        .as_object()
        .expect("refused");
    for mode in ["gocryptfs", "fscrypt"] {
        assert!(
            !refused.contains_key(mode),
            "at-rest mode {mode} was refused: {} (install what it needs: scripts/test does)",
            refused[mode]
        );
    }
    let luks = rows_with(rows, &["(ours: luks)"]);
    assert_eq!(luks.len(), 4, "one per standalone figure");
    assert!(luks.iter().all(|r| {
        r["verdict"] == "not reproducible here"
            && r["reason"]
                .as_str()
                .unwrap_or("")
                .starts_with("the report's kind of mechanism (block-device encryption) cannot run here: --at-rest luks:")
    }));
    let ha: Vec<&Value> = rows
        .iter()
        .filter(|r| {
            r["reason"]
                .as_str()
                .unwrap_or("")
                .starts_with("HA needs a synchronous standby")
        })
        .collect();
    assert_eq!(ha.len(), 4);
    assert!(
        ha.iter()
            .all(|r| r["verdict"] == "not reproducible here" && r["ours"].is_null())
    );
    assert_eq!(rows.len(), 4 + 4 * (1 + 2 * 2));
    // Measured: select-only and tpcb-like at the cached scale, TPS, over the
    // 2 rounds. A round counts when both runs completed and the reference
    // committed something: a 1 s run on a loaded machine can commit nothing
    // (tpcb-like on ext4-loop did once), and the comparison then drops that
    // round (common::compare). The row's rounds must be exactly that count,
    // with a figure from 2 rounds and none (no %) from 1.
    let grid_runs = |name: &str| -> Vec<Value> {
        j["runs"]
            .as_array()
            .expect("runs")
            .iter()
            .find(|g| g["name"] == name)
            .and_then(|g| g["report"]["runs"].as_array().cloned())
            .unwrap_or_default()
    };
    let mode = |run: &Value| -> String {
        run["at_rest"]["mechanism"]
            .as_str()
            .unwrap_or("off")
            .to_string()
    };
    for (figure, grid) in [
        (
            "select-only, standalone, scale 10",
            "pgbench_select_only, scale 1",
        ),
        ("OLTP (tpcb-like)", "pgbench_tpcb_like, scale 1"),
    ] {
        let runs = grid_runs(grid);
        assert_eq!(runs.len(), 5 * 2, "{grid}");
        for (m, r) in [
            ("gocryptfs", "off"),
            ("gocryptfs", "fuse-passthrough"),
            ("fscrypt", "off"),
            ("fscrypt", "ext4-loop"),
        ] {
            let usable = (1..=2)
                .filter(|round| {
                    let of = |x: &str| {
                        runs.iter()
                            .find(|run| run["round"] == *round && mode(run) == x)
                            .cloned()
                    };
                    match (of(m), of(r)) {
                        (Some(a), Some(b)) => {
                            a["complete"] == true
                                && b["complete"] == true
                                && b["tps"].as_f64().is_some_and(|t| t > 0.0)
                        }
                        _ => false,
                    }
                })
                .count();
            let row = rows_with(rows, &[figure, &format!("{m} vs {r}")]);
            assert_eq!(row.len(), 1, "{figure} {m} vs {r}");
            if usable == 0 {
                continue;
            }
            assert_eq!(row[0]["rounds"], usable, "{}", row[0]);
            assert_eq!(row[0]["ours"].is_number(), usable == 2, "{}", row[0]);
        }
    }
    // The large scale is full mode only; each mode's load was timed once.
    assert!(
        rows_with(rows, &["scale 2000", "standalone"])
            .iter()
            .filter(|r| !r["figure"].as_str().unwrap_or("").contains("luks"))
            .all(
                |r| r["reason"].as_str().unwrap_or("").starts_with("quick mode")
                    && r["ours"].is_null()
            )
    );
    let loads = rows_with(rows, &["large data load", "standalone"]);
    assert_eq!(loads.len(), 1 + 2 * 2);
    for r in loads
        .iter()
        .filter(|r| !r["figure"].as_str().unwrap_or("").contains("luks"))
    {
        assert!(
            r["ours"].is_number() && r["rounds"] == 1 && r["verdict"] == "not reproducible here",
            "{r}"
        );
    }
    // Every grid interleaved the five modes, two rounds each.
    let runs = j["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 2);
    for g in runs {
        assert_eq!(
            g["report"]["runs"].as_array().map(Vec::len),
            Some(5 * 2),
            "{}",
            g["name"]
        );
    }
    let html = std::fs::read_to_string(out.path().join("report.html")).expect("html");
    assert_eq!(html.matches("<figure id=\"chart-").count(), 2);
    // Again: the five data sets verify and are reused, so no load is timed.
    let again = tempfile::tempdir().expect("tempdir");
    let o = oltp(
        &[
            "001",
            "--quick",
            "--scale",
            "1",
            "--time",
            "1",
            "--warmup",
            "0",
            "--repeat",
            "1",
            "--out",
            again.path().to_str().expect("utf8"),
        ],
        &[],
    );
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    assert_eq!(
        text(&o.stdout)
            .matches("reusing data set repro001s1 ")
            .count(),
        5,
        "{}",
        text(&o.stdout)
    );
    let j = read_json(&again.path().join("report.json"));
    assert!(
        rows_with(check_rows(&j), &["large data load", "gocryptfs vs off"])[0]["reason"]
            .as_str()
            .unwrap_or("")
            .contains("reused")
    );
}

/// `oltp reproduce 004` shrunk by the test overrides (1 x 1,000 rows, 2
/// rounds of 1 s, no warm-up) into `out`, after `args`.
fn shrunk_004(out: &Path, args: &[&str]) -> Output {
    let out = out.to_str().expect("utf8");
    let mut argv = vec!["004"];
    argv.extend_from_slice(args);
    argv.extend([
        "--tables",
        "1",
        "--table-size",
        "1000",
        "--time",
        "1",
        "--warmup",
        "0",
        "--repeat",
        "2",
        "--out",
        out,
    ]);
    oltp(&argv, &[])
}

#[test]
fn report_004_compares_io_bound_with_cached_over_paired_rounds() {
    let _one = SERVER.lock().unwrap_or_else(PoisonError::into_inner);
    let out = tempfile::tempdir().expect("tempdir");
    let o = shrunk_004(out.path(), &["--quick", "--threads", "16,32"]);
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    let j = read_json(&out.path().join("report.json"));
    assert_eq!(
        (j["report"].as_str(), j["partial"].as_bool()),
        (Some("004"), Some(false))
    );
    let rows = check_rows(&j);
    // 5 ratios, 5 cached and 5 IO-bound QPS / TPS.
    assert_eq!(rows.len(), 15);
    let measured: Vec<&Value> = rows.iter().filter(|r| r["ours"].is_number()).collect();
    // s1.small and s2.large ran 16 threads: their ratio and both sides' QPS / TPS;
    // m1.medium, c1.xlarge, c2.xlarge 32: the ratio and the IO-bound QPS / TPS,
    // the cached one of m1.medium and c1.xlarge (c2.xlarge's cached is at 64).
    let at = |t: &str| {
        measured
            .iter()
            .filter(|r| r["figure"].as_str().unwrap_or("").ends_with(t))
            .count()
    };
    assert_eq!(
        (
            at("(ours: 16 threads)"),
            at("(ours: 32 threads)"),
            measured.len()
        ),
        (2 * 3, 3 + 3 + 2, 14),
        "{measured:?}"
    );
    for r in rows_with(rows, &["IO-bound vs cached", "s1.small"]) {
        assert_eq!(r["rounds"], 2, "{r}");
        assert!(r["ci95_low"].is_number(), "{r}");
        assert_eq!(r["published"], -94.61);
    }
    for r in rows.iter().filter(|r| r["ours"].is_null()) {
        assert!(
            r["reason"].as_str().unwrap_or("").contains("threads"),
            "{r}"
        );
    }
    // The rounds alternate the profiles on one server: 2 runs each.
    let runs = j["runs"].as_array().expect("runs");
    let names: Vec<&str> = runs
        .iter()
        .map(|g| g["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(names, ["cached", "io-bound"]);
    for g in runs {
        let rs = g["report"]["runs"].as_array().expect("runs");
        let rounds: Vec<u64> = rs
            .iter()
            .map(|r| r["round"].as_u64().unwrap_or(0))
            .collect();
        // One command per thread count: 16 then 32 in each round.
        assert_eq!(rounds, [1, 1, 2, 2], "{}", g["name"]);
    }
    assert!(j["measurements"]["io_bound_vs_cached_qps"]["16"].is_object());
    assert!(j["measurements"]["io_bound_vs_cached_qps"]["32"].is_object());
    // Both profiles ran under the data file's IOPS cap (rds.mysql.s1.small's
    // 1,000), as the kernel held it for the server, and the setup says so.
    for g in runs {
        for r in g["report"]["runs"].as_array().expect("runs") {
            let cap = &r["iops_cap"];
            assert_eq!(
                (&cap["read_iops"], &cap["write_iops"]),
                (&Value::from(1000), &Value::from(1000)),
                "{}: {cap}",
                g["name"]
            );
            assert!(
                cap["mechanism"]
                    .as_str()
                    .is_some_and(|m| m == "cgroup v1 blkio throttle" || m == "cgroup v2 io.max"),
                "{cap}"
            );
        }
    }
    let setup = j["setup_differences"]
        .as_array()
        .expect("setup differences");
    assert!(
        setup.iter().any(|d| d
            .as_str()
            .unwrap_or("")
            .starts_with("IOPS capped at 1000 reads/s and 1000 writes/s")),
        "{setup:?}"
    );
    // Every run's buffer-pool reads, the profile first, and the ratio rows
    // give both profiles' miss rates (1,000 rows fit either pool: what the
    // verdict then is depends on cold misses, so only the words are checked).
    let bp = &j["measurements"]["buffer_pool"];
    assert_eq!(bp["io_bound_min_miss_pct"], 1.0);
    let io: Vec<(&str, u64, u64)> = bp["runs"]
        .as_array()
        .expect("buffer_pool runs")
        .iter()
        .map(|r| {
            let miss = r["miss_pct"].as_f64().expect("miss_pct");
            assert!((0.0..=100.0).contains(&miss), "{r}");
            assert!(r["read_requests"].as_u64().expect("requests") > 0, "{r}");
            (
                r["grid"].as_str().unwrap_or(""),
                r["threads"].as_u64().unwrap_or(0),
                r["round"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        io,
        [
            ("cached", 16, 1),
            ("cached", 32, 1),
            ("io-bound", 16, 1),
            ("io-bound", 32, 1),
            ("io-bound", 16, 2),
            ("io-bound", 32, 2),
            ("cached", 16, 2),
            ("cached", 32, 2),
        ]
    );
    // The medians per (profile, thread count), and the table of them.
    let per: Vec<(&str, u64, u64)> = bp["profiles"]
        .as_array()
        .expect("profiles")
        .iter()
        .map(|p| {
            (
                p["grid"].as_str().unwrap_or(""),
                p["threads"].as_u64().unwrap_or(0),
                p["rounds"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        per,
        [
            ("cached", 16, 2),
            ("io-bound", 16, 2),
            ("cached", 32, 2),
            ("io-bound", 32, 2)
        ]
    );
    let table = &j["tables"][0];
    assert_eq!(table["id"], "buffer-pool");
    assert_eq!(table["rows"].as_array().map(Vec::len), Some(4));
    let md = std::fs::read_to_string(out.path().join("report.md")).expect("md");
    assert!(
        md.contains("## Buffer pool and device reads per profile and thread count"),
        "{md}"
    );
    assert!(md.contains("| io-bound | 32 | 2 | "), "{md}");
    let html = std::fs::read_to_string(out.path().join("report.html")).expect("html");
    assert!(html.contains("<table id=\"buffer-pool\">"), "{html}");
    // Each ratio row gives both profiles' miss rates at its own thread count.
    for (parts, t) in [
        (["IO-bound vs cached", "s1.small"], 16),
        (["IO-bound vs cached", "m1.medium"], 32),
    ] {
        for r in rows_with(rows, &parts) {
            let why = r["reason"].as_str().unwrap_or("");
            assert!(
                why.contains(&format!("io-bound at {t} threads: buffer-pool miss rate"))
                    && why.contains(&format!("cached at {t} threads: buffer-pool miss rate")),
                "{r}"
            );
        }
    }
}

/// Full mode's beyond-the-report grids (shrunk by the test overrides): each
/// profile with column encryption and with InnoDB at rest, each a grid of
/// its own in the rotation, paired with its profile's plaintext run by round.
#[test]
fn report_004_full_mode_measures_column_encryption_and_at_rest_per_profile() {
    let _one = SERVER.lock().unwrap_or_else(PoisonError::into_inner);
    let out = tempfile::tempdir().expect("tempdir");
    let o = shrunk_004(out.path(), &["--threads", "16"]);
    let stdout = text(&o.stdout);
    assert!(o.status.success(), "{stdout}{}", text(&o.stderr));
    // Three data sets, each named by its database and server.
    for set in [
        "repro004_1x1000 (1 table x 1000 rows)",
        "repro004_1x1000_aes_256_gcm",
        "repro004_1x1000 (1 table x 1000 rows, at rest innodb)",
    ] {
        assert!(stdout.contains(set), "{set}: {stdout}");
    }
    let j = read_json(&out.path().join("report.json"));
    assert_eq!(
        (
            j["report"].as_str(),
            j["quick"].as_bool(),
            j["partial"].as_bool()
        ),
        (Some("004"), Some(false), Some(false))
    );
    // The report's own rows are unchanged by the extra grids.
    assert_eq!(check_rows(&j).len(), 15);
    let runs = j["runs"].as_array().expect("runs");
    let names: Vec<&str> = runs
        .iter()
        .map(|g| g["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        names,
        [
            "cached",
            "io-bound",
            "cached, column encryption",
            "io-bound, column encryption",
            "cached, encryption at rest",
            "io-bound, encryption at rest"
        ]
    );
    for g in runs {
        let name = g["name"].as_str().unwrap_or("");
        let rs = g["report"]["runs"].as_array().expect("runs");
        assert_eq!(rs.len(), 2, "{name}: one run per round");
        for r in rs {
            let encrypt = r["encrypt"].as_str().unwrap_or("");
            let at_rest = r["at_rest"]["mechanism"].as_str().unwrap_or("off");
            let want = if name.contains("column") {
                ("ring:aes-256-gcm", "off")
            } else if name.contains("at rest") {
                ("none", "innodb")
            } else {
                ("none", "off")
            };
            assert_eq!((encrypt, at_rest), want, "{name}: {r}");
            assert_eq!(r["iops_cap"]["read_iops"], 1000, "{name}");
        }
    }
    let costs = j["measurements"]["beyond"]["costs"]
        .as_array()
        .expect("measurements.beyond.costs");
    let got: Vec<(&str, &str, u64)> = costs
        .iter()
        .map(|c| {
            (
                c["profile"].as_str().unwrap_or(""),
                c["extra"].as_str().unwrap_or(""),
                c["comparison"]["rounds"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("cached", "column_encryption", 2),
            ("io-bound", "column_encryption", 2),
            ("cached", "encryption_at_rest", 2),
            ("io-bound", "encryption_at_rest", 2)
        ]
    );
    for c in costs {
        assert!(c["comparison"]["ci95_low_pct"].is_number(), "{c}");
        assert!(c["variant_miss_pct"].is_number(), "{c}");
    }
    let md = std::fs::read_to_string(out.path().join("report.md")).expect("md");
    assert!(
        md.contains(
            "## Beyond the report: what column encryption and encryption at rest cost in each profile"
        ),
        "{md}"
    );
    let html = std::fs::read_to_string(out.path().join("report.html")).expect("html");
    assert!(html.contains("<table id=\"beyond-the-report\">"), "{html}");
}

/// An oltp that starts on the private server while a reproduction runs there is
/// recorded in the reproduction's runs (`shared_with`), as the newcomer records
/// the reproduction. The newcomer waits at `--start-at`, an hour ahead, with
/// its lease taken, so it is alive until the test kills it, whatever the
/// machine's load.
#[test]
fn a_reproduction_records_an_oltp_that_starts_on_its_server_later() {
    use std::io::BufRead as _;
    let _one = SERVER.lock().unwrap_or_else(PoisonError::into_inner);
    let base = home().to_str().expect("utf8");
    let data = [
        "--mysql-db",
        "newcomer",
        "--tables",
        "1",
        "--table-size",
        "10",
    ];
    let mut prepare = vec!["prepare", "--base-dir", base, "--encrypt", "none"];
    prepare.extend(data);
    let o = oltp_command(&prepare).output().expect("run oltp prepare");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = tempfile::tempdir().expect("tempdir");
    let dir = out.path().to_str().expect("utf8");
    let mut repro = Command::new(oltp_without_tls_bench())
        .args(["--base-dir", base])
        .args(["003", "--quick", "--threads", "1", "--out", dir])
        .args(["--time", "4", "--warmup", "0", "--repeat", "2"])
        .env("ENCBENCH_HOME", home())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start encbench-reproduce");
    let mut lines = std::io::BufReader::new(repro.stdout.take().expect("stdout")).lines();
    let mut seen = String::new();
    for line in lines.by_ref() {
        let line = line.expect("stdout line");
        seen.push_str(&line);
        seen.push('\n');
        if line.starts_with("running ") {
            break;
        }
    }
    assert!(seen.contains("running "), "no grid started: {seen}");
    let later = time::OffsetDateTime::now_utc() + time::Duration::hours(1);
    let later = later
        .format(&time::format_description::well_known::Rfc3339)
        .expect("RFC 3339");
    let mut run = vec!["run", "--base-dir", base, "--encrypt", "none"];
    run.extend(data);
    run.extend([
        "--workload",
        "oltp_point_select",
        "--time",
        "1",
        "--start-at",
        &later,
    ]);
    let mut newcomer = oltp_command(&run)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the newcomer");
    let pid = u64::from(newcomer.id());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = repro.wait().expect("wait for the reproduction");
    let _ = newcomer.kill();
    let _ = newcomer.wait();
    assert!(status.success(), "{seen}{}", rest.join("\n"));
    let j = read_json(&out.path().join("report.json"));
    let runs: Vec<&Value> = j["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .flat_map(|g| g["report"]["runs"].as_array().into_iter().flatten())
        .collect();
    assert!(!runs.is_empty());
    for r in runs {
        assert!(
            r["shared_with"]
                .as_array()
                .is_some_and(|p| p.iter().any(|p| p.as_u64() == Some(pid))),
            "newcomer {pid} missing: {}",
            r["shared_with"]
        );
    }
}

/// The environment variable that makes [`oltp_in_a_process_of_its_own`] run
/// oltp: its arguments, tab-separated.
const OLTP_ARGS: &str = "ENCBENCH_REPRODUCE_TEST_OLTP_ARGS";

/// oltp with `args` (`prepare ...`, `run ...`) as a process of its own, its
/// own pid on the private server's lease, as the `oltp` binary runs: this test
/// binary again, running only [`oltp_in_a_process_of_its_own`] (the `oltp`
/// binary is another package's, which cargo builds for oltp's tests only).
fn oltp_command(args: &[&str]) -> Command {
    let mut c = Command::new(std::env::current_exe().expect("this test binary"));
    c.args([
        "--exact",
        "oltp_in_a_process_of_its_own",
        "--ignored",
        "--nocapture",
    ])
    .env(OLTP_ARGS, args.join("\t"))
    .env("ENCBENCH_HOME", home());
    c
}

/// Not a test: the process [`oltp_command`] starts, running oltp's command
/// line in-process (exit status: success when the command completed).
#[test]
#[ignore = "run by oltp_command only"]
fn oltp_in_a_process_of_its_own() {
    use clap::Parser as _;
    let Ok(args) = std::env::var(OLTP_ARGS) else {
        return;
    };
    let cli =
        encbench_oltp::cli::Cli::try_parse_from(std::iter::once("oltp").chain(args.split('\t')))
            .expect("oltp's arguments");
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    match rt.block_on(encbench_oltp::commands::execute(cli)) {
        Ok(true) => {}
        other => panic!("oltp {args}: {other:?}"),
    }
}
