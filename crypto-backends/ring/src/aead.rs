//! The keyed AEAD: one wrapper over `ring::aead::LessSafeKey` for the three
//! algorithms.

use std::fmt;

use encbench_crypto::{Aead, Algorithm, Descriptor, Error};
use ring::aead::{Aad, LessSafeKey, Nonce, Tag, UnboundKey};

/// The backend name used in `BACKEND:ALGORITHM` names.
pub(crate) const BACKEND: &str = "ring";

/// AES-128-GCM (`ring::aead::AES_128_GCM`).
pub(crate) const AES_128_GCM: Descriptor = Descriptor {
    backend: BACKEND,
    algorithm: Algorithm::Aes128Gcm,
    new_key: new_aes_128_gcm,
};

/// AES-256-GCM (`ring::aead::AES_256_GCM`).
pub(crate) const AES_256_GCM: Descriptor = Descriptor {
    backend: BACKEND,
    algorithm: Algorithm::Aes256Gcm,
    new_key: new_aes_256_gcm,
};

/// ChaCha20-Poly1305 (`ring::aead::CHACHA20_POLY1305`, RFC 8439).
pub(crate) const CHACHA20_POLY1305: Descriptor = Descriptor {
    backend: BACKEND,
    algorithm: Algorithm::ChaCha20Poly1305,
    new_key: new_chacha20_poly1305,
};

fn new_aes_128_gcm(key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    new_key(Algorithm::Aes128Gcm, key)
}

fn new_aes_256_gcm(key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    new_key(Algorithm::Aes256Gcm, key)
}

fn new_chacha20_poly1305(key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    new_key(Algorithm::ChaCha20Poly1305, key)
}

/// ring's algorithm for `algorithm`.
fn ring_algorithm(algorithm: Algorithm) -> Result<&'static ring::aead::Algorithm, Error> {
    match algorithm {
        Algorithm::Aes128Gcm => Ok(&ring::aead::AES_128_GCM),
        Algorithm::Aes256Gcm => Ok(&ring::aead::AES_256_GCM),
        Algorithm::ChaCha20Poly1305 => Ok(&ring::aead::CHACHA20_POLY1305),
        other => Err(Error::Backend(format!(
            "{BACKEND} does not implement {other}"
        ))),
    }
}

/// Sets up a key: ring's key schedule, run once.
fn new_key(algorithm: Algorithm, key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    Error::check_key(algorithm, key.len())?;
    let unbound = UnboundKey::new(ring_algorithm(algorithm)?, key).map_err(|_| {
        Error::Backend(format!(
            "ring UnboundKey::new refused a {}-byte {algorithm} key",
            key.len()
        ))
    })?;
    Ok(Box::new(RingAead {
        algorithm,
        key: LessSafeKey::new(unbound),
    }))
}

/// One ring AEAD under one key. `Debug` shows the algorithm only.
pub(crate) struct RingAead {
    algorithm: Algorithm,
    /// The keyed cipher (expanded key).
    key: LessSafeKey,
}

/// Checks nonce, tag and message lengths before ring sees them.
///
/// ring's own limits are the algorithms' ([`Algorithm::max_plaintext_len`]):
/// 2^36 - 32 bytes for AES-GCM, 2^38 - 64 for ChaCha20-Poly1305.
fn check_lengths(
    algorithm: Algorithm,
    nonce_len: usize,
    tag_len: usize,
    len: usize,
) -> Result<(), Error> {
    Error::check_lengths(
        algorithm,
        algorithm.max_plaintext_len(),
        nonce_len,
        tag_len,
        len,
    )
}

/// ring's nonce from checked bytes.
fn ring_nonce(algorithm: Algorithm, nonce: &[u8]) -> Result<Nonce, Error> {
    Nonce::try_assume_unique_for_key(nonce).map_err(|_| Error::NonceLength {
        algorithm,
        expected: algorithm.nonce_len(),
        actual: nonce.len(),
    })
}

