//! The keyed AEAD: one generic wrapper over the RustCrypto `AeadInPlace` ciphers.

use std::fmt;

use aes_gcm::aead::consts::U16;
use aes_gcm::aead::generic_array::GenericArray;
use aes_gcm::aead::{AeadCore, AeadInPlace, KeyInit};
use aes_gcm::{Aes128Gcm, Aes256Gcm};
use aes_gcm_siv::Aes256GcmSiv;
use aes_siv::Aes256SivAead;
use chacha20poly1305::{ChaCha20Poly1305, XChaCha20Poly1305};
use encbench_crypto::{Aead, Algorithm, Descriptor, DetachedAead, Error};

use crate::BACKEND;

/// The descriptor of `algorithm` in this backend; its key setup, [`new_key`],
/// picks the RustCrypto cipher: `aes_gcm::Aes128Gcm` / `Aes256Gcm`,
/// `chacha20poly1305::ChaCha20Poly1305` / `XChaCha20Poly1305` (24-byte nonce),
/// `aes_gcm_siv::Aes256GcmSiv` (RFC 8452), and `aes_siv::Aes256SivAead` (AES-256-SIV
/// as a nonce-based AEAD: S2V headers AAD, then the nonce, RFC 5297 section 3; the
/// crate runs the key schedule on every call).
pub(crate) const fn descriptor(algorithm: Algorithm) -> Descriptor {
    Descriptor::new(BACKEND, algorithm, new_key)
}

/// Sets up a key of `algorithm` with the RustCrypto cipher that implements it.
fn new_key(algorithm: Algorithm, key: &[u8]) -> Result<Box<dyn Aead>, Error> {
    match algorithm {
        Algorithm::Aes128Gcm => new_cipher::<Aes128Gcm>(algorithm, key),
        Algorithm::Aes256Gcm => new_cipher::<Aes256Gcm>(algorithm, key),
        Algorithm::ChaCha20Poly1305 => new_cipher::<ChaCha20Poly1305>(algorithm, key),
        Algorithm::XChaCha20Poly1305 => new_cipher::<XChaCha20Poly1305>(algorithm, key),
        Algorithm::Aes256GcmSiv => new_cipher::<Aes256GcmSiv>(algorithm, key),
        Algorithm::Aes256Siv => new_cipher::<Aes256SivAead>(algorithm, key),
        Algorithm::Aes256CbcHmacSha256 => crate::cbc_hmac::new_randomized(key),
        other => Err(Error::Backend(format!(
            "{BACKEND} does not implement {other}"
        ))),
    }
}

/// The longest message, in bytes, this backend seals or opens for `algorithm`.
///
/// The algorithm's limit ([`Algorithm::max_plaintext_len`]), except that the
/// `chacha20poly1305` crate refuses `len / 64 >= 2^32 - 1`, one byte short of
/// RFC 8439's 2^38 - 64. (`aes-gcm` 0.10 accepts up to 2^36, more than NIST SP
/// 800-38D's 2^36 - 32, so the NIST limit applies there.)
pub(crate) fn max_message_len(algorithm: Algorithm) -> u64 {
    match algorithm {
        Algorithm::ChaCha20Poly1305 | Algorithm::XChaCha20Poly1305 => algorithm
            .max_plaintext_len()
            .min(u64::from(u32::MAX) * 64 - 1),
        other => other.max_plaintext_len(),
    }
}

/// Sets up a key: the RustCrypto key schedule, run once.
fn new_cipher<C>(algorithm: Algorithm, key: &[u8]) -> Result<Box<dyn Aead>, Error>
where
    C: KeyInit + AeadCore<TagSize = U16> + AeadInPlace + Send + Sync + 'static,
{
    Error::check_key(algorithm, key.len())?;
    let cipher = C::new_from_slice(key).map_err(|_| Error::KeyLength {
        algorithm,
        expected: algorithm.key_len(),
        actual: key.len(),
    })?;
    Ok(Box::new(RustCryptoAead {
        algorithm,
        max_len: max_message_len(algorithm),
        cipher,
    }))
}

