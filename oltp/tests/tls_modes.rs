//! TLS against servers whose certificates cannot be verified, with MySQL's levels: `--tls on` (VERIFY_IDENTITY),
//! `verify-ca`, `required`. A certificate from a CA the client was not given
//! is refused by `on` and `verify-ca`, naming the CA file, and measured by
//! `required`, which records its level in the result. An X.509 v1
//! certificate (what `openssl x509 -req` makes without extensions, as many
//! hand-made MySQL setups have) is refused at every level, naming the real
//! problem and the fix: rustls checks the handshake's signature with a parser
//! that refuses v1, whatever the verifier says.
//!
//! `--tls` end to end: every connection of `prepare`, `run` and `cleanup`
//! follows it (MariaDB's `Connections` and `Ssl_accepts` grow alike), so a
//! server with `require_secure_transport=ON` works with `--tls on` and is a
//! one-line error naming `--tls` without it; TLS parameters in `--mysql-url`
//! are refused naming `--tls`, never a panic.

#[allow(dead_code)]
mod common;

use std::path::Path;
use std::process::Command;

use common::*;
use mysql_async::prelude::*;

/// Runs `openssl` with `args` in `dir`; panics on failure.
fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl (the OpenSSL command line tool)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA and a server certificate for 127.0.0.1 signed by it, version 1
/// (`v3 = false`: no extensions) or 3, in the private server's TLS file
/// locations under `base` (kept by the server at its first start); returns
/// the CA file.
fn certificates(base: &Path, v3: bool) -> std::path::PathBuf {
    let files = encbench_oltp::server::tls_files(base);
    let dir = files.ca.parent().expect("tls dir").to_path_buf();
    std::fs::create_dir_all(&dir).expect("tls dir");
    std::fs::write(
        dir.join("v3.ext"),
        "basicConstraints = CA:FALSE\nsubjectAltName = IP:127.0.0.1\n",
    )
    .expect("extensions");
    let mut sign = vec![
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "30",
        "-out",
        "server-cert.pem",
    ];
    let mut ca = vec![
        "req",
        "-new",
        "-key",
        "ca.key",
        "-subj",
        "/CN=encbench test CA",
        "-out",
        "ca.pem",
    ];
    if v3 {
        sign.extend(["-extfile", "v3.ext"]);
        ca.extend(["-x509", "-days", "30"]);
    } else {
        ca[7] = "ca.csr";
    }
    let mut steps: Vec<Vec<&str>> = vec![vec!["genrsa", "-out", "ca.key", "2048"], ca];
    if !v3 {
        steps.push(vec![
            "x509", "-req", "-in", "ca.csr", "-signkey", "ca.key", "-days", "30", "-out", "ca.pem",
        ]);
    }
    steps.push(vec!["genrsa", "-out", "server-key.pem", "2048"]);
    steps.push(vec![
        "req",
        "-new",
        "-key",
        "server-key.pem",
        "-subj",
        "/CN=127.0.0.1",
        "-out",
        "server.csr",
    ]);
    steps.push(sign);
    for args in &steps {
        openssl(&dir, args);
    }
    let text = Command::new("openssl")
        .args(["x509", "-noout", "-text", "-in"])
        .arg(&files.cert)
        .output()
        .expect("openssl x509 -text");
    let version = if v3 {
        "Version: 3 (0x2)"
    } else {
        "Version: 1 (0x0)"
    };
    assert!(
        String::from_utf8_lossy(&text.stdout).contains(version),
        "{version}"
    );
    files.ca
}

/// The private server in `dir` with its own TLS files (the launcher's CA).
fn start_with_tls(dir: &Path) -> encbench_oltp::server::PrivateServer {
    let cfg = encbench_oltp::server::server_config(
        dir,
        encbench_oltp::at_rest::AtRest::Off,
        encbench_oltp::server::Profile::Default,
    )
    .expect("server config with TLS");
    start(&cfg)
}

