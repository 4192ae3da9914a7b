//! Known-answer tests, written once and run on every compiled-in backend that
//! implements the algorithm.
//!
//! Where the vectors come from:
//!
//! - AES-GCM: D. McGrew and J. Viega, "The Galois/Counter Mode of Operation
//!   (GCM)", revised 2005, Appendix B, test cases 1-4 (AES-128) and 13-16
//!   (AES-256): the cases with a 96-bit IV (5, 6, 17 and 18 use 64- and 480-bit
//!   IVs, which no algorithm here accepts). Plus NIST CAVP `gcmtestvectors.zip`,
//!   `gcmEncryptExtIV128.rsp` and `gcmEncryptExtIV256.rsp`, `[IVlen = 96]`,
//!   `[Taglen = 128]`, `Count = 0` of the sections named in each vector.
//! - ChaCha20-Poly1305: RFC 8439, section 2.8.2 (AEAD test vector) and
//!   appendix A.5 (AEAD decryption example).
//!
//! Each vector checks seal (exact ciphertext and tag, detached and into a vector),
//! open (detached and from a vector), and that a flipped tag byte fails.

use std::collections::BTreeMap;

use encbench_crypto::{Algorithm, Descriptor, Error};

/// One test vector; all fields hex.
struct Vector {
    source: &'static str,
    algorithm: Algorithm,
    key: &'static str,
    nonce: &'static str,
    aad: &'static str,
    plaintext: &'static str,
    ciphertext: &'static str,
    tag: &'static str,
}

const GCM_P: &str = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72\
                     1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255";
const GCM_P60: &str = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72\
                       1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39";
const GCM_A: &str = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
const GCM_IV: &str = "cafebabefacedbaddecaf888";
const ZERO_IV: &str = "000000000000000000000000";

const AES_128_GCM: &[Vector] = &[
    Vector {
        source: "McGrew-Viega test case 1",
        algorithm: Algorithm::Aes128Gcm,
        key: "00000000000000000000000000000000",
        nonce: ZERO_IV,
        aad: "",
        plaintext: "",
        ciphertext: "",
        tag: "58e2fccefa7e3061367f1d57a4e7455a",
    },
    Vector {
        source: "McGrew-Viega test case 2",
        algorithm: Algorithm::Aes128Gcm,
        key: "00000000000000000000000000000000",
        nonce: ZERO_IV,
        aad: "",
        plaintext: "00000000000000000000000000000000",
        ciphertext: "0388dace60b6a392f328c2b971b2fe78",
        tag: "ab6e47d42cec13bdf53a67b21257bddf",
    },
    Vector {
        source: "McGrew-Viega test case 3",
        algorithm: Algorithm::Aes128Gcm,
        key: "feffe9928665731c6d6a8f9467308308",
        nonce: GCM_IV,
        aad: "",
        plaintext: GCM_P,
        ciphertext: "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e\
                     21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
        tag: "4d5c2af327cd64a62cf35abd2ba6fab4",
    },
    Vector {
        source: "McGrew-Viega test case 4",
        algorithm: Algorithm::Aes128Gcm,
        key: "feffe9928665731c6d6a8f9467308308",
        nonce: GCM_IV,
        aad: GCM_A,
        plaintext: GCM_P60,
        ciphertext: "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e\
                     21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
        tag: "5bc94fbc3221a5db94fae95ae7121a47",
    },
    Vector {
        source: "CAVP gcmEncryptExtIV128 [PTlen = 0] [AADlen = 0] Count = 0",
        algorithm: Algorithm::Aes128Gcm,
        key: "11754cd72aec309bf52f7687212e8957",
        nonce: "3c819d9a9bed087615030b65",
        aad: "",
        plaintext: "",
        ciphertext: "",
        tag: "250327c674aaf477aef2675748cf6971",
    },
    Vector {
        source: "CAVP gcmEncryptExtIV128 [PTlen = 128] [AADlen = 128] Count = 0",
        algorithm: Algorithm::Aes128Gcm,
        key: "c939cc13397c1d37de6ae0e1cb7c423c",
        nonce: "b3d8cc017cbb89b39e0f67e2",
        aad: "24825602bd12a984e0092d3e448eda5f",
        plaintext: "c3b3c41f113a31b73d9a5cd432103069",
        ciphertext: "93fe7d9e9bfd10348a5606e5cafa7354",
        tag: "0032a1dc85f1c9786925a2e71d8272dd",
    },
];

