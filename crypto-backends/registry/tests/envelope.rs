//! The column envelope (`encbench_crypto::envelope::ColumnCipher`) on every
//! compiled-in backend and algorithm: layout, overhead, AAD binding (row, column,
//! table), key ids and rotation, truncation and version errors.
//!
//! Vectors: none fixed. Keys come from the OS CSPRNG; the sizes are sysbench's
//! `c` (119 bytes) and `pad` (59 bytes) plus edge cases. The layout checked here
//! is the one documented in `crypto-backends/core/src/envelope/mod.rs` and the README.

use encbench_crypto::envelope::{
    ColumnAad, ColumnCipher, EnvelopeError, HEADER_LEN, Location, MAX_AAD_FIELD, VERSION,
    int_primary_key, overhead,
};
use encbench_crypto::{Algorithm, Descriptor, Key, KeyId, Keyring};

const LENGTHS: &[usize] = &[0, 1, 16, 59, 119, 1000];

fn key(d: &Descriptor) -> Key {
    Key::generate(d.algorithm.key_len()).expect("OS random number generator")
}

fn cipher(d: &Descriptor, id: KeyId, key: &Key) -> ColumnCipher {
    ColumnCipher::new(Keyring::new(d, id, key).expect("key setup"))
}

const PK: [u8; 8] = int_primary_key(42);

fn here() -> Location<'static> {
    Location {
        table: "sbtest1",
        column: "c",
        primary_key: &PK,
    }
}

/// OpenSSL 3.0's AES-SIV cannot seal an empty value (a typed error; see negative.rs).
fn supports_empty(d: &Descriptor) -> bool {
    !(d.backend == "openssl" && d.algorithm == Algorithm::Aes256Siv)
}

fn value(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + 3) as u8).collect()
}

fn seal(c: &ColumnCipher, loc: &Location<'_>, plaintext: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    c.seal(loc, plaintext, &mut out).expect("seal");
    out
}

fn open(c: &ColumnCipher, loc: &Location<'_>, stored: &[u8]) -> Result<Vec<u8>, EnvelopeError> {
    let mut out = vec![0xee; 3];
    let r = c.open(loc, stored, &mut out);
    match r {
        Ok(()) => Ok(out),
        Err(e) => {
            assert!(out.is_empty(), "open must leave `out` empty on error");
            Err(e)
        }
    }
}

/// Asserts that `stored` does not open at `loc`: the opaque decryption error,
/// naming key id `key_id`. `what` says which case failed.
fn assert_refused(c: &ColumnCipher, loc: &Location<'_>, stored: &[u8], key_id: KeyId, what: &str) {
    assert_eq!(
        open(c, loc, stored),
        Err(EnvelopeError::Decrypt { key_id }),
        "{what}"
    );
}

#[test]
fn round_trip_and_layout() {
    for d in encbench_registry::all() {
        let name = d.name();
        let c = cipher(d, 1, &key(d));
        let alg = d.algorithm;
        let expected_overhead = HEADER_LEN + alg.nonce_len() + alg.max_expansion();
        assert_eq!(c.overhead(), expected_overhead, "{name}");
        assert_eq!(overhead(alg), expected_overhead, "{name}");
        if [
            Algorithm::Aes128Gcm,
            Algorithm::Aes256Gcm,
            Algorithm::ChaCha20Poly1305,
        ]
        .contains(&alg)
        {
            assert_eq!(c.overhead(), 33, "{name}");
        }
        for &len in LENGTHS {
            if len == 0 && !supports_empty(d) {
                continue;
            }
            let plaintext = value(len);
            let stored = seal(&c, &here(), &plaintext);
            assert_eq!(
                stored.len(),
                HEADER_LEN + alg.nonce_len() + alg.sealed_len(len),
                "{name}: envelope length for {len} bytes"
            );
            assert_eq!(stored[0], VERSION);
            assert_eq!(stored[1..HEADER_LEN], 1u32.to_be_bytes());
            assert_eq!(
                open(&c, &here(), &stored).expect("open"),
                plaintext,
                "{name} {len}"
            );
            let mut in_place = stored.clone();
            let opened = c
                .open_in_place(&here(), &mut in_place)
                .expect("open in place");
            assert_eq!(opened, plaintext.as_slice(), "{name} {len}");
        }
        // sysbench sizes: c (119) -> 152 bytes, pad (59) -> 92 bytes (33-byte overhead).
        if c.overhead() == 33 {
            assert_eq!(seal(&c, &here(), &value(119)).len(), 152);
            assert_eq!(seal(&c, &here(), &value(59)).len(), 92);
        }
    }
}

