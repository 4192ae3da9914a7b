//! Negative tests on every compiled-in backend and algorithm: tampering gives the
//! one opaque `Error::Decrypt`, wrong sizes give typed errors, nothing panics, and
//! a failed open leaves the key (and OpenSSL's per-thread context) usable.
//!
//! Vectors: none fixed. Keys, nonces, AAD and messages are random (OS CSPRNG);
//! every bit of the nonce, AAD, ciphertext and tag is flipped in turn.

use encbench_crypto::{Aead, Descriptor, Error, random_nonce};

fn random(len: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; len];
    random_nonce(&mut bytes).expect("OS random number generator");
    bytes
}

/// A keyed AEAD and one sealed message.
struct Sealed {
    aead: Box<dyn Aead>,
    key: Vec<u8>,
    nonce: Vec<u8>,
    aad: Vec<u8>,
    plaintext: Vec<u8>,
    ciphertext: Vec<u8>,
    tag: Vec<u8>,
}

fn seal(d: &Descriptor, len: usize) -> Sealed {
    let key = random(d.algorithm.key_len());
    let aead = d.new_key(&key).expect("key setup");
    let nonce = random(d.algorithm.nonce_len());
    let aad = random(21);
    let plaintext = random(len);
    let mut sealed = aead.seal_to_vec(&nonce, &aad, &plaintext).expect("seal");
    let tag = sealed.split_off(sealed.len() - d.algorithm.tag_len());
    let ciphertext = sealed;
    Sealed {
        aead,
        key,
        nonce,
        aad,
        plaintext,
        ciphertext,
        tag,
    }
}

impl Sealed {
    /// Opens `ciphertext || tag` in place (the path the envelope uses); returns the
    /// result and the buffer afterwards: the plaintext on success, the whole buffer
    /// (zeroed, or untouched for the CBC algorithm, which checks the MAC before it
    /// decrypts) on failure.
    fn open_with(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ciphertext: &[u8],
        tag: &[u8],
    ) -> (Result<(), Error>, Vec<u8>) {
        let mut buf = [ciphertext, tag].concat();
        match self.aead.open_in_place(nonce, aad, &mut buf) {
            Ok(plaintext) => {
                let len = plaintext.len();
                buf.truncate(len);
                (Ok(()), buf)
            }
            Err(e) => (Err(e), buf),
        }
    }

    /// The untouched message must open (on this same thread, after any failure).
    fn assert_opens(&self, name: &str) {
        let (r, buf) = self.open_with(&self.nonce, &self.aad, &self.ciphertext, &self.tag);
        assert_eq!(r, Ok(()), "{name}: good open after a failed one");
        assert_eq!(buf, self.plaintext, "{name}");
    }
}

/// Every single-bit change of `field` must fail with `Error::Decrypt` and leave
/// zeros in the buffer; the good message still opens after each failure.
fn flip_every_bit(
    name: &str,
    s: &Sealed,
    field: &str,
    bytes: &[u8],
    open: impl Fn(&[u8]) -> (Result<(), Error>, Vec<u8>),
) -> usize {
    let mut flips = 0;
    for i in 0..bytes.len() * 8 {
        let mut changed = bytes.to_vec();
        changed[i / 8] ^= 1 << (i % 8);
        let (r, buf) = open(&changed);
        assert_eq!(r, Err(Error::Decrypt), "{name}: bit {i} of the {field}");
        // The plaintext is random: any 8 of its bytes in a row would be a leak.
        assert!(
            !buf.windows(8)
                .any(|w| s.plaintext.windows(8).any(|p| p == w)),
            "{name}: failed open left plaintext in the buffer"
        );
        if i % 7 == 0 {
            s.assert_opens(name);
        }
        flips += 1;
    }
    flips
}

/// OpenSSL 3.0's AES-SIV cannot take an empty plaintext (a typed error, tested below).
fn supports_empty(d: &Descriptor) -> bool {
    !(d.backend == "openssl" && d.algorithm == encbench_crypto::Algorithm::Aes256Siv)
}

#[test]
fn openssl_siv_refuses_an_empty_plaintext_with_a_typed_error() {
    for d in encbench_registry::all()
        .into_iter()
        .filter(|d| !supports_empty(d))
    {
        let aead = d
            .new_key(&random(d.algorithm.key_len()))
            .expect("key setup");
        let nonce = random(d.algorithm.nonce_len());
        match aead.seal_to_vec(&nonce, b"", b"") {
            Err(Error::Backend(text)) => assert!(text.contains("empty plaintext"), "{text}"),
            other => panic!("{}: {other:?}", d.name()),
        }
    }
}