const AES_256_GCM: &[Vector] = &[
    Vector {
        source: "McGrew-Viega test case 13",
        algorithm: Algorithm::Aes256Gcm,
        key: "0000000000000000000000000000000000000000000000000000000000000000",
        nonce: ZERO_IV,
        aad: "",
        plaintext: "",
        ciphertext: "",
        tag: "530f8afbc74536b9a963b4f1c4cb738b",
    },
    Vector {
        source: "McGrew-Viega test case 14",
        algorithm: Algorithm::Aes256Gcm,
        key: "0000000000000000000000000000000000000000000000000000000000000000",
        nonce: ZERO_IV,
        aad: "",
        plaintext: "00000000000000000000000000000000",
        ciphertext: "cea7403d4d606b6e074ec5d3baf39d18",
        tag: "d0d1c8a799996bf0265b98b5d48ab919",
    },
    Vector {
        source: "McGrew-Viega test case 15",
        algorithm: Algorithm::Aes256Gcm,
        key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
        nonce: GCM_IV,
        aad: "",
        plaintext: GCM_P,
        ciphertext: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa\
                     8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
        tag: "b094dac5d93471bdec1a502270e3cc6c",
    },
    Vector {
        source: "McGrew-Viega test case 16",
        algorithm: Algorithm::Aes256Gcm,
        key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
        nonce: GCM_IV,
        aad: GCM_A,
        plaintext: GCM_P60,
        ciphertext: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa\
                     8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
        tag: "76fc6ece0f4e1768cddf8853bb2d551b",
    },
    Vector {
        source: "CAVP gcmEncryptExtIV256 [PTlen = 0] [AADlen = 0] Count = 0",
        algorithm: Algorithm::Aes256Gcm,
        key: "b52c505a37d78eda5dd34f20c22540ea1b58963cf8e5bf8ffa85f9f2492505b4",
        nonce: "516c33929df5a3284ff463d7",
        aad: "",
        plaintext: "",
        ciphertext: "",
        tag: "bdc1ac884d332457a1d2664f168c76f0",
    },
    Vector {
        source: "CAVP gcmEncryptExtIV256 [PTlen = 128] [AADlen = 160] Count = 0",
        algorithm: Algorithm::Aes256Gcm,
        key: "83688deb4af8007f9b713b47cfa6c73e35ea7a3aa4ecdb414dded03bf7a0fd3a",
        nonce: "0b459724904e010a46901cf3",
        aad: "794a14ccd178c8ebfd1379dc704c5e208f9d8424",
        plaintext: "33d893a2114ce06fc15d55e454cf90c3",
        ciphertext: "cc66bee423e3fcd4c0865715e9586696",
        tag: "0fb291bd3dba94a1dfd8b286cfb97ac5",
    },
];

const CHACHA20_POLY1305: &[Vector] = &[
    Vector {
        source: "RFC 8439 section 2.8.2",
        algorithm: Algorithm::ChaCha20Poly1305,
        key: "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
        nonce: "070000004041424344454647",
        aad: "50515253c0c1c2c3c4c5c6c7",
        // "Ladies and Gentlemen of the class of '99: If I could offer you only one
        // tip for the future, sunscreen would be it."
        plaintext: "4c616469657320616e642047656e746c656d656e206f662074686520636c6173\
                    73206f66202739393a204966204920636f756c64206f6666657220796f75206f\
                    6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73\
                    637265656e20776f756c642062652069742e",
        ciphertext: "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6\
                     3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36\
                     92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc\
                     3ff4def08e4b7a9de576d26586cec64b6116",
        tag: "1ae10b594f09e26a7e902ecbd0600691",
    },
    Vector {
        source: "RFC 8439 appendix A.5",
        algorithm: Algorithm::ChaCha20Poly1305,
        key: "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0",
        nonce: "000000000102030405060708",
        aad: "f33388860000000000004e91",
        // "Internet-Drafts are draft documents valid for a maximum of six months
        // and may be updated, replaced, or obsoleted by other documents at any
        // time. It is inappropriate to use Internet-Drafts as reference material
        // or to cite them other than as /"work in progress./"" (curly quotes).
        plaintext: "496e7465726e65742d4472616674732061726520647261667420646f63756d65\
                    6e74732076616c696420666f722061206d6178696d756d206f6620736978206d\
                    6f6e74687320616e64206d617920626520757064617465642c207265706c6163\
                    65642c206f72206f62736f6c65746564206279206f7468657220646f63756d65\
                    6e747320617420616e792074696d652e20497420697320696e617070726f7072\
                    6961746520746f2075736520496e7465726e65742d4472616674732061732072\
                    65666572656e6365206d6174657269616c206f7220746f206369746520746865\
                    6d206f74686572207468616e206173202fe2809c776f726b20696e2070726f67\
                    726573732e2fe2809d",
        ciphertext: "64a0861575861af460f062c79be643bd5e805cfd345cf389f108670ac76c8cb2\
                     4c6cfc18755d43eea09ee94e382d26b0bdb7b73c321b0100d4f03b7f355894cf\
                     332f830e710b97ce98c8a84abd0b948114ad176e008d33bd60f982b1ff37c855\
                     9797a06ef4f0ef61c186324e2b3506383606907b6a7c02b0f9f6157b53c867e4\
                     b9166c767b804d46a59b5216cde7a4e99040c5a40433225ee282a1b0a06c523e\
                     af4534d7f83fa1155b0047718cbc546a0d072b04b3564eea1b422273f548271a\
                     0bb2316053fa76991955ebd63159434ecebb4e466dae5a1073a6727627097a10\
                     49e617d91d361094fa68f0ff77987130305beaba2eda04df997b714d6c6f2c29\
                     a6ad5cb4022b02709b",
        tag: "eead9d67890cbb22392336fea1851f38",
    },
];