#[test]
fn open_vec_in_place_leaves_exactly_the_plaintext() {
    for d in encbench_registry::all() {
        let name = d.name();
        let c = cipher(d, 1, &key(d));
        for &len in LENGTHS {
            if len == 0 && !supports_empty(d) {
                continue;
            }
            let mut stored = seal(&c, &here(), &value(len));
            c.open_vec_in_place(&here(), &mut stored).expect("open");
            assert_eq!(stored, value(len), "{name} {len}");
        }
        let mut bad = seal(&c, &here(), &value(119));
        bad[40] ^= 1;
        assert_eq!(
            c.open_vec_in_place(&here(), &mut bad),
            Err(EnvelopeError::Decrypt { key_id: 1 }),
            "{name}"
        );
        assert!(bad.is_empty(), "{name}: cleared on error");
        let cut = c.overhead() - 1;
        let mut short = seal(&c, &here(), b"x")[..cut].to_vec();
        assert_eq!(
            c.open_vec_in_place(&here(), &mut short),
            Err(EnvelopeError::Truncated {
                len: cut,
                min: c.overhead()
            })
        );
        assert!(short.is_empty());
    }
}

#[test]
fn seal_reuses_and_replaces_the_output_buffer() {
    for d in encbench_registry::all() {
        let c = cipher(d, 1, &key(d));
        let mut out = vec![0xaa; 500];
        c.seal(&here(), b"short", &mut out).expect("seal");
        assert_eq!(
            out.len(),
            HEADER_LEN + d.algorithm.nonce_len() + d.algorithm.sealed_len(5)
        );
        assert_eq!(open(&c, &here(), &out).expect("open"), b"short");
    }
}

#[test]
fn nonces_differ_between_two_seals_of_the_same_value() {
    for d in encbench_registry::all() {
        let c = cipher(d, 1, &key(d));
        let a = seal(&c, &here(), b"same value");
        let b = seal(&c, &here(), b"same value");
        let nonce = HEADER_LEN..HEADER_LEN + d.algorithm.nonce_len();
        assert_ne!(a[nonce.clone()], b[nonce], "{}: nonce repeated", d.name());
        assert_ne!(a, b, "{}", d.name());
    }
}

#[test]
fn a_tampered_byte_fails_to_open() {
    for d in encbench_registry::all() {
        let name = d.name();
        let c = cipher(d, 1, &key(d));
        let stored = seal(&c, &here(), &value(59));
        // Every byte after the header: nonce, ciphertext, tag.
        for i in HEADER_LEN..stored.len() {
            let mut bad = stored.clone();
            bad[i] ^= 0x01;
            assert_refused(&c, &here(), &bad, 1, &format!("{name}: byte {i}"));
            let mut bad_in_place = bad.clone();
            assert_eq!(
                c.open_in_place(&here(), &mut bad_in_place)
                    .map(|p| p.to_vec()),
                Err(EnvelopeError::Decrypt { key_id: 1 }),
                "{name}: byte {i} in place"
            );
        }
        assert_eq!(open(&c, &here(), &stored).expect("open"), value(59));
    }
}