#[test]
fn a_flipped_bit_anywhere_fails_to_open() {
    for d in encbench_registry::all() {
        let name = d.name();
        let s = seal(d, 37);
        let mut flips = 0;
        flips += flip_every_bit(&name, &s, "nonce", &s.nonce, |n| {
            s.open_with(n, &s.aad, &s.ciphertext, &s.tag)
        });
        flips += flip_every_bit(&name, &s, "AAD", &s.aad, |a| {
            s.open_with(&s.nonce, a, &s.ciphertext, &s.tag)
        });
        flips += flip_every_bit(&name, &s, "ciphertext", &s.ciphertext, |c| {
            s.open_with(&s.nonce, &s.aad, c, &s.tag)
        });
        flips += flip_every_bit(&name, &s, "tag", &s.tag, |t| {
            s.open_with(&s.nonce, &s.aad, &s.ciphertext, t)
        });
        assert_eq!(
            flips,
            (s.nonce.len() + 21 + s.ciphertext.len() + s.tag.len()) * 8
        );
        s.assert_opens(&name);
    }
}

#[test]
fn a_changed_length_fails_to_open() {
    for d in encbench_registry::all() {
        let name = d.name();
        let s = seal(d, 40);
        // Ciphertext cut short or extended, AAD cut short or extended.
        let cut = s.ciphertext.len() - 1;
        let (r, _) = s.open_with(&s.nonce, &s.aad, &s.ciphertext[..cut], &s.tag);
        assert_eq!(r, Err(Error::Decrypt), "{name}: shortened ciphertext");
        let longer = [s.ciphertext.as_slice(), &[0]].concat();
        let (r, _) = s.open_with(&s.nonce, &s.aad, &longer, &s.tag);
        assert_eq!(r, Err(Error::Decrypt), "{name}: extended ciphertext");
        let (r, _) = s.open_with(&s.nonce, &s.aad[..20], &s.ciphertext, &s.tag);
        assert_eq!(r, Err(Error::Decrypt), "{name}: shortened AAD");
        let (r, _) = s.open_with(&s.nonce, &[], &s.ciphertext, &s.tag);
        assert_eq!(r, Err(Error::Decrypt), "{name}: no AAD");
        // Input shorter than a tag.
        let sealed = s.aead.seal_to_vec(&s.nonce, &s.aad, b"x").expect("seal");
        assert_eq!(
            s.aead
                .open_to_vec(&s.nonce, &s.aad, &sealed[..s.tag.len() - 1]),
            Err(Error::Decrypt)
        );
        assert_eq!(
            s.aead.open_to_vec(&s.nonce, &s.aad, &[]),
            Err(Error::Decrypt)
        );
        s.assert_opens(&name);
    }
}

#[test]
fn wrong_key_fails_to_open() {
    for d in encbench_registry::all() {
        let name = d.name();
        for len in [0, 1, 119] {
            if len == 0 && !supports_empty(d) {
                continue;
            }
            let s = seal(d, len);
            let mut other_key = s.key.clone();
            other_key[0] ^= 0x80;
            let other = d.new_key(&other_key).expect("key setup");
            let sealed = [s.ciphertext.as_slice(), &s.tag].concat();
            assert_eq!(
                other.open_to_vec(&s.nonce, &s.aad, &sealed),
                Err(Error::Decrypt),
                "{name}: wrong key, {len} bytes"
            );
            let unrelated = d
                .new_key(&random(d.algorithm.key_len()))
                .expect("key setup");
            assert_eq!(
                unrelated.open_to_vec(&s.nonce, &s.aad, &sealed),
                Err(Error::Decrypt),
                "{name}: random key, {len} bytes"
            );
            s.assert_opens(&name);
        }
    }
}

