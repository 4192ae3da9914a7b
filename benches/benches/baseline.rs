//! What our trait costs on top of each library, and what OpenSSL's one-shot
//! API costs on top of a keyed context: AES-256-GCM open of one sysbench `c`
//! value (119 bytes) and of 16 KiB, once calling the library directly and once through
//! the registry's `Box<dyn Aead>` (its detached form, `Aead::detached`), per backend.
//!
//! One group, `aes-256-gcm/open-baseline`; `BenchmarkId::new("BACKEND-direct" |
//! "BACKEND-trait", SIZE)`, plus `openssl-symm-decrypt_aead`:
//!
//! - `rustcrypto-direct`: `Aes256Gcm::decrypt_in_place_detached` on a cipher keyed once.
//! - `openssl-direct`: one `CipherCtx` keyed once; per message the IV, the AAD,
//!   `EVP_DecryptUpdate` in place, the tag and `EVP_DecryptFinal_ex` (what the
//!   `openssl` backend does, without the per-thread lookup), with the built-in
//!   `EVP_aes_256_gcm()`; `openssl-direct-fetched`: the same with the cipher
//!   from `EVP_CIPHER_fetch`, as the backend has it.
//! - `openssl-symm-decrypt_aead`: `openssl::symm::decrypt_aead`, which creates a
//!   context, keys it and allocates the output on every call.
//! - `ring-direct`, `aws-lc-rs-direct`: `LessSafeKey::open_in_place_separate_tag`.
//!
//! Every open opens a valid ciphertext: the in-place ones get a fresh copy per
//! iteration from `iter_batched_ref` (copy not timed).
//!
//! Quick mode: `ENCBENCH_BENCH_QUICK=1 cargo bench -p encbench-benches --bench baseline`.

#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented `pub fn`; a bench has no public API"
)]

mod common;

use std::hint::black_box;

use aes_gcm::aead::generic_array::GenericArray;
use aes_gcm::aead::{AeadInPlace, KeyInit};
use criterion::{
    BatchSize, BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
    measurement::WallTime,
};
use encbench_registry::{Algorithm, lookup};

/// Value sizes in bytes: sysbench's `c` column (`CHAR(120)`, filled with 119
/// characters), and 16 KiB (a TLS record's largest plaintext, RFC 8446), where
/// throughput rather than per-call cost dominates.
const SIZES: [usize; 2] = [119, 16384];

/// AAD length in bytes, as in `aead.rs`.
const AAD_LEN: usize = 24;

/// Benches `open` on a fresh copy of `sealed` per iteration (copy not timed).
fn bench_open(
    group: &mut BenchmarkGroup<'_, WallTime>,
    function: &str,
    sealed: &[u8],
    mut open: impl FnMut(&mut [u8]),
) {
    group.bench_function(BenchmarkId::new(function, sealed.len()), |b| {
        b.iter_batched_ref(
            || sealed.to_vec(),
            |buf| open(black_box(buf)),
            BatchSize::SmallInput,
        )
    });
}

fn bench_baseline(c: &mut Criterion) {
    let mut group = c.benchmark_group(format!("{}/open-baseline", Algorithm::Aes256Gcm.name()));
    for len in SIZES {
        bench_size(&mut group, len);
    }
    group.finish();
}