#[test]
fn a_truncated_envelope_is_reported_and_never_panics() {
    for d in encbench_registry::all() {
        let name = d.name();
        let c = cipher(d, 1, &key(d));
        for plaintext_len in [0, 119] {
            if plaintext_len == 0 && !supports_empty(d) {
                continue;
            }
            let stored = seal(&c, &here(), &value(plaintext_len));
            for len in 0..c.overhead() {
                let want = Err(EnvelopeError::Truncated {
                    len,
                    min: c.overhead(),
                });
                assert_eq!(
                    open(&c, &here(), &stored[..len]),
                    want,
                    "{name}: {len} bytes"
                );
                let mut cut = stored[..len].to_vec();
                assert_eq!(
                    c.open_in_place(&here(), &mut cut).map(|p| p.to_vec()),
                    want,
                    "{name}: {len} bytes in place"
                );
            }
            // Longer prefixes are envelopes of a shorter value with a broken tag.
            for len in c.overhead()..stored.len() {
                if len == c.overhead() && !supports_empty(d) {
                    continue;
                }
                let what = format!("{name}: {len} of {} bytes", stored.len());
                assert_refused(&c, &here(), &stored[..len], 1, &what);
            }
        }
        let message = EnvelopeError::Truncated { len: 3, min: 33 }.to_string();
        assert!(
            message.contains("3 bytes") && message.contains("33"),
            "{message}"
        );
    }
}

#[test]
fn wrong_key_under_the_same_id_fails_to_open() {
    for d in encbench_registry::all() {
        let sealer = cipher(d, 5, &key(d));
        let other = cipher(d, 5, &key(d));
        let stored = seal(&sealer, &here(), b"value");
        let e = open(&other, &here(), &stored).expect_err("opened under another key");
        assert_eq!(e, EnvelopeError::Decrypt { key_id: 5 }, "{}", d.name());
        assert!(e.to_string().contains("key id 5"), "{e}");
    }
}

#[test]
fn unknown_key_id_names_the_id() {
    for d in encbench_registry::all() {
        let sealer = cipher(d, 7, &key(d));
        let mut ring = Keyring::new(d, 8, &key(d)).expect("key setup");
        ring.insert(d, 9, &key(d)).expect("key setup");
        let opener = ColumnCipher::new(ring);
        let stored = seal(&sealer, &here(), b"value");
        let e = open(&opener, &here(), &stored).expect_err("opened with an unknown key id");
        assert_eq!(
            e,
            EnvelopeError::UnknownKeyId {
                key_id: 7,
                known: "8,9".to_string()
            },
            "{}",
            d.name()
        );
        let message = e.to_string();
        assert!(
            message.contains("key id 7") && message.contains("8,9"),
            "{message}"
        );
    }
}

#[test]
fn a_value_moved_elsewhere_fails_to_open() {
    for d in encbench_registry::all() {
        let name = d.name();
        let c = cipher(d, 1, &key(d));
        let stored = seal(&c, &here(), &value(119));
        let pk43 = int_primary_key(43);
        let pk_text = b"42";
        let moved = [
            (
                "another row",
                Location {
                    primary_key: &pk43,
                    ..here()
                },
            ),
            (
                "a text primary key",
                Location {
                    primary_key: pk_text,
                    ..here()
                },
            ),
            (
                "an empty primary key",
                Location {
                    primary_key: b"",
                    ..here()
                },
            ),
            (
                "another column",
                Location {
                    column: "pad",
                    ..here()
                },
            ),
            (
                "another table",
                Location {
                    table: "sbtest2",
                    ..here()
                },
            ),
            // Length prefixes keep the fields apart: "sbtest1" + "c" != "sbtest" + "1c".
            (
                "shifted field boundary",
                Location {
                    table: "sbtest",
                    column: "1c",
                    ..here()
                },
            ),
        ];
        for (what, loc) in moved {
            assert_refused(&c, &loc, &stored, 1, &format!("{name}: {what}"));
        }
        assert_eq!(open(&c, &here(), &stored).expect("open"), value(119));
    }
}

