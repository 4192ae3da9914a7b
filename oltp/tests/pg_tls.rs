//! TLS to PostgreSQL: the private PostgreSQL offers TLS with a
//! certificate from its own CA; `oltp --db-driver pgsql` runs every `--tls` level against
//! it and records the session in the result; every TLS connection is encrypted as the
//! server itself reports it (`pg_stat_ssl`); a wrong CA, a certificate for another host
//! name and a server without TLS are one-line errors naming the fix, and a session that a
//! proxy ends (TLS to the client, plaintext to the server) is refused; a data directory
//! from before TLS gets it at its next start; every connection of `prepare`, `run` and
//! `cleanup` follows `--tls`, so a server whose `pg_hba.conf` accepts TLS only works with
//! `--tls on` and is named without it. Real servers only (a test that cannot start one
//! fails, never skips).

#[allow(dead_code)]
mod common;

use std::path::Path;

use common::*;
use encbench_oltp::driver::{
    ConnectOptions, Connection, ErrorKind, PostgresConnection, TlsMode, TlsOptions,
};
use encbench_oltp::server::postgres::PgLayout;
use encbench_oltp::server::{TlsFiles, write_tls_files};

/// Rows of the one table of each data set here.
const SIZE: u32 = 100;

/// `cmd`'s flags for database `db` on `url` (`None`: the private server of `base`), one
/// table of [`SIZE`] rows, then `extra`.
fn flags(cmd: &str, url: Option<&str>, base: &Path, db: &str, extra: &[&str]) -> Vec<String> {
    let mut a = pg_args(cmd, url, base, db, (1, SIZE));
    a.extend(strings(extra));
    a
}

/// Runs the CLI in-process.
fn oltp(args: &[String]) -> Result<bool, String> {
    runtime().block_on(cli(args))
}

/// Prepares plaintext database `db`.
fn prepare(url: Option<&str>, base: &Path, db: &str) {
    assert_eq!(
        oltp(&flags("prepare", url, base, db, &[])),
        Ok(true),
        "prepare {db}"
    );
}

/// `oltp run` (1 s, oltp_point_select) with `extra`: the JSON report, or the error.
fn run(
    url: Option<&str>,
    base: &Path,
    db: &str,
    extra: &[&str],
) -> Result<serde_json::Value, String> {
    std::fs::create_dir_all(base).expect("base directory");
    let json = base.join(format!("{db}-run.json"));
    let _ = std::fs::remove_file(&json);
    let mut more = strings(&[
        "--workload",
        "oltp_point_select",
        "--time",
        "1",
        "--json-out",
        utf8(&json),
    ]);
    more.extend(strings(extra));
    let more: Vec<&str> = more.iter().map(String::as_str).collect();
    oltp(&flags("run", url, base, db, &more)).map(|ok| {
        assert!(ok, "the run completed");
        read_json(&json)
    })
}

