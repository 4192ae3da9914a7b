//! `forward` mode with real clients on the real private MariaDB: stock sysbench, the
//! `mariadb` CLI and oltp through the proxy; a wrong password refused as the server refuses
//! it; a client gone mid-result; SIGTERM with a command in flight; the backend killed and
//! back.

use std::time::{Duration, Instant};

use encbench_test_support::{server_tempdir, shared_server, start_server};
use mysql_async::prelude::*;

#[allow(dead_code)] // each test binary uses a subset of the helpers
mod common;
use common::{Proxy, conn, exec, mariadb, sysbench, text, url};

/// Polls `check` every 100 ms until it holds; panics after `limit` (a hang detector far
/// above the time it takes, not a timing assertion).
fn wait_until(what: &str, limit: Duration, mut check: impl FnMut() -> bool) {
    let until = Instant::now() + limit;
    while !check() {
        assert!(Instant::now() < until, "{what}: not after {limit:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn runtime() -> tokio::runtime::Runtime {
    encbench_test_support::runtime()
}

/// sysbench's count after `label` in its report (e.g. "ignored errors:").
fn count_after(out: &str, label: &str) -> u64 {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no {label:?} in sysbench's output:\n{out}"));
    line.trim_start()[label.len()..]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {line:?}"))
}

#[test]
fn stock_sysbench_prepares_runs_and_cleans_up_through_the_proxy() {
    let t = shared_server();
    let server = t.shared.server();
    let pw = server.password().to_string();
    runtime().block_on(exec(&t.url, &["CREATE DATABASE IF NOT EXISTS sb_forward"]));
    let proxy = Proxy::start(server.port(), &[]);
    let run = |cmd: &str, extra: &[&str]| {
        let o = sysbench(proxy.port, &pw, "sb_forward", cmd, extra);
        let (out, err) = text(&o);
        assert!(o.status.success(), "sysbench {cmd}: {out}\n{err}");
        out
    };
    run("prepare", &[]);
    let out = run("run", &["--threads=2", "--events=200", "--time=0"]);
    // Every event completed (sysbench exits non-zero on any other error). Two threads of
    // read_write may deadlock each other on the server (1213), which sysbench counts as an
    // ignored error and retries: the server's doing, not the proxy's, so not asserted.
    assert_eq!(count_after(&out, "total number of events:"), 200, "{out}");
    assert_eq!(count_after(&out, "reconnects:"), 0, "{out}");
    // 200 events of 18 statements each (10 point selects, 4 ranges, 2 writes + delete/insert,
    // BEGIN/COMMIT): sysbench counts them all.
    assert!(count_after(&out, "queries:") >= 200 * 18, "{out}");
    // The rows went through to the server.
    let rows: u64 = runtime().block_on(async {
        let mut c = conn(&format!("{}sb_forward", t.url)).await;
        c.query_first("SELECT COUNT(*) FROM sbtest1")
            .await
            .expect("count")
            .expect("a row")
    });
    assert_eq!(rows, 1000);
    run("cleanup", &[]);
}

#[test]
fn the_mariadb_cli_reads_through_the_proxy_as_directly() {
    let t = shared_server();
    let server = t.shared.server();
    let pw = server.password().to_string();
    runtime().block_on(exec(
        &t.url,
        &[
            "CREATE DATABASE IF NOT EXISTS cli_forward",
            "CREATE OR REPLACE TABLE cli_forward.t (id INT PRIMARY KEY, c VARCHAR(120), d DATETIME, n DECIMAL(10,2) NULL)",
            "INSERT INTO cli_forward.t SELECT seq, REPEAT(CHAR(65 + seq % 26), seq % 120), '2026-12-08 01:02:03', IF(seq % 7 = 0, NULL, seq / 3) FROM cli_forward.seq_1_to_2000",
        ],
    ));
    let proxy = Proxy::start(server.port(), &[]);
    let one = mariadb(proxy.port, "encbench", &pw, None, "SELECT 1");
    assert!(one.status.success(), "{:?}", text(&one));
    assert_eq!(text(&one).0, "1\n1\n");
    // Several statements, a multi-result and a table read: the same bytes as directly.
    let sql = "SELECT * FROM t ORDER BY id; SELECT COUNT(*), SUM(n) FROM t; SHOW COLUMNS FROM t";
    let through = mariadb(proxy.port, "encbench", &pw, Some("cli_forward"), sql);
    let direct = mariadb(server.port(), "encbench", &pw, Some("cli_forward"), sql);
    assert!(through.status.success(), "{:?}", text(&through));
    assert_eq!(text(&through).0.lines().count(), 2001 + 2 + 5);
    assert_eq!(text(&through), text(&direct));
    // A statement error: the server's own message.
    let bad = "SELECT * FROM no_such_table";
    let through = mariadb(proxy.port, "encbench", &pw, Some("cli_forward"), bad);
    let direct = mariadb(server.port(), "encbench", &pw, Some("cli_forward"), bad);
    assert!(!through.status.success());
    assert_eq!(text(&through), text(&direct));
}

#[test]
fn the_cli_status_command_gets_the_servers_statistics_and_the_session_goes_on() {
    let t = shared_server();
    let server = t.shared.server();
    let pw = server.password().to_string();
    let proxy = Proxy::start(server.port(), &[]);
    // `status` sends COM_STATISTICS (one text packet); the query after it must still get
    // its own reply.
    let out = mariadb(proxy.port, "encbench", &pw, None, "status; SELECT 2 AS two");
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("Uptime:"), "{stdout}");
    assert!(stdout.ends_with("two\n2\n"), "{stdout}");
}

#[test]
fn a_wrong_password_is_refused_exactly_as_the_server_refuses_it() {
    let t = shared_server();
    let server = t.shared.server();
    let proxy = Proxy::start(server.port(), &[]);
    let through = mariadb(proxy.port, "encbench", "wrong-password", None, "SELECT 1");
    let direct = mariadb(
        server.port(),
        "encbench",
        "wrong-password",
        None,
        "SELECT 1",
    );
    let (_, err) = text(&through);
    assert!(
        err.starts_with("ERROR 1045 (28000): Access denied"),
        "{err}"
    );
    assert_eq!(through.status.code(), direct.status.code());
    assert_eq!(text(&through), text(&direct));
    // The proxy stays up: the right password works next.
    let ok = mariadb(proxy.port, "encbench", server.password(), None, "SELECT 1");
    assert!(ok.status.success(), "{:?}", text(&ok));
}

#[test]
fn a_client_requiring_tls_is_refused_never_served_in_plaintext() {
    let t = shared_server();
    let server = t.shared.server();
    let proxy = Proxy::start(server.port(), &[]);
    let o = std::process::Command::new("mariadb")
        .args([
            "--protocol=TCP",
            "-h",
            "127.0.0.1",
            "--ssl",
            "--ssl-verify-server-cert",
        ])
        .arg(format!("--port={}", proxy.port))
        .arg("--user=encbench")
        .arg(format!("--password={}", server.password()))
        .args(["-e", "SELECT 1"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run mariadb");
    let (out, err) = text(&o);
    assert!(!o.status.success(), "served: {out}");
    assert!(err.starts_with("ERROR 2026"), "{err}");
}

#[test]
fn oltp_runs_through_the_proxy() {
    let t = shared_server();
    let server = t.shared.server();
    let pw = server.password().to_string();
    let proxy = Proxy::start(server.port(), &[]);
    let base = t.base();
    let through = url(&pw, proxy.port, "");
    let oltp = |cmd: &str, extra: &[&str]| {
        let mut args = vec![
            "oltp".to_string(),
            cmd.into(),
            "--mysql-url".into(),
            through.clone(),
            "--base-dir".into(),
            base.display().to_string(),
            "--mysql-db".into(),
            "oltp_forward".into(),
            "--tables".into(),
            "1".into(),
            "--table-size".into(),
            "200".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let cli = <encbench_oltp::cli::Cli as clap::Parser>::try_parse_from(&args)
            .unwrap_or_else(|e| panic!("{args:?}: {e}"));
        runtime()
            .block_on(encbench_oltp::commands::execute(cli))
            .map_err(|e| format!("{e:#}"))
    };
    assert_eq!(oltp("prepare", &["--encrypt", "none"]), Ok(true));
    assert_eq!(
        oltp(
            "run",
            &[
                "--encrypt",
                "none",
                "--threads",
                "2",
                "--events",
                "100",
                "--time",
                "0"
            ]
        ),
        Ok(true)
    );
    assert_eq!(oltp("cleanup", &[]), Ok(true));
}

#[test]
fn a_client_gone_mid_result_closes_its_backend_connection() {
    let t = shared_server();
    let server = t.shared.server();
    // A user of its own, so that its server threads can be counted alone.
    runtime().block_on(exec(
        &t.url,
        &[
            "DROP USER IF EXISTS 'gone'@'127.0.0.1', 'gone'@'localhost'",
            "CREATE USER 'gone'@'127.0.0.1' IDENTIFIED BY 'gone-pw'",
            "CREATE USER 'gone'@'localhost' IDENTIFIED BY 'gone-pw'",
        ],
    ));
    let threads = || -> u64 {
        runtime().block_on(async {
            let mut c = conn(&t.url).await;
            let n = c
                .query_first(
                    "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = 'gone'",
                )
                .await
                .expect("processlist")
                .expect("a row");
            c.disconnect().await.expect("disconnect");
            n
        })
    };
    assert_eq!(threads(), 0);
    let mut proxy = Proxy::start(server.port(), &[]);
    // 200 MB of rows, read row by row (--quick) into a pipe nobody reads: the client stops
    // reading mid-result, then dies.
    let mut client = std::process::Command::new("mariadb")
        .args(["--protocol=TCP", "-h", "127.0.0.1", "--skip-ssl", "--quick", "--batch"])
        .arg(format!("--port={}", proxy.port))
        .args(["--user=gone", "--password=gone-pw", "-e"])
        .arg("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 200000) SELECT n, REPEAT('x', 1000) FROM r")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("mariadb");
    // The query runs on the server (its thread is there) before the client goes.
    wait_until("the query on the server", Duration::from_secs(60), || {
        threads() == 1
    });
    let mut out = client.stdout.take().expect("stdout");
    let mut first = [0u8; 1];
    std::io::Read::read_exact(&mut out, &mut first).expect("the first result bytes");
    client.kill().expect("kill the client");
    client.wait().expect("reap");
    drop(out);
    wait_until(
        "the backend connection closed",
        Duration::from_secs(60),
        || threads() == 0,
    );
    assert!(proxy.running(), "the proxy must stay up");
    let ok = mariadb(proxy.port, "gone", "gone-pw", None, "SELECT 1");
    assert!(ok.status.success(), "{:?}", text(&ok));
    runtime().block_on(exec(
        &t.url,
        &["DROP USER 'gone'@'127.0.0.1', 'gone'@'localhost'"],
    ));
}

#[test]
fn sigterm_finishes_the_command_in_flight_then_exits_0() {
    let t = shared_server();
    let server = t.shared.server();
    let pw = server.password().to_string();
    let summary = t.file("summary.json");
    let mut proxy = Proxy::start(
        server.port(),
        &[
            "--summary",
            summary.to_str().expect("utf-8"),
            "--report-interval",
            "0.5",
        ],
    );
    let through = url(&pw, proxy.port, "");
    let rt = runtime();
    let mut c = rt.block_on(conn(&through));
    // SLEEP(3) in flight through the proxy, seen on the server, when SIGTERM arrives.
    let query = rt.spawn(async move {
        let r: Option<u64> = c
            .query_first("SELECT SLEEP(3) AS slept_through_the_proxy")
            .await
            .expect("query");
        r
    });
    let running = || -> u64 {
        rt.block_on(async {
            let mut d = conn(&t.url).await;
            let n = d
                .query_first("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT SLEEP(3) AS slept%'")
                .await
                .expect("processlist")
                .expect("a row");
            d.disconnect().await.expect("disconnect");
            n
        })
    };
    wait_until("the sleep on the server", Duration::from_secs(60), || {
        running() == 1
    });
    proxy.terminate();
    assert_eq!(
        rt.block_on(query).expect("join"),
        Some(0),
        "the command in flight completes"
    );
    wait_until("the proxy exits", Duration::from_secs(60), || {
        !proxy.running()
    });
    let status = proxy.child.wait().expect("status");
    assert_eq!(status.code(), Some(0));
    // The interval lines (SLEEP(3) ran through the proxy: at least one half-second line).
    let mut out = String::new();
    std::io::Read::read_to_string(&mut proxy.child.stdout.take().expect("stdout"), &mut out)
        .expect("stdout");
    let line = regex::Regex::new(
        r"^\[ \d+s \] qps: \d+\.\d\d conns: \d+ errors/s: \d+\.\d\d cpu: \d+\.\d\d s/s \(usr \d+\.\d\d sys \d+\.\d\d\)$",
    )
    .expect("regex");
    assert!(
        !out.is_empty() && out.lines().all(|l| line.is_match(l)),
        "{out}"
    );
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&summary).expect("summary")).expect("JSON");
    encbench_common::header::check_json(&s).expect("the header every encbench result starts with");
    assert_eq!(s["tool"]["name"], "encbench-proxy");
    assert_eq!(s["mode"], "forward");
    assert_eq!(s["connections"], 1);
    assert!(s["queries"].as_u64().expect("queries") >= 1, "{s}");
    assert!(
        s["cpu_user_s"].as_f64().is_some() && s["cpu_sys_s"].as_f64().is_some(),
        "{s}"
    );
}

#[test]
fn a_killed_backend_gives_clients_an_error_and_the_proxy_serves_again_once_it_is_back() {
    let dir = server_tempdir();
    let server = start_server(dir.path());
    let port = server.port();
    let pw = server.password().to_string();
    let mut proxy = Proxy::start(port, &[]);
    let through = url(&pw, proxy.port, "");
    let rt = runtime();
    let mut c = rt.block_on(conn(&through));
    let one: Option<u8> = rt.block_on(c.query_first("SELECT 1")).expect("select");
    assert_eq!(one, Some(1));
    server.kill().expect("kill the server");
    // The open connection fails, and so does a new one, with an error, not a hang.
    assert!(rt.block_on(c.query_drop("SELECT 1")).is_err());
    let refused = mariadb(proxy.port, "encbench", &pw, None, "SELECT 1");
    let (_, err) = text(&refused);
    assert!(!refused.status.success());
    assert!(
        err.starts_with(
            "ERROR 1105 (HY000): encbench-proxy: cannot connect to the backend 127.0.0.1:"
        ),
        "{err}"
    );
    // The cause, on the proxy's standard error.
    let logged = std::iter::from_fn(|| proxy.stderr.recv_timeout(Duration::from_secs(60)).ok())
        .find(|l| l.contains("cannot connect to the backend 127.0.0.1:"));
    assert!(logged.is_some(), "no log line of the unreachable backend");
    assert!(proxy.running(), "the proxy must stay up");
    drop(server);
    let again = start_server(dir.path());
    assert_eq!(
        again.port(),
        port,
        "the server keeps its port across restarts"
    );
    let ok = mariadb(proxy.port, "encbench", &pw, None, "SELECT 1");
    assert!(ok.status.success(), "{:?}", text(&ok));
    assert!(proxy.running());
}
