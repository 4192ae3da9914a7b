//! The server-side encryption layers on real private MariaDB servers (no
//! mocks): TLS (`--tls`, verified against the server's generated CA, refused
//! when the CA or the server is wrong) and encryption at rest (`--at-rest`,
//! tablespaces verified, no plaintext in the .ibd file); and `--repeat` with
//! the CSV and Markdown exporters.

use std::path::Path;

use clap::Parser;
use encbench_oltp::cli::Cli;
use encbench_oltp::commands::execute;
use encbench_oltp::driver::ConnectOptions;
use encbench_oltp::driver::mysql::mysql_opts;
use encbench_oltp::server::{PrivateServer, ServerConfig};
use encbench_oltp::server::{Profile, TlsFiles, ensure_tls_files, server_config, tls_files};
use mysql_async::prelude::*;
use serde_json::Value;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

async fn cli(args: &[&str]) -> Result<bool, String> {
    let cli = Cli::try_parse_from(std::iter::once("oltp").chain(args.iter().copied()))
        .map_err(|e| e.to_string())?;
    execute(cli).await.map_err(|e| format!("{e:#}"))
}

async fn prepare(url: &str, base: &str, encrypt: &str) {
    let r = cli(&[
        "prepare",
        "--mysql-url",
        url,
        "--base-dir",
        base,
        "--tables",
        "2",
        "--table-size",
        "1000",
        "--encrypt",
        encrypt,
    ])
    .await;
    assert_eq!(r, Ok(true), "prepare {encrypt}");
}

async fn global_status(url: &str, name: &str) -> u64 {
    let mut conn = mysql_async::Conn::new(mysql_opts(&ConnectOptions::new(url)).expect("opts"))
        .await
        .expect("conn");
    let row: Option<(String, u64)> = conn
        .exec_first("SHOW GLOBAL STATUS WHERE Variable_name = ?", (name,))
        .await
        .expect("status");
    conn.disconnect().await.expect("disconnect");
    row.map_or(0, |(_, v)| v)
}

/// Whether `file` holds a run of three of sysbench's 11-digit groups (a `c` or
/// `pad` value in plaintext).
fn holds_sysbench_values(file: &Path) -> bool {
    let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let group = |w: &[u8]| w[..11].iter().all(u8::is_ascii_digit) && w[11] == b'-';
    bytes
        .windows(36)
        .any(|w| group(&w[..12]) && group(&w[12..24]) && group(&w[24..]))
}

