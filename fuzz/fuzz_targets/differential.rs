//! Differential fuzzing across libraries: for an arbitrary key, nonce, AAD and
//! plaintext, every compiled-in backend of the algorithm (registry) seals, and
//! the outputs must be byte-identical and of `sealed_len`; every backend opens
//! every output to the plaintext; a one-byte change of the sealed bytes, of the
//! nonce or of the AAD, and the output cut by one byte, are rejected by every
//! backend. The deterministic form (AES-SIV, Always Encrypted's CBC-HMAC) the
//! same way with `DeterministicAead`.
//!
//! Input: algorithm selector, key, nonce, AAD length, AAD, mutation position
//! (2 bytes) and xor, then the plaintext.
#![no_main]

use encbench_crypto::{Aead, Algorithm, DeterministicAead};
use encbench_fuzz::{Input, backends_of, seals_empty};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let selector = input.byte();
    let algorithm = Algorithm::ALL[usize::from(selector) % Algorithm::ALL.len()];
    let key = input.bytes(algorithm.key_len());
    let nonce = input.bytes(algorithm.nonce_len());
    let aad_len = usize::from(input.byte());
    let aad = input.bytes(aad_len);
    let position = usize::from(input.u16());
    let xor = input.byte() | 1;
    let plaintext = input.rest();
    if selector & 0x80 != 0 && algorithm.has_deterministic_form() {
        deterministic(algorithm, &key, &aad, plaintext, position, xor);
    } else {
        randomized(algorithm, &key, &nonce, &aad, plaintext, position, xor);
    }
});

/// `buf` with byte `position % len` xored with `xor` (non-zero).
fn flipped(buf: &[u8], position: usize, xor: u8) -> Vec<u8> {
    let mut out = buf.to_vec();
    if !out.is_empty() {
        let at = position % out.len();
        out[at] ^= xor;
    }
    out
}

fn randomized(
    algorithm: Algorithm,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    plaintext: &[u8],
    position: usize,
    xor: u8,
) {
    let keyed: Vec<(String, Box<dyn Aead>)> = backends_of(algorithm)
        .into_iter()
        .filter(|d| !plaintext.is_empty() || seals_empty(d.backend, algorithm))
        .map(|d| {
            (
                d.name(),
                d.new_key(key).expect("key setup of a key of key_len bytes"),
            )
        })
        .collect();
    let mut first: Option<(String, Vec<u8>)> = None;
    for (name, aead) in &keyed {
        let sealed = aead
            .seal_to_vec(nonce, aad, plaintext)
            .unwrap_or_else(|e| panic!("{name} refused to seal: {e}"));
        assert_eq!(
            sealed.len(),
            algorithm.sealed_len(plaintext.len()),
            "{name}: sealed length"
        );
        match &first {
            None => first = Some((name.clone(), sealed)),
            Some((first_name, expected)) => {
                assert!(
                    sealed == *expected,
                    "{name} and {first_name} seal differently"
                )
            }
        }
    }
    let Some((_, sealed)) = first else { return };
    let mutated = flipped(&sealed, position, xor);
    let other_nonce = flipped(nonce, position, xor);
    let mut other_aad = flipped(aad, position, xor);
    if other_aad.is_empty() {
        other_aad.push(xor);
    }
    for (name, aead) in &keyed {
        let opened = aead
            .open_to_vec(nonce, aad, &sealed)
            .unwrap_or_else(|e| panic!("{name} cannot open what every backend sealed: {e}"));
        assert!(opened == plaintext, "{name} opened to another plaintext");
        assert!(
            aead.open_to_vec(nonce, aad, &mutated).is_err(),
            "{name} opened a changed ciphertext"
        );
        assert!(
            aead.open_to_vec(&other_nonce, aad, &sealed).is_err(),
            "{name} opened under another nonce"
        );
        assert!(
            aead.open_to_vec(nonce, &other_aad, &sealed).is_err(),
            "{name} opened under another AAD"
        );
        assert!(
            aead.open_to_vec(nonce, aad, &sealed[..sealed.len() - 1])
                .is_err(),
            "{name} opened a truncated ciphertext"
        );
    }
}

fn deterministic(
    algorithm: Algorithm,
    key: &[u8],
    aad: &[u8],
    plaintext: &[u8],
    position: usize,
    xor: u8,
) {
    let keyed: Vec<(String, Box<dyn DeterministicAead>)> = encbench_registry::deterministic()
        .into_iter()
        .filter(|d| d.algorithm == algorithm)
        .filter(|d| !plaintext.is_empty() || seals_empty(d.backend, algorithm))
        .map(|d| {
            (
                d.name(),
                d.new_key(key).expect("key setup of a key of key_len bytes"),
            )
        })
        .collect();
    let mut first: Option<(String, Vec<u8>)> = None;
    for (name, aead) in &keyed {
        let sealed = aead
            .seal_to_vec(aad, plaintext)
            .unwrap_or_else(|e| panic!("{name} refused to seal: {e}"));
        match &first {
            None => first = Some((name.clone(), sealed)),
            Some((first_name, expected)) => {
                assert!(
                    sealed == *expected,
                    "{name} and {first_name} seal differently (deterministic)"
                )
            }
        }
    }
    let Some((_, sealed)) = first else { return };
    let mutated = flipped(&sealed, position, xor);
    let mut other_aad = flipped(aad, position, xor);
    if other_aad.is_empty() {
        other_aad.push(xor);
    }
    for (name, aead) in &keyed {
        let opened = aead
            .open_to_vec(aad, &sealed)
            .unwrap_or_else(|e| panic!("{name} cannot open what every backend sealed: {e}"));
        assert!(opened == plaintext, "{name} opened to another plaintext");
        assert!(
            aead.open_to_vec(aad, &mutated).is_err(),
            "{name} opened a changed value"
        );
        assert!(
            aead.open_to_vec(&other_aad, &sealed).is_err(),
            "{name} opened under another AAD"
        );
        assert!(
            aead.open_to_vec(aad, &sealed[..sealed.len() - 1]).is_err(),
            "{name} opened a truncated value"
        );
    }
}