/// The `tls` object of every run of `report`, in order (`null` for plain TCP).
fn tls_of(report: &serde_json::Value) -> Vec<serde_json::Value> {
    report["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|r| r["tls"].clone())
        .collect()
}

/// TLS options with `ca` and `mode`.
fn tls(ca: &Path, mode: TlsMode) -> TlsOptions {
    TlsOptions {
        ca: Some(ca.to_path_buf()),
        mode,
    }
}

/// A CA and a certificate for `hosts` in `dir` (`ca.pem`, `server-cert.pem`, `server-key.pem`).
fn certificates(dir: &Path, hosts: &[&str]) -> TlsFiles {
    let files = TlsFiles {
        ca: dir.join("ca.pem"),
        cert: dir.join("server-cert.pem"),
        key: dir.join("server-key.pem"),
    };
    write_tls_files(&files, "PostgreSQL", hosts).expect("test certificates");
    files
}

/// Asserts `e` is one line holding every piece of `want`.
fn assert_names(e: &str, want: &[&str]) {
    assert!(!e.contains('\n'), "one line: {e}");
    for w in want {
        assert!(e.contains(w), "{w:?} in: {e}");
    }
}

#[test]
fn every_tls_level_runs_against_the_private_postgresql_and_is_recorded() {
    let shared = shared_pg();
    let scratch = pg_tempdir();
    let base = scratch.path();
    let ca = shared.server().layout().tls_files().ca;
    prepare(Some(shared.url()), base, "tlslevels");
    for (level, recorded) in [
        ("on", "verify-identity"),
        ("verify-identity", "verify-identity"),
        ("verify-ca", "verify-ca"),
        ("required", "required"),
    ] {
        let list = format!("off,{level}");
        let report = run(
            Some(shared.url()),
            base,
            "tlslevels",
            &["--tls", &list, "--tls-ca", utf8(&ca)],
        )
        .unwrap_or_else(|e| panic!("--tls {list}: {e}"));
        let t = tls_of(&report);
        assert_eq!(t.len(), 2, "two runs: {t:?}");
        assert!(t[0].is_null(), "the first run is plain TCP: {t:?}");
        assert_eq!(t[1]["mode"], recorded, "--tls {level}: {t:?}");
        assert!(
            t[1]["version"]
                .as_str()
                .is_some_and(|v| v.starts_with("TLSv1.")),
            "{t:?}"
        );
        assert!(
            t[1]["cipher"].as_str().is_some_and(|c| !c.is_empty()),
            "{t:?}"
        );
    }
}

#[test]
fn every_tls_connection_is_encrypted_in_pg_stat_ssl() {
    let shared = shared_pg();
    let ca = shared.server().layout().tls_files().ca;
    runtime().block_on(async {
        let mut opts = ConnectOptions::new(shared.url());
        opts.tls = Some(tls(&ca, TlsMode::VerifyIdentity));
        let mut pids = Vec::new();
        let mut conns = Vec::new();
        for _ in 0..4 {
            let mut c = PostgresConnection::connect(&opts).await.expect("TLS connection");
            let session = c.tls_session().cloned().expect("a TLS session");
            assert!(!session.cipher.is_empty(), "{session:?}");
            let pid = c.query_text("SELECT pg_backend_pid()").await.expect("pid")[0][0]
                .clone()
                .expect("a pid");
            pids.push(pid);
            conns.push(c);
        }
        let mut plain = PostgresConnection::connect(&ConnectOptions::new(shared.url()))
            .await
            .expect("plain connection");
        assert!(plain.tls_session().is_none(), "--tls off has no session");
        let rows = plain
            .query_text(&format!(
                "SELECT count(*) FILTER (WHERE ssl), count(*) FILTER (WHERE NOT ssl AND pid = pg_backend_pid()) FROM pg_stat_ssl WHERE pid IN ({}, pg_backend_pid())",
                pids.join(",")
            ))
            .await
            .expect("pg_stat_ssl");
        assert_eq!(
            rows[0],
            vec![Some("4".to_string()), Some("1".to_string())],
            "4 TLS backends with ssl, the plain one without"
        );
        for c in conns {
            c.close().await;
        }
        plain.close().await;
    });
}

#[test]
fn a_session_the_server_sees_in_plaintext_is_refused() {
    // A proxy ends a verified TLS session from the client and speaks plaintext to the
    // server: only the server's own view (pg_stat_ssl) can tell.
    let shared = shared_pg();
    let scratch = pg_tempdir();
    let base = scratch.path();
    let files = certificates(&base.join("proxy"), &["127.0.0.1"]);
    let server_port = shared.server().port();
    let port = tls_proxy::start(
        std::net::SocketAddr::from(([127, 0, 0, 1], server_port)),
        &files,
    );
    let url = shared
        .url()
        .replace(&format!(":{server_port}/"), &format!(":{port}/"));
    runtime().block_on(async {
        let mut opts = ConnectOptions::new(url.as_str());
        opts.tls = Some(tls(&files.ca, TlsMode::VerifyIdentity));
        match PostgresConnection::connect(&opts).await {
            Ok(_) => panic!("a session in plaintext at the server was accepted"),
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::Tls, "{e}");
                assert_names(&e.to_string(), &["pg_stat_ssl", "not encrypted"]);
            }
        }
    });
    prepare(Some(shared.url()), base, "tlsproxy");
    let e = run(
        Some(&url),
        base,
        "tlsproxy",
        &["--tls", "on", "--tls-ca", utf8(&files.ca)],
    )
    .expect_err("refused before any worker starts");
    assert_names(
        &e,
        &["pg_stat_ssl", "refuses to run in plaintext", "--tls off"],
    );
    assert!(!e.contains(&url), "no password: {e}");
}