#[test]
fn tls_is_verified_and_checked_and_repeat_rotates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("home");
    let base_s = base.to_str().expect("utf-8").to_string();
    let server =
        PrivateServer::start(&server_config(&base, false, Profile::Default).expect("config"))
            .unwrap_or_else(|e| panic!("private MariaDB server must start: {e}"));
    let url = server.url();
    let json = dir.path().join("r.json");
    let json_s = json.to_str().expect("utf-8").to_string();
    let svg = dir.path().join("chart.svg");
    runtime().block_on(async {
        prepare(&url, &base_s, "none,ring:aes-256-gcm").await;
        let accepts = global_status(&url, "Ssl_accepts").await;
        // The grid: TLS off and on x plaintext and column encryption, two rounds.
        let ca = tls_files(&base).ca;
        let r = cli(&[
            "run",
            "--mysql-url",
            &url,
            "--base-dir",
            &base_s,
            "--tables",
            "2",
            "--table-size",
            "1000",
            "--time",
            "1",
            "--threads",
            "2",
            "--tls",
            "off,on",
            "--tls-ca",
            ca.to_str().expect("utf-8"),
            "--encrypt",
            "none,ring:aes-256-gcm",
            "--repeat",
            "2",
            "--json-out",
            &json_s,
            "--output",
            "markdown",
            "--svg",
            svg.to_str().expect("utf-8"),
        ])
        .await;
        assert_eq!(r, Ok(true));
        let report: Value =
            serde_json::from_slice(&std::fs::read(&json).expect("json")).expect("json");
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
        // Every TLS run's worker connections were TLS handshakes on the server.
        let handshakes = global_status(&url, "Ssl_accepts").await - accepts;
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

        // CSV: a header and one row per run.
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_oltp"))
            .args([
                "run",
                "--mysql-url",
                &url,
                "--base-dir",
                &base_s,
                "--tables",
                "2",
            ])
            .args([
                "--table-size",
                "1000",
                "--time",
                "1",
                "--tls",
                "on",
                "--output",
                "csv",
            ])
            .arg("--tls-ca")
            .arg(&ca)
            .output()
            .expect("oltp");
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

        // Another CA: the server's certificate does not verify.
        let other = TlsFiles {
            ca: dir.path().join("other/ca.pem"),
            cert: dir.path().join("other/cert.pem"),
            key: dir.path().join("other/key.pem"),
        };
        ensure_tls_files(&other).expect("other CA");
        let e = cli(&[
            "run",
            "--mysql-url",
            &url,
            "--base-dir",
            &base_s,
            "--tables",
            "2",
            "--table-size",
            "1000",
            "--time",
            "1",
            "--tls",
            "on",
            "--tls-ca",
            other.ca.to_str().expect("utf-8"),
        ])
        .await
        .expect_err("wrong CA");
        assert!(
            e.contains("--tls on") && e.to_lowercase().contains("cert"),
            "{e}"
        );
    });
    server.stop().expect("stop");

    // A server without TLS: --tls on is refused, never silently plaintext.
    let plain_dir = tempfile::tempdir().expect("tempdir");
    let plain = PrivateServer::start(&ServerConfig::new(plain_dir.path()))
        .unwrap_or_else(|e| panic!("private MariaDB server must start: {e}"));
    let purl = plain.url();
    runtime().block_on(async {
        prepare(&purl, &base_s, "none").await;
        let e = cli(&[
            "run",
            "--mysql-url",
            &purl,
            "--base-dir",
            &base_s,
            "--tables",
            "2",
            "--table-size",
            "1000",
            "--time",
            "1",
            "--tls",
            "on",
            "--tls-ca",
            tls_files(&base).ca.to_str().expect("utf-8"),
        ])
        .await
        .expect_err("server without TLS");
        assert!(e.contains("--tls on"), "{e}");
        // ... and --at-rest is refused on a server that does not encrypt at rest.
        let e = cli(&[
            "run",
            "--mysql-url",
            &purl,
            "--base-dir",
            &base_s,
            "--tables",
            "2",
            "--table-size",
            "1000",
            "--time",
            "1",
            "--at-rest",
        ])
        .await
        .expect_err("server without at-rest encryption");
        assert!(e.contains("innodb_encrypt_tables=OFF"), "{e}");
    });
    // After a clean shutdown (dirty pages flushed), the .ibd file holds the
    // plaintext: the check below for the at-rest server can fail.
    let ibd = plain.data_dir().join("sbtest/sbtest1.ibd");
    plain.stop().expect("stop");
    assert!(
        holds_sysbench_values(&ibd),
        "without at-rest encryption the .ibd file holds the plaintext"
    );
}

#[test]
fn at_rest_server_encrypts_tablespaces_and_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("home");
    let base_s = base.to_str().expect("utf-8").to_string();
    let json = dir.path().join("r.json");
    // Through the CLI's own private server: prepare and run with --at-rest.
    runtime().block_on(async {
        let r = cli(&[
            "prepare",
            "--base-dir",
            &base_s,
            "--at-rest",
            "--tables",
            "2",
            "--table-size",
            "1000",
        ])
        .await;
        assert_eq!(r, Ok(true), "prepare --at-rest");
        let r = cli(&[
            "run",
            "--base-dir",
            &base_s,
            "--at-rest",
            "--tables",
            "2",
            "--table-size",
            "1000",
            "--time",
            "1",
            "--workload",
            "oltp_read_write",
            "--json-out",
            json.to_str().expect("utf-8"),
        ])
        .await;
        assert_eq!(r, Ok(true), "run --at-rest");

        // While this process uses the server, another command asking for other
        // settings is refused rather than restarting the server under it.
        let b = base_s.clone();
        let long = tokio::spawn(async move {
            cli(&[
                "run",
                "--base-dir",
                &b,
                "--at-rest",
                "--tables",
                "2",
                "--table-size",
                "1000",
                "--time",
                "4",
            ])
            .await
        });
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
        let other = std::process::Command::new(env!("CARGO_BIN_EXE_oltp"))
            .args([
                "run",
                "--base-dir",
                &base_s,
                "--at-rest",
                "--profile",
                "io-bound",
            ])
            .args(["--tables", "2", "--table-size", "1000", "--time", "1"])
            .output()
            .expect("oltp");
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
    let report: Value = serde_json::from_slice(&std::fs::read(&json).expect("json")).expect("json");
    let run = &report["runs"][0];
    assert_eq!(run["at_rest"], true);
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