/// A column's AAD prefix ([`ColumnAad`], built once per column) and a
/// [`Location`] are the same binding: what one seals the other opens, in every
/// open path, and a value at another row, column or table fails under the
/// prefix too.
#[test]
fn a_column_prefix_and_a_location_are_interchangeable() {
    let col = ColumnAad::new("sbtest1", "c").expect("names fit");
    for d in encbench_registry::all() {
        let name = d.name();
        let c = cipher(d, 1, &key(d));
        for &len in LENGTHS {
            if len == 0 && !supports_empty(d) {
                continue;
            }
            let by_location = seal(&c, &here(), &value(len));
            let mut by_prefix = Vec::new();
            c.seal(&col.at(&PK), &value(len), &mut by_prefix)
                .expect("seal");
            assert_eq!(by_prefix.len(), by_location.len(), "{name} {len}");
            assert_eq!(open(&c, &here(), &by_prefix).expect("open"), value(len));
            let mut out = Vec::new();
            c.open(&col.at(&PK), &by_location, &mut out).expect("open");
            assert_eq!(out, value(len), "{name} {len}: open");
            let mut stored = by_location.clone();
            c.open_vec_in_place(&col.at(&PK), &mut stored)
                .expect("open");
            assert_eq!(stored, value(len), "{name} {len}: open_vec_in_place");
            let mut stored = by_location.clone();
            let opened = c.open_in_place(&col.at(&PK), &mut stored).expect("open");
            assert_eq!(opened, &value(len)[..], "{name} {len}: open_in_place");
        }
        let stored = seal(&c, &here(), &value(119));
        let pk43 = int_primary_key(43);
        let pad = ColumnAad::new("sbtest1", "pad").expect("fits");
        let other_table = ColumnAad::new("sbtest2", "c").expect("fits");
        let shifted = ColumnAad::new("sbtest", "1c").expect("fits");
        for (what, col, pk) in [
            ("another row", &col, &pk43[..]),
            ("a text primary key", &col, b"42"),
            ("another column", &pad, &PK),
            ("another table", &other_table, &PK),
            ("shifted field boundary", &shifted, &PK),
        ] {
            let mut out = Vec::new();
            assert_eq!(
                c.open(&col.at(pk), &stored, &mut out),
                Err(EnvelopeError::Decrypt { key_id: 1 }),
                "{name}: {what}"
            );
        }
    }
}

#[test]
fn a_changed_key_id_fails_even_when_the_new_id_exists() {
    for d in encbench_registry::all() {
        let k = key(d);
        let mut ring = Keyring::new(d, 1, &k).expect("key setup");
        ring.insert(d, 2, &k).expect("key setup"); // same key bytes under id 2
        let c = ColumnCipher::new(ring);
        let mut stored = seal(&c, &here(), b"value");
        stored[1..HEADER_LEN].copy_from_slice(&2u32.to_be_bytes());
        let what = format!("{}: the key id is bound through the AAD", d.name());
        assert_refused(&c, &here(), &stored, 2, &what);
    }
}

#[test]
fn a_changed_version_byte_is_reported() {
    for d in encbench_registry::all() {
        let c = cipher(d, 1, &key(d));
        let stored = seal(&c, &here(), b"value");
        for version in [0u8, 2, 0xff] {
            let mut bad = stored.clone();
            bad[0] = version;
            assert_eq!(
                open(&c, &here(), &bad),
                Err(EnvelopeError::Version(version)),
                "{}",
                d.name()
            );
        }
    }
    // The message says which kind was found, not "this build reads version 1":
    // version 2 is the deterministic envelope.
    let two = EnvelopeError::Version(2).to_string();
    assert!(
        two.contains("version 2 (deterministic)") && two.contains("--deterministic"),
        "{two}"
    );
    let unknown = EnvelopeError::Version(0xff).to_string();
    assert!(unknown.contains("version 255 is unknown"), "{unknown}");
}