#[test]
fn a_wrong_or_unreadable_ca_is_refused_naming_tls_ca() {
    let shared = shared_pg();
    let scratch = pg_tempdir();
    let base = scratch.path();
    let other = certificates(&scratch.path().join("other"), &["127.0.0.1"]);
    prepare(Some(shared.url()), base, "tlswrongca");
    for level in ["on", "verify-ca"] {
        let e = run(
            Some(shared.url()),
            base,
            "tlswrongca",
            &["--tls", level, "--tls-ca", utf8(&other.ca)],
        )
        .expect_err("not signed by that CA");
        assert_names(
            &e,
            &[
                &format!("not signed by the CA in {}", other.ca.display()),
                "--tls-ca",
                "--tls required",
            ],
        );
        assert!(!e.contains(shared.url()), "no password: {e}");
    }
    // required encrypts without verifying, as libpq's sslmode=require.
    let report = run(
        Some(shared.url()),
        base,
        "tlswrongca",
        &["--tls", "required", "--tls-ca", utf8(&other.ca)],
    )
    .expect("--tls required");
    assert_eq!(tls_of(&report)[0]["mode"], "required");
    // A file that holds no certificate.
    let e = run(
        Some(shared.url()),
        base,
        "tlswrongca",
        &["--tls", "on", "--tls-ca", utf8(&other.key)],
    )
    .expect_err("a key is no CA");
    assert_names(&e, &[&format!("--tls-ca {}", other.key.display()), "PEM"]);
}

