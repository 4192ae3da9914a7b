//! The keyed AEAD: one wrapper over `lib::aead::LessSafeKey`, shared by the ring
//! and aws-lc-rs backends (aws-lc-rs has ring's API), as rustls shares its provider
//! modules. `lib` is `ring` in `encbench-ring` and `aws_lc_rs` in `encbench-aws-lc`
//! (`#[path = "../../ring/src/aead.rs"]`); what differs between the two libraries
//! is in each crate's `lib.rs`: [`BACKEND`], `more_algorithms` (aws-lc-rs has
//! AES-GCM-SIV too), `max_message_len` (the library's limits),
//! `open_separate_tag` (ring takes a `Tag`, aws-lc-rs a slice) and
//! `ONE_PASS_OPEN` (ring decrypts from a source range to the front of the
//! buffer in one pass; AWS-LC only in place, so the plaintext is moved after:
//! [`encbench_crypto::open_within_by_move`]).

use std::fmt;
use std::ops::RangeFrom;

use encbench_crypto::{Algorithm, Descriptor, DetachedAead, Error};

use super::lib;
use super::{BACKEND, ONE_PASS_OPEN, max_message_len, more_algorithms, open_separate_tag};
use lib::aead::{Aad, LessSafeKey, Nonce, UnboundKey};

/// A library's open that reads `ciphertext || tag` at `in_out[ciphertext_and_tag]`
/// (the tag at `tag_at`, checked by the caller to be at least the start) and
/// writes the plaintext to `in_out[..len]` in the same pass: ring's
/// `open_in_place_separate_tag` with a source range. `ONE_PASS_OPEN` in each
/// crate's `lib.rs` is `Some` of it, or `None` when the library decrypts only
/// in place (AWS-LC): then the open moves the plaintext after decrypting
/// ([`encbench_crypto::open_within_by_move`]).
pub(crate) type OnePassOpen = fn(
    key: &LessSafeKey,
    nonce: Nonce,
    aad: Aad<&[u8]>,
    in_out: &mut [u8],
    ciphertext_and_tag: RangeFrom<usize>,
    tag_at: usize,
) -> Result<(), lib::error::Unspecified>;

/// The descriptor of `algorithm` in this backend (`algorithm` must be one that
/// `lib_algorithm` maps; the unit tests check every exported one).
pub(crate) const fn descriptor(algorithm: Algorithm) -> Descriptor {
    Descriptor::new(BACKEND, algorithm, new_key)
}

/// The library's algorithm for ours: `lib::aead::AES_128_GCM`, `AES_256_GCM` and
/// `CHACHA20_POLY1305` (RFC 8439) in both libraries, then the crate's own
/// `more_algorithms`; `None` for an algorithm the library does not have.
fn lib_algorithm(algorithm: Algorithm) -> Option<&'static lib::aead::Algorithm> {
    match algorithm {
        Algorithm::Aes128Gcm => Some(&lib::aead::AES_128_GCM),
        Algorithm::Aes256Gcm => Some(&lib::aead::AES_256_GCM),
        Algorithm::ChaCha20Poly1305 => Some(&lib::aead::CHACHA20_POLY1305),
        other => more_algorithms(other),
    }
}

/// Sets up a key: the library's key schedule, run once (`UnboundKey::new`; in
/// aws-lc-rs that is `EVP_AEAD_CTX_init`).
fn new_key(algorithm: Algorithm, key: &[u8]) -> Result<Box<dyn encbench_crypto::Aead>, Error> {
    Error::check_key(algorithm, key.len())?;
    let lib = lib_algorithm(algorithm)
        .ok_or_else(|| Error::Backend(format!("{BACKEND} does not implement {algorithm}")))?;
    let unbound = UnboundKey::new(lib, key).map_err(|_| {
        Error::Backend(format!(
            "{BACKEND} UnboundKey::new refused a {}-byte {algorithm} key",
            key.len()
        ))
    })?;
    Ok(Box::new(LessSafeAead {
        algorithm,
        max_len: max_message_len(algorithm),
        key: LessSafeKey::new(unbound),
    }))
}

/// One AEAD under one key. `Debug` shows the algorithm only.
pub(crate) struct LessSafeAead {
    algorithm: Algorithm,
    /// Longest message in bytes (`max_message_len`).
    max_len: u64,
    /// The keyed cipher (expanded key; an `EVP_AEAD_CTX` in aws-lc-rs, read-only
    /// after setup, so one serves every thread).
    key: LessSafeKey,
}

impl LessSafeAead {
    /// Checks nonce, tag and message lengths before the library sees them.
    fn check_lengths(&self, nonce_len: usize, tag_len: usize, len: usize) -> Result<(), Error> {
        Error::check_lengths(self.algorithm, self.max_len, nonce_len, tag_len, len)
    }

    /// The library's nonce from checked bytes.
    fn nonce(&self, nonce: &[u8]) -> Result<Nonce, Error> {
        Nonce::try_assume_unique_for_key(nonce).map_err(|_| Error::NonceLength {
            algorithm: self.algorithm,
            expected: self.algorithm.nonce_len(),
            actual: nonce.len(),
        })
    }
}

