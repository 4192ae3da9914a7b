//! Bad input: a wrong CA, a peer that closes mid-handshake, a peer that never
//! answers, a port in use, unknown names. Each gives a one-line error, no panic,
//! no hang.

use std::process::Command;
use std::time::{Duration, Instant};

use clap::Parser;
use encbench_test_support::usage_error_line;
use tls_bench::Error;
use tls_bench::cli::Cli;
use tls_bench::config::{CertType, TlsVersion, Transport};
use tls_bench::net;
use tls_bench::pki::{Chain, Pki};
use tls_bench::record::{self, MESSAGES};
use tls_bench::tls::{Client, Server, TlsParams};
use tokio::io::AsyncReadExt;

/// Runs the tls-bench binary with `args`.
fn tls_bench<I, S>(args: I) -> std::process::Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_tls-bench"))
        .args(args)
        .output()
        .expect("run tls-bench")
}

/// Runs the tls-bench binary with `args`, asserts that it fails with exactly one
/// `Error: ` line on stderr and nothing on stdout, and returns that line.
fn one_error_line(args: &[&str]) -> String {
    encbench_test_support::one_error_line(&tls_bench(args), args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_with_the_wrong_ca_fails_the_handshake_clearly() {
    let pki = Pki::generate().expect("test PKI");
    // Another CA of the same key type: same shape, wrong signer.
    let other = Chain::generate(CertType::EcdsaP256).expect("second CA");
    for transport in Transport::TLS {
        for version in TlsVersion::ALL {
            let p = TlsParams::new(transport, version);
            let server = Server::new(&p, pki.chain(p.cert)).expect("server");
            let handle = net::serve(
                server,
                "127.0.0.1:0".parse().expect("address"),
                Duration::from_secs(5),
                |_s| async { Ok(()) },
            )
            .expect("serve");
            let client = Client::new(&p, &other.ca).expect("client");
            let e = net::connect(&client, handle.addr, Duration::from_secs(5))
                .await
                .err()
                .expect("the handshake must fail");
            let msg = e.to_string();
            assert!(
                matches!(e, Error::Handshake { side: "client", .. }),
                "{msg}"
            );
            assert!(
                msg.contains("give the client the CA that issued it"),
                "{transport} {version}: {msg}"
            );
            assert!(!msg.contains('\n'), "one line: {msg}");
            // The server's own view (an alert or EOF) may or may not be in by now.
            let _ = handle.stop().await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_closes_mid_handshake_or_never_answers_is_an_error_not_a_hang() {
    let pki = Pki::generate().expect("test PKI");
    for transport in Transport::TLS {
        let p = TlsParams::new(transport, TlsVersion::Tls13);
        let client = Client::new(&p, &pki.chain(p.cert).ca).expect("client");
        // Closes after reading the ClientHello's first bytes.
        let closer = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = closer.local_addr().expect("address");
        let closer_task = tokio::spawn(async move {
            let (mut s, _) = closer.accept().await.expect("accept");
            let mut b = [0u8; 16];
            let _ = s.read(&mut b).await;
        });
        let e = net::connect(&client, addr, Duration::from_secs(5))
            .await
            .err()
            .expect("must fail");
        let msg = e.to_string();
        assert!(matches!(e, Error::Handshake { .. }), "{transport}: {msg}");
        assert!(
            msg.contains("closed") || msg.contains("reset") || msg.contains("eof"),
            "{transport}: {msg}"
        );
        closer_task.await.expect("closer");

        // Accepts and says nothing: the handshake step times out.
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = silent.local_addr().expect("address");
        let silent_task = tokio::spawn(async move {
            let (s, _) = silent.accept().await.expect("accept");
            tokio::time::sleep(Duration::from_secs(30)).await;
            drop(s);
        });
        let t = Instant::now();
        let e = net::connect(&client, addr, Duration::from_millis(300))
            .await
            .err()
            .expect("must time out");
        assert!(
            matches!(
                e,
                Error::Timeout {
                    step: "TLS handshake",
                    ..
                }
            ),
            "{e}"
        );
        // The 300 ms timeout, not the peer's 30 s (slack for a loaded machine).
        assert!(t.elapsed() < Duration::from_secs(10));
        silent_task.abort();
    }
}

#[tokio::test]
async fn a_port_in_use_names_the_address_and_the_fix() {
    let pki = Pki::generate().expect("test PKI");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = taken.local_addr().expect("address");
    let p = TlsParams::new(Transport::RustlsRing, TlsVersion::Tls13);
    let e = record::measure(&p, &pki, &MESSAGES, addr, Duration::from_secs(5))
        .await
        .expect_err("the port is taken");
    let msg = e.to_string();
    assert!(matches!(e, Error::Bind { .. }), "{msg}");
    assert!(
        msg.contains(&addr.to_string()) && msg.contains("port 0"),
        "{msg}"
    );
}

#[test]
fn unknown_names_are_refused_with_the_list_of_known_ones() {
    let cases = [
        (
            vec!["--transports", "plain,gnutls"],
            "unknown transport 'gnutls': use one of plain, rustls-aws-lc-rs, rustls-ring, openssl",
        ),
        (vec!["--tls-versions", "1.1"], "unknown TLS version '1.1'"),
        (
            vec!["--certs", "Ed25519"],
            "unknown certificate type 'Ed25519'",
        ),
        (vec!["--sections", "speed"], "unknown section 'speed'"),
        (
            vec!["--output", "xml"],
            "unknown output format 'xml': use one of text, json, csv, markdown",
        ),
        (vec!["--connections", "0"], "--connections '0'"),
        (vec!["--timeout-secs=-1"], "--timeout-secs -1"),
    ];
    for (args, want) in cases {
        let cli = Cli::try_parse_from(std::iter::once("tls-bench").chain(args.iter().copied()))
            .expect("clap accepts the strings");
        let e = cli.config().expect_err("config refuses the value");
        let msg = e.to_string();
        assert!(msg.contains(want), "{args:?}: {msg}");
        assert!(!msg.contains('\n'));
    }
}

#[test]
fn the_binary_prints_one_error_line_and_exits_non_zero() {
    let stderr = one_error_line(&["--transports", "stunnel", "--sections", "record"]);
    assert!(
        stderr.starts_with("Error: unknown transport 'stunnel'"),
        "{stderr}"
    );
}

#[test]
fn an_svg_dir_that_is_a_file_or_a_device_is_named_before_measuring() {
    for path in ["/dev/null", "/etc/hostname"] {
        let stderr = one_error_line(&["--svg-dir", path]);
        assert!(
            stderr.contains(&format!(
                "--svg-dir {path} exists and is not a directory: give a directory"
            )),
            "{stderr}"
        );
    }
}

#[test]
fn an_unwritable_out_path_fails_before_measuring() {
    let start = std::time::Instant::now();
    let stderr = one_error_line(&["--out", "/nonexistent-dir/report.json"]);
    assert!(
        stderr.contains("--out /nonexistent-dir/report.json")
            && stderr.contains("directory /nonexistent-dir does not exist: create it first"),
        "{stderr}"
    );
    // The default run measures for minutes; the check comes first.
    assert!(
        start.elapsed() < std::time::Duration::from_secs(30),
        "{stderr}"
    );
}

#[test]
fn usage_errors_are_one_line_naming_the_value_with_exit_2() {
    let cases: [(&[&str], &[&str]); 6] = [
        // 0 MiB used to send 1 MiB silently.
        (&["--bulk-mib", "0"], &["'0'", "--bulk-mib", "1..=1048576"]),
        (&["--repeat", "0"], &["'0'", "--repeat", "1..=1000"]),
        // The old name of --repeat (latency rounds only) is refused alike.
        (&["--latency-rounds", "0"], &["'0'", "1..=1000"]),
        (&["--bind", "nowhere"], &["'nowhere'", "--bind"]),
        (&["--no-such-flag"], &["'--no-such-flag'"]),
        (
            &["--control", "--no-control"],
            &["'--control'", "'--no-control'"],
        ),
    ];
    for (args, needles) in cases {
        let stderr = usage_error_line(&tls_bench(args), args);
        assert!(
            stderr.trim_end().ends_with("see tls-bench --help"),
            "{args:?}: {stderr}"
        );
        for n in needles {
            assert!(stderr.contains(n), "{args:?}: {n:?} not in {stderr}");
        }
    }
    for args in [["--help"], ["--version"]] {
        let out = tls_bench(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("tls-bench"));
    }
}

#[test]
fn reports_are_written_with_the_mode_of_any_new_file() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let reference = dir.path().join("reference");
    std::fs::write(&reference, b"").expect("write");
    let mode =
        |p: &std::path::Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    let report = dir.path().join("report.csv");
    let out = tls_bench([
        "--sections",
        "record",
        "--transports",
        "plain",
        "--output",
        "csv",
        "--out",
        report.to_str().expect("utf-8 path"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(&report).expect("report written");
    assert!(csv.starts_with("section,transport,"), "{csv}");
    assert_eq!(mode(&report), mode(&reference), "0666 minus the umask");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("read dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
}

/// A tls-bench copied where the footprint programs are not (a fresh build
/// without `tls-bench-footprint`): a default run measures every other section
/// and says in one line that the footprint was skipped and how to get it; a run
/// that names the section fails in one line with the same fix.
#[test]
fn a_default_run_without_the_footprint_programs_skips_that_section_with_a_note() {
    let dir = tempfile::tempdir().expect("tempdir");
    let exe = dir.path().join("tls-bench");
    std::fs::copy(env!("CARGO_BIN_EXE_tls-bench"), &exe).expect("copy tls-bench");
    let small = [
        "--quick",
        "--transports",
        "plain,rustls-ring",
        "--tls-versions",
        "1.3",
        "--certs",
        "EcdsaP256",
        "--connections",
        "1",
        "--bulk-mib",
        "1",
        "--output",
        "json",
    ];
    let out = Command::new(&exe)
        .args(small)
        .output()
        .expect("run tls-bench");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let note: Vec<&str> = stderr.lines().filter(|l| l.contains("footprint")).collect();
    assert_eq!(note.len(), 1, "{stderr}");
    assert!(
        note[0].contains("cargo build --release -p tls-bench-footprint"),
        "{stderr}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(v["footprint"].as_array().is_some_and(Vec::is_empty));
    assert!(!v["bulk"].as_array().expect("bulk").is_empty());
    let skipped = v["skipped"].as_array().expect("skipped");
    assert!(
        skipped
            .iter()
            .any(|s| s.as_str().is_some_and(|s| s.starts_with("footprint"))),
        "{skipped:?}"
    );
    // Named, the section is required.
    let out = Command::new(&exe)
        .args(["--sections", "footprint"])
        .output()
        .expect("run tls-bench");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cargo build --release -p tls-bench-footprint"),
        "{stderr}"
    );
}

/// A directory holding the three footprint programs, each the shell `script`,
/// and the footprint section's arguments for it (a 3 s timeout): its one
/// error line (with the directory, to keep it alive).
fn fail_footprint_with(script: &str) -> (String, tempfile::TempDir) {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().expect("tempdir");
    for name in ["footprint-plain", "footprint-rustls", "footprint-openssl"] {
        let path = dir.path().join(name);
        std::fs::write(&path, script).expect("write the script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let args = [
        "--sections",
        "footprint",
        "--footprint-dir",
        dir.path().to_str().expect("utf-8"),
        "--timeout-secs",
        "3",
    ];
    (one_error_line(&args), dir)
}

/// A footprint program that never answers is killed at the timeout with all it
/// started (it was killed alone, and a wrapper script's `sleep` lived on).
#[test]
fn a_hanging_footprint_program_is_killed_with_its_children() {
    let pids = tempfile::tempdir().expect("tempdir");
    let pidfile = pids.path().join("child.pid");
    let (line, _dir) = fail_footprint_with(&format!(
        "#!/bin/sh\nsleep 1000 &\necho $! > {}\nwait\n",
        pidfile.display()
    ));
    assert!(line.contains("footprint program"), "{line}");
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .expect("the script started its child")
        .trim()
        .parse()
        .expect("a pid");
    let t0 = Instant::now();
    // Reaped by init once killed: gone within moments, not after 1,000 s.
    while nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok() {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "child {pid} still alive"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A footprint program that prints without end is read up to a cap (it was
/// read whole: 1.3 GB of `yes` in 2 s), and still fails in one line.
#[test]
fn a_footprint_program_printing_without_end_is_read_bounded() {
    let (line, _dir) = fail_footprint_with("#!/bin/sh\nexec yes\n");
    assert!(line.contains("footprint-plain"), "{line}");
    // The largest resident set of any child this test binary waited for,
    // tls-bench among them (KiB on Linux).
    let rss_kib = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage")
        .max_rss();
    assert!(rss_kib < 512 * 1024, "a child reached {rss_kib} KiB");
}
