//! Seal and open of every compiled-in `BACKEND:ALGORITHM` through the encbench
//! trait, at the value sizes a database proxy handles, side by side in one
//! harness. One group per (algorithm, operation); `BenchmarkId::new(backend, size)`;
//! throughput in bytes. `open` opens valid ciphertexts (restored per batch).
//!
//! Quick mode: `ENCBENCH_BENCH_QUICK=1 cargo bench -p encbench-benches --bench aead`
//! (0.5 s warm-up and 1 s measurement per point instead of criterion's 3 s + 5 s).

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented `pub fn`; a bench has no public API"
)]

mod common;

use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use encbench_registry::{Algorithm, all};

/// Value sizes in bytes, each a real one: 16 (a short code or UUID), 59 (sysbench
/// `pad`), 64, 119 (sysbench `c`), 128, 256, 1024, 4096, 16384 (a TLS record's
/// maximum plaintext, RFC 8446).
const SIZES: [usize; 9] = [16, 59, 64, 119, 128, 256, 1024, 4096, 16384];

fn bench_aead(c: &mut Criterion) {
    let aad = [0x5au8; 24];
    for algorithm in Algorithm::ALL.iter().copied() {
        let descriptors: Vec<_> = all()
            .into_iter()
            .filter(|d| d.algorithm == algorithm)
            .collect();
        let key = vec![0x42u8; algorithm.key_len()];
        let nonce = vec![0x24u8; algorithm.nonce_len()];
        let keyed: Vec<_> = descriptors
            .iter()
            .map(|d| (d.backend, (d.new_key)(&key).expect("key setup")))
            .collect();

        let mut group = c.benchmark_group(format!("{}/seal", algorithm.name()));
        for size in SIZES {
            group.throughput(Throughput::Bytes(size as u64));
            for (backend, aead) in &keyed {
                let mut buf = vec![0x11u8; size];
                let mut tag = vec![0u8; algorithm.tag_len()];
                group.bench_with_input(BenchmarkId::new(*backend, size), &size, |b, _| {
                    b.iter(|| {
                        aead.seal_in_place_detached(
                            black_box(&nonce),
                            black_box(&aad),
                            black_box(&mut buf),
                            &mut tag,
                        )
                        .expect("seal")
                    })
                });
            }
        }
        group.finish();

        let mut group = c.benchmark_group(format!("{}/open", algorithm.name()));
        for size in SIZES {
            group.throughput(Throughput::Bytes(size as u64));
            for (backend, aead) in &keyed {
                let mut sealed = vec![0x11u8; size];
                let mut tag = vec![0u8; algorithm.tag_len()];
                aead.seal_in_place_detached(&nonce, &aad, &mut sealed, &mut tag)
                    .expect("seal");
                group.bench_with_input(BenchmarkId::new(*backend, size), &size, |b, _| {
                    b.iter_batched_ref(
                        || sealed.clone(),
                        |buf| {
                            aead.open_in_place_detached(
                                black_box(&nonce),
                                black_box(&aad),
                                buf,
                                black_box(&tag),
                            )
                            .expect("open")
                        },
                        BatchSize::SmallInput,
                    )
                });
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench_aead
}
criterion_main!(benches);