/// Every vector set, by algorithm.
const ALL_VECTORS: &[(Algorithm, &[Vector])] = &[
    (Algorithm::Aes128Gcm, AES_128_GCM),
    (Algorithm::Aes256Gcm, AES_256_GCM),
    (Algorithm::ChaCha20Poly1305, CHACHA20_POLY1305),
];

fn unhex(text: &str) -> Vec<u8> {
    hex::decode(text).expect("test vector is valid hex")
}

/// Runs one vector on one backend; returns a description of the first mismatch.
fn check(d: &Descriptor, v: &Vector) -> Result<(), String> {
    let fail = |what: &str| format!("{} {}: {what}", d.name(), v.source);
    let (key, nonce, aad) = (unhex(v.key), unhex(v.nonce), unhex(v.aad));
    let (plaintext, ciphertext, tag) = (unhex(v.plaintext), unhex(v.ciphertext), unhex(v.tag));
    assert_eq!(
        plaintext.len(),
        ciphertext.len(),
        "{}: vector lengths",
        v.source
    );
    let aead = d
        .new_key(&key)
        .map_err(|e| fail(&format!("key setup: {e}")))?;
    let detached = aead
        .detached()
        .ok_or_else(|| fail("a GCM or ChaCha20 key has no detached form"))?;

    // Seal, detached and in place.
    let mut buf = plaintext.clone();
    let mut got_tag = [0u8; 16];
    detached
        .seal_in_place_detached(&nonce, &aad, &mut buf, &mut got_tag)
        .map_err(|e| fail(&format!("seal: {e}")))?;
    if buf != ciphertext {
        return Err(fail(&format!(
            "ciphertext {} != {}",
            hex::encode(&buf),
            v.ciphertext
        )));
    }
    if got_tag[..] != tag[..] {
        return Err(fail(&format!("tag {} != {}", hex::encode(got_tag), v.tag)));
    }
    // Seal into a vector: ciphertext || tag.
    let sealed = aead
        .seal_to_vec(&nonce, &aad, &plaintext)
        .map_err(|e| fail(&format!("seal_to_vec: {e}")))?;
    if sealed != [ciphertext.as_slice(), tag.as_slice()].concat() {
        return Err(fail("seal_to_vec output differs"));
    }

    // Open, detached and in place, then from the vector.
    let mut buf = ciphertext.clone();
    detached
        .open_in_place_detached(&nonce, &aad, &mut buf, &tag)
        .map_err(|e| fail(&format!("open: {e}")))?;
    if buf != plaintext {
        return Err(fail("open returned other plaintext"));
    }
    let opened = aead
        .open_to_vec(&nonce, &aad, &sealed)
        .map_err(|e| fail(&format!("open_to_vec: {e}")))?;
    if opened != plaintext {
        return Err(fail("open_to_vec returned other plaintext"));
    }
    // After an envelope-sized prefix (header 5 + nonce 12), plaintext to the front.
    let mut buf = [&[0xa5u8; 17][..], &sealed].concat();
    let opened = aead
        .open_within(&nonce, &aad, &mut buf, 17..)
        .map_err(|e| fail(&format!("open_within: {e}")))?;
    if *opened != plaintext[..] {
        return Err(fail("open_within returned other plaintext"));
    }

    // A flipped byte must fail, and the key must still work afterwards.
    let mut bad_tag = tag.clone();
    bad_tag[15] ^= 0x01;
    let mut buf = ciphertext.clone();
    match detached.open_in_place_detached(&nonce, &aad, &mut buf, &bad_tag) {
        Err(Error::Decrypt) => {}
        other => return Err(fail(&format!("flipped tag byte gave {other:?}"))),
    }
    let again = aead
        .open_to_vec(&nonce, &aad, &sealed)
        .map_err(|e| fail(&format!("open after a failed open: {e}")))?;
    if again != plaintext {
        return Err(fail("open after a failed open returned other plaintext"));
    }
    Ok(())
}

