//! TLS on the client leg (`--tls-cert`/`--tls-key`): the `mariadb` CLI verifies the
//! proxy's certificate (a private CA made by `encbench_common::pki`) and reads through it; the
//! login relay holds across the TLS switch (a wrong password still gets the server's 1045).

use encbench_common::pki::{Chain, ChainSpec, KeyType, ServerFiles};
use std::sync::OnceLock;

use encbench_oltp::at_rest::AtRest;
use encbench_oltp::server::{Profile, server_config};
use encbench_test_support::{SharedServer, shared_server};

#[allow(dead_code)] // each test binary uses a subset of the helpers
mod common;
use common::{Proxy, exec, text};

/// A CA and a certificate for 127.0.0.1 / localhost it signs, written as PEM files in
/// `dir`: (ca, cert, key).
fn pki(dir: &std::path::Path) -> (String, String, String) {
    let chain = Chain::generate(&ChainSpec {
        key_type: KeyType::EcdsaP256,
        ca_name: "encbench-proxy test CA",
        server_name: "localhost",
        hosts: &["127.0.0.1", "localhost"],
    })
    .expect("a test PKI");
    let (ca, cert, key) = (
        dir.join("ca.pem"),
        dir.join("cert.pem"),
        dir.join("key.pem"),
    );
    chain
        .write(&ServerFiles {
            ca: &ca,
            cert: &cert,
            key: &key,
        })
        .expect("write the test PKI's PEM files");
    let s = |p: std::path::PathBuf| p.display().to_string();
    (s(ca), s(cert), s(key))
}

/// The `mariadb` CLI over verified TLS to 127.0.0.1:`port`.
fn mariadb_tls(
    port: u16,
    ca: &str,
    password: &str,
    db: Option<&str>,
    sql: &str,
) -> std::process::Output {
    let mut c = std::process::Command::new("mariadb");
    c.args([
        "--protocol=TCP",
        "-h",
        "127.0.0.1",
        "--batch",
        "--ssl",
        "--ssl-verify-server-cert",
    ])
    .arg(format!("--ssl-ca={ca}"))
    .arg(format!("--port={port}"))
    .arg("--user=encbench")
    .arg(format!("--password={password}"));
    if let Some(db) = db {
        c.arg(format!("--database={db}"));
    }
    c.arg("-e")
        .arg(sql)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run mariadb")
}

#[test]
fn the_mariadb_cli_verifies_the_proxy_and_reads_through_tls() {
    let t = shared_server();
    let server = t.shared.server();
    let pw = server.password().to_string();
    let (ca, cert, key) = pki(t.scratch.path());
    encbench_test_support::runtime().block_on(exec(
        &t.url,
        &[
            "CREATE DATABASE IF NOT EXISTS tls_forward",
            "CREATE OR REPLACE TABLE tls_forward.t (id INT PRIMARY KEY, c VARCHAR(200))",
            "INSERT INTO tls_forward.t SELECT seq, REPEAT('c', seq % 200) FROM tls_forward.seq_1_to_3000",
        ],
    ));
    let proxy = Proxy::start(server.port(), &["--tls-cert", &cert, "--tls-key", &key]);
    let one = mariadb_tls(proxy.port, &ca, &pw, None, "SELECT 1");
    assert!(one.status.success(), "{:?}", text(&one));
    assert_eq!(text(&one).0, "1\n1\n");
    // The CLI's own view of its connection: TLS, to the proxy.
    let status = mariadb_tls(proxy.port, &ca, &pw, None, "status");
    assert!(
        text(&status).0.contains("Cipher in use is TLS"),
        "{:?}",
        text(&status)
    );
    let sql = "SELECT COUNT(*), SUM(LENGTH(c)) FROM t; SELECT * FROM t ORDER BY id";
    let through = mariadb_tls(proxy.port, &ca, &pw, Some("tls_forward"), sql);
    let direct = common::mariadb(server.port(), "encbench", &pw, Some("tls_forward"), sql);
    assert!(through.status.success(), "{:?}", text(&through));
    assert_eq!(text(&through), text(&direct));
    let wrong = mariadb_tls(proxy.port, &ca, "wrong-password", None, "SELECT 1");
    assert!(
        text(&wrong).1.starts_with("ERROR 1045 (28000)"),
        "{:?}",
        text(&wrong)
    );
    // Another CA: the client refuses the proxy's certificate.
    let stranger_dir = tempfile_dir(t.scratch.path(), "stranger");
    let (stranger_ca, _, _) = pki(&stranger_dir);
    let refused = mariadb_tls(proxy.port, &stranger_ca, &pw, None, "SELECT 1");
    assert!(!refused.status.success(), "{:?}", text(&refused));
    assert!(
        text(&refused).1.starts_with("ERROR 2026"),
        "{:?}",
        text(&refused)
    );
}

fn tempfile_dir(base: &std::path::Path, name: &str) -> std::path::PathBuf {
    let d = base.join(name);
    std::fs::create_dir_all(&d).expect("mkdir");
    d
}

