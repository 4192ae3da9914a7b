//! TLS costs per library, next to plain TCP, over loopback (tls-bench's
//! transports): a full handshake (connect + TLS 1.3 handshake with an ECDSA
//! P-256 certificate + 1-byte greeting) and a small-record round trip (a 20-byte
//! COM_STMT_EXECUTE answered by a 200-byte row) on an established connection.

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented `pub fn`; a bench has no public API"
)]

mod common;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use tls_bench::config::{TlsVersion, Transport};
use tls_bench::loopback::{Handshakes, RoundTrips};
use tls_bench::pki::Pki;
use tls_bench::tls::TlsParams;

/// 20 bytes: COM_STMT_EXECUTE of a point SELECT with one INT parameter.
const REQUEST: usize = 20;
/// 200 bytes: one sysbench `sbtest` row in a result set.
const RESPONSE: usize = 200;

fn handshake(c: &mut Criterion) {
    let pki = Pki::generate().expect("test PKI");
    let mut group = c.benchmark_group("tls_handshake_full");
    group.throughput(Throughput::Elements(1));
    for transport in Transport::ALL {
        let p = TlsParams::new(transport, TlsVersion::Tls13);
        let h = Handshakes::new(&p, &pki).expect("loopback server");
        group.bench_function(
            BenchmarkId::new(transport.name(), "TLSv1_3/EcdsaP256"),
            |b| {
                b.iter(|| black_box(h.one().expect("handshake")));
            },
        );
    }
    group.finish();
}

fn round_trip(c: &mut Criterion) {
    let pki = Pki::generate().expect("test PKI");
    let mut group = c.benchmark_group("tls_round_trip_small");
    group.throughput(Throughput::Bytes((REQUEST + RESPONSE) as u64));
    for transport in Transport::ALL {
        for version in TlsVersion::ALL {
            let p = TlsParams::new(transport, version);
            let mut rt = RoundTrips::new(&p, &pki, REQUEST, RESPONSE).expect("connection");
            let id = if transport.is_tls() {
                version.name()
            } else {
                "none"
            };
            group.bench_function(BenchmarkId::new(transport.name(), id), |b| {
                b.iter(|| rt.one().expect("round trip"));
            });
            if !transport.is_tls() {
                break;
            }
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = handshake, round_trip
}
criterion_main!(benches);
