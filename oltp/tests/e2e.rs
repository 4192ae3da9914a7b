//! End-to-end tests of `oltp` against a real private MariaDB server started by
//! the project's own launcher (no mocks). The tests share one server per test
//! binary (each its own `--mysql-db`), except the one that kills its server.
//! A server that cannot start fails the test (never skips).

use std::sync::OnceLock;
use std::time::Duration;

use encbench_oltp::columns::{Columns, Encrypt};
use encbench_oltp::driver::PsMode;
use encbench_oltp::schema::DataSet;
use encbench_oltp::workload::{RangeKind, Workload};
use mysql_async::prelude::*;

#[allow(dead_code)] // each test binary uses a subset of the helpers
mod common;
use common::{
    ROWS, TABLES, Use, args, cli, conn, oltp_bin, once, prepare, read_json, runtime,
    set_max_prepared_stmt_count, shared_server, shared_server_alone, start_server, utf8,
    write_key_file,
};

/// The three choices prepared for the result tests, in database `e2e`.
const PREPARED: &str = "none,rustcrypto:aes-256-gcm,openssl:chacha20-poly1305";

/// The base directory (key files) of the tables prepared in `db`, prepared once
/// per test binary on the shared server.
fn prepared(
    t: &Use,
    cell: &'static OnceLock<std::path::PathBuf>,
    db: &str,
    encrypt: &str,
) -> &'static std::path::Path {
    once(cell, async {
        let base = t.shared.dir().join(format!("{db}-home"));
        prepare(&t.url, &base, db, encrypt, &[]).await;
        base
    })
    .as_path()
}

static E2E: OnceLock<std::path::PathBuf> = OnceLock::new();

async fn session(
    url: &str,
    base: &std::path::Path,
    encrypt: &str,
) -> encbench_oltp::workload::Session<encbench_oltp::driver::MysqlConnection> {
    common::session(
        url,
        base,
        "e2e",
        encrypt,
        Columns::default(),
        Workload::OltpReadOnly,
        PsMode::Auto,
    )
    .await
}

#[test]
fn stored_values_are_envelopes_not_the_plaintext() {
    let t = shared_server();
    prepared(&t, &E2E, "e2e", PREPARED);
    runtime().block_on(async {
        // The stored values really are envelopes: 119 + 33 bytes, not the plaintext.
        let mut conn = conn(&t.url, None).await;
        let (plain_c, enc_c): (Vec<u8>, Vec<u8>) = conn
            .query_first("SELECT p.c, e.c FROM e2e.sbtest1 p JOIN e2e_aes_256_gcm.sbtest1 e USING (id) WHERE id = 7")
            .await
            .expect("query")
            .expect("row 7");
        assert_eq!(plain_c.len(), 119);
        assert_eq!(enc_c.len(), 119 + 33);
        assert!(!enc_c.windows(11).any(|w| plain_c.starts_with(w)), "ciphertext must not contain the plaintext");
        conn.disconnect().await.expect("disconnect");
    });
}

#[test]
fn encrypted_reads_equal_plaintext_for_every_backend() {
    let t = shared_server();
    let base = prepared(&t, &E2E, "e2e", PREPARED);
    let url = t.url.clone();
    runtime().block_on(async {
        let mut plain = session(&url, base, "none").await;
        for choice in [
            "rustcrypto:aes-256-gcm",
            "openssl:aes-256-gcm",
            "ring:aes-256-gcm",
            "aws-lc-rs:aes-256-gcm",
            "openssl:chacha20-poly1305",
            "rustcrypto:chacha20-poly1305",
            "ring:chacha20-poly1305",
            "aws-lc-rs:chacha20-poly1305",
        ] {
            let mut enc = session(&url, base, choice).await;
            for table in 1..=TABLES {
                for id in [1, 2, 500, 999, 1000, 1001] {
                    let a = plain
                        .point_select(table, id)
                        .await
                        .expect("plain point")
                        .to_vec();
                    let b = enc
                        .point_select(table, id)
                        .await
                        .expect("enc point")
                        .to_vec();
                    assert_eq!(a, b, "{choice} point select table {table} id {id}");
                    assert_eq!(a.len(), usize::from(id <= ROWS));
                }
                // Ranges inside, across the end of, and beyond the table.
                for (lo, hi) in [(1, 100), (450, 549), (950, 1049), (2000, 2099)] {
                    for kind in [RangeKind::Simple, RangeKind::Order, RangeKind::Distinct] {
                        let a = plain
                            .range(kind, table, lo, hi)
                            .await
                            .expect("plain range")
                            .to_vec();
                        let b = enc
                            .range(kind, table, lo, hi)
                            .await
                            .expect("enc range")
                            .to_vec();
                        assert_eq!(a, b, "{choice} {kind:?} table {table} [{lo},{hi}]");
                        if kind != RangeKind::Simple {
                            assert!(a.windows(2).all(|w| w[0] <= w[1]), "ORDER BY c must sort");
                        }
                    }
                    assert_eq!(
                        plain.sum_range(table, lo, hi).await.expect("sum"),
                        enc.sum_range(table, lo, hi).await.expect("sum"),
                    );
                }
            }
            enc.close().await;
        }
        plain.close().await;
    });
}

