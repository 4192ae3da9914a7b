//! SQL Server Always Encrypted's `AEAD_AES_256_CBC_HMAC_SHA_256`, checked against its
//! published description (Microsoft, "Always Encrypted cryptography": key derivation
//! with HMAC-SHA-256 over UTF-16LE salts, IV, AES-256-CBC with PKCS#7, MAC over
//! `version || IV || ciphertext || version_length`, cell `version || MAC || IV || ct`)
//! by an independent composition: the `hmac`/`sha2` crates for the HMACs and OpenSSL's
//! `symm::decrypt` (a fresh context per call) for CBC. Microsoft publishes no test
//! vectors, so every backend's output is taken apart and verified piece by piece,
//! and the backends are cross-checked byte for byte (RustCrypto vs OpenSSL).
//!
//! Also the deterministic trait on every deterministic algorithm (AES-256-SIV too):
//! same input, same output; cross-backend identical; tampering fails opaquely.

use encbench_crypto::{DeterministicAead, Error, random_nonce};
use hmac::{Hmac, Mac};
use openssl::symm::{Cipher, decrypt};
use sha2::Sha256;

const CEK: [u8; 32] = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
];

fn hmac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("any HMAC key length");
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

/// Keys as the description derives them: HMAC-SHA-256(CEK, UTF-16LE salt).
fn derived(kind: &str) -> [u8; 32] {
    let salt = format!(
        "Microsoft SQL Server cell {kind} key with encryption algorithm:AEAD_AES_256_CBC_HMAC_SHA256 and key length:256"
    );
    let utf16: Vec<u8> = salt.encode_utf16().flat_map(u16::to_le_bytes).collect();
    hmac(&CEK, &[&utf16])
}

fn random(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    random_nonce(&mut v).expect("OS random number generator");
    v
}

/// Verifies `ct` and `mac` under `iv` against the description; returns the plaintext.
fn verify(iv: &[u8], ct: &[u8], mac: &[u8]) -> Vec<u8> {
    let expected_mac = hmac(&derived("MAC"), &[&[1], iv, ct, &[1]]);
    assert_eq!(
        mac, expected_mac,
        "MAC = HMAC(mac_key, 0x01 || IV || ct || 0x01)"
    );
    decrypt(Cipher::aes_256_cbc(), &derived("encryption"), Some(iv), ct)
        .expect("AES-256-CBC with PKCS#7 under enc_key")
}

const LENGTHS: &[usize] = &[0, 1, 15, 16, 17, 59, 119, 1000];

/// How many compiled-in backends implement the CBC algorithm (randomized and
/// deterministic) and AES-256-SIV's deterministic form: rustcrypto and openssl.
/// The feature-matrix runs (one backend alone) expect their own count.
const DETERMINISTIC_BACKENDS: usize =
    cfg!(feature = "rustcrypto") as usize + cfg!(feature = "openssl") as usize;

#[test]
fn deterministic_cells_match_the_published_description() {
    let mut checked = 0;
    for d in encbench_registry::deterministic()
        .into_iter()
        .filter(|d| d.algorithm == encbench_crypto::Algorithm::Aes256CbcHmacSha256)
    {
        let det = d.new_key(&CEK).expect("key setup");
        for &len in LENGTHS {
            let pt = random(len);
            let cell = det.seal_to_vec(b"", &pt).expect("seal");
            assert_eq!(cell[0], 0x01, "version byte");
            let (mac, rest) = cell[1..].split_at(32);
            let (iv, ct) = rest.split_at(16);
            assert_eq!(
                iv,
                &hmac(&derived("IV"), &[&pt])[..16],
                "IV = HMAC(iv_key, pt)[..16]"
            );
            assert_eq!(ct.len(), (len / 16 + 1) * 16, "PKCS#7 padding");
            assert_eq!(verify(iv, ct, mac), pt, "{}", d.name());
            assert_eq!(det.open_to_vec(b"", &cell).expect("open"), pt);
            checked += 1;
        }
    }
    assert_eq!(checked, LENGTHS.len() * DETERMINISTIC_BACKENDS);
    println!("Always Encrypted deterministic: {checked} cells verified");
}