impl DetachedAead for LessSafeAead {
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
        let nonce = self.nonce(nonce)?;
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
        self.check_lengths(nonce.len(), tag.len(), in_out.len())?;
        let nonce = self.nonce(nonce)?;
        // Lengths are checked above, so the library's one (opaque) error is an
        // authentication failure.
        if open_separate_tag(&self.key, nonce, Aad::from(aad), tag, in_out).is_err() {
            // Both libraries leave the buffer "overwritten in an unspecified way" on
            // failure: leave nothing behind.
            return Err(wiped(in_out, Error::Decrypt));
        }
        Ok(())
    }

    // Inlined into `Aead::open_within` (its one caller, the envelope's open):
    // one call fewer per value, 27 instructions for aws-lc-rs and 26 for ring
    // per 119-byte value (callgrind, column-bench/README.md, "The envelope's cost").
    #[inline(always)]
    fn open_within_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        in_out: &mut [u8],
        ciphertext_and_tag: RangeFrom<usize>,
    ) -> Result<usize, Error> {
        let Some(one_pass_open) = ONE_PASS_OPEN else {
            return encbench_crypto::open_within_by_move(
                self,
                nonce,
                aad,
                in_out,
                ciphertext_and_tag,
            );
        };
        let start = ciphertext_and_tag.start;
        let tag_len = self.algorithm.tag_len();
        let Some(tag_at) = in_out.len().checked_sub(tag_len).filter(|&t| t >= start) else {
            return Err(wiped(in_out, Error::Decrypt));
        };
        let len = tag_at - start;
        if let Err(e) = self.check_lengths(nonce.len(), tag_len, len) {
            return Err(wiped(in_out, e));
        }
        let nonce = match self.nonce(nonce) {
            Ok(nonce) => nonce,
            Err(e) => return Err(wiped(in_out, e)),
        };
        if one_pass_open(&self.key, nonce, Aad::from(aad), in_out, start.., tag_at).is_err() {
            return Err(wiped(in_out, Error::Decrypt));
        }
        Ok(len)
    }
}

/// Zeroes `in_out` after a failed open and returns `e` (out of line: the
/// error path of the per-value open).
#[cold]
#[inline(never)]
fn wiped(in_out: &mut [u8], e: Error) -> Error {
    in_out.fill(0);
    e
}

impl fmt::Debug for LessSafeAead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LessSafeAead")
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
    fn the_library_agrees_with_our_sizes() {
        for algorithm in crate::ALGORITHMS.iter().map(|d| d.algorithm) {
            let lib = lib_algorithm(algorithm);
            assert!(lib.is_some(), "{algorithm} is exported but not mapped");
            if let Some(lib) = lib {
                assert_eq!(lib.key_len(), algorithm.key_len(), "{algorithm}");
                assert_eq!(lib.nonce_len(), algorithm.nonce_len(), "{algorithm}");
                assert_eq!(lib.tag_len(), algorithm.tag_len(), "{algorithm}");
            }
        }
    }

    #[test]
    fn an_algorithm_not_implemented_is_a_typed_error() {
        let key = [0u8; 64];
        let result = descriptor(Algorithm::Aes256Siv).new_key(&key);
        assert!(
            matches!(&result, Err(Error::Backend(m)) if m.contains("does not implement")),
            "{result:?}"
        );
    }

    #[test]
    fn too_long_is_a_typed_error() -> Result<(), Error> {
        let aead = LessSafeAead {
            algorithm: Algorithm::Aes128Gcm,
            max_len: 4,
            key: LessSafeKey::new(
                UnboundKey::new(&lib::aead::AES_128_GCM, &[1u8; 16]).map_err(|_| Error::Decrypt)?,
            ),
        };
        // The library's limit (here 4 bytes) is checked before the library sees the
        // message, on both paths.
        let too_long = Err(Error::TooLong {
            algorithm: Algorithm::Aes128Gcm,
            max: 4,
            actual: 5,
        });
        let (mut data, mut tag) = ([0u8; 5], [0u8; 16]);
        let sealed = aead.seal_in_place_detached(&[0u8; 12], b"", &mut data, &mut tag);
        assert_eq!(sealed, too_long);
        let opened = aead.open_in_place_detached(&[0u8; 12], b"", &mut data, &tag);
        assert_eq!(opened, too_long);
        let mut data = [0u8; 4];
        assert_eq!(
            aead.seal_in_place_detached(&[0u8; 12], b"", &mut data, &mut tag),
            Ok(())
        );
        Ok(())
    }

    #[test]
    fn failed_open_wipes_the_buffer() -> Result<(), Error> {
        for d in crate::ALGORITHMS {
            let aead = d.new_key(&vec![3u8; d.algorithm.key_len()])?;
            let detached = aead.detached().ok_or(Error::Decrypt)?;
            let nonce = vec![9u8; d.algorithm.nonce_len()];
            let mut data = *b"a row of data";
            let mut tag = [0u8; 16];
            detached.seal_in_place_detached(&nonce, b"aad", &mut data, &mut tag)?;
            tag[15] ^= 0x80;
            let opened = detached.open_in_place_detached(&nonce, b"aad", &mut data, &tag);
            assert_eq!(opened, Err(Error::Decrypt), "{}", d.name());
            assert!(data.iter().all(|&b| b == 0), "{}", d.name());
        }
        Ok(())
    }

    #[test]
    fn debug_shows_no_key_material() -> Result<(), Error> {
        let key = [0x5a_u8; 32];
        let aead = descriptor(Algorithm::Aes256Gcm).new_key(&key)?;
        assert_eq!(
            format!("{aead:?}"),
            format!("{BACKEND}:aes-256-gcm {{ key: <redacted> }}")
        );
        let inner = LessSafeAead {
            algorithm: Algorithm::Aes256Gcm,
            max_len: 0,
            key: LessSafeKey::new(
                UnboundKey::new(&lib::aead::AES_256_GCM, &key).map_err(|_| Error::Decrypt)?,
            ),
        };
        let text = format!("{inner:?}");
        assert!(!text.to_lowercase().contains("5a"), "{text}");
        Ok(())
    }
}