#[test]
fn read_only_runs_report_sysbench_counts() {
    let t = shared_server();
    let base = prepared(&t, &E2E, "e2e", PREPARED);
    let url = t.url.clone();
    runtime().block_on(async {
        // 2 s of read_only per mode, through the CLI, JSON written.
        // The directory of --json-out must exist (oltp refuses to create it).
        let json = t.file("out/result.json");
        std::fs::create_dir(t.file("out")).expect("create out/");
        let flags = [
            "--time",
            "2",
            "--threads",
            "1,2",
            "--encrypt",
            "none,rustcrypto:aes-256-gcm,openssl:aes-256-gcm",
            "--output",
            "json",
            "--json-out",
            utf8(&json),
        ];
        let r = cli(&args("run", &url, base, "e2e", &flags)).await;
        assert_eq!(r, Ok(true));
        let report = read_json(&json);
        assert_eq!(report["complete"], true);
        let runs = report["runs"].as_array().expect("runs");
        assert_eq!(runs.len(), 6, "2 thread counts x 3 choices");
        for run in runs {
            assert_eq!(run["workload"], "oltp_read_only");
            let tx = run["transactions"].as_u64().expect("transactions");
            // (Not a rate: a 2 s window on a loaded 2-core CI machine may hold few.)
            assert!(tx > 0, "a 2 s run completes transactions: {run}");
            // sysbench's counting: 14 reads and 2 others (BEGIN, COMMIT) per event.
            assert_eq!(run["queries"]["read"].as_u64(), Some(14 * tx));
            assert_eq!(run["queries"]["other"].as_u64(), Some(2 * tx));
            assert_eq!(run["queries"]["write"].as_u64(), Some(0));
            assert_eq!(run["queries"]["total"].as_u64(), Some(16 * tx));
            let l = &run["latency_ms"];
            let (min, p95, max, avg) = (
                l["min"].as_f64(),
                l["p95"].as_f64(),
                l["max"].as_f64(),
                l["avg"].as_f64(),
            );
            let (min, p95, max, avg) = (
                min.expect("min"),
                p95.expect("p95"),
                max.expect("max"),
                avg.expect("avg"),
            );
            assert!(
                min > 0.0 && min <= avg && avg <= max && min <= p95 && p95 <= max,
                "{l}"
            );
            let qps = run["qps"].as_f64().expect("qps");
            let tps = run["tps"].as_f64().expect("tps");
            assert!((qps / tps - 16.0).abs() < 1e-6);
            assert_eq!(run["errors"], 0);
            assert_eq!(run["reconnects"], 0);
            // A time-based run that reached its deadline measured exactly --time
            // (events count by completion inside the window, worker.rs).
            assert_eq!(run["time_s"].as_f64().expect("time"), 2.0);
        }
        assert_eq!(
            report["comparison"].as_array().expect("comparison").len(),
            4
        );
    });
}

