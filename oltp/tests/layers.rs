//! The server-side encryption layers on real private MariaDB servers (no
//! mocks): TLS (`--tls`, verified against the server's generated CA, refused
//! when the CA or the server is wrong) and encryption at rest (`--at-rest`,
//! tablespaces verified, no plaintext in the .ibd file); and `--repeat` with
//! the CSV and Markdown exporters.
//!
//! The TLS tests share one private server configured as `oltp` configures its
//! own (TLS on, its CA under the server's directory); the refusals and the
//! plaintext .ibd file use this binary's shared default server (no TLS, no
//! encryption at rest); the at-rest test runs the CLI's own at-rest server.

use std::path::Path;
use std::sync::{OnceLock, PoisonError, RwLock};
use std::time::{Duration, Instant};

use encbench_oltp::at_rest::AtRest;
use encbench_oltp::server::{
    Layout, Profile, TlsFiles, ensure_tls_files, server_base, server_config, tls_files,
};
use mysql_async::prelude::*;

#[allow(dead_code)] // each test binary uses a subset of the helpers
mod common;
use common::{
    SharedServer, cli, conn, global_status, oltp_bin, once, prepare, read_json, runtime,
    shared_server, strings, utf8,
};

/// Whether `file` holds a run of three of sysbench's 11-digit groups (a `c` or
/// `pad` value in plaintext).
fn holds_sysbench_values(file: &Path) -> bool {
    let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let group = |w: &[u8]| w[..11].iter().all(u8::is_ascii_digit) && w[11] == b'-';
    bytes
        .windows(36)
        .any(|w| group(&w[..12]) && group(&w[12..24]) && group(&w[24..]))
}

/// The private server with `oltp`'s own settings (TLS on, default profile) shared
/// by the TLS tests; its directory is also their `--base-dir` (key files, CA).
fn tls_server() -> &'static SharedServer {
    static SERVER: OnceLock<SharedServer> = OnceLock::new();
    SERVER.get_or_init(|| {
        SharedServer::start(|dir| {
            server_config(dir, AtRest::Off, Profile::Default).expect("config")
        })
    })
}

/// Held exclusively by the test that counts the TLS server's handshakes
/// (`Ssl_accepts`), shared by the other tests of that server.
static HANDSHAKES: RwLock<()> = RwLock::new(());

/// Database `tls` on the TLS server: plaintext and `ring:aes-256-gcm`, prepared once.
fn tls_prepared() -> &'static SharedServer {
    static PREPARED: OnceLock<()> = OnceLock::new();
    let server = tls_server();
    once(
        &PREPARED,
        prepare(server.url(), server.dir(), "tls", TLS_ENCRYPT, &[]),
    );
    server
}

/// The encryptions prepared in database `tls`.
const TLS_ENCRYPT: &str = "none,ring:aes-256-gcm";

/// `run` of database `db` for 1 s on `url` with key files in `base`, then `extra`.
fn run_args(url: &str, base: &Path, db: &str, extra: &[&str]) -> Vec<String> {
    common::args("run", url, base, db, &[&["--time", "1"], extra].concat())
}