/// Every function of the group at one value size.
fn bench_size(group: &mut BenchmarkGroup<'_, WallTime>, len: usize) {
    let key = [0x42u8; 32];
    let nonce = [0x24u8; 12];
    let aad = [0x5au8; AAD_LEN];
    let mut sealed = vec![0x11u8; len];
    let mut tag = [0u8; 16];
    let sealer = lookup("rustcrypto:aes-256-gcm")
        .expect("lookup")
        .new_key(&key)
        .expect("key setup");
    sealer
        .detached()
        .expect("AES-GCM is length-preserving")
        .seal_in_place_detached(&nonce, &aad, &mut sealed, &mut tag)
        .expect("seal");

    group.throughput(Throughput::Bytes(len as u64));

    // RustCrypto: aes-gcm called directly, then through the trait.
    let cipher = aes_gcm::Aes256Gcm::new_from_slice(&key).expect("key setup");
    bench_open(group, "rustcrypto-direct", &sealed, |buf| {
        cipher
            .decrypt_in_place_detached(
                GenericArray::from_slice(black_box(&nonce)),
                black_box(&aad),
                buf,
                GenericArray::from_slice(black_box(&tag)),
            )
            .expect("open")
    });
    bench_trait(group, "rustcrypto", &key, &nonce, &aad, &sealed, &tag);

    // OpenSSL: a context keyed once, IV per message (what the backend does),
    // with the built-in cipher (`EVP_aes_256_gcm()`) and with an explicitly
    // fetched one (`EVP_CIPHER_fetch`, as the backend does).
    let builtin = openssl::cipher::Cipher::aes_256_gcm();
    let mut ctx = keyed_openssl_context(builtin, &key);
    bench_open(group, "openssl-direct", &sealed, |buf| {
        openssl_open(&mut ctx, &nonce, &aad, buf, &tag)
    });
    let fetched = openssl::cipher::Cipher::fetch(None, "AES-256-GCM", None).expect("fetch");
    let mut ctx = keyed_openssl_context(&fetched, &key);
    bench_open(group, "openssl-direct-fetched", &sealed, |buf| {
        openssl_open(&mut ctx, &nonce, &aad, buf, &tag)
    });
    bench_trait(group, "openssl", &key, &nonce, &aad, &sealed, &tag);
    // OpenSSL's one-shot API: new context, key schedule and output Vec per call.
    group.bench_function(BenchmarkId::new("openssl-symm-decrypt_aead", len), |b| {
        b.iter(|| {
            openssl::symm::decrypt_aead(
                openssl::symm::Cipher::aes_256_gcm(),
                black_box(&key),
                Some(black_box(&nonce)),
                black_box(&aad),
                black_box(&sealed),
                black_box(&tag),
            )
            .expect("decrypt_aead")
        })
    });

    // ring.
    let ring_key = ring::aead::LessSafeKey::new(
        ring::aead::UnboundKey::new(&ring::aead::AES_256_GCM, &key).expect("key setup"),
    );
    bench_open(group, "ring-direct", &sealed, |buf| {
        ring_key
            .open_in_place_separate_tag(
                ring::aead::Nonce::assume_unique_for_key(black_box(nonce)),
                ring::aead::Aad::from(black_box(&aad)),
                ring::aead::Tag::from(black_box(tag)),
                buf,
                0..,
            )
            .expect("open");
    });
    bench_trait(group, "ring", &key, &nonce, &aad, &sealed, &tag);

    // aws-lc-rs.
    let aws_lc_key = aws_lc_rs::aead::LessSafeKey::new(
        aws_lc_rs::aead::UnboundKey::new(&aws_lc_rs::aead::AES_256_GCM, &key).expect("key setup"),
    );
    bench_open(group, "aws-lc-rs-direct", &sealed, |buf| {
        aws_lc_key
            .open_in_place_separate_tag(
                aws_lc_rs::aead::Nonce::assume_unique_for_key(black_box(nonce)),
                aws_lc_rs::aead::Aad::from(black_box(&aad)),
                black_box(&tag),
                buf,
            )
            .expect("open");
    });
    bench_trait(group, "aws-lc-rs", &key, &nonce, &aad, &sealed, &tag);
}

/// An OpenSSL decryption context with `cipher` and `key` set, no IV yet.
fn keyed_openssl_context(
    cipher: &openssl::cipher::CipherRef,
    key: &[u8],
) -> openssl::cipher_ctx::CipherCtx {
    let mut ctx = openssl::cipher_ctx::CipherCtx::new().expect("EVP_CIPHER_CTX_new");
    ctx.decrypt_init(Some(cipher), Some(key), None)
        .expect("EVP_DecryptInit_ex (key)");
    ctx
}

/// One open on a keyed context: IV, AAD, in-place decryption, tag, final.
fn openssl_open(
    ctx: &mut openssl::cipher_ctx::CipherCtx,
    nonce: &[u8],
    aad: &[u8],
    buf: &mut [u8],
    tag: &[u8],
) {
    ctx.decrypt_init(None, None, Some(black_box(nonce)))
        .expect("EVP_DecryptInit_ex (IV)");
    ctx.cipher_update(black_box(aad), None)
        .expect("EVP_DecryptUpdate (AAD)");
    let len = buf.len();
    ctx.cipher_update_inplace(buf, len)
        .expect("EVP_DecryptUpdate");
    ctx.set_tag(black_box(tag)).expect("set tag");
    let mut rest = [0u8; 16];
    ctx.cipher_final(&mut rest).expect("EVP_DecryptFinal_ex");
}

/// `BACKEND-trait`: the same open through the registry's `Box<dyn Aead>`, on its
/// detached form (`Aead::detached`, taken once outside the timed loop).
fn bench_trait(
    group: &mut BenchmarkGroup<'_, WallTime>,
    backend: &str,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    sealed: &[u8],
    tag: &[u8],
) {
    let d = lookup(&format!("{backend}:aes-256-gcm")).expect("lookup");
    let aead = d.new_key(key).expect("key setup");
    let aead = aead.detached().expect("AES-GCM is length-preserving");
    bench_open(group, &format!("{backend}-trait"), sealed, |buf| {
        aead.open_in_place_detached(black_box(nonce), black_box(aad), buf, black_box(tag))
            .expect("open")
    });
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench_baseline
}
criterion_main!(benches);
