//! Faults, with nothing lost: the disk full while `--json-out` is
//! written, connections reset under a running workload, a server that answers
//! slowly. The faults come from the test itself: a small tmpfs in a private
//! mount namespace, and a loopback TCP relay in front of the shared server that
//! resets every connection it carries after a fixed time, or delays every
//! chunk it forwards. Each case checks: no panic, a bounded end, the faults
//! counted, and a result file that is complete or absent, never truncated.

#[allow(dead_code)]
mod common;

use std::net::SocketAddr;
use std::process::Command;
use std::time::{Duration, Instant};

use common::relay::{Fault, Relay};
use common::*;

/// The shared server's URL with its port replaced by `port` (a relay's).
fn via(t: &Use, port: u16) -> String {
    let server = t.shared.server().port();
    let url = t.url.replace(&format!(":{server}"), &format!(":{port}"));
    assert_ne!(url, t.url, "the URL names port {server}");
    url
}

fn target(t: &Use) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], t.shared.server().port()))
}

#[test]
fn connections_reset_under_a_run_are_reconnected_and_counted() {
    let t = shared_server();
    let base = t.base();
    let db = "fltreset";
    runtime().block_on(prepare(&t.url, &base, db, "none", &[]));
    // Every connection is reset 3 s after it opens: each of the 2 workers
    // loses its connection at least once in a 6 s run and reconnects (a new
    // connection has 3 s to log in and prepare: the startup checks' and the
    // workers' first connections too, which 1 s did not always give a loaded
    // 2-core machine).
    let relay = Relay::start(target(&t), Fault::ResetAfter(Duration::from_secs(3)));
    let url = via(&t, relay.port);
    let json = t.file("reset.json");
    let extra = [
        "--time",
        "6",
        "--threads",
        "2",
        "--no-progress",
        "--json-out",
        utf8(&json),
    ];
    let out = oltp_bin(&base, &args("run", &url, &base, db, &extra));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let report = read_json(&json);
    let run = &report["runs"][0];
    let resets = relay.resets();
    assert!(resets >= 2, "the relay reset {resets} connections");
    // Every reset a worker saw is a reconnect (a reset of a connection being
    // closed at the end of the run is not seen).
    assert!(
        u(&run["reconnects"]) >= 2 && u(&run["reconnects"]) <= resets,
        "{resets} resets, counted as reconnects: {run}"
    );
    if out.status.success() {
        assert_eq!(report["complete"], true);
    } else {
        // A reset that outlasted the reconnect window ends the run: marked.
        assert_eq!(report["complete"], false, "{stderr}");
    }
    // The counts add up whatever was cut.
    let q = &run["queries"];
    assert_eq!(
        u(&q["read"]) + u(&q["write"]) + u(&q["other"]),
        u(&q["total"]),
        "{q}"
    );
}

#[test]
fn a_slow_server_slows_the_run_and_nothing_else() {
    let t = shared_server();
    let base = t.base();
    let db = "fltslow";
    runtime().block_on(prepare(&t.url, &base, db, "none", &[]));
    // 20 ms each way on every chunk: a point select takes at least 40 ms.
    let relay = Relay::start(target(&t), Fault::Delay(Duration::from_millis(20)));
    let url = via(&t, relay.port);
    let json = t.file("slow.json");
    let extra = [
        "--time",
        "2",
        "--workload",
        "oltp_point_select",
        "--no-progress",
        "--json-out",
        utf8(&json),
    ];
    let t0 = Instant::now();
    let out = oltp_bin(&base, &args("run", &url, &base, db, &extra));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(t0.elapsed() < Duration::from_secs(120), "no hang");
    let report = read_json(&json);
    let run = &report["runs"][0];
    assert_eq!(report["complete"], true);
    assert!(u(&run["transactions"]) > 0, "{run}");
    let min_ms = run["latency_ms"]["min"].as_f64().expect("latency_ms.min");
    assert!(
        min_ms >= 40.0,
        "every event crossed the delay twice: min {min_ms} ms"
    );
    assert_eq!(u(&run["errors"]), 0, "{run}");
}

