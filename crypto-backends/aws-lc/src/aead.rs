//! The keyed AEAD: one wrapper over `aws_lc_rs::aead::LessSafeKey` for the three
//! algorithms.

use std::fmt;

use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey};
use encbench_crypto::{Aead, Algorithm, Descriptor, Error};

/// The backend name used in `BACKEND:ALGORITHM` names.
pub(crate) const BACKEND: &str = "aws-lc-rs";

/// AES-128-GCM (`aws_lc_rs::aead::AES_128_GCM`).
pub(crate) const AES_128_GCM: Descriptor = Descriptor {
    backend: BACKEND,
    algorithm: Algorithm::Aes128Gcm,
    new_key: new_aes_128_gcm,
};

/// AES-256-GCM (`aws_lc_rs::aead::AES_256_GCM`).
pub(crate) const AES_256_GCM: Descriptor = Descriptor {
    backend: BACKEND,
    algorithm: Algorithm::Aes256Gcm,
    new_key: new_aes_256_gcm,
};

/// ChaCha20-Poly1305 (`aws_lc_rs::aead::CHACHA20_POLY1305`, RFC 8439).
pub(crate) const CHACHA20_POLY1305: Descriptor = Descriptor {
    backend: BACKEND,
    algorithm: Algorithm::ChaCha20Poly1305,
    new_key: new_chacha20_poly1305,
};

/// AES-256-GCM-SIV (`aws_lc_rs::aead::AES_256_GCM_SIV`, RFC 8452).
pub(crate) const AES_256_GCM_SIV: Descriptor = Descriptor {
    backend: BACKEND,
    algorithm: Algorithm::Aes256GcmSiv,
    new_key: new_aes_256_gcm_siv,
};

fn new_aes_256_gcm_siv(key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    new_key(Algorithm::Aes256GcmSiv, key)
}

fn new_aes_128_gcm(key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    new_key(Algorithm::Aes128Gcm, key)
}

fn new_aes_256_gcm(key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    new_key(Algorithm::Aes256Gcm, key)
}

fn new_chacha20_poly1305(key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    new_key(Algorithm::ChaCha20Poly1305, key)
}

/// aws-lc-rs's algorithm for `algorithm`.
fn aws_lc_algorithm(algorithm: Algorithm) -> Result<&'static aws_lc_rs::aead::Algorithm, Error> {
    match algorithm {
        Algorithm::Aes128Gcm => Ok(&aws_lc_rs::aead::AES_128_GCM),
        Algorithm::Aes256Gcm => Ok(&aws_lc_rs::aead::AES_256_GCM),
        Algorithm::ChaCha20Poly1305 => Ok(&aws_lc_rs::aead::CHACHA20_POLY1305),
        Algorithm::Aes256GcmSiv => Ok(&aws_lc_rs::aead::AES_256_GCM_SIV),
        other => Err(Error::Backend(format!(
            "{BACKEND} does not implement {other}"
        ))),
    }
}

/// The longest message, in bytes, this backend seals or opens for `algorithm`.
///
/// The algorithm's limit ([`Algorithm::max_plaintext_len`]), except that AWS-LC
/// refuses ChaCha20-Poly1305 messages of `2^38 - 64` bytes or more
/// (`crypto/cipher_extra/e_chacha20poly1305.c`), one byte short of RFC 8439.
/// AES-GCM's limit is NIST's 2^36 - 32 in AWS-LC too (`crypto/fipsmodule/modes/gcm.c`).
pub(crate) fn max_message_len(algorithm: Algorithm) -> u64 {
    match algorithm {
        Algorithm::ChaCha20Poly1305 => algorithm.max_plaintext_len().min((1 << 38) - 65),
        other => other.max_plaintext_len(),
    }
}

/// Sets up a key: AWS-LC's key schedule (`EVP_AEAD_CTX_init`), run once.
fn new_key(algorithm: Algorithm, key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    Error::check_key(algorithm, key.len())?;
    let unbound = UnboundKey::new(aws_lc_algorithm(algorithm)?, key).map_err(|_| {
        Error::Backend(format!(
            "aws-lc-rs UnboundKey::new (EVP_AEAD_CTX_init) refused a {}-byte {algorithm} key",
            key.len()
        ))
    })?;
    Ok(Box::new(AwsLcAead {
        algorithm,
        max_len: max_message_len(algorithm),
        key: LessSafeKey::new(unbound),
    }))
}

/// One AWS-LC AEAD under one key. `Debug` shows the algorithm only.
pub(crate) struct AwsLcAead {
    algorithm: Algorithm,
    /// Longest message in bytes ([`max_message_len`]).
    max_len: u64,
    /// The keyed context (`EVP_AEAD_CTX`).
    key: LessSafeKey,
}

/// Checks nonce, tag and message lengths before AWS-LC sees them.
fn check_lengths(
    algorithm: Algorithm,
    max: u64,
    nonce_len: usize,
    tag_len: usize,
    len: usize,
) -> Result<(), Error> {
    Error::check_lengths(algorithm, max, nonce_len, tag_len, len)
}