#[test]
fn keyring_rotation_keeps_old_values_readable() {
    for d in encbench_registry::all() {
        let name = d.name();
        // Rotation as an operator does it: keep id 1, add id 2, make 2 active.
        let k1 = key(d);
        let mut ring = Keyring::new(d, 1, &k1).expect("key setup");
        let before = ColumnCipher::new(Keyring::new(d, 1, &k1).expect("key setup"));
        let v1 = seal(&before, &here(), b"old value");
        ring.insert(d, 2, &key(d)).expect("key setup");
        assert!(
            !ring.set_active(99),
            "{name}: unknown id must not become active"
        );
        assert!(ring.set_active(2), "{name}");
        let rotated = ColumnCipher::new(ring);
        assert_eq!(rotated.keyring().active().0, 2);
        assert_eq!(
            open(&rotated, &here(), &v1).expect("old value after rotation"),
            b"old value"
        );
        let v2 = seal(&rotated, &here(), b"new value");
        assert_eq!(
            v2[1..HEADER_LEN],
            2u32.to_be_bytes(),
            "{name}: new value carries key id 2"
        );
        assert_eq!(
            open(&rotated, &here(), &v2).expect("new value"),
            b"new value"
        );
        // The old keyring cannot read the new value, and says why.
        assert!(matches!(
            open(&before, &here(), &v2),
            Err(EnvelopeError::UnknownKeyId { key_id: 2, .. })
        ));
    }
}

#[test]
fn envelopes_are_backend_independent() {
    let all = encbench_registry::all();
    for a in &all {
        for b in all.iter().filter(|b| b.algorithm == a.algorithm) {
            let k = key(a);
            let sealer = cipher(a, 3, &k);
            let opener = cipher(b, 3, &k);
            let stored = seal(&sealer, &here(), &value(119));
            assert_eq!(
                open(&opener, &here(), &stored).expect("open"),
                value(119),
                "{} -> {}",
                a.name(),
                b.name()
            );
        }
    }
}

#[test]
fn fields_longer_than_255_bytes_are_refused() {
    for d in encbench_registry::all() {
        let c = cipher(d, 1, &key(d));
        let long = "t".repeat(MAX_AAD_FIELD + 1);
        let fits = "t".repeat(MAX_AAD_FIELD);
        let mut out = b"previous contents".to_vec();
        let r = c.seal(
            &Location {
                table: &long,
                ..here()
            },
            b"v",
            &mut out,
        );
        assert_eq!(
            r,
            Err(EnvelopeError::FieldTooLong {
                field: "table",
                len: 256
            })
        );
        assert!(out.is_empty(), "a refused seal leaves `out` empty");
        let r = c.seal(
            &Location {
                column: &long,
                ..here()
            },
            b"v",
            &mut out,
        );
        assert_eq!(
            r,
            Err(EnvelopeError::FieldTooLong {
                field: "column",
                len: 256
            })
        );
        let pk = vec![1u8; 256];
        let r = c.seal(
            &Location {
                primary_key: &pk,
                ..here()
            },
            b"v",
            &mut out,
        );
        assert_eq!(
            r,
            Err(EnvelopeError::FieldTooLong {
                field: "primary key",
                len: 256
            })
        );
        let loc = Location {
            table: &fits,
            column: &fits,
            primary_key: &[2u8; 255],
        };
        let stored = seal(&c, &loc, b"v");
        assert_eq!(open(&c, &loc, &stored).expect("open"), b"v");
    }
}

#[test]
fn debug_output_shows_no_key_material() {
    for d in encbench_registry::all() {
        let k = Key::from_bytes(&vec![0xb7; d.algorithm.key_len()]);
        let text = format!("{k:?} {:?}", cipher(d, 1, &k));
        assert!(!text.to_lowercase().contains("b7b7"), "{text}");
        assert!(!text.contains("183"), "{text}");
    }
}
