//! Seal and open of every compiled-in `BACKEND:ALGORITHM` through the encbench
//! trait, at the value sizes a database proxy handles, side by side in one
//! harness. One group per (algorithm, operation); `BenchmarkId::new(backend, size)`;
//! throughput in bytes. `open` opens valid ciphertexts (restored per batch).
//!
//! Operations: `seal`, `open` and `key_setup` (the backend's `new_key`: key schedule,
//! and for AES-256-CBC-HMAC-SHA256 the three HMAC key derivations; OpenSSL keys its
//! per-thread contexts lazily on first use, so its `key_setup` is the cipher fetch and
//! key copy only). Length-preserving algorithms are driven through the detached
//! in-place calls; the padded CBC algorithm through `seal_in_place`/`open_in_place`.
//!
//! Quick mode: `ENCBENCH_BENCH_QUICK=1 cargo bench -p encbench-benches --bench aead`
//! (sizes 16, 59, 119, 1024, 16384 only; 0.3 s warm-up, 0.5 s measurement and 10
//! samples per point; the whole suite in under 5 minutes on 2 cores).

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented `pub fn`; a bench has no public API"
)]

mod common;

use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use encbench_registry::{Algorithm, all};

/// Value sizes in bytes, each a real one: 16 (a short code or UUID), 59 (sysbench
/// `pad`), 64, 119 (sysbench `c`), 128, 256, 1024, 4096, 16384 (a TLS record's
/// maximum plaintext, RFC 8446).
const SIZES: [usize; 9] = [16, 59, 64, 119, 128, 256, 1024, 4096, 16384];

/// The sizes of quick mode.
const QUICK_SIZES: [usize; 5] = [16, 59, 119, 1024, 16384];

fn bench_aead(c: &mut Criterion) {
    let aad = [0x5au8; 24];
    let sizes: &[usize] = if common::quick() {
        &QUICK_SIZES
    } else {
        &SIZES
    };
    for algorithm in Algorithm::ALL.iter().copied() {
        let descriptors: Vec<_> = all()
            .into_iter()
            .filter(|d| d.algorithm == algorithm)
            .collect();
        let key = vec![0x42u8; algorithm.key_len()];
        let nonce = vec![0x24u8; algorithm.nonce_len()];
        let keyed: Vec<_> = descriptors
            .iter()
            .map(|d| (d.backend, d.new_key(&key).expect("key setup")))
            .collect();

        if keyed.is_empty() {
            continue;
        }

        let mut group = c.benchmark_group(format!("{}/key_setup", algorithm.name()));
        for d in &descriptors {
            group.bench_with_input(
                BenchmarkId::new(d.backend, algorithm.key_len()),
                &key,
                |b, key| b.iter(|| d.new_key(black_box(key)).expect("key setup")),
            );
        }
        group.finish();

        common::per_size(
            c,
            format!("{}/seal", algorithm.name()),
            sizes,
            |group, size| {
                for (backend, aead) in &keyed {
                    let Some(detached) = aead.detached() else {
                        // The padded CBC algorithm: sealed in place on a Vec.
                        let plaintext = vec![0x11u8; size];
                        group.bench_with_input(BenchmarkId::new(*backend, size), &size, |b, _| {
                            b.iter_batched_ref(
                                || {
                                    let mut buf =
                                        Vec::with_capacity(size + algorithm.max_expansion());
                                    buf.extend_from_slice(&plaintext);
                                    buf
                                },
                                |buf| {
                                    aead.seal_in_place(black_box(&nonce), black_box(&aad), buf)
                                        .expect("seal")
                                },
                                BatchSize::SmallInput,
                            )
                        });
                        continue;
                    };
                    let mut buf = vec![0x11u8; size];
                    let mut tag = vec![0u8; algorithm.tag_len()];
                    group.bench_with_input(BenchmarkId::new(*backend, size), &size, |b, _| {
                        b.iter(|| {
                            detached
                                .seal_in_place_detached(
                                    black_box(&nonce),
                                    black_box(&aad),
                                    black_box(&mut buf),
                                    &mut tag,
                                )
                                .expect("seal")
                        })
                    });
                }
            },
        );

        common::per_size(
            c,
            format!("{}/open", algorithm.name()),
            sizes,
            |group, size| {
                for (backend, aead) in &keyed {
                    let Some(detached) = aead.detached() else {
                        // The padded CBC algorithm: opened in place, `ciphertext || tag`.
                        let sealed = aead
                            .seal_to_vec(&nonce, &aad, &vec![0x11u8; size])
                            .expect("seal");
                        group.bench_with_input(BenchmarkId::new(*backend, size), &size, |b, _| {
                            b.iter_batched_ref(
                                || sealed.clone(),
                                |buf| {
                                    aead.open_in_place(black_box(&nonce), black_box(&aad), buf)
                                        .map(|p| p.len())
                                        .expect("open")
                                },
                                BatchSize::SmallInput,
                            )
                        });
                        continue;
                    };
                    let mut sealed = vec![0x11u8; size];
                    let mut tag = vec![0u8; algorithm.tag_len()];
                    detached
                        .seal_in_place_detached(&nonce, &aad, &mut sealed, &mut tag)
                        .expect("seal");
                    group.bench_with_input(BenchmarkId::new(*backend, size), &size, |b, _| {
                        b.iter_batched_ref(
                            || sealed.clone(),
                            |buf| {
                                detached
                                    .open_in_place_detached(
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
            },
        );
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench_aead
}
criterion_main!(benches);