#[test]
fn a_full_disk_under_json_out_leaves_no_file_and_says_so() {
    let t = shared_server();
    let base = t.base();
    let db = "fltfull";
    runtime().block_on(prepare(&t.url, &base, db, "none", &[]));
    // A 4 KiB tmpfs in a mount namespace of the run's own (unshare: root or
    // an unprivileged user namespace): the run's report does not fit.
    let dir = t.file("full");
    std::fs::create_dir_all(&dir).expect("mount point");
    let json = dir.join("run.json");
    let mut a = vec![
        "-c".to_string(),
        r#"mount -t tmpfs -o size=4k tmpfs "$0" || exit 97; "$@"; rc=$?; echo "left: $(ls -A "$0")"; exit $rc"#
            .to_string(),
        utf8(&dir).to_string(),
        env!("CARGO_BIN_EXE_oltp").to_string(),
    ];
    a.extend(args(
        "run",
        &t.url,
        &base,
        db,
        &["--time", "1", "--no-progress", "--json-out", utf8(&json)],
    ));
    let out = Command::new("unshare")
        .args(["--mount", "--map-root-user", "sh"])
        .args(&a)
        .env("ENCBENCH_HOME", &base)
        .output()
        .expect("unshare");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_ne!(out.status.code(), Some(97), "tmpfs must mount: {stderr}");
    assert!(
        !out.status.success(),
        "a report that does not fit fails the run"
    );
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("Error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(
        errors[0].contains("--json-out") && errors[0].contains("No space left"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Nothing half-written stays behind: no run.json, no temporary file.
    assert!(stdout.lines().any(|l| l == "left: "), "{stdout}");
    // The sysbench report was printed before the write failed: not lost.
    assert!(stdout.contains("transactions:"), "{stdout}");
}

/// The private server restarted mid-prepare: `oltp prepare` of
/// 4 x 200,000 rows on a server of the test's own, which is killed (SIGKILL) once the
/// first rows are in and started again on the same directory and port. The prepare
/// fails in one line (the server went away, the database is half loaded, the cleanup to
/// run once the server is up) within the bound below, with no panic; its mark stays:
/// `run` and a second `prepare` refuse, each naming the cleanup; the cleanup named
/// works, and so do a prepare and a run after it.
#[test]
fn a_server_restarted_mid_prepare_fails_the_prepare_and_names_the_cleanup() {
    let dir = server_tempdir();
    let cfg = encbench_oltp::server::ServerConfig::new(dir.path());
    let server = start(&cfg);
    let url = server.url();
    let base = dir.path().join("home");
    let b = utf8(&base).to_string();
    let db = "fltrestart";
    let prepare_args = sized_args(
        "prepare",
        &url,
        &b,
        db,
        ("4", "200000"),
        &["--threads", "2"],
    );
    let t0 = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_oltp"))
        .args(&prepare_args)
        .env("ENCBENCH_HOME", &base)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start oltp prepare");
    runtime().block_on(wait_until_loading(&url, db));
    server.kill().expect("kill the server");
    let port = server.port();
    drop(server);
    let again = start(&cfg);
    assert_eq!(again.port(), port, "restarted on its port: the URL holds");
    let out = child.wait_with_output().expect("wait for the prepare");
    // The bound: the prepare must end once its connections are gone, not wait for
    // the restarted server (mysql_async's reconnect is not involved: a lost
    // connection ends the load).
    assert!(t0.elapsed() < Duration::from_secs(300), "the prepare hung");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the prepare succeeded: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("Error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    let cleanup = format!(
        "oltp cleanup --encrypt none --mysql-db {db}{}",
        shown(&url, &base)
    );
    assert!(
        errors[0].contains("the server went away")
            && errors[0].contains(&format!("{db} is half loaded"))
            && errors[0].ends_with(&format!("run `{cleanup}` before preparing again")),
        "{stderr}"
    );
    assert!(
        !errors[0].contains(again.password()),
        "the password: {stderr}"
    );

    let rt = runtime();
    // The mark stays: run and prepare refuse, each naming the cleanup.
    let run_args = sized_args(
        "run",
        &url,
        &b,
        db,
        ("4", "200000"),
        &["--time", "1", "--workload", "oltp_point_select"],
    );
    let e = rt
        .block_on(cli(&run_args))
        .expect_err("run on half-loaded tables");
    assert!(
        e.contains("half loaded (a prepare did not finish)") && e.contains(&cleanup),
        "{e}"
    );
    let e = rt
        .block_on(cli(&prepare_args))
        .expect_err("prepare on half-loaded tables");
    assert!(e.contains("half loaded") && e.contains(&cleanup), "{e}");
    assert!(!e.contains("use them as they are"), "{e}");

    // The step named works, then prepare and run.
    let cleanup_args = strings(&[
        "cleanup",
        "--mysql-url",
        &url,
        "--base-dir",
        &b,
        "--mysql-db",
        db,
        "--encrypt",
        "none",
    ]);
    assert_eq!(
        rt.block_on(cli(&cleanup_args)),
        Ok(true),
        "the cleanup named"
    );
    let small = sized_args("prepare", &url, &b, db, ("4", "1000"), &[]);
    assert_eq!(
        rt.block_on(cli(&small)),
        Ok(true),
        "prepare after the cleanup"
    );
    let run_small = sized_args(
        "run",
        &url,
        &b,
        db,
        ("4", "1000"),
        &["--time", "1", "--workload", "oltp_point_select"],
    );
    assert_eq!(
        rt.block_on(cli(&run_small)),
        Ok(true),
        "run after the prepare"
    );
}