/// The requirement on the OpenSSL backend's reused per-thread contexts, checked on
/// every backend: a failed open is followed by good opens and seals on the same
/// thread, many times over.
#[test]
fn failed_open_leaves_the_key_usable_on_the_same_thread() {
    for d in encbench_registry::all() {
        let name = d.name();
        let s = seal(d, 59);
        for round in 0..50 {
            let mut bad_tag = s.tag.clone();
            bad_tag[round % 16] ^= 0x40;
            let (r, _) = s.open_with(&s.nonce, &s.aad, &s.ciphertext, &bad_tag);
            assert_eq!(r, Err(Error::Decrypt), "{name}: round {round}");
            s.assert_opens(&name);
            // Failed open twice in a row, then a seal, then an open of the new value.
            let (r, _) = s.open_with(&s.nonce, &s.aad, &s.ciphertext, &bad_tag);
            assert_eq!(r, Err(Error::Decrypt));
            let nonce = random(d.algorithm.nonce_len());
            let sealed = s
                .aead
                .seal_to_vec(&nonce, b"", b"next value")
                .expect("seal after failure");
            assert_eq!(
                s.aead.open_to_vec(&nonce, b"", &sealed).expect("open"),
                b"next value"
            );
        }
    }
}

#[test]
fn wrong_key_length_is_a_typed_error() {
    for d in encbench_registry::all() {
        let expected = d.algorithm.key_len();
        for len in [0, 1, 12, 15, 16, 17, 24, 31, 32, 33, 48, 64] {
            if len == expected {
                continue;
            }
            match d.new_key(&vec![7u8; len]) {
                Err(e) => assert_eq!(
                    e,
                    Error::KeyLength {
                        algorithm: d.algorithm,
                        expected,
                        actual: len
                    },
                    "{}",
                    d.name()
                ),
                Ok(_) => panic!("{} accepted a {len}-byte key", d.name()),
            }
        }
    }
}

#[test]
fn wrong_nonce_length_is_a_typed_error() {
    for d in encbench_registry::all() {
        let name = d.name();
        let s = seal(d, 16);
        let expected = d.algorithm.nonce_len();
        for len in [0, 1, 8, 11, 13, 16, 24] {
            let nonce = vec![1u8; len];
            let want = Err(Error::NonceLength {
                algorithm: d.algorithm,
                expected,
                actual: len,
            });
            if len == expected {
                continue;
            }
            if let Some(detached) = s.aead.detached() {
                let mut buf = s.plaintext.clone();
                let mut tag = vec![0u8; s.tag.len()];
                assert_eq!(
                    detached.seal_in_place_detached(&nonce, &s.aad, &mut buf, &mut tag),
                    want,
                    "{name} seal"
                );
                assert_eq!(
                    buf, s.plaintext,
                    "{name}: a refused seal must not touch the buffer"
                );
            }
            let mut buf = [s.ciphertext.as_slice(), &s.tag].concat();
            assert_eq!(
                s.aead.open_in_place(&nonce, &s.aad, &mut buf).map(|_| ()),
                want,
                "{name} open"
            );
            assert_eq!(
                s.aead.seal_to_vec(&nonce, &s.aad, &s.plaintext),
                want.map(|()| Vec::new())
            );
        }
        s.assert_opens(&name);
    }
}

#[test]
fn wrong_tag_length_is_a_typed_error() {
    for d in encbench_registry::all() {
        let name = d.name();
        let s = seal(d, 16);
        let Some(detached) = s.aead.detached() else {
            // The CBC algorithm has no separate tag buffer in its API: a wrong total
            // length is a failed open (`a_changed_length_fails_to_open`).
            assert!(!d.algorithm.is_length_preserving(), "{name}");
            continue;
        };
        let expected = d.algorithm.tag_len();
        for len in [0, 1, 4, 8, 12, 15, 17, 32] {
            let want = Err(Error::TagLength {
                algorithm: d.algorithm,
                expected,
                actual: len,
            });
            let mut buf = s.plaintext.clone();
            let mut tag = vec![0u8; len];
            assert_eq!(
                detached.seal_in_place_detached(&s.nonce, &s.aad, &mut buf, &mut tag),
                want,
                "{name} seal"
            );
            let mut buf = s.ciphertext.clone();
            let short = &[s.tag.as_slice(), &[0; 16]].concat()[..len];
            assert_eq!(
                detached.open_in_place_detached(&s.nonce, &s.aad, &mut buf, short),
                want,
                "{name} open"
            );
        }
        s.assert_opens(&name);
    }
}

#[test]
fn debug_output_names_the_algorithm_and_never_the_key() {
    for d in encbench_registry::all() {
        let key = vec![0xc3u8; d.algorithm.key_len()];
        let aead = d.new_key(&key).expect("key setup");
        let text = format!("{aead:?}");
        assert_eq!(text, format!("{} {{ key: <redacted> }}", d.name()));
        assert!(!text.to_lowercase().contains("c3c3"), "{text}");
        let descriptor = format!("{d:?}");
        assert!(descriptor.contains(d.backend), "{descriptor}");
    }
}