#[test]
fn tls_grid_runs_verified_handshakes_and_repeat_rotates_the_order() {
    let _alone = HANDSHAKES.write().unwrap_or_else(PoisonError::into_inner);
    let server = tls_prepared();
    let (url, base) = (server.url(), server.dir());
    let scratch = tempfile::tempdir().expect("tempdir");
    let json = scratch.path().join("r.json");
    let svg = scratch.path().join("chart.svg");
    runtime().block_on(async {
        let accepts = global_status(url, "Ssl_accepts").await;
        // The grid: TLS off and on x plaintext and column encryption, two rounds.
        let ca = tls_files(base).ca;
        let args = run_args(
            url,
            base,
            "tls",
            &[
                "--threads",
                "2",
                "--tls",
                "off,on",
                "--tls-ca",
                utf8(&ca),
                "--encrypt",
                TLS_ENCRYPT,
                "--repeat",
                "2",
                "--json-out",
                utf8(&json),
                "--output",
                "markdown",
                "--svg",
                utf8(&svg),
            ],
        );
        assert_eq!(cli(&args).await, Ok(true));
        let report = read_json(&json);
        let runs = report["runs"].as_array().expect("runs");
        assert_eq!(runs.len(), 8, "2 TLS modes x 2 encryptions x 2 rounds");
        let chart = std::fs::read_to_string(&svg).expect("svg written");
        assert!(
            chart.starts_with("<svg"),
            "{}",
            &chart[..80.min(chart.len())]
        );
        for label in [
            "QPS (median)",
            "RT avg, ms (median)",
            "ring:aes-256-gcm + TLS",
        ] {
            assert!(chart.contains(label), "the chart names {label}");
        }
        let order: Vec<(String, bool)> = runs
            .iter()
            .map(|r| {
                (
                    r["encrypt"].as_str().expect("encrypt").to_string(),
                    !r["tls"].is_null(),
                )
            })
            .collect();
        assert_eq!(
            order[4], order[1],
            "round 2 starts where round 1's second run was"
        );
        assert_eq!(order[7], order[0], "and ends with round 1's first");
        for run in runs.iter().filter(|r| !r["tls"].is_null()) {
            let cipher = run["tls"]["cipher"].as_str().expect("cipher");
            assert!(!cipher.is_empty(), "{run}");
            assert!(
                run["tls"]["version"]
                    .as_str()
                    .expect("version")
                    .starts_with("TLSv1.")
            );
            assert_eq!(run["server_settings"]["have_ssl"], "YES");
        }
        // Every TLS run's worker connections were TLS handshakes on the server
        // (no other test uses it meanwhile: HANDSHAKES is held).
        let handshakes = global_status(url, "Ssl_accepts").await - accepts;
        assert!(handshakes >= 4 * 2, "4 TLS runs x 2 workers: {handshakes}");
        let summary = report["summary"].as_array().expect("summary");
        assert_eq!(summary.len(), 4);
        for s in summary {
            assert_eq!(s["runs"], 2);
            let q = &s["qps"];
            let (min, med, max) = (q["min"].as_f64(), q["median"].as_f64(), q["max"].as_f64());
            let (min, med, max) = (min.expect("min"), med.expect("median"), max.expect("max"));
            assert!(min <= med && med <= max && min > 0.0, "{s}");
        }
        let modes: Vec<&str> = report["comparison"]
            .as_array()
            .expect("comparison")
            .iter()
            .map(|c| c["mode"].as_str().expect("mode"))
            .collect();
        assert_eq!(modes, ["ring:aes-256-gcm", "TLS", "ring:aes-256-gcm + TLS"]);
    });
}