#[test]
fn a_certificate_for_another_host_needs_verify_ca_and_a_server_without_tls_is_named() {
    let dir = pg_tempdir();
    let layout = PgLayout::new(dir.path());
    // Issued for another name than the URL's 127.0.0.1: kept by the server's first start.
    let tls_dir = layout
        .tls_files()
        .ca
        .parent()
        .expect("tls dir")
        .to_path_buf();
    let files = certificates(&tls_dir, &["db.example.test"]);
    let server = start_pg(dir.path());
    let url = server.url();
    let base = dir.path().join("home");
    prepare(Some(&url), &base, "tlsname");
    let ca = ["--tls-ca", utf8(&files.ca)];
    let e = run(
        Some(&url),
        &base,
        "tlsname",
        &[&["--tls", "on"][..], &ca].concat(),
    )
    .expect_err("127.0.0.1 is not the certificate's name");
    assert_names(&e, &["does not name the URL's host", "--tls verify-ca"]);
    let report = run(
        Some(&url),
        &base,
        "tlsname",
        &[&["--tls", "verify-ca"][..], &ca].concat(),
    )
    .expect("verify-ca checks the chain only");
    assert_eq!(tls_of(&report)[0]["mode"], "verify-ca");

    // The server stops offering TLS.
    runtime().block_on(async {
        let mut c = PostgresConnection::connect(&ConnectOptions::new(url.as_str()))
            .await
            .expect("connect");
        c.simple("ALTER SYSTEM SET ssl = off")
            .await
            .expect("ssl off");
        c.simple("SELECT pg_reload_conf()").await.expect("reload");
        c.close().await;
        // The postmaster applies the reload on its own time: wait until new sessions see it.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let mut c = PostgresConnection::connect(&ConnectOptions::new(url.as_str()))
                .await
                .expect("connect");
            let ssl = c.query_text("SHOW ssl").await.expect("SHOW ssl")[0][0].clone();
            c.close().await;
            if ssl.as_deref() == Some("off") {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "ssl still {ssl:?} after 30 s"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    });
    let e = run(
        Some(&url),
        &base,
        "tlsname",
        &[&["--tls", "verify-ca"][..], &ca].concat(),
    )
    .expect_err("no TLS on the server");
    assert_names(&e, &["does not offer TLS", "ssl = on", "--tls off"]);
    assert!(!e.contains(&url), "no password: {e}");
    run(Some(&url), &base, "tlsname", &["--tls", "off"]).expect("plaintext still works");
}

#[test]
fn a_data_directory_from_before_tls_gets_it_at_its_next_start() {
    let dir = pg_tempdir();
    let layout = PgLayout::new(dir.path());
    drop(start_pg(dir.path()));
    // As a server initialised before TLS: no TLS files, no ssl settings.
    let conf = layout.data().join("postgresql.conf");
    let text = std::fs::read_to_string(&conf).expect("postgresql.conf");
    let at = text.find("# encbench TLS").expect("the TLS block");
    std::fs::write(&conf, &text[..at]).expect("strip the TLS block");
    std::fs::remove_dir_all(layout.tls_files().ca.parent().expect("tls dir")).expect("rm tls");
    // No URL, no --tls-ca: the private server of the base directory and its own CA.
    let base = dir.path();
    prepare(None, base, "tlsbefore");
    let report = run(None, base, "tlsbefore", &["--tls", "on"]).expect("TLS after the restart");
    assert_eq!(tls_of(&report)[0]["mode"], "verify-identity");
    let text = std::fs::read_to_string(&conf).expect("postgresql.conf");
    assert_eq!(
        text.matches("# encbench TLS").count(),
        1,
        "added once: {text}"
    );
    let ca = std::fs::read(layout.tls_files().ca).expect("ca.pem");
    assert!(!ca.is_empty());
}

#[test]
fn a_hostssl_only_server_takes_every_connection_over_tls_and_names_tls_without_it() {
    let dir = pg_tempdir();
    let server = start_pg(dir.path());
    let url = server.url();
    let layout = server.layout().clone();
    let ca = layout.tls_files().ca;
    let scratch = pg_tempdir();
    let base = scratch.path();
    runtime().block_on(async {
        // Only the hostssl line for 127.0.0.1 left, and every login logged.
        let hba = layout.data().join("pg_hba.conf");
        let text = std::fs::read_to_string(&hba).expect("pg_hba.conf");
        let ssl_only: String = text
            .lines()
            .filter(|l| !l.starts_with("hostnossl"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_ne!(ssl_only, text, "a hostnossl line was removed");
        std::fs::write(&hba, ssl_only).expect("write pg_hba.conf");
        let mut c = pg(&url, None).await;
        c.simple("ALTER SYSTEM SET log_connections = on")
            .await
            .expect("log_connections");
        c.query_text("SELECT pg_reload_conf()")
            .await
            .expect("reload");
        c.close().await;
        // The postmaster reloads on its signal: wait until plain TCP is refused.
        let t0 = std::time::Instant::now();
        while let Ok(c) = PostgresConnection::connect(&ConnectOptions::new(url.as_str())).await {
            c.close().await;
            assert!(
                t0.elapsed() < std::time::Duration::from_secs(60),
                "the reload never took effect"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    });
    let log = layout.log();
    let from = std::fs::metadata(&log).expect("server log").len();
    let tls_on = ["--tls", "on", "--tls-ca", utf8(&ca)];
    for (command, extra) in [
        ("prepare", &[][..]),
        (
            "run",
            &[
                "--workload",
                "oltp_point_select",
                "--time",
                "1",
                "--threads",
                "2",
            ][..],
        ),
        ("cleanup", &[][..]),
    ] {
        let args = flags(
            command,
            Some(&url),
            base,
            "hostssl",
            &[&tls_on[..], extra].concat(),
        );
        assert_eq!(oltp(&args), Ok(true), "{command} --tls on");
    }
    let text = std::fs::read(&log).expect("server log");
    let logins: Vec<String> = String::from_utf8_lossy(&text[from as usize..])
        .lines()
        .filter(|l| l.contains("connection authorized"))
        .map(str::to_string)
        .collect();
    // prepare: its checks and loader; run: 2 workers, the probe and the checks.
    assert!(logins.len() >= 6, "{logins:#?}");
    for l in &logins {
        assert!(l.contains("SSL enabled"), "a login without TLS: {l}");
    }
    // Without --tls, or with off in a run's list: one line naming --tls.
    for (command, extra) in [
        ("prepare", &[][..]),
        ("run", &["--time", "1"][..]),
        (
            "run",
            &["--time", "1", "--tls", "off,on", "--tls-ca", utf8(&ca)][..],
        ),
        ("cleanup", &[][..]),
    ] {
        let e = oltp(&flags(command, Some(&url), base, "hostssl", extra))
            .expect_err("plain TCP is refused");
        assert_names(
            &e,
            &[
                "refuses connections without TLS",
                "pg_hba.conf",
                "give --tls on",
            ],
        );
    }
}