#[test]
fn bad_tls_files_are_one_line_naming_the_flag() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, cert, _) = pki(dir.path());
    let secret = dir.path().join("not-a-key.pem");
    std::fs::write(&secret, "secret-material-not-pem").expect("write");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_encbench-proxy"))
            .args([
                "--listen",
                "127.0.0.1:0",
                "--backend",
                "mysql://127.0.0.1:1",
            ])
            .args(args)
            .output()
            .expect("run encbench-proxy")
    };
    let missing = run(&["--tls-cert", "/nonexistent/cert.pem", "--tls-key", &cert]);
    assert_eq!(missing.status.code(), Some(1));
    let err = String::from_utf8_lossy(&missing.stderr).into_owned();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("Error: cannot read certificates from /nonexistent/cert.pem (--tls-cert)"),
        "{err}"
    );
    let bad_key = run(&[
        "--tls-cert",
        &cert,
        "--tls-key",
        secret.to_str().expect("utf-8"),
    ]);
    assert_eq!(bad_key.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad_key.stderr).into_owned();
    assert!(
        err.contains("(--tls-key)") && !err.contains("secret-material"),
        "{err}"
    );
    // One without the other: a usage error.
    let alone = run(&["--tls-cert", &cert]);
    assert_eq!(alone.status.code(), Some(2));
}

/// A private MariaDB of this test binary with oltp's own settings (TLS on, its CA
/// generated at first start), as `oltp server start` starts it.
fn tls_server() -> &'static SharedServer {
    static SERVER: OnceLock<SharedServer> = OnceLock::new();
    SERVER.get_or_init(|| {
        SharedServer::start(|dir| {
            server_config(dir, AtRest::Off, Profile::Default).expect("server config")
        })
    })
}

/// The private server's CA.
fn server_ca(server: &SharedServer) -> String {
    let ca = encbench_lab::server::tls_files(server.server().base_dir()).ca;
    assert!(ca.exists(), "{} missing", ca.display());
    ca.display().to_string()
}

#[test]
fn the_backend_leg_runs_verified_tls() {
    let shared = tls_server();
    let server = shared.server();
    let pw = server.password().to_string();
    let ca = server_ca(shared);
    let proxy = Proxy::start(server.port(), &["--backend-tls", "--backend-tls-ca", &ca]);
    // A plain client; the server sees TLS on the proxy's connection.
    let o = common::mariadb(
        proxy.port,
        "encbench",
        &pw,
        None,
        "SELECT VARIABLE_VALUE <> '' FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'Ssl_cipher'",
    );
    assert!(o.status.success(), "{:?}", text(&o));
    assert_eq!(text(&o).0.lines().nth(1), Some("1"), "{:?}", text(&o));
    let wrong = common::mariadb(proxy.port, "encbench", "wrong-password", None, "SELECT 1");
    assert!(
        text(&wrong).1.starts_with("ERROR 1045 (28000)"),
        "{:?}",
        text(&wrong)
    );
}

#[test]
fn a_backend_whose_certificate_does_not_verify_is_refused() {
    let shared = tls_server();
    let server = shared.server();
    let pw = server.password().to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    let (other_ca, _, _) = pki(dir.path());
    let proxy = Proxy::start(
        server.port(),
        &["--backend-tls", "--backend-tls-ca", &other_ca],
    );
    let o = common::mariadb(proxy.port, "encbench", &pw, None, "SELECT 1");
    assert!(!o.status.success(), "{:?}", text(&o));
    let err = text(&o).1;
    assert!(
        err.starts_with("ERROR 1043 (08S01): encbench-proxy: TLS to the backend 127.0.0.1:"),
        "{err}"
    );
}

#[test]
fn oltp_runs_through_the_proxy_with_tls_on_both_legs() {
    let shared = tls_server();
    let server = shared.server();
    let pw = server.password().to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    let (ca, cert, key) = pki(dir.path());
    let backend_ca = server_ca(shared);
    let proxy = Proxy::start(
        server.port(),
        &[
            "--tls-cert",
            &cert,
            "--tls-key",
            &key,
            "--backend-tls",
            "--backend-tls-ca",
            &backend_ca,
        ],
    );
    let through = common::url(&pw, proxy.port, "");
    let base = dir.path().join("home").display().to_string();
    let oltp = |cmd: &str, extra: &[&str]| {
        let mut args: Vec<String> = [
            "oltp",
            cmd,
            "--mysql-url",
            &through,
            "--base-dir",
            &base,
            "--mysql-db",
            "oltp_tls_forward",
            "--tables",
            "1",
            "--table-size",
            "100",
            "--tls",
            "on",
            "--tls-ca",
            &ca,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        let cli = <encbench_oltp::cli::Cli as clap::Parser>::try_parse_from(&args)
            .unwrap_or_else(|e| panic!("{args:?}: {e}"));
        encbench_test_support::runtime()
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
                "50",
                "--time",
                "0"
            ]
        ),
        Ok(true)
    );
    assert_eq!(oltp("cleanup", &[]), Ok(true));
}