/// Runs `vectors` on every compiled-in backend that has `algorithm`; asserts
/// every vector ran and passed on each; returns (backend, vectors run).
fn run_on_every_backend(algorithm: Algorithm, vectors: &[Vector]) -> Vec<(&'static str, usize)> {
    assert!(vectors.iter().all(|v| v.algorithm == algorithm));
    let mut failures = Vec::new();
    let mut counts = Vec::new();
    for d in encbench_registry::all()
        .into_iter()
        .filter(|d| d.algorithm == algorithm)
    {
        let mut passed = 0;
        for v in vectors {
            match check(d, v) {
                Ok(()) => passed += 1,
                Err(e) => failures.push(e),
            }
        }
        println!(
            "{}: {passed} of {} known-answer vectors passed",
            d.name(),
            vectors.len()
        );
        counts.push((d.backend, passed));
    }
    assert!(
        failures.is_empty(),
        "known-answer failures:\n{}",
        failures.join("\n")
    );
    for (backend, n) in &counts {
        assert_eq!(*n, vectors.len(), "{backend}:{algorithm} ran {n} vectors");
    }
    counts
}

/// The backends that offer `algorithm` in this build.
fn backends_with(algorithm: Algorithm) -> Vec<&'static str> {
    encbench_registry::all()
        .into_iter()
        .filter(|d| d.algorithm == algorithm)
        .map(|d| d.backend)
        .collect()
}

#[test]
fn aes_128_gcm_known_answers() {
    let counts = run_on_every_backend(Algorithm::Aes128Gcm, AES_128_GCM);
    assert_eq!(counts.len(), backends_with(Algorithm::Aes128Gcm).len());
    assert_eq!(AES_128_GCM.len(), 6);
}

#[test]
fn aes_256_gcm_known_answers() {
    let counts = run_on_every_backend(Algorithm::Aes256Gcm, AES_256_GCM);
    assert_eq!(counts.len(), backends_with(Algorithm::Aes256Gcm).len());
    assert_eq!(AES_256_GCM.len(), 6);
}

#[test]
fn chacha20_poly1305_known_answers() {
    let counts = run_on_every_backend(Algorithm::ChaCha20Poly1305, CHACHA20_POLY1305);
    assert_eq!(
        counts.len(),
        backends_with(Algorithm::ChaCha20Poly1305).len()
    );
    assert_eq!(CHACHA20_POLY1305.len(), 2);
}

/// Algorithms whose known answers come from Wycheproof (wycheproof.rs) rather than
/// from the vectors in this file.
const WYCHEPROOF_ONLY: &[Algorithm] = &[
    Algorithm::XChaCha20Poly1305,
    Algorithm::Aes256GcmSiv,
    Algorithm::Aes256Siv,
];

/// No compiled-in algorithm goes without known answers: a new backend or
/// algorithm must come with vectors (here, in wycheproof.rs, or for Always
/// Encrypted's algorithm, the independent composition in always_encrypted.rs).
#[test]
fn every_compiled_in_descriptor_has_vectors() {
    for d in encbench_registry::all() {
        let n = ALL_VECTORS
            .iter()
            .find(|(a, _)| *a == d.algorithm)
            .map_or(0, |(_, v)| v.len());
        assert!(
            n > 0
                || WYCHEPROOF_ONLY.contains(&d.algorithm)
                || d.algorithm == Algorithm::Aes256CbcHmacSha256,
            "{} has no known-answer vectors",
            d.name()
        );
    }
}

/// Counts the vectors each compiled-in backend ran, over all algorithms: with
/// the default features, 14 each for `aws-lc-rs`, `openssl`, `ring` and
/// `rustcrypto`.
#[test]
fn vectors_per_backend() {
    let mut per_backend: BTreeMap<&str, usize> = BTreeMap::new();
    for (algorithm, vectors) in ALL_VECTORS {
        for (backend, n) in run_on_every_backend(*algorithm, vectors) {
            *per_backend.entry(backend).or_default() += n;
        }
    }
    for (backend, n) in &per_backend {
        println!("{backend}: {n} known-answer vectors in all");
    }
    let expected: BTreeMap<&str, usize> = encbench_registry::backends()
        .into_iter()
        .map(|b| {
            let n = ALL_VECTORS
                .iter()
                .filter(|(a, _)| backends_with(*a).contains(&b))
                .map(|(_, v)| v.len())
                .sum();
            (b, n)
        })
        .collect();
    assert_eq!(per_backend, expected);
    // With all four backends compiled in (the default build):
    if encbench_registry::backends().len() == 4 {
        assert_eq!(
            per_backend,
            BTreeMap::from([
                ("aws-lc-rs", 14),
                ("openssl", 14),
                ("ring", 14),
                ("rustcrypto", 14)
            ])
        );
    }
}
