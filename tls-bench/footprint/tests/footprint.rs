//! The footprint section on the three programs cargo just built for this test:
//! each completes its exchange with a live server, sizes are real files, and
//! the OpenSSL variant counts the libssl and libcrypto it loads.

use std::path::Path;
use std::time::Duration;

use tls_bench::footprint;
use tls_bench::pki::Pki;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_programs_run_and_are_measured() {
    let plain = Path::new(env!("CARGO_BIN_EXE_footprint-plain"));
    let dir = plain.parent().expect("binaries live in a directory");
    let pki = Pki::generate().expect("test PKI");
    let rows = footprint::measure(dir, &pki, Duration::from_secs(20))
        .await
        .expect("footprint measured");
    let names: Vec<&str> = rows.iter().map(|r| r.variant).collect();
    assert_eq!(
        names,
        ["plain", "rustls-aws-lc-rs", "openssl", "openssl+libs"]
    );
    let by = |v: &str| rows.iter().find(|r| r.variant == v).expect("row present");
    for r in &rows {
        assert!(r.bytes > 0 && r.bytes <= r.unstripped_bytes, "{r:?}");
    }
    assert_eq!(by("plain").pct_vs_plain, 0.0);
    // Static rustls + aws-lc is larger than no TLS; adding the shared objects makes
    // the OpenSSL variant larger than its binary alone.
    assert!(by("rustls-aws-lc-rs").bytes > by("plain").bytes);
    assert!(by("openssl+libs").bytes > by("openssl").bytes);
    assert_eq!(by("openssl+libs").files.len(), 3);
    // footprint-plain links no TLS library.
    assert!(footprint::openssl_libraries(plain).is_err());
}

#[tokio::test]
async fn a_missing_program_is_an_error_naming_the_build_command() {
    let empty = tempfile::tempdir().expect("temporary directory");
    let pki = Pki::generate().expect("test PKI");
    let e = footprint::measure(empty.path(), &pki, Duration::from_secs(5))
        .await
        .expect_err("no programs there");
    let msg = e.to_string();
    assert!(msg.contains("footprint-plain is missing"), "{msg}");
    assert!(msg.contains(footprint::BUILD_COMMAND), "{msg}");
}
