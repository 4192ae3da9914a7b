//! The deterministic column envelope (`envelope::DeterministicColumnCipher`,
//! version 2) on every compiled-in deterministic backend and algorithm
//! (AES-256-SIV, AES-256-CBC-HMAC-SHA256): equal plaintexts give equal bytes in
//! one column, and only there; the AAD binds table, column and key id; tampering,
//! truncation and unknown key ids are reported; backends of one algorithm read
//! each other's envelopes.
//!
//! Vectors: none fixed (keys from the OS CSPRNG). The layout checked is the one
//! documented in `crypto-backends/core/src/envelope/mod.rs`.

use encbench_crypto::envelope::{
    DETERMINISTIC_VERSION, DeterministicColumnCipher, EnvelopeError, HEADER_LEN,
    deterministic_overhead,
};
use encbench_crypto::{Algorithm, DeterministicDescriptor, Key, KeyId};

fn keys(d: &DeterministicDescriptor, ids: &[KeyId]) -> Vec<(KeyId, Key)> {
    ids.iter()
        .map(|&id| (id, Key::generate(d.algorithm.key_len()).expect("OS random")))
        .collect()
}

fn cipher(d: &DeterministicDescriptor, keys: &[(KeyId, Key)]) -> DeterministicColumnCipher {
    DeterministicColumnCipher::new(d, keys).expect("key setup")
}

fn seal(c: &DeterministicColumnCipher, table: &str, column: &str, pt: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    c.seal(table, column, pt, &mut out).expect("seal");
    out
}

fn open(
    c: &DeterministicColumnCipher,
    table: &str,
    column: &str,
    stored: &[u8],
) -> Result<Vec<u8>, EnvelopeError> {
    let mut out = vec![0xAA; 3];
    let r = c.open(table, column, stored, &mut out);
    if r.is_err() {
        assert!(out.is_empty(), "output left non-empty after a failed open");
    }
    r.map(|()| out)
}

const VALUES: &[&[u8]] = &[b"\x00\x00\x00\x2a", b"1-2-3", &[7u8; 119]];

#[test]
fn every_deterministic_descriptor_round_trips_with_documented_layout() {
    let all = encbench_registry::deterministic();
    // AES-SIV and CBC-HMAC from each of rustcrypto and openssl that is compiled in.
    let backends = cfg!(feature = "rustcrypto") as usize + cfg!(feature = "openssl") as usize;
    assert_eq!(all.len(), 2 * backends, "{all:?}");
    for d in all {
        let k = keys(d, &[3, 7]);
        let c = cipher(d, &k);
        assert_eq!(c.active_key_id(), 7, "{}: highest id is active", d.name());
        for v in VALUES {
            let s = seal(&c, "sbtest1", "k", v);
            assert_eq!(s[0], DETERMINISTIC_VERSION, "{}", d.name());
            assert_eq!(&s[1..HEADER_LEN], &7u32.to_be_bytes(), "{}", d.name());
            assert!(
                s.len() <= v.len() + deterministic_overhead(d.algorithm),
                "{}",
                d.name()
            );
            if d.algorithm == Algorithm::Aes256Siv {
                assert_eq!(s.len(), v.len() + deterministic_overhead(d.algorithm));
            }
            assert_eq!(
                open(&c, "sbtest1", "k", &s).expect("open"),
                *v,
                "{}",
                d.name()
            );
        }
    }
}

#[test]
fn equal_plaintexts_give_equal_envelopes_only_in_the_same_table_and_column() {
    for d in encbench_registry::deterministic() {
        let c = cipher(d, &keys(d, &[1]));
        let a = seal(&c, "sbtest1", "k", b"42");
        assert_eq!(
            a,
            seal(&c, "sbtest1", "k", b"42"),
            "{}: not deterministic",
            d.name()
        );
        assert_ne!(a, seal(&c, "sbtest1", "k", b"43"), "{}", d.name());
        assert_ne!(
            a,
            seal(&c, "sbtest1", "c", b"42"),
            "{}: column not bound",
            d.name()
        );
        assert_ne!(
            a,
            seal(&c, "sbtest2", "k", b"42"),
            "{}: table not bound",
            d.name()
        );
        // And a value moved to another column or table does not open there.
        for (t, col) in [("sbtest1", "c"), ("sbtest2", "k")] {
            assert_eq!(
                open(&c, t, col, &a),
                Err(EnvelopeError::Decrypt { key_id: 1 }),
                "{}: opened in {t}.{col}",
                d.name()
            );
        }
    }
}

#[test]
fn tampering_truncation_version_and_unknown_key_ids_are_reported() {
    for d in encbench_registry::deterministic() {
        let c = cipher(d, &keys(d, &[1]));
        let s = seal(&c, "sbtest1", "k", b"1234");
        for i in HEADER_LEN..s.len() {
            let mut t = s.clone();
            t[i] ^= 0x01;
            assert!(
                matches!(
                    open(&c, "sbtest1", "k", &t),
                    Err(EnvelopeError::Decrypt { .. })
                ),
                "{}: flipped byte {i} opened",
                d.name()
            );
        }
        for len in 0..=HEADER_LEN {
            assert!(
                matches!(
                    open(&c, "sbtest1", "k", &s[..len]),
                    Err(EnvelopeError::Truncated { .. })
                ),
                "{}: {len} bytes",
                d.name()
            );
        }
        let mut v = s.clone();
        v[0] = 1;
        assert_eq!(open(&c, "sbtest1", "k", &v), Err(EnvelopeError::Version(1)));
        let mut id = s.clone();
        id[1..HEADER_LEN].copy_from_slice(&9u32.to_be_bytes());
        match open(&c, "sbtest1", "k", &id) {
            Err(EnvelopeError::UnknownKeyId { key_id: 9, known }) => assert_eq!(known, "1"),
            other => panic!("{}: {other:?}", d.name()),
        }
    }
}

#[test]
fn backends_of_one_algorithm_read_each_others_envelopes() {
    let all = encbench_registry::deterministic();
    for a in &all {
        for b in &all {
            if a.algorithm != b.algorithm || a.backend == b.backend {
                continue;
            }
            let k = keys(a, &[5]);
            let (ca, cb) = (cipher(a, &k), cipher(b, &k));
            for v in VALUES {
                let s = seal(&ca, "sbtest1", "k", v);
                assert_eq!(
                    s,
                    seal(&cb, "sbtest1", "k", v),
                    "{} vs {}",
                    a.name(),
                    b.name()
                );
                assert_eq!(open(&cb, "sbtest1", "k", &s).expect("open"), *v);
            }
        }
    }
}

#[test]
fn debug_output_names_no_key_material() {
    for d in encbench_registry::deterministic() {
        let k = keys(d, &[1]);
        let text = format!("{:?}", cipher(d, &k));
        let hex = k[0].1.to_hex();
        assert!(!text.contains(hex.as_str()), "{}: {text}", d.name());
        assert!(text.contains("DeterministicColumnCipher"), "{text}");
    }
}