#[test]
fn randomized_values_match_the_published_description() {
    let mut checked = 0;
    for d in encbench_registry::all()
        .into_iter()
        .filter(|d| d.algorithm == encbench_crypto::Algorithm::Aes256CbcHmacSha256)
    {
        let aead = d.new_key(&CEK).expect("key setup");
        for &len in LENGTHS {
            let pt = random(len);
            let iv = random(16);
            let sealed = aead.seal_to_vec(&iv, b"", &pt).expect("seal");
            let (ct, mac) = sealed.split_at(sealed.len() - 32);
            assert_eq!(verify(&iv, ct, mac), pt, "{}", d.name());
            // With an AAD (the column envelope's binding), the AAD and its length
            // follow the description's MAC input.
            let aad = b"table/column/pk";
            let sealed = aead.seal_to_vec(&iv, aad, &pt).expect("seal");
            let (ct, mac) = sealed.split_at(sealed.len() - 32);
            let expected = hmac(
                &derived("MAC"),
                &[&[1], &iv, ct, &[1], aad, &(aad.len() as u64).to_be_bytes()],
            );
            assert_eq!(mac, expected, "{}", d.name());
            assert_eq!(aead.open_to_vec(&iv, b"", &sealed), Err(Error::Decrypt));
            checked += 1;
        }
    }
    assert_eq!(checked, LENGTHS.len() * DETERMINISTIC_BACKENDS);
}

#[test]
fn deterministic_algorithms_are_deterministic_and_agree_across_backends() {
    let all = encbench_registry::deterministic();
    assert_eq!(
        all.len(),
        2 * DETERMINISTIC_BACKENDS,
        "SIV and CBC-HMAC per backend"
    );
    for algorithm in [
        encbench_crypto::Algorithm::Aes256Siv,
        encbench_crypto::Algorithm::Aes256CbcHmacSha256,
    ] {
        let ds: Vec<_> = all.iter().filter(|d| d.algorithm == algorithm).collect();
        let key = random(algorithm.key_len());
        let keyed: Vec<(String, Box<dyn DeterministicAead>)> = ds
            .iter()
            .map(|d| (d.name(), d.new_key(&key).expect("key setup")))
            .collect();
        if keyed.is_empty() {
            continue;
        }
        for len in [1usize, 16, 59, 119, 1000] {
            let pt = random(len);
            let aad = random(len % 13);
            let first = keyed[0].1.seal_to_vec(&aad, &pt).expect("seal");
            for (name, det) in &keyed {
                let again = det.seal_to_vec(&aad, &pt).expect("seal");
                assert_eq!(
                    again, first,
                    "{name}: same input, same output ({len} bytes)"
                );
                assert_eq!(det.open_to_vec(&aad, &first).expect("open"), pt, "{name}");
                // Another plaintext by construction (a second random draw of one byte
                // equals the first one time in 256): one bit flipped.
                let mut other_pt = pt.clone();
                other_pt[len - 1] ^= 0x01;
                let other = det.seal_to_vec(&aad, &other_pt).expect("seal");
                assert_ne!(other, first, "{name}: another plaintext, another value");
                let mut other_aad = aad.clone();
                other_aad.push(0);
                assert_eq!(
                    det.open_to_vec(&other_aad, &first),
                    Err(Error::Decrypt),
                    "{name}"
                );
                for i in 0..first.len() {
                    let mut bad = first.clone();
                    bad[i] ^= 0x01;
                    assert_eq!(
                        det.open_to_vec(&aad, &bad),
                        Err(Error::Decrypt),
                        "{name}: byte {i}"
                    );
                }
                if len > 1 {
                    // (Cut to an empty body, OpenSSL's SIV gives its typed empty-plaintext error.)
                    assert_eq!(
                        det.open_to_vec(&aad, &first[..first.len() - 1]),
                        Err(Error::Decrypt)
                    );
                }
                assert_eq!(det.open_to_vec(&aad, &[]), Err(Error::Decrypt));
            }
        }
        println!("{algorithm}: deterministic on {} backend(s)", keyed.len());
    }
}

#[test]
fn deterministic_debug_hides_the_key_and_lookup_names_the_valid_ones() {
    for d in encbench_registry::deterministic() {
        let det = d
            .new_key(&vec![0xc3; d.algorithm.key_len()])
            .expect("key setup");
        let text = format!("{det:?}");
        assert!(
            text.contains("<redacted>") && !text.contains("c3c3"),
            "{text}"
        );
        assert_eq!(
            encbench_registry::lookup_deterministic(&d.name()).map(|x| x.name()),
            Ok(d.name())
        );
    }
    let err = encbench_registry::lookup_deterministic("ring:aes-256-gcm")
        .expect_err("GCM is never deterministic");
    for d in encbench_registry::deterministic() {
        assert!(err.to_string().contains(&d.name()), "{err}");
    }
}