impl Aead for RingAead {
    fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    fn backend(&self) -> &'static str {
        BACKEND
    }

    fn seal_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), Error> {
        check_lengths(self.algorithm, nonce.len(), tag.len(), in_out.len())?;
        let nonce = ring_nonce(self.algorithm, nonce)?;
        let computed = self
            .key
            .seal_in_place_separate_tag(nonce, Aad::from(aad), in_out)
            .map_err(|_| {
                Error::Backend(format!(
                    "{BACKEND} {} seal_in_place_separate_tag refused {} bytes with {} bytes of AAD",
                    self.algorithm,
                    in_out.len(),
                    aad.len()
                ))
            })?;
        tag.copy_from_slice(computed.as_ref());
        Ok(())
    }

    fn open_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        check_lengths(self.algorithm, nonce.len(), tag.len(), in_out.len())?;
        let nonce = ring_nonce(self.algorithm, nonce)?;
        let tag = Tag::try_from(tag).map_err(|_| Error::TagLength {
            algorithm: self.algorithm,
            expected: self.algorithm.tag_len(),
            actual: tag.len(),
        })?;
        // Lengths are checked above, so ring's one (opaque) error is an
        // authentication failure.
        let opened = self
            .key
            .open_in_place_separate_tag(nonce, Aad::from(aad), tag, in_out, 0..)
            .map(|_| ());
        if opened.is_err() {
            // Whatever ring leaves in the buffer on failure: leave nothing behind.
            in_out.fill(0);
            return Err(Error::Decrypt);
        }
        Ok(())
    }
}

impl fmt::Debug for RingAead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RingAead")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_name_this_backend_and_every_algorithm_once() {
        let algorithms: Vec<Algorithm> = crate::ALGORITHMS.iter().map(|d| d.algorithm).collect();
        let mut sorted = algorithms.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(algorithms, sorted, "in Algorithm order, each once");
        assert!(crate::ALGORITHMS.iter().all(|d| d.backend == BACKEND));
    }

    #[test]
    fn ring_agrees_with_our_sizes() -> Result<(), Error> {
        for algorithm in crate::ALGORITHMS.iter().map(|d| d.algorithm) {
            let ring = ring_algorithm(algorithm)?;
            assert_eq!(ring.key_len(), algorithm.key_len(), "{algorithm}");
            assert_eq!(ring.nonce_len(), algorithm.nonce_len(), "{algorithm}");
            assert_eq!(ring.tag_len(), algorithm.tag_len(), "{algorithm}");
        }
        Ok(())
    }

    #[test]
    fn too_long_is_a_typed_error() {
        let max = (1u64 << 38) - 64;
        let algorithm = Algorithm::ChaCha20Poly1305;
        assert_eq!(check_lengths(algorithm, 12, 16, 1000), Ok(()));
        if let Ok(len) = usize::try_from(max + 1) {
            assert_eq!(
                check_lengths(algorithm, 12, 16, len),
                Err(Error::TooLong {
                    algorithm,
                    max,
                    actual: max + 1
                })
            );
        }
    }

    #[test]
    fn failed_open_wipes_the_buffer() -> Result<(), Error> {
        let aead = (AES_128_GCM.new_key)(&[3u8; 16])?;
        let nonce = [9u8; 12];
        let mut data = *b"a row of data";
        let mut tag = [0u8; 16];
        aead.seal_in_place_detached(&nonce, b"aad", &mut data, &mut tag)?;
        tag[0] ^= 1;
        let opened = aead.open_in_place_detached(&nonce, b"aad", &mut data, &tag);
        assert_eq!(opened, Err(Error::Decrypt));
        assert!(data.iter().all(|&b| b == 0));
        Ok(())
    }

    #[test]
    fn debug_shows_no_key_material() -> Result<(), Error> {
        let key = [0x5a_u8; 32];
        let aead = (AES_256_GCM.new_key)(&key)?;
        assert_eq!(format!("{aead:?}"), "ring:aes-256-gcm { key: <redacted> }");
        let inner = RingAead {
            algorithm: Algorithm::Aes256Gcm,
            key: LessSafeKey::new(
                UnboundKey::new(&ring::aead::AES_256_GCM, &key).map_err(|_| Error::Decrypt)?,
            ),
        };
        let text = format!("{inner:?}");
        assert!(!text.to_lowercase().contains("5a"), "{text}");
        Ok(())
    }
}
