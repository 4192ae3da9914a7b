//! Cross-backend interoperability: for every algorithm, every compiled-in backend
//! seals and every backend (itself included) opens, at the sizes that matter.
//!
//! Vectors: none fixed. Keys, nonces, AAD and plaintexts are random (OS CSPRNG,
//! fresh each run); the backends must produce byte-identical output for the same
//! inputs, so any backend that disagrees with the known-answer-tested others fails.
//! Sizes: 0 (empty value), 1, 15 and 16 (around one AES block), 59 (sysbench
//! `pad`), 119 (sysbench `c`), 1000 (a multi-block value).

use encbench_crypto::{Aead, Algorithm, Descriptor, random_nonce};

const LENGTHS: &[usize] = &[0, 1, 15, 16, 59, 119, 1000];

fn random(len: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; len];
    random_nonce(&mut bytes).expect("OS random number generator");
    bytes
}

/// The backends of `algorithm` that can seal a `len`-byte value (OpenSSL 3.0's
/// AES-SIV cannot take an empty plaintext; the negative tests check its typed error).
fn descriptors(algorithm: Algorithm, len: usize) -> Vec<&'static Descriptor> {
    encbench_registry::all()
        .into_iter()
        .filter(|d| d.algorithm == algorithm)
        .filter(|d| len > 0 || !(d.backend == "openssl" && algorithm == Algorithm::Aes256Siv))
        .collect()
}

#[test]
fn every_backend_opens_what_every_backend_seals() {
    let mut pairs = 0;
    for &algorithm in Algorithm::ALL {
        for &len in LENGTHS {
            let ds = descriptors(algorithm, len);
            let key = random(algorithm.key_len());
            let nonce = random(algorithm.nonce_len());
            let aad = random(len % 29 + 5);
            let plaintext = random(len);
            let keyed: Vec<(String, Box<dyn Aead>)> = ds
                .iter()
                .map(|d| (d.name(), d.new_key(&key).expect("key setup")))
                .collect();
            let sealed: Vec<Vec<u8>> = keyed
                .iter()
                .map(|(name, a)| {
                    let out = a.seal_to_vec(&nonce, &aad, &plaintext).expect("seal");
                    assert_eq!(out.len(), algorithm.sealed_len(len), "{name} len {len}");
                    out
                })
                .collect();
            for (i, (sealer, _)) in keyed.iter().enumerate() {
                assert_eq!(
                    sealed[i], sealed[0],
                    "{sealer} and {} disagree at {len} bytes",
                    keyed[0].0
                );
                for (opener, aead) in &keyed {
                    let opened = aead
                        .open_to_vec(&nonce, &aad, &sealed[i])
                        .unwrap_or_else(|e| {
                            panic!("{opener} cannot open {sealer} at {len} bytes: {e}")
                        });
                    assert_eq!(opened, plaintext, "{sealer} -> {opener} at {len} bytes");

                    // The in-place paths, as the envelope uses them.
                    let mut buf = sealed[i].clone();
                    let opened = aead
                        .open_in_place(&nonce, &aad, &mut buf)
                        .unwrap_or_else(|e| {
                            panic!("{opener} in place, {sealer}, {len} bytes: {e}")
                        });
                    assert_eq!(opened, plaintext.as_slice());
                    // Plaintext to the front, after a prefix (the envelope's open).
                    for prefix in [0, 17, 29] {
                        let mut buf = [&vec![0xa5u8; prefix][..], &sealed[i]].concat();
                        let opened = aead
                            .open_within(&nonce, &aad, &mut buf, prefix..)
                            .unwrap_or_else(|e| {
                                panic!("{opener} within {prefix}, {sealer}, {len} bytes: {e}")
                            });
                        assert_eq!(opened, plaintext.as_slice());
                    }
                    // The detached form exactly for the length-preserving algorithms.
                    assert_eq!(
                        aead.detached().is_some(),
                        algorithm.is_length_preserving(),
                        "{opener}"
                    );
                    if let Some(detached) = aead.detached() {
                        let (body, tag) = sealed[i].split_at(len);
                        let mut buf = body.to_vec();
                        detached
                            .open_in_place_detached(&nonce, &aad, &mut buf, tag)
                            .unwrap_or_else(|e| {
                                panic!("{opener} detached, {sealer}, {len} bytes: {e}")
                            });
                        assert_eq!(buf, plaintext);
                    }
                    pairs += 1;
                }
            }
        }
        let ds = descriptors(algorithm, 1);
        println!(
            "{algorithm}: {} backend(s), {} seal/open pairs per size",
            ds.len(),
            ds.len() * ds.len()
        );
    }
    let expected: usize = Algorithm::ALL
        .iter()
        .flat_map(|a| LENGTHS.iter().map(|len| descriptors(*a, *len).len().pow(2)))
        .sum();
    assert_eq!(pairs, expected);
    // With all four backends compiled in (the default build):
    if encbench_registry::backends().len() == 4 {
        assert_eq!(
            pairs,
            (3 * 16 + 1 + 3 * 4) * LENGTHS.len() - 3,
            "GCM x2 and ChaCha20: 4x4 backends; XChaCha20: 1; GCM-SIV, SIV, CBC-HMAC: 2x2 (SIV at 0 bytes: 1)"
        );
    }
}

/// Separate key objects made from the same key bytes are interchangeable: each
/// keys its own per-thread state, none depends on the one that sealed.
#[test]
fn fresh_key_objects_open_each_others_output() {
    for d in encbench_registry::all() {
        let key = random(d.algorithm.key_len());
        let nonce = random(d.algorithm.nonce_len());
        let first = d.new_key(&key).expect("key setup");
        let sealed = first.seal_to_vec(&nonce, b"aad", b"value").expect("seal");
        drop(first);
        let second = d.new_key(&key).expect("key setup");
        assert_eq!(
            second.open_to_vec(&nonce, b"aad", &sealed).expect("open"),
            b"value",
            "{}",
            d.name()
        );
    }
}
