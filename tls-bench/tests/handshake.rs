//! Handshakes over real loopback sockets with every TLS library, full and
//! resumed, and the in-memory rustls harness.

use std::time::Duration;

use tls_bench::config::{CertType, Resumption, TlsVersion, Transport};
use tls_bench::handshake::{self, HandshakeOptions};
use tls_bench::pki::Pki;
use tls_bench::tls::TlsParams;

fn opts() -> HandshakeOptions {
    HandshakeOptions {
        duration: Duration::from_millis(100),
        warmup: 2,
        timeout: Duration::from_secs(10),
        core: None,
        bind: "127.0.0.1:0".parse().expect("a valid address"),
    }
}

#[test]
fn every_transport_version_and_cert_completes_full_handshakes() {
    let pki = Pki::generate().expect("test PKI");
    for transport in Transport::ALL {
        for version in TlsVersion::ALL {
            for cert in CertType::ALL {
                let mut p = TlsParams::new(transport, version);
                p.cert = cert;
                let row = handshake::socket(&p, &pki, &opts()).expect("handshakes run");
                assert!(row.handshakes >= 1, "{transport} {version} {cert}");
                assert!(row.handshakes_per_sec > 0.0);
                assert!(row.latency_us.p50 > 0.0 && row.latency_us.p50 <= row.latency_us.p99);
                assert!(row.client_cpu_us > 0.0 && row.server_cpu_us > 0.0);
                if !transport.is_tls() {
                    break;
                }
            }
            if !transport.is_tls() {
                break;
            }
        }
    }
}

#[test]
fn every_tls_transport_resumes_with_session_ids_and_tickets() {
    let pki = Pki::generate().expect("test PKI");
    for transport in [
        Transport::RustlsAwsLcRs,
        Transport::RustlsRing,
        Transport::Openssl,
    ] {
        for version in TlsVersion::ALL {
            for &resumption in Resumption::for_version(version) {
                let mut p = TlsParams::new(transport, version);
                p.resumption = resumption;
                // `socket` fails with Error::Check when a handshake is not of the expected kind.
                let row =
                    handshake::socket(&p, &pki, &opts()).expect("handshakes of the expected kind");
                assert_eq!(row.resumed, resumption != Resumption::Full);
            }
        }
    }
}

#[test]
fn in_memory_handshake_names_suite_and_key_type_like_rustls_bench() {
    let pki = Pki::generate().expect("test PKI");
    let mut p = TlsParams::new(Transport::RustlsAwsLcRs, TlsVersion::Tls13);
    p.cert = CertType::EcdsaP256;
    let row =
        handshake::memory(&p, &pki, Duration::from_millis(100)).expect("in-memory handshakes");
    assert_eq!(row.suite, "TLS13_AES_256_GCM_SHA384");
    assert_eq!(row.cert, "EcdsaP256");
    assert_eq!(row.tls_version, "TLSv1_3");
    assert!(row.handshakes >= 1 && row.client_cpu_us > 0.0 && row.server_cpu_us > 0.0);
    let mut r = p;
    r.resumption = Resumption::Ticket;
    let resumed =
        handshake::memory(&r, &pki, Duration::from_millis(100)).expect("resumed in memory");
    assert!(resumed.resumed);
    assert!(
        handshake::memory(
            &TlsParams::new(Transport::Openssl, TlsVersion::Tls13),
            &pki,
            Duration::from_millis(10)
        )
        .is_err()
    );
}