/// A new user's finding: `--encrypt none,A --tls on` (no plaintext TLS-off
/// cell) printed no comparison and an empty `comparisons`; column encryption
/// is now compared with the plaintext cell over TLS, and the one mode that has
/// no baseline (plaintext over TLS) gets a line saying what to add.
#[test]
fn a_grid_over_tls_alone_compares_with_plaintext_over_tls() {
    let _shared = HANDSHAKES.read().unwrap_or_else(PoisonError::into_inner);
    let server = tls_prepared();
    let (url, base) = (server.url(), server.dir());
    let ca = tls_files(base).ca;
    let scratch = tempfile::tempdir().expect("tempdir");
    let json = scratch.path().join("tls-only.json");
    let aead = "ring:aes-256-gcm";
    let args = common::args(
        "run",
        url,
        base,
        "tls",
        &[
            "--encrypt",
            TLS_ENCRYPT,
            "--tls",
            "on",
            "--tls-ca",
            utf8(&ca),
            "--repeat",
            "3",
            "--time",
            "0",
            "--events",
            "30",
            "--no-progress",
            "--json-out",
            utf8(&json),
        ],
    );
    let out = oltp_bin(base, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = read_json(&json);
    let cmp = report["comparisons"].as_array().expect("comparisons");
    assert!(!cmp.is_empty(), "no comparison");
    assert!(
        cmp.iter().all(|c| c["baseline"] == "TLS"
            && c["variant"] == format!("{aead} + TLS")
            && c["rounds"] == 3),
        "{cmp:#?}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("\nPlaintext (TLS) vs {aead} + TLS\n")),
        "{stdout}"
    );
    assert!(
        stdout.contains("\nNo comparison for TLS: no plaintext baseline ran beside it")
            && stdout.contains("add off to --tls to compare"),
        "{stdout}"
    );
}

#[test]
fn csv_output_has_a_header_and_a_row_with_the_tls_fields() {
    let _shared = HANDSHAKES.read().unwrap_or_else(PoisonError::into_inner);
    let server = tls_prepared();
    let (url, base) = (server.url(), server.dir());
    // CSV: a header and one row per run.
    let ca = tls_files(base).ca;
    let args = run_args(
        url,
        base,
        "tls",
        &["--tls", "on", "--output", "csv", "--tls-ca", utf8(&ca)],
    );
    let out = oltp_bin(base, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut rdr = csv::Reader::from_reader(&out.stdout[..]);
    let headers = rdr.headers().expect("header").clone();
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.expect("row")).collect();
    assert_eq!(rows.len(), 1);
    let col = |name: &str| headers.iter().position(|h| h == name).expect(name);
    assert_eq!(&rows[0][col("tls")], "true");
    assert!(!rows[0][col("tls_cipher")].is_empty());
}

#[test]
fn another_ca_is_refused_naming_tls_on_and_the_certificate() {
    let _shared = HANDSHAKES.read().unwrap_or_else(PoisonError::into_inner);
    let server = tls_prepared();
    let (url, base) = (server.url(), server.dir());
    // Another CA: the server's certificate does not verify.
    let dir = tempfile::tempdir().expect("tempdir");
    let other = TlsFiles {
        ca: dir.path().join("other/ca.pem"),
        cert: dir.path().join("other/cert.pem"),
        key: dir.path().join("other/key.pem"),
    };
    ensure_tls_files(&other, "MariaDB").expect("other CA");
    let args = run_args(
        url,
        base,
        "tls",
        &["--tls", "on", "--tls-ca", utf8(&other.ca)],
    );
    let e = runtime().block_on(cli(&args)).expect_err("wrong CA");
    assert!(
        e.contains("--tls on") && e.to_lowercase().contains("cert"),
        "{e}"
    );
}

/// Database `plain` on the shared default server (no TLS, no encryption at
/// rest), prepared once; its base directory.
fn plain_prepared(t: &common::Use) -> &'static Path {
    static BASE: OnceLock<std::path::PathBuf> = OnceLock::new();
    once(&BASE, async {
        let base = t.shared.dir().join("plain-home");
        prepare(&t.url, &base, "plain", "none", &[]).await;
        base
    })
    .as_path()
}

#[test]
fn a_server_without_tls_or_at_rest_encryption_refuses_tls_on_and_at_rest() {
    let t = shared_server();
    let base = plain_prepared(&t);
    // A CA of its own: this server has none, and --tls on must not matter which.
    let ca = TlsFiles {
        ca: t.file("tls/ca.pem"),
        cert: t.file("tls/cert.pem"),
        key: t.file("tls/key.pem"),
    };
    ensure_tls_files(&ca, "MariaDB").expect("a CA");
    runtime().block_on(async {
        // A server without TLS: --tls on is refused, never silently plaintext.
        let args = run_args(
            &t.url,
            base,
            "plain",
            &["--tls", "on", "--tls-ca", utf8(&ca.ca)],
        );
        let e = cli(&args).await.expect_err("server without TLS");
        assert!(
            e.contains("--tls on") && e.contains("does not offer TLS") && e.contains("--tls off"),
            "{e}"
        );
        // ... and --at-rest is refused on a server that does not encrypt at rest.
        let args = run_args(&t.url, base, "plain", &["--at-rest"]);
        let e = cli(&args)
            .await
            .expect_err("server without at-rest encryption");
        assert!(e.contains("innodb_encrypt_tables=OFF"), "{e}");
    });
}