#[test]
fn bad_input_gives_one_line_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path();
    // No server needed: names are checked before anything starts.
    for (args, needle) in [
        (
            vec!["run", "--encrypt", "nosuch:aes-256-gcm"],
            "valid names",
        ),
        (
            vec!["run", "--encrypt", "openssl:aes-999-gcm"],
            "openssl:aes-256-gcm",
        ),
        (vec!["prepare", "--encrypt", "rot13"], "BACKEND:ALGORITHM"),
        (vec!["run", "--threads", "0"], "--threads"),
        (vec!["run", "--workload", "oltp_nothing"], "oltp_read_only"),
        (vec!["run", "--mysql-url", "http://x"], "--mysql-url"),
        (
            vec!["prepare", "--mysql-db", "y`; drop database victim; --"],
            "--mysql-db",
        ),
        (vec!["run", "--mysql-db", "mysql"], "server's own database"),
        (
            vec!["run", "--json-out", "/proc/nonexistent/x.json"],
            "--json-out",
        ),
        (
            vec!["run", "--mysql-url", "mysql://encbench:pw@127.0.0.1:1/"],
            "connection refused at 127.0.0.1:1: is MariaDB (or MySQL) running there?",
        ),
    ] {
        let out = oltp_bin(base, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} must fail");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    }
}

/// `oltp run` on database `db` of the shared server, `--time 1`, with `extra` flags.
async fn run_on(t: &Use, base: &std::path::Path, db: &str, extra: &[&str]) -> Result<bool, String> {
    cli(&args(
        "run",
        &t.url,
        base,
        db,
        &[&["--time", "1"], extra].concat(),
    ))
    .await
}

/// Tables of `openssl:aes-256-gcm` in database `e2ekeys`, prepared once.
static KEYS: OnceLock<std::path::PathBuf> = OnceLock::new();

#[test]
fn run_before_prepare_names_oltp_prepare() {
    let t = shared_server();
    let base = t.base();
    runtime().block_on(async {
        let e = run_on(&t, &base, "e2enoprep", &[])
            .await
            .expect_err("run before prepare");
        assert!(e.contains("oltp prepare"), "{e}");
        let e = run_on(
            &t,
            &base,
            "e2enoprep",
            &["--encrypt", "openssl:aes-256-gcm"],
        )
        .await
        .expect_err("encrypted before prepare");
        assert!(e.contains("oltp prepare"), "{e}");
    });
}

#[test]
fn another_table_size_and_a_second_prepare_are_refused() {
    let t = shared_server();
    let base = prepared(&t, &KEYS, "e2ekeys", "openssl:aes-256-gcm");
    let url = t.url.clone();
    let encrypt = ["--encrypt", "openssl:aes-256-gcm"];
    runtime().block_on(async {
        let mut run = args("run", &url, base, "e2ekeys", &encrypt);
        let size = run
            .iter()
            .position(|a| a == "--table-size")
            .expect("--table-size")
            + 1;
        run[size] = "2000".into();
        let e = cli(&run)
            .await
            .expect_err("table size differs from prepare");
        assert!(e.contains("--table-size 1000"), "{e}");
        let e = cli(&args("prepare", &url, base, "e2ekeys", &encrypt))
            .await
            .expect_err("second prepare");
        assert!(e.contains("cleanup"), "{e}");
    });
}

