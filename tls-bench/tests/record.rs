//! Record overhead, measured on real loopback connections of every TLS library:
//! TLS 1.3 AEAD records add exactly 22 bytes (5 header + 1 content type + 16
//! tag, RFC 8446 §5.2), TLS 1.2 AES-GCM records exactly 29 (5 header + 8
//! explicit nonce + 16 tag, RFC 5288 §3); plain TCP adds nothing.

use std::time::Duration;

use tls_bench::config::{TlsVersion, Transport};
use tls_bench::pki::Pki;
use tls_bench::record::{self, MESSAGES};
use tls_bench::tls::TlsParams;

const MAX_PLAINTEXT: u64 = 16 * 1024; // RFC 8446 §5.1: 2^14 bytes per record

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exact_record_overhead_on_every_transport() {
    let pki = Pki::generate().expect("test PKI");
    let bind = "127.0.0.1:0".parse().expect("address");
    for transport in Transport::ALL {
        for version in TlsVersion::ALL {
            let p = TlsParams::new(transport, version);
            let rows = record::measure(&p, &pki, &MESSAGES, bind, Duration::from_secs(10))
                .await
                .expect("record run");
            assert_eq!(rows.len(), 4);
            let sizes: Vec<u64> = rows.iter().map(|r| r.payload_bytes).collect();
            assert_eq!(sizes, [20, 200, 16384, 1048576]);
            for r in &rows {
                if !transport.is_tls() {
                    assert_eq!(r.wire_bytes, r.payload_bytes, "{r:?}");
                    assert_eq!(r.records, 0);
                    continue;
                }
                let records = r.payload_bytes.div_ceil(MAX_PLAINTEXT);
                let per = match version {
                    TlsVersion::Tls13 => 22,
                    TlsVersion::Tls12 => 29,
                };
                assert_eq!(r.records, records, "{r:?}");
                assert_eq!(r.wire_bytes, r.payload_bytes + per * records, "{r:?}");
                assert_eq!(r.overhead_per_record, per as f64);
            }
            if transport.is_tls() {
                // The figures the issue names: one 20-byte message.
                let small = &rows[0];
                assert_eq!(
                    small.wire_bytes,
                    if version == TlsVersion::Tls13 { 42 } else { 49 }
                );
            } else {
                break;
            }
        }
    }
}