#[test]
fn without_at_rest_encryption_the_ibd_file_holds_the_plaintext() {
    let t = shared_server();
    plain_prepared(&t);
    // Once the table's dirty pages are flushed (FOR EXPORT flushes them, as a
    // clean shutdown does), the .ibd file holds the plaintext: the check of the
    // at-rest server's file below can fail.
    let ibd = t.shared.server().data_dir().join("plain/sbtest1.ibd");
    runtime().block_on(async {
        let mut conn = conn(&t.url, Some("plain")).await;
        conn.query_drop("FLUSH TABLES sbtest1 FOR EXPORT")
            .await
            .expect("flush for export");
        let plaintext = holds_sysbench_values(&ibd);
        conn.query_drop("UNLOCK TABLES").await.expect("unlock");
        conn.disconnect().await.expect("disconnect");
        assert!(
            plaintext,
            "without at-rest encryption the .ibd file holds the plaintext"
        );
    });
}

/// `--base-dir base --at-rest`, 2 x 1000 rows, then `extra`.
fn at_rest_args(command: &str, base: &str, extra: &[&str]) -> Vec<String> {
    let mut args = strings(&[
        command,
        "--base-dir",
        base,
        "--at-rest",
        "--tables",
        "2",
        "--table-size",
        "1000",
    ]);
    args.extend(strings(extra));
    args
}

#[test]
fn at_rest_server_encrypts_tablespaces_and_runs() {
    let dir = common::server_tempdir();
    let base = dir.path().join("home");
    let base_s = utf8(&base).to_string();
    let json = dir.path().join("r.json");
    // Through the CLI's own private server: prepare and run with --at-rest.
    runtime().block_on(async {
        let r = cli(&at_rest_args("prepare", &base_s, &[])).await;
        assert_eq!(r, Ok(true), "prepare --at-rest");
        let run = [
            "--time",
            "1",
            "--workload",
            "oltp_read_write",
            "--json-out",
            utf8(&json),
        ];
        let r = cli(&at_rest_args("run", &base_s, &run)).await;
        assert_eq!(r, Ok(true), "run --at-rest");

        // While this process uses the server, another command asking for other
        // settings is refused rather than restarting the server under it.
        let layout = Layout::new(server_base(&base, AtRest::Innodb));
        let registrations = || layout.user_files(std::process::id());
        assert!(
            registrations().is_empty(),
            "the finished run unregistered: {:?}",
            registrations()
        );
        // 10 s: long enough for the second process to start and be refused
        // even on a loaded machine (4 s failed once at load ~160).
        let first = at_rest_args("run", &base_s, &["--time", "10"]);
        let long = tokio::spawn(async move { cli(&first).await });
        // The first command registers before it starts (or attaches to) the
        // server; from then until its run ends, it is a user of the server.
        let waiting = Instant::now();
        while registrations().is_empty() {
            if long.is_finished() {
                panic!("the first command ended unregistered: {:?}", long.await);
            }
            assert!(
                waiting.elapsed() < Duration::from_secs(300),
                "the first command did not register in {} within 300 s",
                layout.users_dir().display()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let other = oltp_bin(
            dir.path(),
            &at_rest_args("run", &base_s, &["--profile", "io-bound", "--time", "1"]),
        );
        let stderr = String::from_utf8_lossy(&other.stderr);
        assert!(
            !other.status.success() && stderr.contains("in use by another oltp command"),
            "{stderr}"
        );
        assert_eq!(
            long.await.expect("task"),
            Ok(true),
            "the first run is undisturbed"
        );
    });
    let report = read_json(&json);
    let run = &report["runs"][0];
    assert_eq!(run["at_rest"]["mechanism"], "innodb");
    assert_eq!(run["server_settings"]["innodb_encrypt_tables"], "ON");
    assert_eq!(run["server_settings"]["innodb_encrypt_log"], "ON");
    assert!(run["transactions"].as_u64().expect("tx") > 0);
    // The command's private server has shut down (dirty pages flushed).
    let ibd = base.join("at-rest/mariadb/data/sbtest/sbtest1.ibd");
    assert!(
        !holds_sysbench_values(&ibd),
        "{} must not hold plaintext values",
        ibd.display()
    );
    // The plaintext server of the same base directory was never started.
    assert!(!base.join("mariadb/data").exists());
}