#[test]
fn wrong_key_files_are_refused_naming_the_key_id_or_the_fix() {
    let t = shared_server();
    let base = prepared(&t, &KEYS, "e2ekeys", "openssl:aes-256-gcm");
    runtime().block_on(async {
        // Wrong key files, each refused before the run with the key id or the fix named:
        // (file contents, backend, what the error must say).
        let other = t.file("other.keys");
        let wrong_keys = [
            // Key id 1 is not in this file.
            (
                format!("2;{}\n", "11".repeat(32)),
                "rustcrypto:aes-256-gcm",
                vec!["key id 1"],
            ),
            // Same key id, other key bytes: decryption fails, naming the key id and row.
            (
                format!("1;{}\n", "22".repeat(32)),
                "rustcrypto:aes-256-gcm",
                vec!["decryption failed under key id 1", "sbtest1"],
            ),
            // Wrong key length.
            (
                "1;00ff\n".to_string(),
                "openssl:aes-256-gcm",
                vec!["needs 32"],
            ),
        ];
        for (contents, encrypt, needles) in wrong_keys {
            write_key_file(&other, &contents);
            let e = run_on(
                &t,
                base,
                "e2ekeys",
                &["--encrypt", encrypt, "--key-file", utf8(&other)],
            )
            .await
            .expect_err("wrong key file");
            assert!(needles.iter().all(|n| e.contains(n)), "{contents}: {e}");
        }
        // A key file others may read is refused with the chmod to run, like
        // ssh's private keys (key hygiene), and works once chmod 600.
        use std::os::unix::fs::PermissionsExt;
        let keys = base.join("keys");
        let file = keys.join("aes-256-gcm.keys");
        let mode = |p: &std::path::Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600, "prepare creates the key file 0600");
        assert_eq!(mode(&keys), 0o700, "prepare creates the keys directory 0700");
        let open = t.file("open.keys");
        std::fs::copy(&file, &open).expect("copy key file");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let with_open = ["--encrypt", "openssl:aes-256-gcm", "--key-file", utf8(&open)];
        let e = run_on(&t, base, "e2ekeys", &with_open)
            .await
            .expect_err("a key file mode 0644");
        assert_eq!(
            e,
            format!(
                "--encrypt openssl:aes-256-gcm: key file {} is open to other users (mode 0644): run `chmod 600 {}`",
                open.display(),
                open.display()
            )
        );
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        assert_eq!(run_on(&t, base, "e2ekeys", &with_open).await, Ok(true));
        // And the real thing works with the right key.
        assert_eq!(
            run_on(&t, base, "e2ekeys", &["--encrypt", "openssl:aes-256-gcm"]).await,
            Ok(true)
        );
    });
}

#[test]
fn too_many_prepared_statements_for_the_server_are_refused_before_the_run() {
    // Changes a global setting: no other test uses the server meanwhile.
    let t = shared_server_alone();
    let base = prepared(&t, &KEYS, "e2ekeys", "openssl:aes-256-gcm");
    runtime().block_on(async {
        let mut conn = conn(&t.url, None).await;
        let old = set_max_prepared_stmt_count(&mut conn, 15).await;
        let e = run_on(
            &t,
            base,
            "e2ekeys",
            &["--encrypt", "openssl:aes-256-gcm", "--threads", "2"],
        )
        .await
        .expect_err("statement budget");
        set_max_prepared_stmt_count(&mut conn, old).await;
        assert!(e.contains("max_prepared_stmt_count"), "{e}");
        conn.disconnect().await.expect("disconnect");
    });
}

#[test]
fn a_wrong_password_cannot_connect() {
    let t = shared_server();
    let base = t.base();
    let url = t.url.clone();
    runtime().block_on(async {
        let password = t.shared.server().password();
        let bad = url.replacen(&format!(":{password}@"), ":wrong@", 1);
        assert_ne!(bad, url, "url carries the password: {url}");
        let e = cli(&["run", "--mysql-url", &bad, "--base-dir", utf8(&base)])
            .await
            .expect_err("wrong password");
        assert!(
            e.contains("cannot connect") && e.contains("Access denied"),
            "{e}"
        );
    });
}

/// `--time` of the run whose server is killed: far longer than the test waits.
const RUN_TIME: Duration = Duration::from_secs(600);
/// Workers of that run.
const THREADS: u32 = 2;