/// A private server with TLS files from [`certificates`] and plaintext tables.
fn server_with(dir: &Path, v3: bool) -> (encbench_oltp::server::PrivateServer, std::path::PathBuf) {
    let ca = certificates(dir, v3);
    let cfg = encbench_oltp::server::server_config(
        dir,
        encbench_oltp::at_rest::AtRest::Off,
        encbench_oltp::server::Profile::Default,
    )
    .expect("server config with TLS");
    let server = start(&cfg);
    runtime().block_on(prepare(
        &server.url(),
        &dir.join("home"),
        "sbtest",
        "none",
        &[],
    ));
    (server, ca)
}

fn run(url: &str, dir: &Path, ca: &Path, extra: &[&str]) -> Result<bool, String> {
    let home = dir.join("home");
    let mut a = args(
        "run",
        url,
        &home,
        "sbtest",
        &["--time", "1", "--tls-ca", utf8(ca)],
    );
    a.extend(strings(extra));
    runtime().block_on(cli(&a))
}

#[test]
fn a_certificate_from_another_ca_is_refused_unless_tls_required() {
    let dir = common::server_tempdir();
    let (server, _ca) = server_with(dir.path(), true);
    // The client is given another CA.
    let other = tempfile::tempdir().expect("tempdir");
    let other_ca = certificates(other.path(), true);
    for level in ["on", "verify-ca"] {
        let e = run(&server.url(), dir.path(), &other_ca, &["--tls", level])
            .expect_err("not signed by the CA given");
        assert!(
            e.contains(&format!("not signed by the CA in {}", other_ca.display()))
                && e.contains("--tls required"),
            "--tls {level}: {e}"
        );
        assert!(!e.contains("pass --tls-ca"), "--tls-ca was given: {e}");
    }
    let json = dir.path().join("required.json");
    let extra = ["--tls", "off,required", "--json-out", utf8(&json)];
    assert_eq!(
        run(&server.url(), dir.path(), &other_ca, &extra),
        Ok(true),
        "--tls required encrypts without verifying"
    );
    let report = read_json(&json);
    let tls = report["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .find_map(|r| r["tls"].as_object().cloned())
        .expect("a TLS run");
    assert_eq!(tls["mode"], "required", "{tls:?}");
    assert!(
        tls["cipher"].as_str().is_some_and(|c| !c.is_empty()),
        "encrypted: {tls:?}"
    );
    let e = run(
        &server.url(),
        dir.path(),
        &other_ca,
        &["--tls", "on,required"],
    )
    .expect_err("two TLS levels");
    assert!(e.contains("one TLS level per grid"), "{e}");
}

#[test]
fn an_x509_v1_certificate_is_named_at_every_level() {
    let dir = common::server_tempdir();
    let (server, ca) = server_with(dir.path(), false);
    for level in ["on", "verify-ca", "required"] {
        let e = run(&server.url(), dir.path(), &ca, &["--tls", level])
            .expect_err("rustls cannot use a v1 certificate");
        assert!(
            e.contains("X.509 v1") && e.contains("re-issue it as X.509 v3"),
            "--tls {level}: {e}"
        );
        assert!(!e.contains("pass --tls-ca"), "--tls-ca was given: {e}");
    }
}

/// `Connections` and `Ssl_accepts` of the server at `url`, read over a TLS
/// connection verified against `ca` (which counts in both).
async fn connections_and_ssl_accepts(url: &str, ca: &Path) -> (u64, u64) {
    use encbench_oltp::driver::{
        ConnectOptions, Connection as _, MysqlConnection, TlsMode, TlsOptions,
    };
    let mut opts = ConnectOptions::new(url);
    opts.tls = Some(TlsOptions {
        ca: Some(ca.to_path_buf()),
        mode: TlsMode::VerifyIdentity,
    });
    let mut c = MysqlConnection::connect(&opts)
        .await
        .unwrap_or_else(|e| panic!("a TLS connection for the counters: {e}"));
    let mut counters = [0u64; 2];
    for (n, name) in counters.iter_mut().zip(["Connections", "Ssl_accepts"]) {
        let rows = c
            .query_text(&format!("SHOW GLOBAL STATUS LIKE '{name}'"))
            .await
            .expect("SHOW GLOBAL STATUS");
        *n = rows
            .first()
            .and_then(|r| r.get(1).cloned().flatten())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{name} in {rows:?}"));
    }
    c.close().await;
    (counters[0], counters[1])
}

#[test]
fn every_connection_follows_tls_and_a_server_requiring_it_is_named() {
    let dir = common::server_tempdir();
    let server = start_with_tls(dir.path());
    let url = server.url();
    let ca = encbench_oltp::server::Layout::new(encbench_oltp::server::server_base(
        dir.path(),
        encbench_oltp::at_rest::AtRest::Off,
    ))
    .tls_files()
    .ca;
    let home = dir.path().join("home");
    let with_tls = |command: &str, extra: &[&str]| {
        let mut flags = strings(&["--tls", "on", "--tls-ca", utf8(&ca)]);
        flags.extend(strings(extra));
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        args(command, &url, &home, "sbtest", &flags)
    };
    runtime().block_on(async {
        let mut c = conn(&url, None).await;
        c.query_drop("SET GLOBAL require_secure_transport = ON")
            .await
            .expect("require_secure_transport");
        drop(c);
        let before = connections_and_ssl_accepts(&url, &ca).await;
        for (command, extra) in [
            ("prepare", &["--threads", "2", "--encrypt", "none"][..]),
            ("run", &["--threads", "2", "--time", "1"][..]),
            ("cleanup", &[][..]),
        ] {
            assert_eq!(
                cli(&with_tls(command, extra)).await,
                Ok(true),
                "{command} --tls on against require_secure_transport=ON"
            );
        }
        let after = connections_and_ssl_accepts(&url, &ca).await;
        let (connections, accepts) = (after.0 - before.0, after.1 - before.1);
        // prepare: 2 loaders and its checks; run: 2 workers, probe and checks.
        assert!(connections >= 8, "{connections} connections");
        assert_eq!(
            connections, accepts,
            "every connection of prepare, run and cleanup is TLS ({before:?} -> {after:?})"
        );
    });
    // Without TLS, or with off in a run's list: one line naming --tls, before
    // anything is done.
    for (command, tls) in [
        ("prepare", None),
        ("run", None),
        ("run", Some("off,on")),
        ("cleanup", None),
    ] {
        let mut extra = vec!["--time", "1"];
        if command != "run" {
            extra.clear();
        }
        if let Some(list) = tls {
            extra.extend(["--tls", list, "--tls-ca", utf8(&ca)]);
        }
        let out = oltp_bin(&home, &args(command, &url, &home, "sbtest", &extra));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{command} {tls:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert!(
            stderr.contains("refuses connections without TLS")
                && stderr.contains("give --tls on")
                && !stderr.contains("check --mysql-url"),
            "{command} {tls:?}: {stderr}"
        );
    }
}

#[test]
fn tls_parameters_in_the_mysql_url_are_refused_naming_tls_without_a_panic() {
    // A server with TLS, so that a TLS handshake would start.
    let dir = common::server_tempdir();
    let server = start_with_tls(dir.path());
    let base = server.url();
    let home = &dir.path().join("home");
    for (query, key) in [
        ("?require_ssl=true&verify_ca=false", "require_ssl"),
        ("?verify_identity=false", "verify_identity"),
        ("?built_in_roots=false", "built_in_roots"),
        ("?ssl-mode=DISABLED", "ssl-mode"),
    ] {
        let url = format!("{base}{query}");
        for command in ["prepare", "run", "cleanup"] {
            let out = oltp_bin(home, &args(command, &url, home, "sbtest", &[]));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{command} {query}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
            assert!(
                stderr.contains(&format!("--mysql-url has {key}="))
                    && stderr.contains("--tls")
                    && !stderr.contains("panicked"),
                "{command} {query}: {stderr}"
            );
        }
    }
}