/// One RustCrypto AEAD under one key. `Debug` shows the algorithm only.
pub(crate) struct RustCryptoAead<C> {
    algorithm: Algorithm,
    /// Longest message in bytes ([`max_message_len`]).
    max_len: u64,
    /// The keyed cipher (expanded key).
    cipher: C,
}

impl<C> RustCryptoAead<C> {
    /// Checks nonce, tag and message lengths before any call that could panic on them.
    fn check_lengths(&self, nonce_len: usize, tag_len: usize, len: usize) -> Result<(), Error> {
        Error::check_lengths(self.algorithm, self.max_len, nonce_len, tag_len, len)
    }
}

impl<C> DetachedAead for RustCryptoAead<C>
where
    C: AeadCore<TagSize = U16> + AeadInPlace + Send + Sync,
{
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
        self.check_lengths(nonce.len(), tag.len(), in_out.len())?;
        let computed = self
            .cipher
            .encrypt_in_place_detached(GenericArray::from_slice(nonce), aad, in_out)
            .map_err(|_| {
                Error::Backend(format!(
                    "{BACKEND} {} encrypt_in_place_detached refused the input (AAD of {} bytes over the crate's limit?)",
                    self.algorithm,
                    aad.len()
                ))
            })?;
        tag.copy_from_slice(&computed);
        Ok(())
    }

    fn open_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        self.check_lengths(nonce.len(), tag.len(), in_out.len())?;
        let opened = self.cipher.decrypt_in_place_detached(
            GenericArray::from_slice(nonce),
            aad,
            in_out,
            GenericArray::from_slice(tag),
        );
        if opened.is_err() {
            // aes-gcm 0.10 may have decrypted before it compared the tag: leave nothing behind.
            in_out.fill(0);
            return Err(Error::Decrypt);
        }
        Ok(())
    }
}

impl<C> fmt::Debug for RustCryptoAead<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RustCryptoAead")
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
        assert_eq!(algorithms, Algorithm::ALL);
        assert!(crate::ALGORITHMS.iter().all(|d| d.backend == BACKEND));
    }

    #[test]
    fn message_limits_follow_nist_and_rfc_8439() {
        assert_eq!(max_message_len(Algorithm::Aes128Gcm), (1 << 36) - 32);
        assert_eq!(max_message_len(Algorithm::Aes256Gcm), (1 << 36) - 32);
        assert_eq!(max_message_len(Algorithm::ChaCha20Poly1305), (1 << 38) - 65);
        assert_eq!(
            max_message_len(Algorithm::XChaCha20Poly1305),
            (1 << 38) - 65
        );
        assert_eq!(max_message_len(Algorithm::Aes256GcmSiv), 1 << 36);
    }

    #[test]
    fn too_long_is_a_typed_error() {
        let aead = RustCryptoAead {
            algorithm: Algorithm::Aes128Gcm,
            max_len: 4,
            cipher: (),
        };
        assert_eq!(aead.check_lengths(12, 16, 4), Ok(()));
        assert_eq!(
            aead.check_lengths(12, 16, 5),
            Err(Error::TooLong {
                algorithm: Algorithm::Aes128Gcm,
                max: 4,
                actual: 5
            })
        );
    }

    #[test]
    fn debug_shows_no_key_material() -> Result<(), Error> {
        let key = [0x5a_u8; 32];
        let aead = descriptor(Algorithm::Aes256Gcm).new_key(&key)?;
        let text = format!("{aead:?}");
        assert_eq!(text, "rustcrypto:aes-256-gcm { key: <redacted> }");
        let inner = RustCryptoAead {
            algorithm: Algorithm::Aes256Gcm,
            max_len: 0,
            cipher: Aes256Gcm::new_from_slice(&key).map_err(|_| Error::Decrypt)?,
        };
        let text = format!("{inner:?}");
        assert!(!text.to_lowercase().contains("5a"), "{text}");
        Ok(())
    }
}