#[test]
fn server_killed_mid_run_ends_with_partial_report() {
    let dir = common::server_tempdir();
    let server = start_server(dir.path());
    let url = server.url();
    let base = dir.path().join("home");
    let rt = runtime();
    rt.block_on(prepare(&url, &base, "sbtest", "none", &[]));
    let opts = encbench_oltp::config::RunConfig {
        url: url.clone().into(),
        data: DataSet {
            db: "sbtest".into(),
            tables: TABLES,
            table_size: ROWS,
            columns: Default::default(),
            at_rest: Default::default(),
            server: Default::default(),
            tls: None,
        },
        workload: encbench_oltp::workload::Workload::OltpReadOnly,
        threads: vec![THREADS],
        encrypts: vec![Encrypt::None],
        time: RUN_TIME,
        events: 0,
        rate: 0.0,
        warmup: Duration::ZERO,
        report_interval: Duration::ZERO,
        intervals_to_stderr: true,
        options: encbench_oltp::workload::Options::default(),
        rand_type: encbench_oltp::sb_rand::RandType::Special,
        rand_seed: 0,
        tls: vec![false],
        tls_ca: None,
        tls_mode: Default::default(),
        at_rest: encbench_oltp::at_rest::AtRest::Off,
        at_rest_info: None,
        repeat: 1,
        control: false,
        key_file: None,
        base_dir: base.clone(),
        progress: false,
        reconnect_window: Duration::from_secs(2),
        on_decrypt_error: Default::default(),
        server_cpu: encbench_oltp::server_cpu::ServerCpu::Process(
            encbench_oltp::server_cpu::ServerProcess::open(server.pid()).expect("mariadbd"),
        ),
        iops_cap: None,
        shared_with: Vec::new(),
        start_at: None,
        scale: None,
        latency_limit: None,
    };
    let results = rt.block_on(async {
        let commits = common::global_status(&url, "Com_commit").await;
        let run = tokio::spawn(async move {
            encbench_oltp::run::run_grid(&opts, std::sync::Arc::new(encbench_oltp::run::Silent))
                .await
        });
        // Killed once the run has completed a transaction, however long a
        // loaded machine takes to get there. read_only's events end with
        // COMMIT, and a worker sends its next COMMIT only after recording the
        // event before: once the server has executed THREADS + 1 commits, one
        // worker has executed two, so it has recorded at least one event.
        let waiting = std::time::Instant::now();
        while common::global_status(&url, "Com_commit").await < commits + u64::from(THREADS) + 1 {
            if run.is_finished() {
                panic!("the run ended before the kill: {:?}", run.await);
            }
            assert!(
                waiting.elapsed() < RUN_TIME / 2,
                "no transaction committed within {:?}",
                RUN_TIME / 2
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        server.kill().expect("kill server");
        tokio::time::timeout(Duration::from_secs(60), run)
            .await
            .expect("run must end soon after the server dies")
            .expect("task")
            .expect("grid")
    });
    assert_eq!(results.len(), 1);
    let r = &results[0];
    assert!(
        r.time_s < RUN_TIME.as_secs_f64(),
        "the run ended with the server, not at its --time: {} s",
        r.time_s
    );
    assert!(!r.complete, "a run whose server died is not complete");
    assert!(r.error.as_deref().is_some_and(|e| !e.is_empty()));
    assert!(
        r.transactions > 0,
        "the events before the kill are reported"
    );
    // The report adds up. Each worker was stopped
    // mid-event: those events are counted apart, their BEGINs are in the
    // statement table without a COMMIT.
    assert!(
        (1..=u64::from(THREADS)).contains(&r.interrupted_events),
        "interrupted_events {}",
        r.interrupted_events
    );
    let count = |kind: &str| {
        r.statements
            .iter()
            .find(|s| s.kind == kind)
            .map_or(0, |s| s.count)
    };
    assert_eq!(
        count("commit"),
        r.transactions,
        "read_only: one COMMIT per transaction"
    );
    assert!(
        count("begin") - count("commit") <= r.interrupted_events + r.errors + r.reconnects,
        "begin {} commit {} interrupted {} errors {} reconnects {}",
        count("begin"),
        count("commit"),
        r.interrupted_events,
        r.errors,
        r.reconnects
    );
    // A worker's execution time ends when it lost the server, not after the
    // 2 s reconnect window (it was 5 s over the total time before).
    assert!(
        r.fairness.exec_time_avg_s < r.time_s + 2.0,
        "execution time {} s against total time {} s",
        r.fairness.exec_time_avg_s,
        r.time_s
    );
    // The driver's doubled "Input/output error: Input/output error:" once.
    let e = r.error.as_deref().unwrap_or_default();
    assert!(!e.contains("Input/output error: Input/output error"), "{e}");
    // The server's process is gone at the end of the window: no server CPU,
    // and the reason says why.
    assert_eq!(r.server_cpu_us_per_query, None);
    let why = r.server_cpu_unavailable.as_deref().unwrap_or_default();
    assert!(why.contains("cannot read /proc/"), "{why}");
}