/// aws-lc-rs's nonce from checked bytes.
fn aws_lc_nonce(algorithm: Algorithm, nonce: &[u8]) -> Result<Nonce, Error> {
    Nonce::try_assume_unique_for_key(nonce).map_err(|_| Error::NonceLength {
        algorithm,
        expected: algorithm.nonce_len(),
        actual: nonce.len(),
    })
}

impl Aead for AwsLcAead {
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
        check_lengths(
            self.algorithm,
            self.max_len,
            nonce.len(),
            tag.len(),
            in_out.len(),
        )?;
        let nonce = aws_lc_nonce(self.algorithm, nonce)?;
        let computed = self
            .key
            .seal_in_place_separate_tag(nonce, Aad::from(aad), in_out)
            .map_err(|_| {
                Error::Backend(format!(
                    "{BACKEND} {} seal_in_place_separate_tag (EVP_AEAD_CTX_seal_scatter) refused {} bytes with {} bytes of AAD",
                    self.algorithm,
                    in_out.len(),
                    aad.len()
                ))
            })?;
        let computed = computed.as_ref();
        if computed.len() != tag.len() {
            return Err(Error::Backend(format!(
                "{BACKEND} {} seal_in_place_separate_tag returned a {}-byte tag, expected {}",
                self.algorithm,
                computed.len(),
                tag.len()
            )));
        }
        tag.copy_from_slice(computed);
        Ok(())
    }

    fn open_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        check_lengths(
            self.algorithm,
            self.max_len,
            nonce.len(),
            tag.len(),
            in_out.len(),
        )?;
        let nonce = aws_lc_nonce(self.algorithm, nonce)?;
        // Lengths are checked above, so aws-lc-rs's one (opaque) error is an
        // authentication failure.
        let opened = self
            .key
            .open_in_place_separate_tag(nonce, Aad::from(aad), tag, in_out)
            .map(|_| ());
        if opened.is_err() {
            // aws-lc-rs documents the buffer as "overwritten in an unspecified
            // way" on failure: leave nothing behind.
            in_out.fill(0);
            return Err(Error::Decrypt);
        }
        Ok(())
    }
}

impl fmt::Debug for AwsLcAead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AwsLcAead")
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
    fn aws_lc_agrees_with_our_sizes() -> Result<(), Error> {
        for algorithm in crate::ALGORITHMS.iter().map(|d| d.algorithm) {
            let aws_lc = aws_lc_algorithm(algorithm)?;
            assert_eq!(aws_lc.key_len(), algorithm.key_len(), "{algorithm}");
            assert_eq!(aws_lc.nonce_len(), algorithm.nonce_len(), "{algorithm}");
            assert_eq!(aws_lc.tag_len(), algorithm.tag_len(), "{algorithm}");
        }
        Ok(())
    }

    #[test]
    fn message_limits_follow_nist_and_aws_lc() {
        assert_eq!(max_message_len(Algorithm::Aes128Gcm), (1 << 36) - 32);
        assert_eq!(max_message_len(Algorithm::Aes256Gcm), (1 << 36) - 32);
        assert_eq!(max_message_len(Algorithm::ChaCha20Poly1305), (1 << 38) - 65);
    }

    #[test]
    fn too_long_is_a_typed_error() {
        let algorithm = Algorithm::Aes128Gcm;
        assert_eq!(check_lengths(algorithm, 4, 12, 16, 4), Ok(()));
        assert_eq!(
            check_lengths(algorithm, 4, 12, 16, 5),
            Err(Error::TooLong {
                algorithm,
                max: 4,
                actual: 5
            })
        );
    }

    #[test]
    fn failed_open_wipes_the_buffer() -> Result<(), Error> {
        let aead = (CHACHA20_POLY1305.new_key)(&[3u8; 32])?;
        let nonce = [9u8; 12];
        let mut data = *b"a row of data";
        let mut tag = [0u8; 16];
        aead.seal_in_place_detached(&nonce, b"aad", &mut data, &mut tag)?;
        tag[15] ^= 0x80;
        let opened = aead.open_in_place_detached(&nonce, b"aad", &mut data, &tag);
        assert_eq!(opened, Err(Error::Decrypt));
        assert!(data.iter().all(|&b| b == 0));
        Ok(())
    }

    #[test]
    fn debug_shows_no_key_material() -> Result<(), Error> {
        let key = [0x5a_u8; 32];
        let aead = (AES_256_GCM.new_key)(&key)?;
        assert_eq!(
            format!("{aead:?}"),
            "aws-lc-rs:aes-256-gcm { key: <redacted> }"
        );
        let inner = AwsLcAead {
            algorithm: Algorithm::Aes256Gcm,
            max_len: 0,
            key: LessSafeKey::new(
                UnboundKey::new(&aws_lc_rs::aead::AES_256_GCM, &key).map_err(|_| Error::Decrypt)?,
            ),
        };
        let text = format!("{inner:?}");
        assert!(!text.to_lowercase().contains("5a"), "{text}");
        Ok(())
    }
}
